"""tokviz's trainer (compiled loop, pure-Python loop) against rustbpe and Hugging Face ``tokenizers``.

One command reruns the whole table that docs/benchmarks.md shows:

    pip install -e '.[bench]'
    python benchmarks/bench_trainers.py                 # every row (the 100 MB row takes minutes)
    python benchmarks/bench_trainers.py --rows 10000 32000

The corpora are Python sources with ``<|endoftext|>`` between files: ``py20`` is 20 MB of the
standard library's ``.py`` files (sorted paths, UTF-8 only), ``py100`` the same followed by the
``.py`` files of this environment's site-packages (sorted paths) up to 100 MB. Each trainer runs in
a fresh process; wall time is measured inside it from the call that reads the corpus to the
trained vocabulary, and peak memory is its resident peak (``ru_maxrss``; tokviz's counting
workers, child processes, are shown beside it). Every trainer learns the same number of merges:

* tokviz: ``train_bpe`` on the file, cl100k's pattern, ``<|endoftext|>`` a special token (a hard
  cut), lexicographic ties; ``compiled`` and ``pure`` (``TOKVIZ_PURE_PYTHON=1``) must give the same
  merges, which the run checks.
* rustbpe (nanochat's trainer): ``train_from_iterator`` over the files' texts (split at the
  separator, so it cuts there too), cl100k's pattern.
* HF ``tokenizers``: ``BpeTrainer`` with its ``ByteLevel`` pre-tokenizer (GPT-2's pattern: HF's
  trainer takes no custom pattern with byte-level input), the 256-byte initial alphabet,
  ``<|endoftext|>`` a special token, ``train_from_iterator`` over the same texts.

``--ties`` measures what recording ties costs: the compiled loop on the 20 MB count table, with
and without the count histogram and tied pairs, alternating, best of five.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import cache_dir  # noqa: E402

SEPARATOR = "<|endoftext|>"
CL100K = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
ROWS = {10_000: 20, 32_000: 20, 100_000: 100}  # vocabulary -> corpus MB
TRAINERS = ("tokviz-compiled", "tokviz-pure", "rustbpe", "hf")


def _sources() -> list[Path]:
    """The standard library's .py files, then site-packages' (each group in sorted path order)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    skip = {"site-packages", "dist-packages", "__pycache__"}
    files = sorted(p for p in stdlib.rglob("*.py") if not skip.intersection(p.relative_to(stdlib).parts))
    site = Path(sysconfig.get_paths()["purelib"])
    return files + sorted(p for p in site.rglob("*.py") if "__pycache__" not in p.parts)


def corpus(mb: int) -> Path:
    """``mb`` MB of Python sources with the separator between files, built once into the cache."""
    target = cache_dir() / f"py{mb}-eot.txt"
    if target.exists():
        return target
    budget = mb * 1_000_000
    parts: list[str] = []
    size = 0
    for path in _sources():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if SEPARATOR in text:
            continue
        n = len(text.encode("utf-8"))
        if size + n > budget:
            break
        parts.append(text)
        size += n + len(SEPARATOR)
    tmp = target.with_suffix(".partial")
    tmp.write_text(SEPARATOR.join(parts), encoding="utf-8")
    tmp.replace(target)
    return target


