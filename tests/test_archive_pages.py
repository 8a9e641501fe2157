"""The archive a community links to: the all-games page, a game's page (map, supply-centre chart,
deadline, master, players and who they replaced, result) and its Atom feed, read as a visitor
gets them: parsed as HTML/XML, and loaded in headless Chromium at desktop and phone widths."""

from __future__ import annotations

import functools
import html as htmllib
import json
import os
import re
import threading
import xml.etree.ElementTree as ET
from contextlib import contextmanager
from datetime import datetime
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from markupsafe import escape

from archive_scenario import HOSTILE_NAME, NAMES, NEWCOMER, club
from judge.game.archive import write_archive
from judge.game.archive_game import deadline_words, result_words
from mail_scenarios import victory
from test_publish import CHROMIUM, chromium
from test_report_html import check_html
from test_service_helpers import Table, hold_all

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    t = club(tmp_path_factory.mktemp("club"))
    out = tmp_path_factory.mktemp("site")
    try:
        counts = write_archive(t.judge.store, out, "TEST")
    finally:
        t.close()
    assert counts["games"] == 4 and counts["phases"] == 5
    return out


class Dom(HTMLParser):
    """A page's elements as (tag, attributes, text inside) with their ids, enough to assert on."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.stack: list[tuple[str, dict[str, str], list[str]]] = []
        self.found: list[tuple[str, dict[str, str], str]] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = (tag, {k: v or "" for k, v in attrs}, [])
        self.stack.append(el)
        if tag in ("img", "link", "meta", "br", "circle", "line", "rect", "polyline"):
            self.handle_endtag(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            t, a, text = self.stack.pop()
            inner = " ".join(text)
            self.found.append((t, a, inner))
            if self.stack:
                self.stack[-1][2].append(inner)
            if t == tag:
                return

    def handle_data(self, data: str) -> None:
        if self.stack:
            self.stack[-1][2].append(data)

    def all(self, tag: str, **attrs: str) -> list[tuple[dict[str, str], str]]:
        return [(a, " ".join(x.split())) for t, a, x in self.found
                if t == tag and all(a.get(k.rstrip("_")) == v for k, v in attrs.items())]

    def by_id(self, ident: str) -> str:
        [(_, text)] = [(a, x) for a, x in self.all_any() if a.get("id") == ident]
        return text

    def all_any(self) -> list[tuple[dict[str, str], str]]:
        return [(a, " ".join(x.split())) for _, a, x in self.found]


def page(site: Path, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")


# -- the game's page ---------------------------------------------------------------------------------
def test_a_running_game_shows_its_map_deadline_master_and_players_with_the_replacement(site: Path) -> None:
    text = page(site, "tg/index.html")
    check_html(text)
    dom = Dom(text)
    assert dom.by_id("state") == "running"
    assert dom.by_id("current") == "Spring 1903 Movement"
    assert dom.by_id("deadline").startswith("Tue 8 Jan 2030, 12:00 UTC (late orders accepted until Wed 9 Jan 2030")
    assert dom.all("time", datetime="2030-01-08T12:00:00+00:00")
    assert dom.by_id("master") == "gm"  # the public name, never the address
    # the current map: the latest processed phase's picture, and the file is there
    [(img, _)] = [(a, x) for a, x in dom.all("img") if a["src"].endswith(".png")]
    assert img["src"] == "005-F1902M.png" and (site / "tg" / img["src"]).read_bytes().startswith(b"\x89PNG")
    assert "after Fall 1902 Movement" in img["alt"] and "max-width:100%" in img["style"]
    players = dom.by_id("players")
    assert f"England {NAMES['England']}" in players
    assert f"Turkey {NAMES['Turkey']} (from S1901M) before: p2, S1901M to S1901M (resigned)" in players
    assert "Italy p" in players  # a player without a name set: the mailbox name
    # the feed is announced to browsers and feed readers, and linked for people
    assert dom.all("link", rel="alternate", type="application/atom+xml", href="feed.xml")
    assert ({"href": "feed.xml"}, "Atom feed") in dom.all("a")


def test_the_supply_centre_chart_is_svg_with_a_line_per_power_axes_and_a_description(site: Path) -> None:
    text = page(site, "tg/index.html")
    dom = Dom(text)
    [(svg, _)] = dom.all("svg")
    assert svg["role"] == "img" and svg["viewbox"].startswith("0 0 ") and "max-width" in svg["style"]
    assert "width" not in svg  # no fixed width: it scales with the page
    title = [x for a, x in dom.all("title") if a.get("id") == "centres-tg-title"]
    desc = [x for a, x in dom.all("desc") if a.get("id") == "centres-tg-desc"]
    assert title == ["Supply centres in game tg, year by year"]
    assert desc and "England: 3 in Start, 5 in 1901, 5 in 1902" in desc[0] and "Russia: 4 in Start" in desc[0]
    assert svg["aria-labelledby"] == "centres-tg-title centres-tg-desc"
    lines = dom.all("polyline")
    assert len(lines) == 7
    colours = {a["stroke"] for a, _ in lines}
    assert "#1f4e9c" in colours and len(colours) == 7  # each power in its colour
    texts = [x for _, x in dom.all("text")]
    assert {"Year", "Supply centres", "Start", "1901", "1902"} <= set(texts)
    assert "England" in texts and "Turkey" in texts
    # the same figures in a table beside it
    rows = dom.by_id("centres")
    assert "Power Start 1901 1902" in rows and "England 3 5 5" in rows and "Russia 4 4 4" in rows
    assert "<script" not in text  # no JavaScript


def test_a_paused_game_says_paused_and_a_game_without_a_played_year_has_no_chart(site: Path) -> None:
    dom = Dom(page(site, "pg/index.html"))
    assert dom.by_id("state") == "paused"
    assert dom.by_id("deadline") == "none while the game is paused"
    assert not dom.all("svg")  # no year played: no chart
    # no phase processed yet: the map is the board at the start, drawn once
    [(img, _)] = dom.all("img")
    assert img["src"] == "000-start.png" and "at the start, Spring 1901 Movement" in img["alt"]
    assert (site / "pg" / "000-start.png").read_bytes().startswith(b"\x89PNG")


def test_a_finished_game_shows_its_result_and_no_deadline(tmp_path: Path) -> None:
    t = victory(tmp_path / "game")
    try:
        write_archive(t.judge.store, tmp_path / "site", "TEST")
    finally:
        t.close()
    dom = Dom(page(tmp_path / "site", "tg/index.html"))
    assert dom.by_id("state") == "finished"
    assert dom.by_id("result") == "England wins (F1901M)."
    assert "Next deadline" not in page(tmp_path / "site", "tg/index.html")
    assert "England 3 5" in dom.by_id("centres")  # the last year's counts, kept in the outcome
    front = Dom(page(tmp_path / "site", "index.html"))
    assert "England wins (F1901M)." in front.by_id("game-tg") and "finished" in front.by_id("game-tg")


@pytest.mark.parametrize("outcome, words", [
    ({"kind": "victory", "winner": ["England"], "phase": "F1905M"}, "England wins (F1905M)."),
    ({"kind": "victory", "winner": ["England", "France"], "phase": "F1905M"},
     "England and France win together (F1905M)."),
    ({"kind": "draw", "powers": ["Austria", "Russia", "Turkey"], "phase": "S1907M"},
     "Draw shared by Austria, Russia and Turkey (S1907M)."),
    ({"kind": "concession", "winner": ["Italy"], "phase": "F1903M"}, "Conceded to Italy (F1903M)."),
    ({"kind": "terminated"}, "Ended by the master without a result."),
    ({"kind": "no winner", "winner": [], "powers": ["Italy", "Turkey"], "phase": "F1910M"},
     "Over without a winner (F1910M); Italy and Turkey survive."),
])
def test_the_result_in_words(outcome: dict[str, Any], words: str) -> None:
    assert result_words(outcome) == words


# -- the all-games page ------------------------------------------------------------------------------
def test_the_all_games_page_lists_state_variant_phase_and_players(site: Path) -> None:
    text = page(site, "index.html")
    check_html(text)
    dom = Dom(text)
    cards = {a["id"]: x for a, x in dom.all("div") if a.get("id", "").startswith("game-")}
    assert list(cards) == ["game-ag", "game-pg", "game-tg", "game-fg"]  # being played, forming, then finished
    tg = cards["game-tg"]
    assert tg.startswith("tg · running · Standard Diplomacy")
    assert "Now playing: Spring 1903 Movement; deadline Tue 8 Jan 2030, 12:00 UTC" in tg
    assert f"England: {NAMES['England']}" in tg and f"Turkey: {NAMES['Turkey']}" in tg
    assert cards["game-pg"].startswith("pg · paused") and "Paused in Spring 1901 Movement" in cards["game-pg"]
    assert cards["game-fg"].startswith("fg · forming") and "Joined: p0" in cards["game-fg"]
    # an anonymous game names nobody until it ends
    ag = cards["game-ag"]
    assert "Anonymous game: the players are named when it ends." in ag
    assert not any(n in ag for n in [*NAMES.values(), "p0", "p1", "p2", "p3", "p4", "p5", "p6"])
    ag_page = page(site, "ag/index.html")
    # nor does the record of the list kept in the archive folder for the next run
    kept = json.loads((site / ".published" / "1.json").read_text(encoding="utf-8"))
    assert kept["ag"]["players"] == [] and kept["ag"]["joined"] == []
    assert kept["tg"]["players"]  # (a public game's line keeps them)
    assert not any(n in ag_page or htmllib.escape(n) in ag_page for n in NAMES.values())
    assert not re.search(r"\bp[0-6]\b", ag_page)
    assert 'href="ag/index.html"' in text


def test_no_address_and_no_raw_markup_of_a_player_on_any_page_or_feed(site: Path) -> None:
    for f in sorted(site.rglob("*")):
        if f.suffix not in (".html", ".xml", ".txt", ".svg"):
            continue
        text = f.read_text(encoding="utf-8")
        assert "@example.test" not in text and NEWCOMER not in text, f
        if f.suffix != ".txt":
            assert HOSTILE_NAME not in text, f  # escaped: text, never a script
            assert "<script" not in text, f
    assert str(escape(HOSTILE_NAME)) in page(site, "tg/index.html")  # shown as the player wrote it


# -- the Atom feed -----------------------------------------------------------------------------------
def test_each_game_has_a_valid_atom_feed_with_an_entry_per_phase(site: Path) -> None:
    root = ET.parse(site / "tg" / "feed.xml").getroot()
    assert root.tag == f"{ATOM}feed"
    for need in ("id", "title", "updated", "author"):
        assert root.find(f"{ATOM}{need}") is not None, need
    assert root.find(f"{ATOM}author/{ATOM}name").text == "Judge TEST"
    assert root.find(f"{ATOM}id").text.startswith("urn:uuid:")
    links = {ln.get("rel"): ln.get("href") for ln in root.findall(f"{ATOM}link")}
    assert links == {"self": "feed.xml", "alternate": "index.html"}
    entries = root.findall(f"{ATOM}entry")
    assert [e.find(f"{ATOM}title").text for e in entries] == [
        "Fall 1902 Movement (F1902M)", "Spring 1902 Movement (S1902M)", "Winter 1901 Adjustment (W1901A)",
        "Fall 1901 Movement (F1901M)", "Spring 1901 Movement (S1901M)"]  # newest first
    ids = [e.find(f"{ATOM}id").text for e in entries]
    assert len(set(ids)) == 5 and all(i.startswith("urn:uuid:") for i in ids)
    for e in entries:
        for need in ("id", "title", "updated", "link", "content"):
            assert e.find(f"{ATOM}{need}") is not None, need
        datetime.fromisoformat(e.find(f"{ATOM}updated").text)  # RFC 3339
        link = e.find(f"{ATOM}link")
        assert link.get("rel") == "alternate" and (site / "tg" / link.get("href")).is_file()
        content = e.find(f"{ATOM}content")
        assert content.get("type") == "html"
        assert '<img src="0' in content.text and "<pre" in content.text  # the map and the report
    assert root.find(f"{ATOM}updated").text == max(e.find(f"{ATOM}updated").text for e in entries)
    assert "F London - North Sea" in entries[-1].find(f"{ATOM}content").text.replace("\xa0", " ")
    # a game with no processed phase has a valid feed without entries
    empty = ET.parse(site / "ag" / "feed.xml").getroot()
    assert empty.find(f"{ATOM}updated").text and not empty.findall(f"{ATOM}entry")


def test_the_feed_links_to_the_archive_s_address_when_it_is_known(tmp_path: Path) -> None:
    t = victory(tmp_path / "game")
    try:
        write_archive(t.judge.store, tmp_path / "site", "TEST", base_url="https://diplomacy.example.org/archive/")
    finally:
        t.close()
    root = ET.parse(tmp_path / "site" / "tg" / "feed.xml").getroot()
    assert root.get("{http://www.w3.org/XML/1998/namespace}base") == "https://diplomacy.example.org/archive/tg/"


# -- incremental -------------------------------------------------------------------------------------
def test_publishing_again_rewrites_only_what_changed(tmp_path: Path) -> None:
    t = Table(tmp_path / "game")
    out = tmp_path / "site"
    try:
        t.start_game()
        hold_all(t)
        first = write_archive(t.judge.store, out, "TEST")
        assert first["written"] == 4 + 3  # the phase's page, map (PNG, SVG), text; the game, its feed, the index
        stamps = {f: f.stat().st_mtime_ns for f in out.rglob("*") if f.is_file()}
        os.utime(out / "tg" / "001-S1901M.png", ns=(1, 1))  # an old time, to see that it is not rewritten
        again = write_archive(t.judge.store, out, "TEST")
        assert again["written"] == 0 and again["games"] == 0  # nothing changed in the store: nothing read
        assert (out / "tg" / "001-S1901M.png").stat().st_mtime_ns == 1
        hold_all(t)  # F1901M processed
        third = write_archive(t.judge.store, out, "TEST")
        # the new phase's four files, the previous phase's page (its "next" link), the game, the feed, the index
        assert third["written"] == 4 + 1 + 3, third
        assert (out / "tg" / "001-S1901M.png").stat().st_mtime_ns == 1
        assert (out / "tg" / "001-S1901M.txt").stat().st_mtime_ns == stamps[out / "tg" / "001-S1901M.txt"]
        # when results last came, read from the changed games only: as a full run says it
        write_archive(t.judge.store, tmp_path / "full", "TEST", full=True)
        latest = [re.search(r"Latest results [^<]*", (d / "index.html").read_text()) for d in (out, tmp_path / "full")]
        assert latest[0] and latest[1] and latest[0].group() == latest[1].group()
        assert json.loads((out / ".published.json").read_text())["latest"] == t.judge.store.scalar(
            "SELECT MAX(processed_at) FROM phases WHERE state = 'processed'")
    finally:
        t.close()


# -- in a browser ------------------------------------------------------------------------------------
#: a page that shows one archive page in a frame exactly ``width`` pixels wide (headless Chromium
#: keeps its window at least 500 wide) and reports how the page was laid out
FRAME = """<!DOCTYPE html>
<html><head><meta charset="utf-8" /><title>probe</title></head><body style="margin:0;">
<iframe id="f" src="%(src)s" style="border:0;width:%(width)dpx;height:900px;"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {
  var d = this.contentDocument, svg = d.querySelector("svg");
  document.body.setAttribute("data-probe", JSON.stringify({
    inner: this.contentWindow.innerWidth, scroll: d.documentElement.scrollWidth,
    imgs: Array.prototype.map.call(d.images, function (i) {
      return {ok: i.complete && i.naturalWidth > 0, w: i.getBoundingClientRect().width}; }),
    svg: svg ? svg.getBoundingClientRect().width : 0,
    lines: d.querySelectorAll("svg polyline").length}));
});
</script></body></html>"""

WIDTHS = {"desktop": 1280, "phone": 390}


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """The archive served over HTTP on this machine (a frame reads its page only from the same origin)."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_port}/"
    finally:
        srv.shutdown()
        srv.server_close()


