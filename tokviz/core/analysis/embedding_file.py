"""Read one embedding tensor from a model's ``.safetensors`` file, and nothing else of it.

A model file holds gigabytes of weights; the audit needs one matrix. The file is an 8-byte header
length, a JSON header (each tensor's dtype, shape and byte offsets) and the raw data, so the header
is read and checked alone, and :class:`EmbeddingTensor` reads the tensor's rows block by block
with positioned reads (:meth:`EmbeddingTensor.rows`): memory follows :data:`BLOCK_BYTES`, never the
tensor or the file (mapping a 4 GB file whole took 4 GB of address space). No deep-learning
framework is needed: the rows come back as ``float32`` numpy arrays. ``BF16`` (most published
models), which numpy has no type for, is read as 16-bit words and widened.

Errors are one line naming the file: not found, not a regular file (a FIFO or a device is named
as what it is, from ``stat``, without opening it), not a safetensors file, a tensor that is
missing, not two-dimensional, not floating point, wider than :data:`MAX_EMBEDDING_DIM` or larger
than :data:`MAX_TENSOR_BYTES`.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from ..errors import TokvizError
from ..io.filekind import kind_problem, not_regular_reason

# Widest matrix read (16 GiB: a 256K x 16K float32 embedding); larger is refused, not streamed.
MAX_TENSOR_BYTES = 16 * 2**30
# Longest JSON header read: many times the largest published one (thousands of tensors take a
# few hundred KB), and small enough to parse in bounded memory.
MAX_HEADER_BYTES = 16 * 2**20
# Widest embedding row (the largest models use 16K-32K): one row must fit a block.
MAX_EMBEDDING_DIM = 1 << 20
# Rows are read this many bytes of float32 at a time, whatever the tensor's size.
BLOCK_BYTES = 16 * 2**20
# An embedding may have a few rows more than the tokenizer has ids (padded to a multiple of 64
# or 128 for speed); a tensor up to this many rows longer is taken as the embedding by shape.
MAX_PADDING_ROWS = 1024
# Preferred names when several tensors fit the shape: the input embedding first.
EMBEDDING_HINTS = ("embed_tokens", "wte", "word_embeddings", "tok_embeddings", "embed", "emb")
# Bytes per element of every dtype safetensors writes; the floating ones numpy reads as such.
_ITEM_SIZE = {
    "BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1,
    "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
    "I32": 4, "U32": 4, "F32": 4,
    "I64": 8, "U64": 8, "F64": 8,
}  # fmt: skip
_NUMPY_TYPES = {"F16": "<f2", "BF16": "<u2", "F32": "<f4", "F64": "<f8"}


class WeightsError(TokvizError):
    """A model weights file cannot be read, or holds no usable embedding tensor."""


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of the file: its name, shape and dtype (as safetensors names it: ``BF16``),
    and where its bytes lie in the data that follows the header."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    begin: int = 0
    end: int = 0


@dataclass(frozen=True)
class _Header:
    tensors: dict[str, TensorInfo]
    data_start: int


def _opened(path: Path) -> BinaryIO:
    """The regular file ``path``, open for reading; anything else is a one-line :class:`WeightsError`.

    The kind is checked from ``stat`` before opening, and the open does not block, so a FIFO or a
    device (``/dev/zero``) is named as what it is instead of hanging or reading forever.
    """
    reason = not_regular_reason(path)
    if reason == "does not exist":
        raise WeightsError(f"{path}: no such file")
    if reason is not None:
        raise WeightsError(f"{path} {reason}; model weights must be a regular .safetensors file")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise WeightsError(f"{path}: cannot be opened ({exc.strerror or exc})") from None
    problem = kind_problem(os.fstat(fd).st_mode)
    if problem is not None:
        os.close(fd)
        raise WeightsError(f"{path} {problem}; model weights must be a regular .safetensors file")
    return open(fd, "rb", buffering=0)  # noqa: SIM115 - the caller closes it


def _read_exactly(fh: BinaryIO, size: int, offset: int, path: Path) -> bytes:
    """``size`` bytes at ``offset``, or a :class:`WeightsError` saying the file is cut short."""
    fh.seek(offset)
    parts = []
    left = size
    while left:
        more = fh.read(left)
        if not more:
            raise WeightsError(f"{path.name}: the file ends before the tensor's data does (cut short?)")
        parts.append(more)
        left -= len(more)
    return b"".join(parts)


def _header(path: Path, fh: BinaryIO) -> _Header:
    """The file's header, checked: every tensor's dtype, shape and offsets lie inside the file."""

    def bad(reason: str) -> WeightsError:
        return WeightsError(f"{path.name}: not a readable safetensors file ({reason})")

    file_size = os.fstat(fh.fileno()).st_size
    head = fh.read(8)
    if len(head) < 8:
        raise bad("shorter than its 8-byte header length")
    (size,) = struct.unpack("<Q", head)
    if size > MAX_HEADER_BYTES:
        raise bad(
            f"the header claims {size:,} bytes, more than the {MAX_HEADER_BYTES // 2**20} MB tokviz reads"
        )
    if 8 + size > file_size:
        raise bad(f"the header claims {size:,} bytes, more than the file holds")
    try:
        raw = json.loads(_read_exactly(fh, size, 8, path))
    except (ValueError, RecursionError) as exc:
        raise bad(f"the header is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise bad("the header is not a table of tensors")
    data_size = file_size - 8 - size
    tensors = {}
    for name, entry in raw.items():
        if name == "__metadata__":
            continue
        tensors[name] = _tensor_info(str(name), entry, data_size, bad)
    return _Header(tensors, 8 + size)


def _tensor_info(name: str, entry: Any, data_size: int, bad: Any) -> TensorInfo:
    """One header entry as a :class:`TensorInfo`, or the error saying what is wrong with it."""
    if not isinstance(entry, dict):
        raise bad(f"{name!r} is not a tensor entry")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str):
        raise bad(f"{name!r} has no dtype")
    if not isinstance(shape, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        raise bad(f"{name!r} has shape {shape!r}, not a list of sizes")
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(isinstance(n, int) and not isinstance(n, bool) for n in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= data_size
    ):
        raise bad(f"{name!r} has data offsets {offsets!r} outside the file's {data_size:,} bytes of data")
    item = _ITEM_SIZE.get(dtype)
    if item is not None and math.prod(shape) * item != offsets[1] - offsets[0]:
        raise bad(f"{name!r} is {dtype} {shape}, which is not its {offsets[1] - offsets[0]:,} bytes")
    return TensorInfo(name, tuple(shape), dtype, offsets[0], offsets[1])


def _read_header(path: Path) -> _Header:
    with _opened(path) as fh:
        return _header(path, fh)


def list_tensors(path: str | Path) -> list[TensorInfo]:
    """Every tensor the file holds, from its header alone (no weights are read)."""
    return list(_read_header(Path(path)).tensors.values())


def find_embedding(tensors: Sequence[TensorInfo], ids: int, file_name: str = "the file") -> TensorInfo:
    """The tensor that looks like the embedding of a vocabulary of ``ids`` ids (the highest id + 1).

    Two-dimensional with exactly ``ids`` rows, else with up to :data:`MAX_PADDING_ROWS` more;
    among several, one named like an input embedding (:data:`EMBEDDING_HINTS`), else the first.
    """
    matrices = [t for t in tensors if len(t.shape) == 2]
    for fits in (
        [t for t in matrices if t.shape[0] == ids],
        [t for t in matrices if ids < t.shape[0] <= ids + MAX_PADDING_ROWS],
    ):
        if fits:
            for hint in EMBEDDING_HINTS:
                named = [t for t in fits if hint in t.name.lower()]
                if named:
                    return named[0]
            return fits[0]
    shapes = ", ".join(f"{t.name} {list(t.shape)}" for t in matrices[:4]) or "no two-dimensional tensors"
    raise WeightsError(
        f"{file_name}: no tensor has one row per token ({ids:,} rows); its matrices: {shapes}. "
        "Name the embedding with --tensor"
    )


class EmbeddingTensor:
    """One two-dimensional floating-point tensor of a safetensors file, read in blocks of rows."""

    def __init__(self, path: str | Path, name: str) -> None:
        self.path = Path(path)
        header = _read_header(self.path)
        info = header.tensors.get(name)
        if info is None:
            known = ", ".join(sorted(header.tensors)[:6]) + (", ..." if len(header.tensors) > 6 else "")
            raise WeightsError(f"{self.path.name} has no tensor {name!r} (it has {known or 'none'})")
        if len(info.shape) != 2:
            raise WeightsError(
                f"{self.path.name}: {name} has shape {list(info.shape)}; an embedding has two dimensions"
            )
        if info.dtype not in _NUMPY_TYPES:
            raise WeightsError(f"{self.path.name}: {name} holds {info.dtype}, not floating-point numbers")
        if info.shape[1] > MAX_EMBEDDING_DIM:
            raise WeightsError(
                f"{self.path.name}: {name} has rows of {info.shape[1]:,} numbers, wider than the "
                f"{MAX_EMBEDDING_DIM:,} an embedding has"
            )
        size = info.end - info.begin
        if size > MAX_TENSOR_BYTES:
            raise WeightsError(
                f"{self.path.name}: {name} is {size / 2**30:,.1f} GiB, more than the "
                f"{MAX_TENSOR_BYTES / 2**30:.0f} GiB an audit reads"
            )
        self.info = info
        self._data_start = header.data_start
        self.rows_count, self.dim = info.shape

    def block_rows(self) -> int:
        """Rows per block: :data:`BLOCK_BYTES` of float32, at least one row."""
        return max(1, BLOCK_BYTES // max(4 * self.dim, 1))

    def rows(self, block: int | None = None) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, float32 array of up to block rows)`` from the top, one block at a time.

        Each block is one positioned read of the file; no more than a block is ever held.
        """
        block = block or self.block_rows()
        stored = np.dtype(_NUMPY_TYPES[self.info.dtype])
        row_bytes = self.dim * stored.itemsize
        with _opened(self.path) as fh:
            for start in range(0, self.rows_count, block):
                stop = min(start + block, self.rows_count)
                offset = self._data_start + self.info.begin + start * row_bytes
                data = _read_exactly(fh, (stop - start) * row_bytes, offset, self.path)
                values = np.frombuffer(data, dtype=stored).reshape(stop - start, self.dim)
                if self.info.dtype == "BF16":  # the top half of a float32
                    yield start, (values.astype(np.uint32) << 16).view(np.float32)
                else:
                    yield start, values.astype(np.float32, copy=False)
