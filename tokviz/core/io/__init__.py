"""Files and processes: atomic writes, output sets and their locks, process pools, bundled resources, file kinds, safe text."""
