"""Counting a corpus into a table: locally and on a Dask LocalCluster, then training from the table.

Three phases, each in a fresh subprocess so its peak RSS (VmHWM) is its own: the local
counter (the client process; its counting processes are not included), Dask on ``LocalCluster(N)`` (the
client's peak, which must follow the table, not the corpus; the cluster's start is timed apart),
and training ``--merges`` merges from the saved Parquet table. The Dask table is checked equal
to the local one row for row. Ratios are Dask / local, measured in the same run.

The default corpus is generated: Zipf-distributed pseudo-words (exponent 1.1 over 4 million
words) with punctuation and line breaks, so that, as in real text, the table keeps growing with
the corpus (the ``stdlib`` corpus repeats 20 MB of code, so its table stops growing).

    python benchmarks/bench_count.py --mb 100
    python benchmarks/bench_count.py --mb 1024 --workers 2 --merges 32000
    python benchmarks/bench_count.py --kind stdlib --mb 100 --merges 0
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import cache_dir, corpus_path  # noqa: E402

LEXICON = 4_000_000
ZIPF_S = 1.1


def _cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its children that have ended and been reaped.

    Other jobs on a shared machine stretch wall times unevenly (a phase with more processes gets a
    larger share of the CPUs), so the CPU each counter spends is the fairer comparison.
    """
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def _peak_rss_mb() -> float:
    """This process's peak RSS in MB: VmHWM, which (unlike ``ru_maxrss``) an exec'd child does not
    inherit from the process that forked it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


def zipf_corpus(mb: int, cache: Path | None = None) -> Path:
    """A generated corpus of ``mb`` MB (built once into the benchmark cache, deterministic)."""
    import numpy as np

    target = cache_dir(cache) / f"zipf-{mb}mb.txt"
    if target.exists():
        return target
    rng = np.random.default_rng(20261130)
    letters = np.frombuffer(b"etaoinshrdlcumwfgypbvkjxqz", dtype=np.uint8)
    weights = np.linspace(2.0, 0.1, len(letters))
    weights /= weights.sum()
    lengths = rng.integers(2, 11, LEXICON)
    chars = rng.choice(letters, size=int(lengths.sum()), p=weights)
    ends = np.cumsum(lengths)
    raw = chars.tobytes()
    lexicon = [raw[e - n : e] for e, n in zip(ends.tolist(), lengths.tolist())]
    ranks = np.arange(1, LEXICON + 1, dtype=np.float64)
    cdf = np.cumsum(1.0 / (ranks + 2.7) ** ZIPF_S)
    cdf /= cdf[-1]
    size = mb << 20
    tmp = target.with_suffix(".partial")
    written = 0
    with open(tmp, "wb") as fh:
        while written < size:
            picks = np.searchsorted(cdf, rng.random(1_000_000)).tolist()
            marks = rng.integers(0, 100, len(picks)).tolist()
            out = bytearray()
            for word, mark in zip(picks, marks):
                out += lexicon[word]
                out += b"\n" if mark == 0 else b". " if mark < 6 else b", " if mark < 10 else b" "
            room = size - written
            if len(out) > room:
                # The last piece ends at a space, inside the requested size.
                out = out[: max(out.rfind(b" ", 0, room), 0)]
                fh.write(out)
                break
            fh.write(out)
            written += len(out)
    tmp.replace(target)
    return target


# ---------------------------------------------------------------------------- phases
def phase_local(path: str, workers: int, table_out: str) -> dict[str, Any]:
    from tokviz.core.training.counts import count_corpus, save_table

    t0 = time.perf_counter()
    table = count_corpus(files=[path], workers=workers, hashes=False)
    seconds = time.perf_counter() - t0
    rss = _peak_rss_mb()
    cpu = _cpu_seconds()
    save_table(table, table_out)
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "rss_mb": rss,
        "unique": table.unique,
        "total": table.total,
        "table_mb": os.path.getsize(table_out) / 1e6,
    }


def phase_dask(path: str, workers: int, chunk_mb: float, local_table: str) -> dict[str, Any]:
    from tokviz.core.training.counts import load_table
    from tokviz.core.training.dask_count import count_on_dask, local_cluster

    # An idle cluster first: the CPU its processes take to start and stop is not counting.
    before = _cpu_seconds()
    with local_cluster(workers):
        pass
    idle_cpu = _cpu_seconds() - before
    t0 = time.perf_counter()
    with local_cluster(workers) as cluster:
        started = time.perf_counter() - t0
        t1 = time.perf_counter()
        table = count_on_dask(
            [path], scheduler=cluster.scheduler_address, chunk_bytes=int(chunk_mb * (1 << 20)), hashes=False
        )
        seconds = time.perf_counter() - t1
        rss = _peak_rss_mb()
    # The cluster's processes have ended, so their CPU time is in; less what an idle cluster took.
    cpu = _cpu_seconds() - before - 2 * idle_cpu
    local = load_table(local_table)
    return {
        "seconds": seconds,
        "cpu_seconds": cpu,
        "start_seconds": started,
        "rss_mb": rss,
        "equal": list(local.counts.items()) == list(table.counts.items()),
        "unique": table.unique,
    }


def phase_train(table_path: str, merges: int, tie_break: str) -> dict[str, Any]:
    from tokviz.core.training.counts import load_table, train_from_counts

    t0 = time.perf_counter()
    table = load_table(table_path)
    load_seconds = time.perf_counter() - t0
    result = train_from_counts(table, 256 + merges, tie_break)
    return {
        "load_seconds": load_seconds,
        "merge_seconds": result.timings["merge"],
        "merges": len(result.merges),
        "rss_mb": _peak_rss_mb(),
    }


def _run_phase(*argv: str) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--phase", *argv], check=True, capture_output=True, text=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    """Run the three phases on one corpus and print times, memory, table size and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1024, help="corpus size in MB (default 1024)")
    parser.add_argument(
        "--kind", default="zipf", help="zipf (generated), stdlib (repeated code) or a file path"
    )
    parser.add_argument("--workers", type=int, default=2, help="local processes and Dask workers (default 2)")
    parser.add_argument("--chunk-mb", type=float, default=32.0, help="Dask byte-range size (default 32)")
    parser.add_argument("--merges", type=int, default=32000, help="merges to train from the table (0: skip)")
    parser.add_argument("--tie-break", default="lexicographic")
    parser.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.phase:
        name, *rest = args.phase
        if name == "local":
            result = phase_local(rest[0], int(rest[1]), rest[2])
        elif name == "dask":
            result = phase_dask(rest[0], int(rest[1]), float(rest[2]), rest[3])
        else:
            result = phase_train(rest[0], int(rest[1]), rest[2])
        print(json.dumps(result))
        return 0

    if args.kind == "zipf":
        path = zipf_corpus(args.mb)
    elif args.kind == "stdlib":
        path = corpus_path("big", big_mb=args.mb)
    else:
        path = Path(args.kind)
    size_mb = path.stat().st_size / 1e6
    print(f"corpus {path} ({size_mb:,.1f} MB), {args.workers} workers", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        table = str(Path(tmp) / "counts.parquet")
        local = _run_phase("local", str(path), str(args.workers), table)
        print(
            f"local   count {local['seconds']:7.1f} s  {size_mb / local['seconds']:5.1f} MB/s  "
            f"CPU {local['cpu_seconds']:6.1f} s  client peak RSS {local['rss_mb']:6.0f} MB",
            flush=True,
        )
        print(
            f"table   {local['unique']:,} unique pre-tokens of {local['total']:,}; "
            f"Parquet {local['table_mb']:.1f} MB ({local['table_mb'] / size_mb * 100:.2f}% of the corpus)",
            flush=True,
        )
        dask = _run_phase("dask", str(path), str(args.workers), str(args.chunk_mb), table)
        print(
            f"dask    count {dask['seconds']:7.1f} s  {size_mb / dask['seconds']:5.1f} MB/s  "
            f"CPU {dask['cpu_seconds']:6.1f} s  client peak RSS {dask['rss_mb']:6.0f} MB "
            f"(cluster start {dask['start_seconds']:.1f} s); "
            f"table equal to local: {dask['equal']}",
            flush=True,
        )
        print(
            f"ratios  dask/local time {dask['seconds'] / local['seconds']:.2f}x "
            f"(with the cluster's start {(dask['seconds'] + dask['start_seconds']) / local['seconds']:.2f}x), "
            f"CPU {dask['cpu_seconds'] / local['cpu_seconds']:.2f}x, client RSS {dask['rss_mb'] / local['rss_mb']:.2f}x",
            flush=True,
        )
        if args.merges:
            train = _run_phase("train", table, str(args.merges), args.tie_break)
            print(
                f"train   {train['merges']:,} merges from the table in {train['merge_seconds']:.1f} s "
                f"(loading it {train['load_seconds']:.1f} s), peak RSS {train['rss_mb']:.0f} MB",
                flush=True,
            )
    return 0 if dask["equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
