"""Reading and writing tokenizers: tokviz's own model file, GPT-2's vocab.json + merges.txt,
tiktoken's ``.tiktoken`` rank files and Hugging Face's ``tokenizer.json``.

Every write is atomic (a reader sees the old file or the new one). Every read validates what it
reads and fails with a one-line :class:`TokenizerLoadError` (:class:`ModelFileError` for tokviz
model files) that names the file and what is wrong; nothing is ever unpickled or evaluated, and
files or tables of hostile size are refused before they are built.
"""

from __future__ import annotations

from ._common import GPT2_MERGES_HEADER, MAX_ENTRIES, MAX_FILE_BYTES, MODEL_FORMAT, MODEL_VERSION, read_json
from ._reach import load_warnings, remember_warnings
from .engine import TiktokenEngine, tokenizer_from_ranks
from .gpt2_files import export_gpt2, tokenizer_from_files
from .hf_engine import HFTokenizer, build_hf_tokenizer
from .hf_folder import load_vocab_merges
from .hf_json import export_hf, from_oniguruma, hf_from_json, load_hf, to_oniguruma
from .model_file import LoadedModel, load_model, model_from_json, model_from_text, save_model
from .sentencepiece_file import SentencePieceTokenizer, sentencepiece_from_file
from .tiktoken_file import export_tiktoken, load_tiktoken_file, parse_tiktoken_file, tiktoken_from_data

__all__ = [
    "GPT2_MERGES_HEADER",
    "HFTokenizer",
    "MAX_ENTRIES",
    "MAX_FILE_BYTES",
    "MODEL_FORMAT",
    "MODEL_VERSION",
    "LoadedModel",
    "SentencePieceTokenizer",
    "TiktokenEngine",
    "build_hf_tokenizer",
    "export_gpt2",
    "export_hf",
    "export_tiktoken",
    "from_oniguruma",
    "hf_from_json",
    "load_hf",
    "load_model",
    "load_tiktoken_file",
    "load_vocab_merges",
    "load_warnings",
    "model_from_json",
    "model_from_text",
    "parse_tiktoken_file",
    "read_json",
    "remember_warnings",
    "save_model",
    "sentencepiece_from_file",
    "tiktoken_from_data",
    "to_oniguruma",
    "tokenizer_from_files",
    "tokenizer_from_ranks",
]
