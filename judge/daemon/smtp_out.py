"""The SMTP runner: drain the service's outbox, one fresh connection per batch.

Delivery protocol for one outbox item (the guarantee is spelled out in deploy/README.md):

1. MAIL FROM and RCPT TO. A failure here means the server has not taken the message.
2. Journal ``(item id, digest, Message-ID)`` in the daemon's state file, committed.
3. DATA. From the last byte written until step 4 commits, the outcome is unknown to us.
4. On 250: ``mark_sent`` in the service, then clear the journal entry. A connection records its
   sends in groups of up to ``MARK_EVERY`` (one service transaction, so one fsync, per group):
   until its group is recorded, a sent message is in doubt exactly as in step 3.

On restart, an outbox item with a journal entry was interrupted inside step 3/4. If a receipt
copy (``smtp.receipt_to``) of that Message-ID has come back through IMAP (seen by the IMAP runner,
or found by searching the mailbox for it), the server had accepted it: it is marked sent, not
sent again. Otherwise it is held up to ``smtp.receipt_wait`` for the
receipt, then sent again with the same Message-ID. Without receipts it is sent again at once.

Why a fresh connection per batch: long-lived aiosmtplib clients have hung after server-side
timeouts (cole/aiosmtplib#243); a batch is short, and connecting costs about a millisecond on a LAN.
A batch may use a few connections side by side (``smtp.connections``).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import formatdate, make_msgid

import aiosmtplib

from judge.daemon.aio import Backoff, wait_any, wait_for_port
from judge.daemon.config import ImapSection, JudgeSection, SmtpSection
from judge.daemon.imap_in import find_message_ids
from judge.daemon.logs import log
from judge.daemon.service import OutboxItemLike, ServiceProxy
from judge.daemon.state import DaemonState, InDoubt
from judge.game.addresses import ascii_address, canonical_address
from judge.game.store import describe_cause, transient_cause

logger = logging.getLogger("judge.daemon.smtp")

# a bare address for the envelope: no whitespace, no control characters, no angle brackets,
# so nothing a player wrote can smuggle an SMTP command or a header through us
_ADDRESS = re.compile(r"[^\s<>()\[\],;:\"\\@\x00-\x1f\x7f]+@[A-Za-z0-9.\-\[\]:]+")


#: while an interrupted send waits for its receipt, look for it this often (seconds)
RECEIPT_RECHECK = 2.0

#: a connection records at most this many accepted sends in one service transaction: each commit
#: costs an fsync (as much as handling an order mail), while a kill before the group is recorded
#: leaves each of its messages in doubt (settled by its receipt, or sent again), so the group stays small
MARK_EVERY = 8


class ServerUnavailable(Exception):
    """The server cannot be used right now (connect, TLS, auth, 421, a dropped connection)."""

    def __init__(self, message: str, unreachable: bool = False, refused: bool = False) -> None:
        super().__init__(message)
        #: no connection could be made at all: its port is probed until it answers
        self.unreachable = unreachable
        #: the server refused our AUTH: retried only after the long back-off (fail2ban, lockouts)
        self.refused = refused


@dataclass
class SmtpStats:
    sent: int = 0
    transient: int = 0
    permanent: int = 0
    resent_in_doubt: int = 0
    settled_by_receipt: int = 0
    batches: int = 0


def valid_address(addr: str) -> bool:
    """An address fit for the envelope: a bare ASCII one, or an internationalized one in the
    judge's stored form (:mod:`judge.game.addresses`)."""
    if addr.isascii():
        return bool(_ADDRESS.fullmatch(addr)) and len(addr) <= 254
    return canonical_address(addr) == addr


def wire_address(addr: str, smtputf8: bool) -> str | None:
    """A valid address as this server takes it: as stored over SMTPUTF8; else an internationalized
    domain as ``xn--`` A-labels. None: its local part is not ASCII and the server has no SMTPUTF8,
    so it cannot be reached through this server at all (RFC 6531 has no downgrade)."""
    if smtputf8 or addr.isascii():
        return addr
    return ascii_address(addr)


def digest_of(message: bytes) -> str:
    return hashlib.sha256(message).hexdigest()[:32]


#: a header block the stdlib's parser reads as header fields only: each line a field name and its
#: value, or a folded continuation (anything else there, and the parser decides)
_PLAIN_HEAD = re.compile(rb"(?:[!-9;-~]+:[^\r\n]*\r\n(?:[ \t][^\r\n]*\r\n)*)+")
_DATE_FIELD = re.compile(rb"^date:", re.I | re.M)
_ID_FIELD = re.compile(rb"^message-id:[ \t]*([^\r\n]*)\r\n", re.I | re.M)


