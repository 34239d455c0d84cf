"""The chat-template lens: rendered chats tokenize to the ids ``apply_chat_template`` gives, each token has a source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.core.chat_templates import CHATML, MODELS, QWEN25_TOOLS, build_folder, sample_chat
from tokviz.core.chat import (
    SAMPLE_TOOLS,
    ChatMessagesError,
    ChatTemplate,
    ChatTemplateError,
    chat_lens,
    find_chat_template,
    lens_of_rendered,
    parse_conversation,
    render_chat,
)
from tokviz.core.errors import TokvizError
from tokviz.core.formats.registry import builtin_tokenizer


def library_ids(folder: Path, messages, **kwargs) -> list[int]:
    """``AutoTokenizer.apply_chat_template(..., tokenize=True)``'s ids for ``messages``."""
    transformers = pytest.importorskip("transformers")  # here: collecting the suite need not import it
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
    out = tokenizer.apply_chat_template(messages, tokenize=True, **kwargs)
    return list(out["input_ids"] if hasattr(out, "keys") else out)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("chat")
    return {model: build_folder(root / model, model) for model in MODELS}


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("add_generation_prompt", [False, True])
def test_the_chat_tokenizes_to_the_ids_apply_chat_template_gives(folders, model, add_generation_prompt):
    messages = sample_chat(model)
    lens = chat_lens(folders[model], messages, add_generation_prompt=add_generation_prompt)
    assert lens.ids == library_ids(folders[model], messages, add_generation_prompt=add_generation_prompt)
    assert lens.total == len(lens.ids)
    assert lens.template_tokens + sum(m.tokens for m in lens.messages) + lens.straddling_tokens == lens.total


@pytest.mark.parametrize("model", list(MODELS))
def test_each_message_owns_the_tokens_of_its_own_text(folders, model):
    messages = sample_chat(model)
    lens = chat_lens(folders[model], messages)
    assert lens.attribution == "sentinel"
    for i, message in enumerate(messages):
        own = "".join(t.text for t in lens.tokens if t.message == i)
        shared = "".join(t.text for t in lens.tokens if t.straddles and message["content"].strip() in t.text)
        assert message["content"].strip().startswith(own.strip()) or shared, (i, own)
    template_text = "".join(t.text for t in lens.tokens if t.source == "template")
    assert "How many tokens" not in template_text


def test_tools_are_rendered_and_counted_with_the_template(folders):
    messages = [
        *sample_chat("qwen2.5"),
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"type": "function", "function": {"name": "count_tokens", "arguments": {"text": "héllo"}}}
            ],
        },
        {"role": "tool", "content": "2"},
    ]
    lens = chat_lens(folders["qwen2.5"], messages, tools=list(SAMPLE_TOOLS), add_generation_prompt=True)
    assert lens.ids == library_ids(
        folders["qwen2.5"], messages, tools=list(SAMPLE_TOOLS), add_generation_prompt=True
    )
    assert '"name": "count_tokens"' in lens.rendered
    assert "héllo" in lens.rendered  # tojson keeps non-ASCII text
    assert lens.messages[-1].tokens >= 1


def test_named_templates_pick_tool_use_when_tools_are_given(tmp_path):
    folder = build_folder(
        tmp_path / "named",
        "chatml",
        {
            "chat_template": [
                {"name": "default", "template": CHATML},
                {"name": "tool_use", "template": QWEN25_TOOLS},
            ]
        },
    )
    messages = sample_chat("chatml")
    assert chat_lens(folder, messages).template.name == "default"
    with_tools = chat_lens(folder, messages, tools=list(SAMPLE_TOOLS))
    assert with_tools.template.name == "tool_use"
    assert with_tools.ids == library_ids(folder, messages, tools=list(SAMPLE_TOOLS))
    assert find_chat_template(folder).names == ("default", "tool_use")


def test_a_chat_template_jinja_file_wins_over_the_config(tmp_path):
    folder = build_folder(tmp_path / "jinja", "chatml", {"chat_template": "not this one"})
    (folder / "chat_template.jinja").write_text(QWEN25_TOOLS, encoding="utf-8")
    (folder / "additional_chat_templates").mkdir()
    (folder / "additional_chat_templates" / "plain.jinja").write_text(CHATML, encoding="utf-8")
    lens = chat_lens(folder, sample_chat("chatml"))
    assert lens.template.source == "chat_template.jinja"
    assert lens.ids == library_ids(folder, sample_chat("chatml"))
    assert find_chat_template(folder, "plain").source == "additional_chat_templates/plain.jinja"


def test_the_legacy_chat_template_json_is_read(tmp_path):
    folder = build_folder(tmp_path / "legacy", "chatml", {"chat_template": None})
    (folder / "chat_template.json").write_text(json.dumps({"chat_template": CHATML}), encoding="utf-8")
    assert find_chat_template(folder).source == "chat_template.json"


