"""The lecture's slides on the regex, numbers, the merge chain, the cost example and exercises 1 and
3: every figure they state equals tiktoken's own (built offline from the bundled rank files)."""

from __future__ import annotations

import regex
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

from tokviz.core.lecture.blocks import ChipRow, SlideContent, Table, Words
from tokviz.core.lecture.deck import Deck, Slide, default_deck
from tokviz.core.lecture.slides import slide_content
from tokviz.core.lecture.slides_chain import apply_merge
from tokviz.core.lecture.slides_exercises import sample_texts
from tokviz.core.lecture.slides_pretok import published_chunks
from tokviz.core.pretok.bytes_ import printable_token
from tokviz.core.pretok.pretokenize import GPT2_PATTERN, GPT2_PUBLISHED_PATTERN

DECK = default_deck()
SAMPLES = ["english", "python", "data", "chinese", "digits"]


def slide_of(kind: str, deck: Deck = DECK) -> Slide:
    return next(slide for slide in deck.slides if slide.kind == kind)


def content(kind: str, text: str | None = None, tokenizers: list[str] | None = None) -> SlideContent:
    return slide_content(slide_of(kind), DECK, text=text, tokenizers=tokenizers)


def pieces(encoding: tiktoken.Encoding, text: str) -> str:
    return " | ".join(printable_token(encoding.decode_single_token_bytes(i)) for i in encoding.encode(text))


def test_the_regex_slide_shows_gpt2_s_pattern_as_published() -> None:
    assert (
        GPT2_PUBLISHED_PATTERN
        == r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
    )
    assert content("regex").figures["pattern"] == GPT2_PUBLISHED_PATTERN


def test_each_chunk_is_lit_by_the_alternative_that_matched_it() -> None:
    chunks = published_chunks("I'll say  hello 42!!\n")
    assert chunks == [
        ("I", 1),
        ("'ll", 0),
        (" say", 1),
        (" ", 4),
        (" hello", 1),
        (" 42", 2),
        ("!!", 3),
        ("\n", 4),
    ]
    lit = content("regex", text="it's 7").blocks[1]
    assert isinstance(lit, ChipRow)
    assert [(c.label, c.sub) for c in lit.chips] == [("it", "2"), ("'s", "1"), ("·7", "3")]
    assert len({c.colour for c in lit.chips}) == 3


def test_hello_and_space_hello_are_different_gpt2_ids(gpt2_tiktoken: tiktoken.Encoding) -> None:
    figures = content("regex").figures
    assert figures["GPT-2 “hello”"] == "31373" == str(gpt2_tiktoken.encode("hello")[0])
    assert figures["GPT-2 “ hello”"] == "23748" == str(gpt2_tiktoken.encode(" hello")[0])


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab 1'sl\n\t.!é你"), max_size=30))
def test_the_published_pattern_cuts_the_chunks_tiktoken_s_rewrite_cuts(text: str) -> None:
    assert [c for c, _ in published_chunks(text)] == regex.findall(GPT2_PATTERN, text)


def test_the_published_pattern_and_the_rewrite_agree_on_every_sample() -> None:
    for _, text in sample_texts(SAMPLES):
        assert regex.findall(GPT2_PUBLISHED_PATTERN, text) == regex.findall(GPT2_PATTERN, text)


