"""``tokviz usage``: what a vocabulary really uses on a folder or files of held-out text.

For each ``--tokenizer``: the share of the vocabulary the text uses, a token-length histogram,
the likely under-trained tokens (long and rare, or unused) and the merges that never fire. The
numbers come from :mod:`tokviz.core.analysis.usage`; files are chosen by :mod:`tokviz.core.corpus.fileselect`
(text files only, ``--include`` / ``--exclude`` globs). Merge steps are 1-based, as in the app's
merge timeline. ``--format csv`` writes one row per token of each vocabulary (for a spreadsheet);
the other formats write the report.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from tokviz.cli.assumed import note_assumptions
from tokviz.cli.command import UsageError, warns_on_cuts
from tokviz.cli.corpus_files import add_heldout, read_options, say_reading, select_heldout
from tokviz.cli.options import (
    add_file_options,
    add_specials_in_text,
    add_tokenizers,
    load_tokenizers,
    specials_note,
)
from tokviz.cli.output import format_ratio, print_json, render_table, text_or_hex, token_label
from tokviz.cli.streams import clear_line, redraw_line
from tokviz.core.io.safe_text import csv_cell, terminal_text

if TYPE_CHECKING:
    from tokviz.core.analysis.usage import VocabularyUsage
    from tokviz.core.bpe.tokenizer import Tokenizer

FORMATS = ("table", "markdown", "csv", "json")
# Progress is shown on a terminal for sets larger than this (smaller ones take a blink).
_PROGRESS_BYTES = 8 * 2**20
_SCORE_RULE = "score = length / (1 + log2(1 + count))"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_heldout(p, or_text=True)
    add_tokenizers(p, "a built-in name or a tokenizer file; repeat for several")
    p.add_argument(
        "--top", type=int, default=20, metavar="N", help="rows of each list (default: 20; 0: no lists)"
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default), markdown, json, or csv (one row per token of each vocabulary)",
    )
    add_file_options(p, special=False)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress and no notes on standard error")
    add_specials_in_text(p)


@dataclass
class Report:
    """One tokenizer's usage, with the name the output shows and how special-token text was read.

    ``specials`` is the ``--specials-in-text`` setting; ``note`` the line a table carries about it.
    """

    name: str
    usage: VocabularyUsage
    specials: str = "special"
    note: str = ""
    # What tokviz assumed about the tokenizer (its pre-tokenizer, say): the report rests on it.
    assumptions: tuple[str, ...] = ()


@warns_on_cuts
def run(args: argparse.Namespace) -> int:
    """Count every tokenizer's ids on the selected text and print the report."""
    if args.top < 0:
        raise UsageError("--top must be 0 (no lists) or more")
    if args.text is not None and args.paths:
        raise UsageError("give either --text or PATHs, not both")
    if args.text is None and not args.paths:
        raise UsageError("give the held-out text as PATHs (files, folders, globs) or as --text TEXT")
    specs, loaded, tokenizers = load_tokenizers(args)
    names = short_names(specs, tokenizers)
    mode = args.specials_in_text
    reports = [
        Report(name, usage, mode, specials_note([tok], args), original.assumptions)
        for name, tok, original, usage in zip(
            names, tokenizers, loaded, _count(args, tokenizers), strict=True
        )
    ]
    emit: dict[str, Callable[[list[Report], int, IO[str]], None]] = {
        "table": write_table,
        "markdown": write_markdown,
        "json": write_json,
        "csv": write_csv,
    }
    emit[args.format](reports, args.top, sys.stdout)
    if not args.quiet:
        note_assumptions(names, loaded)
    return 0


def short_names(specs: Sequence[str], tokenizers: Sequence[Tokenizer]) -> list[str]:
    """How the report names each tokenizer: as ``tokviz eval`` and the app do ("GPT-2", "py8k", a
    tokenizer.json by its folder), file names or the paths as typed where short names clash."""
    from tokviz.core.analysis.evaluation import unique_labels

    return unique_labels(specs, tokenizers)


def _count(args: argparse.Namespace, tokenizers: Sequence[Tokenizer]) -> list[VocabularyUsage]:
    from tokviz.core.analysis.usage import VocabularyUsage, count_files, vocabulary_usage

    if args.text is not None:
        return [vocabulary_usage(tok, [args.text]) for tok in tokenizers]
    if args.paths == ["-"]:
        from tokviz.cli.options import read_text_file

        text = read_text_file("-")
        return [vocabulary_usage(tok, [text]) for tok in tokenizers]
    from tokviz.core.corpus.documents import CorpusReader

    selection, errors = select_heldout(args, "count")
    files = selection.corpus_files()
    total = sum(f.size for f in files) * len(tokenizers)
    meter = _Meter(total) if total > _PROGRESS_BYTES and sys.stderr.isatty() and not args.quiet else None
    out = []
    reading = read_options(args)
    readers = []
    try:
        for tok in tokenizers:
            readers.append(CorpusReader(reading, errors))
            counts = count_files(tok, files, on_bytes=meter, errors=errors, reader=readers[-1])
            out.append(VocabularyUsage(tok, counts))
    finally:
        if meter is not None:
            meter.close()  # also on Ctrl+C or an error: the one-line message starts on a clean line
    if not args.quiet and readers:
        say_reading(readers[0].summary())
    return out


