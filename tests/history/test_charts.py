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


TEXT = re.compile(r'<text class="(tick tick-x|bar-value)" x="([\d.]+)" y="([\d.]+)">([^<]*)</text>')


def _texts(html: str, kind: str) -> list[tuple[float, float, str]]:
    return [(float(x), float(y), text) for k, x, y, text in TEXT.findall(html) if k == kind and text]


def _overlapping(texts: list[tuple[float, float, str]], width: float = 21 * 0.6) -> list[tuple[str, str]]:
    """Pairs of labels whose boxes meet at a phone's size (21 units high, ``width`` a character)."""
    return [
        (a, b)
        for i, (xa, ya, a) in enumerate(texts)
        for xb, yb, b in texts[i + 1 :]
        if abs(ya - yb) < 21 and abs(xa - xb) < width * (len(a) + len(b)) / 2
    ]


BOLD = 21 * 0.65  # the bars' values are bold


def test_bar_values_never_run_together_on_a_phone():
    values = [11.4, 11.1, 10.5, 9.25, 17.2, 15.2, 12.0, 8.4, 20.1, 13.3, 14.9]
    for language in ("en", "hr"):
        with translation.override(language):
            chart = charts.bar_chart(labels=[str(n) for n in range(3, 14)], values=values, title="t", desc="d")
            html = render_to_string("games/_bar_chart.html", {"chart": chart, "chart_id": "b"})
        shown = _texts(html, "bar-value")
        assert len(shown) == 11 and not _overlapping(shown, BOLD), language
        assert [text for _, _, text in shown][:5] == ["11", "11", "11", "9", "17"]  # whole numbers: decimals crowd
        assert "11,4" in html if language == "hr" else "11.4" in html  # the bar's title keeps the value
    few = charts.bar_chart(labels=["3", "4", "5"], values=[11.4, 11.1, 10.5], title="t", desc="d")
    assert [bar["shown_value"] for bar in few["bars"]] == ["11.4", "11.1", "10.5"]  # room: one decimal
    many = charts.bar_chart(labels=[str(n) for n in range(40)], values=[100.0] * 40, title="t", desc="d")
    html = render_to_string("games/_bar_chart.html", {"chart": many, "chart_id": "b"})
    shown = _texts(html, "bar-value")
    assert 0 < len(shown) < 40 and not _overlapping(shown, BOLD)


def test_x_labels_never_overlap_and_the_last_one_is_always_named():
    chart = charts.line_chart(
        series=[charts.Series("Ann", list(range(30)))], x_labels=[str(i) for i in range(30)], title="t", desc="d"
    )
    shown = _texts(render_to_string("games/_line_chart.html", {"chart": chart, "chart_id": "c"}), "tick tick-x")
    assert not _overlapping(shown)
    assert shown[0][2] == "0" and shown[-1][2] == "29" and len(shown) >= 10


def test_a_short_round_keeps_its_name_on_a_second_row_and_the_end_its_own():
    turns = 80
    starts = [(0, "1"), (30, "2"), (33, "3"), (36, "4"), (70, "5"), (78, "6"), (turns, "end")]
    chart = charts.line_chart(
        series=[charts.Series("Ann", [float(i) for i in range(turns + 1)])],
        x_labels=[str(i) for i in range(turns)] + ["end"],
        title="t",
        desc="d",
        x_ticks=starts,
    )
    html = render_to_string("games/_line_chart.html", {"chart": chart, "chart_id": "c"})
    shown = _texts(html, "tick tick-x")
    assert not _overlapping(shown)
    assert {"1", "2", "3", "5", "end"} <= {text for _, _, text in shown}  # round 3, between 2 and 4, is named
    assert html.count('class="x-line"') == len(starts)  # every round start keeps its line
    assert chart["height"] > charts.HEIGHT and chart["x_title_y"] > max(y for _, y, _ in shown)


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
