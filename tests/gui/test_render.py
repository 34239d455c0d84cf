"""``tokviz render`` and ``tokviz replay --render``: slide pictures drawn headless by the window's own code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.dom import minidom

import pytest
from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage
from PySide6.QtSvg import QSvgRenderer

from tokviz.cli import main
from tokviz.gui.drawing.images import render_image
from tokviz.gui.drawing.sheet import ensure_app
from tokviz.gui.drawing.strips import MAX_RENDER_CHARS, StripSheet, render_strips
from tokviz.gui.widgets.token_view import TokenView

from ..texts import CAT, HELLO

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def headless_env() -> dict[str, str]:
    """A server with no display, where nobody has told Qt what to do."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env


def svg_texts(path: Path) -> list[str]:
    doc = minidom.parse(str(path))
    return [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]


# ----------------------------------------------------------------------------- the strips
def test_each_strip_is_a_real_token_view_showing_the_whole_text(gpt2, cl100k):
    ensure_app()
    text = "Tokenizers turn text into integers.\n" * 6 + HELLO
    sheet = StripSheet(text, [("GPT-2", gpt2), ("cl100k", cl100k)], max_width=500)
    try:
        assert [type(v) for v in sheet.views] == [TokenView, TokenView]
        for view, tok in zip(sheet.views, (gpt2, cl100k)):
            assert view.table is not None and list(view.table.ids) == tok.encode(text)
            assert view.verticalScrollBar().maximum() == 0  # every line is on the picture
            last = view.visible_boxes()[-1]
            assert last.token == len(view.table) - 1 and last.y + last.h <= view.height()
            assert view.width() <= 500
        n = len(gpt2.encode(text))
        caption = sheet.captions[0].text()
        assert f"{n} tokens" in caption and f"{len(text.encode()) / n:.2f} bytes/token" in caption
    finally:
        sheet.deleteLater()


def test_a_token_is_painted_with_the_colour_the_window_gives_its_id(tmp_path, gpt2):
    ensure_app()
    sheet = StripSheet(CAT, [("GPT-2", gpt2)])
    try:
        view = sheet.views[0]
        box = view.visible_boxes()[1]  # " cat"
        expected = view.paint_color(box.token)
        image = render_image(sheet, 2.0)
        origin = view.viewport().mapTo(sheet, QPoint(0, 0))
        x = (origin.x() + box.x + box.w / 2) * 2
        y = (origin.y() + box.y + 2.5) * 2  # above the glyphs, inside the box
        assert image.pixelColor(round(x), round(y)).name() == expected.name()
    finally:
        sheet.deleteLater()


def test_png_at_2x_has_twice_the_pixels_of_1x(tmp_path, gpt2, cl100k):
    one = render_strips(HELLO, [("GPT-2", gpt2), ("cl100k", cl100k)], tmp_path / "one.png", scale=1)
    two = render_strips(HELLO, [("GPT-2", gpt2), ("cl100k", cl100k)], tmp_path / "two.png", scale=2)

    a, b = QImage(str(one)), QImage(str(two))
    assert (b.width(), b.height()) == (2 * a.width(), 2 * a.height())


