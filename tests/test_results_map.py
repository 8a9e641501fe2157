"""The map in results mails: small enough for a mailing list, and ``SET MAP`` per game.

Mailing lists refuse mail over 40-100 kB; a results mail with the default map (a 32-colour PNG
inline, no SVG) must stay at or under 60 kB, measured on the bytes the judge queues for SMTP.
"""

from __future__ import annotations

import random
from datetime import datetime, timezone
from pathlib import Path

import pytest

from judge.engine import adjudicate
from judge.engine.position import Position
from judge.orders import parse_orders
from judge.render.zine import GameInfo, render_results
from judge.game import lifecycle as games
from judge.game.config import JudgeConfig
from judge.game.outbox import compose
from judge.demo.robots import Robot
from judge.variant import load_variant

from tests.test_service_helpers import MASTER, Table, hold_all

LIMIT = 60 * 1024
LIST = "tg-list@lists.example.test"
ARCHIVE = "https://judge.example.test/games"


def _results_sizes(t: Table) -> list[int]:
    return [len(r["message"]) for r in t.rows("SELECT message FROM outbox WHERE kind = 'results'")]


def _play_robot_phases(t: Table, phases: int, seed: int = 3) -> None:
    robots = {p: Robot(a, t.passwords[a], random.Random(f"{seed}{p}"), power=p, free_form=False, mistakes=0)
              for p, a in t.powers.items()}
    for _ in range(phases):
        g = games.get_game(t.judge.store, "tg")
        pos = games.current_phase(t.judge.store, g).position
        for p, r in robots.items():
            lines = r.orders(pos)
            t.order(p, "\n".join(lines) if lines else "")


