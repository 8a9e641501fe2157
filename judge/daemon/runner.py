"""The daemon: the IMAP, SMTP and deadline runners in one event loop, and a clean shutdown.

SIGTERM/SIGINT set one stop event. Each runner notices it between messages: the message in
hand is finished (received and flagged, or sent and marked), then the runner returns. Whatever
is still waiting stays in the mailbox or the outbox for the next start.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
import time
from typing import Any, Callable, Coroutine

from judge.daemon.aio import Backoff, wait_any
from judge.daemon.config import DaemonConfig
from judge.daemon.imap_in import ImapIngest
from judge.daemon.logs import log
from judge.daemon.notices import Notices
from judge.daemon.outbox_trimmer import OutboxTrimmer
from judge.daemon.receipts import ReceiptPruner
from judge.daemon.scheduler import Scheduler
from judge.daemon.service import Factory, ServiceProxy
from judge.daemon.smtp_out import SmtpSender
from judge.daemon.state import DaemonState

logger = logging.getLogger("judge.daemon")

#: after a stop request, how long the runners get to finish what they hold
SHUTDOWN_GRACE = 30.0


class Daemon:
    def __init__(self, cfg: DaemonConfig, factory: Callable[[], Any] | None = None) -> None:
        self.cfg = cfg
        self.factory = factory or Factory(cfg.judge)
        self.stop = asyncio.Event()
        self.outbox = asyncio.Event()
        self.poke = asyncio.Event()
        self.started = asyncio.Event()
        self.imap: ImapIngest | None = None
        self.smtp: SmtpSender | None = None
        self.scheduler: Scheduler | None = None
        self.receipts: ReceiptPruner | None = None
        self.trimmer: OutboxTrimmer | None = None
        self.notices: Notices | None = None
        self.state: DaemonState | None = None

    def request_stop(self, why: str = "request") -> None:
        if not self.stop.is_set():
            log(logger, "daemon.stopping", reason=why)
            self.stop.set()

    def _deadline_near(self) -> bool:
        """A deadline is held, or due within ``imap.urgent_window``: reconnect without long back-off."""
        sch = self.scheduler
        if sch is None:
            return False
        return sch.held() or (sch.next_due is not None and sch.next_due - time.time() < self.cfg.imap.urgent_window)

    def _mail_handled(self) -> None:
        self.outbox.set()
        self.poke.set()

    async def _supervise(self, name: str, run: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Each runner handles its expected failures itself; anything else is a bug, which is
        logged and the runner restarted, so the daemon as a whole never stops on its own."""
        backoff = Backoff(1.0, 60.0)
        while not self.stop.is_set():
            try:
                await run()
                return  # done (stopping, or switched off in the config: receipt pruning, the store watch)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                delay = backoff.next()
                error = f"{type(exc).__name__}: {exc}"
                log(logger, "daemon.runner_crashed", logging.ERROR, runner=name,
                    error=error, restart_in=round(delay, 2), exc_info=True)
                if self.state is not None:  # judge status shows it beside "running"
                    self.state.put(f"{name}_crashed", error)
                await wait_any([self.stop], delay)

    async def _watch_store(self) -> None:
        """Wake the SMTP runner when another process (``judge game ...``) has changed the store:
        mail it queued leaves within seconds, not at the next outbox poll. SQLite's data_version
        changes with every commit by another connection; reading it costs microseconds."""
        interval = self.cfg.smtp.watch_interval
        if interval <= 0:
            return
        db = sqlite3.connect(self.cfg.judge.db_path, timeout=0, isolation_level=None)
        try:
            last = None
            while not await wait_any([self.stop], interval):
                try:
                    version = db.execute("PRAGMA data_version").fetchone()[0]
                except sqlite3.Error:  # locked exclusively right now: look again at the next turn
                    continue
                if last is not None and version != last:
                    self.outbox.set()
                last = version
        finally:
            db.close()

    async def run(self, install_signals: bool = True) -> None:
        cfg = self.cfg
        loop = asyncio.get_running_loop()
        if install_signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self.request_stop, sig.name)
        state = DaemonState(cfg.judge.resolved_state_path)
        self.state = state
        state.prune(older_than=30 * 86400)
        service = ServiceProxy(self.factory)
        try:
            await service.open()
            state.put("pid", os.getpid())
            state.put("started", time.time())
            self.smtp = SmtpSender(cfg.smtp, cfg.judge, service, state, self.stop, self.outbox, cfg.imap)
            self.notices = Notices(service, cfg.judge.admin, self.outbox.set, direct=self.smtp.send_direct,
                                   store_down=lambda: self.imap.store_error if self.imap else "")
            self.imap = ImapIngest(cfg.imap, cfg.judge, service, state, self.stop, self._mail_handled,
                                   on_read=self.poke.set, alarm=self.notices.admin)
            self.scheduler = Scheduler(service, state, self.stop, self.poke, self.outbox.set, gate=self.imap,
                                       hold_max=cfg.judge.deadline_hold_max,
                                       hold_notice=cfg.judge.deadline_hold_notice,
                                       hold_warn=cfg.judge.deadline_hold_warn,
                                       where=f" ({cfg.judge.address})", notices=self.notices)
            self.imap.urgent = self._deadline_near
            log(logger, "daemon.started", pid=os.getpid(), imap=f"{cfg.imap.host}:{cfg.imap.port}",
                smtp=f"{cfg.smtp.host}:{cfg.smtp.port}", db=cfg.judge.db_path)
            self.receipts = ReceiptPruner(cfg.imap, cfg.judge, state, self.stop)
            self.trimmer = OutboxTrimmer(service, state, self.stop)
            tasks = [asyncio.create_task(self._supervise(name, run), name=name)
                     for name, run in (("imap", self.imap.run), ("smtp", self.smtp.run),
                                       ("scheduler", self.scheduler.run), ("receipts", self.receipts.run),
                                       ("outbox-trim", self.trimmer.run),
                                       ("watch", self._watch_store))]
            self.started.set()
            await self.stop.wait()
            _, pending = await asyncio.wait(tasks, timeout=SHUTDOWN_GRACE)
            for t in pending:
                log(logger, "daemon.runner_cancelled", logging.WARNING, runner=t.get_name())
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        finally:
            # waits for a service call still running on its thread: its transaction completes
            await asyncio.to_thread(service.close)
            state.put("stopped", time.time())
            state.close()
            if install_signals:
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.remove_signal_handler(sig)
            log(logger, "daemon.stopped")


def serve(cfg: DaemonConfig) -> None:
    """Run until SIGTERM/SIGINT (the systemd entry point)."""
    asyncio.run(Daemon(cfg).run())
