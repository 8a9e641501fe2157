"""``judge publish DIR``: a static HTML archive of every game, turn by turn.

``DIR/index.html`` lists the games (state, variant, phase, players); ``DIR/<game>/index.html`` is
a game's page (the current map, the supply-centre chart, the next deadline, the master, the
players and who they replaced, the result, the phases); ``DIR/<game>/feed.xml`` its Atom feed;
``DIR/<game>/NNN-SHORT.html`` is one phase's report as it was mailed (the ``reports`` table), the
map as ``NNN-SHORT.png`` (and ``.svg``), the text part as ``.txt``. Links are relative and no page
needs JavaScript, so the folder can be served by any web server or opened from disk. A run writes
again only the games changed since the last run (the store counts every change to a game), and
a file only when its content changes, so publishing after every phase rewrites a few files. The
list of games comes in pages of 500 (by the order the games were made) once it outgrows one.

Only what observers could see is published: phases are shown once processed, and reports carry
the broadcast press only (:mod:`judge.game.results`). Player addresses are never shown.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import click
from markupsafe import Markup

from judge.game import archive_game as about, lifecycle
from judge.game.archive_feed import Entry, atom_feed
from judge.game.archive_paths import phase_stem
from judge.game.cold_store import archived_since
from judge.game.seats import anonymous, person_label
from judge.game.store import SchemaMismatch, Store, from_iso
from judge.render.templates import render_page

PAGE_FILE = re.compile(r"^\d{3,}-[A-Za-z0-9_-]+\.(?:html|png|svg|txt)$")  # what we write in a game's folder


#: the all-games page lists the games being played first, then those forming, then the finished ones
LISTING_ORDER = {"running": 0, "paused": 0, "forming": 1, "finished": 2}


def _put(path: Path, data: str | bytes, counts: dict[str, int]) -> None:
    """Write ``path`` only when its content changes: a publish run after every phase rewrites the
    few files the phase changed, and the rest keep their times (for rsync, caches, feed readers)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.stat().st_size == len(raw) and path.read_bytes() == raw:
            return
    except FileNotFoundError:
        pass
    path.write_bytes(raw)
    counts["written"] += 1


def _report_body(html: str, picture: str) -> str:
    """The inside of a stored report's <body>, its inline map pointing at the picture file."""
    m = re.search(r"<body[^>]*>(.*)</body>", html, re.S)
    inner = m.group(1) if m else html
    return inner.replace('src="cid:map"', f'src="{picture}"')


def _write_phases(store: Store, g: Any, folder: Path, counts: dict[str, int]) -> tuple[list[dict[str, Any]], set[str]]:
    """Each processed phase's page, map and text; returns the phases (oldest first) and the files."""
    written: set[str] = set()
    phases = []
    for r in store.all("SELECT p.id, p.seq, p.name, p.short, p.processed_at, p.report AS text_report, r.subject, "
                       "r.text, r.html, r.png, r.svg FROM phases p LEFT JOIN reports r ON r.phase_id = p.id "
                       "WHERE p.game_id = ? AND p.state = 'processed' ORDER BY p.seq", (g.id,)):
        stem = phase_stem(r["seq"], r["short"])
        phases.append({"row": r, "stem": stem, "href": f"{stem}.html", "name": r["name"], "short": r["short"]})
    for i, ph in enumerate(phases):
        r, stem = ph["row"], ph["stem"]
        picture = svg = txt = None
        if r["png"]:
            _put(folder / f"{stem}.png", bytes(r["png"]), counts)
            picture = f"{stem}.png"
        if r["svg"]:
            _put(folder / f"{stem}.svg", r["svg"], counts)
            svg = f"{stem}.svg"
            picture = picture or svg
        text = r["text"] or r["text_report"] or ""
        if text:
            _put(folder / f"{stem}.txt", text, counts)
            txt = f"{stem}.txt"
        ph.update(picture=picture, text=text)
        counts["pictures"] += bool(picture)
        html = render_page("archive/phase.html", page_title=r["subject"] or f"{g.name} - {r['short']}",
                           game=g.name, title=f"Game {g.name} - {r['name']}",
                           # the report's own HTML, escaped when it was made
                           report=Markup(_report_body(r["html"], picture or "")) if r["html"] else None,
                           text=None if r["html"] else text, picture=picture, svg=svg, txt=txt,
                           prev=phases[i - 1] if i else None, next=phases[i + 1] if i + 1 < len(phases) else None)
        _put(folder / ph["href"], html, counts)
        written.update(x for x in (ph["href"], picture, svg, txt) if x)
        counts["phases"] += 1
    return phases, written


