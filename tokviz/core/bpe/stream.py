"""Streaming: decode ids one at a time without printing half a character; encode a file as it is read.

:class:`StreamingDecoder` turns ids into text as they arrive. For ``tokviz encode`` of a large file,
:func:`read_utf8_pieces` reads and decodes it block by block, :class:`AtomicStream` writes an output
as it comes and renames it into place only when complete, and :class:`JsonSpans` writes the JSON
spans of each block, so no per-token object lives longer than its block.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, Protocol

from ..errors import ArgumentTypeError, CorpusError
from ..io.atomic import fsync_dir
from ..io.filekind import not_regular_reason
from ..io.outputs import OutputError
from ..pretok.bytes_ import incomplete_tail_length


class _HasIdBytes(Protocol):
    def id_bytes(self, token_id: int) -> bytes: ...


class StreamingDecoder:
    """Decode ids as they arrive (as in streaming generation).

    ``push`` returns only complete characters and holds back an incomplete UTF-8 tail until the
    ids that finish it arrive; ``flush`` ends the stream, replacing a tail that never finished.
    """

    def __init__(self, tokenizer: _HasIdBytes) -> None:
        if not callable(getattr(tokenizer, "id_bytes", None)):
            raise ArgumentTypeError(
                f"StreamingDecoder needs a tokenizer (something with id_bytes()), got {type(tokenizer).__name__}"
            )
        self._tokenizer = tokenizer
        self._pending = b""

    @property
    def pending(self) -> bytes:
        """The bytes held back because the character they start is not complete yet."""
        return self._pending

    def push(self, token_id: int) -> str:
        """Add one id; return the text that is now complete (possibly empty)."""
        data = self._pending + self._tokenizer.id_bytes(token_id)
        keep = incomplete_tail_length(data)
        ready = data[: len(data) - keep] if keep else data
        self._pending = data[len(data) - keep :] if keep else b""
        return ready.decode("utf-8", errors="replace")

    def flush(self) -> str:
        """End of stream: return what is held back, with U+FFFD for an unfinished character."""
        data, self._pending = self._pending, b""
        return data.decode("utf-8", errors="replace")


def naive_decode_each(tokenizer: _HasIdBytes, token_id: int) -> str:
    """What a naive per-token decoder prints for one id: replacement characters for partial bytes."""
    return tokenizer.id_bytes(token_id).decode("utf-8", errors="replace")


# ---------------------------------------------------------------------------- streaming a file
# Bytes read at a time from an input file: large enough that reading costs nothing next to
# encoding, small enough that memory stays flat.
READ_BLOCK = 1 << 22


def read_utf8_pieces(path: str, block: int = READ_BLOCK) -> Iterator[str]:
    """The text of a UTF-8 file (``-``: standard input), read and decoded ``block`` bytes at a time.

    Only a regular file (or standard input) is read: a FIFO or a device is refused before it is
    opened. Invalid UTF-8 is a :class:`CorpusError` naming the byte and its offset in the file.
    """
    if path == "-":
        return _decoded(sys.stdin.buffer, "<stdin>", block)
    problem = not_regular_reason(path)
    if problem == "does not exist":
        raise CorpusError(f"{path}: No such file or directory", path)
    if problem is not None:
        raise CorpusError(f"the input {path} {problem}; give a regular text file", path)
    return _file_pieces(path, block)


def _file_pieces(path: str, block: int) -> Iterator[str]:
    """The decoded pieces of a file, opened when the first piece is asked for."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below, when the pieces end
    except OSError as exc:
        raise CorpusError(f"the input {path} cannot be opened ({exc.strerror or exc})", path) from None
    with fh:
        yield from _decoded(fh, path, block)


def _decoded(fh: BinaryIO, name: str, block: int) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    done = 0  # bytes of the file decoded or held by the decoder so far
    while True:
        data = fh.read(block)
        held = len(decoder.getstate()[0])
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            offset = done - held + exc.start
            bad = exc.object[exc.start] if exc.start < len(exc.object) else 0
            raise CorpusError(
                f"{name} is not valid UTF-8 (byte 0x{bad:02X} at byte offset {offset})", name, offset
            ) from None
        done += len(data)
        if text:
            yield text
        if not data:
            return


def check_utf8_file(path: str, block: int = READ_BLOCK) -> None:
    """Refuse a file that is not valid UTF-8 before anything is written (one read at C speed)."""
    for _ in read_utf8_pieces(path, block):
        pass


