"""Press: messages between the powers, through the judge; and DIARY, the notes a player keeps.

The words after PRESS or BROADCAST are read whole before anything is sent (njudge's and
DPjudge's forms): ``TO list`` or ``+list`` (power letters run together, ``FG``; names, ``France,
Germany`` or ``France and Germany``; M the master, O the observers; ``ALL``), ``TO ALL BUT list``
or ``-list``, ``GREY``
or ``WHITE``, and where the game allows fake press ``FROM x`` (shown as sent by x), ``FAKE
[BROADCAST]`` (shown as sent to everyone) and ``FAKE [PARTIAL] TO [ALL BUT] list``, ``FAKE
+list``, ``FAKE -list`` (shown as sent to those). A word that is none of these refuses the
press: a recipient is never guessed from a word (``FROM`` is not the letters F, R, O, M).
Refused press goes to no one and is quoted back to its writer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from judge.game import lifecycle as games
from judge.game.lifecycle import Game
from judge.game.seats import ANONYMOUS_LABEL, public_label, shown_person
from judge.game.store import dumps, iso
from judge.mail.commands import CommandError, command, token_powers
from judge.mail.language import Command
from judge.orders import parse_orders
from judge.render.templates import PRESS_KEEP, MailText, press_text, render

if TYPE_CHECKING:
    from judge.mail.handler import Handler
    from judge.variant import Variant

MASTER, OBSERVERS = "Master", "Observers"
GREY_WORDS = ("GREY", "GRAY", "ANONYMOUS", "ANONYMOUSLY")
WHITE_WORDS = ("WHITE", "UNANONYMOUS", "UNANONYMOUSLY")
#: the words PRESS takes besides recipient lists (a list is never read from one of these)
PRESS_WORDS = frozenset({"TO", "ALL", "BUT", "EXCEPT", "AND", "&", "FAKE", "NOFAKE", "FROM", "BROADCAST", "PARTIAL",
                         "MASTER", "GM", "OBSERVER", "OBSERVERS", *GREY_WORDS, *WHITE_WORDS})


def _join(names: list[str]) -> str:
    names = ["the master" if n == MASTER else "the observers" if n == OBSERVERS else n for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


@dataclass
class Addressing:
    """What a PRESS line asks for: the real recipients and, for fake press, what readers are shown."""
    include: set[str] = field(default_factory=set)
    exclude: set[str] = field(default_factory=set)
    everyone: bool = False  # TO ALL, or no recipients on BROADCAST
    grey: bool | None = None  # GREY / WHITE written (None: the game's default)
    fake: bool = False  # any fake was asked for
    fake_include: set[str] = field(default_factory=set)
    fake_exclude: set[str] = field(default_factory=set)
    fake_everyone: bool = False
    fake_from: str | None = None


def read_addressing(g: Game, words: list[str]) -> Addressing:
    """The PRESS/BROADCAST line's words, read whole; CommandError names the first word not understood."""
    v = g.variant
    letters = "".join(p.letter for p in v.powers.values())
    # words, with list commas split off ("TO France, Germany" = "TO France Germany")
    toks = [t for w in words for t in w.replace(";", ",").split(",") if t.strip(".:")]
    a = Addressing()
    target = "real"  # whose list the next list words fill: "real" or "fake"
    but = False  # after ALL BUT: the list words exclude
    listing = True  # a list may start here (PRESS FG, as well as PRESS TO FG)
    i = 0

    def bad(tok: str, why: str = "") -> CommandError:
        return CommandError(
            f"the press line has a word the judge does not understand: {tok!r}{why}. Recipients are power letters "
            f"run together ({letters}), power names, M (master), O (observers), ALL, ALL BUT <list> or -<list>; "
            f"also GREY, WHITE, and where the game allows fake press FROM <power>, FAKE BROADCAST, "
            f"FAKE TO <list>")

    while i < len(toks):
        raw = toks[i].strip(".:")
        w = raw.upper()
        i += 1
        if w in GREY_WORDS or w in WHITE_WORDS:
            a.grey = w in GREY_WORDS
            listing = False
        elif w == "TO":
            listing, but = True, False
            if i < len(toks) and toks[i].upper() == "ALL":
                i += 1
                if i < len(toks) and toks[i].upper() in ("BUT", "EXCEPT"):
                    i += 1
                    but = True
                    _everyone(a, target)
                else:
                    _everyone(a, target)
                    listing = False
        elif w == "ALL" and listing:
            if i < len(toks) and toks[i].upper() in ("BUT", "EXCEPT"):
                i += 1
                but = True
            else:
                listing = False
            _everyone(a, target)
        elif w in ("AND", "&") and listing and i > 1:  # "TO France and Germany"
            continue
        elif w in ("BUT", "EXCEPT") and listing:
            but = True
            _everyone(a, target)
        elif w == "NOFAKE":
            a.fake, a.fake_everyone, a.fake_from = False, False, None
            a.fake_include.clear()
            a.fake_exclude.clear()
            target, listing = "real", False
        elif w == "FAKE":
            a.fake, target, but = True, "fake", False
            nxt = toks[i].upper() if i < len(toks) else ""
            if nxt == "PARTIAL":
                i += 1
                nxt = toks[i].upper() if i < len(toks) else ""
            if nxt in ("", "BROADCAST") or nxt in GREY_WORDS or nxt in WHITE_WORDS:
                if nxt == "BROADCAST":
                    i += 1
                a.fake_everyone = True  # PRESS TO FRG FAKE [BROADCAST]
                target, listing = "real", False
            elif nxt == "FROM":
                listing = False  # FAKE FROM x: read by FROM next
            elif nxt == "TO" or nxt.startswith(("+", "-")):
                listing = True
            else:
                raise bad(toks[i], " after FAKE")
        elif w == "BROADCAST" and target == "fake":
            a.fake_everyone, target, listing = True, "real", False
        elif w == "FROM":
            if i >= len(toks):
                raise CommandError("FROM needs the power the press is to be shown as sent by, e.g. PRESS TO F FROM G")
            who = token_powers(v, toks[i].strip(".:").upper())
            if who is None or len(who) != 1:
                raise bad(toks[i], " after FROM (one power: its letter or name)")
            a.fake, a.fake_from = True, next(iter(who))
            i += 1
            target, listing = "real", False
        else:
            neg = raw.startswith("-")
            if raw.startswith(("+", "-")):
                w = w[1:]
                listing = True
            if not listing or not w:
                raise bad(raw)
            found = _recipients(v, w)
            if found is None:
                raise bad(raw)
            if neg and not but:
                _everyone(a, target)
            dest = (a.fake_exclude if target == "fake" else a.exclude) if (but or neg) else \
                (a.fake_include if target == "fake" else a.include)
            dest |= found
    return a


