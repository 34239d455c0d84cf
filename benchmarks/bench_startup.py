"""Start-up time of the real app, from launching the ``tokviz`` command to a painted window.

Run: ``python benchmarks/bench_startup.py [--runs 7] [--command build/dist/tokviz/tokviz]``

Launches the installed ``tokviz`` command (``python -m tokviz`` when it is not installed) ``--runs``
times on the offscreen platform and, when Xvfb is installed, under Xvfb with the xcb platform (as a
user's X11 session would run it). Each run starts with a fresh profile, so the window opens on the
default text with GPT-2 and cl100k. The app reports its milestones through ``TOKVIZ_READY_FILE``
(tokviz/gui/window/startup.py) and quits by itself (``TOKVIZ_QUIT_WHEN_READY=1``); times are measured from
just before the process is started:

- window shown: the main window's first paint;
- tokens painted: both views have painted the tokens of the default text.

The targets: a visible window within 1.5 s, and within 0.8 s with the merge timeline dock
restored from the last session (a profile left that way by a first run), reported with its ratio
to a fresh profile's launch. It also checks that importing the GUI does no
tokenization work: a separate process imports ``tokviz.gui.app`` and ``tokviz.gui.window.main_window``
with the tokenizer's entry points instrumented, and reports the import time and the calls made.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 1.5
PYCACHE = str(Path(tempfile.gettempdir(), "tokviz-bench-pycache"))
# With the merge timeline dock restored from the last session: visible within 0.8 s.
TIMELINE_TARGET_S = 0.8

# Run once in a profile to leave it as a user who closed tokviz with the merge timeline open would.
TIMELINE_PROFILE = """
import sys
from PySide6.QtWidgets import QApplication, QDockWidget
app = QApplication(sys.argv)
app.setApplicationName("tokviz")
app.setOrganizationName("tokviz")
from tokviz.gui.window.main_window import MainWindow
window = MainWindow()
window.show()
dock = window.findChild(QDockWidget, "timelineDock")
dock.show()
app.processEvents()
window.save_settings()
"""

IMPORT_PROBE = """
import json, sys, time
calls = []
import tokviz.core.bpe.tokenizer as tk, tokviz.core.formats.registry as reg, tokviz.core.formats.encodings as enc
def spy(owner, name):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        calls.append(f"{owner.__name__}.{name}")
        return original(*args, **kwargs)
    setattr(owner, name, wrapper)
for name in ("encode", "encode_ordinary", "encode_spans", "encode_with_merges", "encode_iterable"):
    spy(tk.Tokenizer, name)
spy(reg, "load_tokenizer")
spy(enc, "load_bundled_ranks")
start = time.perf_counter()
import tokviz.gui, tokviz.gui.app, tokviz.gui.window.main_window
elapsed = time.perf_counter() - start
print(json.dumps({"import_s": elapsed, "calls": calls}))
"""


def tokviz_command() -> tuple[list[str], str]:
    """The installed command beside this Python, else ``python -m tokviz``."""
    beside = Path(sys.executable).with_name("tokviz")
    found = str(beside) if beside.is_file() else shutil.which("tokviz")
    if found:
        return [found], found
    return [sys.executable, "-m", "tokviz"], "python -m tokviz (tokviz is not installed)"


def start_xvfb() -> tuple[subprocess.Popen, str] | None:
    """A private Xvfb on a free display (chosen by Xvfb itself), or None when Xvfb is missing."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        return None
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as fh:
        number = fh.readline().strip()
    if not number:
        proc.kill()
        return None
    return proc, f":{int(number)}"


