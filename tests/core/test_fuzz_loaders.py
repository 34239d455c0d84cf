"""Fuzzing every loader: random bytes, random JSON, wrong types in every field of valid files,
truncated valid files. Each load gives a working tokenizer or a one-line ``TokvizError`` naming
the file, and finishes.

The valid files are made by Hugging Face ``tokenizers`` (tokenizer.json, vocab.json + merges.txt),
rebuilt by hand as a tokviz model file and a ``.tiktoken`` rank file. No wall-clock asserts: inputs
are bounded in size, hypothesis has no deadline, and each load runs in a thread joined with a
generous safety timeout, so a hang fails the test instead of the suite. ``TOKVIZ_FUZZ_EXAMPLES``
sets the number of examples per test (default 60; thousands for a long run).
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.formats.hf_engine import HFTokenizer
from tokviz.core.formats.registry import load_tokenizer

from .made_by_others import hf_document, hf_trained, hf_vocab_and_merges, model_document, tiktoken_lines

EXAMPLES = int(os.environ.get("TOKVIZ_FUZZ_EXAMPLES", "60"))
SAFETY_SECONDS = 120
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
TEXT = "The cat sat on the mat, and then the cat returned. 123 456! 日本語 🌍\n"


@dataclass(frozen=True)
class Valid:
    """Valid files of every kind, as bytes, made from one Hugging Face-trained vocabulary."""

    model: dict[str, Any]
    hf: dict[str, Any]
    vocab_json: bytes
    merges_txt: bytes
    tiktoken: bytes


def _make_valid() -> Valid:
    text = (TEXT * 40) + "the quick brown fox jumps over the lazy dog " * 30
    tk = hf_trained(text, vocab_size=300)
    vocab, merges = hf_vocab_and_merges(tk)
    folder = Path(tempfile.mkdtemp(prefix="tokviz-fuzz-"))
    tk.model.save(str(folder))
    return Valid(
        model=model_document(
            vocab,
            merges,
            special_tokens={"<|endoftext|>": max(vocab) + 1},
            history=[
                {
                    "step": 0,
                    "left_id": 1,
                    "right_id": 2,
                    "left": "61",
                    "right": "62",
                    "new_id": 257,
                    "count": 3,
                    "ties": 0,
                    "tokens_after": 9,
                }
            ],
        ),
        hf=hf_document(tk),
        vocab_json=(folder / "vocab.json").read_bytes(),
        merges_txt=(folder / "merges.txt").read_bytes(),
        tiktoken=("\n".join(tiktoken_lines(tk)) + "\n").encode(),
    )


VALID = _make_valid()


def _check_load(path: Path, names: tuple[str, ...]) -> None:
    """Load ``path``: a tokenizer that encodes and decodes, or a one-line TokvizError naming the file.

    Runs in a thread joined with :data:`SAFETY_SECONDS`, so a hang is reported, not waited for.
    """
    outcome: list[BaseException | Tokenizer] = []

    def target() -> None:
        try:
            tok = load_tokenizer(path)
            try:
                if isinstance(tok, HFTokenizer):
                    # The tokenizers library encodes it: its ids are the truth, even where they lose
                    # text (a file without a ByteLevel step drops what its vocabulary lacks).
                    assert tok.encode(TEXT) == tok.hf.encode(TEXT, add_special_tokens=False).ids
                else:
                    assert tok.decode(tok.encode(TEXT)) == TEXT
            except TokvizError:
                pass  # e.g. a pattern the encoder refuses: still only a TokvizError
            outcome.append(tok)
        except BaseException as exc:  # noqa: BLE001 - judged below
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(SAFETY_SECONDS)
    assert outcome, f"loading {path.name} did not finish within {SAFETY_SECONDS} s"
    result = outcome[0]
    if isinstance(result, Tokenizer):
        return
    if not isinstance(result, TokvizError):
        raise AssertionError(f"{type(result).__name__} instead of a TokvizError: {result!r}") from result
    message = str(result)
    assert message and "\n" not in message, message
    assert sum(message.count(n) for n in names) == 1, f"the file is not named exactly once: {message}"


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


@pytest.fixture(scope="module")
def work() -> Path:
    return Path(tempfile.mkdtemp(prefix="tokviz-fuzz-work-"))


def _fresh(work: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=work))


# ------------------------------------------------------------------------------------ strategies
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["61", "6162", "", "zz", "-1", "0256", "99999999999", "gpt2", "(a|a)+", "BPE", "Ġ"])
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)
FILE_NAMES = ("m.json", "tokenizer.json", "ranks.tiktoken", "thing.bin")


def _paths(doc: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document (at most a few entries of each long list or object)."""
    out = [prefix]
    if isinstance(doc, dict):
        for key in list(doc) if len(doc) <= 16 else list(doc)[:6]:  # every field; a few vocab entries
            out.extend(_paths(doc[key], (*prefix, key)))
    elif isinstance(doc, list):
        for index in range(min(len(doc), 4)):
            out.extend(_paths(doc[index], (*prefix, index)))
    return out


