"""Checking an exported ``tokenizer.json`` before it is written: it must encode exactly like tokviz.

Hugging Face ``tokenizers`` runs the Split pattern with Oniguruma, which reads some of Python
``regex``'s syntax differently: ``\\h`` is a hex digit there (horizontal space here), scoped
flags such as ``(?s:...)`` do not exist ("undefined group option") and ``(?m:...)`` means dot-all,
and a pattern that can match the empty string (``x*``) splits text another way. Those are refused
by reading the pattern, with the reason; then the file is loaded with ``tokenizers`` and must give
tokviz's ids on a hard built-in sample (mixed scripts, emoji, whitespace runs, digits) and on any
sample of the training text the caller passes.
"""

from __future__ import annotations

from collections.abc import Iterable

import regex

from ..bpe.tokenizer import Tokenizer
from ..errors import ExportError
from ..pretok.pretokenize import GPT2_PATTERN, Pretokenizer

# Text where chunking rules differ most: scripts, emoji sequences, whitespace and digit runs,
# contractions, line ends of every kind, a BOM and a combining mark.
HARD_SAMPLE: tuple[str, ...] = (
    "Hello, world! It's 2024 and we're testing tokenizers' edge cases: 12345678901234567890.",
    "  leading spaces,\ttabs\t\tand   runs of    spaces   \n\n\nthree newlines\r\nCRLF\rCR end  ",
    "Ελληνικά, русский текст, עברית, العربية, हिन्दी, 中文字符，日本語のテキスト、한국어 텍스트.",
    "Emoji: 😀👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ e\u0301 cafe\u0301 \ufeffBOM, zero\u200bwidth, nbsp\u00a0here.",
    'x = f(a_b, c-d) * 3.14e-10; if (x >= 0x1F) { return "ok"; } // 1,000,000 or 1.000.000',
    "I'VE DON'T he'll she'd THEY'RE we've you'll 's 't 'm 'd 'll 're 've",
    "tabs\tand\vvertical\fform feeds\x85next line\u2028line sep\u2029para sep\x00nul",
    "aaaa bbbb xxxxx    \n \n  \t \t 0 00 000 0000 ",
    "",
)

_BAD_ESCAPES = {
    "\\h": "\\h means a hex digit in Oniguruma (HF's regex engine) but horizontal space in tokviz",
    "\\H": "\\H means a non-hex-digit in Oniguruma (HF's regex engine) but non-horizontal-space in tokviz",
}
_FLAG_GROUP = regex.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?[:)]")
_FLAG_REASONS = {
    "s": "Oniguruma (HF's regex engine) has no (?s) flag and refuses it (undefined group option)",
    "m": "(?m) means dot-all in Oniguruma (HF's regex engine) but multi-line anchors in tokviz",
}
_SAME_FLAGS = frozenset("ix")


def pattern_problem(pre: Pretokenizer) -> str | None:
    """Why ``pre``'s pattern cannot be exported to HF with the same meaning, or ``None``.

    Reads the pattern only (no ``tokenizers`` needed): escapes Oniguruma reads otherwise,
    scoped or global flags it lacks or reads otherwise, and a pattern that can match nothing.
    """
    pattern = pre.pattern
    if pattern is None or pattern == GPT2_PATTERN:
        return None
    i = 0
    while i < len(pattern):  # every escape, inside a character set or not
        if pattern[i] == "\\":
            if pattern[i : i + 2] in _BAD_ESCAPES:
                return _BAD_ESCAPES[pattern[i : i + 2]]
            i += 2
        else:
            i += 1
    for match in _FLAG_GROUP.finditer(pattern):
        if match.start() > 0 and _escaped(pattern, match.start()):
            continue
        for flag in (match.group(1) or "") + (match.group(2) or ""):
            if flag in _SAME_FLAGS:
                continue
            return _FLAG_REASONS.get(
                flag, f"the inline flag (?{flag}) is read differently or not at all by Oniguruma"
            )
    compiled = regex.compile(pattern)
    if compiled.search("") is not None or any(
        m.start() == m.end() for text in HARD_SAMPLE for m in compiled.finditer(text)
    ):
        return (
            "the pattern can match the empty string (like x* or a*), and HF's Split then cuts "
            "text differently from tokviz; make every branch match at least one character"
        )
    return None


def _escaped(pattern: str, index: int) -> bool:
    """True when the character at ``index`` follows an odd number of backslashes."""
    count = 0
    while index - count - 1 >= 0 and pattern[index - count - 1] == "\\":
        count += 1
    return count % 2 == 1


# Text every normalizer changes: a ligature, full-width digits and letters, a decomposed and a
# composed accent, a dotted capital I, a final sigma, Hangul jamo, compatibility characters.
NORMALIZER_SAMPLE = "ﬁne ﬂow １２３ ＡＢＣ cafe\u0301 café İstanbul ΟΔΟΣ \u1100\u1161\u11a8 ½ ㎏ ℌ ²"


def verify_hf_export(tokenizer: Tokenizer, document: str, sample: Iterable[str] = ()) -> None:
    """Refuse (``ExportError``) a ``tokenizer.json`` text that HF would not encode like ``tokenizer``.

    ``document`` is the JSON about to be written; ``sample`` adds text to compare on (a sample of
    the training corpus) besides :data:`HARD_SAMPLE`. Without the ``tokenizers`` library only the
    pattern is checked. Nothing is written here: the caller writes only after this returns.
    """
    problem = pattern_problem(tokenizer.pretokenizer)
    if problem is not None:
        raise ExportError(
            f"cannot write tokenizer.json: the pre-tokenizer pattern {_clip(tokenizer.pretokenizer.pattern)} "
            f"would not split text the same way in Hugging Face tokenizers: {problem}"
        )
    try:
        from tokenizers import Tokenizer as HFTokenizer
    except ImportError:  # an optional check: the pattern rules above still apply
        return
    try:
        hf = HFTokenizer.from_str(document)
    except Exception as exc:  # the library raises plain Exception for a file it cannot read
        raise ExportError(
            f"cannot write tokenizer.json: Hugging Face tokenizers cannot load it ({_first_line(exc)})"
        ) from None
    texts = [*HARD_SAMPLE, *sample, _vocabulary_text(tokenizer)]
    if tokenizer.normalizer:
        texts.append(NORMALIZER_SAMPLE)
    for text in texts:
        ours = tokenizer.encode(text)
        theirs = hf.encode(text, add_special_tokens=False).ids
        if ours != theirs:
            at = next((k for k, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), None)
            where = f"token {at}" if at is not None else f"length {len(ours)} vs {len(theirs)}"
            raise ExportError(
                "cannot write tokenizer.json: Hugging Face tokenizers would encode it differently from "
                f"tokviz ({_clip(text)} differs at {where}); the export would not be faithful"
            )


def _vocabulary_text(tokenizer: Tokenizer, limit: int = 400) -> str:
    """Some of the vocabulary's own (non-special) tokens run together, so merges get exercised."""
    specials = set(tokenizer.special_tokens.values())
    pieces = [tokenizer.vocab[i] for i in sorted(tokenizer.vocab)[256:] if i not in specials][:limit]
    return b" ".join(pieces).decode("utf-8", errors="replace")


def _clip(text: str | None, limit: int = 40) -> str:
    text = repr(text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
