"""The embedded transport: local Maildir folders (stdlib ``mailbox``).

``DIR/inbox`` (new/ and cur/) is read; each message goes to :meth:`Judge.receive` and is moved to
``DIR/processed`` only after its transaction has committed, so a crash at any instant leaves it
in the inbox to be handled again (and a repeat is recognised by its Message-ID). A message that
failed (a bug met while handling it) is recorded in the store and moved to ``DIR/failed``, so
one poison mail never stops the mail behind it nor the deadlines; moving it back into the inbox
tries it again. Outgoing mail
is written to ``DIR/outbox`` as a Maildir, one file per outbox row, named after the row, so a
crash between writing and :meth:`Judge.mark_sent` never writes a message twice.
"""

from __future__ import annotations

import logging
import mailbox
import os
import re
import socket
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from judge.mail.receive import TRANSIENT, Judge

log = logging.getLogger(__name__)


@dataclass
class Folders:
    root: Path

    @property
    def inbox(self) -> Path:
        return self.root / "inbox"

    @property
    def processed(self) -> Path:
        return self.root / "processed"

    @property
    def outbox(self) -> Path:
        return self.root / "outbox"

    @property
    def failed(self) -> Path:
        return self.root / "failed"

    def create(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for p in (self.inbox, self.processed, self.outbox, self.failed):
            mailbox.Maildir(str(p), create=True)


def arrival_key(name: str) -> list[Any]:
    """Sort key for Maildir file names: their numbers as numbers (``1700000000.M96215P…`` comes
    before ``1700000000.M104522P…``: the microseconds are not zero-padded)."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def incoming(folder: Path) -> list[Path]:
    """Messages waiting in a Maildir (new/ then cur/), oldest first by name."""
    out: list[Path] = []
    for sub in ("new", "cur"):
        d = folder / sub
        if not d.is_dir():
            continue
        names = sorted((n for n in os.listdir(d) if not n.startswith(".")), key=arrival_key)
        out.extend(d / n for n in names)
    return out


def read_inbox(judge: Judge, folders: Folders, now: datetime | None = None) -> dict[str, int]:
    """Hand every waiting message to the judge; returns counts by outcome."""
    counts: dict[str, int] = {}
    for path in incoming(folders.inbox):
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            continue  # taken by another reader
        source = f"maildir:{path.name}"
        try:
            status = judge.receive(raw, source=source, now=now)
        except TRANSIENT as exc:
            log.warning("could not handle %s now (%s); will try again", path.name, exc)
            counts["retry"] = counts.get("retry", 0) + 1
            continue
        except Exception as exc:  # receive() promises not to; if it does, this mail must not block the rest
            log.exception("%s: receive() raised; set aside in %s", path.name, folders.failed)
            try:
                judge.record_failure(raw, source, exc, now=now)
            except TRANSIENT as err:  # cannot even record it: leave it for the next run
                log.warning("could not record %s now (%s); will try again", path.name, err)
                counts["retry"] = counts.get("retry", 0) + 1
                continue
            status = f"failed: {type(exc).__name__}"
        key = status.split(":", 1)[0]
        counts[key] = counts.get(key, 0) + 1
        _move(path, (folders.failed if key == "failed" else folders.processed) / "cur")
    return counts


def _move(path: Path, dest_dir: Path) -> None:
    name = path.name if ":2," in path.name else path.name + ":2,S"
    dest_dir.mkdir(parents=True, exist_ok=True)
    os.replace(path, dest_dir / name)


def write_outbox(judge: Judge, folders: Folders, now: datetime | None = None, limit: int = 500) -> int:
    """Write pending outgoing mail into DIR/outbox and mark it sent."""
    n = 0
    host = socket.gethostname().replace("/", "_").replace(":", "_") or "localhost"
    while True:
        items = judge.pending_outbox(limit=limit, now=now)
        if not items:
            return n
        for item in items:
            name = f"judge-outbox-{item.id:09d}.{host}"
            final = folders.outbox / "new" / name
            seen = final.exists() or any((folders.outbox / "cur").glob(name + "*"))
            if not seen:
                tmp = folders.outbox / "tmp" / name
                data = item.message.replace(b"\r\n", b"\n")
                with open(tmp, "wb") as fh:
                    fh.write(data)
                    fh.flush()
                    os.fsync(fh.fileno())
                os.replace(tmp, final)
            judge.mark_sent(item.id, now=now)
            n += 1


def run_once(judge: Judge, folders: Folders, now: datetime | None = None) -> dict[str, int]:
    """Read all waiting mail, run every event due by the time the read began, write all outgoing mail.

    Events that fall due while the inbox is being read wait for the next round: a deadline is
    processed only after a read of the inbox that started after it (mail delivered just before a
    deadline counts)."""
    folders.create()
    started = judge.cfg.now() if now is None else now
    counts = read_inbox(judge, folders, now)
    counts["events"] = judge.run_due(now, until=started)
    counts["sent"] = write_outbox(judge, folders, now)
    return counts


def serve(judge: Judge, folders: Folders, poll: float = 5.0, stop: "callable | None" = None) -> None:  # type: ignore[valid-type]
    """Run until ``stop()`` is true (or forever): poll the inbox, wake exactly for deadlines."""
    folders.create()
    while stop is None or not stop():
        counts = run_once(judge, folders)
        if any(v for k, v in counts.items()):
            log.info("maildir: %s", counts)
        wake = judge.next_wakeup()
        delay = poll
        if wake is not None:
            delay = max(0.0, min(poll, (wake - judge.cfg.now()).total_seconds()))
        time.sleep(delay)
