"""The IMAP runner: mail in the judge's mailbox -> the service -> flagged (or moved) afterwards.

The order of events is the whole point: a message is FETCHed with BODY.PEEK (which leaves it
unseen), handed to ``receive()`` (one committed transaction), and only then flagged \\Seen or
moved. Killed anywhere in between, the message is still unseen on restart; the service answers
"duplicate" for it and it is flagged then. Nothing is lost and nothing is applied twice.

aioimaplib traps handled here (see shared/reference/email-stack.md): the client is built inside
the running loop; every call is raced against a clock and the lost-connection callback (IDLE can
hang forever after BYE); SEARCH results come from ``lines[:-1]``; FETCH asks for a bounded number
of messages (its parser recurses once per response line); literals are ``bytearray``; implicit TLS
uses ``IMAP4(ssl_context=...)`` because ``IMAP4_SSL`` has no conn_lost_cb; pushes are not relied
upon: the mailbox is searched after every IDLE round and every poll interval.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import ssl
import time
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import getaddresses
from typing import Any, AsyncIterator, Awaitable, Callable

import aioimaplib

from judge.daemon.aio import Backoff, ConnectionLost, guarded, wait_any, wait_event, wait_for_port
from judge.daemon.config import ImapSection, JudgeSection
from judge.daemon.logs import log
from judge.daemon.service import ServiceProxy
from judge.daemon.state import DaemonState
from judge.game.store import describe_cause, transient_cause

logger = logging.getLogger("judge.daemon.imap")

_UID = re.compile(rb"\bUID (\d+)")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")
_UIDVALIDITY = re.compile(rb"UIDVALIDITY (\d+)")
_SEEN = r"(\Seen)"


#: messages handed to the service per trip to its thread, stored in one commit (one fsync).
#: The service thread is what limits the mail rate (see docs/speed.md), so each commit it waits
#: for counts; 20 order mails take it about 60-90 ms, which is as long as a deadline or the SMTP
#: runner's record of sends may wait behind them
RECEIVE_CHUNK = 20
#: seconds before a message that failed is tried again in the same session
FAILED_RETRY = 300.0
#: receive() raising this often for one message makes it poison: recorded, flagged, set aside
MAX_RECEIVE_ERRORS = 3
#: the store unavailable (locked by another process, disk full, I/O error: not the message's
#: fault, never poison): nothing is handed over until it is tried again after this back-off
STORE_RETRY_MIN = 1.0
STORE_RETRY_MAX = 30.0


class ImapError(Exception):
    """The server said NO/BAD to something we need."""


class LoginRefused(ImapError):
    """LOGIN answered NO/BAD: wrong password, locked or disabled account. Retrying soon cannot
    help and trips fail2ban and providers' lockouts."""


def parse_search(lines: list[Any]) -> list[int]:
    """UIDs from a (UID) SEARCH response. The last line is the tagged status; servers differ
    in whether an empty result has an untagged line at all, and unrelated untagged lines
    (EXISTS, EXPUNGE, FETCH) may be mixed in: only all-digit lines count."""
    out: list[int] = []
    for line in lines[:-1]:
        if not isinstance(line, (bytes, bytearray)):
            continue
        parts = bytes(line).split()
        if parts[:1] == [b"SEARCH"]:
            parts = parts[1:]
        if parts and all(p.isdigit() for p in parts):
            out.extend(int(p) for p in parts)
    return out


def parse_fetch_literals(lines: list[Any]) -> dict[int, bytes]:
    """UID -> literal from a UID FETCH response (one literal per message asked for).

    aioimaplib returns a flat list: header line ``n FETCH (UID u BODY[] {size}``, the literal
    as a bytearray, then the rest, e.g. ``)`` or `` UID u)`` when the server puts UID last."""
    out: dict[int, bytes] = {}
    for i, line in enumerate(lines):
        if not isinstance(line, bytearray):
            continue
        head = lines[i - 1] if i > 0 and isinstance(lines[i - 1], bytes) else b""
        tail = lines[i + 1] if i + 1 < len(lines) and isinstance(lines[i + 1], bytes) else b""
        m = _UID.search(head) or _UID.search(tail)
        if m:
            out[int(m.group(1))] = bytes(line)
    return out


