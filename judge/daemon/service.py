"""The game service, driven from the event loop through one dedicated worker thread.

Why a thread and not direct calls: a receive() or run_due() may adjudicate a turn and render
reports, which can take longer than an IMAP keep-alive or an SMTP reply; on its own thread the
loop keeps serving IDLE and SMTP meanwhile. Why exactly one thread: the service's SQLite
connection belongs to the thread that opened it, and one thread also serialises the calls, so
IMAP, SMTP and the scheduler never interleave inside the service.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any, Callable, Protocol, TypeVar

from judge.daemon.config import JudgeSection
from judge.mail.receive import receive_each

T = TypeVar("T")


class OutboxItemLike(Protocol):
    id: int
    sender: str
    recipients: list[str]
    message: bytes
    attempts: int


@dataclass(frozen=True)
class Factory:
    """How to build the service: ``judge.mail:Judge`` unless the config names another."""

    section: JudgeSection

    def _service(self) -> tuple[Any, Any]:
        """The service class and its settings (``TypeError``/``ValueError``: bad ``[judge.options]``)."""
        modname, _, attr = self.section.service.partition(":")
        modname = {"judge.service": "judge.mail"}.get(modname, modname)  # older configs name the old package
        mod = importlib.import_module(modname)
        cls = getattr(mod, attr or "Judge")
        config_cls = getattr(mod, "JudgeConfig", SimpleNamespace)
        s = self.section
        cfg = config_cls(address=s.address, name=s.name, db_path=s.db_path, loop_header=s.loop_header,
                         timezone=s.timezone, **s.options)
        return cls, cfg

    def check(self) -> Any:
        """The service's settings, built without opening anything: raises on a bad configuration."""
        return self._service()[1]

    def __call__(self, readonly: bool = False) -> Any:
        """The service; ``readonly`` (``judge status``): its store opened read-only, never migrated,
        where the service class can do that (a stand-in without a store ignores it)."""
        cls, cfg = self._service()
        if readonly and "readonly" in inspect.signature(cls).parameters:
            service = cls(cfg, readonly=True)
        else:
            service = cls(cfg)
        store = getattr(service, "store", None)
        if hasattr(store, "set_busy_timeout"):
            store.set_busy_timeout(self.section.busy_timeout)
        return service


def _utc(t: float) -> datetime:
    return datetime.fromtimestamp(t, timezone.utc)


