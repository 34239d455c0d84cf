"""Reusable widgets: the token view, the tokenizer picker, the editor's highlighter."""
