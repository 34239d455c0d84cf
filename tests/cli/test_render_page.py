"""tokviz render -o page.html: a self-contained page of coloured tokens a browser draws as the app does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from .helpers import assert_one_line_error, run

HELLO = "Hello, 🌍! 你好!"


def test_render_writes_a_page_with_every_tokenizer_and_its_ids(capsys, tmp_path, gpt2_tiktoken) -> None:
    page = tmp_path / "tokens.html"
    code, _, err = run(
        capsys,
        "render",
        "--text",
        HELLO,
        "--tokenizer",
        "gpt2",
        "--tokenizer",
        "o200k",
        "--ids",
        "-o",
        str(page),
    )
    assert code == 0 and "token page written to" in err
    html = page.read_text(encoding="utf-8")
    assert "<title>tokviz: GPT-2, o200k</title>" in html
    for token_id in gpt2_tiktoken.encode(HELLO):
        assert f'<span class="tokviz-id">{token_id}</span>' in html
    assert "http" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")  # nothing to fetch


def test_picture_options_are_refused_for_a_page(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "render", "--text", "x", "--scale", "2", "-o", str(tmp_path / "p.html"))
    assert code == 2
    assert "--scale applies to PNG and SVG pictures, not to HTML pages" in err
    assert not (tmp_path / "p.html").exists()


def test_a_page_is_never_written_over_its_input(capsys, tmp_path) -> None:
    source = tmp_path / "notes.html"
    source.write_text("<p>my notes</p>", encoding="utf-8")
    code, _, err = run(capsys, "render", str(source), "-o", str(source))
    assert code == 1
    assert_one_line_error(err, "notes.html")
    assert source.read_text(encoding="utf-8") == "<p>my notes</p>"


@pytest.mark.slow
def test_a_browser_draws_the_page_with_coloured_boxes_and_hover_titles(capsys, tmp_path) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: .ci/run installs Debian's chromium for this test")
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    page = tmp_path / "tokens.html"
    assert run(capsys, "render", "--text", HELLO, "--tokenizer", "gpt2", "-o", str(page))[0] == 0
    shot = tmp_path / "page.png"
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'p'}",
    ]
    subprocess.run(
        [browser, *flags, "--window-size=900,300", f"--screenshot={shot}", page.as_uri()],
        capture_output=True,
        timeout=120,
        check=True,
    )
    dom = subprocess.run(
        [browser, *flags, "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert len(re.findall(r'class="tokviz-tok[ "]', dom)) == 12
    assert dom.count('title="id ') == 12
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert not image.isNull()
    colours = {image.pixelColor(x, y).getRgb()[:3] for x in range(0, 600, 3) for y in range(40, 110, 3)}
    saturated = [c for c in colours if max(c) - min(c) > 40]
    assert len(saturated) >= 6  # the token fills: several distinct hues, not a blank or unstyled page
