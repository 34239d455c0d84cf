"""What each ``transformers`` tokenizer class does with a ``vocab.json`` + ``merges.txt`` folder.

``AutoTokenizer.from_pretrained(folder)`` builds the tokenizer the class named in
``tokenizer_config.json`` describes. For the byte-level BPE classes that read the pair, that class's
rules are written down here as data, so tokviz builds the same pipeline without importing
``transformers``. The facts come from ``transformers.convert_slow_tokenizer`` (its
``SLOW_TO_FAST_CONVERTERS`` table, from which each class's converter is named in ``source``) and
the classes' own ``__init__`` in transformers 5, which build the same pipeline:

- ``GPT2Converter`` (GPT-2, CodeGen), ``RobertaConverter`` (RoBERTa, BART, Longformer, LED, MVP,
  LayoutLMv3), ``DebertaConverter``, ``BlenderbotConverter`` and ``WhisperConverter``: no
  normalizer; ``ByteLevel(add_prefix_space=...)`` with its own regex, which is GPT-2's.
- ``Qwen2Converter`` (Qwen2, and Qwen3 and later, whose folders name ``Qwen2Tokenizer``): an NFC
  normalizer, then a ``Split`` on :data:`QWEN2_PATTERN` (isolated) before a regex-free ByteLevel.

Every one of them takes ``add_prefix_space`` from the folder's config, ``False`` when it is absent.
A class's ``*Fast`` twin builds the same pipeline (transformers 5 drops the suffix when it looks
the class up). Classes not listed here are unknown to tokviz: it then assumes GPT-2's pipeline and
says so.
"""

from __future__ import annotations

from dataclasses import dataclass

# The Qwen2 pre-tokenizer regex, as the tokenizers library (Oniguruma) reads it in a Split step.
# Unlike GPT-2's it keeps each digit alone and lets a word take one leading non-letter.
QWEN2_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"


@dataclass(frozen=True)
class ClassRules:
    """One class's byte-level BPE pipeline: the regex a Split step applies before ByteLevel (``None``:
    ByteLevel's own GPT-2 regex), the Unicode normalizer (``"NFC"`` or ``None``), the
    ``add_prefix_space`` the class uses when the config does not say, and the converter that
    defines it in ``transformers.convert_slow_tokenizer``."""

    source: str
    pattern: str | None = None
    normalizer: str | None = None
    add_prefix_space: bool = False


_GPT2 = ClassRules("GPT2Converter")
_ROBERTA = ClassRules("RobertaConverter")
BYTE_LEVEL_CLASSES: dict[str, ClassRules] = {
    "GPT2Tokenizer": _GPT2,
    "CodeGenTokenizer": _GPT2,
    "RobertaTokenizer": _ROBERTA,
    "BartTokenizer": _ROBERTA,
    "LongformerTokenizer": _ROBERTA,
    "LEDTokenizer": _ROBERTA,
    "MvpTokenizer": _ROBERTA,
    "LayoutLMv3Tokenizer": _ROBERTA,
    "DebertaTokenizer": ClassRules("DebertaConverter"),
    "BlenderbotTokenizer": ClassRules("BlenderbotConverter"),
    "WhisperTokenizer": ClassRules("WhisperConverter"),
    "Qwen2Tokenizer": ClassRules("Qwen2Converter", pattern=QWEN2_PATTERN, normalizer="NFC"),
}

# Classes that read BERT's vocab.txt with BertConverter's pipeline (BertNormalizer, BertPreTokenizer,
# WordPiece with ## pieces), lowercasing as the config's do_lower_case says.
BERT_CLASSES = frozenset(
    {
        "BertTokenizer",
        "DistilBertTokenizer",
        "ElectraTokenizer",
        "ConvBertTokenizer",
        "LayoutLMTokenizer",
        "LayoutLMv2Tokenizer",
        "LxmertTokenizer",
        "MobileBertTokenizer",
        "SqueezeBertTokenizer",
        "DPRReaderTokenizer",
        "DPRQuestionEncoderTokenizer",
        "DPRContextEncoderTokenizer",
    }
)


def base_class(name: str) -> str:
    """The class name without its ``Fast`` suffix (``Qwen2TokenizerFast`` -> ``Qwen2Tokenizer``)."""
    return name.removesuffix("Fast")


def byte_level_rules(class_name: str) -> ClassRules | None:
    """The pipeline ``class_name`` (or its ``Fast`` twin) builds from vocab.json + merges.txt, or
    ``None`` for a class tokviz does not know."""
    return BYTE_LEVEL_CLASSES.get(base_class(class_name))


def is_bert_class(class_name: str) -> bool:
    """Whether ``class_name`` (or its ``Fast`` twin) reads vocab.txt as BERT's WordPiece does."""
    return base_class(class_name) in BERT_CLASSES


__all__ = [
    "BERT_CLASSES",
    "BYTE_LEVEL_CLASSES",
    "QWEN2_PATTERN",
    "ClassRules",
    "base_class",
    "byte_level_rules",
    "is_bert_class",
]
