"""Every public function of ``tokviz.core`` answers a bad argument with a :class:`TokvizError`.

Each call below passes something a caller can get wrong: a wrong type, ``None``, a negative or
unknown id, a generator that yields a bad id, a lone surrogate, a ``str`` where a list is meant.
The call must either give the right answer or raise a ``TokvizError`` whose message is one
readable line; never a bare ``KeyError``, ``TypeError``, ``StopIteration`` or an answer counted
from the end of a list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tokviz.core import (
    StreamingDecoder,
    Tokenizer,
    TokvizError,
    load_tokenizer,
    resolve_pretokenizer,
    train_bpe,
    train_iter,
    validate_pattern,
)
from tokviz.core.analysis.metrics import TextMetrics, attention_multiplier, compare_rows, embedding_parameters
from tokviz.core.errors import ArgumentTypeError, InvalidArgument
from tokviz.core.training.replay import ReplayTrace, replay_tokenizer, replay_training

BYTES = {i: bytes([i]) for i in range(256)}


def _tiny() -> Tokenizer:
    """Three merges (t+h, th+e, the+space) and one special token: ids 0..258 and 259."""
    return train_bpe(
        text="the cat in the hat", vocab_size=260, special_tokens=["<|eot|>"], pretokenizer="none"
    ).tokenizer("tiny")


TINY = _tiny()
GPT2 = load_tokenizer("gpt2")  # the fast engine's path must behave the same


def _ids(*values: object) -> Iterator[object]:
    """A one-shot generator of ids: once read, it cannot be read again to find the bad one."""
    yield from values


def _shown(value: object) -> str:
    """``repr(value)`` without a memory address, so every test process names the test alike."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


# The wrong values each kind of argument is tried with.
NOT_TEXT: list[object] = [None, b"abc", 3, ["a"]]
NOT_AN_ID: list[object] = [None, "1", 1.5, [1], -1, 10**9, 260 + 5]
NOT_IDS: list[Callable[[], object]] = [
    lambda: None,
    lambda: 3,
    lambda: "abc",
    lambda: b"abc",
    lambda: [None],
    lambda: [1, -1],
    lambda: [1, 10**9],
    lambda: [1.5],
    lambda: _ids(104, 10**9),
    lambda: _ids(104, None),
    lambda: (i for i in [104, -1]),
]
NOT_A_MERGE: list[object] = [-1, -3, 3, 10**9, None, "1", 1.5, True]


