"""A text's tokens as HTML: coloured boxes with hover titles, one row per tokenizer, diff marks.

Notebooks show it inline (``_repr_html_``), and the window and ``tokviz render`` write it as a
self-contained page a lecturer can send to students: no script, no external file, no network.
Colours follow the app's rule (a hue from the token id; neighbours never look alike).
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

from ..bpe.tokenizer import Tokenizer
from ..pretok.bytes_ import hex_bytes, printable_token
from .token_colours import colour_indices, fill_css

MAX_HTML_CHARS = 200_000
"""Longer texts are cut there: a page of more boxes than that is no longer readable in a browser."""

_PAGE_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1b1b1b;background:#fff}
.tokviz-view{margin:0 0 18px 0}
.tokviz-head{font-weight:600;margin:0 0 4px 0;font-size:14px}
.tokviz-head .tokviz-counts{font-weight:400;color:#555;margin-left:8px;font-variant-numeric:tabular-nums}
.tokviz-tokens{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:15px;line-height:2.1;
  white-space:normal}
.tokviz-tok{display:inline-block;white-space:pre;padding:0 3px;margin:0 1px 2px 0;border-radius:3px;
  border:1px solid rgba(0,0,0,.18);vertical-align:top;text-align:center;line-height:1.45}
.tokviz-tok .tokviz-id{display:block;font-size:10px;color:#444;line-height:1.1}
.tokviz-partial{background-image:repeating-linear-gradient(45deg,rgba(255,170,0,.35) 0 3px,transparent 3px 7px);
  border-color:#c98a00}
.tokviz-special{border:2px solid #7b3fbf}
.tokviz-diff{border-bottom:3px solid #d0312d}
.tokviz-legend{font-size:12px;color:#555;margin:0 0 12px 0}
.tokviz-legend span{margin-right:14px}
"""


@dataclass(frozen=True)
class HtmlToken:
    """One token as drawn: its id, bytes, byte offsets in the text and how it is marked."""

    id: int
    data: bytes
    start: int
    end: int
    special: bool
    differs: bool
    colour: int

    @property
    def partial(self) -> bool:
        """True when the token's bytes are not whole UTF-8 characters (part of a character)."""
        try:
            self.data.decode("utf-8")
        except UnicodeDecodeError:
            return True
        return False


@dataclass(frozen=True)
class TokenRow:
    """One tokenizer's tokens of the text, with the figures its header shows."""

    name: str
    tokens: tuple[HtmlToken, ...]
    n_bytes: int
    n_chars: int

    @property
    def bytes_per_token(self) -> float:
        """UTF-8 bytes of the text per token (0 for an empty text)."""
        return self.n_bytes / len(self.tokens) if self.tokens else 0.0


def token_rows(text: str, tokenizers: Sequence[tuple[str, Tokenizer]]) -> list[TokenRow]:
    """Encode ``text`` with each tokenizer; a token that is not also one of the first row's is marked.

    Tokens are compared as UTF-8 byte ranges, so a token differs when the first tokenizer does not
    cut exactly the same bytes out as one token: " brown" differs from " b" + "rown" although both
    start and end at the same places, and two splits of an emoji's bytes differ too.
    """
    n_bytes = len(text.encode("utf-8", "replace"))
    rows: list[TokenRow] = []
    reference: set[tuple[int, int]] | None = None
    for name, tokenizer in tokenizers:
        spans = tokenizer.encode_spans(text)
        ends = list(accumulate(len(s.bytes) for s in spans))
        starts = [0, *ends[:-1]] if ends else []
        if reference is None:
            reference = set(zip(starts, ends))
        colours = colour_indices([s.id for s in spans])
        tokens = tuple(
            HtmlToken(
                id=s.id,
                data=s.bytes,
                start=b0,
                end=b1,
                special=s.special,
                differs=(b0, b1) not in reference,
                colour=c,
            )
            for s, b0, b1, c in zip(spans, starts, ends, colours)
        )
        rows.append(TokenRow(name, tokens, n_bytes, len(text)))
    return rows


