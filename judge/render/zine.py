"""Zine-style results reports: one phase's results as plain text and HTML, with the map picture.

``render_results(variant, before, result, game)`` returns a :class:`Report`: subject, the text
part (wrapped at 72 columns), the HTML part (same content; the map inline as ``cid:map``) and
the attachments (by default the map as a small palette PNG; ``map_mode`` for SVG, both, a link
to the archive, or none). Templates: ``templates/report/``, through :mod:`judge.render.templates`. Everything a
player wrote (names, press) is escaped in the HTML part by Jinja2's autoescape.
"""

from __future__ import annotations

import logging
import weakref
from dataclasses import dataclass, field, replace

from judge.engine import PhaseResult, Position
from judge.engine.orders import OrderResult
from judge.mapdraw import draw_png, draw_svg
from judge.render.templates import render_report, tidy, wrap, wrap_lines
from judge.render.view import GameInfo, ReportView, build_view
from judge.variant import Map, Phase, Variant

log = logging.getLogger(__name__)


@dataclass
class Attachment:
    filename: str
    content_type: str
    data: bytes
    cid: str | None = None  # Content-ID for inline use (``cid:map``), None for a plain attachment


@dataclass
class Report:
    subject: str
    text: str
    html: str
    attachments: list[Attachment] = field(default_factory=list)  # what the mail carries
    pictures: list[Attachment] = field(default_factory=list)  # every picture drawn (kept for the archive)


#: how a results mail carries the map (``SET MAP``): PNG inline (the default: it fits a list's
#: size limit), SVG inline, both (PNG inline, SVG attached), a link to the archive, or no map
MAP_MODES = ("png", "svg", "both", "link", "off")
#: the mail's PNG: 750 pixels wide, 32 colours; with the text and HTML a report stays under
#: 60 kB even on a crowded board (``tests/test_results_map.py``)
MAIL_SCALE = 0.75
MAIL_PNG_BUDGET = 33_000  # bytes: a busier map is compressed harder, to keep the mail under 60 kB
#: a map still over the budget at the harder compression (1885 II's nine powers and wider board) is drawn once
#: more at this smaller scale (a fixed one, so its palette is worked out once per map, not per picture)
MAIL_SCALE_SMALL = 0.66
#: the share of the budget an opening's picture may take and still leave room for a busy phase
NEAR = 0.85

#: map -> variant name -> (scale, hard): where the mail pictures of that map start
_MAIL_FIT: "weakref.WeakKeyDictionary[Map, dict[str, tuple[float, bool]]]" = weakref.WeakKeyDictionary()


def mail_fit(variant: Variant, m: Map) -> tuple[float, bool]:
    """The scale a mail picture of ``m`` is drawn at, and whether it goes to the harder compression at once.

    Worked out once per map (as its palette is) from the variant's opening position, so each
    phase's picture is drawn and encoded once: 1885 II's went over the budget at ``MAIL_SCALE``
    every phase, and was encoded twice there, then drawn again smaller and encoded twice more.
    Depends only on the map and the variant, never on which game was drawn first; a map the
    opening is not on starts at ``MAIL_SCALE``."""
    per_map = _MAIL_FIT.setdefault(m, {})
    if variant.name not in per_map:
        fit = (MAIL_SCALE, False)
        if m is variant.map:
            start = Position.from_json(variant.start_position(), variant)
            # an opening within NEAR of the budget: a phase with units and arrows on it goes over
            # (the real map's coastlines), so the next step down at once, each picture drawn once
            near = MAIL_PNG_BUDGET * NEAR
            if len(draw_png(variant, start, scale=MAIL_SCALE)) > near:
                if len(draw_png(variant, start, scale=MAIL_SCALE, hard=True)) <= near:
                    fit = (MAIL_SCALE, True)
                else:
                    fit = (MAIL_SCALE_SMALL, len(draw_png(variant, start, scale=MAIL_SCALE_SMALL)) > near)
        per_map[variant.name] = fit
    return per_map[variant.name]


def mail_png(variant: Variant, position: Position, results: list[OrderResult], phase: Phase, title: str) -> bytes:
    """The mail's PNG of ``position``: at the map's :func:`mail_fit`; a board busier than the
    opening that still goes over the budget is drawn once more at ``MAIL_SCALE_SMALL``."""
    scale, hard = mail_fit(variant, variant.map_at(phase))
    picture = draw_png(variant, position, results, phase=phase, title=title, scale=scale, budget=MAIL_PNG_BUDGET,
                       hard=hard)
    if len(picture) > MAIL_PNG_BUDGET and scale > MAIL_SCALE_SMALL:
        picture = draw_png(variant, position, results, phase=phase, title=title, scale=MAIL_SCALE_SMALL,
                           budget=MAIL_PNG_BUDGET)
    return picture


def render_results(variant: Variant, before: Position, result: PhaseResult, game: GameInfo,
                   pictures: bool = True, map_mode: str = "png", map_url: str | None = None) -> Report:
    """The results report of one phase: ``before`` is the board the orders were given on.

    ``map_mode`` (one of :data:`MAP_MODES`) says what the mail carries; ``map_url`` is where the
    archive shows this phase's map (``link``). ``pictures=False``: no map drawn at all."""
    if map_mode not in MAP_MODES:
        raise ValueError(f"map mode {map_mode!r} (modes: {', '.join(MAP_MODES)})")
    if map_mode == "link" and not map_url:
        map_mode = "png"  # no archive to link to (SET MAP LINK is refused without one)
    view: ReportView = build_view(variant, before, result, game)
    subject = f"{game.judge}:{game.name} - {view.phase_short} " + ("Victory" if view.victory else "Results")
    drawn: list[Attachment] = []
    attachments: list[Attachment] = []
    if pictures:
        title = f"{game.name}: after {result.phase}"
        svg = Attachment("map.svg", "image/svg+xml",
                         draw_svg(variant, result.next, result.results, phase=result.next.phase, title=title)
                         .encode("utf-8"))
        png: Attachment | None = None
        if map_mode in ("png", "both", "link"):
            try:
                png = Attachment("map.png", "image/png",
                                 mail_png(variant, result.next, result.results, result.next.phase, title), "map")
            except (ImportError, OSError) as exc:  # no cairo here: the SVG goes inline instead
                log.warning("map picture: no PNG (%s); sending SVG only", exc)
        drawn = [a for a in (png, svg) if a is not None]
        if map_mode == "both" and png is not None:
            attachments = [png, svg]
        elif map_mode in ("png", "both"):
            attachments = [png] if png is not None else [replace(svg, cid="map")]
        elif map_mode == "svg":
            attachments = [replace(svg, cid="map")]
    inline = any(a.cid == "map" for a in attachments)
    context = {"r": view, "subject": subject, "pictures": inline,
               "files": [a.filename for a in attachments], "map_url": map_url if map_mode == "link" else None}
    text = tidy(render_report("results.txt", **context))
    html = render_report("results.html", **context)
    return Report(subject, text, html, attachments, drawn)


__all__ = ["Attachment", "GameInfo", "MAP_MODES", "Report", "mail_fit", "mail_png", "render_results", "wrap",
           "wrap_lines"]