def _calls() -> list[tuple[str, Callable[[], Any]]]:
    """(label, call) for every public function and method, with each bad value it can be given."""
    calls: list[tuple[str, Callable[[], Any]]] = []

    def add(label: str, call: Callable[[], Any]) -> None:
        calls.append((label, call))

    for name, tok in (("tiny", TINY), ("gpt2", GPT2)):
        for text in NOT_TEXT:
            for method in ("encode", "encode_ordinary", "encode_spans", "segments"):
                add(f"{name}.{method}({text!r})", lambda m=method, t=text, k=tok: list(getattr(k, m)(t)))
            add(f"{name}.encode_with_merges({text!r}, 1)", lambda t=text, k=tok: k.encode_with_merges(t, 1))
            add(
                f"{name}.encode_iterable([{text!r}])", lambda t=text, k=tok: list(k.encode_iterable(["a", t]))
            )
            add(f"{name}.with_special_tokens({text!r})", lambda t=text, k=tok: k.with_special_tokens(t))
        add(f"{name}.encode_iterable(None)", lambda k=tok: list(k.encode_iterable(None)))
        add(f"{name}.encode_iterable('abc')", lambda k=tok: list(k.encode_iterable("abc")))
        add(f"{name}.encode_iterable(block=0)", lambda k=tok: list(k.encode_iterable(["a"], block=0)))
        add(f"{name}.encode_iterable(block=None)", lambda k=tok: list(k.encode_iterable(["a"], block=None)))
        for bad in (-1, None, "2", 1.5):
            add(
                f"{name}.encode_with_merges(max={bad!r})", lambda b=bad, k=tok: k.encode_with_merges("the", b)
            )
            add(f"{name}.encode_spans(max={bad!r})", lambda b=bad, k=tok: k.encode_spans("the", b))
        for token_id in NOT_AN_ID:
            add(f"{name}.id_bytes({token_id!r})", lambda i=token_id, k=tok: k.id_bytes(i))
            add(f"{name}.is_special({token_id!r})", lambda i=token_id, k=tok: k.is_special(i))
        for make in NOT_IDS:
            shown = _shown(make())
            add(f"{name}.decode_bytes({shown})", lambda m=make, k=tok: k.decode_bytes(m()))
            add(f"{name}.decode({shown})", lambda m=make, k=tok: k.decode(m()))
        for rank in NOT_A_MERGE:
            add(f"{name}.id_of_merge({rank!r})", lambda r=rank, k=tok: k.id_of_merge(r))
            add(f"{name}.parents_of_merge({rank!r})", lambda r=rank, k=tok: k.parents_of_merge(r))
        for data in (None, "the", 3):
            add(f"{name}.trace_chunk({data!r})", lambda d=data, k=tok: k.trace_chunk(d))
        for token_id in NOT_AN_ID:
            add(
                f"StreamingDecoder({name}).push({token_id!r})",
                lambda i=token_id, k=tok: StreamingDecoder(k).push(i),
            )

    # Building a tokenizer.
    add("Tokenizer(None, [])", lambda: Tokenizer(None, []))
    add("Tokenizer({'a': b'a'}, [])", lambda: Tokenizer({"a": b"a"}, []))
    add("Tokenizer({0: 'a'}, [])", lambda: Tokenizer({0: "a"}, []))
    add("Tokenizer({-1: b'a'}, [])", lambda: Tokenizer({**BYTES, -1: b"ab"}, []))
    add("Tokenizer(BYTES, None)", lambda: Tokenizer(BYTES, None))
    add("Tokenizer(BYTES, 'ab')", lambda: Tokenizer(BYTES, "ab"))
    add("Tokenizer(BYTES, [('a', 'b')])", lambda: Tokenizer(BYTES, [("a", "b")]))
    add("Tokenizer(BYTES, [(b'a',)])", lambda: Tokenizer(BYTES, [(b"a",)]))
    add("Tokenizer(BYTES, [(b'a', b'b')])", lambda: Tokenizer(BYTES, [(b"a", b"b")]))
    add("Tokenizer(BYTES, [], '<s>')", lambda: Tokenizer(BYTES, [], "<s>"))
    add("Tokenizer(BYTES, [], [None])", lambda: Tokenizer(BYTES, [], [None]))
    add("Tokenizer(BYTES, [], ['\\ud800'])", lambda: Tokenizer(BYTES, [], ["\ud800"]))
    add("Tokenizer(BYTES, [], {'<s>': -1})", lambda: Tokenizer(BYTES, [], {"<s>": -1}))
    add("Tokenizer(BYTES, [], {'<s>': 'x'})", lambda: Tokenizer(BYTES, [], {"<s>": "x"}))
    add("Tokenizer(BYTES, [], pretokenizer=3)", lambda: Tokenizer(BYTES, [], pretokenizer=3))
    add("Tokenizer(BYTES, [], pretokenizer='(')", lambda: Tokenizer(BYTES, [], pretokenizer="("))
    add("Tokenizer(BYTES, [], name=None)", lambda: Tokenizer(BYTES, [], name=None))
    add("Tokenizer({}, [])", lambda: Tokenizer({}, []))
    add("StreamingDecoder(None).push(1)", lambda: StreamingDecoder(None).push(1))

    # Training.
    add("train_bpe('corpus.txt', 10000)", lambda: train_bpe("corpus.txt", 10_000))
    add("train_bpe(text=None, vocab_size=300)", lambda: train_bpe(text=None, vocab_size=300))
    add("train_bpe(text=3, vocab_size=300)", lambda: train_bpe(text=3, vocab_size=300))
    add("train_bpe(text='ab', vocab_size='300')", lambda: train_bpe(text="ab", vocab_size="300"))
    add("train_bpe(text='ab', vocab_size=-1)", lambda: train_bpe(text="ab", vocab_size=-1))
    add("train_bpe(text='ab', progress=3)", lambda: train_bpe(text="ab", vocab_size=300, progress=3))
    add("train_bpe(text='ab', pretokenizer=3)", lambda: train_bpe(text="ab", vocab_size=300, pretokenizer=3))
    add("train_bpe(text='a\\ud800b')", lambda: train_bpe(text="a\ud800b", vocab_size=300))
    add("train_bpe(files=None)", lambda: train_bpe(files=[None], vocab_size=300))
    add("train_bpe(files='missing.txt')", lambda: train_bpe(files="missing.txt", vocab_size=300))
    add("train_iter('text', 300)", lambda: train_iter("text", 300))
    add("TrainResult.tokenizer(None)", lambda: train_bpe(text="ab ab", vocab_size=257).tokenizer(None))

    # Replays of merges on a text.
    for text in NOT_TEXT:
        add(f"ReplayTrace(tiny, {text!r})", lambda t=text: ReplayTrace(TINY, t))
        add(f"replay_tokenizer(gpt2, {text!r})", lambda t=text: replay_tokenizer(GPT2, t, None))
        add(f"replay_training({text!r})", lambda t=text: replay_training(t, None, "none", "first-seen"))
    add("ReplayTrace(None, 'the')", lambda: ReplayTrace(None, "the"))
    for merges in (-1, "2", 1.5):
        add(f"replay_tokenizer(merges={merges!r})", lambda m=merges: replay_tokenizer(TINY, "the", m))
        add(
            f"replay_training(merges={merges!r})",
            lambda m=merges: replay_training("the", m, "none", "first-seen"),
        )

    # Loading and pre-tokenizers.
    for spec in (None, 3, "", "no-such-tokenizer", "\ud800", b"gpt2"):
        add(f"load_tokenizer({spec!r})", lambda s=spec: load_tokenizer(s))
    for spec in (3, b"gpt2", "(", ["gpt2"]):
        add(f"resolve_pretokenizer({spec!r})", lambda s=spec: resolve_pretokenizer(s))
    for pattern in (None, 3, "("):
        add(f"validate_pattern({pattern!r})", lambda p=pattern: validate_pattern(p))

    # Metrics.
    for text in NOT_TEXT:
        add(f"TextMetrics.of(gpt2, {text!r})", lambda t=text: TextMetrics.of(GPT2, t))
    add("TextMetrics.of(gpt2, lone surrogate)", lambda: TextMetrics.of(GPT2, "a\ud800b"))
    add("TextMetrics.of(None, 'a')", lambda: TextMetrics.of(None, "a"))
    for n, ref in ((1, 0), (-1, 1), ("a", 1), (1, None), (None, None)):
        add(f"attention_multiplier({n!r}, {ref!r})", lambda a=n, b=ref: attention_multiplier(a, b))
    for v, d in ((-1, 1), (1, -1), ("a", 1), (None, 2)):
        add(f"embedding_parameters({v!r}, {d!r})", lambda a=v, b=d: embedding_parameters(a, b))
    add("compare_rows(None, [gpt2])", lambda: compare_rows(None, [GPT2]))
    add("compare_rows({'a': None}, [gpt2])", lambda: compare_rows({"a": None}, [GPT2]))
    add("compare_rows({'a': 'x'}, None)", lambda: compare_rows({"a": "x"}, None))
    add("compare_rows({'a': 'x'}, [None])", lambda: compare_rows({"a": "x"}, [None]))
    return calls