def parse_sizes(lines: list[Any]) -> dict[int, int]:
    out: dict[int, int] = {}
    for line in lines[:-1]:
        if isinstance(line, (bytes, bytearray)):
            u, s = _UID.search(line), _SIZE.search(line)
            if u and s:
                out[int(u.group(1))] = int(s.group(1))
    return out


def receipt_message_id(raw: bytes, judge: JudgeSection) -> str | None:
    """The Message-ID if ``raw`` is a copy of our own outgoing mail (From us, with our loop
    header), which the SMTP runner asked for as proof that a send was accepted."""
    end = raw.find(b"\r\n\r\n")
    end = raw.find(b"\n\n") if end < 0 else end
    head = raw[: end if end >= 0 else 65536]
    if judge.loop_header.lower().encode("ascii", "replace") not in head.lower():
        return None  # the common case, decided without parsing
    try:
        hdr = BytesHeaderParser(policy=compat32).parsebytes(head)
        if hdr.get(judge.loop_header) is None:
            return None
        senders = [a.lower() for _, a in getaddresses([str(v) for v in hdr.get_all("From", [])])]
        mid = hdr.get("Message-ID")
    except Exception:  # a header the parser chokes on is not one of ours
        return None
    if senders != [judge.address.lower()] or not mid:
        return None
    return str(mid).strip()


def _ok(resp: Any, what: str) -> Any:
    if resp.result != "OK":
        raise ImapError(f"{what}: {resp.result} {resp.lines[-1:]!r}")
    return resp


async def expunge(client: aioimaplib.IMAP4, lost: asyncio.Event, uid_set: str, timeout: float) -> None:
    """Expunge these \\Deleted messages: UID EXPUNGE needs UIDPLUS (aioimaplib refuses it without);
    a server lacking it gets a plain EXPUNGE, which also removes any other \\Deleted message in
    the folder (what that flag asks for anyway)."""
    if "UIDPLUS" in client.protocol.capabilities:
        _ok(await guarded(client.uid("expunge", uid_set), timeout, lost), "UID EXPUNGE")
    else:
        _ok(await guarded(client.expunge(), timeout, lost), "EXPUNGE")


def _quote(mailbox: str) -> str:
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _client(cfg: ImapSection, lost: asyncio.Event) -> aioimaplib.IMAP4:
    ctx = None
    if cfg.tls == "tls":
        ctx = ssl.create_default_context(cafile=cfg.ca_file or None)
        if not cfg.verify:
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    # built inside the running loop (the constructor schedules the connection); IMAP4 with an
    # SSL context rather than IMAP4_SSL, which has no lost-connection callback
    return aioimaplib.IMAP4(host=cfg.host, port=cfg.port, timeout=cfg.timeout,
                            conn_lost_cb=lambda _exc: lost.set(), ssl_context=ctx)


@contextlib.asynccontextmanager
async def short_session(cfg: ImapSection, mailbox: str) -> AsyncIterator[tuple[aioimaplib.IMAP4, asyncio.Event, Any]]:
    """A second, short session beside the IMAP runner's: logged in, ``mailbox`` selected (its
    answer is yielded too: a folder may not exist yet), logged out afterwards."""
    lost = asyncio.Event()
    client = _client(cfg, lost)
    try:
        await guarded(client.wait_hello_from_server(), cfg.timeout, lost)
        _ok(await guarded(client.login(cfg.user, cfg.password), cfg.timeout, lost), "LOGIN")
        # the list after login, as the runner reads it (``expunge`` depends on UIDPLUS)
        await guarded(client.protocol.capability(), cfg.timeout, lost)
        # SELECT, not EXAMINE: aioimaplib only allows SEARCH after a SELECT
        sel = await guarded(client.select(_quote(mailbox)), cfg.timeout, lost)
        yield client, lost, sel
    finally:
        if not lost.is_set():
            try:
                await guarded(client.logout(), 5.0, lost)
            except Exception:  # leaving anyway
                pass


