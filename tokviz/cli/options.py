"""Options several commands share, and reading what they name: the input text, tokenizers, pictures.

Each ``add_*`` function adds one group of options to a command's parser; the functions next to it
turn the parsed values into what the command works on, with the same messages everywhere.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from tokviz.cli.command import UsageError

if TYPE_CHECKING:
    from tokviz.core.bpe.tokenizer import Tokenizer


class ArgumentAdder(Protocol):
    """A parser or an argument group: anything options can be added to."""

    def add_argument(self, *name_or_flags: str, **kwargs: Any) -> argparse.Action: ...


# ----------------------------------------------------------------------------- adding options
def add_special(p: ArgumentAdder) -> None:
    """``--special-token T`` (repeatable)."""
    p.add_argument(
        "--special-token",
        action="append",
        default=[],
        metavar="T",
        help="a special token (repeatable); it is never split and gets one id",
    )


def add_file_options(p: ArgumentAdder, special: bool = True) -> None:
    """``--pattern REGEX`` and ``--special-token TEXT[=ID]`` (repeatable) for a tokenizer file.

    A ``.tiktoken`` rank file (and a vocab.json + merges.txt pair) holds no pattern or special
    tokens; these say what they are instead of tokviz assuming GPT-2's (see :func:`load_tokenizer`).
    ``special`` is False for a command that already has ``--special-token``.
    """
    p.add_argument(
        "--pattern",
        metavar="REGEX",
        help="the pre-tokenizer of a .tiktoken or vocab/merges file: a regex, or gpt2, cl100k, o200k "
        "(default: the file's sidecar, OpenAI's published pattern, else GPT-2's, said as assumed)",
    )
    if special:
        p.add_argument(
            "--special-token",
            action="append",
            default=[],
            metavar="TEXT[=ID]",
            help="a special token (repeatable): never split, one id; =ID gives a rank file's token its id",
        )


def add_specials_in_text(p: ArgumentAdder) -> None:
    """``--specials-in-text special|text``: how text equal to a special token's text is encoded."""
    p.add_argument(
        "--specials-in-text",
        choices=("special", "text"),
        default="special",
        help="text equal to a special token's text (<|endoftext|>): 'special' reads it as that token's "
        "one id, as tiktoken's allowed_special='all' and the tokenizers library do (default); "
        "'text' encodes it as ordinary text (tiktoken's encode_ordinary)",
    )


def reading_specials(tokenizers: Sequence[Tokenizer], args: argparse.Namespace) -> list[Tokenizer]:
    """``tokenizers`` reading special-token text as ``--specials-in-text`` says (one rule for every command)."""
    from tokviz.core.bpe.specials_text import reading_specials as read

    mode = getattr(args, "specials_in_text", "special")
    return [read(tok, mode) for tok in tokenizers]


def specials_note(tokenizers: Sequence[Tokenizer], args: argparse.Namespace) -> str:
    """The note line every table carries: "special tokens in text: parsed as specials" (or as text)."""
    from tokviz.core.bpe.specials_text import specials_note as note

    return note(getattr(args, "specials_in_text", "special"), tokenizers)


def parse_special_token(value: str) -> tuple[str, int | None]:
    """``TEXT=ID`` -> (TEXT, ID); ``TEXT`` (or a TEXT whose ``=`` is not followed by digits) -> (TEXT, None)."""
    text, sep, number = value.rpartition("=")
    if sep and text and number.isascii() and number.isdigit():
        return text, int(number)
    return value, None


def add_picture_options(p: ArgumentAdder) -> None:
    """``--scale`` and ``--theme`` for the commands that draw pictures (``p``: a parser or an argument group)."""
    p.add_argument(
        "--scale",
        type=float,
        default=None,
        metavar="X",
        help="PNG pixels per point: 1, 2 (default) or 3 for sharp slides",
    )
    p.add_argument("--theme", choices=("light", "dark"), default=None, help="colours (default: light)")


def add_tie_break(p: ArgumentAdder, default: str | None = "lexicographic") -> None:
    """``--tie-break``: which pair wins among equal counts when training."""
    p.add_argument(
        "--tie-break",
        choices=("lexicographic", "first-seen"),
        default=default,
        help="which pair wins among equal counts (default: lexicographic)",
    )


def add_normalizer(p: ArgumentAdder, default_help: str = "none") -> None:
    """``--normalizer SPEC``: none, nfc, nfkc, lowercase, strip-accents, or several joined by ``+``.

    The parsed value is the spec in its canonical form (``"nfkc+lowercase"``), or None when the
    option is not given: byte-level BPE then normalizes nothing, and a library trainer keeps its own
    default (``default_help`` says which, in the help line).
    """
    p.add_argument(
        "--normalizer",
        type=normalizer_spec,
        default=None,
        metavar="SPEC",
        help="normalize text before it is cut: none, nfc, nfkc, lowercase, strip-accents, or several "
        f"joined by + (nfkc+lowercase), applied in that order as HF tokenizers does (default: {default_help})",
    )


