"""The archive's supply-centre chart (pure): SVG that parses, every figure in its description,
names escaped, end labels apart, years thinned out on a long game."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from judge.render.centre_chart import Series, centre_chart

SVG = "{http://www.w3.org/2000/svg}"


def test_a_long_game_parses_thins_its_years_and_keeps_every_name_apart() -> None:
    years = ["Start"] + [str(1901 + i) for i in range(20)]
    series = [Series(f"Power{k}", f"#{k}{k}{k}{k}{k}{k}", [3] * 21) for k in range(7)]  # all level
    series[0] = Series("Power0", "#000000", list(range(3, 24)))
    svg = ET.fromstring(str(centre_chart(years, series, chart_id="c", title="t")))
    shown = [t.text for t in svg.iter(f"{SVG}text")]
    assert "Start" in shown and "1920" in shown and "1904" not in shown  # every third year, and the last
    assert len(svg.findall(f"{SVG}g")) == 7
    ends = sorted(float(t.get("y")) for t in svg.iter(f"{SVG}text") if (t.text or "").startswith("Power"))
    assert len(ends) == 7 and all(b - a >= 13 for a, b in zip(ends, ends[1:]))  # never on top of each other
    assert max(ends) <= 280
    # level lines are drawn apart, each at a different height
    first = [g.find(f"{SVG}polyline").get("points").split()[0] for g in svg.findall(f"{SVG}g")[1:]]
    assert len(set(first)) == 6


def test_names_are_escaped_and_the_description_says_every_figure() -> None:
    chart = str(centre_chart(["Start", "1901"], [Series("<script>x</script>", "#123456", [3, 4])],
                             chart_id="g<1>", title="A & B"))
    assert "<script>" not in chart and "&lt;script&gt;" in chart
    svg = ET.fromstring(chart)
    assert svg.find(f"{SVG}title").text == "A & B"
    assert re.search(r"<script>x</script>: 3 in Start, 4 in 1901", svg.find(f"{SVG}desc").text)
    assert svg.get("aria-labelledby") == "g<1>-title g<1>-desc"
