"""The encoder and decoder: merge-list semantics, specials, spans, streaming input, round trips."""

from __future__ import annotations

import inspect
import re
import textwrap

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core import Tokenizer, TokvizError, TrainResult, train_bpe
from tokviz.core.bpe import tokenizer as tokenizer_module
from tokviz.core.errors import InternalError, TokenizerLoadError

from ..strategies import hard_text, pieces_with_specials
from .reference import reference_encode

BYTES = {i: bytes([i]) for i in range(256)}


@pytest.fixture(scope="module")
def trained(english_text):
    """A small vocabulary trained on real text with a special token."""
    return train_bpe(text=english_text[:60_000], vocab_size=700, special_tokens=["<|endoftext|>"]).tokenizer(
        "small"
    )


def byte_tokenizer() -> Tokenizer:
    return Tokenizer(BYTES, [], pretokenizer="none", name="bytes")


def test_bytes_tokenizer_shows_the_utf8_bytes():
    assert byte_tokenizer().encode("Hi 🌍") == [72, 105, 32, 240, 159, 140, 141]
    assert len("Hi 🌍") == 4


def test_encoding_follows_the_merge_list_not_the_rank_of_the_merged_bytes():
    # Merge 0 makes "bc" first, so "abc" becomes [a][bc]; no merge joins a + bc, although "abc"
    # is in the vocabulary (made from ab + c). tiktoken's rank rule would merge a + bc anyway.
    vocab = {**BYTES, 256: b"bc", 257: b"ab", 258: b"abc"}
    merges = [(b"b", b"c"), (b"a", b"b"), (b"ab", b"c")]
    tok = Tokenizer(vocab, merges, pretokenizer="none")
    assert tok.encode("abc") == [97, 256]

    ranks = {v: k for k, v in vocab.items()}
    reference = tiktoken.Encoding("rank-rule", pat_str=r"[\s\S]+", mergeable_ranks=ranks, special_tokens={})
    assert reference.encode("abc") == [258]


# Two slips in the merge replacement of Tokenizer._bpe, each with a text that meets it. An index
# one too low inserts the new id before the pair, which stays (the ids grow with every pass); a
# step of one past a merged pair keeps the ids' length. Either loop would never end on its own.
SLIPS = {
    "index one too low": (r"(i = found\.index\(best\))\n", r"\1 - 1\n", "abc"),
    "step of one past a pair": (r"(out\.append\(new_id\)\n\s+i \+= )2\n", r"\g<1>1\n", "abab"),
}


@pytest.mark.timeout(30)  # without the guard, the slipped loop would spin until this fails it
@pytest.mark.parametrize("slip", SLIPS)
def test_a_slip_in_the_merge_replacement_fails_at_once_and_names_the_state(monkeypatch, slip):
    pattern, slipped, text = SLIPS[slip]
    source, found = re.subn(pattern, slipped, textwrap.dedent(inspect.getsource(Tokenizer._bpe)))
    assert found == 1, f"the merge replacement changed shape; update SLIPS[{slip!r}]"
    scope = dict(vars(tokenizer_module))  # the module's names, leaving its own Tokenizer as it is
    exec(compile(source, tokenizer_module.__file__, "exec"), scope)
    monkeypatch.setattr(Tokenizer, "_bpe", scope["_bpe"])
    tok = Tokenizer({**BYTES, 256: b"ab"}, [(b"a", b"b")], pretokenizer="none")

    with pytest.raises(
        InternalError, match=rf"BPE merge 0 \(-> id 256\) left \d+ ids from \d+ while encoding b'{text}'"
    ):
        tok.encode(text)


@pytest.mark.slow
def test_encoder_equals_the_lectures_encoder(trained, english_text):
    text = english_text[70_000:80_000]
    ids = trained.encode(text)
    assert [trained.id_bytes(i) for i in ids] == reference_encode(text, trained.merges, "gpt2")


@pytest.mark.slow
@settings(max_examples=200)
@given(hard_text(specials=["<|endoftext|>"]))
def test_round_trip_on_arbitrary_unicode(trained, text):
    assert trained.decode(trained.encode(text)) == text
    assert byte_tokenizer().decode(byte_tokenizer().encode(text)) == text


@pytest.fixture(scope="module")
def whole_text_bpe() -> TrainResult:
    """Merges learned on whole documents (pre-tokenizer "none"): every text is one chunk."""
    return train_bpe(text="abc ab c é🌍 你 a b    \n\n" * 20, vocab_size=300, pretokenizer="none")


@pytest.mark.slow
@settings(max_examples=100)
@given(hard_text(specials=["<|endoftext|>"]))
def test_long_chunks_use_the_same_rule(whole_text_bpe, text):
    # With pre-tokenizer "none" whole texts are single chunks; long ones go through the heap path.
    tok = whole_text_bpe.tokenizer()
    assert [tok.id_bytes(i) for i in tok.encode(text)] == reference_encode(
        text, whole_text_bpe.merges, "none"
    )


def test_special_tokens_match_longest_first_and_are_never_split():
    tok = Tokenizer(
        BYTES, [], special_tokens=["<|endoftext|>", "<|endoftext|><|endoftext|>"], pretokenizer="gpt2"
    )
    single, double = tok.special_tokens["<|endoftext|>"], tok.special_tokens["<|endoftext|><|endoftext|>"]
    ids = tok.encode("a<|endoftext|><|endoftext|>b<|endoftext|>")
    assert ids == [97, double, 98, single]
    assert tok.decode(ids) == "a<|endoftext|><|endoftext|>b<|endoftext|>"
    assert tok.encode_ordinary("<|endoftext|>") == list(b"<|endoftext|>")


