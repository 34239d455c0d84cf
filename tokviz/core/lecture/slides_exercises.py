"""Two of the lecture's exercises worked on a slide: the exchange rate of five samples, and a broken
round trip.

``samples`` (exercise 1) measures each bundled sample with each tokenizer: bytes per token, and
the attention multiplier against the byte baseline, ``(bytes / tokens)²``: how many times smaller
the n × n score matrix is than with one token per byte. It names each tokenizer's worst sample
and the ratio between its best and worst. Text typed on the slide (E) becomes a row of its own,
shown with its string.

``broken`` (exercise 3) finds the first prefix of the slide's ids whose naive decode,
``b"".join(bytes of each id).decode("utf-8")``, raises: a merge boundary inside a character. It
shows the error, the fix (decode the bytes of the whole list once), and the held-back streaming
decoder (:class:`~tokviz.core.bpe.stream.StreamingDecoder`) on the same prefix, which prints the
complete characters and waits for the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..bpe.stream import StreamingDecoder
from ..bpe.tokenizer import Tokenizer
from ..io.resources import resource_path
from ..pretok.bytes_ import hex_bytes
from .blocks import Block, Built, ChipRow, SlideInput, Table, Words, edited_text, token_chips

TYPED = "typed"
"""The row name of the text typed on the slide."""


@dataclass(frozen=True)
class Rate:
    """One text measured with one tokenizer."""

    n_bytes: int
    tokens: int

    @property
    def per_token(self) -> float:
        """UTF-8 bytes per token (the lecture's compression ratio)."""
        return self.n_bytes / self.tokens if self.tokens else 0.0

    @property
    def attention(self) -> float:
        """How many times smaller the n × n score matrix is than with one token per byte."""
        return self.per_token**2


def sample_texts(names: Sequence[str]) -> list[tuple[str, str]]:
    """The bundled samples by name (file name without extension), in the order given."""
    folder = resource_path("samples")
    files = {p.stem: p for p in folder.iterdir() if p.is_file()}
    return [(name, files[name].read_text(encoding="utf-8")) for name in names]


def measure(
    texts: Sequence[tuple[str, str]], tokenizers: Sequence[tuple[str, Tokenizer]]
) -> dict[str, dict[str, Rate]]:
    """``{tokenizer: {text name: Rate}}`` for every text and tokenizer."""
    return {
        name: {
            label: Rate(len(text.encode("utf-8", "replace")), len(tok.encode(text))) for label, text in texts
        }
        for name, tok in tokenizers
    }


def extremes(rates: dict[str, Rate]) -> tuple[str, str]:
    """The (best, worst) text by bytes per token; ties go to the first."""
    best = max(rates, key=lambda k: rates[k].per_token)
    worst = min(rates, key=lambda k: rates[k].per_token)
    return best, worst


def _ratio(value: float) -> str:
    return f"{value:,.1f}×"


def samples_slide(s: SlideInput, _step: int) -> Built:
    """Bytes per token and the attention multiplier of each sample (and typed text) per tokenizer."""
    texts = sample_texts([str(x) for x in s.slide.get("samples")])
    typed = edited_text(s)
    if typed is not None:
        texts.append((TYPED, typed))
    named = [(name, tok) for name, tok in s.tokenizers() if name != "bytes"]
    rates = measure(texts, named)
    headers = ["sample", "bytes"]
    for name, _ in named:
        headers += [f"{name} B/tok", "attn ÷"]
    rows = []
    for label, text in texts:
        row = [label, f"{len(text.encode('utf-8', 'replace')):,}"]
        for name, _ in named:
            rate = rates[name][label]
            row += [f"{rate.per_token:.2f}", _ratio(rate.attention)]
        rows.append(tuple(row))
    blocks: list[Block] = []
    if typed is not None:
        blocks.append(Words(f"typed: “{typed}”"))
    blocks.append(Table(tuple(headers), tuple(rows), (False, True) + (True, True) * len(named)))
    figures: dict[str, str] = {}
    for name, _ in named:
        best, worst = extremes(rates[name])
        b, w = rates[name][best], rates[name][worst]
        spread = b.per_token / w.per_token if w.per_token else 0.0
        blocks.append(
            Words(
                f"{name}: worst is {worst} ({w.per_token:.2f} bytes/token), best {best} ({b.per_token:.2f}): "
                f"{spread:.2f}× the text per token, {spread**2:.1f}× the attention work for the same bytes.",
                bullet=True,
            )
        )
        figures[f"{name} worst"] = worst
        figures[f"{name} best/worst"] = f"{spread:.2f}"
        for label, rate in rates[name].items():
            figures[f"{name} {label}"] = f"{rate.per_token:.2f}"
    blocks.append(
        Words(
            "attn ÷: (bytes/token)², how many times smaller the n × n score matrix is than with one token per byte. "
            "A fixed context window holds that much less of the worst text.",
            tone="muted",
        )
    )
    return blocks, figures


def first_split(tok: Tokenizer, ids: Sequence[int]) -> int:
    """The shortest prefix length of ``ids`` whose bytes end inside a character, or 0 if none does."""
    data = b""
    for k, token_id in enumerate(ids, 1):
        data += tok.id_bytes(token_id)
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return k
    return 0


def naive_decode(tok: Tokenizer, ids: Sequence[int]) -> str:
    """The lecture's decoder: join the ids' bytes and decode them as UTF-8 (raises on a split character)."""
    return b"".join(tok.id_bytes(i) for i in ids).decode("utf-8")


def broken_slide(s: SlideInput, _step: int) -> Built:
    """An id list whose naive decode raises, the whole-list fix and the held-back streaming decoder."""
    name, tok = s.tokenizers()[0]
    ids = tok.encode(s.text)
    spans = tok.encode_spans(s.text)
    blocks: list[Block] = [ChipRow(f"{name}: {len(ids)} ids", token_chips(spans, tok))]
    cut = first_split(tok, ids)
    if not cut:
        blocks.append(
            Words(
                "Every prefix of these ids ends on a character boundary: type an emoji or Chinese (E).",
                tone="muted",
            )
        )
        return blocks, {"split after": "none"}
    prefix = ids[:cut]
    try:
        naive_decode(tok, prefix)
        error = "decodes"  # not reached: first_split found the prefix that raises
    except UnicodeDecodeError as exc:
        error = f"UnicodeDecodeError: {exc.reason}"
    decoder = StreamingDecoder(tok)
    printed = "".join(decoder.push(i) for i in prefix)
    waiting = decoder.pending
    rest = "".join(decoder.push(i) for i in ids[cut:]) + decoder.flush()
    whole = naive_decode(tok, ids)
    shown = " ".join(map(str, prefix))
    rows = (
        (f"naive decode of [{shown}]", f"✗ {error}"),
        (
            "the fix: decode the whole list's bytes at once",
            f"“{whole}”  ✓" if whole == s.text else f"“{whole}”  ✗",
        ),
        (f"streaming, held back, after [{shown}]", f"prints “{printed}”, waits with {hex_bytes(waiting)}"),
        (
            "streaming, then the rest of the ids",
            f"prints “{rest}”  ✓" if printed + rest == s.text else f"“{rest}”  ✗",
        ),
    )
    blocks.append(Table(("decoder", "result"), rows, (False, False), (0,)))
    blocks.append(
        Words(
            f"The ids stop after {cut} of {len(ids)}: inside a character, as a stream does between two tokens.",
            tone="muted",
        )
    )
    figures = {
        "split after": str(cut),
        "broken ids": shown,
        "naive": error,
        "held back": hex_bytes(waiting),
        "streamed": "exact" if printed + rest == s.text else "differs",
    }
    return blocks, figures
