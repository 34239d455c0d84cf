"""``tokviz segment``: a unigram model's segmentation lattice, its N best and sampled segmentations.

For a unigram model (a SentencePiece ``.model``, a ``tokenizer.json`` Unigram) it prints every piece that matches in the
normalized text with its log-probability (★ on the best path), the N best segmentations with
their scores (the library's ``NBestEncode``) and, with ``--sample``, segmentations drawn by
subword regularization (``--alpha``, ``--seed``). A BPE model has no lattice: ``--dropout`` draws
BPE-dropout samples instead. The same seed prints the same samples.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from tokviz.cli.command import UsageError
from tokviz.cli.options import add_input, input_text, load_tokenizer
from tokviz.cli.output import print_json

if TYPE_CHECKING:
    from tokviz.core.analysis.lattice import Lattice, Segmentation

DEFAULT_SAMPLES = 5  # samples drawn when --alpha or --dropout is given without --sample


# The numbers the command takes: flag, type, metavar, default, help.
NUMBERS: tuple[tuple[str, type, str, int | None, str], ...] = (
    ("--nbest", int, "N", 5, "best segmentations to show (default: 5)"),
    (
        "--sample",
        int,
        "N",
        None,
        f"draw N segmentations (default {DEFAULT_SAMPLES} with --alpha or --dropout)",
    ),
    ("--alpha", float, "A", None, "unigram sampling smoothing, the inverse temperature (default: 0.1)"),
    ("--dropout", float, "P", None, "BPE-dropout: the chance each merge is left out (default: 0.1)"),
    ("--seed", int, "S", 0, "seed of the samples: the same seed, the same samples (default: 0)"),
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--tokenizer", required=True, metavar="NAME|PATH", help="a tokenizer file or name")
    add_input(p)
    for flag, kind, metavar, default, about in NUMBERS:
        p.add_argument(flag, type=kind, default=default, metavar=metavar, help=about)
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form")


def run(args: argparse.Namespace) -> int:
    from tokviz.core.analysis.lattice import (
        DEFAULT_ALPHA,
        DEFAULT_DROPOUT,
        lattice_problem,
        sample_segmentations,
        segment_lattice,
    )
    from tokviz.core.errors import InvalidArgument

    text = input_text(args)
    tok = load_tokenizer(args.tokenizer)
    sampling = args.sample is not None or args.alpha is not None or args.dropout is not None
    problem = lattice_problem(tok)
    if problem is not None and not sampling:
        raise InvalidArgument(f"{tok.name}: {problem.replace('try dropout', 'try --dropout P')}")
    if args.sample is not None and args.sample < 1:
        raise UsageError(f"--sample must be at least 1, got {args.sample}")
    lattice = segment_lattice(tok, text, nbest=args.nbest) if problem is None else None
    samples: list[Segmentation] = []
    how: dict[str, Any] = {}
    if sampling:
        count = DEFAULT_SAMPLES if args.sample is None else args.sample
        samples = sample_segmentations(
            tok, text, count=count, seed=args.seed, alpha=args.alpha, dropout=args.dropout
        )
        if problem is None:
            how = {"alpha": DEFAULT_ALPHA if args.alpha is None else args.alpha}
        else:
            how = {"dropout": DEFAULT_DROPOUT if args.dropout is None else args.dropout}
        how["seed"] = args.seed
    if args.format == "json":
        print_json(_as_json(tok.name, lattice, samples, how), sys.stdout, indent=1)
    else:
        sys.stdout.write(_as_text(tok.name, problem, lattice, samples, how))
    return 0


def _segmentation_json(seg: Segmentation) -> dict[str, Any]:
    return {"pieces": list(seg.pieces), "ids": list(seg.ids), "score": seg.score}


def _as_json(
    name: str, lattice: Lattice | None, samples: list[Segmentation], how: dict[str, Any]
) -> dict[str, Any]:
    out: dict[str, Any] = {"tokenizer": name}
    if lattice is not None:
        on_path = set(lattice.best_path)
        out.update(
            text=lattice.text,
            note=lattice.note,
            lattice=[
                {
                    "start": p.start,
                    "end": p.end,
                    "piece": p.piece,
                    "id": p.id,
                    "log_prob": p.log_prob,
                    "best": i in on_path,
                }
                for i, p in enumerate(lattice.pieces)
            ],
            best=_segmentation_json(lattice.best),
            nbest=[_segmentation_json(s) for s in lattice.nbest],
        )
    if how:
        out["samples"] = {**how, "segmentations": [_segmentation_json(s) for s in samples]}
    return out


def _pieces(seg: Segmentation) -> str:
    """The pieces apart, a space in one shown as ``·`` (SentencePiece's own are ``▁`` already)."""
    from tokviz.core.io.safe_text import terminal_text
    from tokviz.core.pretok.bytes_ import printable_token

    return " ".join(terminal_text(printable_token(p.encode("utf-8"))) for p in seg.pieces)


def _as_text(
    name: str, problem: str | None, lattice: Lattice | None, samples: list[Segmentation], how: dict[str, Any]
) -> str:
    from tokviz.core.io.safe_text import terminal_text

    lines: list[str] = []
    if lattice is None:
        lines.append(terminal_text(f"{name}: {(problem or '').split(';')[0]}"))
    else:
        lines.append(f"text: {terminal_text(lattice.text)}")
        if lattice.note:
            lines.append(f"note: {lattice.note}")
        lines.append(f"lattice: {len(lattice.pieces)} pieces (★ on the best path)")
        lines.append(f"  {'start':>5} {'end':>5} {'log-prob':>10} {'id':>7}  piece")
        on_path = set(lattice.best_path)
        for i, p in enumerate(lattice.pieces):
            star = " ★" if i in on_path else ""
            lines.append(
                f"  {p.start:>5} {p.end:>5} {p.log_prob:>10.4f} {p.id:>7}  {terminal_text(p.piece)}{star}"
            )
        lines.append(f"best: {lattice.best.score:.4f}  {_pieces(lattice.best)}")
        lines.append(f"{len(lattice.nbest)} best:")
        lines += [f"  {k:>3}  {s.score:>10.4f}  {_pieces(s)}" for k, s in enumerate(lattice.nbest, 1)]
    if how:
        setting = ", ".join(f"{k} {v:g}" for k, v in how.items())
        scored = "alpha" in how
        lines.append(f"{len(samples)} samples ({setting}{'' if scored else '; BPE gives no score'}):")
        for k, s in enumerate(samples, 1):
            figure = f"{s.score:>10.4f}" if scored else f"{len(s.ids):>4} tokens"
            lines.append(f"  {k:>3}  {figure}  {_pieces(s)}")
    return "\n".join(lines) + "\n"
