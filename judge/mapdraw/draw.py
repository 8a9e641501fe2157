"""The map picture as SVG: province areas, centres in their owners' colours, units and orders.

Drawn from the variant's province coordinates only (no map art). ``position`` is the board
shown; ``results`` are the orders of the phase just adjudicated, drawn over it: arrows for moves
and retreats (solid when they succeeded, dashed when they failed), dotted support lines, convoy
marks, a star where a move bounced, a red ring round a dislodged unit (drawn beside the unit
that took its place), a cross where a unit was destroyed or removed, a ring round a new build.
"""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from judge.engine import Position
from judge.engine.orders import Build, Convoy, Disband, Hold, OrderResult, Remove, Support, Waive
from judge.mapdraw.geometry import Layout, Point, layout
from judge.variant import Map, Phase, Variant, province_of

SEA, LAND, BLOCKED = "#b8d2e6", "#efe8d6", "#a3a3a3"
COASTLINE, LAND_BORDER, SEA_BORDER = "#54708a", "#b9ab8c", "#d3e3ef"
FAIL_RED = "#c0201a"
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
LEGEND_H = 64
UNIT_R = 9.5


def draw_svg(variant: Variant, position: Position, results: list[OrderResult] | None = None,
             phase: Phase | str | None = None, title: str | None = None) -> str:
    """An SVG picture of ``position`` on the map in force during ``phase`` (default: its phase)."""
    if isinstance(phase, str):
        phase = variant.calendar.parse(phase)
    phase = phase or position.phase
    m = variant.map_at(phase)
    lay = layout(m)
    colours = {name: p.colour for name, p in variant.powers.items()}
    w, h = lay.width, lay.height
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h + LEGEND_H:.0f}" '
        f'viewBox="0 0 {w:.0f} {h + LEGEND_H:.0f}" font-family={quoteattr(FONT)}>',
        f'<rect x="0" y="0" width="{w:.0f}" height="{h + LEGEND_H:.0f}" fill="#ffffff"/>',
        f'<rect x="0" y="0" width="{w:.0f}" height="{h:.0f}" fill="{SEA}"/>',
    ]
    _areas(out, m, lay, position.centres, colours)
    _adjacency(out, m, lay)
    _labels(out, m, lay, position.centres, colours)
    if results:
        _orders(out, m, lay, results, colours, position)
    for u in position.units.values():
        _unit(out, lay.at(u.loc), u.kind, colours.get(u.power, "#888888"))
    for d in position.dislodged.values():
        x, y = lay.at(d.unit.loc)
        _unit(out, (x + 13, y + 11), d.unit.kind, colours.get(d.unit.power, "#888888"), scale=0.8)
        out.append(f'<circle cx="{x + 13:.1f}" cy="{y + 11:.1f}" r="11" fill="none" stroke="{FAIL_RED}" '
                   f'stroke-width="2"/>')
    out.append(f'<rect x="0.5" y="0.5" width="{w - 1:.0f}" height="{h - 1:.0f}" fill="none" stroke="#333" '
               f'stroke-width="1"/>')
    _title(out, title or f"{variant.title}: {phase}")
    _legend(out, variant, position, w, h)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _fmt(pts: list[Point]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)


def mix(colour: str, base: str, t: float) -> str:
    """``t`` of ``colour`` over ``base`` (both ``#rrggbb``)."""
    a, b = _rgb(colour), _rgb(base)
    return "#" + "".join(f"{round(a[i] * t + b[i] * (1 - t)):02x}" for i in range(3))


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    if len(c) == 3:
        c = "".join(ch * 2 for ch in c)
    try:
        return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)
    except ValueError:
        return (136, 136, 136)


def _ink(colour: str) -> str:
    """Black or white, whichever reads on ``colour``."""
    r, g, b = _rgb(colour)
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "#ffffff"


def _terrain_fill(m: Map, p: str) -> str:
    t = m.terrain.get(p, "sea")
    return SEA if t == "sea" else BLOCKED if t == "impassable" else LAND


