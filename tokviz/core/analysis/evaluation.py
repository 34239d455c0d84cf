"""Evaluating tokenizers on a set of files: totals per tokenizer, per folder or category, per file.

The question an engineer choosing a vocabulary asks is not "how does this one file split" but
"over my held-out set, how many tokens does each tokenizer need, and how much of its vocabulary
does it use". :func:`evaluate` encodes every file chosen by :func:`tokviz.core.corpus.fileselect.select_files`
with every tokenizer (streamed, so a file's size does not decide memory; counts are exact, the same
as encoding the whole file at once) and sums per group. Empty files make no rows. Every number is
computed from the encodings, never estimated.

The columns (:data:`EVAL_FIELDS`) are the same in every output form (table, CSV, JSON, markdown);
:func:`rounded` is the one rounding rule for the numbers written to files. Tokenizers are named as
the desktop app names them (:func:`tokenizer_label`: "GPT-2", a file's stem), so a table, a chart
and the app agree. No Qt here.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bpe.tokenizer import Tokenizer
from ..corpus.containers import RecordTally
from ..corpus.documents import CorpusReader, ReadOptions, ReadSummary
from ..corpus.fileselect import PathGlob, SelectedFile, Selection
from ..errors import Cancelled, InvalidArgument
from ..io.filekind import ReadProblem, read_regular_file
from ..pretok.stretches import LONGEST_ENCODED_PART, CutCount, counting_cuts
from .metrics import best_of

# One row of an evaluation, in the order every output form shows the columns.
EVAL_FIELDS = (
    "group",
    "tokenizer",
    "files",
    "bytes",
    "tokens",
    "bytes_per_token",
    "relative_tokens",
    "vocab_used",
    "vocab_tokens",
    "id_range",
    "vocab_used_share",
    "mean_token_bytes",
    "lossy_files",
)
# What each column means, for help texts and the markdown caption.
FIELD_HELP = {
    "bytes_per_token": "bytes of the input (decompressed, invalid bytes as they were) over tokens",
    "relative_tokens": "tokens over the fewest any tokenizer that kept the text needs on the same files",
    "vocab_used": "distinct tokens that occur",
    "vocab_tokens": "distinct tokens in the vocabulary, special tokens included",
    "id_range": "highest id + 1 (the rows of an embedding table); more than vocab_tokens when ids have gaps",
    "vocab_used_share": "vocab_used over vocab_tokens",
    "mean_token_bytes": "mean length in bytes of the distinct tokens that occur",
    "lossy_files": "files whose tokens do not decode back to their text (an <unk>, or a normalizer)",
}
TOTAL_GROUP = "all"
OTHER_CATEGORY = "other"
# Parts of about this many characters are encoded at a time, so a file of any size encodes in
# bounded memory. A stretch with no place where encoding can be cut exactly is cut at
# LONGEST_ENCODED_PART characters, and a pre-token longer than LONGEST_PRETOKEN is merged in
# pieces (see tokviz.core.pretok.stretches): a token next to such a cut may differ.
_PART_SIZE = 1 << 16
# Names a file gets from its format rather than from its vocabulary: named by their folder.
_GENERIC_STEMS = frozenset({"tokenizer", "vocab", "merges", "model", "encoder", "tokenizer_config"})


# ----------------------------------------------------------------------------- names
def tokenizer_label(spec: str, tokenizer: Tokenizer) -> str:
    """The short name the desktop app shows for the tokenizer given as ``spec`` on a command line.

    A built-in is named as the app names it ("GPT-2", "cl100k", "bytes"); a file by its stem
    (``models/py8k.json`` -> "py8k"), or by its folder when the stem only names the format
    (``exports/py32k/tokenizer.json`` -> "py32k"); a folder by its own name. A tokviz model that
    carries a name of its own (``tokviz train --name``) keeps it.
    """
    from ..formats.registry import is_builtin

    if is_builtin(spec):
        return tokenizer.name
    path = Path(spec)
    if path.is_dir():
        return path.resolve().name or spec
    stem = path.stem
    folder = path.resolve().parent.name
    if stem.lower() in _GENERIC_STEMS:
        return folder or stem
    own = tokenizer.name
    if own and own not in ("custom", "trained", folder, path.name):
        return own
    return stem or spec


def unique_labels(specs: Sequence[str], tokenizers: Sequence[Tokenizer]) -> list[str]:
    """:func:`tokviz.core.analysis.evaluation.tokenizer_label` for each, made distinct by
    :func:`distinct_labels` where two short names clash."""
    return distinct_labels([tokenizer_label(s, t) for s, t in zip(specs, tokenizers)], specs)


def distinct_labels(labels: Sequence[str], specs: Sequence[str | None]) -> list[str]:
    """``labels`` with every clash resolved from the clashing entries' ``specs`` (paths).

    Clashing names become the file names (``multilingual`` and ``multilingual.tiktoken``), then
    the parent folder and file name (``a/x.json``, ``b/x.json``), then the specs as typed. An
    entry without a spec (a built-in, a model trained in the app) keeps its label, so the app's
    pickers and the CLI's tables name the same tokenizers alike.
    """

    def parent_and_name(spec: str) -> str:
        path = Path(spec)
        return f"{path.parent.name}/{path.name}" if path.parent.name else spec

    out = list(labels)
    for fallback in (lambda spec: Path(spec).name or spec, parent_and_name, lambda spec: spec):
        clashing = {label for label in out if out.count(label) > 1}
        out = [
            fallback(spec) if label in clashing and spec is not None else label
            for label, spec in zip(out, specs)
        ]
    return out


def id_space(tokenizer: Tokenizer) -> int:
    """The size of the id space: highest id + 1 (the rows of an embedding table, V in V x d).

    Larger than the number of distinct tokens when ids have gaps: cl100k's highest id is 100,276
    (its ``<|endofprompt|>``) though it has 100,261 tokens, so its embedding table has 100,277 rows.
    """
    vocab = getattr(tokenizer, "vocab", None)
    if not isinstance(vocab, dict):  # a lazy vocabulary (the characters one) knows its own size
        return tokenizer.vocab_size
    highest = max(max(vocab, default=-1), max(tokenizer.special_tokens.values(), default=-1))
    return max(highest + 1, tokenizer.vocab_size)


# ----------------------------------------------------------------------------- grouping
Grouper = Callable[[SelectedFile], str]


def by_folder(selection: Selection) -> Grouper:
    """Group files by the first folder below the folder argument they came from.

    Files directly in a folder argument (or named one by one) are grouped by that folder. With
    several folder arguments the group names start with the argument's name ("heldout/json").
    """
    roots = {f.root for f in selection.files if f.root is not None}
    several = len(roots) > 1

    def group(file: SelectedFile) -> str:
        root_name = _display_root(file.root) if file.root is not None else None
        head, sep, _ = file.relative.partition("/")
        if file.root is None:
            return file.folder or "."
        if not sep:
            return root_name or "."
        return f"{root_name}/{head}" if several else head

    return group


def _display_root(root: str) -> str:
    name = Path(root).name
    return name or os.path.basename(os.path.abspath(root)) or root


@dataclass(frozen=True)
class Categories:
    """Named lists of globs: a file belongs to the first category with a glob that matches it.

    Globs follow the ``--include`` rules (a name at any depth, a path with ``/``, a folder with a
    trailing ``/``), matched on the file's path relative to its folder argument. Files no
    category matches are in :data:`OTHER_CATEGORY`.
    """

    rules: tuple[tuple[str, tuple[PathGlob, ...]], ...]

    @classmethod
    def parse(cls, text: str, source: str = "the categories file") -> Categories:
        """Read ``NAME: GLOB [GLOB ...]`` lines (``#`` starts a comment) or a JSON object mapping
        names to a glob or a list of globs."""
        stripped = text.lstrip("\ufeff").strip()
        pairs: list[tuple[str, list[str]]] = []
        if stripped.startswith("{"):
            try:
                data = json.loads(stripped)
            except ValueError as exc:
                raise InvalidArgument(f"{source} is not valid JSON ({exc})") from None
            for name, globs in data.items():
                listed = [globs] if isinstance(globs, str) else globs
                if not isinstance(listed, list) or not all(isinstance(g, str) for g in listed):
                    raise InvalidArgument(f"{source}: category {name!r} needs a glob or a list of globs")
                pairs.append((str(name), listed))
        else:
            for number, line in enumerate(text.splitlines(), 1):
                content = line.split("#", 1)[0].strip()
                if not content:
                    continue
                name, sep, rest = content.partition(":")
                if not sep or not name.strip() or not rest.split():
                    raise InvalidArgument(
                        f"{source}, line {number}: write 'NAME: GLOB [GLOB ...]', e.g. 'tests: test_*.py tests/'"
                    )
                pairs.append((name.strip(), rest.split()))
        if not pairs:
            raise InvalidArgument(f"{source} names no categories; write lines like 'docs: *.md *.rst'")
        return cls(tuple((name, tuple(PathGlob.parse(g) for g in globs)) for name, globs in pairs))

    @classmethod
    def read(cls, path: str) -> Categories:
        """Read a categories file (at most 1 MB, a regular file)."""
        try:
            data = read_regular_file(path, 1 << 20)
        except ReadProblem as exc:
            raise InvalidArgument(f"the categories file {path} {exc.reason}") from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidArgument(f"the categories file {path} is not UTF-8 text") from None
        return cls.parse(text, path)

    def group_of(self, file: SelectedFile) -> str:
        """The category of ``file``."""
        for name, globs in self.rules:
            if any(g.matches_file(file.relative) for g in globs):
                return name
        return OTHER_CATEGORY

    @property
    def names(self) -> tuple[str, ...]:
        """Category names in the file's order (the order of the rows)."""
        return tuple(name for name, _ in self.rules)


# ----------------------------------------------------------------------------- results
@dataclass
class _Tally:
    files: int = 0
    bytes: int = 0
    code_points: int = 0
    tokens: int = 0
    used: set[int] = field(default_factory=set)
    cuts: CutCount = field(default_factory=CutCount)
    lossy_files: int = 0


@dataclass(frozen=True)
class EvalRow:
    """The numbers of one tokenizer on one group of files (or one file, or all of them)."""

    group: str
    tokenizer: str
    files: int
    bytes: int
    code_points: int
    tokens: int
    fewest: int
    vocab_used: int
    vocab_tokens: int
    used_token_bytes: int
    id_range: int = 0
    lossy_files: int = 0

    @property
    def bytes_per_token(self) -> float | None:
        """The input's bytes over tokens (see :mod:`tokviz.core.corpus.sizes`); None when there are no tokens."""
        return self.bytes / self.tokens if self.tokens else None

    @property
    def relative_tokens(self) -> float | None:
        """Tokens over the fewest any tokenizer that kept the text needs on the same files (1.0 for
        the best; see :func:`~tokviz.core.analysis.metrics.best_of`)."""
        return self.tokens / self.fewest if self.fewest else None

    @property
    def lossy(self) -> bool:
        """True when some file's tokens do not decode back to its text: the rate is not a saving."""
        return self.lossy_files > 0

    @property
    def vocab_used_share(self) -> float | None:
        """Share of the vocabulary's distinct tokens that occur at least once."""
        return self.vocab_used / self.vocab_tokens if self.vocab_tokens else None

    @property
    def mean_token_bytes(self) -> float | None:
        """Mean length in bytes of the distinct tokens that occur."""
        return self.used_token_bytes / self.vocab_used if self.vocab_used else None

    def as_dict(self) -> dict[str, Any]:
        """The row under the :data:`EVAL_FIELDS` keys, full precision (``None`` where undefined)."""
        return {name: getattr(self, name) for name in EVAL_FIELDS}


@dataclass(frozen=True)
class Evaluation:
    """Everything :func:`evaluate` measured: totals, groups, files (when asked) and the selection.

    ``totals`` has one row per tokenizer; ``groups`` one per group and tokenizer (group-major, in
    the order groups first appear, categories in their file's order); ``files`` one per non-empty
    file and tokenizer. ``empty_files`` counts selected files with no text; ``cuts`` the places
    where text with no exact cut was cut anyway (see :mod:`tokviz.core.pretok.stretches`).
    """

    tokenizers: tuple[str, ...]
    totals: tuple[EvalRow, ...]
    groups: tuple[EvalRow, ...]
    files: tuple[EvalRow, ...]
    selection: Selection
    empty_files: int = 0
    cuts: CutCount = field(default_factory=CutCount)
    reading: ReadSummary | None = None

    @property
    def long_stretches_note(self) -> str | None:
        """One line saying that text with no exact place to cut was encoded in pieces, or None."""
        return self.cuts.note(LONGEST_ENCODED_PART)

    def rows(self, per_file: bool = False) -> list[EvalRow]:
        """The rows to show: the groups (if any), then the totals; the files first with ``per_file``."""
        return [*(self.files if per_file else ()), *self.groups, *self.totals]

    @property
    def text_bytes(self) -> int:
        """Bytes of all the input evaluated (decompressed; invalid bytes as they were)."""
        return self.totals[0].bytes if self.totals else 0


@dataclass(frozen=True)
class EvalProgress:
    """How far an evaluation is: bytes on disk encoded (once per tokenizer) out of the total."""

    done: int
    total: int
    files_done: int
    files_total: int


def evaluate(
    selection: Selection,
    tokenizers: Sequence[Tokenizer],
    names: Sequence[str] | None = None,
    *,
    group_of: Grouper | None = None,
    group_order: Sequence[str] = (),
    per_file: bool = False,
    errors: str = "strict",
    progress: Callable[[EvalProgress], None] | None = None,
    cancel: Callable[[], bool] | None = None,
    reading: ReadOptions | None = None,
) -> Evaluation:
    """Encode every selected file with every tokenizer and sum the counts.

    ``names`` label the tokenizers (default: their names); ``group_of`` puts each file in a group
    (by folder, by category) and ``group_order`` lists groups to show first in that order.
    Special-token strings in a file count as one special token, as :meth:`Tokenizer.encode` does.
    ``errors="replace"`` reads invalid UTF-8 as U+FFFD (counted as the bytes they were in the
    file, see :mod:`tokviz.core.corpus.sizes`); otherwise a file that
    is not UTF-8 is a :class:`CorpusError`. ``progress`` is called after each file and tokenizer;
    ``cancel`` is polled as often, and :class:`Cancelled` raised when it returns True.
    A file of records (JSON Lines, Parquet, Arrow) is read as ``reading`` says (its text field),
    each record a document; :attr:`Evaluation.reading` counts the records and those skipped.
    """
    labels = _labels(tokenizers, names)
    total_work = selection.bytes * len(tokenizers)
    done = 0
    totals = [_Tally() for _ in tokenizers]
    groups: dict[str, list[_Tally]] = {g: [_Tally() for _ in tokenizers] for g in group_order}
    file_rows: list[EvalRow] = []
    empty = 0
    cuts = CutCount()
    several_roots = len({f.root for f in selection.files}) > 1
    options = reading or ReadOptions()
    records = RecordTally(options.field)
    documents = 0
    for index, file in enumerate(selection.files):
        measured = []
        for k, tok in enumerate(tokenizers):
            _check_cancel(cancel)
            reader = CorpusReader(options, errors)
            measured.append(_measure(tok, file, reader))
            if k == 0:
                records.add(reader.tally)
                documents += reader.documents
            done += file.size
            if progress is not None:
                progress(EvalProgress(done, total_work, index + 1, len(selection.files)))
        cuts.stretches += max(m.cuts.stretches for m in measured)
        cuts.pretokens += max(m.cuts.pretokens for m in measured)
        if measured[0].bytes == 0:
            empty += 1
            continue
        buckets = [totals]
        if group_of is not None:
            buckets.append(groups.setdefault(group_of(file), [_Tally() for _ in tokenizers]))
        for bucket in buckets:
            for tally, m in zip(bucket, measured):
                _add(tally, m)
        if per_file:
            file_rows.extend(_rows(_file_label(file, several_roots), labels, tokenizers, measured))
    group_rows = [
        row
        for name, tallies in groups.items()
        if tallies[0].files
        for row in _rows(name, labels, tokenizers, tallies)
    ]
    return Evaluation(
        labels,
        tuple(_rows(TOTAL_GROUP, labels, tokenizers, totals)),
        tuple(group_rows),
        tuple(file_rows),
        selection,
        empty,
        cuts,
        ReadSummary(records, documents, totals[0].bytes),
    )


def _labels(tokenizers: Sequence[Tokenizer], names: Sequence[str] | None) -> tuple[str, ...]:
    """The tokenizers' labels (``names``, or their own names): one each, all different."""
    if not tokenizers:
        raise InvalidArgument("give at least one tokenizer to evaluate")
    labels = tuple(names) if names is not None else tuple(t.name for t in tokenizers)
    if len(labels) != len(tokenizers):
        raise InvalidArgument("give one name per tokenizer")
    if len(set(labels)) != len(labels):
        raise InvalidArgument(f"two tokenizers have the same name: {', '.join(labels)}")
    return labels


def _check_cancel(cancel: Callable[[], bool] | None) -> None:
    if cancel is not None and cancel():
        raise Cancelled("evaluation cancelled")


def _measure(tok: Tokenizer, file: SelectedFile, reader: CorpusReader) -> _Tally:
    """One file under one tokenizer (read by ``reader``; a file of records is a document a
    record): its bytes, code points, tokens and distinct ids.

    The file is encoded block by block as :meth:`Tokenizer.encode_blocks` cuts it (where the
    tokenizer's chunking cannot change; a stretch with no such place, or a very long pre-token,
    is cut anyway, so memory stays bounded, and counted in :attr:`_Tally.cuts`). The bytes are
    the input's (decompressed): an invalid byte read as U+FFFD counts as the one byte it was, so
    bytes per token never grow because the file was damaged.
    """
    tally = _Tally(files=1)

    def count_bytes(n: int) -> None:
        tally.bytes += n

    kept = True
    with counting_cuts(tally.cuts):
        for document in reader.file_documents(file.corpus_file, on_content=count_bytes):
            for part, ids in tok.encode_blocks(document, _PART_SIZE):
                tally.code_points += len(part)
                tally.tokens += len(ids)
                tally.used.update(ids)
                kept = kept and tok.decode(ids) == part
    tally.lossy_files = 0 if kept else 1
    return tally


def _add(into: _Tally, m: _Tally) -> None:
    into.files += m.files
    into.bytes += m.bytes
    into.code_points += m.code_points
    into.tokens += m.tokens
    into.used |= m.used
    into.lossy_files += m.lossy_files


def _rows(
    group: str, labels: Sequence[str], tokenizers: Sequence[Tokenizer], tallies: Sequence[_Tally]
) -> list[EvalRow]:
    best = best_of([(t.tokens, t.lossy_files > 0) for t in tallies])
    fewest = tallies[best[0]].tokens if best else 0
    return [
        EvalRow(
            group=group,
            tokenizer=label,
            files=t.files,
            bytes=t.bytes,
            code_points=t.code_points,
            tokens=t.tokens,
            fewest=fewest,
            vocab_used=len(t.used),
            vocab_tokens=tok.vocab_size,
            used_token_bytes=sum(len(tok.id_bytes(i)) for i in t.used),
            id_range=id_space(tok),
            lossy_files=t.lossy_files,
        )
        for label, tok, t in zip(labels, tokenizers, tallies)
    ]


def _file_label(file: SelectedFile, several_roots: bool) -> str:
    """A file's row label: its path under its folder argument (with that folder's name in front
    when there are several), or its path as given."""
    if file.root is None or not several_roots:
        return file.relative
    return f"{_display_root(file.root)}/{file.relative}"


# ----------------------------------------------------------------------------- numbers
# Decimals kept when writing each kind of number to a file (CSV, JSON): enough to compare
# tokenizers (a thousandth of a byte per token), not binary-float noise.
_DECIMALS = {
    "bytes_per_token": 3,
    "relative_tokens": 3,
    "vocab_used_share": 4,
    "mean_token_bytes": 2,
    "attention_multiplier": 3,
}


def rounded(key: str, value: Any) -> Any:
    """``value`` as written to a file: floats rounded to the decimals their column needs
    (bytes per token 3, shares 4, ...; 4 for a column not listed), other values unchanged."""
    if isinstance(value, float) and not isinstance(value, bool):
        if not math.isfinite(value):
            return None
        return round(value, _DECIMALS.get(key, 4))
    return value


def rounded_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Every row with :func:`rounded` applied to each value."""
    return [{k: rounded(k, v) for k, v in row.items()} for row in rows]
