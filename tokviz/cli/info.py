"""``tokviz info``: what a tokenizer is made of, without recovering lazy merges."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .options import add_file_options, add_words_corpus, load_tokenizer

# A Llama-3 or Mistral v3 file has hundreds of control tokens: the text view names the first few.
SPECIALS_SHOWN = 12


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "tokenizer",
        metavar="NAME|PATH",
        help="bytes, gpt2, cl100k, o200k, characters, words or a tokenizer file or folder",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output form")
    add_words_corpus(p)
    add_file_options(p)


def run(args: argparse.Namespace) -> int:
    """Print the name, vocabulary size, merge count, special tokens and pre-tokenizer, and any
    warning the loader had about the file (tokens no merge makes), so a doubtful file is visible."""
    from tokviz.core.registry import is_builtin, load_warnings

    tok = load_tokenizer(
        args.tokenizer, args.special_token, pattern=args.pattern, words_corpus=args.words_corpus
    )
    from tokviz.core.evaluation import id_space, tokenizer_label

    warnings = list(load_warnings(tok))
    pre = tok.pretokenizer
    specials = dict(sorted(tok.special_tokens.items(), key=lambda kv: kv[1]))
    # Named as the app names it (a tokenizer.json by its file, not its folder); the vocabulary
    # size is the id space, V of V x d (cl100k: 100,277), with the distinct tokens beside it.
    name = tokenizer_label(args.tokenizer, tok)
    # A file's full path, so two tokenizers of one name (a folder multilingual/ and a file
    # multilingual.tiktoken) can be told apart; built-ins have none.
    source = None if is_builtin(args.tokenizer) else str(Path(args.tokenizer).resolve())
    ids = id_space(tok)
    tie_rule = model_tie_rule(tok)
    info: dict[str, Any] = {
        "name": name,
        "vocab_size": ids,
        "distinct_tokens": tok.vocab_size,
        "merges": tok.merge_count,
        "special_tokens": specials,
        "special_tokens_in_text": tok.specials_in_text,
        "pretokenizer": pre.name,
        "pattern": pre.pattern,
        "assumptions": list(tok.assumptions),
        "warnings": warnings,
    }
    if source:
        info["source"] = source
    if tie_rule:
        info["tie_break"] = tie_rule
    lecture = lecture_note(tok)
    if lecture:
        info["about"] = lecture
    # A Hugging Face post-processor's template (Llama's BOS, BERT's [CLS] $A [SEP]) is reported, not inserted.
    template = list(getattr(tok, "template", ()))
    if template:
        info["template"] = template
    if tok.replay_note:
        info["replay"] = tok.replay_note
    provenance = model_provenance(tok)
    if provenance:
        info["provenance"] = provenance
    added = _added_in_text(tok.matched_in_text(), specials, info)
    if args.format == "json":
        json.dump(info, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    shown = list(specials.items())[:SPECIALS_SHOWN]
    listed = ", ".join(f"{s} ({i})" for s, i in shown) or "none"
    if len(specials) > SPECIALS_SHOWN:
        listed = f"{len(specials):,}: {listed}, ... (--format json lists them all)"
    # What the loader had to guess is said as a guess ("pre-tokenizer assumed: GPT-2"), not as a fact.
    guessed_pattern = [a for a in tok.assumptions if a.startswith("pre-tokenizer")]
    guessed_specials = [a for a in tok.assumptions if a.startswith("special tokens")]
    others = [a for a in tok.assumptions if a not in guessed_pattern + guessed_specials]
    special_line = f"special tokens: {listed}"
    if specials and not tok.specials_in_text:
        special_line = f"special tokens (ids only: text never becomes them): {listed}"
    if guessed_specials and not specials:
        special_line = f"{guessed_specials[0]} (the file cannot hold them: give --special-token TEXT=ID)"
    pre_line = f"pre-tokenizer:  {pre.name}" + (f"  {pre.pattern}" if pre.name in ("custom", "words") else "")
    if guessed_pattern:
        pre_line = f"{guessed_pattern[0]} (the file does not say: give --pattern)"
    size_line = f"vocab size:     {ids}"
    if ids != tok.vocab_size:
        size_line += f" ids (highest id {ids - 1} + 1; {tok.vocab_size} distinct tokens)"
    added_line = _added_line(added)
    lines = [
        f"name:           {name}",
        *([f"{'folder:' if Path(source).is_dir() else 'file:':<16}{source}"] if source else []),
        size_line,
        f"merges:         {tok.merge_count}",
        special_line,
        *([added_line] if added_line else []),
        pre_line,
    ]
    if tie_rule:
        lines.append(f"tie rule:       {tie_rule} ({TIE_RULES.get(tie_rule, 'as trained')})")
    lines.extend(f"assumed:        {a}" for a in others)
    if template:
        lines.append(
            f"template:       {' '.join(template)}  (added by the post-processor; tokviz shows the text's own ids)"
        )
    if tok.replay_note:
        lines.append(f"replay:         {tok.replay_note}")
    if lecture:
        lines.append(f"about:          {lecture}")
    if provenance:
        from tokviz.core.provenance import provenance_lines

        lines.extend(provenance_lines(provenance))
    lines.extend(f"warning:        {w}" for w in warnings)
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _added_in_text(matched: dict[str, int], specials: dict[str, int], info: dict[str, Any]) -> dict[str, int]:
    """The texts the encoder reads as one id that are not special tokens, also put in ``info``."""
    added = {t: i for t, i in matched.items() if t not in specials}
    if added:
        info["added_tokens_in_text"] = added
    return added


def _added_line(added: dict[str, int]) -> str:
    """The tokens the encoder reads as one id though the file does not mark them special, or ""."""
    if not added:
        return ""
    shown = ", ".join(f"{s} ({i})" for s, i in list(added.items())[:SPECIALS_SHOWN])
    more = f", ... ({len(added):,} in all)" if len(added) > SPECIALS_SHOWN else ""
    return f"added tokens:   {shown}{more} (not marked special; text equal to one encodes to its id)"


# What each tie rule means, for the line under the pre-tokenizer.
TIE_RULES = {
    "lexicographic": "among equal counts, the greatest (left, right) byte pair is merged",
    "first-seen": "among equal counts, the pair seen first in the corpus is merged, as in the CS336 lecture",
}


def model_tie_rule(tok: object) -> str | None:
    """The tie rule a tokviz model file says it was trained with, or None for other tokenizers."""
    from tokviz.core.formats.model_file import model_details
    from tokviz.core.tokenizer import Tokenizer

    details = model_details(tok) if isinstance(tok, Tokenizer) else None
    rule = details.settings.get("tie_break") if details is not None else None
    return rule if isinstance(rule, str) else None


def model_provenance(tok: object) -> dict[str, Any]:
    """Where a tokviz model file says its model came from (corpus files and hashes, version, date), or {}."""
    from tokviz.core.formats.model_file import model_details
    from tokviz.core.tokenizer import Tokenizer

    details = model_details(tok) if isinstance(tok, Tokenizer) else None
    return dict(details.provenance) if details is not None else {}


def lecture_note(tok: object) -> str:
    """What the lecture's characters or words tokenizer is made of ("" for any other tokenizer)."""
    from tokviz.core.lecture_tokenizers import CharacterTokenizer, WordTokenizer

    if isinstance(tok, CharacterTokenizer):
        return "one token per Unicode code point, id = the code point: 1,114,112 ids, most of them unused"
    if isinstance(tok, WordTokenizer):
        return f"one token per word, digit, whitespace run or punctuation mark; {tok.word_count:,} of them from {tok.corpus}; others are <unk>"
    return ""
