"""Compile tokviz's merge loop (``tokviz/core/training/_mergeloop.c``) with the C compiler at hand.

Used by the wheel build (``hatch_build.py``) and the PyInstaller recipe (``tokviz.spec``). The
module is optional: where no compiler works, nothing is built and training runs the pure-Python
loop, so the build says why and goes on. It needs nothing but a C compiler and Python's headers
(``build-essential python3-dev`` on Debian). ``TOKVIZ_PURE_PYTHON=1`` at build time builds nothing.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sysconfig
from pathlib import Path

SOURCE = Path("tokviz") / "core" / "training" / "_mergeloop.c"


def module_name() -> str:
    """The compiled module's file name for this interpreter (``_mergeloop.cpython-311-x86_64-linux-gnu.so``)."""
    return "_mergeloop" + str(sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def build_merge_loop(root: Path, out_dir: Path) -> tuple[Path | None, str]:
    """Compile the loop of the checkout at ``root`` into ``out_dir``: (its path, "") or (None, why not)."""
    if os.environ.get("TOKVIZ_PURE_PYTHON", "") not in ("", "0"):
        return None, "TOKVIZ_PURE_PYTHON is set"
    # The command this Python links its own extensions with (``-bundle -undefined dynamic_lookup``
    # on macOS, ``-shared`` on Linux), or the compiler named by CC with ``-shared``.
    chosen = os.environ.get("CC")
    linker = f"{chosen} -shared" if chosen else sysconfig.get_config_var("LDSHARED")
    include = sysconfig.get_paths()["include"]
    if not linker:
        return None, "this Python names no C compiler"
    if not (Path(include) / "Python.h").exists():
        return None, f"Python's headers are missing ({include}/Python.h; on Debian: apt install python3-dev)"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / module_name()
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")  # builds at once do not collide
    command = [
        *shlex.split(linker),
        "-O2",
        "-fPIC",
        "-std=c11",
        "-D_POSIX_C_SOURCE=200809L",
        "-I",
        include,
        str(root / SOURCE),
        "-o",
        str(partial),
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        return None, f"the C compiler did not start ({exc})"
    if done.returncode:
        partial.unlink(missing_ok=True)
        return None, f"the C compiler failed: {done.stderr.strip()[-2000:]}"
    partial.replace(target)
    return target, ""
