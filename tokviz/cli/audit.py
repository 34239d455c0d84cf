"""``tokviz audit``: which tokens of a vocabulary are broken, without and with the model's weights.

Every id is decoded, re-encoded and put in one class (:mod:`tokviz.core.analysis.audit`: OK, special,
partial UTF-8, only in a sequence, unreachable); ``--corpus`` counts the corpus and adds the tokens
it never produces; ``--weights model.safetensors`` reads the embedding matrix alone
(:mod:`tokviz.core.analysis.embedding_file`) and ranks the tokens by how under-trained their rows look
(:mod:`tokviz.core.analysis.embedding_audit`). ``--format csv`` writes one row per token.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from tokviz.cli.assumed import note_assumptions
from tokviz.cli.command import UsageError, warns_on_cuts
from tokviz.cli.corpus_files import add_file_filters, read_options, say_reading, select_corpus
from tokviz.cli.options import add_file_options, load_tokenizer
from tokviz.cli.output import print_json, render_markdown, render_table, text_or_hex, token_label
from tokviz.core.io.safe_text import csv_cell, terminal_text

if TYPE_CHECKING:
    from tokviz.core.analysis.audit import VocabularyAudit
    from tokviz.core.analysis.embedding_audit import EmbeddingIndicators

FORMATS = ("table", "markdown", "csv", "json")
# The classes listed token by token (OK tokens are only counted).
LISTED = ("special", "unreachable", "sequence_only", "partial_utf8")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL", help="a built-in name or a tokenizer file")
    p.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="PATH",
        help="text files or folders to count on (invalid UTF-8 read as U+FFFD): adds the tokens "
        "the corpus never produces (repeatable)",
    )
    add_file_filters(p)
    p.add_argument(
        "--weights",
        metavar="FILE",
        help="the model's .safetensors file: rank tokens by their embedding rows",
    )
    p.add_argument(
        "--tensor",
        metavar="NAME",
        help="the embedding tensor's name in --weights (default: the matrix with one row per token)",
    )
    p.add_argument(
        "--unused-ids",
        metavar="IDS",
        help="ids known to be untrained, the reference for --weights, as 1,2,5-9 "
        "(default: the unreachable tokens and reserved special tokens)",
    )
    p.add_argument("--top", type=int, default=10, metavar="N", help="tokens listed per class (default: 10)")
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default), markdown, json, or csv (one row per token)",
    )
    add_file_options(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no notes on standard error")


@dataclass
class Report:
    """The audit, with the embedding indicators when ``--weights`` was given."""

    audit: VocabularyAudit
    weights: EmbeddingIndicators | None = None


@warns_on_cuts
def run(args: argparse.Namespace) -> int:
    """Audit the tokenizer (on the corpus, with the weights) and print the report."""
    from tokviz.core.analysis.audit import audit_vocabulary
    from tokviz.core.analysis.evaluation import unique_labels

    if args.top < 0:
        raise UsageError("--top must be 0 or more")
    if args.tensor and not args.weights:
        raise UsageError("--tensor names a tensor of --weights; give --weights FILE too")
    if args.unused_ids and not args.weights:
        raise UsageError("--unused-ids is the reference for --weights; give --weights FILE too")
    reference = parse_ids(args.unused_ids) if args.unused_ids else None
    tok = load_tokenizer(args.model, args.special_token, pattern=args.pattern)
    counts = _corpus_counts(args, tok) if args.corpus else None
    report = Report(audit_vocabulary(tok, counts))
    report.audit.name = unique_labels([args.model], [tok])[0]
    if args.weights:
        from tokviz.core.analysis.embedding_audit import embedding_indicators

        report.weights = embedding_indicators(report.audit, args.weights, args.tensor, reference)
    emit: dict[str, Callable[[Report, int, IO[str]], None]] = {
        "table": write_table,
        "markdown": write_markdown,
        "json": write_json,
        "csv": write_csv,
    }
    if not args.quiet:  # first: the classes below rest on it
        note_assumptions([report.audit.name], [tok])
    emit[args.format](report, args.top, sys.stdout)
    return 0


def parse_ids(text: str) -> list[int]:
    """``1,2,5-9`` as ``[1, 2, 5, 6, 7, 8, 9]`` (a usage error for anything else)."""
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.strip().partition("-")
        if not low.isdigit() or (high and not high.isdigit()):
            raise UsageError(f"--unused-ids: {part.strip()!r} is not an id or a range like 5-9")
        first, last = int(low), int(high or low)
        if last < first or last - first > 10_000_000:
            raise UsageError(f"--unused-ids: the range {part.strip()} is empty or too long")
        out.extend(range(first, last + 1))
    return out


def _corpus_counts(args: argparse.Namespace, tok: Any) -> np.ndarray:
    from tokviz.core.analysis.usage import count_files
    from tokviz.core.corpus.documents import CorpusReader

    selection = select_corpus(args, args.corpus, "replace")
    reader = CorpusReader(read_options(args), "replace")
    counts = count_files(tok, selection.corpus_files(), errors="replace", reader=reader).counts
    say_reading(reader.summary())
    return counts


# ----------------------------------------------------------------------------- what is shown
def _about(r: Report) -> str:
    a = r.audit
    where = f"; {len(a.unused_ids):,} never produced on the corpus" if a.counts is not None else ""
    return f"{terminal_text(a.name)}: {len(a.ids):,} tokens audited{where}"


def _list_rows(a: VocabularyAudit, name: str, top: int, label: Callable[[bytes], str]) -> list[list[str]]:
    tok = a.tokenizer
    rows = []
    for i in a.ids_of(name)[:top].tolist():
        data = tok.vocab[i]
        again = "" if name in ("special", "partial_utf8") else _reencoded(tok, data)
        count = a.count_of(i)
        rows.append([str(i), label(data), again, "" if count is None else f"{count:,}"])
    return rows


def _reencoded(tok: Any, data: bytes) -> str:
    """What the token's text encodes as instead: its ids."""
    ids = tok.encode_ordinary(data.decode("utf-8"))
    return " ".join(str(i) for i in ids[:8]) + (" …" if len(ids) > 8 else "")


