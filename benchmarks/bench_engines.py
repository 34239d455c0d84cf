"""Unigram, SentencePiece BPE and WordPiece through ``tokviz train`` against the library called directly.

    python benchmarks/bench_engines.py                  # 5 MB of stdlib sources, vocabulary 8000, 3 rounds
    python benchmarks/bench_engines.py --mb 20 --vocab-size 16000 --rounds 1

Both sides run as a user runs them, each in a fresh process, timed from start to exit:

* tokviz: ``python -m tokviz train CORPUS --algorithm A --vocab-size V -o FILE`` (reading the
  corpus, the worker process, the progress, the model and its options record written);
* the library: a Python script that reads the same file's lines and calls the library with the
  options tokviz recorded (``SentencePieceTrainer.train(sentence_iterator=..., model_writer=...)``,
  or ``Tokenizer.train_from_iterator`` with a ``WordPieceTrainer``), then writes the model. For
  sentencepiece, the library reading the file itself (``input=FILE``) is timed too.

The rounds alternate the sides, and the best time of each is compared (the machine is shared:
the best is the run least disturbed). The script checks that sentencepiece's models are equal
piece for piece and score for score, and WordPiece's vocabularies equal as sets of tokens (the
library numbers tokens of equal counts in hash order, and at larger sizes breaks ties between
merges by those numbers, huggingface/tokenizers#1794: "NO" there is the library's own variation).
The corpus is the first ``--mb`` MB of ``corpora.py``'s ``stdlib`` corpus, cut at a line end.

Both sides import their modules as an installed package does (from cached bytecode): run it
without ``PYTHONDONTWRITEBYTECODE``, or every start compiles tokviz's sources again.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from corpora import cache_dir, corpus_path  # noqa: E402

ALGORITHMS = ("unigram", "sentencepiece-bpe", "wordpiece")
SUFFIX = {"unigram": ".model", "sentencepiece-bpe": ".model", "wordpiece": ".json"}

DIRECT = r"""
import io, json, sys
corpus, options_file, out, how = sys.argv[1:5]
options = json.load(open(options_file, encoding="utf-8"))
if how == "spm-input":
    import sentencepiece as spm
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(input=corpus, model_writer=model, **options)
    open(out, "wb").write(model.getvalue())
    raise SystemExit(0)
with open(corpus, encoding="utf-8") as fh:
    lines = [line for line in fh.read().split("\n") if line]
if how == "spm":
    import sentencepiece as spm
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_writer=model, **options)
    open(out, "wb").write(model.getvalue())
else:
    from tokenizers import Tokenizer
    from tokenizers.trainers import WordPieceTrainer
    tok = Tokenizer.from_str(json.dumps(options["tokenizer"]))
    tok.train_from_iterator(lines, WordPieceTrainer(**options["trainer"]))
    tok.save(out)
"""


def prefix_corpus(mb: float) -> Path:
    """The first ``mb`` MB of the stdlib corpus, cut at a line end, built once into the cache."""
    target = cache_dir() / f"stdlib-{mb:g}mb.txt"
    if not target.exists():
        data = corpus_path("stdlib").read_bytes()[: int(mb * 1_000_000)]
        target.write_bytes(data[: data.rfind(b"\n") + 1])
    return target


def timed(argv: list[str]) -> float:
    """Seconds from start to exit of ``argv`` (which must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:6])} failed:\n{done.stderr[-2000:]}")
    return seconds


def tokviz_run(corpus: Path, algorithm: str, vocab: int, out: Path) -> float:
    for path in (out, out.with_name(out.name + ".json")):
        path.unlink(missing_ok=True)
    return timed(
        [sys.executable, "-m", "tokviz", "train", str(corpus), "--algorithm", algorithm]
        + ["--vocab-size", str(vocab), "-o", str(out)]
    )


def same_model(algorithm: str, ours: Path, theirs: Path) -> bool:
    if algorithm == "wordpiece":
        from tokenizers import Tokenizer

        return set(Tokenizer.from_file(str(ours)).get_vocab()) == set(
            Tokenizer.from_file(str(theirs)).get_vocab()
        )
    import sentencepiece as spm

    def pieces(path: Path) -> list[tuple[str, float]]:
        sp = spm.SentencePieceProcessor(model_file=str(path))
        return [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]

    return pieces(ours) == pieces(theirs)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mb", type=float, default=5.0, help="corpus size in MB (default 5)")
    parser.add_argument("--vocab-size", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--algorithms", nargs="+", choices=ALGORITHMS, default=list(ALGORITHMS))
    args = parser.parse_args()
    corpus = prefix_corpus(args.mb)
    print(
        f"{platform.node()} {platform.machine()} nproc {os.cpu_count()} Python {platform.python_version()}; "
        f"load {os.getloadavg()[0]:.2f}; corpus {corpus.stat().st_size / 1e6:.2f} MB, vocabulary {args.vocab_size}"
    )
    work = Path(tempfile.mkdtemp(prefix="bench-engines-"))
    print(
        "| algorithm | tokviz train (best) | library, sentences from Python (best) | ratio | library reads the file | same model |"
    )
    print("|---|---|---|---|---|---|")
    for algorithm in args.algorithms:
        ours = work / f"ours{SUFFIX[algorithm]}"
        theirs = work / f"theirs{SUFFIX[algorithm]}"
        options_file = work / "options.json"
        spm_side = algorithm != "wordpiece"
        tokviz_times, direct_times, input_times = [], [], []
        for round_ in range(args.rounds):
            tokviz_times.append(tokviz_run(corpus, algorithm, args.vocab_size, ours))
            if round_ == 0:
                record = json.loads(ours.with_name(ours.name + ".json").read_text(encoding="utf-8"))
                options_file.write_text(json.dumps(record["trainer"]["options"]), encoding="utf-8")
            how = "spm" if spm_side else "wordpiece"
            direct = [sys.executable, "-c", DIRECT, str(corpus), str(options_file), str(theirs)]
            direct_times.append(timed([*direct, how]))
            if spm_side:
                input_times.append(timed([*direct[:-1], str(work / "input.model"), "spm-input"]))
        same = same_model(algorithm, ours, theirs)
        best, reference = min(tokviz_times), min(direct_times)
        reads = f"{min(input_times):.2f} s" if input_times else "-"
        print(
            f"| {algorithm} | {best:.2f} s | {reference:.2f} s | {best / reference:.2f}x | {reads} | {'yes' if same else 'NO'} |"
        )
        sys.stdout.flush()
    print(f"load {os.getloadavg()[0]:.2f} at the end; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
