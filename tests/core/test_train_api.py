"""The trainer's corpus is named by keyword, and a vocabulary the corpus cannot reach is reported.

``train_bpe("corpus.txt", 10000)`` once trained on the ten characters of the file name, and a
vocabulary size beyond what the corpus can make stopped without a word. Now text and files are
separate keywords, a positional corpus is refused with the keyword to use, and the result says
when and why training stopped early.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tokviz.core import CorpusError, TokvizError, train_bpe, train_iter
from tokviz.core.errors import ArgumentTypeError, InvalidArgument


def test_text_and_files_are_separate_keywords(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat in the hat " * 20, encoding="utf-8")
    from_file = train_bpe(files=corpus, vocab_size=270, pretokenizer="none")
    from_name_as_str = train_bpe(files=str(corpus), vocab_size=270, pretokenizer="none")
    from_list = train_bpe(files=[corpus], vocab_size=270, pretokenizer="none")
    from_text = train_bpe(text=corpus.read_text(encoding="utf-8"), vocab_size=270, pretokenizer="none")
    assert from_file.merges == from_name_as_str.merges == from_list.merges == from_text.merges
    assert from_file.corpus_bytes == corpus.stat().st_size


def test_a_file_name_passed_as_text_is_never_read_as_the_corpus(tmp_path: Path) -> None:
    with pytest.raises(ArgumentTypeError, match=r"text='corpus.txt'.*files=\['corpus.txt'\]"):
        train_bpe("corpus.txt", 10_000)  # the mistake this test is about
    with pytest.raises(TokvizError, match="by keyword"):
        train_iter(tmp_path, 300)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "exactly one corpus"),
        ({"text": "a b", "files": ["a.txt"]}, "exactly one corpus"),
        ({"text": b"bytes"}, "text= must be a str"),
        ({"files": 3}, "files= must be a path"),
        ({"files": [None]}, "must hold paths"),
        ({"text": "a b", "special_tokens": "<|eot|>"}, r"write \['<\|eot\|>'\]"),
        ({"text": "a b", "special_tokens": [None]}, "special tokens must be strings"),
        ({"text": "a b", "tie_break": "random"}, "unknown tie rule"),
        ({"text": "a b", "errors": "ignore"}, "errors must be"),
        ({"text": "a b", "workers": 0}, "workers="),
        ({"text": "a b", "cancel": "yes"}, "cancel="),
        ({"text": "a b", "vocab_size": None}, "needs vocab_size"),
        ({"text": "a b", "vocab_size": 300.5}, "whole number"),
        ({"text": "a b", "vocab_size": 100}, "too small"),
    ],
)
def test_every_bad_argument_is_a_tokviz_error_that_names_it(kwargs: dict[str, object], message: str) -> None:
    args: dict[str, object] = {"vocab_size": 300, **kwargs}
    with pytest.raises(InvalidArgument, match=message):
        train_bpe(**args)
    with pytest.raises(InvalidArgument, match=message):
        train_iter(**args)  # checked at the call, before the first step


def test_a_lone_surrogate_in_the_text_is_an_error_unless_replacement_is_asked_for() -> None:
    with pytest.raises(CorpusError, match="lone surrogate U\\+D800 at index 3"):
        train_bpe(text="abc\ud800 abc", vocab_size=260)
    result = train_bpe(text="abc\ud800 abc", vocab_size=260, errors="replace")
    assert result.corpus_bytes == len("abc\ufffd abc".encode())


def test_a_vocabulary_the_corpus_can_reach_is_not_an_early_stop() -> None:
    result = train_bpe(text="the cat in the hat", vocab_size=259, pretokenizer="none")
    assert not result.stopped_early and result.stop_reason is None


def test_running_out_of_pairs_is_reported_with_its_reason() -> None:
    result = train_bpe(text="the cat in the hat", vocab_size=1_000_000, pretokenizer="gpt2")
    assert result.stopped_early
    merges = len(result.merges)
    assert result.stop_reason == (
        f"the corpus has no pair left to merge after {merges} merges; vocabulary {len(result.vocab)} of 1,000,000"
    )


def test_the_early_stop_counts_special_tokens_in_the_vocabulary_reached() -> None:
    result = train_bpe(text="abab", vocab_size=5_000, special_tokens=["<|eot|>"], pretokenizer="none")
    assert result.stop_reason is not None
    assert f"vocabulary {len(result.vocab)} of 5,000" in result.stop_reason