_LIST_HEADERS = ["id", "token", "re-encodes as", "count"]
# What the weights report says of a row holding a NaN or an infinite value (its own class).
NOT_FINITE = "not finite"
_WEIGHT_HEADERS = ["rank", "id", "class", "norm", "distance", "token"]


def _weight_rows(r: Report, top: int, label: Callable[[bytes], str]) -> list[list[str]]:
    w = r.weights
    if w is None:
        return []
    position = {int(i): k for k, i in enumerate(w.ids.tolist())}
    ranks = w.ranks()
    rows = []
    for i in w.likely_ids()[:top].tolist():
        k = position[i]
        distance = "" if np.isnan(w.distances[k]) else f"{w.distances[k]:.4f}"
        rows.append(
            [
                str(ranks[k]),
                str(i),
                r.audit.class_of(i),
                f"{w.norms[k]:.4g}",
                distance,
                label(r.audit.tokenizer.vocab[i]),
            ]
        )
    for i in w.not_finite_ids()[:top].tolist():
        rows.append(["", str(i), r.audit.class_of(i), NOT_FINITE, "", label(r.audit.tokenizer.vocab[i])])
    return rows


def _weights_line(w: EmbeddingIndicators) -> str:
    line = f"embedding {w.tensor} {list(w.shape)}: {int(w.likely.sum()):,} likely under-trained ({w.rule()})"
    bad = int(w.not_finite.sum())
    if bad:
        line += f"; {bad:,} {'rows' if bad != 1 else 'row'} not finite (a NaN or an infinite value), left out"
    return line


def write_table(r: Report, top: int, out: IO[str]) -> None:
    """The counts per class, then up to ``top`` tokens of each class that is not OK."""
    _write(r, top, out, render_table, token_label, "{}:")


def write_markdown(r: Report, top: int, out: IO[str]) -> None:
    """The same report as markdown tables, for a design doc."""
    out.write(f"## {terminal_text(r.audit.name)}\n\n")
    _write(r, top, out, render_markdown, token_label, "{}:\n")


