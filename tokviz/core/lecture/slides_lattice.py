"""The lattice slides: a word's segmentation lattice under a unigram model, and BPE against Unigram.

``lattice`` shows every piece of a unigram model that matches inside a word, with its
log-probability, the best path (Viterbi) and the N best segmentations with their scores, as the
library gives them (:mod:`tokviz.core.analysis.lattice`). ``greedy`` asks the lecture's question,
"is greedy merging optimal?": the same text under a BPE and a Unigram model trained by sentencepiece
at the same size on the same corpus (bundled: resources/models), and the lattice of a word they
cut differently, with BPE's cut scored under the Unigram model where it is a path of its lattice.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.lattice import Lattice, lattice_problem, sample_segmentations, segment_lattice
from ..analysis.lattice_paths import score_on
from ..bpe.tokenizer import Tokenizer
from ..io.resources import resource_path
from .blocks import Block, Built, ChipRow, LatticeBlock, SlideInput, Table, Words, token_chips

BUNDLED = {
    "unigram": ("models", "pydocs-unigram-2000.model"),
    "bpe": ("models", "pydocs-bpe-2000.model"),
}
"""The lecture's pair (resources/models/README.md): 2,000 pieces each, on the Python docs."""


MAX_LATTICE_CHARS = 40
"""A slide's lattice is of a word or a short phrase: a longer text typed live is cut here."""


def _model(s: SlideInput, key: str, bundled: str) -> Tokenizer:
    """The model a slide names under ``key``, or the bundled one of that kind."""
    name = str(s.slide.get(key))
    return s.load(name) if name else s.load(str(resource_path(*BUNDLED[bundled])))


def _pieces(pieces: Sequence[str]) -> str:
    return " | ".join(pieces)


def _nbest_table(lattice: Lattice) -> Table:
    rows = tuple(
        (str(rank), _pieces(seg.pieces), str(len(seg.pieces)), f"{seg.score:.2f}")
        for rank, seg in enumerate(lattice.nbest, 1)
    )
    return Table(("#", "segmentation", "pieces", "log p"), rows, (True, False, True, True), (0,))


def _lattice_caption(word: str, tok: Tokenizer) -> str:
    return f"“{word}” under {tok.name}: each piece that matches, with its log-probability; outlined, the best path"


def lattice_slide(s: SlideInput, _step: int) -> Built:
    """A word's lattice, its best path and its N best segmentations under a unigram model."""
    tok = _model(s, "model", "unigram")
    problem = lattice_problem(tok)
    if problem is not None:
        return [Words(f"{tok.name}: {problem}", tone="bad")], {}
    text = s.text[:MAX_LATTICE_CHARS]
    lattice = segment_lattice(tok, text, int(s.slide.get("nbest")))
    blocks: list[Block] = [LatticeBlock(_lattice_caption(text, tok), lattice), _nbest_table(lattice)]
    if len(s.text) > MAX_LATTICE_CHARS:
        blocks.append(Words(f"the lattice of the first {MAX_LATTICE_CHARS} characters", tone="muted"))
    figures = {
        "best": _pieces(lattice.best.pieces),
        "best log p": f"{lattice.best.score:.4f}",
        "pieces in the lattice": str(len(lattice.pieces)),
    }
    figures.update({f"best {rank}": _pieces(seg.pieces) for rank, seg in enumerate(lattice.nbest, 1)})
    return blocks, figures


def _word(s: SlideInput, bpe: Tokenizer, unigram: Tokenizer) -> str:
    """The slide's word, or the first of its text the two models cut differently (else the first)."""
    chosen = str(s.slide.get("word"))
    if chosen:
        return chosen
    words = s.text.split()
    different = (w for w in words if bpe.encode(w) and _cut(bpe, w) != _cut(unigram, w))
    return next(different, words[0] if words else s.text)


def _cut(tok: Tokenizer, text: str) -> tuple[bytes, ...]:
    return tuple(span.bytes for span in tok.encode_spans(text))


def greedy_slide(s: SlideInput, _step: int) -> Built:
    """The same text under BPE and Unigram of one size and corpus, and the lattice of a word."""
    bpe, unigram = _model(s, "bpe", "bpe"), _model(s, "unigram", "unigram")
    problem = lattice_problem(unigram)
    if problem is not None:
        return [Words(f"{unigram.name}: {problem}", tone="bad")], {}
    blocks: list[Block] = []
    figures: dict[str, str] = {}
    for label, tok in (("BPE", bpe), ("Unigram", unigram)):
        spans = tok.encode_spans(s.text)
        caption = f"{label} ({tok.name}, {tok.vocab_size:,} pieces): {len(spans):,} tokens"
        blocks.append(ChipRow(caption, token_chips(spans, tok, ids=False)))
        figures[f"{label} tokens"] = str(len(spans))
    word = _word(s, bpe, unigram)
    lattice = segment_lattice(unigram, word, 2)
    # Dropout 0 is BPE's own cut, with its pieces spelled as the model spells them.
    bpe_cut = sample_segmentations(bpe, word, count=1, seed=0, dropout=0.0)[0].pieces
    blocks.append(LatticeBlock(f"“{word}” in Unigram's lattice: outlined, its most probable cut", lattice))
    best = lattice.best
    on_lattice = score_on(lattice, bpe_cut)
    if on_lattice is None:
        verdict = (
            f"BPE's cut {_pieces(bpe_cut)} is not even a path here: Unigram keeps none of its odd pieces."
        )
    else:
        verdict = f"BPE's cut {_pieces(bpe_cut)} is a path here too, but scores {on_lattice:.2f} against {best.score:.2f}."
    blocks.append(Words(verdict))
    figures.update({"word": word, "BPE cut": _pieces(bpe_cut), "Unigram cut": _pieces(best.pieces)})
    figures["Unigram log p"] = f"{best.score:.4f}"
    if on_lattice is not None:
        figures["BPE cut log p"] = f"{on_lattice:.4f}"
    return blocks, figures
