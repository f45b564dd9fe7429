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
#: The labels' size on a phone, in chart units (site.css: a phone shows the 640-unit chart at about
#: half size, with 21px type), the size at which labels must not run together.
PHONE_FONT = 21
#: Space left between two labels side by side, in chart units.
LABEL_GAP = 8
#: A second row of labels under the x axis sits this much lower.
TICK_ROW = 22


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


def text_width(text: str, *, bold: bool = False) -> float:
    """About how wide ``text`` is at the phone's size (``PHONE_FONT``), in chart units: a generous
    estimate (0.62 em a digit or letter, 0.34 em a point, comma or space; bold 8 % wider), so that labels
    judged apart are apart whatever the font."""
    narrow = sum(1 for c in text if c in ".,: \u00a0")
    width = PHONE_FONT * (0.62 * (len(text) - narrow) + 0.34 * narrow)
    return width * 1.08 if bold else width


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
    if x_ticks is None:  # every label that has room, in one row
        shown_x = _spaced_ticks([(x_at(i), label) for i, label in enumerate(x_labels)], rows=1)
    else:  # each a line; the labels in two rows, so that a short round between two others keeps its name
        shown_x = _spaced_ticks([(x_at(i), label) for i, label in x_ticks if 0 <= i < n], rows=2)
    extra = TICK_ROW * max((tick["row"] for tick in shown_x if tick["label"]), default=0)
    height = HEIGHT + extra
    for tick in shown_x:
        tick["y"] = HEIGHT - BOTTOM + 16 + TICK_ROW * tick["row"]
    return {
        "empty": False,
        "title": title,
        "desc": desc,
        "width": WIDTH,
        "height": height,
        "left": LEFT,
        "right": WIDTH - RIGHT,
        "top": TOP,
        "bottom": HEIGHT - BOTTOM,
        "x_title": x_title,
        "y_title": y_title,
        "x_title_y": height - 4,
        "y_title_x": 16,
        "mid_x": LEFT + plot_w / 2,
        "mid_y": TOP + plot_h / 2,
        "y_ticks": [{"y": y_at(t), "label": _label(t)} for t in ticks],
        "x_ticks": [tick for tick in shown_x if tick["label"]] if x_ticks is None else shown_x,
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


def _crowds(x: float, label: str, other: tuple[float, str] | None) -> bool:
    """Whether ``label`` centred at ``x`` would touch ``other`` (x, label) on a phone."""
    if other is None:
        return False
    return abs(x - other[0]) < (text_width(label) + text_width(other[1])) / 2 + LABEL_GAP


def _spaced_ticks(ticks: Sequence[tuple[float, str]], *, rows: int) -> list[dict[str, Any]]:
    """Labels under the x axis, left to right, none touching another on a phone, the last always shown.

    Each label goes in the first of ``rows`` rows where it clears the label before it in that row (and
    the last label, which is placed first: the end wins); a label with no room in any row is left out
    (``label`` empty: its line stays).  ``row`` says which row (0: the one under the axis).
    """
    if not ticks:
        return []
    last_x, last_label = ticks[-1]
    out: list[dict[str, Any]] = []
    previous: list[tuple[float, str] | None] = [None] * rows
    for x, label in ticks[:-1]:
        row = next(
            (
                r
                for r in range(rows)
                if not _crowds(x, label, previous[r]) and not (r == 0 and _crowds(x, label, (last_x, last_label)))
            ),
            None,
        )
        if row is None:
            out.append({"x": x, "label": "", "row": 0})
            continue
        previous[row] = (x, label)
        out.append({"x": x, "label": label, "row": row})
    out.append({"x": last_x, "label": last_label, "row": 0})
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
    """One bar per label, its value written above it when there is room.

    The values are written to one decimal when each fits over its bar on a
    phone, else as whole numbers, else over every second (third, ...) bar
    only: they never run together.  Each bar's title and the chart's data
    table keep the exact value.
    """
    if not labels:
        return {"empty": True, "title": title, "desc": desc}
    ticks = nice_ticks(0, max(max(values) * 1.1, 1))
    high = ticks[-1]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / len(labels)
    bar_w = min(slot * 0.7, 56)
    written, every = _bar_values(values, slot)
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
                "shown_value": written[i] if i % every == 0 else "",
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


def _bar_values(values: Sequence[float], slot: float) -> tuple[list[str], int]:
    """The values to write over bars ``slot`` units apart, and over which bars (every how many)."""
    for written in ([_label(round(v, 1)) for v in values], [_label(math.floor(v + 0.5)) for v in values]):
        widest = max(text_width(text, bold=True) for text in written)
        if widest + LABEL_GAP <= slot:
            return written, 1
    return written, math.ceil((widest + LABEL_GAP) / slot)