def _documents(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split(SEPARATOR)


def train_one(trainer: str, path: Path, vocab: int) -> dict[str, Any]:
    """Train in this process; the merges as hex pairs (tokviz, rustbpe) and the seconds taken."""
    merges = vocab - 256
    out: dict[str, Any]
    # Each library is imported before the clock starts: the time is the training's own.
    if trainer.startswith("tokviz"):
        from tokviz.core.training.mergeloop import loop_name
        from tokviz.core.training.train import train_bpe

        t0 = time.perf_counter()
        result = train_bpe(
            files=path, vocab_size=vocab + 1, special_tokens=[SEPARATOR], pretokenizer="cl100k", workers=2
        )
        wall = time.perf_counter() - t0
        out = {"loop": loop_name(), "merges": [[a.hex(), b.hex()] for a, b in result.merges]}
        out["timings"] = result.timings
    elif trainer == "rustbpe":
        import rustbpe

        t0 = time.perf_counter()
        tok = rustbpe.Tokenizer()
        tok.train_from_iterator(iter(_documents(path)), vocab, pattern=CL100K)
        wall = time.perf_counter() - t0
        out = {"learned": len(tok.get_mergeable_ranks()) - 256}
    else:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

        t0 = time.perf_counter()
        hf = Tokenizer(models.BPE())
        hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        hf.decoder = decoders.ByteLevel()
        bpe = trainers.BpeTrainer(
            vocab_size=vocab + 1,
            min_frequency=0,
            special_tokens=[SEPARATOR],
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        hf.train_from_iterator(_documents(path), bpe)
        wall = time.perf_counter() - t0
        out = {"learned": hf.get_vocab_size() - 257}
    out.update(
        wall=wall,
        wanted=merges,
        rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        workers_rss_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    )
    return out


def in_fresh_process(trainer: str, path: Path, vocab: int) -> dict[str, Any]:
    env = dict(os.environ)
    env.pop("TOKVIZ_PURE_PYTHON", None)
    if trainer == "tokviz-pure":
        env["TOKVIZ_PURE_PYTHON"] = "1"
    done = subprocess.run(
        [sys.executable, __file__, "--one", trainer, str(path), str(vocab)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{trainer} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def tie_overhead(repeats: int = 5, vocab: int = 32_000) -> dict[str, float]:
    """CPU seconds of the compiled loop with and without tie recording on the 20 MB count table
    (best of ``repeats``, alternating), and the wall seconds of counting that table."""
    from tokviz.core.bpe.merges import MergeStep
    from tokviz.core.training.counts import count_corpus
    from tokviz.core.training.mergeloop import compiled_module

    module = compiled_module()
    if module is None:
        raise SystemExit("the compiled loop is not built")
    t0 = time.perf_counter()
    table = count_corpus(files=[corpus(20)], special_tokens=[SEPARATOR], pretokenizer="cl100k", workers=2)
    counting = time.perf_counter() - t0
    words = [w.encode("utf-8") for w in table.counts]
    freqs = list(table.counts.values())
    best = {True: float("inf"), False: float("inf")}
    merges: dict[bool, list[Any]] = {}
    for _ in range(repeats):
        for ties in (False, True):
            t0 = time.process_time()  # the loop is one thread: CPU time is steady on a shared machine
            loop = module.Loop(words, freqs, False, MergeStep, ties)
            done = loop.run(vocab - 256, 1e9)
            best[ties] = min(best[ties], time.process_time() - t0)
            merges[ties] = [(step.left, step.right) for step in done]
    if merges[True] != merges[False]:
        raise SystemExit("tie recording changed the merges")
    return {"with_ties": best[True], "without_ties": best[False], "counting": counting}


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}"


def _cell(cells: dict[str, dict[str, Any]], name: str) -> str:
    c = cells.get(name)
    if c is None:
        return "—"
    extra = f" + workers {c['workers_rss_mb']:.0f}" if name.startswith("tokviz") else ""
    return f"{c['wall']:.2f} s, {c['rss_mb']:.0f} MB{extra}"


def _ratio(cells: dict[str, dict[str, Any]], other: str) -> str:
    if "tokviz-compiled" not in cells or other not in cells:
        return "—"
    return f"{cells['tokviz-compiled']['wall'] / cells[other]['wall']:.2f}"


def table(rows: dict[int, dict[str, dict[str, Any]]]) -> str:
    """The Markdown table docs/benchmarks.md shows: wall time and peak memory of each trainer."""
    lines = [
        "| vocabulary (corpus) | tokviz compiled | tokviz pure | rustbpe | HF `tokenizers` "
        "| compiled / rustbpe | compiled / HF |",
        "|---|---|---|---|---|---|---|",
    ]
    for vocab, cells in rows.items():
        lines.append(
            f"| {vocab:,} ({ROWS[vocab]} MB) | {_cell(cells, 'tokviz-compiled')} | {_cell(cells, 'tokviz-pure')} | "
            f"{_cell(cells, 'rustbpe')} | {_cell(cells, 'hf')} | {_ratio(cells, 'rustbpe')} | {_ratio(cells, 'hf')} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows", type=int, nargs="*", default=list(ROWS), choices=list(ROWS), metavar="VOCAB"
    )
    parser.add_argument("--trainers", nargs="*", default=list(TRAINERS), choices=TRAINERS)
    parser.add_argument("--ties", action="store_true", help="only measure the cost of recording ties")
    parser.add_argument("--json", help="also write the results to this file")
    parser.add_argument("--one", nargs=3, metavar=("TRAINER", "PATH", "VOCAB"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(train_one(args.one[0], Path(args.one[1]), int(args.one[2]))))
        return 0
    print(machine())
    if args.ties:
        t = tie_overhead()
        extra = t["with_ties"] - t["without_ties"]
        print(
            f"32,000 merges on the 20 MB count table (CPU): {t['with_ties']:.3f} s with ties, "
            f"{t['without_ties']:.3f} s without: {100 * extra / t['without_ties']:+.1f} % of the loop, "
            f"{100 * extra / (t['counting'] + t['without_ties']):+.1f} % of the training "
            f"(counting the corpus took {t['counting']:.2f} s)"
        )
        return 0
    rows: dict[int, dict[str, dict[str, Any]]] = {}
    for vocab in args.rows:
        path = corpus(ROWS[vocab])
        rows[vocab] = {}
        for trainer in args.trainers:
            rows[vocab][trainer] = in_fresh_process(trainer, path, vocab)
            c = rows[vocab][trainer]
            print(f"{vocab:>7} {trainer:<16} {c['wall']:7.2f} s {c['rss_mb']:7.0f} MB", flush=True)
        pure, fast = rows[vocab].get("tokviz-pure"), rows[vocab].get("tokviz-compiled")
        if pure and fast and pure["merges"] != fast["merges"]:
            raise SystemExit(f"the compiled and pure loops disagree at {vocab:,}")
    print(table(rows))
    if args.json:
        for cells in rows.values():
            for c in cells.values():
                c.pop("merges", None)
        Path(args.json).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
