"""tokviz: see text as a tokenizer sees it. ``tokviz.show(text, ["gpt2", "o200k"])`` in a notebook.

The package imports nothing heavy at first: ``show`` and ``encode`` load the core when first used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["encode", "show"]


def __getattr__(name: str) -> Any:
    if name in ("show", "encode"):
        from tokviz.core.show import token_html

        return getattr(token_html, name)
    raise AttributeError(f"module 'tokviz' has no attribute {name!r}")