class _Meter:
    """``counting: 12.5 of 35.0 MB`` redrawn on a terminal's standard error, at most 5 times a second."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.shown = 0.0

    def __call__(self, n: int) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.shown >= 0.2:
            self.shown = now
            mb = 2**20
            redraw_line(sys.stderr, f"counting: {self.done / mb:,.1f} of {self.total / mb:,.1f} MB")
            sys.stderr.flush()

    def close(self) -> None:
        clear_line(sys.stderr)
        sys.stderr.flush()


# ----------------------------------------------------------------------------- what is shown
def _about(r: Report) -> str:
    c = r.usage.counted
    docs = f"{c.documents:,} {'file' if c.documents == 1 else 'files'}, " if c.documents > 1 else ""
    mean = format_ratio(r.usage.mean_token_length())
    return f"{terminal_text(r.name)}: {r.usage.headline()} on {docs}{c.bytes:,} bytes, {c.tokens:,} tokens ({mean} bytes/token)"


def _firing_line(r: Report) -> str:
    f = r.usage.merge_firing()
    if not f.merges:
        return "no merges (not a BPE vocabulary)"
    line = (
        f"{f.merges:,} merges: {len(f.never_final):,} make a token that never appears in the output; "
        f"{len(f.never_applied):,} are never applied, not even on the way to a longer token"
    )
    if f.repeated:
        line += f" ({f.repeated:,} merges make bytes an earlier merge made; counted with it)"
    return line


def _histogram_rows(r: Report) -> list[list[str]]:
    return [[label, f"{v:,}", f"{u:,}", f"{o:,}"] for label, v, u, o in r.usage.length_histogram().buckets()]


_HISTOGRAM_HEADERS = ["length (bytes)", "in vocabulary", "used", "occurrences"]
_SUSPECT_HEADERS = ["step", "id", "length", "count", "score", "token"]
_NEVER_HEADERS = ["step", "id", "length", "merge", "token"]


def _suspect_rows(r: Report, top: int, label: Callable[[bytes], str]) -> list[list[str]]:
    return [
        [
            "" if t.step is None else f"{t.step:,}",
            str(t.id),
            str(len(t.data)),
            f"{t.count:,}",
            format_ratio(t.score, 1),
            label(t.data),
        ]
        for t in r.usage.undertrained(top=top)
    ]


def never_applied(usage: VocabularyUsage, top: int) -> list[tuple[int, int, bytes, bytes]]:
    """The merges never applied whose tokens are longest, as ``(step, id, left, right)``, longest first."""
    tok = usage.tokenizer
    idx = usage.merge_firing().never_applied
    if not len(idx):
        return []
    merges = tok.merges
    lengths = np.array([len(merges[i][0]) + len(merges[i][1]) for i in idx.tolist()], dtype=np.int64)
    order = np.lexsort((idx, -lengths))[:top]
    out = []
    for i in idx[order].tolist():
        left, right = merges[i]
        out.append((i + 1, tok.id_of_merge(i), left, right))
    return out


def _never_rows(r: Report, top: int, label: Callable[[bytes], str]) -> list[list[str]]:
    return [
        [f"{step:,}", str(tid), str(len(a + b)), f"{label(a)} + {label(b)}", label(a + b)]
        for step, tid, a, b in never_applied(r.usage, top)
    ]


def write_table(reports: list[Report], top: int, out: IO[str]) -> None:
    """The report as plain aligned text; ``top`` 0 leaves the lists of tokens out."""
    for n, r in enumerate(reports):
        if n:
            out.write("\n")
        out.write(_about(r) + "\n" + (r.note + "\n" if r.note else "") + "\n")
        out.write(render_table(_HISTOGRAM_HEADERS, _histogram_rows(r), [False, True, True, True]) + "\n\n")
        if top:
            _write_suspects_table(r, top, out)
        out.write(_firing_line(r) + "\n")
        never = _never_rows(r, top, token_label)
        if never:
            out.write("never applied, longest first:\n")
            out.write(render_table(_NEVER_HEADERS, never, [True, True, True, False, False]) + "\n")


def _write_suspects_table(r: Report, top: int, out: IO[str]) -> None:
    suspects = _suspect_rows(r, top, token_label)
    out.write(f"likely under-trained tokens ({_SCORE_RULE}; · is a space):\n")
    if suspects:
        out.write(render_table(_SUSPECT_HEADERS, suspects, [True, True, True, True, True, False]) + "\n\n")
    else:
        out.write("  none\n\n")


def _md_code(data: bytes) -> str:
    text = terminal_text(token_label(data)).replace("|", "\\|")
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    lines += ["| " + " | ".join(terminal_text(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def write_markdown(reports: list[Report], top: int, out: IO[str]) -> None:
    """The report as markdown, for a design doc."""
    for n, r in enumerate(reports):
        if n:
            out.write("\n")
        out.write(f"## {terminal_text(r.name)}\n\n{_about(r).split(': ', 1)[1]}\n\n")
        if r.note:
            out.write(f"{r.note[0].upper()}{r.note[1:]}.\n\n")
        out.write(_md_table(_HISTOGRAM_HEADERS, _histogram_rows(r), [False, True, True, True]) + "\n\n")
        if top:
            out.write(f"Likely under-trained tokens ({_SCORE_RULE}; · is a space):\n\n")
            suspects = _suspect_rows(r, top, _md_code)
            table = _md_table(_SUSPECT_HEADERS, suspects, [True, True, True, True, True, False])
            out.write((table if suspects else "none") + "\n\n")
        out.write(_firing_line(r) + ".\n")
        never = _never_rows(r, top, _md_code)
        if never:
            out.write("\nNever applied, longest first:\n\n")
            out.write(_md_table(_NEVER_HEADERS, never, [True, True, True, False, False]) + "\n")


def _token_json(data: bytes) -> dict[str, Any]:
    return {"text": text_or_hex(data), "hex": data.hex()}


def report_json(r: Report, top: int) -> dict[str, Any]:
    """One tokenizer's report as plain JSON values."""
    u = r.usage
    c = u.counted
    f = u.merge_firing()
    return {
        "tokenizer": r.name,
        "assumptions": list(r.assumptions),
        "files": c.documents,
        "bytes": c.bytes,
        "tokens": c.tokens,
        "bytes_per_token": round(u.mean_token_length(), 4),
        "vocabulary": u.vocabulary,
        "used": u.used,
        "share_used": round(u.share, 4),
        "headline": u.headline(),
        "specials_in_text": r.specials,
        "length_histogram": [
            {"length": label, "vocabulary": v, "used": used, "occurrences": o}
            for label, v, used, o in u.length_histogram().buckets()
        ],
        "undertrained": [
            {"step": t.step, "id": t.id, "length": len(t.data), "count": t.count, "score": round(t.score, 3)}
            | _token_json(t.data)
            for t in u.undertrained(top=top)
        ],
        "merges": f.merges,
        "never_final": len(f.never_final),
        "never_applied": len(f.never_applied),
        "never_applied_longest": [
            {"step": step, "id": tid, "left": _token_json(a), "right": _token_json(b)} | _token_json(a + b)
            for step, tid, a, b in never_applied(u, top)
        ],
    }


