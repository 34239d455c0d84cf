"""Baking an SVG's plot coordinates into pixels, so that every SVG reader draws a chart as Qt does."""

from __future__ import annotations

import re

_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"({_NUMBER}),({_NUMBER})")
_MATRIX = re.compile(rf"matrix\(({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER}),({_NUMBER})\)")


def flatten_svg(data: bytes) -> bytes:
    """Bake plot coordinates into pixels so any SVG reader draws the chart as Qt does.

    Qt writes plot items in data coordinates under a scaling ``transform`` with
    ``vector-effect="non-scaling-stroke"`` (lines a pixel wide however the data is scaled).
    Browsers follow that; many slide and drawing programs do not, and draw strokes a thousand
    times too wide. Every group whose shapes all use it gets its transform applied to their
    coordinates instead, and loses the effect.
    """
    from xml.dom import minidom

    doc = minidom.parseString(data)
    for group in doc.getElementsByTagName("g"):
        match = _MATRIX.fullmatch(group.getAttribute("transform").replace(" ", ""))
        shapes = [n for n in group.childNodes if n.nodeType == n.ELEMENT_NODE]
        if match is None or not shapes:
            continue
        if not all(n.getAttribute("vector-effect") == "non-scaling-stroke" for n in shapes):
            continue
        a, b, c, d, e, f = (float(v) for v in match.groups())
        bakeable = ("path", "polyline", "polygon") + (("rect",) if b == 0 and c == 0 else ())
        if not all(n.tagName in bakeable for n in shapes):
            continue

        def point(x: float, y: float) -> tuple[float, float]:
            return a * x + c * y + e, b * x + d * y + f  # noqa: B023 - called within this iteration

        def pairs(text: str) -> str:
            def sub(m: re.Match[str]) -> str:
                x, y = point(float(m.group(1)), float(m.group(2)))
                return f"{x:.6g},{y:.6g}"

            return _PAIR.sub(sub, text)

        for node in shapes:
            node.removeAttribute("vector-effect")
            if node.tagName == "rect":
                x0, y0 = point(float(node.getAttribute("x")), float(node.getAttribute("y")))
                x1, y1 = point(
                    float(node.getAttribute("x")) + float(node.getAttribute("width")),
                    float(node.getAttribute("y")) + float(node.getAttribute("height")),
                )
                for name, value in (
                    ("x", min(x0, x1)),
                    ("y", min(y0, y1)),
                    ("width", abs(x1 - x0)),
                    ("height", abs(y1 - y0)),
                ):
                    node.setAttribute(name, f"{value:.6g}")
            elif node.tagName == "path":
                node.setAttribute("d", pairs(node.getAttribute("d")))
            else:
                node.setAttribute("points", pairs(node.getAttribute("points")))
        group.setAttribute("transform", "matrix(1,0,0,1,0,0)")
    return doc.toxml(encoding="UTF-8")