def test_a_special_token_typed_in_a_message_is_flagged_with_its_id(folders):
    messages = [{"role": "user", "content": "Please stop here <|im_end|> and go on"}]
    lens = chat_lens(folders["chatml"], messages)
    [injection] = lens.injections
    assert injection.text == "<|im_end|>"
    assert injection.offset == messages[0]["content"].index("<|im_end|>")
    assert injection.parsed
    assert injection.token_id in [t.id for t in lens.tokens if t.message == 0]
    assert "tokenizers library" in injection.library
    # Read as text, the message's special string costs several ordinary tokens instead of one.
    assert lens.ids_as_text is not None and len(lens.ids_as_text) > lens.total
    assert "becomes special token" in lens.injection_lines()[0]


def test_tiktoken_encodings_say_that_encode_would_raise(tmp_path):
    template = ChatTemplate(
        "{% for m in messages %}<|endoftext|>{{ m['content'] }}{% endfor %}", "default", "test"
    )
    lens = lens_of_rendered(
        builtin_tokenizer("gpt2"), template, [{"role": "user", "content": "hi<|endoftext|>"}]
    )
    [injection] = lens.injections
    assert injection.token_id == 50256 and injection.parsed
    assert "raises" in injection.library and "allowed_special" in injection.library
    assert (
        lens.ids_as_text is not None and lens.ids_as_text[0] == 50256 and lens.ids_as_text.count(50256) == 1
    )


def test_a_token_across_a_template_and_message_boundary_straddles():
    template = ChatTemplate("{% for m in messages %}{{ 'He' + m['content'] }}{% endfor %}", "default", "test")
    lens = lens_of_rendered(builtin_tokenizer("gpt2"), template, [{"role": "user", "content": "llo world"}])
    assert [t.text for t in lens.tokens] == ["Hello", " world"]
    assert lens.tokens[0].straddles and lens.tokens[0].source == "straddles"
    assert lens.tokens[1].message == 0
    assert lens.messages[0].tokens == 1 and lens.messages[0].straddling == 1


def test_a_template_that_splits_the_text_itself_is_attributed_by_searching():
    template = ChatTemplate(
        "{% for m in messages %}[{{ m['content'].split('|')[-1] }}]{% endfor %}", "default", "test"
    )
    lens = lens_of_rendered(builtin_tokenizer("gpt2"), template, [{"role": "user", "content": "a|hello"}])
    assert lens.rendered == "[hello]"
    assert lens.attribution == "search"
    assert lens.notes


def test_the_template_s_own_refusal_is_the_error(folders):
    with pytest.raises(ChatTemplateError, match="Conversation roles must alternate"):
        chat_lens(folders["mistral"], [{"role": "assistant", "content": "first"}])


@pytest.mark.parametrize(
    ("template", "says"),
    [
        (
            "{% for a in 'x' * 1000 %}{% for b in 'y' * 1000 %}{% for c in 'z' * 1000 %}{% endfor %}{% endfor %}{% endfor %}",
            "ran for more than",
        ),
        ("{{ 'x' * 1000000000 }}", "longer than"),
        ("{{ 'x' | center(1000000000) }}", "longer than"),
        ("{{ 'x'.ljust(1000000000) }}", "longer than"),
        (
            "{% set ns = namespace(s='xxxxxxxxxx') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
            "longer than",
        ),
        ("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}", "longer than"),
        ("{{ '%1000000000s' % 'x' }}", "longer than"),
        ("{% set s = 'x' * 3000000 %}{{ s ~ s ~ s }}", "longer than"),
        ("{% set s = 'x' * 3000000 %}{% set b %}{{ s }}{{ s }}{% endset %}{{ b | length }}", "longer than"),
        ("{{ messages | slice(1000000000) | list }}", "longer than"),
        ("{{ lipsum(n=1000000000) }}", "longer than"),
        ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursed too deeply|ran for more than"),
        ("{% for m in messages %}", "does not parse"),
        ("{{ messages.__class__.__mro__ }}", "stopped"),
        ("{% set ns = namespace() %}{% set ns._x = 1 %}", "cannot hold"),
        ("{{ 1 / 0 }}", "ZeroDivisionError"),
    ],
)
def test_a_hostile_or_broken_template_stops_with_a_clear_error(template, says):
    with pytest.raises(ChatTemplateError, match=says) as caught:
        render_chat(
            ChatTemplate(template, "default", "test"), [{"role": "user", "content": "hi"}], seconds=0.3
        )
    assert isinstance(caught.value, TokvizError)
    assert "\n" not in str(caught.value)


