"""A chat template renders in a worker process the kernel bounds: memory, CPU and time hold during the work.

The sandbox's own checks come before or after a Python operation; these templates do their work
inside one (a format of a billion spaces, a join of gigabytes, a C-level power of big integers, a
parser recursing on deep brackets). Each runs through ``python -m tokviz chat`` in a child process
whose address space is capped at what the command's imports take plus 300 MB, and must end in one
line within 10 s. The worker is kept between renders and replaced after a limit.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from tokviz.core.chat import ChatTemplate, ChatTemplateError, render_chat, render_process

from ..cli.helpers import address_cap, tokviz_capped

SECONDS = 10
MESSAGES = [{"role": "user", "content": "hi"}]


@pytest.fixture(scope="module")
def cap() -> int:
    return address_cap(
        "import tokviz.cli.chat, tokviz.core.formats.registry\ntokviz.core.formats.registry.load_tokenizer('gpt2')"
    )


def chat_capped(cap: int, template: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    done = tokviz_capped(cap, "chat", "gpt2", "--template-file", str(template), timeout=120)
    return done, time.perf_counter() - started


@pytest.mark.slow
@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("{{ '%*s' % (900000000, 'y') }}", "used more than 256 MB"),
        ("{{ '{:^{}}'.format('z', 800000000) }}", "used more than 256 MB"),
        ("{{ '%-*d' % (700000000, 7) }}", "used more than 256 MB"),
        ("{{ range(90000) | join('b' * 30000) }}", "used more than 256 MB"),
        ("{{ messages | tojson(indent=700000000) }}", "used more than 256 MB"),
        # Each power is a few seconds of C-level arithmetic; twenty are minutes on any machine.
        ("{% for i in range(20) %}{{ ((3 ** 4000) ** 4000) % 7 }}{% endfor %}", "ran for more than 5 s"),
        ("{{ " + "(" * 3000 + "1" + ")" * 3000 + " }}", "nests too deeply"),
        ("{{ " + "{'a': " * 2500 + "1" + "}" * 2500 + " }}", "nests too deeply"),
    ],
)
def test_work_inside_one_operation_is_stopped_by_the_kernel(cap, tmp_path, template, says):
    path = tmp_path / "hostile.jinja"
    path.write_text(template, encoding="utf-8")
    done, seconds = chat_capped(cap, path)
    assert done.returncode == 1, done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tokviz: error: the chat template"), done.stderr[-2000:]
    assert says in lines[0]
    assert seconds < SECONDS


def render(template: str) -> str:
    return render_chat(ChatTemplate(template, "default", "test"), MESSAGES, seconds=2)


def test_the_worker_is_kept_between_renders_and_replaced_after_a_limit():
    assert render("{{ messages[0].content }}") == "hi"
    first = render_process.render_process_id()
    assert first is not None and render("{{ messages[0].role }}") == "user"
    assert render_process.render_process_id() == first  # one process for many renders
    with pytest.raises(ChatTemplateError, match="used more than 256 MB"):
        render("{{ '%*s' % (900000000, 'y') }}")
    assert render("{{ messages | length }}") == "1"
    assert render_process.render_process_id() not in (None, first)
    with pytest.raises(ProcessLookupError):
        os.kill(first, 0)  # the worker that reached the limit is gone


def test_a_worker_killed_at_the_wall_clock_is_replaced():
    with pytest.raises(ChatTemplateError, match="ran for more than 2 s"):
        render("{{ ((3 ** 4000) ** 4000) % 7 }}")
    assert render("{{ 'still ' ~ messages[0].content }}") == "still hi"


def test_text_that_is_not_utf8_comes_back_exactly():
    assert render("{{ messages[0].content }}\udcff") == "hi\udcff"
