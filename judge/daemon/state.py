"""The daemon's own SQLite file, beside the service's database.

It holds what the service does not know about: the SMTP send journal (which outbox item was in the
middle of DATA when the process died), receipts seen for such sends, and contact times for
``judge status``. WAL with synchronous=NORMAL: a commit survives the process being killed (the
fault we design for); after an OS crash the newest entries may be gone, see deploy/README.md.

Used directly from the event loop: every statement touches one row and takes well under a
millisecond, less than a hop to a thread would cost.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from judge.daemon.logs import log
from judge.game.store import transient_cause

logger = logging.getLogger("judge.daemon.state")

SCHEMA = """
CREATE TABLE IF NOT EXISTS smtp_journal (
    item_id INTEGER PRIMARY KEY,
    digest TEXT NOT NULL,      -- of the service's message bytes: a reused item id is not confused
    message_id TEXT NOT NULL,  -- what went out; a resend reuses it
    started REAL NOT NULL,
    receipt REAL
);
CREATE INDEX IF NOT EXISTS smtp_journal_mid ON smtp_journal(message_id);
CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated REAL NOT NULL);
"""


#: bytes kept free inside the state file (and its WAL) for status writes on a full disk
RESERVE_BYTES = 256 * 1024


@dataclass(frozen=True)
class InDoubt:
    item_id: int
    digest: str
    message_id: str
    started: float
    receipt: float | None


class DaemonState:
    def __init__(self, path: str) -> None:
        from pathlib import Path

        from judge.game.store import create_private

        self.path = path
        create_private(Path(path))  # 0600, owned like its folder (as the game store)
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        self._reserve()
        self._touched: dict[str, float] = {}
        #: status values not yet written (the disk was full): written with the next one that is
        self._unsaved: dict[str, tuple[str, float]] = {}

    def close(self) -> None:
        self.db.close()

    def _reserve(self) -> None:
        """Room for status writes on a full disk (when the admin needs them most): free pages in
        the file and a WAL as large, both kept. A checkpoint then copies the status rows into pages
        the file already has, and the WAL is rewritten from its start, so neither has to grow."""
        size = self.db.execute("PRAGMA page_size").fetchone()[0]
        if self.db.execute("PRAGMA freelist_count").fetchone()[0] * size < RESERVE_BYTES:
            self.db.execute("CREATE TABLE IF NOT EXISTS reserve (b BLOB)")
            self.db.execute("INSERT INTO reserve VALUES (zeroblob(?))", (RESERVE_BYTES,))
            self.db.execute("DELETE FROM reserve")
        self.db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    # --- the SMTP journal -------------------------------------------------------------------
    def begin_data(self, item_id: int, digest: str, message_id: str) -> None:
        """Committed before DATA: from here until forget(), the item's fate is unknown."""
        self.db.execute("INSERT OR REPLACE INTO smtp_journal(item_id, digest, message_id, started) VALUES (?,?,?,?)",
                        (item_id, digest, message_id, time.time()))

    def forget(self, item_id: int) -> None:
        self.db.execute("DELETE FROM smtp_journal WHERE item_id=?", (item_id,))

    def in_doubt(self, item_id: int, digest: str) -> InDoubt | None:
        row = self.db.execute("SELECT item_id, digest, message_id, started, receipt FROM smtp_journal "
                              "WHERE item_id=? AND digest=?", (item_id, digest)).fetchone()
        return InDoubt(*row) if row else None

    def record_receipt(self, message_id: str) -> bool:
        """A copy of one of our sends came back: the SMTP server had accepted it."""
        cur = self.db.execute("UPDATE smtp_journal SET receipt=? WHERE message_id=? AND receipt IS NULL",
                              (time.time(), message_id))
        return cur.rowcount > 0

    def journal_message_ids(self) -> set[str]:
        """Message-IDs of sends still in the journal: their receipt copies may yet be needed."""
        return {r[0] for r in self.db.execute("SELECT message_id FROM smtp_journal")}

    def journal_item_ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT item_id FROM smtp_journal ORDER BY item_id")]

    def journal_size(self) -> int:
        return self.db.execute("SELECT count(*) FROM smtp_journal").fetchone()[0]

    def prune(self, older_than: float) -> None:
        # entries whose item was marked sent just before a crash cleared them: never looked at again
        self.db.execute("DELETE FROM smtp_journal WHERE started < ?", (time.time() - older_than,))

    # --- status -----------------------------------------------------------------------------
    def put(self, key: str, value: Any, every: float = 0.0) -> None:
        """Record a status value; with ``every``, at most that often (it is a disk write).

        Never raises for a store it cannot write: status is what an admin reads while things go
        wrong. On a full disk the WAL is checkpointed and rewound, so the write reuses space the
        file already has; failing that, the value is kept and written with a later one."""
        now = time.time()
        if every and now - self._touched.get(key, 0.0) < every:
            return
        self._touched[key] = now
        self._unsaved[key] = (str(value), now)
        for attempt in (1, 2):
            try:
                # one transaction for the value and any left unsaved before it
                self.db.execute("BEGIN IMMEDIATE")
                self.db.executemany(
                    "INSERT INTO kv(key, value, updated) VALUES (?,?,?) ON CONFLICT(key) DO UPDATE "
                    "SET value=excluded.value, updated=excluded.updated",
                    [(k, v, t) for k, (v, t) in self._unsaved.items()])
                self.db.execute("COMMIT")
                self._unsaved.clear()
                return
            except sqlite3.Error as exc:
                if self.db.in_transaction:
                    self.db.execute("ROLLBACK")
                if attempt == 1 and transient_cause(exc) == "disk full":
                    try:
                        self.db.execute("PRAGMA wal_checkpoint(RESTART)")
                    except sqlite3.Error:
                        pass
                    continue
                log(logger, "state.unwritable", logging.WARNING, key=key, error=f"{type(exc).__name__}: {exc}",
                    unsaved=len(self._unsaved))
                return

    def snapshot(self) -> dict[str, Any]:
        return _status(self.db)


def _status(db: sqlite3.Connection) -> dict[str, Any]:
    out: dict[str, Any] = {k: {"value": v, "updated": u}
                           for k, v, u in db.execute("SELECT key, value, updated FROM kv")}
    out["smtp_in_doubt"] = db.execute("SELECT count(*) FROM smtp_journal").fetchone()[0]
    return out


def read_status(path: str) -> dict[str, Any]:
    """For ``judge status``: read-only, works while the daemon runs."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return _status(db)
    finally:
        db.close()