def normalizer_spec(value: str) -> str:
    """``value`` as a checked normalizer spec in its canonical form (argparse's ``type`` of ``--normalizer``)."""
    from tokviz.core.errors import InvalidArgument
    from tokviz.core.pretok.normalize import parse_normalizer

    try:
        return parse_normalizer(value).name
    except InvalidArgument as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_tokenizer(p: ArgumentAdder, default: str) -> None:
    """``--tokenizer NAME|PATH`` (one tokenizer, with a default)."""
    p.add_argument(
        "--tokenizer",
        default=default,
        metavar="NAME|PATH",
        help=f"bytes, gpt2, cl100k, o200k, characters, words or a tokenizer file or folder (default: {default})",
    )


def add_tokenizers(p: argparse.ArgumentParser, about: str, defaults: Sequence[str] = ()) -> None:
    """``--tokenizer NAME|PATH``, repeatable: the tokenizers a command measures side by side.

    ``defaults`` stand in when none is given (without any, the option is required);
    :func:`load_tokenizers` reads the option with them.
    """
    shown = f" (default: {', '.join(defaults)})" if defaults else ""
    p.add_argument(
        "--tokenizer", action="append", required=not defaults, metavar="NAME|PATH", help=about + shown
    )
    p.set_defaults(default_tokenizers=tuple(defaults))


def add_words_corpus(p: ArgumentAdder) -> None:
    """``--words-corpus FILE`` (repeatable): what ``--tokenizer words`` builds its vocabulary from."""
    p.add_argument(
        "--words-corpus",
        action="append",
        default=[],
        metavar="FILE",
        help="build the 'words' tokenizer's vocabulary from these UTF-8 files (repeatable; "
        "default: from the input text itself, so no word is unknown)",
    )


def add_input(p: ArgumentAdder, several: bool = False) -> None:
    """The input text: a ``FILE`` argument (read with :func:`input_text`) or ``--text``.

    With ``several``, ``FILE...`` (``args.files``): files or folders, each measured apart.
    """
    if several:
        p.add_argument(
            "files",
            nargs="*",
            metavar="FILE",
            help="text files ('-' for standard input) or folders (each the total over its text files)",
        )
    else:
        p.add_argument("file", nargs="?", metavar="FILE", help="a UTF-8 text file ('-' for standard input)")
    p.add_argument("--text", metavar="T", help=f"use this text instead of {'files' if several else 'a file'}")


# ----------------------------------------------------------------------------- reading them
# The largest input text a command reads whole (encode, compare): far past any text one looks at.
MAX_INPUT_BYTES = 1024 * 2**20


