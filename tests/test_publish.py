"""``judge publish``: the static archive of every game, checked as files and in headless Chromium."""

from __future__ import annotations

import html as htmllib
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge.cli import main
from judge.game.archive import write_archive
from mail_scenarios import EVIL, PUBLIC, SECRET, showcase
from test_report_html import check_html
from test_service_helpers import MASTER, Table, hold_all

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SEA = (0xB8, 0xD2, 0xE6)  # judge.mapdraw.draw.SEA


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    t = showcase(tmp_path_factory.mktemp("game"))
    out = tmp_path_factory.mktemp("archive")
    counts = write_archive(t.judge.store, out, "TEST")
    t.close()
    assert counts == {"games": 1, "phases": 4, "pictures": 4, "written": 4 * 4 + 3}  # + index, game, feed
    return out


def pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def links(page: Path) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8"))


def test_archive_has_an_index_a_game_page_and_a_page_per_phase(archive: Path) -> None:
    names = sorted(str(p.relative_to(archive)) for p in pages(archive))
    assert names == ["index.html", "tg/001-S1901M.html", "tg/002-F1901M.html", "tg/003-F1901R.html",
                     "tg/004-W1901A.html", "tg/index.html"]
    game = (archive / "tg" / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{n[3:]}"' in game for n in names if n.startswith("tg/0"))
    assert 'href="tg/index.html"' in (archive / "index.html").read_text(encoding="utf-8")
    for n in ("001-S1901M", "004-W1901A"):
        assert (archive / "tg" / f"{n}.png").read_bytes().startswith(b"\x89PNG")
        assert "<svg" in (archive / "tg" / f"{n}.svg").read_text(encoding="utf-8")
        assert (archive / "tg" / f"{n}.txt").read_text(encoding="utf-8").startswith("Game tg - ")


def test_pages_are_valid_and_every_link_is_relative_and_resolves(archive: Path) -> None:
    for page in pages(archive):
        check_html(page.read_text(encoding="utf-8"))
        for url in links(page):
            assert not re.match(r"^[a-z]+:|^/", url), (page, url)  # relative, no cid:, no http
            assert (page.parent / url).resolve().is_file(), (page, url)
        assert "<script" not in page.read_text(encoding="utf-8")  # no JavaScript


def test_phase_page_shows_the_report_and_the_map(archive: Path) -> None:
    page = (archive / "tg" / "001-S1901M.html").read_text(encoding="utf-8")
    assert re.search(r'<img src="001-S1901M\.png" alt="Map of game tg', page)
    assert "F London - North Sea" in page.replace("\xa0", " ")
    assert 'href="002-F1901M.html"' in page and 'href="001-S1901M.svg"' in page
    last = (archive / "tg" / "004-W1901A.html").read_text(encoding="utf-8")
    assert 'href="003-F1901R.html"' in last and "F1901R" in last


def test_only_public_matter_is_published(archive: Path) -> None:
    everything = "\n".join(p.read_text(encoding="utf-8") for p in archive.rglob("*") if p.suffix in (".html", ".txt", ".xml"))
    assert SECRET not in everything  # private press
    assert PUBLIC in everything  # a broadcast
    assert "@example.test" not in everything  # no player's address
    for raw in EVIL:
        assert raw not in "\n".join(p.read_text(encoding="utf-8") for p in pages(archive)), raw


def test_judge_publish_command_and_rollback(tmp_path: Path) -> None:
    t = Table(tmp_path / "game")
    try:
        t.start_game()
        hold_all(t)
        hold_all(t)
        assert t.phase() == "W1901A" or t.phase() == "S1902M"
        out = tmp_path / "site"
        r = CliRunner().invoke(main, ["publish", str(out), "--db", str(t.cfg.db_path), "--code", "TEST",
                                      "--url", "https://example.org/dip"])
        assert r.exit_code == 0, r.output
        assert 'xml:base="https://example.org/dip/tg/"' in (out / "tg" / "feed.xml").read_text(encoding="utf-8")
        assert json.loads(r.output) == {"games": 1, "phases": 2, "pictures": 2, "written": 2 * 4 + 3}
        assert (out / "tg" / "002-F1901M.html").is_file()
        t.send(MASTER, "SIGNON Mtg masterpw\nROLLBACK S1901M")
        r = CliRunner().invoke(main, ["publish", str(out), "--db", str(t.cfg.db_path)])
        assert json.loads(r.output)["phases"] == 0
        # the undone phases are gone from the archive; the game's page shows the board at the start
        assert [f.name for f in (out / "tg").glob("00*")] == ["000-start.png"]
    finally:
        t.close()
    r = CliRunner().invoke(main, ["publish", str(tmp_path / "x"), "--db", str(tmp_path / "none.sqlite")])
    assert r.exit_code != 0 and "no judge store" in r.output


# -- in a browser --------------------------------------------------------------------------------
PROBE = """<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.map.call(document.images, function (i) {
    return {src: i.getAttribute("src"), ok: i.complete && i.naturalWidth > 0, w: i.naturalWidth};
  });
  document.body.setAttribute("data-probe", JSON.stringify({title: document.title, imgs: imgs,
    links: document.links.length, text: document.body.innerText.length}));
});
</script>"""


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                               "--no-first-run", "--disable-background-networking", "--disable-component-update",
                               "--disable-sync", f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install -y chromium)")
def test_archive_in_headless_chromium(archive: Path, tmp_path: Path) -> None:
    for page in pages(archive):
        # a copy beside the page (same relative links) that reports what the browser loaded
        probe = page.with_name(page.stem + ".probe.html")
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
        try:
            r = chromium("--virtual-time-budget=5000", "--dump-dom", probe.as_uri())
        finally:
            probe.unlink()
        found = re.search(r'data-probe="([^"]*)"', r.stdout)
        assert found, (page, r.returncode, r.stderr[-2000:])
        seen = json.loads(htmllib.unescape(found.group(1)))
        assert seen["title"] and seen["text"] > 100 and seen["links"] >= 1, (page, seen)
        if page.name[0].isdigit():  # a phase: its map is there and decoded
            assert [i["ok"] for i in seen["imgs"]] == [True], (page, seen)
            assert seen["imgs"][0]["w"] >= 500
    # and the map is on the screen
    shot = tmp_path / "phase.png"
    r = chromium("--window-size=1000,1400", "--hide-scrollbars", f"--screenshot={shot}",
                 (archive / "tg" / "002-F1901M.html").as_uri())
    assert shot.is_file(), r.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as im:
        rgb = im.convert("RGB")
        sea = sum(n for n, c in rgb.getcolors(maxcolors=1 << 20) or []
                  if all(abs(a - b) <= 12 for a, b in zip(c, SEA)))
    assert sea > 20000, f"only {sea} sea-coloured pixels: the map did not show"
