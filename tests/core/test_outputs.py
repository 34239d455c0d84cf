"""A run's outputs are checked before any work starts, then land all together or not at all."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ExportError, TokenizerLoadError, TokvizError
from tokviz.core.formats import export_gpt2, load_model, save_model, tokenizer_from_files
from tokviz.core.formats.gpt2_files import gpt2_file_bytes
from tokviz.core.formats.hf_json import hf_file_bytes
from tokviz.core.formats.model_file import model_file_bytes
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io import outputs
from tokviz.core.io.outputs import MANIFEST_NAME, Output, OutputError, check_outputs, write_outputs

GPT2 = ("vocab.json", "merges.txt")
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds and permission bits")


def small_tokenizer(*merges: tuple[bytes, bytes]) -> Tokenizer:
    """Bytes plus the given merges, in order."""
    vocab = {i: bytes([i]) for i in range(256)}
    for k, (a, b) in enumerate(merges):
        vocab[256 + k] = a + b
    return Tokenizer(vocab, list(merges), pretokenizer="none")


OLD = small_tokenizer((b"t", b"h"))
NEW = small_tokenizer((b"t", b"h"), (b"th", b"e"), (b"a", b"n"))


def only_visible(folder: Path) -> list[str]:
    """The names a user sees in a folder (tokviz's temporary files and manifest start with a dot)."""
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


# ============================================================================ refused before work
def test_an_output_that_is_the_corpus_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("the corpus\n")
    with pytest.raises(OutputError, match=r"notes\.txt is the corpus .*would destroy the corpus"):
        check_outputs([Output.file(notes, "-o")], inputs=[notes])
    assert notes.read_text() == "the corpus\n"


@posix_only
@pytest.mark.parametrize("link", [os.symlink, os.link], ids=["symlink", "hard link"])
def test_an_output_that_is_the_corpus_under_another_name_is_refused(
    tmp_path: Path, link: Callable[[Path, Path], None]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("the corpus\n")
    link(notes, tmp_path / "model.json")
    with pytest.raises(OutputError, match="would destroy the corpus"):
        check_outputs([Output.file(tmp_path / "model.json", "-o")], inputs=[str(notes)])


def test_an_output_that_is_a_file_of_a_corpus_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "notes.txt").write_text("the corpus\n")
    with pytest.raises(OutputError, match="is a file of the corpus folder"):
        check_outputs([Output.file(tmp_path / "data" / "notes.txt", "-o")], inputs=[tmp_path / "data"])
    check_outputs(
        [Output.file(tmp_path / "data" / "model.json", "-o")], inputs=[tmp_path / "data"]
    )  # a new file


def test_two_outputs_that_are_one_file_are_refused(tmp_path: Path) -> None:
    m = tmp_path / "m.json"
    with pytest.raises(OutputError, match="-o and --export-hf would overwrite each other"):
        check_outputs([Output.file(m, "-o"), Output.file(tmp_path / "." / "m.json", "--export-hf")])


def test_a_file_output_inside_the_gpt2_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    gpt2 = Output.folder(folder, "--export-gpt2", GPT2)
    with pytest.raises(OutputError, match="would overwrite each other"):
        check_outputs([gpt2, Output.file(folder / "vocab.json", "-o")])
    new_gpt2 = Output.folder(tmp_path / "new", "--export-gpt2", GPT2)
    with pytest.raises(OutputError, match="which --export-gpt2 creates"):
        check_outputs([new_gpt2, Output.file(tmp_path / "new" / "m.json", "-o")])
    with pytest.raises(OutputError, match="is the folder --export-gpt2 writes into"):
        check_outputs([new_gpt2, Output.file(tmp_path / "new", "-o")])


@posix_only
@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_refused_and_left_as_it_is() -> None:
    before = os.stat("/dev/null")
    with pytest.raises(OutputError, match="/dev/null is a character device, not a regular file"):
        save_model("/dev/null", OLD)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


@posix_only
def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="is a FIFO"):  # opening it would block forever
        save_model(fifo, OLD)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_folder_where_a_file_is_meant_and_a_file_where_a_folder_is_meant(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="is a folder; the model file writes a file"):
        save_model(tmp_path, OLD)
    (tmp_path / "plain").write_text("x")
    with pytest.raises(OutputError, match="plain is a regular file, not a folder"):
        export_gpt2(OLD, tmp_path / "plain")


