"""Bounded reads: only regular files are read, FIFOs and devices never opened, sizes capped per kind.

Every call that could block (a FIFO) runs in a thread joined with a safety timeout, so a regression
fails the test instead of hanging the suite.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tokviz.core.corpus.fileselect import corpus_source
from tokviz.core.errors import CorpusError, ModelFileError, TokenizerLoadError
from tokviz.core.formats import _common, load_hf, load_model, load_tiktoken_file, tokenizer_from_files
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io import filekind

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
needs_dev_zero = pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
SAFETY_SECONDS = 60


def _finishes(call: Callable[[], Any]) -> BaseException | None:
    """Run ``call`` in a daemon thread; the exception it raised (None if it returned).

    Fails the test if the call has not finished within :data:`SAFETY_SECONDS` (it blocked).
    """
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(SAFETY_SECONDS)
    assert outcome, "the call blocked"
    return outcome[0]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


@needs_fifo
@pytest.mark.parametrize("name", ["model.json", "tokenizer.json", "ranks.tiktoken", "anything"])
def test_a_fifo_as_a_tokenizer_file_is_named_not_opened(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    os.mkfifo(path)
    exc = _finishes(lambda: load_tokenizer(path))
    assert isinstance(exc, TokenizerLoadError)
    assert str(exc) == f"{path} is a FIFO (named pipe); a tokenizer file must be a regular file"


@needs_fifo
def test_every_loader_refuses_a_fifo(fifo: Path, tmp_path: Path) -> None:
    (tmp_path / "merges.txt").write_text("#version: 0.2\n")
    for call, error in [
        (lambda: load_model(fifo), ModelFileError),
        (lambda: load_hf(fifo), TokenizerLoadError),
        (lambda: load_tiktoken_file(fifo), TokenizerLoadError),
        (lambda: tokenizer_from_files(fifo, tmp_path / "merges.txt"), TokenizerLoadError),
    ]:
        exc = _finishes(call)
        assert isinstance(exc, error) and "is a FIFO (named pipe)" in str(exc)


@needs_fifo
def test_a_fifo_in_a_gpt2_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "gpt2"
    folder.mkdir()
    (folder / "vocab.json").write_text("{}")
    os.mkfifo(folder / "merges.txt")
    exc = _finishes(lambda: load_tokenizer(folder / "vocab.json"))
    assert isinstance(exc, TokenizerLoadError)
    assert "merges.txt is a FIFO (named pipe)" in str(exc)


@needs_dev_zero
@pytest.mark.parametrize("load", [load_tokenizer, load_model, load_hf, load_tiktoken_file])
def test_dev_zero_is_a_character_device_not_an_endless_file(load: Callable[[Path], object]) -> None:
    exc = _finishes(lambda: load(Path("/dev/zero")))
    assert isinstance(exc, TokenizerLoadError)
    assert "/dev/zero is a character device" in str(exc)


def test_a_directory_where_a_file_is_meant(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="is a directory"):
        load_model(tmp_path)


@pytest.mark.parametrize(
    ("name", "cap", "load"),
    [
        ("m.json", "MODEL_FILE_CAP", "load_model"),
        ("tokenizer.json", "HF_JSON_CAP", "load_hf"),
        ("x.tiktoken", "TIKTOKEN_CAP", "load_tiktoken_file"),
    ],
)
def test_each_kind_has_a_size_cap_above_real_files(tmp_path: Path, name: str, cap: str, load: str) -> None:
    limit = getattr(_common, cap)
    assert limit >= 64 * 2**20  # o200k's .tiktoken is 3.6 MB, big tokenizer.json files 20-35 MB
    path = tmp_path / name
    with path.open("wb") as f:
        f.truncate(limit + 1)  # sparse: costs no disk space
    import tokviz.core.formats as formats

    with pytest.raises(TokenizerLoadError, match=rf"{name} is larger than {limit >> 20} MB") as info:
        getattr(formats, load)(path)
    assert str(info.value).count(name) == 1


def test_a_file_that_grows_past_the_cap_after_stat_is_still_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "growing.json"
    path.write_bytes(b"x" * 5000)
    real_stat = os.stat

    def small_stat(p: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        st = real_stat(p, *args, **kwargs)
        if Path(p) == path:  # pretend the file was small when stat looked
            return os.stat_result((st.st_mode, *st[1:6], 10, *st[7:]))
        return st

    monkeypatch.setattr(filekind.os, "stat", small_stat)
    with pytest.raises(filekind.ReadProblem, match="is larger than"):
        filekind.read_regular_file(path, 1000)


def test_the_sniffing_loader_reads_one_capped_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"a" * 2048)
    monkeypatch.setattr("tokviz.core.formats.registry.ANY_TOKENIZER_FILE_CAP", 1024)
    with pytest.raises(TokenizerLoadError, match=r"notes.txt is larger than 1.0 MB|notes.txt is larger than"):
        load_tokenizer(path)


# ---------------------------------------------------------------------------------------- corpora
@needs_dev_zero
def test_dev_zero_as_a_corpus_says_what_it_is() -> None:
    with pytest.raises(CorpusError, match="the corpus /dev/zero is a character device"):
        corpus_source([Path("/dev/zero")])


@needs_fifo
def test_a_fifo_as_a_corpus_says_what_it_is(fifo: Path) -> None:
    exc = _finishes(lambda: corpus_source([fifo]))
    assert isinstance(exc, CorpusError)
    assert f"the corpus {fifo} is a FIFO (named pipe)" in str(exc)


def test_a_dash_as_a_corpus_is_not_a_missing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CorpusError, match=r"'-' \(standard input\) cannot be a corpus"):
        corpus_source(["-"])
    with pytest.raises(CorpusError, match="absent.txt: file or folder not found"):
        corpus_source(["absent.txt"])


def test_kind_names() -> None:
    import stat

    assert filekind.kind_problem(stat.S_IFREG) is None
    assert filekind.kind_problem(stat.S_IFDIR) == "is a directory"
    assert filekind.kind_problem(stat.S_IFIFO) == "is a FIFO (named pipe)"
    assert filekind.kind_problem(stat.S_IFCHR) == "is a character device"
    assert filekind.kind_problem(stat.S_IFBLK) == "is a block device"
    assert filekind.kind_problem(stat.S_IFSOCK) == "is a socket"
