"""Small asyncio helpers shared by the runners: back-off, and waiting on several things at once."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Awaitable, TypeVar

T = TypeVar("T")


class ConnectionLost(ConnectionError):
    """The transport told us it is gone (aioimaplib's conn_lost_cb)."""


@dataclass
class Backoff:
    """Exponential back-off with full jitter, so restarted daemons do not hammer a server in step."""

    low: float
    high: float
    _n: int = field(default=0, init=False)

    def next(self) -> float:
        delay = min(self.high, self.low * (2 ** self._n))
        self._n = min(self._n + 1, 30)
        return random.uniform(delay / 2, delay)

    def reset(self) -> None:
        self._n = 0


async def wait_event(event: asyncio.Event, timeout: float | None) -> bool:
    """True if the event was set within ``timeout`` seconds."""
    try:
        await asyncio.wait_for(event.wait(), timeout)
        return True
    except asyncio.TimeoutError:
        return event.is_set()


async def guarded(aw: Awaitable[T], timeout: float, lost: asyncio.Event) -> T:
    """Await ``aw`` under a timeout, giving up at once if ``lost`` fires.

    aioimaplib commands may never complete once the connection is gone (e.g. IDLE answered by
    BYE), so every call is raced against the lost-connection event as well as a clock.
    """
    task = asyncio.ensure_future(aw)
    lost_task = asyncio.ensure_future(lost.wait())
    try:
        done, _ = await asyncio.wait({task, lost_task}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        task.cancel()
        raise
    finally:
        lost_task.cancel()
    if task in done:
        return task.result()
    task.cancel()
    if lost.is_set():
        raise ConnectionLost("connection lost")
    raise asyncio.TimeoutError(f"no answer within {timeout:g}s")


async def wait_any(events: list[asyncio.Event], timeout: float | None) -> bool:
    """Wait until one of ``events`` is set or ``timeout`` passes; True if one was set."""
    if any(e.is_set() for e in events):
        return True
    tasks = [asyncio.ensure_future(e.wait()) for e in events]
    try:
        done, _ = await asyncio.wait(tasks, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()
    return bool(done)


async def wait_for_port(host: str, port: int, delay: float, interval: float, stop: asyncio.Event) -> bool:
    """Sleep ``delay`` after a server could not be reached, but knock on its port every
    ``interval`` seconds (a bare TCP connect, nothing said): True as soon as it answers, so the
    caller reconnects at once however long its back-off had grown; False when the delay ran out
    (or ``stop`` was set)."""
    end = time.monotonic() + delay
    while not stop.is_set():
        left = end - time.monotonic()
        if left <= 0 or await wait_event(stop, min(left, interval)):
            return False
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), interval)
        except (OSError, asyncio.TimeoutError):
            continue
        writer.close()
        return True
    return False
