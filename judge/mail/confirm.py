"""Proof of address: a code the judge mails to an address, sent back from that address.

A From line is easy to forge, and a password proves only that the sender chose it. Where the
judge would start mailing an address (OBSERVE) or change how it is named in public (SET NAME),
it first mails that address a one-time code; ``CONFIRM <code>`` sent back from the address does
the thing. Codes are kept as SHA-256 digests (a code is 16 random base-32 characters, 80 bits:
not guessable, so no lock-out is needed), used once, and expire after :data:`LIFETIME`.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from judge.game.store import Store, dumps, from_iso, iso, loads

LIFETIME = timedelta(days=3)
#: at most this many codes waiting for one address (a forger cannot make the table grow without bound)
MAX_PENDING = 5


@dataclass
class Confirmation:
    kind: str  # observe | name
    address: str
    game_id: int | None
    payload: dict[str, Any]


class ConfirmError(ValueError):
    pass


def _digest(code: str) -> str:
    return hashlib.sha256(code.strip().upper().encode("utf-8", "replace")).hexdigest()


def ask(store: Store, address: str, kind: str, game_id: int | None, payload: dict[str, Any], now: datetime) -> str:
    """A new code for ``address`` to send back; an older code for the same thing is replaced."""
    store.conn.execute("DELETE FROM confirmations WHERE state = 'pending' AND (expires <= ? OR "
                       "(address = ? AND kind = ? AND coalesce(game_id, 0) = ?))",
                       (iso(now), address, kind, game_id or 0))
    waiting = store.all("SELECT id FROM confirmations WHERE address = ? AND state = 'pending' ORDER BY id",
                        (address,))
    for row in waiting[:max(0, len(waiting) - MAX_PENDING + 1)]:
        store.conn.execute("DELETE FROM confirmations WHERE id = ?", (row["id"],))
    code = base64.b32encode(secrets.token_bytes(10)).decode("ascii")
    store.insert("confirmations", token_hash=_digest(code), address=address, kind=kind, game_id=game_id,
                 payload=dumps(payload), created=iso(now), expires=iso(now + LIFETIME), state="pending")
    return code


def take(store: Store, code: str, address: str, now: datetime) -> Confirmation:
    """The confirmation ``code`` stands for, marked used; raises :class:`ConfirmError` when the
    code is unknown, used, expired, or was sent to another address than ``address``."""
    row = store.one("SELECT * FROM confirmations WHERE token_hash = ?", (_digest(code),))
    if row is None or row["state"] != "pending":
        raise ConfirmError("no such confirmation code (it may have been used already): check the code in "
                           "the judge's mail, or ask again")
    expires = from_iso(row["expires"])
    if expires is not None and expires <= now:
        raise ConfirmError("this confirmation code has expired: ask again")
    if row["address"] != address:
        raise ConfirmError("this code was sent to another address: send CONFIRM from the address that got it")
    store.conn.execute("UPDATE confirmations SET state = 'done' WHERE id = ?", (row["id"],))
    return Confirmation(row["kind"], row["address"], row["game_id"], loads(row["payload"], {}))


def request(h: Any, kind: str, game_id: int | None, payload: dict[str, Any], what: str, until: str) -> None:
    """Mail the From address (only) a code for ``kind`` and say how to send it back: "``what``, send
    the judge this line ... ``until``" (what happens meanwhile)."""
    h.from_only = True
    code = ask(h.ctx.store, h.mail.sender, kind, game_id, payload, h.ctx.now)
    h.say(f"{what}, send the judge this line from this address ({h.mail.sender}):\n\n  CONFIRM {code}\n\n"
          f"(within {LIFETIME.days} days). {until} If you did not ask for this, ignore this mail: nothing more "
          f"will come of it.")
