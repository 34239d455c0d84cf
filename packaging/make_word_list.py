"""Make resources/words/words.tsv, the vocabulary of tokviz's built-in ``words`` tokenizer.

The words are counted in the Python documentation topics (``pydoc_data.topics``, which ships with
every Python and is what ``help()`` shows) and in tokviz's samples (resources/samples), cut as the
words tokenizer cuts text (:data:`tokviz.core.bpe.lecture_tokenizers.WORDS_PATTERN`). Pieces seen at
least twice are kept, most frequent first: a fixed word-level vocabulary of real size, so that a word
it never saw becomes ``<unk>``. Run from the repository root after changing the samples:

    python packaging/make_word_list.py [resources/words/words.tsv]
"""

from __future__ import annotations

import platform
import sys
from collections import Counter
from pathlib import Path

import regex

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tokviz.core.bpe.lecture_tokenizers import WORDS_PATTERN, escape_piece  # noqa: E402

MIN_COUNT = 2


def corpus_texts() -> list[str]:
    """The Python documentation topics (in key order), then each sample file (in name order)."""
    from pydoc_data.topics import topics

    texts = ["\n\n".join(topics[k] for k in sorted(topics))]
    for sample in sorted((ROOT / "resources" / "samples").iterdir()):
        texts.append(sample.read_text(encoding="utf-8"))
    return texts


def main(out: Path) -> None:
    counts: Counter[str] = Counter()
    pattern = regex.compile(WORDS_PATTERN)
    for text in corpus_texts():
        counts.update(m.group() for m in pattern.finditer(text))
    kept = [(w, n) for w, n in counts.most_common() if n >= MIN_COUNT]
    version = platform.python_version()  # the topics change between patch releases too
    lines = [
        "# The words tokenizer's vocabulary: word<TAB>count, most frequent first.",
        "# Made by packaging/make_word_list.py from the Python documentation topics",
        f"# (pydoc_data.topics of Python {version}) and tokviz's samples (resources/samples);",
        f"# pieces seen at least {MIN_COUNT} times. \\t, \\n, \\r and \\\\ stand for tab, newline, CR, backslash.",
    ]
    lines += [f"{escape_piece(w)}\t{n}" for w, n in kept]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{out}: {len(kept):,} words")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "words" / "words.tsv")
