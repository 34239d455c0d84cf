"""Whisper's published rank files get Whisper's special tokens, as its ``get_encoding`` builds them.

The reference below is built as openai-whisper's ``whisper/tokenizer.py`` builds its encoding: the
file's ranks, GPT-2's pattern, and the special tokens appended from the rank count on, in Whisper's
order (end of text, start of transcript, the languages, the task and prompt markers, 1,501 timestamps).
"""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import tiktoken

from tokviz.core.formats.registry import load_tokenizer
from tokviz.core.io.resources import resource_path

from .real_files import DATA, WHISPER_PATTERN

# Whisper's language codes in its order (whisper/tokenizer.py's LANGUAGES, openai-whisper 20250625).
LANGUAGE_CODES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur "
    "hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si "
    "km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha "
    "ba jw su yue"
).split()


def whisper_encoding(path: Path, num_languages: int) -> tiktoken.Encoding:
    """Whisper's ``get_encoding``: ranks read line by line, specials numbered from the rank count."""
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in path.read_text().splitlines() if line)
    }
    n_vocab = len(ranks)
    specials = [
        "<|endoftext|>",
        "<|startoftranscript|>",
        *[f"<|{lang}|>" for lang in LANGUAGE_CODES[:num_languages]],
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
        *[f"<|{i * 0.02:.2f}|>" for i in range(1501)],
    ]
    special_tokens = {token: n_vocab + i for i, token in enumerate(specials)}
    return tiktoken.Encoding(
        name=path.name,
        explicit_n_vocab=n_vocab + len(specials),
        pat_str=WHISPER_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=special_tokens,
    )


TEXT = (
    "<|startoftranscript|><|en|><|transcribe|><|0.00|> Hello there.<|2.48|><|endoftext|>"
    "<|startofprev|> previous<|startoftranscript|><|yue|><|translate|><|notimestamps|>"
    "Grüße, 世界 <|30.00|><|nospeech|><|startoflm|><|haw|> <|30.02|> <|en|"
)


def test_whispers_multilingual_file_gets_all_of_whispers_special_tokens() -> None:
    path = DATA / "multilingual.tiktoken"
    reference = whisper_encoding(path, num_languages=100)

    tok = load_tokenizer(path)

    assert tok.special_tokens == {t: reference.encode_single_token(t) for t in reference.special_tokens_set}
    assert tok.encode(TEXT) == reference.encode(TEXT, allowed_special="all")
    assert tok.special_tokens["<|startoftranscript|>"] == 50258
    assert tok.special_tokens["<|0.00|>"] == 50365
    assert tok.special_tokens["<|30.00|>"] == 51865
    assert any("large-v3" in a for a in tok.assumptions)


def test_whispers_gpt2_file_is_r50k_base_and_under_its_own_name_gets_whispers_specials(
    tmp_path: Path,
) -> None:
    whisper_gpt2 = tmp_path / "gpt2.tiktoken"
    shutil.copyfile(resource_path("encodings", "r50k_base.tiktoken"), whisper_gpt2)
    reference = whisper_encoding(whisper_gpt2, num_languages=99)

    tok = load_tokenizer(whisper_gpt2)

    assert tok.special_tokens == {t: reference.encode_single_token(t) for t in reference.special_tokens_set}
    assert tok.encode(TEXT) == reference.encode(TEXT, allowed_special="all")
    assert (tok.special_tokens["<|startoftranscript|>"], tok.special_tokens["<|0.00|>"]) == (50257, 50363)
    assert tok.special_tokens["<|30.00|>"] == 51863
    assert load_tokenizer(resource_path("encodings", "r50k_base.tiktoken")).special_tokens == {
        "<|endoftext|>": 50256
    }