def _write(
    r: Report,
    top: int,
    out: IO[str],
    table: Callable[[Sequence[str], Sequence[Sequence[str]], Sequence[bool]], str],
    label: Callable[[bytes], str],
    heading: str,
) -> None:
    from tokviz.core.analysis.audit import CLASS_LABELS

    a = r.audit
    out.write(_about(r) + "\n")
    out.write(
        "".join(f"assumed: {x} (the classes below rest on that guess)\n" for x in a.tokenizer.assumptions)
    )
    out.write("\n" + table(["class", "tokens", "meaning"], a.summary_rows(), [False, True, False]) + "\n")
    for name in LISTED if top else ():
        rows = _list_rows(a, name, top, label)
        if not rows:
            continue
        keep = (
            [0, 1]
            + ([2] if name in ("unreachable", "sequence_only") else [])
            + ([3] if a.counts is not None else [])
        )
        headers = [_LIST_HEADERS[c] for c in keep]
        right = [c in (0, 3) for c in keep]
        rows = [[row[c] for c in keep] for row in rows]
        total = a.class_counts()[name]
        more = f", the first {len(rows):,}" if total > len(rows) else ""
        guessed = a.tokenizer.pattern_assumed and name in ("unreachable", "sequence_only")
        title = CLASS_LABELS[name] + (" with the assumed pre-tokenizer" if guessed else "")
        out.write("\n" + heading.format(f"{title} ({total:,}{more})") + "\n")
        out.write(table(headers, rows, right) + "\n")
    if r.weights is not None:
        out.write("\n" + _weights_line(r.weights) + "\n")
        rows = _weight_rows(r, top, label)
        if rows:
            out.write(table(_WEIGHT_HEADERS, rows, [True, True, False, True, True, False]) + "\n")


def report_json(r: Report, top: int) -> dict[str, Any]:
    """The report as plain JSON values."""
    a = r.audit
    tok = a.tokenizer
    out: dict[str, Any] = {
        "tokenizer": a.name,
        "tokens": len(a.ids),
        "assumptions": list(tok.assumptions),
        "classes": a.class_counts(),
        "unused_on_corpus": None if a.counts is None else len(a.unused_ids),
        "listed": {
            name: [
                {
                    "id": i,
                    "text": text_or_hex(tok.vocab[i]),
                    "hex": tok.vocab[i].hex(),
                    "count": a.count_of(i),
                }
                for i in ids
            ]
            for name in LISTED
            for ids in [a.ids_of(name)[:top].tolist()]
        },
    }
    w = r.weights
    if w is not None:
        position = {int(i): k for k, i in enumerate(w.ids.tolist())}
        ranks = w.ranks()
        out["weights"] = {
            "tensor": w.tensor,
            "shape": list(w.shape),
            "rule": w.rule(),
            "reference": len(w.reference),
            "likely_undertrained": int(w.likely.sum()),
            "not_finite": int(w.not_finite.sum()),
            "not_finite_ids": w.not_finite_ids()[:top].tolist(),
            "most_suspect": [
                {
                    "rank": int(ranks[position[i]]),
                    "id": i,
                    "norm": round(float(w.norms[position[i]]), 6),
                    "distance": None if not w.has_reference else round(float(w.distances[position[i]]), 6),
                    "text": text_or_hex(tok.vocab[i]),
                }
                for i in w.likely_ids()[:top].tolist()
            ],
        }
    return out


def write_json(r: Report, top: int, out: IO[str]) -> None:
    """The report as one JSON object."""
    print_json(report_json(r, top), out)


CSV_FIELDS = ("id", "token", "hex", "class", "count", "norm", "distance", "rank", "likely_undertrained")


def write_csv(r: Report, _top: int, out: IO[str]) -> None:
    """One row per audited token: class, corpus count, and the embedding indicators when given."""
    from tokviz.core.analysis.audit import CLASSES

    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
    writer.writerow(CSV_FIELDS)
    a = r.audit
    w = r.weights
    ranks = w.ranks() if w is not None else None
    vocab = a.tokenizer.vocab
    for k, i in enumerate(a.ids.tolist()):
        data = vocab[i]
        count = a.count_of(i)
        row: list[Any] = [
            i,
            text_or_hex(data),
            data.hex(),
            CLASSES[int(a.classes[k])],
            "" if count is None else count,
        ]
        if w is not None and ranks is not None and w.not_finite[k]:
            row += ["", "", int(ranks[k]), NOT_FINITE]
        elif w is not None and ranks is not None:
            distance = "" if np.isnan(w.distances[k]) else round(float(w.distances[k]), 6)
            row += [round(float(w.norms[k]), 6), distance, int(ranks[k]), "yes" if w.likely[k] else "no"]
        else:
            row += ["", "", "", ""]
        writer.writerow([csv_cell(v) for v in row])
