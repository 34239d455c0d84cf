"""The names each of OpenAI's bundled encodings answers to, for the registry and the encodings alike.

A leaf module with no imports, so the registry can resolve names without loading the encodings.
"""

from __future__ import annotations

# Each bundled encoding: its published name, the short name tokviz lists it by, other names.
BUNDLED_NAMES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("r50k_base", "gpt2", ("r50k", "gpt-2")),
    ("cl100k_base", "cl100k", ()),
    ("o200k_base", "o200k", ("gpt-4o",)),
)


def encoding_aliases(by_short_name: bool) -> dict[str, str]:
    """Every name of a bundled encoding -> its published name, or its short name with ``by_short_name``."""
    return {
        alias: short if by_short_name else name
        for name, short, others in BUNDLED_NAMES
        for alias in (name, short, *others)
    }