def write_json(reports: list[Report], top: int, out: IO[str]) -> None:
    """The report as a JSON list, one object per tokenizer."""
    print_json([report_json(r, top) for r in reports], out)


CSV_FIELDS = (
    "tokenizer",
    "id",
    "token",
    "hex",
    "length",
    "count",
    "step",
    "score",
    "applied",
    "specials_in_text",
)
# step: the merge that made the token (1-based, as the timeline numbers it; empty for single bytes
# and special tokens); applied: whether the text applies that merge at all ("yes"/"no").


def write_csv(reports: list[Report], _top: int, out: IO[str]) -> None:
    """One row per ordinary token of each vocabulary: count on the text, merge step, score, applied."""
    # Every text field quoted: a token may be a lone carriage return, which a reader would
    # otherwise take for the end of a row.
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(CSV_FIELDS)
    for r in reports:
        u = r.usage
        tok = u.tokenizer
        ranks = tok.merge_rank_of_id if tok.is_bpe else {}
        never = {tok.id_of_merge(i) for i in u.merge_firing().never_applied.tolist()}
        score_of = dict(zip(u.ordinary_ids.tolist(), u.scores().tolist()))
        for tid in u.all_ids.tolist():
            data = tok.vocab[tid]
            rank = None if tok.is_special(tid) else ranks.get(tid)
            applied = "" if rank is None else ("no" if tid in never else "yes")
            row = [
                r.name,
                tid,
                text_or_hex(data),
                data.hex(),
                len(data),
                int(u.counts[tid]),
                "" if rank is None else rank + 1,
                round(score_of.get(tid, 0.0), 3),
                applied,
                r.specials,
            ]
            writer.writerow([csv_cell(v) for v in row])
