"""Atomic writes leave either the old file or the new one, and never a stray temporary file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from tokviz.core.io import atomic
from tokviz.core.io.atomic import atomic_write_bytes, atomic_write_text


def test_writes_a_new_file(tmp_path: Path) -> None:
    target = tmp_path / "model.json"
    atomic_write_bytes(target, b"\x00\x01 data")
    assert target.read_bytes() == b"\x00\x01 data"
    assert os.listdir(tmp_path) == ["model.json"]


def test_replaces_an_existing_file_and_accepts_str_paths(tmp_path: Path) -> None:
    target = tmp_path / "model.json"
    target.write_bytes(b"old contents that are longer than the new ones")
    atomic_write_bytes(str(target), b"new")
    assert target.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["model.json"]


def test_text_is_encoded_and_newlines_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "merges.txt"
    atomic_write_text(target, "a b\r\nĠ t\n🌍\n")
    assert target.read_bytes() == "a b\r\nĠ t\n🌍\n".encode()
    atomic_write_text(target, "é", encoding="latin-1")
    assert target.read_bytes() == b"\xe9"


def test_empty_data(tmp_path: Path) -> None:
    target = tmp_path / "empty"
    atomic_write_bytes(target, b"")
    assert target.read_bytes() == b""


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_existing_mode_is_kept_and_new_files_follow_the_umask(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.write_bytes(b"x")
    kept.chmod(0o640)
    atomic_write_bytes(kept, b"y")
    assert kept.stat().st_mode & 0o777 == 0o640

    old_umask = os.umask(0o027)
    try:
        fresh = tmp_path / "fresh"
        atomic_write_bytes(fresh, b"z")
    finally:
        os.umask(old_umask)
    assert fresh.stat().st_mode & 0o777 == 0o640


def test_failure_mid_write_keeps_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "model.json"
    target.write_bytes(b"old")
    real_write = os.write
    calls = []

    def disk_full_halfway(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, bytes(data[: len(data) // 2]))  # a short write, as the OS may do
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic.os, "write", disk_full_halfway)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_bytes(target, b"new contents " * 1000)
    monkeypatch.undo()
    assert len(calls) == 2  # the short write was continued, then the disk filled up
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model.json"]


def test_failure_on_a_new_file_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def fail_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(atomic.os, "fsync", fail_fsync)
    with pytest.raises(OSError, match="Input/output error"):
        atomic_write_bytes(tmp_path / "new.json", b"data")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []


def test_interrupt_during_write_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "model.json"
    target.write_bytes(b"old")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model.json"]


def test_failed_rename_keeps_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "model.json"
    target.write_bytes(b"old")

    def refuse(src: str, dst: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.os, "replace", refuse)
    with pytest.raises(PermissionError):
        atomic_write_bytes(target, b"new")
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model.json"]


def test_unencodable_text_creates_no_file(tmp_path: Path) -> None:
    with pytest.raises(UnicodeEncodeError):
        atomic_write_text(tmp_path / "out.txt", "naïve", encoding="ascii")
    assert os.listdir(tmp_path) == []


def test_missing_folder_is_an_error_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        atomic_write_bytes(tmp_path / "no-such-dir" / "out.bin", b"x")
    assert os.listdir(tmp_path) == []


def test_a_folder_in_the_way_is_an_error_and_leaves_no_temp(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    with pytest.raises(OSError):
        atomic_write_bytes(tmp_path / "out", b"x")
    assert os.listdir(tmp_path) == ["out"]


def test_a_missing_folder_is_named_by_the_path_given(tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "out.bin"
    with pytest.raises(FileNotFoundError) as caught:
        atomic_write_bytes(target, b"x")
    assert caught.value.filename == str(target)


@pytest.mark.skipif(os.name != "posix", reason="POSIX symlinks and FIFOs")
def test_a_symlink_is_written_through_and_a_fifo_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real.csv").write_text("old")
    (tmp_path / "link.csv").symlink_to(tmp_path / "real.csv")
    atomic_write_text(tmp_path / "link.csv", "new")
    assert (tmp_path / "link.csv").is_symlink() and (tmp_path / "real.csv").read_text() == "new"

    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(atomic.NotRegularFileError, match="not a regular file"):
        atomic_write_text(tmp_path / "pipe", "x")  # refused from stat: opening would block
    assert sorted(os.listdir(tmp_path)) == ["link.csv", "pipe", "real.csv"]
