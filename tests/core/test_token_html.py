"""Token views as HTML for notebooks and pages: exact ids, honest marks, escaped text."""

from __future__ import annotations

import re

import pytest

import tokviz
from tokviz.core.formats.registry import byte_tokenizer, load_tokenizer
from tokviz.core.show.svg_chart import bar_chart_svg, line_chart_svg, nice_ticks
from tokviz.core.show.token_html import MAX_HTML_CHARS, TokenDisplay, tokens_html, tokens_page

HELLO = "Hello, 🌍! 你好!"
TITLE = re.compile(r'title="id (\d+) · bytes ([0-9A-F ]+) · at bytes (\d+)-(\d+)')


def test_show_draws_each_tokenizer_with_the_reference_libraries_ids(gpt2_tiktoken, o200k_tiktoken):
    display = tokviz.show(HELLO, ["gpt2", "o200k"])
    gpt2_row, o200k_row = display.rows
    assert [t.id for t in gpt2_row.tokens] == gpt2_tiktoken.encode(HELLO)
    assert [t.id for t in o200k_row.tokens] == o200k_tiktoken.encode(HELLO)
    assert (gpt2_row.n_bytes, len(gpt2_row.tokens)) == (20, 12)
    assert len(o200k_row.tokens) == 8


def test_the_header_shows_the_counts_and_each_box_titles_its_id_and_bytes(gpt2_tiktoken):
    page = tokviz.show(HELLO, "gpt2")._repr_html_()
    assert "13 characters · 20 bytes · 12 tokens · 1.67 bytes/token" in page
    titles = TITLE.findall(page)
    assert [int(i) for i, *_ in titles] == gpt2_tiktoken.encode(HELLO)
    emoji_head = next(t for t in titles if t[1] == "20 F0 9F")
    assert (emoji_head[2], emoji_head[3]) == ("6", "9")


def test_a_repeated_token_titles_each_box_with_its_own_offsets_and_the_same_rank(gpt2_tiktoken):
    page = tokens_html("the cat the cat the", [("GPT-2", load_tokenizer("gpt2"))])
    titles = TITLE.findall(page)
    assert [int(i) for i, *_ in titles] == gpt2_tiktoken.encode("the cat the cat the")
    assert [(int(a), int(b)) for *_, a, b in titles] == [(0, 3), (3, 7), (7, 11), (11, 15), (15, 19)]
    ranks = re.findall(r"at bytes \d+-\d+ · merge rank (\d+)", page)
    assert len(ranks) == 5 and ranks[1] == ranks[3] and ranks[2] == ranks[4]


def test_a_token_is_marked_when_the_first_row_does_not_cut_the_same_bytes_as_one_token():
    rows = TokenDisplay(" brown", [("bytes", byte_tokenizer()), ("o200k", load_tokenizer("o200k"))]).rows
    (brown,) = rows[1].tokens
    assert brown.data == b" brown" and brown.differs  # starts and ends on a byte boundary, still differs
    assert not any(t.differs for t in rows[0].tokens)


def test_tokens_the_first_row_shares_are_not_marked():
    rows = tokviz.show("the quick brown fox", ["gpt2", "o200k"]).rows
    assert [t.data for t in rows[1].tokens] == [b"the", b" quick", b" brown", b" fox"]
    assert not any(t.differs for t in rows[1].tokens)


def test_text_that_looks_like_markup_is_shown_as_text():
    page = tokens_page('<script>alert(1)</script> & "q"', [("GPT-2", load_tokenizer("gpt2"))])
    assert "<script" not in page and "</script" not in page and "&lt;" in page
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page


def test_a_newline_is_a_visible_mark_and_a_line_break():
    page = tokens_html("a\nb", [("GPT-2", load_tokenizer("gpt2"))], whitespace=False)
    assert "↵</span><br>" in page


def test_ids_can_be_written_under_each_token():
    page = tokviz.show("the cat", "gpt2", show_ids=True)._repr_html_()
    assert '<span class="tokviz-id">1169</span>' in page


