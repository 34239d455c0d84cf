"""Count tables: what training needs from a corpus, saved, shared, added, and trained from exactly.

A table counted from files and trained with either tie rule gives the very merges that training
on the files gives (special tokens, replaced invalid UTF-8 and several files included); it keeps
its rows and their first-seen order through Parquet and TSV; tables of parts add up to the table
of the whole, and tables counted differently refuse to add.
"""

from __future__ import annotations

import gzip
import hashlib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core.errors import CorpusError
from tokviz.core.training.counts import (
    CountTable,
    CountTableError,
    count_corpus,
    load_table,
    merge_tables,
    read_metadata,
    save_table,
    table_bytes,
    train_from_counts,
)
from tokviz.core.training.train import TrainResult, train_bpe

SPECIAL = "<|endoftext|>"


def make_corpus(folder: Path, english_text: str) -> list[Path]:
    """Three files: prose with special tokens, text with invalid UTF-8, and gzip-compressed code."""
    folder.mkdir(parents=True, exist_ok=True)
    prose = english_text[:12_000]
    docs = [prose[i : i + 1500] for i in range(0, len(prose), 1500)]
    a = folder / "a.txt"
    a.write_text(SPECIAL.join(docs) + " naïve café 東京 🌍 tab\there\r\nend", encoding="utf-8")
    b = folder / "b.txt"
    b.write_bytes(english_text[12_000:20_000].encode() + b" bad \xff\xfe bytes \xe4\xbd" + b" and more text")
    c = folder / "c.txt.gz"
    c.write_bytes(gzip.compress(english_text[20_000:26_000].encode()))
    return [a, b, c]


@pytest.fixture
def corpus(tmp_path: Path, english_text: str) -> list[Path]:
    return make_corpus(tmp_path / "corpus", english_text)


def test_a_table_records_what_it_was_counted_from(corpus: list[Path]) -> None:
    table = count_corpus(files=corpus, special_tokens=[SPECIAL], errors="replace")
    meta = table.metadata()
    assert meta["pretokenizer"] == "gpt2" and meta["pattern"]
    assert meta["special_tokens"] == [SPECIAL] and meta["invalid_utf8"] == "replace"
    assert meta["corpus_bytes"] == sum(p.stat().st_size for p in corpus)
    assert [(f["path"], f["size"]) for f in meta["files"]] == [(str(p), p.stat().st_size) for p in corpus]
    assert [f["sha256"] for f in meta["files"]] == [
        hashlib.sha256(p.read_bytes()).hexdigest() for p in corpus
    ]
    assert meta["order"] == "first-seen" and meta["unique"] == len(table.counts)
    assert SPECIAL not in table.counts  # special tokens are cut out, never counted
    assert "\ufffd" in "".join(table.counts)  # the invalid bytes were read as U+FFFD
    assert table.total == sum(table.counts.values())


@pytest.mark.slow
@pytest.mark.parametrize("tie_break", ["lexicographic", "first-seen"])
@pytest.mark.parametrize("pretokenizer", ["gpt2", "cl100k", "none"])
def test_training_from_the_table_gives_exactly_the_merges_of_training_on_the_text(
    corpus: list[Path], tie_break: str, pretokenizer: str
) -> None:
    table = count_corpus(files=corpus, special_tokens=[SPECIAL], errors="replace", pretokenizer=pretokenizer)
    from_text = train_bpe(
        files=corpus,
        vocab_size=700,
        special_tokens=[SPECIAL],
        pretokenizer=pretokenizer,
        tie_break=tie_break,
        errors="replace",
    )
    from_table = train_from_counts(table, 700, tie_break)
    assert len(from_text.merges) > 300
    assert from_table.merges == from_text.merges
    assert from_table.vocab == from_text.vocab
    assert [s.count for s in from_table.history] == [s.count for s in from_text.history]
    assert from_table.corpus_bytes == from_text.corpus_bytes


@pytest.mark.parametrize("suffix", [".parquet", ".tsv"])
def test_a_saved_table_loads_with_the_same_rows_in_the_same_order(corpus: list[Path], suffix: str) -> None:
    table = count_corpus(files=corpus, special_tokens=[SPECIAL], errors="replace")
    table.counts["tab\tnew\nline\\back\rslash"] = 3  # every character the TSV must escape
    path = corpus[0].parent.parent / f"counts{suffix}"
    save_table(table, path)
    loaded = load_table(path)
    assert list(loaded.counts.items()) == list(table.counts.items())
    assert loaded.metadata() == table.metadata()
    assert read_metadata(path) == table.metadata()


def test_the_tsv_is_readable_by_eye(tmp_path: Path) -> None:
    table = CountTable({"Hello": 2, ",": 1, " world\n": 1}, "gpt2", corpus_bytes=14)
    save_table(table, tmp_path / "t.tsv")
    lines = (tmp_path / "t.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# tokviz-counts {")
    assert lines[1:] == ["count\tpretoken", "2\tHello", "1\t,", "1\t world\\n"]


@pytest.mark.slow
@given(st.dictionaries(st.text(min_size=1), st.integers(min_value=1, max_value=2**40), min_size=1))
def test_any_table_survives_the_tsv(counts: dict[str, int]) -> None:
    table = CountTable(counts, "none")
    with tempfile.TemporaryDirectory() as folder:  # hypothesis runs many examples per tmp_path
        path = Path(folder) / "t.tsv"
        path.write_bytes(table_bytes(table, "tsv"))
        assert list(load_table(path).counts.items()) == list(counts.items())


