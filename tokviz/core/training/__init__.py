"""Training byte-level BPE: the trainer and its pair index, count tables, counting on Dask, replay."""
