"""Time of the vocabulary audit (``tokviz audit``) on whole vocabularies, with the class counts.

Each row audits one vocabulary through tokviz's common interface and prints its class counts. The
reference is the plain loop a notebook would write with tiktoken's own encoding (decode one
token's bytes, encode the text again, compare), over the same ids, so the ratio is the cost of the
common interface and the extra checks (neighbours, the tokenizer's own decoding).

    python benchmarks/bench_audit.py [--only gpt2 cl100k o200k o200k-json mistral-sp]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tokviz.core.analysis.audit import audit_vocabulary  # noqa: E402
from tokviz.core.formats.registry import load_tokenizer  # noqa: E402

ENCODINGS = {"gpt2": "r50k_base", "cl100k": "cl100k_base", "o200k": "o200k_base"}


def _tiktoken_loop(name: str) -> Callable[[], float]:
    """The plain re-encode loop over tiktoken's own encoding built from the bundled rank file."""
    import tiktoken

    tok = load_tokenizer(name)
    enc = tiktoken.Encoding(
        ENCODINGS[name],
        pat_str=tok.pretokenizer.pattern or "",
        mergeable_ranks={b: i for i, b in tok.vocab.items() if i not in tok.special_tokens.values()},
        special_tokens=dict(tok.special_tokens),
    )

    def run() -> float:
        start = time.perf_counter()
        for i in range(enc.n_vocab):
            try:
                data = enc.decode_single_token_bytes(i)
                enc.encode_ordinary(data.decode("utf-8"))
            except (KeyError, UnicodeDecodeError):
                continue
        return time.perf_counter() - start

    return run


def _o200k_json(folder: Path) -> Any:
    import json

    from tokenizers import Tokenizer as Library

    from tokviz.core.formats import export_hf
    from tokviz.core.formats.hf_engine import HFTokenizer

    path = folder / "tokenizer.json"
    export_hf(load_tokenizer("o200k"), path)
    lib = Library.from_file(str(path))
    return HFTokenizer(lib, json.loads(path.read_text(encoding="utf-8")), "o200k tokenizer.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=["gpt2", "cl100k", "o200k", "o200k-json", "mistral-sp"])
    args = parser.parse_args()
    print(
        "| vocabulary | ids | audit | plain tiktoken loop | ratio | ok / special / partial / sequence / unreachable |"
    )
    print("|---|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.only:
            if name == "o200k-json":
                tok = _o200k_json(Path(tmp))
            elif name == "mistral-sp":
                tok = load_tokenizer(
                    str(HERE.parent / "tests" / "data" / "real" / "mistral-tokenizer.model.v1")
                )
            else:
                tok = load_tokenizer(name)
            tok.encode_ordinary("warm up")  # a lazily built engine is not the audit's time
            start, cpu = time.perf_counter(), time.process_time()
            audit = audit_vocabulary(tok)
            took, cpu = time.perf_counter() - start, time.process_time() - cpu
            reference = _tiktoken_loop(name)() if name in ENCODINGS else None
            ratio = f"{took / reference:.2f}x" if reference else ""
            counts = " / ".join(f"{n:,}" for n in audit.class_counts().values())
            ref = f"{reference:.2f} s" if reference else ""
            print(
                f"| {name} | {len(audit.ids):,} | {took:.2f} s (CPU {cpu:.2f} s) | {ref} | {ratio} | {counts} |"
            )


if __name__ == "__main__":
    main()
