"""``tokviz lecture`` on hostile decks: one line naming the deck, in seconds, in bounded memory.

Each deck runs through ``python -m tokviz lecture`` in a child process whose address space is
capped at what drawing a normal deck takes plus 300 MB. Standard error holds exactly one line
(no traceback, no Qt or libpng warning), standard output no raw control character, and nothing is
written when the deck is refused. tests/core/test_deck_limits.py covers every variant in-process.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from tokviz.core.io.safe_text import terminal_text

from ..core.test_deck import write
from ..core.test_deck_limits import png, svg
from .helpers import address_cap, child_env, tokviz_capped

pytestmark = pytest.mark.slow

SECONDS = 10
# What drawing a normal deck imports and starts.
DRAWING = (
    "import tokviz.cli.lecture, tokviz.core.lecture.slides\n"
    "from tokviz.gui.drawing.sheet import ensure_app\n"
    "from tokviz.gui.lecture.handout import write_pdf\n"
    "ensure_app()"
)
ENV = dict(child_env(), QT_QPA_PLATFORM="offscreen")


@pytest.fixture(scope="module")
def cap() -> int:
    return address_cap(DRAWING, ENV)


def lecture(cap: int, *argv: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``tokviz lecture ARGV`` under the cap; the process and its seconds."""
    started = time.perf_counter()
    done = tokviz_capped(cap, "lecture", *argv, env=ENV, timeout=120)
    return done, time.perf_counter() - started


def one_line(done: subprocess.CompletedProcess[str], seconds: float, *fragments: str) -> str:
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr[-3000:]
    assert seconds < SECONDS, seconds
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    deck = tmp_path / "deck"
    deck.mkdir()
    (tmp_path / "private.png").write_bytes(png(8, 8))
    return deck


@pytest.mark.parametrize(
    ("picture", "prepare"),
    [
        ("../private.png", None),
        ("escape.png", "link"),
        ("leaks.svg", "svg"),
        ("big.png", "header 2^31"),
        ("huge.png", "header 20000"),
    ],
)
def test_a_picture_from_elsewhere_or_too_large_is_one_line_and_nothing_is_written(
    cap, folder, tmp_path, picture, prepare
):
    if prepare == "link":
        (folder / picture).symlink_to(tmp_path / "private.png")
    elif prepare == "svg":
        (folder / picture).write_text(
            svg(f'<image xlink:href="{tmp_path / "private.png"}"/>'), encoding="utf-8"
        )
    elif prepare is not None:
        side = 2**31 - 1 if prepare == "header 2^31" else 20_000
        (folder / picture).write_bytes(png(side, side, pixels=False))
    deck = write(folder, f'title = "t"\n\n[[slide]]\nkind = "image"\npath = "{picture}"\n')
    done, seconds = lecture(cap, str(deck), "--png", str(tmp_path / "out"))
    assert done.returncode == 1
    one_line(done, seconds, str(deck), "slide 1", picture)
    assert not (tmp_path / "out").exists()


def damaged(how: str) -> bytes:
    """A 16 × 16 PNG damaged so that libpng warns (a side chunk's CRC) or fails (cut off, a chunk
    type garbled): libpng prints its errors to descriptor 2 itself, past Qt's message handler."""
    data = png(16, 16)
    if how == "bad side chunk":
        return data[:33] + b"\x00\x00\x00\x05tEXtab\x00cd\x00\x00\x00\x00" + data[33:]
    if how == "cut off":
        return data[: len(data) - 20]
    garbled = bytearray(data)
    garbled[40] ^= 0xFF  # inside the IDAT chunk's type
    return bytes(garbled)


@pytest.mark.parametrize("how", ["bad side chunk", "cut off", "garbled chunk"])
def test_a_damaged_png_is_drawn_with_only_the_note_on_stderr(cap, folder, tmp_path, how):
    (folder / "p.png").write_bytes(damaged(how))
    deck = write(folder, 'title = "t"\n\n[[slide]]\nkind = "image"\npath = "p.png"\n')
    done, seconds = lecture(cap, str(deck), "--png", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert one_line(done, seconds, "1 slides written").startswith("tokviz: ")
    assert (tmp_path / "out" / "slide-01.png").exists()


@pytest.mark.parametrize(
    "title",
    ["\x1b]0;pwned\x07", "\x1b[2J", "\u202eevil", "a\r\nb", "nul\x00", "c1\x9b31m", "bell\x07\x1bP"],
)
def test_a_title_with_control_characters_is_listed_escaped(cap, folder, title):
    escaped = "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}" for c in title)
    deck = write(
        folder, f'title = "{escaped}"\n\n[[slide]]\nkind = "text"\ntitle = "{escaped}"\nbody = "- a"\n'
    )
    done, _ = lecture(cap, str(deck))
    assert done.returncode == 0, done.stderr
    assert not any(
        ord(c) < 0x20 and c != "\n" or 0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in done.stdout
    )
    assert len(done.stdout.splitlines()) == 2  # the deck's line and the slide's
    assert terminal_text(title) in done.stdout


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('[[slide]]\nkind = "text"\nbody = """\n' + "- bullet\n" * 100_000 + '"""\n', "body is"),
        ('[[slide]]\nkind = "text"\nbody = """\n' + "- b\n" * 900 + '"""\n', "bullets"),
        ('[[slide]]\nkind = "merges"\nmerges = 64\ntext = "' + "ab " * 300_000 + '"\n', "text is"),
        ('[[slide]]\nkind = "merges"\nmerges = 64\ntext = "the cat"\n' * 4, "steps"),
        ('title = "t"\nx = ' + "[" * 200_000 + "]" * 200_000 + '\n[[slide]]\nkind = "text"\n', "nested"),
        ('title = "t"\n\n[[slide]]\nkind = ["merges"]\n', "kind is one of"),
    ],
)
def test_a_deck_over_a_limit_ends_in_one_line_before_drawing(cap, folder, tmp_path, text, fragment):
    deck = write(folder, text)
    done, seconds = lecture(cap, str(deck), "--pdf", str(tmp_path / "out.pdf"), "--per-step")
    assert done.returncode == 1
    one_line(done, seconds, str(deck), fragment)
    assert not (tmp_path / "out.pdf").exists()


def test_a_handout_of_many_large_pictures_draws_them_one_at_a_time_within_the_cap(cap, folder):
    # Ten slides, each a 4096 × 4096 picture (64 MB decoded): held all together they would pass
    # the cap; freed once each page is drawn, the handout takes what one picture takes.
    (folder / "big.png").write_bytes(png(4096, 4096))
    slides = '\n[[slide]]\nkind = "image"\npath = "big.png"\n' * 10
    deck = write(folder, f'title = "pictures"\n{slides}')
    done, _seconds = lecture(cap, str(deck), "--pdf", str(folder / "handout.pdf"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.splitlines() == ["tokviz: handout written to " + str(folder / "handout.pdf")]
    assert (folder / "handout.pdf").stat().st_size > 0
