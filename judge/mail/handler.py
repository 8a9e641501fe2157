"""One incoming message: run its commands in order and queue the answers (inside the caller's transaction).

mail in (:mod:`judge.mail.incoming`) → commands (:mod:`judge.mail.language`) → this module → game
(:mod:`judge.game.lifecycle`) → adjudicator → report (:mod:`judge.render`) → mail out (:mod:`judge.game.outbox`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from judge.render import describe
from judge.game import deadlines, lifecycle as games, orderbook
from judge.mail import abuse, eia as eia_mail
from judge.mail.commands import BAD_SIGNON, REGISTRY, CommandError, Session, Stop, load as load_commands
from judge.mail.commands.signon import _power_names
from judge.mail.language import Command, parse_commands
from judge.game.lifecycle import Ctx, Game, GameError, PhaseRow
from judge.mail.incoming import IncomingMail, clean_subject, plausible_address
from judge.game.passwords import PasswordError, check_new_password, hash_password, verify_password
from judge.render.templates import render, render_part
from judge.game.store import dumps, iso
from judge.variant import Variant

log = logging.getLogger(__name__)
load_commands()  # every command module registers its commands

#: a reply echoes at most this much of what was sent, and is at most this long as a whole
MAX_ECHO_LINE = 300
MAX_REPLY_CHARS = 100_000
MAX_ECHO_CHARS = 30_000
@dataclass
class Handler:
    ctx: Ctx
    mail: IncomingMail
    session: Session = field(default_factory=Session)
    sections: list[str] = field(default_factory=list)
    errors: int = 0
    order_lines: list[Command] = field(default_factory=list)
    touched: bool = False  # orders or WAIT changed: try early processing afterwards
    copy_to: list[str] = field(default_factory=list)  # also send the reply here (the seat's own address)
    stray_orders: int = 0
    hold_reply: str | None = None  # why not to answer (a loop?), unless the mail signs on with a password
    closing_note: str | None = None  # said last in the reply
    replied: bool = False  # a reply was queued
    from_only: bool = False  # the reply goes to the From address only (CREATE, OBSERVE, joining)
    status_section: str | None = None  # the order status closing the reply (never cut)

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
        try:
            for cmd in cmds:
                if cmd.name != "ORDER":
                    self.flush_orders()
                self.dispatch(cmd)
            self.flush_orders()
        except Stop:
            self.order_lines.clear()
        if not cmds:
            self.error("No commands found in your message. Send HELP for help.")
        elif self.stray_orders and not self.session.signons:
            self.error("Signon command not encountered: order lines are only read after a SIGNON line. "
                       "Use 'help' for info.")
        self.order_status()
        self.send_reply()
        g = self.session.game
        if self.touched and g is not None and g.state == "active":
            games.maybe_process(self.ctx, g)

    def dispatch(self, cmd: Command) -> None:
        if eia_mail.take(self, cmd):  # Empires in Arms games have their own commands
            return
        if cmd.name == "ORDER":
            if self.session.power is None:
                if self.session.game is not None:
                    self.echo(cmd)
                    self.error("You are not signed on as a power, so this line cannot be an order.")
                else:
                    self.stray_orders += 1
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

    # -- output --------------------------------------------------------------------------------
    def echo(self, cmd: Command) -> None:
        self.sections.append("> " + echo_line(cmd))

    def say(self, text: str) -> None:
        self.sections.append(text)

    def quote(self, line: str) -> None:
        """Echo one line of the sender's (an order), cut to MAX_ECHO_LINE characters."""
        self.sections.append("> " + (line if len(line) <= MAX_ECHO_LINE else line[:MAX_ECHO_LINE] + " [...]"))

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

    def lookup_game(self, name: str) -> Game:
        g = games.get_game(self.ctx.store, name.lstrip("?"))
        if g is None:
            raise CommandError(f"no game named '{name.lstrip('?').lower()}'. Send LIST for the games on this judge")
        return g

    def arg_game(self, cmd: Command) -> Game:
        if cmd.args:
            return self.lookup_game(cmd.args[0])
        if self.session.game is not None:
            return self.session.game
        raise CommandError(f"{cmd.name} needs a game name")

    # -- anyone ----------------------------------------------------------------------------------
    def describe_game(self, g: Game) -> str:
        ph = games.current_phase(self.ctx.store, g)
        st = self.ctx.store
        seats = []
        late = set()
        if ph is not None and self.session.master and self.session.game is g:
            late = set(games.late_powers(st, g, ph))
        for s in games.seats(st, g.id):
            status = {"active": "", "cd": "civil disorder", "vacant": "vacant"}.get(s["status"], s["status"])
            if s["power"] in late:
                status = (status + ", " if status else "") + "orders missing"
            seats.append({"power": s["power"] or "(to be assigned)", "status": status})
        observers = len(games.seats(st, g.id, "observer"))
        rules = {k: v for k, v in (g.options.get("rules") or {}).items()}
        return render_part("list_game.txt", name=g.name, variant=g.variant.title, state=g.state,
                           phase=ph.name if ph else None, short=ph.short if ph else None,
                           deadline=self.ctx.when(ph.deadline) if ph else None,
                           grace_end=self.ctx.when(ph.grace_end) if ph else None,
                           seats=seats, observers=observers, press=g.press, victory=victory_text(g),
                           movement=deadlines.format_hours(g.hours("movement")),
                           retreat=deadlines.format_hours(g.hours("retreat")),
                           adjustment=deadlines.format_hours(g.hours("adjustment")),
                           grace=deadlines.format_hours(g.grace_hours), rules=rules, outcome=g.outcome,
                           npowers=len(g.variant.powers),
                           list_address=games.list_address(st, g))

    def lookup_or_stop(self, name: str) -> Game:
        g = games.get_game(self.ctx.store, name.lstrip("?"))
        if g is None:
            self.error(f"No such game '{name.lstrip('?').lower()}'. Send LIST for the games on this judge.")
            raise Stop
        return g

    def fail_signon(self) -> None:
        self.error(BAD_SIGNON)
        raise Stop

    def check_password(self, g: Game, label: str, password: str, stored: str | None, owners: list[str]) -> None:
        """Verify a password for one seat (``label``: a power, ``Master``, ``Observer``), throttled:
        after too many wrong ones the seat is locked against other addresses (and its owners told
        once), and a sender guessing everywhere is locked out of every check (:mod:`abuse`)."""
        st, now, sender = self.ctx.store, self.ctx.now, self.mail.sender
        until = abuse.locked_until(st, g.id, label, sender, owners, now)
        if until is not None:
            self.error(f"Too many wrong passwords: password checks for {label} in '{g.name}' from your address "
                       f"are refused until {self.ctx.when(until)}.")
            raise Stop
        if verify_password(password, stored):
            return
        if abuse.record_failure(st, g.id, label, sender, owners, now) and owners:
            who = ", ".join(a for a in abuse.failure_senders(st, g.id, label, now) if a not in owners)
            games.notice(self.ctx, g, f"Wrong passwords: {label}",
                         f"{abuse.SEAT_FAILURES} wrong passwords for {label} in '{g.name}' within the last hour, "
                         f"from {who}. Sign-ons to {label} from other addresses are refused until "
                         f"{self.ctx.when(now + abuse.WINDOW)}; yours still work. If you did not send these, "
                         f"nothing needs doing, but a longer password (SET PASSWORD) does no harm.", to=owners)
        self.fail_signon()

    def signon_power(self, g: Game, power: str, password: str) -> None:
        st = self.ctx.store
        if g.state == "forming":
            self.error(f"Game '{g.name}' has not started: powers are assigned at the start. "
                       f"Use SIGNON ?{g.name} <password> to join it.")
            raise Stop
        seat = games.seat_of_power(st, g.id, power)
        if seat is None:
            self.fail_signon()
        if seat["status"] == "vacant":
            if g.state not in ("active", "paused"):
                self.fail_signon()
            self.take_over(g, seat, password)
            return
        self.check_password(g, power, password, seat["password_hash"], games.seat_addresses(st, seat))
        self.enter_seat(g, seat)

    def take_over(self, g: Game, seat: Any, password: str) -> None:
        st = self.ctx.store
        check_new_password(password)
        self.from_only = True
        pid = games.player_id(self.ctx, self.mail.sender)
        st.update("seats", seat["id"], player_id=pid, password_hash=hash_password(password, self.ctx.cfg.password_cost),
                  status="active", wait=1, draw=0, addresses=None, allies=None, concede=None,
                  joined=iso(self.ctx.now))
        seat = st.one("SELECT * FROM seats WHERE id = ?", (seat["id"],))
        letter = g.variant.powers[seat["power"]].letter
        self.say(f"You have taken over {seat['power']} in '{g.name}'. Sign on from now on with:  "
                 f"SIGNON {letter}{g.name} <your password>\n(WAIT is set for you this phase: send SET NOWAIT "
                 f"when your orders are complete.)")
        games.notice(self.ctx, g, f"New Player Signon: {letter}",
                     f"{seat['power']} in game '{g.name}' has been taken over by a new player.")
        self.enter_seat(g, seat, quiet=True)

    def enter_seat(self, g: Game, seat: Any, quiet: bool = False) -> None:
        st = self.ctx.store
        if seat["status"] == "cd":
            st.update("seats", seat["id"], status="active")
            seat = st.one("SELECT * FROM seats WHERE id = ?", (seat["id"],))
            games.notice(self.ctx, g, f"{seat['power']} returns", f"{seat['power']} is no longer in civil disorder.")
        self.session = Session(game=g, seat=seat, power=seat["power"] if seat["role"] == "player" else None,
                               signons=1)
        own = games.seat_addresses(st, seat)
        if self.mail.sender not in own:
            self.copy_to = own
        if not quiet:
            what = seat["power"] or ("observer" if seat["role"] == "observer" else "player (power not yet assigned)")
            self.say(f"Signed on as {what} in '{g.name}'.")

    def signon_join(self, g: Game, password: str) -> None:
        st = self.ctx.store
        pid = st.scalar("SELECT id FROM players WHERE address = ?", (self.mail.sender,))
        mine = [s for s in games.seats(st, g.id) if pid is not None and s["player_id"] == pid]
        if mine:
            for s in mine[1:]:
                if verify_password(password, s["password_hash"]):
                    self.enter_seat(g, s)
                    return
            s = mine[0]
            self.check_password(g, s["power"] or f"seat {s['id']}", password, s["password_hash"],
                                games.seat_addresses(st, s))
            self.enter_seat(g, s)
            return
        self.from_only = True
        if g.state == "forming":
            check_new_password(password)
            seat = games.join(self.ctx, g, self.mail.sender, password)
            filled = len(games.seats(st, g.id))
            need = len(g.variant.powers)
            self.session = Session(game=g, seat=seat, signons=1)
            self.say(f"You have joined '{g.name}' ({filled} of {need} players). Your power is assigned when "
                     f"the game starts; keep your password.")
            master = games.master_address(st, g)
            if master:
                games.notice(self.ctx, g, "New Player Signon", f"A player has joined '{g.name}' "
                             f"({filled} of {need}).", to=[master])
            if filled >= need:
                games.start(self.ctx, g)
                self.session.seat = st.one("SELECT * FROM seats WHERE id = ?", (seat["id"],))
                self.session.power = self.session.seat["power"]
            return
        if g.state not in ("active", "paused"):
            self.error(f"Game '{g.name}' is over.")
            raise Stop
        vacant = [s for s in games.seats(st, g.id) if s["status"] == "vacant"]
        if not vacant:
            self.error(f"Game '{g.name}' has no vacant power to take over.")
            raise Stop
        order = list(g.variant.powers)
        vacant.sort(key=lambda s: order.index(s["power"]))
        self.take_over(g, vacant[0], password)

    def signon_observer(self, g: Game, password: str) -> None:
        st = self.ctx.store
        pid = games.player_id(self.ctx, self.mail.sender)
        seat = st.one("SELECT * FROM seats WHERE game_id = ? AND role = 'observer' AND player_id = ?", (g.id, pid))
        self.check_password(g, "Observer", password, seat["password_hash"] if seat else None, [self.mail.sender])
        self.enter_seat(g, seat)

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
            for c in lines:
                self.quote(c.line)
            self.say(f"Queued for {self.session.future}: these orders are read when that phase begins.")
            return
        sub = orderbook.submit(self.ctx.store, ph.id, ph.position, power, text, g.rules, self.mail.message_id,
                               self.ctx.now)
        for rep in sub.lines:
            self.quote(rep.line)
            if rep.error:
                self.error(rep.error + (f" (did you mean: {', '.join(rep.suggestions)}?)" if rep.suggestions else ""))
            else:
                for w in rep.warnings:
                    self.say(f"  Warning: {w}")
        if sub.accepted:
            self.touched = True

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

    # -- press ---------------------------------------------------------------------------------------
    def send_press(self, cmd: Command, broadcast: bool) -> None:
        g = self.need_game()
        st = self.ctx.store
        v = g.variant
        if self.session.master:
            sender = "Master"
        elif self.session.power:
            sender = self.session.power
        else:
            raise CommandError("observers cannot send press")
        if not cmd.body.strip():
            raise CommandError("the press message is empty")
        grey = False
        to_tokens: list[str] = []
        words = [w.upper() for w in cmd.args]
        i = 0
        while i < len(words):
            w = words[i].strip(",")
            if w in ("GREY", "GRAY", "ANONYMOUS"):
                grey = True
            elif w in ("WHITE", "UNANONYMOUS"):
                grey = False
            elif w == "TO":
                pass
            else:
                to_tokens.append(w)
            i += 1
        all_powers = [p for p in v.powers]
        if broadcast and not to_tokens:
            targets = set(all_powers)
            broadcast_all = True
        else:
            if not to_tokens:
                raise CommandError("PRESS needs recipients: PRESS TO <powers> (e.g. PRESS TO FG), or use BROADCAST")
            targets = self.press_targets(g, to_tokens)
            broadcast_all = targets >= set(all_powers)
        master_only = targets == {"Master"}
        mode = g.press
        if sender != "Master" and not master_only:
            if mode == "none":
                raise CommandError(f"game '{g.name}' does not allow press (except to the master)")
            if mode == "white" and grey:
                raise CommandError(f"game '{g.name}' allows only white press")
            if mode == "grey" and not grey:
                grey = True
        if g.state in ("finished", "terminated") and not broadcast_all:
            raise CommandError(f"game '{g.name}' is over")
        if g.state == "forming" and not broadcast_all and not master_only:
            raise CommandError("powers are not assigned yet: only BROADCAST is possible")
        if sender == "Master" or master_only:
            grey = False
        targets.discard(sender)
        ph = games.current_phase(st, g)
        short = ph.short if ph else "-"
        recipients: list[list[str]] = []
        names = sorted(t for t in targets if t in v.powers)
        if broadcast_all:
            recipients = [a for a in games.audience(st, g) if not set(a) & set(self.own_addresses())]
        else:
            for t in sorted(targets):
                if t == "Master":
                    m = games.master_address(st, g)
                    if m:
                        recipients.append([m])
                elif t == "Observers":
                    recipients += [games.seat_addresses(st, s) for s in games.seats(st, g.id, "observer")]
                else:
                    s = games.seat_of_power(st, g.id, t)
                    if s is not None and s["player_id"] is not None and s["status"] != "vacant":
                        recipients.append(games.seat_addresses(st, s))
        to_words = "everyone" if broadcast_all else _join([t for t in sorted(targets)])
        letters = "".join(v.powers[n].letter for n in names) if not broadcast_all else ""
        subject, text = render("press.txt", code=self.ctx.cfg.code, game=g.name, short=short, sender=sender,
                               letter=v.powers[sender].letter if sender in v.powers else "M", grey=grey,
                               broadcast=broadcast_all, to_words=to_words, to_letters=letters, body=cmd.body)
        for to in recipients:
            self.ctx.mail(to, subject, text, game_id=g.id, kind="press")
        st.insert("press", game_id=g.id, phase_name=ph.name if ph else None, sender=sender,
                  recipients=dumps(sorted(targets)), grey=int(grey), broadcast=int(broadcast_all), body=cmd.body,
                  message_id=self.mail.message_id, created=iso(self.ctx.now))
        note = "" if cmd.closed else " (no ENDPRESS: the message ran to the end of your mail)"
        self.say(f"Message sent to {to_words}{' (grey: without your name)' if grey else ''}{note}:\n\n"
                 + "\n".join("  " + l for l in cmd.body.split("\n")))

    def own_addresses(self) -> list[str]:
        return [self.mail.sender, *self.copy_to]

    def press_targets(self, g: Game, tokens: list[str]) -> set[str]:
        v = g.variant
        letters = {p.letter.upper(): p.name for p in v.powers.values()}
        include: set[str] = set()
        exclude: set[str] = set()
        but = False
        for tok in tokens:
            if tok in ("BUT", "EXCEPT"):
                but = True
                continue
            neg = tok.startswith("-")
            tok = tok.lstrip("+-")
            dest = exclude if (but or neg) else include
            if tok == "ALL":
                include.update(v.powers)
                continue
            if tok in ("MASTER", "GM"):
                dest.add("Master")
                continue
            if tok in ("OBSERVERS", "OBSERVER"):
                dest.add("Observers")
                continue
            found = token_powers(v, tok, {"M": "Master", "O": "Observers"})
            if found is None:
                raise CommandError(f"unknown press recipient {tok!r}: use power letters "
                                   f"({''.join(letters)}), power names, M (master), O (observers), ALL")
            dest |= found
        out = include - exclude
        if not out:
            raise CommandError("nobody to send this press to")
        return out

    # -- SET -------------------------------------------------------------------------------------------
    def set_list(self, g: Game, value: str) -> None:
        """The game's mailing list: public reports go there too (with List-* headers)."""
        addr = value.strip().lower()
        if addr in ("none", "off", "-"):
            addr = ""
        if addr and not plausible_address(addr):
            raise CommandError(f"not an email address: {addr!r}")
        if addr == self.ctx.cfg.address:
            raise CommandError("the judge's own address cannot be the game's list")
        self.ctx.store.update("games", g.id, list_address=addr or None)
        self.say(f"Results and public notices of '{g.name}' now also go to {addr}." if addr else
                 f"'{g.name}' has no mailing list now.")

    def vote(self, yes: bool) -> None:
        g, power = self.need_power()
        self.need_phase(g)
        self.ctx.store.update("seats", self.session.seat["id"], draw=int(yes))
        self.say(f"{power} {'votes for' if yes else 'does not vote for'} a draw (votes are reset every phase; "
                 f"a draw needs every surviving power).")
        if yes and games.check_draw(self.ctx, g):
            self.say("Every surviving power has voted for a draw: the game is over.")

    # -- alliances and concessions (1885 II rule 5) --------------------------------------------------------
    def named_powers(self, g: Game, tokens: list[str]) -> set[str]:
        """Powers named by letters run together (``EF``) or by names (``England France``)."""
        v = g.variant
        out: set[str] = set()
        for tok in tokens:
            t = tok.strip(",;.+").upper()
            if t in ("", "WITH", "AND", "TO", "&"):
                continue
            found = token_powers(v, t)
            if found is None:
                letters = "".join(p.letter for p in v.powers.values())
                raise CommandError(f"unknown power {tok!r}: use power letters ({letters}) or names")
            out |= found
        return out

    def alliance_seat(self) -> tuple[Game, str, Any]:
        g, power = self.need_power()
        self.need_phase(g)
        if not games.alliance_sizes(g.variant):
            raise CommandError(f"{g.variant.title} has no alliance victories")
        if self.session.became:
            raise CommandError("only the power's own player may declare or withdraw its alliances")
        return g, power, self.ctx.store.one("SELECT * FROM seats WHERE id = ?", (self.session.seat["id"],))

    def alliance_waiting(self, g: Game, group: list[str]) -> list[str]:
        """Members of ``group`` that have not declared it."""
        st = self.ctx.store
        return [p for p in group if (s := games.seat_of_power(st, g.id, p)) is None or group not in games.seat_alliances(s)]

    def alliance_status(self, g: Game, power: str) -> str:
        seat = self.ctx.store.one("SELECT * FROM seats WHERE id = ?", (self.session.seat["id"],))
        groups = games.seat_alliances(seat)
        if not groups:
            return f"{power} has declared no alliance."
        need = games.alliance_sizes(g.variant)
        lines = [f"{power} has declared:"]
        for group in groups:
            waiting = self.alliance_waiting(g, group)
            state = (f"waiting for {games.join_names(waiting)} to declare it" if waiting else
                     f"in force: {need[len(group)]} centres jointly at the end of a move after which centres "
                     f"change hands win")
            lines.append(f"  {games.join_names(group)} ({state})")
        return "\n".join(lines)

    # -- the master ------------------------------------------------------------------------------------
    # -- the reply ------------------------------------------------------------------------------------
    def order_status(self) -> None:
        s = self.session
        g = s.game
        if g is None or s.power is None or g.state not in ("active", "paused"):
            return
        ph = games.current_phase(self.ctx.store, g)
        if ph is None:
            return
        pos = ph.position
        cur = orderbook.current_orders(self.ctx.store, ph.id, s.power)
        need = orderbook.needed(pos, s.power, g.rules)
        miss = orderbook.missing(pos, s.power, cur, g.rules)
        seat = self.ctx.store.one("SELECT * FROM seats WHERE id = ?", (s.seat["id"],))
        pending = [r["phase_name"] for r in self.ctx.store.all(
            "SELECT phase_name FROM future_orders WHERE game_id = ? AND power = ? AND state = 'pending' ORDER BY id",
            (g.id, s.power))]
        self.say("")
        self.status_section = render_part(
                             "orders_status.txt", game=g.name, power=s.power, kind=describe.PHASE_WORD[pos.phase.kind],
                             title=describe.phase_title(pos.phase), seq=f"{ph.seq:03d}",
                             orders=describe.order_list(pos, s.power, cur, g.rules), need=need, missing=miss,
                             wait=bool(seat["wait"]), draw=bool(seat["draw"]), note=describe.adjustment_note(pos, s.power, g.rules),
                             deadline=self.ctx.when(ph.deadline), grace_end=self.ctx.when(ph.grace_end),
                             left=deadlines.format_left(ph.deadline - self.ctx.now) if ph.deadline else "",
                             paused=g.state == "paused", pending=sorted(set(pending)),
                             default_rule=default_rule(pos, s.power))
        self.say(self.status_section)

    def capped_sections(self) -> list[str]:
        """The reply's sections, cut where they pass MAX_REPLY_CHARS, or where the echo of the
        sender's own lines (``> line`` and the errors about them) passes MAX_ECHO_CHARS: a junk
        mail must not make a reply of megabytes. A note says what was cut; the order status
        (last) is always kept."""
        body, tail = self.sections, []
        if self.status_section is not None and self.status_section in body:
            at = len(body) - 1 - body[::-1].index(self.status_section)
            body, tail = body[:at], body[at:]
        out: list[str] = []
        total = echoed = 0
        for i, sec in enumerate(body):
            echo = sec.startswith(("> ", "*** Error:", "  Warning:"))
            if total + len(sec) > MAX_REPLY_CHARS or echo and echoed + len(sec) > MAX_ECHO_CHARS:
                rest = body[i:]
                cut = sum(len(x) + 1 for x in rest)
                errs = sum(1 for x in rest if x.startswith("*** Error:"))
                out.append(f"[...] (This reply was cut here: {cut} more characters were not shown"
                           f"{f', among them {errs} error lines' if errs else ''}. Everything in your message "
                           f"was read and acted on; send fewer lines at a time to see every answer.)")
                return out + tail
            out.append(sec)
            total += len(sec) + 1
            echoed += (len(sec) + 1) * echo
        return out + tail

    @property
    def signed_on(self) -> bool:
        """This mail proved a password (a seat's, or the master's): it comes from a person."""
        return self.session.seat is not None or self.session.master

    def send_reply(self) -> None:
        if self.signed_on:
            self.closing_note = None  # signed-on answers are not counted against the quota
        elif self.hold_reply:
            return
        if self.closing_note:
            self.say("")
            self.say(self.closing_note)
        s = self.session
        g = s.game
        ph = games.current_phase(self.ctx.store, g) if g is not None else None
        subject, text = render("reply.txt", code=self.ctx.cfg.code, game=g.name if g else None,
                               variant=g.variant.title if g else None, short=ph.short if ph else None,
                               deadline=self.ctx.when(ph.deadline) if ph else None,
                               subject=clean_subject(self.mail.subject, self.ctx.cfg.code), error=self.errors > 0,
                               errors=self.errors,
                               sections=self.capped_sections())
        first = [self.mail.sender] if self.from_only and self.mail.sender else list(self.mail.reply_to)
        to = first + [a for a in self.copy_to if a not in first]
        self.ctx.mail(to, subject, text, game_id=g.id if g else None, kind="reply",
                      in_reply_to=self.mail.reply_id, references=self.mail.references, auto="auto-replied")
        self.replied = bool(to)


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


