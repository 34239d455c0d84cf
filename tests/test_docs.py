"""The command examples in README.md and docs/*.md run, so the documentation shows commands that work.

Every line of a ```sh or ```console block that starts with ``tokviz `` (after the ``$ `` prompt of
a console block; a line ending in ``\\`` goes on on the next) runs, in order, in one temporary
folder per document, with ``tokviz`` meaning ``python -m tokviz`` from this checkout. The folder
holds what the examples name, as a checkout and a user's machine would: the bundled ``resources/``,
``notes.txt`` and ``essay.md``, a ``src/`` and a ``corpus/`` folder, ``shards/`` (two Parquet shards
of the bundled samples' paragraphs, as a pre-training set ships), ``heldout/`` with copies of
standard-library packages, Whisper's ``multilingual.tiktoken``; ``/usr/lib/python3.11`` is this
Python's standard library. A block preceded by ``<!-- not run: REASON -->`` (a cluster, a network, a
display) is left out. Only the exit status is checked: outputs shown come from bigger corpora.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<reason>[^>]*?)\s*-->\s*$")
FENCE = re.compile(r"^```(?P<lang>\S*)\s*$")
DOC_STDLIB = "/usr/lib/python3.11"


def example_commands(document: Path) -> tuple[list[str], list[str]]:
    """The ``tokviz`` commands of ``document``'s sh and console blocks: (to run, left out)."""
    to_run: list[str] = []
    left_out: list[str] = []
    lines = document.read_text(encoding="utf-8").splitlines()
    block: list[str] | None = None
    lang = ""
    skipped = False
    previous = ""
    for line in lines:
        fence = FENCE.match(line.strip())
        if block is None:
            if fence and fence.group("lang"):
                block, lang = [], fence.group("lang")
                skipped = bool(NOT_RUN.search(previous))
            if line.strip():
                previous = line.strip()
            continue
        if fence and not fence.group("lang"):
            if lang in ("sh", "console"):
                commands = _commands_in(block, console=lang == "console")
                (left_out if skipped else to_run).extend(commands)
            block = None
            previous = ""
            continue
        block.append(line)
    return to_run, left_out


def _commands_in(block: list[str], console: bool) -> list[str]:
    commands: list[str] = []
    pending: str | None = None
    for raw in block:
        line = raw.strip()
        if pending is not None:
            pending += " " + line
        else:
            if console:
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if not line.startswith("tokviz "):
                continue
            pending = line
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        commands.append(pending)
        pending = None
    return commands


# ----------------------------------------------------------------------------- the folder
def _stdlib() -> Path:
    return Path(sysconfig.get_path("stdlib"))


def prepare_folder(folder: Path) -> None:
    """Put in ``folder`` the files and folders the examples name."""
    (folder / "resources").symlink_to(ROOT / "resources", target_is_directory=True)
    samples = ROOT / "resources" / "samples"
    (folder / "notes.txt").write_text((samples / "english.txt").read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "essay.md").write_text(
        "# An essay\n\n" + (samples / "chinese.txt").read_text(encoding="utf-8"), encoding="utf-8"
    )
    corpus = folder / "corpus"
    corpus.mkdir()
    for name in ("english.txt", "chinese.txt", "digits.txt"):
        shutil.copy(samples / name, corpus / name)
    src = folder / "src"
    shutil.copytree(ROOT / "tokviz" / "core" / "formats", src / "formats", ignore=_no_caches)
    shutil.copy(samples / "python.py", src / "sample.py")
    (src / "tests").mkdir()
    (src / "tests" / "test_left_out.py").write_text("assert True\n", encoding="utf-8")
    heldout = folder / "heldout"
    for package in ("json", "http", "concurrent"):
        shutil.copytree(_stdlib() / package, heldout / "code" / package, ignore=_no_caches)
    (heldout / "docs").mkdir()
    for name in ("english.txt", "data.json"):
        shutil.copy(samples / name, heldout / "docs" / name)
    shutil.copy(ROOT / "tests" / "data" / "real" / "multilingual.tiktoken", folder / "multilingual.tiktoken")
    shutil.copy(ROOT / "tests" / "data" / "real" / "botchan_en_unigram_1000.model", folder / "botchan.model")
    write_shards(folder / "shards", samples)