CALLS = _calls()


@pytest.mark.parametrize(("label", "call"), CALLS, ids=[label for label, _ in CALLS])
def test_a_bad_argument_gives_a_tokviz_error_or_a_right_answer(label: str, call: Callable[[], Any]) -> None:
    try:
        call()
    except TokvizError as exc:
        message = str(exc)
        assert message and "\n" not in message, f"{label}: unreadable message {message!r}"
    except Exception as exc:  # noqa: BLE001 - the point of the test: name what escaped
        pytest.fail(f"{label} raised {type(exc).__name__}: {exc}")


def test_the_errors_are_also_the_builtin_kinds_callers_may_catch() -> None:
    """A TypeError-like mistake is a TypeError and a bad value a ValueError, as before, so old
    ``except ValueError`` code keeps working."""
    with pytest.raises(TypeError):
        TINY.encode(None)
    with pytest.raises(ValueError):
        TINY.id_of_merge(-1)
    assert issubclass(ArgumentTypeError, InvalidArgument)


def test_a_generator_with_an_unknown_id_names_the_id() -> None:
    with pytest.raises(InvalidArgument, match="token id 999999 is not in the vocabulary of tiny"):
        TINY.decode_bytes(_ids(104, 101, 999_999))


def test_a_generator_of_good_ids_decodes() -> None:
    assert TINY.decode(_ids(*TINY.encode("the cat"))) == "the cat"


