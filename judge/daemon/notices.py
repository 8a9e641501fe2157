"""Notices about the daemon's own troubles: to the masters of the games they touch, and to the
judge's admin (``[judge.options] keeper``).

A notice is queued in the store's outbox like all mail (the SMTP runner sends it within
seconds). When the store cannot take it (another process holds its lock past the busy timeout,
the disk is full), it goes straight out through SMTP instead: those are the very troubles the
notice is about. Such a direct send has no journal; a crash in the middle may send it twice,
which is better than not at all.
"""

from __future__ import annotations

import errno
import logging
from typing import Awaitable, Callable

from judge.daemon.logs import log
from judge.daemon.service import ServiceProxy
from judge.game.store import transient_cause

logger = logging.getLogger("judge.daemon.notices")


class StoreDown(OSError):
    """The store would not take the last mail (locked, full): a notice is not even tried there."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        # transient_cause reads the errno: ENOSPC for a full disk, EIO for the rest
        self.errno = errno.ENOSPC if "full" in why else errno.EIO

#: sends one composed message to these recipients now (the SMTP runner's ``send_direct``)
DirectSend = Callable[[list[str], bytes], Awaitable[None]]


class Notices:
    def __init__(self, service: ServiceProxy, admin: str, on_queued: Callable[[], None],
                 direct: DirectSend | None = None, store_down: Callable[[], str] = lambda: "") -> None:
        self.service, self.admin_address, self.on_queued, self.direct = service, admin, on_queued, direct
        #: what is wrong with the store as the IMAP runner last found it ("" when it took mail):
        #: then a notice goes straight out, without first waiting out the busy timeout itself
        self.store_down = store_down
        self.sent_direct = 0  # for tests and status

    async def admin(self, title: str, text: str) -> bool:
        """Tell the admin; False when there is none or nothing could be sent (logged)."""
        if not self.admin_address:
            log(logger, "notice.no_admin", logging.WARNING, title=title)
            return False
        try:
            if self.store_down():
                raise StoreDown(self.store_down())
            n = await self.service.admin_notice(title, text)
        except Exception as exc:
            return await self._fallback(exc, self.admin_address, title, text)
        if n:
            self.on_queued()
        return bool(n)

    async def masters(self, until: float, title: str, text: str) -> int:
        """Tell the master of each game with an event due by ``until``; how many were told."""
        try:
            if self.store_down():
                raise StoreDown(self.store_down())
            n = await self.service.hold_notice(until, title, text)
        except Exception as exc:
            if transient_cause(exc) is None:
                log(logger, "notice.failed", logging.ERROR, title=title, error=f"{type(exc).__name__}: {exc}")
                return 0
            try:  # a read: it works while another process writes, and on a full disk
                masters = await self.service.masters_due(until)
            except Exception as err:
                log(logger, "notice.failed", logging.ERROR, title=title, error=f"{type(err).__name__}: {err}")
                return 0
            told = 0
            for address, game in masters:  # one each: no master sees another's address
                told += await self._fallback(exc, address, f"{title} ({game})", f"Game '{game}':\n\n{text}")
            return told
        if n:
            self.on_queued()
        return n

    async def _fallback(self, exc: Exception, to: str, title: str, text: str) -> bool:
        """The store could not queue the notice: send it straight through SMTP if that is why."""
        error = f"{type(exc).__name__}: {exc}"
        if transient_cause(exc) is None or self.direct is None:
            log(logger, "notice.failed", logging.ERROR, title=title, error=error)
            return False
        try:
            raw = await self.service.compose([to], title, text)
            if raw is None:
                log(logger, "notice.failed", logging.ERROR, title=title, error=error)
                return False
            await self.direct([to], raw)
        except Exception as err:
            log(logger, "notice.failed", logging.ERROR, title=title, error=f"{type(err).__name__}: {err}",
                store_error=error)
            return False
        self.sent_direct += 1
        log(logger, "notice.sent_direct", logging.WARNING, title=title, store_error=error)
        return True
