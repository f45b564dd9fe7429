"""Server-rendered SVG charts: pure geometry, no database, no JavaScript.

These functions turn numbers into coordinates; the templates
``games/_line_chart.html`` and ``games/_bar_chart.html`` draw them as
inline SVG with a ``<title>`` and ``<desc>`` (and a data table beside it
for screen readers), styled by the site's stylesheet so the charts use
the page's colours.  Series are told apart by colour *and* by marker shape
and dash pattern, so they read in grey too; a diamond is kept for the
marks (a line's own points never use it).

Coordinates are written with a decimal point whatever the language (the
templates draw them with localization off); the labels a person reads
(``_label``) are numbers in the reader's language, e.g. "14,6" in Croatian.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import formats

__all__ = ["Series", "Mark", "line_chart", "bar_chart", "nice_ticks", "number"]

WIDTH, HEIGHT = 640, 280
LEFT, RIGHT, TOP, BOTTOM = 62, 16, 22, 46
MARKERS = ("circle", "square", "triangle", "triangle-down")
DASHES = ("", "6 4", "2 3", "10 3 2 3")
#: Above this many points a line has no markers (they would only blur it).
MAX_MARKERS = 40


@dataclass
class Series:
    name: str
    values: Sequence[float | None]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Mark:
    """A point of a series singled out, as a link: ``series`` and ``index`` (its x position) say which.

    ``kind`` becomes a class (its look), ``title`` its tooltip and accessible name; ``size`` is the
    diamond's half width.
    """

    series: int
    index: int
    kind: str
    href: str
    title: str
    size: float = 6.0


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``low``..``high`` (steps of 1, 2 or 5 times a power of ten)."""
    if high < low:
        low, high = high, low
    if math.isclose(high, low):
        high = low + 1
    raw = (high - low) / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 6))
        value += step
    return ticks


def marker_path(shape: str, x: float, y: float, r: float = 4.5) -> str:
    """SVG path data of a marker centred on (x, y)."""
    if shape == "square":
        return f"M{x - r + 1:.1f} {y - r + 1:.1f}h{2 * r - 2:.1f}v{2 * r - 2:.1f}h{-(2 * r - 2):.1f}z"
    if shape == "diamond":
        step = r + 1
        return f"M{x:.1f} {y - step:.1f}l{step:.1f} {step:.1f}l{-step:.1f} {step:.1f}l{-step:.1f} {-step:.1f}z"
    if shape == "triangle":
        return f"M{x:.1f} {y - r - 1:.1f}l{r + 1:.1f} {2 * r:.1f}h{-(2 * r + 2):.1f}z"
    if shape == "triangle-down":
        return f"M{x:.1f} {y + r + 1:.1f}l{r + 1:.1f} {-2 * r:.1f}h{-(2 * r + 2):.1f}z"
    return f"M{x - r:.1f} {y:.1f}a{r} {r} 0 1 0 {2 * r} 0a{r} {r} 0 1 0 {-2 * r} 0"


def _label(value: float) -> str:
    """A number as the reader reads it: whole, or to one decimal in the active language's way."""
    return formats.number_format(int(value)) if float(value).is_integer() else number(value)


def number(value: float) -> str:
    """``value`` to one decimal place, with the active language's decimal separator."""
    return formats.number_format(round(float(value), 1), decimal_pos=1)


