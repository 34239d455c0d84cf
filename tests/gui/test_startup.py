"""Start-up: importing the GUI tokenizes nothing, and the status file reports milestones and token counts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tokviz.gui import MainWindow
from tokviz.gui.window.startup import StartupProbe

IMPORT_WITH_SPIES = """
import json
calls = []
import tokviz.core.bpe.tokenizer as tk, tokviz.core.formats.registry as reg, tokviz.core.formats.encodings as enc
def spy(owner, name):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)
    setattr(owner, name, wrapper)
for name in ("encode", "encode_ordinary", "encode_spans", "encode_with_merges", "encode_iterable"):
    spy(tk.Tokenizer, name)
spy(reg, "load_tokenizer")
spy(enc, "load_bundled_ranks")
import tokviz.gui, tokviz.gui.app, tokviz.gui.window.main_window, tokviz.gui.window.crash, tokviz.gui.window.about
print(json.dumps(calls))
"""


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def test_importing_the_gui_loads_no_vocabulary_and_encodes_nothing():
    proc = subprocess.run(
        [sys.executable, "-c", IMPORT_WITH_SPIES], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []


def test_the_window_is_shown_before_any_tokens_arrive(qtbot, tmp_path):
    window = MainWindow()
    qtbot.addWidget(window)
    probe = StartupProbe(window, tmp_path / "ready.json")
    window.show()
    qtbot.waitUntil(lambda: probe.tokens_painted is not None, timeout=20000)
    assert probe.shown is not None and probe.tokenized is not None
    assert probe.created <= probe.shown <= probe.tokenized <= probe.tokens_painted


def test_the_ready_file_names_each_view_and_its_token_count(qtbot, tmp_path, gpt2, cl100k):
    window = MainWindow()
    qtbot.addWidget(window)
    ready = tmp_path / "ready.json"
    StartupProbe(window, ready)
    window.show()
    window.set_text("Hello, world!")
    qtbot.waitUntil(
        lambda: read(ready).get("ready") is True and read(ready)["text_chars"] == 13, timeout=20000
    )

    assert read(ready)["views"] == [
        {"key": "gpt2", "label": "GPT-2", "tokens": len(gpt2.encode("Hello, world!"))},
        {"key": "cl100k", "label": "cl100k", "tokens": len(cl100k.encode("Hello, world!"))},
    ]


def test_quit_when_ready_closes_the_window_once_the_tokens_are_painted(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    StartupProbe(window, quit_when_ready=True)
    window.show()
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=20000)


def test_font_database_warnings_stay_off_the_terminal():
    from PySide6.QtCore import QLoggingCategory

    from tokviz.gui.compat import quiet_font_database

    quiet_font_database()
    category = QLoggingCategory("qt.text.font.db")
    assert not category.isWarningEnabled()
    QLoggingCategory.setFilterRules("")
