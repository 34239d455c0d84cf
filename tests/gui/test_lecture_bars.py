"""An exchange slide's chart: a lossy bar is hatched and marked, and never sets the scale."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from tokviz.core.lecture.slides import Bars
from tokviz.gui.drawing.chart_bars import LOSSY_CAP
from tokviz.gui.lecture.bars import LOSSY_KEY, bar_scale, lay_out_bars
from tokviz.gui.lecture.text_styles import TextItem
from tokviz.gui.style.theme import token_colors

pytestmark = [pytest.mark.gui, pytest.mark.usefixtures("qapp")]

CHART = Bars(
    "bytes per token on the bundled samples",
    ("english", "chinese"),
    (("words", (2.6, 14.25)), ("cl100k", (4.4, 2.5)), ("o200k", (4.4, 3.7))),
    (("lossy: 12 <unk>", "lossy: 4 <unk>"), ("", ""), ("", "")),
)


def test_the_tallest_honest_bar_sets_the_scale_and_a_far_taller_lossy_one_is_cut() -> None:
    top, ceiling = bar_scale(CHART)
    assert ceiling == pytest.approx(4.4 * LOSSY_CAP)
    assert top == pytest.approx(4.4 * LOSSY_CAP)  # not 14.25: the words bar is cut at the ceiling
    honest_only = Bars(CHART.title, CHART.categories, CHART.series[1:])
    assert bar_scale(honest_only)[0] == pytest.approx(4.4)


def test_lossy_values_are_starred_and_the_chart_says_what_hatching_means() -> None:
    items: list[TextItem] = []
    lay_out_bars(CHART, QRectF(56, 100, 1088, 0), 1.0, token_colors(False), items)
    texts = [item.text for item in items]
    assert {"2.6*", "14.2*", "4.4", "2.5"} <= set(texts) and LOSSY_KEY in texts
    items.clear()
    lay_out_bars(Bars(CHART.title, CHART.categories, CHART.series[1:]), QRectF(56, 100, 1088, 0), 1.0,
                 token_colors(False), items)  # fmt: skip
    assert LOSSY_KEY not in [item.text for item in items]