@posix_only
def test_a_read_only_file_is_refused_like_a_shell_redirect(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    model.write_text("keep me")
    model.chmod(0o444)
    with pytest.raises(OutputError, match=r"m\.json: Permission denied \(the file is read-only\)"):
        save_model(model, OLD)
    assert model.read_text() == "keep me"


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "missing" / "dir" / "m.json"
    with pytest.raises(OutputError, match=r"m\.json: the folder .*dir does not exist") as caught:
        save_model(missing, OLD)
    assert str(missing) in str(caught.value) and ".tmp" not in str(caught.value)


def test_errors_are_tokviz_errors() -> None:
    assert issubclass(OutputError, TokvizError)


# ============================================================================ symlinks and modes
@posix_only
def test_a_symlink_is_written_through_and_stays_a_symlink(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "model.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    save_model(link, NEW)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert load_model(target).tokenizer.merges == NEW.merges
    assert only_visible(tmp_path / "real") == ["model.json"] and only_visible(tmp_path) == [
        "link.json",
        "real",
    ]


@posix_only
def test_a_dangling_symlink_creates_its_target(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "later.json")
    save_model(link, NEW)
    assert link.is_symlink() and load_model(tmp_path / "later.json").tokenizer.merges == NEW.merges


@posix_only
def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    model = tmp_path / "m.json"
    model.write_text("old")
    model.chmod(0o640)
    save_model(model, NEW)
    assert model.stat().st_mode & 0o777 == 0o640


# ============================================================================ all or nothing
def old_set(folder: Path) -> dict[str, bytes]:
    """Write an old model, GPT-2 pair and tokenizer.json into ``folder``; return their bytes."""
    save_model(folder / "m.json", OLD)
    export_gpt2(OLD, folder / "d")
    (folder / "h.json").write_bytes(hf_file_bytes(OLD))
    return snapshot(folder)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every visible file under ``folder`` with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def run_outputs(folder: Path) -> list[tuple[Output, bytes | dict[str, bytes]]]:
    """The outputs of one run writing NEW: a model, a GPT-2 folder and a tokenizer.json."""
    return [
        (Output.file(folder / "m.json", "-o"), model_file_bytes(NEW)),
        (Output.folder(folder / "d", "--export-gpt2", GPT2), gpt2_file_bytes(NEW)),
        (Output.file(folder / "h.json", "--export-hf"), hf_file_bytes(NEW)),
    ]


def test_a_run_replaces_every_output_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    old = old_set(tmp_path)
    write_outputs(run_outputs(tmp_path))
    new = snapshot(tmp_path)
    assert new.keys() == old.keys() and all(new[k] != old[k] for k in old if not k.endswith(MANIFEST_NAME))
    assert [p.name for p in tmp_path.rglob(".*") if p.name != MANIFEST_NAME] == []
    back = tokenizer_from_files(
        tmp_path / "d" / "vocab.json", tmp_path / "d" / "merges.txt", pretokenizer="none"
    )
    assert back.merges == NEW.merges


def test_a_full_disk_while_writing_names_the_path_and_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = old_set(tmp_path)
    real_write = outputs._write_new
    calls = []

    def disk_fills_up(path: Path, data: bytes, mode: int | None) -> None:
        calls.append(path)
        if len(calls) == 3:  # the model and the GPT-2 manifest are written, vocab.json is not
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_write(path, data, mode)

    monkeypatch.setattr(outputs, "_write_new", disk_fills_up)
    with pytest.raises(OutputError) as caught:
        write_outputs(run_outputs(tmp_path))
    assert str(caught.value) == f"cannot write {tmp_path / 'd' / 'vocab.json'}: No space left on device"
    assert snapshot(tmp_path) == old  # nothing new, no temporary file left


def test_ctrl_c_while_writing_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = old_set(tmp_path)
    real_write = outputs._write_new

    def interrupted(path: Path, data: bytes, mode: int | None) -> None:
        if path.name.startswith(".h.json"):
            raise KeyboardInterrupt
        real_write(path, data, mode)

    monkeypatch.setattr(outputs, "_write_new", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_outputs(run_outputs(tmp_path))
    assert snapshot(tmp_path) == old


def test_a_format_that_cannot_hold_the_vocabulary_fails_before_anything_is_written(tmp_path: Path) -> None:
    old = old_set(tmp_path)
    clash = Tokenizer({i: bytes([i]) for i in range(256)}, [], {"a": 256}, pretokenizer="none")
    with pytest.raises(ExportError, match="are both 'a'"):
        write_outputs([(Output.folder(tmp_path / "d", "--export-gpt2", GPT2), gpt2_file_bytes(clash))])
    assert snapshot(tmp_path) == old


def test_a_new_gpt2_folder_appears_whole_in_one_step(tmp_path: Path) -> None:
    vocab, merges = export_gpt2(NEW, tmp_path / "fresh")
    assert only_visible(tmp_path / "fresh") == ["merges.txt", "vocab.json"]
    assert only_visible(tmp_path) == ["fresh"]
    assert tokenizer_from_files(vocab, merges, pretokenizer="none").merges == NEW.merges


def test_other_files_in_the_gpt2_folder_are_kept(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("mine")
    export_gpt2(OLD, tmp_path)
    export_gpt2(NEW, tmp_path)
    assert only_visible(tmp_path) == ["README.md", "merges.txt", "vocab.json"]
    assert (tmp_path / "README.md").read_text() == "mine"


def test_a_half_replaced_gpt2_pair_is_refused_by_the_loader(tmp_path: Path) -> None:
    export_gpt2(OLD, tmp_path)
    old_merges = (tmp_path / "merges.txt").read_bytes()
    export_gpt2(NEW, tmp_path)
    (tmp_path / "merges.txt").write_bytes(old_merges)  # what a kill between the two renames left
    with pytest.raises(TokenizerLoadError, match="merges.txt and vocab.json are not from the same export"):
        tokenizer_from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


def test_a_pair_replaced_by_hand_is_not_held_to_an_old_manifest(tmp_path: Path) -> None:
    export_gpt2(OLD, tmp_path)
    for name, data in gpt2_file_bytes(NEW).items():  # both files copied in from elsewhere
        (tmp_path / name).write_bytes(data)
    back = tokenizer_from_files(tmp_path / "vocab.json", tmp_path / "merges.txt", pretokenizer="none")
    assert back.merges == NEW.merges


ROOT = Path(__file__).resolve().parents[2]
# A run writing ``run_outputs`` steps: 5 staged files, the journal, 5 renames, the journal removed.
STAGED_STEPS, JOURNAL_STEP = 5, 6


def run_in_child(folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Write ``run_outputs(folder)`` in another process, with the test hooks of ``env`` set."""
    script = (
        "import sys; from pathlib import Path\n"
        "from tests.core.test_outputs import run_outputs\n"
        "from tokviz.core.io.outputs import write_outputs\n"
        "write_outputs(run_outputs(Path(sys.argv[1])))\n"
    )
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        env=dict(os.environ, PYTHONPATH=path, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def readers(folder: Path) -> list[tuple[str, Callable[[], object]]]:
    """Every way to read one of ``run_outputs``' files, named by the file it reads."""
    return [
        ("m.json", lambda: load_model(folder / "m.json")),
        ("m.json", lambda: load_tokenizer(folder / "m.json")),
        (
            "d/vocab.json",
            lambda: tokenizer_from_files(folder / "d" / "vocab.json", folder / "d" / "merges.txt"),
        ),
        ("d/vocab.json", lambda: load_tokenizer(folder / "d")),
        ("h.json", lambda: load_tokenizer(folder / "h.json")),
    ]


def test_a_commit_killed_half_way_is_refused_by_every_reader_and_finished_by_the_next_check(
    tmp_path: Path,
) -> None:
    old_set(tmp_path)
    killed = run_in_child(tmp_path, **{outputs.FAULT_ENV: str(JOURNAL_STEP + 2)})  # two renames done
    assert killed.returncode == 137, killed.stderr
    journals = sorted(tmp_path.rglob(f"*{outputs.JOURNAL_SUFFIX}"))
    assert len(journals) == 5  # one beside each target: m.json, the manifest, the pair, h.json
    assert outputs.unfinished_set(tmp_path / "h.json") is not None

    for name, read in readers(tmp_path):
        with pytest.raises(TokenizerLoadError) as info:
            read()
        message = str(info.value)
        assert f"is one of the outputs m.json, d/, h.json in {tmp_path}" in message, name
        assert "tokviz finish" in message and "\n" not in message

    check_outputs([o for o, _ in run_outputs(tmp_path)])  # what the next run does first
    assert not list(tmp_path.rglob(f"*{outputs.JOURNAL_SUFFIX}"))
    assert snapshot(tmp_path) == _new_set(tmp_path)
    for _name, read in readers(tmp_path):
        read()


@pytest.mark.parametrize("step", [JOURNAL_STEP, JOURNAL_STEP + 1, JOURNAL_STEP + 4])
def test_finishing_a_set_puts_every_new_output_in_place(tmp_path: Path, step: int) -> None:
    old_set(tmp_path)
    killed = run_in_child(tmp_path, **{outputs.FAULT_ENV: str(step)})
    assert killed.returncode == 137, killed.stderr

    found = outputs.finish_set(tmp_path / "d")

    assert found is not None and {p.name for p in found.pending} <= {p.name for p in found.members}
    assert snapshot(tmp_path) == _new_set(tmp_path)
    assert outputs.finish_set(tmp_path / "m.json") is None  # whole now: nothing to do
    for _name, read in readers(tmp_path):
        read()


def test_a_journal_whose_renames_are_all_done_or_that_is_no_file_does_not_stop_a_reader(
    tmp_path: Path,
) -> None:
    old = old_set(tmp_path)
    journal = tmp_path / f".m.json{outputs.JOURNAL_SUFFIX}"
    gone = tmp_path / f".m.json.{os.getpid() + 1}-0123456789ab.tmp"
    journal.write_text(json.dumps({"renames": [[str(gone), str(tmp_path / "m.json")]]}))
    assert outputs.unfinished_set(tmp_path / "m.json") is None  # killed while removing its journals
    journal.unlink()
    if hasattr(os, "mkfifo"):
        os.mkfifo(journal)  # a FIFO where the journal goes: read without blocking, and ignored
        assert outputs.unfinished_set(tmp_path / "m.json") is None
    assert load_model(tmp_path / "m.json").tokenizer.merges == OLD.merges
    assert (tmp_path / "m.json").read_bytes() == old["m.json"]


def _new_set(folder: Path) -> dict[str, bytes]:
    """The bytes a complete write of ``run_outputs`` leaves, produced in a fresh folder."""
    fresh = folder.parent / (folder.name + "-fresh")
    fresh.mkdir()
    old_set(fresh)
    write_outputs(run_outputs(fresh))
    return snapshot(fresh)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT handling of the main thread")
def test_ctrl_c_during_the_renames_is_held_until_all_are_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import signal

    old_set(tmp_path)
    real_rename = outputs._rename
    renamed = []

    def rename_then_ctrl_c(temp: Path, target: Path) -> None:
        real_rename(temp, target)
        renamed.append(target)
        if len(renamed) == 1:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(outputs, "_rename", rename_then_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        write_outputs(run_outputs(tmp_path))
    assert len(renamed) == 5  # the model, the manifest, vocab.json, merges.txt and h.json
    assert snapshot(tmp_path) == _new_set(tmp_path)
    assert json.loads((tmp_path / "d" / MANIFEST_NAME).read_text())["format"] == "tokviz-files"


def test_temporary_files_a_killed_run_left_are_removed_by_the_next_check(tmp_path: Path) -> None:
    old = old_set(tmp_path)
    killed = run_in_child(tmp_path, **{outputs.FAULT_ENV: str(STAGED_STEPS)})  # killed before the commit
    assert killed.returncode == 137, killed.stderr
    (tmp_path / "..m.json.tokviz-commit.0123456789ab.tmp").write_text("{")  # an older tokviz's, cut short
    assert len([p for p in tmp_path.rglob("*.tmp")]) == 6
    check_outputs([o for o, _ in run_outputs(tmp_path)])
    assert snapshot(tmp_path) == old


def test_the_temporary_files_of_a_running_process_are_left_alone(tmp_path: Path) -> None:
    old_set(tmp_path)
    ours = tmp_path / f".m.json.{os.getpid()}-0123456789ab.tmp"  # as another thread of a live run stages
    ours.write_text("being written")
    check_outputs([o for o, _ in run_outputs(tmp_path)])
    assert ours.read_text() == "being written"


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM")
def test_sigterm_during_the_renames_is_held_until_all_are_done(tmp_path: Path) -> None:
    import signal

    old_set(tmp_path)
    script = (
        "import sys; from pathlib import Path\n"
        "from tests.core.test_outputs import run_outputs\n"
        "from tokviz.core.io.outputs import write_outputs\n"
        "write_outputs(run_outputs(Path(sys.argv[1])))\n"
        "print('went on after the commit')\n"
    )
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONPATH=path, **{outputs.PAUSE_ENV: str(JOURNAL_STEP + 2)})
    with subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as child:
        assert child.stderr is not None and child.stdin is not None and child.stdout is not None
        assert child.stderr.readline().startswith("paused after step 8")  # two of five renames done
        child.send_signal(signal.SIGTERM)
        try:
            child.stdin.write("go on\n")
            child.stdin.flush()
        except BrokenPipeError:
            pass  # the signal ended the child at once
        assert child.wait(timeout=120) == -signal.SIGTERM
        assert child.stdout.read() == "", "the process ends right after the commit"
    assert snapshot(tmp_path) == _new_set(tmp_path)
    assert not list(tmp_path.rglob("*.tmp")) and not list(tmp_path.glob(f"*{outputs.JOURNAL_SUFFIX}"))


RACING_RUNS, ROUNDS = 3, 30
RACER = """
import sys
from pathlib import Path
from tokviz.core.io.outputs import Output, write_outputs

folder, run, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for n in range(rounds):
    tag = f"{run}-{n}".encode()
    write_outputs(
        [
            (Output.file(folder / "m.json", "-o"), tag),
            (Output.folder(folder / "d", "--export-gpt2", ("vocab.json", "merges.txt")), {"vocab.json": tag, "merges.txt": tag}),
            (Output.file(folder / "t.tiktoken", "--export-tiktoken"), tag),
        ]
    )
"""


def test_runs_writing_the_same_outputs_at_once_end_as_one_whole_set(tmp_path: Path) -> None:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(tmp_path), f"run{k}", str(ROUNDS)],
            env=dict(os.environ, PYTHONPATH=path),
            stderr=subprocess.PIPE,
            text=True,
        )
        for k in range(RACING_RUNS)
    ]
    for racer in racers:
        _out, err = racer.communicate(timeout=600)
        assert racer.returncode == 0, err
    files = snapshot(tmp_path)
    written = {name: data for name, data in files.items() if name != f"d/{MANIFEST_NAME}"}
    assert sorted(written) == ["d/merges.txt", "d/vocab.json", "m.json", "t.tiktoken"]
    tags = set(written.values())
    assert len(tags) == 1, f"outputs of several runs: {written}"
    assert tags.pop().endswith(f"-{ROUNDS - 1}".encode())
    assert outputs.mismatched_files([tmp_path / "d" / "vocab.json", tmp_path / "d" / "merges.txt"]) is None
    leftovers = [p.name for p in tmp_path.rglob(".*") if p.name != MANIFEST_NAME]
    assert leftovers == [], "no temporary file or journal is left"
