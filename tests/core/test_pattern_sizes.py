"""A regex too long, or repeating too much, is refused in one line before the engine compiles it.

``regex`` lays out every copy a counted repeat asks for: ``a{10000000}`` takes gigabytes, and
``((((a{100}){100}){100}){100})`` would take tens of them. Each hostile input below runs in a child
process whose address space is capped at what importing tokviz's pre-tokenizer takes plus 300 MB,
so an engine that starts building such a pattern fails there instead of filling the machine.
"""

from __future__ import annotations

import base64
import json
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tokviz.core import PatternTooLargeError, TokvizError, resolve_pretokenizer, train_bpe
from tokviz.core.formats import save_model
from tokviz.core.pretok.pretokenize import CL100K_PATTERN, GPT2_PATTERN, O200K_PATTERN, compile_custom_pattern
from tokviz.core.pretok.regex_bounds import (
    MAX_PATTERN_CHARS,
    MAX_PATTERN_WEIGHT,
    check_pattern_bounds,
    pattern_weight,
)
from tokviz.core.pretok.regex_scan import scan_pattern

ROOT = Path(__file__).resolve().parents[2]
NESTED = "((((a{100}){100}){100}){100})"
HUGE_REPEAT = "a{100000000}"
LONG_REPEAT = "a{10000000}"
LONG_LITERAL = "a" * 5_000_000
# A child that ran away is stopped here; a refused pattern takes well under a second.
CHILD_TIMEOUT = 60


def _baseline_peak() -> int:
    """Bytes of address space a fresh interpreter reaches importing tokviz.core.pretok.pretokenize."""
    probe = "import tokviz.core.pretok.pretokenize\nprint([l for l in open('/proc/self/status') if l.startswith('VmPeak')][0])"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=_env(), check=True
    )
    return int(out.stdout.split()[1]) * 1024


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "RUST_BACKTRACE": "1"}


@pytest.fixture(scope="module")
def memory_cap() -> int:
    return _baseline_peak() + 300 * 2**20


