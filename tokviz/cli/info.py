"""``tokviz info``: what a tokenizer is made of, without recovering lazy merges."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tokviz.cli.options import add_file_options, add_words_corpus, load_tokenizer
from tokviz.cli.output import print_json
from tokviz.core.io.safe_text import encodable, terminal_text

if TYPE_CHECKING:
    from tokviz.core.bpe.tokenizer import Tokenizer

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
    tok = load_tokenizer(
        args.tokenizer, args.special_token, pattern=args.pattern, words_corpus=args.words_corpus
    )
    info = describe(tok, args.tokenizer)
    if args.format == "json":
        print_json(encodable(info), sys.stdout)
    else:
        sys.stdout.write("\n".join(terminal_text(line) for line in text_lines(tok, info)) + "\n")
    return 0


def describe(tok: Tokenizer, given: str) -> dict[str, Any]:
    """Everything ``info`` says about ``tok`` (opened from ``given``), as ``--format json`` prints it."""
    from tokviz.core.analysis.evaluation import id_space, tokenizer_label
    from tokviz.core.formats.registry import is_builtin, load_warnings

    pre = tok.pretokenizer
    info: dict[str, Any] = {
        # Named as the app names it (a tokenizer.json by its file, not its folder).
        "name": tokenizer_label(given, tok),
        # The id space, V of V x d (cl100k: 100,277), with the distinct tokens beside it.
        "vocab_size": id_space(tok),
        "distinct_tokens": tok.vocab_size,
        "merges": tok.merge_count,
        "special_tokens": dict(sorted(tok.special_tokens.items(), key=lambda kv: kv[1])),
        "special_tokens_in_text": tok.specials_in_text,
        "pretokenizer": pre.name,
        "pattern": pre.pattern,
        "assumptions": list(tok.assumptions),
        "warnings": list(load_warnings(tok)),
    }
    optional = {
        # A file's full path, so two tokenizers of one name (a folder multilingual/ and a file
        # multilingual.tiktoken) can be told apart; built-ins have none.
        "source": None if is_builtin(given) else str(Path(given).resolve()),
        "normalizer": tok.normalizer.name if tok.normalizer else None,
        "tie_break": model_tie_rule(tok),
        "about": lecture_note(tok),
        # A Hugging Face post-processor's template (Llama's BOS, BERT's [CLS] $A [SEP]) is reported, not inserted.
        "template": list(getattr(tok, "template", ())),
        "replay": tok.replay_note,
        # A model a library trained through tokviz: the library and exactly the options it was given.
        "trainer": engine_trainer(tok),
        "provenance": model_provenance(tok),
    }
    info.update((key, value) for key, value in optional.items() if value)
    _added_in_text(tok.matched_in_text(), info["special_tokens"], info)
    return info


def text_lines(tok: Tokenizer, info: dict[str, Any]) -> list[str]:
    """The text form of :func:`describe`'s ``info``: one ``label: value`` line each."""
    source = info.get("source")
    lines = [
        f"name:           {info['name']}",
        *([f"{'folder:' if Path(source).is_dir() else 'file:':<16}{source}"] if source else []),
        _size_line(info["vocab_size"], tok.vocab_size),
        f"merges:         {tok.merge_count}",
        _special_tokens_line(tok, info["special_tokens"]),
        *([_added_line(info["added_tokens_in_text"])] if "added_tokens_in_text" in info else []),
        _pretokenizer_line(tok),
        *([f"normalizer:     {info['normalizer']}"] if "normalizer" in info else []),
    ]
    if "tie_break" in info:
        lines.append(
            f"tie rule:       {info['tie_break']} ({TIE_RULES.get(info['tie_break'], 'as trained')})"
        )
    # A guess about special tokens is said on their line only when there are none to list.
    said = SAID_ELSEWHERE if not info["special_tokens"] else SAID_ELSEWHERE[:1]
    lines.extend(f"assumed:        {a}" for a in tok.assumptions if not a.startswith(said))
    if "template" in info:
        lines.append(
            f"template:       {' '.join(info['template'])}  (added by the post-processor; tokviz shows the text's own ids)"
        )
    if "replay" in info:
        lines.append(f"replay:         {info['replay']}")
    if "about" in info:
        lines.append(f"about:          {info['about']}")
    if "trainer" in info:
        lines.extend(trainer_lines(info["trainer"]))
    if "provenance" in info:
        from tokviz.core.formats.provenance import provenance_lines

        lines.extend(provenance_lines(info["provenance"]))
    lines.extend(f"warning:        {w}" for w in info["warnings"])
    return lines


