"""SET: a seat's own settings, and (the master's) the game's."""

from __future__ import annotations

from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.game import deadlines, lifecycle as games, results
from judge.game.lifecycle import Game
from judge.game.passwords import check_new_password, hash_password
from judge.game.store import dumps
from judge.mail import confirm
from judge.mail.commands import CommandError, REGISTRY, command
from judge.mail.commands import absence as absence_cmds
from judge.mail.commands.votes import vote
from judge.game.addresses import canonical_address
from judge.mail.language import Command
from judge.rules import RULE_SWITCHES

if TYPE_CHECKING:
    from judge.mail.handler import Handler


# -- SET -------------------------------------------------------------------------------------------
def set_results(h: Handler, value: str) -> None:
    """SET RESULTS: the master's sets the game's layout; a player's or observer's, their own."""
    g = h.need_game()
    if h.session.master and (h.session.seat is None or h.session.became):
        player_id = None
    elif h.session.seat is not None and not h.session.became and h.session.seat["player_id"] is not None:
        player_id = int(h.session.seat["player_id"])
    else:
        raise CommandError("sign on with your own seat (or as the master) to choose how results come")
    try:
        note = results.set_layout(g, value, player_id)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    games.save_options(h.ctx, g)
    h.say(note)


def set_list(h: Handler, g: Game, value: str) -> None:
    """The game's mailing list: public reports go there too (with List-* headers)."""
    addr = value.strip().lower()
    if addr in ("none", "off", "-"):
        addr = ""
    if addr:
        addr = canonical_address(addr) or ""
        if not addr:
            raise CommandError(f"not an email address: {value.strip()!r}")
    if addr == h.ctx.cfg.address:
        raise CommandError("the judge's own address cannot be the game's list")
    h.ctx.store.update("games", g.id, list_address=addr or None)
    g.list_address = addr or None
    h.say(f"Results and public notices of '{g.name}' now also go to {addr}." if addr else
             f"'{g.name}' has no mailing list now.")


#: SET ADDRESS: a seat's mail goes to at most this many addresses (no fan-out through the judge)
MAX_SEAT_ADDRESSES = 3


#: SET words, as "unknown SET option" lists them
PLAYER_SET_KEYS = ("WAIT", "NOWAIT", "PREFERENCE", "DRAW", "NODRAW", "PASSWORD", "ADDRESS", "NAME", "ALLY", "NOALLY",
                   "CONCEDE", "NOCONCEDE", "RESULTS", "ABSENCE")
MASTER_SET_KEYS = ("DEADLINE", "GRACE", "PRIVATE", "JOIN", "MOVE", "RETREAT", "ADJUST", "CLOCK", "DAYS", "START", "REMIND",
                   "TIMEZONE", "PRESS", "CENTRES", "LIST", "NOLIST", "MAP", "MAX ABSENCE", "PAUSE VOTE")
#: every word the master's SET takes: its own (DEADLINE, LIST) and each game option the game takes
MASTER_SET_WORDS = frozenset({*MASTER_SET_KEYS, *(w.upper() for w in games.OPTION_WORDS)})

#: the game switches' njudge words that carry their value (the master's, before the start)
SWITCH_FLAGS = {"DIAS": ("dias", "yes"), "NODIAS": ("dias", "no"), "FAKE": ("fake", "yes"), "NOFAKE": ("fake", "no"),
                "MINORPRESS": ("minor_press", "yes"), "NOMINORPRESS": ("minor_press", "no"),
                "NOCONCESSIONS": ("concessions", "none"), "GUNBOAT": ("anonymous", "yes"),
                "NONMR": ("nmr", "wait")}

#: SET words that stand for a command of their own (njudge: SET CONCEDE p)
SET_ALIASES = {"ALLY": "ALLY", "ALLIES": "ALLY", "ALLIANCE": "ALLY", "NOALLY": "NOALLY", "NOALLIES": "NOALLY",
               "NOALLIANCE": "NOALLY", "CONCEDE": "CONCEDE", "NOCONCEDE": "NOCONCEDE"}


def read_preferences(g: Game, text: str) -> list[str]:
    """``EFG``, ``E F G``, ``England, France``: powers in order of preference (``*``: none)."""
    t = text.strip()
    if t.upper() in ("*", "NONE", "OFF", ""):
        return []
    sep = "," if "," in t else ";" if ";" in t else None  # names may hold spaces where commas part them
    words = [w.strip() for w in (t.split(sep) if sep else t.split()) if w.strip()]
    if len(words) == 1 and g.variant.power(words[0]) is None:
        words = list(words[0])  # letters run together: EFG
    out: list[str] = []
    for w in words:
        p = g.variant.power(w)
        if p is None:
            raise CommandError(f"no power {w!r} in {g.variant.title} (powers: "
                               + ", ".join(f"{q.name} ({q.letter})" for q in g.variant.powers.values()) + ")")
        if p.name in out:
            raise CommandError(f"{p.name} is named twice")
        out.append(p.name)
    return out


