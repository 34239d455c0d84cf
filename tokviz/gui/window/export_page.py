"""File ▸ Export web page…: the editor's text in every token view, as a page to send to students.

The page is self-contained HTML (no script, no external file): coloured token boxes per view, the
counts in each header, hover titles with id and bytes, and marks where a view cuts differently
from the first. It is what ``tokviz.show`` draws in a notebook and ``tokviz render -o x.html`` writes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from tokviz.core.bpe.tokenizer import Tokenizer
from tokviz.core.errors import TokvizError
from tokviz.core.io.outputs import Output, write_outputs
from tokviz.core.show.token_html import tokens_page
from tokviz.gui.widgets import file_dialogs

PAGE_FILTER = "Web page (*.html)"


class PageExporter(QObject):
    """Writes the current text and views as a web page; errors go to ``report`` as one line.

    It belongs to its ``action`` (File ▸ Export web page…), which triggers it.
    """

    def __init__(
        self,
        action: QAction,
        text: Callable[[], str],
        views: Callable[[], Sequence[tuple[str, Tokenizer | None]]],
        show_ids: Callable[[], bool],
        report: Callable[[str], None],
    ) -> None:
        super().__init__(action)
        self.action = action
        self.text = text
        self.views = views
        self.show_ids = show_ids
        self.report = report
        action.setToolTip(
            "Save the text in every token view as a web page (hover a token for its id and bytes)"
        )
        action.triggered.connect(self.choose_and_write)

    def write(self, path: str | Path) -> Path:
        """Write the page to ``path`` (all or nothing); raises TokvizError when a view is still loading."""
        named = list(self.views())
        waiting = [name for name, tok in named if tok is None]
        if waiting:
            raise TokvizError(f"{', '.join(waiting)} is still loading; export the page when it is shown")
        if not named:
            raise TokvizError("there is no token view to export")
        out = Path(path)
        if out.suffix.lower() not in (".html", ".htm"):
            out = out.with_name(out.name + ".html")
        ready = [(name, tok) for name, tok in named if tok is not None]
        title = f"tokviz: {', '.join(name for name, _ in ready)}"
        page = tokens_page(self.text(), ready, title=title, show_ids=self.show_ids())
        write_outputs([(Output.file(out, "the page"), page.encode("utf-8"))])
        self.report(f"Saved the token views as {out}")
        return out

    def choose_and_write(self) -> Path | None:
        """Ask where to save, then write; a failure is reported, never raised into Qt."""
        path, _ = file_dialogs.get_save_file_name(None, "Export web page", "tokens.html", PAGE_FILTER)
        if not path:
            return None
        try:
            return self.write(path)
        except (TokvizError, OSError) as exc:
            self.report(f"Could not save the page: {exc}")
            return None
