"""Published chat templates (the text models ship in tokenizer_config.json) and folders built around them.

Each folder is a byte-level BPE trained offline by Hugging Face ``tokenizers`` with the model's
control tokens added as special tokens, plus a ``tokenizer_config.json`` holding the template and
the special-token strings it reads: enough for ``AutoTokenizer.from_pretrained`` to apply it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.core.made_by_others import hf_trained

CHATML = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\\nYou are a helpful assistant.<|im_end|>\\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)

QWEN25_TOOLS = """{%- if tools %}
    {{- '<|im_start|>system\\n' }}
    {%- if messages[0]['role'] == 'system' %}
        {{- messages[0]['content'] }}
    {%- else %}
        {{- 'You are Qwen, created by Alibaba Cloud. You are a helpful assistant.' }}
    {%- endif %}
    {{- "\\n\\n# Tools\\n\\nYou may call one or more functions to assist with the user query.\\n\\nYou are provided with function signatures within <tools></tools> XML tags:\\n<tools>" }}
    {%- for tool in tools %}
        {{- "\\n" }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- "\\n</tools>\\n\\nFor each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\\n<tool_call>\\n{\\"name\\": <function-name>, \\"arguments\\": <args-json-object>}\\n</tool_call><|im_end|>\\n" }}
{%- else %}
    {%- if messages[0]['role'] == 'system' %}
        {{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}
    {%- else %}
        {{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\\n' }}
    {%- endif %}
{%- endif %}
{%- for message in messages %}
    {%- if (message.role == "user") or (message.role == "system" and not loop.first) or (message.role == "assistant" and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>' + '\\n' }}
    {%- elif message.role == "assistant" %}
        {{- '<|im_start|>' + message.role }}
        {%- if message.content %}
            {{- '\\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\\n<tool_call>\\n{"name": "' }}
            {{- tool_call.name }}
            {{- '", "arguments": ' }}
            {{- tool_call.arguments | tojson }}
            {{- '}\\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\\n' }}
    {%- elif message.role == "tool" %}
        {%- if (loop.index0 == 0) or (messages[loop.index0 - 1].role != "tool") %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\\n<tool_response>\\n' }}
        {{- message.content }}
        {{- '\\n</tool_response>' }}
        {%- if loop.last or (messages[loop.index0 + 1].role != "tool") %}
            {{- '<|im_end|>\\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\\n' }}
{%- endif %}
"""

LLAMA3 = (
    "{% set loop_messages = messages %}{% for message in loop_messages %}"
    "{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n'"
    "+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}"
    "{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}"
)

MISTRAL = (
    "{{ bos_token }}{% for message in messages %}"
    "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if message['role'] == 'user' %}{{ '[INST] ' + message['content'] + ' [/INST]' }}"
    "{% elif message['role'] == 'assistant' %}{{ message['content'] + eos_token}}"
    "{% else %}{{ raise_exception('Only user and assistant roles are supported!') }}{% endif %}{% endfor %}"
)

GEMMA = (
    "{{ bos_token }}{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}"
    "{% endif %}{% for message in messages %}{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}"
    "{% if (message['role'] == 'assistant') %}{% set role = 'model' %}{% else %}{% set role = message['role'] %}"
    "{% endif %}{{ '<start_of_turn>' + role + '\\n' + message['content'] | trim + '<end_of_turn>\\n' }}"
    "{% endfor %}{% if add_generation_prompt %}{{'<start_of_turn>model\\n'}}{% endif %}"
)

PHI3 = (
    "{% for message in messages %}{% if message['role'] == 'system' %}"
    "{{'<|system|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'user' %}"
    "{{'<|user|>\\n' + message['content'] + '<|end|>\\n'}}{% elif message['role'] == 'assistant' %}"
    "{{'<|assistant|>\\n' + message['content'] + '<|end|>\\n'}}{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}"
)


# name: (template, special tokens, config's special-token strings, whether a system message is allowed)
MODELS: dict[str, tuple[str, tuple[str, ...], dict[str, str], bool]] = {
    "chatml": (CHATML, ("<|endoftext|>", "<|im_start|>", "<|im_end|>"), {"eos_token": "<|im_end|>"}, True),
    "qwen2.5": (
        QWEN25_TOOLS,
        ("<|endoftext|>", "<|im_start|>", "<|im_end|>"),
        {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
        True,
    ),
    "llama3": (
        LLAMA3,
        ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"),
        {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
        True,
    ),
    "mistral": (
        MISTRAL,
        ("<unk>", "<s>", "</s>", "[INST]", "[/INST]"),
        {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
        False,
    ),
    "gemma": (
        GEMMA,
        ("<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>"),
        {"bos_token": "<bos>", "eos_token": "<eos>", "pad_token": "<pad>"},
        False,
    ),
    "phi3": (
        PHI3,
        ("<|endoftext|>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"),
        {"eos_token": "<|endoftext|>"},
        True,
    ),
}

CORPUS = (
    "You are a helpful assistant. How many tokens does this chat cost? More than its words: the "
    "template adds its own. system user assistant model tool Tools function arguments name count "
    'the text of a message, Hello there! Bonjour, ça va? 你好 🌍 1234 {"name": "count_tokens"}\n'
) * 20


def build_folder(folder: Path, model: str, config_extra: dict[str, Any] | None = None) -> Path:
    """A ``transformers`` folder for ``model`` (a key of :data:`MODELS`): tokenizer.json + tokenizer_config.json."""
    template, specials, strings, _system = MODELS[model]
    folder.mkdir(parents=True, exist_ok=True)
    hf_trained(CORPUS, vocab_size=600, specials=specials).save(str(folder / "tokenizer.json"))
    config: dict[str, Any] = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "chat_template": template,
        **strings,
        **(config_extra or {}),
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return folder


def sample_chat(model: str) -> list[dict[str, str]]:
    """A short conversation the model's template accepts (no system message where it refuses one)."""
    chat = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "  How many tokens does this chat cost? 🌍  "},
        {"role": "assistant", "content": "More than its words: the template adds its own."},
        {"role": "user", "content": "Even when I type <|im_end|> or [INST] or <end_of_turn> myself?"},
    ]
    return chat if MODELS[model][3] else chat[1:]
