"""One set of documents written in every container tokviz reads, for tests that compare them.

:func:`write_corpora` writes the same documents as a text file separated by ``<|endoftext|>``, a
folder of one text file per document, JSON Lines (plain, gzip, zstd; the text also under
``meta.content``), a Parquet file with the text column among others (several row groups), a folder
of two Parquet shards, and a folder laid out as ``datasets``' ``save_to_disk`` writes it (an Arrow
stream ``data-00000-of-00001.arrow`` with ``dataset_info.json`` and ``state.json``, plus a cache
file the state does not list). Written with pyarrow and zstandard directly, not with tokviz.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import zstandard

SEPARATOR = "<|endoftext|>"


def documents(english_text: str, varied_text: str, n: int = 40) -> list[str]:
    """``n`` documents of different lengths and kinds (prose, code, emoji, CJK, whitespace runs)."""
    out = []
    for i in range(n):
        start = (i * 2_311) % (len(english_text) - 3_000)
        body = english_text[start : start + 400 + (i * 97) % 2_000]
        out.append(body if i % 5 else varied_text + body)
    out[3] = "  leading spaces and trailing   "
    out[7] = ""
    return out


def _table(docs: list[str]) -> pa.Table:
    return pa.table(
        {
            "id": list(range(len(docs))),
            "text": docs,
            "url": [f"https://example.org/{i}" for i in range(len(docs))],
            "meta": [{"content": d, "lang": "en"} for d in docs],
        }
    )


def write_corpora(folder: Path, docs: list[str]) -> dict[str, Path]:
    """Write ``docs`` in every container under ``folder``; returns the paths by name."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    paths["txt"] = folder / "docs.txt"
    paths["txt"].write_text(SEPARATOR.join(docs), encoding="utf-8")
    one_per_file = folder / "one_per_file"
    one_per_file.mkdir()
    for i, doc in enumerate(docs):
        (one_per_file / f"doc{i:03d}.txt").write_text(doc, encoding="utf-8")
    paths["one_per_file"] = one_per_file
    lines = "".join(
        json.dumps({"id": i, "text": d, "meta": {"content": d}}, ensure_ascii=i % 2 == 0) + "\n"
        for i, d in enumerate(docs)
    ).encode("utf-8")
    paths["jsonl"] = folder / "docs.jsonl"
    paths["jsonl"].write_bytes(lines)
    paths["jsonl.gz"] = folder / "docs.jsonl.gz"
    paths["jsonl.gz"].write_bytes(gzip.compress(lines))
    paths["jsonl.zst"] = folder / "docs.jsonl.zst"
    paths["jsonl.zst"].write_bytes(zstandard.ZstdCompressor().compress(lines))
    table = _table(docs)
    paths["parquet"] = folder / "docs.parquet"
    pq.write_table(table, paths["parquet"], row_group_size=7)
    shards = folder / "shards"
    shards.mkdir()
    half = len(docs) // 2
    pq.write_table(table.slice(0, half), shards / "train-00000-of-00002.parquet", row_group_size=5)
    pq.write_table(table.slice(half), shards / "train-00001-of-00002.parquet", row_group_size=5)
    paths["shards"] = shards
    paths["arrow"] = write_saved_dataset(folder / "saved", table)
    return paths


def write_saved_dataset(folder: Path, table: pa.Table) -> Path:
    """``table`` as ``datasets``' ``save_to_disk`` lays it out: Arrow stream files named in
    ``state.json``, ``dataset_info.json`` beside them, and a cache file ``state.json`` does not list."""
    folder.mkdir(parents=True)
    with pa.OSFile(str(folder / "data-00000-of-00001.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as writer:
            for batch in table.to_batches(max_chunksize=9):
                writer.write_batch(batch)
    with pa.OSFile(str(folder / "cache-0a1b2c3d.arrow"), "wb") as sink:
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table.slice(0, 3))
    state: dict[str, object] = {
        "_data_files": [{"filename": "data-00000-of-00001.arrow"}],
        "_fingerprint": "0a1b2c3d4e5f6a7b",
        "_format_columns": None,
        "_format_kwargs": {},
        "_format_type": None,
        "_output_all_columns": False,
        "_split": "train",
    }
    (folder / "state.json").write_text(json.dumps(state, indent=2), encoding="utf-8")
    info = {"citation": "", "description": "", "features": {"text": {"dtype": "string", "_type": "Value"}}}
    (folder / "dataset_info.json").write_text(json.dumps(info, indent=2), encoding="utf-8")
    return folder