class ServiceProxy:
    """Async face of the synchronous service; every call runs on the one service thread."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self._factory = factory
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-service")
        self._judge: Any = None

    async def _call(self, fn: Callable[..., T], *args: Any, **kw: Any) -> T:
        # If the awaiting task is cancelled, the call still runs to its end on the thread:
        # a transaction is never cut in half by our own shutdown.
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(fn, *args, **kw))

    async def open(self) -> None:
        self._judge = await self._call(self._factory)

    async def receive(self, raw: bytes, source: str) -> str:
        return await self._call(self._judge.receive, raw, source)

    async def receive_many(self, mails: list[tuple[bytes, str]],
                           stopping: Callable[[], bool]) -> list[str | Exception]:
        """Several receive() calls in one trip to the service thread: one committed transaction
        for them all where the service offers ``receive_many`` (else each its own).

        One trip per FETCH batch rather than one per message: each hop between the loop and the
        thread may wait for the GIL, and on a busy machine those waits cost more than the work.
        The list comes back shorter when ``stopping()`` turns true, so a shutdown waits for the
        message in hand only. A receive() that raises yields its exception in place of a status;
        one that says the store is unavailable (locked, disk full) ends the list there: the rest
        would only wait out the same lock, each for the whole busy timeout."""
        many = getattr(self._judge, "receive_many", None)
        if many is None:  # a service without it: each message its own transaction
            many = functools.partial(receive_each, self._judge.receive)
        return await self._call(many, mails, stopping)

    async def record_failure(self, raw: bytes, source: str, exc: BaseException) -> bool:
        """Have the service record a message set aside after repeated exceptions (if it can)."""
        fn = getattr(self._judge, "record_failure", None)
        if fn is None:
            return False
        await self._call(fn, raw, source, exc)
        return True

    async def pending_outbox(self, limit: int) -> list[OutboxItemLike]:
        return await self._call(self._judge.pending_outbox, limit=limit)

    async def trim_outbox(self, after: tuple[str, int]) -> tuple[Any, tuple[str, int] | None] | None:
        """One chunk of the outbox trim (judge/game/outbox_trim.py) from ``after``: what it did
        and where the next starts; None when the service keeps no store or trims nothing
        (``outbox_keep_days = 0``)."""
        store, cfg = getattr(self._judge, "store", None), getattr(self._judge, "cfg", None)
        days = getattr(cfg, "outbox_keep_days", 0)
        if store is None or not days:
            return None

        def chunk() -> tuple[Any, tuple[str, int] | None]:
            from datetime import timedelta

            from judge.game.outbox_trim import trim_chunk

            now = cfg.now()
            return trim_chunk(store, now - timedelta(days=days), now, after=after)

        return await self._call(chunk)

    async def mark_sent(self, item_id: int) -> None:
        await self._call(self._judge.mark_sent, item_id)

    async def mark_sent_many(self, item_ids: list[int]) -> None:
        """One transaction for them all where the service offers it, else one each (one trip)."""
        many = getattr(self._judge, "mark_sent_many", None)

        def each() -> None:
            for i in item_ids:
                self._judge.mark_sent(i)

        await self._call(functools.partial(many, item_ids) if many is not None else each)

    async def mark_failed(self, item_id: int, error: str, permanent: bool) -> None:
        await self._call(self._judge.mark_failed, item_id, error, permanent)

    async def run_due(self, until: float | None = None, most: int | None = None) -> int:
        """Events due by ``until`` (epoch seconds; default: now); at most ``most`` of them where
        the service can stop there (one that cannot runs them all)."""
        kw: dict[str, Any] = {} if until is None else {"until": _utc(until)}
        if most is not None and "most" in inspect.signature(self._judge.run_due).parameters:
            kw["most"] = most
        return await self._call(self._judge.run_due, **kw)

    async def hold_notice(self, until: float, title: str, text: str) -> int:
        """Tell the masters of games with events due by ``until`` (a service without it: nobody)."""
        fn = getattr(self._judge, "hold_notice", None)
        return 0 if fn is None else await self._call(fn, _utc(until), title, text)

    async def admin_notice(self, title: str, text: str) -> int:
        """Queue a notice to the judge's admin (``[judge.options] keeper``); 0 when there is none."""
        return await self._call(self._admin_notice, title, text)

    def _admin_notice(self, title: str, text: str) -> int:
        judge = self._judge
        fn = getattr(judge, "admin_notice", None)
        if fn is not None:
            return int(fn(title, text))
        store, cfg = getattr(judge, "store", None), getattr(judge, "cfg", None)
        keeper = getattr(cfg, "keeper", None)
        if store is None or not keeper:
            return 0
        from judge.game import outbox

        with store.transaction():
            outbox.queue(store, cfg, [keeper], f"{cfg.code}: {title}", text, cfg.now(), kind="admin-notice")
        return 1

    async def masters_due(self, until: float) -> list[tuple[str, str]]:
        """(master's address, game name) of each game with an event due by ``until``: a read,
        which works while another process holds the store's write lock or the disk is full."""
        return await self._call(self._masters_due, until)

    def _masters_due(self, until: float) -> list[tuple[str, str]]:
        judge = self._judge
        fn = getattr(judge, "masters_due", None)
        if fn is not None:
            return list(fn(_utc(until)))
        store = getattr(judge, "store", None)
        if store is None:
            return []
        from judge.game import deadlines, lifecycle

        out = []
        for gid in deadlines.due_game_ids(store, _utc(until)):
            game = lifecycle.game_by_id(store, gid)
            master = lifecycle.master_address(store, game)
            if master:
                out.append((master, game.name))
        return out

    async def compose(self, to: list[str], subject: str, text: str) -> bytes | None:
        """A message from the judge, composed as the outbox would, for sending straight through
        SMTP when the store cannot queue it; None when the service cannot compose one. It needs
        no store, so it does not wait behind the service thread (busy with a locked store)."""
        return await asyncio.to_thread(self._compose, to, subject, text)

    def _compose(self, to: list[str], subject: str, text: str) -> bytes | None:
        cfg = getattr(self._judge, "cfg", None)
        if cfg is None or not hasattr(cfg, "now"):
            return None
        from judge.game import outbox

        return outbox.compose(cfg, to, f"{cfg.code}: {subject}", text, cfg.now())[0]

    async def settled(self, item_ids: list[int]) -> set[int]:
        """Which of these outbox items are settled: sent, or failed for good (an item the outbox
        does not have is not: nothing is known of it). For clearing stale send-journal entries."""
        return await self._call(self._settled, item_ids)

    def _settled(self, item_ids: list[int]) -> set[int]:
        judge = self._judge
        fn = getattr(judge, "settled", None)
        if fn is not None:
            return set(fn(item_ids))
        store = getattr(judge, "store", None)
        if store is None or not item_ids:
            return set()  # cannot tell: keep them all
        marks = ",".join("?" for _ in item_ids)
        return {r[0] for r in store.all(f"SELECT id FROM outbox WHERE status IN ('sent', 'failed') AND id IN ({marks})",
                                        tuple(item_ids))}

    async def next_wakeup(self) -> Any:
        return await self._call(self._judge.next_wakeup)

    async def status(self) -> dict[str, Any]:
        return await self._call(self._judge.status)

    def close(self) -> None:
        """Wait for the call in hand, then close the service if it knows how."""
        judge = self._judge
        if judge is not None and hasattr(judge, "close"):
            try:
                self._pool.submit(judge.close).result()
            except Exception:  # closing is best effort; the data is already committed
                pass
        self._pool.shutdown(wait=True)
