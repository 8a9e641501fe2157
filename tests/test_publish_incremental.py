"""``judge publish`` writes again only the games changed since its last run into the folder.

The store counts every change to a game (its row, phases, reports, seats, diary) in
``game_changes``, kept by triggers, so nothing the game service does can be missed.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from judge.game import cold_store
from judge.game import archive
from judge.game.archive import STATE_DIR, STATE_FILE, write_archive
from test_service_helpers import MASTER, Table, hold_all


def two_games(tmp: Path) -> Table:
    t = Table(tmp)
    t.start_game()  # tg, seven players
    t.send(MASTER, "CREATE ?other masterpw standard")  # forming beside it
    return t


def publish(t: Table, out: Path, full: bool = False) -> dict[str, int]:
    return write_archive(t.judge.store, out, "TEST", full=full)


def test_only_the_changed_game_is_written_again(tmp_path: Path) -> None:
    t = two_games(tmp_path)
    out = tmp_path / "site"
    assert publish(t, out)["games"] == 2
    assert publish(t, out) == {"games": 0, "phases": 0, "pictures": 0, "written": 0}  # nothing changed since
    hold_all(t)
    t.advance(hours=25)  # the deadline: tg's first phase processed
    assert t.phase() == "F1901M"
    counts = publish(t, out)
    assert counts["games"] == 1 and counts["phases"] == 1
    assert (out / "tg" / "001-S1901M.html").is_file()
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="tg/001-S1901M.html"' in index and 'href="other/index.html"' in index
    lines = json.loads((out / STATE_DIR / "1.json").read_text(encoding="utf-8"))
    assert set(lines) == {"tg", "other"} and lines["tg"]["turns"] == 1
    # a rollback (phases undone) is a change too: its pages go
    t.send(MASTER, "SIGNON Mtg masterpw\nROLLBACK S1901M")
    assert t.phase() == "S1901M"
    assert publish(t, out)["games"] == 1
    assert not (out / "tg" / "001-S1901M.html").exists()
    t.close()


def test_full_rewrites_every_game_and_a_strange_record_starts_over(tmp_path: Path) -> None:
    t = two_games(tmp_path)
    out = tmp_path / "site"
    publish(t, out)
    assert publish(t, out, full=True)["games"] == 2
    # a record from a store that counted further (another store, a backup put back): start over
    state = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
    (out / STATE_FILE).write_text(json.dumps({**state, "seq": state["seq"] + 1000}), encoding="utf-8")
    assert publish(t, out)["games"] == 2
    (out / STATE_FILE).write_text("{not json", encoding="utf-8")
    assert publish(t, out)["games"] == 2
    t.close()


def test_the_counter_sees_every_writer(tmp_path: Path) -> None:
    t = two_games(tmp_path)
    st = t.judge.store
    seq = lambda: dict(st.all("SELECT g.name, c.seq FROM game_changes c JOIN games g ON g.id = c.game_id"))  # noqa: E731
    before = seq()
    t.send(MASTER, "SIGNON Mother masterpw\nSET PRIVATE")  # the game row (options)
    after = seq()
    assert after["other"] > max(before.values()) and after["tg"] == before["tg"]
    st.conn.execute("UPDATE players SET name = 'Pat' WHERE address = 'p0@example.test'")  # a public name
    assert seq()["tg"] > after["other"]
    t.close()


def test_an_archived_game_keeps_its_pages_and_its_line(tmp_path: Path) -> None:
    t = Table(tmp_path)
    t.start_game()
    out = tmp_path / "site"
    t.send(MASTER, "SIGNON Mtg masterpw\nTERMINATE")
    assert t.game_state() == "terminated"
    t.start_game("other")  # newer rows in every table than tg's (so tg can move)
    publish(t, out)
    page = (out / "tg" / "index.html").read_text(encoding="utf-8")
    t.close()
    db = tmp_path / "judge.sqlite"
    conn = sqlite3.connect(db)  # ended long ago
    conn.execute("UPDATE games SET finished = '2020-01-01T00:00:00+00:00' WHERE name = 'tg'")
    conn.commit()
    conn.close()
    t.reopen()
    moved = cold_store.archive_games(t.judge.store, tmp_path / "cold.sqlite", datetime(2021, 1, 1, tzinfo=timezone.utc))
    assert moved.games == ["tg"], moved.kept
    assert publish(t, out)["games"] == 0  # tg changed (it moved) but its pages stay as they were
    assert (out / "tg" / "index.html").read_text(encoding="utf-8") == page
    assert 'href="tg/index.html"' in (out / "index.html").read_text(encoding="utf-8")
    t.close()


def test_a_host_with_many_games_gets_pages_and_a_run_rewrites_only_the_changed_page(tmp_path: Path,
                                                                                   monkeypatch) -> None:
    monkeypatch.setattr(archive, "PAGE_GAMES", 2)
    t = two_games(tmp_path)  # ids 1 (tg) and 2 (other): page 1
    out = tmp_path / "site"
    assert publish(t, out)["games"] == 2
    assert not list(out.glob("games-*.html"))  # one page: the index is the whole list
    for name in ("third", "fourth", "fifth"):  # pages 2 and 3
        t.send(MASTER, f"CREATE ?{name} masterpw standard")
    assert publish(t, out)["games"] == 3
    assert sorted(p.name for p in out.glob("games-*.html")) == ["games-0001.html", "games-0002.html",
                                                                 "games-0003.html"]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="fifth/index.html"' in index and 'href="tg/index.html"' not in index  # the newest page
    assert "5 games in the order they were made; this is page 3 of 3" in index
    assert all(f'href="games-000{n}.html"' in index for n in (1, 2, 3))
    first = (out / "games-0001.html").read_text(encoding="utf-8")
    assert 'href="tg/index.html"' in first and 'href="other/index.html"' in first
    second = out / "games-0002.html"
    stamp = second.stat().st_mtime_ns
    hold_all(t)
    t.advance(hours=25)  # tg processed: page 1 and the index are written again, page 2 is not
    assert publish(t, out)["games"] == 1
    assert second.stat().st_mtime_ns == stamp
    assert 'href="tg/001-S1901M.html"' in (out / "games-0001.html").read_text(encoding="utf-8")
    t.close()
