"""Shared fixtures: sample texts that every test can use without touching the network."""

from __future__ import annotations

import pydoc_data.topics

import pytest
import tiktoken


@pytest.fixture(scope="session")
def english_text() -> str:
    """Real English prose with code snippets: the Python documentation topics that ship with Python."""
    return "\n".join(pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics))[:200_000]


def _read_rank_file(name: str) -> dict[bytes, int]:
    """Parse a bundled ``.tiktoken`` file independently of tokviz's own loader (an oracle must not share code)."""
    import base64

    from tokviz.core.resources import resource_path

    data = resource_path("encodings", name).read_bytes()
    return {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in data.splitlines() if line)
    }


@pytest.fixture(scope="session")
def gpt2_tiktoken() -> tiktoken.Encoding:
    """tiktoken's own GPT-2 (r50k_base) encoding, built offline from the bundled rank file."""
    from tiktoken_ext.openai_public import r50k_pat_str

    return tiktoken.Encoding(
        "gpt2",
        pat_str=r50k_pat_str,
        mergeable_ranks=_read_rank_file("r50k_base.tiktoken"),
        special_tokens={"<|endoftext|>": 50256},
    )


@pytest.fixture(scope="session")
def cl100k_tiktoken() -> tiktoken.Encoding:
    """tiktoken's own cl100k_base encoding, built offline from the bundled rank file."""
    from tokviz.core.pretokenize import CL100K_PATTERN

    return tiktoken.Encoding(
        "cl100k_base",
        pat_str=CL100K_PATTERN,
        mergeable_ranks=_read_rank_file("cl100k_base.tiktoken"),
        special_tokens={
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    )


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
