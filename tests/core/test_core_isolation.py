"""The core never imports Qt, so it runs and tests with no display."""

from __future__ import annotations

import subprocess
import sys


def test_core_imports_no_qt():
    probe = (
        "import sys, tokviz.core, tokviz.core.train, tokviz.core.tokenizer, tokviz.core.stream;"
        "import tokviz.core.registry, tokviz.core.formats, tokviz.core.metrics;"
        "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'pyqtgraph', 'shiboken'))))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
