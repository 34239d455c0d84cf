"""What tokviz assumed about a tokenizer, said by every command that shows its counts or ids.

A rank file or a vocab.json + merges.txt folder without a config tokviz can read does not say
how it cuts text; tokviz then reads it with GPT-2's pattern (``Tokenizer.assumptions``). Counts
and rankings built on that guess must not read as facts: each command prints one note per such
tokenizer on standard error, and its JSON carries the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tokviz.cli.command import print_note

if TYPE_CHECKING:
    from tokviz.core.bpe.tokenizer import Tokenizer

_HOW_TO_SAY = "give --pattern (the regex, or gpt2, cl100k, o200k) if it differs"


def assumption_lines(labels: Sequence[str], tokenizers: Sequence[Tokenizer]) -> list[str]:
    """One line per tokenizer with assumptions: its label, what was assumed and how to say otherwise."""
    return [
        f"{label}: {'; '.join(tok.assumptions)} (the results rest on that guess{_hint(tok.assumptions)})"
        for label, tok in zip(labels, tokenizers, strict=True)
        if tok.assumptions
    ]


def _hint(assumptions: Sequence[str]) -> str:
    """How to say what was assumed, where an option can (the pattern of a file that holds none)."""
    return f"; {_HOW_TO_SAY}" if any(a.startswith("pre-tokenizer") for a in assumptions) else ""


def note_assumptions(labels: Sequence[str], tokenizers: Sequence[Tokenizer]) -> None:
    """Print :func:`assumption_lines` on standard error."""
    for line in assumption_lines(labels, tokenizers):
        print_note(line)


def assumptions_by_label(labels: Sequence[str], tokenizers: Sequence[Tokenizer]) -> dict[str, list[str]]:
    """``{label: [assumption, ...]}`` for every tokenizer (an empty list: nothing assumed), for JSON."""
    return {label: list(tok.assumptions) for label, tok in zip(labels, tokenizers, strict=True)}
