"""Benchmark corpora built from files that ship with Python, so every run measures the same text.

* ``stdlib``: the standard library's ``.py`` sources (sorted paths, UTF-8 files only, no
  site-packages) concatenated up to about 20 MB: code, with its identifiers, indentation and
  docstrings.
* ``english``: about 130 KB of English prose, the unindented paragraphs of ``pydoc_data.topics``
  (the language reference that ``help()`` shows), in sorted topic order.
* ``big``: ``stdlib`` repeated to N MB (default 1024) with a marker line per copy, for the
  memory and streaming test.

Run ``python benchmarks/corpora.py [NAME...]`` to build them into the cache directory
(default ``/tmp/tokviz-bench``, or ``$TOKVIZ_BENCH_CACHE``) and print their paths and sizes.
"""

from __future__ import annotations

import argparse
import os
import sys
import sysconfig
from pathlib import Path

NAMES = ("stdlib", "english", "big")
STDLIB_BYTES = 20 << 20
ENGLISH_BYTES = 130 << 10
DEFAULT_BIG_MB = 1024


def cache_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """The cache directory, created if needed."""
    root = Path(path or os.environ.get("TOKVIZ_BENCH_CACHE", "/tmp/tokviz-bench"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def corpus_path(name: str, cache: str | os.PathLike[str] | None = None, big_mb: int = DEFAULT_BIG_MB) -> Path:
    """Path of a named corpus, built on first use; any other name is taken as a file path."""
    if name not in NAMES:
        path = Path(name)
        if not path.exists():
            raise SystemExit(f"corpus {name!r} is neither one of {', '.join(NAMES)} nor an existing path")
        return path
    root = cache_dir(cache)
    target = root / (f"big-{big_mb}mb.txt" if name == "big" else f"{name}.txt")
    if not target.exists():
        builder = {"stdlib": _build_stdlib, "english": _build_english}.get(name)
        tmp = target.with_suffix(".partial")
        if builder is not None:
            tmp.write_bytes(builder())
        else:
            _build_big(corpus_path("stdlib", cache), tmp, big_mb << 20)
        tmp.replace(target)
    return target


def _stdlib_files() -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    skip = {"site-packages", "dist-packages", "__pycache__"}
    return sorted(p for p in root.rglob("*.py") if not skip.intersection(p.relative_to(root).parts))


def _build_stdlib() -> bytes:
    parts: list[bytes] = []
    size = 0
    for path in _stdlib_files():
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # a few test modules are deliberately in other encodings
        if size + len(data) > STDLIB_BYTES:
            break
        parts.append(data)
        size += len(data) + 1
    return b"\n".join(parts)


def _build_english() -> bytes:
    from pydoc_data.topics import topics

    out: list[str] = []
    size = 0
    for key in sorted(topics):
        for para in topics[key].split("\n\n"):
            lines = para.strip("\n").splitlines()
            # Prose only: no code or grammar (indented), no headings (underlined), real sentences.
            if not lines or any(line.startswith(" ") for line in lines):
                continue
            if any(set(line) <= set("*=-~^") for line in lines):
                continue
            text = " ".join(lines)
            if len(text) < 80 or sum(c.isalpha() or c == " " for c in text) < 0.8 * len(text):
                continue
            out.append(text)
            size += len(text.encode("utf-8")) + 2
            if size >= ENGLISH_BYTES:
                return "\n\n".join(out).encode("utf-8")
    return "\n\n".join(out).encode("utf-8")


def _build_big(stdlib: Path, target: Path, size: int) -> None:
    data = stdlib.read_bytes()
    written = 0
    copy = 0
    with open(target, "wb") as fh:
        while written < size:
            marker = f"\n# ---- tokviz benchmark copy {copy} ----\n".encode()
            room = size - written - len(marker)
            if room <= 0:
                break
            # The last copy is cut at a line end so the file stays valid UTF-8.
            body = data if room >= len(data) else data[: max(data.rfind(b"\n", 0, room), 0)]
            piece = marker + body
            fh.write(piece)
            written += len(piece)
            copy += 1


def main(argv: list[str] | None = None) -> int:
    """Build the named corpora (default: stdlib and english) and print where they are."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", metavar="NAME", help=f"any of {', '.join(NAMES)} (default: stdlib english)"
    )
    parser.add_argument("--cache", help="cache directory (default /tmp/tokviz-bench)")
    parser.add_argument("--big-mb", type=int, default=DEFAULT_BIG_MB, help="size of the big corpus in MB")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in NAMES]
    if unknown:
        parser.error(f"unknown corpus {unknown[0]!r}; choose from {', '.join(NAMES)}")
    for name in args.names or ["stdlib", "english"]:
        path = corpus_path(name, args.cache, args.big_mb)
        print(f"{name:8} {path.stat().st_size / 1e6:10.2f} MB  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
