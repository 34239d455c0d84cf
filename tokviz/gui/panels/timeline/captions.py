"""The words above the replay: what step k does to the text, or how far a training run has come."""

from __future__ import annotations

from tokviz.core.bpe.merges import MergeStep
from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.pretok.bytes_ import printable_token
from tokviz.core.training.replay import ReplayTrace

TRAINING_CAPTION = "<b>Training</b> · merges stream into the table"


def html_escape(text: str) -> str:
    """``text`` safe inside rich text (quotes need no escaping there)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _code(token: bytes) -> str:
    return f"<code>{html_escape(printable_token(token))}</code>"


def step_caption(
    trace: ReplayTrace,
    step: int,
    n_tokens: int,
    total: int,
    parts: tuple[bytes, bytes, int] | None,
    first_chars: int | None = None,
) -> str:
    """Step ``step`` of ``total``: the merge (``parts``: left, right, new id), its count here, tokens.

    ``first_chars`` says the replay covers only that many characters of a longer text.
    """
    nbytes = trace.text_bytes
    ratio = f"{nbytes / n_tokens:.2f}" if n_tokens else "–"
    head = f"<b>Step {step:,}</b> of {total:,}"
    if step == 0:
        what = "the text as single bytes"
    else:
        what = ""
        if parts is not None:
            left, right, new_id = parts
            what = f"{_code(left)} + {_code(right)} → {_code(left + right)} (id {new_id})"
        if not trace.changes_text(step):
            what += " <i>does not occur in this text</i>"
        else:
            what += f", {trace.token_count(step - 1) - trace.token_count(step)}× here"
    note = f" · first {first_chars:,} characters" if first_chars is not None else ""
    return f"{head} · {what} · <b>{n_tokens:,}</b> tokens · {ratio} bytes/token{note}"


def live_caption(last: MergeStep) -> str:
    """A running trainer's latest merge."""
    pair = f"{html_escape(printable_token(last.left))} + {html_escape(printable_token(last.right))}"
    return f"<b>Training</b> · {last.step:,} merges · latest <code>{pair}</code> (count {last.count:,})"


def replay_note_message(tokenizer: Tokenizer) -> str:
    """What the timeline shows instead of a replay for a tokenizer whose ids replay cannot reproduce.

    The core's ``replay_note`` says why (``characters``: "not BPE: there are no merges to replay";
    a tokenizer.json with a normalizer: what the normalizer changes).
    """
    return f"No merge replay for {tokenizer.name}: {tokenizer.replay_note}."
