"""The desktop packaging in packaging/: desktop entry, AppStream metadata, icons and the PyInstaller recipe.

The validators of the freedesktop projects are used when installed (``desktop-file-validate`` from
desktop-file-utils, ``appstreamcli`` from appstream); otherwise the files are parsed and the keys
the specifications require are checked here. The PyInstaller check is ``slow``: the full build of
the bundle with its smoke tests takes not much longer than the analysis-only dry run of the spec
(``TOKVIZ_PYI_ANALYSIS_ONLY=1``, where two thirds of the time goes), so the test runs the real
build. It skips when PyInstaller is not installed.
"""

from __future__ import annotations

import configparser
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
APP_ID = "io.github.tokviz.Tokviz"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)
MAIN_CATEGORIES = {"AudioVideo", "Audio", "Video", "Development", "Education", "Game", "Graphics"}
MAIN_CATEGORIES |= {"Network", "Office", "Science", "Settings", "System", "Utility"}


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def run(args: list[str], timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:  # noqa: ANN003
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kwargs)


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


# ---------------------------------------------------------------------------------------------- desktop entry
def desktop_entry() -> dict[str, str]:
    parser = configparser.RawConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive
    parser.read(DESKTOP, encoding="utf-8")
    assert parser.sections()[0] == "Desktop Entry"
    return dict(parser["Desktop Entry"])


def test_the_desktop_entry_passes_desktop_file_validate():
    validator = shutil.which("desktop-file-validate")
    if validator is None:
        pytest.skip("desktop-file-validate is not installed (apt-get install desktop-file-utils)")
    proc = run([validator, str(DESKTOP)])
    assert proc.returncode == 0 and "error" not in proc.stdout, proc.stdout + proc.stderr


def test_the_desktop_entry_launches_the_installed_command_with_the_app_icon():
    entry = desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == "tokviz"
    assert entry["Exec"].split()[0] in pyproject()["project"]["scripts"]
    assert entry["TryExec"] == entry["Exec"].split()[0]
    assert entry["Icon"] == APP_ID, "the icon is looked up by the app id in the hicolor theme"
    assert entry["Terminal"] == "false"
    categories = entry["Categories"]
    assert categories.endswith(";") and entry["Keywords"].endswith(";")
    assert MAIN_CATEGORIES & set(categories.split(";")), "needs a main category to appear in menus"


# ---------------------------------------------------------------------------------------------- AppStream
def test_the_metainfo_passes_appstreamcli_validate():
    validator = shutil.which("appstreamcli")
    if validator is None:
        pytest.skip("appstreamcli is not installed (apt-get install appstream)")
    proc = run([validator, "validate", "--no-net", "--explain", str(METAINFO)])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_metainfo_names_the_app_its_desktop_entry_and_the_current_version():
    root = ET.parse(METAINFO).getroot()
    assert root.tag == "component" and root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    for tag in ("name", "summary", "metadata_license"):
        assert (root.findtext(tag) or "").strip(), f"<{tag}> is required"
    assert root.find("description/p") is not None
    assert root.findtext("launchable[@type='desktop-id']") == DESKTOP.name
    assert root.findtext("provides/binary") == "tokviz"
    versions = [r.get("version") for r in root.iterfind("releases/release")]
    assert versions and versions[0] == pyproject()["project"]["version"], (
        "add a <release> for the new version"
    )


# ---------------------------------------------------------------------------------------------- icons
def test_the_icon_theme_has_the_svg_and_every_png_size():
    theme = PACKAGING / "icons" / "hicolor"
    svg = ET.parse(theme / "scalable" / "apps" / f"{APP_ID}.svg").getroot()
    assert svg.tag == "{http://www.w3.org/2000/svg}svg" and svg.get("viewBox") == "0 0 256 256"
    for size in ICON_SIZES:
        assert png_size(theme / f"{size}x{size}" / "apps" / f"{APP_ID}.png") == (size, size)


