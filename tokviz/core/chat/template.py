"""Where a tokenizer folder keeps its chat template, and the values a template may read besides the messages.

``transformers`` looks in three places, later ones winning: ``tokenizer_config.json``'s
``chat_template`` (a string, or a list of ``{"name", "template"}`` objects), the legacy
processor file ``chat_template.json`` (``{"chat_template": ...}``), and ``chat_template.jinja``
with more named templates in ``additional_chat_templates/NAME.jinja``. Several templates are
chosen by name: ``tool_use`` when tools are given and it exists, else ``default``.

The template also reads the folder's special-token strings (``bos_token``, ``eos_token`` ...), as
``transformers`` passes its ``special_tokens_map`` to the renderer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..formats import read_json
from ..io.filekind import ReadProblem, read_regular_file
from .errors import ChatTemplateError

CONFIG_FILE = "tokenizer_config.json"
LEGACY_FILE = "chat_template.json"
JINJA_FILE = "chat_template.jinja"
EXTRA_DIR = "additional_chat_templates"
# A template is code of a few kilobytes; a megabyte is far past any published one.
TEMPLATE_CAP = 1 * 2**20
CONFIG_CAP = 64 * 2**20
SPECIAL_KEYS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")


@dataclass(frozen=True)
class ChatTemplate:
    """One template's text, its name (``default`` when it is the only one) and the file it came from.

    ``names`` lists every template the folder offers; ``variables`` are the special-token strings
    the template can read (``{"bos_token": "<s>", ...}``).
    """

    text: str
    name: str
    source: str
    names: tuple[str, ...] = ("default",)
    variables: Mapping[str, Any] = field(default_factory=dict)


def _read_template_file(path: Path) -> str:
    try:
        data = read_regular_file(path, TEMPLATE_CAP)
    except ReadProblem as exc:
        raise ChatTemplateError(f"{path} {exc.reason}; a chat template must be a regular file") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ChatTemplateError(f"{path}: the chat template is not UTF-8 (byte {exc.start})") from None


def _named_templates(value: object, where: str) -> dict[str, str]:
    """``chat_template`` as ``{name: text}``: a string is ``default``; a list names each template."""
    if isinstance(value, str):
        return {"default": value}
    if isinstance(value, list):
        out: dict[str, str] = {}
        for entry in value:
            if not (
                isinstance(entry, Mapping)
                and isinstance(entry.get("name"), str)
                and isinstance(entry.get("template"), str)
            ):
                raise ChatTemplateError(
                    f"{where}: chat_template as a list holds objects with a string name and template"
                )
            out[entry["name"]] = entry["template"]
        return out
    raise ChatTemplateError(f"{where}: chat_template is a string or a list of named templates")


def _config(folder: Path) -> dict[str, Any]:
    path = folder / CONFIG_FILE
    if not path.is_file():
        return {}
    config = read_json(path, ChatTemplateError, CONFIG_CAP)
    if not isinstance(config, dict):
        raise ChatTemplateError(f"{path}: expected a JSON object")
    return config


def _all_templates(folder: Path, config: Mapping[str, Any]) -> tuple[dict[str, str], dict[str, str]]:
    """Every template the folder offers ``{name: text}``, and the file each came from."""
    templates: dict[str, str] = {}
    sources: dict[str, str] = {}

    def take(found: Mapping[str, str], source: str) -> None:
        templates.update(found)
        sources.update(dict.fromkeys(found, source))

    if config.get("chat_template") is not None:
        take(_named_templates(config["chat_template"], CONFIG_FILE), CONFIG_FILE)
    legacy = folder / LEGACY_FILE
    if legacy.is_file():
        doc = read_json(legacy, ChatTemplateError, CONFIG_CAP)
        if not isinstance(doc, Mapping) or "chat_template" not in doc:
            raise ChatTemplateError(f"{legacy}: expected an object with a chat_template")
        take(_named_templates(doc["chat_template"], LEGACY_FILE), LEGACY_FILE)
    files: dict[str, str] = {}
    if (folder / JINJA_FILE).is_file():
        files["default"] = _read_template_file(folder / JINJA_FILE)
        sources["default"] = JINJA_FILE
    extra = folder / EXTRA_DIR
    if extra.is_dir():
        for path in sorted(extra.glob("*.jinja")):
            files[path.stem] = _read_template_file(path)
            sources[path.stem] = f"{EXTRA_DIR}/{path.name}"
    if files:  # the template files replace what the config says, as transformers reads them
        templates = files
    return templates, sources


def _token_text(value: object) -> str | None:
    """A special token's text: a string, or an AddedToken saved as ``{"content": ...}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping) and isinstance(value.get("content"), str):
        return str(value["content"])
    return None


def template_variables(folder: Path, config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The special-token strings a template reads (``bos_token`` ...), from the folder's config files."""
    config = _config(folder) if config is None else config
    side = folder / "special_tokens_map.json"
    given: dict[str, Any] = {}
    if side.is_file():
        doc = read_json(side, ChatTemplateError, CONFIG_CAP)
        if isinstance(doc, Mapping):
            given.update(doc)
    given.update({k: v for k, v in config.items() if k in SPECIAL_KEYS or k == "additional_special_tokens"})
    out: dict[str, Any] = {}
    for key in SPECIAL_KEYS:
        text = _token_text(given.get(key))
        if text is not None:
            out[key] = text
    extra = given.get("additional_special_tokens")
    if isinstance(extra, list):
        out["additional_special_tokens"] = [t for t in map(_token_text, extra) if t is not None]
    return out


def read_template_file(path: str | Path, variables: Mapping[str, Any] | None = None) -> ChatTemplate:
    """A template from a ``.jinja`` file of its own (for a tokenizer without one, or to try another)."""
    path = Path(path)
    return ChatTemplate(_read_template_file(path), path.stem, path.name, (path.stem,), dict(variables or {}))


def sample_template() -> ChatTemplate:
    """tokviz's bundled ChatML template (``<|im_start|>role ... <|im_end|>``), for tokenizers that ship none."""
    from ..io.resources import resource_path

    return read_template_file(resource_path("chat", "chatml.jinja"))


def find_chat_template(folder: str | Path, name: str | None = None, *, tools: bool = False) -> ChatTemplate:
    """The chat template of a ``transformers`` folder (or of the folder a ``tokenizer.json`` is in).

    ``name`` picks one of several templates; without it ``tool_use`` is taken when ``tools`` and
    the folder has it, else ``default``. Raises :class:`ChatTemplateError` when there is none.
    """
    path = Path(folder)
    folder_path = path.parent if path.is_file() else path
    if not folder_path.is_dir():
        raise ChatTemplateError(f"{folder}: not a folder or a file in one")
    config = _config(folder_path)
    templates, sources = _all_templates(folder_path, config)
    if not templates:
        raise ChatTemplateError(
            f"{folder_path} has no chat template: looked for chat_template in {CONFIG_FILE}, "
            f"{LEGACY_FILE} and {JINJA_FILE}"
        )
    names = tuple(templates)
    if name is None:
        if tools and "tool_use" in templates:
            name = "tool_use"
        elif "default" in templates:
            name = "default"
        elif len(templates) == 1:
            name = names[0]
        else:
            raise ChatTemplateError(
                f"{folder_path} has several chat templates and none is named default; choose one of "
                + ", ".join(sorted(names))
            )
    if name not in templates:
        raise ChatTemplateError(
            f"{folder_path} has no chat template named {name!r}; it has " + ", ".join(sorted(names))
        )
    return ChatTemplate(templates[name], name, sources[name], names, template_variables(folder_path, config))
