"""Draw docs/maps/<variant>-before.png and -after.png: a crowded mid-game board on the old
layout (Voronoi areas round the seeds' ``pos``) and on the map file, at the size results mails
carry it. Run from the repository root: ``python tools/mapgen/pictures.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from judge.engine import Position, adjudicate  # noqa: E402
from judge.mapdraw import draw_png, geometry  # noqa: E402
from judge.mapdraw import canvas, draw  # noqa: E402
from judge.orders import parse_orders  # noqa: E402
from judge.render.zine import MAIL_PNG_BUDGET, MAIL_SCALE  # noqa: E402
from judge.variant import load_variant  # noqa: E402

#: Fall 1903 on the standard board: every power spread out, the Low Countries and the Balkans full
UNITS = {
    "England": ["F Nth", "F Nwg", "A Nwy", "F Eng", "A Bel", "A Lon"],
    "France": ["F Mao", "A Bur", "A Pic", "F Spa/sc", "A Gas", "A Mar", "F Bre"],
    "Germany": ["A Hol", "A Kie", "A Ruh", "F Den", "A Mun", "F Bal", "A Ber", "A Sil"],
    "Italy": ["F Tys", "F Ion", "A Tun", "A Ven", "A Tyr", "F Lyo", "A Pie"],
    "Austria": ["A Ser", "A Rum", "A Gal", "A Bud", "F Gre", "A Vie", "F Alb", "A Tri"],
    "Russia": ["A War", "F Bot", "A Lvn", "F Sev", "A Ukr", "F StP/sc", "A Mos", "A Fin"],
    "Turkey": ["F Bla", "A Bul", "F Aeg", "A Arm", "A Con", "A Smy", "F Eas", "A Ank"],
}
CENTRES = {
    "England": ["Lon", "Edi", "Lvp", "Nwy", "Bel"], "France": ["Bre", "Par", "Mar", "Spa", "Por"],
    "Germany": ["Kie", "Ber", "Mun", "Hol", "Den"], "Italy": ["Nap", "Rom", "Ven", "Tun"],
    "Austria": ["Vie", "Bud", "Tri", "Ser", "Gre", "Rum"], "Russia": ["StP", "Mos", "War", "Sev", "Swe"],
    "Turkey": ["Ank", "Con", "Smy", "Bul"],
}
ORDERS = """
England: A Bel - Hol
England: F Eng S A Bel - Hol
England: A Nwy - Swe
England: F Nth - Hel
Germany: A Ruh S A Hol
Germany: F Bal - Swe
Germany: F Den - Ska
France: F Spa/sc - Wes
France: A Bur - Mun
France: A Pic S A Bel - Hol
Italy: A Tyr S A Bur - Mun
Italy: A Ven - Tri
Italy: A Pie - Mar
Austria: A Vie S A Tri
Austria: A Ser - Bul
Austria: F Alb S F Gre
Turkey: F Aeg - Gre
Turkey: F Bla S A Bul
Turkey: A Con S A Bul
Russia: A Ukr - Rum
Russia: F Sev S A Ukr - Rum
Russia: A War - Sil
"""


def board(variant: str) -> tuple:
    v = load_variant(variant)
    phase = "Fall 1903 Movement"
    m = v.map_at(v.calendar.parse(phase))
    units = {p: [u for u in us if m.terrain.get(u.split()[1].split("/")[0].lower()) in
                 (("sea", "coast") if u[0] == "F" else ("land", "coast"))] for p, us in UNITS.items()}
    centres = {p: [c for c in cs if c.lower() in m.centres] for p, cs in CENTRES.items()}  # (Deluge II: sunk)
    position = {"variant": v.name, "phase": phase, "units": units, "centers": centres, "dislodged": {}}
    before = Position.from_json(position, v)
    parsed = parse_orders(ORDERS, before, warn=False)  # an order for a unit this board lacks: left out
    return v, adjudicate(before, [p.order for p in parsed if p.order is not None])


def main() -> None:
    folder = ROOT / "docs" / "maps"
    folder.mkdir(exist_ok=True)
    for name in ("standard", "coast_running", "deluge2", "1885"):
        if name == "1885":  # its own board: the same units would not fit; its opening instead
            v = load_variant(name)
            pos = Position.from_json(v.start_position(), v)
            results = None
        else:
            v, result = board(name)
            pos, results = result.next, result.results
        for when in ("before", "after"):
            geometry._CACHE.clear()
            draw._PALETTES.clear()
            canvas._LAYERS.clear()
            m = v.map_at(pos.phase)
            if when == "before":
                geometry._CACHE[m] = geometry._make_layout(m)
            png = draw_png(v, pos, results, scale=MAIL_SCALE, budget=MAIL_PNG_BUDGET)
            out = folder / f"{name}-{when}.png"
            out.write_bytes(png)
            print(f"{out.relative_to(ROOT)}: {len(png) // 1024} kB, "
                  f"{'map file' if geometry.layout(m, v.name).real else 'fallback layout'}")


if __name__ == "__main__":
    main()
