"""Render the application icon's PNG sizes from its SVG with Qt's own SVG renderer.

Run from the repository root after editing ``packaging/icons/io.github.tokviz.Tokviz.svg``::

    QT_QPA_PLATFORM=offscreen python packaging/render_icons.py

It writes the freedesktop icon theme layout under ``packaging/icons/hicolor/`` (what an install
copies to ``~/.local/share/icons/hicolor/``) and the copies the app loads at run time under
``resources/icons/``. ``--check`` only reports PNGs that differ from a fresh render (exit 1).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication, QImage, QPainter  # noqa: E402
from PySide6.QtSvg import QSvgRenderer  # noqa: E402

APP_ID = "io.github.tokviz.Tokviz"
SIZES = (16, 32, 48, 64, 128, 256, 512)
# The window icon needs no more than 256 px; 512 is for software centres only.
RUNTIME_SIZES = (16, 32, 48, 64, 128, 256)
ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "packaging" / "icons" / f"{APP_ID}.svg"
THEME = ROOT / "packaging" / "icons" / "hicolor"
RUNTIME = ROOT / "resources" / "icons"


def render_png(svg: Path, size: int) -> bytes:
    """The SVG drawn into a transparent ``size`` x ``size`` image, encoded as PNG."""
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise ValueError(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def targets() -> dict[Path, bytes | Path]:
    """Every file this script writes: a path to PNG bytes, or to the SVG it copies."""
    out: dict[Path, bytes | Path] = {THEME / "scalable" / "apps" / f"{APP_ID}.svg": SVG, RUNTIME / "tokviz.svg": SVG}
    for size in SIZES:
        png = render_png(SVG, size)
        out[THEME / f"{size}x{size}" / "apps" / f"{APP_ID}.png"] = png
        if size in RUNTIME_SIZES:
            out[RUNTIME / f"tokviz-{size}.png"] = png
    return out


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) every icon file; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files that are out of date")
    args = parser.parse_args(argv)
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QPainter needs it
    stale = []
    for path, content in targets().items():
        if isinstance(content, Path):
            if not path.exists() or path.read_bytes() != content.read_bytes():
                stale.append(path)
                if not args.check:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(content, path)
        elif not path.exists() or path.read_bytes() != content:
            stale.append(path)
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
    for path in stale:
        print(f"{'out of date' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
