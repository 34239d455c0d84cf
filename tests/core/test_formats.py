"""File formats: every export loads back to the same encodings, and bad files say what is wrong."""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path

import pytest
import tiktoken
import tokenizers

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import ExportError, ModelFileError, TokenizerLoadError
from tokviz.core.formats import (
    export_gpt2,
    export_hf,
    export_tiktoken,
    from_oniguruma,
    load_hf,
    load_model,
    load_tiktoken_file,
    save_model,
    to_oniguruma,
    tokenizer_from_files,
)
from tokviz.core.formats.encodings import bundled_encoding
from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.resources import resource_path
from tokviz.core.training.train import TrainResult, train_bpe

CUSTOM_PATTERN = r"\p{L}+|\p{N}{1,2}+|[^\s\p{L}\p{N}]+|\s+$|\s+"
SPECIALS = ["<|endoftext|>", "<|fim_prefix|>"]


@pytest.fixture(scope="module", params=["gpt2", "cl100k", "none", "custom"])
def trained(request: pytest.FixtureRequest, english_text: str, varied_text: str) -> TrainResult:
    """A small vocabulary trained with each kind of pre-tokenizer, two special tokens included."""
    pretokenizer = CUSTOM_PATTERN if request.param == "custom" else request.param
    # Without a pre-tokenizer every document is one word, so keep that corpus small.
    size = 2_000 if request.param == "none" else 40_000
    corpus = english_text[:size] + "<|endoftext|>" + varied_text
    return train_bpe(text=corpus, vocab_size=600, special_tokens=SPECIALS, pretokenizer=pretokenizer)


@pytest.fixture(scope="module")
def probe(english_text: str, varied_text: str) -> str:
    return english_text[50_000:53_000] + varied_text + "<|endoftext|>x<|fim_prefix|><|endoftext|>"


@pytest.mark.slow
def test_model_file_round_trip_keeps_tokenizer_settings_and_history(
    tmp_path: Path, trained: TrainResult, probe: str
) -> None:
    tok = trained.tokenizer("mine")
    path = tmp_path / "mine.tokviz.json"
    save_model(path, tok, trained.settings(), trained.history)
    loaded = load_model(path)
    assert loaded.tokenizer.encode(probe) == tok.encode(probe)
    assert loaded.tokenizer.vocab == tok.vocab
    assert loaded.tokenizer.merges == tok.merges
    assert loaded.tokenizer.special_tokens == tok.special_tokens
    assert loaded.tokenizer.pretokenizer.to_json() == tok.pretokenizer.to_json()
    assert loaded.tokenizer.name == "mine"
    assert loaded.settings == trained.settings()
    assert loaded.history == trained.history
    assert [p.name for p in tmp_path.iterdir()] == ["mine.tokviz.json"]  # no temporary file left


def test_model_file_is_readable_json_with_hex_bytes(tmp_path: Path) -> None:
    tok = Tokenizer(
        {i: bytes([i]) for i in range(256)} | {256: b"th"}, [(b"t", b"h")], ["<|x|>"], "none", "th"
    )
    save_model(tmp_path / "th.json", tok)
    data = json.loads((tmp_path / "th.json").read_text())
    assert (data["format"], data["version"], data["name"], data["pretokenizer"]) == (
        "tokviz-model",
        1,
        "th",
        "none",
    )
    assert data["vocab"]["256"] == "7468" and data["merges"] == [["74", "68"]]
    assert data["special_tokens"] == {"<|x|>": 257} and data["history"] == [] and data["settings"] == {}


@pytest.mark.parametrize("fmt", ["gpt2", "tiktoken", "hf"])
def test_exports_load_back_with_identical_encodings(
    tmp_path: Path, trained: TrainResult, probe: str, fmt: str
) -> None:
    tok = trained.tokenizer()
    if fmt == "gpt2":
        vocab, merges = export_gpt2(tok, tmp_path)
        assert merges.read_text().splitlines()[0] == "#version: 0.2"
        back = tokenizer_from_files(vocab, merges, pretokenizer=trained.pretokenizer)
    elif fmt == "tiktoken":
        path = export_tiktoken(tok, tmp_path / "t.tiktoken")
        back = load_tiktoken_file(path, trained.pretokenizer, special_tokens=tok.special_tokens)
        assert back.merges == tok.merges  # recovered from the ranks alone
    else:
        back = load_hf(export_hf(tok, tmp_path / "tokenizer.json"))
        assert back.pretokenizer.name == tok.pretokenizer.name
        assert back.pretokenizer.split(probe) == tok.pretokenizer.split(probe)
    assert back.encode(probe) == tok.encode(probe)
    assert back.special_tokens == tok.special_tokens
    assert back.decode(back.encode(probe)) == probe