def write_shards(folder: Path, samples: Path) -> None:
    """Two Parquet shards whose ``text`` column holds the samples' paragraphs, beside other columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    paragraphs = [
        p
        for name in ("english.txt", "chinese.txt", "python.py")
        for p in (samples / name).read_text(encoding="utf-8").split("\n\n")
        if p.strip()
    ]
    table = pa.table({"id": list(range(len(paragraphs))), "text": paragraphs})
    folder.mkdir()
    half = len(paragraphs) // 2
    pq.write_table(table.slice(0, half), folder / "train-00000-of-00002.parquet")
    pq.write_table(table.slice(half), folder / "train-00001-of-00002.parquet")


def _no_caches(_folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name == "__pycache__" or name.endswith(".pyc")]


def _environment(folder: Path) -> dict[str, str]:
    """``tokviz`` on PATH as this checkout's ``python -m tokviz``; Qt offscreen; a private profile."""
    bin_dir = folder.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    launcher = bin_dir / "tokviz"
    launcher.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m tokviz "$@"\n', encoding="utf-8")
    launcher.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["QT_QPA_PLATFORM"] = "offscreen"
    (folder.parent / "home").mkdir(exist_ok=True)
    env["HOME"] = str(folder.parent / "home")
    env["XDG_CONFIG_HOME"] = str(folder.parent / "home" / "config")
    return env


def _runnable(command: str) -> str:
    """``command`` as this machine runs it: the documents' standard library is this Python's."""
    if not Path(DOC_STDLIB).is_dir():
        command = command.replace(DOC_STDLIB, str(_stdlib()))
    return command


# ----------------------------------------------------------------------------- the tests
def test_the_readme_shows_at_least_three_commands_that_run() -> None:
    to_run, left_out = example_commands(ROOT / "README.md")
    assert len(to_run) >= 3
    assert left_out == []


def test_examples_are_found_in_both_block_kinds_and_left_out_only_when_marked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\ntokviz info gpt2   # a comment\ntokviz encode \\\n  --text hi\necho not tokviz\n```\n\n"
        "```console\n$ tokviz info cl100k\nname: cl100k\ntokviz shown as output\n```\n\n"
        "<!-- not run: needs a cluster -->\n```sh\ntokviz count s3://b/ --dask tcp://head:8786 -o t.tsv\n```\n"
        "```python\ntokviz = 1\n```\n",
        encoding="utf-8",
    )
    assert example_commands(page) == (
        ["tokviz info gpt2   # a comment", "tokviz encode --text hi", "tokviz info cl100k"],
        ["tokviz count s3://b/ --dask tcp://head:8786 -o t.tsv"],
    )


def test_every_page_is_in_the_index_and_every_left_out_block_says_why() -> None:
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").glob("*.md")):
        if page.name != "README.md":
            assert f"]({page.name})" in index, f"docs/README.md does not link {page.name}"
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.strip().startswith("<!-- not run"):
                match = NOT_RUN.search(line.strip())
                assert match and match.group("reason"), f"{page.name}: a left-out block names no reason"


def test_pictures_the_documents_show_exist() -> None:
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text):
            assert (document.parent / target).is_file(), f"{document.name}: no picture at {target}"


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives ``page``'s headings: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#+\s+(.+?)\s*$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-") for heading in headings}


def test_links_between_the_documents_lead_somewhere() -> None:
    for document in [*DOCUMENTS, ROOT / "CONTRIBUTING.md"]:
        text = document.read_text(encoding="utf-8")
        for target, anchor in re.findall(r"\]\(([^)#:]*\.md)?(?:#([^)]*))?\)", text):
            page = (document.parent / target) if target else document
            assert page.is_file(), f"{document.name}: no page at {target}"
            if anchor:
                assert anchor in _anchors(page), f"{document.name}: {target or 'itself'} has no #{anchor}"


@pytest.mark.slow
@pytest.mark.long_pole
@pytest.mark.skipif(os.name != "posix" or shutil.which("sh") is None, reason="the examples are POSIX shell")
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_the_documents_command_examples_run(document: Path, tmp_path: Path) -> None:
    to_run, _ = example_commands(document)
    if not to_run:
        pytest.skip(f"{document.name} shows no tokviz command")
    folder = tmp_path / "checkout"
    folder.mkdir()
    prepare_folder(folder)
    env = _environment(folder)
    for command in to_run:
        proc = subprocess.run(
            ["sh", "-c", _runnable(command)],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, (
            f"{document.name}: `{command}` exited {proc.returncode}:\n{proc.stderr[-2000:]}"
        )