def set_preference(h: Handler, g: Game, text: str) -> None:
    """SET PREFERENCE: the powers a player joining a forming game would rather have, in order."""
    seat = h.session.seat
    if seat is None or h.session.became or seat["role"] != "player":
        raise CommandError("sign on with SIGNON ?game password (a place in a forming game) to give preferences")
    if g.state != "forming":
        raise CommandError(f"'{g.name}' has started: powers are assigned already")
    prefs = read_preferences(g, text)
    book = g.options.setdefault("preferences", {})
    if prefs:
        book[str(seat["id"])] = prefs
    else:
        book.pop(str(seat["id"]), None)
    games.save_options(h.ctx, g)
    h.say(f"Your preferences: {', '.join(prefs)} (the rest: any)." if prefs else "You have no preferences now: any power.")


def set_access(h: Handler, g: Game, key: str, rest: list[str]) -> None:
    """SET PRIVATE yes|no: left out of everyone's LIST of games. SET JOIN PASSWORD x|NONE: joining
    (SIGNON ?game pw x) needs x, the invitation (kept hashed, like every password)."""
    if key == "PRIVATE":
        v = games.YES_NO.get(" ".join(rest).strip().lower() or "yes")
        if v is None:
            raise CommandError("write SET PRIVATE YES or SET PRIVATE NO")
        g.options["private"] = v == "yes"
        h.say(f"'{g.name}' is now left out of the list of games." if v == "yes" else
              f"'{g.name}' is listed again.")
    else:
        if len(rest) != 2 or rest[0].upper() != "PASSWORD":
            raise CommandError("write SET JOIN PASSWORD <word> (SET JOIN PASSWORD NONE: anyone may join)")
        if rest[1].upper() == "NONE":
            g.options.pop("join_hash", None)
            h.say(f"Anyone may join '{g.name}' now.")
        else:
            g.options["join_hash"] = hash_password(check_new_password(rest[1]), h.ctx.cfg.password_cost)
            h.say(f"Joining '{g.name}' now needs the join password: players write SIGNON ?{g.name} "
                  "<their own password> <the join password>.")
    games.save_options(h.ctx, g)


#: the master's timing words besides the phase lengths
TIMING_KEYS = ("CLOCK", "DAYS", "START", "REMIND", "TIMEZONE")


def set_timing(h: Handler, g: Game, key: str, rest: list[str]) -> None:
    """SET [MOVE|RETREAT|ADJUST] CLOCK 20:00 / DAYS -MTWTF-, SET START <when>, SET REMIND <hours>
    [BEFORE], SET TIMEZONE <zone>. The clock and days apply to the deadlines of phases opened from
    now on; SET DEADLINE moves the current one."""
    kinds = ("movement", "retreat", "adjustment")
    if key not in TIMING_KEYS:  # SET MOVE CLOCK 20:00
        kinds, key, rest = (games.PHASE_KIND_WORDS[key.lower()],), rest[0].upper(), rest[1:]
    value = " ".join(rest).strip()
    if not value:
        raise CommandError(f"SET {key} needs a value")
    which = "every phase" if len(kinds) > 1 else f"{kinds[0]} phases"
    zone_name = games.game_zone(h.ctx, g)
    if key == "CLOCK":
        minutes = deadlines.parse_clock(value)
        for k in kinds:
            g.options.setdefault("clock", {})[k] = minutes
        read = f"Read {value} as njudge's minutes after midnight. " if value.isdigit() else ""
        h.say(f"{read}Deadlines of {which} now fall at {minutes // 60:02d}:{minutes % 60:02d} ({zone_name}), from "
              "the next phase on." if minutes is not None else f"Deadlines of {which} are no longer set to a clock time.")
    elif key == "DAYS":
        mask = deadlines.check_days(value)
        for k in kinds:
            g.options.setdefault("days", {})[k] = mask
        names = [n for n, c in zip(("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"), mask) if c != "-"]
        h.say(f"Deadlines of {which} now fall only on {', '.join(names)} (days {mask}), from the next phase on.")
    elif key == "START":
        if g.state != "forming":
            raise CommandError(f"'{g.name}' has started already: SET START is for a game still forming")
        when = deadlines.parse_when(value, h.ctx.now, zone_name)
        if when <= h.ctx.now:
            raise CommandError(f"the start must be in the future (now: {h.ctx.when(h.ctx.now)})")
        g.options["start"] = when.isoformat()
        h.say(f"Read '{value}' as {deadlines.format_time(when, zone_name)}.\nThe first phase of '{g.name}' runs "
              "its full length from then, however early the game fills.")
    elif key == "REMIND":
        words = value.split()
        if words[-1].lower() == "before":
            words = words[:-1]
        hours = 0.0 if words and words[0].lower() in ("off", "no", "none") else \
            deadlines.parse_duration(" ".join(words))
        g.options["remind_hours"] = hours
        h.say(f"Reminders now go {deadlines.format_hours(hours)} before each deadline to powers without complete "
              "orders." if hours else "No reminders are sent before deadlines now.")
        ph = games.current_phase(h.ctx.store, g)
        if ph is not None and g.state == "active":
            games.schedule_phase(h.ctx, g, ph)
    else:  # TIMEZONE
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise CommandError(f"unknown time zone {value!r} (write e.g. Europe/London, America/New_York or UTC)") from None
        g.options["timezone"] = value
        h.say(f"Dates for '{g.name}' are now read in, and its clock runs in, {value}.")
    games.save_options(h.ctx, g)