def echo_line(cmd: Command) -> str:
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
    if keep is not None and len(cmd.args) > keep:
        shown = words[:head + keep] + ["****"] + words[head + keep + hide:]
        words = shown
    line = " ".join(words)
    return line if len(line) <= MAX_ECHO_LINE else line[:MAX_ECHO_LINE] + " [...]"


def token_powers(v: Variant, tok: str, extra: dict[str, str] | None = None) -> set[str] | None:
    """What one upper-case word names: a power by name, or letters run together (``EF``, with
    ``extra`` letters such as M for the master); None if a letter names nobody."""
    p = v.power(tok)
    if p is not None and len(tok) > 1:
        return {p.name}
    letters = (extra or {}) | {p.letter.upper(): p.name for p in v.powers.values()}
    if not tok or any(ch not in letters for ch in tok):
        return None
    return {letters[ch] for ch in tok}


def _join(names: list[str]) -> str:
    names = ["the master" if n == "Master" else "the observers" if n == "Observers" else n for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def victory_text(g: Any) -> str:
    """How the game is won, for LIST: solo centres, alliances (1885 II), the survivor (Deluge II)."""
    v = g.variant.victory
    parts = []
    n = int(g.options.get("centres") or v.get("centres") or 0)
    if n:
        parts.append(f"{n} supply centres")
    parts += [f"{a['centres']} jointly for {a['powers']} allied powers" for a in v.get("alliances", ())]
    if v.get("survivor_after"):
        parts.append(f"the survivor after {v['survivor_after']}")
    return "; ".join(parts) or "by agreement"
