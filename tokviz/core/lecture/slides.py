"""What each lecture slide shows, computed from the core: blocks of chips, tables, counters and words.

A slide of a deck (:mod:`tokviz.core.lecture.deck`) at a given step becomes a :class:`SlideContent`: its
title, a list of blocks in reading order, and ``figures``, the numbers the slide states (tests and
the handout's text read them from here). The window, the PDF handout and the PNG export paint
these blocks; nothing here knows how they are drawn, so every figure is the core's own.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import regex

from ..analysis.metrics import TextMetrics, embedding_parameters
from ..bpe.lecture_tokenizers import UNK
from ..bpe.stream import StreamingDecoder
from ..bpe.tokenizer import Tokenizer, TokenSpan
from ..errors import TokvizError
from ..formats.registry import is_builtin, load_tokenizer
from ..pretok.bytes_ import hex_bytes, printable_token
from ..show.token_colours import colour_indices
from .blocks import Bars, Block, Chip, ChipRow, Counters, Picture, SlideContent, Table, Words, edited_text
from .blocks import chip_label as _chip_label
from .blocks import token_chips as _token_chips
from .blocks import trained_tokenizer as _trained
from .deck import MAX_SLIDE_CHARS, Deck, Slide
from .deck_assets import read_picture
from .numbers import ratio
from .slides_chain import chain_slide
from .slides_exercises import broken_slide, samples_slide
from .slides_exercises import sample_texts as _sample_texts
from .slides_lattice import greedy_slide, lattice_slide
from .slides_pretok import digits_slide, regex_slide

CODE_POINT_SPACE = 0x110000


LoadTokenizer = Callable[[str], Tokenizer]


class _Slide:
    """What a builder needs: the slide, its text and tokenizers (as edited live), and a loader."""

    def __init__(self, slide: Slide, deck: Deck, text: str | None, tokenizers: Sequence[str] | None,
                 load: LoadTokenizer) -> None:  # fmt: skip
        self.slide = slide
        self.deck = deck
        raw = text if text is not None else (slide.options.get("text") or deck.text)
        self.text = str(raw)[:MAX_SLIDE_CHARS]
        names = tokenizers if tokenizers is not None else (slide.options.get("tokenizers") or deck.tokenizers)
        # A tokenizer named twice is shown once: a slide compares different tokenizers.
        self.names = list(dict.fromkeys(names)) or ["gpt2"]
        self._load = load

    def tokenizers(self) -> list[tuple[str, Tokenizer]]:
        out = []
        for name in self.names:
            tok = self.load(name)
            out.append((_label(name, tok), tok))
        return out

    def load(self, name: str) -> Tokenizer:
        return self._load(self.deck.resolve(name))


def _label(name: str, tok: Tokenizer) -> str:
    """What a slide calls a tokenizer: a built-in's own name; a file beside the deck by the name the
    deck gave it ("cats.json" → cats), unless that is the generic ``tokenizer.json``."""
    stem = Path(name).stem
    if is_builtin(name) or not stem or stem.lower() == "tokenizer":
        return tok.name or name
    return stem


def slide_content(
    slide: Slide,
    deck: Deck,
    step: int = 0,
    *,
    text: str | None = None,
    tokenizers: Sequence[str] | None = None,
    load: LoadTokenizer = load_tokenizer,
) -> SlideContent:
    """The content of ``slide`` at ``step`` (0-based, clamped), with ``text``/``tokenizers`` as edited live."""
    ctx = _Slide(slide, deck, text, tokenizers, load)
    step = max(0, min(step, slide.steps - 1))
    try:
        blocks, figures = _BUILDERS[slide.kind](ctx, step)
    except TokvizError as exc:
        blocks, figures = [Words(f"This slide cannot be shown: {exc}", tone="bad")], {}
    return SlideContent(slide.title, tuple(blocks), step, slide.steps, figures, slide.notes)


# ============================================================================ helpers
def _n_bytes(text: str) -> int:
    return len(text.encode("utf-8", "replace"))


def _per_token(n_bytes: int, n_tokens: int) -> str:
    return ratio(n_bytes, n_tokens)


def lost(tok: Tokenizer, text: str) -> str:
    """What ``tok`` loses of ``text``: "lossy: 4 <unk>", "lossy: no round trip", or "" when nothing.

    A lossy tokenizer's token count is not a rate: it is never called fewest or best on a slide,
    never sets a chart's scale, and is marked wherever it is shown.
    """
    return loss_of(TextMetrics.of(tok, text))


def loss_of(m: TextMetrics) -> str:
    """:func:`lost`'s words for a text already measured."""
    if m.unknown:
        return f"lossy: {m.unknown:,} {UNK}"
    return "" if m.round_trip else "lossy: no round trip"


