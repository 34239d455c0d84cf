"""Real tokenizer files from public models give their reference library's ids in tokviz.

The files are in ``tests/data/real/`` (sources and licenses in its ``NOTICE``); derived ones are
written by ``transformers`` in each test (see ``tests/core/real_files.py``). Each case is checked
on a sample of the multilingual corpus here, and in the slow tests on every line of the 30,000
that brings a piece, a neighbour or a case the lines before it did not (``corpus_sample``): the ids
equal the reference's, decoding equals the reference's decoding, and ``encode_spans`` lays the
same ids on the text in order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from tests.core.real_files import (
    DATA,
    WHISPER_PATTERN,
    RealCase,
    available,
    quiet_transformers,
    real_cases,
    whisper_tiktoken_specials,
)
from tests.memory_use import module_cache
from tests.multilingual import corpus_lines, corpus_sample
from tests.strategies import hard_text
from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats.registry import load_tokenizer, load_warnings

quiet_transformers()

# Lines that found differences in other loaders, and the corpus's hardest kinds, always checked.
HARD_LINES = [
    "Der Führer des Museums",
    "<|endoftext|>Hello<|startoftranscript|><|en|> world",
    "<s>[INST] hi [/INST]</s> [CLS] x [SEP]",
    "\u0c5c's  \t\n\n  end ",
    "👨‍👩‍👧‍👦 family 🇩🇪 1️⃣ 👍🏽",
    "def f(x):\n\treturn x  # ok\r\n",
    "ﬁ ① Ⅷ ＡＢＣ ｶﾀｶﾅ",
    "日本語のテキストと中文文本",
    "",
    " ",
    "\x00\x7f\ufeff\U0010ffff",
]
# Slow cases: the whisper folder, its tokenizer.json and the conversions take seconds to build or load.
SLOW_TO_LOAD = {
    "whisper multilingual folder",
    "whisper multilingual tokenizer.json",
    "mistral v1 as Llama tokenizer.json",
    "cl100k as tokenizer.json by TikTokenConverter",
}


def _param(case: RealCase, always_slow: bool = False) -> Any:
    marks = [pytest.mark.slow] if always_slow or case.name in SLOW_TO_LOAD else []
    missing = available(case)
    if missing:
        marks.append(pytest.mark.skip(reason=missing))
    return pytest.param(case, id=case.name.replace(" ", "-"), marks=marks)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Build (once per module) each case's file, tokviz's tokenizer and the reference."""
    cache: dict[str, tuple[Any, Any]] = {}

    def get(case: RealCase) -> tuple[Any, Any]:
        if case.name not in cache:
            path = case.build(tmp_path_factory.mktemp("real"))
            cache[case.name] = (load_tokenizer(path, **case.load_kwargs), case.load_reference(path))
        return cache[case.name]

    return get


def _check(case: RealCase, tokenizer: Any, ref: Any, lines: list[str], spans_every: int = 1) -> None:
    differ = []
    for i, line in enumerate(lines):
        ids, expected = tokenizer.encode(line), case.encode_reference(ref, line)
        if ids != expected:
            differ.append((line, ids, expected))
            continue
        assert tokenizer.decode(ids) == case.decode_reference(ref, ids), line
        if i % spans_every == 0:
            spans = tokenizer.encode_spans(line)
            assert [s.id for s in spans] == ids, line
            assert all(0 <= s.start <= s.end <= len(line) for s in spans), line
            assert [s.start for s in spans] == sorted(s.start for s in spans), line
    assert not differ, (
        f"{len(differ)} of {len(lines)} lines differ from {case.reference_name}, e.g. {differ[:2]}"
    )


@pytest.mark.parametrize("case", [_param(c) for c in real_cases()])
def test_a_real_file_gives_its_reference_ids_on_a_sample(case: RealCase, built: Any) -> None:
    tokenizer, ref = built(case)
    _check(case, tokenizer, ref, HARD_LINES + corpus_lines(150, seed=7))


@pytest.mark.parametrize("case", [_param(c, always_slow=True) for c in real_cases()])
def test_a_real_file_gives_its_reference_ids_on_every_kind_of_corpus_line(case: RealCase, built: Any) -> None:
    """The 30,000 corpus lines as :func:`corpus_sample` keeps them: every line that brings a piece,
    a neighbour or a case not met before, and the longest; the others only repeat these."""
    tokenizer, ref = built(case)
    _check(case, tokenizer, ref, corpus_sample(), spans_every=5)


def test_whisper_folder_reads_its_added_token_and_its_empty_token() -> None:
    # vocab.json holds "" at 50256 (no merge makes it) and added_tokens.json <|endoftext|> at 50257.
    tokenizer = load_tokenizer(DATA / "whisper-multilingual")
    assert tokenizer.special_tokens == {"<|endoftext|>": 50257}
    assert tokenizer.encode("a<|endoftext|>b") == [64, 50257, 65]
    assert any("''" in w for w in load_warnings(tokenizer))


def test_whisper_tiktoken_file_has_whispers_special_tokens_after_its_ranks() -> None:
    path = DATA / "multilingual.tiktoken"
    bare = load_tokenizer(path)
    assert bare.special_tokens["<|endoftext|>"] == 50257
    assert bare.vocab_size == 50257 + 1609  # the empty token at rank 50256 counts, as in tiktoken
    given = load_tokenizer(path, pattern=WHISPER_PATTERN, special_tokens=whisper_tiktoken_specials(50257))
    assert given.encode("<|startoftranscript|><|en|>") == [50258, 50259]