def _everyone(a: Addressing, target: str) -> None:
    if target == "fake":
        a.fake_everyone = True
    else:
        a.everyone = True


def _recipients(v: Variant, w: str) -> set[str] | None:
    if w in ("MASTER", "GM"):
        return {MASTER}
    if w in ("OBSERVER", "OBSERVERS"):
        return {OBSERVERS}
    if w in PRESS_WORDS:
        return None
    return token_powers(v, w, {"M": MASTER, "O": OBSERVERS})


def resolve(v_powers: list[str], include: set[str], exclude: set[str], everyone: bool) -> set[str]:
    """The recipients a list names: ALL is every power, the master and the observers."""
    base = (set(v_powers) | {MASTER, OBSERVERS}) if everyone or (exclude and not include) else set()
    return (base | include) - exclude


# -- press ---------------------------------------------------------------------------------------
def send_press(h: Handler, cmd: Command, broadcast: bool) -> None:
    g = h.need_game()
    st = h.ctx.store
    v = g.variant
    observer = False
    if h.session.master:
        sender = MASTER
    elif h.session.power:
        sender = h.session.power
    elif h.session.seat is not None and h.session.seat["role"] == "observer":
        sender, observer = "Observer", True
    elif h.session.seat is not None:
        raise CommandError("powers are not assigned yet: press starts with the game (the master may BROADCAST)")
    else:
        raise CommandError("sign on to the game to send press")
    if not cmd.body.strip():
        raise CommandError("the press message is empty")
    a = read_addressing(g, cmd.args)
    all_powers = list(v.powers)
    if (broadcast or a.fake) and not (a.include or a.exclude or a.everyone):
        a.everyone = True  # njudge: fake press without real recipients is a broadcast (PRESS FAKE TO FRG)
    if not (a.include or a.exclude or a.everyone):
        raise CommandError("PRESS needs recipients: PRESS TO <powers> (e.g. PRESS TO FG), or use BROADCAST")
    targets = resolve(all_powers, a.include, a.exclude, a.everyone)
    broadcast_all = a.everyone and not a.exclude
    if broadcast_all:
        targets = set(all_powers) | {MASTER, OBSERVERS}
    targets.discard(sender)
    if not targets:
        raise CommandError("nobody to send this press to")
    master_only = targets == {MASTER}
    grey = bool(a.grey)
    mode = g.press
    white_only = mode == "white" or observer and games.switch(g, "observer_press") == "white"
    if sender != MASTER and not master_only:
        if mode == "none":
            raise CommandError(f"game '{g.name}' does not allow press (except to the master)")
        if observer and games.switch(g, "observer_press") == "none":
            raise CommandError(f"game '{g.name}' does not allow press from observers (except to the master)")
        if grey and white_only:
            raise CommandError(f"game '{g.name}' allows only white press" + (" from observers" if observer else ""))
        if mode == "grey" and not white_only:
            if a.grey is False:
                raise CommandError(f"game '{g.name}' allows only grey press: leave out WHITE")
            grey = True
    ph = games.current_phase(st, g)
    if (sender != MASTER and not master_only and ph is not None and ph.phase.kind in ("retreat", "adjustment")
            and games.switch(g, "minor_press") == "no" and g.state == "active"):
        raise CommandError(f"game '{g.name}' allows no press in retreat and adjustment phases (except to the "
                           f"master); send it in the next movement phase")
    shown_from, shown_to, shown_broadcast = sender, targets, broadcast_all
    if a.fake:
        if games.switch(g, "fake") != "yes":
            raise CommandError(f"game '{g.name}' does not allow fake press (FROM, FAKE): the master sets it "
                               f"with SET FAKE yes before the start")
        if sender == MASTER or MASTER in a.include or observer:  # (the master's copy of a broadcast says the truth)
            raise CommandError("press to or from the master (or from an observer) is never faked")
        if a.fake_from is not None:
            if grey:
                raise CommandError("press shown as sent by another power cannot also be grey: leave out GREY or FROM")
            shown_from = a.fake_from
        if a.fake_everyone or a.fake_include or a.fake_exclude:
            shown_to = resolve(all_powers, a.fake_include, a.fake_exclude, a.fake_everyone)
            shown_broadcast = a.fake_everyone and not a.fake_exclude
            if MASTER in shown_to and not (a.fake_everyone and not a.fake_exclude):
                raise CommandError("press is never shown as sent to the master")
            shown_to.discard(shown_from)
            if not shown_to:
                raise CommandError("the press would be shown as sent to nobody")
    if g.state in ("finished", "terminated") and not broadcast_all:
        raise CommandError(f"game '{g.name}' is over")
    if g.state == "forming" and not broadcast_all and not master_only:
        raise CommandError("powers are not assigned yet: only BROADCAST is possible")
    if sender == MASTER or master_only:
        grey = False
    if not cmd.closed and ph is not None and sender in v.powers:
        own = orders_in(cmd.body, ph, sender)
        if own:
            raise CommandError(
                f"this message has no ENDPRESS, so it ran to the end of your mail, and {len(own)} of its lines "
                f"read as orders for your own units ({'; '.join(own[:3])}{'; ...' if len(own) > 3 else ''}): it was "
                f"not sent, so your orders go to nobody, and those lines were not read as orders either. Put "
                f"ENDPRESS after the message and send again")
    deliver(h, g, sender, targets, broadcast_all, grey, cmd.body, shown_from, shown_to, shown_broadcast,
            label=public_label(st, g, h.session.seat) if observer else None)
    note = "" if cmd.closed else " (no ENDPRESS: the message ran to the end of your mail)"
    shown = []
    if shown_from != sender:
        shown.append(f"shown as sent by {shown_from}")
    if shown_to != targets:
        shown.append(f"shown as sent to {'everyone' if shown_broadcast else _join(sorted(shown_to))}")
    to_words = "everyone" if broadcast_all else _join(sorted(targets))
    h.say(f"Message sent to {to_words}{' (grey: without your name)' if grey else ''}"
          f"{' (' + '; '.join(shown) + ')' if shown else ''}{note}:\n\n"
          + "\n".join("  " + line for line in cmd.body.split("\n")))