def _with_loss(caption: str, loss: str) -> str:
    return f"{caption} · {loss}" if loss else caption


def _code_point_label(ch: str) -> str:
    return {" ": "␣", "\n": "↵", "\t": "→"}.get(ch, ch)


# ============================================================================ builders
def _roundtrip(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    blocks: list[Block] = []
    figures: dict[str, str] = {}
    for name, tok in s.tokenizers():
        spans = tok.encode_spans(s.text)
        ids = [sp.id for sp in spans]
        back = tok.decode(ids)
        holds = back == s.text
        loss = lost(tok, s.text)
        blocks.append(ChipRow(_with_loss(f"{name}: text → {len(ids):,} ids", loss), _token_chips(spans, tok)))
        blocks.append(Words(f"ids → text: “{back}”"))
        verdict = "decode(encode(text)) == text  ✓" if holds else "decode(encode(text)) != text  ✗"
        blocks.append(Words(verdict, tone="good" if holds else "bad"))
        figures[f"{name} ids"] = " ".join(map(str, ids))
        figures[f"{name} round trip"] = "holds" if holds else "fails"
    return blocks, figures


def _anatomy(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    text = s.text
    points = [f"U+{ord(c):04X}" for c in text]
    colours = colour_indices([ord(c) for c in text])
    chars = tuple(Chip(_code_point_label(c), p, int(k)) for c, p, k in zip(text, points, colours))
    byte_chips = tuple(
        Chip(f"{b:02X}", _code_point_label(c) if i == 0 else "", int(k))
        for c, k in zip(text, colours)
        for i, b in enumerate(c.encode("utf-8", "replace"))
    )
    clusters = regex.findall(r"\X", text)
    blocks: list[Block] = [
        Counters(
            (
                ("code points", f"{len(text):,}"),
                ("UTF-8 bytes", f"{_n_bytes(text):,}"),
                ("visible characters", f"{len(clusters):,}"),
            )
        ),  # fmt: skip
        ChipRow("code points", chars),
        ChipRow("UTF-8 bytes (hexadecimal)", byte_chips),
    ]
    figures = {
        "code points": " ".join(points),
        "bytes": hex_bytes(text.encode("utf-8", "replace")),
        "visible characters": str(len(clusters)),
    }
    cluster = str(s.slide.get("cluster"))
    if cluster:
        n_visible = len(regex.findall(r"\X", cluster))
        blocks.append(
            ChipRow(
                f"“{cluster}”: {len(cluster)} code points, {n_visible} visible character"
                + ("s" if n_visible != 1 else ""),
                tuple(Chip(c, f"U+{ord(c):04X}", i * 2) for i, c in enumerate(cluster)),
            )
        )
        figures["cluster"] = f"{len(cluster)} code points, {n_visible} visible"
    return blocks, figures


def _views(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    blocks: list[Block] = []
    figures: dict[str, str] = {}
    n_bytes = _n_bytes(s.text)
    for name, tok in s.tokenizers():
        spans = tok.encode_spans(s.text)
        n = len(spans)
        loss = lost(tok, s.text)
        caption = f"{name}: {n:,} tokens · {_per_token(n_bytes, n)} bytes/token"
        blocks.append(ChipRow(_with_loss(caption, loss), _token_chips(spans, tok)))
        figures[f"{name} tokens"] = str(n)
        blocks.append(Words(_what_fails(name, tok, spans), tone="muted"))
    blocks.insert(0, Counters((("characters", f"{len(s.text):,}"), ("bytes", f"{n_bytes:,}"))))
    return blocks, figures


def _what_fails(name: str, tok: Tokenizer, spans: Sequence[TokenSpan]) -> str:
    n = len(spans)
    if name == "characters":
        used = len({sp.id for sp in spans})
        return f"vocabulary: {CODE_POINT_SPACE:,} code points; this text uses {used:,} of them"
    if name == "words":
        unknown = sum(1 for sp in spans if sp.id == 0)
        return f"{unknown:,} of {n:,} tokens are {UNK}: those words are lost (vocabulary {tok.vocab_size:,})"
    if name == "bytes":
        return f"vocabulary 256, but {n:,} positions: attention compares {n * n:,} pairs"
    return f"vocabulary {tok.vocab_size:,}"


@functools.lru_cache(maxsize=8)
def _token_counts(tok: Tokenizer, text: str) -> tuple[int, ...]:
    """How many tokens ``text`` is after 0, 1, … every merge of ``tok`` (computed once per slide)."""
    return tuple(len(tok.encode_spans(text, max_merges=k)) for k in range(tok.merge_count + 1))


def tied_pairs(spans: Sequence[TokenSpan]) -> tuple[int, list[tuple[bytes, bytes]]]:
    """The highest pair count among neighbours in the same chunk, and every pair that has it (in order seen)."""
    counts: Counter[tuple[bytes, bytes]] = Counter()
    for a, b in zip(spans, spans[1:]):
        if a.chunk == b.chunk and not a.special and not b.special:
            counts[(a.bytes, b.bytes)] += 1
    if not counts:
        return 0, []
    best = max(counts.values())
    return best, [pair for pair, c in counts.items() if c == best]


def _pair(left: bytes, right: bytes) -> str:
    return f"{_chip_label(left)} + {_chip_label(right)}"


def _merges(s: _Slide, step: int) -> tuple[list[Block], dict[str, str]]:
    merges = int(s.slide.get("merges"))
    train_text = str(s.slide.get("train_text"))
    if train_text:
        return _applied(s, train_text, merges)
    tok = _trained(s.text, merges, s.slide)
    done = min(step, tok.merge_count)
    counts = list(_token_counts(tok, s.text)[: done + 1])
    rows = []
    for k in range(done):
        left, right = tok.merges[k]
        rows.append(
            (str(k + 1), _pair(left, right), str(256 + k), _chip_label(left + right), str(counts[k + 1]))
        )
    spans = tok.encode_spans(s.text, max_merges=done)
    blocks: list[Block] = [
        Counters((("tokens", " → ".join(map(str, counts))), ("bytes per token", _per_token(_n_bytes(s.text), counts[-1])))),
        ChipRow(f"after {done} merge{'s' if done != 1 else ''}: {len(spans)} tokens", _token_chips(spans, tok)),
    ]  # fmt: skip
    if rows:
        blocks.append(
            Table(
                ("step", "pair", "new id", "token", "tokens"), tuple(rows), (True, False, True, False, True)
            )
        )
    if done < tok.merge_count:
        best, tied = tied_pairs(spans)
        picked = tok.merges[done]
        chips = tuple(
            Chip(_pair(*pair), f"{best}×", i * 2, "picked" if pair == picked else "normal")
            for i, pair in enumerate(tied)
        )
        caption = f"next: pairs seen {best} times" + (
            f" ({len(tied)} tied; the {s.slide.get('tie_break')} rule picks the outlined one)"
            if len(tied) > 1
            else ""
        )
        blocks.append(ChipRow(caption, chips))
    return blocks, {"tokens": " → ".join(map(str, counts))}


def _applied(s: _Slide, train_text: str, merges: int) -> tuple[list[Block], dict[str, str]]:
    tok = _trained(train_text, merges, s.slide)
    learned = tuple(
        Chip(_chip_label(a + b), f"{_pair(a, b)} → {256 + k}", k * 2) for k, (a, b) in enumerate(tok.merges)
    )
    spans = tok.encode_spans(s.text)
    n_bytes = _n_bytes(s.text)
    blocks: list[Block] = [
        ChipRow(f"merges learned on “{train_text}”", learned),
        Counters((("bytes", f"{n_bytes:,}"), ("tokens", f"{len(spans):,}"), ("bytes per token", _per_token(n_bytes, len(spans))))),
        ChipRow(f"“{s.text}” with those merges", _token_chips(spans, tok)),
    ]  # fmt: skip
    return blocks, {"tokens": str(len(spans))}


def _chunks(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    name, tok = s.tokenizers()[0]
    chunk_chips: list[Chip] = []
    bounds: set[int] = set()  # byte offsets where a chunk ends
    at = 0
    for start, end, special in tok.segments(s.text):
        piece = s.text[start:end]
        pieces = [piece] if special else tok.pretokenizer.split(piece)
        for chunk in pieces:
            data = chunk.encode("utf-8", "replace")
            kind, sub = ("special", "special") if special else ("normal", "")
            label = chunk if special else _chip_label(data)
            chunk_chips.append(Chip(label, sub, len(chunk_chips) % 2 * 2 + 16, kind))
            at += len(data)
            bounds.add(at)
    spans = tok.encode_spans(s.text)
    crossing = 0
    at = 0
    for sp in spans:
        crossing += any(at < b < at + len(sp.bytes) for b in bounds)
        at += len(sp.bytes)
    blocks: list[Block] = [
        Counters((("chunks", f"{len(chunk_chips):,}"), ("tokens", f"{len(spans):,}"), ("tokens crossing a chunk", str(crossing)))),
        ChipRow(f"{name}'s pre-tokenizer: the chunks (special tokens split out first)", tuple(chunk_chips)),
        ChipRow(_with_loss(f"{name}: the tokens, merged only inside a chunk", lost(tok, s.text)), _token_chips(spans, tok)),
    ]  # fmt: skip
    return blocks, {"chunks": str(len(chunk_chips)), "tokens": str(len(spans))}


def _exchange(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    named = s.tokenizers()
    n_bytes = _n_bytes(s.text)
    measured = [(name, len(tok.encode(s.text)), lost(tok, s.text)) for name, tok in named]
    any_lost = any(loss for _, _, loss in measured)
    rows = []
    figures: dict[str, str] = {"bytes": str(n_bytes)}
    for name, n, loss in measured:
        rows.append((name, f"{n_bytes:,}", f"{n:,}", _per_token(n_bytes, n), *((loss,) if any_lost else ())))
        figures[f"{name} tokens"] = str(n)
        if loss:
            figures[f"{name} lossy"] = loss
    # The big number is the first tokenizer that keeps the text: a lossy one's rate is not a rate.
    lead_name, n_lead, lead_loss = next((m for m in measured if not m[2]), measured[0])
    lead_label = f"{lead_name} tokens" + (f" ({lead_loss})" if lead_loss else "")
    headers = ("tokenizer", "bytes", "tokens", "bytes/token", *(("what is lost",) if any_lost else ()))
    typed = edited_text(s)  # a text typed live (E) is shown: the deck text is the one earlier slides showed
    blocks: list[Block] = [
        *([Words(f"“{typed}”")] if typed is not None else []),
        Counters((("characters", f"{len(s.text):,}"), ("bytes", f"{n_bytes:,}"),
                  (lead_label, f"{n_lead:,}"), ("bytes/token", _per_token(n_bytes, n_lead)))),
        Table(headers, tuple(rows), (False, True, True, True, False)[: len(headers)]),
    ]  # fmt: skip
    samples = [str(x) for x in s.slide.get("samples")]
    if samples:
        texts = _sample_texts(samples)
        series = []
        losses = []
        for name, tok in named:
            metrics = [TextMetrics.of(tok, t) for _, t in texts]
            series.append((name, tuple(m.bytes / max(m.tokens, 1) for m in metrics)))
            losses.append(tuple(loss_of(m) for m in metrics))
        blocks.append(
            Bars("bytes per token on the bundled samples", tuple(samples), tuple(series), tuple(losses))
        )
    return blocks, figures


def _cost(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    d = int(s.slide.get("d"))
    named = [(name, tok, len(tok.encode(s.text)), lost(tok, s.text)) for name, tok in s.tokenizers()]
    # The fewest tokens among tokenizers that keep the text; a lossy row says what it lost instead.
    fewest = min((n for _, _, n, loss in named if n and not loss), default=0)
    rows = []
    for name, tok, n, loss in named:
        rows_v = embedding_rows(name, tok)
        against = loss or (f"{ratio(n * n, fewest * fewest)}×" if fewest else "-")
        rows.append((name, f"{n:,}", f"{n * n:,}", against, f"{rows_v:,}",
                     f"{embedding_parameters(rows_v, d):,}"))  # fmt: skip
    long, short = int(s.slide.get("long")), int(s.slide.get("short"))
    blocks: list[Block] = [
        Words(f"“{s.text}”: {_n_bytes(s.text):,} bytes"),
        Table(
            ("tokenizer", "tokens n", "attention n²", "vs fewest", "rows V", f"V × d (d = {d})"),
            tuple(rows),
            (False, True, True, True, True, True),
        ),  # fmt: skip
        Words(
            "V is the embedding table's rows, one per id (specials and unused ids included), not the number of merges."
        ),
    ]
    figures = {f"{name} tokens": str(n) for name, _, n, _ in named}
    figures.update({f"{name} V": str(embedding_rows(name, tok)) for name, tok, _, _ in named})
    if long and short:
        factor = (long * long) / (short * short)
        blocks.append(
            Words(
                f"The same text as {long:,} or {short:,} tokens: score matrices of {long * long:,} and "
                f"{short * short:,} entries, {factor:,.4g}× fewer. That is one computation (QKᵀ in one head), "
                "not the model's speed-up: projections, feed-forward layers and the output layer scale "
                "with n, not n², and fast attention kernels never build the whole matrix."
            )
        )
        figures["worked"] = f"{long * long:,} / {short * short:,} = {factor:,.4g}"
    return blocks, figures


def embedding_rows(name: str, tok: Tokenizer) -> int:
    """The rows of a model's embedding table for ``tok``: one per id up to the highest (tiktoken's
    ``n_vocab``), so unused ids between the merges and the specials count; a code-point model
    needs a row per code point."""
    if name == "characters":
        return CODE_POINT_SPACE
    return max(tok.vocab, default=-1) + 1


NOTHING_YET = "—"
"""What the held-back decoder prints for a token that completes no character yet."""
SPACE_MARK = printable_token(b" ")
"""A space, as every chip and table of a slide shows it."""
DECODE_FAILS = "✗"
"""A token whose bytes alone are not UTF-8: decoding it alone raises UnicodeDecodeError."""


def _stream(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    name, tok = s.tokenizers()[0]
    decoder = StreamingDecoder(tok)
    rows = []
    marked = []
    failures = 0
    printed = ""
    ids = tok.encode(s.text)
    for i, token_id in enumerate(ids):
        data = tok.id_bytes(token_id)
        try:
            data.decode("utf-8")
            naive = printable_token(data)
        except UnicodeDecodeError:
            naive = DECODE_FAILS
            failures += 1
            marked.append(i)
        out = decoder.push(token_id)
        printed += out
        held = hex_bytes(decoder.pending) if decoder.pending else ""
        rows.append(
            (str(token_id), hex_bytes(data), naive, printable_token(out.encode("utf-8")) or NOTHING_YET, held)
        )
    printed += decoder.flush()
    holds = printed == s.text
    loss = lost(tok, s.text)
    blocks: list[Block] = [
        Table(
            ("id", "bytes", "decode each token", "held back: prints", "waiting"),
            tuple(rows),
            (True, False, False, False, False),
            tuple(marked),
        ),  # fmt: skip
        Words(
            f"{SPACE_MARK} a space   {NOTHING_YET} prints nothing yet   "
            f"{DECODE_FAILS} alone it raises UnicodeDecodeError   waiting: bytes held back",
            tone="muted",
        ),  # fmt: skip
        Words(
            _with_loss(
                f"{name}: decoding each token alone fails {failures} time{'s' if failures != 1 else ''}.",
                loss,
            ),
            tone="bad" if failures or loss else "good",
        ),  # fmt: skip
        Words(
            "Holding back incomplete bytes prints exactly the text  ✓"
            if holds
            else "The held-back output differs  ✗",
            tone="good" if holds else "bad",
        ),  # fmt: skip
    ]
    return blocks, {"naive failures": str(failures), "held back": "exact" if holds else "differs"}


def _text(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    blocks: list[Block] = []
    for line in str(s.slide.get("body")).splitlines():
        stripped = line.strip()
        if stripped.startswith("- "):
            blocks.append(Words(stripped[2:], bullet=True))
        elif stripped:
            blocks.append(Words(stripped))
    return blocks, {}


def _image(s: _Slide, _step: int) -> tuple[list[Block], dict[str, str]]:
    folder = s.deck.folder
    if folder is None:
        raise TokvizError("a picture is read from a deck file's folder, and this deck has none")
    return [Picture(read_picture(folder, str(s.slide.get("path"))), str(s.slide.get("caption")))], {}


_BUILDERS: dict[str, Callable[[_Slide, int], tuple[list[Block], dict[str, str]]]] = {
    "roundtrip": _roundtrip,
    "anatomy": _anatomy,
    "views": _views,
    "merges": _merges,
    "chunks": _chunks,
    "exchange": _exchange,
    "cost": _cost,
    "stream": _stream,
    "text": _text,
    "image": _image,
    "regex": regex_slide,
    "digits": digits_slide,
    "chain": chain_slide,
    "samples": samples_slide,
    "broken": broken_slide,
    "lattice": lattice_slide,
    "greedy": greedy_slide,
}
