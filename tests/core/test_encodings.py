"""The shipped encodings load offline and hash-checked, and their merges come back exactly."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
import tiktoken.load
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core.errors import TokenizerLoadError
from tokviz.core.formats import encodings, parse_tiktoken_file
from tokviz.core.formats.encodings import BUNDLED, bundled_encoding, bundled_merges, load_bundled_ranks
from tokviz.core.io import recovery
from tokviz.core.io.recovery import recover_merges
from tokviz.core.io.resources import resource_path
from tokviz.core.pretok.pretokenize import resolve_pretokenizer


# ---------------------------------------------------------------------------- oracle
def reference_merge(token: bytes, ranks: Mapping[bytes, int]) -> list[bytes]:
    """The definition, written out plainly: rank-based BPE on the token's bytes with lower ranks only."""
    limit = ranks[token]
    parts = [bytes([b]) for b in token]
    while True:
        candidates = [
            (ranks[parts[i] + parts[i + 1]], i)
            for i in range(len(parts) - 1)
            if ranks.get(parts[i] + parts[i + 1], limit) < limit
        ]
        if not candidates:
            return parts
        _, i = min(candidates)  # lowest rank, then leftmost
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


def reference_merges(ranks: Mapping[bytes, int]) -> list[tuple[bytes, bytes]] | None:
    """Every multi-byte token's merge in rank order, or None when one of them is not a single merge."""
    out = []
    for token in sorted(ranks, key=ranks.__getitem__):
        if len(token) == 1:
            continue
        parts = reference_merge(token, ranks)
        if len(parts) != 2:
            return None
        out.append((parts[0], parts[1]))
    return out


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    """Forget the per-process caches so a test sees its own (patched) files, and leave none behind."""
    encodings._load_ranks.cache_clear()
    encodings._merges.cache_clear()
    yield
    encodings._load_ranks.cache_clear()
    encodings._merges.cache_clear()


# ---------------------------------------------------------------------------- loading
def test_gpt2_ranks() -> None:
    ranks = load_bundled_ranks("gpt2")
    assert len(ranks) == 50256
    assert sorted(ranks.values()) == list(range(50256))
    assert ranks[b" the"] == 262
    assert ranks[b"!"] == 0


def test_cl100k_ranks() -> None:
    ranks = load_bundled_ranks("cl100k")
    assert len(ranks) == 100256
    assert sorted(ranks.values()) == list(range(100256))


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("gpt2", "r50k_base"),
        ("r50k_base", "r50k_base"),
        ("GPT-2", "r50k_base"),
        ("cl100k", "cl100k_base"),
        ("o200k", "o200k_base"),
        ("gpt-4o", "o200k_base"),
    ],
)
def test_aliases(alias: str, name: str) -> None:
    assert bundled_encoding(alias).name == name


def test_unknown_name_lists_the_choices() -> None:
    with pytest.raises(TokenizerLoadError, match="no bundled encoding called 'p50k_base'.*cl100k"):
        load_bundled_ranks("p50k_base")


def test_each_call_returns_a_fresh_dict() -> None:
    first = load_bundled_ranks("gpt2")
    first[b"tokviz"] = 99999
    assert b"tokviz" not in load_bundled_ranks("gpt2")


@pytest.mark.slow
def test_same_table_as_tiktokens_own_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache copy in the temp folder
    for enc in BUNDLED.values():
        path = resource_path("encodings", enc.filename)
        theirs = tiktoken.load.load_tiktoken_bpe(str(path), expected_hash=enc.sha256)
        assert load_bundled_ranks(enc.name) == theirs


