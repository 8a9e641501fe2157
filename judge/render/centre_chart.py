"""The supply-centre chart of the archive's game page: inline SVG, no JavaScript.

One line per power in its colour over the years (the start, then each played year after its
adjustments), labelled axes, a ``<title>`` and a ``<desc>`` that say the figures in words for a
screen reader. The picture scales with its container (``viewBox``, ``width:100%``), so it reads
on a phone as on a desktop; the page puts the same figures in a table beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from markupsafe import Markup, escape

#: the drawing's own coordinates: scaled to the page's width, up to :data:`MAX_WIDTH` pixels (so
#: that its 12-pixel figures read about 10 pixels high on a phone and 16 on a desktop)
WIDTH, HEIGHT, MAX_WIDTH = 440, 280, 600
LEFT, TOP, BOTTOM = 40, 16, 46
#: pixels between the lines of powers holding the same number of centres, so each one shows
SPREAD = 2.6
PAPER = "#fffdf7"
INK = "#5a4f3a"
GRID = "#e4dccb"


@dataclass(frozen=True)
class Series:
    power: str
    colour: str
    counts: list[int]  # one per column


def _step(top: int) -> int:
    return 1 if top <= 8 else 2 if top <= 20 else 5


def _f(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def centre_chart(columns: list[str], series: list[Series], *, chart_id: str, title: str) -> Markup:
    """The chart as an inline ``<svg>``: ``columns`` name the x positions ("Start", "1901", …);
    each series has one count per column. ``chart_id`` makes the title's and description's ids
    unique on the page."""
    n = len(columns)
    top = max([c for s in series for c in s.counts] + [1])
    step = _step(top)
    ymax = -(-top // step) * step
    right = 14 + 7 * max([len(s.power) for s in series] + [4])  # room for the names at the lines' ends
    plot_w, plot_h = WIDTH - LEFT - right, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (n - 1) if n > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h - plot_h * v / ymax

    desc = "; ".join(f"{s.power}: " + ", ".join(f"{c} in {col}" for col, c in zip(columns, s.counts))
                     for s in series)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           f'aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc" '
           f'style="display:block;width:100%;max-width:{MAX_WIDTH}px;height:auto;font-family:Georgia,serif;">',
           f'<title id="{escape(chart_id)}-title">{escape(title)}</title>',
           f'<desc id="{escape(chart_id)}-desc">Supply centres held by each power: {escape(desc)}.</desc>',
           f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="{PAPER}"/>']
    # the grid and the y axis's figures
    for v in range(0, ymax + 1, step):
        out.append(f'<line x1="{LEFT}" y1="{_f(y(v))}" x2="{LEFT + plot_w}" y2="{_f(y(v))}" '
                   f'stroke="{INK if v == 0 else GRID}" stroke-width="1"/>')
        out.append(f'<text x="{LEFT - 8}" y="{_f(y(v) + 4)}" text-anchor="end" font-size="12" fill="{INK}">{v}</text>')
    # the x axis's years (thinned out when there are many, so they never overlap)
    every = max(1, -(-n // 7))
    for i, col in enumerate(columns):
        out.append(f'<line x1="{_f(x(i))}" y1="{TOP + plot_h}" x2="{_f(x(i))}" y2="{TOP + plot_h + 5}" '
                   f'stroke="{INK}"/>')
        if i % every == 0 or i == n - 1:
            out.append(f'<text x="{_f(x(i))}" y="{TOP + plot_h + 20}" text-anchor="middle" font-size="12" '
                       f'fill="{INK}">{escape(col)}</text>')
    out.append(f'<text x="{_f(LEFT + plot_w / 2)}" y="{HEIGHT - 8}" text-anchor="middle" font-size="13" '
               f'fill="{INK}">Year</text>')
    out.append(f'<text x="12" y="{_f(TOP + plot_h / 2)}" text-anchor="middle" font-size="13" fill="{INK}" '
               f'transform="rotate(-90 12 {_f(TOP + plot_h / 2)})">Supply centres</text>')
    # the lines; powers level with others drawn side by side (SPREAD apart)
    ends: dict[int, list[Series]] = {}
    shifts = _shifts(series, n)
    for k, s in enumerate(series):
        pts = " ".join(f"{_f(x(i))},{_f(y(c) + shifts[k][i])}" for i, c in enumerate(s.counts))
        colour = escape(s.colour)
        out.append(f'<g><title>{escape(s.power)}</title>'
                   f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2.4" '
                   'stroke-linejoin="round"/>'
                   + "".join(f'<circle cx="{_f(x(i))}" cy="{_f(y(c) + shifts[k][i])}" r="3" fill="{colour}" '
                             f'stroke="{INK}" stroke-width="0.6"/>' for i, c in enumerate(s.counts)) + "</g>")
        ends.setdefault(s.counts[-1], []).append(s)
    out += _end_labels(ends, x(n - 1) + 9, y, TOP, TOP + plot_h)
    out.append("</svg>")
    return Markup("".join(out))


def _shifts(series: list[Series], n: int) -> list[list[float]]:
    """For each series and column, how far to draw it off its true height: powers holding the
    same number of centres in a year are drawn SPREAD apart around it, so every line shows."""
    out = [[0.0] * n for _ in series]
    for i in range(n):
        level: dict[int, list[int]] = {}
        for k, s in enumerate(series):
            level.setdefault(s.counts[i], []).append(k)
        for ks in level.values():
            for j, k in enumerate(ks):
                out[k][i] = (j - (len(ks) - 1) / 2) * SPREAD
    return out


def _end_labels(ends: dict[int, list[Series]], at_x: float, y: Callable[[float], float], top: float,
                bottom: float) -> list[str]:
    """The powers' names at the end of their lines: those level with each other stacked around
    their line, each stack kept clear of the one below it and inside the plot."""
    line = 13.0
    stacks = []
    for count in sorted(ends, reverse=True):  # from the top of the chart down
        names = ends[count]
        first = y(count) - line * (len(names) - 1) / 2
        stacks.append([first, names])
    for i in range(1, len(stacks)):
        prev_first, prev = stacks[i - 1]
        stacks[i][0] = max(stacks[i][0], prev_first + line * len(prev))
    overflow = stacks[-1][0] + line * (len(stacks[-1][1]) - 1) - bottom if stacks else 0
    shift = max(0.0, overflow)
    out = []
    for first, names in stacks:
        for j, s in enumerate(names):
            ty = max(top, first + j * line - shift)
            out.append(f'<text x="{_f(at_x)}" y="{_f(ty + 4)}" font-size="12" fill="{INK}">{escape(s.power)}</text>')
    return out