def test_2x_is_drawn_at_full_resolution_not_enlarged(tmp_path, gpt2):
    one = QImage(str(render_strips(HELLO, [("GPT-2", gpt2)], tmp_path / "one.png", scale=1)))
    two = QImage(str(render_strips(HELLO, [("GPT-2", gpt2)], tmp_path / "two.png", scale=2)))
    enlarged = one.scaled(two.size())  # nearest neighbour: every pixel becomes a 2 x 2 block

    differing = sum(
        two.pixel(x, y) != enlarged.pixel(x, y)
        for y in range(0, two.height(), 3)
        for x in range(0, two.width(), 3)
    )
    assert differing > 0.02 * (two.width() // 3) * (two.height() // 3)


def test_svg_keeps_the_tokens_as_text(tmp_path, gpt2):
    out = render_strips(HELLO, [("GPT-2", gpt2)], tmp_path / "strip.svg")

    assert QSvgRenderer(str(out)).isValid()
    root = minidom.parse(str(out)).documentElement
    assert root.getAttribute("width").isdigit() and root.getAttribute("viewBox").startswith("0 0 ")
    texts = " ".join(svg_texts(out))
    assert "Hello" in texts and "<F0 9F>" in texts and "12 tokens" in texts


@pytest.mark.slow
def test_a_long_text_is_cut_and_the_picture_says_so(tmp_path, byte_tokenizer):
    ensure_app()
    text = "abc " * (MAX_RENDER_CHARS // 2)
    out = render_strips(text, [("bytes", byte_tokenizer)], tmp_path / "long.svg", max_width=2000)

    assert any(f"first {MAX_RENDER_CHARS:,} of {len(text):,} characters" in t for t in svg_texts(out))


# ----------------------------------------------------------------------------- tokviz render
def test_render_draws_one_strip_per_tokenizer(capsys, tmp_path):
    out = tmp_path / "strips.svg"

    code, stdout, err = run(
        capsys, "render", "--text", HELLO, "--tokenizer", "gpt2", "--tokenizer", "cl100k", "-o", str(out)
    )

    assert code == 0, err
    assert (
        stdout == ""
        and err == f"tokviz: token strips drawn in {out} (special tokens in text: parsed as specials)\n"
    )
    texts = svg_texts(out)
    assert "GPT-2" in texts and "cl100k" in texts
    assert any("你好" in t for t in texts)  # cl100k keeps the characters whole


def test_render_reads_a_file_and_draws_ids_whitespace_and_the_dark_theme(capsys, tmp_path):
    source = tmp_path / "lecture.txt"
    source.write_text("the cat\tin the hat\n", encoding="utf-8")
    out_svg, out_png = tmp_path / "ids.svg", tmp_path / "dark.png"

    assert run(capsys, "render", str(source), "--tokenizer", "gpt2", "--ids", "-o", str(out_svg))[0] == 0
    assert run(capsys, "render", str(source), "--whitespace", "--theme", "dark", "-o", str(out_png))[0] == 0

    assert any("1169" in t for t in svg_texts(out_svg))  # "the" is id 1169 in GPT-2
    image = QImage(str(out_png))
    assert image.pixelColor(2, 2).lightness() < 60  # dark background
    light = QImage(str(render_strips("x", [], tmp_path / "light.png", scale=1)))
    assert light.pixelColor(2, 2).lightness() > 240


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["-o", "strips.jpg"], "writes .png or .svg files, not .jpg"),
        (["-o", "strips.svg", "--scale", "2"], "an SVG drawing has no pixels"),
        (["-o", "strips.png", "--scale", "0"], "between 0.25 and 8"),
    ],
)
def test_render_options_are_checked_before_any_work(capsys, tmp_path, monkeypatch, argv, fragment):
    monkeypatch.chdir(tmp_path)

    code, out, err = run(capsys, "render", "--text", "x", *argv)

    assert code == 2 and out == "" and fragment in err
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_render_works_without_a_display(tmp_path):
    out = tmp_path / "headless.png"

    done = subprocess.run(
        [sys.executable, "-m", "tokviz", "render", "--text", HELLO, "-o", str(out), "--scale", "2"],
        capture_output=True,
        text=True,
        env=headless_env(),
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert (
        done.stderr == f"tokviz: token strips drawn in {out} (special tokens in text: parsed as specials)\n"
    )
    image = QImage(str(out))
    assert image.width() > 600 and image.height() > 300


def test_the_other_subcommands_never_import_qt():
    probe = (
        "import sys\n"
        "from tokviz.cli import main\n"
        "code = main(['replay', '--text', 'the cat in the hat', '--merges', '3', '--pretokenizer', 'none'])\n"
        "code = code or main(['encode', '--text', 'Hi 🌍', '--format', 'tokens'])\n"
        "code = code or main(['info', 'bytes'])\n"
        "assert 'PySide6' not in sys.modules and 'tokviz.gui' not in sys.modules, 'Qt was imported'\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=headless_env())

    assert done.returncode == 0, done.stderr


# ----------------------------------------------------------------------------- tokviz replay --render
def test_replay_render_draws_the_lectures_merge_table(capsys, tmp_path):
    out = tmp_path / "merges.svg"

    code, stdout, err = run(
        capsys,
        "replay",
        "--text",
        CAT,
        "--merges",
        "3",
        "--pretokenizer",
        "none",
        "--tie-break",
        "first-seen",
        "--render",
        str(out),
    )

    assert code == 0, err
    assert "12 tokens: [the ][c][a][t][ ][i][n][ ][the ][h][a][t]" in stdout  # the table is still printed
    assert err == f"tokviz: merge table drawn in {out}\n"
    texts = svg_texts(out)
    for expected in ("Step", "Pair merged", "New id", "Bytes", "Count", "Tokens", "256", "257", "258", "18"):
        assert expected in texts
    assert {"t", "h", "th", "e", "the", "·", "the·"} <= set(texts)  # pairs and their bytes, as chips
    assert any("1.5 bytes per token" in t for t in texts)


@pytest.mark.slow
def test_replay_render_png_of_a_published_tokenizer_lists_only_the_merges_that_change_the_text(
    capsys, tmp_path
):
    small, large = tmp_path / "one.png", tmp_path / "two.png"

    assert (
        run(capsys, "replay", "--text", HELLO, "--tokenizer", "gpt2", "--render", str(small), "--scale", "1")[
            0
        ]
        == 0
    )
    assert run(capsys, "replay", "--text", HELLO, "--tokenizer", "gpt2", "--render", str(large))[0] == 0

    one, two = QImage(str(small)), QImage(str(large))
    assert (two.width(), two.height()) == (2 * one.width(), 2 * one.height())  # --scale defaults to 2
    assert one.height() < 700  # 8 merges change the text, not 50,000 rows


def test_replay_picture_options_need_render(capsys):
    code, _, err = run(capsys, "replay", "--text", "x", "--scale", "2")

    assert code == 2 and "--scale applies only to the picture: add --render OUT.png or OUT.svg" in err
