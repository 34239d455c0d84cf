"""Counting on Dask fails in bounded time with one line: a silent port, a port of garbage, a dead worker.

Every server here listens on 127.0.0.1 only. A plain socket server that accepts and never
answers, and one that answers with random bytes, stand for a wrong address; a scheduler on
loopback with one worker process (no nanny to restart it), killed once the count has started,
stands for a cluster that loses its last worker. Short time limits keep each test to seconds.
A compressed file is counted on the worker in blocks, as the local count reads it.
"""

from __future__ import annotations

import gzip
import os
import random
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tokviz.core.training.counts import count_corpus
from tokviz.core.training.dask_client import DaskError
from tokviz.core.training.dask_count import (
    ByteRange,
    InputFile,
    count_on_dask,
    count_range,
    local_cluster,
    unpack,
)

from ..cli.helpers import ROOT, child_env


class LoopbackServer:
    """A TCP server on 127.0.0.1 that accepts every connection and answers with ``reply`` (or never)."""

    def __init__(self, reply: bytes | None) -> None:
        self.reply = reply
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.accepted: list[socket.socket] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted.append(conn)
            if self.reply is not None:
                conn.sendall(self.reply)

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        for conn in self.accepted:
            conn.close()
        self.sock.close()


GARBAGE = random.Random(7).randbytes(4096)


@pytest.fixture(params=["silent", "garbage"])
def bad_port(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    server = LoopbackServer(None if request.param == "silent" else b"\xff" * 8 + GARBAGE)
    yield request.param, server.address
    server.close()


MESSAGES = {
    "silent": "accepted the connection but did not answer within 1 s",
    "garbage": "what it sent is not Dask's protocol",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "c.txt"
    path.write_text(("the quick brown fox jumps over the lazy dog " * 40 + "\n") * 800, encoding="utf-8")
    return path


def test_a_port_that_is_not_a_scheduler_is_one_line(bad_port: tuple[str, str], corpus: Path) -> None:
    kind, address = bad_port
    with pytest.raises(DaskError) as info:
        count_on_dask([str(corpus)], scheduler=address, connect_timeout=1)
    message = str(info.value)
    assert message.startswith(f"the Dask scheduler at {address}") or message.startswith(
        f"cannot reach the Dask scheduler at {address}"
    )
    assert MESSAGES[kind] in message and "\n" not in message


def test_the_cli_says_one_line_and_exits_1_for_a_port_that_is_not_a_scheduler(
    bad_port: tuple[str, str], corpus: Path, tmp_path: Path
) -> None:
    kind, address = bad_port
    argv = ["count", str(corpus), "--dask", address, "--connect-timeout", "1", "-o", str(tmp_path / "t.tsv")]
    done = subprocess.run(
        [sys.executable, "-m", "tokviz", *argv],
        capture_output=True,
        text=True,
        env=child_env(),
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("tokviz: error: ") and MESSAGES[kind] in lines[0]
    assert not (tmp_path / "t.tsv").exists()


@pytest.fixture
def scheduler_with_one_worker() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    with local_cluster(0, processes=False, protocol="tcp", host="127.0.0.1") as cluster:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "distributed.cli.dask_worker",
                cluster.scheduler_address,
                "--no-nanny",
                "--nthreads",
                "1",
                "--host",
                "127.0.0.1",
                "--no-dashboard",
            ],
            env=child_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            cluster.wait_for_workers(1, timeout=60)
            yield cluster.scheduler_address, worker
        finally:
            worker.kill()
            worker.wait()


def test_a_count_that_loses_its_only_worker_stops_with_one_line(
    scheduler_with_one_worker: tuple[str, subprocess.Popen[bytes]],
    corpus: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    address, worker = scheduler_with_one_worker

    def kill_once_started(done: int, total: int) -> None:
        if done and worker.poll() is None:
            worker.kill()
            worker.wait()

    with pytest.raises(DaskError) as info:
        count_on_dask(
            [str(corpus)], scheduler=address, chunk_bytes=3000, progress=kill_once_started, worker_timeout=2
        )
    message = str(info.value)
    assert f"the Dask cluster at {address} has had no worker for 2 s" in message and "\n" not in message
    out, err = capfd.readouterr()
    assert "distributed" not in err and "Traceback" not in err, err


def test_a_compressed_file_is_counted_in_blocks_on_the_worker(tmp_path: Path, corpus: Path) -> None:
    packed = tmp_path / "c.txt.gz"
    packed.write_bytes(gzip.compress(corpus.read_bytes() * 3))
    (tmp_path / "three.txt").write_bytes(corpus.read_bytes() * 3)
    file = InputFile(str(packed), packed.stat().st_size, "gzip")
    reads: list[int] = []
    real_read = gzip.GzipFile.read

    def recording_read(self: gzip.GzipFile, size: int = -1) -> bytes:
        reads.append(size)
        return real_read(self, size)

    gzip.GzipFile.read = recording_read  # type: ignore[method-assign]
    try:
        status, packed_counts, _records = count_range(
            ByteRange(file, 0, file.size, whole=True), "gpt2", (), "strict"
        )
    finally:
        gzip.GzipFile.read = real_read  # type: ignore[method-assign]
    assert status == "ok"
    assert reads and all(0 < size <= 1 << 20 for size in reads)
    local = count_corpus(files=[tmp_path / "three.txt"])
    assert list(unpack(packed_counts).items()) == list(local.counts.items())


def test_a_damaged_compressed_file_on_the_worker_names_the_file(tmp_path: Path) -> None:
    packed = tmp_path / "bad.txt.gz"
    packed.write_bytes(gzip.compress(b"hello world " * 1000)[:-20])
    file = InputFile(str(packed), packed.stat().st_size, "gzip", shown="bad.txt.gz")
    status, (message, path, _offset), _records = count_range(
        ByteRange(file, 0, file.size, whole=True), "gpt2", (), "strict"
    )
    assert status == "error" and path == "bad.txt.gz" and message.startswith("cannot decompress bad.txt.gz")
    assert os.linesep not in message
