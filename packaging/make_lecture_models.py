"""Make resources/models/pydocs-unigram-2000.model and pydocs-bpe-2000.model, the lecture's pair.

The lecture asks whether greedy merging is optimal, and answers it with two SentencePiece models
trained by the sentencepiece library itself at the same size (2,000 pieces) on the same corpus:
one Unigram (a probabilistic segmentation model, with a lattice) and one BPE (greedy merges). The
corpus is the one the built-in ``words`` tokenizer counts (packaging/make_word_list.py): the Python
documentation topics (``pydoc_data.topics``, in key order) and tokviz's samples (resources/samples,
in name order), one non-empty line a sentence. The models are bundled rather than trained when a
deck is shown: the Unigram takes several seconds to train, and a bundled file gives every machine
the same slide. The options are :data:`OPTIONS`, recorded in each model's trainer spec; one thread,
so that the EM sums run in one order and the run repeats byte for byte. Run from the repository
root after changing the samples:

    python packaging/make_lecture_models.py [FOLDER]

It writes the two models and ``README.md`` (their provenance and SHA-256) into FOLDER
(resources/models by default).
"""

from __future__ import annotations

import hashlib
import io
import platform
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VOCAB_SIZE = 2000
MODELS = {"unigram": f"pydocs-unigram-{VOCAB_SIZE}.model", "bpe": f"pydocs-bpe-{VOCAB_SIZE}.model"}
OPTIONS: dict[str, Any] = {
    "vocab_size": VOCAB_SIZE,
    # No normalizer: the pieces are the text's own characters, and the files stay small (an NFKC
    # model carries a 240 KB character map).
    "normalization_rule_name": "identity",
    "character_coverage": 1.0,
    "num_threads": 1,
    "minloglevel": 2,
}


def corpus_lines() -> Iterator[str]:
    """The Python documentation topics (in key order), then each sample file (in name order), by line."""
    from pydoc_data.topics import topics

    texts = ["\n\n".join(topics[k] for k in sorted(topics))]
    texts += [
        sample.read_text(encoding="utf-8") for sample in sorted((ROOT / "resources" / "samples").iterdir())
    ]
    for text in texts:
        yield from (line for line in text.splitlines() if line.strip())


def train(model_type: str) -> bytes:
    """One model's bytes, as ``SentencePieceTrainer.train`` writes them with :data:`OPTIONS`."""
    import sentencepiece

    out = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=corpus_lines(), model_writer=out, model_type=model_type, **OPTIONS
    )
    return out.getvalue()


def main(folder: Path) -> None:
    import sentencepiece

    folder.mkdir(parents=True, exist_ok=True)
    sums = []
    for model_type, name in MODELS.items():
        data = train(model_type)
        (folder / name).write_bytes(data)
        sums.append(f"{hashlib.sha256(data).hexdigest()}  {name}")
        print(f"{folder / name}: {len(data):,} bytes")
    options = ", ".join(f"{k}={v!r}" for k, v in OPTIONS.items())
    readme = (
        f"""# The lecture's Unigram and BPE models

Two SentencePiece models trained by sentencepiece {sentencepiece.__version__} at the same size on
the same corpus, for the lecture's lattice slides ("is greedy merging optimal?"):
{MODELS["unigram"]} (model_type="unigram") and {MODELS["bpe"]} (model_type="bpe").

Made by packaging/make_lecture_models.py with Python {platform.python_version()}: the corpus is the
Python documentation topics (pydoc_data.topics, which change between Python releases) and tokviz's
samples (resources/samples), one non-empty line a sentence, passed to
`sentencepiece.SentencePieceTrainer.train(sentence_iterator=..., model_type=..., {options})`.
Each model records these options in its trainer spec. Released with tokviz under its license.

SHA-256 of each file:
"""
        + "\n".join(sums)
        + "\n"
    )
    (folder / "README.md").write_text(readme, encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "models")
