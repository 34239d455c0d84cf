"""``tokviz finish PATH``: put in place the outputs a stopped run left half replaced.

A run writes its outputs (a model file, its exports) to temporary files and renames them into
place together, with a journal beside each until the last rename. A run killed among the renames
leaves some outputs new and others old; every reader refuses them, naming the set. This finishes
the renames the journal lists, as the next run writing the same outputs would, and says which.
"""

from __future__ import annotations

import argparse

from tokviz.cli.command import print_note


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="any output of the set (a model file, an exported file or folder)",
    )


def run(args: argparse.Namespace) -> int:
    """Finish the set of each path; say what was finished, or that the set was already whole."""
    from tokviz.core.io.outputs import finish_set

    for path in args.paths:
        found = finish_set(path)
        if found is None:
            print_note(f"{path}: nothing to finish (its outputs are whole)")
        else:
            print_note(f"{path}: finished the outputs {found.names()}")
    return 0