def test_trained_specials_keep_their_ids(trained):
    eot = trained.special_tokens["<|endoftext|>"]
    assert eot == 699
    assert trained.encode("hi<|endoftext|>")[-1] == eot
    assert trained.is_special(eot)


def test_spans_place_tokens_on_code_points():
    tok = byte_tokenizer()
    spans = tok.encode_spans("a🌍b")
    assert [(s.start, s.end, s.partial) for s in spans] == [
        (0, 1, False),
        (1, 2, True),
        (1, 2, True),
        (1, 2, True),
        (1, 2, True),
        (2, 3, False),
    ]
    assert b"".join(s.bytes for s in spans) == "a🌍b".encode()


@pytest.mark.slow
@settings(max_examples=150)
@given(hard_text(specials=["<|endoftext|>"]))
def test_spans_tile_the_text(trained, text):
    spans = trained.encode_spans(text)
    assert [s.id for s in spans] == trained.encode(text)
    assert b"".join(s.bytes for s in spans) == text.encode()
    pos = 0
    for span in spans:
        if not span.partial:
            assert span.start == pos
            assert text[span.start : span.end].encode() == span.bytes
        pos = span.end
    assert pos == len(text)


def test_spans_number_the_pretokenizer_chunks(trained):
    spans = trained.encode_spans("hello world")
    assert [s.chunk for s in spans] == [0] * (len(trained.encode("hello"))) + [1] * len(
        trained.encode(" world")
    )


# A special with a space inside must not be cut at that (otherwise safe) space.
STREAM_SPECIALS = [
    ["<|endoftext|>"],
    ["<|endoftext|>", "<|end", "<|endoftext|><|endoftext|>"],
    ["x", "xx"],
    ["<a b>", "<|endoftext|>"],
]


@pytest.mark.slow
@settings(max_examples=300)
@given(
    data=st.data(),
    specials=st.sampled_from(STREAM_SPECIALS),
    pretokenizer=st.sampled_from(["gpt2", "cl100k", "none", r"\w+|\W"]),
    block=st.sampled_from([1, 2, 3, 5, 8, 16, 64, 1 << 16]),
)
def test_encode_iterable_equals_encode(data, specials, pretokenizer, block):
    """Any cut into pieces, through special tokens and their prefixes, and any block size (small
    blocks make the encoder cut its buffer many times) give exactly the whole text's encoding."""
    pieces = data.draw(
        st.one_of(pieces_with_specials(specials), st.lists(hard_text(max_pieces=6), max_size=6)), "pieces"
    )
    vocab = {**BYTES, 256: b"ab", 257: b" ab"}
    tok = Tokenizer(vocab, [(b"a", b"b"), (b" ", b"ab")], specials, pretokenizer)
    assert list(tok.encode_iterable(pieces, block=block)) == tok.encode("".join(pieces))


@pytest.mark.parametrize("special", ["<|endoftext|>", "<a b>", "<|endoftext|><|endoftext|>"])
def test_encode_iterable_keeps_a_special_token_whole_when_cut_at_every_position(special):
    tok = Tokenizer(BYTES, [], ["<|endoftext|>", "<|end", "<a b>", "<|endoftext|><|endoftext|>"], "gpt2")
    text = f"a b{special}c {special}"
    expected = tok.encode(text)
    assert expected.count(tok.special_tokens[special]) == 2
    start = text.index(special)
    for block in (1, 4, 1 << 16):
        for k in range(len(special) + 1):
            pieces = [text[: start + k], text[start + k :]]
            assert list(tok.encode_iterable(pieces, block=block)) == expected, (k, block)
        assert list(tok.encode_iterable(list(text), block=block)) == expected, block


def test_encode_iterable_keeps_memory_flat(trained):
    import tracemalloc

    line = "the quick brown fox jumps over the lazy dog.\n"
    expected = trained.encode(line * 1000)
    tracemalloc.start()
    count = 0
    for i, token in enumerate(trained.encode_iterable((line for _ in range(10_000)), block=4096)):
        if i < len(expected):
            assert token == expected[i]
        count += 1
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == len(trained.encode(line * 10_000))
    assert peak < 150_000  # the input is 450 KB


def test_encode_with_merges_is_a_prefix_of_training(english_text):
    result = train_bpe(text=english_text[:5000], vocab_size=300, pretokenizer="gpt2")
    tok = result.tokenizer()
    assert tok.encode_with_merges("the cat", 0) == list(b"the cat")
    assert tok.encode_with_merges("the cat", len(result.merges)) == tok.encode("the cat")


def test_decode_of_partial_bytes_uses_replacement_characters():
    tok = byte_tokenizer()
    assert tok.decode([240, 159]) == "\ufffd"
    assert tok.decode_bytes([240, 159]) == b"\xf0\x9f"


def test_unknown_ids_are_a_clear_error():
    with pytest.raises(TokvizError, match="999"):
        byte_tokenizer().decode([72, 999])
    with pytest.raises(TokvizError, match="not in the vocabulary"):
        byte_tokenizer().id_bytes(-1)


def test_inconsistent_merges_are_rejected():
    with pytest.raises(TokenizerLoadError, match="no earlier merge"):
        Tokenizer({**BYTES, 256: b"abc"}, [(b"ab", b"c")])
    with pytest.raises(TokenizerLoadError, match="not in the vocabulary"):
        Tokenizer(BYTES, [(b"a", b"b")])
    with pytest.raises(TokenizerLoadError, match="single byte"):
        Tokenizer({i: bytes([i]) for i in range(255)}, [])