def _areas(out: list[str], m: Map, lay: Layout, centres: dict[str, str], colours: dict[str, str]) -> None:
    out.append('<g stroke-width="0.6">')
    for cell in lay.cells:
        if not cell.poly or cell.prov not in m.provinces:
            continue
        fill = _terrain_fill(m, cell.prov)
        owner = centres.get(cell.prov)
        if owner and cell.prov in m.centres:
            fill = mix(colours.get(owner, "#888888"), fill, 0.38)
        out.append(f'<polygon points="{_fmt(cell.poly)}" fill="{fill}" stroke="{fill}"/>')
    out.append("</g>")
    coast, inland, sea = [], [], []
    for p, q, a, b in lay.borders:
        seg = f"M{a[0]:.1f},{a[1]:.1f}L{b[0]:.1f},{b[1]:.1f}"
        sp, sq = m.is_sea(p) if p in m.terrain else True, m.is_sea(q) if q in m.terrain else True  # "": sea
        (sea if sp and sq else coast if sp != sq else inland).append(seg)
    for segs, colour, width in ((sea, SEA_BORDER, 1), (inland, LAND_BORDER, 1), (coast, COASTLINE, 1.6)):
        if segs:
            out.append(f'<path d="{"".join(segs)}" fill="none" stroke="{colour}" stroke-width="{width}" '
                       f'stroke-linecap="round"/>')


def _adjacency(out: list[str], m: Map, lay: Layout) -> None:
    segs = []
    for p, ns in m.any_adj.items():
        for n in ns:
            if p < n and p in lay.points and n in lay.points:
                (x1, y1), (x2, y2) = lay.points[p], lay.points[n]
                segs.append(f"M{x1:.0f},{y1:.0f}L{x2:.0f},{y2:.0f}")
    out.append(f'<path d="{"".join(segs)}" fill="none" stroke="#000000" stroke-opacity="0.09" '
               f'stroke-width="0.8"/>')


def _labels(out: list[str], m: Map, lay: Layout, centres: dict[str, str], colours: dict[str, str]) -> None:
    halo, ink = ['<g font-size="10.5" text-anchor="middle" fill="none" stroke="#ffffff" '
                 'stroke-width="3" stroke-opacity="0.8" stroke-linejoin="round">'], \
        ['<g font-size="10.5" text-anchor="middle" fill="#222222">']
    marks = ['<g stroke="#222222" stroke-width="1">']
    for p, prov in m.provinces.items():
        if p not in lay.points or m.terrain[p] == "impassable" and not prov.sc:
            continue
        x, y = lay.points[p]
        key = escape(prov.key)
        style = ' font-style="italic"' if m.is_sea(p) else ""
        halo.append(f'<text x="{x:.1f}" y="{y + 22:.1f}"{style}>{key}</text>')
        ink.append(f'<text x="{x:.1f}" y="{y + 22:.1f}"{style}>{key}</text>')
        if prov.sc:
            owner = centres.get(p)
            fill = colours.get(owner, "#888888") if owner else "#ffffff"
            dx = 3.2 * len(prov.key) + 7
            marks.append(f'<circle cx="{x + dx:.1f}" cy="{y + 18.5:.1f}" r="4.2" fill="{fill}"/>')
    out += halo + ["</g>"] + ink + ["</g>"] + marks + ["</g>"]


def _unit(out: list[str], at: Point, kind: str, colour: str, scale: float = 1.0) -> None:
    x, y = at
    r = UNIT_R * scale
    ink = _ink(colour)
    if kind == "A":
        shape = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}"'
    elif kind == "F":
        shape = f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{2 * r:.1f}" height="{2 * r:.1f}" rx="2.5"'
    else:  # A/F and anything a module adds
        shape = f'<rect x="{x - 1.4 * r:.1f}" y="{y - r:.1f}" width="{2.8 * r:.1f}" height="{2 * r:.1f}" rx="{r:.1f}"'
    size = (11 if len(kind) == 1 else 8) * scale
    out.append(f'{shape} fill="{colour}" stroke="#1a1a1a" stroke-width="1.2"/>')
    out.append(f'<text x="{x:.1f}" y="{y + size * 0.36:.1f}" font-size="{size:.1f}" font-weight="bold" '
               f'text-anchor="middle" fill="{ink}">{escape(kind)}</text>')


