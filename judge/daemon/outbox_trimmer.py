"""The daemon's outbox trimmer: once a day, sent mail older than ``[judge.options]
outbox_keep_days`` keeps its row and header but not its body (judge/game/outbox_trim.py).

Each chunk is its own trip to the service thread and its own short transaction, so mail in,
mail out and deadlines go on between chunks; a stop ends the round after the chunk in hand,
and the next round (or `judge trim-outbox`) goes on from where it stopped.
"""

from __future__ import annotations

import asyncio
import logging

from judge.daemon.aio import wait_event
from judge.daemon.logs import log
from judge.daemon.service import ServiceProxy
from judge.daemon.state import DaemonState
from judge.game.outbox_trim import Trimmed
from judge.game.store import transient_cause

logger = logging.getLogger("judge.daemon.outbox_trimmer")

DAY = 86400.0


class OutboxTrimmer:
    """Trim now and then: ``first`` seconds after the start (the backlog comes first), then every
    ``interval`` seconds. A failure (a locked store) is logged and tried at the next round."""

    def __init__(self, service: ServiceProxy, state: DaemonState, stop: asyncio.Event,
                 interval: float = DAY, first: float = 600.0) -> None:
        self.service, self.state, self.stop = service, state, stop
        self.interval, self.first = interval, first
        self.rounds = 0
        self.total = Trimmed()

    async def run(self) -> None:
        wait = self.first
        while not await wait_event(self.stop, wait):
            wait = self.interval
            try:
                done = await self.round()
            except Exception as exc:
                error = f"{type(exc).__name__}: {exc}"
                cause = transient_cause(exc)
                log(logger, "outbox.trim_failed", logging.WARNING, error=error, cause=cause, exc_info=cause is None)
                continue
            if done is None:  # trimming is off, or the service keeps no store
                return
            self.rounds += 1
            self.total.add(done)
            if done.mails:
                log(logger, "outbox.trimmed", mails=done.mails, freed=done.freed)
            self.state.put("outbox_trimmed", f"{self.total.mails} mails, {self.total.freed} bytes")

    async def round(self) -> Trimmed | None:
        total = Trimmed()
        after: tuple[str, int] | None = ("", 0)
        while after is not None and not self.stop.is_set():
            got = await self.service.trim_outbox(after)
            if got is None:
                return None
            done, after = got
            total.add(done)
        return total
