"""Seat passwords: stored as salted scrypt hashes, compared in constant time."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import sqlite3
import time
from pathlib import Path

# scrypt cost: n=2**cost (default 2**14: 16 MiB, a few tens of milliseconds), r=8, p=1.
# The parameters are stored with each hash, so the cost can be raised later.
DEFAULT_COST = 14
_R, _P = 8, 1
MAX_LENGTH = 64
log = logging.getLogger(__name__)


class PasswordError(ValueError):
    pass


def check_new_password(password: str) -> str:
    """A password a player may choose: 1-64 printable characters without spaces."""
    if not password:
        raise PasswordError("a password is required")
    if len(password) > MAX_LENGTH:
        raise PasswordError(f"a password may have at most {MAX_LENGTH} characters")
    if any(c.isspace() or not c.isprintable() for c in password):
        raise PasswordError("a password may not contain spaces or control characters")
    return password


def hash_password(password: str, cost: int = DEFAULT_COST) -> str:
    salt = os.urandom(16)
    n = 2**cost
    key = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=n, r=_R, p=_P, dklen=32, maxmem=2**27)
    stored = "scrypt${}${}${}${}${}".format(n, _R, _P, _b64(salt), _b64(key))
    _remember(password, stored)  # the player's next mail (the first orders after joining) is known
    return stored


# Players sign on with every order mail, so each check would pay the full scrypt cost. A
# successful check is remembered in memory only, as a keyed BLAKE2b digest under a key made at
# start-up: the database still holds nothing but scrypt hashes, a wrong password always gets the
# full scrypt comparison, and a changed password has a new hash (so a new cache entry).
_CACHE_KEY = os.urandom(32)
_VERIFIED: dict[str, bytes] = {}
_CACHE_SIZE = 4096


def _remembered(password: str, stored: str) -> bytes:
    return hashlib.blake2b(password.encode("utf-8"), key=_CACHE_KEY, person=b"judge-pw",
                           salt=hashlib.blake2b(stored.encode("ascii", "replace"), digest_size=16).digest()).digest()


class SessionFile:
    """Successful checks remembered across restarts, so a restarted judge does not pay a full
    scrypt check for every player's first mail (a backlog after a restart is all first mails).

    A row holds HMAC-SHA256(key, stored hash, password) and when it was verified, under
    HMAC(key, stored hash): no password and no password hash. ``key`` is a secret kept apart from
    the store (a systemd credential read from /etc/judge), so the file, like a copy of the store,
    tells nothing without it. A row counts for ``ttl`` seconds after its full check; a changed
    password has a new stored hash, which no row matches. At most ``limit`` rows are kept.
    """

    def __init__(self, path: Path, key_file: str | Path, ttl: float, limit: int = 20_000) -> None:
        self.path, self.key_file, self.ttl, self.limit = path, Path(key_file), ttl, limit
        self._key: bytes | None = None
        self._conn: sqlite3.Connection | None = None

    def key(self) -> bytes:
        """The secret, read on first use (console commands, which check no password, never read it)."""
        if self._key is None:
            self._key = read_session_key(self.key_file)
        return self._key

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            from judge.game.store import create_private

            create_private(self.path)
            conn = sqlite3.connect(str(self.path), isolation_level=None, timeout=5.0, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # a cache: a row lost in a crash costs one check
            conn.execute("CREATE TABLE IF NOT EXISTS verified (id BLOB PRIMARY KEY, proof BLOB NOT NULL, "
                         "at REAL NOT NULL)")
            conn.execute("DELETE FROM verified WHERE at < ?", (time.time() - self.ttl,))
            self._conn = conn
        return self._conn

    def _id_and_proof(self, password: str, stored: str) -> tuple[bytes, bytes]:
        key = self.key()
        ident = hmac.new(key, b"id\0" + stored.encode("utf-8", "replace"), hashlib.sha256).digest()
        proof = hmac.new(key, b"pw\0" + stored.encode("utf-8", "replace") + b"\0" + password.encode("utf-8"),
                         hashlib.sha256).digest()
        return ident, proof

    def knows(self, password: str, stored: str) -> bool:
        ident, proof = self._id_and_proof(password, stored)
        row = self._db().execute("SELECT proof, at FROM verified WHERE id = ?", (ident,)).fetchone()
        return row is not None and row[1] >= time.time() - self.ttl and hmac.compare_digest(row[0], proof)

    def remember(self, password: str, stored: str) -> None:
        ident, proof = self._id_and_proof(password, stored)
        db = self._db()
        db.execute("INSERT OR REPLACE INTO verified (id, proof, at) VALUES (?, ?, ?)", (ident, proof, time.time()))
        if db.execute("SELECT COUNT(*) FROM verified").fetchone()[0] > self.limit:
            db.execute("DELETE FROM verified WHERE id IN (SELECT id FROM verified ORDER BY at LIMIT ?)",
                       (self.limit // 10,))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


def read_session_key(key_file: str | Path) -> bytes:
    """The session secret: a relative name is a systemd credential ($CREDENTIALS_DIRECTORY); at
    least 16 bytes (``head -c 32 /dev/urandom``)."""
    path = Path(key_file).expanduser()
    creds = os.environ.get("CREDENTIALS_DIRECTORY")
    if not path.is_absolute() and creds:
        path = Path(creds) / path
    try:
        key = path.read_bytes()
    except OSError as exc:
        raise PasswordError(f"session_key_file: {exc}") from exc
    if len(key.strip()) < 16:
        raise PasswordError(f"session_key_file {path}: needs at least 16 bytes of secret (head -c 32 /dev/urandom)")
    return key.strip()


#: where successful checks outlive the process (:func:`remember_sessions`); None: memory only
_SESSIONS: SessionFile | None = None


def remember_sessions(sessions: SessionFile | None) -> None:
    """Keep successful checks in ``sessions`` too (the judge of this process sets it), or stop."""
    global _SESSIONS
    if _SESSIONS is not None and _SESSIONS is not sessions:
        _SESSIONS.close()
    _SESSIONS = sessions


def current_sessions() -> SessionFile | None:
    return _SESSIONS


def _known(password: str, stored: str) -> bool:
    known = _VERIFIED.get(stored)
    if known is not None and hmac.compare_digest(known, _remembered(password, stored)):
        return True
    sessions = _SESSIONS
    if sessions is not None:
        try:
            return sessions.knows(password, stored)
        except (sqlite3.Error, OSError, PasswordError) as exc:  # the cache is a help, never a need
            log.warning("password session file unusable, checking in full: %s", exc)
    return False


def _remember(password: str, stored: str) -> None:
    _remember_in_memory(password, stored)
    sessions = _SESSIONS
    if sessions is not None:
        try:
            sessions.remember(password, stored)
        except (sqlite3.Error, OSError, PasswordError) as exc:
            log.warning("password session file unusable, not remembering: %s", exc)


def verify_password(password: str, stored: str | None) -> bool:
    """True if ``password`` matches ``stored``; never raises on a malformed hash."""
    if not stored:
        return False
    if _known(password, stored):
        _remember_in_memory(password, stored)
        return True
    ok = _scrypt_matches(password, stored)
    if ok:
        _remember(password, stored)
    return ok


def _remember_in_memory(password: str, stored: str) -> None:
    if stored not in _VERIFIED and len(_VERIFIED) >= _CACHE_SIZE:
        _VERIFIED.pop(next(iter(_VERIFIED)))
    _VERIFIED[stored] = _remembered(password, stored)


def _scrypt_matches(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt, key = stored.split("$")
        if scheme != "scrypt":
            return False
        want = _unb64(key)
        got = hashlib.scrypt(password.encode("utf-8"), salt=_unb64(salt), n=int(n), r=int(r), p=int(p),
                             dklen=len(want), maxmem=2**27)
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(got, want)


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode("ascii")


def _unb64(s: str) -> bytes:
    return base64.b64decode(s.encode("ascii"), validate=True)
