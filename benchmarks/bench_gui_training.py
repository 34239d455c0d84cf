"""Does the window stay responsive while it trains? Event-loop stalls and cancel latency, measured.

The real main window trains on the ``stdlib`` corpus (about 20 MB of Python sources, see
``corpora.py``) through its Train panel, with merges streaming into the timeline and its plot. A
timer that should fire every 5 ms records how late each tick is; the largest lateness is the
longest the GUI thread could not react. Then one run per phase is cancelled to time how long the
trainer takes to stop. Results are printed as a table and, with ``--json``, saved.

    python benchmarks/bench_gui_training.py                      # 20 MB, vocab 5000, offscreen
    python benchmarks/bench_gui_training.py --vocab-size 10000 --screenshot /tmp/training.png
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))

from corpora import corpus_path  # noqa: E402

TICK_MS = 5


def _percentile(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _summary(lateness: list[float]) -> dict[str, float]:
    return {
        "ticks": len(lateness),
        "max_ms": round(max(lateness, default=0.0), 2),
        "median_ms": round(statistics.median(lateness) if lateness else 0.0, 2),
        "p99_ms": round(_percentile(lateness, 0.99), 2),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", default="stdlib", help="corpus name from corpora.py or a path (default stdlib)"
    )
    parser.add_argument("--vocab-size", type=int, default=5000)
    parser.add_argument("--pretokenizer", default="gpt2")
    parser.add_argument("--no-cancel", action="store_true", help="skip the cancel-latency runs")
    parser.add_argument("--baseline", type=float, default=3.0, help="seconds of idle measurement first")
    parser.add_argument(
        "--no-gui-first",
        action="store_true",
        help="let the trainer ignore the GUI thread's lag (for comparison)",
    )
    parser.add_argument("--screenshot", help="save a picture of the window mid-merge here")
    parser.add_argument("--json", help="write the results to this file")
    args = parser.parse_args(argv)

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication, QDockWidget

    import tokviz.gui.workers.training as train_worker
    from tokviz.gui.panels.timeline.panel import TimelineWidget
    from tokviz.gui.panels.training.panel import TrainPanel
    from tokviz.gui.window.main_window import MainWindow

    if args.no_gui_first:
        train_worker.GUI_MAX_LAG = None

    corpus = corpus_path(args.corpus)
    app = QApplication.instance() or QApplication([])
    app.setStyle("Fusion")
    settings_dir = tempfile.mkdtemp(prefix="tokviz-bench-settings-")
    settings = QSettings(os.path.join(settings_dir, "tokviz.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings)
    window.resize(1440, 900)
    window.show()
    # The panels are the widgets of their docks, found by the docks' object names.
    train_dock = window.findChild(QDockWidget, "trainDock")
    timeline_dock = window.findChild(QDockWidget, "timelineDock")
    panel = train_dock.widget() if train_dock is not None else None
    timeline = timeline_dock.widget() if timeline_dock is not None else None
    if not isinstance(panel, TrainPanel) or not isinstance(timeline, TimelineWidget):
        raise SystemExit("the window has no Train panel or merge timeline")

    def spin_until(cond: Any, timeout: float) -> bool:
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            app.processEvents()
            if cond():
                return True
            time.sleep(0.002)
        return False

    spin_until(window.is_ready, 60)
    # pyqtgraph is imported in the background after start-up; training starts once the plot exists.
    spin_until(lambda: timeline.plot.built, 30)
    panel.add_paths([str(corpus)])
    panel.vocab_size.setValue(args.vocab_size)
    panel.set_pretokenizer(args.pretokenizer)
    panel.name.setText("bench")
    spin_until(lambda: panel._info_job is None, 30)

    # ---------------------------------------------------------------- one full run
    phase = ["baseline"]
    lateness: dict[str, list[float]] = {}
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        lateness.setdefault(phase[0], []).append(max(0.0, (now - last[0]) * 1000 - TICK_MS))
        last[0] = now

    timer = QTimer()
    timer.setInterval(TICK_MS)
    timer.timeout.connect(tick)
    shot_taken = [False]

    def on_progress(status: Any) -> None:
        phase[0] = status.phase
        if (
            args.screenshot
            and not shot_taken[0]
            and status.phase == "merging"
            and status.done > status.total // 3
        ):
            shot_taken[0] = True
            window.grab().save(args.screenshot)
            last[0] = time.perf_counter()  # the screenshot itself is not a stall of training

    panel.run.progressChanged.connect(on_progress)
    batches = [0]
    panel.run.mergesArrived.connect(lambda recs: batches.__setitem__(0, batches[0] + 1))
    ended = [False]
    panel.run.ended.connect(lambda: ended.__setitem__(0, True))
    # The timeline is open, as when a user watches the merges arrive; first the idle app's noise floor.
    timeline_dock.show()
    spin_until(lambda: False, 1.0)
    load_before = os.getloadavg()
    timer.start()
    last[0] = time.perf_counter()
    spin_until(lambda: False, args.baseline)
    phase[0] = "start"
    t0 = time.perf_counter()
    job = panel.start()
    job_naps = [0]
    job.stopped.connect(lambda: job_naps.__setitem__(0, job.gui_first.naps))
    spin_until(lambda: ended[0], 3600)
    wall = time.perf_counter() - t0
    timer.stop()
    outcome = panel.outcome
    if outcome is None:
        print("training did not finish:", panel.error.text())
        return 1
    res = outcome.result
    during = [x for ph, xs in lateness.items() if ph != "baseline" for x in xs]
    results: dict[str, Any] = {
        "corpus": str(corpus),
        "corpus_mb": round(res.corpus_bytes / 1e6, 2),
        "vocab_size": args.vocab_size,
        "merges": len(res.merges),
        "wall_s": round(wall, 2),
        "timings_s": {k: round(v, 2) for k, v in res.timings.items()},
        "merge_batches": batches[0],
        "gui_first_naps": job_naps[0],
        "load_average": load_before,
        "stall_all": _summary(during),
        "stall_by_phase": {ph: _summary(xs) for ph, xs in lateness.items()},
    }

    # ---------------------------------------------------------------- cancel latency per phase
    def measure_cancel(target: str, delay: float) -> dict[str, Any] | None:
        """Start a run, cancel it ``delay`` s into ``target``, time the cancelled signal and the thread's end."""
        state: dict[str, float] = {}

        def seen(status: Any) -> None:
            if status.phase == target and "reached" not in state:
                state["reached"] = time.perf_counter()

        def cancelled() -> None:
            state.setdefault("cancelled", time.perf_counter())

        def ended() -> None:
            state.setdefault("ended", time.perf_counter())

        panel.run.progressChanged.connect(seen)
        panel.run.cancelled.connect(cancelled)
        panel.run.ended.connect(ended)
        try:
            if panel.start() is None:
                return None
            if target == "reading":
                state["reached"] = time.perf_counter()
            spin_until(lambda: "reached" in state, 120)
            spin_until(lambda: False, delay)
            t_cancel = time.perf_counter()
            panel.cancel_button.click()
            spin_until(lambda: "ended" in state, 30)
        finally:
            panel.run.progressChanged.disconnect(seen)
            panel.run.cancelled.disconnect(cancelled)
            panel.run.ended.disconnect(ended)
        c = state.get("cancelled")
        return {
            "to_cancelled_signal_ms": round((c - t_cancel) * 1000, 1) if c else None,
            "to_thread_end_ms": round((state.get("ended", t_cancel) - t_cancel) * 1000, 1),
            "models_unchanged": window.tokenizers.keys() == keys_before,
        }

    cancels: dict[str, Any] = {}
    if not args.no_cancel:
        keys_before = window.tokenizers.keys()
        for target, delay in (("reading", 0.0), ("pre-tokenizing", 0.3), ("merging", 0.5)):
            cancels[target] = measure_cancel(target, delay)
        results["cancel"] = cancels

    panel.shutdown()
    window.close()

    print(
        f"corpus {results['corpus_mb']} MB, vocab {args.vocab_size}: {results['merges']} merges in {results['wall_s']} s"
    )
    print(
        f"  timings {results['timings_s']}, {results['merge_batches']} merge batches to the GUI, "
        f"{results['gui_first_naps']} naps for the GUI"
    )
    print(
        f"  load average before: {', '.join(f'{x:.2f}' for x in results['load_average'])} ({os.cpu_count()} CPUs)"
    )
    print(f"  {'phase':16} {'ticks':>6} {'max ms':>8} {'median':>8} {'p99':>8}")
    for ph, s in [("ALL (training)", results["stall_all"])] + list(results["stall_by_phase"].items()):
        print(f"  {ph:16} {s['ticks']:>6} {s['max_ms']:>8} {s['median_ms']:>8} {s['p99_ms']:>8}")
    for target, c in cancels.items():
        if c is not None:
            print(
                f"  cancel in {target:15} -> cancelled signal after {c['to_cancelled_signal_ms']} ms, "
                f"thread ended after {c['to_thread_end_ms']} ms, models unchanged: {c['models_unchanged']}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
