"""Trim sent mail in the outbox: keep each row and its header, drop the body once it is old.

The outbox keeps every message the judge sent, whole; a results mail carries its map, so the
outbox is most of a busy store. Nothing reads a sent message's body again: sending reads only
pending rows (:func:`judge.game.outbox.pending`), the daemon's in-doubt resend and receipts
only pending rows too, and a bounce is matched by the ``message_id`` column and the
``recipients`` list (:func:`judge.mail.abuse.sent_to`). HISTORY, SUMMARY and the archive read
the reports and phases, never the outbox. So once a mail was sent long enough ago, its body
goes; what stays is the row (recipients, Message-ID, status, times, game, kind) and the
message's header block as it was sent, after one added line saying when the body was dropped
and how large the message was::

    X-Judge-Trimmed: 2026-11-26T23:00:00+00:00; was 47210 bytes

Unsent mail (``pending``, in doubt or waiting to be retried) and mail given up (``failed``,
kept whole for the master who is told about it) are never touched.

A trimmed row's ``next_attempt`` is cleared (it means nothing once a mail is sent): the
``(status, next_attempt)`` index then holds exactly the rows still to trim, so a daily run reads
those and not the millions already trimmed. Each chunk is one transaction: a kill at any
instant leaves every row either whole or trimmed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from judge.game.store import Store, iso

MARK = b"X-Judge-Trimmed: "
#: rows trimmed in one transaction: a few MB read and rewritten, a short hold on the writer lock
CHUNK = 200
#: the header block is in the first bytes; a longer one (a huge To list) is read whole
HEAD_READ = 16384


@dataclass
class Trimmed:
    """What one run did (or, dry, would do)."""

    mails: int = 0
    bytes_before: int = 0  # the trimmed messages' size before ...
    bytes_after: int = 0  # ... and after

    @property
    def freed(self) -> int:
        return self.bytes_before - self.bytes_after

    def add(self, other: Trimmed) -> None:
        self.mails += other.mails
        self.bytes_before += other.bytes_before
        self.bytes_after += other.bytes_after

    def as_dict(self) -> dict[str, int]:
        return {"mails": self.mails, "bytes_before": self.bytes_before, "bytes_after": self.bytes_after,
                "freed": self.freed}


def header_block(message: bytes) -> bytes | None:
    """The message's header fields up to and with the blank line that ends them, or None when it
    has no body to drop."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        at = message.find(sep)
        if at >= 0:
            return message[:at + len(sep)] if at + len(sep) < len(message) else None
    return None


def trimmed_message(message: bytes, now: datetime, size: int | None = None) -> bytes | None:
    """What a sent message is kept as, or None when there is nothing to drop (already trimmed,
    or no body). ``message`` may be its first part only, holding the header block; ``size`` is
    then the whole message's."""
    if message.startswith(MARK):
        return None
    head = header_block(message)
    if head is None:
        return None
    return MARK + f"{iso(now)}; was {len(message) if size is None else size} bytes\r\n".encode("ascii") + head


def _candidates(store: Store, cutoff: str, after: tuple[str, int], limit: int) -> list[tuple[int, str, int, bytes]]:
    # walks the (status, next_attempt) index in its order: keyset paging, no sort, no full scan
    rows = store.all("SELECT id, next_attempt, length(message) AS size, substr(message, 1, ?) AS head "
                     "FROM outbox WHERE status = 'sent' AND next_attempt < ? AND (next_attempt, id) > (?, ?) "
                     "AND sent_at < ? ORDER BY next_attempt, id LIMIT ?",
                     (HEAD_READ, cutoff, after[0], after[1], cutoff, int(limit)))
    return [(r["id"], r["next_attempt"], r["size"], bytes(r["head"])) for r in rows]


def trim_chunk(store: Store, cutoff: datetime, now: datetime, *, after: tuple[str, int] = ("", 0),
               limit: int = CHUNK, dry_run: bool = False) -> tuple[Trimmed, tuple[str, int] | None]:
    """Trim up to ``limit`` messages sent before ``cutoff``, in one transaction. Returns what it
    did and where the next chunk starts (None: nothing left)."""
    done = Trimmed()
    with store.transaction():
        rows = _candidates(store, iso(cutoff) or "", after, limit)
        for item_id, _, size, head in rows:
            if size > len(head):  # a header block longer than the part read, or no blank line in it
                if header_block(head) is None:
                    head = bytes(store.scalar("SELECT message FROM outbox WHERE id = ?", (item_id,)))
            new = trimmed_message(head, now, size)
            if dry_run:
                if new is not None:
                    done.mails += 1
                    done.bytes_before += size
                    done.bytes_after += len(new)
                continue
            # the row leaves the index range either way (next_attempt cleared): a message with no
            # body to drop is not read again by the next run
            store.conn.execute("UPDATE outbox SET next_attempt = NULL" + (", message = ?" if new else "")
                               + " WHERE id = ? AND status = 'sent'", ((new,) if new else ()) + (item_id,))
            if new is not None:
                done.mails += 1
                done.bytes_before += size
                done.bytes_after += len(new)
    if len(rows) < limit:
        return done, None
    return done, (rows[-1][1], rows[-1][0])


def trim(store: Store, older_than: timedelta, now: datetime, *, chunk: int = CHUNK, dry_run: bool = False) -> Trimmed:
    """Trim every message sent more than ``older_than`` before ``now``, chunk by chunk."""
    total = Trimmed()
    cutoff = now - older_than
    after: tuple[str, int] | None = ("", 0)
    while after is not None:
        done, after = trim_chunk(store, cutoff, now, after=after, limit=chunk, dry_run=dry_run)
        total.add(done)
    return total