def test_loading_never_uses_tiktokens_fetch_or_cache(
    monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    def forbidden(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("tiktoken's reader was used")

    monkeypatch.setattr(tiktoken.load, "read_file", forbidden)
    monkeypatch.setattr(tiktoken.load, "read_file_cached", forbidden)
    assert len(load_bundled_ranks("r50k_base")) == 50256


def test_corrupt_file_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_cache: None) -> None:
    bad = tmp_path / "r50k_base.tiktoken"
    shutil.copyfile(resource_path("encodings", "r50k_base.tiktoken"), bad)
    with bad.open("ab") as fh:
        fh.write(b"dG9rdml6 50256\n")  # one extra token
    monkeypatch.setattr(encodings, "resource_path", lambda *parts: bad)
    with pytest.raises(TokenizerLoadError, match="does not match its published SHA-256 306cd27f"):
        load_bundled_ranks("gpt2")


def test_specials_and_patterns_match_tiktokens_definitions(monkeypatch: pytest.MonkeyPatch) -> None:
    import tiktoken_ext.openai_public as public

    # tiktoken's constructors fetch the rank file first; hand them the bundled one instead.
    monkeypatch.setattr(public, "load_tiktoken_bpe", lambda *args, **kwargs: {})
    for enc, constructor in [
        (BUNDLED["r50k_base"], public.r50k_base),
        (BUNDLED["cl100k_base"], public.cl100k_base),
    ]:
        spec = constructor()
        assert dict(enc.special_tokens) == spec["special_tokens"]
        assert resolve_pretokenizer(enc.pattern).pattern == spec["pat_str"]


def test_parse_reports_the_bad_line() -> None:
    with pytest.raises(TokenizerLoadError, match="line 2"):
        parse_tiktoken_file(b"IQ== 0\nnot-a-pair\n", "x.tiktoken")
    with pytest.raises(TokenizerLoadError, match="line 2.*already has rank 0"):
        parse_tiktoken_file(b"IQ== 0\nIQ== 1\n", "x.tiktoken")
    # A blank line is skipped and the last line needs no newline.
    singles = b"".join(base64.b64encode(bytes([b])) + b" %d\n" % b for b in range(256))
    assert parse_tiktoken_file(singles + b"\nISI= 256", "x.tiktoken") == _singles() | {b'!"': 256}


def test_the_bundled_files_go_through_the_same_strict_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_cache: None
) -> None:
    # A rank given to two tokens passes tiktoken's reader but not tokviz's, bundled or not.
    bad = tmp_path / "r50k_base.tiktoken"
    shutil.copyfile(resource_path("encodings", "r50k_base.tiktoken"), bad)
    with bad.open("ab") as fh:
        fh.write(b"dG9rdml6 0\n")
    monkeypatch.setattr(encodings, "resource_path", lambda *parts: bad)
    monkeypatch.setattr(encodings, "check_hash", lambda data, expected: True)
    with pytest.raises(TokenizerLoadError, match=r"line 50257: rank 0 is already used by b'!'"):
        load_bundled_ranks("gpt2")


# ---------------------------------------------------------------------------- merges
@pytest.mark.slow
def test_gpt2_merges_rebuild_every_token_as_the_definition_says() -> None:
    ranks = load_bundled_ranks("gpt2")
    merges = recover_merges(ranks)
    assert len(merges) == 50000
    token_of_rank = {r: t for t, r in ranks.items()}
    for i, (left, right) in enumerate(merges):
        assert left + right == token_of_rank[256 + i]
        assert ranks[left] < 256 + i and ranks[right] < 256 + i
    assert merges[:3] == [(b" ", b"t"), (b" ", b"a"), (b"h", b"e")]  # GPT-2's merges.txt starts so
    assert merges == reference_merges(ranks)


@pytest.mark.slow
def test_cl100k_merges_match_the_definition() -> None:
    ranks = load_bundled_ranks("cl100k")
    merges = recover_merges(ranks)
    assert len(merges) == 100000
    assert merges == reference_merges(ranks)


@pytest.mark.slow
def test_fast_path_and_pure_python_agree_on_gpt2() -> None:
    ranks = load_bundled_ranks("gpt2")
    items = recovery._checked_items(ranks)
    assert recovery._recover(items, ranks, None) == recover_merges(ranks)


def test_bundled_merges_are_cached_copies() -> None:
    first = bundled_merges("gpt2")
    first.clear()
    assert len(bundled_merges("r50k_base")) == 50000


def _singles() -> dict[bytes, int]:
    return {bytes([b]): b for b in range(256)}


