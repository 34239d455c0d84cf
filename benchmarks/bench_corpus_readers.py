"""Reading corpora of records: tokviz's readers against plain loops, and training memory against text.

Builds once (into the benchmark cache) a JSON Lines file compressed with zstd of ``--mb`` MB of text:
documents of 0.3-12 KB cut from the standard library's sources (``corpora.py stdlib``), each a
record ``{"id", "url", "text"}``; the same documents as a Parquet file, and as one text file with
``<|endoftext|>`` between them. Then, each phase in a fresh subprocess so its peak RSS (VmHWM) is
its own:

* **read**: every record's text through tokviz's reader (:class:`CorpusReader`: the records as
  training gets them), against a plain loop on the same file (zstandard's stream, ``json.loads``
  of each line, its ``"text"``) and ``pyarrow.json.open_json`` read batch by batch; the Parquet
  file through tokviz against ``ParquetFile.iter_batches`` and ``to_pylist``. Ratios are tokviz's
  CPU time over the plain loop's (every thread of the process), the least of ``--repeat`` runs:
  other jobs on a shared machine stretch wall times unevenly.
* **train**: ``--merges`` merges on the JSON Lines file and on the text file with
  ``<|endoftext|>`` as a special token (the same documents, so the same merges), each with
  ``--workers`` counting processes; the peak RSS of the training process and of its largest
  counting process.

    python benchmarks/bench_corpus_readers.py --mb 1024
    python benchmarks/bench_corpus_readers.py --mb 100 --merges 0 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import cache_dir, corpus_path  # noqa: E402

SEPARATOR = "<|endoftext|>"


def _peak_rss_mb() -> float:
    """This process's peak RSS in MB (VmHWM: not inherited from the process that started it)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _children_peak_mb() -> float:
    """The largest peak RSS among this process's ended children (its counting processes), in MB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


# ---------------------------------------------------------------------------- the corpus
def build(mb: int) -> dict[str, Path]:
    """The JSON Lines (zstd), Parquet and text forms of ``mb`` MB of documents, built once."""
    root = cache_dir()
    paths = {
        "jsonl.zst": root / f"records-{mb}mb.jsonl.zst",
        "parquet": root / f"records-{mb}mb.parquet",
        "txt": root / f"records-{mb}mb.txt",
    }
    if all(p.exists() for p in paths.values()):
        return paths
    import pyarrow as pa
    import pyarrow.parquet as pq
    import zstandard

    source = corpus_path("stdlib").read_text(encoding="utf-8")
    size = mb * 1_000_000
    written = 0
    at = 0
    step = 0
    partial = {k: p.with_suffix(p.suffix + ".partial") for k, p in paths.items()}
    schema = pa.schema([("id", pa.int64()), ("url", pa.string()), ("text", pa.string())])
    with (
        open(partial["jsonl.zst"], "wb") as raw,
        zstandard.ZstdCompressor(level=3).stream_writer(raw) as packed,
        open(partial["txt"], "w", encoding="utf-8") as text,
        pq.ParquetWriter(partial["parquet"], schema) as parquet,
    ):
        batch: list[str] = []
        while written < size:
            length = 300 + (step * 7919) % 12_000
            doc = source[at : at + length]
            at = at + length if at + length < len(source) else 0
            if not doc.strip():
                continue
            n = step
            step += 1
            packed.write(
                (json.dumps({"id": n, "url": f"https://example.org/{n}", "text": doc}) + "\n").encode()
            )
            text.write((SEPARATOR if n else "") + doc)
            batch.append(doc)
            if len(batch) == 10_000:
                _write_rows(pq, pa, parquet, schema, batch, n)
                batch = []
            written += len(doc.encode("utf-8"))
        if batch:
            _write_rows(pq, pa, parquet, schema, batch, step - 1)
    for key, path in partial.items():
        path.replace(paths[key])
    return paths


def _write_rows(pq: Any, pa: Any, writer: Any, schema: Any, batch: list[str], last: int) -> None:
    first = last - len(batch) + 1
    ids = list(range(first, last + 1))
    table = pa.table(
        {"id": ids, "url": [f"https://example.org/{i}" for i in ids], "text": batch}, schema=schema
    )
    writer.write_table(table, row_group_size=10_000)


# ---------------------------------------------------------------------------- phases
def _timed(t0: float, c0: float, records: int, chars: int) -> dict[str, Any]:
    """A read's wall time and CPU time (this process, every thread: pyarrow decodes in threads)."""
    return {
        "seconds": time.perf_counter() - t0,
        "cpu": time.process_time() - c0,
        "records": records,
        "chars": chars,
    }


def _tally(t0: float, c0: float, texts: Iterable[str]) -> dict[str, Any]:
    """Read every text of ``texts`` (a plain loop's), counting them and their characters."""
    records = chars = 0
    for text in texts:
        records += 1
        chars += len(text)
    return _timed(t0, c0, records, chars)


def read_tokviz(path: str) -> dict[str, Any]:
    """Every record's text as training gets it (documents in pieces), through tokviz's reader."""
    from tokviz.core.corpus.documents import CorpusReader
    from tokviz.core.corpus.fileselect import select_files

    files = select_files([path]).corpus_files()
    # The libraries the readers load when they first meet such a file, loaded before the clock
    # starts, as the plain loops load theirs (pyarrow takes about 0.3 s of CPU to import).
    import pyarrow.compute  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    import zstandard  # noqa: F401

    t0, c0 = time.perf_counter(), time.process_time()
    reader = CorpusReader()
    chars = 0
    for document in reader.corpus(files):
        for piece in document:
            chars += len(piece)
    return _timed(t0, c0, reader.tally.records, chars)


