"""Load time and encode throughput of tokviz against each kind's reference library, as one table.

Every row is one kind of tokenizer file, built here offline (no download): the file is loaded by
tokviz (``load_tokenizer``) and by its reference library, both encode the same multilingual text
(``tests/multilingual.py``) on one thread, and the ids must be equal before the times are shown.
Ratios are tokviz / reference for load time (lower is better) and encode speed (higher is better).

Add a kind with one function in :data:`KINDS`: it gets a folder and returns a :class:`Case`
(the path tokviz loads, and the reference's loader and encoder).

    python benchmarks/bench_load.py [--lines 30000] [--repeat 3] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))


@dataclass
class Case:
    """One kind of tokenizer file: what tokviz loads, and how the reference loads and encodes it."""

    path: Path
    load_reference: Callable[[], Any]
    encode_reference: Callable[[Any, str], list[int]]
    reference_name: str


# ---------------------------------------------------------------------------- one function per kind
def _hf_file(tk: Any, folder: Path) -> Case:
    from tokenizers import Tokenizer as Library

    path = folder / "tokenizer.json"
    tk.save(str(path))
    return Case(
        path,
        lambda: Library.from_file(str(path)),
        lambda ref, text: ref.encode(text, add_special_tokens=False).ids,
        "tokenizers",
    )


def gpt2_tokenizer_json(folder: Path) -> Case:
    """GPT-2's own 50K vocabulary written as a tokenizer.json (byte-level BPE, replay exact)."""
    from tokenizers import Tokenizer as Library

    from tokviz.core.formats import export_hf
    from tokviz.core.formats.registry import load_tokenizer

    export_hf(load_tokenizer("gpt2"), folder / "tokenizer.json")
    return _hf_file(Library.from_file(str(folder / "tokenizer.json")), folder)


def gpt2_vocab_merges(folder: Path) -> Case:
    """GPT-2's vocab.json + merges.txt with transformers 4 side files (GPT2TokenizerFast is the reference)."""
    import json

    from tokviz.core.formats import export_gpt2
    from tokviz.core.formats.registry import load_tokenizer

    export_gpt2(load_tokenizer("gpt2"), folder)
    config = {"tokenizer_class": "GPT2Tokenizer", "add_prefix_space": False}
    (folder / "tokenizer_config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "special_tokens_map.json").write_text(
        json.dumps({"eos_token": "<|endoftext|>"}), encoding="utf-8"
    )

    def load() -> Any:
        from transformers import GPT2TokenizerFast

        return GPT2TokenizerFast.from_pretrained(str(folder))

    return Case(
        folder, load, lambda ref, text: ref(text, add_special_tokens=False)["input_ids"], "transformers"
    )


def _trained(kind: str) -> Any:
    sys.path.insert(0, str(HERE.parent))
    from tests.core import test_hf_engine

    return test_hf_engine.MODELS[kind]()


def nfkc_bpe(folder: Path) -> Case:
    """A byte-level BPE with an NFKC normalizer (GPT-NeoX-style): the library encodes, no replay."""
    return _hf_file(_trained("NFKC"), folder)


def llama_byte_fallback(folder: Path) -> Case:
    """Llama 2's layout in tokenizer.json: ▁ spaces, <0xNN> byte fallback, a BOS template."""
    return _hf_file(_trained("byte fallback"), folder)


def bert_wordpiece(folder: Path) -> Case:
    """BERT's WordPiece (lowercasing normalizer, ## pieces)."""
    return _hf_file(_trained("WordPiece"), folder)


def t5_unigram(folder: Path) -> Case:
    """T5's Unigram with NFKC and Metaspace."""
    return _hf_file(_trained("Unigram"), folder)


def _published_tiktoken(folder: Path, encoding: str) -> Case:
    """A copy of one of OpenAI's rank files: tokviz knows it by its SHA-256; the reference is
    tiktoken's own definition (its pattern and specials) reading the same file with its own loader."""
    import os
    import shutil
    from unittest import mock

    import tiktoken
    import tiktoken_ext.openai_public as public
    from tiktoken.load import load_tiktoken_bpe

    from tokviz.core.io.resources import resource_path

    os.environ["TIKTOKEN_CACHE_DIR"] = ""  # read the local file only, keep no cached copy
    path = folder / f"copy-of-{encoding}.tiktoken"
    shutil.copyfile(resource_path("encodings", f"{encoding}.tiktoken"), path)

    def load() -> Any:
        ranks = load_tiktoken_bpe(str(path))
        with mock.patch.object(public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks):
            return tiktoken.Encoding(**getattr(public, encoding)())

    return Case(path, load, lambda ref, text: ref.encode(text, allowed_special="all"), "tiktoken")


def o200k_tiktoken(folder: Path) -> Case:
    """o200k_base (GPT-4o, 200K tokens) as a .tiktoken file."""
    return _published_tiktoken(folder, "o200k_base")


