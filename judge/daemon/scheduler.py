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
from typing import Any, Callable

from judge.daemon.aio import Backoff, wait_any
from judge.daemon.logs import log
from judge.daemon.service import ServiceProxy
from judge.daemon.state import DaemonState

logger = logging.getLogger("judge.daemon.scheduler")

#: sleep at most this long: the CLI may change deadlines behind our back, and clocks jump
MAX_SLEEP = 300.0


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


class Scheduler:
    def __init__(self, service: ServiceProxy, state: DaemonState, stop: asyncio.Event, poke: asyncio.Event,
                 on_queued: Callable[[], None]) -> None:
        self.service, self.state, self.stop, self.poke = service, state, stop, poke
        self.on_queued = on_queued
        self.runs = 0

    async def run(self) -> None:
        backoff = Backoff(1.0, MAX_SLEEP)
        while not self.stop.is_set():
            self.poke.clear()
            n = 0
            try:
                n = await self.service.run_due()
                if n:
                    self.runs += 1
                    log(logger, "scheduler.ran", processed=n)
                    self.on_queued()
                delay = seconds_until(await self.service.next_wakeup())
                self.state.put("scheduler_next", "" if delay is None else time.time() + delay)
                backoff.reset()
            except Exception as exc:  # a service bug must not end the daemon; try again later
                delay = backoff.next()
                log(logger, "scheduler.failed", logging.ERROR, error=f"{type(exc).__name__}: {exc}",
                    retry_in=round(delay, 2), exc_info=True)
            if delay is None:
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