class _Boxes:
    """Draws one row's tokens as HTML boxes; what a token's box says apart from its offsets is made once.

    A text repeats its tokens (a 200,000-character page has a few thousand distinct ones), so the
    classes, label, colour and hover title of each distinct token are kept, and each box only adds
    the offsets that are its own.
    """

    def __init__(self, tokenizer: Tokenizer, show_ids: bool, whitespace: bool) -> None:
        self._tokenizer = tokenizer
        self._show_ids = show_ids
        self._whitespace = whitespace
        self._made: dict[tuple[int, bytes, bool, bool, int], tuple[str, str, str]] = {}

    def box(self, token: HtmlToken) -> str:
        """The token's box: ``<span ... title="id · bytes · at bytes START-END · ...">label</span>``."""
        key = (token.id, token.data, token.special, token.differs, token.colour)
        parts = self._made.get(key)
        if parts is None:
            parts = self._made[key] = self._parts(token)
        opening, title_tail, closing = parts
        return f"{opening}at bytes {token.start}-{token.end}{title_tail}{closing}"

    def _parts(self, token: HtmlToken) -> tuple[str, str, str]:
        """The box up to its offsets, the hover title after them, and the rest (all escaped)."""
        classes = ["tokviz-tok"]
        if token.partial:
            classes.append("tokviz-partial")
        if token.special:
            classes.append("tokviz-special")
        if token.differs:
            classes.append("tokviz-diff")
        head = f"id {token.id} · bytes {hex_bytes(token.data) or '-'} · "
        notes = ["special token"] if token.special else [self._merge_note(token)]
        if token.partial:
            notes.append("part of a UTF-8 character")
        tail = "".join(f" · {note}" for note in notes if note)
        # A newline is always drawn as ↵ inside its box, and the page breaks the line after it.
        label = html.escape(printable_token(token.data, whitespace=self._whitespace).replace("\n", "↵"))
        ident = f'<span class="tokviz-id">{token.id}</span>' if self._show_ids else ""
        line_break = "<br>" if token.data.endswith(b"\n") else ""
        opening = (
            f'<span class="{" ".join(classes)}" style="background-color:{fill_css(token.colour)}" '
            f'title="{html.escape(head, quote=True)}'
        )
        return opening, html.escape(tail, quote=True), f'">{label}{ident}</span>{line_break}'

    def _merge_note(self, token: HtmlToken) -> str:
        if len(token.data) == 1:
            return "single byte"
        rank = self._tokenizer.merge_rank(token.id)
        return f"merge rank {rank}" if rank is not None else ""


def tokens_html(
    text: str,
    tokenizers: Sequence[tuple[str, Tokenizer]],
    *,
    show_ids: bool = False,
    whitespace: bool = True,
) -> str:
    """An HTML fragment: a legend, then per tokenizer a header (counts) and its coloured token boxes.

    ``whitespace`` shows spaces, newlines and tabs as · ↵ →. Only the first :data:`MAX_HTML_CHARS`
    characters are drawn; the header says so when it cuts.
    """
    shown = text[:MAX_HTML_CHARS]
    rows = token_rows(shown, tokenizers)
    by_name = dict(tokenizers)
    out = [f"<style>{_PAGE_STYLE}</style>", '<div class="tokviz">']
    out.append(
        '<div class="tokviz-legend"><span>hover a token for its id and bytes</span>'
        '<span style="border-bottom:3px solid #d0312d">not a token of the first row</span>'
        '<span class="tokviz-partial" style="padding:0 3px">part of a character</span>'
        '<span style="border:2px solid #7b3fbf;padding:0 3px">special token</span></div>'
    )
    for row in rows:
        counts = (
            f"{row.n_chars:,} characters · {row.n_bytes:,} bytes · {len(row.tokens):,} tokens · "
            f"{row.bytes_per_token:.2f} bytes/token"
        )
        if len(text) > len(shown):
            counts += f" (first {len(shown):,} of {len(text):,} characters)"
        tokenizer = by_name[row.name]
        boxes = "".join(map(_Boxes(tokenizer, show_ids, whitespace).box, row.tokens))
        out.append(
            f'<div class="tokviz-view"><div class="tokviz-head">{html.escape(row.name)}'
            f'<span class="tokviz-counts">{counts}</span></div><div class="tokviz-tokens">{boxes}</div></div>'
        )
    out.append("</div>")
    return "".join(out)


