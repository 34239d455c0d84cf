"""Texts the window offers without any file: the start-up showcase, the lecture's examples, category samples."""

from __future__ import annotations

from dataclasses import dataclass

from tokviz.core.io.resources import resource_path

# Shown on first launch: every case worth pointing at in a lecture, in a few lines.
DEFAULT_TEXT = """\
Tokenizers turn text into integers. The cat in the hat sat on the mat.
Hello, 🌍! 你好! Emoji such as 🤖 and 🎉 split into several byte tokens.

def add(a, b):
    return a + b    # indentation and spaces are tokens too

Numbers: 7 42 1234567890 3.14159 2026-05-01 $1,299.99
Whitespace runs:          ten spaces, two tabs\t\tand new lines.


Special token: <|endoftext|> ends a document.
"""


@dataclass(frozen=True)
class Sample:
    """One entry of the Samples menu: inline text or a bundled file under ``resources/samples``."""

    title: str
    text: str | None = None
    filename: str | None = None

    def load(self) -> str:
        """The sample's text (bundled files are read as UTF-8)."""
        if self.text is not None:
            return self.text
        assert self.filename is not None
        return resource_path("samples", self.filename).read_text(encoding="utf-8")


LECTURE_SAMPLES = (
    Sample("the cat in the hat", "the cat in the hat"),
    Sample("Hi 🌍", "Hi 🌍"),
    Sample("Hello, 🌍! 你好!", "Hello, 🌍! 你好!"),
)

CATEGORY_SAMPLES = (
    Sample("English prose", filename="english.txt"),
    Sample("Python source", filename="python.py"),
    Sample("JSON", filename="data.json"),
    Sample("Chinese", filename="chinese.txt"),
    Sample("A line of digits (π)", filename="digits.txt"),
)

SHOWCASE = Sample("Showcase (start-up text)", DEFAULT_TEXT)