def test_a_mistral_model_named_model_v1_opens_as_sentencepiece() -> None:
    import sentencepiece

    path = DATA / "mistral-tokenizer.model.v1"
    sp = sentencepiece.SentencePieceProcessor(model_file=str(path))
    tokenizer = load_tokenizer(path)
    text = "[INST] Grüße 🤗 [/INST]"
    assert tokenizer.encode(text) == sp.encode(text)
    assert tokenizer.name == "mistral-tokenizer.model.v1"


def test_a_file_that_only_starts_with_a_newline_is_not_taken_for_sentencepiece(tmp_path: Path) -> None:
    path = tmp_path / "notes.v1"
    path.write_bytes(b"\n\nhello\n")
    with pytest.raises(TokenizerLoadError, match="not a tokenizer file tokviz knows"):
        load_tokenizer(path)


def test_the_notice_names_every_real_file_and_they_stay_small() -> None:
    notice = (DATA / "NOTICE").read_text(encoding="utf-8")
    files = [p for p in DATA.rglob("*") if p.is_file() and p.name != "NOTICE"]
    for p in files:
        assert p.relative_to(DATA).parts[0] in notice, p
    assert sum(p.stat().st_size for p in files) <= 4_000_000


@pytest.mark.parametrize(
    "case",
    [
        _param(c)
        for c in real_cases()
        if c.name in ("sentencepiece kyoto ja unigram", "mistral v1 .model", "BERT vocab.txt folder")
    ],
)
def test_a_long_text_streamed_in_pieces_gives_the_reference_ids_of_the_whole(
    case: RealCase, built: Any
) -> None:
    # tokviz encode reads a file block by block; the cuts must not change a single id.
    tokenizer, ref = built(case)
    text = "\n".join(corpus_lines(600, seed=3))
    pieces = [text[i : i + 997] for i in range(0, len(text), 997)]
    assert list(tokenizer.encode_iterable(pieces, block=4096)) == case.encode_reference(ref, text)


@pytest.mark.parametrize("case", [_param(c) for c in real_cases()])
def test_a_lone_surrogate_reads_as_the_replacement_character(case: RealCase, built: Any) -> None:
    tokenizer, _ = built(case)
    assert tokenizer.encode("a\ud800b") == tokenizer.encode("a\ufffdb")


def test_a_template_of_the_text_alone_is_not_reported(tmp_path: Path) -> None:
    # transformers saves GPT-2-style folders with a TemplateProcessing of "$A" alone: nothing added.
    from tokenizers import processors

    from tests.core.made_by_others import hf_trained

    tk = hf_trained("some text to train on, some text " * 20, vocab_size=300)
    tk.post_processor = processors.TemplateProcessing(single="$A")
    tk.save(str(tmp_path / "tokenizer.json"))
    assert load_tokenizer(tmp_path / "tokenizer.json").template == ()
    tk.post_processor = processors.TemplateProcessing(
        single="<|endoftext|> $A", special_tokens=[("<|endoftext|>", tk.token_to_id("<|endoftext|>"))]
    )
    tk.save(str(tmp_path / "tokenizer.json"))
    assert load_tokenizer(tmp_path / "tokenizer.json").template == ("<|endoftext|>", "$A")


_QUICK = {c.name: c for c in real_cases()}
_LOADED: dict[str, tuple[Any, Any]] = module_cache()


def _quick(name: str) -> tuple[RealCase, Any, Any]:
    """A committed file (no transformers needed) loaded once per process, with its reference."""
    case = _QUICK[name]
    if name not in _LOADED:
        path = case.build(DATA)
        _LOADED[name] = (load_tokenizer(path, **case.load_kwargs), case.load_reference(path))
    return (case, *_LOADED[name])


@pytest.mark.slow
@settings(max_examples=60)  # three libraries per example; the 30,000-line tests cover breadth
@given(hard_text(max_run=300, specials=("<|endoftext|>", "<|startoftranscript|>", "<s>", "</s>", "[INST]")))
def test_generated_hard_text_gives_the_reference_ids_for_every_committed_kind(text: str) -> None:
    for name in ("whisper multilingual.tiktoken", "sentencepiece kyoto ja unigram", "mistral v1 .model"):
        case, tokenizer, ref = _quick(name)
        assert tokenizer.encode(text) == case.encode_reference(ref, text), name


def test_a_folder_with_mistrals_model_file_opens_and_one_with_several_names_them(tmp_path: Path) -> None:
    import shutil

    one = tmp_path / "one"
    one.mkdir()
    shutil.copyfile(DATA / "mistral-tokenizer.model.v1", one / "tokenizer.model.v1")
    assert load_tokenizer(one).vocab_size == 32000
    shutil.copyfile(DATA / "mistral-tokenizer.model.v1", one / "tokenizer.model.v3")
    with pytest.raises(
        TokenizerLoadError, match=r"holds 2 tokenizer files \(tokenizer.model.v1, tokenizer.model.v3\)"
    ):
        load_tokenizer(one)
