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
    out: dict[Path, bytes | Path] = {
        THEME / "scalable" / "apps" / f"{APP_ID}.svg": SVG,
        RUNTIME / "tokviz.svg": SVG,
    }
    for size in SIZES:
        png = render_png(SVG, size)
        out[THEME / f"{size}x{size}" / "apps" / f"{APP_ID}.png"] = png
        if size in RUNTIME_SIZES:
            out[RUNTIME / f"tokviz-{size}.png"] = png
    return out


def same_pixels(png_a: bytes, png_b: bytes, tolerance: int = 8) -> bool:
    """Whether two PNGs have the same size and every channel of every pixel within ``tolerance``.

    ``--check`` compares pixels, not bytes, so another Qt version's anti-aliasing is not "out of date".
    """
    a, b = QImage.fromData(png_a), QImage.fromData(png_b)
    if a.isNull() or b.isNull() or a.size() != b.size():
        return False
    a = a.convertToFormat(QImage.Format.Format_RGBA8888)
    b = b.convertToFormat(QImage.Format.Format_RGBA8888)
    return (
        max((abs(x - y) for x, y in zip(a.constBits().tobytes(), b.constBits().tobytes())), default=0)
        <= tolerance
    )


def main(argv: list[str] | None = None) -> int:
    """Write (or with ``--check``, compare) every icon file; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report files that are out of date")
    args = parser.parse_args(argv)
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - QPainter needs it
    stale = []
    for path, content in targets().items():
        data = content.read_bytes() if isinstance(content, Path) else content
        old = path.read_bytes() if path.exists() else None
        if old == data or (
            args.check and old is not None and path.suffix == ".png" and same_pixels(old, data)
        ):
            continue
        stale.append(path)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    for path in stale:
        print(f"{'out of date' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
