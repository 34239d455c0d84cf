"""How the training panel words sizes, durations, progress and results (no Qt)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tokviz.core.corpus.sizes import text_and_file_size

if TYPE_CHECKING:
    from tokviz.gui.workers.training import TrainOutcome, TrainStatus


def human_bytes(n: int) -> str:
    """1234567 -> '1.2 MB'."""
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{int(size):,} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000
    return f"{n} bytes"


def human_seconds(s: float) -> str:
    """Seconds as '45 s' or '3 min 05 s'."""
    s = max(0.0, s)
    if s < 10:
        return f"{s:.1f} s"
    if s < 60:
        return f"{s:.0f} s"
    minutes, sec = divmod(int(round(s)), 60)
    return f"{minutes} min {sec:02d} s"


def progress_text(status: TrainStatus) -> str:
    """The status line while training: phase, amount done, rate, time left and time so far."""
    parts: list[str] = []
    if status.phase == "pre-tokenizing":
        parts.append(f"{human_bytes(status.done)} of {human_bytes(status.total)}")
        if status.records:
            parts.append(f"{status.records:,} records")
        if status.rate > 0:
            parts.append(f"{human_bytes(int(status.rate))}/s")
    elif status.phase in ("merging", "done"):
        parts.append(f"{status.done:,} of {status.total:,} merges")
        if status.rate > 0 and status.phase == "merging":
            parts.append(f"{status.rate:,.0f} merges/s")
    if status.eta is not None and status.phase != "done":
        parts.append(f"{human_seconds(status.eta)} left")
    parts.append(f"{human_seconds(status.elapsed)} so far")
    return f"<b>{status.phase.capitalize()}</b> · " + " · ".join(parts)


def finished_status(outcome: TrainOutcome) -> str:
    """The status line after training: how long each phase took."""
    res = outcome.result
    return (
        f"Done in {human_seconds(outcome.wall_time)} · {res.timings.get('pretokenize', 0):.1f} s pre-tokenizing, "
        f"{res.timings.get('merge', 0):.1f} s merging"
    )


def finished_result(outcome: TrainOutcome) -> str:
    """What was trained: vocabulary, merges, corpus, compression, and whether the pairs ran out."""
    res = outcome.result
    merges = len(res.merges)
    short = f" Stopped early: {html_text(res.stop_reason)}." if res.stop_reason else ""
    note = res.reading.note() if res.reading is not None else None
    if note:
        short += f" {html_text(note[0].upper() + note[1:])}."
    return (
        f"<b>{html_text(outcome.settings.name)}</b>: {len(res.vocab):,} tokens ({merges:,} merges) from "
        f"{text_and_file_size(res.text_bytes, res.corpus_bytes, human_bytes)}, {res.unique_words:,} unique chunks; "
        f"{res.initial_tokens:,} → {res.history[-1].tokens_after if res.history else res.initial_tokens:,} corpus tokens. "
        f"Now in every tokenizer picker.{short}"
    )


def file_stem(name: str) -> str:
    """A model name as a file name: anything but letters, digits, ``-_.`` becomes ``-``."""
    keep = "".join(c if c.isalnum() or c in "-_." else "-" for c in name).strip("-")
    return keep or "model"


def html_text(text: str) -> str:
    """``text`` escaped for a rich-text label."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