def orders_in(body: str, ph: games.PhaseRow, power: str) -> list[str]:
    """The lines of a press body that read as orders for ``power``'s own units: a letter left open
    (no ENDPRESS) that swallowed the orders under it would otherwise mail them to other powers."""
    try:
        parsed = parse_orders(body, ph.position, power, warn=False)
    except ValueError:
        return []
    return list(dict.fromkeys(p.source.strip() for p in parsed if p.order is not None and p.power == power))


def deliver(h: Handler, g: Game, sender: str, targets: set[str], broadcast_all: bool, grey: bool, body: str,
            shown_from: str, shown_to: set[str], shown_broadcast: bool, label: str | None = None) -> None:
    """Mail the press to its recipients and keep it; the master's copy of faked press says what is true."""
    st = h.ctx.store
    v = g.variant
    ph = games.current_phase(st, g)
    short = ph.short if ph else "-"
    master = games.master_address(st, g)
    recipients: list[list[str]] = []
    if broadcast_all:
        recipients = [a for a in games.audience(st, g) if not set(a) & set(own_addresses(h))]
    else:
        for t in sorted(targets):
            if t == MASTER:
                if master:
                    recipients.append([master])
            elif t == OBSERVERS:
                recipients += [games.seat_addresses(st, s) for s in games.seats(st, g.id, "observer")
                               if s["player_id"] is not None and not set(games.seat_addresses(st, s)) & set(own_addresses(h))]
            else:
                s = games.seat_of_power(st, g.id, t)
                if s is not None and s["player_id"] is not None and s["status"] != "vacant":
                    recipients.append(games.seat_addresses(st, s))
    names = sorted(t for t in shown_to if t in v.powers)
    faked = shown_from != sender or shown_to != targets
    who = sender if label is None else f"an observer ({label})"

    def text(truth: str) -> tuple[str, MailText]:
        return render("press.txt", width=PRESS_KEEP, code=h.ctx.cfg.code, game=g.name, short=short, sender=who if not faked else shown_from,
                      letter=v.powers[shown_from].letter if shown_from in v.powers else ("O" if label else "M"),
                      grey=grey, broadcast=shown_broadcast,
                      to_words="everyone" if shown_broadcast else _join(sorted(shown_to)),
                      to_letters="" if shown_broadcast else "".join(v.powers[n].letter for n in names), body=press_text(body),
                      html_body=body,
                      truth=truth)

    subject, plain = text("")
    for to in recipients:
        if faked and to == [master]:
            real_to = "everyone" if broadcast_all else _join(sorted(targets))
            m_subject, m_text = text(f"[Faked press: really from {sender} to {real_to}.]")
            h.ctx.mail(to, m_subject, m_text, game_id=g.id, kind="press")
        elif to == [master] and label == ANONYMOUS_LABEL:  # the master of an anonymous game sees who wrote
            m_subject, m_text = text(f"[From the observer {shown_person(st, g, h.session.seat, master=True)}; "
                                     f"the others are not told who.]")
            h.ctx.mail(to, m_subject, m_text, game_id=g.id, kind="press")
        else:
            h.ctx.mail(to, subject, plain, game_id=g.id, kind="press")
    st.insert("press", game_id=g.id, phase_name=ph.name if ph else None, sender=sender,
              recipients=dumps(sorted(targets)), grey=int(grey), broadcast=int(broadcast_all), body=body,
              message_id=h.mail.message_id, created=iso(h.ctx.now),
              shown_from=shown_from if shown_from != sender else None,
              shown_to=dumps(sorted(shown_to)) if shown_to != targets else None)