def _capped(cap: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _run(cap: int, *args: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m tokviz ARGS`` (or ``python -c CODE``) with its address space capped at ``cap``."""
    command = [sys.executable, "-c", code] if code else [sys.executable, "-m", "tokviz", *args]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=_env(),
        cwd=ROOT,
        timeout=CHILD_TIMEOUT,
        preexec_fn=lambda: _capped(cap),
    )


def _refused(result: subprocess.CompletedProcess[str], *expected: str) -> None:
    """The child exited 1 with one line on stderr that says each of ``expected``."""
    lines = result.stderr.splitlines()
    assert result.returncode == 1, result.stderr[-2000:]
    assert len(lines) == 1, result.stderr[-2000:]
    assert lines[0].startswith("tokviz: error: ")
    for words in expected:
        assert words in lines[0], lines[0]


@pytest.fixture(scope="module")
def model_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model = train_bpe(text="the cat in the hat " * 20, vocab_size=270, pretokenizer=r"\w+|\S")
    path = tmp_path_factory.mktemp("model") / "ok.json"
    save_model(path, model.tokenizer("ok"))
    return path


def _model_with(model_file: Path, tmp_path: Path, pattern: str) -> Path:
    data = json.loads(model_file.read_text(encoding="utf-8"))
    data["pretokenizer"] = pattern
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the gate itself


def test_published_patterns_weigh_little() -> None:
    for pattern in (GPT2_PATTERN, CL100K_PATTERN, O200K_PATTERN, r"\p{N}{1,3}", r"[^\r\n\p{L}\p{N}]?+\p{L}+"):
        assert pattern_weight(pattern) < 1000
        check_pattern_bounds(pattern)


def test_nested_repeats_multiply() -> None:
    assert pattern_weight("(ab){3}c") == 4 * 3 + 1
    assert pattern_weight("a{2,5}") == 5 and pattern_weight("a{7,}") == 7 and pattern_weight("a{,4}") == 4
    assert pattern_weight(r"\p{L}{3}") == len(r"\p{L}") * 3
    # Braces inside a set or an escape are no repeat.
    assert pattern_weight("[{9999}]") == len("[{9999}]") and pattern_weight(r"\{9999}") == len(r"\{9999}")
    assert pattern_weight(NESTED, stop_above=MAX_PATTERN_WEIGHT) > MAX_PATTERN_WEIGHT


def test_the_scanner_gives_the_pattern_back() -> None:
    for pattern in (O200K_PATTERN, NESTED, r"[]a\]]{2}\p{L}{1,3}(?:x|[[:alpha:]])"):
        assert "".join(piece.text for piece in scan_pattern(pattern)) == pattern


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        (NESTED, "repeats too much"),
        (HUGE_REPEAT, "repeats too much"),
        ("(?:ab|cd){60000}", "repeats too much"),
        ("a" * (MAX_PATTERN_CHARS + 1), f"at most {MAX_PATTERN_CHARS:,}"),
        ("(?R)*", "calls a group or itself"),
        ("(?:a|(?0))+", "calls a group or itself"),
        ("(a|(?1))*", "calls a group or itself"),
        ("(?P<w>x(?&w)?)", "calls a group or itself"),
        ("(?P<w>(?P>w)?)*", "calls a group or itself"),
        ("(a)(?-1)|(?+1)(b)", "calls a group or itself"),
    ],
    ids=["nested", "hundred-million", "alternation", "long", "R", "0", "1", "&name", "P>name", "relative"],
)
def test_hostile_patterns_are_refused_in_one_line(pattern: str, said: str) -> None:
    with pytest.raises(PatternTooLargeError) as info:
        resolve_pretokenizer(pattern)
    assert isinstance(info.value, TokvizError)
    message = str(info.value)
    assert "\n" not in message and len(message) < 300 and said in message
    with pytest.raises(PatternTooLargeError):
        compile_custom_pattern(pattern)


def test_a_call_written_inside_a_set_or_escaped_is_no_call() -> None:
    for pattern in (r"[(?R)]+|\(\?1\)|\w+", r"(?i)\w+|(?:x)", r"(x)?(?(1)a|b)|\(\?&x\)"):
        check_pattern_bounds(pattern)
        assert resolve_pretokenizer(pattern).pattern == pattern


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak from /proc")
def test_a_recursive_pattern_is_refused_before_the_engine_allocates(tmp_path: Path) -> None:
    from tests.cli.helpers import tokviz_capped

    (tmp_path / "c.txt").write_text("hello world\n", encoding="utf-8")

    def refused_peak(pattern: str) -> tuple[str, int]:
        done = tokviz_capped(
            0,
            "train",
            "c.txt",
            "--pretokenizer",
            pattern,
            "--vocab-size",
            "300",
            "-o",
            "m.json",
            cwd=tmp_path,
        )
        *lines, peak = done.stderr.splitlines()
        assert done.returncode == 1 and len(lines) == 1, done.stderr
        return lines[0], int(peak) * 1024

    line, recursive = refused_peak("(?R)*")
    _, too_long = refused_peak("a" * (MAX_PATTERN_CHARS + 1))

    assert line.startswith("tokviz: error: the pre-tokenizer regex '(?R)*' calls a group or itself")
    assert recursive - too_long < 20 * 2**20  # refused as cheaply as a pattern refused by its length
    assert not (tmp_path / "m.json").exists()


# ---------------------------------------------------------------- every source, in a capped child


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        (NESTED, "repeats too much"),
        (LONG_REPEAT, "repeats too much"),
        (LONG_LITERAL, "5,000,000 characters long"),
    ],
    ids=["nested", "ten-million", "five-megabytes"],
)
def test_info_on_a_model_file_with_a_hostile_pattern(
    memory_cap: int, model_file: Path, tmp_path: Path, pattern: str, said: str
) -> None:
    path = _model_with(model_file, tmp_path, pattern)
    _refused(_run(memory_cap, "info", str(path)), "hostile.json: ", said)


def test_the_same_model_file_with_a_usual_pattern_runs_under_the_cap(
    memory_cap: int, model_file: Path
) -> None:
    result = _run(memory_cap, "info", str(model_file))
    assert result.returncode == 0, result.stderr


def test_encode_with_a_hostile_pattern_option(memory_cap: int) -> None:
    rank_file = ROOT / "resources" / "encodings" / "r50k_base.tiktoken"
    result = _run(
        memory_cap, "encode", "--tokenizer", str(rank_file), "--pattern", HUGE_REPEAT, "--text", "hi"
    )
    _refused(result, "--pattern", "repeats too much")


def test_a_sidecar_with_a_hostile_pattern(memory_cap: int, tmp_path: Path) -> None:
    ranks = tmp_path / "small.tiktoken"
    ranks.write_text("".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256)))
    sidecar = {"format": "tokviz-tiktoken-sidecar", "version": 1, "pattern": HUGE_REPEAT}
    (tmp_path / "small.tiktoken.json").write_text(json.dumps(sidecar), encoding="utf-8")
    _refused(_run(memory_cap, "info", str(ranks)), "small.tiktoken.json: ", "repeats too much")


def test_a_tekken_file_with_a_hostile_pattern(memory_cap: int, tmp_path: Path) -> None:
    from tests.core.test_tekken import tekken_doc

    doc = tekken_doc()
    doc["config"]["pattern"] = HUGE_REPEAT
    path = tmp_path / "tekken.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    _refused(_run(memory_cap, "info", str(path)), "tekken.json: ", "config.pattern", "repeats too much")


def test_a_count_table_with_a_hostile_pattern(memory_cap: int, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("the cat in the hat\n", encoding="utf-8")
    table = tmp_path / "counts.tsv"
    subprocess.run(
        [sys.executable, "-m", "tokviz", "count", str(corpus), "-o", str(table)],
        env=_env(),
        check=True,
        capture_output=True,
    )
    head, rest = table.read_text(encoding="utf-8").split("\n", 1)
    prefix, _, meta = head.partition(" {")
    data = json.loads("{" + meta)
    data["pretokenizer"] = NESTED
    table.write_text(f"{prefix} {json.dumps(data)}\n{rest}", encoding="utf-8")
    model = tmp_path / "m.json"
    result = _run(memory_cap, "train", "--from-counts", str(table), "--vocab-size", "300", "-o", str(model))
    _refused(result, "counts.tsv: ", "repeats too much")
    assert not model.exists()


def _hf_file(tmp_path: Path, pattern: str) -> Path:
    doc: dict[str, object] = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": pattern}, "behavior": "Isolated", "invert": False},
                {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False},
            ],
        },
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"},
    }
    path = tmp_path / "tokenizer.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_tokenizer_json_with_a_hostile_split_pattern(memory_cap: int, tmp_path: Path) -> None:
    path = _hf_file(tmp_path, NESTED)
    _refused(
        _run(memory_cap, "info", str(path)), "tokenizer.json: ", "pre-tokenizer regex", "repeats too much"
    )


def test_a_split_pattern_stopped_by_the_library_says_one_line_only(memory_cap: int, tmp_path: Path) -> None:
    """Oniguruma's retry limit makes the Rust library panic; its report (and backtrace) stays off
    the terminal and the user reads tokviz's one line."""
    path = _hf_file(tmp_path, "(a|a)+$")
    result = _run(memory_cap, "encode", "--tokenizer", str(path), "--text", "a" * 160 + "b")
    _refused(result, "retry-limit")
    assert "panicked" not in result.stderr and "backtrace" not in result.stderr


# ---------------------------------------------------------------- any pattern: compiled or refused, bounded

_PROPERTY = textwrap.dedent(
    """
    import resource, sys
    cap = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from hypothesis import HealthCheck, given, settings
    from tests.core.regex_grammar import patterns
    from tokviz.core.errors import PretokenizerError
    from tokviz.core.pretok.pretokenize import compile_custom_pattern

    @settings(max_examples=int(sys.argv[2]), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(patterns)
    def compiled_or_refused(pattern):
        try:
            compile_custom_pattern(pattern)
        except PretokenizerError:
            pass

    compiled_or_refused()
    print("ok")
    """
)


def test_any_pattern_is_compiled_or_refused_within_the_memory_cap(memory_cap: int) -> None:
    code = _PROPERTY.replace("sys.argv[1]", str(memory_cap)).replace("sys.argv[2]", "300")
    result = _run(memory_cap, code=code)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-3000:]
