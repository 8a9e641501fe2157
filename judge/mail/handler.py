"""One incoming message: run its commands in order and queue the answers (inside the caller's transaction).

mail in (:mod:`judge.mail.incoming`) → commands (:mod:`judge.mail.language`) → this module → game
(:mod:`judge.game.lifecycle`) → adjudicator → report (:mod:`judge.render`) → mail out (:mod:`judge.game.outbox`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from judge.render import describe, lateness
from judge.game.cold_store import archived_message
from judge.game import deadlines, digest, lifecycle as games, orderbook, outbox, replacements
from judge.mail import eia as eia_mail
from judge.mail.commands import REGISTRY, CommandError, Session, Stop, load as load_commands
from judge.mail.commands.signon import _power_names
from judge.mail.language import Command, match_keyword, misspelt_command, parse_commands
from judge.orders.lexer import order_lines
from judge.game.lifecycle import Ctx, Game, GameError, PhaseRow
from judge.mail.incoming import IncomingMail, clean_subject
from judge.game.passwords import PasswordError
from judge.render.templates import MailText, render, render_part
from judge.game.store import iso
from judge.variant import Variant

log = logging.getLogger(__name__)
load_commands()  # every command module registers its commands

#: files one reply may carry: three phases' maps, as PNG and SVG (HISTORY)
MAX_ATTACHMENTS = 6


@dataclass
class Handler:
    ctx: Ctx
    mail: IncomingMail
    session: Session = field(default_factory=Session)
    sections: list[str] = field(default_factory=list)
    errors: int = 0
    order_lines: list[Command] = field(default_factory=list)
    touched: bool = False  # orders or WAIT changed: try early processing afterwards
    #: the phase the order status found not ready to process: nothing the reply does changes
    #: that, so the early-processing check after it is not made a second time
    not_ready_phase: int | None = None
    copy_to: list[str] = field(default_factory=list)  # also send the reply here (the seat's own address)
    above_signon: list[Command] = field(default_factory=list)  # order lines before any game was signed on to
    hold_reply: str | None = None  # why not to answer (a loop?), unless the mail signs on with a password
    #: the answer quota (judge.mail.abuse.reply_quota), asked only when the mail does not sign on
    ask_quota: Callable[[], Any] | None = None
    closing_note: str | None = None  # said last in the reply
    replied: bool = False  # a reply was queued
    from_only: bool = False  # the reply goes to the From address only (CREATE, OBSERVE, joining)
    status_section: str | None = None  # the order status closing the reply (never cut)
    #: (game, its open phase) as the order status read them: the reply, written right after
    #: with nothing in between, names the same phase
    status_phase: tuple[Game, PhaseRow] | None = None
    #: (game, its open phase, power, that power's current orders) as the last submission of this
    #: mail left them, for the order status; dropped when any other command runs (it may change them)
    submitted: tuple[Game, PhaseRow, str, dict[str, Any]] | None = None
    #: (name, the game of that name) as read for the command being dispatched (judge.mail.eia
    #: looks first); the command's own look-up uses it instead of reading the row again
    game_read: tuple[str, Game | None] | None = None
    #: the session's game and seat are as the store holds them: read by this mail's SIGNON, and
    #: only order lines were read since (any other command may change them)
    session_fresh: bool = False
    #: the orders for later phases the signed-on power has waiting, as its SIGNON counted them and
    #: counting those this mail queued since: the order status's list, known empty (while session_fresh)
    future_pending: int | None = None
    reply_chars: int | None = None  # a shorter cap than max_reply_chars (an address the judge does not know)
    answered_to: str = ""  # where the reply went (the limits count answers per recipient)
    secrets: set[str] = field(default_factory=set)  # passwords in this mail: never echoed, not even in the subject
    attachments: list[Any] = field(default_factory=list)  # files the reply carries (HISTORY's maps)
    after_read: list[Callable[[], None]] = field(default_factory=list)  # run once the whole mail is read

    def attach_allowed(self, files: int) -> bool:
        """Whether the reply may carry ``files`` more attachments: never for an address the judge
        does not know (its one short answer), and at most :data:`MAX_ATTACHMENTS` a reply, so a
        mail of many HISTORY lines cannot be amplified into a mail of many maps."""
        return self.reply_chars is None and len(self.attachments) + files <= MAX_ATTACHMENTS

    # -- running -------------------------------------------------------------------------------
    def run(self) -> None:
        if self.mail.error:
            self.error(f"Your message could not be read: {self.mail.error}.")
            self.send_reply()
            return
        for note in self.mail.notes:
            self.say(note)
        if self.mail.ignored:  # a note, never an error: nothing the player wrote vanishes silently
            self.say(render_part("ignored.txt", notes=[b.describe() for b in self.mail.ignored]))
        cmds = parse_commands(self.mail.text)
        at = 0
        self.ctx.held = []  # one mail per recipient for what a master's mail makes (judge.game.digest)
        self.secrets = {w for c in cmds if c.name != "ORDER" for w in hidden_words(c)}
        try:
            for at, cmd in enumerate(cmds):
                if cmd.name != "ORDER":
                    self.flush_orders()
                self.dispatch(cmd)
                if cmd.name == "SIGNON":
                    self.read_above_signon()
            self.flush_orders()
        except Stop:
            self.order_lines.clear()
            if cmds[at].name == "SIGNOFF":
                rest = cmds[at].unread
                if rest:
                    self.say(f"Not read after SIGNOFF: {len(rest)} more {'line' if len(rest) == 1 else 'lines'}, "
                             f"from '{cut(rest[0], 60)}'.")
            else:
                self.not_read(cmds[at + 1:], "after the error above")
        for action in self.after_read:  # (a game this mail filled starts: its SET PREFERENCE counted)
            self.submitted, self.session_fresh = None, False
            action()
        if not cmds:
            self.error("No commands found in your message. Send HELP for help.")
        elif self.above_signon:
            lines, self.above_signon = self.above_signon, []
            for c in lines:
                self.quote(c.line)
            self.error(("Signon command not encountered: order lines are only read after a SIGNON line. "
                        if not self.session.signons else
                        f"the {len(lines)} order {'line' if len(lines) == 1 else 'lines'} above your SIGNON "
                        f"{'was' if len(lines) == 1 else 'were'} not read: no power was signed on to. ")
                       + "Use 'help' for info.")
        digest.release(self.ctx, folded=self.session.master)
        self.order_status()
        self.send_reply()
        g = self.session.game
        if self.touched and g is not None and g.state == "active" and self.not_ready_phase is None:
            games.maybe_process(self.ctx, g)

    def dispatch(self, cmd: Command) -> None:
        if cmd.name != "ORDER":
            self.submitted = None  # a command may change the orders or the phase
            self.session_fresh = False  # ... or the game and the seat (SIGNON reads them afresh)
        self.game_read = None
        if eia_mail.take(self, cmd):  # Empires in Arms games have their own commands
            return
        if cmd.name == "ORDER":
            if self.session.power is None:
                if self.session.game is not None:
                    self.echo(cmd)
                    self.error("You are not signed on as a power, so this line cannot be an order.")
                else:
                    self.above_signon.append(cmd)  # read once a SIGNON names a power (read_above_signon)
                return
            g, target = self.session.game, None
            if g is not None and heading_words(cmd.line) is not None:  # a cheap look first: most lines are orders
                ph = games.current_phase(self.ctx.store, g) if g.state in ("active", "paused") else None
                target = phase_heading(cmd.line, g.variant, ph.phase if ph else None)
            if target is not None:  # "Spring 1901:", "--- F1901M orders ---": the orders below are for it
                self.flush_orders()
                self.quote(cmd.line)
                try:
                    self.aim_at(target)
                except CommandError as exc:
                    self.error(str(exc))
                return
            self.order_lines.append(cmd)
            return
        spec = REGISTRY[cmd.name]
        self.echo(cmd)
        try:
            spec.run(self, cmd)
        except (CommandError, GameError, deadlines.TimeError, PasswordError) as exc:
            self.error(str(exc))
        except Stop:
            raise

    def read_above_signon(self) -> None:
        """Order lines written above the SIGNON line are the signed-on power's too: they are read
        first, as if written under it."""
        eia = getattr(self, "eia", None)  # an Empires in Arms seat (judge.mail.eia) reads its own lines
        who = self.session.power or (eia.nation if eia is not None else None)
        if not self.above_signon or who is None:
            return
        lines, self.above_signon = self.above_signon, []
        n = len(lines)
        self.say(f"The {n} order {'line' if n == 1 else 'lines'} above your SIGNON {'is' if n == 1 else 'are'} "
                 f"read as {who}'s:")
        for c in lines:
            self.dispatch(c)
        self.flush_orders()

    def not_read(self, rest: list[Command], why: str) -> None:
        """Name the lines of the mail that were not read (nothing vanishes silently)."""
        n = sum(1 + len([l for l in c.body.split("\n") if l.strip()]) + (c.name in ("PRESS", "BROADCAST") and c.closed)
                for c in rest)
        if n:
            self.say(f"Not read {why}: {n} more {'line' if n == 1 else 'lines'}, from '{cut(rest[0].line, 60)}'.")

    # -- output --------------------------------------------------------------------------------
    def echo(self, cmd: Command) -> None:
        self.sections.append("> " + echo_line(cmd, self.ctx.cfg.max_echo_line))

    def say(self, text: str) -> None:
        self.sections.append(text)

    def quote(self, line: str) -> None:
        """Echo one line of the sender's (an order), cut to ``max_echo_line`` characters."""
        self.sections.append("> " + cut(line, self.ctx.cfg.max_echo_line))

    def error(self, text: str) -> None:
        self.errors += 1
        self.sections.append(f"*** Error: {text}")

    # -- helpers ---------------------------------------------------------------------------------
    def need_game(self) -> Game:
        if self.session.game is None:
            raise CommandError("sign on to a game first (SIGNON)")
        return self.session.game

    def need_master(self) -> Game:
        g = self.need_game()
        if not self.session.master:
            raise CommandError("only the game master may do that")
        return g

    def need_power(self) -> tuple[Game, str]:
        g = self.need_game()
        if self.session.power is None:
            raise CommandError("only a player signed on as a power may do that")
        return g, self.session.power

    def need_phase(self, g: Game) -> PhaseRow:
        if g.state == "forming":
            raise CommandError(f"game '{g.name}' has not started yet")
        if g.state in ("finished", "terminated"):
            raise CommandError(f"game '{g.name}' is over")
        ph = games.current_phase(self.ctx.store, g)
        if ph is None:
            raise CommandError(f"game '{g.name}' has no open phase")
        return ph

    def game_named(self, name: str) -> Game | None:
        """:func:`games.get_game`, from :attr:`game_read` when this command read that name already."""
        key = name.strip().lower()
        if self.game_read is not None and self.game_read[0] == key:
            return self.game_read[1]
        return games.get_game(self.ctx.store, key)

    def lookup_game(self, name: str) -> Game:
        g = games.get_game(self.ctx.store, name.lstrip("?"))
        if g is None:
            raise CommandError(f"no game named '{name.lstrip('?').lower()}'. Send LIST for the games on this judge")
        elsewhere = archived_message(g.name, g.options)
        if elsewhere:
            raise CommandError(elsewhere)
        return g

    def arg_game(self, cmd: Command) -> Game:
        if cmd.args:
            return self.lookup_game(cmd.args[0])
        if self.session.game is not None:
            return self.session.game
        raise CommandError(f"{cmd.name} needs a game name")

    # -- orders ------------------------------------------------------------------------------------
    def flush_orders(self) -> None:
        if not self.order_lines:
            return
        lines, self.order_lines = self.order_lines, []
        text = "\n".join(c.line for c in lines)
        try:
            g, power = self.need_power()
            ph = self.need_phase(g)
            if self.session.stale is not None:
                raise CommandError(f"these orders are for {self.session.stale}, which is over: '{g.name}' is at "
                                   f"{ph.name} now. They were not accepted; send orders for {ph.name}")
        except CommandError as exc:
            for c in lines:
                self.quote(c.line)
            self.error(str(exc))
            return
        if self.session.future is not None:
            self.ctx.store.insert("future_orders", game_id=g.id, power=power, phase_name=str(self.session.future),
                                  raw=text, message_id=self.mail.message_id, created=iso(self.ctx.now), state="pending")
            if self.future_pending is not None:
                self.future_pending += 1
            for c in lines:
                self.quote(c.line)
            self.say(f"Queued for {self.session.future}: these orders are read when that phase begins.")
            return
        sub = orderbook.submit(self.ctx.store, ph.id, ph.position, power, text, g.rules, self.mail.message_id,
                               self.ctx.now)
        self.submitted = (g, ph, power, sub.current) if sub.current is not None else None
        self.answer_lines(sub.lines)
        if sub.accepted:
            self.touched = True
        # lines the order reader passes over ("# a comment", "On to Munich, as I wrote:") are named too
        remarks = [c.line for c in lines if next(order_lines(c.line), None) is None]
        for line in remarks:
            self.quote(line)
        if remarks:
            self.say(f"  Note: {'this line is' if len(remarks) == 1 else 'these lines are'} not read as "
                     f"{'an order' if len(remarks) == 1 else 'orders'} (a remark): nothing was done with "
                     f"{'it' if len(remarks) == 1 else 'them'}.")

    def answer_lines(self, reports: list[orderbook.LineReport]) -> None:
        """Each line the player wrote, echoed once as written, with what became of each order on
        it (an error, warnings) or the note on it; where a line holds several orders, each
        answer names the order it is about."""
        # the line each answer is about (its number and text), once a report
        keys = [(rep.lineno, rep.source) if rep.lineno else (id(rep), rep.line) for rep in reports]
        shared: dict[tuple[int, str], int] = {}
        for k in keys:
            shared[k] = shared.get(k, 0) + 1
        last = None
        for rep, k in zip(reports, keys):
            if k != last:
                self.quote(rep.source or rep.line)
                last = k
            about = f"{cut(rep.line, 60)!r}: " if shared[k] > 1 and rep.line != rep.source else ""
            if rep.note:
                self.say(f"  Note: {rep.note}")
            elif rep.error and (meant := misspelt_command(rep.source or rep.line)) and \
                    rep.error.startswith("unknown province"):
                word = (rep.source or rep.line).split()[0]
                self.error(f"{word!r} is neither an order nor a command (did you mean the command {meant}?): "
                           f"this line was ignored")
            elif rep.error:
                self.error(about + rep.error +
                           (f" (did you mean: {', '.join(rep.suggestions)}?)" if rep.suggestions else ""))
            else:
                for w in rep.warnings:
                    self.say(f"  Warning: {about}{w}")

    def aim_at(self, target: Any) -> None:
        """The orders that follow are for phase ``target`` (PHASE, or a heading naming a phase):
        the current one, a later one (queued), or one that is over (refused, with its name)."""
        g, power = self.need_power()
        ph = self.need_phase(g)
        cal = g.variant.calendar
        self.session.stale = None
        if cal.order_key(target) < cal.order_key(ph.phase):
            self.session.stale, self.session.future = target, None
            raise CommandError(f"{target} has already passed: '{g.name}' is at {ph.name} now, so the orders "
                               f"below for {target} are not accepted")
        if target == ph.phase:
            self.session.future = None
            self.say(f"Orders below are for the current phase, {target}.")
            return
        if target.year > ph.phase.year + 5:
            raise CommandError("orders may be queued at most five years ahead")
        self.session.future = target
        self.say(f"Orders below are for {target}.")

    # -- the reply ------------------------------------------------------------------------------------
    def order_status(self) -> None:
        s = self.session
        g = s.game
        if g is None or s.power is None or g.state not in ("active", "paused"):
            return
        if self.submitted is not None and self.submitted[0] is g and self.submitted[2] == s.power:
            _, ph, _, cur = self.submitted  # nothing ran since the submission: the store holds just that
        else:
            found = games.current_phase(self.ctx.store, g)
            if found is None:
                return
            ph, cur = found, orderbook.current_orders(self.ctx.store, found.id, s.power)
        self.status_phase = (g, ph)
        pos, rules = ph.shared_position, g.rules  # only looked at; the rules merged once for the status
        need = orderbook.needed(pos, s.power, rules)
        miss = orderbook.missing(pos, s.power, cur, rules)
        seat = s.seat if self.session_fresh else self.ctx.store.one("SELECT * FROM seats WHERE id = ?", (s.seat["id"],))
        if self.session_fresh and self.future_pending == 0:
            pending: list[str] = []  # none waited when SIGNON counted them, and none was queued since
        else:
            pending = [r["phase_name"] for r in self.ctx.store.all(
                "SELECT phase_name FROM future_orders WHERE game_id = ? AND power = ? AND state = 'pending' "
                "ORDER BY id", (g.id, s.power))]
        self.say("")
        self.status_section = render_part(
                             "orders_status.txt", game=g.name, power=s.power, kind=describe.PHASE_WORD[pos.phase.kind],
                             title=describe.phase_title(pos.phase), seq=f"{ph.seq:03d}",
                             orders=describe.order_list(pos, s.power, cur, rules), need=need, missing=miss,
                             due=lateness.still_due(pos, s.power, miss),
                             wait=bool(seat["wait"]), draw=bool(seat["draw"]), note=describe.adjustment_note(pos, s.power, rules),
                             paused=g.state == "paused", pending=_in_calendar_order(g, pending),
                             default_rule=default_rule(pos, s.power), **self.timing(g, ph, s.power, silent=not cur))
        self.say(self.status_section)

    def ready_to_process(self, g: Game, ph: PhaseRow) -> bool:
        """games.ready, remembered when false (see ``not_ready_phase``)."""
        if games.ready(self.ctx, g, ph):
            return True
        self.not_ready_phase = ph.id
        return False

    def timing(self, g: Game, ph: PhaseRow, power: str, silent: bool) -> dict[str, Any]:
        """Where the phase stands in time, for the orders status: ``stage`` is ``processing`` (this
        mail completed it: it is processed as soon as the reply is written), ``open`` (before the
        deadline), ``grace`` (deadline passed, grace running) or ``over`` (grace ended too); with the
        deadline and the end of grace in the game's zone, who is still late, and what becomes of a
        power still late at the end of grace. ``silent``: ``power`` has given no order at all."""
        now, zone = self.ctx.now, games.game_zone(self.ctx, g)
        out: dict[str, Any] = {"deadline": deadlines.format_time(ph.deadline, zone),
                               "grace_end": deadlines.format_time(ph.grace_end, zone),
                               "left": deadlines.format_left(ph.deadline - now) if ph.deadline else ""}
        if g.state != "active":
            out["stage"] = "paused"
        elif self.touched and self.ready_to_process(g, ph):
            out["stage"] = "processing"
        elif ph.deadline is None or now < ph.deadline:
            out["stage"] = "open"
        else:
            out["stage"] = "grace" if ph.grace_end is not None and now < ph.grace_end else "over"
            late = [*games.late_powers(self.ctx.store, g, ph), *games.awaited(self.ctx.store, g, ph)]
            nmr = replacements.nmr_mode(g)
            out.update(late=[p + (" (you)" if p == power else "") for p in dict.fromkeys(late)], nmr=nmr,
                       grace_left=deadlines.format_left(ph.grace_end - now) if ph.grace_end else "",
                       after=lateness.after_grace(nmr, ph.position.phase.kind, now=out["stage"] == "over"),
                       processed=lateness.processed_by(f"at the end of the grace period, {out['grace_end']}"),
                       missed=lateness.missed_phases(replacements.abandon_after(g))
                       if silent and power in late and nmr == "cd" else "")
        return out

    def capped_sections(self, limit: int | None = None) -> list[str]:
        """The reply's sections, cut where they pass ``max_reply_chars`` (or ``limit``, if less),
        or where the echo of the sender's own lines (``> line`` and the errors about them) passes
        ``max_echo_chars``: a junk mail must not make a reply of megabytes. A note says what was
        cut, and how many of the sender's lines go unanswered there; the order status (last) is
        always kept."""
        body, tail = self.sections, []
        for last in (self.status_section, self.closing_note):  # what closes the reply is never cut
            if last is not None and last in body:
                at = len(body) - 1 - body[::-1].index(last)
                body, tail = body[:at], body[at:]
                break
        out: list[str] = []
        total = echoed = 0
        max_reply, max_echo = self.ctx.cfg.max_reply_chars, self.ctx.cfg.max_echo_chars
        if limit is not None:
            max_reply, max_echo = min(max_reply, limit), min(max_echo, limit)
        for i, sec in enumerate(body):
            echo = sec.startswith(("> ", "*** Error:", "  Warning:", "  Note:"))
            if total + len(sec) > max_reply or echo and echoed + len(sec) > max_echo:
                rest = body[i:]
                cut = sum(len(x) + 1 for x in rest)
                errs = sum(1 for x in rest if x.startswith("*** Error:"))
                lines = sum(1 for x in rest if x.startswith("> "))
                which = (f": the answers to {lines} more of your lines" if lines else "") + (
                    f", with {errs} error lines" if errs else "")
                out.append(f"[...] (This reply was cut here, {cut} more characters were not shown{which}. "
                           f"Everything in your message was read and acted on; send fewer lines at a time "
                           f"to see every answer.)")
                return out + tail
            out.append(sec)
            total += len(sec) + 1
            echoed += (len(sec) + 1) * echo
        return out + tail

    @property
    def signed_on(self) -> bool:
        """This mail proved a password (a seat's, or the master's), or sent back a code the judge
        mailed to its address (CONFIRM): it comes from a person."""
        return self.session.seat is not None or self.session.master or self.session.proved

    def send_reply(self) -> None:
        if self.signed_on:
            self.closing_note = None  # signed-on answers are not counted against the quota
        else:
            if self.ask_quota is not None:
                quota = self.ask_quota()
                self.hold_reply, self.closing_note = quota.hold or self.hold_reply, quota.closing
            if self.hold_reply:
                return
        if self.closing_note:
            self.say("")
            self.say(self.closing_note)
        s = self.session
        g = s.game
        if g is not None and self.status_phase is not None and self.status_phase[0] is g:
            ph: PhaseRow | None = self.status_phase[1]
        else:
            ph = games.current_phase(self.ctx.store, g) if g is not None else None
        first = [self.mail.sender] if self.from_only and self.mail.sender else list(self.mail.reply_to)
        copies = [a for a in self.copy_to if a not in first]
        to = first + copies  # the size is measured as one mail; the copies go apart
        limit = self.reply_chars
        most = self.ctx.cfg.max_reply_bytes
        while True:  # the whole mail (text, HTML, headers) within max_reply_bytes: cut harder until it is
            subject, text = render("reply.txt", code=self.ctx.cfg.code, game=g.name if g else None,
                                   variant=g.variant.title if g else None, short=ph.short if ph else None,
                                   deadline=games.shown_deadline(self.ctx, g, ph, read_now=self.session_fresh)
                                   if g else None,
                                   subject=answer_subject(self.mail.subject, self.ctx.cfg.code, self.secrets),
                                   error=self.errors > 0, errors=self.errors, sections=self.capped_sections(limit))
            # a short text cannot make a long mail (the HTML part and quoted-printable at most ~10x)
            if len(str(text).encode("utf-8")) * 12 < most or (limit is not None and limit < 1_000):
                break
            size = len(outbox.compose(self.ctx.cfg, to, subject, text, self.ctx.now, in_reply_to=self.mail.reply_id,
                                      references=self.mail.references)[0])
            if size <= most:
                break
            limit = int(min(limit or self.ctx.cfg.max_reply_chars, len(text)) * most / size * 0.9)
        if self.attachments:  # a few maps at most (see attach_allowed), on top of the text's cap
            text = MailText(text, text.html, [*text.attachments, *self.attachments])
        # the game's list address as this mail's SIGNON read it, when only order lines ran since
        listed = (g.name, g.list_address) if g and self.session_fresh and g.list_address != games.UNREAD else None
        # the seat's own addresses get their copy apart: a sender from elsewhere never sees them
        for to in (first, copies):
            if to:
                self.ctx.mail(to, subject, text, game_id=g.id if g else None, kind="reply",
                              in_reply_to=self.mail.reply_id, references=self.mail.references, auto="auto-replied",
                              game_list=listed)
        self.replied = bool(first or copies)
        self.answered_to = first[0] if first else ""