def cl100k_tiktoken(folder: Path) -> Case:
    """cl100k_base (100K tokens) as a .tiktoken file."""
    return _published_tiktoken(folder, "cl100k_base")


def _sentencepiece(folder: Path, kind: str) -> Case:
    """A SentencePiece model trained here on the corpus (8,000 pieces, byte fallback, Llama-style)."""
    import io

    import sentencepiece as spm

    from tests.multilingual import corpus_lines

    out = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(corpus_lines(20_000, seed=3)),
        model_writer=out,
        vocab_size=8000,
        model_type=kind,
        byte_fallback=True,
        character_coverage=0.9995,
        hard_vocab_limit=False,
        minloglevel=2,
    )
    path = folder / "tokenizer.model"
    path.write_bytes(out.getvalue())
    return Case(
        path,
        lambda: spm.SentencePieceProcessor(model_file=str(path)),
        lambda ref, text: ref.encode(text),
        "sentencepiece",
    )


def sentencepiece_bpe(folder: Path) -> Case:
    """SentencePiece BPE with byte fallback (Llama 2 / Mistral v1 style)."""
    return _sentencepiece(folder, "bpe")


def sentencepiece_unigram(folder: Path) -> Case:
    """SentencePiece unigram with byte fallback (T5 / Gemma style)."""
    return _sentencepiece(folder, "unigram")


KINDS: dict[str, Callable[[Path], Case]] = {
    "tokenizer.json GPT-2 (50K BPE)": gpt2_tokenizer_json,
    "vocab+merges GPT-2 folder": gpt2_vocab_merges,
    "tokenizer.json NFKC BPE": nfkc_bpe,
    "tokenizer.json byte fallback": llama_byte_fallback,
    "tokenizer.json WordPiece": bert_wordpiece,
    "tokenizer.json Unigram": t5_unigram,
    ".tiktoken o200k_base (200K)": o200k_tiktoken,
    ".tiktoken cl100k_base (100K)": cl100k_tiktoken,
    "SentencePiece BPE, byte fallback": sentencepiece_bpe,
    "SentencePiece unigram, byte fallback": sentencepiece_unigram,
}


# ---------------------------------------------------------------------------- measuring
def best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Fastest of ``repeat`` runs of ``fn()`` and its last result."""
    fastest, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        fastest = min(fastest, time.perf_counter() - t0)
    return fastest, result


def measure(name: str, build: Callable[[Path], Case], text: str, repeat: int) -> dict[str, Any]:
    """Load and encode one kind with tokviz and with the reference; the ids must agree."""
    from tokviz.core.formats.registry import load_tokenizer

    with tempfile.TemporaryDirectory() as tmp:
        case = build(Path(tmp))
        load_ours, tok = best(lambda: load_tokenizer(case.path), repeat)
        load_theirs, ref = best(case.load_reference, repeat)
        enc_ours, ours = best(lambda: tok.encode(text), repeat)
        enc_theirs, theirs = best(lambda: case.encode_reference(ref, text), repeat)
    if list(ours) != list(theirs):
        raise SystemExit(f"{name}: tokviz's ids differ from {case.reference_name}'s")
    mb = len(text.encode("utf-8")) / 1e6
    return {
        "kind": name,
        "reference": case.reference_name,
        "load_ms": 1000 * load_ours,
        "ref_load_ms": 1000 * load_theirs,
        "mbps": mb / enc_ours,
        "ref_mbps": mb / enc_theirs,
        "tokens": len(ours),
    }


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as an aligned text table with ratios."""
    head = (
        "kind",
        "reference",
        "load ms",
        "ref ms",
        "load ratio",
        "MB/s",
        "ref MB/s",
        "speed ratio",
        "tokens",
    )
    lines = [head]
    for r in rows:
        lines.append(
            (
                r["kind"],
                r["reference"],
                f"{r['load_ms']:.0f}",
                f"{r['ref_load_ms']:.0f}",
                f"{r['load_ms'] / r['ref_load_ms']:.2f}x",
                f"{r['mbps']:.2f}",
                f"{r['ref_mbps']:.2f}",
                f"{r['mbps'] / r['ref_mbps']:.2f}x",
                f"{r['tokens']:,}",
            )
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
        for row in lines
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=30_000, help="corpus lines to encode (default 30000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the fastest counts")
    parser.add_argument("--only", nargs="*", default=None, help="kinds whose name contains one of these")
    args = parser.parse_args()
    from tests.multilingual import corpus_text

    text = corpus_text(args.lines)
    rows = []
    for name, build in KINDS.items():
        if args.only and not any(o.lower() in name.lower() for o in args.only):
            continue
        try:
            rows.append(measure(name, build, text, args.repeat))
        except ImportError as exc:
            print(f"skipped {name}: {exc}", file=sys.stderr)
    print(f"{len(text.encode('utf-8')) / 1e6:.1f} MB of multilingual text ({args.lines:,} lines), one thread")
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
