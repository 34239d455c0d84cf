"""What a printed handout says: a slide's notes without the presenter's key reminders.

Notes are for the presenter and for the handout. A paragraph of the notes that begins ``Keys:``
(which key does what on this slide) is for the presenter window only: printed, it would tell a
reader to press keys on paper. A paragraph runs to the next blank line or the end of the notes.
"""

from __future__ import annotations

import re

KEYS_PREFIX = "Keys:"


def printed_notes(notes: str) -> str:
    """``notes`` as a handout prints them: every ``Keys:`` paragraph left out, lines kept as written."""
    kept: list[str] = []
    skipping = False
    for line in notes.splitlines():
        if line.lstrip().startswith(KEYS_PREFIX):
            skipping = True
        elif not line.strip():
            skipping = False
        if not skipping:
            kept.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip("\n")