def default_rule(pos: Any, power: str) -> str:
    """What the judge does with the orders a power did not give, this phase."""
    if pos.phase.kind == "retreat":
        return "Unordered dislodged units disband."
    if pos.phase.kind == "adjustment":
        from judge.engine.adjustment import adjustments_due

        if adjustments_due(pos).get(power, 0) > 0:
            return "Builds not ordered are waived."
        return "Removals not ordered are chosen for you by the civil disorder rule."
    return "Unordered units hold."


_HEADING = re.compile(r"(?:(?:my\s+)?orders?\s*(?:for|in)?\s*)?([a-z]+)\s*(\d{3,4})\s*([a-z]*)(?:\s+orders?)?")


def heading_words(line: str) -> tuple[str, str, str] | None:
    """(season, year, kind) if the line has the shape of a phase heading, else None."""
    t = line.strip(" \t-=*#_:;.,[](){}<>~|").lower()
    m = _HEADING.fullmatch(t) if len(t) <= 40 else None
    return None if m is None else (m.group(1), m.group(2), m.group(3))


def phase_heading(line: str, v: Variant, current: Any = None) -> Any:
    """The phase a heading line names (``Spring 1901:``, ``--- S1901M ---``, ``Orders for Fall
    1901``, ``Winter 1901 builds``), or None when the line is not such a heading. A heading
    without the kind of phase (``Fall 1901``) names the ``current`` phase when that is one of
    the season's (its retreats), else the season's first phase with orders."""
    words = heading_words(line)
    if words is None:
        return None
    season, year, kind = words
    found = []
    for k in ([kind] if kind else ["movement", "adjustment", "retreat"]):
        try:
            found.append(v.calendar.parse(f"{season} {year} {k}"))
        except Exception:  # not a phase of this variant's calendar (or no such calendar): an order line
            continue
    return current if current in found else (found[0] if found else None)


