"""Shared test setup: hypothesis profiles, markers by folder, and offline sample texts and oracles."""

from __future__ import annotations

import compileall
import os
import pydoc_data.topics
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
import tiktoken
from hypothesis import HealthCheck, settings

from .memory_use import MemoryLog, WorkersMemory, forget_module_caches, give_back_freed_memory
from .merge_loop import build_in_checkout
from .multilingual import forget_corpora

TESTS = Path(__file__).resolve().parent
BUILD = TESTS.parent / "build"

# Each worker of each lane collects every test module, which pytest rewrites (for its assert
# messages) and compiles: 22 s on two cores where PYTHONDONTWRITEBYTECODE is set (many containers
# set it), since pytest then keeps no rewritten module. The test process writes them, so only the
# first process compiles; child processes still follow the variable.
sys.dont_write_bytecode = False

# ---------------------------------------------------------------- a home of the run's own
# Nothing the tests run, here or in a child process (the app, the CLI, pip, a build), reads or
# writes the settings, data and caches of whoever runs them: HOME and the XDG folders point into
# a temporary folder for the whole run. They are set on import, before Qt reads them.
RUN_HOME = Path(tempfile.mkdtemp(prefix="tokviz-tests-home-"))
for _name, _folder in {
    "HOME": ".",
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_CACHE_HOME": ".cache",
    "XDG_STATE_HOME": ".local/state",
    "XDG_RUNTIME_DIR": "runtime",
}.items():
    os.environ[_name] = str(RUN_HOME / _folder)
(RUN_HOME / "runtime").mkdir(mode=0o700)  # Qt wants the runtime folder private
# Qt sets emoji in the font its families name, as in `tokviz lecture --pdf`, so that PDFs are painted
# here and not in a fresh process each (tokviz.gui.style.fonts.family_fallback_for_emoji; Qt reads
# it once). tests/gui/test_lecture_handout.py also writes one as the window does, in a fresh process.
os.environ.setdefault("QT_DISABLE_EMOJI_SEGMENTER", "1")

# ---------------------------------------------------------------- Ctrl+C as a terminal sends it
# A run started in the background of a shell without job control (a CI runner's script, `cmd &`)
# inherits SIGINT ignored, and so would every child it starts: the tests of Ctrl+C (a child sent
# SIGINT, ``_thread.interrupt_main()``) need it handled as an interactive terminal has it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# ---------------------------------------------------------------- hypothesis profiles
# No deadline anywhere: a wall-clock limit per example fails at random on a loaded 2-core CI machine.
# "ci" is derandomized (the same examples on every run, so a red CI run is red again locally with
# HYPOTHESIS_PROFILE=ci) and prints the blob that replays a failure (@reproduce_failure); it keeps
# no example database, since a fresh CI clone would lose it anyway. "dev" explores new random
# examples each run and remembers failures in .hypothesis/ so they are retried first.
# Both try 100 examples per property: CI's are the same on every run, while the dev profile's
# fresh ones explore further run after run. A test's own @settings(max_examples=...) still wins.
settings.register_profile(
    "ci",
    deadline=None,
    print_blob=True,
    derandomize=True,
    database=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, print_blob=True, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


# ---------------------------------------------------------------- markers by folder
GUI_FOLDERS = ("gui", "journeys")
"""Every test under tests/gui/ or tests/journeys/ needs Qt: it gets the ``gui`` marker here."""
SLOW_FOLDERS = ("journeys",)
"""The user journeys drive the whole app at every projector size: the slow lane (``-m slow``)."""


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        try:
            folder = Path(item.path).resolve().relative_to(TESTS).parts[0]
        except ValueError:
            continue  # not under tests/
        if folder in GUI_FOLDERS:
            item.add_marker(pytest.mark.gui)
        if folder in SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)
    for item in items:
        # Coverage is measured on the fast lane, which runs every path: the slow lane runs the same
        # code again on whole corpora, every code point or a real window, and an oracle test runs
        # code the other tests reach on many inputs; tracing each line there would double or
        # triple its time and add little to the report (pytest-cov's no_cover marker).
        if item.get_closest_marker("slow") is not None or item.get_closest_marker("oracle") is not None:
            item.add_marker(pytest.mark.no_cover)
    items[:] = long_poles_first(items)