def test_the_environment_has_transformers_facts():
    template = ChatTemplate(
        "{{ messages | tojson(indent=1) }}|{% for m in messages %}{% if loop.first %}{% continue %}{% endif %}"
        "{{ m.content }}{% break %}{% endfor %}|{{ strftime_now('%Y') | length }}|{{ dict(a=1) }}|{{ bos_token }}",
        "default",
        "test",
        variables={"bos_token": "<s>"},
    )
    out = render_chat(
        template,
        [{"role": "user", "content": "é"}, {"role": "user", "content": "b"}, {"role": "x", "content": "c"}],
    )
    assert out.startswith('[\n {\n  "role": "user",\n  "content": "é"')
    assert out.endswith("|b|4|{'a': 1}|<s>")


def test_a_folder_without_a_template_says_where_it_looked(tmp_path):
    build_folder(tmp_path / "none", "chatml", {"chat_template": None})
    with pytest.raises(ChatTemplateError, match="chat_template.jinja"):
        find_chat_template(tmp_path / "none")


def test_several_templates_without_a_default_must_be_named(tmp_path):
    folder = build_folder(
        tmp_path / "two",
        "chatml",
        {"chat_template": [{"name": "a", "template": "A"}, {"name": "b", "template": "B"}]},
    )
    with pytest.raises(ChatTemplateError, match="choose one of a, b"):
        find_chat_template(folder)
    assert find_chat_template(folder, "b").text == "B"
    with pytest.raises(ChatTemplateError, match="no chat template named 'c'"):
        find_chat_template(folder, "c")


@pytest.mark.parametrize(
    ("doc", "says"),
    [
        ("hello", "list of"),
        ([{"content": "x"}], "message 1 has no role"),
        ([{"role": "user", "content": 3}], "content is a string"),
        ({"chat": []}, "'messages' list"),
        ({"messages": [], "tools": {}}, "'tools' is a list"),
    ],
)
def test_bad_messages_are_refused_in_one_line(doc, says):
    with pytest.raises(ChatMessagesError, match=says):
        parse_conversation(doc)


def test_outputs_are_a_table_json_markdown_and_escaped_html(folders):
    lens = chat_lens(folders["chatml"], [{"role": "user", "content": "<script> <|im_end|>"}])
    doc = json.loads(lens.to_json())
    assert doc["total"] == lens.total and doc["injections"][0]["text"] == "<|im_end|>"
    assert doc["total_with_message_specials_as_text"] > lens.total
    assert lens.to_markdown().splitlines()[0] == "| source | role | characters | tokens | straddling |"
    html = lens._repr_html_()
    assert "<table" in html and "&lt;|im_end|&gt;" in html and "<script>" not in html


def test_a_notebook_shows_the_rendered_chat_as_tokens_grey_where_the_template_wrote_them(folders):
    lens = chat_lens(folders["chatml"], [{"role": "user", "content": "<b>hi</b> <|im_end|>"}])
    html = lens._repr_html_()
    assert html.count('class="tokviz-chat-tok ') == lens.total
    assert html.count('class="tokviz-chat-tok tokviz-chat-template"') == lens.template_tokens
    assert html.count('class="tokviz-chat-tok tokviz-chat-injected"') == 1  # the typed <|im_end|>
    assert 'title="id ' in html and "message 1" in html
    assert "<b>" not in html and "&lt;" in html  # the message's markup is shown as text
    assert html.index("tokviz-chat-tok") < html.index("<table")


@pytest.mark.parametrize("model", ["chatml", "phi3", "llama3"])
def test_specials_read_as_text_match_transformers_sanitized_ids(folders, model):
    messages = [*sample_chat(model), {"role": "user", "content": "a<|end|>b <|eot_id|> <|im_end|>"}]
    lens = chat_lens(folders[model], messages)
    assert lens.ids_as_text is not None
    assert list(lens.ids_as_text) == library_ids(folders[model], messages, sanitize_control_tokens=True)


def test_the_bundled_sample_template_serves_any_tokenizer():
    from tokviz.core.chat import sample_template

    template = sample_template()
    lens = chat_lens("cl100k", sample_chat("chatml"), template=template, add_generation_prompt=True)
    assert lens.rendered.startswith("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n")
    assert lens.rendered.endswith("<|im_start|>assistant\n")
    assert lens.template.source == "chatml.jinja"


def test_text_parts_of_a_message_are_its_own_text():
    template = ChatTemplate(
        "{% for m in messages %}<{{ m.role }}>{% for part in m.content %}{{ part.text }}|{% endfor %}{% endfor %}",
        "default",
        "test",
    )
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Hello"},
                {"type": "image"},
                {"type": "text", "text": " world"},
            ],
        }
    ]
    lens = lens_of_rendered(builtin_tokenizer("gpt2"), template, messages)
    assert lens.rendered == "<user>Hello|| world|"  # the image part has no text
    assert lens.attribution == "sentinel"
    assert "".join(t.text for t in lens.tokens if t.message == 0) == "Hello world"
    assert lens.messages[0].characters == len("Hello world")
