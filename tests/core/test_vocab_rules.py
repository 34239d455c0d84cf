"""A tokenizer tokviz accepts can always be saved and loaded back.

The constructor and the model-file loader apply one set of rules (:mod:`tokviz.core.bpe.vocab_rules`)
with the same messages: what the loader would refuse is refused when the tokenizer is made,
never after a run has written a file nobody can open.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ModelFileError, TokenizerLoadError, TokvizError
from tokviz.core.formats import load_model, save_model

BYTES = {i: bytes([i]) for i in range(256)}


def model_json(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], specials: dict[str, int]) -> str:
    """A model file holding exactly these entries, as a writer that skipped the rules would write it."""
    return json.dumps(
        {
            "format": "tokviz-model",
            "version": 1,
            "name": "m",
            "pretokenizer": "gpt2",
            "special_tokens": specials,
            "vocab": {str(i): b.hex() for i, b in vocab.items()},
            "merges": [[a.hex(), b.hex()] for a, b in merges],
        }
    )


REFUSED: list[tuple[str, dict[int, bytes], list[tuple[bytes, bytes]], dict[str, int]]] = [
    ("an id of 2^40", {**BYTES, 2**40: b"ab"}, [], {}),
    ("an id of 2^31", {**BYTES, 2**31: b"ab"}, [], {}),
    ("a special token that is empty", BYTES, [], {"": 300}),
    ("a special token at 2^31", BYTES, [], {"<s>": 2**31}),
    ("two special tokens on one id", BYTES, [], {"<a>": 300, "<b>": 300}),
    ("a special token on a byte's id", BYTES, [], {"<a>": 97}),
    ("more merges than entries", {**BYTES, 256: b"ab"}, [(b"a", b"b")] * 300, {}),
]


@pytest.mark.parametrize(("case", "vocab", "merges", "specials"), REFUSED, ids=[c[0] for c in REFUSED])
def test_the_constructor_refuses_what_the_loader_refuses_with_its_message(
    tmp_path: Path,
    case: str,
    vocab: dict[int, bytes],
    merges: list[tuple[bytes, bytes]],
    specials: dict[str, int],
) -> None:
    path = tmp_path / "m.json"
    path.write_text(model_json(vocab, merges, specials), encoding="utf-8")
    with pytest.raises(ModelFileError) as loaded:
        load_model(path)
    with pytest.raises(TokenizerLoadError) as built:
        Tokenizer(dict(vocab), list(merges), dict(specials), "gpt2", name="m")
    assert str(loaded.value) == f"m.json: {built.value}"


def test_the_constructor_refuses_an_id_of_2_to_the_40_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(
        TokenizerLoadError, match="vocabulary id 1099511627776 is not a non-negative integer below 2"
    ):
        Tokenizer({**BYTES, 2**40: b"ab"}, [(b"a", b"b")], pretokenizer="none")


def test_a_token_of_no_bytes_is_saved_and_loaded_back(tmp_path: Path) -> None:
    tok = Tokenizer({**BYTES, 300: b""}, [], pretokenizer="gpt2")  # as in Whisper's rank files
    save_model(tmp_path / "m.json", tok)
    assert load_model(tmp_path / "m.json").tokenizer.vocab[300] == b""


# ------------------------------------------------------------------------------ any tokenizer saves
_merge_pairs = st.lists(st.tuples(st.integers(0, 255), st.integers(0, 255)), max_size=12)
_ids = st.integers(min_value=0, max_value=2**41)
_special_names = st.text(min_size=0, max_size=6)


@st.composite
def tokenizer_arguments(draw: st.DrawFn) -> dict[str, Any]:
    """Vocabularies whose merges make every learned token, under any id layout (some out of range),
    with special tokens given by text or by id (some of them clashing)."""
    vocab = dict(BYTES)
    merges: list[tuple[bytes, bytes]] = []
    tokens = [bytes([b]) for b in range(256)]
    for left, right in draw(_merge_pairs):
        a, b = tokens[left % len(tokens)], tokens[right % len(tokens)]
        merges.append((a, b))
        tokens.append(a + b)
        vocab[draw(_ids.filter(lambda i: i not in vocab))] = a + b
    specials: Any = draw(
        st.one_of(
            st.lists(_special_names, max_size=3),
            st.dictionaries(_special_names, st.one_of(st.integers(0, 400), _ids), max_size=3),
        )
    )
    return {"vocab": vocab, "merges": merges, "special_tokens": specials}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(arguments=tokenizer_arguments())
def test_any_tokenizer_the_constructor_accepts_saves_and_loads_back_equal(
    tmp_path: Path, arguments: dict[str, Any]
) -> None:
    try:
        tok = Tokenizer(pretokenizer="gpt2", name="any", **arguments)
    except TokvizError:
        return
    path = tmp_path / "m.json"
    save_model(path, tok)
    back = load_model(path).tokenizer
    assert back.vocab == tok.vocab
    assert back.merges == tok.merges
    assert back.special_tokens == tok.special_tokens
    assert back.name == tok.name