def _start_map(store: Store, g: Any, folder: Path, counts: dict[str, int]) -> str | None:
    """A started game's board before its first phase is processed, drawn once as
    ``000-start.png`` (as the results' maps are drawn): the game's page shows it until the first
    results bring their own map."""
    from judge.mapdraw import draw_png
    from judge.render.zine import MAIL_SCALE

    first = store.one("SELECT * FROM phases WHERE game_id = ? AND state = 'open' ORDER BY seq LIMIT 1", (g.id,))
    if first is None:
        return None
    name = "000-start.png"
    if not (folder / name).is_file():  # the start does not change: drawn on the first run only
        ph = lifecycle._phase(first, g.variant)
        (folder / name).write_bytes(draw_png(g.variant, ph.position, title=f"{g.name}: the start, {ph.name}",
                                             scale=MAIL_SCALE))
        counts["written"] += 1
    return name


def _game_info(store: Store, g: Any, phases: list[dict[str, Any]]) -> dict[str, Any]:
    """What the game's page and the all-games page say of ``g`` (public matter only)."""
    from judge.game import eia as eia_games

    current = about.open_phase(store, g)
    chart = None
    if g.variant_name == "eia_afa":    # no map: the gazettes (the public text) and the teams
        title, team, _ = eia_games.archive_listing(store, g)
        players = [{"since": None, "status": "", "before": [], **p} for p in team]
        columns: list[str] = []
        series: list[Any] = []
    else:
        title = g.variant.title
        players = about.players(store, g) if g.state != "forming" else []
        columns, series = about.centre_history(store, g)
        chart = about.chart(g, columns, series)
    deadline, deadline_iso = about.deadline_words(g, current)
    over = g.state in ("finished", "terminated")
    # DIARY notes are private until the game is over, then published with it
    diaries = ([{"power": d["power"], "phase": d["phase_name"] or "", "body": d["body"]}
                for d in lifecycle.diary_entries(store, g)] if over else [])
    latest = phases[-1] if phases else None
    return {"name": g.name, "variant": title, "state": about.STATES.get(g.state, g.state), "over": over,
            "result": about.result_words(g.outcome) if over else "", "diaries": diaries,
            "current": current["name"] if current is not None and not over else "",
            "latest": latest["name"] if latest else "",
            "deadline": deadline, "deadline_iso": deadline_iso, "anonymous": anonymous(g),
            "deadline_short": about.when(from_iso(current["deadline"])) if current is not None and g.state == "active"
            and current["deadline"] else "",
            "master": person_label(store, g.master_id), "players": players,
            "joined": about.forming_players(store, g) if g.state == "forming" else [],
            "chart": chart, "columns": columns, "series": series,
            "picture": latest["picture"] if latest else None,
            "picture_phase": latest["name"] if latest else "",
            "phases": [{k: p[k] for k in ("href", "name", "short")} for p in phases],
            "href": f"{g.name}/index.html"}


def _feed(code: str, g: Any, row: Any, info: dict[str, Any], phases: list[dict[str, Any]],
          base_url: str | None) -> bytes:
    # every Atom entry needs a time: a phase is stamped when processed (the game's start stands in
    # for a phase without one, as no store should have)
    start = row["started"] or row["created"] or "1970-01-01T00:00:00+00:00"
    entries = [Entry(key=f"phase-{p['row']['id']}", title=f"{p['name']} ({p['short']})",
                     updated=p["row"]["processed_at"] or start, href=p["href"], text=p["text"], picture=p["picture"])
               for p in reversed(phases)]
    return atom_feed(code=code, game=g.name, title=f"Game {g.name} ({info['variant']}) on judge {code}",
                     updated=max((e.updated for e in entries), default=start), entries=entries, base_url=base_url)


#: in the archive folder: what the last run published (the store's change counter and a line for
#: each page of games), so the next run writes only the games changed since; ``.published/``
#: holds each page's lines of games
STATE_FILE = ".published.json"
STATE_DIR = ".published"
#: games a page of the list: by id, so a game stays on its page and a change rewrites one page
#: (one page of every game was 47 MB and half a minute's work with 110,000 games)
PAGE_GAMES = 500
#: what a game's line on the all-games page keeps (kept between runs in ``.published/``)
LINE_KEYS = ("name", "href", "variant", "state", "result", "current", "deadline_short", "anonymous", "players",
             "joined", "phases")


