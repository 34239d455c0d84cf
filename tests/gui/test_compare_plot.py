"""``tokviz compare --plot``: the chart panel's drawing, written headless from the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.dom import minidom

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtSvg import QSvgRenderer

from tokviz.cli import main
from tokviz.cli.compare import labelled_rows
from tokviz.cli.drawing import use_offscreen_qt_without_display
from tokviz.gui.drawing.chart_style import byte_color, series_color

from ..texts import HELLO

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def headless_env() -> dict[str, str]:
    """The environment of a server with no display, where nobody has told Qt what to do."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return env


def rgb(color: QColor) -> int:
    return color.rgb() & 0xFFFFFF


def pixel_counts(image: QImage) -> dict[int, int]:
    """How many pixels of each colour (0xRRGGBB) the image has."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    values = (
        np.frombuffer(image.constBits(), dtype=np.uint32, count=image.width() * image.height()) & 0xFFFFFF
    )
    colors, counts = np.unique(values, return_counts=True)
    return dict(zip(colors.tolist(), counts.tolist()))


def test_plot_writes_a_slide_sized_png_and_still_prints_the_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_png = tmp_path / "rate.png"

    code, out, err = run(capsys, "compare", "--text", HELLO, "--plot", str(out_png))

    assert code == 0, err
    assert out.splitlines()[0].split() == [
        "input",
        "tokenizer",
        "bytes",
        "tokens",
        "bytes/token",
        "attention",
        "x",
    ]
    assert err == f"tokviz: chart written to {out_png}\n"
    image = QImage(str(out_png))
    assert (image.width(), image.height()) == (1280, 720)


def test_scale_2_doubles_the_pixels(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_png = tmp_path / "rate@2x.png"

    code, _, err = run(capsys, "compare", "--text", HELLO, "--plot", str(out_png), "--scale", "2", "--dark")

    assert code == 0, err
    image = QImage(str(out_png))
    assert (image.width(), image.height()) == (2560, 1440)


def test_plot_writes_an_svg_with_the_numbers_as_text(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    english = tmp_path / "english.txt"
    english.write_text("The exchange rate between text and sequence length. " * 20, encoding="utf-8")
    out_svg = tmp_path / "rate.svg"

    code, _, err = run(
        capsys, "compare", str(english), "--tokenizer", "bytes", "--tokenizer", "gpt2", "--plot", str(out_svg)
    )

    assert code == 0, err
    assert QSvgRenderer(str(out_svg)).isValid()
    doc = minidom.parse(str(out_svg))
    texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
    assert "english.txt" in texts  # a path is shortened to its file name on the axis
    rows = labelled_rows({"x": english.read_text(encoding="utf-8")}, ["gpt2"])
    assert f"{rows[0]['bytes_per_token']:.2f}" in texts
    legend = " ".join(texts)
    assert "GPT-2" in legend and "gpt2" not in legend, "the chart names GPT-2 as the app does"


@pytest.mark.parametrize("view", ["attention", "vocab"])
def test_the_other_views_can_be_plotted(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, view: str
) -> None:
    out_png = tmp_path / f"{view}.png"

    code, _, err = run(capsys, "compare", "--text", HELLO, "--plot", str(out_png), "--plot-view", view)

    assert code == 0, err
    assert not QImage(str(out_png)).isNull()
    image = QImage(str(out_png))
    assert (image.width(), image.height()) == (1280, 720)  # scale 1: the slide size
    pixels = pixel_counts(image)
    # Not blank: a white background with text and bars on it, far from a single colour.
    background, most = max(pixels.items(), key=lambda item: item[1])
    assert background == 0xFFFFFF and most < 0.99 * image.width() * image.height()
    assert len(pixels) > 50
    # Each tokenizer's bar colour is drawn (bytes in amber, then GPT-2 and cl100k in the series colours).
    drawn = [
        pixels.get(rgb(color), 0)
        for color in (byte_color(False), series_color(0, False), series_color(1, False))
    ]
    assert all(n >= 100 for n in drawn), drawn
    if view == "attention":
        # Attention cost per byte: bytes 4, GPT-2 1.44, cl100k 1 on this text, so the bars' areas are ordered.
        assert drawn[0] > drawn[1] > drawn[2]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--scale", "2"], "--scale applies only to the chart"),
        (["--dark", "--large-text"], "--dark, --large-text apply only to the chart"),
        (["--plot", "chart.pdf"], "writes .png or .svg files, not .pdf"),
        (["--plot", "chart.svg", "--scale", "2"], "an SVG drawing has no pixels"),
        (["--plot", "chart.png", "--scale", "100"], "between 0.25 and 8"),
    ],
)
def test_chart_options_are_checked_before_any_work(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    fragment: str,
) -> None:
    monkeypatch.chdir(tmp_path)

    code, out, err = run(capsys, "compare", "--text", "x", *argv)

    assert code == 2 and out == ""
    assert fragment in err
    assert not list(tmp_path.iterdir())


def test_offscreen_is_chosen_only_without_a_display(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")

    env: dict[str, str] = {}
    assert use_offscreen_qt_without_display(env) and env == {"QT_QPA_PLATFORM": "offscreen"}
    env = {"DISPLAY": ":0"}
    assert not use_offscreen_qt_without_display(env) and "QT_QPA_PLATFORM" not in env
    env = {"QT_QPA_PLATFORM": "xcb"}
    assert not use_offscreen_qt_without_display(env) and env["QT_QPA_PLATFORM"] == "xcb"


@pytest.mark.slow
def test_plot_works_on_a_machine_without_a_display(tmp_path: Path) -> None:
    out_png = tmp_path / "headless.png"

    done = subprocess.run(
        [sys.executable, "-m", "tokviz", "compare", "--text", HELLO, "--plot", str(out_png)],
        capture_output=True,
        text=True,
        env=headless_env(),
        timeout=120,
    )

    assert done.returncode == 0, done.stderr
    assert done.stderr == f"tokviz: chart written to {out_png}\n"
    assert out_png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_compare_without_plot_never_imports_qt() -> None:
    probe = (
        "import sys\n"
        "from tokviz.cli import main\n"
        "code = main(['compare', '--text', 'Hi 🌍', '--format', 'json'])\n"
        "assert 'PySide6' not in sys.modules and 'tokviz.gui' not in sys.modules, 'Qt was imported'\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=headless_env())

    assert done.returncode == 0, done.stderr
