"""The built-in words tokenizer reads a real word list shipped in resources/, so unknown words show."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path

import pytest

from tokviz.core.bpe.lecture_tokenizers import WORD_LIST, default_words_tokenizer, read_word_list
from tokviz.core.io.resources import resource_path

ROOT = Path(__file__).resolve().parents[2]


def test_the_word_list_says_where_it_came_from_and_holds_thousands_of_counted_words():
    path = resource_path(*WORD_LIST)
    header = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("#")]
    assert any("packaging/make_word_list.py" in line for line in header)
    assert any("Python documentation topics" in line for line in header)
    counts = read_word_list(path)
    assert len(counts) > 2000
    assert counts["the"] > 1000 and "\n" in counts and " " in counts  # spaces and newlines are pieces too
    assert list(counts.values()) == sorted(counts.values(), reverse=True)


def test_the_builtin_words_tokenizer_uses_the_list_and_counts_what_it_lacks():
    tok = default_words_tokenizer()
    assert tok.vocab_size == len(read_word_list(resource_path(*WORD_LIST))) + 1  # and <unk>
    text = "Tokenizers turn text into integers. The cat in the hat sat on the mat."
    unknown = tok.unknown_words(text)
    assert "Tokenizers" in unknown
    assert "text" not in unknown and "integers" not in unknown and "the" not in unknown
    assert tok.decode(tok.encode("the zyzzogeton")).count("<unk>") == 1


def test_the_script_makes_the_list_shipped(tmp_path):
    made_with = f"Python {platform.python_version()})"
    if made_with not in resource_path(*WORD_LIST).read_text(encoding="utf-8")[:400]:
        pytest.skip(f"the list was made with another Python's documentation topics, not {made_with}")
    out = tmp_path / "words.tsv"
    subprocess.run(
        [sys.executable, str(ROOT / "packaging" / "make_word_list.py"), str(out)], check=True, cwd=ROOT
    )
    assert out.read_text(encoding="utf-8") == resource_path(*WORD_LIST).read_text(encoding="utf-8")