def test_hugging_face_tokenizers_encodes_an_export_exactly_like_tokviz(
    tmp_path: Path, trained: TrainResult, probe: str, varied_text: str
) -> None:
    tok = trained.tokenizer()
    hf = tokenizers.Tokenizer.from_file(str(export_hf(tok, tmp_path / "tokenizer.json")))
    for text in [
        probe,
        varied_text,
        "   leading",
        "trailing \n\n ",
        "a\n\n\nb",
        "12345678",
        "x<|endoftext|>y",
    ]:
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text), text
    assert hf.decode(tok.encode(probe), skip_special_tokens=False) == probe


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_hugging_face_tokenizers_encodes_bundled_exports_like_tiktoken(
    tmp_path: Path,
    name: str,
    varied_text: str,
    english_text: str,
    gpt2_tiktoken: tiktoken.Encoding,
    cl100k_tiktoken: tiktoken.Encoding,
) -> None:
    oracle = gpt2_tiktoken if name == "gpt2" else cl100k_tiktoken
    hf = tokenizers.Tokenizer.from_file(str(export_hf(load_tokenizer(name), tmp_path / "tokenizer.json")))
    text = english_text[:5000] + varied_text
    assert hf.encode(text, add_special_tokens=False).ids == oracle.encode(text, allowed_special="all")
    back = load_hf(tmp_path / "tokenizer.json")
    assert back.encode(text) == oracle.encode(text, allowed_special="all")


