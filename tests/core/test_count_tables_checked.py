"""Count tables are checked as they are read, added and trained from: exact counts, typed metadata.

Counts are whole numbers of 1 to 2^63-1 per row and stay exact past 2^53 through training (pair
counts are added as integers, never as floats); the metadata is checked key by key against its
types and ranges, every refusal naming the file and the row or key; tables that count the same
source file twice refuse to add unless overlap is allowed; and any table that counting or adding
writes reads back and trains.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core.training.counts import (
    MAX_COUNT,
    CountedFile,
    CountTable,
    CountTableError,
    load_table,
    merge_table_files,
    merge_tables,
    save_table,
    table_bytes,
    train_from_counts,
)

FILLER = "q" * 120_000  # a long row: its index is built with numpy


def tsv(meta: dict[str, Any], rows: str = "1\ta\n") -> bytes:
    base = {"format": "tokviz-counts", "version": 1, "pretokenizer": "gpt2"}
    return ("# tokviz-counts " + json.dumps({**base, **meta}) + "\ncount\tpretoken\n" + rows).encode()


# ---------------------------------------------------------------------------- exact counts
@pytest.mark.parametrize("tie_break", ["lexicographic", "first-seen"])
def test_counts_above_2_to_the_53_choose_the_right_pair(tie_break: str) -> None:
    table = CountTable({"ab": 2**60 + 100, "zy": 2**60, FILLER: 1}, "none")
    result = train_from_counts(table, 258, tie_break)
    assert result.merges[0] == (b"a", b"b")
    assert result.history[0].count == 2**60 + 100
    assert result.history[1].count == 2**60


def test_the_largest_count_trains_exactly_and_one_more_is_refused(tmp_path: Path) -> None:
    table = CountTable({"ab": MAX_COUNT, "cd": MAX_COUNT - 1, FILLER: 3}, "none")
    result = train_from_counts(table, 258, "lexicographic")
    assert [s.count for s in result.history] == [MAX_COUNT, MAX_COUNT - 1]
    path = tmp_path / "big.tsv"
    path.write_bytes(tsv({}, f"1\tx\n{MAX_COUNT + 1}\tab\n"))
    with pytest.raises(CountTableError, match=r"big\.tsv: line 4: .*1 to 2\^63-1") as info:
        load_table(path)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("suffix", [".tsv", ".parquet"])
def test_a_count_past_the_bound_is_never_written(tmp_path: Path, suffix: str) -> None:
    with pytest.raises(CountTableError, match=r"row 2 \('ab'\)"):
        save_table(CountTable({"a": 1, "ab": 2**64}, "gpt2"), tmp_path / f"t{suffix}")
    assert not (tmp_path / f"t{suffix}").exists()


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (
            CountTable({"a": 1, "b\ud800": 2}, "gpt2"),
            r"row 2 \('b\\ud800'\): the pre-token holds a lone surrogate",
        ),
        (CountTable({"a": 1}, "gpt2", special_tokens=("", "x")), r"metadata 'special_tokens'\[1\] must be"),
        (CountTable({"a": 1}, "gpt2", corpus_bytes=-5), "metadata 'corpus_bytes' must be a whole number"),
    ],
    ids=["surrogate", "empty-special", "negative-bytes"],
)
def test_a_table_that_would_not_read_back_is_never_written(
    tmp_path: Path, table: CountTable, message: str
) -> None:
    for suffix in (".tsv", ".parquet"):
        with pytest.raises(CountTableError, match=message):
            save_table(table, tmp_path / f"t{suffix}")
        assert not (tmp_path / f"t{suffix}").exists()


def test_adding_tables_past_the_bound_names_the_table_and_row() -> None:
    a = CountTable({"x": 1, "ab": 2**62}, "gpt2")
    b = CountTable({"ab": 2**62, "y": 1}, "gpt2")
    with pytest.raises(CountTableError, match=r"table 2: row 1 \('ab'\) .* 2\^63-1"):
        merge_tables([a, b])


# ---------------------------------------------------------------------------- typed metadata
@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ({"special_tokens": "abc"}, "'special_tokens' must be a list of strings, not a string"),
        ({"special_tokens": ["", "a"]}, "'special_tokens'[1] must be a non-empty string"),
        ({"special_tokens": ["a", "a"]}, "'special_tokens'[2] repeats"),
        ({"special_tokens": [1]}, "'special_tokens'[1] must be a non-empty string, not an integer"),
        ({"corpus_bytes": float("inf")}, "'corpus_bytes' must be a whole number of 0 or more"),
        ({"corpus_bytes": -1}, "'corpus_bytes' must be a whole number of 0 or more, not -1"),
        ({"corpus_bytes": True}, "'corpus_bytes' must be a whole number"),
        ({"parts": 0}, "'parts' must be a whole number of 1 or more"),
        ({"invalid_utf8": "ignore"}, "'invalid_utf8' must be 'strict' or 'replace'"),
        ({"pretokenizer": 5}, "'pretokenizer' must be a string"),
        ({"files": {"path": "a"}}, "'files' must be a list"),
        ({"files": [{"path": "a", "size": -2}]}, "'files'[1].'size' must be a whole number of 0 or more"),
        ({"files": [{"path": "a", "size": 1, "sha256": "xyz"}]}, "'files'[1].'sha256' must be"),
        ({"files": [{"size": 1}]}, "'files'[1].'path' is missing"),
        ({"tokviz_version": None}, "'tokviz_version' must be a string"),
    ],
)
def test_metadata_of_the_wrong_type_or_range_is_refused_naming_the_key(
    tmp_path: Path, meta: dict[str, Any], message: str
) -> None:
    path = tmp_path / "bad.tsv"
    path.write_bytes(tsv(meta))
    with pytest.raises(CountTableError) as info:
        load_table(path)
    text = str(info.value)
    assert text.startswith(f"{path}: metadata ") and message in text, text
    assert "\n" not in text


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("\u00b2\ta\n", "line 3: the count '\u00b2' is not a whole number from 1 to 2^63-1"),
        (
            "5" * 5000 + "\ta\n",
            "line 3: the count '55555555555555555555…' is not a whole number from 1 to 2^63-1",
        ),
        ("1\ta\n-3\tb\n", "line 4: the count '-3' is not a whole number from 1 to 2^63-1"),
        ("1\ta\n0\tb\n", "line 4: the count '0' is not a whole number from 1 to 2^63-1"),
        ("1\ta\n2\ta\n", "line 4: the pre-token 'a' is in an earlier row too"),
    ],
    ids=["superscript", "5000-digits", "negative", "zero", "repeated"],
)
def test_a_bad_tsv_count_names_its_line(tmp_path: Path, rows: str, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_bytes(tsv({}, rows))
    with pytest.raises(CountTableError) as info:
        load_table(path)
    assert str(info.value) == f"{path}: {message}", str(info.value)
    assert "\n" not in str(info.value)


def _parquet(path: Path, columns: dict[str, Any], **said: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    meta = json.dumps({"format": "tokviz-counts", "version": 1, "pretokenizer": "gpt2", **said})
    pq.write_table(pa.table(columns).replace_schema_metadata({b"tokviz": meta.encode()}), path)


def test_a_parquet_table_with_more_rows_than_its_metadata_says_is_refused_before_its_rows_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "liar.parquet"
    _parquet(path, {"pretoken": [f"w{i}" for i in range(1000)], "count": [1] * 1000}, unique=4, total=4)

    def no_rows(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the rows were read")

    monkeypatch.setattr(pq, "read_table", no_rows)
    with pytest.raises(CountTableError) as info:
        load_table(path)
    assert str(info.value) == f"{path}: the metadata says 4 unique pre-tokens, but the table has 1,000 rows"


@pytest.mark.parametrize(
    ("rows", "said", "message"),
    [
        (
            "1\ta\n1\tb\n1\tc\n",
            {"unique": 2},
            "line 5: the metadata says 2 unique pre-tokens, and this row is one more",
        ),
        ("1\ta\n", {"unique": 2}, "the metadata says 2 unique pre-tokens, but the table has 1 row"),
        ("5\ta\n9\tb\n", {"total": 10}, "line 4: the counts add up to more than the metadata's total of 10"),
        ("5\ta\n4\tb\n", {"total": 10}, "the counts add up to 9, but the metadata's total is 10"),
    ],
    ids=["more-rows", "fewer-rows", "larger-total", "smaller-total"],
)
def test_a_tsv_table_is_held_to_what_its_metadata_says_as_it_is_read(
    tmp_path: Path, rows: str, said: dict[str, int], message: str
) -> None:
    path = tmp_path / "t.tsv"
    path.write_bytes(tsv(said, rows))
    with pytest.raises(CountTableError) as info:
        load_table(path)
    assert str(info.value) == f"{path}: {message}"


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({"pretoken": [1, 2], "count": [1, 2]}, "the column 'pretoken' must hold strings, not int64"),
        ({"pretoken": ["a", "b"], "count": ["1", "2"]}, "the column 'count' must hold whole numbers, not"),
        (
            {"pretoken": ["a", "b"], "count": [True, True]},
            "the column 'count' must hold whole numbers, not bool",
        ),
        (
            {"pretoken": ["a", "b"], "count": [1.0, 2.0]},
            "the column 'count' must hold whole numbers, not double",
        ),
        ({"pretoken": ["a", "b"], "count": [3, -1]}, "row 2 ('b'): the count -1 is not"),
        ({"pretoken": ["a", "a"], "count": [3, 1]}, "row 2: the pre-token 'a' is in an earlier row too"),
    ],
)
def test_a_parquet_table_of_the_wrong_column_types_is_one_line(
    tmp_path: Path, columns: dict[str, Any], message: str
) -> None:
    pytest.importorskip("pyarrow")
    path = tmp_path / "bad.parquet"
    _parquet(path, columns)
    with pytest.raises(CountTableError) as info:
        load_table(path)
    assert str(info.value).startswith(f"{path}: ") and message in str(info.value), str(info.value)


def test_a_parquet_uint64_count_past_the_bound_is_refused(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    path = tmp_path / "big.parquet"
    _parquet(path, {"pretoken": ["a", "b"], "count": pa.array([1, 2**63], pa.uint64())})
    with pytest.raises(CountTableError, match=r"row 2 \('b'\): the count 9223372036854775808 is not"):
        load_table(path)


# ---------------------------------------------------------------------------- overlap
def _table(files: list[tuple[str, str | None]], counts: dict[str, int] | None = None) -> CountTable:
    return CountTable(
        counts or {"a": 1}, "gpt2", files=tuple(CountedFile(p, 10, sha) for p, sha in files), corpus_bytes=10
    )


def test_tables_counting_the_same_file_refuse_to_add() -> None:
    sha = "ab" * 32
    a = _table([("part1.txt", sha)])
    b = _table([("copy/part1.txt", sha), ("part2.txt", "cd" * 32)])
    with pytest.raises(CountTableError, match=r"table 1 and table 2 both count part1\.txt") as info:
        merge_tables([a, b])
    assert "twice" in str(info.value)
    assert merge_tables([a, b], allow_overlap=True).counts == {"a": 2}


def test_the_same_table_file_twice_refuses_to_add(tmp_path: Path) -> None:
    save_table(_table([("t.txt", None)]), tmp_path / "a.tsv")
    (tmp_path / "copy.tsv").write_bytes((tmp_path / "a.tsv").read_bytes())
    for second in ("a.tsv", "copy.tsv"):
        with pytest.raises(CountTableError, match=rf"a\.tsv and .*{second} are the same table"):
            merge_table_files([tmp_path / "a.tsv", tmp_path / second])
    merged = merge_table_files([tmp_path / "a.tsv", tmp_path / "copy.tsv"], allow_overlap=True)
    assert merged.counts == {"a": 2}


# ---------------------------------------------------------------------------- round trip
WORDS = st.text(min_size=1, max_size=12)
COUNTS = st.one_of(st.integers(1, 100), st.integers(2**53 - 5, MAX_COUNT))
TABLES = st.builds(
    lambda counts, specials, utf8, nbytes: CountTable(
        counts, "gpt2", tuple(specials), utf8, nbytes, (CountedFile("a b\t.txt", nbytes, None),)
    ),
    st.dictionaries(WORDS, COUNTS, min_size=1, max_size=8),
    st.lists(st.text(min_size=1, max_size=6), unique=True, max_size=3),
    st.sampled_from(["strict", "replace"]),
    st.integers(0, 2**70),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(TABLES, TABLES, st.sampled_from(["tsv", "parquet"]))
def test_any_table_written_or_added_reads_back_and_trains(
    tmp_path: Path, first: CountTable, second: CountTable, fmt: str
) -> None:
    second = CountTable(
        second.counts, "gpt2", first.special_tokens, first.invalid_utf8, second.corpus_bytes, second.files
    )
    candidates = [first]
    try:
        candidates.append(merge_tables([first, second], allow_overlap=True))
    except CountTableError as exc:
        assert "2^63-1" in str(exc)
    for table in candidates:
        path = tmp_path / f"t.{fmt}"
        path.write_bytes(table_bytes(table, fmt))
        loaded = load_table(path)
        assert list(loaded.counts.items()) == list(table.counts.items())
        assert loaded.metadata() == table.metadata()
        specials = len(table.special_tokens)
        result = train_from_counts(loaded, 258 + specials, "first-seen")
        assert len(result.vocab) <= 258 + specials
