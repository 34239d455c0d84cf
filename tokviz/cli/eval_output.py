"""How ``tokviz eval`` writes its rows: an aligned table, CSV, JSON or a markdown table.

Every form has the columns of :data:`tokviz.core.analysis.evaluation.EVAL_FIELDS`; CSV and JSON round
the numbers with :func:`tokviz.core.analysis.evaluation.rounded` (never binary-float noise), the table and
markdown show counts with thousands separators and the vocabulary share as a percentage.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tokviz.cli.output import format_fixed, format_int, format_percent, render_markdown, render_table
from tokviz.core.io.safe_text import csv_cell, encodable

if TYPE_CHECKING:
    from tokviz.core.analysis.evaluation import EvalRow, Evaluation

FORMATS = ("table", "csv", "json", "markdown")
# The column of the id range (highest id + 1), shown only where it differs from the token count.
_ID_RANGE = 9
_HEADERS = (
    ("group", False),
    ("tokenizer", False),
    ("files", True),
    ("bytes", True),
    ("tokens", True),
    ("bytes/token", True),
    ("x fewest", True),
    ("tokens used", True),
    ("vocab", True),
    ("id range", True),
    ("used", True),
    ("mean len", True),
    ("lossy files", True),
)
# The column of the files that lost text, shown only when some tokenizer lost some.
_LOSSY = 12


def render(
    evaluation: Evaluation,
    form: str,
    per_file: bool = False,
    assumptions: Mapping[str, list[str]] | None = None,
    specials: tuple[str, str] = ("", ""),
) -> str:
    """The rows of ``evaluation`` in ``form`` (one of :data:`FORMATS`), ending with a newline.

    ``assumptions`` (``{tokenizer: [what tokviz assumed]}``) go into the JSON document.
    ``specials`` is ``(mode, note)``: how special-token text was read (``--specials-in-text``),
    a ``specials_in_text`` field of CSV and JSON, the note line under a table.
    """
    mode, note = specials
    rows = evaluation.rows(per_file)
    if form == "csv":
        return _csv(rows, mode)
    if form == "json":
        return _json(evaluation, rows, assumptions or {}, mode)
    cells = [_cells(r) for r in rows]
    columns = list(range(len(_HEADERS)))
    if not evaluation.groups and not per_file:
        columns = columns[1:]  # only the totals: the group column would say "all" on every line
    if all(r.id_range == r.vocab_tokens for r in rows):
        columns.remove(_ID_RANGE)  # no gaps in any id layout: "vocab" says it all
    if not any(r.lossy for r in rows):
        columns.remove(_LOSSY)
    headers = [_HEADERS[c][0] for c in columns]
    right = [_HEADERS[c][1] for c in columns]
    picked = [[row[c] for c in columns] for row in cells]
    tail = f"{note}\n" if note else ""
    if form == "markdown":
        return render_markdown(headers, picked, right) + "\n\n" + caption(evaluation) + "\n" + tail
    return render_table(headers, picked, right) + "\n" + tail


def _cells(r: EvalRow) -> list[str]:
    return [
        r.group,
        r.tokenizer,
        format_int(r.files),
        format_int(r.bytes),
        format_int(r.tokens),
        format_fixed(r.bytes_per_token, 2),
        format_fixed(r.relative_tokens, 2),
        format_int(r.vocab_used),
        format_int(r.vocab_tokens),
        format_int(r.id_range),
        format_percent(r.vocab_used_share),
        format_fixed(r.mean_token_bytes, 1),
        format_int(r.lossy_files),
    ]


def caption(evaluation: Evaluation) -> str:
    """The line under a markdown table: what was measured and what the less obvious columns mean."""
    n = evaluation.totals[0].files if evaluation.totals else 0
    text = (
        f"*{n:,} {'file' if n == 1 else 'files'}, {evaluation.text_bytes:,} bytes of text. "
        "bytes/token: the input's bytes over tokens; x fewest: tokens over the fewest any tokenizer that kept the text needs; "
        "tokens used: distinct tokens that occur, of the vocabulary's (vocab: its number of tokens; "
        "id range: highest id + 1, where ids have gaps); mean len: their mean length in bytes; lossy files: "
        "files whose tokens do not decode back to their text (such a tokenizer's count is no saving and "
        "never the fewest).*"
    )
    return text


def _csv(rows: list[EvalRow], mode: str) -> str:
    from tokviz.core.analysis.evaluation import EVAL_FIELDS, rounded_rows

    buffer = io.StringIO()
    fields = [*EVAL_FIELDS, "specials_in_text"] if mode else list(EVAL_FIELDS)
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for row in rounded_rows(r.as_dict() for r in rows):
        cells = {k: "" if v is None else csv_cell(v) for k, v in row.items()}
        writer.writerow(cells | ({"specials_in_text": mode} if mode else {}))
    return buffer.getvalue()


def _json(
    evaluation: Evaluation, rows: list[EvalRow], assumptions: Mapping[str, list[str]], mode: str
) -> str:
    from tokviz.core.analysis.evaluation import rounded_rows

    selection = evaluation.selection
    document = {
        "rows": rounded_rows(r.as_dict() for r in rows),
        "files": len(selection.files) - evaluation.empty_files,
        "empty_files": evaluation.empty_files,
        "skipped": {s.reason: s.files for s in selection.skipped},
        "assumptions": dict(assumptions),
    }
    if mode:
        document["specials_in_text"] = mode
    if evaluation.reading is not None and evaluation.reading.to_json():
        document["records"] = evaluation.reading.to_json()
    return json.dumps(encodable(document), ensure_ascii=False, indent=2) + "\n"
