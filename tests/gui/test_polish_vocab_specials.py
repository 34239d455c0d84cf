"""The vocabulary browser counts the editor's text as the views show it: ``<|endoftext|>`` typed
in the text is the special token (used once), not the never-used list's, and not ``<|`` + ``endo``…"""

from __future__ import annotations

import numpy as np

from tokviz.core.registry import load_tokenizer
from tokviz.core.tokenizer import Tokenizer
from tokviz.gui.panels.vocabulary.usage import editor_usage

TEXT = "Hello world<|endoftext|>The cat sat.<|endoftext|>"


def test_a_special_token_in_the_editor_counts_as_itself() -> None:
    gpt2: Tokenizer = load_tokenizer("gpt2")
    usage = editor_usage(gpt2, TEXT)

    counts = usage.counts
    view_ids = [s.id for s in gpt2.encode_spans(TEXT)]
    assert counts[50256] == 2
    assert np.array_equal(counts, np.bincount(view_ids, minlength=len(counts)))
    assert counts.sum() == len(view_ids)


def test_text_without_special_tokens_counts_as_before() -> None:
    gpt2: Tokenizer = load_tokenizer("gpt2")
    text = "plain text, nothing special " * 3
    assert editor_usage(gpt2, text).counts.sum() == len(gpt2.encode_ordinary(text))
