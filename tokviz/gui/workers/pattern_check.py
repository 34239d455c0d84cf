"""A typed custom regex is checked in the background, never in the GUI thread (the Train panel's
field, the Open tokenizer dialog's pattern).

Checking a regex means compiling it and trying it on short hostile texts (a catastrophic pattern
takes a quarter second there), so :class:`PatternCheck` runs
:func:`~tokviz.core.pretok.pretokenize.validate_pattern` in a worker and remembers each verdict. Only the
size gate (:func:`~tokviz.core.pretok.regex_bounds.check_pattern_bounds`, which reads the pattern without
compiling it) answers at once: a pattern too large to compile is refused as it is typed.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from tokviz.core.errors import PretokenizerError
from tokviz.core.pretok.pretokenize import NAMED_PATTERNS, PUBLISHED_PATTERNS, validate_pattern
from tokviz.core.pretok.regex_bounds import check_pattern_bounds
from tokviz.gui.workers.latest import LatestJob

# What :meth:`PatternCheck.problem` says while the worker has not answered yet.
CHECKING = "Checking the regex…"
# Verdicts kept (a pattern typed character by character leaves one per keystroke).
_KEPT = 64


def size_problem(pattern: str) -> str | None:
    """Why ``pattern`` is too large to compile, or None; instant (the pattern is only read)."""
    try:
        check_pattern_bounds(pattern)
    except PretokenizerError as exc:
        return str(exc)
    return None


class PatternCheck(QObject):
    """Verdicts on custom regexes, computed in a worker; ``checked`` fires when one arrives."""

    checked = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._verdicts: dict[str, str | None] = {}
        self._jobs = LatestJob(self)
        self._asked: str | None = None

    @property
    def busy(self) -> bool:
        """True while a regex is being checked."""
        return self._jobs.busy

    def problem(self, pattern: str) -> str | None:
        """Why ``pattern`` cannot be used, None when it can, :data:`CHECKING` while that is not known.

        Asking about a pattern not known yet starts its check in the background.
        """
        if pattern in NAMED_PATTERNS or pattern in PUBLISHED_PATTERNS:
            return None  # a published pattern, by its name
        if pattern in self._verdicts:
            return self._verdicts[pattern]
        refused = size_problem(pattern)
        if refused is not None:
            return refused
        if self._asked != pattern:
            self._asked = pattern
            self._jobs.submit(
                lambda: validate_pattern(pattern), lambda v: self._answer(pattern, v), self._failed
            )
        return CHECKING

    def _answer(self, pattern: str, verdict: str | None) -> None:
        if len(self._verdicts) >= _KEPT:
            self._verdicts.pop(next(iter(self._verdicts)))
        self._verdicts[pattern] = verdict
        self._asked = None
        self.checked.emit(pattern)

    def _failed(self, exc: BaseException) -> None:
        """Only a bug gets here (validate_pattern turns pattern errors into messages): let it be seen."""
        self._asked = None
        raise exc