def test_numbers_are_chopped_as_tiktoken_chops_them(
    gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    slide = slide_of("digits")
    figures = content("digits").figures
    text = str(slide.options["text"])
    assert figures["GPT-2 pieces"] == pieces(gpt2_tiktoken, text)
    assert figures["cl100k pieces"] == pieces(cl100k_tiktoken, text)
    cl100k_digits = [p for p in figures["cl100k pieces"].split(" | ") if p.isdigit()]
    assert max(len(p) for p in cl100k_digits) == 3  # runs of up to three


def test_the_merge_chain_needs_each_id_before_the_next_and_out_of_order_merges_less() -> None:
    figures = content("chain").figures
    assert figures["merges"] == "256=116+104 257=256+101 258=257+32"
    assert figures["tokens in order"] == "18 → 16 → 14 → 12"
    assert figures["tokens in reverse order"] == "18 → 18 → 18 → 16"
    assert apply_merge([1, 2, 2, 2, 1, 2], (2, 2), 9) == [1, 9, 2, 1, 2]


def test_the_cost_slide_works_the_16x_example_and_says_why_it_is_one_computation() -> None:
    c = content("cost")
    assert c.figures["worked"] == "1,000,000 / 62,500 = 16"
    worked = next(b.text for b in c.blocks if isinstance(b, Words) and "score matrices" in b.text)
    assert "1,000,000 and 62,500 entries, 16× fewer" in worked and "not the model's speed-up" in worked


def test_v_is_the_embedding_rows_tiktoken_counts(
    gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding, o200k_tiktoken: tiktoken.Encoding
) -> None:
    figures = content("cost").figures
    assert figures["GPT-2 V"] == str(gpt2_tiktoken.n_vocab) == "50257"
    assert figures["cl100k V"] == str(cl100k_tiktoken.n_vocab) == "100277"
    assert figures["o200k V"] == str(o200k_tiktoken.n_vocab) == "200019"
    table = next(b for b in content("cost").blocks if isinstance(b, Table))
    cl100k = next(row for row in table.rows if row[0] == "cl100k")
    assert cl100k[4:] == ("100,277", f"{100_277 * 768:,}")


def test_a_lossy_tokenizer_is_never_the_fewest_on_the_cost_slide() -> None:
    c = content("cost", tokenizers=["gpt2", "words"], text="a zyzzyva")
    table = next(b for b in c.blocks if isinstance(b, Table))
    rows = {row[0]: row for row in table.rows}
    assert rows["words"][3] == "lossy: 1 <unk>" and rows["GPT-2"][3] == "1×"


def test_the_cost_slide_shows_its_text() -> None:
    c = content("cost", text="typed here")
    assert any(isinstance(b, Words) and b.text.startswith("“typed here”: 10 bytes") for b in c.blocks)


def test_exercise_1_measures_five_samples_as_tiktoken_does(
    gpt2_tiktoken: tiktoken.Encoding, cl100k_tiktoken: tiktoken.Encoding
) -> None:
    figures = content("samples").figures
    rates: dict[tuple[str, str], float] = {}
    for label, encoding in (("GPT-2", gpt2_tiktoken), ("cl100k", cl100k_tiktoken)):
        for name, text in sample_texts(SAMPLES):
            rate = len(text.encode()) / len(encoding.encode(text))
            rates[(label, name)] = rate
            assert figures[f"{label} {name}"] == f"{rate:.2f}"
        worst = min(SAMPLES, key=lambda n: rates[(label, n)])
        best = max(SAMPLES, key=lambda n: rates[(label, n)])
        assert figures[f"{label} worst"] == worst
        assert figures[f"{label} best/worst"] == f"{rates[(label, best)] / rates[(label, worst)]:.2f}"
    assert figures["GPT-2 worst"] == "chinese"


def test_exercise_1_states_the_attention_multiplier_and_names_the_worst_sample() -> None:
    c = content("samples")
    table = next(b for b in c.blocks if isinstance(b, Table))
    english = next(row for row in table.rows if row[0] == "english")
    per_token = float(english[2])
    assert english[3] == f"{float(c.figures['GPT-2 english']) ** 2:,.1f}×" and per_token > 4
    verdicts = [b.text for b in c.blocks if isinstance(b, Words) and b.bullet]
    assert verdicts[0].startswith("GPT-2: worst is chinese")


def test_exercise_1_shows_the_text_typed_on_it_as_a_row_and_as_a_string() -> None:
    untouched = content("samples")
    assert [row[0] for row in next(b for b in untouched.blocks if isinstance(b, Table)).rows] == SAMPLES
    typed = content("samples", text="naïve café")
    assert isinstance(typed.blocks[0], Words) and typed.blocks[0].text == "typed: “naïve café”"
    assert next(b for b in typed.blocks if isinstance(b, Table)).rows[-1][:2] == ("typed", "12")


def test_exercise_3_finds_ids_whose_naive_decode_raises_and_decodes_them_safely(
    gpt2_tiktoken: tiktoken.Encoding,
) -> None:
    figures = content("broken").figures
    ids = [int(i) for i in figures["broken ids"].split()]
    assert ids == gpt2_tiktoken.encode("Hi 🌍")[: len(ids)]
    try:
        b"".join(gpt2_tiktoken.decode_single_token_bytes(i) for i in ids).decode("utf-8")
        raised = ""
    except UnicodeDecodeError as exc:
        raised = exc.reason
    assert figures["naive"] == f"UnicodeDecodeError: {raised}" and raised
    assert figures["held back"] == "F0 9F" and figures["streamed"] == "exact"
    table = next(b for b in content("broken").blocks if isinstance(b, Table))
    assert table.rows[1][1] == "“Hi 🌍”  ✓"
    assert table.rows[2][1] == "prints “Hi ”, waits with F0 9F"


def test_exercise_3_on_a_text_that_never_splits_a_character_says_so() -> None:
    c = content("broken", text="plain ascii")
    assert c.figures["split after"] == "none"
    last = c.blocks[-1]
    assert isinstance(last, Words) and "type an emoji or Chinese" in last.text


def test_the_deck_ends_with_the_coda_naming_the_tokenizer_free_models() -> None:
    coda = DECK.slides[-1]
    assert coda.title == "Tokenization shouldn't exist"
    body = str(coda.get("body"))
    assert all(name in body for name in ("ByT5", "MegaByte", "BLT"))
