"""``judge publish DIR``: a static HTML archive of every game, turn by turn.

``DIR/index.html`` lists the games; ``DIR/<game>/index.html`` lists a game's processed phases;
``DIR/<game>/NNN-SHORT.html`` is one phase's report as it was mailed (the ``reports`` table), the
map as ``NNN-SHORT.png`` (and ``.svg``), the text part as ``.txt``. Links are relative and no page
needs JavaScript, so the folder can be served by any web server or opened from disk.

Only what observers could see is published: phases are shown once processed, and reports carry
the broadcast press only (:mod:`judge.game.results`). Player addresses are never shown.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import click
from markupsafe import Markup

from judge.render.templates import render_page
from judge.game.archive_paths import phase_stem
from judge.game.cold_store import archived_since
from judge.game.store import SchemaMismatch, Store

PAGE_FILE = re.compile(r"^\d{3,}-[A-Za-z0-9_-]+\.(?:html|png|svg|txt)$")  # what we write in a game's folder


def _outcome(outcome: dict[str, Any] | None) -> str:
    if not outcome:
        return ""
    kind = str(outcome.get("kind", ""))
    who = outcome.get("winner") or outcome.get("powers") or []
    return f"{kind}: {', '.join(who)}" if who else kind


def _report_body(html: str, picture: str) -> str:
    """The inside of a stored report's <body>, its inline map pointing at the picture file."""
    m = re.search(r"<body[^>]*>(.*)</body>", html, re.S)
    inner = m.group(1) if m else html
    return inner.replace('src="cid:map"', f'src="{picture}"')


#: in the archive folder: what the last run published (the store's change counter and a line for
#: each page of games), so the next run writes only the games changed since; ``.published/``
#: holds each page's lines of games
STATE_FILE = ".published.json"
STATE_DIR = ".published"
#: games a page of the list: by id, so a game stays on its page and a change rewrites one page
#: (one page of every game was 47 MB and half a minute's work with 110,000 games)
PAGE_GAMES = 500


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


def write_archive(store: Store, out: Path, code: str = "judge", full: bool = False) -> dict[str, int]:
    """Write the archive of the games in ``store`` into ``out``; returns counts.

    Only the games changed since the last run into ``out`` are written again (the store counts
    every change to a game, its phases, reports, seats and diary: table ``game_changes``, kept by
    triggers), with the pages of the list that name them, and the index; ``full`` (or no record
    of a last run, or a record from a store that counted further than this one) writes every
    game. A game moved to the archive file by ``judge archive-games`` keeps the pages it had and
    its line in the list."""
    from judge.game import lifecycle as games

    out.mkdir(parents=True, exist_ok=True)
    (out / STATE_DIR).mkdir(exist_ok=True)
    counts = {"games": 0, "phases": 0, "pictures": 0}
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

    for row in rows:
        g = games._game(row)
        here = page_lines(_page_of(g.id))
        if archived_since(g.options):  # its pages stay as they were (judge archive-games)
            here.setdefault(g.name, {"name": g.name, "href": f"{g.name}/index.html", "variant": g.variant_name,
                                     "state": g.state, "outcome": _outcome(g.outcome), "current": "",
                                     "turns": 0, "phases": []})
            continue
        for other in [k for k, v in here.items() if v.get("id") == g.id and k != g.name]:
            del here[other]  # (a game renamed since)
        info = _write_game(store, g, out, code, counts)
        here[g.name] = {**{k: info[k] for k in ("name", "href", "variant", "state", "outcome", "current")},
                        "id": g.id, "turns": len(info["phases"]), "phases": info["phases"][-1:]}
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
    published = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    for page, here in lines.items() if paged else ():
        (out / _page_file(page)).write_text(
            render_page("archive/index.html", page_title=f"Judge {code}: games, page {page}", code=code,
                        games=[here[k] for k in sorted(here)], pages=listed, page=page, published=published),
            encoding="utf-8")
    newest_games = lines.get(newest, {})
    (out / "index.html").write_text(
        render_page("archive/index.html", page_title=f"Judge {code}: games", code=code,
                    games=[newest_games[k] for k in sorted(newest_games)], pages=listed if paged else [],
                    page=newest, published=published), encoding="utf-8")
    _write_json(out / STATE_FILE, {"seq": top, "pages": pages})
    return counts