def _replace(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    doc = copy.deepcopy(doc)
    node = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return doc


MODEL_PATHS = _paths(VALID.model)
HF_PATHS = _paths(VALID.hf)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8", errors="surrogatepass")


# ----------------------------------------------------------------------------------------- tests
@FUZZ
@given(data=st.binary(max_size=4096), name=st.sampled_from(FILE_NAMES), bom=st.booleans())
def test_random_bytes(work: Path, data: bytes, name: str, bom: bool) -> None:
    path = _write(_fresh(work), name, (b"\xef\xbb\xbf" if bom else b"") + data)
    _check_load(path, (name,))


@pytest.mark.slow
@FUZZ
@given(value=JSON_VALUES, name=st.sampled_from(FILE_NAMES))
def test_random_json(work: Path, value: Any, name: str) -> None:
    _check_load(_write(_fresh(work), name, _dumps(value)), (name,))


@FUZZ
@given(
    depth=st.integers(min_value=1, max_value=200_000),
    opener=st.sampled_from(["[", '{"a":', '{"format": "tokviz-model", "version": 1, "vocab": [']),
    name=st.sampled_from(["m.json", "tokenizer.json"]),
)
def test_deeply_nested_json(work: Path, depth: int, opener: str, name: str) -> None:
    closer = "]" if opener.endswith("[") else "}"
    text = opener * depth + "1" + closer * depth
    _check_load(_write(_fresh(work), name, text.encode()), (name,))


@FUZZ
@given(
    digits=st.integers(min_value=1, max_value=20_000), where=st.sampled_from(["version", "vocab", "special"])
)
def test_huge_numbers(work: Path, digits: int, where: str) -> None:
    big = "9" * digits
    doc = _dumps(VALID.model).decode()
    if where == "version":
        doc = doc.replace('"version": 1', f'"version": {big}')
    elif where == "vocab":
        doc = doc.replace('"0": "00"', f'"{big}": "00"').replace('"1": "01"', f'"{big}": "01"')
    else:
        doc = doc.replace('"<|endoftext|>": ', f'"<|endoftext|>": {big}, "x": ')
    _check_load(_write(_fresh(work), "m.json", doc.encode()), ("m.json",))


@pytest.mark.slow
@FUZZ
@given(where=st.sampled_from(MODEL_PATHS), value=JSON_VALUES)
def test_wrong_types_in_every_field_of_a_model_file(work: Path, where: tuple[Any, ...], value: Any) -> None:
    _check_load(_write(_fresh(work), "m.json", _dumps(_replace(VALID.model, where, value))), ("m.json",))


@pytest.mark.slow
@FUZZ
@given(where=st.sampled_from(HF_PATHS), value=JSON_VALUES)
def test_wrong_types_in_every_field_of_a_tokenizer_json(
    work: Path, where: tuple[Any, ...], value: Any
) -> None:
    doc = _replace(VALID.hf, where, value)
    _check_load(_write(_fresh(work), "tokenizer.json", _dumps(doc)), ("tokenizer.json",))


@pytest.mark.slow
@FUZZ
@given(
    key=st.one_of(st.text(max_size=6), st.sampled_from(["Ġthe", "<|endoftext|>", "a"])),
    value=JSON_VALUES,
    merge=st.text(max_size=12),
)
def test_wrong_entries_in_a_gpt2_pair(work: Path, key: str, value: Any, merge: str) -> None:
    folder = _fresh(work)
    vocab = json.loads(VALID.vocab_json) | {key: value}
    _write(folder, "vocab.json", _dumps(vocab))
    _write(folder, "merges.txt", VALID.merges_txt + merge.encode("utf-8", errors="surrogatepass") + b"\n")
    _check_load(folder, ("vocab.json", "merges.txt"))


def _truncations(kind: str) -> Callable[[int], tuple[str, bytes]]:
    data = {
        "m.json": _dumps(VALID.model),
        "tokenizer.json": _dumps(VALID.hf),
        "ranks.tiktoken": VALID.tiktoken,
        "vocab.json": VALID.vocab_json,
        "merges.txt": VALID.merges_txt,
    }[kind]
    return lambda fraction: (kind, data[: len(data) * fraction // 10_000])


@FUZZ
@given(
    kind=st.sampled_from(["m.json", "tokenizer.json", "ranks.tiktoken", "vocab.json", "merges.txt"]),
    fraction=st.integers(min_value=0, max_value=10_000),
)
def test_truncated_valid_files(work: Path, kind: str, fraction: int) -> None:
    name, data = _truncations(kind)(fraction)
    folder = _fresh(work)
    if name in ("vocab.json", "merges.txt"):
        _write(folder, "vocab.json", VALID.vocab_json)
        _write(folder, "merges.txt", VALID.merges_txt)
        _write(folder, name, data)
        _check_load(folder, ("vocab.json", "merges.txt"))
    else:
        _check_load(_write(folder, name, data), (name,))


def test_the_valid_files_load(work: Path) -> None:
    """The fuzzers start from files that load: their damage, not the base, is what is tested."""
    folder = _fresh(work)
    paths = [
        _write(folder, "m.json", _dumps(VALID.model)),
        _write(folder, "tokenizer.json", _dumps(VALID.hf)),
        _write(folder, "ranks.tiktoken", VALID.tiktoken),
    ]
    _write(folder, "vocab.json", VALID.vocab_json)
    _write(folder, "merges.txt", VALID.merges_txt)
    for path in [*paths, folder / "vocab.json"]:
        tok = load_tokenizer(path)
        assert tok.decode(tok.encode(TEXT)) == TEXT