def probe(url: str, root: Path, rel: str, width: int) -> dict[str, Any]:
    frame = root / f"probe-{width}.html"
    frame.write_text(FRAME % {"src": rel, "width": width}, encoding="utf-8")
    try:
        r = chromium(f"--window-size={max(width, 500) + 40},1000", "--virtual-time-budget=8000", "--dump-dom",
                     url + frame.name)
    finally:
        frame.unlink()
    found = re.search(r'data-probe="([^"]*)"', r.stdout)
    assert found, (rel, r.returncode, r.stderr[-2000:])
    return json.loads(htmllib.unescape(found.group(1)))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium)")
@pytest.mark.parametrize("size", WIDTHS)
def test_the_pages_fit_a_phone_and_a_desktop_in_chromium(site: Path, size: str, tmp_path: Path) -> None:
    """Laid out by Chromium at each width: nothing wider than the screen, the map and the chart
    shown; and a screenshot of each page, kept in ``$ARCHIVE_SHOTS`` when set (to look at)."""
    width = WIDTHS[size]
    with serving(site) as url:
        for rel in ("index.html", "tg/index.html", "pg/index.html", "fg/index.html", "ag/index.html",
                    "tg/002-F1901M.html"):  # a phase: the report as mailed, its figures wrapped on a phone
            seen = probe(url, site, rel, width)
            assert seen["inner"] == width, seen
            assert seen["scroll"] <= width, (rel, size, seen)  # no sideways scrolling
            assert all(i["ok"] for i in seen["imgs"]), (rel, seen)
            if rel == "tg/index.html":
                assert [i["ok"] for i in seen["imgs"]] == [True]
                assert 300 <= seen["imgs"][0]["w"] <= width and 300 <= seen["svg"] <= min(width, 600), seen
                assert seen["lines"] == 7
    shots = Path(os.environ.get("ARCHIVE_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    for rel in ("index.html", "tg/index.html", "pg/index.html", "tg/002-F1901M.html"):
        shot = shots / f"{rel.replace('/', '_').removesuffix('.html')}-{size}.png"
        r = chromium(f"--window-size={width},2000", "--hide-scrollbars", f"--screenshot={shot}",
                     (site / rel).as_uri())
        assert shot.is_file(), r.stderr[-2000:]
    from PIL import Image

    with Image.open(shots / f"tg_index-{size}.png") as im:  # England's line and swatches are on the screen
        blue = sum(n for n, c in im.convert("RGB").getcolors(maxcolors=1 << 20) or []
                   if all(abs(a - b) <= 10 for a, b in zip(c, (0x1F, 0x4E, 0x9C))))
    assert blue > 200, blue


def test_a_game_on_its_own_clock_shows_the_deadline_there_too() -> None:
    from types import SimpleNamespace

    phase = {"deadline": "2030-01-08T12:00:00+00:00", "grace_end": None}
    paris = SimpleNamespace(state="active", options={"timezone": "Europe/Paris"})
    assert deadline_words(paris, phase)[0] == "Tue 8 Jan 2030, 12:00 UTC (Tue 8 Jan, 13:00 Europe/Paris)"
    utc = SimpleNamespace(state="active", options={})
    assert deadline_words(utc, phase)[0] == "Tue 8 Jan 2030, 12:00 UTC"
    odd = SimpleNamespace(state="active", options={"timezone": "Nowhere/Atlantis"})
    assert deadline_words(odd, phase)[0] == "Tue 8 Jan 2030, 12:00 UTC"
