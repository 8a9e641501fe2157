"""Map pictures of a position: ``draw_svg`` (SVG text) and ``draw_png`` (PNG bytes, via cairosvg)."""

from __future__ import annotations

from judge.engine import Position
from judge.engine.orders import OrderResult
from judge.mapdraw.draw import draw_svg
from judge.variant import Phase, Variant


def draw_png(variant: Variant, position: Position, results: list[OrderResult] | None = None,
             phase: Phase | str | None = None, title: str | None = None, scale: float = 1.0) -> bytes:
    """The picture of :func:`draw_svg` as PNG, for mail clients that block SVG."""
    import cairosvg  # imported here: SVG pictures do not need it

    svg = draw_svg(variant, position, results, phase, title)
    return cairosvg.svg2png(bytestring=svg.encode("utf-8"), scale=scale)


__all__ = ["draw_svg", "draw_png"]
