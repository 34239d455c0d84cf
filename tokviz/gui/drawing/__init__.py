"""Headless pictures: token strips, the replay sheet, the chart canvas, and PNG/SVG encoding (no window)."""
