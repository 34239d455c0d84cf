"""Training speed and memory: tokviz's trainer against Hugging Face ``tokenizers`` on one corpus.

Each trainer runs in a fresh subprocess so the peak RSS figures (``ru_maxrss``) are its own;
tokviz's pre-tokenization worker processes are reported separately (``RUSAGE_CHILDREN``). HF
trains a ByteLevel BPE (``add_prefix_space=False``, the 256-byte initial alphabet, the same
vocabulary size, ``min_frequency=0`` like tokviz, which merges any pair seen at least once) from
the same file, with the GPT-2 pattern for ``--pretokenizer gpt2`` and no split for ``none``.
Ratios are tokviz / HF, measured in the same run.

Besides the corpora of ``corpora.py``, two are generated here for long pre-tokens:
``chinese`` (5 MB of Chinese with no spaces, from a character chain over the Chinese texts that
ship with tokviz and Python's tests, so GPT-2's pattern cuts it only at punctuation) and
``oneline`` (the stdlib sources as one line of 50 MB, meant for ``--pretokenizer none``); their
sizes are set with ``--mb``.

    python benchmarks/bench_train.py stdlib --vocab-size 10000
    python benchmarks/bench_train.py english --vocab-size 756 --tie-break first-seen
    python benchmarks/bench_train.py chinese --vocab-size 1000
    python benchmarks/bench_train.py oneline --pretokenizer none --vocab-size 10256
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import DEFAULT_BIG_MB, cache_dir, corpus_path  # noqa: E402

GENERATED = {"chinese": 5, "oneline": 50}  # name -> default size in MB


def chinese_text(n_bytes: int, seed: int = 15) -> str:
    """About ``n_bytes`` of Chinese with no spaces: a seeded character chain over real Chinese text.

    The chain follows which character comes after which in the sources (tokviz's Chinese sample
    and the Chinese test texts of Python's ``cjkencodings``), with a 2% chance of jumping to any
    character, so the corpus has the character frequencies and the punctuation rhythm of prose.
    """
    root = Path(sysconfig.get_paths()["stdlib"]) / "test" / "cjkencodings"
    source = (HERE.parent / "resources" / "samples" / "chinese.txt").read_text(encoding="utf-8")
    for name in ("gbk-utf8.txt", "big5-utf8.txt"):
        if (root / name).exists():
            source += (root / name).read_text(encoding="utf-8")
    chars = [c for c in source if ord(c) > 0x2E80 or c == "\n"]
    following: dict[str, list[str]] = {}
    for a, b in zip(chars, chars[1:]):
        following.setdefault(a, []).append(b)
    rng = random.Random(seed)
    keys = sorted(following)
    out: list[str] = []
    size = 0
    c = chars[0]
    while size < n_bytes:
        options = following.get(c)
        c = rng.choice(options) if options and rng.random() > 0.02 else rng.choice(keys)
        out.append(c)
        size += len(c.encode("utf-8"))
    return "".join(out)


def generated_path(name: str, mb: float, cache: str | None) -> Path:
    """The generated corpus ``name`` of ``mb`` megabytes in the cache, built on first use."""
    target = cache_dir(cache) / f"{name}-{mb:g}mb.txt"
    if not target.exists():
        n = int(mb * 1_000_000)
        if name == "chinese":
            data = chinese_text(n).encode("utf-8")
        else:
            # One line: the stdlib sources with every newline made a space, repeated to size.
            src = corpus_path("stdlib", cache).read_bytes().replace(b"\n", b" ")
            data = (src * (n // len(src) + 1))[:n]
            data = data[: len(data.decode("utf-8", errors="ignore").encode("utf-8"))]
        tmp = target.with_suffix(".partial")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


def _rss_mb(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports kilobytes


def run_tokviz(
    path: str, vocab_size: int, workers: int | None, tie_break: str, pretokenizer: str
) -> dict[str, Any]:
    """Train with tokviz in this process and report timings, merges and peak memory."""
    from tokviz.core.training.train import train_bpe

    t0 = time.perf_counter()
    result = train_bpe(
        files=Path(path),
        vocab_size=vocab_size,
        workers=workers,
        tie_break=tie_break,
        pretokenizer=pretokenizer,
    )
    wall = time.perf_counter() - t0
    return {
        "pretokenize": result.timings["pretokenize"],
        "merge": result.timings["merge"],
        "total": wall,
        "unique_words": result.unique_words,
        "merges": [[a.hex(), b.hex()] for a, b in result.merges],
        "rss_main": _rss_mb(resource.RUSAGE_SELF),
        "rss_workers": _rss_mb(resource.RUSAGE_CHILDREN),
    }


def run_hf(path: str, vocab_size: int, min_frequency: int, pretokenizer: str) -> dict[str, Any]:
    """Train HF's ByteLevel BPE in this process and report the same figures."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    from tokviz.core.pretok.bytes_ import gpt2_str_to_bytes

    tok = Tokenizer(models.BPE())
    # ByteLevel's regex is GPT-2's pattern; without it the whole text is one piece, like "none".
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=pretokenizer == "gpt2")
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
        min_frequency=min_frequency,
    )
    t0 = time.perf_counter()
    tok.train([path], trainer)
    wall = time.perf_counter() - t0
    raw = json.loads(tok.to_str())["model"]["merges"]
    pairs = [m.split(" ", 1) if isinstance(m, str) else m for m in raw]
    merges = [[gpt2_str_to_bytes(a).hex(), gpt2_str_to_bytes(b).hex()] for a, b in pairs]
    return {"total": wall, "merges": merges, "rss_main": _rss_mb(resource.RUSAGE_SELF), "rss_workers": 0.0}


