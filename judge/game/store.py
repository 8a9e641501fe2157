"""The judge's one SQLite file: schema, versioned migrations, transactions and small query helpers.

The schema is created and migrated by :func:`open_store` (``PRAGMA user_version`` holds the
version), never by hand. Tables are made with sqlite-utils; rows are written with plain,
parameterised SQL inside explicit ``BEGIN IMMEDIATE`` transactions (sqlite-utils' write helpers
commit on their own, which would break "one message = one transaction").
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import sqlite_utils

log = logging.getLogger(__name__)

SCHEMA_VERSION = 11

#: seconds a statement waits for another process's lock on the store (SQLite's busy handler)
#: before it fails with "database is locked"; ``JUDGE_BUSY_TIMEOUT`` in the environment changes it
BUSY_TIMEOUT = 30.0
#: SQLite's primary result codes that say the store is unavailable for now (not the data's fault)
_BUSY, _LOCKED, _NOMEM, _IOERR, _FULL, _CANTOPEN, _PROTOCOL = 5, 6, 7, 10, 13, 14, 15


class StoreLocked(sqlite3.OperationalError):
    """Another process holds a lock on the store longer than the busy timeout."""


class BatchLost(sqlite3.OperationalError):
    """SQLite rolled back a whole :meth:`Store.batch` (disk full, I/O error): nothing of it was
    stored, and every input of it must be offered again."""


def transient_cause(exc: BaseException) -> str | None:
    """Why the store is unavailable, if ``exc`` says it is for now: ``"locked"`` (another process
    holds a lock), ``"disk full"``, ``"I/O error"`` or ``"out of memory"``; None for an error
    that retrying cannot mend (a bug, a damaged file). A message met by a transient error was not
    handled and must be offered again later."""
    if isinstance(exc, BatchLost):
        return (transient_cause(exc.__cause__) if exc.__cause__ is not None else None) or "I/O error"
    if isinstance(exc, MemoryError):
        return "out of memory"
    if isinstance(exc, OSError):
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            return "disk full"
        return "I/O error"
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        text = str(exc).lower()
        if code in (_BUSY, _LOCKED, _PROTOCOL) or "locked" in text or "busy" in text:
            return "locked"
        if code == _FULL or "disk is full" in text:
            return "disk full"
        if code in (_IOERR, _CANTOPEN) or "i/o error" in text or "unable to open" in text:
            return "I/O error"
        if code == _NOMEM or "out of memory" in text:
            return "out of memory"
    return None


def describe_cause(cause: str, path: str | Path = "") -> str:
    """One line for people: what the store's trouble is (``cause`` from :func:`transient_cause`)."""
    where = f" {path}" if path else ""
    return {"locked": f"the store{where} is locked by another process",
            "disk full": f"the disk holding the store{where} is full",
            "I/O error": f"the store{where} cannot be read or written (I/O error)",
            "out of memory": "the judge ran out of memory"}.get(cause, f"the store{where} is unavailable ({cause})")


def _busy_timeout_default() -> float:
    try:
        return float(os.environ.get("JUDGE_BUSY_TIMEOUT", "") or BUSY_TIMEOUT)
    except ValueError:
        return BUSY_TIMEOUT


def iso(t: datetime | None) -> str | None:
    """A UTC timestamp as stored: ``2025-01-06T23:30:00+00:00`` (sorts as text)."""
    if t is None:
        return None
    global _last_iso
    last = _last_iso  # (one tuple, read and replaced whole: threads may call this at once)
    if last[0] is t:  # the same (immutable) datetime again: a mail stamps its rows with one "now"
        return last[1]
    u = t.replace(tzinfo=timezone.utc) if t.tzinfo is None else t
    text = u.astimezone(timezone.utc).isoformat(timespec="seconds")
    _last_iso = (t, text)
    return text


_last_iso: tuple[Any, str] = (None, "")  # the datetime iso() was last given (kept alive: by identity), its text


