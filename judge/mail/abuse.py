"""Closing the abuse paths of a mail door (issue 13): loops, floods, password guessing, dead addresses.

All state lives in the store (tables ``inbox``, ``auth_failures``, ``bounces``, ``bounce_notices``)
and is written inside the transaction of the message that caused it, like everything else.
The limits are settings of the judge (:class:`~judge.game.config.JudgeConfig`, ``[judge.options]``
of the daemon's configuration), passed in with it; the defaults are deliberately generous for
people and tight for machines:

* a sender gets at most ``reply_limit`` (30) answers per ``abuse_window_minutes`` (an hour) to
  mail that does not sign on, and so does each address the answers go to (a Reply-To naming a
  victim counts against the victim, whoever sends); where the sender or that address is one the
  judge has no record of (never a player, observer or master), ``stranger_reply_limit`` (1) answers, cut
  short (:data:`UNKNOWN_REPLY_CHARS`); later mail is still acted on but answered only if it signs on
  with a password, so a responder that sets no loop headers cannot keep a ping-pong going (no
  answer of ours carries a password, so a loop cannot sign on; players and masters are never
  silenced);
* a whole reply mail, HTML part and headers included, stays under ``max_reply_bytes`` (64 kB);
* the same text from the same sender a ``same_body_limit``-th (5th) time in a row within
  ``same_body_window_minutes`` (10) is acted on but, unless it signs on, not answered;
* wrong passwords count against their *source*: the address the answer goes to (so the guesser
  would see it), not the From a forger writes. ``seat_failures`` (5) wrong passwords for one
  seat within the window lock it against every other source until the window has passed, and its
  owner is told once; ``sender_failures`` (10) wrong passwords from one source lock that source
  out of every password check. A check whose answer goes to the seat's own address is never
  locked: a guesser writing in the owner's name sees none of the answers, and the owner with the
  right password always gets in;
* a bounce (a delivery status notification, or a plain-text notice in one of the formats
  :mod:`judge.mail.textbounce` reads) is recorded per failed recipient the judge has written to,
  and each game where that address plays (or observes) tells its master once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from judge.game.config import JudgeConfig
from judge.game.deadlines import format_hours
from judge.game.store import Store, iso

#: answers to an address the judge does not know are cut to this many characters (one per window):
#: room for the whole HELP, the first thing a newcomer asks for, and little more
UNKNOWN_REPLY_CHARS = 24_000


def spell(window: timedelta) -> str:
    """A window as the judge's answers name it ("within the last …"): "hour" (the default), else "2h", "30m"."""
    return "hour" if window == timedelta(hours=1) else format_hours(window.total_seconds() / 3600)


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def body_hash(sender: str, text: str) -> str:
    """A digest of what the sender wrote, blind to spacing (a re-sent mail re-wrapped is the same)."""
    norm = " ".join(text.split()).lower()
    return hashlib.sha256(f"{sender}\n{norm}".encode("utf-8", "replace")).hexdigest()[:32]


def repeated(store: Store, cfg: JudgeConfig, sender: str, digest: str, now: datetime) -> bool:
    """True when the sender's last ``same_body_limit - 1`` mails within ``same_body_window`` all
    had this same text: this one makes N in a row. In a row only: a player who switches orders
    A, B, A again is not a loop, and their last word must count.

    Newest first by arrival time (then id): the ``inbox_sender (sender, received)`` index read
    backwards stops after ``n`` rows, where ``ORDER BY id`` sorted every mail of the sender in the
    window (a tenth of an order mail's cost when a player sends many)."""
    n = cfg.same_body_limit - 1
    rows = store.all("SELECT body_hash FROM inbox WHERE sender = ? AND received > ? "
                     "ORDER BY received DESC, id DESC LIMIT ?", (sender, iso(now - cfg.same_body_window), n))
    return len(rows) == n and all(r["body_hash"] == digest for r in rows)