@pytest.mark.slow
def test_gpt2_files_round_trip_equal_tiktoken(
    tmp_path: Path, varied_text: str, english_text: str, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    gpt2 = load_tokenizer("gpt2")
    vocab, merges = export_gpt2(gpt2, tmp_path)
    table = json.loads(vocab.read_text(encoding="utf-8"))
    assert table["<|endoftext|>"] == 50256 and table["Ġthe"] == 262 and len(table) == 50257
    back = tokenizer_from_files(vocab, merges)  # <|endoftext|> is found as a special token by itself
    assert back.special_tokens == {"<|endoftext|>": 50256}
    text = english_text[:5000] + varied_text
    assert back.encode(text) == gpt2_tiktoken.encode(text, allowed_special="all")


def test_gpt2_exported_as_tiktoken_is_the_published_file(tmp_path: Path) -> None:
    path = export_tiktoken(load_tokenizer("gpt2"), tmp_path / "r50k_base.tiktoken")
    assert path.read_bytes() == resource_path("encodings", "r50k_base.tiktoken").read_bytes()


@pytest.mark.slow
def test_a_tiktoken_file_loads_with_an_engine_and_lazy_merges(
    tmp_path: Path, gpt2_tiktoken: tiktoken.Encoding
) -> None:
    specials = dict(bundled_encoding("gpt2").special_tokens)
    tok = load_tiktoken_file(resource_path("encodings", "r50k_base.tiktoken"), "gpt2", specials, name="r50k")
    assert tok.merge_count == 50000 and tok._merges is None
    assert tok.encode("Hello, 🌍! 你好!<|endoftext|>") == gpt2_tiktoken.encode(
        "Hello, 🌍! 你好!<|endoftext|>", allowed_special="all"
    )
    assert tok.merges[0] == (b" ", b"t") and len(tok.merges) == 50000  # recovered now, on first use


# ---------------------------------------------------------------------------- refused exports
def _repeated_bytes_tokenizer() -> Tokenizer:
    """Two merges that make the same bytes ("abc" as ab+c and as a+bc), as training can."""
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc", 259: b"abc"}
    merges = [(b"a", b"b"), (b"b", b"c"), (b"ab", b"c"), (b"a", b"bc")]
    return Tokenizer(vocab, merges, pretokenizer="none")


@pytest.mark.parametrize(
    ("export", "message"),
    [
        (lambda t, p: export_tiktoken(t, p / "x.tiktoken"), "ids 258 and 259 have the same bytes"),
        (lambda t, p: export_gpt2(t, p), "ids 258 and 259 are both 'abc'"),
        (lambda t, p: export_hf(t, p / "tokenizer.json"), "ids 258 and 259 are both 'abc'"),
    ],
)
def test_repeated_bytes_cannot_be_written_to_token_keyed_formats(
    tmp_path: Path, export, message: str
) -> None:
    with pytest.raises(ExportError, match=message):
        export(_repeated_bytes_tokenizer(), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_tiktoken_export_needs_ids_in_rank_layout(tmp_path: Path) -> None:
    gappy = Tokenizer({i: bytes([i]) for i in range(256)} | {300: b"ab"}, [(b"a", b"b")], pretokenizer="none")
    with pytest.raises(
        ExportError, match="ranks are the ids 0..256, but this vocabulary has no ordinary id 256"
    ):
        export_tiktoken(gappy, tmp_path / "x.tiktoken")
    swapped = Tokenizer(
        {i: bytes([i]) for i in range(256)} | {256: b"cd", 257: b"ab"},
        [(b"a", b"b"), (b"c", b"d")],
        pretokenizer="none",
    )
    with pytest.raises(ExportError, match="merge 1 makes id 256, which is not after the id 257"):
        export_tiktoken(swapped, tmp_path / "x.tiktoken")


# ---------------------------------------------------------------------------- corrupt model files
def _valid_model() -> dict:
    return {
        "format": "tokviz-model",
        "version": 1,
        "name": "t",
        "pretokenizer": "gpt2",
        "special_tokens": {"<|x|>": 257},
        "settings": {},
        "vocab": {str(i): f"{i:02x}" for i in range(256)} | {"256": "7468", "257": "3c7c787c3e"},
        "merges": [["74", "68"]],
        "history": [],
    }


def _write(path: Path, data: object) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _changed(**changes: object) -> dict:
    return _valid_model() | changes


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "{not json",
            r"m.json: not valid JSON \(Expecting property name enclosed in double quotes at line 1, column 2\)",
        ),
        ("[1, 2]", "not a tokviz model file \\(expected a JSON object, found an array\\)"),
        (_changed(format="something-else"), "not a tokviz model file \\(format is 'something-else'"),
        (
            _changed(version=2),
            "written by a newer tokviz \\(model file version 2\\); this one reads version 1",
        ),
        (_changed(version="1"), "the version must be an integer, not '1'"),
        (
            _changed(vocab=_valid_model()["vocab"] | {"x1": "61"}),
            "vocabulary id 'x1' is not a non-negative integer",
        ),
        (
            _changed(vocab=_valid_model()["vocab"] | {"-5": "61"}),
            "vocabulary id '-5' is not a non-negative integer",
        ),
        (
            _changed(vocab=_valid_model()["vocab"] | {"99999999999": "61"}),
            "vocabulary id 99999999999 is not a non-negative integer below 2\\^31",
        ),
        (_changed(vocab=_valid_model()["vocab"] | {"0256": "6162"}), "vocabulary id 256 appears twice"),
        (
            _changed(vocab=_valid_model()["vocab"] | {"256": "7g"}),
            "vocabulary id 256 has '7g', not the token's bytes as hex",
        ),
        (
            _changed(vocab=_valid_model()["vocab"] | {"256": 7468}),
            "vocabulary id 256 has 7468, not the token's bytes as hex",
        ),
        (
            _changed(merges=[["74", "68"], ["7468", "65"]]),
            "merge 1 makes b'the', which is not in the vocabulary",
        ),
        (
            _changed(merges=[["7468", "65"]]),
            "merge 0 \\(b'th' \\+ b'e'\\) uses b'th', which no earlier merge makes",
        ),
        (_changed(merges=[["74"]]), "merge 0 is \\['74'\\], not a \\[left hex, right hex\\] pair"),
        (_changed(merges=[["7a", "7a"]]), "merge 0 makes b'zz', which is not in the vocabulary"),
        (
            _changed(special_tokens={"<|x|>": 257, "<|y|>": 257}),
            "special tokens '<|x|>' and '<|y|>' share id 257",
        ),
        (
            _changed(special_tokens={"<|x|>": 0}),
            "special token '<|x|>' has id 0, which the vocabulary gives other bytes",
        ),
        (_changed(pretokenizer="(unclosed"), "m.json: invalid pre-tokenizer regex"),
        (_changed(history=[{"step": 0}]), "history record 0: 'left_id' must be an integer, not None"),
        (_changed(vocab={str(i): f"{i:02x}" for i in range(1, 256)}), "no token for the single byte 00"),
        (
            _changed(merges=[["74", "68"]] * 259),
            "merges cannot fit a vocabulary of 258 entries",
        ),
        (
            {"merges": [["74", "68"]] * 300} | _valid_model() | {"merges": [["74", "68"]] * 300},
            "merges cannot fit a vocabulary of 258 entries",
        ),
        (
            _changed(history=[{"step": 0}] * 259),
            "history records cannot fit a vocabulary of 258 entries",
        ),
        (
            json.dumps(_valid_model()).replace('"256": "7468"', '"256": "7468", "256": "6162"'),
            "the key '256' appears twice in one object",
        ),
        (json.dumps(_valid_model()) + " []", "not valid JSON \\(Extra data"),
        (json.dumps(_valid_model())[:-40], "not valid JSON"),
        (
            json.dumps(_valid_model()).replace('"merges": [', '"merges": [,'),
            "not valid JSON \\(Expecting value",
        ),
        (json.dumps(_changed(merges="74 68")), '"merges" must be a list of \\[left hex, right hex\\] pairs'),
        (
            json.dumps({k: v for k, v in _valid_model().items() if k != "merges"}),
            'the "merges" entry is missing',
        ),
    ],
)
@pytest.mark.parametrize("whole", [True, False], ids=["parsed-whole", "member-by-member"])
def test_corrupt_model_files_name_the_problem(
    tmp_path: Path, content: object, message: str, whole: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not whole:  # a large file is read member by member: the same checks, the same messages
        monkeypatch.setattr("tokviz.core.formats.model_file.WHOLE_PARSE_CHARS", 0)
    with pytest.raises(ModelFileError, match=message) as info:
        load_model(_write(tmp_path / "m.json", content))
    assert "\n" not in str(info.value)


def test_a_model_file_read_member_by_member_loads_as_when_parsed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = train_bpe(text="the cat sat on the mat, the end " * 30, vocab_size=300, special_tokens=["<|e|>"])
    path = tmp_path / "m.json"
    save_model(path, result.tokenizer("m"), {"vocab_size": 300}, result.history)
    data = json.loads(path.read_text(encoding="utf-8"))
    # Members in another order than tokviz writes them: the lists before the vocabulary.
    shuffled = _write(
        tmp_path / "shuffled.json", {"history": data["history"], "merges": data["merges"]} | data
    )
    whole = load_model(path)
    monkeypatch.setattr("tokviz.core.formats.model_file.WHOLE_PARSE_CHARS", 0)

    for streamed in (load_model(path), load_model(shuffled)):
        assert streamed.tokenizer.vocab == whole.tokenizer.vocab
        assert streamed.tokenizer.merges == whole.tokenizer.merges
        assert streamed.tokenizer.special_tokens == whole.tokenizer.special_tokens
        assert streamed.history == whole.history and streamed.settings == whole.settings


@pytest.mark.parametrize(
    "past_the_bound",
    ["[" * 100_000 + "]" * 100_000, '["6' + "1" * 2_000_000 + '", "62"]', '["]}\\"", "[{"]'],
    ids=["nested-too-deeply", "two-million-digits", "brackets-in-strings"],
)
def test_a_list_before_the_vocabulary_is_refused_without_building_items_past_its_bound(
    tmp_path: Path, past_the_bound: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 258 merges for 258 tokens, then one more that would fail or cost much to build: the list is
    # passed over unbuilt and refused at its 259th item once the vocabulary is known.
    model = _valid_model()
    merges = ", ".join(['["74", "68"]'] * 258 + [past_the_bound])
    head = json.dumps({k: v for k, v in model.items() if k not in ("merges", "vocab", "history")})[1:-1]
    text = f'{{"merges": [{merges}], "history": [], {head}, "vocab": {json.dumps(model["vocab"])}}}'
    monkeypatch.setattr("tokviz.core.formats.model_file.WHOLE_PARSE_CHARS", 0)
    with pytest.raises(ModelFileError, match="more than 258 merges cannot fit a vocabulary of 258 entries"):
        load_model(_write(tmp_path / "m.json", text))


def test_a_list_before_the_vocabulary_that_never_ends_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tokviz.core.formats.model_file.WHOLE_PARSE_CHARS", 0)
    with pytest.raises(ModelFileError, match="m.json: not valid JSON \\(the array never ends at line 1"):
        load_model(_write(tmp_path / "m.json", '{"merges": [["74", "68"], "]", ["'))


def test_a_repeated_json_key_is_refused_not_overwritten(tmp_path: Path) -> None:
    text = json.dumps(_valid_model()).replace('"256": "7468"', '"256": "7468", "256": "6162"')
    with pytest.raises(ModelFileError, match="m.json: the key '256' appears twice in one object"):
        load_model(_write(tmp_path / "m.json", text))


def test_hostile_sizes_are_refused_before_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(2 * 1024**3 + 1)  # sparse: costs no disk space
    with pytest.raises(ModelFileError, match="huge.json is larger than 512 MB \\(2048 MB\\)"):
        load_model(huge)
    monkeypatch.setattr("tokviz.core.formats.model_file.MAX_ENTRIES", 100)
    with pytest.raises(ModelFileError, match="the vocabulary has more than 100 entries, the limit"):
        load_model(_write(tmp_path / "m.json", _valid_model()))


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError, match="absent.json does not exist"):
        load_model(tmp_path / "absent.json")
    with pytest.raises(ModelFileError, match="is a directory"):
        load_model(tmp_path)


# ---------------------------------------------------------------------------- corrupt other files
@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["AA== 0", "not-base64! 1"], "x.tiktoken, line 2: the token is not valid base64"),
        (["AA== 0", "AQ== 0"], "x.tiktoken, line 2: rank 0 is already used by b'\\\\x00'"),
        (["AA== 0", "AA== 1"], "x.tiktoken, line 2: token b'\\\\x00' already has rank 0"),
        (["AA== zero"], "x.tiktoken, line 1: not a 'base64-token rank' pair"),
        (["AA== 0"], "x.tiktoken: no token for the single byte 01; not a byte-level BPE file"),
    ],
)
def test_corrupt_tiktoken_files_name_the_problem(tmp_path: Path, lines: list[str], message: str) -> None:
    path = _write(tmp_path / "x.tiktoken", "\n".join(lines) + "\n")
    with pytest.raises(TokenizerLoadError, match=message):
        load_tiktoken_file(path)


