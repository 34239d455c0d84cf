"""The merge timeline: replay BPE merge by merge on the editor's text."""