def replies_sent(store: Store, cfg: JudgeConfig, sender: str, now: datetime) -> int:
    """Answers this sender got within the window to mail that did not sign on (``replied = 1``;
    2 marks an answer to a signed-on mail, which does not count)."""
    return int(store.scalar("SELECT COUNT(*) FROM inbox WHERE sender = ? AND replied = 1 AND received > ?",
                            (sender, iso(now - cfg.abuse_window))) or 0)


def answers_to(store: Store, cfg: JudgeConfig, address: str, now: datetime) -> int:
    """Answers that went to ``address`` within the window to mail that did not sign on, whoever
    sent that mail (a Reply-To can name anyone)."""
    return int(store.scalar("SELECT COUNT(*) FROM inbox WHERE answered_to = ? AND replied = 1 AND received > ?",
                            (address, iso(now - cfg.abuse_window))) or 0)


def known(store: Store, address: str) -> bool:
    """True when the judge has a record of ``address`` as a person: a player, observer or master
    (now or before: a player who resigned is no stranger), or an address a seat's mail goes to
    (SET ADDRESS). Anyone else is a stranger, and may be a forger's victim."""
    return store.one(
        "SELECT 1 FROM players WHERE address = ? "
        "UNION ALL SELECT 1 FROM seat_addresses WHERE address = ? LIMIT 1",
        (address, address)) is not None


@dataclass
class Quota:
    hold: str | None = None  # why this mail is not answered (unless it signs on)
    closing: str | None = None  # the note closing the last answer of the window
    short: bool = False  # an address the judge does not know: the answer is cut short


def strangers(store: Store, *addresses: str) -> dict[str, bool]:
    """Each address (the empty one left out) -> whether the judge has no record of it
    (:func:`known`), each asked once: the sender is mostly the recipient of the answer too."""
    return {a: not known(store, a) for a in dict.fromkeys(addresses) if a}


def reply_quota(store: Store, cfg: JudgeConfig, sender: str, recipient: str, now: datetime,
                stranger: dict[str, bool] | None = None) -> Quota:
    """How this mail (from ``sender``, answered at ``recipient``) may be answered if it does not
    sign on: answers are counted per sender and per recipient, each against ``reply_limit``, or
    ``stranger_reply_limit`` (with a short answer) for an address the judge has no record of.
    ``stranger``: :func:`strangers` of the two, when the caller has it already."""
    window = spell(cfg.abuse_window)
    counts = []  # (answers so far, the limit) for the sender and for the recipient
    short = False
    unknown = stranger if stranger is not None else strangers(store, sender, recipient)
    for addr, count in ((sender, replies_sent), (recipient, answers_to)):
        if not addr:
            continue
        stranger_ = unknown[addr]
        short = short or stranger_
        counts.append((count(store, cfg, addr, now), cfg.stranger_reply_limit if stranger_ else cfg.reply_limit,
                       stranger_))
    full = [(n, limit, stranger) for n, limit, stranger in counts if n >= limit]
    if full:
        n, _, stranger = max(full)
        return Quota(hold=f"not answered: {n} {'answer' if n == 1 else 'answers'} within the last {window}"
                          + (" to an address the judge does not know" if stranger else ""), short=short)
    last = [(limit, stranger) for n, limit, stranger in counts if n == limit - 1]
    if not last:
        return Quota(short=short)
    limit, stranger = min(last)
    if stranger:
        times = "one answer" if limit == 1 else f"{limit} answers"
        closing = f"The judge sends an address it does not know {times} per {window}, and this is it"
    else:
        closing = f"This is the {ordinal(limit)} answer to you within the last {window}"
    return Quota(closing=closing + f": mail you send in the next {window} is still acted on, but answered only if "
                                   f"it signs on with a password or sends back a CONFIRM code the judge mailed.", short=short)