def test_a_tiktoken_token_that_is_no_merge_is_refused(tmp_path: Path) -> None:
    lines = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]
    lines.append(f"{base64.b64encode(b'abc').decode()} 256")  # three bytes, but no "ab" or "bc" token
    tok = load_tiktoken_file(_write(tmp_path / "x.tiktoken", "\n".join(lines)))
    with pytest.raises(TokenizerLoadError, match="is not one merge of two lower-ranked tokens"):
        _ = tok.merges


def test_gpt2_files_name_the_problem(tmp_path: Path) -> None:
    (tmp_path / "vocab.json").write_text(json.dumps({"a": 0, "b": 0}))
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b\n")
    with pytest.raises(TokenizerLoadError, match="vocab.json: tokens 'a' and 'b' share id 0"):
        tokenizer_from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")
    (tmp_path / "merges.txt").write_text("#version: 0.2\na b c\n")
    with pytest.raises(
        TokenizerLoadError, match="merges.txt, line 2: 'a b c' is not two tokens separated by a space"
    ):
        tokenizer_from_files(tmp_path / "vocab.json", tmp_path / "merges.txt")


# ---------------------------------------------------------------------------- Hugging Face input
def _hf_json(tmp_path: Path, **changes: object) -> Path:
    gpt2_bytes = Tokenizer({i: bytes([i]) for i in range(256)}, [], pretokenizer="gpt2")
    path = export_hf(gpt2_bytes, tmp_path / "base.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    for key, value in changes.items():
        if key.startswith("model_"):
            data["model"][key[len("model_") :]] = value
        else:
            data[key] = value
    return _write(tmp_path / "tokenizer.json", data)


def test_hf_merges_may_be_strings_or_pairs(tmp_path: Path) -> None:
    full = json.loads(_hf_json(tmp_path).read_text())["model"]["vocab"] | {"th": 256, "the": 257}
    as_strings = load_hf(_hf_json(tmp_path, model_vocab=full, model_merges=["t h", "th e"]))
    as_pairs = load_hf(_hf_json(tmp_path, model_vocab=full, model_merges=[["t", "h"], ["th", "e"]]))
    assert as_strings.encode("the then") == as_pairs.encode("the then") == [257, 32, 257, 110]


@pytest.mark.parametrize(
    "changes",
    [
        {"pre_tokenizer": {"type": "Metaspace", "replacement": "▁"}},
        {"pre_tokenizer": None},
        {"normalizer": {"type": "NFC"}},
        {"model_continuing_subword_prefix": "##"},
    ],
)
def test_hf_files_that_are_not_byte_level_bpe_load_and_encode_like_the_library(
    tmp_path: Path, changes: dict
) -> None:
    """Issue 13: what the tokenizers library reads, tokviz reads too (the library encodes)."""
    path = _hf_json(tmp_path, **changes)
    tok = load_hf(path)
    hf = tokenizers.Tokenizer.from_file(str(path))
    for text in ("the cat  sat", "Führer café\n\t", "😀 x"):
        assert tok.encode(text) == hf.encode(text, add_special_tokens=False).ids
    assert tok.replay_note  # the empty merge list has nothing to replay, and says so


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"model": {"type": "WordPiece", "vocab": {}}}, "cannot read it: missing field `"),
        ({"model_merges": [["t"]]}, "merge 0 is \\['t'\\], not 'left right' or \\[left, right\\]"),
        ({"model_merges": ["t h"]}, "cannot read it: Token `th` out of vocabulary"),
    ],
)
def test_hf_files_the_library_cannot_read_are_refused_with_its_reason(
    tmp_path: Path, changes: dict, message: str
) -> None:
    with pytest.raises(TokenizerLoadError, match=message) as info:
        load_hf(_hf_json(tmp_path, **changes))
    assert "\n" not in str(info.value)


