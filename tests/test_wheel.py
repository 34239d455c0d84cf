"""A built wheel carries the bundled data as tokviz/resources and finds it once installed.

The sdist is built first and the wheel from it (``python -m build``'s default), so this also
checks that the sdist holds everything the wheel needs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import site
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = [
    "encodings/r50k_base.tiktoken",
    "encodings/cl100k_base.tiktoken",
    "encodings/o200k_base.tiktoken",
    "encodings/SHA256SUMS",
    "encodings/NOTICE",
    "parallel/en.txt",
    "parallel/README.md",
    "words/words.tsv",
    "decks/lecture1.toml",
    "chat/chatml.jinja",
    "fonts/NotoEmoji[wght].ttf",
    "fonts/OFL.txt",
    "fonts/NOTICE",
    "fonts/SHA256SUMS",
]

pytestmark = pytest.mark.slow


def _run(args: list[str], cwd: Path, timeout: float = 120) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel built from it, in a temporary folder."""
    if importlib.util.find_spec("build") is None:
        pytest.skip("the 'build' package is not installed (it comes with the [test] extra)")
    out = tmp_path_factory.mktemp("dist")
    args = [sys.executable, "-m", "build", "--outdir", str(out)]
    if importlib.util.find_spec("hatchling") is not None:
        args.append("--no-isolation")  # offline and fast; otherwise build fetches hatchling itself
    _run([*args, str(ROOT)], cwd=out, timeout=240)
    return out


def _one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {folder}, found {found}"
    return found[0]


def test_sdist_includes_the_resources(dist: Path) -> None:
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for item in BUNDLED:
        assert f"resources/{item}" in names
    assert "tokviz/core/io/resources.py" in names
    assert not any("__pycache__" in name for name in names)


def test_wheel_maps_resources_into_the_package(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "*.whl")) as wheel:
        names = set(wheel.namelist())
        entry_points = next(
            wheel.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt")
        )
    for item in BUNDLED:
        assert f"tokviz/resources/{item}" in names
    assert not any(name.startswith("resources/") for name in names)
    assert not any(name.startswith("tests/") for name in names)
    assert "tokviz = tokviz.cli:main" in entry_points


def test_wheel_ships_py_typed_so_type_checkers_read_tokviz_hints(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "*.whl")) as wheel:
        assert "tokviz/py.typed" in wheel.namelist()


def test_screenshots_stay_out_of_the_wheel_and_the_sdist(dist: Path) -> None:
    """The documentation's pictures live in docs/images; an install needs none of them."""
    with zipfile.ZipFile(_one(dist, "*.whl")) as wheel:
        wheel_pictures = [n for n in wheel.namelist() if "screenshots" in n or n.startswith("docs/")]
        # The only pictures the app needs are its window icons.
        other_pngs = [n for n in wheel.namelist() if n.endswith(".png") and "/icons/" not in n]
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        names = [name.split("/", 1)[1] for name in sdist.getnames() if "/" in name]
    assert wheel_pictures == []
    assert other_pngs == []
    assert not [n for n in names if "screenshots" in n or n.startswith("docs/images")]
    assert "docs/cli.md" in names, "the sdist carries the docs' text, whose examples tests/test_docs.py runs"


def _venv_seeing_these_packages(venv: Path) -> Path:
    """A new virtual environment whose own packages come first, then those the tests run with.

    The runtime dependencies (and pip) are the ones of the environment running the tests, whatever
    its base interpreter has: a ``.pth`` file lists this environment's site-packages folders after
    the new one's. They are added as plain paths, so their own ``.pth`` files (an editable install
    of tokviz among them) do not run, and whatever the new environment installs is found first.
    """
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=venv.parent)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    own = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], cwd=venv.parent)
    ours = [folder for folder in site.getsitepackages() if Path(folder).is_dir()]
    (Path(own.strip()) / "tests-environment.pth").write_text("\n".join(ours) + "\n", encoding="utf-8")
    return python


def test_installed_wheel_finds_its_resources(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    python = _venv_seeing_these_packages(venv)
    wheel = _one(dist, "*.whl")
    _run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", str(wheel)],
        cwd=tmp_path,
    )
    probe = (
        "import json, tokviz\n"
        "from tokviz.core.formats.encodings import load_bundled_ranks\n"
        "from tokviz.core.io.resources import resource_path, resources_dir\n"
        "print(json.dumps({'package': tokviz.__file__, 'dir': str(resources_dir()),\n"
        "    'r50k': str(resource_path('encodings', 'r50k_base.tiktoken')),\n"
        "    'ranks': len(load_bundled_ranks('gpt2'))}))\n"
    )
    work = tmp_path / "elsewhere"  # not the checkout, so nothing can be found next to it
    work.mkdir()
    found = json.loads(_run([str(python), "-c", probe], cwd=work).strip().splitlines()[-1])
    package_dir = Path(found["package"]).parent
    assert venv.resolve() in package_dir.resolve().parents, found
    assert Path(found["dir"]) == package_dir / "resources"
    assert Path(found["r50k"]) == package_dir / "resources" / "encodings" / "r50k_base.tiktoken"
    assert Path(found["r50k"]).is_file()
    assert found["ranks"] == 50256
