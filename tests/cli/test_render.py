"""tokviz render: what a user who types text where a file goes is told."""

from __future__ import annotations

import pytest


def test_text_given_where_a_file_goes_gets_a_hint(capsys: pytest.CaptureFixture[str]) -> None:
    from tokviz.cli import main

    assert main(["render", "some text", "-o", "unused.png"]) == 1
    assert capsys.readouterr().err == (
        "tokviz: error: some text: no such file (to give the text itself: --text 'some text')\n"
    )
    assert main(["render", "missing.txt", "-o", "unused.png"]) == 1
    assert capsys.readouterr().err == "tokviz: error: missing.txt: No such file or directory\n"