def line_chart(
    *,
    series: Sequence[Series],
    x_labels: Sequence[str],
    title: str,
    desc: str,
    x_title: str = "",
    y_title: str = "",
    zero_line: bool = False,
    x_ticks: Sequence[tuple[int, str]] | None = None,
    marks: Sequence[Mark] = (),
) -> dict[str, Any]:
    """Lines over shared x positions (one per label); ``None`` values leave a gap.

    ``x_ticks`` (x index, label) replace the labels under the axis, each with
    a line across the plot (e.g. where each round starts); ``marks`` single
    out points as links (drawn above the lines; a mark on a gap is left out).
    """
    values = [v for s in series for v in s.values if v is not None]
    if not values or not x_labels:
        return {"empty": True, "title": title, "desc": desc}
    ticks = nice_ticks(min(values + ([0] if zero_line else [])), max(values))
    low, high = ticks[0], ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = len(x_labels)

    def x_at(i: int) -> float:
        return round(LEFT + (plot_w * (i + 0.5) / n if n < 3 else 14 + (plot_w - 28) * i / (n - 1)), 1)

    def y_at(v: float) -> float:
        return round(TOP + plot_h * (1 - (v - low) / (high - low)), 1)

    label_every = max(1, math.ceil(n / 16))
    lines = []
    for index, s in enumerate(series):
        points = [(x_at(i), y_at(v), v, x_labels[i]) for i, v in enumerate(s.values) if v is not None]
        lines.append(
            {
                "name": s.name,
                "index": index % 8,
                "dash": DASHES[index % len(DASHES)],
                "marker": MARKERS[index % len(MARKERS)],
                "points": " ".join(f"{x},{y}" for x, y, _, _ in points),
                "legend_marker": marker_path(MARKERS[index % len(MARKERS)], 14, 8),
                "markers": [
                    {"d": marker_path(MARKERS[index % len(MARKERS)], x, y), "value": _label(v), "x_label": xl}
                    for x, y, v, xl in points
                ]
                if len(points) <= MAX_MARKERS
                else [],
                "last": {"x": points[-1][0], "y": points[-1][1], "value": _label(points[-1][2])} if points else None,
                **s.extra,
            }
        )
    return {
        "empty": False,
        "title": title,
        "desc": desc,
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "x_title": x_title,
        "y_title": y_title,
        "x_title_y": HEIGHT - 4,
        "y_title_x": 16,
        "mid_x": LEFT + plot_w / 2,
        "mid_y": TOP + plot_h / 2,
        "y_ticks": [{"y": y_at(t), "label": _label(t)} for t in ticks],
        "x_ticks": [
            {"x": x_at(i), "label": label} for i, label in enumerate(x_labels) if i % label_every == 0 or i == n - 1
        ]
        if x_ticks is None
        else _spaced_ticks([(x_at(i), label) for i, label in x_ticks if 0 <= i < n]),
        "x_lines": x_ticks is not None,
        "marks": [
            {
                "d": marker_path("diamond", x_at(m.index), y_at(value), m.size),
                "kind": m.kind,
                "href": m.href,
                "title": m.title,
                "series": m.series % 8,
            }
            for m in marks
            if 0 <= m.series < len(series)
            and 0 <= m.index < len(series[m.series].values)
            and (value := series[m.series].values[m.index]) is not None
        ],
        "zero_y": y_at(0) if zero_line and low < 0 < high else None,
        "lines": lines,
        "rows": [
            {"label": label, "values": [_label(v) if (v := s.values[i]) is not None else "" for s in series]}
            for i, label in enumerate(x_labels)
        ],
        "names": [s.name for s in series],
    }


#: Closest two labels under the x axis may be, in chart units (a closer one keeps its line, not its label).
MIN_TICK_GAP = 26


def _spaced_ticks(ticks: Sequence[tuple[float, str]]) -> list[dict[str, Any]]:
    """Explicit x ticks, each label left out when it would crowd the one before (or the last one)."""
    out: list[dict[str, Any]] = []
    shown_at: float | None = None
    for index, (x, label) in enumerate(ticks):
        last = index == len(ticks) - 1
        crowded = shown_at is not None and x - shown_at < MIN_TICK_GAP
        if not crowded and not last and ticks and ticks[-1][0] - x < MIN_TICK_GAP:
            crowded = True  # the last label (the end) wins
        out.append({"x": x, "label": "" if crowded else label})
        if not crowded:
            shown_at = x
    return out


def bar_chart(
    *,
    labels: Sequence[str],
    values: Sequence[float],
    title: str,
    desc: str,
    x_title: str = "",
    y_title: str = "",
    notes: Sequence[str] | None = None,
) -> dict[str, Any]:
    """One bar per label, its value written above it."""
    if not labels:
        return {"empty": True, "title": title, "desc": desc}
    ticks = nice_ticks(0, max(max(values) * 1.1, 1))
    high = ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(labels)
    bar_w = min(slot * 0.7, 56)
    bars = []
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        h = plot_h * value / high
        x = LEFT + slot * i + (slot - bar_w) / 2
        bars.append(
            {
                "x": round(x, 1),
                "y": round(TOP + plot_h - h, 1),
                "w": round(bar_w, 1),
                "h": round(h, 1),
                "cx": round(x + bar_w / 2, 1),
                "value_y": round(TOP + plot_h - h - 5, 1),
                "label": label,
                "value": _label(round(value, 1)),
                "note": notes[i] if notes else "",
            }
        )
    return {
        "empty": False,
        "title": title,
        "desc": desc,
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "x_title": x_title,
        "y_title": y_title,
        "x_title_y": HEIGHT - 4,
        "y_title_x": 16,
        "mid_x": LEFT + plot_w / 2,
        "mid_y": TOP + plot_h / 2,
        "y_ticks": [{"y": round(TOP + plot_h * (1 - t / high), 1), "label": _label(t)} for t in ticks],
        "bars": bars,
    }
