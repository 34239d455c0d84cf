"""Corpora: which files make one, reading them as a stream of text parts, their sizes and languages."""
