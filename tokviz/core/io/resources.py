"""Find tokviz's bundled data the same way from a source checkout, an editable install and a wheel.

A built wheel carries the top-level ``resources/`` folder as ``tokviz/resources/`` (see
pyproject.toml); a checkout or an editable install has it next to the ``tokviz/`` package.
(An editable install also copies the folder into site-packages; that snapshot is never used,
because the package itself is imported from the checkout, where the live folder is.)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import TokvizError

_PACKAGE = "tokviz"


class ResourceNotFoundError(TokvizError, FileNotFoundError):
    """A bundled file or folder is missing: the installation or checkout is incomplete."""


def _packaged_dir() -> Path | None:
    """``tokviz/resources`` inside the installed package (the wheel layout), if it is a real folder."""
    packaged = resources.files(_PACKAGE) / "resources"
    # A zip import would need extraction; tokviz is always installed unpacked.
    return packaged if isinstance(packaged, Path) else None


def _checkout_dir() -> Path:
    """``resources/`` next to the ``tokviz/`` package (a source checkout or an editable install)."""
    return Path(__file__).resolve().parents[3] / "resources"


def _candidates() -> list[Path]:
    """Where the resources folder may be, in the order it is looked for."""
    packaged = _packaged_dir()
    return ([packaged] if packaged is not None else []) + [_checkout_dir()]


def resources_dir() -> Path:
    """The folder holding tokviz's bundled data: the wheel's ``tokviz/resources`` or the repo's ``resources``.

    Raises :class:`ResourceNotFoundError` naming every place that was looked at.
    """
    candidates = _candidates()
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    looked = ", ".join(str(c) for c in candidates)
    raise ResourceNotFoundError(
        f"tokviz's bundled resources folder is missing (looked in: {looked}); reinstall tokviz-desktop"
    )


def resource_path(*parts: str) -> Path:
    """Path of one bundled file or folder, e.g. ``resource_path("encodings", "r50k_base.tiktoken")``.

    Raises :class:`ResourceNotFoundError` naming the missing resource and where it was expected.
    """
    if not parts:
        raise ValueError("resource_path needs at least one path part")
    relative = Path(*parts)
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"resource path must stay inside the resources folder: {relative}")
    base = resources_dir()
    path = base / relative
    if not path.exists():
        raise ResourceNotFoundError(
            f"bundled resource {relative.as_posix()!r} is missing (expected at {path}); "
            "reinstall tokviz-desktop or restore it in the checkout"
        )
    return path