def tokens_page(
    text: str,
    tokenizers: Sequence[tuple[str, Tokenizer]],
    *,
    title: str = "tokviz: tokens",
    show_ids: bool = False,
    whitespace: bool = True,
) -> str:
    """A whole self-contained HTML document around :func:`tokens_html` (UTF-8, no external files)."""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head><body>"
        f"{tokens_html(text, tokenizers, show_ids=show_ids, whitespace=whitespace)}</body></html>\n"
    )


class TokenDisplay:
    """What :func:`tokviz.show` returns: Jupyter draws it inline; :meth:`save` writes it as a page."""

    def __init__(
        self, text: str, tokenizers: Sequence[tuple[str, Tokenizer]], show_ids: bool = False
    ) -> None:
        self.text = text
        self.tokenizers = list(tokenizers)
        self.show_ids = show_ids

    @property
    def rows(self) -> list[TokenRow]:
        """Each tokenizer's tokens, as drawn."""
        return token_rows(self.text[:MAX_HTML_CHARS], self.tokenizers)

    def _repr_html_(self) -> str:
        return tokens_html(self.text, self.tokenizers, show_ids=self.show_ids)

    def page(self) -> str:
        """The self-contained HTML document."""
        return tokens_page(self.text, self.tokenizers, show_ids=self.show_ids)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write :meth:`page` to ``path`` (all or nothing; an existing file is replaced whole)."""
        from ..io.outputs import Output, write_outputs

        write_outputs([(Output.file(path, "the page"), self.page().encode("utf-8"))])
        return Path(path)

    def __repr__(self) -> str:
        heads = ", ".join(f"{r.name}: {len(r.tokens)} tokens" for r in self.rows)
        return f"<TokenDisplay of {len(self.text)} characters: {heads}>"


class Encoding(TokenDisplay):
    """One tokenizer's encoding of a text (:func:`tokviz.encode`): its ids and tokens, drawn inline in a notebook."""

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer that encoded the text."""
        return self.tokenizers[0][1]

    @property
    def ids(self) -> list[int]:
        """The token ids of the whole text (special-token text read as specials, as ``encode`` does)."""
        return self.tokenizer.encode(self.text)

    @property
    def tokens(self) -> list[bytes]:
        """Each token's bytes."""
        return [self.tokenizer.id_bytes(i) for i in self.ids]

    def __len__(self) -> int:
        return len(self.ids)

    def __repr__(self) -> str:
        return f"<Encoding of {len(self.text)} characters by {self.tokenizers[0][0]}: {len(self)} tokens>"


def _named(tokenizers: str | Tokenizer | Sequence[str | Tokenizer]) -> list[tuple[str, Tokenizer]]:
    from ..formats.registry import load_tokenizer

    specs = [tokenizers] if isinstance(tokenizers, str | Tokenizer) else list(tokenizers)
    named: list[tuple[str, Tokenizer]] = []
    for spec in specs:
        tok = spec if isinstance(spec, Tokenizer) else load_tokenizer(spec)
        name = tok.name or str(spec)
        if any(name == n for n, _ in named):
            name = f"{name} ({len(named) + 1})"
        named.append((name, tok))
    return named


def encode(text: str, tokenizer: str | Tokenizer = "gpt2", *, show_ids: bool = True) -> Encoding:
    """Encode ``text`` with one tokenizer; the result shows as coloured tokens with their ids in a notebook."""
    if not isinstance(text, str):
        raise TypeError(f"encode() takes the text as a str, not {type(text).__name__}")
    return Encoding(text, _named(tokenizer)[:1], show_ids=show_ids)


def show(
    text: str,
    tokenizers: str | Tokenizer | Sequence[str | Tokenizer] = ("gpt2", "cl100k"),
    *,
    show_ids: bool = False,
) -> TokenDisplay:
    """The coloured token view of ``text`` for each tokenizer, for a notebook cell to display.

    ``tokenizers`` are built-in names (gpt2, cl100k, o200k, ...), tokenizer files or folders, or
    loaded :class:`Tokenizer` objects; the first row is the reference for the difference marks.
    """
    if not isinstance(text, str):
        raise TypeError(f"show() takes the text as a str, not {type(text).__name__}")
    return TokenDisplay(text, _named(tokenizers), show_ids=show_ids)
