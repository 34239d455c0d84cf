"""tokviz: see text as a tokenizer sees it. ``tokviz.show(text, ["gpt2", "o200k"])`` in a notebook.

The package imports nothing heavy at first: ``show`` loads the core when it is first used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["show"]


def __getattr__(name: str) -> Any:
    if name == "show":
        from tokviz.core.token_html import show

        return show
    raise AttributeError(f"module 'tokviz' has no attribute {name!r}")
