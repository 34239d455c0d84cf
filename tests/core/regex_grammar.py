"""A hypothesis grammar of regex patterns: literals, escapes, sets, groups, alternations and counted
repeats with counts up to a billion, nested as deep as hypothesis likes.

Used by tests/core/test_pattern_sizes.py, in a child process that runs under a memory limit.
"""

from __future__ import annotations

from hypothesis import strategies as st

_ATOMS = st.sampled_from(["a", "b", "xy", ".", r"\w", r"\d", r"\p{L}", r"\{", "[ab]", r"[^\s\p{N}]", "[]x]"])
_COUNTS = st.one_of(
    st.sampled_from([0, 1, 2, 3, 10, 99, 100, 1000, 10**4, 10**5, 10**6, 10**8]),
    st.integers(min_value=0, max_value=10**9),
)


@st.composite
def _quantifier(draw: st.DrawFn) -> str:
    """One of ``* + ?`` or a counted repeat ``{m}``, ``{m,n}``, ``{m,}``, ``{,n}``, maybe lazy or possessive."""
    low, high = sorted((draw(_COUNTS), draw(_COUNTS)))
    form = draw(
        st.sampled_from(["*", "+", "?", f"{{{low}}}", f"{{{low},{high}}}", f"{{{low},}}", f"{{,{high}}}"])
    )
    return form + draw(st.sampled_from(["", "", "?", "+"])) if form.startswith("{") else form


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda p: f"({p})", inner),
        st.builds(lambda p: f"(?:{p})", inner),
        st.builds(lambda a, b: f"{a}|{b}", inner, inner),
        st.builds(lambda a, b: a + b, inner, inner),
        st.builds(lambda p, q: f"(?:{p}){q}", inner, _quantifier()),
        st.builds(lambda p, q: p + q, _ATOMS, _quantifier()),
    )


patterns = st.recursive(_ATOMS, _extend, max_leaves=12)