def test_a_very_long_text_is_cut_and_the_header_says_so():
    text = "ab " * (MAX_HTML_CHARS // 3 + 10)
    page = tokens_html(text, [("bytes", byte_tokenizer())])
    assert f"(first {MAX_HTML_CHARS:,} of {len(text):,} characters)" in page


def test_show_names_repeated_tokenizers_apart_and_refuses_what_is_not_text():
    display = tokviz.show("x", ["gpt2", "gpt2"])
    assert [r.name for r in display.rows] == ["GPT-2", "GPT-2 (2)"]
    with pytest.raises(TypeError, match="str"):
        tokviz.show(b"bytes", "gpt2")


def test_chart_ticks_are_round_and_cover_the_values():
    assert nice_ticks(0.95, 3.98) == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert nice_ticks(256, 4000) == [0, 1000, 2000, 3000, 4000]


def test_bar_chart_writes_every_value_and_escapes_names():
    svg = bar_chart_svg(["English", "<Hindi>"], {"GPT-2": [1.0, 4.8], "o200k": [1.0, 1.6]}, reference=1.0)
    assert svg.count("<rect") >= 4 and "4.80" in svg and "1.60" in svg
    assert "&lt;Hindi&gt;" in svg and "<Hindi>" not in svg


def test_line_chart_marks_a_named_point():
    svg = line_chart_svg({"held-out": [(256, 1.0), (1000, 3.0)]}, marks={"knee 1,000": (1000, 3.0)})
    assert "<polyline" in svg and "knee 1,000" in svg
    assert "nothing to plot" in line_chart_svg({})


def test_line_chart_legend_fits_its_longest_name_and_the_axis_ends_at_the_last_point():
    name = "English (knee 25,820)"
    svg = line_chart_svg({name: [(257, 1.0), (50257, 4.8)]}, width=760)
    legend_x = float(re.search(rf'<text x="([0-9.]+)" y="[0-9.]+">{re.escape(name)}</text>', svg).group(1))
    assert legend_x + 7 * len(name) <= 760
    last_x = float(re.search(r'<polyline points="[^"]* ([0-9.]+),[0-9.]+"', svg).group(1))
    frame = re.search(r'<rect x="([0-9.]+)" y="[0-9.]+" width="([0-9.]+)"', svg)
    assert last_x == float(frame.group(1)) + float(frame.group(2))


def test_line_chart_on_a_log_scale_puts_each_decade_equally_far_apart():
    svg = line_chart_svg({"all": [(100, 1.0), (1000, 2.0), (10000, 3.0)]}, log_x=True)
    xs = [
        float(x)
        for x in re.search(r'<polyline points="([^"]*)"', svg).group(1).replace(",", " ").split()[::2]
    ]
    assert abs((xs[1] - xs[0]) - (xs[2] - xs[1])) < 0.2
    assert ">1K</text>" in svg and ">10K</text>" in svg and ">500</text>" in svg


def test_an_encoding_holds_the_ids_and_shows_as_tokens_with_their_ids(gpt2_tiktoken):
    encoding = tokviz.encode(HELLO, "gpt2")
    assert encoding.ids == gpt2_tiktoken.encode(HELLO) and len(encoding) == 12
    assert b"".join(encoding.tokens).decode("utf-8") == HELLO
    page = encoding._repr_html_()
    assert '<span class="tokviz-id">19526</span>' in page
    assert repr(encoding) == "<Encoding of 13 characters by GPT-2: 12 tokens>"


def test_a_display_saves_as_a_whole_page_and_never_over_a_folder(tmp_path):
    written = tokviz.show("the cat", "gpt2").save(tmp_path / "cat.html")
    assert written.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    (tmp_path / "taken").mkdir()
    with pytest.raises(Exception, match="taken"):
        tokviz.show("x", "gpt2").save(tmp_path / "taken")


def test_a_rank_table_names_each_tokens_merge_rank_without_recovering_its_merges(monkeypatch):
    from tokviz.core.formats import engine
    from tokviz.core.formats.encodings import load_bundled_ranks

    recoveries = []
    real_recovery = engine.recover_merges

    def recover_merges(ranks):
        recoveries.append(len(ranks))
        return real_recovery(ranks)

    ranks = {t: r for t, r in load_bundled_ranks("r50k_base").items() if r < 4000}
    monkeypatch.setattr(engine, "recover_merges", recover_merges)
    tok = engine.tokenizer_from_ranks(ranks, {"<|endoftext|>": 4000}, "gpt2", "gpt2-prefix")
    page = tokens_page("Hello world, hello again", [("prefix", tok)])
    assert recoveries == []  # the page named its ranks from the ids alone
    answered = {i: tok.merge_rank(i) for i in range(4001)}
    tables = tok.merge_rank_of_id  # now recover the merges and build the tables
    assert recoveries == [4000]  # the whole table, once
    assert answered == {i: tables.get(i) for i in range(4001)}
    assert answered[4000] is None and answered[ranks[b"a"]] is None  # a special, a single byte
    assert f"merge rank {answered[tok.encode(' world')[0]]}" in page