def read_text_file(path: str) -> str:
    """Read a whole UTF-8 file ('-' is standard input); invalid UTF-8 names the byte offset.

    Reads at most :data:`MAX_INPUT_BYTES`, and only from a regular file or standard input.
    """
    from tokviz.core.errors import CorpusError
    from tokviz.core.io.filekind import ReadProblem, megabytes, read_regular_file

    if path == "-":
        data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        path = "<stdin>"
        if len(data) > MAX_INPUT_BYTES:
            raise CorpusError(f"standard input is larger than {megabytes(MAX_INPUT_BYTES)}", path)
    else:
        # Only a regular file: a FIFO would block forever and /dev/zero never ends.
        try:
            data = read_regular_file(path, MAX_INPUT_BYTES)
        except ReadProblem as exc:
            if exc.reason == "does not exist":
                raise CorpusError(f"{path}: No such file or directory", path) from None
            raise CorpusError(f"the input {path} {exc.reason}; give a regular text file", path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(f"{path} is not valid UTF-8 (byte offset {exc.start})", path, exc.start) from None


def input_text(args: argparse.Namespace) -> str:
    """The text named by :func:`add_input`'s options: exactly one of ``--text`` and ``FILE``.

    A FILE that does not exist is often text typed where a path goes (``tokviz render "some
    text"``): the message then says how to give text.
    """
    from tokviz.core.errors import CorpusError

    if args.text is not None and args.file is not None:
        raise UsageError("give either --text or FILE, not both")
    if args.text is None and args.file is None:
        raise UsageError("give the input as --text TEXT or as a FILE")
    if args.text is not None:
        return str(args.text)
    try:
        return read_text_file(args.file)
    except CorpusError as exc:
        looks_like_text = any(c.isspace() for c in args.file) or not any(c in args.file for c in "./\\")
        if looks_like_text and str(exc).endswith("No such file or directory"):
            raise CorpusError(
                f"{args.file}: no such file (to give the text itself: --text {shlex.quote(args.file)})",
                args.file,
            ) from None
        raise


def is_words(spec: str) -> bool:
    """Whether ``spec`` names the lecture's word-level tokenizer (built per input, not bundled)."""
    return spec.strip().lower() == "words"


def words_tokenizer(corpus_files: Sequence[str], texts: Sequence[str] | None) -> Tokenizer:
    """The ``words`` tokenizer built from ``corpus_files`` if given, else from ``texts``.

    With neither, the bundled default (tokviz's word list) is used.
    """
    from tokviz.core.bpe.lecture_tokenizers import WordTokenizer
    from tokviz.core.formats.registry import load_tokenizer as load

    if corpus_files:
        texts = [read_text_file(path) for path in corpus_files]
        named = corpus_files[0] if len(corpus_files) == 1 else f"{len(corpus_files)} corpus files"
        return WordTokenizer.from_text(texts, corpus=named)
    if texts is not None:
        return WordTokenizer.from_text(list(texts), corpus="the input text")
    return load("words")


def load_tokenizer(
    spec: str,
    special_tokens: Sequence[str] = (),
    *,
    pattern: str | None = None,
    words_corpus: Sequence[str] = (),
    words_texts: Sequence[str] | None = None,
) -> Tokenizer:
    """Load a tokenizer by name or path, adding ``special_tokens`` to the ones it already has.

    ``special_tokens`` are ``TEXT`` or ``TEXT=ID`` (:func:`parse_special_token`); a tokenizer file
    is loaded with them and ``pattern`` (a built-in keeps its own pattern and takes texts only).
    ``words`` is built from ``words_corpus`` files, else from ``words_texts`` (the input being
    encoded), else from the bundled default; see :func:`words_tokenizer`.
    """
    from tokviz.core.formats.registry import is_builtin
    from tokviz.core.formats.registry import load_tokenizer as load

    parsed = dict(parse_special_token(s) for s in special_tokens if s)
    if pattern is not None:
        from tokviz.core.pretok.regex_bounds import check_pattern_bounds

        check_pattern_bounds(pattern, "the --pattern regex")
    if not is_words(spec) and not is_builtin(spec) and (pattern is not None or parsed):
        return load(spec, pattern=pattern, special_tokens=parsed or None)
    if any(v is not None for v in parsed.values()):
        raise UsageError(f"{spec} is built in: --special-token TEXT=ID gives ids only in a tokenizer file")
    special_tokens = list(parsed)
    tok = words_tokenizer(words_corpus, words_texts) if is_words(spec) else load(spec)
    extra = [s for s in dict.fromkeys(special_tokens) if s and s not in tok.special_tokens]
    if not extra:
        return tok
    from tokviz.core.formats import load_warnings, remember_warnings

    return remember_warnings(tok.with_special_tokens(extra), load_warnings(tok))


def tokenizer_specs(args: argparse.Namespace) -> list[str]:
    """The tokenizers :func:`add_tokenizers`' option names (or its defaults), each once, in order."""
    return list(dict.fromkeys(args.tokenizer or args.default_tokenizers))


class LoadedTokenizers(NamedTuple):
    """What :func:`load_tokenizers` returns: the specs as given (each once), the tokenizers as loaded
    (what tokviz assumed about each stays with them) and the same reading special-token text as
    ``--specials-in-text`` says (what the command encodes with)."""

    specs: list[str]
    loaded: list[Tokenizer]
    reading: list[Tokenizer]


def load_tokenizers(args: argparse.Namespace, words_texts: Sequence[str] | None = None) -> LoadedTokenizers:
    """The tokenizers of :func:`add_tokenizers`' option, each spec once, loaded as :func:`load_tokenizer`
    loads them with the command's ``--special-token``, ``--pattern`` and ``--words-corpus`` (those
    it has), ``words`` built from ``words_texts`` when no corpus is named."""
    specs = tokenizer_specs(args)
    loaded = [
        load_tokenizer(
            spec,
            getattr(args, "special_token", ()),
            pattern=args.pattern,
            words_corpus=getattr(args, "words_corpus", ()),
            words_texts=words_texts,
        )
        for spec in specs
    ]
    return LoadedTokenizers(specs, loaded, reading_specials(loaded, args))


def check_image_path(flag: str, output: str, scale: float | None) -> None:
    """The picture file must be a PNG or an SVG, and ``--scale`` (PNG pixels) sensible and for a PNG."""
    suffix = os.path.splitext(output)[1].lower()
    if suffix not in (".png", ".svg"):
        raise UsageError(f"{flag} writes .png or .svg files, not {suffix or 'a file without an extension'}")
    if scale is not None and not 0.25 <= scale <= 8:
        raise UsageError("--scale must be between 0.25 and 8")
    if scale is not None and suffix == ".svg":
        raise UsageError("--scale applies to PNG files; an SVG drawing has no pixels")


def check_drawing_options(
    flag: str, output: str | None, scale: float | None, shaping: Mapping[str, object], what: str = "picture"
) -> None:
    """Options that shape a picture (``shaping``: each flag and its value, None or False when not
    given) need ``flag``, the option that asks for one; the picture file must be a PNG or an SVG."""
    if output:
        check_image_path(flag, output, scale)
        return
    given = [f for f, value in shaping.items() if value is not None and value is not False]
    if given:
        verb = "applies" if len(given) == 1 else "apply"
        raise UsageError(f"{', '.join(given)} {verb} only to the {what}: add {flag} OUT.png or OUT.svg")


def check_picture_options(args: argparse.Namespace, flag: str, output: str | None) -> None:
    """``--scale`` and ``--theme`` need an image to draw; the image must be a PNG or an SVG."""
    check_drawing_options(flag, output, args.scale, {"--scale": args.scale, "--theme": args.theme})
