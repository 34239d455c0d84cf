"""Language names read from parallel-text file names, and results as escaped HTML tables."""

from tokviz.core.corpus.languages import language_of
from tokviz.core.show.html_table import table_html


def test_flores_names_give_code_script_and_english_name():
    english = language_of("/data/flores200/devtest/eng_Latn.devtest")
    assert (english.code, english.iso3, english.name) == ("eng_Latn", "eng", "English")
    assert language_of("zho_Hant.dev").name == "Chinese (Traditional)"


def test_plain_names_use_two_letter_codes_and_regions():
    assert language_of("en.txt").iso3 == "eng"
    assert language_of("pt-BR.txt").name == "Portuguese (BR)"


def test_files_that_are_not_language_files_have_no_language():
    assert language_of("README.md") is None
    assert language_of("notes.txt") is None


def test_a_language_matches_its_codes_and_name_only():
    english = language_of("eng_Latn.devtest")
    assert english.matches("en") and english.matches("eng") and english.matches("English")
    assert not language_of("fr.txt").matches("en")


def test_unknown_codes_load_under_their_code():
    assert language_of("xyz_Latn.devtest").name == "xyz"


def test_html_table_escapes_cells_and_aligns_numbers_right():
    page = table_html(["token", "count"], [["<script>", "1,234"]], right=[False, True], caption="a & b")
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert 'text-align:right">1,234' in page
    assert "a &amp; b" in page


def test_html_table_heads_itself_with_a_caption_and_a_plain_note_above_the_rows():
    page = table_html(["id"], [["1"]], caption="4 likely under-trained", note="norm < 0.5 & more")
    assert (
        page.index("4 likely under-trained") < page.index("norm &lt; 0.5 &amp; more") < page.index("<table")
    )
