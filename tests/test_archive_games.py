"""``judge archive-games``: old games out of the hot store and back, nothing lost, even when killed.

The games are copies of a whole game played through the real mail path (``judge demo``: orders,
press, mails in and out, reports, events), written into the real schema by bench/scale.py's filler.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from email import message_from_bytes, policy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import scale  # noqa: E402

from judge.demo.robots import make_mail
from judge.game import cold_store
from judge.game.config import JudgeConfig
from judge.game.store import SCHEMA_VERSION, Store, schema_version
from judge.mail.receive import Judge

FINISHED, RUNNING = 12, 3
BEFORE = "2024-01-01"  # the copies ended on days spread over 2020-2028


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return scale.template_store(tmp_path_factory.mktemp("template"))


@pytest.fixture
def db(template: Path, tmp_path: Path) -> Path:
    path = tmp_path / "judge.sqlite"
    scale.fill(path, template, FINISHED, RUNNING)
    return path


#: bookkeeping that moving a game changes on purpose: judge publish's change counter (a game
#: brought back is a changed game, to be published again)
COUNTERS = ("game_changes",)


def dump(path: Path) -> dict[str, list[tuple]]:
    """Every row of every table, in a stable order (the change counter aside)."""
    conn = sqlite3.connect(path)
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                         "AND name NOT LIKE 'sqlite_%' ORDER BY name") if r[0] not in COUNTERS]
    out = {t: sorted(conn.execute(f"SELECT * FROM [{t}]").fetchall(), key=repr) for t in tables}
    conn.close()
    return out


def cli(*args: str, cwd: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("JUDGE_DB", None)
    return subprocess.Popen([sys.executable, "-m", "judge.cli", "archive-games", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def run(*args: str, cwd: Path) -> tuple[int, str, str]:
    p = cli(*args, cwd=cwd)
    out, err = p.communicate(timeout=300)
    return p.returncode, out.decode(), err.decode()


def old_games(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute("SELECT name FROM games WHERE state = 'finished' AND finished < ? "
                                        "ORDER BY name", (BEFORE,))]
    conn.close()
    return names


def game_rows(path: Path, ids: list[int]) -> dict[str, list[tuple]]:
    """A set of games' rows in every table that holds them (the store at ``path``)."""
    st = Store(path, upgrade=False)
    st.conn.execute("CREATE TEMP TABLE moving (id INTEGER PRIMARY KEY)")
    st.conn.executemany("INSERT INTO temp.moving VALUES (?)", [(i,) for i in ids])
    out = {t: sorted((tuple(r) for r in st.all(f"SELECT * FROM main.[{t}] WHERE {w.format(db='main')}")), key=repr)
           for t, w in cold_store.GAME_TABLES}
    st.close()
    return out


def test_archive_and_restore_round_trip(db: Path, tmp_path: Path) -> None:
    before, orig = dump(db), original(db)
    names = old_games(db)
    assert 2 <= len(names) < FINISHED
    code, out, err = run("--db", str(db), "--before", BEFORE, cwd=tmp_path)
    assert code == 0, err
    report = json.loads(out)
    archive = Path(report["archive"])
    assert archive == db.with_suffix(".archive.sqlite") and archive.is_file()
    assert sorted(report["archived"]) == names and report["rows"] > 100 * len(names)
    assert (archive.stat().st_mode & 0o777) == 0o600

    hot = dump(db)
    ids = [r[0] for r in before["games"] if r[1] in names]
    # the hot store keeps only each game's marked row; every other row of theirs is in the archive
    for table, rows in game_rows(db, ids).items():
        assert rows == [] or table == "games", table
    marked = {r[1]: json.loads(r[6]) for r in hot["games"] if r[1] in names}
    assert all(o.get("archived") for o in marked.values())
    assert game_rows(archive, ids) == game_rows(orig, ids)
    # nothing else moved: the running games and the newer finished games are as they were
    others = [r[0] for r in before["games"] if r[1] not in names]
    assert game_rows(db, others) == game_rows(orig, others)
    assert hot["players"] == before["players"] and hot["inbox"] == before["inbox"]

    # archiving again moves nothing more
    code, out, err = run("--db", str(db), "--before", BEFORE, cwd=tmp_path)
    assert code == 0 and json.loads(out)["archived"] == [], err

    code, out, err = run("--db", str(db), "--restore", *names, cwd=tmp_path)
    assert code == 0, err
    assert dump(db) == before  # every row of every table, as it was
    assert game_rows(archive, ids) == {t: [] for t, _ in cold_store.GAME_TABLES}


def original(db: Path) -> Path:
    """A copy of the store as filled, to compare with."""
    copy = db.with_name("original.sqlite")
    shutil.copyfile(db, copy)
    return copy


def cold_rows(archive: Path, ids: list[int]) -> dict[str, list[tuple]]:
    """The games' rows in the archive file; none while it is still being made (killed then)."""
    if not archive.is_file() or schema_version(archive) != SCHEMA_VERSION:
        return {t: [] for t, _ in cold_store.GAME_TABLES}
    return game_rows(archive, ids)


def has_open(pid: int, path: Path) -> bool:
    """True once process ``pid`` holds ``path`` open (Linux: /proc/PID/fd)."""
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


