"""``tokviz train``'s outputs: bad ones are refused before training, and a run writes all or nothing.

The kill test ends ``tokviz train … -o … --export-*`` at every write and rename step and at
moments spread over the run, over a folder holding an older complete set, and always finds the
old set or the new one.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats import tokenizer_from_files
from tokviz.core.io.outputs import FAULT_ENV, SIGINT_ENV, Output, check_outputs

from .helpers import assert_one_line_error, interruptible, run, tokviz_child
from .helpers import child_env as _child_env


def child_env() -> dict[str, str]:
    """The child's environment with a fixed provenance date, so two runs write identical model files."""
    return dict(_child_env(), SOURCE_DATE_EPOCH="1700000000")


posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds, signals and permission bits")
FULL_RUN = ["-o", "m.json", "--export-gpt2", "d", "--export-tiktoken", "t.tiktoken", "--export-hf", "h.json"]
SET = ("m.json", "d/vocab.json", "d/merges.txt", "t.tiktoken", "h.json")
# Written with them, the same in both runs: the GPT-2 folder's config files and the .tiktoken sidecar.
COMPANIONS = ("d/tokenizer_config.json", "d/special_tokens_map.json", "t.tiktoken.json")


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Training must not start: the outputs are refused before it."""
    import tokviz.core.training.train

    def must_not_train(*args: object, **kwargs: object) -> None:
        raise AssertionError("training started before the outputs were checked")

    monkeypatch.setattr(tokviz.core.training.train, "train_bpe", must_not_train)


def train(capsys: pytest.CaptureFixture[str], corpus: Path, *options: str) -> tuple[int, str]:
    """``tokviz train CORPUS --vocab-size 300 OPTIONS…``: the exit status and standard error."""
    code, _, err = run(capsys, "train", str(corpus), "--vocab-size", "300", "--workers", "1", *options)
    return code, err


# ============================================================================ refused before training
def test_the_corpus_as_output_is_refused(capsys, corpus: Path, no_training) -> None:
    before = corpus.read_bytes()
    code, err = train(capsys, corpus, "-o", str(corpus))
    assert code == 1
    assert_one_line_error(err, f"{corpus} is the corpus", "would destroy the corpus")
    assert corpus.read_bytes() == before


def test_the_model_and_an_export_in_one_file_are_refused(
    capsys, tmp_path: Path, corpus: Path, no_training
) -> None:
    m = tmp_path / "m.json"
    code, err = train(capsys, corpus, "-o", str(m), "--export-hf", str(m))
    assert code == 1
    assert_one_line_error(err, "-o and --export-hf would overwrite each other")
    assert not m.exists()


@posix_only
def test_dev_null_is_refused_and_stays_a_device(capsys, corpus: Path, no_training) -> None:
    code, err = train(capsys, corpus, "-o", os.devnull)
    assert code == 1
    assert_one_line_error(err, "/dev/null is a character device, not a regular file")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@posix_only
def test_a_fifo_is_refused_without_blocking(tmp_path: Path, corpus: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    done = subprocess.run(  # in a child with a timeout, so a regression fails instead of hanging
        [sys.executable, "-m", "tokviz", "train", str(corpus), "--vocab-size", "300", "-o", str(fifo)],
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=120,
    )
    assert done.returncode == 1
    assert_one_line_error(done.stderr, "pipe.json is a FIFO (named pipe), not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@posix_only
def test_a_read_only_model_is_refused(capsys, tmp_path: Path, corpus: Path, no_training) -> None:
    m = tmp_path / "m.json"
    m.write_text("keep me")
    m.chmod(0o444)
    code, err = train(capsys, corpus, "-o", str(m))
    assert code == 1
    assert_one_line_error(err, f"{m}: Permission denied")
    assert m.read_text() == "keep me"


def test_a_missing_folder_fails_before_training(capsys, tmp_path: Path, corpus: Path, no_training) -> None:
    target = tmp_path / "missing" / "dir" / "m.json"
    code, err = train(capsys, corpus, "-o", str(target))
    assert code == 1
    assert_one_line_error(err, f"{target}: the folder", "does not exist")
    assert ".tmp" not in err


def test_a_special_token_spelled_like_a_byte_fails_before_training(
    capsys, tmp_path: Path, corpus: Path, no_training
) -> None:
    code, err = train(
        capsys, corpus, "--special-token", "a", "-o", str(tmp_path / "m.json"), "--export-gpt2", "d"
    )
    assert code == 1
    assert_one_line_error(err, "the special token 'a' is spelled like the byte token 97")
    assert list(tmp_path.iterdir()) == [corpus]


def test_a_pattern_hugging_face_reads_otherwise_fails_before_training(
    capsys, tmp_path: Path, corpus: Path, no_training
) -> None:
    code, err = train(
        capsys, corpus, "--pretokenizer", "x*", "-o", str(tmp_path / "m.json"), "--export-hf", "h.json"
    )
    assert code == 1
    assert_one_line_error(err, "--export-hf cannot write the pre-tokenizer 'x*'", "empty string")
    assert list(tmp_path.iterdir()) == [corpus]


# ============================================================================ written together
@posix_only
def test_a_symlink_output_is_written_through(capsys, tmp_path: Path, corpus: Path) -> None:
    (tmp_path / "models").mkdir()
    real = tmp_path / "models" / "m.json"
    link = tmp_path / "link.json"
    link.symlink_to(real)
    code, err = train(capsys, corpus, "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and real.is_file()


def older_set(folder: Path, corpus: Path) -> dict[str, bytes]:
    """A complete set of outputs from an earlier run (a smaller vocabulary) in ``folder``."""
    done = subprocess.run(
        [sys.executable, "-m", "tokviz", "train", str(corpus), "--vocab-size", "280", *FULL_RUN],
        cwd=folder,
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return read_set(folder)


def read_set(folder: Path) -> dict[str, bytes]:
    """The bytes of each output of the full run (missing files are left out)."""
    return {name: (folder / name).read_bytes() for name in SET + COMPANIONS if (folder / name).is_file()}


def test_a_special_token_that_clashes_with_a_learned_token_fails_before_writing(
    capsys, tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copy(corpus, tmp_path / "notes.txt")
    old = older_set(tmp_path, tmp_path / "notes.txt")
    monkeypatch.chdir(tmp_path)
    # "Ġthe" is how vocab.json spells the learned token " the", so both cannot be keys.
    code, err = train(capsys, tmp_path / "notes.txt", "--special-token", "Ġthe", *FULL_RUN)
    assert code == 1  # after training, before writing
    assert err.splitlines()[-1].startswith("tokviz: error: cannot write vocab.json: ids")
    assert "are both 'Ġthe'" in err
    assert read_set(tmp_path) == old
    assert not [p for p in tmp_path.rglob(".*.tmp")]


def test_ctrl_c_while_saving_writes_nothing(
    capsys, tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokviz.core.io import outputs

    shutil.copy(corpus, tmp_path / "notes.txt")
    old = older_set(tmp_path, tmp_path / "notes.txt")
    monkeypatch.chdir(tmp_path)
    real_write = outputs._write_new

    def ctrl_c_at_the_tiktoken_file(path: Path, data: bytes, mode: int | None) -> None:
        if path.name.startswith(".t.tiktoken"):
            raise KeyboardInterrupt
        real_write(path, data, mode)

    monkeypatch.setattr(outputs, "_write_new", ctrl_c_at_the_tiktoken_file)
    code, err = train(capsys, tmp_path / "notes.txt", *FULL_RUN)
    assert code == 130
    assert err.splitlines()[-1] == "tokviz: error: saving cancelled; nothing was written"
    assert read_set(tmp_path) == old
    assert not [p for p in tmp_path.rglob(".*.tmp")]


# ============================================================================ killed at any moment
def classify(folder: Path, old: dict[str, bytes], new: dict[str, bytes]) -> tuple[str, bool]:
    """Check what a killed run left in ``folder``: "old", "new" or "new (finished)", and whether
    the loader refused a half-replaced GPT-2 pair before the commit was finished.

    Right after the kill every file is whole (the old or the new bytes) and the GPT-2 pair either
    loads as one consistent set or is refused. The next check of the same outputs (the first
    thing the next run does) finishes a commit the kill cut short; then the set is all old or
    all new.
    """
    now = read_set(folder)
    assert now.keys() == old.keys()
    for name, data in now.items():
        assert data in (old[name], new[name]), f"{name} is neither the old nor the new file"
    refused = False
    try:
        pair = tokenizer_from_files(folder / "d" / "vocab.json", folder / "d" / "merges.txt")
        which = "old" if now["d/merges.txt"] == old["d/merges.txt"] else "new"
        assert now["d/vocab.json"] == (old if which == "old" else new)["d/vocab.json"]
        assert len(pair.merges) == len(now["d/merges.txt"].splitlines()) - 1
    except TokenizerLoadError as exc:
        # A kill among the renames: the journal names the whole set; before them, the manifest.
        assert "not from the same export" in str(exc) or "left half replaced" in str(exc)
        refused = True
    journal = (folder / ".m.json.tokviz-commit").exists()
    check_outputs(
        [
            Output.file(folder / "m.json", "-o"),
            Output.folder(
                folder / "d",
                "--export-gpt2",
                ("vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json"),
            ),
            Output.file(folder / "t.tiktoken", "--export-tiktoken"),
            Output.file(folder / "t.tiktoken.json", "--export-tiktoken sidecar"),
            Output.file(folder / "h.json", "--export-hf"),
        ]
    )
    after = read_set(folder)
    assert after in (old, new), "a mix of old and new outputs"
    left = sorted(p.name for p in folder.rglob(".*") if p.name != ".tokviz-files.json")
    assert left == [], f"left behind: {left}"
    return ("old" if after == old else "new (finished)" if journal else "new"), refused


@pytest.mark.slow
@posix_only
def test_killed_at_any_moment_the_outputs_are_all_old_or_all_new(tmp_path: Path, corpus: Path) -> None:
    template = tmp_path / "template"
    template.mkdir()
    shutil.copy(corpus, template / "notes.txt")
    old = older_set(template, template / "notes.txt")
    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    command = [sys.executable, "-m", "tokviz", "train", "notes.txt", "--vocab-size", "300", *FULL_RUN]
    started = time.monotonic()
    assert (
        subprocess.run(command, cwd=reference, env=child_env(), capture_output=True, timeout=120).returncode
        == 0
    )
    duration = time.monotonic() - started
    new = read_set(reference)
    assert all(new[name] != old[name] for name in SET)

    # 20 steps: nine temporary files, the journal, nine renames, the journal's removal. The end at
    # a step is deterministic, so one run per step covers it; kills at moments spread evenly (one
    # random moment in each tenth of 0.2 to 1.2 run lengths) land between the steps as well.
    rng = random.Random(11)
    plans: list[tuple[str, float]] = [(f"step {n}", n) for n in range(1, 21)]
    plans += [("kill", (0.2 + (tenth + rng.random()) / 10) * duration) for tenth in range(10)]

    def one_run(index: int, plan: tuple[str, float]) -> tuple[str, bool]:
        folder = tmp_path / f"run{index}"
        shutil.copytree(template, folder)
        kind, value = plan
        env = child_env()
        if kind != "kill":
            env[FAULT_ENV] = str(int(value))
        proc = subprocess.Popen(command, cwd=folder, env=env, stderr=subprocess.DEVNULL)
        if kind == "kill":
            time.sleep(value)
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=120)
        return classify(folder, old, new)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(one_run, range(len(plans)), plans))
    outcomes = [outcome for outcome, _ in results]

    print(f"\n{len(outcomes)} killed runs: {dict(Counter(outcomes))}; ", end="")
    print(f"a half-replaced GPT-2 pair was refused by the loader {sum(r for _, r in results)} times")
    assert len(outcomes) == 30
    # Kills before the journal is written leave the old set; after it, the next check finishes.
    for (kind, step), outcome in zip(plans[:20], outcomes[:20], strict=True):
        expected = "old" if step <= 9 else "new (finished)" if step <= 19 else "new"
        assert outcome == expected, kind


@pytest.mark.slow
@posix_only
def test_ctrl_c_at_any_step_of_saving_leaves_all_old_or_all_new_and_says_which(
    tmp_path: Path, corpus: Path
) -> None:
    template = tmp_path / "template"
    template.mkdir()
    shutil.copy(corpus, template / "notes.txt")
    old = older_set(template, template / "notes.txt")
    command = [sys.executable, "-m", "tokviz", "train", "notes.txt", "--vocab-size", "300", *FULL_RUN]

    def one_run(step: int) -> tuple[int, str, dict[str, bytes]]:
        folder = tmp_path / f"step{step}"
        shutil.copytree(template, folder)
        done = subprocess.run(
            command,
            cwd=folder,
            env=dict(child_env(), **{SIGINT_ENV: str(step)}),
            capture_output=True,
            text=True,
            timeout=120,
            # A background shell may have left SIGINT ignored; restore the default so Python handles it.
            preexec_fn=interruptible,
        )
        return done.returncode, done.stderr.splitlines()[-1], read_set(folder)

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(one_run, range(1, 21)))

    new = results[-1][2]
    assert all(new[name] != old[name] for name in SET)
    for step, (code, last_line, outputs) in enumerate(results, start=1):
        assert code == 130, step
        if step <= 9:  # while the temporary files are written
            assert last_line == "tokviz: error: saving cancelled; nothing was written"
            assert outputs == old, step
        else:  # the journal is written: Ctrl+C waits for the renames
            assert last_line == "tokviz: error: interrupted; every output had already been written"
            assert outputs == new, step


@pytest.mark.slow
@posix_only
@pytest.mark.parametrize("renamed", [0, 2, 8])
def test_a_set_left_half_renamed_is_refused_by_readers_in_one_line_until_finish_puts_it_in_place(
    tmp_path: Path, corpus: Path, renamed: int
) -> None:
    shutil.copy(corpus, tmp_path / "notes.txt")
    old = older_set(tmp_path, tmp_path / "notes.txt")
    # Nine temporary files and the journal, then ``renamed`` of the nine renames: killed there.
    killed = tokviz_child(
        tmp_path, "train", "notes.txt", "--vocab-size", "300", *FULL_RUN, **{FAULT_ENV: str(10 + renamed)}
    )
    assert killed.returncode == 137

    for argv in (
        ["info", "m.json"],
        ["info", "t.tiktoken"],
        ["info", "d"],
        ["encode", "--tokenizer", "h.json", "--text", "hi"],
    ):
        done = tokviz_child(tmp_path, *argv)
        assert done.returncode == 1, argv
        assert_one_line_error(
            done.stderr, "is one of the outputs m.json, d/, t.tiktoken, t.tiktoken.json, h.json in"
        )
        assert "tokviz finish" in done.stderr

    finished = tokviz_child(tmp_path, "finish", "t.tiktoken")

    assert finished.returncode == 0, finished.stderr
    assert finished.stderr.startswith("tokviz: t.tiktoken: finished the outputs m.json, d/,")
    now = read_set(tmp_path)
    assert all(now[name] != old[name] for name in SET)
    assert tokviz_child(tmp_path, "info", "m.json").returncode == 0
    assert (
        tokviz_child(tmp_path, "finish", "m.json").stderr
        == "tokviz: m.json: nothing to finish (its outputs are whole)\n"
    )
    assert sorted(p.name for p in tmp_path.rglob(".*") if p.name != ".tokviz-files.json") == []
