"""Real tokenizer files from public models: does tokviz give the reference library's ids, and how fast?

For every case of ``tests/core/real_files.py`` (Whisper's multilingual vocabulary as a folder, a
``tokenizer.json`` and a ``.tiktoken`` file; SentencePiece's test models; Mistral's v1 model;
tokenizer.json files converted from them by ``transformers``; a BERT WordPiece folder) this loads
the file with tokviz and with its reference library, encodes each line of the multilingual corpus
(``tests/multilingual.py``) with both and prints one table row: load times, lines whose ids differ,
lines whose decoded text differs, whether ``encode_spans`` tiles each line, and encode speed (MB/s
of UTF-8, one thread, best of ``--repeat``) for both. Nothing is downloaded.

    python benchmarks/bench_real_files.py [--lines 30000] [--repeat 1] [--only SUBSTRING ...]
        [--extra FILE_OR_FOLDER ...] [--extra-only]

The exit status is 1 when any line's ids differ, so the script doubles as an acceptance check.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.core.real_files import RealCase, available, case_for, quiet_transformers, real_cases  # noqa: E402
from tests.multilingual import corpus_lines  # noqa: E402


def spans_tile(tokenizer: Any, line: str, ids: list[int]) -> bool:
    """Whether ``encode_spans`` gives the ids of ``encode`` in order, on the line, none going back."""
    spans = tokenizer.encode_spans(line)
    if [s.id for s in spans] != ids:
        return False
    last = 0
    for s in spans:
        if not (0 <= s.start <= s.end <= len(line)) or s.start < last and not s.partial:
            return False
        last = max(last, s.start)
    return True


def _best(repeat: int, run: Any) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - t)
    return best, result


def measure(case: RealCase, lines: list[str], repeat: int, folder: Path) -> dict[str, Any]:
    """One row: load both, encode ``lines`` with both, compare ids, decoded text and spans."""
    from tokviz.core.errors import TokvizError
    from tokviz.core.formats.registry import load_tokenizer

    path = case.build(folder)
    row: dict[str, Any] = {"file": case.name, "kind": case.kind, "reference": case.reference_name}
    try:
        load_s, tokenizer = _best(repeat, lambda: load_tokenizer(path, **case.load_kwargs))
    except TokvizError as exc:
        row["loads"] = f"refused: {exc}"
        return row
    ref_load_s, ref = _best(repeat, lambda: case.load_reference(path))
    row.update(loads="yes", load_s=load_s, ref_load_s=ref_load_s)
    mb = sum(len(line.encode("utf-8")) for line in lines) / 1e6
    enc_s, ours = _best(repeat, lambda: [tokenizer.encode(line) for line in lines])
    ref_s, theirs = _best(repeat, lambda: [case.encode_reference(ref, line) for line in lines])
    row.update(mbps=mb / enc_s, ref_mbps=mb / ref_s)
    differ = [i for i, (a, b) in enumerate(zip(ours, theirs, strict=True)) if a != b]
    row["id_diffs"] = len(differ)
    row["examples"] = [(lines[i], ours[i], theirs[i]) for i in differ[:3]]
    row["decode_diffs"] = sum(
        tokenizer.decode(ids) != case.decode_reference(ref, ids) for ids in theirs[: len(lines) // 10 or 1]
    )
    step = max(1, len(lines) // 2000)
    row["spans_bad"] = sum(not spans_tile(tokenizer, lines[i], ours[i]) for i in range(0, len(lines), step))
    return row


def main(argv: list[str] | None = None) -> int:
    """Print the table (markdown); exit 1 if any case's ids differ from its reference's."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=30_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="*", default=[], help="run the cases whose name holds one of these")
    parser.add_argument("--examples", action="store_true", help="print the first differing lines")
    parser.add_argument(
        "--extra",
        nargs="*",
        default=[],
        type=Path,
        help="your own files or folders too (a folder against transformers, tokenizer.json against "
        "tokenizers, .tiktoken against tiktoken, anything else against sentencepiece)",
    )
    parser.add_argument("--extra-only", action="store_true", help="run only the --extra files")
    args = parser.parse_args(argv)
    quiet_transformers()
    lines = corpus_lines(args.lines)
    print(f"{len(lines):,} lines, {sum(len(x.encode()) for x in lines) / 1e6:.2f} MB of UTF-8\n")
    print(
        "| file | kind | loads | lines with other ids | decode differs | spans bad | load s (ref) "
        "| encode MB/s (ref) |"
    )
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    failed = False
    builtin = [] if args.extra_only else real_cases()
    for case in [*builtin, *map(case_for, args.extra)]:
        if args.only and not any(o.lower() in case.name.lower() for o in args.only):
            continue
        missing = available(case)
        if missing:
            print(f"| {case.name} | {case.kind} | skipped: {missing} | | | | | |")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            row = measure(case, lines, args.repeat, Path(tmp))
        if row["loads"] != "yes":
            print(f"| {row['file']} | {row['kind']} | {row['loads']} | | | | | |")
            failed = True
            continue
        failed |= row["id_diffs"] > 0
        print(
            f"| {row['file']} | {row['kind']} | yes | {row['id_diffs']:,} | {row['decode_diffs']:,} "
            f"| {row['spans_bad']} | {row['load_s']:.3f} ({row['ref_load_s']:.3f}) "
            f"| {row['mbps']:.2f} ({row['ref_mbps']:.2f}) |",
            flush=True,
        )
        if args.examples:
            for line, a, b in row["examples"]:
                print(f"    {line!r}\n      tokviz {a}\n      ref    {b}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
