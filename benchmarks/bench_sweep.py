"""Vocabulary-size sweep on 10 MB: one pass for every size, against one encoding per size.

Run: ``python benchmarks/bench_sweep.py [--mb 10] [--tokenizer gpt2] [--sizes 1000,2000,...]``

The text is the ``stdlib`` corpus (:mod:`corpora`) cut to ``--mb`` megabytes, in one file. tokviz
sweeps every prefix of the tokenizer's merge list over it (:func:`tokviz.core.analysis.sweep.sweep_files`:
one encoding of the file, then one step per merge). The reference, in the same run, builds the
prefix tokenizer of each of ``--sizes`` (:func:`tokviz.core.analysis.sweep.prefix_tokenizer`, tiktoken's
engine where the merge list allows it, as it does for GPT-2) and encodes the file with it; its
token count must equal the sweep's at that size. The reference's cost for every size is its mean
per size times the number of sizes the sweep gives. Times are CPU seconds of this process (the
machine may be shared). Target: the sweep costs at most 2x one encoding.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpora import corpus_path  # noqa: E402

TARGET_RATIO = 2.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10.0, help="megabytes of text (default 10)")
    parser.add_argument("--tokenizer", default="gpt2", help="a BPE tokenizer (default gpt2)")
    parser.add_argument("--sizes", default="1000,2000,4000,8000,16000,32000", help="reference sizes")
    args = parser.parse_args()

    from tokviz.core.analysis.sweep import prefix_tokenizer, sweep_files
    from tokviz.core.analysis.usage import count_files
    from tokviz.core.corpus.fileselect import select_files
    from tokviz.core.formats.registry import load_tokenizer

    data = corpus_path("stdlib").read_bytes()[: int(args.mb * 1_000_000)]
    text = data.decode("utf-8", errors="ignore")
    tok = load_tokenizer(args.tokenizer)
    tok.merge_rank_of_id  # noqa: B018 - the merge tables, built once per tokenizer in any use
    tok.encode("a warm engine for both sides")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "heldout.py"
        path.write_text(text, encoding="utf-8")
        selection = select_files([str(path)])
        mb = path.stat().st_size / 1e6
        print(f"text: {mb:.1f} MB of stdlib sources; {tok.name}, {tok.merge_count:,} merges")

        start = time.process_time()
        counted = count_files(tok, [path])
        encode_once = time.process_time() - start
        start = time.process_time()
        sweep = sweep_files(tok, selection)
        swept = time.process_time() - start
        print(
            f"one encoding with every merge:           {encode_once:6.2f} s ({counted.tokens:,} tokens)\n"
            f"sweep, all {tok.merge_count + 1:,} sizes in one pass:    {swept:6.2f} s "
            f"({swept / encode_once:.2f}x one encoding; target <= {TARGET_RATIO:.0f}x: "
            f"{'OK' if swept <= TARGET_RATIO * encode_once else 'OVER'})"
        )

        per_size = []
        for size in (int(s) for s in args.sizes.split(",")):
            prefix = prefix_tokenizer(tok, size)
            start = time.process_time()
            tokens = count_files(prefix, [path]).tokens
            per_size.append(time.process_time() - start)
            expected = int(sweep.total.steps.tokens[size - sweep.base_size])
            status = "same" if tokens == expected else f"DIFFERS (sweep {expected:,})"
            print(
                f"reference: encode with the {size:>6,}-token prefix  {per_size[-1]:6.2f} s  {tokens:,} tokens, {status}"
            )
            if tokens != expected:
                return 1
        mean = statistics.mean(per_size)
        every = mean * (tok.merge_count + 1)
        print(
            f"reference, one encoding per size: {mean:.2f} s a size; for all {tok.merge_count + 1:,} sizes "
            f"about {every / 3600:.1f} h; the sweep is {swept / every:.6f}x of that "
            f"({swept / mean:.2f}x of ONE size's encoding)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
