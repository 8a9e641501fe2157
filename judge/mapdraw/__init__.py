"""Map pictures of a position: ``draw_svg`` (SVG text) and ``draw_png`` (PNG bytes, painted with cairo)."""

from __future__ import annotations

from judge.mapdraw.draw import draw_png, draw_svg

__all__ = ["draw_svg", "draw_png"]