def _own_date_and_id(message: bytes) -> str | None:
    """The Message-ID of a message that has a Date and a Message-ID on one line of its own, as
    the service writes every message, found without the stdlib's header parser (which cost
    more than the rest of a send); None when that is not plain, for the parser to decide."""
    end = message.find(b"\r\n\r\n")
    if end < 0:
        return None
    head = message[:end + 2]
    if not head.isascii() or _PLAIN_HEAD.fullmatch(head) is None or _DATE_FIELD.search(head) is None:
        return None
    found = _ID_FIELD.search(head)  # the first, as the parser's get
    if found is None or not found.group(1).strip() or head[found.end():found.end() + 1] in (b" ", b"\t"):
        return None  # none, empty or folded
    return found.group(1).decode("ascii").strip()


def with_date_and_id(message: bytes, message_id: str | None, *, idstring: str | None = None,
                     domain: str = "localhost") -> tuple[bytes, str]:
    """Prepend Date and Message-ID when the service left them out (aiosmtplib adds neither).
    Returns the message and the Message-ID it goes out with (``message_id`` is used when the
    message has none; None makes a fresh one, with ``idstring`` and ``domain``).

    Headers are prepended as bytes rather than by re-serialising the message, so the service's
    MIME structure and encodings reach the server exactly as it wrote them."""
    own = _own_date_and_id(message)
    if own is not None:
        return message, own
    hdr = BytesHeaderParser(policy=compat32).parsebytes(message)
    nl = b"\r\n" if b"\r\n" in message[:2000] else b"\n"
    extra = b""
    if hdr.get("Date") is None:
        extra += b"Date: " + formatdate(localtime=False, usegmt=True).encode() + nl
    existing = hdr.get("Message-ID")
    if existing:
        return extra + message, str(existing).strip()
    message_id = message_id or make_msgid(idstring=idstring, domain=domain)
    return extra + b"Message-ID: " + message_id.encode("ascii") + nl + message, message_id