async def find_message_ids(cfg: ImapSection, message_ids: list[str]) -> set[str]:
    """Which of these Message-IDs are in the mailbox now, seen or not: a short second session
    (searching only) for the SMTP runner, so an interrupted send's receipt is found at once
    even while the IMAP runner still has a backlog to work through."""
    found: set[str] = set()
    async with short_session(cfg, cfg.mailbox) as (client, lost, sel):
        _ok(sel, "SELECT")
        for mid in message_ids:
            resp = _ok(await guarded(client.uid_search("HEADER", "Message-ID", _quote(mid), charset=None),
                                     cfg.timeout, lost), "UID SEARCH")
            if parse_search(resp.lines):
                found.add(mid)
    return found


@dataclass
class ImapStats:
    handled: int = 0
    duplicate: int = 0
    ignored: int = 0
    receipts: int = 0
    failed: int = 0  # the service recorded them as failed; set aside
    errors: int = 0
    sessions: int = 0
    last_contact: float = 0.0
    statuses: dict[str, int] = field(default_factory=dict)


class ImapIngest:
    """One IMAP connection at a time; on any trouble it is dropped and a fresh one made."""

    def __init__(self, cfg: ImapSection, judge: JudgeSection, service: ServiceProxy, state: DaemonState,
                 stop: asyncio.Event, on_handled: Callable[[], None] = lambda: None,
                 on_read: Callable[[], None] = lambda: None,
                 alarm: Callable[[str, str], Awaitable[Any]] | None = None) -> None:
        self.cfg, self.judge, self.service, self.state = cfg, judge, service, state
        self.stop, self.on_handled, self.on_read = stop, on_handled, on_read
        #: tells the admin (title, text): a refused login needs a person
        self.alarm = alarm
        #: the latest failure to reach or use the server ("" while a session is up)
        self.last_error = ""
        #: the latest LOGIN was refused (wrong password, locked account)
        self.login_refused = False
        #: wall time at which the latest complete read of the mailbox began: every message
        #: delivered before it has been handed to the service (the scheduler's gate for deadlines)
        self.read_through = 0.0
        #: set by the scheduler when a deadline waits for a fresh read: ends IDLE/poll sleep at once
        self.sweep = asyncio.Event()
        #: true while a deadline is held or near: reconnect back-off is capped at reconnect_urgent
        self.urgent: Callable[[], bool] = lambda: False
        #: what the session was doing (connect, greeting, login, select, search, fetch, store, idle,
        #: noop): an error names it with the host and port
        self.step = "connect"
        self.stats = ImapStats()
        # UIDs whose receive() raised, or that the server would not give us: tried again after
        # FAILED_RETRY seconds or a reconnect, not in a hot loop (the service promises never to
        # raise, but a bug must not spin the daemon)
        self._failed: dict[int, float] = {}
        # (UIDVALIDITY, UID) -> times receive() raised for it; kept across reconnects so a
        # message that always raises is set aside after MAX_RECEIVE_ERRORS tries, not retried forever
        self._errors: dict[tuple[str, int], int] = {}
        # the store was unavailable at the last receive(): what is wrong (for notices and status),
        # and when (time.monotonic()) mail is handed over again; the mailbox is not read through
        # meanwhile, so a due deadline stays held until the messages are in the store
        self.store_error = ""
        self._store_retry_at = 0.0
        self._store_backoff = Backoff(STORE_RETRY_MIN, STORE_RETRY_MAX)
        self._failed_folder_ok: bool | None = None  # per session: None until CREATE was tried
        self.connected = asyncio.Event()  # for tests and status: a session is up
        self.uidvalidity = "?"
        self.use_move = False

    # --- connection lifecycle ---------------------------------------------------------------
    async def run(self) -> None:
        cfg = self.cfg
        backoff = Backoff(cfg.reconnect_min, cfg.reconnect_max)
        refused = Backoff(cfg.auth_retry_min, cfg.auth_retry_max)
        while not self.stop.is_set():
            try:
                self.step = "connect"
                await self._session(backoff, refused)
            except LoginRefused as exc:
                # the full back-off, deadline or not: a person must fix the password or account
                delay = refused.next()
                error = f"{type(exc).__name__}: {exc}"
                self.last_error = f"login {cfg.host}:{cfg.port}: {error}"
                log(logger, "imap.login_refused", logging.ERROR, host=cfg.host, port=cfg.port, step="login",
                    user=cfg.user, error=error, retry_in=round(delay, 2))
                self.state.put("imap_last_error", self.last_error)
                if not self.login_refused:
                    self.login_refused = True
                    await self._alarm_refused(error, delay)
                await wait_event(self.stop, delay)
            except (OSError, asyncio.TimeoutError, ImapError, aioimaplib.Abort,
                    aioimaplib.CommandTimeout, ConnectionLost) as exc:
                delay = backoff.next()
                if self.urgent():
                    delay = min(delay, cfg.reconnect_urgent)
                error = f"{type(exc).__name__}: {exc}"
                log(logger, "imap.disconnected", logging.WARNING, host=cfg.host, port=cfg.port, step=self.step,
                    error=error, retry_in=round(delay, 2))
                self.last_error = f"{self.step} {cfg.host}:{cfg.port}: {error}"
                self.state.put("imap_last_error", self.last_error)
                if self.step == "connect":
                    await self._wait_for_port(delay)
                else:
                    await wait_event(self.stop, delay)
            finally:
                self.connected.clear()
                self._failed.clear()

    async def _wait_for_port(self, delay: float) -> None:
        """Sleep ``delay`` after the server could not be reached, knocking on its port every
        ``probe_interval`` seconds: once it is back we reconnect at once."""
        cfg = self.cfg
        if await wait_for_port(cfg.host, cfg.port, delay, cfg.probe_interval, self.stop):
            log(logger, "imap.server_back", host=cfg.host, port=cfg.port)

    async def _alarm_refused(self, error: str, delay: float) -> None:
        if self.alarm is None:
            return
        cfg = self.cfg
        await self.alarm(
            "IMAP login refused",
            f"The judge's mail daemon cannot log in to its mailbox: the server {cfg.host}:{cfg.port} refused "
            f"the login of {cfg.user} ({error}).\n\nUntil this is fixed no mail is read, and deadlines that "
            f"come due are held. The daemon tries again after {delay / 60:.0f} minutes, then at growing "
            f"intervals up to {cfg.auth_retry_max / 60:.0f} minutes (retrying sooner would trip the "
            f"server's lockouts). Check the password (password_env / password_file in the [imap] table), "
            f"and whether the account is locked, then restart the daemon.\n")

    async def _session(self, backoff: Backoff, refused: Backoff) -> None:
        cfg = self.cfg
        lost = asyncio.Event()
        client = _client(cfg, lost)
        self.stats.sessions += 1
        try:
            try:
                await guarded(client.wait_hello_from_server(), cfg.timeout, lost)
            except ssl.SSLError:
                self.step = "tls"
                raise
            except (asyncio.TimeoutError, ConnectionLost):
                # connected but no (or a broken) greeting: the server is there, it is not talking
                if client.protocol.transport is not None:
                    self.step = "greeting"
                raise
            self.step = "login"
            answer = await guarded(client.login(cfg.user, cfg.password), cfg.timeout, lost)
            if answer.result != "OK" and b"[UNAVAILABLE]" not in b" ".join(
                    bytes(l) for l in answer.lines if isinstance(l, (bytes, bytearray))).upper():
                raise LoginRefused(f"LOGIN: {answer.result} {answer.lines[-1:]!r}")
            _ok(answer, "LOGIN")  # [UNAVAILABLE]: the server's trouble, retried as an outage
            refused.reset()
            if self.login_refused:
                self.login_refused = False
                log(logger, "imap.login_accepted", host=cfg.host, port=cfg.port)
            caps = await self._capabilities(client, lost)
            self.step = "select"
            if cfg.processed_folder:
                resp = await guarded(client.create(_quote(cfg.processed_folder)), cfg.timeout, lost)
                if resp.result != "OK" and b"ALREADYEXISTS" not in b" ".join(
                        l for l in resp.lines if isinstance(l, bytes)).upper():
                    log(logger, "imap.create_failed", logging.ERROR, folder=cfg.processed_folder,
                        answer=repr(resp.lines[-1:]))
            sel = _ok(await guarded(client.select(_quote(cfg.mailbox)), cfg.timeout, lost), "SELECT")
            uidvalidity = next((m.group(1).decode() for l in sel.lines if isinstance(l, bytes)
                                for m in [_UIDVALIDITY.search(l)] if m), "?")
            use_idle = cfg.idle and "IDLE" in caps
            self.use_move = "MOVE" in caps
            if not self.use_move:
                await self._expunge_leftovers(client, lost)
            log(logger, "imap.connected", host=cfg.host, mailbox=cfg.mailbox, uidvalidity=uidvalidity,
                idle=use_idle)
            self.uidvalidity = uidvalidity
            self._failed_folder_ok = None
            self.last_error = ""
            self.connected.set()
            while not self.stop.is_set():
                await self._drain(client, lost)
                backoff.reset()  # only once work went through: a persistent error keeps backing off
                if self.stop.is_set():
                    break
                if use_idle:
                    self.step = "idle"
                    await self._idle(client, lost)
                else:
                    await wait_any([self.stop, self.sweep], cfg.poll_interval)
                    if not self.stop.is_set():
                        # NOOP keeps the session alive and surfaces a dead connection
                        self.step = "noop"
                        _ok(await guarded(client.noop(), cfg.timeout, lost), "NOOP")
        finally:
            if not lost.is_set():
                try:
                    await guarded(client.logout(), 5.0, lost)
                except Exception:  # leaving anyway; the server will time the session out
                    pass

    async def _expunge_leftovers(self, client: aioimaplib.IMAP4, lost: asyncio.Event) -> None:
        """Without MOVE a crash between STORE \\Deleted and EXPUNGE leaves the message in the
        mailbox, already copied but never searched again (UNDELETED / \\Seen): expunge it now."""
        self.step = "expunge"
        resp = _ok(await guarded(client.uid_search("DELETED", charset=None), self.cfg.timeout, lost), "UID SEARCH")
        uids = parse_search(resp.lines)
        if uids:
            log(logger, "imap.expunge_leftovers", uids=uids)
            await expunge(client, lost, ",".join(map(str, uids)), self.cfg.timeout)

    async def _capabilities(self, client: aioimaplib.IMAP4, lost: asyncio.Event) -> set[str]:
        # aioimaplib parses capabilities from the LOGIN answer naively (junk tokens with some
        # servers); ask the server again after login, which refreshes the protocol's set
        await guarded(client.protocol.capability(), self.cfg.timeout, lost)
        return {str(c).upper() for c in client.protocol.capabilities}

    async def _idle(self, client: aioimaplib.IMAP4, lost: asyncio.Event) -> None:
        cfg = self.cfg
        window = min(cfg.idle_restart, cfg.poll_interval)
        idle = await guarded(client.idle_start(timeout=window + cfg.timeout), cfg.timeout, lost)
        push = asyncio.ensure_future(client.wait_server_push(timeout=window))
        waiters = {push, asyncio.ensure_future(lost.wait()), asyncio.ensure_future(self.stop.wait()),
                   asyncio.ensure_future(self.sweep.wait())}
        try:
            await asyncio.wait(waiters, timeout=window + 1, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waiters:
                w.cancel()
        if lost.is_set():
            raise ConnectionLost("connection lost during IDLE")
        client.idle_done()
        await guarded(idle, cfg.timeout, lost)
        self.state.put("imap_last_contact", time.time(), every=5.0)

    # --- the work ---------------------------------------------------------------------------
    async def _drain(self, client: aioimaplib.IMAP4, lost: asyncio.Event) -> None:
        """Hand every waiting message to the service, bounded batch by bounded batch."""
        cfg = self.cfg
        # NOOP first: Dovecot (and others) search the session's current view of the mailbox and
        # bring new deliveries into it only on a sync, which NOOP forces; without it a message
        # delivered a moment ago may be missed until the IDLE push (about 0.5 s later)
        self.step = "noop"
        _ok(await guarded(client.noop(), cfg.timeout, lost), "NOOP")
        while not self.stop.is_set():
            # In move mode every message left in the mailbox is unprocessed, read or not (less
            # those a COPY+EXPUNGE fallback has marked \Deleted but not yet expunged).
            criterion = "UNDELETED" if cfg.processed_folder else "UNSEEN"
            self.sweep.clear()
            began = time.time()
            self.step = "search"
            resp = _ok(await guarded(client.uid_search(criterion, charset=None), cfg.timeout, lost), "UID SEARCH")
            self.stats.last_contact = time.time()
            self.state.put("imap_last_contact", self.stats.last_contact, every=5.0)
            now = time.monotonic()
            uids = [u for u in parse_search(resp.lines) if self._failed.get(u, 0.0) <= now]
            if uids and self._store_retry_at > now:
                # the store cannot take them yet: wait for the retry, then look again (new mail
                # included); a read that stopped here is no complete read
                await wait_event(self.stop, self._store_retry_at - now)
                self.step = "noop"
                _ok(await guarded(client.noop(), cfg.timeout, lost), "NOOP")
                continue
            if not uids:
                # everything delivered before ``began`` has been handled (or set aside)
                self.read_through = began
                self.state.put("imap_read_through", began, every=5.0)
                self.on_read()
                return
            for start in range(0, len(uids), cfg.batch_size):
                if self.stop.is_set():
                    return
                if self._store_retry_at > time.monotonic():
                    break  # the store failed: fetch no more until it is tried again (above)
                await self._batch(client, lost, uids[start:start + cfg.batch_size])

    async def _batch(self, client: aioimaplib.IMAP4, lost: asyncio.Event, uids: list[int]) -> None:
        cfg = self.cfg
        self.step = "fetch"
        resp = _ok(await guarded(client.uid("fetch", ",".join(map(str, uids)), "(UID RFC822.SIZE)"),
                                 cfg.timeout, lost), "UID FETCH sizes")
        sizes = parse_sizes(resp.lines)
        group: list[int] = []
        budget = 0
        for uid in uids:
            size = sizes.get(uid)
            if size is None:  # expunged meanwhile, or an answer we cannot read: not in a hot loop
                self._failed[uid] = time.monotonic() + FAILED_RETRY
                continue
            if group and budget + size > cfg.batch_bytes:
                await self._fetch_and_handle(client, lost, group, sizes)
                group, budget = [], 0
                if self.stop.is_set():
                    return
            group.append(uid)
            budget += min(size, cfg.max_message_bytes)
        if group:
            await self._fetch_and_handle(client, lost, group, sizes)

    async def _fetch_and_handle(self, client: aioimaplib.IMAP4, lost: asyncio.Event, uids: list[int],
                                sizes: dict[int, int]) -> None:
        cfg = self.cfg
        whole = [u for u in uids if sizes[u] <= cfg.max_message_bytes]
        huge = [u for u in uids if sizes[u] > cfg.max_message_bytes]
        bodies: dict[int, bytes] = {}
        for subset, item in ((whole, "BODY.PEEK[]"), (huge, "BODY.PEEK[HEADER]")):
            if subset:
                resp = _ok(await guarded(client.uid("fetch", ",".join(map(str, subset)), f"(UID {item})"),
                                         cfg.timeout, lost), "UID FETCH")
                bodies.update(parse_fetch_literals(resp.lines))
        done: list[int] = []
        aside: list[int] = []
        try:
            game: list[int] = []
            for uid in uids:
                raw = bodies.get(uid)
                if raw is None:
                    # asked for but not returned: gone meanwhile, or a server we do not understand;
                    # tried again after the next reconnect rather than in a hot loop
                    self._failed[uid] = time.monotonic() + FAILED_RETRY
                    log(logger, "imap.fetch_missing", logging.WARNING, uid=uid)
                elif self._receipt(uid, raw):
                    done.append(uid)
                else:
                    if uid in huge:
                        log(logger, "imap.too_large", logging.WARNING, uid=uid, size=sizes[uid],
                            limit=cfg.max_message_bytes)
                    game.append(uid)
            prefix = f"imap:{cfg.user}/{cfg.mailbox}/{self.uidvalidity}/"
            # a few messages per trip to the service thread, one commit for them: fewer thread hops
            # and fsyncs, yet the SMTP runner's calls (queued behind ours on that one thread) wait
            # for a few messages only. They are flagged only after that commit (_mark_done)
            for i in range(0, len(game), RECEIVE_CHUNK):
                if self.stop.is_set() or self._store_retry_at > time.monotonic():
                    break  # stopping, or the store is unavailable: the rest waits in the mailbox
                chunk = game[i:i + RECEIVE_CHUNK]
                # reading an asyncio.Event's flag from the service thread is a plain bool read
                results = await self.service.receive_many([(bodies[u], f"{prefix}{u}") for u in chunk],
                                                          self.stop.is_set)
                for u, r in zip(chunk, results):
                    outcome = self._account(u, sizes[u], r)
                    if outcome == "poison":
                        await self._record_poison(u, bodies[u], f"{prefix}{u}", r)
                    if outcome in ("poison", "failed"):
                        aside.append(u)
                    elif outcome == "done":
                        done.append(u)
                    elif outcome == "store":
                        break  # the service stopped this chunk there too
        finally:
            if done and not lost.is_set():
                await self._mark_done(client, lost, sorted(done))
            if aside and not lost.is_set():
                await self._set_aside(client, lost, sorted(aside))

    def _receipt(self, uid: int, raw: bytes) -> bool:
        """Our own send coming back (proof of SMTP acceptance): recorded, never mail for the game."""
        mid = receipt_message_id(raw, self.judge)
        if mid is None:
            return False
        self.stats.receipts += 1
        if self.state.record_receipt(mid):
            log(logger, "imap.receipt", uid=uid, message_id=mid)
            self.on_handled()
        return True

    def _account(self, uid: int, size: int, result: str | Exception) -> str:
        """Count and log one receive() outcome: ``done`` (committed: flag it), ``failed`` (the
        service recorded it as failed: set it aside), ``poison`` (it raised too often: set it
        aside), ``store`` (the store is unavailable: it and all later mail are tried again soon)
        or ``retry`` (leave it for later)."""
        if isinstance(result, Exception):
            self.stats.errors += 1
            error = f"{type(result).__name__}: {result}"
            cause = transient_cause(result)
            if cause is not None:
                self._store_unavailable(uid, cause, error)
                return "store"
            self._failed[uid] = time.monotonic() + FAILED_RETRY
            key = (self.uidvalidity, uid)
            self._errors[key] = self._errors.get(key, 0) + 1
            log(logger, "imap.receive_failed", logging.ERROR, uid=uid, size=size,
                error=error, tries=self._errors.get(key, 0))
            if self._errors.get(key, 0) >= MAX_RECEIVE_ERRORS:
                self._errors.pop(key, None)
                return "poison"
            return "retry"
        if self.store_error:
            log(logger, "imap.store_back", uid=uid, was=self.store_error)
            self.store_error = ""
            self._store_backoff.reset()
            self.state.put("store_error", "")
        self._errors.pop((self.uidvalidity, uid), None)
        kind = str(result).split(":", 1)[0]
        self.stats.statuses[kind] = self.stats.statuses.get(kind, 0) + 1
        if kind == "handled":
            self.stats.handled += 1
            self.on_handled()
        elif kind == "duplicate":
            self.stats.duplicate += 1
        elif kind == "failed":
            self.stats.failed += 1
        else:
            self.stats.ignored += 1
        log(logger, "imap.received", uid=uid, size=size, status=str(result))
        return "failed" if kind == "failed" else "done"

    def _store_unavailable(self, uid: int, cause: str, error: str) -> None:
        """receive() met a store it cannot use: this message and the rest are handed over again
        after a back-off of seconds (doubling to STORE_RETRY_MAX), never set aside."""
        delay = self._store_backoff.next()
        self._store_retry_at = time.monotonic() + delay
        first = not self.store_error
        self.store_error = describe_cause(cause, self.judge.db_path)
        # the first failure is an error an admin must see; the retries after it are warnings
        log(logger, "imap.store_unavailable", logging.ERROR if first else logging.WARNING, uid=uid,
            cause=cause, error=error, retry_in=round(delay, 2))
        self.state.put("store_error", f"{self.store_error}: {error}", every=0.0 if first else 5.0)

    async def _record_poison(self, uid: int, raw: bytes, source: str, exc: Any) -> None:
        try:
            await self.service.record_failure(raw, source, exc)
        except Exception as err:  # setting it aside matters more than the record
            log(logger, "imap.record_failure_failed", logging.ERROR, uid=uid, error=f"{type(err).__name__}: {err}")

    async def _set_aside(self, client: aioimaplib.IMAP4, lost: asyncio.Event, uids: list[int]) -> None:
        """Mail the service could not handle: flagged \\Flagged (visible in any mail client) and
        moved to ``failed_folder``; where that folder cannot be had, handled like done mail
        (\\Seen, or moved to the processed folder), so it is never fetched again in a loop."""
        cfg = self.cfg
        uid_set = ",".join(map(str, uids))
        flag = await guarded(client.uid("store", uid_set, "+FLAGS.SILENT", r"(\Flagged)"), cfg.timeout, lost)
        if flag.result != "OK":  # a mark for people only: setting it aside must go on without it
            log(logger, "imap.flag_failed", logging.WARNING, uids=uids, answer=repr(flag.lines[-1:]))
        if cfg.failed_folder and self._failed_folder_ok is None:
            resp = await guarded(client.create(_quote(cfg.failed_folder)), cfg.timeout, lost)
            text = b" ".join(l for l in resp.lines if isinstance(l, bytes)).upper()
            self._failed_folder_ok = resp.result == "OK" or b"ALREADYEXISTS" in text or b"EXISTS" in text
            if not self._failed_folder_ok:
                log(logger, "imap.create_failed", logging.ERROR, folder=cfg.failed_folder,
                    answer=repr(resp.lines[-1:]))
        log(logger, "imap.set_aside", logging.WARNING, uids=uids,
            folder=cfg.failed_folder if self._failed_folder_ok else "")
        if not self._failed_folder_ok:
            await self._mark_done(client, lost, uids)
            return
        try:
            await self._move(client, lost, uid_set, cfg.failed_folder)
        except ImapError as exc:
            log(logger, "imap.move_failed", logging.ERROR, folder=cfg.failed_folder, error=str(exc))
            await self._mark_done(client, lost, uids)

    async def _mark_done(self, client: aioimaplib.IMAP4, lost: asyncio.Event, uids: list[int]) -> None:
        cfg = self.cfg
        self.step = "store"
        uid_set = ",".join(map(str, uids))
        if not cfg.processed_folder:
            _ok(await guarded(client.uid("store", uid_set, "+FLAGS.SILENT", _SEEN), cfg.timeout, lost),
                "UID STORE")
        else:
            await self._move(client, lost, uid_set, cfg.processed_folder)

    async def _move(self, client: aioimaplib.IMAP4, lost: asyncio.Event, uid_set: str, folder: str) -> None:
        cfg = self.cfg
        if self.use_move:
            _ok(await guarded(client.uid("move", uid_set, _quote(folder)), cfg.timeout, lost), "UID MOVE")
        else:
            # without MOVE: a crash after the COPY leaves a copy in both folders; the service
            # answers "duplicate" for the one still in the mailbox and it is moved again. A crash
            # after the STORE leaves it \Deleted in the mailbox: expunged at the next session start
            _ok(await guarded(client.uid("copy", uid_set, _quote(folder)), cfg.timeout, lost), "UID COPY")
            _ok(await guarded(client.uid("store", uid_set, "+FLAGS.SILENT", r"(\Seen \Deleted)"),
                              cfg.timeout, lost), "UID STORE")
            await expunge(client, lost, uid_set, cfg.timeout)
