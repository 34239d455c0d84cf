"""The Qt-free core of tokviz: training, encoding, pre-tokenizers, formats and metrics.

Nothing here imports Qt, so it can be used, tested and benchmarked without a display. The modules
live in sub-packages by concept (``io``, ``pretok``, ``bpe``, ``corpus``, ``training``, ``formats``,
``show``, ``analysis``, ``lecture``, ``chat``); the names a user needs are imported from here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .bpe.merges import MergeStep
from .bpe.stream import StreamingDecoder
from .bpe.tokenizer import Tokenizer, TokenSpan
from .errors import (
    Cancelled,
    CorpusError,
    ExportError,
    InvalidArgument,
    ModelFileError,
    PretokenizerError,
    TokenizerLoadError,
    TokvizError,
    VocabSizeError,
)
from .pretok.pretokenize import PatternTimeoutError, Pretokenizer, resolve_pretokenizer, validate_pattern
from .pretok.regex_bounds import PatternTooLargeError
from .training.train import Progress, TrainResult, train_bpe, train_iter

if TYPE_CHECKING:  # the names of _LAZY below, for type checkers and readers
    from .analysis.audit import audit_vocabulary
    from .analysis.embedding_audit import embedding_indicators
    from .analysis.lattice import sample_segmentations, segment_lattice
    from .analysis.parity import bundled_sample, measure_parity, read_parallel
    from .analysis.sweep import prefix_tokenizer, sweep_files, sweep_texts
    from .analysis.usage import count_tokens
    from .bpe.specials_text import reading_specials
    from .chat.lens import chat_lens
    from .corpus.fileselect import select_files
    from .formats.registry import load_tokenizer
    from .pretok.normalize import parse_normalizer
    from .training.engine_options import EngineOptions
    from .training.engine_run import train_engine

_LAZY = {
    "audit_vocabulary": "analysis.audit",
    "bundled_sample": "analysis.parity",
    "chat_lens": "chat.lens",
    "count_tokens": "analysis.usage",
    "embedding_indicators": "analysis.embedding_audit",
    "EngineOptions": "training.engine_options",
    "load_tokenizer": "formats.registry",
    "measure_parity": "analysis.parity",
    "parse_normalizer": "pretok.normalize",
    "prefix_tokenizer": "analysis.sweep",
    "read_parallel": "analysis.parity",
    "reading_specials": "bpe.specials_text",
    "sample_segmentations": "analysis.lattice",
    "segment_lattice": "analysis.lattice",
    "select_files": "corpus.fileselect",
    "sweep_files": "analysis.sweep",
    "sweep_texts": "analysis.sweep",
    "train_engine": "training.engine_run",
}
"""Public names whose modules pull in heavy libraries (tiktoken, jinja2): imported when first asked for."""

__all__ = [
    "audit_vocabulary",
    "bundled_sample",
    "Cancelled",
    "chat_lens",
    "CorpusError",
    "count_tokens",
    "embedding_indicators",
    "EngineOptions",
    "ExportError",
    "InvalidArgument",
    "load_tokenizer",
    "measure_parity",
    "MergeStep",
    "ModelFileError",
    "parse_normalizer",
    "PatternTimeoutError",
    "PatternTooLargeError",
    "prefix_tokenizer",
    "Pretokenizer",
    "PretokenizerError",
    "Progress",
    "read_parallel",
    "reading_specials",
    "resolve_pretokenizer",
    "sample_segmentations",
    "segment_lattice",
    "select_files",
    "StreamingDecoder",
    "sweep_files",
    "sweep_texts",
    "Tokenizer",
    "TokenizerLoadError",
    "TokenSpan",
    "TokvizError",
    "train_bpe",
    "train_engine",
    "train_iter",
    "TrainResult",
    "validate_pattern",
    "VocabSizeError",
]


def __getattr__(name: str) -> Any:
    """The lazily imported public names of :data:`_LAZY`, from their sub-package."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
