"""Map pictures: valid SVG and PNG for every variant, order marks, provinces without a position."""

from __future__ import annotations

import logging
import re
import struct
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from judge.engine import Position
from judge.mapdraw import draw_png, draw_svg
from judge.mapdraw.geometry import NEUTRAL, layout, province_points
from judge.variant import available_variants, load_variant, load_variant_file
from report_scenarios import known_turns, standard_1901

SVG = "{http://www.w3.org/2000/svg}"


def parse_svg(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def start(name: str) -> Position:
    v = load_variant(name)
    return Position.from_json(v.start_position(), v)


@pytest.mark.parametrize("variant", available_variants())
def test_svg_of_every_variant(variant: str) -> None:
    pos = start(variant)
    root = parse_svg(draw_svg(pos.variant, pos))
    texts = {t.text for t in root.iter(f"{SVG}text")}
    m = pos.map
    for prov in m.provinces.values():  # every province is labelled
        if prov.terrain != "impassable":
            assert prov.key in texts, prov.key
    for name in pos.variant.powers:  # the legend names every power
        assert any(t and t.startswith(name + " ") for t in texts), name
    cells = {c.prov for c in layout(m, variant).cells} - {NEUTRAL}  # (land of no province)
    assert cells == set(m.provinces)  # every province has an area


@pytest.mark.parametrize("variant", available_variants())
def test_png_of_every_variant(variant: str) -> None:
    try:
        import cairocffi  # noqa: F401
    except (ImportError, OSError) as exc:  # the package, or the cairo library under it
        pytest.skip(f"PNG needs cairocffi and the cairo library: {exc}")
    pos = start(variant)
    w, h = png_size(draw_png(pos.variant, pos))
    assert 900 <= w <= 1400 and 800 <= h <= 1300


@pytest.mark.parametrize("variant", available_variants())
def test_pictures_of_known_turns(variant: str) -> None:
    """Every phase of the known turns draws, each on the map of its phase (Deluge II sinks)."""
    for t in known_turns(variant):
        parse_svg(draw_svg(t.before.variant, t.result.next, t.result.results, phase=t.result.next.phase))
        parse_svg(draw_svg(t.before.variant, t.before, t.result.results, phase=t.before.phase))


def test_order_marks() -> None:
    turns = standard_1901()
    fall = turns[1]  # convoy, supports, a cut, bounces, a dislodgement
    svg = draw_svg(fall.before.variant, fall.result.next, fall.result.results)
    root = parse_svg(svg)
    lines = list(root.iter(f"{SVG}line"))
    assert any(l.get("stroke-dasharray") == "6 4" for l in lines)  # failed move
    assert any(l.get("stroke-dasharray") is None and l.get("stroke-width") == "3" for l in lines)  # move
    assert any(l.get("stroke-dasharray") == "1.5 3.5" for l in lines)  # support
    assert any(l.get("stroke-dasharray") == "7 3 1.5 3" for l in lines)  # convoy
    red = [e for e in root.iter() if e.get("fill") == "#c0201a" or e.get("stroke") == "#c0201a"]
    assert len(red) >= 4  # bounce stars, the dislodged unit's ring, the cut support's cross
    assert "Fall 1901" in svg
    winter = turns[3]
    svg = draw_svg(winter.before.variant, winter.result.next, winter.result.results)
    assert 'stroke-dasharray="4 2"' in svg  # the ring round a new build


def test_owned_centres_in_owners_colour() -> None:
    pos = start("standard")
    svg = draw_svg(pos.variant, pos)
    eng = pos.variant.powers["England"].colour
    assert len(re.findall(rf'<circle [^>]*fill="{eng}"', svg)) == 3 + 1  # Edi, Lon, Lvp; the army


def test_province_without_pos(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    text = (Path(load_variant("standard").path)).read_text(encoding="utf-8")
    block = re.search(r"\[provinces\.Bur\]\n(?:[^\n]+\n)*", text).group(0)
    text = text.replace(block, re.sub(r"^pos = .*\n", "", block, flags=re.M))
    path = tmp_path / "standard.toml"
    path.write_text(text, encoding="utf-8")
    v = load_variant_file(path)
    assert v.map.provinces["bur"].pos is None
    with caplog.at_level(logging.WARNING, logger="judge.mapdraw.geometry"):
        pts = province_points(v.map)
    assert "Bur" in caplog.text
    near = [pts[n] for n in v.map.army_adj["bur"]]
    cx, cy = sum(p[0] for p in near) / len(near), sum(p[1] for p in near) / len(near)
    assert abs(pts["bur"][0] - cx) < 40 and abs(pts["bur"][1] - cy) < 40
    pos = Position.from_json({**v.start_position(), "units": {"France": ["A Bur"]}}, v)
    parse_svg(draw_svg(v, pos))


def test_untrusted_text_in_title_is_escaped() -> None:
    pos = start("standard")
    parse_svg(draw_svg(pos.variant, pos, title="<game> & 'co'"))


def test_fast_enough() -> None:
    """An SVG in well under 50 ms on a warm map (the figure is printed by bench/mapdraw.py)."""
    t = standard_1901()[1]
    draw_svg(t.before.variant, t.result.next, t.result.results)
    n = 20
    t0 = time.perf_counter()
    for _ in range(n):
        draw_svg(t.before.variant, t.result.next, t.result.results)
    per = (time.perf_counter() - t0) / n
    assert per < 0.2, f"{per * 1000:.1f} ms per SVG"  # generous: CI machines vary


def test_a_png_does_not_depend_on_the_pictures_drawn_before() -> None:
    """The palette is chosen once per map from the opening position: a picture comes out the same
    whichever pictures of that map were drawn first (a fresh process, or a burst of other games),
    and the order marks' red is exact in it."""
    import io

    from PIL import Image

    from judge.mapdraw import draw as draw_module
    from judge.mapdraw.canvas import _rgb

    turns = standard_1901()
    spring, fall = turns[0], turns[1]  # the fall has bounce stars, a ring and a cross in red

    def fall_png() -> bytes:
        return draw_png(fall.before.variant, fall.result.next, fall.result.results, scale=0.75, budget=33_000)

    draw_module._PALETTES.clear()
    alone = fall_png()
    draw_module._PALETTES.clear()
    draw_png(spring.before.variant, spring.result.next, spring.result.results, scale=0.75, budget=33_000)
    assert fall_png() == alone
    colours = {c for _, c in Image.open(io.BytesIO(alone)).convert("RGB").getcolors(256)}
    assert _rgb(draw_module.FAIL_RED) in colours


def test_a_variant_without_a_map_file_is_drawn_on_the_fallback_layout(tmp_path: Path) -> None:
    """A new variant (no seeds/maps file names it) still gets a picture: Voronoi areas round its
    provinces' ``pos``; the standard board's own variants are drawn from their map file."""
    text = Path(load_variant("standard").path).read_text(encoding="utf-8")
    path = tmp_path / "mapless.toml"
    path.write_text(text.replace('name = "standard"', 'name = "mapless"', 1), encoding="utf-8")
    v = load_variant_file(path)
    assert v.name == "mapless"
    assert not layout(v.map, v.name).real and layout(load_variant("standard").map, "standard").real
    pos = Position.from_json(v.start_position(), v)
    root = parse_svg(draw_svg(v, pos))
    assert {t.text for t in root.iter(f"{SVG}text")} >= {p.key for p in v.map.provinces.values() if p.terrain != "impassable"}