def from_iso(s: str | None) -> datetime | None:
    if not s:
        return None
    return datetime.fromisoformat(s).astimezone(timezone.utc)


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def loads(text: str | None, default: Any = None) -> Any:
    if text is None or text == "":
        return default
    return json.loads(text)


# -- migrations ---------------------------------------------------------------------------------
def _v1(db: sqlite_utils.Database) -> None:
    db["settings"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db["players"].create({"id": int, "address": str, "name": str, "created": str}, pk="id",
                         not_null={"address"}, if_not_exists=True)
    db["players"].create_index(["address"], unique=True, if_not_exists=True)
    db["games"].create({
        "id": int, "name": str, "variant": str, "state": str,  # forming|active|paused|finished|terminated
        "master_id": int, "master_hash": str, "options": str,  # JSON: rules and settings
        "created": str, "started": str, "finished": str, "outcome": str,  # outcome: JSON
    }, pk="id", not_null={"name", "variant", "state"}, foreign_keys=[("master_id", "players", "id")],
        if_not_exists=True)
    db["games"].create_index(["name"], unique=True, if_not_exists=True)
    db["seats"].create({
        "id": int, "game_id": int, "power": str, "role": str,  # role: player|observer
        "player_id": int, "password_hash": str, "status": str,  # active|cd|resigned|ejected|vacant
        "addresses": str,  # JSON list set by SET ADDRESS (empty: the player's own address)
        "wait": int, "draw": int, "joined": str,
    }, pk="id", not_null={"game_id", "role", "status"},
        foreign_keys=[("game_id", "games", "id"), ("player_id", "players", "id")], if_not_exists=True)
    db["seats"].create_index(["game_id"], if_not_exists=True)
    db["phases"].create({
        "id": int, "game_id": int, "seq": int, "name": str, "short": str,
        "position": str, "results": str, "report": str,  # JSON, JSON, public report text
        "state": str,  # open|processed|undone
        "opened": str, "deadline": str, "grace_end": str, "processed_at": str,
    }, pk="id", not_null={"game_id", "seq", "name", "position", "state"},
        foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["phases"].create_index(["game_id", "seq"], if_not_exists=True)
    db["orders"].create({
        "id": int, "phase_id": int, "power": str, "raw": str, "orders": str,  # JSON list of stored orders
        "message_id": str, "created": str, "state": str,  # active|cleared
    }, pk="id", not_null={"phase_id", "power", "state"}, foreign_keys=[("phase_id", "phases", "id")],
        if_not_exists=True)
    db["orders"].create_index(["phase_id", "power"], if_not_exists=True)
    db["future_orders"].create({
        "id": int, "game_id": int, "power": str, "phase_name": str, "raw": str, "message_id": str,
        "created": str, "state": str,  # pending|applied|cleared|dropped
    }, pk="id", not_null={"game_id", "power", "phase_name", "state"},
        foreign_keys=[("game_id", "games", "id")], if_not_exists=True)
    db["press"].create({
        "id": int, "game_id": int, "phase_name": str, "sender": str, "recipients": str, "grey": int,
        "broadcast": int, "body": str, "message_id": str, "created": str,
    }, pk="id", not_null={"game_id", "sender", "body"}, foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True)
    db["inbox"].create({
        "id": int, "message_id": str, "sender": str, "subject": str, "received": str, "source": str,
        "status": str, "detail": str, "raw": bytes,  # raw kept only for messages that failed
    }, pk="id", not_null={"message_id", "status"}, if_not_exists=True)
    db["inbox"].create_index(["message_id"], unique=True, if_not_exists=True)
    db["outbox"].create({
        "id": int, "sender": str, "recipients": str, "message": bytes, "status": str,  # pending|sent|failed
        "attempts": int, "next_attempt": str, "last_error": str, "created": str, "sent_at": str,
        "game_id": int, "kind": str,
    }, pk="id", not_null={"recipients", "message", "status"}, if_not_exists=True)
    db["outbox"].create_index(["status", "next_attempt"], if_not_exists=True)
    db["events"].create({
        "id": int, "game_id": int, "phase_id": int, "kind": str,  # reminder|deadline|grace
        "due": str, "state": str, "done_at": str,  # pending|done|cancelled
    }, pk="id", not_null={"game_id", "kind", "due", "state"}, foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True)
    db["events"].create_index(["state", "due"], if_not_exists=True)


def _v2(db: sqlite_utils.Database) -> None:
    # variant victory rules: a seat's declared alliances (JSON list of power-name lists, 1885 II
    # rule 5b/c) and its concession vote (JSON list of the powers it concedes to, rule 5d)
    cols = db["seats"].columns_dict
    if "allies" not in cols:
        db["seats"].add_column("allies", str)
    if "concede" not in cols:
        db["seats"].add_column("concede", str)


def _v3(db: sqlite_utils.Database) -> None:
    # publishing: a game's mailing-list address (SET LIST), and each processed phase's report as
    # it was mailed (text, HTML, map pictures) for HISTORY and ``judge publish``
    if "list_address" not in db["games"].columns_dict:
        db["games"].add_column("list_address", str)
    db["reports"].create({
        "phase_id": int, "game_id": int, "subject": str, "text": str, "html": str,
        "png": bytes, "svg": str, "created": str,
    }, pk="phase_id", not_null={"game_id", "text", "html"},
        foreign_keys=[("phase_id", "phases", "id"), ("game_id", "games", "id")], if_not_exists=True)


def _v4(db: sqlite_utils.Database) -> None:
    # a phase's current orders without reading the superseded submissions: a player who re-sends
    # orders often left hundreds of those for every order mail (and every late-powers check) to skip
    db.execute("CREATE INDEX IF NOT EXISTS orders_active ON orders (phase_id, power, id) WHERE state = 'active'")


def _v5(db: sqlite_utils.Database) -> None:
    # abuse (issue 13): a digest of each message's text, to see the same mail come back in a loop;
    # replies per sender over a window; wrong passwords (per seat and per sender, for lock-outs);
    # bounces (delivery status notifications) and whether a game's master was told
    if "body_hash" not in db["inbox"].columns_dict:
        db["inbox"].add_column("body_hash", str)
    if "replied" not in db["inbox"].columns_dict:
        db["inbox"].add_column("replied", int)
    db.execute("CREATE INDEX IF NOT EXISTS inbox_sender ON inbox (sender, received)")
    db["auth_failures"].create({"id": int, "game_id": int, "seat": str, "sender": str, "at": str},
                               pk="id", not_null={"game_id", "seat", "sender", "at"}, if_not_exists=True)
    db["auth_failures"].create_index(["game_id", "seat", "at"], if_not_exists=True)
    db["auth_failures"].create_index(["sender", "at"], if_not_exists=True)
    db["bounces"].create({"id": int, "address": str, "message_id": str, "received": str, "detail": str},
                         pk="id", not_null={"address", "received"}, if_not_exists=True)
    db["bounces"].create_index(["address"], if_not_exists=True)
    db["bounce_notices"].create({"game_id": int, "address": str, "told": str}, pk=("game_id", "address"),
                                if_not_exists=True)


def _v6(db: sqlite_utils.Database) -> None:
    # 1885 II hidden start units (issue 14): the judge now places them only where the start
    # position lists them (``extra.hidden_units``); games stored before that have a start phase
    # without the list, and would lose their hidden units. Give each stored start phase the list
    # its variant's start position has.
    from judge.variant import HIDDEN_UNITS, load_variant

    starts: dict[str, tuple[str, dict[str, str]] | None] = {}  # variant -> (start phase, hidden units)
    rows = db.execute("SELECT phases.id, phases.name, phases.position, games.variant FROM phases "
                      "JOIN games ON games.id = phases.game_id").fetchall()
    for pid, name, text, variant in rows:
        if variant not in starts:
            try:
                start = load_variant(variant).start_position()
            except Exception:  # not a Diplomacy variant (an EiA game) or one this judge lacks
                start = {}
            hidden = (start.get("extra") or {}).get(HIDDEN_UNITS)
            starts[variant] = (start["phase"], hidden) if hidden else None
        known = starts[variant]
        if known is None or name != known[0]:
            continue
        pos = loads(text, {})
        extra = pos.setdefault("extra", {})
        if HIDDEN_UNITS in extra:
            continue
        extra[HIDDEN_UNITS] = known[1]
        db.execute("UPDATE phases SET position = ? WHERE id = ?", [dumps(pos), pid])


def _v7(db: sqlite_utils.Database) -> None:
    # internationalized addresses: the judge keeps one form per mailbox (judge/game/addresses.py),
    # an IDNA domain as U-labels. A player stored before in the xn-- form gets that form, so mail
    # from either spelling finds the same player (where both forms are stored already, both stay).
    from judge.game.addresses import canonical_address

    for pid, addr in db.execute("SELECT id, address FROM players WHERE address LIKE '%xn--%'").fetchall():
        new = canonical_address(addr)
        if new and new != addr and db.execute("SELECT 1 FROM players WHERE address = ?", [new]).fetchone() is None:
            db.execute("UPDATE players SET address = ? WHERE id = ?", [new, pid])


def _v8(db: sqlite_utils.Database) -> None:
    # what players write: a seat's draw vote names the powers in the draw (JSON list; NoDIAS games
    # draw among fewer than all survivors); faked press keeps the sender and recipients its
    # readers were shown (JSON) beside the real ones; DIARY notes, private until the game ends
    if "draw_set" not in db["seats"].columns_dict:
        db["seats"].add_column("draw_set", str)
    for col in ("shown_from", "shown_to"):
        if col not in db["press"].columns_dict:
            db["press"].add_column(col, str)
    db["diary"].create({"id": int, "game_id": int, "power": str, "phase_name": str, "body": str,
                        "message_id": str, "created": str},
                       pk="id", not_null={"game_id", "power", "body"}, foreign_keys=[("game_id", "games", "id")],
                       if_not_exists=True)
    db["diary"].create_index(["game_id", "power"], if_not_exists=True)


def _v9(db: sqlite_utils.Database) -> None:
    # proof of address: a code mailed to an address and sent back from it (CONFIRM) before the
    # judge acts for it (OBSERVE, SET NAME), kept as a digest; and where each answer went, for a
    # reply limit per recipient (forty senders naming one Reply-To are one victim)
    if "answered_to" not in db["inbox"].columns_dict:
        db["inbox"].add_column("answered_to", str)
    db.execute("CREATE INDEX IF NOT EXISTS inbox_answered_to ON inbox (answered_to, received)")
    db["confirmations"].create({
        "id": int, "token_hash": str, "address": str, "kind": str,  # kind: observe|name
        "game_id": int, "payload": str, "created": str, "expires": str, "state": str,  # pending|done
    }, pk="id", not_null={"token_hash", "address", "kind", "created", "expires", "state"}, if_not_exists=True)
    db["confirmations"].create_index(["token_hash"], unique=True, if_not_exists=True)


def _v10(db: sqlite_utils.Database) -> None:
    # a host with 100,000 games: no query a mail, a deadline or a bounce makes may read a whole
    # table that grows with the games (tests/test_query_plans.py). Indexes for the lookups by
    # player, game and state; each sent message's Message-ID (a bounce names it); and the
    # addresses set by SET ADDRESS (a JSON list in seats) as rows, kept by triggers, so "who
    # gets mail at this address" is a lookup and not a pass over every seat's JSON
    for sql in ("CREATE INDEX IF NOT EXISTS seats_player ON seats (player_id)",
                "CREATE INDEX IF NOT EXISTS games_master ON games (master_id)",
                "CREATE INDEX IF NOT EXISTS games_state ON games (state)",
                "CREATE INDEX IF NOT EXISTS future_orders_game ON future_orders (game_id, state)",
                "CREATE INDEX IF NOT EXISTS press_game ON press (game_id, phase_name)",
                "CREATE INDEX IF NOT EXISTS events_game ON events (game_id, state)"):
        db.execute(sql)
    if "message_id" not in db["outbox"].columns_dict:
        db["outbox"].add_column("message_id", str)
    # the header as compose() writes it: "\r\nMessage-ID: <...>\r\n" in the first lines
    head = "CAST(substr(message, 1, 4000) AS TEXT)"
    where = f"instr({head}, char(13, 10) || 'Message-ID: ')"
    rest = f"substr({head}, {where} + 14)"
    db.execute(f"UPDATE outbox SET message_id = substr({rest}, 1, instr({rest}, char(13)) - 1) "
               f"WHERE message_id IS NULL AND {where} > 0")
    db.execute("CREATE INDEX IF NOT EXISTS outbox_message_id ON outbox (message_id)")
    db.execute("CREATE TABLE IF NOT EXISTS seat_addresses (address TEXT NOT NULL, seat_id INTEGER NOT NULL, "
               "PRIMARY KEY (address, seat_id)) WITHOUT ROWID")
    db.execute("CREATE INDEX IF NOT EXISTS seat_addresses_seat ON seat_addresses (seat_id)")
    fill = ("INSERT OR IGNORE INTO seat_addresses (address, seat_id) SELECT value, {row}.id "
            "FROM json_each(CASE WHEN json_valid({row}.addresses) THEN {row}.addresses ELSE '[]' END) "
            "WHERE typeof(value) = 'text'")
    db.execute("CREATE TRIGGER IF NOT EXISTS seat_addresses_insert AFTER INSERT ON seats "
               f"WHEN new.addresses IS NOT NULL BEGIN {fill.format(row='new')}; END")
    db.execute("CREATE TRIGGER IF NOT EXISTS seat_addresses_update AFTER UPDATE OF addresses, id ON seats BEGIN "
               f"DELETE FROM seat_addresses WHERE seat_id = old.id; {fill.format(row='new')}; END")
    db.execute("CREATE TRIGGER IF NOT EXISTS seat_addresses_delete AFTER DELETE ON seats BEGIN "
               "DELETE FROM seat_addresses WHERE seat_id = old.id; END")
    db.execute("DELETE FROM seat_addresses")
    db.execute(fill.format(row="seats").replace("FROM json_each", "FROM seats, json_each")
               + " AND seats.addresses IS NOT NULL")
    # what `judge publish` must write again: each game changed since a counter value (its row,
    # phases, reports, seats, diary, a player's public name), kept by triggers on every writer
    db.execute("CREATE TABLE IF NOT EXISTS game_changes (game_id INTEGER PRIMARY KEY, seq INTEGER NOT NULL)")
    db.execute("CREATE INDEX IF NOT EXISTS game_changes_seq ON game_changes (seq)")
    mark = ("INSERT OR REPLACE INTO game_changes (game_id, seq) SELECT {gid}, "
            "(SELECT COALESCE(MAX(seq), 0) + 1 FROM game_changes)")
    for table, gid in (("games", "id"), ("phases", "game_id"), ("reports", "game_id"), ("seats", "game_id"),
                       ("diary", "game_id")):
        for event, row in (("INSERT", "new"), ("UPDATE", "new"), ("DELETE", "old")):
            db.execute(f"CREATE TRIGGER IF NOT EXISTS {table}_changes_{event.lower()} AFTER {event} ON {table} "
                       f"BEGIN {mark.format(gid=f'{row}.{gid}')}; END")
    db.execute("CREATE TRIGGER IF NOT EXISTS players_changes_name AFTER UPDATE OF name ON players BEGIN "
               "INSERT OR REPLACE INTO game_changes (game_id, seq) SELECT game_id, "
               "(SELECT COALESCE(MAX(seq), 0) + 1 FROM game_changes) + row_number() OVER () "
               "FROM (SELECT DISTINCT game_id FROM seats WHERE player_id = new.id); END")
    db.execute("INSERT OR IGNORE INTO game_changes (game_id, seq) SELECT id, 1 FROM games")


def _v11(db: sqlite_utils.Database) -> None:
    # each processed phase's report in njudge's layout too, so that HISTORY gives a player who chose
    # SET RESULTS NJUDGE the layout they chose (phases stored before: none kept, the zine report)
    if "njudge" not in db["reports"].columns_dict:
        db["reports"].add_column("njudge", str)


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1, _v2, _v3, _v4, _v5, _v6, _v7, _v8, _v9, _v10, _v11]


def create_private(path: Path) -> None:
    """Make an empty database file readable by its owner only (0600), owned like its folder.

    SQLite gives the -wal and -shm files the mode of the database file (and, run as root, its
    owner), so they are private too. Ownership: ``judge init`` run as root in the service user's
    folder (/var/lib/judge) must leave a file that the service user can write."""
    if path.parent and not path.parent.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    try:
        if os.geteuid() == 0:
            st = os.stat(path.parent if str(path.parent) else ".")
            os.fchown(fd, st.st_uid, st.st_gid)
    finally:
        os.close(fd)


class SchemaMismatch(RuntimeError):
    """The store's schema is not the one this program uses; nothing was changed."""


def backup_name(path: Path, version: int, now: datetime | None = None) -> Path:
    """Where the copy made before migrating from ``version`` goes: beside the store, named with
    that version and the time (``judge.schema4-20260101T120000Z.sqlite``)."""
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return path.with_name(f"{path.stem}.schema{version}-{stamp}{path.suffix or '.sqlite'}")


def schema_version(path: str | Path) -> int:
    """The schema version of the store at ``path``, read without changing anything but what any
    opening of it must: a process killed inside a write can leave a journal to roll back, which a
    read-only connection cannot do ("attempt to write a readonly database"); then the store is
    opened for writing (never created) and SQLite undoes the broken write, as the next open would."""
    uri = Path(path).resolve().as_uri()
    for mode in ("ro", "rw"):
        conn = sqlite3.connect(f"{uri}?mode={mode}", uri=True)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.OperationalError as exc:
            if mode == "rw" or "readonly" not in str(exc):
                raise
        finally:
            conn.close()
    raise AssertionError("unreachable")


class Store:
    """One connection to the judge's SQLite file.

    ``readonly``: opened read-only and never migrated; an older schema is refused with
    :class:`SchemaMismatch` ("run judge upgrade"). ``upgrade=False``: opened for writing but not
    migrated, refused likewise. Otherwise (the daemon, ``judge upgrade``, a new store) an older
    schema is migrated after a backup copy of the file is written beside it (:attr:`backup`)."""

    def __init__(self, path: str | Path, *, readonly: bool = False, upgrade: bool = True,
                 busy_timeout: float | None = None):
        self.path = Path(path)
        self.backup: Path | None = None
        self.migrated_from: int | None = None
        self.busy_timeout = _busy_timeout_default() if busy_timeout is None else busy_timeout
        self._batch = False  # inside batch(): transaction() is a savepoint
        self._batch_lost: BaseException | None = None
        # isolation_level=None: no implicit transactions; we say BEGIN and COMMIT ourselves.
        # ``timeout`` installs SQLite's busy handler: a statement that meets another process's
        # lock (BEGIN IMMEDIATE while an admin's shell writes, any read while a connection holds
        # locking_mode=EXCLUSIVE) waits up to that long before "database is locked"
        if readonly:
            # mode=ro: not even a journal or a new file; the store's WAL setting persists in the file
            self.conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                        isolation_level=None, timeout=self.busy_timeout)
        else:
            create_private(self.path)
            self.conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=self.busy_timeout)
        self.conn.row_factory = sqlite3.Row
        if not readonly:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
            except sqlite3.OperationalError as exc:  # held in exclusive locking mode past the busy timeout
                self.conn.close()
                if transient_cause(exc) != "locked":
                    raise
                raise StoreLocked(f"{describe_cause('locked', self.path)} (waited {self.busy_timeout:g}s); "
                                  f"try again") from exc
            self.conn.execute("PRAGMA synchronous=FULL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.db = sqlite_utils.Database(self.conn)
        try:
            if readonly or not upgrade:
                self.check_version()
            else:
                self.migrate()
        except BaseException:
            self.conn.close()
            raise

    # -- schema ------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def check_version(self) -> None:
        """Refuse a schema other than this program's (the store is left as it is)."""
        current = self.version
        if current > SCHEMA_VERSION:
            raise SchemaMismatch(f"{self.path}: schema version {current} is newer than this program "
                                 f"({SCHEMA_VERSION}); run the judge version that wrote it")
        if current < SCHEMA_VERSION:
            raise SchemaMismatch(f"{self.path}: schema version {current} is older than this program's "
                                 f"({SCHEMA_VERSION}): run `judge upgrade` (it backs the store up first)")

    def migrate(self) -> None:
        """Bring the schema up to :data:`SCHEMA_VERSION`, each step one transaction. A store with
        data is first copied (SQLite's backup API) to :func:`backup_name` beside it."""
        current = self.version
        if current > SCHEMA_VERSION:
            self.check_version()
        if current == SCHEMA_VERSION:
            return
        if current > 0 or self.scalar("SELECT COUNT(*) FROM sqlite_master") > 0:
            self.backup = self.backup_to(backup_name(self.path, current))
            log.warning("store %s: schema %d is older than %d; copied it to %s before migrating",
                        self.path, current, SCHEMA_VERSION, self.backup)
        for v in range(current, SCHEMA_VERSION):
            with self.transaction():  # SQLite DDL is transactional: a step is all or nothing
                if self.version > v:  # another process (the daemon, `judge upgrade`) did this step
                    continue
                MIGRATIONS[v](self.db)
                self.conn.execute(f"PRAGMA user_version = {v + 1:d}")
        self.migrated_from = current

    def backup_to(self, dest: Path) -> Path:
        """A consistent copy of the whole store (committed data, WAL included) in a new private file."""
        n = 1
        while dest.exists():  # two migrations in the same second: never overwrite a backup
            dest = dest.with_name(f"{dest.stem.rsplit('~', 1)[0]}~{n}{dest.suffix}")
            n += 1
        create_private(dest)
        target = sqlite3.connect(str(dest))
        try:
            self.conn.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
        finally:
            target.close()
        return dest

    def close(self) -> None:
        self.conn.close()

    def set_busy_timeout(self, seconds: float) -> None:
        """Wait this long for another process's lock (the daemon's ``[judge] busy_timeout``)."""
        self.busy_timeout = float(seconds)
        self.conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000):d}")

    # -- transactions --------------------------------------------------------------------------
    def _begin(self) -> None:
        """``BEGIN IMMEDIATE``, waiting up to the busy timeout for another writer. SQLite's busy
        handler does the waiting; some SQLITE_BUSY answers skip it (a WAL file being recovered
        by another process, a stale snapshot), so an early "locked" is tried again until the busy
        timeout is spent. Then :class:`StoreLocked` names the store."""
        start = time.monotonic()
        pause = 0.01
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if transient_cause(exc) != "locked":
                    raise
                left = self.busy_timeout - (time.monotonic() - start)
                if left <= 0.005:
                    raise StoreLocked(f"{describe_cause('locked', self.path)} (waited {self.busy_timeout:g}s); "
                                      f"try again") from exc
                time.sleep(min(pause, left))
                pause = min(pause * 2, 0.5)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """One ``BEGIN IMMEDIATE`` … ``COMMIT`` around several units of work, each of them still
        its own :meth:`transaction` (a savepoint here): one that raises undoes only its own
        changes. One commit, so one fsync, for them all; nothing of them is stored until the
        batch commits, so a caller acknowledges its inputs only after this block has ended.
        Raises :class:`BatchLost` when SQLite itself rolled the whole batch back (disk full,
        I/O error inside a unit): then none of its units was stored."""
        with self._outer():
            self._batch, self._batch_lost = True, None
            try:
                yield
                if self._batch_lost is not None:
                    raise BatchLost(f"the batch was rolled back: {self._batch_lost}") from self._batch_lost
            finally:
                self._batch, self._batch_lost = False, None

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` … ``COMMIT``; everything is rolled back if the body raises.
        Inside :meth:`batch`: a savepoint, released into the batch's transaction."""
        with self._unit() if self._batch else self._outer():
            yield

    @contextmanager
    def _outer(self) -> Iterator[None]:
        self._begin()
        try:
            yield
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    @contextmanager
    def _unit(self) -> Iterator[None]:
        self.conn.execute("SAVEPOINT unit")
        try:
            yield
        except BaseException as exc:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK TO unit")
                self.conn.execute("RELEASE unit")
            elif self._batch_lost is None:  # SQLite rolled back the whole batch (disk full, I/O error)
                self._batch_lost = exc
            raise
        else:
            if not self.conn.in_transaction and self._batch_lost is None:
                self._batch_lost = sqlite3.OperationalError("transaction ended inside a unit")
            if self.conn.in_transaction:
                self.conn.execute("RELEASE unit")

    # -- small helpers (identifiers are ours, values always parameters) -------------------------
    def insert(self, table: str, **values: Any) -> int:
        key = (table, *values)
        sql = _SQL_TEXTS.get(key)
        if sql is None:
            cols = ", ".join(f"[{c}]" for c in values)
            marks = ", ".join("?" for _ in values)
            sql = _sql_text(key, f"INSERT INTO [{table}] ({cols}) VALUES ({marks})")
        cur = self.conn.execute(sql, tuple(values.values()))
        return int(cur.lastrowid)  # type: ignore[arg-type]

    def update(self, table: str, row_id: int, **values: Any) -> None:
        key = (table, None, *values)  # (None: never an insert's key, whose second item is a column)
        sql = _SQL_TEXTS.get(key)
        if sql is None:
            sets = ", ".join(f"[{c}] = ?" for c in values)
            sql = _sql_text(key, f"UPDATE [{table}] SET {sets} WHERE id = ?")
        self.conn.execute(sql, (*values.values(), row_id))

    def one(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        return self.conn.execute(sql, params).fetchone()

    def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        return self.conn.execute(sql, params).fetchall()

    def scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return None if row is None else row[0]

    def get_setting(self, key: str, default: str | None = None) -> str | None:
        v = self.scalar("SELECT value FROM settings WHERE key = ?", (key,))
        return default if v is None else v

    def set_setting(self, key: str, value: str) -> None:
        self.conn.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                          "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


#: the text of insert() and update() statements by table and columns (the same few every mail:
#: joined afresh, they cost more than SQLite's own cached statement); bounded, the code's own names
_SQL_TEXTS: dict[tuple[Any, ...], str] = {}
_SQL_TEXTS_MAX = 512


def _sql_text(key: tuple[Any, ...], sql: str) -> str:
    if len(_SQL_TEXTS) >= _SQL_TEXTS_MAX:
        _SQL_TEXTS.clear()
    _SQL_TEXTS[key] = sql
    return sql