def cold_stage(db: Path, archive: Path, ids: list[int]) -> str:
    """Where a kill left the move: games copied to the archive, and still whole in the hot store."""
    copied = len(cold_rows(archive, ids)["games"])
    left = len(game_rows(db, ids)["phases"])
    return f"{copied} copied, {left} phases left in the hot store"


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to see when the archive is opened")
def test_killed_at_any_instant_loses_nothing(db: Path, tmp_path: Path) -> None:
    before, orig = dump(db), original(db)
    names = old_games(db)
    ids = [r[0] for r in before["games"] if r[1] in names]
    whole = game_rows(orig, ids)
    archive = db.with_suffix(".archive.sqlite")
    stages = []
    for delay in (0.0, 0.01, 0.03, 0.06, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6):
        # from the moment the process opens the archive file: while it is made, then while games move
        p = cli("--db", str(db), "--before", BEFORE, cwd=tmp_path)
        while p.poll() is None and not has_open(p.pid, archive):
            time.sleep(0.001)
        time.sleep(delay)
        p.send_signal(signal.SIGKILL)
        p.wait()
        archive.exists() and stages.append(cold_stage(db, archive, ids))
        # every game is whole in the hot store or whole in the archive (or both)
        hot = game_rows(db, ids)
        cold = cold_rows(archive, ids)
        for gid in ids:
            one = game_rows(orig, [gid])
            in_hot = all(set(one[t]) <= set(hot[t]) for t in one if t != "games")
            in_cold = all(set(one[t]) <= set(cold[t]) for t in one)
            assert in_hot or in_cold, f"game {gid} lost after a kill at {delay} s"
    print("stages after each kill:", stages)
    code, out, err = run("--db", str(db), "--before", BEFORE, cwd=tmp_path)
    assert code == 0, err
    assert game_rows(archive, ids) == whole
    code, out, err = run("--db", str(db), "--restore", *names, cwd=tmp_path)
    assert code == 0, err
    assert dump(db) == before


def test_a_restore_cut_short_is_finished_by_the_next(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = dump(db)
    names = old_games(db)
    archive = db.with_suffix(".archive.sqlite")
    st = Store(db, upgrade=False)
    cold_store.archive_games(st, archive, datetime(2024, 1, 1, tzinfo=timezone.utc))
    real_delete = cold_store._delete

    def killed(store: Store, db_name: str) -> None:  # the process dies before dropping the archive's copy
        raise KeyboardInterrupt

    monkeypatch.setattr(cold_store, "_delete", killed)
    with pytest.raises(KeyboardInterrupt):
        cold_store.restore_games(st, archive, names)
    st.close()
    assert dump(db) == before  # the hot store has them back already
    monkeypatch.setattr(cold_store, "_delete", real_delete)
    st = Store(db, upgrade=False)
    cold_store.restore_games(st, archive, names)  # finds them restored, drops the archive's copy
    st.close()
    assert dump(db) == before
    ids = [r[0] for r in before["games"] if r[1] in names]
    assert game_rows(archive, ids) == {t: [] for t, _ in cold_store.GAME_TABLES}


def test_bad_requests_change_nothing(db: Path, tmp_path: Path) -> None:
    before = dump(db)
    code, _, err = run("--db", str(db), "--before", "01/01/2024", cwd=tmp_path)
    assert code != 0 and "YYYY-MM-DD" in err
    code, _, err = run("--db", str(db), cwd=tmp_path)
    assert code != 0 and "--before DATE or --restore GAME..." in err
    code, _, err = run("--db", str(db), "--restore", "nosuch", cwd=tmp_path)
    assert code != 0 and "no archive file" in err
    run("--db", str(db), "--before", BEFORE, cwd=tmp_path)
    code, _, err = run("--db", str(db), "--restore", "nosuch", cwd=tmp_path)
    assert code != 0 and "no game 'nosuch'" in err
    code, _, err = run("--db", str(db), "--restore", "run000013", cwd=tmp_path)  # a running game: never archived
    assert code != 0 and "no game 'run000013'" in err
    code, _, err = run("--db", str(tmp_path / "typo.sqlite"), "--before", BEFORE, cwd=tmp_path)
    assert code != 0 and "no judge store" in err and not (tmp_path / "typo.sqlite").exists()
    code, out, err = run("--db", str(db), "--restore", *old_games(db), cwd=tmp_path)
    assert code == 0, err
    assert dump(db) == before


def test_an_archived_game_answers_by_mail_with_where_it_is(db: Path, tmp_path: Path) -> None:
    names = old_games(db)
    st = Store(db, upgrade=False)
    cold_store.archive_games(st, db.with_suffix(".archive.sqlite"), datetime(2024, 1, 1, tzinfo=timezone.utc))
    player = st.scalar("SELECT address FROM players ORDER BY id LIMIT 1")
    st.close()
    judge = Judge(JudgeConfig(address="judge@demo.invalid", db_path=db, code="T", password_cost=4))
    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    name = names[0]
    for i, text in enumerate((f"HISTORY {name}", f"SUMMARY {name}", f"SIGNON F{name} secret1", "LIST")):
        raw = make_mail(player, "judge@demo.invalid", text, "q", message_id=f"<q{i}@x.test>", date=now)
        assert judge.receive(raw, now=now) == "handled"
    replies = [" ".join(message_from_bytes(bytes(r["message"]), policy=policy.default).get_body(("plain",))
                        .get_content().split()) for r in
               judge.store.all("SELECT message FROM outbox WHERE recipients LIKE ? ORDER BY id DESC LIMIT 4",
                               (f'%{player}%',))][::-1]
    judge.close()
    assert len(replies) == 4
    for reply in replies[:3]:
        assert f"game '{name}' is over and was moved to the judge's archive of old games" in reply.lower()
        assert f"judge archive-games --restore {name}" in reply
    assert name not in replies[3].split("Games on this judge")[1]
