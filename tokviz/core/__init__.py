"""The Qt-free core of tokviz: training, encoding, pre-tokenizers, formats and metrics.

Nothing here imports Qt, so it can be used, tested and benchmarked without a display.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import (
    Cancelled,
    CorpusError,
    ExportError,
    ModelFileError,
    PretokenizerError,
    TokenizerLoadError,
    TokvizError,
    VocabSizeError,
)
from .merges import MergeStep
from .pretokenize import PatternTimeoutError, Pretokenizer, resolve_pretokenizer, validate_pattern
from .regex_bounds import PatternTooLargeError
from .stream import StreamingDecoder
from .tokenizer import Tokenizer, TokenSpan
from .train import Progress, TrainResult, train_bpe, train_iter

if TYPE_CHECKING:
    from .registry import load_tokenizer

__all__ = [
    "Cancelled",
    "CorpusError",
    "ExportError",
    "MergeStep",
    "ModelFileError",
    "PatternTimeoutError",
    "PatternTooLargeError",
    "PretokenizerError",
    "Pretokenizer",
    "Progress",
    "StreamingDecoder",
    "TokenSpan",
    "Tokenizer",
    "TokenizerLoadError",
    "TokvizError",
    "TrainResult",
    "VocabSizeError",
    "load_tokenizer",
    "resolve_pretokenizer",
    "train_bpe",
    "train_iter",
    "validate_pattern",
]


def __getattr__(name: str) -> Any:
    # The registry pulls in tiktoken; import it only when asked for.
    if name == "load_tokenizer":
        from .registry import load_tokenizer

        return load_tokenizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