# -- orders ---------------------------------------------------------------------------------------
def _line(a: Point, b: Point, cut_start: float, cut_end: float, offset: float = 0.0) -> tuple[Point, Point]:
    """The segment a-b shortened at both ends and moved ``offset`` to its right."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    ox, oy = -uy * offset, ux * offset
    cut_start, cut_end = min(cut_start, d / 3), min(cut_end, d / 3)
    return ((a[0] + ux * cut_start + ox, a[1] + uy * cut_start + oy),
            (b[0] - ux * cut_end + ox, b[1] - uy * cut_end + oy))


def _arrow(out: list[str], a: Point, b: Point, colour: str, dashed: bool) -> Point:
    """A move arrow from ``a`` to ``b`` (unit points); returns where its head ends."""
    (x1, y1), (x2, y2) = _line(a, b, UNIT_R + 1, UNIT_R + 2, offset=3.0)
    dx, dy = x2 - x1, y2 - y1
    d = math.hypot(dx, dy) or 1.0
    ux, uy = dx / d, dy / d
    bx, by = x2 - ux * 10, y2 - uy * 10  # base of the head
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="#1a1a1a" '
               f'stroke-width="4.6" stroke-opacity="0.55"{dash}/>')
    out.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{bx:.1f}" y2="{by:.1f}" stroke="{colour}" '
               f'stroke-width="3"{dash}/>')
    head = [(x2, y2), (bx - uy * 5.5, by + ux * 5.5), (bx + uy * 5.5, by - ux * 5.5)]
    out.append(f'<polygon points="{_fmt(head)}" fill="{colour}" stroke="#1a1a1a" stroke-width="0.9"/>')
    return x2, y2


def _star(out: list[str], at: Point, r: float = 8.0) -> None:
    """The bounce mark."""
    pts = [(at[0] + (r if k % 2 == 0 else r * 0.45) * math.cos(k * math.pi / 8),
            at[1] + (r if k % 2 == 0 else r * 0.45) * math.sin(k * math.pi / 8)) for k in range(16)]
    out.append(f'<polygon points="{_fmt(pts)}" fill="{FAIL_RED}" stroke="#ffffff" stroke-width="1"/>')


def _cross(out: list[str], at: Point, r: float = 7.0) -> None:
    x, y = at
    out.append(f'<path d="M{x - r:.1f},{y - r:.1f}L{x + r:.1f},{y + r:.1f}M{x - r:.1f},{y + r:.1f}L{x + r:.1f},{y - r:.1f}" '
               f'stroke="{FAIL_RED}" stroke-width="3" stroke-linecap="round"/>')


def _orders(out: list[str], m: Map, lay: Layout, results: list[OrderResult], colours: dict[str, str],
            position: Position) -> None:
    moves: dict[str, tuple[Point, Point]] = {}  # unit province -> its move line
    for r in results:
        o = r.order
        dest = getattr(o, "dest", None)
        if o is not None and dest and not isinstance(o, (Support, Convoy)) and _known(lay, o.loc, dest):
            moves[province_of(o.loc)] = (lay.at(o.loc), lay.at(dest))
    under: list[str] = []
    over: list[str] = []
    for r in results:
        o = r.order
        if o is None or r.result == "invalid" or isinstance(o, (Hold, Waive)) or not _known(lay, o.loc):
            continue
        colour = colours.get(r.power, "#888888")
        failed = r.result == "fails"
        here = lay.at(o.loc)
        if isinstance(o, Support):
            target = province_of(o.target)
            if not _known(lay, o.target):
                continue
            if o.dest and target in moves:
                a, b = moves[target]
                aim = (a[0] + (b[0] - a[0]) * 0.6, a[1] + (b[1] - a[1]) * 0.6)
            else:
                aim = lay.at(o.target)
            (x1, y1), (x2, y2) = _line(here, aim, UNIT_R + 1, 0 if o.dest else UNIT_R + 3)
            op = ' stroke-opacity="0.5"' if failed else ""
            under.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
                         f'stroke-width="2.2" stroke-dasharray="1.5 3.5" stroke-linecap="round"{op}/>')
            under.append(f'<circle cx="{x2:.1f}" cy="{y2:.1f}" r="3" fill="{colour}" stroke="#1a1a1a" '
                         f'stroke-width="0.8"{op}/>')
            if failed:
                _cross(over, ((x1 * 2 + x2) / 3, (y1 * 2 + y2) / 3), 4.5)
        elif isinstance(o, Convoy):
            target = province_of(o.target)
            if target in moves:
                a, b = moves[target]
                aim = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            elif _known(lay, o.target, o.dest):
                a, b = lay.at(o.target), lay.at(o.dest)
                aim = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            else:
                continue
            (x1, y1), (x2, y2) = _line(here, aim, UNIT_R + 1, 0)
            op = ' stroke-opacity="0.5"' if failed else ""
            under.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
                         f'stroke-width="2" stroke-dasharray="7 3 1.5 3"{op}/>')
            under.append(f'<circle cx="{x2:.1f}" cy="{y2:.1f}" r="5" fill="#ffffff" stroke="{colour}" '
                         f'stroke-width="2.2"/>')
        elif isinstance(o, (Disband, Remove)):
            if r.result != "invalid":
                _cross(over, here)
        elif isinstance(o, Build):
            if r.result == "succeeds":
                x, y = here
                under.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="14" fill="#ffffff" fill-opacity="0.7" '
                             f'stroke="{colour}" stroke-width="2.5" stroke-dasharray="4 2"/>')
        elif getattr(o, "dest", None) and province_of(o.loc) in moves:
            a, b = moves[province_of(o.loc)]
            tip = _arrow(over, a, b, colour, failed)
            if failed and "bounce" in r.reason:
                _star(over, tip)
        if "dislodged" in r.reason or "disbanded" in r.reason:
            p = province_of(o.loc)
            if p not in position.dislodged and not any(d.unit.loc == o.loc for d in position.dislodged.values()):
                gone = lay.at(o.loc)
                _cross(over, (gone[0] + 13, gone[1] + 11), 5.5)
    out += under + over


def _known(lay: Layout, *locs: str) -> bool:
    return all(province_of(loc) in lay.points for loc in locs)


# -- title and legend ---------------------------------------------------------------------------
def _title(out: list[str], text: str) -> None:
    width = 7.4 * len(text) + 16
    out.append(f'<rect x="8" y="8" width="{width:.0f}" height="24" rx="3" fill="#ffffff" fill-opacity="0.85" '
               f'stroke="#333" stroke-width="0.8"/>')
    out.append(f'<text x="16" y="25" font-size="13" font-weight="bold" fill="#111">{escape(text)}</text>')


def _legend(out: list[str], variant: Variant, position: Position, w: float, h: float) -> None:
    units: dict[str, int] = {}
    centres: dict[str, int] = {}
    for u in position.units.values():
        units[u.power] = units.get(u.power, 0) + 1
    for _, p in position.centres.items():
        centres[p] = centres.get(p, 0) + 1
    n = max(len(variant.powers), 1)
    step = min(150.0, (w - 20) / n)
    y = h + 20
    for i, (name, pw) in enumerate(variant.powers.items()):
        x = 14 + i * step
        out.append(f'<rect x="{x:.1f}" y="{y - 9:.1f}" width="12" height="12" rx="2" fill="{pw.colour}" '
                   f'stroke="#1a1a1a" stroke-width="0.8"/>')
        label = f"{name} {centres.get(name, 0)}/{units.get(name, 0)}"
        size = 11 if step >= 7.2 * len(label) + 18 else 9.5
        out.append(f'<text x="{x + 16:.1f}" y="{y + 1:.1f}" font-size="{size}">{escape(label)}</text>')
    y = h + 48
    x = 14.0
    out.append(f'<text x="{x:.0f}" y="{y + 4:.0f}" font-size="10" fill="#444">centres/units</text>')
    x += 90
    keys: list[tuple[str, str]] = [
        ("move", f'<line x1="{{x}}" y1="{y}" x2="{{x2}}" y2="{y}" stroke="#444" stroke-width="3"/>'),
        ("failed", f'<line x1="{{x}}" y1="{y}" x2="{{x2}}" y2="{y}" stroke="#444" stroke-width="3" '
                   f'stroke-dasharray="6 4"/>'),
        ("support", f'<line x1="{{x}}" y1="{y}" x2="{{x2}}" y2="{y}" stroke="#444" stroke-width="2.2" '
                    f'stroke-dasharray="1.5 3.5" stroke-linecap="round"/>'),
        ("convoy", f'<line x1="{{x}}" y1="{y}" x2="{{x2}}" y2="{y}" stroke="#444" stroke-width="2" '
                   f'stroke-dasharray="7 3 1.5 3"/>'),
    ]
    for name, tmpl in keys:
        out.append(tmpl.format(x=f"{x:.0f}", x2=f"{x + 28:.0f}"))
        out.append(f'<text x="{x + 33:.0f}" y="{y + 4:.0f}" font-size="10" fill="#444">{name}</text>')
        x += 33 + 6.5 * len(name) + 16
    _star(out, (x + 6, y))
    out.append(f'<text x="{x + 18:.0f}" y="{y + 4:.0f}" font-size="10" fill="#444">bounce</text>')
    x += 70
    out.append(f'<circle cx="{x + 6:.0f}" cy="{y}" r="7" fill="none" stroke="{FAIL_RED}" stroke-width="2"/>')
    out.append(f'<text x="{x + 18:.0f}" y="{y + 4:.0f}" font-size="10" fill="#444">dislodged</text>')
    x += 80
    _cross(out, (x + 6, y), 5)
    out.append(f'<text x="{x + 18:.0f}" y="{y + 4:.0f}" font-size="10" fill="#444">destroyed or removed</text>')
    x += 140
    out.append(f'<circle cx="{x + 6:.0f}" cy="{y}" r="4.2" fill="#ffffff" stroke="#222" stroke-width="1"/>')
    out.append(f'<text x="{x + 16:.0f}" y="{y + 4:.0f}" font-size="10" fill="#444">supply centre</text>')
