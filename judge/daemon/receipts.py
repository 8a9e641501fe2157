"""Pruning receipt copies: the copies of our own sends (``smtp.receipt_to``) that land in the
judge's mailbox. Each outgoing mail leaves one, so without pruning the mailbox grows by every
reply and report the judge ever sent.

A copy is needed only until the IMAP runner has seen it (it then records the receipt in the
daemon's journal) or the SMTP runner's direct search has found it. So the pruner deletes copies
that are already handled (``\\Seen``; in move mode: in ``processed_folder``), older than
``receipt_keep_days``, and whose Message-ID has no entry left in the send journal. It runs in its
own short IMAP session every ``receipt_prune_interval`` seconds and never touches players' mail:
only messages From the judge's own address carrying its loop header are candidates.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timedelta, timezone

from judge.daemon.aio import guarded, wait_event
from judge.daemon.config import ImapSection, JudgeSection
from judge.daemon.imap_in import (_ok, _quote, expunge, parse_fetch_literals, parse_search, receipt_message_id,
                                  short_session)
from judge.daemon.logs import log
from judge.daemon.state import DaemonState

logger = logging.getLogger("judge.daemon.receipts")

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: messages per FETCH of headers (aioimaplib's parser recurses per response line)
BATCH = 100


def imap_date(t: datetime) -> str:
    """RFC 3501 date (``25-Nov-2026``), independent of the locale."""
    return f"{t.day}-{_MONTHS[t.month - 1]}-{t.year}"


async def prune_once(cfg: ImapSection, judge: JudgeSection, state: DaemonState, now: float | None = None) -> int:
    """Delete handled receipt copies no longer needed; returns how many."""
    folder = cfg.processed_folder or cfg.mailbox
    pruned = 0
    async with short_session(cfg, folder) as (client, lost, sel):
        if sel.result != "OK":  # no processed folder yet: nothing handled, nothing to prune
            return 0
        # handled: \Seen in the mailbox; in move mode everything in processed_folder is (MOVE keeps flags)
        criteria = ([] if cfg.processed_folder else ["SEEN"]) + [
            "UNDELETED", "FROM", _quote(judge.address), "HEADER", judge.loop_header, '""']
        if cfg.receipt_keep_days > 0:
            day = datetime.fromtimestamp(now or time.time(), timezone.utc) - timedelta(days=cfg.receipt_keep_days)
            criteria += ["BEFORE", imap_date(day)]
        resp = _ok(await guarded(client.uid_search(*criteria, charset=None), cfg.timeout, lost), "UID SEARCH")
        uids = parse_search(resp.lines)
        keep = state.journal_message_ids()
        for start in range(0, len(uids), BATCH):
            chunk = uids[start:start + BATCH]
            resp = _ok(await guarded(client.uid("fetch", ",".join(map(str, chunk)), "(UID BODY.PEEK[HEADER])"),
                                     cfg.timeout, lost), "UID FETCH")
            gone = [u for u, head in parse_fetch_literals(resp.lines).items()
                    if (mid := receipt_message_id(head + b"\r\n", judge)) is not None and mid not in keep]
            if not gone:
                continue
            uid_set = ",".join(map(str, gone))
            _ok(await guarded(client.uid("store", uid_set, "+FLAGS.SILENT", r"(\Deleted)"), cfg.timeout, lost),
                "UID STORE")
            await expunge(client, lost, uid_set, cfg.timeout)
            pruned += len(gone)
    return pruned


class ReceiptPruner:
    """The daemon's runner: prune now and then; a failure is logged and tried at the next turn."""

    def __init__(self, cfg: ImapSection, judge: JudgeSection, state: DaemonState, stop: asyncio.Event) -> None:
        self.cfg, self.judge, self.state, self.stop = cfg, judge, state, stop
        self.pruned = 0
        self.rounds = 0

    async def run(self) -> None:
        if self.cfg.receipt_prune_interval <= 0:
            return
        # not at once: the IMAP runner's first session and the backlog come first
        while not await wait_event(self.stop, self.cfg.receipt_prune_interval):
            try:
                n = await prune_once(self.cfg, self.judge, self.state)
            except Exception as exc:  # a server problem: the IMAP runner reports those; try later
                log(logger, "receipts.prune_failed", logging.WARNING, host=self.cfg.host, port=self.cfg.port,
                    error=f"{type(exc).__name__}: {exc}")
                continue
            self.rounds += 1
            self.pruned += n
            if n:
                log(logger, "receipts.pruned", count=n)
            self.state.put("receipts_pruned", self.pruned)
