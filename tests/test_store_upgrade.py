"""Upgrading the store: every earlier schema version migrates with its data intact, after a backup.

A real store is made at the current schema by playing through the mail path (games, seats,
orders, press, a processed phase with its report, a started 1885 II game, a player at an IDNA
domain). For each earlier version v a store is built as that version of the program left it
(only the first v migration steps, rows copied into the columns that existed then, in the form
that version stored them), then opened as the daemon opens it. Read-only commands must leave an
older store alone and say to run ``judge upgrade``.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import sqlite_utils

from judge.game.store import MIGRATIONS, SCHEMA_VERSION, Store, backup_name, dumps, loads
from judge.mail import Judge
from judge.variant import HIDDEN_UNITS
from test_service_helpers import MASTER, Table, hold_all

ROOT = Path(__file__).resolve().parent.parent
IDN_ADDRESS = "spieler@bücher.example"  # stored as U-labels since the step that made the form canonical
IDN_ACE = "spieler@xn--bcher-kva.example"


def _idna_step() -> int:
    """The step (0-based) that turned stored xn-- addresses into U-labels."""
    return next(i for i, step in enumerate(MIGRATIONS) if "canonical_address" in step.__code__.co_names)


def _hidden_units_step() -> int:
    """The step that gave stored start phases the variant's hidden units (1885 II)."""
    return next(i for i, step in enumerate(MIGRATIONS) if "HIDDEN_UNITS" in step.__code__.co_names)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A store at the current schema with a game under way (orders, press, a report), a started
    1885 II game and a player whose address has an IDNA domain."""
    tmp = tmp_path_factory.mktemp("source")
    t = Table(tmp)
    try:
        t.start_game()
        t.order("England", "F Lon - Nth\nA Lvp - Yor\nF Edi - Nwg",
                extra="PRESS TO F\nShall we share the channel?\nENDPRESS")
        t.send(t.powers["France"], t.signon("France") + "\nBROADCAST\nGreetings from Paris.\nENDPRESS")
        hold_all(t, skip=("England",))
        t.advance(hours=25)  # the deadline passes: Spring 1901 is processed and reported
        assert t.phase() == "F1901M"
        t.order("Germany", "A Mun - Bur")
        t.send(MASTER, "CREATE ?old1885 masterpw 1885")
        t.send(IDN_ACE, "SIGNON ?old1885 idnpw")
        out = t.send(MASTER, "SIGNON Mold1885 masterpw\nSTART")  # the other powers stay vacant
        assert out and all("Error Flag" not in m.subject for m in out), [m.body for m in out]
        assert t.rows("SELECT address FROM players WHERE address = ?", (IDN_ADDRESS,)), "the IDNA player joined"
    finally:
        t.close()
    path = tmp / "judge.sqlite"
    with sqlite3.connect(path) as conn:
        counts = {name: conn.execute(f"SELECT COUNT(*) FROM [{name}]").fetchone()[0]
                  for name in ("games", "seats", "phases", "orders", "press", "reports", "players", "outbox")}
        start_1885 = conn.execute("SELECT p.position FROM phases p JOIN games g ON g.id = p.game_id "
                                  "WHERE g.name = 'old1885'").fetchall()
    assert all(counts.values()), counts
    assert start_1885 and all(HIDDEN_UNITS in loads(p, {}).get("extra", {}) for (p,) in start_1885)
    return path


def _tables(conn: sqlite3.Connection) -> list[str]:
    return [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                       "AND name NOT LIKE 'sqlite_%' ORDER BY name")]


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info([{table}])")]


def _as_stored_by(version: int, table: str, row: dict) -> dict:
    """A current row as the program at schema ``version`` stored it (before the later steps changed it)."""
    if table == "players" and version <= _idna_step() and row["address"] == IDN_ADDRESS:
        row = {**row, "address": IDN_ACE}
    if table == "phases" and version <= _hidden_units_step() and HIDDEN_UNITS in row["position"]:
        pos = loads(row["position"])
        pos["extra"].pop(HIDDEN_UNITS)
        row = {**row, "position": dumps(pos)}
    return row


def _order(conn: sqlite3.Connection, table: str) -> str:
    """``rowid``, or the primary key of a WITHOUT ROWID table (seat_addresses)."""
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    return "1, 2" if "WITHOUT ROWID" in sql.upper() else "rowid"


def build_old_store(source: Path, path: Path, version: int) -> dict[str, list[dict]]:
    """``path``: the store as schema ``version`` left it, holding the source's rows in the columns
    that version had. Returns those rows as written, by table."""
    conn = sqlite3.connect(path, isolation_level=None)
    db = sqlite_utils.Database(conn)
    for step in MIGRATIONS[:version]:
        step(db)
    conn.execute(f"PRAGMA user_version = {version:d}")
    conn.execute("PRAGMA journal_mode=WAL")  # as the judge runs it: the backup must carry the WAL's pages
    src = sqlite3.connect(source)
    src.row_factory = sqlite3.Row
    written: dict[str, list[dict]] = {}
    # the store's change counter last, as the source has it: the triggers that keep it count the
    # copied rows as changes while they are written
    for table in sorted(_tables(conn), key=lambda name: name == "game_changes"):
        if table == "game_changes":
            conn.execute("DELETE FROM game_changes")
        cols = [c for c in _columns(conn, table) if c in _columns(src, table)]
        rows = [_as_stored_by(version, table, {c: r[c] for c in cols})
                for r in src.execute(f"SELECT * FROM [{table}] ORDER BY {_order(src, table)}")]
        conn.executemany(f"INSERT INTO [{table}] ({', '.join(f'[{c}]' for c in cols)}) "
                         f"VALUES ({', '.join('?' for _ in cols)})", [tuple(r.values()) for r in rows])
        written[table] = rows
    src.close()
    conn.close()
    return written


def _schema(conn: sqlite3.Connection) -> dict[str, list[str]]:
    out = {t: sorted(_columns(conn, t)) for t in _tables(conn)}
    out["indexes"] = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' "
                                                        "AND name NOT LIKE 'sqlite_%'"))
    return out


@pytest.mark.parametrize("version", range(SCHEMA_VERSION))
def test_every_earlier_schema_migrates_with_nothing_lost(source: Path, tmp_path: Path, version: int) -> None:
    old = tmp_path / "judge.sqlite"
    written = build_old_store(source, old, version)
    table = Table(tmp_path)  # a Judge opens it as the daemon does: backup, then migrate
    try:
        st = table.judge.store
        assert st.version == SCHEMA_VERSION and st.migrated_from == version
        fresh = Store(tmp_path / "fresh.sqlite")
        assert _schema(st.conn) == _schema(fresh.conn), "a migrated store has exactly a new store's schema"
        fresh.close()
        src = sqlite3.connect(source)
        src.row_factory = sqlite3.Row
        for name, rows in written.items():
            cols = list(rows[0]) if rows else []
            got = [dict(r) for r in st.all(f"SELECT {', '.join(f'[{c}]' for c in cols) or '1'} FROM [{name}] "
                                           f"ORDER BY {_order(src, name)}")] if cols else []
            want = [{c: r[c] for c in cols} for r in src.execute(f"SELECT * FROM [{name}] ORDER BY {_order(src, name)}")]
            # every row kept, every value as the source has it (the IDNA address and the 1885 start
            # units brought to today's form by their steps)
            assert got == want, name
        src.close()
        if version == 0:
            assert st.backup is None  # an empty file: nothing to keep
        else:
            assert st.backup is not None and st.backup.name.startswith(f"judge.schema{version}-")
            assert oct(st.backup.stat().st_mode & 0o777) == "0o600"
            # the backup is the old store, complete in one file: copied alone elsewhere it opens
            alone = tmp_path / "alone" / "judge.sqlite"
            alone.parent.mkdir()
            shutil.copy(st.backup, alone)
            with sqlite3.connect(alone) as back:
                assert back.execute("PRAGMA user_version").fetchone()[0] == version
                assert back.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
                for name, rows in written.items():
                    assert back.execute(f"SELECT COUNT(*) FROM [{name}]").fetchone()[0] == len(rows), name
        if version >= 1:
            # the migrated game goes on: an order is taken and the next deadline processes it
            table.powers = {r["power"]: r["address"] for r in table.rows(
                "SELECT s.power, p.address FROM seats s JOIN players p ON p.id = s.player_id "
                "JOIN games g ON g.id = s.game_id WHERE g.name = 'tg' AND s.role = 'player'")}
            table.passwords = {f"p{i}@example.test": f"pw{i}" for i in range(7)}
            table.n = 10_000  # message-ids of its own, not the copied inbox's
            reply = table.reply_to(table.powers["Italy"], table.order("Italy", "A Ven - Tyr"))
            assert "Error Flag" not in reply.subject and "Army Venice -> Tyrolia" in reply.body, reply.body
            reports = len(table.rows("SELECT phase_id FROM reports"))
            table.advance(days=3)  # the deadline (and grace) pass: the migrated game is processed
            assert table.phase() not in (None, "F1901M")
            assert len(table.rows("SELECT phase_id FROM reports")) == reports + 1
            moved = loads(st.scalar("SELECT position FROM phases p JOIN games g ON g.id = p.game_id "
                                    "WHERE g.name = 'tg' AND p.state = 'open'"))
            assert "A Tyr" in moved["units"]["Italy"], moved["units"]["Italy"]
    finally:
        table.close()


def _cli(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("JUDGE_DB", None)
    return subprocess.run([sys.executable, "-m", "judge.cli", *args], cwd=cwd, env=env, input=stdin,
                          capture_output=True, timeout=300)


def test_read_only_and_console_commands_leave_an_older_store_alone(source: Path, tmp_path: Path) -> None:
    version = SCHEMA_VERSION - 1
    old = tmp_path / "judge.sqlite"
    build_old_store(source, old, version)
    config = tmp_path / "judge.toml"
    config.write_text('[judge]\naddress = "judge@example.test"\ndb_path = "judge.sqlite"\n'
                      '[imap]\nhost = "127.0.0.1"\nuser = "j"\npassword_env = "NOT_READ"\n'
                      '[smtp]\nhost = "127.0.0.1"\n')
    before = {p.name for p in tmp_path.iterdir()}
    for args in (["status", "--db", "judge.sqlite"], ["status", "--config", str(config)],
                 ["game", "list", "--db", "judge.sqlite"], ["game", "show", "--db", "judge.sqlite", "tg"],
                 ["game", "process", "--db", "judge.sqlite", "tg"], ["init", "--db", "judge.sqlite"],
                 ["publish", "--db", "judge.sqlite", "archive"]):
        out = _cli(*args, cwd=tmp_path)
        err = out.stderr.decode()
        assert out.returncode == 1, (args, out.stdout, err)
        assert f"schema version {version} is older" in err and "run `judge upgrade`" in err, (args, err)
        assert "Traceback" not in err, err
    # pipe mode: the MTA keeps the message (75) until the store is upgraded
    out = _cli("deliver", "--db", "judge.sqlite", cwd=tmp_path, stdin=b"From: a@b.test\n\nhi\n")
    assert out.returncode == 75 and b"judge upgrade" in out.stderr, out.stderr
    with sqlite3.connect(old) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
    # nothing written beside it but SQLite's own -wal/-shm: no backup, no archive
    assert {p.name for p in tmp_path.iterdir()} - before <= {"judge.sqlite-wal", "judge.sqlite-shm"}


def test_judge_upgrade_backs_up_then_migrates_and_the_backup_takes_you_back(source: Path, tmp_path: Path) -> None:
    version = 1
    old = tmp_path / "judge.sqlite"
    written = build_old_store(source, old, version)
    out = _cli("upgrade", "--db", "judge.sqlite", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    (backup,) = tmp_path.glob(f"judge.schema{version}-*.sqlite")
    text = out.stdout.decode()
    assert f"migrated from schema {version} to {SCHEMA_VERSION}" in text and backup.name in text, text
    out = _cli("status", "--db", "judge.sqlite", cwd=tmp_path)
    assert out.returncode == 0 and f'"schema": {SCHEMA_VERSION}' in out.stdout.decode(), out.stderr
    out = _cli("upgrade", "--db", "judge.sqlite", cwd=tmp_path)
    assert out.returncode == 0 and "nothing to do" in out.stdout.decode()
    assert len(list(tmp_path.glob("judge.schema*"))) == 1
    # going back (deploy/README.md): the old program's store is the backup, put in the store's place
    for suffix in ("", "-wal", "-shm"):
        Path(f"{old}{suffix}").unlink(missing_ok=True)
    shutil.copy(backup, old)
    with sqlite3.connect(old) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        assert conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == len(written["orders"])
        assert conn.execute("SELECT COUNT(*) FROM press").fetchone()[0] == len(written["press"])


def test_backup_names_carry_the_version_and_never_overwrite(tmp_path: Path) -> None:
    st = Store(tmp_path / "judge.sqlite")
    try:
        name = backup_name(st.path, 4)
        assert name.parent == tmp_path and name.name.startswith("judge.schema4-") and name.suffix == ".sqlite"
        first = st.backup_to(name)
        second = st.backup_to(name)  # the same second: a new name, the first copy kept
        assert first == name and second != first and first.exists() and second.exists()
    finally:
        st.close()


def test_a_newer_store_is_refused_by_every_opening(tmp_path: Path) -> None:
    st = Store(tmp_path / "judge.sqlite")
    st.conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    st.close()
    for kw in ({}, {"readonly": True}, {"upgrade": False}):
        with pytest.raises(RuntimeError, match="newer than this program"):
            Store(tmp_path / "judge.sqlite", **kw)
    assert not list(tmp_path.glob("judge.schema*"))


def test_daemon_factory_migrates_after_a_backup_and_status_view_does_not(source: Path, tmp_path: Path) -> None:
    from judge.daemon.config import JudgeSection
    from judge.daemon.service import Factory
    from judge.game.store import SchemaMismatch

    build_old_store(source, tmp_path / "judge.sqlite", 3)
    section = JudgeSection(address="judge@example.test", db_path=str(tmp_path / "judge.sqlite"),
                           options={"password_cost": 4})
    with pytest.raises(SchemaMismatch, match="judge upgrade"):
        Factory(section)(readonly=True)
    assert not list(tmp_path.glob("judge.schema*"))
    judge = Factory(section)()
    try:
        assert isinstance(judge, Judge) and judge.store.version == SCHEMA_VERSION
        assert [p.name.split("-")[0] for p in tmp_path.glob("judge.schema*")] == ["judge.schema3"]
    finally:
        judge.close()


def test_judge_upgrade_refuses_while_the_daemon_runs(source: Path, tmp_path: Path) -> None:
    from judge.daemon.state import DaemonState

    build_old_store(source, tmp_path / "judge.sqlite", SCHEMA_VERSION - 1)
    config = tmp_path / "judge.toml"
    config.write_text('[judge]\naddress = "judge@example.test"\ndb_path = "judge.sqlite"\n'
                      '[imap]\nhost = "127.0.0.1"\nuser = "j"\npassword_env = "NOT_READ"\n'
                      '[smtp]\nhost = "127.0.0.1"\n')
    state = DaemonState(str(tmp_path / "judge.daemon.sqlite"))
    state.put("pid", os.getpid())  # a live process that started and has not stopped
    state.put("started", 1.0)
    state.close()
    out = _cli("upgrade", "--config", str(config), cwd=tmp_path)
    assert out.returncode == 1 and b"stop it first" in out.stderr, out.stderr
    assert not list(tmp_path.glob("judge.schema*"))
    state = DaemonState(str(tmp_path / "judge.daemon.sqlite"))
    state.put("stopped", 2.0)  # a clean stop recorded
    state.close()
    out = _cli("upgrade", "--config", str(config), cwd=tmp_path)
    assert out.returncode == 0 and b"migrated from schema" in out.stdout, out.stderr


def test_schema_version_reads_a_store_a_killed_writer_left_with_a_journal_to_roll_back(tmp_path: Path) -> None:
    """A process killed inside a write (the daemon, `judge archive-games`) can leave a hot rollback
    journal; a read-only connection cannot roll it back ("attempt to write a readonly database"),
    so the version check on the next start must open it for writing and let SQLite undo the write."""
    from judge.game.store import schema_version

    db = tmp_path / "hot.sqlite"
    writer = (
        "import os, signal, sqlite3, sys\n"
        "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
        "c.execute('PRAGMA journal_mode=DELETE'); c.execute('PRAGMA user_version=7')\n"
        "c.execute('CREATE TABLE t(x)'); c.execute('INSERT INTO t VALUES (1)')\n"
        "c.execute('PRAGMA cache_size=1'); c.execute('BEGIN')\n"
        "c.execute('PRAGMA user_version=99')\n"
        "c.executemany('INSERT INTO t VALUES (?)', ((os.urandom(2000),) for _ in range(500)))\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"  # inside the transaction, its pages spilt to the file
    )
    proc = subprocess.run([sys.executable, "-c", writer, str(db)])
    assert proc.returncode == -9
    assert db.with_name(db.name + "-journal").stat().st_size > 0  # the hot journal is there
    with pytest.raises(sqlite3.OperationalError, match="readonly"):  # what the read-only open alone met
        sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True).execute("PRAGMA user_version").fetchone()
    assert schema_version(db) == 7  # the killed write undone, not half read
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM t").fetchone() == (1,)
