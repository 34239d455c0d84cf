"""Render a chat template as ``transformers`` does, in a sandbox with a time and a size limit.

The environment has the facts of ``apply_chat_template``: Jinja2's immutable sandbox with
``trim_blocks`` and ``lstrip_blocks``, the ``loopcontrols`` extension (``break``/``continue``), a
``tojson`` filter that keeps non-ASCII text and takes ``indent``, and the globals
``raise_exception``, ``strftime_now``, ``dict`` and a ``namespace`` that refuses names starting
with ``_``. Templates come from downloaded folders, so they are untrusted code.

The limits are tokviz's own: a template that loops for longer than ``seconds`` stops (a trace
function checks the clock on every line of the compiled template and every call it makes, so
loops that call nothing stop too), and no string, list or output may pass ``max_chars`` (checked before ``'x' * n``,
``a ~ b``, ``center(n)`` and the like build it, and on every namespace assignment); filters that
build pieces by count (``slice``, ``batch``, ``lipsum``) take at most 100,000, as ``range`` does. Either stop is a
:class:`ChatTemplateError` saying which limit was reached.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from types import FrameType
from typing import Any

import jinja2
import jinja2.ext
from jinja2.compiler import CodeGenerator, Frame
from jinja2.sandbox import ImmutableSandboxedEnvironment

from .errors import ChatTemplateError

RENDER_SECONDS = 5.0
MAX_RENDERED_CHARS = 500_000
# The file name Jinja gives the code it compiles from a string: those frames are traced line by line.
_TEMPLATE_CODE = "<template>"
_BIG_NUMBER = re.compile(r"\d{7,}")
# Filters and string methods whose number arguments are widths of the string they build.
_WIDTH_TAKERS = frozenset(
    {"center", "ljust", "rjust", "zfill", "expandtabs", "indent", "wordwrap", "truncate"}
)
# Filters and globals whose number arguments count the pieces they build; Jinja's sandbox allows
# range() this many items, and so do these.
_COUNT_TAKERS = frozenset({"slice", "batch", "generate_lorem_ipsum"})
MAX_COUNT = 100_000


class _LimitReached(Exception):
    """Raised inside the render to stop it; turned into a :class:`ChatTemplateError` outside."""


class _Limits:
    """The clock and the size every hook of one render checks."""

    def __init__(self, seconds: float, max_chars: int) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.max_chars = max_chars

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise _LimitReached(f"the chat template ran for more than {self.seconds:g} s and was stopped")

    def too_big(self, what: str) -> _LimitReached:
        return _LimitReached(
            f"the chat template builds {what} longer than {self.max_chars:,} characters and was stopped"
        )

    def join(self, pieces: Iterable[object]) -> str:
        """``"".join`` of the pieces' text, refused before it is built when it would pass the limit."""
        texts = [piece if isinstance(piece, str) else str(piece) for piece in pieces]
        if sum(map(len, texts)) > self.max_chars:
            raise self.too_big("a string")
        return "".join(texts)

    def check_size(self, value: object) -> None:
        if isinstance(value, str | list | tuple | dict) and len(value) > self.max_chars:
            raise self.too_big("a value")

    def check_call(
        self, name: str, receiver: object, args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> None:
        """Refuse a width, a format or a replacement past the limit before ``name`` builds the string."""
        if name in _WIDTH_TAKERS or name in _COUNT_TAKERS:
            limit = MAX_COUNT if name in _COUNT_TAKERS else self.max_chars
            for value in (*args, *kwargs.values()):
                if isinstance(value, int) and not isinstance(value, bool) and abs(value) > limit:
                    raise self.too_big("a string" if limit == self.max_chars else "a sequence")
        elif name in ("format", "format_map"):
            self.check_format(receiver)
        elif name == "replace":
            self.check_replace(receiver, args)

    def check_format(self, fmt: object) -> None:
        if isinstance(fmt, str) and any(int(m.group()) > self.max_chars for m in _BIG_NUMBER.finditer(fmt)):
            raise self.too_big("a formatted string")

    def check_replace(self, value: object, args: tuple[Any, ...]) -> None:
        if (
            len(args) >= 2
            and isinstance(value, str)
            and isinstance(args[0], str)
            and isinstance(args[1], str)
        ):
            count = value.count(args[0]) if args[0] else len(value) + 1
            if len(value) + count * len(args[1]) > self.max_chars:
                raise self.too_big("a string")


_active = threading.local()


def _limits() -> _Limits:
    """The limits of the render running in this thread."""
    limits: _Limits = _active.limits
    return limits


class _Namespace(jinja2.utils.Namespace):
    """Jinja's ``namespace`` without underscore names, whose every value is checked for size."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # noqa: N805 - Jinja's own signature trick
        self, rest = args[0], args[1:]
        attrs = dict(*rest, **kwargs)
        for name, value in attrs.items():
            _check_entry(_limits(), name, value)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _check_entry(_limits(), name, value)
        jinja2.utils.Namespace.__setitem__(self, name, value)


def _check_entry(limits: _Limits, name: object, value: object) -> None:
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(f"a namespace cannot hold the name {name!r}")
    limits.check_size(value)


class _Dict:
    """The template's ``dict``: builds plain dicts and nothing else."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


def _raise_exception(message: object) -> None:
    raise jinja2.exceptions.TemplateError(str(message))


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: Any = None,
    separators: Any = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


def _bounded_filter(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def bounded(*args: Any, **kwargs: Any) -> Any:
        limits = _limits()
        limits.tick()
        # Jinja passes the context or environment first to some filters; the value follows it.
        plain = tuple(a for a in args if not isinstance(a, jinja2.runtime.Context | jinja2.Environment))
        if plain:
            limits.check_call(name, plain[0], plain[1:], kwargs)
        result = fn(*args, **kwargs)
        limits.check_size(result)
        return result

    for attribute in ("jinja_pass_arg",):  # keeps pass_context/pass_environment working
        if hasattr(fn, attribute):
            setattr(bounded, attribute, getattr(fn, attribute))
    return bounded


class _BoundedCodeGenerator(CodeGenerator):
    """Compiles ``a ~ b`` to a join that checks its length first (Jinja's own join checks nothing)."""

    def visit_Concat(self, node: jinja2.nodes.Concat, frame: Frame) -> None:
        self.write("environment.bounded_join((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


@functools.cache
def _environment() -> ImmutableSandboxedEnvironment:
    """The sandbox, built once: its hooks check the limits of the render running in their thread."""

    class BoundedSandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**", "+", "%"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            limits = _limits()
            limits.tick()
            if operator == "*":
                for seq, n in ((left, right), (right, left)):
                    if (
                        isinstance(seq, str | list | tuple)
                        and isinstance(n, int)
                        and len(seq) * n > limits.max_chars
                    ):
                        raise limits.too_big("a value")
            elif operator == "**" and isinstance(right, int) and abs(right) > 4096:
                raise limits.too_big("a number")
            elif operator == "%":
                limits.check_format(left)
            result = super().call_binop(context, operator, left, right)
            limits.check_size(result)
            return result

        def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
            limits = _limits()
            limits.tick()
            limits.check_call(getattr(__obj, "__name__", ""), getattr(__obj, "__self__", None), args, kwargs)
            result = super().call(__context, __obj, *args, **kwargs)
            limits.check_size(result)
            return result

    BoundedSandbox.code_generator_class = _BoundedCodeGenerator
    env = BoundedSandbox(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    # The compiled code joins captured blocks and macro output with environment.concat.
    env.concat = _join  # type: ignore[method-assign]
    env.bounded_join = _join  # type: ignore[attr-defined]
    env.filters["tojson"] = _tojson
    env.filters = {name: _bounded_filter(name, fn) for name, fn in env.filters.items()}
    namespace = type("namespace", (_Namespace,), {})
    env.globals.update(
        raise_exception=_raise_exception, strftime_now=_strftime_now, dict=_Dict(), namespace=namespace
    )
    return env


def _join(pieces: Iterable[object]) -> str:
    return _limits().join(pieces)


@contextmanager
def _clock_on_every_line(limits: _Limits) -> Iterator[None]:
    """Check the clock on each line the compiled template runs, and on each call it makes (in this
    thread only); a filter that loops on its own is bounded by its arguments instead.

    A tracer already in place (a debugger, coverage) is handed every event as before.
    """
    previous = sys.gettrace()

    def chained(local: Any) -> Any:
        def on_line(frame: FrameType, event: Any, arg: Any) -> Any:
            nonlocal local
            limits.tick()
            if local is not None:
                local = local(frame, event, arg)
            return on_line

        return on_line

    def on_call(frame: FrameType, event: Any, arg: Any) -> Any:
        limits.tick()
        local = previous(frame, event, arg) if previous is not None else None
        if frame.f_code.co_filename == _TEMPLATE_CODE:
            return chained(local)
        return local

    _active.limits = limits
    sys.settrace(on_call)
    try:
        yield
    finally:
        sys.settrace(previous)
        del _active.limits


@functools.lru_cache(maxsize=16)
def _compile(text: str) -> jinja2.Template:
    """The template compiled once (a panel renders the same one after every edit)."""
    try:
        return _environment().from_string(text)
    except jinja2.exceptions.TemplateSyntaxError as exc:
        raise ChatTemplateError(
            f"the chat template does not parse (line {exc.lineno}: {exc.message})"
        ) from None


def render_in_sandbox(
    text: str,
    variables: Mapping[str, Any],
    *,
    seconds: float = RENDER_SECONDS,
    max_chars: int = MAX_RENDERED_CHARS,
) -> str:
    """``text`` rendered with ``variables`` (messages, add_generation_prompt, bos_token ...), in
    this process: :func:`tokviz.core.chat.render_process.render_template` runs it in a worker
    process whose memory, CPU and time the kernel bounds, and it is the function to call.

    Raises :class:`ChatTemplateError` for a template that does not parse, calls
    ``raise_exception``, fails, or passes a limit; a :class:`MemoryError` is left to the caller
    (the worker says it in its own words).
    """
    limits = _Limits(seconds, max_chars)
    pieces: list[str] = []
    total = 0
    try:
        compiled = _compile(text)
    except RecursionError:
        raise ChatTemplateError("the chat template nests too deeply to be read") from None
    try:
        with _clock_on_every_line(limits):
            for piece in compiled.generate(**variables):
                total += len(piece)
                if total > max_chars:
                    raise limits.too_big("an output")
                pieces.append(piece)
    except _LimitReached as exc:
        raise ChatTemplateError(str(exc)) from None
    except jinja2.exceptions.TemplateError as exc:
        message = exc.message or type(exc).__name__
        raise ChatTemplateError(f"the chat template stopped: {message}") from None
    except RecursionError:
        raise ChatTemplateError("the chat template recursed too deeply") from None
    except MemoryError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure inside untrusted template code
        raise ChatTemplateError(f"the chat template failed: {type(exc).__name__}: {exc}") from None
    return "".join(pieces)


__all__ = ["MAX_RENDERED_CHARS", "RENDER_SECONDS", "render_in_sandbox"]