def own_addresses(h: Handler) -> list[str]:
    return [h.mail.sender, *h.copy_to]


def refused(h: Handler, cmd: Command, exc: CommandError) -> None:
    """A press that cannot go: the reason, and the text quoted back; nothing was sent."""
    h.error(f"{str(exc).rstrip('.')}. Nothing was sent: nobody received this press.")
    if cmd.body.strip():
        h.say("Your message, not sent:\n\n" + "\n".join("  " + line for line in cmd.body.split("\n")))


@command("PRESS", who="player", syntax="PRESS TO <powers> ... ENDPRESS",
         summary="e.g. PRESS TO FG, PRESS TO England, France, PRESS TO -R (all but Russia), PRESS TO ALL BUT RT; "
                 "M master, O observers; GREY for no name; FROM G, FAKE BROADCAST, FAKE TO <list> where the game "
                 "allows fake press", example="PRESS TO EF\nShall we talk about Belgium?\nENDPRESS")
def press(h: Handler, cmd: Command) -> None:
    try:
        send_press(h, cmd, broadcast=False)
    except CommandError as exc:
        refused(h, cmd, exc)


@command("BROADCAST", who="player", syntax="BROADCAST [options] ... ENDPRESS",
         summary="to everyone (with options, as PRESS: BROADCAST FROM G where the game allows fake press)", example="BROADCAST\nGreetings from Paris.\nENDPRESS")
