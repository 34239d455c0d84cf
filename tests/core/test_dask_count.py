"""Counting on Dask: byte ranges cut at safe places, counted on workers, give the local table exactly.

A ``LocalCluster`` of two workers (threads: it starts in well under a second, and the thread
workers share this process's in-memory file system for the URL test) counts a corpus with
special tokens, replaced invalid UTF-8, a compressed file and several files in ranges of a few
kilobytes; the table equals the local one row for row, in the same order. The cut rule itself is
checked on random texts without a cluster.
"""

from __future__ import annotations

import codecs
import socket
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tokviz.core.corpus.documents import iter_parts
from tokviz.core.errors import CorpusError
from tokviz.core.pretok.pretokenize import LONGEST_PRETOKEN, SpecialSplitter, resolve_pretokenizer
from tokviz.core.training.counts import count_corpus, train_from_counts
from tokviz.core.training.dask_count import (
    DaskUnavailable,
    count_on_dask,
    find_cut,
    local_cluster,
    pack,
    unpack,
)
from tokviz.core.training.train import count_words, train_bpe

from .test_counts import SPECIAL, make_corpus


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with local_cluster(2, processes=False) as cluster:
        yield cluster.scheduler_address


@pytest.fixture
def corpus(tmp_path: Path, english_text: str) -> list[Path]:
    return make_corpus(tmp_path / "corpus", english_text)


@pytest.mark.slow
@pytest.mark.parametrize("pretokenizer", ["gpt2", "none", r"\w+|\s+|[^\w\s]+"])
def test_the_dask_table_equals_the_local_table_exactly(
    scheduler: str, corpus: list[Path], pretokenizer: str
) -> None:
    kwargs = {"special_tokens": [SPECIAL], "errors": "replace", "pretokenizer": pretokenizer}
    local = count_corpus(files=corpus, **kwargs)
    seen: list[tuple[int, int]] = []
    on_dask = count_on_dask(
        [str(p) for p in corpus],
        scheduler=scheduler,
        chunk_bytes=3000,
        progress=lambda d, t: seen.append((d, t)),
        **kwargs,
    )
    assert list(on_dask.counts.items()) == list(local.counts.items())
    assert on_dask.metadata() == local.metadata()
    total = sum(p.stat().st_size for p in corpus)
    assert seen[-1] == (total, total) and all(d <= t for d, t in seen)
    first_seen = train_bpe(
        files=corpus,
        vocab_size=600,
        tie_break="first-seen",
        special_tokens=[SPECIAL],
        errors="replace",
        pretokenizer=pretokenizer,
    )
    assert train_from_counts(on_dask, 600, "first-seen").merges == first_seen.merges


@pytest.mark.parametrize("pretokenizer", ["gpt2", "none"])
def test_long_pretokens_and_stretches_are_cut_on_dask_as_in_a_local_count(
    scheduler: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pretokenizer: str
) -> None:
    import gzip

    import tokviz.core.corpus.reading as corpus_module

    # A forced cut falls a whole number of LONGEST_PRETOKEN pieces into a run (as the real 4 Mi
    # does), so the pieces counted do not depend on where a byte range ends. The worker threads
    # see the smaller length too.
    monkeypatch.setattr(corpus_module, "LONGEST_PART", 2 * LONGEST_PRETOKEN)
    plain = tmp_path / "run.txt"
    plain.write_text("some words " * 500 + "a" * 300_000 + " and more words\n" * 500, encoding="utf-8")
    packed = tmp_path / "run.txt.gz"  # a whole-file range, read in blocks on its worker
    packed.write_bytes(gzip.compress(("b" * 300_000 + " tail words\n").encode()))
    files = [plain, packed]
    local = count_corpus(files=files, pretokenizer=pretokenizer)
    on_dask = count_on_dask(
        [str(p) for p in files], scheduler=scheduler, chunk_bytes=4000, pretokenizer=pretokenizer
    )
    assert local.long_pretokens > 0
    assert max(len(w) for w in local.counts) <= LONGEST_PRETOKEN
    assert list(on_dask.counts.items()) == list(local.counts.items())
    # Both warn (`tokviz count` prints the number): a run a range ends with is cut into parts
    # there, and each part's piece of it counts as one long pre-token, so the numbers may differ.
    assert on_dask.long_pretokens >= local.long_pretokens > 0


def test_invalid_utf8_stops_the_dask_count_with_the_local_message(scheduler: str, corpus: list[Path]) -> None:
    with pytest.raises(CorpusError) as local:
        count_corpus(files=corpus, special_tokens=[SPECIAL])
    with pytest.raises(CorpusError) as on_dask:
        count_on_dask(
            [str(p) for p in corpus], scheduler=scheduler, special_tokens=[SPECIAL], chunk_bytes=2000
        )
    assert str(on_dask.value) == str(local.value)
    assert on_dask.value.offset == local.value.offset


