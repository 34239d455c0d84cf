"""Quirks of Qt that tokviz works around rather than avoids by writing different code."""

from __future__ import annotations


def quiet_font_database() -> None:
    """Silence Qt's font-database warnings on the terminal.

    With colour-emoji and CJK fallback fonts, Qt prints "qt.text.font.db: OpenType support missing
    for ..." for every script a fallback font cannot shape (reported: about 25 lines after a 1 MB
    paste). The text is drawn all the same; the lines only alarm users, and there is nothing to do.
    """
    from PySide6.QtCore import QLoggingCategory

    QLoggingCategory.setFilterRules("qt.text.font.db.warning=false")
