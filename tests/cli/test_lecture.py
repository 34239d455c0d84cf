"""``tokviz lecture``: list a deck with its figures, write it as a PDF handout or as slide pictures,
refuse a wrong deck in one line, and never write over the deck or the files beside it."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest

from tokviz.core.lecture.deck import default_deck

from .helpers import assert_one_line_error, run

pytestmark = [pytest.mark.gui]  # the outputs are painted with Qt

TITLES = [slide.title for slide in default_deck().slides]


def pdf_pages(path: Path) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", path.read_bytes()))


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


def test_with_no_output_it_lists_the_slides_and_the_figures_each_states(capsys):
    code, out, _ = run(capsys, "lecture")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Tokenization: from characters to BPE: 20 slides"
    assert len(lines) == 21
    assert "tokens: 18 → 16 → 14 → 12" in lines[6] and "(4 steps)" in lines[6]
    assert "bytes: 48 69 20 F0 9F 8C 8D" in lines[2] and "U+1F30D" in lines[2]
    assert "bytes: 20; GPT-2 tokens: 12" in lines[9]
    assert "tokens: 16" in lines[7]


@pytest.mark.parametrize("per_step, pages", [([], 20), (["--per-step"], 23)])
def test_pdf_has_a_page_per_slide_or_per_step(capsys, tmp_path, per_step, pages):
    out = tmp_path / "handout.pdf"
    code, _, err = run(capsys, "lecture", "--pdf", str(out), *per_step)
    assert code == 0 and "handout written" in err
    assert pdf_pages(out) == pages


def test_paper_prints_a4_pages_with_the_notes(capsys, tmp_path):
    out = tmp_path / "h.pdf"
    code, _, err = run(capsys, "lecture", "--pdf", str(out), "--paper", "a4")
    assert code == 0 and "handout written" in err
    assert pdf_pages(out) == len(TITLES) and b"/MediaBox [0 0 595.000000 842.000000]" in out.read_bytes()


def test_paper_without_pdf_is_a_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, "lecture", "--png", str(tmp_path / "p"), "--paper", "letter")
    assert code == 2 and "--paper" in err and not (tmp_path / "p").exists()


def test_png_writes_each_slide_at_twice_the_canvas(capsys, tmp_path):
    code, _, _ = run(capsys, "lecture", "--png", str(tmp_path / "slides"), "--aspect", "4:3")
    assert code == 0
    files = sorted((tmp_path / "slides").glob("slide-*"))
    assert [f.name for f in files] == [f"slide-{n:02d}.png" for n in range(1, 21)]
    assert {png_size(f) for f in files} == {(2400, 1800)}


def test_svg_per_step_names_each_merge_step_and_keeps_text_as_text(capsys, tmp_path):
    code, _, _ = run(capsys, "lecture", "--svg", str(tmp_path / "svg"), "--per-step")
    assert code == 0
    names = sorted(f.name for f in (tmp_path / "svg").glob("slide-*"))
    assert len(names) == 23 and "slide-06-4.svg" in names and "slide-07.svg" in names
    for number, title in enumerate(TITLES, 1):
        name = f"slide-{number:02d}-1.svg" if number == 6 else f"slide-{number:02d}.svg"
        svg = (tmp_path / "svg" / name).read_text(encoding="utf-8")
        assert title.split(":")[0].replace("&", "&amp;") in svg


def test_a_deck_with_a_mistake_is_one_line_naming_file_and_line(capsys, tmp_path):
    deck = tmp_path / "deck.toml"
    deck.write_text('title = "t"\n\n[[slide]]\nkind = "merges"\ntitel = "x"\n', encoding="utf-8")
    code, out, err = run(capsys, "lecture", str(deck), "--pdf", str(tmp_path / "out.pdf"))
    assert (code, out) == (1, "")
    assert_one_line_error(err, f"{deck}:5", "titel")
    assert not (tmp_path / "out.pdf").exists()


def test_pdf_must_be_named_pdf(capsys, tmp_path):
    code, _, err = run(capsys, "lecture", "--pdf", str(tmp_path / "handout.png"))
    assert code == 2  # a usage mistake: the usage, then the one line saying what is wrong
    assert err.strip().splitlines()[-1].endswith(f"--pdf writes a .pdf file, not {tmp_path / 'handout.png'}")
    assert not (tmp_path / "handout.png").exists()


def test_pictures_never_overwrite_the_deck_or_a_picture_it_shows(capsys, tmp_path):
    (tmp_path / "slide-02.png").write_bytes(
        png := (Path(__file__).parents[2] / "docs/images/timeline.png").read_bytes()
    )
    deck = tmp_path / "deck.toml"
    deck.write_text(
        'title = "t"\n\n[[slide]]\nkind = "text"\nbody = "hello"\n\n'
        '[[slide]]\nkind = "image"\npath = "slide-02.png"\n',
        encoding="utf-8",
    )
    before = deck.read_bytes()
    code, _, err = run(capsys, "lecture", str(deck), "--png", str(tmp_path))
    assert code == 1
    assert_one_line_error(err, "slide-02.png")
    assert (tmp_path / "slide-02.png").read_bytes() == png and not (tmp_path / "slide-01.png").exists()
    code, _, err = run(capsys, "lecture", str(deck), "--svg", str(deck))
    assert code == 1
    assert deck.read_bytes() == before


def test_a_tokenizer_json_beside_the_deck_is_used_by_its_slides(capsys, tmp_path):
    from ..core.made_by_others import hf_trained

    hf_trained("the cat in the hat sat on the mat. " * 50, vocab_size=300).save(str(tmp_path / "cats.json"))
    deck = tmp_path / "cats.toml"
    deck.write_text(
        'title = "Cats"\ntext = "the cat in the hat"\n\n'
        '[[slide]]\nkind = "views"\ntitle = "Our own BPE"\ntokenizers = ["cats.json", "bytes"]\n',
        encoding="utf-8",
    )
    code, out, err = run(capsys, "lecture", str(deck))
    assert code == 0, err
    figures = out.splitlines()[1]
    assert "bytes tokens: 18" in figures
    ours = int(re.search(r"cats tokens: (\d+)", figures).group(1))
    assert 1 <= ours < 18  # the merges learned on cats shorten the cat text
    code, _, _ = run(capsys, "lecture", str(deck), "--pdf", str(tmp_path / "cats.pdf"))
    assert code == 0 and pdf_pages(tmp_path / "cats.pdf") == 1