def broadcast(h: Handler, cmd: Command) -> None:
    try:
        send_press(h, cmd, broadcast=True)
    except CommandError as exc:
        refused(h, cmd, exc)


@command("ENDPRESS", who="player", syntax="ENDPRESS",
         summary="ends a PRESS, BROADCAST or DIARY (so does the end of the message)",
         aliases=("END PRESS", "ENDBROADCAST", "END BROADCAST", "ENDDIARY", "END DIARY"), example="ENDPRESS")
def endpress(h: Handler, cmd: Command) -> None:
    raise CommandError("ENDPRESS without PRESS, BROADCAST or DIARY")


# -- diary -----------------------------------------------------------------------------------------
#: a diary is mailed to everyone at the end: one note, and one power's diary, are kept this short
#: (njudge's "Limit Diary mail-bombing")
DIARY_NOTE_CHARS, DIARY_CHARS = 10_000, 50_000


@command("DIARY", who="player", syntax="DIARY ... ENDPRESS; DIARY LIST; DIARY READ n; DIARY DELETE n",
         summary="a private note kept with the game: sent back to you with HISTORY, published to everyone when "
                 "the game ends", example="DIARY\nPlan: Munich by 1903.\nENDPRESS")
def diary(h: Handler, cmd: Command) -> None:
    g, power = h.need_power()
    st = h.ctx.store
    if h.session.became:
        raise CommandError("a diary is its player's own: the master cannot write in it")
    word = cmd.args[0].upper() if cmd.args else "RECORD"
    mine = games.diary_entries(st, g, power)
    if word == "RECORD":
        if len(cmd.args) > 1:
            raise CommandError("DIARY RECORD takes no more words: write the note on the lines below it, "
                               "ended by ENDPRESS")
        if not cmd.body.strip():
            raise CommandError("the diary note is empty: write it on the lines after DIARY, ended by ENDPRESS")
        if g.state in ("finished", "terminated"):
            raise CommandError(f"game '{g.name}' is over: its diaries are published")
        kept = sum(len(e["body"]) for e in mine)
        if len(cmd.body) > DIARY_NOTE_CHARS or kept + len(cmd.body) > DIARY_CHARS:
            raise CommandError(f"a diary note has at most {DIARY_NOTE_CHARS} characters and a diary at most "
                               f"{DIARY_CHARS} (yours has {kept}; this note {len(cmd.body)}): the note was not kept")
        ph = games.current_phase(st, g)
        st.insert("diary", game_id=g.id, power=power, phase_name=ph.name if ph else None, body=cmd.body,
                  message_id=h.mail.message_id, created=iso(h.ctx.now))
        note = "" if cmd.closed else " (no ENDPRESS: the note ran to the end of your mail)"
        h.say(f"Diary note {len(mine) + 1} kept for {power}{note}. Nobody else reads it until the game ends, "
              f"when every diary is published.")
        return
    if word == "LIST":
        h.say(f"{power}'s diary: {len(mine)} note(s)." + ("\n\n" + games.diary_text(mine) if mine else ""))
        return
    if word in ("READ", "DELETE"):
        if len(cmd.args) != 2 or not cmd.args[1].isdigit() or not 1 <= int(cmd.args[1]) <= len(mine):
            raise CommandError(f"write DIARY {word} <n>, n from 1 to {len(mine)} (DIARY LIST shows them)"
                               if mine else f"{power}'s diary has no notes")
        entry = mine[int(cmd.args[1]) - 1]
        if word == "READ":
            h.say(f"{power}'s diary, note {cmd.args[1]}:\n\n" + games.diary_text([entry]))
            return
        if g.state in ("finished", "terminated"):
            raise CommandError(f"game '{g.name}' is over: its diaries are published")
        st.conn.execute("DELETE FROM diary WHERE id = ?", (entry["id"],))
        h.say(f"Diary note {cmd.args[1]} deleted.")
        return
    raise CommandError(f"DIARY takes RECORD (or nothing), LIST, READ n or DELETE n, not {cmd.args[0]!r}")
