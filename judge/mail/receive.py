"""The judge as a transport sees it: messages in, due events run, mail out.

Transports (Maildir, pipe, the IMAP/SMTP daemon) drive a :class:`Judge`:

* :meth:`Judge.receive` — one message, one transaction (its effects and the replies it queues);
* :meth:`Judge.pending_outbox`, :meth:`Judge.mark_sent` (or ``mark_sent_many``), :meth:`Judge.mark_failed` — mail out;
* :meth:`Judge.run_due`, :meth:`Judge.next_wakeup` — deadlines, reminders, grace, exactly once.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import traceback
from datetime import datetime, timedelta
from typing import Any

from judge.game import deadlines, events, lifecycle as games, outbox, passwords
from judge.mail import abuse
from judge.game.config import JudgeConfig
from judge.game.lifecycle import Ctx, GameError
from judge.mail.handler import Handler, safe_subject
from judge.mail.incoming import IncomingMail, _synthetic_id, parse_message
from judge.game.outbox import OutboxItem
from judge.render.templates import render
from judge.game.store import Store, from_iso, iso, transient_cause

log = logging.getLogger(__name__)

#: errors of the store itself: the message was not handled and must be offered again later
#: (judge.game.store.transient_cause names them). Not every sqlite3.DatabaseError: a constraint
#: broken by a bug (IntegrityError) is the message's poison, recorded and answered at once
TRANSIENT = (sqlite3.OperationalError, OSError, MemoryError)


class Judge:
    def __init__(self, cfg: JudgeConfig, *, readonly: bool = False, upgrade: bool = True):
        """``readonly``/``upgrade``: how the store is opened (:class:`Store`); only the daemon
        and ``judge upgrade`` migrate an older one."""
        self.cfg = cfg
        self.store = Store(cfg.db_path, readonly=readonly, upgrade=upgrade)
        self._sessions: passwords.SessionFile | None = None
        if cfg.session_key_file and not readonly:
            self._sessions = passwords.SessionFile(cfg.sessions_path, cfg.session_key_file, cfg.session_hours * 3600)
            passwords.remember_sessions(self._sessions)

    def close(self) -> None:
        if self._sessions is not None and passwords.current_sessions() is self._sessions:
            passwords.remember_sessions(None)
        self.store.close()

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _now(self, now: datetime | None) -> datetime:
        if now is None:
            return self.cfg.now()
        from datetime import timezone
        return now if now.tzinfo else now.replace(tzinfo=timezone.utc)

    # -- mail in ----------------------------------------------------------------------------------
    def receive(self, raw: bytes, source: str = "", now: datetime | None = None) -> str:
        """Handle one message. Returns ``"handled"``, ``"duplicate"``, ``"ignored: <reason>"`` or
        ``"failed: <reason>"``.

        Never raises on bad mail. A message that meets a bug is recorded (``inbox`` row with
        status ``failed`` and the raw bytes), answered if that is safe, and reported as
        ``failed``: the transport sets it aside (Maildir ``failed/``, an IMAP folder) and goes
        on. Raises only when the store itself fails (disk full, database locked): then nothing
        was done and the transport must offer the message again.
        """
        now = self._now(now)
        mail = parse_message(raw, self.cfg.address, self.cfg.loop_header)
        st = self.store
        if mail.aside:
            return self._set_aside(raw, mail, source, now)
        try:
            with st.transaction():
                digest = abuse.body_hash(mail.sender, mail.text) if not mail.ignore else None
                repeat = bool(digest) and abuse.repeated(st, self.cfg, mail.sender, digest, now)
                status = "ignored" if mail.ignore else "handled"
                values = dict(sender=mail.sender, subject=mail.subject[:500], received=iso(now), source=source,
                              status=status, detail=mail.ignore or mail.error or "", raw=None, body_hash=digest)
                try:  # most messages are new: stored at once, not looked up first (message_id is unique)
                    row_id = st.insert("inbox", message_id=mail.message_id, **values)
                except sqlite3.IntegrityError:  # stored already: a duplicate, or a failed one offered again
                    row = st.one("SELECT id, status FROM inbox WHERE message_id = ?", (mail.message_id,))
                    if row is None:
                        raise
                    if row["status"] != "failed":
                        return "duplicate"
                    row_id = row["id"]
                    st.update("inbox", row_id, **values)
                ctx = Ctx(st, self.cfg, now)
                if mail.bounced:
                    self._bounced(ctx, mail)
                if mail.ignore:
                    log.info("ignored %s from %s: %s", mail.message_id, mail.sender, mail.ignore)
                    return f"ignored: {mail.ignore}"
                # mail loops with responders that set no headers: acted on, but not answered unless
                # the mail signs on with a password (no answer of ours carries one, so a loop cannot)
                h = Handler(ctx, mail)
                # whether an address is a stranger shapes the answer whatever the mail does; the
                # answers counted against the quota matter only to a mail that does not sign on
                unknown = abuse.strangers(st, mail.sender, mail.reply_to[0])
                h.ask_quota = functools.partial(abuse.reply_quota, st, self.cfg, mail.sender, mail.reply_to[0], now,
                                                unknown)
                if any(unknown.values()):
                    h.reply_chars = abuse.UNKNOWN_REPLY_CHARS
                if repeat:
                    h.hold_reply = h.hold_reply or (
                        f"not answered: the same text {self.cfg.same_body_limit} times in a row within the last "
                        f"{abuse.spell(self.cfg.same_body_window)}")
                h.run()
                if h.replied:  # 1: counts towards the quota; 2: signed on, a person
                    st.update("inbox", row_id, replied=2 if h.signed_on else 1, answered_to=h.answered_to)
                elif h.hold_reply:
                    st.update("inbox", row_id, detail=h.hold_reply)
            return "handled"
        except TRANSIENT:
            raise
        except Exception as exc:  # a bug met by this message: record it, tell people, carry on
            log.exception("message %s from %s failed", mail.message_id, mail.sender)
            self.record_failure(raw, source, exc, mail=mail, now=now)
            return f"failed: internal error ({type(exc).__name__})"

    def receive_many(self, mails: list[tuple[bytes, str]], stopping: Any = lambda: False,
                     now: datetime | None = None) -> list[str | Exception]:
        """:meth:`receive` for each (raw, source), all in one committed transaction (one fsync):
        each message is still its own unit, undone alone if it meets a bug. The statuses (or the
        exception a receive() raised) come back in order, and only once the whole batch is
        committed: a transport flags or moves its messages after this returns, so a kill at any
        instant leaves each message either stored or still waiting, never lost.

        The list is shorter when ``stopping()`` turns true, or after a message that found the
        store unavailable (its exception is the last entry; the ones before it are committed).
        If the commit itself fails, every entry is that error: none of them was stored."""
        out: list[str | Exception] = []
        try:
            with self.store.batch():
                out = receive_each(functools.partial(self.receive, now=now), mails, stopping)
        except Exception as exc:  # BEGIN or COMMIT failed, or SQLite rolled the batch back: nothing stored
            return [exc] * max(1, len(out))
        return out

    def record_failure(self, raw: bytes, source: str, exc: BaseException, mail: Any = None,
                       now: datetime | None = None) -> None:
        """Record a message that could not be handled (status ``failed``, raw bytes kept), and
        tell its sender (when that is safe) and the keeper. Raises only TRANSIENT store errors:
        if even the answers cannot be queued, the bare record is kept without them."""
        now = self._now(now)
        if mail is None:
            try:
                mail = parse_message(raw, self.cfg.address, self.cfg.loop_header)
            except Exception:  # parse_message never raises; this is the last line of defence
                mail = IncomingMail(message_id=_synthetic_id(raw), ignore="unreadable")
        detail = "".join(traceback.format_exception(exc))[-4000:]
        try:
            self._record_failure(raw, mail, source, now, detail, type(exc).__name__, tell=True)
        except TRANSIENT:
            raise
        except Exception:  # answering is what failed again: keep the record, answer nobody
            log.exception("message %s: recording its failure with answers failed; recorded bare", mail.message_id)
            try:
                self._record_failure(raw, mail, source, now, detail, type(exc).__name__, tell=False)
            except TRANSIENT:
                raise
            except Exception:  # even its header fields cannot be stored: under a name of our own
                bare = IncomingMail(message_id=_synthetic_id(raw))
                self._record_failure(raw, bare, source, now, detail, type(exc).__name__, tell=False)

    def _record_failure(self, raw: bytes, mail: Any, source: str, now: datetime, detail: str, error: str,
                        tell: bool) -> None:
        st = self.store
        with st.transaction():
            row = st.one("SELECT id FROM inbox WHERE message_id = ?", (mail.message_id,))
            values = dict(sender=mail.sender, subject=mail.subject[:500], received=iso(now), source=source,
                          status="failed", detail=detail, raw=raw)
            if row is None:
                st.insert("inbox", message_id=mail.message_id, **values)
            else:
                st.update("inbox", row["id"], **values)
            if not tell:
                return
            ctx = Ctx(st, self.cfg, now)
            subject, text = render("internal_error.txt", code=self.cfg.code,
                                   subject=safe_subject(mail.subject, self.cfg.code),
                                   error=error)
            if mail.reply_to and not mail.ignore:
                ctx.mail(mail.reply_to, subject, text, kind="reply", in_reply_to=mail.reply_id,
                         references=mail.references, auto="auto-replied")
            if self.cfg.keeper:
                ctx.mail([self.cfg.keeper], f"{self.cfg.code}: internal error on {mail.message_id}",
                         f"Message {mail.message_id} from {mail.sender} ({source}) failed and was set aside:"
                         f"\n\n{detail}\n", kind="failure-report")

    def _set_aside(self, raw: bytes, mail: IncomingMail, source: str, now: datetime) -> str:
        """A message the judge cannot read as it stands (parts nested too deep): kept whole as a
        failed message (Maildir ``failed/``, the daemon's failed folder) for the keeper, and its
        sender told why, within the answer limits. Never handled silently."""
        st = self.store
        with st.transaction():
            row = st.one("SELECT id, status FROM inbox WHERE message_id = ?", (mail.message_id,))
            if row is not None and row["status"] != "failed":
                return "duplicate"
            values = dict(sender=mail.sender, subject=mail.subject[:500], received=iso(now), source=source,
                          status="failed", detail=mail.aside, raw=raw)
            row_id = st.insert("inbox", message_id=mail.message_id, **values) if row is None else row["id"]
            if row is not None:
                st.update("inbox", row_id, **values)
            if mail.reply_to and not mail.ignore:
                to = mail.reply_to[0]
                if abuse.reply_quota(st, self.cfg, mail.sender, to, now).hold is None:
                    subject = f"Re: [Error Flag] {safe_subject(mail.subject, self.cfg.code)}"
                    Ctx(st, self.cfg, now).mail([to], subject, f"Your message was set aside unread: {mail.aside}.\n",
                                                kind="reply", in_reply_to=mail.reply_id, references=mail.references,
                                                auto="auto-replied")
                    st.update("inbox", row_id, replied=1, answered_to=to)
        log.warning("set aside %s from %s: %s", mail.message_id, mail.sender, mail.aside)
        return f"failed: {mail.aside}"

    def _bounced(self, ctx: Ctx, mail: Any) -> None:
        """A bounce: record each failed recipient to whom the judge sent a message the bounce
        names (by its Message-ID); tell each game's master once per dead address. (Anything else
        is no news of ours: a forgery, or a stray address read from the text of the notice.)"""
        dead = [a for a in mail.bounced if abuse.sent_to(ctx.store, a, mail.bounce_ids)]
        abuse.record_bounces(ctx.store, dead, mail.message_id, mail.subject, ctx.now)
        for addr in dead:
            for row, label in abuse.games_of(ctx.store, addr):
                g = games._game(row)
                master = games.master_address(ctx.store, g)
                if master and master != addr and abuse.first_notice(ctx.store, g.id, addr, ctx.now):
                    games.notice(ctx, g, f"Dead address: {label}",
                                 f"Mail from the judge to {addr} ({label} in '{g.name}') bounced: the receiving "
                                 f"server reported a permanent delivery failure. The player may not be getting "
                                 f"results or reminders; you may want to contact them another way or replace "
                                 f"them (EJECT). You are told once per address.", to=[master])

    # -- mail out ---------------------------------------------------------------------------------
    def pending_outbox(self, limit: int = 50, now: datetime | None = None) -> list[OutboxItem]:
        return outbox.pending(self.store, self._now(now), limit)

    def mark_sent(self, item_id: int, now: datetime | None = None) -> None:
        outbox.mark_sent(self.store, item_id, self._now(now))

    def mark_sent_many(self, item_ids: list[int], now: datetime | None = None) -> None:
        outbox.mark_sent_many(self.store, item_ids, self._now(now))

    def mark_failed(self, item_id: int, error: str, permanent: bool, now: datetime | None = None) -> None:
        outbox.mark_failed(self.store, self.cfg, item_id, error, permanent, self._now(now))

    # -- time ---------------------------------------------------------------------------------------
    def run_due(self, now: datetime | None = None, until: datetime | None = None, most: int | None = None) -> int:
        """Run every pending event due by ``now``, oldest first, each in its own transaction.

        ``until`` (a transport's last complete read of its inbox) limits the events to those due
        by then: a deadline is processed only once every mail delivered before it has been read.
        ``most``: stop after that many (the daemon calls again, sending the results meanwhile)."""
        now = self._now(now)
        limit = now if until is None else min(now, self._now(until))
        done = 0
        st = self.store
        while most is None or done < most:
            with st.transaction():
                ev = st.one("SELECT * FROM events WHERE state = 'pending' AND due <= ? ORDER BY due, id LIMIT 1",
                            (iso(limit),))
                if ev is None:
                    return done
                st.update("events", ev["id"], state="done", done_at=iso(now))
                try:
                    with_savepoint(st, lambda: events.run_event(Ctx(st, self.cfg, now), ev))
                except TRANSIENT:
                    raise
                except Exception:
                    log.exception("event %s (%s) failed; marked done", ev["id"], ev["kind"])
                    st.update("events", ev["id"], state="failed")
            done += 1
        return done

    def next_wakeup(self) -> datetime | None:
        return deadlines.next_due(self.store)

    def hold_notice(self, until: datetime, title: str, text: str, now: datetime | None = None) -> int:
        """Tell the master of every game with an event due by ``until`` that its processing waits
        for (or went ahead without) a read of the mailbox; returns how many were told."""
        now = self._now(now)
        st = self.store
        told = 0
        with st.transaction():
            ctx = Ctx(st, self.cfg, now)
            for gid in deadlines.due_game_ids(st, self._now(until)):
                g = games.game_by_id(st, gid)
                master = games.master_address(st, g)
                if master:
                    games.notice(ctx, g, title, text, to=[master])
                    told += 1
        return told

    # -- for the console ----------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        st = self.store
        q = {r["status"]: r["n"] for r in st.all("SELECT status, COUNT(*) AS n FROM outbox GROUP BY status")}
        inbox = {r["status"]: r["n"] for r in st.all("SELECT status, COUNT(*) AS n FROM inbox GROUP BY status")}
        games_by_state = {r["state"]: r["n"] for r in st.all("SELECT state, COUNT(*) AS n FROM games GROUP BY state")}
        upcoming = []
        for r in st.all("SELECT e.kind, e.due, g.name FROM events e JOIN games g ON g.id = e.game_id "
                        "WHERE e.state = 'pending' ORDER BY e.due LIMIT 10"):
            upcoming.append({"game": r["name"], "event": r["kind"], "due": r["due"]})
        nw = self.next_wakeup()
        return {"db": str(self.cfg.db_path), "schema": st.version, "outbox": q, "inbox": inbox,
                "games": games_by_state, "next_events": upcoming, "next_wakeup": iso(nw) if nw else None}

    def console(self, now: datetime | None = None) -> "Console":
        return Console(self, self._now(now))


def receive_each(receive: Any, mails: list[tuple[bytes, str]], stopping: Any) -> list[str | Exception]:
    """``receive(raw, source)`` for each message in turn: its status, or the exception it raised
    (reported per message by the transport). Stops early when ``stopping()`` turns true, or after
    a message that found the store unavailable: the rest would only meet the same trouble."""
    out: list[str | Exception] = []
    for raw, source in mails:
        try:
            out.append(receive(raw, source))
        except Exception as exc:
            out.append(exc)
            if transient_cause(exc) is not None:
                break
        if stopping():
            break
    return out


def with_savepoint(st: Store, fn: Any) -> None:
    """Run ``fn`` so that if it raises, only its own changes are undone (the caller's stay)."""
    st.conn.execute("SAVEPOINT ev")
    try:
        fn()
    except BaseException:
        st.conn.execute("ROLLBACK TO ev")
        st.conn.execute("RELEASE ev")
        raise
    st.conn.execute("RELEASE ev")


class Console:
    """What ``judge game …`` does at the console, each call one transaction."""

    def __init__(self, judge: Judge, now: datetime):
        self.judge = judge
        self.now = now

    def _ctx(self) -> Ctx:
        return Ctx(self.judge.store, self.judge.cfg, self.now)

    def _game(self, name: str) -> games.Game:
        g = games.get_game(self.judge.store, name)
        if g is None:
            raise GameError(f"no game named {name!r}")
        return g

    def create(self, name: str, password: str, variant: str, options: list[str], master: str) -> games.Game:
        with self.judge.store.transaction():
            if variant.lower() == "eia_afa":
                from judge.game import eia as eia_games

                return eia_games.create(self._ctx(), name, password, options, master)
            return games.create_game(self._ctx(), name, password, variant, options, master)

    def process(self, name: str) -> str:
        with self.judge.store.transaction():
            g = self._game(name)
            ctx = self._ctx()
            if g.variant_name == "eia_afa":  # Empires in Arms: a month, not a Diplomacy phase
                from judge.game import eia as eia_games

                return eia_games.console_process(ctx, g)
            if g.state == "forming":
                games.start(ctx, g)
                return f"{g.name} started"
            if g.state != "active":
                raise GameError(f"game {g.name!r} is {g.state}")
            ph = games.current_phase(ctx.store, g)
            assert ph is not None
            games.process(ctx, g, ph, "master")
            games.maybe_process(ctx, g)
            return f"{g.name} {ph.short} processed"

    def advance(self, name: str) -> str:
        """``judge game advance``: the open phase's deadline (or, once it has passed, the end of its
        grace) comes now, with what follows when it passes: late notices and grace, or the
        processing. The phase's times are moved to now first, so every mail tells the truth."""
        with self.judge.store.transaction():
            g = self._game(name)
            ctx = self._ctx()
            if g.variant_name == "eia_afa":
                raise GameError(f"{g.name} is an Empires in Arms game: `judge game process {g.name}` ends its month")
            if g.state != "active":
                raise GameError(f"game {g.name!r} is {g.state}: only a running game has a deadline to bring forward")
            st = ctx.store
            ph = games.current_phase(st, g)
            ev = st.one("SELECT * FROM events WHERE game_id = ? AND phase_id = ? AND state = 'pending' "
                        "AND kind IN ('deadline', 'grace') ORDER BY due, id LIMIT 1", (g.id, ph.id if ph else None))
            if ph is None or ev is None:
                raise GameError(f"{g.name} has no deadline waiting")
            if ev["kind"] == "deadline":
                grace = ph.grace_end - ph.deadline if ph.grace_end and ph.deadline else timedelta(hours=g.grace_hours)
                ph.deadline, ph.grace_end = ctx.now, ctx.now + grace
                deadlines.cancel_events(st, g.id, ctx.now, ("reminder",))  # the deadline is now: no reminder
            else:
                ph.grace_end = ctx.now
            st.update("phases", ph.id, deadline=iso(ph.deadline), grace_end=iso(ph.grace_end))
            st.update("events", ev["id"], state="done", done_at=iso(ctx.now))
            events.run_event(ctx, ev)
            now_open = games.current_phase(st, g)
            if now_open is not None and now_open.id == ph.id:
                return f"{g.name} {ph.short}: the deadline has passed; grace ends {ctx.when(ph.grace_end)}"
            return f"{g.name} {ph.short} processed" + (f"; now {now_open.short}" if now_open else "")

    def rollback(self, name: str, phase: str | None) -> str:
        with self.judge.store.transaction():
            g = self._game(name)
            ctx = self._ctx()
            if g.variant_name == "eia_afa":
                from judge.game import eia as eia_games

                return f"{g.name} rolled back to {eia_games.rollback(ctx, g, phase)['short']}"
            ph = games.rollback(ctx, g, phase)
            games.notice(ctx, g, f"Rollback to {ph.short}", f"The judge keeper has rolled '{g.name}' back to "
                         f"{ph.name}.", short=ph.short)
            return f"{g.name} rolled back to {ph.short}"

    def games(self) -> list[dict[str, Any]]:
        st = self.judge.store
        out = []
        for r in st.all("SELECT * FROM games ORDER BY name"):
            g = games._game(r)
            if g.variant_name == "eia_afa":
                from judge.game import eia as eia_games

                month = eia_games.current(self._ctx(), g)
                out.append({"name": g.name, "variant": g.variant_name, "state": g.state,
                            "phase": month["short"] if month else None, "deadline": month["deadline"] if month else None,
                            "master": games.master_address(st, g)})
                continue
            ph = games.current_phase(st, g)
            out.append({"name": g.name, "variant": g.variant_name, "state": g.state,
                        "phase": ph.short if ph else None, "deadline": iso(ph.deadline) if ph else None,
                        "master": games.master_address(st, g)})
        return out

    def show(self, name: str) -> dict[str, Any]:
        st = self.judge.store
        g = self._game(name)
        if g.variant_name == "eia_afa":
            from judge.game import eia as eia_games

            return eia_games.console_show(self._ctx(), g)
        ph = games.current_phase(st, g)
        late = set(games.late_powers(st, g, ph)) if ph and g.state == "active" else set()
        seats = [{"power": s["power"], "role": s["role"], "status": s["status"],
                  "address": games.address_of(st, s["player_id"]), "wait": bool(s["wait"]),
                  "orders": None if not s["power"] or not ph else ("missing" if s["power"] in late else "complete")}
                 for s in games.seats(st, g.id, None)]
        return {"name": g.name, "variant": g.variant_name, "state": g.state, "options": g.options,
                "outcome": g.outcome, "master": games.master_address(st, g),
                "phase": ph.name if ph else None, "deadline": iso(ph.deadline) if ph else None,
                "grace_end": iso(ph.grace_end) if ph else None, "seats": seats,
                "processed": [r["short"] for r in games.processed_phases(st, g)]}


__all__ = ["Judge", "JudgeConfig", "OutboxItem", "from_iso"]
