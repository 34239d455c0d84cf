"""Parity across languages: what the same lines cost in each language of a parallel set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tokviz.core.analysis.parity import bundled_sample, measure_parity, read_parallel
from tokviz.core.corpus.languages import language_of
from tokviz.core.errors import CorpusError
from tokviz.core.formats.registry import load_tokenizer


def write_set(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


# ----------------------------------------------------------------------------- the bundled sample
def test_the_bundled_sample_has_twenty_odd_languages_aligned_line_by_line() -> None:
    sample = read_parallel(bundled_sample())
    assert len(sample.texts) >= 20
    assert sample.line_count == 5
    for text in sample.texts:
        raw = Path(text.path).read_text(encoding="utf-8")
        assert len(raw.splitlines()) == 5, text.path
        assert all(line.strip() for line in text.lines), text.path
    scripts = {"English", "Russian", "Greek", "Arabic", "Hebrew", "Hindi", "Bengali", "Tamil", "Thai"}
    scripts |= {"Chinese", "Japanese", "Korean", "Amharic", "Georgian"}
    assert scripts <= {t.language.name for t in sample.texts}


def test_the_sample_says_who_wrote_it_and_what_it_is_for() -> None:
    notice = (Path(bundled_sample()) / "README.md").read_text(encoding="utf-8")
    assert "tokviz authors" in notice and "not a" in notice and "FLORES-200" in notice


# ----------------------------------------------------------------------------- exact counts
@pytest.mark.parametrize(
    ("name", "oracle"),
    [("gpt2", "gpt2_tiktoken"), ("cl100k", "cl100k_tiktoken"), ("o200k", "o200k_tiktoken")],
)
def test_counts_are_tiktokens_own_per_line_encodings(
    name: str, oracle: str, request: pytest.FixtureRequest
) -> None:
    encoding = request.getfixturevalue(oracle)
    sample = read_parallel(bundled_sample())
    table = measure_parity(sample, [load_tokenizer(name)], [name])
    english = {r.language.code: r for r in table.entries}["en"]
    for row in table.entries:
        lines = Path(bundled_sample(), f"{row.language.code}.txt").read_text(encoding="utf-8").splitlines()
        assert row.tokens == sum(len(encoding.encode(line)) for line in lines), row.language.name
        assert row.bytes == sum(len(line.encode("utf-8")) for line in lines)
        assert row.characters == sum(len(line) for line in lines)
        assert row.premium == pytest.approx(row.tokens / english.tokens)
    assert english.premium == 1.0


def test_rows_come_dearest_first_and_the_worst_are_named() -> None:
    sample = read_parallel(bundled_sample())
    table = measure_parity(sample, [load_tokenizer("gpt2")], ["GPT-2"])
    premiums = [r.premium for r in table.of("GPT-2")]
    assert premiums == sorted(premiums, reverse=True)
    worst = table.worst("GPT-2", 3)
    assert len(worst) == 3 and all(r.premium > 3 for r in worst)
    assert table.summary()[0].startswith(f"GPT-2: {worst[0].language.name} ")
    low, high = table.premium_range("GPT-2")
    assert low < 1.5 < 3 < high


def test_a_reference_and_a_choice_of_languages() -> None:
    sample = read_parallel(bundled_sample())
    table = measure_parity(
        sample, [load_tokenizer("cl100k")], ["cl100k"], reference="fr", languages=["Hindi", "ja"]
    )
    assert table.reference.code == "fr"
    assert {r.language.code for r in table.entries} == {"fr", "hi", "ja"}
    assert {r.language.code: r.premium for r in table.entries}["fr"] == 1.0


def test_headers_rows_and_html() -> None:
    sample = read_parallel(bundled_sample())
    table = measure_parity(sample, [load_tokenizer("gpt2")], ["GPT-2"], languages=["en", "ta"])
    assert table.headers()[-1] == "premium" and len(table.rows()[0]) == len(table.headers())
    assert table.rows()[-1][1:3] == ["English", "en"] and table.rows()[-1][-1] == "1.00×"
    page = table.html()
    assert "<table" in page and "Tamil" in page and "premium" in page


def test_a_notebook_shows_the_premiums_as_sorted_bars_above_the_table() -> None:
    sample = read_parallel(bundled_sample())
    tokenizers = [load_tokenizer("gpt2"), load_tokenizer("o200k")]
    table = measure_parity(sample, tokenizers, ["<GPT-2>", "o200k"], languages=["en", "ta", "fr"])
    page = table._repr_html_()
    chart = page[page.index("<svg") : page.index("</svg>")]
    assert page.index("</svg>") < page.index("<table")
    assert chart.index(">Tamil<") < chart.index(">French<") < chart.index(">English<")  # dearest first
    for row in table.entries:
        assert f"{row.premium:.2f}</text>" in chart
    assert 'stroke-dasharray="4 3"' in chart  # the 1.0 line: as costly as English
    assert "&lt;GPT-2&gt;" in page and "<GPT-2>" not in page


# ----------------------------------------------------------------------------- file names
def test_flores_layout_is_read_from_its_top_folder(tmp_path: Path) -> None:
    devtest = tmp_path / "flores200_dataset" / "devtest"
    devtest.mkdir(parents=True)
    write_set(devtest, {"eng_Latn.devtest": "one\ntwo\n", "zho_Hans.devtest": "一\n二\n"})
    sample = read_parallel(tmp_path / "flores200_dataset")
    assert [t.language.name for t in sample.texts] == ["English", "Chinese (Simplified)"]
    table = measure_parity(sample, [load_tokenizer("gpt2")], ["GPT-2"])
    assert table.reference.code == "eng_Latn"


def test_flores_plus_names_put_the_split_first() -> None:
    assert language_of("devtest.eng_Latn").code == "eng_Latn"
    assert language_of("dev.hin_Deva").name == "Hindi"


# ----------------------------------------------------------------------------- bad input
def test_an_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match="is empty"):
        read_parallel(tmp_path)


def test_a_folder_without_language_files(tmp_path: Path) -> None:
    write_set(tmp_path, {"notes.txt": "a\n", "README.md": "b\n"})
    with pytest.raises(CorpusError, match=r"no language files \(2 other files\)"):
        read_parallel(tmp_path)


def test_lines_that_do_not_align_name_the_file(tmp_path: Path) -> None:
    write_set(tmp_path, {"en.txt": "a\nb\nc\n", "fr.txt": "a\nb\nc\n", "de.txt": "a\nb\n"})
    with pytest.raises(CorpusError, match=r"de\.txt has 2 lines where 2 other files have 3"):
        read_parallel(tmp_path)


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    write_set(tmp_path, {"en.txt": "a\n"})
    (tmp_path / "fr.txt").write_bytes(b"caf\xe9\n")
    with pytest.raises(CorpusError, match=r"fr\.txt is not valid UTF-8 \(byte offset 3\)"):
        read_parallel(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    write_set(tmp_path, {"en.txt": "a\n"})
    os.mkfifo(tmp_path / "fr.txt")
    with pytest.raises(CorpusError, match=r"fr\.txt is a FIFO"):
        read_parallel(tmp_path)


def test_a_missing_reference_language(tmp_path: Path) -> None:
    write_set(tmp_path, {"fr.txt": "a\n", "de.txt": "b\n"})
    with pytest.raises(CorpusError, match="no file for the language 'en'"):
        measure_parity(read_parallel(tmp_path), [load_tokenizer("gpt2")], ["GPT-2"])


def test_crlf_endings_and_a_bom_are_not_text(tmp_path: Path) -> None:
    (tmp_path / "en.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    write_set(tmp_path, {"fr.txt": "un\ndeux"})
    sample = read_parallel(tmp_path)
    assert [t.lines for t in sample.texts] == [("one", "two"), ("un", "deux")]


def test_a_folder_too_big_to_hold_is_refused_before_it_is_all_read(tmp_path: Path, monkeypatch) -> None:
    from tokviz.core.analysis import parity

    monkeypatch.setattr(parity, "MAX_PARALLEL_BYTES", 100)
    write_set(tmp_path, {"en.txt": "a" * 60 + "\n", "fr.txt": "b" * 60 + "\n", "de.txt": "c" * 60 + "\n"})
    with pytest.raises(CorpusError, match="hold more than 100 bytes of text"):
        read_parallel(tmp_path)