def test_token_that_is_no_single_merge_is_an_error() -> None:
    # "bc" merges first, after which neither "abc" nor "bcd" is a token: three parts remain,
    # even though "ab" + "cd" would spell the token.
    ranks = _singles() | {b"bc": 256, b"ab": 257, b"cd": 258, b"abcd": 259}
    with pytest.raises(TokenizerLoadError, match=r"b'abcd' \(rank 259\).*3 parts"):
        recover_merges(ranks)


def test_unreachable_token_is_an_error() -> None:
    with pytest.raises(TokenizerLoadError, match="b'xyz'"):
        recover_merges(_singles() | {b"xyz": 256})


def test_leftmost_pair_wins_among_equal_ranks() -> None:
    ranks = _singles() | {b"aa": 256, b"aaa": 257}
    assert recover_merges(ranks) == [(b"a", b"a"), (b"aa", b"a")]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({bytes([b]): b for b in range(255)}, "single byte FF"),
        (_singles() | {b"ab": 3}, "share rank 3"),
        (_singles() | {b"ab": -1}, "integers >= 0"),
        (_singles() | {b"ab": "256"}, "integers >= 0"),
        (_singles() | {b"": 256}, "non-empty bytes"),
    ],
)
def test_unusable_tables_are_refused(table: dict[bytes, int], message: str) -> None:
    with pytest.raises(TokenizerLoadError, match=message):
        recover_merges(table)


def test_gaps_and_huge_ranks_are_fine() -> None:
    ranks = _singles() | {b"ab": 1000, b"abc": 2**40}
    assert recover_merges(ranks) == [(b"a", b"b"), (b"ab", b"c")]


@st.composite
def rank_tables(draw: st.DrawFn) -> dict[bytes, int]:
    """Small tables over a 3-letter alphabet: mostly real merges, sometimes stray tokens, odd orders."""
    shift = draw(st.integers(0, 255))  # single bytes need not be ranked in byte order
    ranks = {bytes([b]): (b + shift) % 256 for b in range(256)}
    pool = [b"a", b"b", b"c"]
    tokens: list[bytes] = []
    for _ in range(draw(st.integers(0, 30))):
        if draw(st.integers(0, 5)) == 0:
            token = draw(st.binary(min_size=2, max_size=5).map(lambda s: bytes(b"abc"[x % 3] for x in s)))
        else:
            token = draw(st.sampled_from(pool)) + draw(st.sampled_from(pool))
        if token not in ranks and token not in tokens:
            tokens.append(token)
            pool.append(token)
    if draw(st.booleans()):
        tokens = draw(st.permutations(tokens))
    rank = 256
    for token in tokens:
        rank += draw(st.integers(0, 2)) + 1 if draw(st.booleans()) else 1
        ranks[token] = rank
    return ranks


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(table=rank_tables(), first_batch=st.integers(1, 300), growth=st.integers(2, 3))
def test_recovery_matches_the_definition_on_random_tables(
    table: dict[bytes, int], first_batch: int, growth: int
) -> None:
    expected = reference_merges(table)
    items = recovery._checked_items(table)
    for runner in (recovery._tiktoken_runner(), None):
        if expected is None:
            with pytest.raises(TokenizerLoadError):
                recovery._recover(items, table, runner, first_batch, growth)
        else:
            assert recovery._recover(items, table, runner, first_batch, growth) == expected


def test_tiktoken_runner_leaves_tokens_that_are_not_utf8_to_python() -> None:
    # "é" is C3 A9: "\xc3\xa9" decodes, "\xa9\xc3" and "a\xc3" are parts of characters.
    ranks = _singles() | {b"\xc3\xa9": 256, b"a\xc3": 257, b"\xa9\xc3": 258, b"a\xc3\xa9": 259}
    ranks |= {b"\xa9\xc3\xa9": 260, b"\xc3\xa9a\xc3": 261}
    expected = reference_merges(ranks)
    runner = recovery._tiktoken_runner()
    assert runner is not None
    encode = runner(_singles() | {b"\xc3\xa9": 256})
    assert encode(b"a\xc3\xa9") == [97, 256]
    assert encode(b"\xa9\xc3") is None
    items = recovery._checked_items(ranks)
    assert expected is not None
    assert recovery._recover(items, ranks, runner, first_batch=1) == expected