# ---------------------------------------------------------------------------- regex dialects
def test_patterns_are_translated_for_oniguruma() -> None:
    assert to_oniguruma(r"\p{N}{1,3}+|\s++$|a\Z|[$]") == r"\p{N}{1,3}|\s++\Z|a\z|[$]"
    assert from_oniguruma(r"\s+\Z|a\z|b$") == r"\s+$|a\Z|b(?m:$)"
    with pytest.raises(ExportError, match="Oniguruma reads the possessive \\{1,3\\}\\+ as a repeat"):
        to_oniguruma(r"(?:\p{N}{1,3}+x)|y")


def test_atomic_export_leaves_an_existing_file_alone_on_failure(tmp_path: Path) -> None:
    target = tmp_path / "x.tiktoken"
    target.write_text("old")
    with pytest.raises(ExportError):
        export_tiktoken(_repeated_bytes_tokenizer(), target)
    assert target.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["x.tiktoken"]


# Whitespace and separators where regex engines are most likely to disagree, plus printable ASCII.
_TRICKY = [chr(c) for c in range(0x20, 0x7F)] + [
    chr(c)
    for c in (0x9, 0xA, 0xB, 0xC, 0xD, 0x1C, 0x1F, 0x85, 0xA0, 0x1680, 0x180E, 0x2000, 0x2028, 0x202F, 0x3000)
]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gpt2", "cl100k"])
def test_hf_export_agrees_with_tokviz_on_random_text(tmp_path: Path, name: str) -> None:
    """Oniguruma (HF) and Python's regex must chunk alike, even on odd whitespace and random scripts."""
    rng = random.Random(1234)
    tok = load_tokenizer(name)
    hf = tokenizers.Tokenizer.from_file(str(export_hf(tok, tmp_path / "tokenizer.json")))
    for trial in range(600):
        if trial % 2:
            text = "".join(rng.choice(_TRICKY) for _ in range(rng.randint(1, 16)))
        else:
            ranges = [(0x20, 0x2FFF), (0x1F300, 0x1FAFF), (0x4E00, 0x9FFF)]
            text = "".join(chr(rng.randint(*rng.choice(ranges))) for _ in range(rng.randint(1, 16)))
        assert hf.encode(text, add_special_tokens=False).ids == tok.encode(text), repr(text)