@command("SET", who="player", syntax="SET <word> <value>",
         summary='a setting of your seat or, for the master, of the game: the SET lines here and in the master\'s list',
         forms=(
             ("anyone", "SET NAME your name", "after SIGNON: how the reports name you (empty: your mailbox name), once you CONFIRM it from your address", "SET NAME Ann Smith"),
             ('player', 'SET WAIT / SET NOWAIT', "hold processing until the deadline / don't", "SET NOWAIT"),
             ("player", "SET PREFERENCE EFG / England, France", "(while the game forms) the powers you would rather have, best first; * for none", "SET PREFERENCE England, France"),
             ("player", "SET DRAW [powers] / SET NODRAW", "vote for a draw (NoDIAS games: of the powers named, e.g. SET DRAW EF) / take it back", "SET DRAW EF"),
             ("player", "SET CONCEDE <power> / SET NOCONCEDE", "concede the game / take it back", "SET CONCEDE France"),
             ("player", "SET PASSWORD new", "change your password", "SET PASSWORD n3w-secret"),
             ("player", "SET ADDRESS a@b.c[,d@e.f]", "where your mail goes (empty: your own address)", "SET ADDRESS ann@work.example.org"),
             ("master", "SET DEADLINE <when>", "e.g. SET DEADLINE +2d, Mar 5 23:30, tue 20:00, next friday, tomorrow 18:00 or 2025-06-15 23:30 (the game's zone)", "SET DEADLINE tue 20:00"),
             ("master", "SET [MOVE|RETREAT|ADJUST] CLOCK 20:00", "deadlines fall at this time of day (OFF: none)", "SET MOVE CLOCK 20:00"),
             ("master", "SET [MOVE|RETREAT|ADJUST] DAYS -MTWTF-", "the days deadlines may fall on, from Sunday (- : never)", "SET DAYS -MTWTF-"),
             ("master", "SET START <when>", "(before the start) the first phase runs its full length from then", "SET START 2026-12-05 20:00"),
             ("master", "SET REMIND <hours> BEFORE", "when reminders go to powers without complete orders (OFF: none)", "SET REMIND 12h BEFORE"),
             ("master", "SET TIMEZONE <zone>", "the zone dates are read in and the clock runs in, e.g. Europe/London", "SET TIMEZONE Europe/London"),
             ("master", "SET GRACE <duration>", "e.g. SET GRACE 24h", "SET GRACE 12h"),
             ("master", "SET MOVE|RETREAT|ADJUST <duration>", "phase lengths, e.g. SET MOVE 48h", "SET MOVE 72h"),
             ("master", "SET MAX ABSENCE <days>", "days of absence each player may take in the game, all "
              "absences together (default 14)", "SET MAX ABSENCE 21"),
             ("master", "SET PAUSE VOTE yes|no", "whether a PAUSE REQUEST of every player pauses the game "
              "(default no: you decide)", "SET PAUSE VOTE yes"),
             ("master", "SET PRIVATE yes|no", "leave the game out of everyone's LIST of games", "SET PRIVATE yes"),
             ("master", "SET JOIN PASSWORD <word>|NONE", "joining needs this word: SIGNON ?game password <word>", "SET JOIN PASSWORD tuesday-club"),
             ("master", "SET LIST address", "also send results and public notices to this mailing list (SET NO LIST: stop)", "SET LIST diplomacy@lists.example.org"),
             ("player", "SET RESULTS NJUDGE|ZINE|DEFAULT", "your results (an observer's too) in njudge's text layout, for programs that read it, as the zine report, or in the game's layout", "SET RESULTS NJUDGE"),
             ("master", "SET RESULTS NJUDGE|ZINE", "the game's results layout: njudge's text layout or the zine report (default)", "SET RESULTS ZINE"),
             ("master", "SET ABANDON n", "a power whose player sends no orders for n phases in a row (default 2) is opened for takeover and announced, also to the standby list", "SET ABANDON 3"),
             ("master", "SET NMR cd|wait", "a power without orders at the end of grace: civil disorder (default), or opened for takeover while the game waits for its new player (SET NONMR)", "SET NMR wait"),
             ("master", "SET MAP PNG|SVG|BOTH|LINK|OFF", "the map in results: a small PNG (default), SVG, both, a link to the archive, or none", "SET MAP SVG"),
             ("master", "SET PRESS white|grey|any|none, SET CENTRES n, SET <rule> <value>", "(before the start; 1885 II: SET CALENDAR build_months for eight moves a year)", "SET PRESS grey"),
             ("master", "SET FAKE yes|no", "(before the start) fake press: PRESS TO F FROM G, PRESS TO F FAKE BROADCAST, FAKE TO list; off by default", "SET FAKE yes"),
             ("master", "SET OBSERVER none|white|any", "(before the start) what observers may send (to the master: always); default none", "SET OBSERVER white"),
             ("master", "SET MINOR_PRESS yes|no", "(before the start) press in retreat and adjustment phases (SET NOMINORPRESS: none but to the master)", "SET MINOR_PRESS no"),
             ("master", "SET DIAS yes|no", "(before the start) draws include all survivors (default); SET NODIAS: draws of the powers the votes name", "SET DIAS no"),
             ("master", "SET DRAW_VOTES secret|public", "(before the start) whether everyone sees the draw and concession votes (the master always does)", "SET DRAW_VOTES public"),
             ("master", "SET CONCESSIONS largest|any|none", "(before the start) concede to the largest power only (default), to any power (1885 II's default: or an alliance), or not at all", "SET CONCESSIONS none"),
             ("master", "SET ANONYMOUS yes|no", "(before the start; SET GUNBOAT) players and observers see no player's name or address until the game ends; default no", "SET ANONYMOUS yes"),
             ("master", "SET ADDRESSES private|public", "(before the start) whether everyone may see the players' addresses; by default only you and each player for their own seat", "SET ADDRESSES public"),
         ), example="SET WAIT")