def _child(which: str, args: argparse.Namespace, path: Path) -> dict[str, Any]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    cmd = [
        sys.executable,
        __file__,
        str(path),
        "--vocab-size",
        str(args.vocab_size),
        "--run",
        which,
        "--out",
        out,
    ]
    cmd += ["--tie-break", args.tie_break, "--min-frequency", str(args.min_frequency)]
    cmd += ["--pretokenizer", args.pretokenizer]
    if args.workers is not None:
        cmd += ["--workers", str(args.workers)]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))
    )
    try:
        subprocess.run(cmd, check=True, env=env)
        return json.loads(Path(out).read_text())
    finally:
        os.unlink(out)


def _fmt_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f} s"


def report(
    name: str, path: Path, args: argparse.Namespace, tv: dict[str, Any], hf: dict[str, Any] | None
) -> str:
    """The results table: one column per trainer and the tokviz/HF time ratio."""
    size = path.stat().st_size
    n_tv = len(tv["merges"])
    rows: list[tuple[str, str, str, str]] = [
        ("pre-tokenization", _fmt_s(tv["pretokenize"]), "-", ""),
        ("merge loop", _fmt_s(tv["merge"]), "-", ""),
    ]
    ratio = f"{tv['total'] / hf['total']:.2f}x" if hf else ""
    rows.append(("total", _fmt_s(tv["total"]), _fmt_s(hf["total"]) if hf else "-", ratio))
    rows.append(
        (
            "merges/s (merge loop | total)",
            f"{n_tv / tv['merge']:,.0f} | {n_tv / tv['total']:,.0f}" if tv["merge"] else "-",
            f"- | {len(hf['merges']) / hf['total']:,.0f}" if hf else "-",
            "",
        )
    )
    rows.append(("merges made", str(n_tv), str(len(hf["merges"])) if hf else "-", ""))
    rows.append(
        ("peak RSS, main process", f"{tv['rss_main']:.0f} MB", f"{hf['rss_main']:.0f} MB" if hf else "-", "")
    )
    rows.append(("peak RSS, largest worker", f"{tv['rss_workers']:.0f} MB", "-", ""))
    lines = [
        f"corpus {name}: {size / 1e6:.2f} MB, {tv['unique_words']:,} unique pre-tokens; vocab size "
        f"{args.vocab_size}; pre-tokenizer {args.pretokenizer}; tie-break {args.tie_break}; "
        f"workers {args.workers or 'default'}; "
        f"HF min_frequency={args.min_frequency}",
    ]
    widths = [max(len(r[i]) for r in [("", "tokviz", "HF tokenizers", "tokviz/HF"), *rows]) for i in range(4)]
    header = ("", "tokviz", "HF tokenizers", "tokviz/HF")
    for r in [header, *rows]:
        lines.append(
            "  ".join(
                [r[0].ljust(widths[0]), r[1].rjust(widths[1]), r[2].rjust(widths[2]), r[3].rjust(widths[3])]
            ).rstrip()
        )
    if hf:
        a = [tuple(m) for m in tv["merges"]]
        b = [tuple(m) for m in hf["merges"]]
        prefix = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        common = len(set(a) & set(b))
        lines.append(
            f"merge lists: identical for the first {prefix} merges; {common / max(len(a), 1):.1%} of tokviz's "
            "merges are also HF's (ties are broken differently)"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run both trainers in subprocesses, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="stdlib, english, big, chinese, oneline, or a file path")
    parser.add_argument("--pretokenizer", choices=("gpt2", "none"), default="gpt2")
    parser.add_argument("--mb", type=float, help="size of a generated corpus (chinese 5, oneline 50)")
    parser.add_argument("--vocab-size", type=int, required=True)
    parser.add_argument("--workers", type=int)
    parser.add_argument("--tie-break", choices=("lexicographic", "first-seen"), default="lexicographic")
    parser.add_argument("--min-frequency", type=int, default=0, help="HF trainer's min_frequency (default 0)")
    parser.add_argument("--skip-hf", action="store_true", help="measure tokviz only")
    parser.add_argument("--cache", help="corpus cache directory")
    parser.add_argument("--big-mb", type=int, default=DEFAULT_BIG_MB)
    parser.add_argument("--run", choices=("tokviz", "hf"), help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.run:
        data = (
            run_tokviz(args.corpus, args.vocab_size, args.workers, args.tie_break, args.pretokenizer)
            if args.run == "tokviz"
            else run_hf(args.corpus, args.vocab_size, args.min_frequency, args.pretokenizer)
        )
        Path(args.out).write_text(json.dumps(data))
        return 0
    if args.corpus in GENERATED:
        path = generated_path(args.corpus, args.mb or GENERATED[args.corpus], args.cache)
    else:
        path = corpus_path(args.corpus, args.cache, args.big_mb)
    tv = _child("tokviz", args, path)
    hf = None if args.skip_hf else _child("hf", args, path)
    print(report(args.corpus, path, args, tv, hf))
    return 0


if __name__ == "__main__":
    sys.exit(main())