def test_the_app_finds_its_icon_at_run_time_in_the_bundled_resources():
    from tokviz.core.io.resources import resource_path

    for size in (16, 32, 48, 64, 128, 256):
        png = resource_path("icons", f"tokviz-{size}.png")
        assert png_size(png) == (size, size)
        assert (
            png.read_bytes()
            == (PACKAGING / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").read_bytes()
        )
    assert (
        resource_path("icons", "tokviz.svg").read_bytes()
        == (PACKAGING / "icons" / f"{APP_ID}.svg").read_bytes()
    )


def test_the_pngs_are_renders_of_the_current_svg():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = run([sys.executable, str(PACKAGING / "render_icons.py"), "--check"], env=env)
    assert proc.returncode == 0, (
        f"run packaging/render_icons.py after editing the SVG:\n{proc.stdout}{proc.stderr}"
    )


# ---------------------------------------------------------------------------------------------- PyInstaller
def pyinstaller_env(tmp_path: Path) -> dict[str, str]:
    """The build's environment: PyInstaller of the Python the tests run with, its cache in ``tmp_path``."""
    if run([sys.executable, "-m", "PyInstaller", "--version"]).returncode:
        pytest.skip("PyInstaller is not installed (python -m pip install pyinstaller)")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    # build.sh runs this Python, whatever `python3` on PATH is; PyInstaller's own cache stays out
    # of the user's home folder.
    env["PYTHON"] = sys.executable
    env["PYINSTALLER_CONFIG_DIR"] = str(tmp_path / "pyinstaller-config")
    return env


def test_build_sh_refuses_a_compression_level_gzip_has_not_before_building(tmp_path):
    env = pyinstaller_env(tmp_path) | {
        "TOKVIZ_BUILD_DIR": str(tmp_path / "build"),
        "TOKVIZ_GZIP_LEVEL": "fast",
    }
    proc = run(["bash", str(PACKAGING / "build.sh")], env=env, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "build.sh: TOKVIZ_GZIP_LEVEL must be a digit from 1 to 9, not 'fast'"
    assert not (tmp_path / "build").exists()


@pytest.mark.slow
@pytest.mark.long_pole
def test_build_sh_builds_a_bundle_that_runs_and_an_archive_to_install(tmp_path):
    """The full recipe: build, run the bundle's CLI and GUI (offscreen), pack the archive."""
    # The archive is only opened here: packed fast (its size is the release's concern, not the test's).
    env = pyinstaller_env(tmp_path) | {"TOKVIZ_BUILD_DIR": str(tmp_path / "build"), "TOKVIZ_GZIP_LEVEL": "1"}
    proc = run(["bash", str(PACKAGING / "build.sh")], timeout=900, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    assert "bundle smoke test OK" in proc.stdout
    assert "build.sh: tokviz " in proc.stdout  # the bundle's --version, naming its merge loop
    if os.environ.get("CI"):  # which has a C compiler: the bundle carries the compiled loop
        assert "(merge loop: compiled)" in proc.stdout

    version = pyproject()["project"]["version"]
    (archive,) = (tmp_path / "build").glob(f"tokviz-{version}-linux-*.tar.gz")
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
    top = f"tokviz-{version}"
    for member in (
        "bin/tokviz",
        "lib/tokviz/tokviz",
        f"share/applications/{APP_ID}.desktop",
        f"share/metainfo/{APP_ID}.metainfo.xml",
        f"share/icons/hicolor/scalable/apps/{APP_ID}.svg",
        f"share/icons/hicolor/48x48/apps/{APP_ID}.png",
    ):
        assert f"{top}/{member}" in names, member
    bundled = tmp_path / "build" / "dist" / "tokviz" / "_internal" / "tokviz" / "resources" / "encodings"
    assert (bundled / "r50k_base.tiktoken").is_file() and (bundled / "NOTICE").is_file()
