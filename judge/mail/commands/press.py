"""Press: messages between the powers, through the judge."""

from __future__ import annotations

from typing import TYPE_CHECKING

from judge.game import lifecycle as games
from judge.game.lifecycle import Game
from judge.game.store import dumps, iso
from judge.mail.commands import CommandError, command, token_powers
from judge.mail.language import Command
from judge.render.templates import render

if TYPE_CHECKING:
    from judge.mail.handler import Handler


def _join(names: list[str]) -> str:
    names = ["the master" if n == "Master" else "the observers" if n == "Observers" else n for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


# -- press ---------------------------------------------------------------------------------------
def send_press(h: Handler, cmd: Command, broadcast: bool) -> None:
    g = h.need_game()
    st = h.ctx.store
    v = g.variant
    if h.session.master:
        sender = "Master"
    elif h.session.power:
        sender = h.session.power
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
        targets = press_targets(h, g, to_tokens)
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
        recipients = [a for a in games.audience(st, g) if not set(a) & set(own_addresses(h))]
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
    subject, text = render("press.txt", code=h.ctx.cfg.code, game=g.name, short=short, sender=sender,
                           letter=v.powers[sender].letter if sender in v.powers else "M", grey=grey,
                           broadcast=broadcast_all, to_words=to_words, to_letters=letters, body=cmd.body)
    for to in recipients:
        h.ctx.mail(to, subject, text, game_id=g.id, kind="press")
    st.insert("press", game_id=g.id, phase_name=ph.name if ph else None, sender=sender,
              recipients=dumps(sorted(targets)), grey=int(grey), broadcast=int(broadcast_all), body=cmd.body,
              message_id=h.mail.message_id, created=iso(h.ctx.now))
    note = "" if cmd.closed else " (no ENDPRESS: the message ran to the end of your mail)"
    h.say(f"Message sent to {to_words}{' (grey: without your name)' if grey else ''}{note}:\n\n"
             + "\n".join("  " + l for l in cmd.body.split("\n")))


def own_addresses(h: Handler) -> list[str]:
    return [h.mail.sender, *h.copy_to]


def press_targets(h: Handler, g: Game, tokens: list[str]) -> set[str]:
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


@command("PRESS", who="player", syntax="PRESS TO <powers> ... ENDPRESS",
         summary="e.g. PRESS TO FG (letters, names, M, O, ALL, ALL BUT R); add GREY for no name")
def press(h: Handler, cmd: Command) -> None:
    send_press(h, cmd, broadcast=False)


@command("BROADCAST", who="player", syntax="BROADCAST ... ENDPRESS",
         summary="to everyone")
def broadcast(h: Handler, cmd: Command) -> None:
    send_press(h, cmd, broadcast=True)


@command("ENDPRESS", who="player", syntax="ENDPRESS",
         summary="ends a PRESS or BROADCAST (so does the end of the message)",
         aliases=("END PRESS", "ENDBROADCAST", "END BROADCAST"))
def endpress(h: Handler, cmd: Command) -> None:
    raise CommandError("ENDPRESS without PRESS or BROADCAST")