def _page_of(game_id: int) -> int:
    return (game_id - 1) // PAGE_GAMES + 1


def _page_file(page: int) -> str:
    return f"games-{page:04d}.html"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, value: Any) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(value, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    os.replace(tmp, path)


def _load_state(out: Path) -> dict[str, Any] | None:
    state = _read_json(out / STATE_FILE)
    ok = isinstance(state, dict) and isinstance(state.get("seq"), int) and isinstance(state.get("pages"), dict)
    return state if ok else None


def _write_game(store: Store, g: Any, row: Any, out: Path, code: str, counts: dict[str, int],
                base_url: str | None) -> dict[str, Any]:
    """One game's folder: its page, its feed and a page per processed phase; returns its line of
    the all-games page."""
    folder = out / g.name
    folder.mkdir(exist_ok=True)
    phases, written = _write_phases(store, g, folder, counts)
    info = _game_info(store, g, phases)
    if not phases and g.state in ("active", "paused") and g.variant_name != "eia_afa":
        info["picture"] = _start_map(store, g, folder, counts)  # the board before the first moves
        written.add(info["picture"] or "")
    _put(folder / "index.html", render_page("archive/game.html", page_title=f"Game {g.name} ({info['variant']})",
                                            code=code, g=info), counts)
    _put(folder / "feed.xml", _feed(code, g, row, info, phases, base_url), counts)
    for f in folder.iterdir():  # phases undone by a rollback since the last run
        if f.is_file() and PAGE_FILE.match(f.name) and f.name not in written:
            f.unlink()
            counts["written"] += 1
    line = {k: info[k] for k in LINE_KEYS}
    if line["anonymous"]:  # the line is kept in the archive folder: nothing the page may not show
        line["players"], line["joined"] = [], []
    return line


def _listed(lines: dict[str, Any]) -> list[dict[str, Any]]:
    """A page's games: those being played first, then those forming, then the finished ones."""
    return sorted(lines.values(), key=lambda info: (LISTING_ORDER.get(info["state"], 9), info["name"]))


def write_archive(store: Store, out: Path, code: str = "judge", base_url: str | None = None,
                  full: bool = False) -> dict[str, int]:
    """Write the archive of the games in ``store`` into ``out``; returns counts (``written``:
    the files whose content changed). ``base_url``: where the archive is served, if known (the
    feeds' links are relative to it).

    Only the games changed since the last run into ``out`` are written again (the store counts
    every change to a game, its phases, reports, seats and diary: table ``game_changes``, kept by
    triggers), with the pages of the list that name them, and the index; ``full`` (or no record
    of a last run, or a record from a store that counted further than this one) writes every
    game. A game moved to the archive file by ``judge archive-games`` keeps the pages it had and
    its line in the list."""
    out.mkdir(parents=True, exist_ok=True)
    (out / STATE_DIR).mkdir(exist_ok=True)
    counts = {"games": 0, "phases": 0, "pictures": 0, "written": 0}
    top = int(store.scalar("SELECT COALESCE(MAX(seq), 0) FROM game_changes") or 0)  # before reading any game
    state = None if full else _load_state(out)
    if state is not None and state["seq"] > top:
        state = None  # another store's record (or this one's, restored from a backup): start over
    if state is None:
        rows = store.all("SELECT * FROM games ORDER BY name")
        pages: dict[str, Any] = {}
    else:
        rows = sorted(store.all("SELECT g.* FROM game_changes c JOIN games g ON g.id = c.game_id WHERE c.seq > ?",
                                (state["seq"],)), key=lambda r: r["name"])
        pages = state["pages"]
    lines: dict[int, dict[str, Any]] = {}  # page -> {game: its line}, the pages this run touches

    def page_lines(page: int) -> dict[str, Any]:
        if page not in lines:
            old = _read_json(out / STATE_DIR / f"{page}.json") if str(page) in pages else None
            lines[page] = old if isinstance(old, dict) else {}
        return lines[page]

    for row in rows:  # (game_changes keeps one row a game: each game comes once)
        g = lifecycle._game(row)
        here = page_lines(_page_of(g.id))
        if archived_since(g.options):  # its pages stay as they were (judge archive-games)
            here.setdefault(g.name, {"name": g.name, "href": f"{g.name}/index.html", "variant": g.variant_name,
                                     "state": about.STATES.get(g.state, g.state), "id": g.id,
                                     "result": about.result_words(g.outcome), "current": "", "deadline_short": "",
                                     "anonymous": False, "players": [], "joined": [], "turns": 0, "phases": []})
            continue
        for other in [k for k, v in here.items() if v.get("id") == g.id and k != g.name]:
            del here[other]  # (a game renamed since)
        line = _write_game(store, g, row, out, code, counts, base_url)
        here[g.name] = {**line, "id": g.id, "turns": len(line["phases"]), "phases": line["phases"][-1:]}
        counts["games"] += 1
    had = len(pages)
    newest = max([int(k) for k in pages] + list(lines) + [0])
    if newest:
        page_lines(newest)
    paged = len(set(pages) | {str(k) for k in lines}) > 1  # one page: the index is the whole list
    if paged and had <= 1:
        for k in list(pages):  # the list outgrew one page: every page gets its file
            page_lines(int(k))
    for page, here in lines.items():
        _write_json(out / STATE_DIR / f"{page}.json", here)
        names = sorted(here)
        pages[str(page)] = {"href": _page_file(page), "first": names[0] if names else "",
                            "last": names[-1] if names else "", "count": len(names)}
    listed = [pages[k] for k in sorted(pages, key=int)]
    # when a phase was last processed: a phase processed since the last run changed its game, so
    # the changed games' phases and the last run's answer give it (a pass over every phase of
    # 110,000 games took 0.7 s a run); a full run, or a record without it, reads them all. (Results
    # a ROLLBACK undid were still sent out when they came: the time stays until a full run)
    latest = state.get("latest") if state is not None else None
    if state is not None and "latest" in state:
        new = store.scalar("SELECT MAX(p.processed_at) FROM game_changes c CROSS JOIN phases p "  # (CROSS: in
                           "ON p.game_id = c.game_id WHERE c.seq > ? AND p.state = 'processed'",  # this order)
                           (state["seq"],))
        latest = max((t for t in (latest, new) if isinstance(t, str)), default=None)
    else:
        latest = store.scalar("SELECT MAX(processed_at) FROM phases WHERE state = 'processed'")
    latest_words = about.when(from_iso(latest)) if latest else ""
    for page, here in lines.items() if paged else ():
        _put(out / _page_file(page),
             render_page("archive/index.html", page_title=f"Judge {code}: games, page {page}", code=code,
                         games=_listed(here), pages=listed, page=page, latest=latest_words), counts)
    _put(out / "index.html",
         render_page("archive/index.html", page_title=f"Judge {code}: games", code=code,
                     games=_listed(lines.get(newest, {})), pages=listed if paged else [], page=newest,
                     latest=latest_words), counts)
    _write_json(out / STATE_FILE, {"seq": top, "pages": pages, "latest": latest})
    return counts


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--db", envvar="JUDGE_DB", default="judge.sqlite", show_default=True,
              help="The judge's SQLite file (env JUDGE_DB).")
@click.option("--code", envvar="JUDGE_CODE", default="JUDGE", show_default=True, help="Judge code shown in titles.")
@click.option("--url", envvar="JUDGE_ARCHIVE_URL", default=None,
              help="Where DIRECTORY is served (env JUDGE_ARCHIVE_URL), for the games' Atom feeds.")
@click.option("--full", is_flag=True, help="Write every game's pages again, not only those changed since the last run.")
def publish(directory: str, db: str, code: str, url: str | None, full: bool) -> None:
    """Write a static HTML archive of every game (reports and maps, turn by turn) into DIRECTORY:
    the games changed since the last run into it, and the index (--full: every game)."""
    if not Path(db).is_file():
        raise click.UsageError(f"no judge store at {db} (give --db)")
    try:  # publishing only reads: it never migrates the store
        store = Store(db, readonly=True)
    except SchemaMismatch as exc:
        raise click.ClickException(str(exc)) from None
    try:
        counts = write_archive(store, Path(directory), code, url, full=full)
    finally:
        store.close()
    click.echo(json.dumps(counts))


__all__ = ["publish", "write_archive"]
