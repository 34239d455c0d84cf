"""Running ``tokviz`` in-process or as a program, and checking its one-line errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tokviz.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``tokviz ARGV`` in-process; return the exit status, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def train_model(capsys: pytest.CaptureFixture[str], folder: Path, text: str, vocab_size: int) -> Path:
    """A model file in ``folder``, trained by ``tokviz train`` on ``text`` as a user would train it."""
    corpus = folder / "corpus.txt"
    corpus.write_text(text, encoding="utf-8")
    path = folder / "m.json"
    code, _, err = run(capsys, "train", str(corpus), "--vocab-size", str(vocab_size), "-o", str(path))
    assert code == 0, err
    return path


def assert_one_line_error(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tokviz: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0]


def child_env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return dict(os.environ, PYTHONPATH=path)


def tokviz_child(cwd: Path, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m tokviz ARGV`` as a program in ``cwd``, with ``env`` added to the environment."""
    return subprocess.run(
        [sys.executable, "-m", "tokviz", *argv],
        cwd=cwd,
        env=dict(child_env(), **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


# Runs ``tokviz ARGV`` (argv[2:]) with its address space capped at argv[1] bytes. With 0 it is not
# capped and reports its peak address space (VmPeak, kB) as the last line of standard error; with
# -1 it runs only the Python statements in argv[2] (the imports a command makes) and prints that peak.
CAPPED = """
import atexit, resource, runpy, sys
cap = int(sys.argv[1])
def peak():
    return open("/proc/self/status").read().split("VmPeak:")[1].split()[0]
if cap < 0:
    exec(sys.argv[2])
    print(peak())
    raise SystemExit(0)
if cap:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
else:
    atexit.register(lambda: print(peak(), file=sys.stderr))
sys.argv = ["tokviz", *sys.argv[2:]]
runpy.run_module("tokviz", run_name="__main__")
"""
# How much more than its normal peak (or its imports) a command may take on a hostile input.
HEADROOM = 300 << 20
needs_proc_status = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="needs Linux's /proc to read a peak"
)


def tokviz_capped(
    cap: int, *argv: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """``tokviz ARGV`` in a child process whose address space is capped at ``cap`` bytes (0: not
    capped, its peak reported as the last line of standard error)."""
    return subprocess.run(
        [sys.executable, "-c", CAPPED, str(cap), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env or child_env(),
        timeout=timeout,
    )


def address_cap(imports: str, env: dict[str, str] | None = None) -> int:
    """The address space a command needs (what ``imports``, Python statements, take) plus :data:`HEADROOM`."""
    done = subprocess.run(
        [sys.executable, "-c", CAPPED, "-1", imports],
        capture_output=True,
        text=True,
        env=env or child_env(),
        check=True,
    )
    return int(done.stdout.strip()) * 1024 + HEADROOM


def cap_above_normal(cwd: Path, *argv: str) -> int:
    """The peak address space of ``tokviz ARGV`` on an ordinary input, plus :data:`HEADROOM`."""
    done = tokviz_capped(0, *argv, cwd=cwd)
    assert done.returncode == 0, done.stderr[-2000:]
    return int(done.stderr.splitlines()[-1]) * 1024 + HEADROOM


def interruptible() -> None:
    """``preexec_fn`` of a child the test sends Ctrl+C: SIGINT as an interactive terminal has it.

    A child inherits an ignored or blocked SIGINT from the test process (a run started by a
    runner without job control; a library's thread mask); it would then never see the signal.
    """
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted_training(argv: list[str], at: str, timeout: float) -> tuple[int, str, str]:
    """Run ``tokviz train ARGV`` as a program and press Ctrl+C when its progress reaches a line that
    starts with ``at``; return the exit status, the lines before the signal and the rest of stderr."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tokviz", "train", *argv],
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        preexec_fn=interruptible,
    )
    with proc:
        assert proc.stderr is not None
        before = []
        for line in proc.stderr:
            before.append(line)
            if line.startswith(at):
                proc.send_signal(signal.SIGINT)
                break
        rest = proc.stderr.read()
        proc.wait(timeout=timeout)
    return proc.returncode, "".join(before), rest