def test_a_folder_is_read_as_locally_and_urls_through_fsspec(scheduler: str, corpus: list[Path]) -> None:
    import fsspec

    local = count_corpus(files=[corpus[0].parent], special_tokens=[SPECIAL], errors="replace")
    folder = count_on_dask(
        [str(corpus[0].parent)], scheduler=scheduler, special_tokens=[SPECIAL], errors="replace"
    )
    assert list(folder.counts.items()) == list(local.counts.items())
    memory = fsspec.filesystem("memory")
    for p in corpus:
        memory.pipe(f"/h7-corpus/{p.name}", p.read_bytes())
    try:
        remote = count_on_dask(
            ["memory://h7-corpus"],
            scheduler=scheduler,
            special_tokens=[SPECIAL],
            errors="replace",
            chunk_bytes=4000,
        )
    finally:
        memory.rm("/h7-corpus", recursive=True)
    assert list(remote.counts.items()) == list(local.counts.items())
    assert [f.path for f in remote.files] == [f"memory:///h7-corpus/{p.name}" for p in corpus]
    assert [f.sha256 for f in remote.files] == [f.sha256 for f in local.files]


def test_without_dask_the_option_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, corpus: list[Path]
) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(DaskUnavailable, match=r"pip install 'tokviz-desktop\[dask\]'"):
        count_on_dask([str(corpus[0])])


def test_an_unreachable_scheduler_is_a_one_line_error(corpus: list[Path]) -> None:
    from tokviz.core.training.counts import CountTableError

    with socket.socket() as taken:  # bound but not listening: a connection to it is refused
        taken.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{taken.getsockname()[1]}"
        with pytest.raises(CountTableError, match=f"cannot reach the Dask scheduler at {address}"):
            count_on_dask([str(corpus[0])], scheduler=address, connect_timeout=0.5)


# ---------------------------------------------------------------------------- the cut rule
WORDS = [
    "the",
    " cat",
    "  ",
    " ",
    "\n",
    "é",
    "東京",
    "🌍",
    "a b",
    SPECIAL,
    "<|end",
    "\xff",
    "\xe4\xbd",
    "x\ty",
    "!",
    "?!",
]


def _pieces_counts(
    data: bytes, cuts: list[int], errors: str, specials: list[str], pattern: str
) -> Counter[str]:
    pre = resolve_pretokenizer(pattern)
    splitter = SpecialSplitter(specials)
    counts: Counter[str] = Counter()
    for start, end in zip(cuts, cuts[1:]):
        text = codecs.decode(data[start:end], "utf-8", errors)
        for part in iter_parts([], text, specials, pattern != "none", 1 << 18):
            counts.update(count_words(part, pre, splitter)[0])
    return counts


@given(
    st.lists(st.sampled_from(WORDS), max_size=80),
    st.lists(st.integers(min_value=1, max_value=400), min_size=1, max_size=6),
    st.sampled_from([[], [SPECIAL], [SPECIAL, "a b"]]),
    st.sampled_from(["gpt2", "none"]),
)
def test_counting_between_safe_cuts_equals_counting_the_whole(
    words: list[str], positions: list[int], specials: list[str], pattern: str
) -> None:
    data = b"".join(w.encode("latin-1") if w in ("\xff", "\xe4\xbd") else w.encode() for w in words)

    def read(offset: int, length: int) -> bytes:
        return data[offset : offset + length]

    encoded = [s.encode() for s in specials]
    # Pre-tokenizer "none" may be cut only where a special token starts.
    safe_spaces = pattern != "none"
    cuts = sorted({0, len(data), *(find_cut(read, p, len(data), safe_spaces, encoded) for p in positions)})
    whole = _pieces_counts(data, [0, len(data)], "replace", specials, pattern)
    assert _pieces_counts(data, cuts, "replace", specials, pattern) == whole


@given(
    st.dictionaries(
        st.text(st.characters(blacklist_categories=("Cs",))), st.integers(min_value=1, max_value=2**62)
    )
)
def test_a_packed_table_unpacks_to_the_same_rows_in_the_same_order(counts: dict[str, int]) -> None:
    assert list(unpack(pack(counts)).items()) == list(counts.items())


def test_relative_paths_are_named_as_given_and_read_by_absolute_path(
    scheduler: str, corpus: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(corpus[0].parent)
    names = [p.name for p in corpus]
    local = count_corpus(files=names, errors="replace")
    on_dask = count_on_dask(names, scheduler=scheduler, errors="replace", chunk_bytes=5000)
    assert [f.path for f in on_dask.files] == names
    assert on_dask.metadata() == local.metadata()


def test_a_worker_adds_consecutive_ranges_in_order_and_keeps_the_first_error(corpus: list[Path]) -> None:
    from tokviz.core.training.dask_count import InputFile, add_partials, count_range, plan_ranges

    file = corpus[0]
    ranges = plan_ranges([InputFile(str(file), file.stat().st_size)], 2000, True)
    parts = [count_range(r, "gpt2", (SPECIAL,), "strict") for r in ranges]
    assert len(parts) > 3
    status, packed, records = add_partials(*parts)
    assert status == "ok" and records is None  # a text file holds no records
    local = count_corpus(files=[file], special_tokens=[SPECIAL])
    assert list(unpack(packed).items()) == list(local.counts.items())
    first, second = ("error", ("first", None, None), None), ("error", ("second", None, None), None)
    assert add_partials(parts[0], first, parts[1], second) == first
