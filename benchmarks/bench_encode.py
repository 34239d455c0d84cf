"""Encode throughput: tokviz's encoder for a trained vocabulary against tiktoken on the same vocabulary.

A 10K vocabulary is trained on the ``stdlib`` corpus (or loaded from the cache), and a
``tiktoken.Encoding`` is built from it: a trained model's ids are its ranks (256 + merge index),
and the pre-tokenizer pattern is ``GPT2_PATTERN``. Both encode the same text on one thread; the
outputs must be identical, and the ratio tokviz/tiktoken is the figure of merit (target >= 1.0x).
tokviz's time is a first pass: a fresh tokenizer, so it includes building its tables and checking
that tiktoken's rank rule is exact for this merge list (``tokviz.core.bpe.rankrule``); ``--python``
measures the exact Python encoder instead.

    python benchmarks/bench_encode.py [--vocab-size 10000] [--mb 20] [--repeat 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import cache_dir, corpus_path  # noqa: E402


def load_or_train(vocab_size: int, cache: str | None) -> tuple[object, float]:
    """The cached model for ``vocab_size`` on stdlib, training and saving it on first use."""
    from tokviz.core.formats import load_model, save_model
    from tokviz.core.training.train import train_bpe

    model = cache_dir(cache) / f"stdlib-{vocab_size}.json"
    if model.exists():
        return load_model(model).tokenizer, 0.0
    t0 = time.perf_counter()
    result = train_bpe(files=corpus_path("stdlib", cache), vocab_size=vocab_size)
    elapsed = time.perf_counter() - t0
    tok = result.tokenizer(f"stdlib-{vocab_size}")
    save_model(model, tok, settings=result.settings(), history=result.history)
    return load_model(model).tokenizer, elapsed


def tiktoken_encoding(tok: object) -> object:
    """A tiktoken Encoding with the trained vocabulary's ids as ranks."""
    import tiktoken

    from tokviz.core.pretok.pretokenize import GPT2_PATTERN

    ranks = {data: i for i, data in tok.vocab.items() if not tok.is_special(i)}  # type: ignore[attr-defined]
    if len(ranks) != len(tok.vocab) - len(tok.special_tokens):  # type: ignore[attr-defined]
        raise SystemExit("the vocabulary repeats a byte string, so tiktoken cannot hold it")
    return tiktoken.Encoding(
        name="tokviz-bench", pat_str=GPT2_PATTERN, mergeable_ranks=ranks, special_tokens={}
    )


def best_time(fn: object, repeat: int) -> tuple[float, list[int]]:
    """Fastest of ``repeat`` runs of ``fn()`` and its result, in CPU seconds of this process.

    Both encoders run on this one thread, so CPU time is their cost, and it does not count the
    time other processes on a shared machine take the CPU away (wall time does).
    """
    best = float("inf")
    out: list[int] = []
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()  # type: ignore[operator]
        best = min(best, time.process_time() - t0)
    return best, out


def main(argv: list[str] | None = None) -> int:
    """Train or load the vocabulary, time both encoders, check they agree, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab-size", type=int, default=10_000)
    parser.add_argument(
        "--mb", type=float, help="encode only the first MB megabytes of stdlib (default: all)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="take the best of N runs (tokviz cold each time)"
    )
    parser.add_argument("--cache", help="corpus and model cache directory")
    parser.add_argument(
        "--python", action="store_true", help="measure the exact Python encoder (no tiktoken)"
    )
    args = parser.parse_args(argv)

    from tokviz.core.bpe.tokenizer import Tokenizer

    tok, trained_in = load_or_train(args.vocab_size, args.cache)
    text = corpus_path("stdlib", args.cache).read_text(encoding="utf-8")
    if args.mb:
        text = text[: int(args.mb * 1e6)]
    n_bytes = len(text.encode("utf-8"))
    enc = tiktoken_encoding(tok)

    used: list[bool] = []

    def fresh() -> Tokenizer:
        # A new tokenizer per run so its chunk cache starts empty, like a first encode would.
        made = Tokenizer(tok.vocab, tok.merges, tok.special_tokens, tok.pretokenizer, name=tok.name)
        if args.python:
            made._rank_checked = True  # as if the check had failed: the exact Python encoder
        return made

    def tokviz_run() -> list[int]:
        made = fresh()
        ids = made.encode_ordinary(text)
        used.append(made._rank_engine is not None)
        return ids

    t_tv, ids_tv = best_time(tokviz_run, args.repeat)
    t_tt, ids_tt = best_time(lambda: enc.encode_ordinary(text), args.repeat)  # type: ignore[attr-defined]
    # The same tokenizer again: its vocabulary is checked, its chunk cache is warm.
    warm = fresh()
    warm.encode_ordinary("warm up")
    t_warm, ids_warm = best_time(lambda: warm.encode_ordinary(text), args.repeat)
    same = ids_tv == ids_tt == ids_warm
    first_diff = next((i for i, (a, b) in enumerate(zip(ids_tv, ids_tt)) if a != b), None)

    mbps_tv = n_bytes / 1e6 / t_tv
    mbps_tt = n_bytes / 1e6 / t_tt
    ratio = mbps_tv / mbps_tt
    trained = f"trained in {trained_in:.1f} s" if trained_in else "loaded from cache"
    print(
        f"text: stdlib, {n_bytes / 1e6:.2f} MB; vocabulary: {tok.vocab_size} ids ({trained}); "
        f"single thread, CPU time, best of {args.repeat}"
    )
    rows = [
        ("", "time", "MB/s", "tokens", "vs tiktoken"),
        (
            "tokviz (" + ("tiktoken's engine, proved exact" if used[-1] else "exact Python") + ")",
            f"{t_tv:.2f} s",
            f"{mbps_tv:.2f}",
            f"{len(ids_tv):,}",
            f"{ratio:.2f}x",
        ),
        (
            "tokviz, same tokenizer again",
            f"{t_warm:.2f} s",
            f"{n_bytes / 1e6 / t_warm:.2f}",
            f"{len(ids_warm):,}",
            f"{t_tt / t_warm:.2f}x",
        ),
        ("tiktoken", f"{t_tt:.2f} s", f"{mbps_tt:.2f}", f"{len(ids_tt):,}", "1.00x"),
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join([r[0].ljust(widths[0]), *(c.rjust(w) for c, w in zip(r[1:], widths[1:]))]))
    if same:
        print(
            f"outputs identical ({len(ids_tv):,} ids); target >= 1.0x: {'met' if ratio >= 1.0 else 'NOT met'}"
        )
    else:
        print(
            f"outputs DIFFER: lengths {len(ids_tv)} vs {len(ids_tt)}, first difference at index {first_diff}"
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
