"""The vocabulary browser filters its table by the audit's token classes, audited in the background."""

from __future__ import annotations

from tests.core.test_audit import tiny_bpe as hand_built_bpe
from tokviz.core.analysis.audit import CLASSES
from tokviz.gui.models.tokenizers import TokenizerRegistryModel
from tokviz.gui.panels.vocabulary import VocabBrowser


def make_browser(qtbot):
    registry = TokenizerRegistryModel()
    key = registry.add_tokenizer("hand-built", hand_built_bpe())
    browser = VocabBrowser(registry, editor_text=lambda: "bc bc")
    qtbot.addWidget(browser)
    browser.show()
    browser.show_tokenizer(key)
    assert browser.classes.audit is None  # nothing is audited before the classes are wanted
    browser.classes.ensure_audited()
    qtbot.waitUntil(lambda: browser.classes.audit is not None, timeout=10000)
    return browser


def listed(browser: VocabBrowser) -> list[int]:
    model = browser.model
    return [model.token_id(r) for r in range(model.rowCount())]


def test_each_class_shows_its_count_and_checking_one_lists_only_its_tokens(qtbot):
    browser = make_browser(qtbot)
    classes = browser.classes
    texts = {name: action.text() for name, action in classes.actions_by_class.items()}
    assert texts["unreachable"] == "unreachable (1)"
    assert texts["partial_utf8"] == "partial UTF-8 (128)"
    assert texts["special"] == "special (1)"
    assert classes.text() == "Classes: all ▾"
    assert len(listed(browser)) == 261

    classes.check(("unreachable",))
    assert listed(browser) == [258]  # "abc": its merge never fires
    assert classes.text() == "Classes: unreachable ▾"
    assert "1 of 261 tokens listed" in browser.summary.text()

    classes.actions_by_class["special"].trigger()  # checking a second class from the menu
    assert sorted(listed(browser)) == [258, 260]
    assert classes.text() == f"Classes: 2 of {len(CLASSES)} ▾"

    classes.menu().actions()[-1].trigger()  # "Only broken tokens"
    assert len(listed(browser)) == 1 + 1 + 128
    classes.menu().actions()[-2].trigger()  # "All classes"
    assert len(listed(browser)) == 261


def test_the_class_filter_combines_with_the_text_filter(qtbot):
    browser = make_browser(qtbot)
    browser.classes.check(("ok",))
    browser.model.set_filter("bc")
    assert sorted(listed(browser)) == [256]  # "bc" is OK; "abc" is unreachable, so not listed


def test_showing_another_tokenizer_cancels_the_running_audit(qtbot):
    from tokviz.core.formats.registry import load_tokenizer
    from tokviz.gui.panels.vocabulary.audit import ClassFilter

    classes = ClassFilter()
    qtbot.addWidget(classes)
    delivered = []
    classes.audited.connect(delivered.append)
    hand_built = hand_built_bpe()
    classes.set_tokenizer(load_tokenizer("o200k"))
    assert classes.text() == "Classes ▾" and not classes.busy
    classes.menu().aboutToShow.emit()  # opening the menu starts the audit
    assert classes.text() == "Classes: … ▾"
    classes.set_tokenizer(hand_built)
    qtbot.waitUntil(lambda: not classes.busy, timeout=20000)
    assert [audit.tokenizer for audit in delivered] == [hand_built]
    assert "unreachable: 1" in classes.toolTip()
