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
import sysconfig
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
    "models/pydocs-unigram-2000.model",
    "models/pydocs-bpe-2000.model",
    "models/README.md",
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


def test_sdist_carries_the_merge_loop_source_and_its_build(dist: Path) -> None:
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"tokviz/core/training/_mergeloop.c", "hatch_build.py", "packaging/build_ext.py"} <= names
    assert not any(name.endswith(".so") for name in names)


def _compiled_loop_in(wheel_path: Path) -> list[str]:
    with zipfile.ZipFile(wheel_path) as wheel:
        return [
            n for n in wheel.namelist() if n.startswith("tokviz/core/training/_mergeloop.") and n[-2:] != ".c"
        ]


def test_wheel_carries_the_compiled_merge_loop_as_a_platform_wheel(dist: Path) -> None:
    """Built where a C compiler works (CI installs one): the module for this interpreter, and a tag that says so."""
    wheel = _one(dist, "*.whl")
    if not _compiled_loop_in(wheel) and not os.environ.get("CI"):
        pytest.skip("the wheel was built without a working C compiler: a pure-Python wheel")
    assert _compiled_loop_in(wheel) == [
        f"tokviz/core/training/_mergeloop{sysconfig.get_config_var('EXT_SUFFIX')}"
    ]
    assert not wheel.name.endswith("-py3-none-any.whl"), wheel.name


def test_without_a_compiler_the_wheel_is_pure_python_and_trains(tmp_path: Path) -> None:
    """No C compiler at install time: a pure-Python wheel whose training runs the Python loop."""
    if importlib.util.find_spec("hatchling") is None:
        pytest.skip("hatchling is not installed (it comes with the [test] extra)")
    out = tmp_path / "dist"
    env_cc = {**os.environ, "CC": str(tmp_path / "no-such-compiler")}
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=240,
        env={k: v for k, v in env_cc.items() if k not in ("PYTHONPATH", "TOKVIZ_PURE_PYTHON")},
    )
    assert built.returncode == 0, built.stderr
    assert "the compiled merge loop is not built" in built.stdout + built.stderr
    wheel = _one(out, "*.whl")
    assert wheel.name.endswith("-py3-none-any.whl") and not _compiled_loop_in(wheel)
    python = _venv_seeing_these_packages(tmp_path / "venv")
    _run(
        [str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--ignore-installed", str(wheel)],
        cwd=tmp_path,
    )
    probe = (
        "from tokviz.core.training.mergeloop import loop_name\n"
        "from tokviz.core.training.train import train_bpe\n"
        "print(len(train_bpe(text='the cat in the hat ' * 20, vocab_size=262).merges), loop_name())\n"
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    assert (
        _run([str(python), "-c", probe], cwd=work).strip() == "6 pure Python (the compiled loop is not built)"
    )


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
        "    'ranks': len(load_bundled_ranks('gpt2')),\n"
        "    'loop': __import__('tokviz.core.training.mergeloop', fromlist=['loop_name']).loop_name()}))\n"
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
    assert found["loop"] == (
        "compiled" if _compiled_loop_in(wheel) else "pure Python (the compiled loop is not built)"
    )