def cut(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[:limit] + " [...]"


MAX_SUBJECT = 100  # characters of the sender's subject echoed in the answer's


def safe_subject(subject: str, code: str, secrets: set[str] | frozenset[str] = frozenset()) -> str:
    """The sender's subject as the answer echoes it: ``Re:``/tags dropped, a command in it
    echoed as :func:`echo_line` would (``SIGNON Fgame ****``, wherever in the subject it
    starts), any password of the mail hidden, and cut to :data:`MAX_SUBJECT` characters."""
    words = clean_subject(subject, code)[:4 * MAX_SUBJECT].split()
    for i in range(len(words)):
        found = match_keyword(" ".join(words[i:]))
        if found is not None and found[0] in ("SIGNON", "CREATE", "OBSERVE", "UNOBSERVE", "SET"):
            rest = echo_line(Command(found[0], found[1], " ".join(words[i:])), 10 * MAX_SUBJECT)
            words = words[:i] + rest.split()
            break
    if secrets:
        words = ["****" if w in secrets or w.strip(".,;:()[]'\"") in secrets else w for w in words]
    return cut(" ".join(words), MAX_SUBJECT)


#: the words after the game tag in the subjects of the judge's own mails (results, notices, press,
#: reminders: templates/*.txt and the notices' titles); a reply to one of them is not echoed
_TITLE = (
    r"(\[You are late!\] )?(\[Error Flag\] )?(Results|Victory: .*|Game Starting|Late Notice: .*|Reminder|Pending orders.*"
    r"|(Broadcast|Press)( from \S+)?( to .*)?|Master's record|\S+ ledger|Mail not delivered|Paused|Resumed"
    r"|Deadline (changed|moved)|New Player Signon.*|Resignation: .*|Draw|Concession|Game over|Terminated|Unstarted"
    r"|Rollback to .*|Ejected.*|Waiting for Replacements: .*|Open for takeover: .*|Absence.*|Alliance .*"
    r"|Players revealed|Diaries|Vote: .*|Pause (requested|vote): .*|Dead address: .*|Co-master|\S+ returns"
    r"|New team member|Wrong passwords: .*|Dice secret revealed|Income before the economic step)")
#: ... one of them, or several joined as judge.game.digest folds them ("Paused; Broadcast from M")
_JUDGE_TITLE = re.compile(rf"{_TITLE}(; {_TITLE})*\s*", re.I)
#: what the answer's subject says after the game tag in their place (and for an empty subject)
ANSWER_SUBJECT = "Answer to your commands"


def answer_subject(subject: str, code: str, secrets: set[str] | frozenset[str] = frozenset()) -> str:
    """The words after the game tag in the subject of the judge's answer: the sender's own subject
    (:func:`safe_subject`), unless it is empty or the words of one of the judge's own subjects, as
    in a reply to a results mail ("Re: TEST:tg - S1901M Results"): echoed back, they would read as
    the results (or the notice) again, not as the answer to what the sender wrote."""
    own = safe_subject(subject, code, secrets)
    if not own or _JUDGE_TITLE.fullmatch(own):
        return ANSWER_SUBJECT
    return own


def hidden_words(cmd: Command) -> set[str]:
    """The words of a command line its echo hides (its passwords)."""
    shown = set(echo_line(cmd, 10 ** 6).split())
    return {w for w in cmd.line.split() if w not in shown}


def echo_line(cmd: Command, limit: int) -> str:
    """A command line as the reply echoes it: never with a password in it, nor very long.

    SIGNON/LOGIN/HELLO keep only the identity (``SIGNON Fgame``, or ``SIGNON France game``);
    CREATE keeps the game and what follows the password; OBSERVE/UNOBSERVE keep the game; SET
    PASSWORD (also ``SET PASSWORD=x``) keeps only those words. A password with spaces is hidden
    whole, as everything after the identity is."""
    words = cmd.line.split()
    head = len(words) - len(cmd.args)  # words naming the command (SIGN ON is two)
    keep: int | None = None  # arguments shown before the hidden part
    hide = len(cmd.args)  # arguments hidden from there on
    if cmd.name == "SIGNON":
        keep = 2 if len(cmd.args) >= 3 and cmd.args[0].lower() in _power_names() else 1
    elif cmd.name in ("OBSERVE", "UNOBSERVE"):
        keep = 1
    elif cmd.name == "CREATE":
        keep, hide = 1, 1
    elif cmd.name == "SET" and cmd.args and cmd.args[0].upper().startswith("PASSWORD"):
        return " ".join(words[:head]) + " PASSWORD ****"
    elif cmd.name == "SET" and [a.upper() for a in cmd.args[:2]] == ["JOIN", "PASSWORD"]:
        return " ".join(words[:head]) + " JOIN PASSWORD ****"
    if keep is not None and len(cmd.args) > keep:
        shown = words[:head + keep] + ["****"] + words[head + keep + hide:]
        words = shown
    return cut(" ".join(words), limit)


def _in_calendar_order(g: Game, names: list[str]) -> list[str]:
    """The phases orders wait for, each once, in the order the game plays them ("Spring 1902
    Movement" before "Fall 1902 Movement", not as the names sort as text)."""
    calendar = g.variant.calendar

    def key(name: str) -> tuple[int, tuple[int, int, int], str]:
        try:
            return (0, calendar.order_key(calendar.parse(name)), name)
        except (ValueError, KeyError):  # (a name the calendar no longer reads: listed last, as text)
            return (1, (0, 0, 0), name)

    return sorted(set(names), key=key)