# What the loader had to guess is said as a guess ("pre-tokenizer assumed: GPT-2"), not as a fact,
# on the line it is about; other assumptions get lines of their own.
SAID_ELSEWHERE = ("pre-tokenizer", "special tokens")


def _size_line(ids: int, distinct: int) -> str:
    line = f"vocab size:     {ids}"
    if ids != distinct:
        line += f" ids (highest id {ids - 1} + 1; {distinct} distinct tokens)"
    return line


def _special_tokens_line(tok: Tokenizer, specials: dict[str, int]) -> str:
    guessed = [a for a in tok.assumptions if a.startswith("special tokens")]
    if guessed and not specials:
        return f"{guessed[0]} (the file cannot hold them: give --special-token TEXT=ID)"
    shown = list(specials.items())[:SPECIALS_SHOWN]
    listed = ", ".join(f"{s} ({i})" for s, i in shown) or "none"
    if len(specials) > SPECIALS_SHOWN:
        listed = f"{len(specials):,}: {listed}, ... (--format json lists them all)"
    if specials and not tok.specials_in_text:
        return f"special tokens (ids only: text never becomes them): {listed}"
    return f"special tokens: {listed}"


def _pretokenizer_line(tok: Tokenizer) -> str:
    guessed = [a for a in tok.assumptions if a.startswith("pre-tokenizer")]
    if guessed:
        return f"{guessed[0]} (the file does not say: give --pattern)"
    pre = tok.pretokenizer
    return f"pre-tokenizer:  {pre.name}" + (f"  {pre.pattern}" if pre.name in ("custom", "words") else "")


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
    from tokviz.core.bpe.tokenizer import Tokenizer
    from tokviz.core.formats.model_file import model_details

    details = model_details(tok) if isinstance(tok, Tokenizer) else None
    rule = details.settings.get("tie_break") if details is not None else None
    return rule if isinstance(rule, str) else None


def model_provenance(tok: object) -> dict[str, Any]:
    """Where a tokviz model file (or a library-trained model's options record) says its model came
    from (corpus files and hashes, version, date), or {}."""
    from tokviz.core.bpe.tokenizer import Tokenizer
    from tokviz.core.formats.engine_record import engine_record
    from tokviz.core.formats.model_file import model_details

    if not isinstance(tok, Tokenizer):
        return {}
    details = model_details(tok)
    if details is not None:
        return dict(details.provenance)
    provenance = (engine_record(tok) or {}).get("provenance")
    return dict(provenance) if isinstance(provenance, dict) else {}


def engine_trainer(tok: Tokenizer) -> dict[str, Any]:
    """The library, algorithm and exact options a library-trained model's record holds, or {}."""
    from tokviz.core.formats.engine_record import engine_record

    trainer = (engine_record(tok) or {}).get("trainer")
    return dict(trainer) if isinstance(trainer, dict) else {}


def trainer_lines(trainer: dict[str, Any]) -> list[str]:
    """The text form of a library trainer's record: the library and algorithm, the options, the rounds."""
    lines = [
        f"trainer:        {trainer.get('library', '?')} ({trainer.get('algorithm', '?')}); "
        f"options: {json.dumps(trainer.get('options', {}), ensure_ascii=False)}"
    ]
    rounds = trainer.get("rounds")
    if isinstance(rounds, list) and rounds:
        sizes = " -> ".join(f"{r.get('size')}" for r in rounds if isinstance(r, dict))
        lines.append(f"unigram rounds: {len(rounds)} (vocabulary {sizes})")
    return lines


def lecture_note(tok: object) -> str:
    """What the lecture's characters or words tokenizer is made of ("" for any other tokenizer)."""
    from tokviz.core.bpe.lecture_tokenizers import CharacterTokenizer, WordTokenizer

    if isinstance(tok, CharacterTokenizer):
        return "one token per Unicode code point, id = the code point: 1,114,112 ids, most of them unused"
    if isinstance(tok, WordTokenizer):
        return f"one token per word, digit, whitespace run or punctuation mark; {tok.word_count:,} of them from {tok.corpus}; others are <unk>"
    return ""