def _write_game(store: Store, g: Any, out: Path, code: str, counts: dict[str, int]) -> dict[str, Any]:
    """One game's folder: its page and a page per processed phase; returns its line of the index."""
    from judge.game import lifecycle as games
    from judge.game.seats import public_label

    folder = out / g.name
    folder.mkdir(exist_ok=True)
    written: set[str] = set()
    phases = []
    for r in store.all("SELECT p.id, p.seq, p.name, p.short, p.report AS text_report, r.subject, r.text, r.html, "
                       "r.png, r.svg FROM phases p LEFT JOIN reports r ON r.phase_id = p.id "
                       "WHERE p.game_id = ? AND p.state = 'processed' ORDER BY p.seq", (g.id,)):
        stem = phase_stem(r["seq"], r["short"])
        phases.append({"row": r, "stem": stem, "href": f"{stem}.html", "name": r["name"], "short": r["short"]})
    for i, ph in enumerate(phases):
        r, stem = ph["row"], ph["stem"]
        picture = svg = txt = None
        if r["png"]:
            (folder / f"{stem}.png").write_bytes(bytes(r["png"]))
            picture = f"{stem}.png"
        if r["svg"]:
            (folder / f"{stem}.svg").write_text(r["svg"], encoding="utf-8")
            svg = f"{stem}.svg"
            picture = picture or svg
        text = r["text"] or r["text_report"] or ""
        if text:
            (folder / f"{stem}.txt").write_text(text, encoding="utf-8")
            txt = f"{stem}.txt"
        counts["pictures"] += bool(picture)
        html = render_page("archive/phase.html", page_title=r["subject"] or f"{g.name} - {r['short']}",
                           game=g.name, title=f"Game {g.name} - {r['name']}",
                           # the report's own HTML, escaped when it was made
                           report=Markup(_report_body(r["html"], picture or "")) if r["html"] else None,
                           text=None if r["html"] else text, picture=picture, svg=svg, txt=txt,
                           prev=phases[i - 1] if i else None, next=phases[i + 1] if i + 1 < len(phases) else None)
        (folder / ph["href"]).write_text(html, encoding="utf-8")
        written.update(x for x in (ph["href"], picture, svg, txt) if x)
        counts["phases"] += 1
    if g.variant_name == "eia_afa":    # no map: the gazettes (the public text) and the teams
        from judge.game import eia as eia_games

        title, players, current_name = eia_games.archive_listing(store, g)
    else:
        v = g.variant
        current = games.current_phase(store, g)
        current_name = current.name if current is not None else ""
        title = v.title
        players = [{"power": s["power"], "player": public_label(store, g, s), "colour": v.powers[s["power"]].colour}
                   for s in games.seats(store, g.id) if s["power"] in v.powers]
        players.sort(key=lambda p: list(v.powers).index(p["power"]))
    # DIARY notes are private until the game is over, then published with it
    diaries = ([{"power": d["power"], "phase": d["phase_name"] or "", "body": d["body"]}
                for d in games.diary_entries(store, g)] if g.state in ("finished", "terminated") else [])
    info = {"name": g.name, "variant": title, "state": g.state, "outcome": _outcome(g.outcome), "diaries": diaries,
            "current": current_name if g.state in ("active", "paused") else "",
            "players": players, "phases": [{k: p[k] for k in ("href", "name", "short")} for p in phases],
            "href": f"{g.name}/index.html"}
    (folder / "index.html").write_text(
        render_page("archive/game.html", page_title=f"Game {g.name} ({title})", code=code, g=info),
        encoding="utf-8")
    for f in folder.iterdir():  # phases undone by a rollback since the last run
        if f.is_file() and PAGE_FILE.match(f.name) and f.name not in written:
            f.unlink()
    return info


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--db", envvar="JUDGE_DB", default="judge.sqlite", show_default=True,
              help="The judge's SQLite file (env JUDGE_DB).")
@click.option("--code", envvar="JUDGE_CODE", default="JUDGE", show_default=True, help="Judge code shown in titles.")
@click.option("--full", is_flag=True, help="Write every game's pages again, not only those changed since the last run.")
def publish(directory: str, db: str, code: str, full: bool) -> None:
    """Write a static HTML archive of every game (reports and maps, turn by turn) into DIRECTORY:
    the games changed since the last run into it, and the index (--full: every game)."""

    if not Path(db).is_file():
        raise click.UsageError(f"no judge store at {db} (give --db)")
    try:  # publishing only reads: it never migrates the store
        store = Store(db, readonly=True)
    except SchemaMismatch as exc:
        raise click.ClickException(str(exc)) from None
    try:
        counts = write_archive(store, Path(directory), code, full=full)
    finally:
        store.close()
    click.echo(json.dumps(counts))


__all__ = ["publish", "write_archive"]