def test_tables_of_parts_add_up_to_the_table_of_the_whole(corpus: list[Path]) -> None:
    kwargs = {"special_tokens": [SPECIAL], "errors": "replace"}
    whole = count_corpus(files=corpus, **kwargs)
    parts = [count_corpus(files=[p], **kwargs) for p in corpus]
    merged = merge_tables(parts)
    assert list(merged.counts.items()) == list(whole.counts.items())
    assert merged.files == whole.files and merged.corpus_bytes == whole.corpus_bytes
    assert merged.parts == 3
    first_seen = train_bpe(
        files=corpus, vocab_size=600, tie_break="first-seen", special_tokens=[SPECIAL], errors="replace"
    )
    assert train_from_counts(merged, 600, "first-seen").merges == first_seen.merges


@pytest.mark.parametrize(
    ("other", "reason"),
    [
        ({"pretokenizer": "cl100k"}, "pre-tokenizer 'gpt2' vs 'cl100k'"),
        ({"special_tokens": ()}, "special tokens"),
        ({"errors": "strict"}, "invalid UTF-8 replaced by U+FFFD vs refused"),
    ],
)
def test_tables_counted_differently_refuse_to_add(
    tmp_path: Path, other: dict[str, object], reason: str
) -> None:
    path = tmp_path / "a.txt"
    path.write_text("the cat sat on the mat", encoding="utf-8")
    base: dict[str, object] = {"special_tokens": (SPECIAL,), "errors": "replace", "pretokenizer": "gpt2"}
    a = count_corpus(files=[path], **base)
    b = count_corpus(files=[path], **{**base, **other})
    with pytest.raises(CountTableError, match="different settings") as info:
        merge_tables([a, b])
    assert reason in str(info.value) and "\n" not in str(info.value)


def test_a_table_from_text_has_no_files(english_text: str) -> None:
    table = count_corpus(text=english_text[:5000])
    assert table.files == () and table.corpus_bytes == len(english_text[:5000].encode())
    assert "of text" in table.describe()


def test_strict_counting_stops_at_invalid_utf8_like_training(corpus: list[Path]) -> None:
    offset = corpus[1].read_bytes().index(b"\xff")
    with pytest.raises(CorpusError, match=rf"b\.txt is not valid UTF-8 \(byte offset {offset}\)"):
        count_corpus(files=corpus)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"hello\tworld\n", "not a tokviz count table"),
        (b'# tokviz-counts {"format": "tokviz-counts", "version": 99}\n', "format version 99"),
        (
            b'# tokviz-counts {"format": "tokviz-counts", "version": 1, "pretokenizer": "gpt2"}\ncount\tpretoken\n2\ta\n3',
            "cut short",
        ),
        (
            b'# tokviz-counts {"format": "tokviz-counts", "version": 1, "pretokenizer": "gpt2"}\ncount\tpretoken\nx\ta\n',
            "line 3",
        ),
        (
            b'# tokviz-counts {"format": "tokviz-counts", "version": 1, "pretokenizer": "gpt2"}\ncount\tpretoken\n2\ta\n2\ta\n',
            "in an earlier row too",
        ),
        (
            b'# tokviz-counts {"format": "tokviz-counts", "version": 1, "pretokenizer": "gpt2"}\ncount\tpretoken\n0\ta\n',
            r"whole number from 1 to 2\^63-1",
        ),
        (b"PAR1 not really parquet", "not a readable Parquet file"),
    ],
)
def test_a_damaged_table_is_a_one_line_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_bytes(content)
    with pytest.raises(CountTableError, match=message) as info:
        load_table(path)
    assert "\n" not in str(info.value)


def test_a_missing_table_and_a_wrong_name_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(CountTableError, match="count table not found"):
        load_table(tmp_path / "nothing.parquet")
    with pytest.raises(CountTableError, match=r"named \.parquet or \.tsv"):
        save_table(CountTable({"a": 1}, "gpt2"), tmp_path / "counts.csv")


def test_without_pyarrow_parquet_says_how_to_install_it_and_tsv_still_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    table = CountTable({"a": 1}, "gpt2")
    with pytest.raises(CountTableError, match=r"pip install 'tokviz-desktop\[parquet\]'"):
        save_table(table, tmp_path / "counts.parquet")
    save_table(table, tmp_path / "counts.tsv")
    assert load_table(tmp_path / "counts.tsv").counts == {"a": 1}


def test_training_on_a_source_keeps_its_table_and_a_table_file_trains_alone(corpus: list[Path]) -> None:
    from tokviz.core.training.counts import is_count_table, train_source_iter

    kept: dict[str, object] = {}
    gen = train_source_iter(
        [str(p) for p in corpus], vocab_size=500, special_tokens=[SPECIAL], errors="replace", kept=kept
    )
    result = _finish(gen)
    text = train_bpe(files=corpus, vocab_size=500, special_tokens=[SPECIAL], errors="replace")
    assert result.merges == text.merges
    table = kept["count_table"]
    assert isinstance(table, CountTable)
    path = corpus[0].parent / "kept.tsv"
    save_table(table, path)
    assert is_count_table(path) and not is_count_table(corpus[0])
    assert _finish(train_source_iter([str(path)], vocab_size=500)).merges == text.merges
    with pytest.raises(CountTableError, match="trains alone"):
        train_source_iter([str(path), str(corpus[0])], vocab_size=500)
    with pytest.raises(CountTableError, match="unknown tie rule"):
        train_source_iter([str(path)], vocab_size=500, tie_break="random")


def _finish(gen: Iterator[object]) -> TrainResult:
    while True:
        try:
            next(gen)
        except StopIteration as stop:
            result: TrainResult = stop.value
            return result