def read_json_loop(path: str) -> dict[str, Any]:
    """The plain loop: zstandard's stream, one ``json.loads`` a line, its text."""
    import io

    import zstandard

    t0, c0 = time.perf_counter(), time.process_time()
    with open(path, "rb") as raw:
        stream = io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw), buffer_size=1 << 20)
        return _tally(t0, c0, (json.loads(line)["text"] for line in stream))


def read_pyarrow_json(path: str) -> dict[str, Any]:
    """pyarrow's JSON reader over the decompressed stream, batch by batch, each text to Python."""
    import pyarrow as pa
    import pyarrow.json as pj

    t0, c0 = time.perf_counter(), time.process_time()
    with pa.input_stream(path, compression="zstd") as stream:
        batches = pj.open_json(stream, read_options=pj.ReadOptions(block_size=1 << 24))
        return _tally(t0, c0, (text for batch in batches for text in batch.column("text").to_pylist()))


def read_parquet_loop(path: str) -> dict[str, Any]:
    """The plain Parquet loop: ``iter_batches`` of the text column, ``to_pylist``."""
    import pyarrow.parquet as pq

    t0, c0 = time.perf_counter(), time.process_time()
    batches = pq.ParquetFile(path).iter_batches(batch_size=4096, columns=["text"])
    return _tally(t0, c0, (text for batch in batches for text in batch.column(0).to_pylist()))


def train(path: str, merges: int, workers: int) -> dict[str, Any]:
    """Train ``merges`` merges on ``path`` with ``<|endoftext|>`` as a special token."""
    from tokviz.core.training.train import train_bpe

    t0 = time.perf_counter()
    result = train_bpe(files=[path], vocab_size=257 + merges, special_tokens=[SEPARATOR], workers=workers)
    return {
        "seconds": time.perf_counter() - t0,
        "merges": [list(map(bytes.hex, m)) for m in result.merges[:50]],
        "unique": result.unique_words,
        "rss_mb": _peak_rss_mb(),
        "worker_rss_mb": _children_peak_mb(),
    }


PHASES = {
    "tokviz": read_tokviz,
    "json": read_json_loop,
    "pyarrow-json": read_pyarrow_json,
    "parquet-loop": read_parquet_loop,
}


def _run(*argv: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", *argv], check=True, capture_output=True, text=True
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def _best(repeat: int, *argv: str) -> dict[str, Any]:
    """The run of least CPU time of ``repeat`` (other jobs on a shared machine stretch wall times)."""
    runs = [_run(*argv) for _ in range(repeat)]
    return min(runs, key=lambda r: float(r["cpu"]))


def main(argv: list[str] | None = None) -> int:
    """Build the corpus, then print the readers' throughput and the training memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1024, help="MB of text (default 1024)")
    parser.add_argument("--repeat", type=int, default=2, help="read each way this many times, best kept")
    parser.add_argument("--merges", type=int, default=2000, help="merges to train (0: skip training)")
    parser.add_argument("--workers", type=int, default=2, help="counting processes (default 2)")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        name, *rest = args.phase
        result = train(rest[0], int(rest[1]), int(rest[2])) if name == "train" else PHASES[name](rest[0])
        print(json.dumps(result))
        return 0
    t0 = time.perf_counter()
    paths = build(args.mb)
    text_mb = paths["txt"].stat().st_size / 1e6
    print(
        f"corpus: {text_mb:,.0f} MB of text; {paths['jsonl.zst'].stat().st_size / 1e6:,.0f} MB as .jsonl.zst, "
        f"{paths['parquet'].stat().st_size / 1e6:,.0f} MB as Parquet (built or found in {time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    zst, parquet = str(paths["jsonl.zst"]), str(paths["parquet"])
    rows = [
        ("jsonl.zst", "tokviz reader", _best(args.repeat, "tokviz", zst)),
        ("jsonl.zst", "zstandard + json.loads loop", _best(args.repeat, "json", zst)),
        ("jsonl.zst", "pyarrow.json.open_json", _best(args.repeat, "pyarrow-json", zst)),
        ("parquet", "tokviz reader", _best(args.repeat, "tokviz", parquet)),
        ("parquet", "ParquetFile.iter_batches loop", _best(args.repeat, "parquet-loop", parquet)),
    ]
    plain = {"jsonl.zst": rows[1][2]["cpu"], "parquet": rows[4][2]["cpu"]}
    for form, who, r in rows:
        print(
            f"read {form:9} {who:30} CPU {r['cpu']:6.1f} s  {text_mb / r['cpu']:6.1f} MB/s of CPU  "
            f"(wall {r['seconds']:6.1f} s)  {r['records']:,} records  {r['cpu'] / plain[form]:.2f}x the plain loop's CPU",
            flush=True,
        )
    if len({r["records"] for _, _, r in rows}) != 1 or len({r["chars"] for _, _, r in rows}) != 1:
        print("the readers disagree on the records read", flush=True)
        return 1
    if not args.merges:
        return 0
    records = _run("train", zst, str(args.merges), str(args.workers))
    text = _run("train", str(paths["txt"]), str(args.merges), str(args.workers))
    for name, r in (("jsonl.zst", records), ("text file", text)):
        print(
            f"train {name:9} {args.merges:,} merges in {r['seconds']:6.1f} s  peak RSS {r['rss_mb']:6.0f} MB "
            f"(largest counting process {r['worker_rss_mb']:.0f} MB)",
            flush=True,
        )
    same = records["merges"] == text["merges"] and records["unique"] == text["unique"]
    print(
        f"ratio jsonl.zst / text file: peak RSS {records['rss_mb'] / text['rss_mb']:.2f}x, "
        f"counting process {records['worker_rss_mb'] / text['worker_rss_mb']:.2f}x, "
        f"time {records['seconds'] / text['seconds']:.2f}x; same merges: {same}",
        flush=True,
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
