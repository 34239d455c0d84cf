"""``tokviz`` never hangs: hostile patterns are one-line errors, and signals stop every process.

Each command runs as a child process with a generous ``timeout`` that is only a safety net (a
hang fails the test instead of blocking the suite); the assertions are about exit codes, the
one-line message and the processes left behind.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tokviz.core.io.procpool import process_alive

from .helpers import ROOT, assert_one_line_error, child_env, interruptible

CATASTROPHIC = r"(a|a)+$"
HOSTILE_TEXT = "a" * 40 + "b"
# A hang would run for hours; these only keep a broken build from blocking the suite.
SAFETY = 60.0

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def tokviz(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tokviz", *argv],
        cwd=cwd,
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=SAFETY,
        stdin=subprocess.DEVNULL,
    )


def test_train_with_a_catastrophic_pretokenizer_is_a_one_line_error(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(HOSTILE_TEXT + "\n", encoding="utf-8")
    out = tmp_path / "model.json"
    done = tokviz(
        "train",
        str(corpus),
        "--vocab-size",
        "300",
        "--pretokenizer",
        CATASTROPHIC,
        "-o",
        str(out),
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "'(a|a)+$'", "takes too long")
    assert not out.exists()


def test_replay_with_a_catastrophic_pretokenizer_is_a_one_line_error(tmp_path: Path) -> None:
    done = tokviz("replay", "--text", HOSTILE_TEXT, "--pretokenizer", CATASTROPHIC, cwd=tmp_path)
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "'(a|a)+$'", "takes too long")


def _hostile_model(tmp_path: Path) -> Path:
    """A valid model file whose pre-tokenizer was edited to the catastrophic pattern."""
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat in the hat\n" * 50, encoding="utf-8")
    model = tmp_path / "model.json"
    made = tokviz(
        "train",
        str(corpus),
        "--vocab-size",
        "270",
        "--pretokenizer",
        r"\w+|\S",
        "-o",
        str(model),
        cwd=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    data = json.loads(model.read_text(encoding="utf-8"))
    data["pretokenizer"] = CATASTROPHIC
    hostile = tmp_path / "hostile.json"
    hostile.write_text(json.dumps(data), encoding="utf-8")
    return hostile


@pytest.mark.slow
def test_encode_with_a_model_whose_pattern_is_catastrophic_is_a_one_line_error(tmp_path: Path) -> None:
    model = _hostile_model(tmp_path)
    done = tokviz("encode", "--tokenizer", str(model), "--text", HOSTILE_TEXT, cwd=tmp_path)
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "hostile.json", "takes too long")
    done = tokviz("replay", "--tokenizer", str(model), "--text", HOSTILE_TEXT, cwd=tmp_path)
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "takes too long")


# ------------------------------------------------------------------ signals on the parallel path
def _children() -> dict[int, list[int]]:
    """Every process's children, from /proc."""
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        tree.setdefault(ppid, []).append(int(name))
    return tree


def _descendants(pid: int) -> set[int]:
    tree = _children()
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in tree.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


@pytest.fixture(scope="module")
def big_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """24 MB of varied words: above the 4 MB parallel threshold, a few seconds of counting."""
    rng = random.Random(7)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(50_000)]
    block = "\n".join(" ".join(rng.choice(words) for _ in range(12)) for _ in range(12_000)) + "\n"
    path = tmp_path_factory.mktemp("big") / "big.txt"
    with open(path, "w", encoding="utf-8") as fh:
        while fh.tell() < 24 << 20:
            fh.write(block)
    return path


def _train_then_signal(
    corpus: Path, tmp_path: Path, sig: signal.Signals, group: bool = False
) -> tuple[int, float, set[int], str]:
    """Start a parallel training run, wait for its counting workers, send ``sig`` (to its whole
    process group when ``group``, as a terminal's Ctrl+C does).

    Returns the exit status, the seconds from the signal to the exit, the run's child processes
    seen before the signal and its standard error.
    """
    err_path = tmp_path / "stderr.txt"
    with open(err_path, "w", encoding="utf-8") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tokviz", "train", str(corpus), "--vocab-size", "20000", "--workers", "2",
             "-o", str(tmp_path / "model.json")],
            cwd=ROOT,
            env=child_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,  # a file, not a pipe: a leftover child holding a pipe would block the read
            start_new_session=group,
            preexec_fn=interruptible,
        )  # fmt: skip
        try:
            seen: set[int] = set()
            deadline = time.monotonic() + SAFETY
            # The fork server, the resource tracker and the two counting workers.
            while len(seen) < 4 and proc.poll() is None:
                assert time.monotonic() < deadline, "the counting workers never started"
                seen |= _descendants(proc.pid)
                time.sleep(0.02)
            assert proc.poll() is None, "the run ended before it could be interrupted"
            seen |= _descendants(proc.pid)
            sent = time.monotonic()
            if group:
                os.killpg(proc.pid, sig)
            else:
                proc.send_signal(sig)
            code = proc.wait(SAFETY)
            latency = time.monotonic() - sent
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return code, latency, seen, err_path.read_text(encoding="utf-8")


def _assert_all_gone(pids: set[int]) -> None:
    """Every process in ``pids`` exits (a zombie counts as gone) within the safety time."""
    deadline = time.monotonic() + SAFETY
    left = {pid for pid in pids if process_alive(pid)}
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = {pid for pid in left if process_alive(pid)}
    for pid in left:  # clean up before failing, so one failure does not leave processes behind
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running: {sorted(left)}"


@pytest.mark.slow
def test_sigint_stops_a_parallel_run_and_every_worker(big_corpus: Path, tmp_path: Path) -> None:
    code, latency, seen, err = _train_then_signal(big_corpus, tmp_path, signal.SIGINT)
    assert code == 130, err
    assert "training cancelled; nothing was written" in err
    assert "Traceback" not in err
    assert not (tmp_path / "model.json").exists()
    assert latency < SAFETY
    _assert_all_gone(seen)


@pytest.mark.slow
def test_sigterm_leaves_no_worker_behind(big_corpus: Path, tmp_path: Path) -> None:
    code, _latency, seen, _err = _train_then_signal(big_corpus, tmp_path, signal.SIGTERM)
    assert code == -signal.SIGTERM
    # The workers notice their parent is gone; the fork server and resource tracker then exit.
    _assert_all_gone(seen)


@pytest.mark.slow
def test_ctrl_c_in_a_terminal_stops_the_run_without_worker_tracebacks(
    big_corpus: Path, tmp_path: Path
) -> None:
    # The terminal sends SIGINT to every process of the group: the workers leave it to the parent.
    code, _latency, seen, err = _train_then_signal(big_corpus, tmp_path, signal.SIGINT, group=True)
    assert code == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    _assert_all_gone(seen)
