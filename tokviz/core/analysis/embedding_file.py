"""Read one embedding tensor from a model's ``.safetensors`` file, and nothing else of it.

A model file holds gigabytes of weights; the audit needs one matrix. ``safetensors`` reads its
header (names, shapes, byte offsets) and then only the bytes asked for, so :class:`EmbeddingTensor`
hands out blocks of rows (:meth:`EmbeddingTensor.rows`) and memory stays flat however large the
matrix is. No deep-learning framework is needed: the rows come back as numpy arrays. ``BF16`` (most
published models), which numpy has no type for, is read as 16-bit words at the tensor's offsets and
widened to ``float32``.

Errors are one line naming the file: not found, not a safetensors file, a tensor that is missing,
not two-dimensional, not floating point or larger than :data:`MAX_TENSOR_BYTES`.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import TokvizError

# Widest matrix read (16 GiB: a 256K x 16K float32 embedding); larger is refused, not streamed.
MAX_TENSOR_BYTES = 16 * 2**30
# safetensors' own limit on the JSON header.
MAX_HEADER_BYTES = 100 * 2**20
# An embedding may have a few rows more than the tokenizer has ids (padded to a multiple of 64
# or 128 for speed); a tensor up to this many rows longer is taken as the embedding by shape.
MAX_PADDING_ROWS = 1024
# Preferred names when several tensors fit the shape: the input embedding first.
EMBEDDING_HINTS = ("embed_tokens", "wte", "word_embeddings", "tok_embeddings", "embed", "emb")
_NUMPY_TYPES = {"F16": np.float16, "F32": np.float32, "F64": np.float64}
_ITEM_SIZE = {"F16": 2, "BF16": 2, "F32": 4, "F64": 8}


class WeightsError(TokvizError):
    """A model weights file cannot be read, or holds no usable embedding tensor."""


@dataclass(frozen=True)
class TensorInfo:
    """One tensor of the file: its name, shape and dtype (as safetensors names it: ``BF16``)."""

    name: str
    shape: tuple[int, ...]
    dtype: str


def _safe_open(path: Path) -> Any:
    try:
        from safetensors import safe_open
    except ImportError:
        raise WeightsError(
            "reading model weights needs the safetensors package: pip install 'tokviz[weights]'"
        ) from None
    if not path.is_file():
        raise WeightsError(f"{path}: no such file")
    try:
        return safe_open(str(path), framework="numpy")
    except Exception as exc:  # noqa: BLE001 - the library raises its own types for a bad header
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise WeightsError(f"{path.name}: not a readable safetensors file ({reason})") from None


def list_tensors(path: str | Path) -> list[TensorInfo]:
    """Every tensor the file holds, from its header alone (no weights are read)."""
    p = Path(path)
    with _safe_open(p) as f:
        out = []
        for name in f.keys():
            piece = f.get_slice(name)
            out.append(TensorInfo(name, tuple(int(n) for n in piece.get_shape()), str(piece.get_dtype())))
    return out


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
        infos = {t.name: t for t in list_tensors(self.path)}
        info = infos.get(name)
        if info is None:
            known = ", ".join(sorted(infos)[:6]) + (", ..." if len(infos) > 6 else "")
            raise WeightsError(f"{self.path.name} has no tensor {name!r} (it has {known or 'none'})")
        if len(info.shape) != 2:
            raise WeightsError(
                f"{self.path.name}: {name} has shape {list(info.shape)}; an embedding has two dimensions"
            )
        if info.dtype not in _ITEM_SIZE:
            raise WeightsError(f"{self.path.name}: {name} holds {info.dtype}, not floating-point numbers")
        size = info.shape[0] * info.shape[1] * _ITEM_SIZE[info.dtype]
        if size > MAX_TENSOR_BYTES:
            raise WeightsError(
                f"{self.path.name}: {name} is {size / 2**30:,.1f} GiB, more than the "
                f"{MAX_TENSOR_BYTES / 2**30:.0f} GiB an audit reads"
            )
        self.info = info
        self.rows_count, self.dim = info.shape

    def rows(self, block: int = 8192) -> Iterator[tuple[int, np.ndarray]]:
        """``(first row, float32 array of up to block rows)`` from the top, one block at a time."""
        if self.info.dtype == "BF16":
            yield from self._bf16_rows(block)
            return
        with _safe_open(self.path) as f:
            piece = f.get_slice(self.info.name)
            for start in range(0, self.rows_count, block):
                stop = min(start + block, self.rows_count)
                yield start, np.asarray(piece[start:stop], dtype=np.float32)

    def _bf16_rows(self, block: int) -> Iterator[tuple[int, np.ndarray]]:
        begin = _data_start(self.path) + self._offsets()[0]
        words = np.memmap(self.path, dtype="<u2", mode="r", offset=begin, shape=(self.rows_count, self.dim))
        for start in range(0, self.rows_count, block):
            chunk = np.asarray(words[start : start + block], dtype=np.uint32) << 16
            yield start, chunk.view(np.float32)

    def _offsets(self) -> tuple[int, int]:
        header = _header(self.path)
        begin, end = header[self.info.name]["data_offsets"]
        return int(begin), int(end)


def _header(path: Path) -> dict[str, Any]:
    """The file's JSON header (already checked by safetensors when the tensor was opened)."""
    with open(path, "rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
        if size > MAX_HEADER_BYTES:
            raise WeightsError(f"{path.name}: the header claims {size:,} bytes; not a safetensors file")
        header = json.loads(fh.read(size))
    if not isinstance(header, dict):
        raise WeightsError(f"{path.name}: the header is not a table of tensors")
    return header


def _data_start(path: Path) -> int:
    with open(path, "rb") as fh:
        (size,) = struct.unpack("<Q", fh.read(8))
    return 8 + size
