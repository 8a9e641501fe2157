"""The deadline runner: call the service's ``run_due`` when ``next_wakeup`` says so.

The service knows every deadline (it is exact and restart-safe: ``run_due`` processes whatever
passed while we were down, once). We only sleep until the next one, and wake early when mail
was handled, since an order or a master's command can move a deadline or end a phase early.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import datetime, timezone
from dataclasses import dataclass
from typing import Any, Callable, Protocol

from judge.daemon.aio import Backoff, wait_any
from judge.daemon.logs import log
from judge.daemon.notices import Notices
from judge.daemon.service import ServiceProxy
from judge.daemon.state import DaemonState
from judge.game.store import transient_cause

logger = logging.getLogger("judge.daemon.scheduler")

#: sleep at most this long: the CLI may change deadlines behind our back, and clocks jump
MAX_SLEEP = 300.0
#: events run per trip to the service thread (each a game's deadline, reminder or grace end)
RUN_CHUNK = 5


def seconds_until(when: Any, now: float | None = None) -> float | None:
    """Seconds from now until ``when`` (datetime, naive = UTC, or epoch seconds); None = never."""
    if when is None:
        return None
    now = time.time() if now is None else now
    if isinstance(when, datetime):
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return when.timestamp() - now
    if isinstance(when, str):
        return seconds_until(datetime.fromisoformat(when), now)
    return float(when) - now


def _spell(seconds: float) -> str:
    """A duration for people: minutes under two hours, else hours."""
    minutes = max(0, round(seconds / 60))
    if minutes < 120:
        return "1 minute" if minutes == 1 else f"{minutes} minutes"
    return f"{minutes / 60:.0f} hours"


class Gate(Protocol):
    """The IMAP runner as the scheduler sees it."""

    read_through: float  # wall time at which the latest complete read of the mailbox began
    sweep: asyncio.Event  # set to ask for a read now
    connected: asyncio.Event  # a session is up (then a hold means a backlog, not an outage)
    store_error: str  # the store would not take mail at the last try ("" when it did)
    last_error: str  # why no session is up
    login_refused: bool  # the server refused the login


def hold_cause(gate: Gate) -> tuple[str, str]:
    """Why the mailbox is not read through: (a few words for a subject, a clause for the text)."""
    error = getattr(gate, "store_error", "")
    if error:
        short = "store locked" if "locked" in error else "disk full" if "full" in error else "store unavailable"
        return short, f"cannot store the mail waiting in its mailbox: {error}"
    if gate.connected.is_set():
        return "mail backlog", "is still working through a backlog of mail in its mailbox"
    if getattr(gate, "login_refused", False):
        return "mailbox login refused", "cannot read its mailbox: the mail server refuses its login"
    return "mailbox unreadable", "cannot read its mailbox (its mail server cannot be reached or does not answer)"


@dataclass
class Hold:
    """A due deadline waiting for the mailbox to be read."""

    due: float  # the earliest due event it waits for
    since: float  # when the daemon began holding (not the deadline: it may have been down then)
    told: bool = False
    warned: bool = False  # the cap's coming expiry was announced


class Scheduler:
    """Runs due events, but a deadline only after a complete read of the mailbox that began after
    it: orders delivered before a deadline count even if the mailbox could not be read at that
    moment (IMAP down, wrong password, a server that never answers). While it waits the deadline
    is *held*: the game's master and the admin are told after ``hold_notice`` seconds (with the
    cause), warned ``hold_warn`` seconds before ``hold_max`` runs out, and after ``hold_max``
    seconds the events are processed anyway and they are told so."""

    def __init__(self, service: ServiceProxy, state: DaemonState, stop: asyncio.Event, poke: asyncio.Event,
                 on_queued: Callable[[], None], gate: Gate | None = None, hold_max: float = 86400.0,
                 hold_notice: float = 60.0, where: str = "", hold_warn: float = 3600.0,
                 notices: Notices | None = None) -> None:
        self.service, self.state, self.stop, self.poke = service, state, stop, poke
        self.on_queued = on_queued
        self.gate, self.hold_max, self.hold_notice, self.where = gate, hold_max, hold_notice, where
        self.hold_warn = hold_warn
        self.notices = notices or Notices(service, "", on_queued)
        self.runs = 0
        self.hold: Hold | None = None
        self.next_due: float | None = None  # for the IMAP runner's idea of "a deadline is near"

    def held(self) -> bool:
        return self.hold is not None

    async def _cutoff(self, due: float) -> tuple[float | None, float | None]:
        """(events due by this time may run now, or None; seconds to wait before looking again)."""
        now = time.time()
        if self.gate is None:
            return now, None
        through = self.gate.read_through
        if through >= due:
            if self.hold is not None:
                log(logger, "scheduler.hold_ended", held=round(now - self.hold.since, 3))
                self.state.put("scheduler_hold", "")
                self.hold = None
            return through, None
        if self.hold is None:
            self.hold = Hold(due, now)
            log(logger, "scheduler.hold", due=due, read_through=through)
        self.hold.due = due  # an earlier event may have come due meanwhile: the same hold
        self.gate.sweep.set()  # a fresh read now: the final sweep before processing
        held = now - self.hold.since
        short, why = hold_cause(self.gate)
        self.state.put("scheduler_hold", f"since {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(self.hold.since))}"
                       f": a deadline waits for a complete read of the mailbox ({short})", every=5.0)
        if held >= self.hold_max:
            log(logger, "scheduler.hold_expired", logging.ERROR, held=round(held, 1), due=due, cause=short)
            await self._tell(now, "Deadline processed without a mailbox read",
                             f"The judge could not read all of its mailbox{self.where} for {held / 60:.0f} "
                             f"minutes after this game's deadline: it {why}. It has now processed the game "
                             f"anyway: orders mailed before the deadline that it has not yet read were not "
                             f"counted. Orders it reads later are answered as usual.")
            self.hold = None
            self.state.put("scheduler_hold", "")
            return now, None
        left = self.hold_max - held
        if held >= self.hold_notice and not self.hold.told:
            self.hold.told = True
            # the coming expiry is in this notice already when it is near
            self.hold.warned = left <= self.hold_warn
            log(logger, "scheduler.hold_notice", logging.WARNING, held=round(held, 1), due=due, cause=short)
            await self._tell(now, f"Deadline held: {short}",
                             f"This game's deadline has passed, but the judge {why}{self.where}, so orders "
                             f"already mailed may be waiting there. It will process the game as soon as it "
                             f"has read the mailbox, and at the latest in {_spell(left)}.")
        elif self.hold.told and not self.hold.warned and left <= self.hold_warn:
            self.hold.warned = True
            log(logger, "scheduler.hold_expiring", logging.ERROR, held=round(held, 1), due=due, cause=short,
                left=round(left, 1))
            await self._tell(now, f"Deadline still held: processed in {_spell(left)} regardless",
                             f"This game's deadline has been held for {_spell(held)}: the judge {why}"
                             f"{self.where}. In {_spell(left)} it will process the game anyway, and orders "
                             f"mailed before the deadline that it has not read by then will not count.")
        return None, min(1.0, max(0.05, left))

    async def _tell(self, until: float, title: str, text: str) -> None:
        """The masters of the held games, and the admin (once for all games: it is one trouble)."""
        try:
            await self.notices.masters(until, title, text)
            await self.notices.admin(title, text)
        except Exception as exc:  # the notice is a courtesy; holding is what matters
            log(logger, "scheduler.notice_failed", logging.ERROR, error=f"{type(exc).__name__}: {exc}")

    async def run(self) -> None:
        backoff = Backoff(1.0, MAX_SLEEP)
        failing = False
        while not self.stop.is_set():
            self.poke.clear()
            n = 0
            wait: float | None = None
            try:
                due = seconds_until(await self.service.next_wakeup(), 0.0)
                self.next_due = due
                if due is not None and due <= time.time():
                    cutoff, wait = await self._cutoff(due)
                    if cutoff is not None:
                        n = 0
                        while not self.stop.is_set():
                            # a few games per trip to the service thread: the SMTP runner's calls
                            # get in between, so the first games' results leave during a burst
                            got = await self.service.run_due(until=cutoff, most=RUN_CHUNK)
                            n += got
                            if got:
                                self.on_queued()
                            if got < RUN_CHUNK:
                                break
                        if n:
                            self.runs += 1
                            log(logger, "scheduler.ran", processed=n)
                        due = seconds_until(await self.service.next_wakeup(), 0.0)
                        self.next_due = due
                delay = None if due is None else due - time.time()
                self.state.put("scheduler_next", "" if due is None else due)
                backoff.reset()
                if failing:
                    failing = False
                    self.state.put("scheduler_last_error", "")
            except Exception as exc:  # a service bug must not end the daemon; try again later
                delay = backoff.next()
                error = f"{type(exc).__name__}: {exc}"
                cause = transient_cause(exc)
                # a locked store or a full disk is told in a line; a bug with its traceback
                log(logger, "scheduler.failed", logging.ERROR, error=error, cause=cause, retry_in=round(delay, 2),
                    exc_info=cause is None)
                failing = True
                self.state.put("scheduler_last_error", error)
            if wait is not None:
                timeout = wait  # held: woken early by the read (poke) or the stop
            elif delay is None:
                timeout = MAX_SLEEP
            elif delay <= 0:
                # due now: again at once if that round did something, else (a wakeup in the past
                # that run_due would not act on) pause rather than spin
                timeout = 0.0 if n else 0.5
            else:
                # a hair past the deadline, so the service's clock agrees it has passed
                timeout = min(MAX_SLEEP, delay + 0.002)
            if timeout > 0:
                await wait_any([self.stop, self.poke], timeout)
