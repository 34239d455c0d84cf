"""Measuring tokenizers: evaluation, exchange rates, sweeps, parity, usage, audits, embeddings."""
