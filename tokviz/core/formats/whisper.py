"""Whisper's special tokens, for its two published rank files (openai-whisper's ``assets/``).

A ``.tiktoken`` file holds ranks only; Whisper appends its special tokens after them, in a fixed
order, when it builds its encoding: end of text, start of transcript, one token per language
(in Whisper's language order), the task and prompt markers, and 1,501 timestamps 0.00 to 30.00
seconds in steps of 0.02. The first special id is the file's rank count.

``multilingual.tiktoken`` gets every language Whisper knows (100, the layout of large-v3; the
multilingual models before it have 99, without Cantonese, so every id after the language tokens is
one lower for them: give such a model's ids in a sidecar). Whisper's ``gpt2.tiktoken`` is the very
file of OpenAI's r50k_base; opened under that name it gets the 99 languages of Whisper's
English-only models, under any other name r50k_base's one special token.
"""

from __future__ import annotations

# Whisper's language codes in the order its tokenizer numbers them (openai-whisper 20231117 and later).
WHISPER_LANGUAGES = (
    "en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur "
    "hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si "
    "km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha "
    "ba jw su yue"
).split()
# The languages of the models before large-v3 (all but Cantonese).
LANGUAGES_BEFORE_V3 = 99
TIMESTAMPS = 1501  # 0.00 to 30.00 seconds, every 0.02 s
WHISPER_FILE_NAME = "gpt2.tiktoken"  # Whisper's name for r50k_base's file


def whisper_special_names(languages: int = len(WHISPER_LANGUAGES)) -> list[str]:
    """Whisper's special tokens in id order, with the first ``languages`` language tokens."""
    return [
        "<|endoftext|>",
        "<|startoftranscript|>",
        *(f"<|{code}|>" for code in WHISPER_LANGUAGES[:languages]),
        "<|translate|>",
        "<|transcribe|>",
        "<|startoflm|>",
        "<|startofprev|>",
        "<|nospeech|>",
        "<|notimestamps|>",
        *(f"<|{i * 0.02:.2f}|>" for i in range(TIMESTAMPS)),
    ]


def whisper_special_tokens(first_id: int, languages: int = len(WHISPER_LANGUAGES)) -> dict[str, int]:
    """``{text: id}`` of Whisper's special tokens numbered from ``first_id`` (the file's rank count)."""
    return {text: first_id + i for i, text in enumerate(whisper_special_names(languages))}
