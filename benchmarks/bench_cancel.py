"""How quickly a training run stops after its cancel flag is set, in each phase.

The trainer runs in a thread, as in the app; the main thread watches its progress reports,
sets the cancel flag once the run is in the wanted phase, and times how long the run takes to
raise ``Cancelled``. Target: under 100 ms in every phase.

    python benchmarks/bench_cancel.py [CORPUS] [--vocab-size N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpora import corpus_path  # noqa: E402

from tokviz.core import Cancelled, train_bpe  # noqa: E402

PHASES = ("reading", "pre-tokenizing", "merging")


def cancel_latency(corpus: Path, vocab_size: int, phase: str, delay: float) -> float:
    """Seconds from setting the flag (``delay`` s into ``phase``) until the run has stopped."""
    cancel = threading.Event()
    in_phase = threading.Event()
    stopped: list[float] = []

    def on_progress(progress) -> None:  # noqa: ANN001 - core Progress
        if progress.phase == phase:
            in_phase.set()

    def run() -> None:
        try:
            train_bpe(files=corpus, vocab_size=vocab_size, progress=on_progress, cancel=cancel)
        except Cancelled:
            stopped.append(time.perf_counter())

    thread = threading.Thread(target=run)
    thread.start()
    if not in_phase.wait(timeout=120):
        raise SystemExit(f"the run never reached phase {phase!r}")
    time.sleep(delay)
    t0 = time.perf_counter()
    cancel.set()
    thread.join()
    if not stopped:
        raise SystemExit(f"the run finished before the cancel in phase {phase!r} took effect")
    return stopped[0] - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("corpus", nargs="?", default="stdlib")
    parser.add_argument("--vocab-size", type=int, default=10_256)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    corpus = corpus_path(args.corpus)
    print(f"corpus {corpus} ({corpus.stat().st_size / 1e6:.1f} MB), vocab size {args.vocab_size}")
    print(f"{'phase':<16}{'median ms':>10}{'max ms':>10}{'target':>10}")
    worst = 0.0
    for phase in PHASES:
        delays = [0.0, 0.03, 0.07, 0.11, 0.2][: args.repeat]
        times = [cancel_latency(corpus, args.vocab_size, phase, d) * 1000 for d in delays]
        worst = max(worst, max(times))
        print(f"{phase:<16}{statistics.median(times):>10.1f}{max(times):>10.1f}{'100':>10}")
    print(f"worst {worst:.1f} ms: {'OK' if worst < 100 else 'over target'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
