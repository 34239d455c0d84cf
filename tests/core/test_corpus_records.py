"""Corpora of records: JSON Lines (plain, gzip, zstd), Parquet (a file, a folder of shards) and a
``datasets`` folder read as documents, each record one, exactly as the same documents in a text file
separated by a special token.

Training on each gives the merges of the text file, and evaluating each gives the totals of the
same documents as one text file each; what cannot be read is said in one line naming where.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TypedDict

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import zstandard

from tokviz.core.analysis.evaluation import evaluate
from tokviz.core.analysis.usage import count_files
from tokviz.core.corpus.containers import ARROW, JSONL, PARQUET, TEXT_FILE
from tokviz.core.corpus.documents import CorpusReader, ReadOptions
from tokviz.core.corpus.fileselect import SKIP_DATASET, select_files
from tokviz.core.errors import CorpusError
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.training.counts import count_corpus
from tokviz.core.training.train import train_bpe

from ..corpora import SEPARATOR, documents, write_corpora

RECORD_FORMS = ("jsonl", "jsonl.gz", "jsonl.zst", "parquet", "shards", "arrow")


class Training(TypedDict, total=False):
    """The settings a test trains the text file and each container with, alike."""

    vocab_size: int
    special_tokens: list[str]
    tie_break: str
    workers: int


@pytest.fixture(scope="module")
def docs(english_text: str, varied_text: str) -> list[str]:
    return documents(english_text, varied_text)


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory, docs: list[str]) -> dict[str, Path]:
    return write_corpora(tmp_path_factory.mktemp("corpora"), docs)


@pytest.mark.parametrize("tie_break", ["lexicographic", "first-seen"])
def test_every_container_trains_the_merges_of_the_text_file(corpora: dict[str, Path], tie_break: str) -> None:
    settings: Training = {
        "vocab_size": 420,
        "special_tokens": [SEPARATOR],
        "tie_break": tie_break,
        "workers": 1,
    }
    plain = train_bpe(files=[corpora["txt"]], **settings)
    for form in RECORD_FORMS:
        trained = train_bpe(files=[corpora[form]], **settings)
        assert trained.merges == plain.merges, form
        assert trained.vocab == plain.vocab, form
        assert trained.reading is not None and trained.reading.tally.records == 40, form


def test_records_counted_in_worker_processes_give_the_same_merges(corpora: dict[str, Path]) -> None:
    settings: Training = {
        "vocab_size": 400,
        "special_tokens": [SEPARATOR],
        "tie_break": "first-seen",
        "workers": 1,
    }
    plain = train_bpe(files=[corpora["txt"]], **settings)
    gen_settings: Training = {**settings, "workers": 2}
    from tokviz.core.training.train import run_to_end, train_iter

    parallel = run_to_end(train_iter(files=[corpora["jsonl.zst"]], parallel="always", **gen_settings), None)
    assert parallel.merges == plain.merges


def test_a_record_is_a_document_even_without_a_separator_token(tmp_path: Path) -> None:
    """Two records "ab" and "ab" never make the pair (b, a): nothing crosses a record boundary."""
    path = tmp_path / "two.jsonl"
    path.write_text('{"text": "ab"}\n{"text": "ab"}\n', encoding="utf-8")
    trained = train_bpe(files=[path], vocab_size=260, pretokenizer="none", workers=1)
    assert trained.merges == [(b"a", b"b")]
    assert trained.stop_reason is not None


def test_every_container_evaluates_to_the_totals_of_one_file_per_document(
    corpora: dict[str, Path], docs: list[str]
) -> None:
    tokenizers = [load_tokenizer("gpt2"), load_tokenizer("cl100k")]
    reference = evaluate(select_files([corpora["one_per_file"]]), tokenizers)
    expected = [(row.tokens, row.bytes, row.code_points) for row in reference.totals]
    assert expected[0][1] == sum(len(d.encode()) for d in docs)
    for form in RECORD_FORMS:
        measured = evaluate(select_files([corpora[form]]), tokenizers)
        assert [(row.tokens, row.bytes, row.code_points) for row in measured.totals] == expected, form
        assert measured.reading is not None and measured.reading.tally.records == len(docs)
    # The text file holds the same documents and the separators between them: each is one token
    # (cl100k knows <|endoftext|>), and its 13 bytes.
    joined = evaluate(select_files([corpora["txt"]]), tokenizers[1:])
    separators = len(docs) - 1
    assert joined.totals[0].tokens == expected[1][0] + separators
    assert joined.totals[0].bytes == expected[1][1] + separators * len(SEPARATOR)


def test_usage_counts_one_document_per_record(corpora: dict[str, Path], docs: list[str]) -> None:
    tok = load_tokenizer("gpt2")
    files = select_files([corpora["one_per_file"]]).corpus_files()
    expected = count_files(tok, files)
    for form in ("jsonl.zst", "shards", "arrow"):
        counted = count_files(tok, select_files([corpora[form]]).corpus_files())
        assert counted.documents == len(docs)
        assert counted.bytes == expected.bytes
        assert (counted.counts == expected.counts).all(), form


def test_files_are_told_apart_by_content_and_a_saved_dataset_by_its_state(corpora: dict[str, Path]) -> None:
    selection = select_files([corpora["txt"].parent])
    kinds = {f.relative: f.container for f in selection.files}
    assert kinds["docs.txt"] == TEXT_FILE
    assert kinds["docs.jsonl.zst"] == JSONL and kinds["docs.parquet"] == PARQUET
    assert kinds["saved/data-00000-of-00001.arrow"] == ARROW
    assert "saved/cache-0a1b2c3d.arrow" not in kinds and "saved/state.json" not in kinds
    assert selection.skipped_count(SKIP_DATASET) == 3
    assert "3 files describing a dataset beside its data files" in (selection.note() or "")
    shards = [f.relative for f in select_files([corpora["shards"]]).files]
    assert shards == ["train-00000-of-00002.parquet", "train-00001-of-00002.parquet"]


def test_a_json_file_of_one_record_per_line_is_json_lines_and_any_other_is_said(tmp_path: Path) -> None:
    lines = tmp_path / "records.json"
    lines.write_text('{"text": "one"}\n{"text": "two"}\n', encoding="utf-8")
    nameless = tmp_path / "shard_0"
    nameless.write_bytes(zstandard.ZstdCompressor().compress(lines.read_bytes()))
    config = tmp_path / "config.json"
    config.write_text('{\n  "text": "not records"\n}\n', encoding="utf-8")
    selection = select_files([lines, nameless, config])
    assert [f.container for f in selection.files] == [JSONL, JSONL, TEXT_FILE]
    assert "read 1 JSON file as plain text, not as JSON Lines (one record per line) (" in (
        selection.note() or ""
    )
    as_text = select_files([lines], as_text=True)
    assert as_text.files[0].container == TEXT_FILE
    assert "as plain text, as asked" in (as_text.note() or "")


def test_a_nested_field_is_read_by_its_dotted_path(corpora: dict[str, Path]) -> None:
    settings: Training = {"vocab_size": 330, "special_tokens": [SEPARATOR], "workers": 1}
    plain = train_bpe(files=[corpora["txt"]], **settings)
    nested = ReadOptions(field="meta.content")
    for form in ("jsonl", "parquet", "arrow"):
        assert train_bpe(files=[corpora[form]], reading=nested, **settings).merges == plain.merges, form


def test_records_without_the_field_are_counted_and_named(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    records = [
        {"text": "kept one"},
        {"body": "x"},
        {"text": None},
        {"text": 7},
        {"body": "y"},
        {"text": "two"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + "\n", encoding="utf-8")
    reader = CorpusReader()
    texts = ["".join(doc) for doc in reader.corpus(select_files([path]).corpus_files())]
    assert texts == ["kept one", "two"]
    note = reader.summary().note()
    assert note == (
        'read 2 records of "text" from 1 JSON Lines file (0.00 MB of text); '
        '2 records without "text" skipped (first: ' + f"{path}:2); "
        f'1 record with "text" null skipped ({path}:3); '
        f'1 record whose "text" is not a string skipped ({path}:4)'
    )


def test_a_malformed_line_names_file_and_line_unless_bad_records_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl.gz"
    path.write_bytes(gzip.compress(b'{"text": "fine"}\n{"text": "cut\n[1, 2]\n{"text": "after"}\n'))
    with pytest.raises(CorpusError, match=rf"{path}:2: not valid JSON"):
        train_bpe(files=[path], vocab_size=260, workers=1)
    reader = CorpusReader(ReadOptions(skip_bad=True))
    texts = ["".join(doc) for doc in reader.corpus(select_files([path]).corpus_files())]
    assert texts == ["fine", "after"]
    assert "2 malformed records skipped (first: " in (reader.summary().note() or "")
    not_object = tmp_path / "list.jsonl"
    not_object.write_text('{"text": "a"}\n["text"]\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=rf"{not_object}:2: an array, not a JSON object"):
        list(CorpusReader().corpus(select_files([not_object]).corpus_files()))


def test_parquet_without_the_column_names_the_columns_it_has(corpora: dict[str, Path]) -> None:
    with pytest.raises(
        CorpusError,
        match=r'has no field "body"; its fields: text, url, meta.content, meta.lang, id \(int64\)',
    ):
        train_bpe(files=[corpora["parquet"]], vocab_size=300, reading=ReadOptions(field="body"), workers=1)
    with pytest.raises(CorpusError, match=r'the field "id" of .* holds int64, not text'):
        train_bpe(files=[corpora["arrow"]], vocab_size=300, reading=ReadOptions(field="id"), workers=1)


def test_nulls_in_a_parquet_column_are_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"text": ["a b", None, "c", None]}), path)
    reader = CorpusReader()
    assert ["".join(d) for d in reader.corpus(select_files([path]).corpus_files())] == ["a b", "c"]
    assert reader.tally.skipped == {"null": 2} and reader.tally.first["null"] == f"{path} row 1"


def test_a_limit_reads_the_first_bytes_or_records_and_says_where_it_stopped(
    corpora: dict[str, Path], docs: list[str]
) -> None:
    head = sum(len(d.encode()) for d in docs[:10]) + 5
    reader = CorpusReader(ReadOptions(max_bytes=head))
    texts = ["".join(doc) for doc in reader.corpus(select_files([corpora["shards"]]).corpus_files())]
    assert texts[:10] == docs[:10] and texts[10] == docs[10].encode()[:5].decode()
    assert reader.text_bytes == head
    assert reader.stopped == (
        f"stopped at the limit of {head:,} bytes of text, in "
        f"{corpora['shards'] / 'train-00000-of-00002.parquet'}, row 10"
    )
    by_records = CorpusReader(ReadOptions(max_records=25))
    got = ["".join(doc) for doc in by_records.corpus(select_files([corpora["jsonl.zst"]]).corpus_files())]
    assert got == docs[:25] and by_records.stopped is not None and "line 26" in by_records.stopped


def test_training_with_a_limit_equals_training_on_that_much_text(
    corpora: dict[str, Path], docs: list[str]
) -> None:
    settings: Training = {"vocab_size": 330, "special_tokens": [SEPARATOR], "workers": 1}
    first = train_bpe(text=SEPARATOR.join(docs[:12]), **settings)
    limited = train_bpe(files=[corpora["parquet"]], reading=ReadOptions(max_records=12), **settings)
    assert limited.merges == first.merges
    assert limited.reading is not None and limited.reading.stopped is not None
    assert limited.files_read[0].partial and limited.files_read[0].records == 12


def test_provenance_names_the_container_the_field_and_the_records(corpora: dict[str, Path]) -> None:
    trained = train_bpe(files=[corpora["jsonl.zst"], corpora["arrow"]], vocab_size=300, workers=1)
    entries = [f.to_json() for f in trained.files_read]
    assert [(e["container"], e["field"], e["records"]) for e in entries] == [
        ("jsonl", "text", 40),
        ("arrow", "text", 40),
    ]
    assert entries[0]["bytes"] == corpora["jsonl.zst"].stat().st_size


def test_a_count_table_records_what_was_read(corpora: dict[str, Path]) -> None:
    table = count_corpus(files=[corpora["shards"]], special_tokens=[SEPARATOR])
    plain = count_corpus(files=[corpora["txt"]], special_tokens=[SEPARATOR])
    assert list(table.counts.items()) == list(plain.counts.items())
    meta = table.metadata()
    assert meta["records"] == {"field": "text", "records": 40, "skipped": {}, "files": {"parquet": 2}}
    assert [f["records"] for f in meta["files"]] == [20, 20]


def test_zstd_files_of_several_frames_are_read_whole_and_a_damaged_one_is_named(tmp_path: Path) -> None:
    frames = tmp_path / "frames.txt.zst"
    packer = zstandard.ZstdCompressor()
    frames.write_bytes(packer.compress(b"first frame, ") + packer.compress(b"second frame"))
    selection = select_files([frames])
    assert selection.files[0].compression == "zstd"
    assert "".join("".join(d) for d in CorpusReader().corpus(selection.corpus_files())) == (
        "first frame, second frame"
    )
    damaged = tmp_path / "damaged.txt.zst"
    packed = packer.compress(" ".join(str(n * n) for n in range(20_000)).encode())
    damaged.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(CorpusError, match=r"cannot decompress .*damaged\.txt\.zst"):
        select_files([damaged])


def test_a_parallel_set_of_parquet_and_json_lines_files_is_read_a_record_a_line(tmp_path: Path) -> None:
    from tokviz.core.analysis.parity import read_parallel

    folder = tmp_path / "devtest"
    folder.mkdir()
    pq.write_table(pa.table({"id": [1, 2], "text": ["One sentence.", "Two."]}), folder / "eng_Latn.parquet")
    (folder / "fra_Latn.jsonl").write_text('{"text": "Une phrase."}\n{"text": "Deux."}\n', encoding="utf-8")
    parallel = read_parallel(folder)
    assert [(t.language.code, t.lines) for t in parallel.texts] == [
        ("eng_Latn", ("One sentence.", "Two.")),
        ("fra_Latn", ("Une phrase.", "Deux.")),
    ]
    (folder / "fra_Latn.jsonl").write_text('{"text": "Une phrase."}\n{"body": "Deux."}\n', encoding="utf-8")
    with pytest.raises(CorpusError, match=r'fra_Latn.jsonl: 1 record without "text" skipped .*aligned'):
        read_parallel(folder)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    pytest.importorskip("distributed")
    from tokviz.core.training.dask_count import local_cluster

    with local_cluster(2, processes=False) as cluster:  # no dashboard, free ports
        yield cluster.scheduler_address


def test_count_on_a_local_cluster_gives_the_local_table_of_every_form(
    scheduler: str, corpora: dict[str, Path]
) -> None:
    from tokviz.core.training.counts import table_bytes
    from tokviz.core.training.dask_count import count_on_dask

    for form in ("txt", *RECORD_FORMS):
        local = count_corpus(files=[corpora[form]], special_tokens=[SEPARATOR])
        on_dask = count_on_dask(
            [str(corpora[form])], scheduler=scheduler, chunk_bytes=1500, special_tokens=[SEPARATOR]
        )
        assert list(on_dask.counts.items()) == list(local.counts.items()), form
        assert on_dask.metadata() == local.metadata(), form
        assert table_bytes(on_dask, "tsv") == table_bytes(local, "tsv"), form


def test_records_skipped_on_the_cluster_are_named_by_their_line_in_the_file(
    scheduler: str, tmp_path: Path
) -> None:
    from tokviz.core.training.dask_count import count_on_dask

    path = tmp_path / "late.jsonl"
    lines = [json.dumps({"text": f"record number {i} " * 20}) for i in range(300)]
    lines[250] = json.dumps({"body": "no text here"})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    local = count_corpus(files=[path])
    on_dask = count_on_dask([str(path)], scheduler=scheduler, chunk_bytes=4000)
    assert list(on_dask.counts.items()) == list(local.counts.items())
    assert on_dask.reading is not None and local.reading is not None
    assert on_dask.reading.note() == local.reading.note()
    assert f"({path}:251)" in (local.reading.note() or "")
    lines[280] = '{"text": "cut'
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=rf"{path}:281: not valid JSON"):
        count_on_dask([str(path)], scheduler=scheduler, chunk_bytes=4000)


def test_a_parquet_corpus_is_not_taken_for_a_count_table(corpora: dict[str, Path], tmp_path: Path) -> None:
    from tokviz.core.training.counts import is_count_table, save_table

    assert not is_count_table(corpora["parquet"])
    table = tmp_path / "counts.parquet"
    save_table(count_corpus(files=[corpora["txt"]]), table)
    assert is_count_table(table)
