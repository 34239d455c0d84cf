"""Pre-tokenization: patterns weighed before they compile, the pre-tokenizers, Unicode tables, byte labels."""