def long_poles_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The test files with a ``long_pole`` test first, each file's tests kept together and in order.

    The README's command hands whole files to two workers (``--dist loadfile``). Handed out last,
    a file that keeps a worker busy for a minute or two (a bundle build, every documented command)
    ended the run alone while the other worker idled; handed out first, the short files fill in
    around it. xdist's own order (files with the most tests first) is turned off for this in
    :func:`pytest_configure`.
    """
    poles = {item.path for item in items if item.get_closest_marker("long_pole") is not None}
    return sorted(items, key=lambda item: item.path not in poles)  # stable: otherwise as collected


# ---------------------------------------------------------------- memory of the test process
def compile_checkout() -> None:
    """Write the bytecode of the checkout's package once, before any worker starts.

    The CLI and app tests start hundreds of Python processes on ``python -m tokviz``. Where
    ``PYTHONDONTWRITEBYTECODE`` is set (many containers set it), none writes its bytecode, so each
    would compile tokviz's modules again: 0.3 s of a command's 0.6 s, 1 s of the app's start.
    Python still reads bytecode it finds, and compileall writes it whatever that variable says.
    """
    compileall.compile_dir(TESTS.parent / "tokviz", quiet=2)


def pytest_configure(config: pytest.Config) -> None:
    """Measure the test process's memory after each test; the run's report goes to build/.

    With pytest-xdist (``-n``), each worker measures itself and the controlling process sums up.
    """
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False  # keep long_poles_first's order of files
    if worker is None:
        build_in_checkout()  # before any worker starts; tests/core/test_merge_loop.py says if it failed
        compile_checkout()
    if worker is None and getattr(config.option, "numprocesses", None):
        config.pluginmanager.register(WorkersMemory(BUILD), "tokviz-memory-log")
    else:
        config.pluginmanager.register(MemoryLog(BUILD, worker), "tokviz-memory-log")


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(RUN_HOME, ignore_errors=True)


@pytest.fixture(autouse=True)
def _untraced_tests_children_untraced(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An untraced test's child processes (a build, the app, the documents' commands) run untraced
    too: coverage starts in a Python child only when this variable (set by ``patch =
    ["subprocess"]``) is in its environment."""
    if request.node.get_closest_marker("no_cover") is not None:
        monkeypatch.delenv("COVERAGE_PROCESS_CONFIG", raising=False)


@pytest.fixture(autouse=True, scope="module")
def _memory_given_back_after_each_module() -> Iterator[None]:
    """Once a module's fixtures are gone, the memory they freed goes back to the system, with the
    multilingual corpora and the module caches the module filled (the next module that needs them
    remakes them)."""
    yield
    forget_corpora()
    forget_module_caches()
    give_back_freed_memory()


@pytest.fixture(scope="session")
def english_text() -> str:
    """Real English prose with code snippets: the Python documentation topics that ship with Python."""
    return "\n".join(pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics))[:200_000]


def _read_rank_file(name: str) -> dict[bytes, int]:
    """Parse a bundled ``.tiktoken`` file independently of tokviz's own loader (an oracle must not share code)."""
    import base64

    from tokviz.core.io.resources import resource_path

    data = resource_path("encodings", name).read_bytes()
    return {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }


def _published_encoding(constructor_name: str, rank_file: str) -> tiktoken.Encoding:
    """tiktoken's own definition of a published encoding (pattern and specials), with the bundled ranks.

    tiktoken's constructors download the rank file; they are handed the bundled copy instead, so
    the oracle shares nothing with tokviz but the file it reads.
    """
    import tiktoken_ext.openai_public as public

    ranks = _read_rank_file(rank_file)
    with mock.patch.object(public, "load_tiktoken_bpe", lambda *args, **kwargs: ranks):
        spec = getattr(public, constructor_name)()
    return tiktoken.Encoding(**spec)


@pytest.fixture(scope="session")
def gpt2_tiktoken() -> tiktoken.Encoding:
    """tiktoken's own GPT-2 (r50k_base) encoding, built offline from the bundled rank file."""
    return _published_encoding("r50k_base", "r50k_base.tiktoken")


@pytest.fixture(scope="session")
def cl100k_tiktoken() -> tiktoken.Encoding:
    """tiktoken's own cl100k_base encoding, built offline from the bundled rank file."""
    return _published_encoding("cl100k_base", "cl100k_base.tiktoken")


@pytest.fixture(scope="session")
def o200k_tiktoken() -> tiktoken.Encoding:
    """tiktoken's own o200k_base encoding (GPT-4o), built offline from the bundled rank file."""
    return _published_encoding("o200k_base", "o200k_base.tiktoken")


VARIED_TEXT = (
    "Hello, 🌍! 你好! I'm sure you're right; they'll say we've done it, isn't it? DON'T SHOUT.\n"
    "Numbers: 0 7 42 1234567 3.14159 1,000,000 -273.15 2024-05-17 0xDEADBEEF\n"
    "Emoji: 👍🏽 👩‍👩‍👧‍👦 🇯🇵🇫🇷 🏳️‍🌈 ✅❌ 🙂🙃 and a lone 🌍.\n"
    "CJK: 日本語のテキストと中文文本，还有한국어 문장도 있습니다。\n"
    "Accents: Ñandú, ça, déjà vu, naïve, Straße, Ærøskøbing; Русский текст; Ελληνικά; العربية; हिन्दी.\n"
    "Whitespace:   three spaces,\ttab,\t\ttwo tabs,\r\nCRLF,\n\n\nthree newlines,    \n  trailing   \n"
    "Code:\n    def f(x: int) -> int:\n        return x**2  # square\n\n    if (a&&b)||!c { y += 1; }\n"
    'JSON: {"key": [1, 2.5, null, true], "nested": {"a": "b"}}\n'
    "Punctuation runs: ...!!! ??? --- *** ((( ))) <<<>>> @#$%^&* ~~~\n"
    "Specials as text: <|endoftext|> and <|fim_prefix|> inside prose.\n"
    "Ends with spaces and a newline   \n"
)


@pytest.fixture(scope="session")
def varied_text() -> str:
    """A few hundred bytes covering the hard cases: emoji, CJK, contractions, whitespace runs, code."""
    return VARIED_TEXT
