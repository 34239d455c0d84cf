"""Exporting a tokenizer to every format tokviz writes, each export complete or refused with the reason.

One export can be several files, and they are written together or not at all
(:class:`tokviz.core.io.outputs.OutputWriter`):

- ``model``: the tokviz model file (settings, merge history and provenance travel with it).
- ``hf``: ``tokenizer.json``. Given a folder (or a file named ``tokenizer.json``), the folder also
  gets ``tokenizer_config.json`` and ``special_tokens_map.json``, so that
  ``AutoTokenizer.from_pretrained(folder)`` knows the class, ``eos_token`` and the special tokens.
- ``gpt2``: a folder with ``vocab.json`` + ``merges.txt`` and the same two config files. Those two
  files cannot say how text is cut into chunks: every reader applies GPT-2's pattern. So for a
  model trained with any other pre-tokenizer (``cl100k``, ``none``, a custom regex) the folder
  also gets ``tokenizer.json`` (which holds the pattern), its config names a class that reads
  that file, and the export says so: a folder never tokenizes differently without a word. The
  same holds for a model with a normalizer (``nfkc``), which the two files cannot express either.
  When tokenizer.json cannot hold the pattern either, the export is refused with the reason.
- ``tiktoken``: the ``.tiktoken`` rank file and its sidecar ``<file>.json`` with the pattern and
  the special tokens (:mod:`tokviz.core.formats.tiktoken_sidecar`), which tiktoken needs passed
  in; the notes show the three lines of Python that do it. tiktoken runs no normalizer, so a
  model with one is refused.
- ``spm``: a SentencePiece model's ``.model`` file as it is. Its ``hf`` export is a tokenizer.json
  made from the model (:mod:`tokviz.core.formats.spm_convert`).
- ``bert``: a folder with BERT's ``vocab.txt`` and the two config files, for a WordPiece model
  whose pipeline is BERT's (:mod:`tokviz.core.formats.wordpiece_vocab`).

Exports to the same folder (``--export-gpt2 out --export-hf out/tokenizer.json``) become one
folder output with all the files. :func:`export_problem` says, without writing anything, why a
tokenizer cannot go to a format at all (the GUI greys that format out with the reason).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bpe.merges import MergeStep
from ..bpe.tokenizer import Tokenizer
from ..errors import ExportError
from ..io.outputs import Output
from ..pretok.normalize import Normalizer
from ..pretok.pretokenize import GPT2_PATTERN, Pretokenizer, resolve_pretokenizer
from ._writing import encode_text
from .gpt2_files import GPT2_FILES, gpt2_file_bytes
from .hf_config import CONFIG_FILES, FAST_CLASS, GPT2_CLASS, hf_config_files
from .hf_json import hf_file_bytes
from .hf_verify import pattern_problem
from .model_file import model_file_bytes
from .sentencepiece_file import SentencePieceTokenizer
from .spm_convert import spm_config_files, spm_export_notes, spm_export_problem, spm_tokenizer_json
from .tiktoken_file import parse_tiktoken_file, tiktoken_file_bytes
from .tiktoken_sidecar import sidecar_bytes, sidecar_path, tiktoken_difference, tiktoken_snippet
from .wordpiece_vocab import VOCAB_FILE, bert_files, bert_snippet, bert_vocab_problem

EXPORT_KINDS = ("model", "hf", "gpt2", "tiktoken", "spm", "bert")
EXPORT_LABELS = {
    "model": "tokviz model file",
    "hf": "Hugging Face tokenizer.json",
    "gpt2": "vocab.json + merges.txt folder",
    "tiktoken": ".tiktoken rank file",
    "spm": "SentencePiece .model file",
    "bert": "BERT vocab.txt folder",
}
HF_FILE = "tokenizer.json"
HF_FOLDER_FILES = (HF_FILE, *CONFIG_FILES)

Data = bytes | Mapping[str, bytes]


@dataclass(frozen=True)
class Export:
    """One export a user asks for: a format (one of :data:`EXPORT_KINDS`), where, and how messages name it.

    ``pretokenizer`` and ``normalizer`` are those of the model to be exported (known before
    training starts), because they decide which files a GPT-2 folder needs.
    """

    kind: str
    path: Path
    what: str
    pretokenizer: Pretokenizer
    # The path was given as a folder (ends in "/" or is one): an hf export gets the folder layout.
    folder: bool = False
    normalizer: Normalizer = Normalizer(())

    @classmethod
    def of(
        cls,
        kind: str,
        path: str | os.PathLike[str],
        what: str,
        pretokenizer: str | Pretokenizer,
        normalizer: Normalizer | None = None,
    ) -> Export:
        """An export of ``kind`` to ``path``; a folder path for ``hf`` gets the transformers folder layout."""
        if kind not in EXPORT_KINDS:
            raise ExportError(f"unknown export format {kind!r}; choose one of {', '.join(EXPORT_KINDS)}")
        text = os.fspath(path)
        folder = text.endswith(("/", os.sep)) or os.path.isdir(text)
        return cls(
            kind, Path(text), what, resolve_pretokenizer(pretokenizer), folder, normalizer or Normalizer(())
        )

    @property
    def needs_hf_json(self) -> bool:
        """Whether this export writes a tokenizer.json (hf always; gpt2 when vocab/merges cannot hold
        the pattern or the normalizer)."""
        return self.kind == "hf" or (
            self.kind == "gpt2" and not gpt2_holds(self.pretokenizer, self.normalizer)
        )

    def outputs(self) -> list[Output]:
        """The files and folders this export writes (a ``.tiktoken`` file and its sidecar are two)."""
        if self.kind == "gpt2":
            files = (*GPT2_FILES, *CONFIG_FILES) + ((HF_FILE,) if self.needs_hf_json else ())
            return [Output.folder(self.path, self.what, files)]
        if self.kind == "bert":
            return [Output.folder(self.path, self.what, (VOCAB_FILE, *CONFIG_FILES))]
        if self.kind == "hf":
            folder = self.hf_folder
            if folder is not None:
                return [Output.folder(folder, self.what, HF_FOLDER_FILES)]
            return [Output.file(self.path, self.what)]
        if self.kind == "tiktoken":
            return [
                Output.file(self.path, self.what),
                Output.file(sidecar_path(self.path), f"{self.what} sidecar"),
            ]
        return [Output.file(self.path, self.what)]

    @property
    def hf_folder(self) -> Path | None:
        """The folder an ``hf`` export writes with its config files, or ``None`` for a lone file."""
        if self.folder:
            return self.path
        return self.path.parent if self.path.name == HF_FILE else None

    def notes(self) -> list[str]:
        """What the user must know about this export once it is written (one line each, snippets aside)."""
        pre = self.pretokenizer
        if self.kind == "gpt2" and self.needs_hf_json:
            if not gpt2_holds(pre):
                held = (
                    f"the {pre.name} pre-tokenizer (a reader of those two files alone chunks text like GPT-2)"
                )
            else:
                held = f"the {self.normalizer.name} normalizer (a reader of those two files alone normalizes nothing)"
            return [
                f"{self.what}: vocab.json + merges.txt cannot hold {held}, so the folder also has tokenizer.json "
                "with it; AutoTokenizer.from_pretrained and tokviz read that one"
            ]
        if self.kind == "hf" and self.hf_folder is None:
            return [
                f"{self.what}: only {self.path.name} was written; for AutoTokenizer.from_pretrained "
                "(eos_token and special tokens from tokenizer_config.json) export to a folder or to a file named tokenizer.json"
            ]
        if self.kind == "tiktoken":
            side = sidecar_path(self.path)
            return [
                f"{self.what}: tiktoken needs the pattern and special tokens passed in; they are in {side.name} "
                "(tokviz reads it back). In Python:\n" + tiktoken_snippet(self.path)
            ]
        return []


def gpt2_holds(pre: Pretokenizer, normalizer: Normalizer | None = None) -> bool:
    """Whether vocab.json + merges.txt express ``pre`` and ``normalizer`` (only GPT-2's own pattern
    and no normalizer: readers assume GPT-2's)."""
    return pre.pattern == GPT2_PATTERN and not normalizer


def export_problem(tokenizer: Tokenizer, kind: str) -> str | None:
    """Why ``tokenizer`` cannot be exported as ``kind`` at all, in one sentence, or ``None``.

    Cheap (nothing is rendered): what the format can never hold. A vocabulary that fails a
    format's finer rules (two ids with one text) still fails with :class:`ExportError` on export.
    """
    if tokenizer.assumptions and kind in ("model", "tiktoken"):
        return _unrecorded(tokenizer, f"a {EXPORT_LABELS[kind]}")
    if kind == "bert":
        return bert_vocab_problem(tokenizer)
    if kind == "spm" or isinstance(tokenizer, SentencePieceTokenizer):
        return _sentencepiece_problem(tokenizer, kind)
    if kind == "hf" and library_json(tokenizer) is not None:
        return None  # the library's own file holds every step it runs (normalizer, pattern, model)
    if tokenizer.replay_note:
        return (
            f"the ids of {tokenizer.name} do not come from byte-level BPE merges alone ({tokenizer.replay_note}), "
            f"and a {EXPORT_LABELS[kind]} holds only those"
        )
    if type(tokenizer) is not Tokenizer and tokenizer.merge_count == 0 and tokenizer.vocab_size > 256:
        return f"{tokenizer.name} is not a byte-level BPE vocabulary, and a {EXPORT_LABELS[kind]} holds only those"
    if kind in ("hf", "gpt2"):
        pre = tokenizer.pretokenizer
        if kind == "hf" or not gpt2_holds(pre):
            problem = pattern_problem(pre)
            if problem is not None:
                return f"tokenizer.json cannot hold the {pre.name} pre-tokenizer: {problem}"
    return _tiktoken_problem(tokenizer) if kind == "tiktoken" else None


def _tiktoken_problem(tokenizer: Tokenizer) -> str | None:
    """Why a byte-level BPE ``tokenizer`` cannot be a ``.tiktoken`` file: a normalizer, or gaps in its ranks."""
    if tokenizer.normalizer:
        return "a .tiktoken file cannot carry a normalizer"
    specials = set(tokenizer.special_tokens.values())
    ids = sorted(i for i in tokenizer.vocab if i not in specials)
    if ids != list(range(len(ids))):
        return "a .tiktoken file's ranks are the ids 0..N-1, and this vocabulary's ordinary ids have gaps"
    return None


def _sentencepiece_problem(tokenizer: Tokenizer, kind: str) -> str | None:
    """Why ``tokenizer`` cannot go to ``kind`` when either is SentencePiece's (the ``.model`` file
    holds only SentencePiece models; a SentencePiece model goes to ``spm`` and ``hf`` only)."""
    if not isinstance(tokenizer, SentencePieceTokenizer):
        return f"a .model file holds a SentencePiece model, and {tokenizer.name} is not one"
    if tokenizer.extra_specials and kind == "spm":
        added = ", ".join(tokenizer.extra_specials)
        return f"a .model file cannot hold the special tokens tokviz added ({added}); export to hf instead"
    if kind == "hf":
        problem = spm_export_problem(_model_bytes(tokenizer))
        return None if problem is None else f"tokenizer.json cannot give sentencepiece's ids: {problem}"
    if kind == "spm":
        return None
    return (
        f"the ids of {tokenizer.name} do not come from byte-level BPE merges ({tokenizer.replay_note}), "
        f"and a {EXPORT_LABELS[kind]} holds only those; export to hf or spm"
    )


def _model_bytes(tokenizer: SentencePieceTokenizer) -> bytes:
    """The ``.model`` file's bytes as the library holds them."""
    return bytes(tokenizer.sp.serialized_model_proto())


def library_json(tokenizer: Tokenizer) -> str | None:
    """The ``tokenizers`` library's own tokenizer.json for a tokenizer it encodes whose ids tokviz's
    BPE cannot give (a normalizer tokviz does not run, a WordPiece model ...) or that has a
    normalizer, else ``None``: an hf export then writes that file, which keeps every step (Qwen2's
    NFC and its pattern travel into the export)."""
    from .hf_engine import HFTokenizer

    if not isinstance(tokenizer, HFTokenizer) or (tokenizer.replay_note is None and not tokenizer.normalizer):
        return None
    return str(tokenizer.hf.to_str(pretty=True))


def assumption_problem(export: Export, tokenizer: Tokenizer) -> str | None:
    """Why ``export`` would turn what tokviz assumed about ``tokenizer`` into a stated fact, or ``None``.

    A folder export records the assumptions in its ``tokenizer_config.json`` (tokviz reads them
    back); a lone tokenizer.json, a rank file or a model file has no place for them, so it is refused
    until the user gives what was assumed (``--pattern``, ``--special-token``).
    """
    if not tokenizer.assumptions or export.kind == "gpt2" or (export.kind == "hf" and export.hf_folder):
        return None
    return _unrecorded(tokenizer, export.path.name)


def _unrecorded(tokenizer: Tokenizer, where: str) -> str:
    return (
        f"tokviz assumed about {tokenizer.name}: {'; '.join(tokenizer.assumptions)}, and {where} "
        "cannot record that; give what was assumed (--pattern, --special-token) or export to a folder "
        "(--to hf or gpt2), whose tokenizer_config.json records it"
    )


def format_of_another_kind(tokenizer: Tokenizer, kind: str) -> bool:
    """Whether ``kind`` is the format of another kind of tokenizer altogether (a ``.model`` file holds
    only SentencePiece models, ``vocab.txt`` only WordPiece ones): greyed out without a word."""
    if kind == "spm":
        return not isinstance(tokenizer, SentencePieceTokenizer)
    if kind == "bert":
        return getattr(tokenizer, "model_type", None) != "WordPiece"
    return False


def formats_for(tokenizer: Tokenizer) -> dict[str, str | None]:
    """Each export format and why ``tokenizer`` cannot go to it (``None``: it can)."""
    return {kind: export_problem(tokenizer, kind) for kind in EXPORT_KINDS}


@dataclass
class ModelExtras:
    """What only the tokviz model file holds: training settings, merge history and provenance."""

    settings: Mapping[str, Any] = field(default_factory=dict)
    history: Sequence[MergeStep] = ()
    provenance: Mapping[str, Any] = field(default_factory=dict)


def plan_outputs(exports: Sequence[Export]) -> list[Output]:
    """The outputs of all ``exports``, folder outputs into one folder merged into one (all its files)."""
    return [output for output, _ in _merged(exports)]


def render_exports(
    exports: Sequence[Export],
    tokenizer: Tokenizer,
    extras: ModelExtras | None = None,
    sample: Iterable[str] = (),
) -> list[tuple[Output, Data]]:
    """Render every output of ``exports`` for ``tokenizer``: ``(output, bytes or {name: bytes})``.

    Nothing is written; a format that cannot hold the vocabulary raises :class:`ExportError`
    here, before anything is. ``sample`` is text (training text) tokenizer.json is verified on.
    """
    _refuse_unexportable(exports, tokenizer)
    renderer = _Renderer(tokenizer, extras or ModelExtras(), list(sample))
    return [(output, renderer.render(output, export)) for output, export in _merged(exports)]


def _refuse_unexportable(exports: Sequence[Export], tokenizer: Tokenizer) -> None:
    """:class:`ExportError` for the first export whose format can never hold ``tokenizer``."""
    for export in exports:
        problem = export_problem(tokenizer, export.kind) if export.kind != "model" else None
        problem = problem or assumption_problem(export, tokenizer)
        if problem is not None:
            raise ExportError(f"cannot write {export.what}: {problem}")


@dataclass
class _Renderer:
    """Renders outputs' bytes, each format once (a folder and a lone file share one tokenizer.json)."""

    tokenizer: Tokenizer
    extras: ModelExtras
    sample: list[str]
    cache: dict[str, Any] = field(default_factory=dict)

    def render(self, output: Output, export: Export) -> Data:
        """The bytes of one output (``{name: bytes}`` for a folder)."""
        tok = self.tokenizer
        if output.is_folder:
            return {name: self.file_bytes(name, output.files) for name in output.files}
        if export.kind == "model":
            return model_file_bytes(tok, self.extras.settings, self.extras.history, self.extras.provenance)
        if export.kind == "hf":
            return self.file_bytes(HF_FILE, ())
        if export.kind == "spm" and isinstance(tok, SentencePieceTokenizer):
            return _model_bytes(tok)
        rank_file: bytes = self.once("tiktoken", lambda: tiktoken_file_bytes(tok))
        return rank_file if output.path == export.path else sidecar_bytes(tok, rank_file)

    def file_bytes(self, name: str, folder_files: Sequence[str]) -> bytes:
        """One file of a folder export (or a lone tokenizer.json)."""
        tok = self.tokenizer
        if name in GPT2_FILES:
            return self.once("gpt2", lambda: gpt2_file_bytes(tok))[name]
        if VOCAB_FILE in folder_files:
            return self.once("bert", lambda: bert_files(tok))[name]
        if isinstance(tok, SentencePieceTokenizer):
            model, extra = _model_bytes(tok), tok.extra_specials
            if name == HF_FILE:
                return self.once("spm", lambda: encode_text(spm_tokenizer_json(model, extra) + "\n", HF_FILE))
            return self.once("spm-config", lambda: spm_config_files(model, extra))[name]
        if name == HF_FILE:
            native = library_json(tok)
            if native is not None:
                return encode_text(native + "\n", HF_FILE)
            return self.once("hf", lambda: hf_file_bytes(tok, sample=self.sample))
        gpt2 = "vocab.json" in folder_files and gpt2_holds(tok.pretokenizer, tok.normalizer)
        cls = GPT2_CLASS if gpt2 else FAST_CLASS
        return self.once(f"config:{cls}", lambda: hf_config_files(tok, cls))[name]

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``'s result, made on the first call for ``key`` only."""
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


def export_warnings(exports: Sequence[Export], tokenizer: Tokenizer, sample: Iterable[str] = ()) -> list[str]:
    """Problems found by loading a rendered export with its reference library (tiktoken for ``.tiktoken``)."""
    warnings: list[str] = []
    for export in exports:
        if export.kind == "hf" and isinstance(tokenizer, SentencePieceTokenizer):
            warnings += [f"{export.what}: {note}" for note in spm_export_notes(_model_bytes(tokenizer))]
        if export.kind == "bert":
            warnings.append(
                f"{export.what}: tokenizers reads it as "
                + bert_snippet(tokenizer, str(export.path).rstrip("/\\"))
                + " (tokenizers.implementations)"
            )
        if export.kind == "tiktoken":
            ranks = parse_tiktoken_file(tiktoken_file_bytes(tokenizer), export.path.name)
            difference = tiktoken_difference(tokenizer, ranks, sample)
            if difference is not None:
                warnings.append(f"{export.what}: {difference}; tokviz reads the file back exactly")
    return warnings


def _merged(exports: Sequence[Export]) -> list[tuple[Output, Export]]:
    """Each output with the export it belongs to; folder outputs of one folder joined into one."""
    out: list[tuple[Output, Export]] = []
    folders: dict[str, int] = {}
    for export in exports:
        for output in export.outputs():
            if not output.is_folder:
                out.append((output, export))
                continue
            key = os.path.realpath(output.path)
            if key not in folders:
                folders[key] = len(out)
                out.append((output, export))
                continue
            index = folders[key]
            first, owner = out[index]
            files = tuple(dict.fromkeys((*first.files, *output.files)))
            out[index] = (Output.folder(first.path, f"{first.what} and {output.what}", files), owner)
    return out


def extras_of(tokenizer: Tokenizer) -> ModelExtras:
    """What a tokenizer opened from a tokviz model file carried (settings, history, provenance), else nothing."""
    from .model_file import model_details
    from .registry import merge_history

    details = model_details(tokenizer)
    if details is None:
        return ModelExtras(history=merge_history(tokenizer))
    return ModelExtras(details.settings, merge_history(tokenizer), details.provenance)


def write_export(
    tokenizer: Tokenizer,
    kind: str,
    path: str | os.PathLike[str],
    *,
    what: str | None = None,
    extras: ModelExtras | None = None,
    inputs: Sequence[str | os.PathLike[str]] = (),
) -> list[str]:
    """Export ``tokenizer`` as ``kind`` to ``path`` (all its files or none); returns what the user must know.

    The outputs are checked first (never one of ``inputs``, a device or a read-only file), and a
    format that cannot hold the tokenizer raises :class:`ExportError` before anything is written.
    ``extras`` default to what the tokenizer's model file carried (:func:`extras_of`).
    """
    from ..io.outputs import write_outputs

    export = Export.of(
        kind, path, what or EXPORT_LABELS.get(kind, kind), tokenizer.pretokenizer, tokenizer.normalizer
    )
    rendered = render_exports([export], tokenizer, extras if extras is not None else extras_of(tokenizer))
    write_outputs(rendered, inputs)
    return export.notes() + export_warnings([export], tokenizer)
