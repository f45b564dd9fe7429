"""The SVG chart geometry: pure functions, no database."""

from __future__ import annotations

import re

from django.template.loader import render_to_string
from django.utils import translation

from games.history import charts


def test_nice_ticks_cover_the_range_in_round_steps():
    assert charts.nice_ticks(0, 97) == [0, 25, 50, 75, 100]
    assert charts.nice_ticks(-1.6, 3.1) == [-2, 0, 2, 4]
    ticks = charts.nice_ticks(5, 5)
    assert ticks[0] <= 5 <= ticks[-1] and len(ticks) >= 2


def test_a_line_chart_puts_higher_values_higher_and_keeps_every_point():
    chart = charts.line_chart(
        series=[charts.Series("Ann", [0, 10, 30]), charts.Series("Bob", [5, None, 20])],
        x_labels=["1", "2", "3"],
        title="t",
        desc="d",
    )
    ann, bob = chart["lines"]
    ys = [float(p.split(",")[1]) for p in ann["points"].split()]
    assert ys[0] > ys[1] > ys[2]  # SVG y grows downwards
    assert len(bob["points"].split()) == 2  # the missing value is a gap, not a zero
    assert all(chart["top"] <= y <= chart["bottom"] for y in ys)
    assert ann["marker"] != bob["marker"] and ann["dash"] != bob["dash"]  # not told apart by colour alone
    assert chart["rows"][1]["values"] == ["10", ""]


def test_an_empty_chart_says_so():
    assert charts.line_chart(series=[], x_labels=[], title="t", desc="nothing")["empty"]
    assert charts.bar_chart(labels=[], values=[], title="t", desc="nothing")["empty"]


def test_bars_are_proportional_and_fit():
    chart = charts.bar_chart(labels=["3", "4"], values=[10.0, 5.0], title="t", desc="d")
    a, b = chart["bars"]
    assert abs(a["h"] - 2 * b["h"]) < 0.2
    assert all(bar["y"] >= chart["top"] and bar["value_y"] >= 0 for bar in chart["bars"])


def test_the_chart_template_has_an_accessible_title_and_description():
    chart = charts.line_chart(
        series=[charts.Series("<Ann>", [1, 2])], x_labels=["1", "2"], title="Totals", desc="Running totals"
    )
    html = render_to_string("games/_line_chart.html", {"chart": chart, "chart_id": "c"})
    assert 'role="img"' in html and 'aria-labelledby="c-title c-desc"' in html
    assert '<title id="c-title">Totals</title>' in html and '<desc id="c-desc">Running totals</desc>' in html
    assert "&lt;Ann&gt;" in html and "<Ann>" not in html  # names are escaped


GEOMETRY = re.compile(r'\b(x|y|x1|x2|y1|y2|width|height|points|d|transform|viewBox)="([^"]*)"')


def test_coordinates_keep_a_decimal_point_and_labels_read_as_the_language_writes_numbers():
    """Croatian, Afrikaans and Czech write 14,6: the labels do, and the SVG's numbers never (a browser
    drops ``y="234,0"``, and the chart loses its grid and labels)."""
    for language in ("hr", "af", "cs"):
        with translation.override(language):
            line = charts.line_chart(
                series=[charts.Series("Ann", [0.5, 14.6, 7.25]), charts.Series("Bob", [3, 2.5, 9])],
                x_labels=["1", "2", "3"],
                title="t",
                desc="d",
                x_title="turns",
                y_title="points",
                marks=[charts.Mark(series=0, index=1, kind="blunder", href="/r/", title="m")],
            )
            bars = charts.bar_chart(
                labels=["3", "4"], values=[10.25, 5.5], title="t", desc="d", x_title="c", y_title="p"
            )
            html = render_to_string("games/_line_chart.html", {"chart": line, "chart_id": "c"})
            html += render_to_string("games/_bar_chart.html", {"chart": bars, "chart_id": "b"})
        geometry = GEOMETRY.findall(html)
        assert len(geometry) > 20
        assert not [(name, value) for name, value in geometry if "," in value and name != "points"], language
        for name, value in geometry:
            if name == "points":  # "x,y x,y ...": a comma between the two, a point within each
                assert all(pair.count(",") == 1 for pair in value.split()), language
        assert "14,6" in [m["value"] for m in line["lines"][0]["markers"]], language
        assert ">5,5<" in html, language  # the bar's value above it, as the reader writes it
    with translation.override("en"):
        assert charts.number(14.56) == "14.6"