def profile_env(home: Path, platform: str, display: str | None) -> dict[str, str]:
    """The environment of a launch whose settings, caches and runtime files live under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "TOKVIZ_"))}
    # Bytecode as an installed app has it (pip compiles it): kept in one folder for every launch,
    # even where PYTHONDONTWRITEBYTECODE is set (else each launch compiles tokviz again, ~0.4 s).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(
        PYTHONPYCACHEPREFIX=PYCACHE,
        QT_QPA_PLATFORM=platform,
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_RUNTIME_DIR=str(home / "runtime"),
    )
    if display:
        env["DISPLAY"] = display
    return env


def one_run(
    command: list[str], platform: str, display: str | None, timeline: bool = False
) -> dict[str, float]:
    """Launch once with a fresh profile (``timeline``: one left with the merge timeline dock open);
    seconds from launch to each milestone."""
    with tempfile.TemporaryDirectory(prefix="tokviz-bench-") as tmp:
        home = Path(tmp)
        (home / "runtime").mkdir(mode=0o700)
        ready = home / "ready.json"
        env = profile_env(home, platform, display)
        if timeline:
            subprocess.run(
                [sys.executable, "-c", TIMELINE_PROFILE],
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
            )
        env.update(TOKVIZ_READY_FILE=str(ready), TOKVIZ_QUIT_WHEN_READY="1")
        launched = time.time()
        proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            raise RuntimeError(f"tokviz exited with {proc.returncode}:\n{proc.stderr}")
        status = json.loads(ready.read_text(encoding="utf-8"))
        return {
            "shown": status["shown"] - launched,
            "tokens": status["tokens_painted"] - launched,
            "window_built": status["created"] - launched,
        }


def summary(label: str, values: list[float], target: float = TARGET_S) -> str:
    median = statistics.median(values)
    verdict = f"OK (target <= {target} s)" if median <= target else f"OVER the {target} s target"
    return f"  {label:16s} median {median:6.3f} s   max {max(values):6.3f} s   {verdict}"


def import_check() -> dict:
    """Import time of the GUI modules and the tokenizer calls made while importing (should be none)."""
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_PROBE],
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="launches per platform (default 7)")
    parser.add_argument("--command", help="launch this executable instead, e.g. build/dist/tokviz/tokviz")
    args = parser.parse_args()

    command, how = ([args.command], args.command) if args.command else tokviz_command()
    print(f"command: {how}")
    print(f"machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}")

    imported = import_check()
    calls = ", ".join(imported["calls"]) or "none"
    print(
        f"import tokviz.gui.app + main_window: {imported['import_s'] * 1000:.0f} ms; tokenizer calls: {calls}"
    )

    platforms: list[tuple[str, str | None]] = [("offscreen", None)]
    xvfb = start_xvfb()
    if xvfb is not None:
        platforms.append(("xcb", xvfb[1]))
    else:
        print("Xvfb not installed: measuring the offscreen platform only")
    failed = bool(imported["calls"])
    try:
        for platform, display in platforms:
            one_run(command, platform, display)  # warm the file cache; not counted
            runs = [one_run(command, platform, display) for _ in range(args.runs)]
            where = f"xcb under Xvfb {display}" if display else platform
            print(f"{where}, {args.runs} launches (time from launch):")
            print(
                f"  {'window built':16s} median {statistics.median(r['window_built'] for r in runs):6.3f} s"
            )
            print(summary("window shown", [r["shown"] for r in runs]))
            print(summary("tokens painted", [r["tokens"] for r in runs]))
            failed |= statistics.median(r["shown"] for r in runs) > TARGET_S
            one_run(command, platform, display, timeline=True)
            restored = [one_run(command, platform, display, timeline=True) for _ in range(args.runs)]
            print(f"  with the merge timeline dock restored ({args.runs} launches):")
            print(
                f"  {'window built':16s} median {statistics.median(r['window_built'] for r in restored):6.3f} s"
            )
            print(summary("window shown", [r["shown"] for r in restored], TIMELINE_TARGET_S))
            print(summary("tokens painted", [r["tokens"] for r in restored]))
            shown = statistics.median(r["shown"] for r in restored)
            fresh = statistics.median(r["shown"] for r in runs)
            print(f"  {'ratio':16s} timeline restored / fresh profile: {shown / fresh:.2f}x")
            failed |= shown > TIMELINE_TARGET_S
    finally:
        if xvfb is not None:
            xvfb[0].terminate()
            xvfb[0].wait(10)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