def test_a_results_mail_with_the_default_map_fits_a_list(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    t.send(MASTER, f"SIGNON Mtg masterpw\nSET LIST {LIST}")
    _play_robot_phases(t, 6)  # two game years of robots' moves, supports, retreats and builds
    sizes = _results_sizes(t)
    assert len(sizes) >= 6 * 8  # seven players and the list, each phase
    assert max(sizes) <= LIMIT, max(sizes)
    listed = [m for m in t.mails if LIST in m.to and m.subject.endswith(" Results")]
    assert listed and all(m.msg["List-Id"] for m in listed)
    for m in listed:
        assert not [p.defects for p in m.msg.walk() if p.defects]  # well-formed MIME
        kinds = [p.get_content_type() for p in m.msg.walk()]
        assert "image/png" in kinds and "image/svg+xml" not in kinds
    t.close()


@pytest.mark.parametrize("vname", ["standard", "1885", "deluge2", "coast_running"])
def test_a_crowded_board_still_fits(vname: str) -> None:
    """Every supply centre occupied, every unit moving or supporting: the busiest map there is, in
    every variant (1885 II's nine powers and wider board need the smaller fallback picture)."""
    v = load_variant(vname)
    phase = v.calendar.start
    while phase.kind != "movement":
        phase = v.calendar.following(phase)
    rng = random.Random(5)
    m = v.map
    units: dict[str, list[str]] = {p: [] for p in v.powers}
    for c in sorted(m.centres):
        locs = m.fleet_locs.get(c, ())
        units[rng.choice(list(v.powers))].append(f"F {m.display(locs[0])}" if locs and rng.random() < 0.4
                                                 else f"A {m.display(c)}")
    pos = Position.from_json({"variant": vname, "phase": str(phase), "units": units}, v)
    lines = []
    for u in pos.units.values():
        reach = sorted(m.army_adj.get(u.prov, ()) if u.kind == "A" else m.fleet_reach.get(u.loc, ()))
        lines.append(f"{u.power}: {u.kind} {m.display(u.loc)} - {m.display(rng.choice(reach))}" if reach
                     else f"{u.power}: {u.kind} {m.display(u.loc)} H")
    result = adjudicate(pos, [p.order for p in parse_orders("\n".join(lines), pos) if p.order])
    info = GameInfo(name="crowded", judge="TEST", players={p: f"Player of {p}" for p in v.powers})
    rep = render_results(v, pos, result, info)
    from judge.render.templates import MailText

    cfg = JudgeConfig(address="judge@example.test", db_path=Path("unused.sqlite"), code="TEST")
    data, _ = compose(cfg, [f"p{i}@example.test" for i in range(7)], rep.subject,
                      MailText(rep.text, rep.html, rep.attachments), datetime.now(timezone.utc))
    assert len(data) <= LIMIT, len(data)
    assert [a.filename for a in rep.attachments] == ["map.png"]


def _map_parts(t: Table) -> tuple[list[str], str, str]:
    """The picture parts, text and HTML of the last results mail to the master."""
    m = [m for m in t.mails if MASTER in m.to and m.subject.endswith(" Results")][-1]
    parts = [f"{p.get_content_type()}:{p['Content-ID'] or 'attached'}" for p in m.msg.walk()
             if p.get_content_maintype() == "image"]
    html = next(p for p in m.msg.walk() if p.get_content_type() == "text/html").get_content()
    return parts, m.body, html


@pytest.mark.parametrize("mode,expect", [
    ("PNG", ["image/png:<map>"]),
    ("SVG", ["image/svg+xml:<map>"]),
    ("BOTH", ["image/png:<map>", "image/svg+xml:attached"]),
    ("LINK", []),
    ("OFF", []),
])
def test_set_map_gives_the_mail_its_parts(tmp_path: Path, mode: str, expect: list[str]) -> None:
    t = Table(tmp_path)
    t.cfg.archive_url = ARCHIVE + "/"
    t.start_game()
    out = t.send(MASTER, f"SIGNON Mtg masterpw\nSET MAP {mode}")
    assert "now carry" in t.reply_to(MASTER, out).body
    hold_all(t)
    parts, text, html = _map_parts(t)
    assert sorted(parts) == sorted(expect)
    assert ('src="cid:map"' in html) == bool(expect)
    url = f"{ARCHIVE}/tg/001-S1901M.png"  # where ``judge publish`` writes the phase's map
    assert (url in text and f'href="{url}"' in html) == (mode == "LINK")
    assert ("The map of the position is attached" in text) == bool(expect)
    # whatever the mail carries, the archive keeps the SVG, and the PNG wherever one was drawn
    kept = t.rows("SELECT png, svg FROM reports")[-1]
    assert kept["svg"] and bool(kept["png"]) == (mode in ("PNG", "BOTH", "LINK"))
    t.close()


def test_set_map_link_needs_the_archive_and_bad_modes_are_refused(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    out = t.send(MASTER, "SIGNON Mtg masterpw\nSET MAP LINK")
    body = t.reply_to(MASTER, out).body
    assert "no public archive to link to" in body and "SET MAP PNG" in body
    out = t.send(MASTER, "SIGNON Mtg masterpw\nSET MAP JPEG")
    assert "map takes one of PNG, SVG, BOTH, LINK, OFF, not 'JPEG'" in t.reply_to(MASTER, out).body
    assert "map" not in games.get_game(t.judge.store, "tg").options
    out = t.send(t.powers["France"], t.signon("France") + "\nSET MAP OFF")  # the master's setting
    assert "map" not in games.get_game(t.judge.store, "tg").options
    hold_all(t)
    parts, _, _ = _map_parts(t)
    assert parts == ["image/png:<map>"]
    t.close()


@pytest.mark.parametrize("vname", ["standard", "1885"])
def test_every_power_keeps_its_own_colours_in_the_mail_png(vname: str) -> None:
    """The palette PNG has room for each power's colour and its areas' tint (1885 II has nine)."""
    import io

    from PIL import Image

    from judge.mapdraw.canvas import _rgb
    from judge.mapdraw.draw import LAND, TINT
    from judge.mapdraw import draw_png
    from judge.render.zine import MAIL_PNG_BUDGET, MAIL_SCALE

    v = load_variant(vname)
    png = draw_png(v, Position.from_json(v.start_position(), v), scale=MAIL_SCALE, budget=MAIL_PNG_BUDGET)
    img = Image.open(io.BytesIO(png)).convert("RGB")
    used = [c for _, c in img.getcolors(256)]

    def nearest(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
        return min(used, key=lambda c: sum((a - b) ** 2 for a, b in zip(c, rgb)))

    def tint(colour: str) -> tuple[int, int, int]:
        a, b = _rgb(colour), _rgb(LAND)
        return tuple(round(a[i] * TINT + b[i] * (1 - TINT)) for i in range(3))  # type: ignore[return-value]

    for shade, near in ((lambda p: _rgb(p.colour), 2), (lambda p: tint(p.colour), 16)):  # units exact, areas close
        found = {p.name: nearest(shade(p)) for p in v.powers.values()}
        assert len(set(found.values())) == len(found), found  # no two powers share a colour
        far = {p.name: (shade(p), found[p.name]) for p in v.powers.values()
               if sum((a - b) ** 2 for a, b in zip(found[p.name], shade(p))) > near ** 2}
        assert not far, far


@pytest.mark.parametrize("mode,names", [("PNG", ["map.png"]), ("SVG", ["map.svg"]), ("BOTH", ["map.png", "map.svg"])])
def test_a_text_only_reader_gets_the_map_the_text_says_is_attached(tmp_path: Path, mode: str, names: list[str]) -> None:
    """A reader of the text part alone (a text-only client, a phone app that shows no HTML) sees
    the text and, beside it, the map as a file with its name: the map is not hidden under the
    HTML part (``multipart/related``), and it is in the mail once."""
    t = Table(tmp_path)
    t.start_game()
    t.send(MASTER, f"SIGNON Mtg masterpw\nSET MAP {mode}")
    hold_all(t)
    m = [m for m in t.mails if MASTER in m.to and m.subject.endswith(" Results")][-1]
    assert m.msg.get_content_type() == "multipart/mixed"
    assert not [p for p in m.msg.walk() if p.get_content_type() == "multipart/related"]
    text = m.msg.get_body(("plain",)).get_content()
    assert f"The map of the position is attached ({', '.join(names)})" in " ".join(text.split())
    files = [(p.get_filename(), p.get_content_type()) for p in m.msg.iter_attachments()]
    assert [f for f, _ in files] == names
    pictures = [p for p in m.msg.walk() if p.get_content_maintype() == "image"]
    assert len(pictures) == len(names)  # each picture once
    assert pictures[0]["Content-ID"] == "<map>" and pictures[0].get_content_disposition() == "inline"
    html = m.msg.get_body(("html",)).get_content()
    assert 'src="cid:map"' in html  # the HTML reader still sees it in place
    if mode == "PNG":  # the default: within the list budget (SVG and BOTH are larger by choice)
        assert max(len(r["message"]) for r in t.rows("SELECT message FROM outbox WHERE kind = 'results'")) <= LIMIT
    t.close()