def set_(h: Handler, cmd: Command) -> None:
    if not cmd.args:
        raise CommandError("SET what? (e.g. SET WAIT, SET PASSWORD new, SET DEADLINE +2d)")
    key = cmd.args[0].upper()
    rest = cmd.args[1:]
    if "=" in cmd.args[0]:
        k, _, val = cmd.args[0].partition("=")
        key, rest = k.upper(), [val, *rest]
    if key == "NO" and rest:
        key, rest = "NO" + rest[0].upper(), rest[1:]
    st = h.ctx.store
    if key == "RESULTS":  # the master's for the game, a player's or observer's for themselves
        set_results(h, " ".join(rest))
        return
    if key in ("WAIT", "NOWAIT"):
        g, power = h.need_power()
        h.need_phase(g)
        st.update("seats", h.session.seat["id"], wait=int(key == "WAIT"))
        h.say("Wait flag set: the phase will not be processed before the deadline." if key == "WAIT"
                 else "Wait flag cleared.")
        h.touched = True
        return
    if key in ("PREFERENCE", "PREFERENCES", "PREF"):
        set_preference(h, h.need_game(), " ".join(rest))
        return
    if key in ("DRAW", "NODRAW"):
        vote(h, key == "DRAW", rest)
        return
    if key in SET_ALIASES:
        name = SET_ALIASES[key]
        REGISTRY[name].run(h, Command(name, rest, cmd.line, cmd.lineno))
        return
    if key in absence_cmds.SET_WORDS and absence_cmds.set_word(h, key, rest):
        return
    if key == "PASSWORD":
        if len(rest) != 1:
            raise CommandError("write SET PASSWORD <new password>")
        pw = check_new_password(rest[0])
        digest = hash_password(pw, h.ctx.cfg.password_cost)
        g = h.need_game()
        if h.session.master and h.session.seat is None:
            st.update("games", g.id, master_hash=digest)
            g.master_hash = digest
        elif h.session.seat is not None and not h.session.became:
            st.update("seats", h.session.seat["id"], password_hash=digest)
        else:
            raise CommandError("sign on with your own seat to change its password")
        h.say("Password changed.")
        return
    if key == "ADDRESS":
        g = h.need_game()
        if h.session.seat is None or h.session.became:
            raise CommandError("only a player or observer can set an address")
        addrs = [a.strip().lower() for a in " ".join(rest).replace(";", ",").split(",") if a.strip()]
        for i, a in enumerate(addrs):
            addrs[i] = canonical_address(a) or ""
            if not addrs[i]:
                raise CommandError(f"not an email address: {a!r}")
        if len(addrs) > MAX_SEAT_ADDRESSES:
            raise CommandError(f"SET ADDRESS takes at most {MAX_SEAT_ADDRESSES} addresses")
        st.update("seats", h.session.seat["id"], addresses=dumps(addrs) if addrs else None)
        h.say(f"Mail for you in '{g.name}' now goes to {', '.join(addrs)}." if addrs else
                 "Mail for you now goes to your own address again.")
        return
    if key == "NAME":
        if h.session.seat is None and not h.session.master:
            raise CommandError("sign on first (SIGNON with your password): SET NAME changes how reports "
                               "name you, so the judge needs to know it is you")
        name = " ".join(rest).strip()
        if len(name) > 40:
            raise CommandError("a name has at most 40 characters")
        # a public name belongs to an address that has shown it reads its mail: a password proves
        # only that the sender chose it (perhaps a minute ago, in someone else's name)
        what = f"name you {name}" if name else "name you by your mailbox name"
        confirm.request(h, "name", None, {"name": name}, f"To have reports {what}", "Until then your name is unchanged.")
        return
    if key in SWITCH_FLAGS and not rest:  # njudge's SET NODIAS, SET NOFAKE ...: the word carries its value
        key, rest = SWITCH_FLAGS[key][0].upper(), [SWITCH_FLAGS[key][1]]
    # the master's settings: an unknown word is said to be unknown, whoever sends it
    if key not in MASTER_SET_WORDS and key.lower().replace("-", "_") not in RULE_SWITCHES:
        raise CommandError(f"unknown SET option '{key}'. Players: " + ", ".join(PLAYER_SET_KEYS)
                           + ". The master also: " + ", ".join(MASTER_SET_KEYS)
                           + ", and the rule switches " + ", ".join(sorted(RULE_SWITCHES)))
    if key == "ADDRESSES" and not h.session.master:  # one letter from a player's SET ADDRESS
        raise CommandError("only the game master may set ADDRESSES private|public (who may see the players' "
                           "addresses); where your own mail goes is SET ADDRESS a@b.c")
    g = h.need_master()
    if key in ("LIST", "NOLIST"):
        set_list(h, g, "" if key == "NOLIST" else " ".join(rest))
        return
    if key in ("PRIVATE", "JOIN"):
        set_access(h, g, key, rest)
        return
    if key in TIMING_KEYS or (key.lower() in games.PHASE_KIND_WORDS and rest and rest[0].upper() in ("CLOCK", "DAYS")):
        set_timing(h, g, key, rest)
        return
    if key == "DEADLINE":
        ph = h.need_phase(g)
        text = " ".join(rest)
        when = deadlines.parse_when(text, h.ctx.now, games.game_zone(h.ctx, g))
        games.set_deadline(h.ctx, g, ph, when)
        h.say(f"Read '{text}' as {deadlines.format_time(when, games.game_zone(h.ctx, g))}.\n"
              f"Deadline for {ph.short} set to {h.ctx.when(when)}.")
        games.notice(h.ctx, g, "Deadline changed", f"The master has set the deadline for {ph.name} to "
                     f"{h.ctx.when(when)}.")
        return
    if key == "GRACE":
        hours = deadlines.parse_duration(" ".join(rest))
        games.set_grace(h.ctx, g, hours)
        h.say(f"Grace period set to {deadlines.format_hours(hours)}.")
        return
    name = key.lower()
    if rest and rest[0].upper() == "NEXT":  # njudge: SET MOVE NEXT 72
        rest = rest[1:]
    if not rest:
        raise CommandError(f"SET {key} needs a value")
    note = games.apply_option(g, name, " ".join(rest), started=g.state != "forming",
                              archive_url=h.ctx.cfg.archive_url)
    games.save_options(h.ctx, g)
    h.say(note)
