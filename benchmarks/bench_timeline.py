"""Merge timeline on a 1 MB text: tracing it, then stepping and jumping through GPT-2's merges.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/bench_timeline.py [--size 1000000] [--steps 60]``

The text is Python's own standard library sources (many distinct words, as real text has), cut
to ``--size`` characters. The real timeline widget replays GPT-2 on it; a step is timed from the
call (``step_forward``, as the Step button does) until the view shows the new step and has
repainted. Target: the whole text up to 1 MB, a step <= 50 ms. The reference, measured in the
same run, encodes the whole text again with the first k merges for one step
(``encode_spans(text, max_merges=k)``), and also its first 100,000 characters alone.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import sysconfig
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

STEP_TARGET_MS = 50


def stdlib_text(size: int) -> str:
    """``size`` characters of the standard library's sources, file after file in a fixed order."""
    root = Path(sysconfig.get_paths()["stdlib"])
    parts: list[str] = []
    total = 0
    for path in sorted(root.glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text)
        total += len(text)
        if total >= size:
            break
    return "".join(parts)[:size]


def wait_until(app: QApplication, predicate, timeout: float = 300.0) -> None:  # noqa: ANN001
    deadline = time.perf_counter() + timeout
    while not predicate():
        app.processEvents()
        time.sleep(0.0002)  # as an idle event loop: spinning would keep the GIL from the worker
        if time.perf_counter() > deadline:
            raise TimeoutError("the timeline did not become ready")


def timed_steps(app: QApplication, timeline, count: int) -> list[float]:  # noqa: ANN001
    """Milliseconds of ``count`` presses of Step (to the next merge that changes the text)."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        timeline.step_forward()
        wait_until(app, timeline.is_ready)
        timeline.view.viewport().repaint()
        times.append((time.perf_counter() - start) * 1000)
    return times


def line(name: str, values: list[float], target: float | None = None) -> str:
    values = sorted(values)
    median = statistics.median(values)
    p90 = values[max(int(len(values) * 0.9) - 1, 0)]
    verdict = ""
    if target is not None:
        verdict = f"  target <= {target:.0f} ms: " + ("OK" if p90 <= target else "OVER (p90)")
    return f"{name:34s} median {median:7.1f} ms   p90 {p90:7.1f} ms   max {values[-1]:7.1f} ms{verdict}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters of text (default 1 MB)")
    parser.add_argument("--steps", type=int, default=60, help="Step presses timed at each place")
    args = parser.parse_args()

    app = QApplication(sys.argv)
    from tokviz.core.formats.registry import load_tokenizer
    from tokviz.gui.models.tokenizers import TokenizerRegistryModel
    from tokviz.gui.panels.timeline.panel import TimelineWidget

    text = stdlib_text(args.size)
    tok = load_tokenizer("gpt2")
    tok.merge_rank_of_id  # noqa: B018 - the merge tables the window builds at start-up anyway
    timeline = TimelineWidget(TokenizerRegistryModel())
    timeline.resize(1200, 600)
    timeline.show()
    app.processEvents()
    print(f"text: {len(text):,} characters of stdlib sources; GPT-2, {tok.merge_count:,} merges")

    start = time.perf_counter()
    timeline.set_text(text)
    timeline.set_tokenizer(tok)
    wait_until(app, timeline.is_ready)
    traced = time.perf_counter() - start
    trace = timeline.trace
    print(
        f"trace the whole text (background, once per text): {traced:.2f} s; "
        f"{len(trace.events):,} merges change it, {trace.initial_tokens:,} -> {trace.final_tokens:,} tokens"
    )
    assert trace.text == text, "the whole text is replayed"

    early = timed_steps(app, timeline, args.steps)
    print(line("Step from step 0", early, STEP_TARGET_MS))
    timeline.set_step(trace.events[len(trace.events) // 2].step)
    wait_until(app, timeline.is_ready)
    middle = timed_steps(app, timeline, args.steps)
    print(line("Step from the middle", middle, STEP_TARGET_MS))
    jumps = []
    for target in (trace.total_steps, 0, trace.events[len(trace.events) // 3].step, trace.total_steps // 2):
        begin = time.perf_counter()
        timeline.set_step(target)
        wait_until(app, timeline.is_ready)
        timeline.view.viewport().repaint()
        jumps.append((time.perf_counter() - begin) * 1000)
    print(line("Jump (slider) to a far step", jumps))

    # Reference: one step by encoding the whole text again with the first k merges.
    k = trace.events[len(trace.events) // 2].step
    begin = time.perf_counter()
    tok.encode_spans(text, max_merges=k)
    reference = (time.perf_counter() - begin) * 1000
    begin = time.perf_counter()
    tok.encode_spans(text[:100_000], max_merges=k)
    reference_100k = (time.perf_counter() - begin) * 1000
    steps = sorted(early + middle)
    median = statistics.median(steps)
    print(
        f"reference: one step by re-encoding = encode_spans(text, max_merges=k): {reference:,.0f} ms for "
        f"the whole text ({reference_100k:,.0f} ms for its first 100,000 characters); "
        f"step median / reference {median / reference:.3f}x"
    )
    timeline.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
