"""Finding where a JSON array or object ends without building it: the end the json module finds."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core.formats.json_skip import bracket_end

# Strings full of what could mislead a bracket counter: brackets, quotes, runs of backslashes.
TRICKY = st.text(alphabet=st.sampled_from('[]{}"\\,:aé€😀 '), max_size=12)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=30,
)


@pytest.mark.parametrize("block", [1, 2, 3, 7, 2**18], ids=lambda b: f"block-{b}")
@given(
    value=st.lists(VALUES, max_size=5) | st.dictionaries(TRICKY, VALUES, max_size=5),
    ascii_only=st.booleans(),
    indent=st.sampled_from([None, 2]),
)
@settings(max_examples=60, deadline=None)
def test_the_end_found_is_where_the_value_ends(
    block: int, value: object, ascii_only: bool, indent: int | None
) -> None:
    written = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    text = f'{{"merges": {written}, "vocab": ["]"]}}'
    start = text.index(":") + 2

    end = bracket_end(text, start, block)  # small blocks end inside strings and escapes

    assert end == start + len(written)
    assert json.loads(text[start:end]) == value


@pytest.mark.parametrize(
    "text",
    ['["unfinished", [1, 2]', '["a string that never ends]', "{", '["escaped quote \\"]'],
)
def test_a_value_that_never_ends_has_no_end(text: str) -> None:
    assert bracket_end(text, 0) is None
