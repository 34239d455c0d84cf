"""Tokenizer files that come back after a restart: opened files and trained models saved to a file.

The settings keep their paths (never copies), most recent first, with the label the pickers showed
and the options the loader was given (a ``.tiktoken`` file's pattern and special tokens). On the
next start each one that still exists is offered again in every picker, loaded only when a view or
picker first asks for it; one whose file is gone is forgotten quietly, and the window says so in
its status bar. File ▸ Open recent lists them below the texts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.settings import REMEMBERED_TOKENIZERS, Settings

MAX_REMEMBERED = 12


@dataclass(frozen=True)
class RememberedTokenizer:
    """One remembered tokenizer file: its path, the label the pickers show, the loader's options."""

    path: str
    label: str
    options: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """The settings' form: one JSON object."""
        return json.dumps(
            {"path": self.path, "label": self.label, "options": self.options}, ensure_ascii=False
        )

    @classmethod
    def from_json(cls, text: str) -> RememberedTokenizer | None:
        """Read one back; None for a damaged or hand-edited entry (it is then left out)."""
        try:
            raw = json.loads(text)
        except ValueError:
            return None
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str) or not raw["path"]:
            return None
        label = raw.get("label")
        options = raw.get("options")
        options = {
            k: v
            for k, v in (options if isinstance(options, dict) else {}).items()
            if (k == "pattern" and isinstance(v, str))
            or (k == "special_tokens" and isinstance(v, list) and all(isinstance(s, str) for s in v))
        }
        return cls(
            raw["path"], label if isinstance(label, str) and label else Path(raw["path"]).name, options
        )


def read_remembered(settings: Settings) -> list[RememberedTokenizer]:
    """The remembered tokenizers, most recent first (damaged entries left out)."""
    items = (RememberedTokenizer.from_json(t) for t in settings.get(REMEMBERED_TOKENIZERS))
    return [item for item in items if item is not None]


def write_remembered(settings: Settings, items: list[RememberedTokenizer]) -> None:
    """Store ``items`` (at most :data:`MAX_REMEMBERED`, one per resolved path, the first kept)."""
    seen: set[str] = set()
    unique = []
    for item in items:
        where = str(Path(item.path).resolve())
        if where not in seen:
            seen.add(where)
            unique.append(item)
    settings.set(REMEMBERED_TOKENIZERS, [item.to_json() for item in unique[:MAX_REMEMBERED]])


class RememberedTokenizers(QObject):
    """Keeps the remembered list in step with the registry; ``changed()`` when the list changes."""

    changed = Signal()

    def __init__(
        self, registry: TokenizerRegistryModel, settings: Settings, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.registry = registry
        self.settings = settings
        registry.fileOpened.connect(self._remember)

    def items(self) -> list[RememberedTokenizer]:
        """The remembered tokenizers, most recent first."""
        return read_remembered(self.settings)

    def restore(self) -> list[RememberedTokenizer]:
        """Offer every remembered file that still exists in the pickers; forget and return the others."""
        kept: list[RememberedTokenizer] = []
        missing: list[RememberedTokenizer] = []
        for item in self.items():
            (kept if Path(item.path).exists() else missing).append(item)
        for item in kept:
            self.registry.add_file_entry(item.path, item.label, item.options)
        if missing:
            write_remembered(self.settings, kept)
            self.changed.emit()
        return missing

    def key_of(self, item: RememberedTokenizer) -> str:
        """The registry key of a remembered file (offered again if it had been forgotten meanwhile)."""
        return self.registry.add_file_entry(item.path, item.label, item.options)

    def _remember(self, key: str) -> None:
        entry = self.registry.entry(key)
        if entry is None or not entry.source:
            return
        item = RememberedTokenizer(entry.source, entry.label, dict(entry.options))
        write_remembered(self.settings, [item, *self.items()])
        self.changed.emit()


def forgotten_message(missing: list[RememberedTokenizer]) -> str:
    """The status line for remembered files that are gone: "Forgot 2 tokenizer files that no longer
    exist: a.json, b.tiktoken"."""
    names = ", ".join(Path(m.path).name for m in missing[:3]) + (", …" if len(missing) > 3 else "")
    n = len(missing)
    return f"Forgot {n} tokenizer {'file' if n == 1 else 'files'} that no longer {'exists' if n == 1 else 'exist'}: {names}"