class AtomicStream:
    """An output file written as it comes and renamed into place only when it is complete.

    The data goes to a temporary file beside the target (named as :mod:`tokviz.core.io.outputs`
    names its temporary files, so a run killed half way leaves one the next check removes);
    :meth:`commit` fsyncs and renames it over the target. Leaving the ``with`` block without a
    commit (an error, Ctrl+C) removes the temporary file and leaves the target as it was.
    """

    def __init__(self, path: str) -> None:
        target = Path(os.path.realpath(path))
        self._given = path
        self._target = target
        mode = None
        with contextlib.suppress(OSError):
            mode = stat.S_IMODE(os.stat(target).st_mode)
        self._mode = mode
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        for _ in range(100):
            temp = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
            try:
                fd = os.open(temp, flags, 0o666 if mode is None else mode)
                break
            except FileExistsError:
                continue
            except OSError as exc:
                raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        else:  # pragma: no cover - 100 random names taken
            raise OutputError(f"cannot find a free temporary name beside {path}")
        self._temp = temp
        self._file = os.fdopen(fd, "w", encoding="utf-8", newline="")
        self._done = False

    def write(self, text: str) -> int:
        """Append ``text`` to the temporary file."""
        return self._file.write(text)

    def commit(self) -> None:
        """Make the written file the target: fsync, then rename over it."""
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        if self._mode is not None and os.name == "posix":
            os.chmod(self._temp, self._mode)  # an existing file keeps its exact mode
        os.replace(self._temp, self._target)
        self._done = True
        fsync_dir(self._target.parent)

    def __enter__(self) -> AtomicStream:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self._done:
            with contextlib.suppress(OSError):
                self._file.close()
            with contextlib.suppress(OSError):
                os.unlink(self._temp)


# ---------------------------------------------------------------------------- JSON spans
class JsonSpans:
    """``tokviz encode --format json`` written block by block, in exactly ``json.dump``'s form.

    Each token is ``{"id": ..., "bytes": hex, "text": ... or null, "start": ..., "end": ...}``
    with code-point offsets on the whole text; a token holding part of a character covers the
    whole character and has no text. The part of an item that depends only on its id is made
    once per id, offsets are computed with numpy, and a block's items are joined in one call.
    """

    def __init__(self, vocab: Mapping[int, bytes]) -> None:
        import numpy as np

        self._np = np
        self._vocab = vocab
        self._whole: dict[int, str] = {}  # id -> "}, " and the item up to its start offset
        self._partial: dict[int, str] = {}  # the same with "text": null
        self._length: dict[int, int] = {}  # id -> byte length
        self._base = 0  # code points before the current block
        self._first = True

    def _learn(self, ids: Iterable[int]) -> None:
        """Make the per-id parts of ids not seen before."""
        vocab = self._vocab
        for token_id in ids:
            data = vocab[token_id]
            head = f'{{"id": {token_id}, "bytes": "{data.hex()}", "text": '
            text = json.dumps(data.decode("utf-8", errors="replace"), ensure_ascii=False)
            self._whole[token_id] = f'}}, {head}{text}, "start": '
            self._partial[token_id] = f'}}, {head}null, "start": '
            self._length[token_id] = len(data)

    def block(self, text: str, ids: list[int]) -> str:
        """The items of one block (``ids`` encode ``text``), with separators, as one string."""
        np = self._np
        base = self._base
        self._base += len(text)
        if not ids:
            return ""
        self._learn(set(ids).difference(self._whole))
        n = len(ids)
        lengths = np.fromiter(map(self._length.__getitem__, ids), dtype=np.int64, count=n)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        char_start = (raw & 0xC0) != 0x80
        char_at = np.cumsum(char_start)  # 1-based number of the character that holds each byte
        first_cp = char_at[starts] + (base - 1)
        last_cp = char_at[ends - 1] + base
        after = np.append(char_start, True)
        split_end = ~after[ends]  # the token ends inside a character
        partial = np.flatnonzero(~char_start[starts] | split_end).tolist()
        # An item starts with "}, " closing the one before (the block's first: the block's lead).
        heads = list(map(self._whole.__getitem__, ids))
        for k in partial:
            heads[k] = self._partial[ids[k]]
        lead = "" if self._first else "}, "
        self._first = False
        heads[0] = lead + heads[0][3:]
        # A token's end is the next token's start unless a character is split between them.
        begin = list(map(str, first_cp.tolist()))
        end = begin[1:]
        end.append(str(int(last_cp[-1])))
        for k in np.flatnonzero(split_end[:-1]).tolist():
            end[k] = str(int(last_cp[k]))
        parts: list[str] = [', "end": '] * (4 * n)
        parts[0::4] = heads
        parts[1::4] = begin
        parts[3::4] = end
        return "".join(parts)

    def close(self) -> str:
        """What ends the list: the last item's brace (when there was one) and the bracket."""
        return "]" if self._first else "}]"