# -- passwords -------------------------------------------------------------------------------------
def locked_until(store: Store, cfg: JudgeConfig, game_id: int, seat: str, sender: str, owners: list[str],
                 now: datetime) -> datetime | None:
    """When password checks for ``seat`` (``England``, ``Master``, ``Observer``) open again for
    ``sender`` (the source of the guess: where its answer goes), or None if they are open now.
    The seat's own addresses are never locked out: an answer there reaches the owner, not a
    guesser, so guesses written in the owner's name cannot lock the owner out."""
    if sender in owners:
        return None
    window = cfg.abuse_window
    since = iso(now - window)
    mine = store.all("SELECT at FROM auth_failures WHERE sender = ? AND at > ? ORDER BY at", (sender, since))
    if len(mine) >= cfg.sender_failures:
        return datetime.fromisoformat(mine[-cfg.sender_failures]["at"]) + window
    seat_rows = store.all("SELECT at FROM auth_failures WHERE game_id = ? AND seat = ? AND at > ? "
                          "AND sender NOT IN (SELECT value FROM json_each(?)) ORDER BY at",
                          (game_id, seat, since, _json(owners)))
    if len(seat_rows) >= cfg.seat_failures:
        return datetime.fromisoformat(seat_rows[-cfg.seat_failures]["at"]) + window
    return None


def record_failure(store: Store, cfg: JudgeConfig, game_id: int, seat: str, sender: str, owners: list[str],
                   now: datetime) -> bool:
    """Record one wrong password; True when this one locks the seat (tell its owner, once)."""
    store.insert("auth_failures", game_id=game_id, seat=seat, sender=sender, at=iso(now))
    if sender in owners:
        return False
    n = store.scalar("SELECT COUNT(*) FROM auth_failures WHERE game_id = ? AND seat = ? AND at > ? "
                     "AND sender NOT IN (SELECT value FROM json_each(?))",
                     (game_id, seat, iso(now - cfg.abuse_window), _json(owners)))
    return int(n or 0) == cfg.seat_failures


def failure_senders(store: Store, cfg: JudgeConfig, game_id: int, seat: str, now: datetime) -> list[str]:
    since = iso(now - cfg.abuse_window)
    return [r["sender"] for r in store.all("SELECT DISTINCT sender FROM auth_failures WHERE game_id = ? AND seat = ? "
                                           "AND at > ? ORDER BY sender", (game_id, seat, since))]


def _json(values: list[str]) -> str:
    import json

    return json.dumps(values)


# -- bounces ---------------------------------------------------------------------------------------
def record_bounces(store: Store, addresses: list[str], message_id: str, detail: str, now: datetime) -> None:
    for a in addresses:
        store.insert("bounces", address=a, message_id=message_id, received=iso(now), detail=detail[:500])


def sent_to(store: Store, address: str, message_ids: list[str]) -> bool:
    """True when one of ``message_ids`` is a message the judge sent to ``address`` (the outbox
    keeps each message's Message-ID, with its recipients as a JSON list): a bounce is believed
    only for mail it names that really went there."""
    for mid in message_ids:
        if store.one("SELECT 1 FROM outbox, json_each(outbox.recipients) WHERE outbox.message_id = ? "
                     "AND json_each.value = ? LIMIT 1", (mid, address)) is not None:
            return True
    return False


def games_of(store: Store, address: str) -> list[tuple[Any, str]]:
    """(game row, seat label) for every running or forming game where ``address`` gets mail as a
    player or observer (their own address, or one set by SET ADDRESS)."""
    rows = store.all(
        "SELECT g.*, s.power AS seat_power, s.role AS seat_role FROM seats s JOIN games g ON g.id = s.game_id "
        "WHERE g.state IN ('forming', 'active', 'paused') AND s.status != 'vacant' "
        "AND s.id IN (SELECT seats.id FROM players JOIN seats ON seats.player_id = players.id "
        "WHERE players.address = ? UNION SELECT seat_id FROM seat_addresses WHERE address = ?) ORDER BY s.id",
        (address, address))
    return [(r, r["seat_power"] or r["seat_role"]) for r in rows]


def first_notice(store: Store, game_id: int, address: str, now: datetime) -> bool:
    """True the first time a game's master is to be told of this dead address (recorded)."""
    cur = store.conn.execute("INSERT OR IGNORE INTO bounce_notices (game_id, address, told) VALUES (?, ?, ?)",
                             (game_id, address, iso(now)))
    return cur.rowcount == 1
