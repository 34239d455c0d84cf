"""The environment the tests run in: its own console scripts, never whatever ``PATH`` finds first.

A tool on ``PATH`` may belong to another environment (a ``ruff`` of another version, a ``tokviz``
installed with pipx, a pyenv shim): the tests run the ones installed with the packages they test.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path


def console_script(name: str) -> Path | None:
    """The console script ``name`` that pip installed into this environment, or None."""
    script = Path(sysconfig.get_path("scripts")) / name
    return script if script.is_file() and os.access(script, os.X_OK) else None