def test_merge_numbers_are_never_counted_from_the_end() -> None:
    assert TINY.id_of_merge(0) == 256 and TINY.id_of_merge(TINY.merge_count - 1) == 258
    with pytest.raises(InvalidArgument, match="must not be negative, got -1"):
        TINY.id_of_merge(-1)
    with pytest.raises(
        InvalidArgument, match="tiny has 3 merges \\(numbered from 0\\), so there is no merge 3"
    ):
        TINY.parents_of_merge(3)


@pytest.mark.slow
@pytest.mark.parametrize("tok", [TINY, GPT2], ids=["tiny", "gpt2"])
def test_lone_surrogates_read_as_the_replacement_character_everywhere(tok: Tokenizer) -> None:
    text, read = "a\ud800b \udfff", "a\ufffdb \ufffd"
    assert tok.encode(text) == tok.encode(read)
    assert tok.encode_with_merges(text, 2) == tok.encode_with_merges(read, 2)
    assert tok.encode_spans(text) == tok.encode_spans(read)
    assert TextMetrics.of(tok, text) == TextMetrics.of(tok, read)
    assert replay_tokenizer(tok, text, None) == replay_tokenizer(tok, read, None)
    assert replay_training(text, None, "none", "first-seen") == replay_training(
        read, None, "none", "first-seen"
    )


def test_wrong_types_say_what_to_pass() -> None:
    with pytest.raises(ArgumentTypeError, match="text must be a str, got bytes; decode bytes to str first"):
        TINY.encode(b"the")
    with pytest.raises(ArgumentTypeError, match="a token id must be an int, got '1'"):
        TINY.id_bytes("1")
    with pytest.raises(ArgumentTypeError, match="merges must be a list of \\(bytes, bytes\\) pairs"):
        Tokenizer(BYTES, "ab")


PRETOKENIZER_CALLS = [
    (f"{spec}.{method}({value!r})", spec, method, value)
    for spec in ("gpt2", "none", r"\w+")
    for method in ("split", "spans")
    for value in (None, 3, b"ab")
]


@pytest.mark.parametrize(
    ("label", "spec", "method", "value"), PRETOKENIZER_CALLS, ids=[c[0] for c in PRETOKENIZER_CALLS]
)
def test_a_pretokenizer_refuses_what_is_not_text(label: str, spec: str, method: str, value: object) -> None:
    with pytest.raises(TokvizError):
        getattr(resolve_pretokenizer(spec), method)(value)