class SmtpSender:
    def __init__(self, cfg: SmtpSection, judge: JudgeSection, service: ServiceProxy, state: DaemonState,
                 stop: asyncio.Event, wake: asyncio.Event, imap: ImapSection | None = None) -> None:
        self.cfg, self.judge, self.service, self.state = cfg, judge, service, state
        self.imap = imap  # where receipts arrive, searched directly after a crash
        self._last_search = 0.0
        self.stop, self.wake = stop, wake
        self.stats = SmtpStats()
        self._not_before: dict[int, float] = {}  # item id -> time.monotonic() of its next try
        # accepted by the server, but the store would not record it (locked, disk full): recorded
        # before anything else is sent, and never sent again meanwhile (they are not in doubt)
        self._unrecorded: set[int] = set()
        self.idle = asyncio.Event()  # set while the outbox is empty (tests, benchmarks)

    async def run(self) -> None:
        backoff = Backoff(self.cfg.reconnect_min, self.cfg.reconnect_max)
        refused = Backoff(self.cfg.auth_retry_min, self.cfg.auth_retry_max)
        await self._forget_stale()
        while not self.stop.is_set():
            self.wake.clear()
            try:
                next_due = await self._drain()
                backoff.reset()
                refused.reset()
            except ServerUnavailable as exc:
                if exc.refused:
                    delay = refused.next()
                    log(logger, "smtp.login_refused", logging.ERROR, host=self.cfg.host, port=self.cfg.port,
                        user=self.cfg.user, error=str(exc), retry_in=round(delay, 2))
                    self.state.put("smtp_last_error", str(exc))
                    await wait_any([self.stop], delay)
                    continue
                delay = backoff.next()
                log(logger, "smtp.unavailable", logging.WARNING, error=str(exc), retry_in=round(delay, 2))
                self.state.put("smtp_last_error", str(exc))
                if exc.unreachable:  # knock on its port meanwhile: back within seconds of its return
                    if await wait_for_port(self.cfg.host, self.cfg.port, delay, self.cfg.probe_interval, self.stop):
                        log(logger, "smtp.server_back", host=self.cfg.host, port=self.cfg.port)
                else:
                    await wait_any([self.stop], delay)
                continue
            except Exception as exc:
                cause = transient_cause(exc)
                if cause is None:
                    raise  # a bug: the supervisor logs it and restarts the runner
                # the store (or the journal) cannot be written: locked by another process, disk
                # full. Nothing is sent unrecorded; what is in doubt stays in the journal
                delay = backoff.next()
                error = f"{describe_cause(cause)}: {type(exc).__name__}: {exc}"
                log(logger, "smtp.store_unavailable", logging.ERROR, cause=cause, error=error,
                    retry_in=round(delay, 2))
                self.state.put("smtp_last_error", error)
                await wait_any([self.stop], delay)
                continue
            timeout = self.cfg.poll_interval if next_due is None else max(0.05, min(self.cfg.poll_interval, next_due))
            await wait_any([self.stop, self.wake], timeout)

    async def _forget_stale(self) -> None:
        """Clear journal entries of sends that were settled after all: killed between recording
        an item sent (or failed for good) in the service and clearing its entry, the entry stays
        behind and ``judge status`` would count a send in doubt that is not."""
        ids = self.state.journal_item_ids()
        if not ids:
            return
        try:
            settled = await self.service.settled(ids)
        except Exception as exc:  # the store is unavailable: the entries wait for the next start
            log(logger, "smtp.journal_check_failed", logging.WARNING, error=f"{type(exc).__name__}: {exc}")
            return
        stale = [i for i in ids if i in settled]
        for i in stale:
            self.state.forget(i)
        if stale:
            log(logger, "smtp.journal_cleared", items=stale)

    async def _drain(self) -> float | None:
        """Send until the outbox has nothing due. Returns seconds until a held item is due."""
        if self._unrecorded:
            await self._mark_sent(sorted(self._unrecorded))
        while not self.stop.is_set():
            items = await self.service.pending_outbox(limit=self.cfg.batch_size)
            self.idle.clear()
            now = time.monotonic()
            ready: list[tuple[OutboxItemLike, str, InDoubt | None]] = []
            waits: list[float] = []
            candidates: list[tuple[OutboxItemLike, str, InDoubt | None]] = []
            for item in items:
                due = self._not_before.get(item.id, 0.0)
                if due > now:
                    waits.append(due - now)
                    continue
                digest = digest_of(item.message)
                candidates.append((item, digest, self.state.in_doubt(item.id, digest)))
            unknown = [d.message_id for _, _, d in candidates if d is not None and d.receipt is None]
            if unknown and self.cfg.receipt_to:
                await self._look_for_receipts(unknown)
                candidates = [(i, g, self.state.in_doubt(i.id, g) if d else None) for i, g, d in candidates]
            for item, digest, doubt in candidates:
                if doubt is not None:
                    hold = await self._settle_in_doubt(item, doubt)
                    if hold is None:
                        continue  # settled: it had been delivered
                    if hold > 0:
                        # looked for again soon: a receipt arriving ends the wait early
                        waits.append(min(hold, RECEIPT_RECHECK))
                        continue
                ready.append((item, digest, doubt))
            if not ready:
                if not items:
                    self.idle.set()
                return min(waits) if waits else None
            await self._send_batch(ready)
        return None

    async def _look_for_receipts(self, message_ids: list[str]) -> None:
        """Search the judge's mailbox for receipts of interrupted sends (at most every second)."""
        if self.imap is None or time.monotonic() - self._last_search < 1.0:
            return
        self._last_search = time.monotonic()
        try:
            found = await asyncio.wait_for(find_message_ids(self.imap, message_ids), self.imap.timeout * 3)
        except Exception as exc:  # the IMAP runner will still see the receipts; only slower
            log(logger, "smtp.receipt_search_failed", logging.WARNING, error=f"{type(exc).__name__}: {exc}")
            return
        for mid in found:
            if self.state.record_receipt(mid):
                log(logger, "smtp.receipt_found", message_id=mid)

    async def _settle_in_doubt(self, item: OutboxItemLike, doubt: InDoubt) -> float | None:
        """None: it was delivered (marked sent now). 0: send it again now. >0: wait that long."""
        if doubt.receipt is not None:
            await self.service.mark_sent(item.id)
            self.state.forget(item.id)
            self.stats.settled_by_receipt += 1
            log(logger, "smtp.settled_by_receipt", item=item.id, message_id=doubt.message_id)
            return None
        if self.cfg.receipt_to:
            left = doubt.started + self.cfg.receipt_wait - time.time()
            if left > 0:
                return left
        self.stats.resent_in_doubt += 1
        log(logger, "smtp.resend_in_doubt", logging.WARNING, item=item.id, message_id=doubt.message_id)
        return 0.0

    async def _send_batch(self, batch: list[tuple[OutboxItemLike, str, InDoubt | None]]) -> None:
        """Up to ``connections`` connections side by side: each message costs several round trips
        (MAIL, RCPT, DATA, the data), and parallel connections overlap those waits. Messages with
        the same recipients share a connection, so each recipient gets them in queue order."""
        n = max(1, min(self.cfg.connections, len(batch)))
        lanes: list[list[tuple[OutboxItemLike, str, InDoubt | None]]] = [[] for _ in range(n)]
        for entry in batch:
            key = ",".join(sorted(a.lower() for a in entry[0].recipients))
            lanes[int(hashlib.sha1(key.encode()).hexdigest(), 16) % n].append(entry)
        results = await asyncio.gather(*(self._send_lane(lane) for lane in lanes if lane), return_exceptions=True)
        for r in results:
            if isinstance(r, BaseException):
                raise r

    async def _connect(self) -> aiosmtplib.SMTP:
        """A logged-in session with the server's extensions known, or ServerUnavailable."""
        cfg = self.cfg
        smtp = aiosmtplib.SMTP(hostname=cfg.host, port=cfg.port, timeout=cfg.timeout,
                               use_tls=cfg.tls == "tls", start_tls=True if cfg.tls == "starttls" else False,
                               validate_certs=cfg.verify, cert_bundle=cfg.ca_file or None,
                               local_hostname=self.judge.domain)
        try:
            await asyncio.wait_for(smtp.connect(), cfg.timeout * 2)
            if cfg.user:
                await smtp.login(cfg.user, cfg.password)
            if smtp.is_ehlo_or_helo_needed:  # the server's extensions (SMTPUTF8) are wanted before MAIL
                try:
                    await smtp.ehlo()
                except aiosmtplib.SMTPHeloError:
                    await smtp.helo()  # a server without ESMTP: no extensions
        except (aiosmtplib.SMTPException, OSError, asyncio.TimeoutError) as exc:
            smtp.close()
            # nobody answered on the port (refused, timed out): not a greeting, TLS or login trouble
            unreachable = (isinstance(exc, (aiosmtplib.SMTPConnectError, ConnectionRefusedError, asyncio.TimeoutError))
                           and not isinstance(exc, aiosmtplib.SMTPConnectResponseError)
                           and "ssl" not in str(exc).lower() and "tls" not in str(exc).lower())
            raise ServerUnavailable(f"connect {cfg.host}:{cfg.port}: {type(exc).__name__}: {exc}",
                                    unreachable=unreachable,
                                    refused=isinstance(exc, aiosmtplib.SMTPAuthenticationError)) from exc
        return smtp

    async def send_direct(self, rcpts: list[str], message: bytes) -> None:
        """Send one message now, outside the outbox and the journal (a notice the store could not
        queue); raises on any failure."""
        bad = [r for r in rcpts if not valid_address(r)]
        if bad or not rcpts:
            raise ValueError(f"invalid address(es) {bad!r}" if bad else "no recipients")
        smtp = await self._connect()
        try:
            smtputf8 = smtp.supports_extension("smtputf8")
            wire = [w for w in (wire_address(r, smtputf8) for r in rcpts) if w]
            data, _ = with_date_and_id(message, None)
            await smtp.sendmail(self.judge.address, wire, data)
        finally:
            try:
                await asyncio.wait_for(smtp.quit(), 5)
            except Exception:  # the message is sent or the error raised already
                smtp.close()

    async def _send_lane(self, batch: list[tuple[OutboxItemLike, str, InDoubt | None]]) -> None:
        smtp = await self._connect()
        self.stats.batches += 1
        sent: list[int] = []  # accepted by the server, not yet recorded by the service
        try:
            for item, digest, doubt in batch:
                if self.stop.is_set():
                    break  # shutdown: the message in hand was finished, the rest stays queued
                if await self._send_one(smtp, item, digest, doubt):
                    sent.append(item.id)
                    if len(sent) >= MARK_EVERY:
                        await self._mark_sent(sent)
                        sent = []
            self.state.put("smtp_last_ok", time.time(), every=5.0)
        finally:
            if sent:  # also when the connection failed later: these were delivered
                await self._mark_sent(sent)
            try:
                await asyncio.wait_for(smtp.quit(), 5)
            except Exception:  # the server may already be gone; nothing is pending on this connection
                smtp.close()

    async def _send_one(self, smtp: aiosmtplib.SMTP, item: OutboxItemLike, digest: str,
                        doubt: InDoubt | None) -> bool:
        """Send one item; True when the server took it (the caller records that with ``_mark_sent``)."""
        cfg = self.cfg
        sender = item.sender or self.judge.address
        rcpts = list(dict.fromkeys(item.recipients))
        bad = [r for r in [sender, *rcpts] if not valid_address(r)]
        if bad or not rcpts:
            await self._failed(item, f"invalid address(es) {bad!r}" if bad else "no recipients", permanent=True)
            return False
        if cfg.receipt_to and cfg.receipt_to not in rcpts:
            rcpts.append(cfg.receipt_to)
        data, message_id = with_date_and_id(item.message, doubt.message_id if doubt else None,
                                            idstring=f"j{item.id}", domain=self.judge.domain)
        smtputf8 = smtp.supports_extension("smtputf8")
        wire = {r: wire_address(r, smtputf8) for r in [sender, *rcpts]}
        # a mailbox with a non-ASCII local part cannot go through a server without SMTPUTF8: refused
        # here, for good (retrying would meet the same server), the reason in the log and the outbox
        no_utf8 = f"needs SMTPUTF8, which {cfg.host}:{cfg.port} does not offer"
        refused: dict[str, str] = {r: no_utf8 for r in rcpts if wire[r] is None}
        if wire[sender] is None or all(r in refused or r == cfg.receipt_to for r in rcpts):
            who = sender if wire[sender] is None else ", ".join(refused)
            await self._failed(item, f"{who}: {no_utf8}", permanent=True)
            return False
        head = data.split(b"\r\n\r\n", 1)[0]
        utf8 = smtputf8 and not (all(a.isascii() for a in wire.values() if a) and head.isascii())
        options, encoding = (["SMTPUTF8"], "utf-8") if utf8 else ([], "ascii")
        started = False
        try:
            await smtp.mail(wire[sender], options=options, encoding=encoding)
            for r in rcpts:
                if r in refused:
                    continue
                try:
                    await smtp.rcpt(wire[r], encoding=encoding)  # type: ignore[arg-type]
                except aiosmtplib.SMTPRecipientRefused as exc:
                    if exc.code == 421:
                        raise
                    refused[r] = f"{exc.code} {exc.message}"
            if all(r in refused or r == cfg.receipt_to for r in rcpts):
                await smtp.rset()
                permanent = all(v.startswith("5") or v == no_utf8 for v in refused.values())
                await self._failed(item, f"all recipients refused: {refused}", permanent=permanent)
                return False
            self.state.begin_data(item.id, digest, message_id)
            started = True
            await smtp.data(data)
        except aiosmtplib.SMTPResponseException as exc:
            if exc.code == 421 or exc.code < 400:  # the server is closing: not this message's fault
                raise ServerUnavailable(f"{exc.code} {exc.message}") from exc
            if started:
                self.state.forget(item.id)  # the server answered DATA with an error: it has not taken it
            try:
                await smtp.rset()
            except aiosmtplib.SMTPException as rexc:
                raise ServerUnavailable(f"RSET after error: {rexc}") from rexc
            await self._failed(item, f"{exc.code} {exc.message}", permanent=500 <= exc.code < 600)
            return False
        except (aiosmtplib.SMTPException, OSError, asyncio.TimeoutError) as exc:
            # connection trouble; if DATA had begun, the journal entry stays: in doubt
            raise ServerUnavailable(f"{type(exc).__name__}: {exc}") from exc
        self.stats.sent += 1
        if refused:
            # never silent: the master sees this in the log; the others did get the message
            log(logger, "smtp.partly_refused", logging.WARNING, item=item.id, refused=refused)
        log(logger, "smtp.sent", item=item.id, message_id=message_id, rcpts=len(rcpts) - len(refused))
        return True

    async def _mark_sent(self, item_ids: list[int]) -> None:
        """Record accepted sends in the service, then clear their journal entries (step 4). If
        the store will not take the record, they are kept to be recorded at the next round."""
        self._unrecorded.update(item_ids)
        await self.service.mark_sent_many(item_ids)
        self._unrecorded.difference_update(item_ids)
        for i in item_ids:
            self.state.forget(i)
            self._not_before.pop(i, None)

    async def _failed(self, item: OutboxItemLike, error: str, permanent: bool) -> None:
        await self.service.mark_failed(item.id, error, permanent)
        if permanent:
            self.stats.permanent += 1
            self._not_before.pop(item.id, None)
        else:
            self.stats.transient += 1
            delay = min(self.cfg.retry_max, self.cfg.retry_base * 2 ** max(0, item.attempts))
            self._not_before[item.id] = time.monotonic() + delay
        log(logger, "smtp.failed", logging.ERROR if permanent else logging.WARNING, item=item.id,
            error=error, permanent=permanent)
