"""Game lifecycle: forming → started → phases → finished, inside the caller's transaction.

Every function here takes a :class:`Ctx` (the store, the settings and "now") and changes the
database and the outbox only; the caller owns the transaction. The adjudicator is called, never
changed: all I/O stays on this side.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import logging
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from judge.engine import adjudicate
from judge.engine.position import Position
from judge.rules import RuleError, check_rule, merge_rules
from judge.orders import parse_orders
from judge.render import describe, lateness
from judge.game import absence, deadlines, digest, orderbook, outbox, replacements, results as zine
from judge.game.config import JudgeConfig
from judge.game.passwords import hash_password
from judge.render.templates import WIDTH, MailText, press_text, render
from judge.render.zine import Attachment, mail_png
from judge.mapdraw import draw_svg
# (address_of is not used here: callers read it through this module, as games.address_of)
from judge.game.seats import (address_of, anonymous, master_address, public_label, seat_addresses, seat_of_power, seats,
                              shown_person)
from judge.game.settings_words import settings_lines
from judge.game.store import Store, dumps, from_iso, iso, loads
from judge.variant import Phase, Variant, VariantError, available_variants, load_variant

log = logging.getLogger(__name__)

GAME_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,19}$")
PRESS_MODES = ("white", "grey", "any", "none")


class GameError(ValueError):
    """A command that cannot be carried out; the message says why (nothing was changed)."""


@dataclass
class Ctx:
    store: Store
    cfg: JudgeConfig
    now: datetime
    processed: list[str] = field(default_factory=list)  # "game phase" processed during this transaction
    held: list[Any] | None = None  # game notices and press held while a mail is read (judge.game.digest)

    def mail(self, to: list[str], subject: str, text: str, *, game_id: int | None = None, kind: str = "notice",
             in_reply_to: str | None = None, references: str | None = None, auto: str = "auto-generated",
             game_list: tuple[str, str | None] | None = None) -> None:
        """``game_list``: see :func:`outbox.queue`."""
        if self.held is not None and game_id is not None and kind in digest.FOLDED and in_reply_to is None:
            self.held.append(digest.Held(list(to), subject, text, game_id, kind))  # sent by digest.release
            return
        outbox.queue(self.store, self.cfg, to, subject, text, self.now, in_reply_to=in_reply_to,
                     references=references, auto=auto, game_id=game_id, kind=kind, game_list=game_list)

    def when(self, t: datetime | None) -> str:
        return deadlines.format_time(t, self.cfg.timezone)


# -- games ------------------------------------------------------------------------------------------
UNREAD = "(not read)"  # Game.list_address when the Game was not made from its row


@dataclass
class Game:
    id: int
    name: str
    variant_name: str
    state: str
    master_id: int | None
    master_hash: str | None
    options: dict[str, Any]
    outcome: dict[str, Any] | None = None
    #: the mailing list address (SET LIST) as read with the game's row; :data:`UNREAD` for a Game
    #: not made from its row (a new game): then whoever needs it reads the store
    list_address: str | None = field(default=UNREAD, compare=False, repr=False)

    @functools.cached_property
    def variant(self) -> Variant:
        # once per Game object (a transaction's worth); played with the calendar the game's rules
        # name (1885 II: rule switch ``calendar``)
        v = load_variant(self.variant_name)
        own = self.options.get("rules") or {}
        key = repr(own)
        merged, played = _played(v, key, own)
        self.__dict__["_merged_rules"] = (key, merged)  # what :attr:`rules` merges: the same layers
        return played

    @property
    def rules(self) -> dict[str, Any]:
        """The variant's rules with the game's own (SET RULE) over them: a fresh dict each time.
        Merged once per Game object while its own rules stay the same (an order mail asks for
        them several times; merging, even remembered by merge_rules, walks every rule)."""
        own = self.options.get("rules") or {}
        key = repr(own)  # (SET RULE changes them in place: compared as written, whatever they hold)
        variant = self.variant  # (it merges them first)
        known = self.__dict__.get("_merged_rules")
        if known is None or known[0] != key:
            known = self.__dict__["_merged_rules"] = (key, merge_rules(variant.rules, own))
        return dict(known[1])

    def hours(self, kind: str) -> float:
        return float(self.options[f"{kind}_hours"])

    @property
    def grace_hours(self) -> float:
        return float(self.options["grace_hours"])

    @property
    def press(self) -> str:
        return str(self.options.get("press", "white"))


#: (id of a seed variant, a game's own rules as written) -> (that variant, the rules merged, the
#: variant as they play it): what every order mail's Game.variant works out again for its game
_PLAYED: dict[tuple[int, str], tuple[Variant, dict[str, Any], Variant]] = {}


def _played(v: Variant, key: str, own: dict[str, Any]) -> tuple[dict[str, Any], Variant]:
    """``merge_rules(v.rules, own)`` and ``v.with_rules`` of it, for ``own`` written as ``key``
    (its repr); the merged dict is shared: :attr:`Game.rules` hands out copies of it."""
    known = _PLAYED.get((id(v), key))
    if known is not None and known[0] is v:  # (the variant kept in the value: its id is not reused)
        return known[1], known[2]
    merged = merge_rules(v.rules, own)
    played = v.with_rules(merged)
    if len(_PLAYED) >= 256:
        _PLAYED.clear()
    _PLAYED[(id(v), key)] = (v, merged, played)
    return merged, played


def _game(row: Any) -> Game:
    return Game(row["id"], row["name"], row["variant"], row["state"], row["master_id"], row["master_hash"],
                loads(row["options"], {}), loads(row["outcome"], None), row["list_address"])


def get_game(store: Store, name: str) -> Game | None:
    row = store.one("SELECT * FROM games WHERE name = ?", (name.strip().lower(),))
    return _game(row) if row else None


def game_by_id(store: Store, game_id: int) -> Game:
    return _game(store.one("SELECT * FROM games WHERE id = ?", (game_id,)))


def save_options(ctx: Ctx, game: Game) -> None:
    ctx.store.update("games", game.id, options=dumps(game.options))


def player_id(ctx: Ctx, address: str) -> int:
    address = address.strip().lower()
    pid = ctx.store.scalar("SELECT id FROM players WHERE address = ?", (address,))
    if pid is None:
        pid = ctx.store.insert("players", address=address, name="", created=iso(ctx.now))
    return int(pid)


def default_options(cfg: JudgeConfig) -> dict[str, Any]:
    return {"rules": {}, "press": "white", "centres": None, "movement_hours": cfg.movement_hours,
            "retreat_hours": cfg.retreat_hours, "adjustment_hours": cfg.adjustment_hours,
            "grace_hours": cfg.grace_hours}


PHASE_KIND_WORDS = {"move": "movement", "moves": "movement", "movement": "movement", "movements": "movement",
                    "retreat": "retreat", "retreats": "retreat", "adjust": "adjustment", "adjustment": "adjustment",
                    "adjustments": "adjustment", "build": "adjustment", "builds": "adjustment"}
CENTRE_WORDS = ("centres", "centers", "centre", "center")
#: the game's switches for press, draws and concessions: name -> its values, the first the default
#: (``concessions``' default depends on the variant: :func:`switch`)
SWITCHES: dict[str, tuple[str, ...]] = {
    "fake": ("no", "yes"),  # fake press: FROM x, FAKE [TO ...] (njudge, DPjudge)
    "observer_press": ("none", "white", "any"),  # what observers may send (to the master: always)
    "minor_press": ("yes", "no"),  # press in retreat and adjustment phases
    "dias": ("yes", "no"),  # draws include all survivors
    "draw_votes": ("secret", "public"),  # who may see the draw and concession votes (the master: always)
    "concessions": ("largest", "any", "none"),  # njudge's rule, the variant's (any power or alliance), none
    "anonymous": ("no", "yes"),  # gunboat: no names or addresses to players and observers until the end
    "addresses": ("private", "public"),  # whether everyone may see the players' addresses
    "predict": ("no", "yes"),  # whether a player may PREDICT the results of their own orders
}
SWITCH_ALIASES = {"fake_press": "fake", "fakes": "fake", "observer": "observer_press", "observers": "observer_press",
                  "minorpress": "minor_press", "votes": "draw_votes", "gunboat": "anonymous"}
YES_NO = {"yes": "yes", "on": "yes", "true": "yes", "1": "yes", "no": "no", "off": "no", "false": "no", "0": "no"}

#: the game options :func:`apply_option` takes besides the rule switches (the master's SET words)
OPTION_WORDS = ("map", "grace", "press", "abandon", "nmr", *CENTRE_WORDS, *PHASE_KIND_WORDS, *SWITCHES, *SWITCH_ALIASES)


def switch(game: "Game", name: str) -> str:
    """The value of one of :data:`SWITCHES` in ``game`` (its default when unset)."""
    value = (game.options.get("switches") or {}).get(name)
    if value is not None:
        return str(value)
    if name == "concessions":  # a variant with alliance victories has its own rule (1885 II rule 5d)
        return "any" if alliance_sizes(game.variant) else "largest"
    return SWITCHES[name][0]


def set_switch(game: "Game", key: str, value: str) -> str:
    """Set one of :data:`SWITCHES`; returns the note for the reply."""
    name = SWITCH_ALIASES.get(key, key)
    values = SWITCHES[name]
    v = value.strip().lower().replace("gray", "grey").removesuffix(" press").strip()
    if name == "observer_press":  # njudge: SET OBSERVER ANY|WHITE|NO [PRESS]
        v = {"no": "none", "off": "none", "partial": "any"}.get(v, v)
    if set(values) <= {"yes", "no"}:
        v = YES_NO.get(v, v)
    if v not in values:
        raise GameError(f"{name} takes one of {', '.join(values)}, not {value!r}")
    game.options.setdefault("switches", {})[name] = v
    return f"{name.replace('_', ' ').capitalize()} set to {v}."


MAP_NOTES = {"png": "the map as a small PNG picture in the mail",
             "svg": "the map as an SVG picture in the mail (some mail programs do not show it)",
             "both": "the map as a PNG picture in the mail, and as SVG attached (a larger mail)",
             "link": "a link to the map in the judge's archive, no picture",
             "off": "no map"}


def set_map(game: Game, value: str, archive_url: str | None) -> str:
    """``SET MAP PNG|SVG|BOTH|LINK|OFF``: how results mails carry the map (any time, by the master)."""
    from judge.render.zine import MAP_MODES

    mode = value.strip().lower()
    if mode not in MAP_MODES:
        raise GameError(f"map takes one of {', '.join(m.upper() for m in MAP_MODES)}, not {value!r}")
    if mode == "link" and not archive_url:
        raise GameError("this judge has no public archive to link to (archive_url is not set): "
                        "use SET MAP PNG, SVG, BOTH or OFF")
    game.options["map"] = mode
    return f"Results of '{game.name}' now carry {MAP_NOTES[mode]}."


def apply_option(game: Game, name: str, value: str, started: bool, archive_url: str | None = None) -> str:
    """Set one game option (``press``, ``centres``, phase lengths, grace, ``map``, or a rule switch);
    returns a note. ``archive_url``: the judge's archive (``map=link`` needs one)."""
    key = name.strip().lower().replace("-", "_")
    value = value.strip()
    if key == "map":
        return set_map(game, value, archive_url)
    if key in ("abandon", "nmr"):  # how a game replaces players: any time
        try:
            return replacements.set_option(game, key, value)
        except ValueError as exc:
            raise GameError(str(exc)) from None
    if key in PHASE_KIND_WORDS or key == "grace":
        hours = deadlines.parse_duration(value)
        if key == "grace":
            game.options["grace_hours"] = hours
            return f"Grace period set to {deadlines.format_hours(hours)}."
        kind = PHASE_KIND_WORDS[key]
        if hours <= 0:
            raise GameError("a phase must last longer than that")
        game.options[f"{kind}_hours"] = hours
        return f"{kind.capitalize()} phases now last {deadlines.format_hours(hours)}."
    if key == "predict":  # the master may allow or stop players' PREDICT at any time
        return set_switch(game, key, value)
    if started:
        raise GameError(f"'{name}' can only be set before the game starts")
    if key == "press":
        v = value.lower().replace("gray", "grey")
        if v not in PRESS_MODES:
            raise GameError(f"press takes one of {', '.join(PRESS_MODES)}, not {value!r}")
        game.options["press"] = v
        return f"Press set to {v}."
    if key in SWITCHES or key in SWITCH_ALIASES:
        return set_switch(game, key, value)
    if key in CENTRE_WORDS:
        if not value.isdigit() or not 1 <= int(value) <= len(game.variant.map.centres):
            raise GameError(f"centres takes a number from 1 to {len(game.variant.map.centres)}")
        game.options["centres"] = int(value)
        return f"Victory now needs {int(value)} supply centres."
    try:
        v = check_rule(key, value)
        if key == "calendar":
            load_variant(game.variant_name).calendar_named(v)  # the variant must have it
    except (RuleError, VariantError) as exc:
        raise GameError(str(exc)) from None
    game.options.setdefault("rules", {})[key] = list(v) if isinstance(v, tuple) else v
    game.__dict__.pop("variant", None)  # (cached) the calendar may have changed
    return f"Rule {key} set to {value}."


def new_game_name(ctx: Ctx, name: str) -> str:
    """A new game's name, checked: well formed and not taken (any game kind)."""
    name = name.strip().lstrip("?").lower()
    if not GAME_NAME.match(name):
        raise GameError(f"bad game name {name!r}: use 1-20 letters, digits, '-' or '_', starting with a letter or digit")
    if get_game(ctx.store, name) is not None:
        raise GameError(f"a game named '{name}' already exists")
    return name


def create_game(ctx: Ctx, name: str, password: str, variant: str, options: list[str], master_address: str) -> Game:
    name = new_game_name(ctx, name)
    try:
        v = load_variant(variant.lower())
    except VariantError:
        raise GameError(f"unknown variant {variant!r} (variants: {', '.join(available_variants())})") from None
    from judge.game.passwords import PasswordError, check_new_password
    try:
        check_new_password(password)
    except PasswordError as exc:
        raise GameError(str(exc)) from None
    game = Game(0, name, v.name, "forming", None, None, default_options(ctx.cfg))
    for opt in options:
        k, sep, val = opt.partition("=")
        if not sep:
            raise GameError(f"options are written name=value, not {opt!r}")
        try:
            apply_option(game, k, val, started=False, archive_url=ctx.cfg.archive_url)
        except deadlines.TimeError as exc:
            raise GameError(str(exc)) from None
    mid = player_id(ctx, master_address)
    game.id = ctx.store.insert("games", name=name, variant=v.name, state="forming", master_id=mid,
                               master_hash=hash_password(password, ctx.cfg.password_cost),
                               options=dumps(game.options), created=iso(ctx.now))
    game.master_id = mid
    return game


# -- seats ------------------------------------------------------------------------------------------
def list_address(store: Store, game: Game) -> str | None:
    """The game's mailing list (SET LIST), if it has one."""
    return store.scalar("SELECT list_address FROM games WHERE id = ?", (game.id,))


def audience(store: Store, game: Game, observers: bool = True) -> list[list[str]]:
    """Everyone who gets a game's public mail: players, observers, the master, the mailing list (one
    list per person)."""
    out: list[list[str]] = []
    seen: set[str] = set()
    for s in seats(store, game.id, None):
        if s["player_id"] is None or s["status"] == "vacant":
            continue
        if s["role"] == "observer" and not observers:
            continue
        addrs = [a for a in seat_addresses(store, s) if a not in seen]
        seen.update(addrs)
        if addrs:
            out.append(addrs)
    m = master_address(store, game)
    if m and m not in seen:
        out.append([m])
    lst = list_address(store, game) if observers else None
    if lst and lst not in seen and lst != m:
        out.append([lst])  # the game's mailing list gets what observers get
    return out


def tell_all(ctx: Ctx, game: Game, subject: str, text: str, kind: str = "notice", observers: bool = True,
             but: list[str] | None = None) -> None:
    """``but``: the addresses of the one person the mail is about, who is answered by other means."""
    for to in audience(ctx.store, game, observers):
        if but and set(to) <= set(but):
            continue
        ctx.mail(to, subject, zine.for_recipient(text, to), game_id=game.id, kind=kind)  # SET RESULTS


def example_orders(pos: Position, power: str) -> list[str]:
    """Two orders a power could really give in ``pos``, for the Game Starting mail: a move of one of
    its armies to a place the order reader accepts, and a hold (a power without armies: holds)."""
    m = pos.map
    units = sorted(pos.units_of(power), key=lambda u: u.loc)
    own = {u.prov for u in units}  # not into its own units' places: that move would only bounce
    out: list[str] = []
    for u in units:
        if u.kind != "A" or out:
            continue
        for d in sorted(m.army_adj.get(u.prov, set()) - own):
            line = f"{u.text(m)} - {m.display(d)}"
            read = parse_orders(line, pos, power, check=True, warn=False)
            if len(read) == 1 and read[0].order is not None and not read[0].error:
                out.append(line)
                break
    moved = out[0].split(" - ")[0] if out else None
    out += [f"{u.text(m)} H" for u in units if u.text(m) != moved][:2 - len(out)]
    return out


#: the ``:: Deadline:`` line's time while the game is paused: no deadline runs
PAUSED_DEADLINE = "(game paused: no deadline until the master resumes it)"


def shown_deadline(ctx: Ctx, game: Game, phase: "PhaseRow | None", read_now: bool = False) -> str | None:
    """The deadline a mail's ``:: Deadline:`` line shows: none once the game is over, words while
    it is paused (the stored date means nothing then: RESUME sets a new one). ``read_now``: the
    caller knows ``game`` is as the store holds it (else its state is read again)."""
    state = game.state if read_now else ctx.store.scalar("SELECT state FROM games WHERE id = ?", (game.id,))
    if phase is None or state in ("finished", "terminated"):
        return None
    return PAUSED_DEADLINE if state == "paused" else ctx.when(phase.deadline)


def notice(ctx: Ctx, game: Game, title: str, text: str, short: str | None = None, to: list[str] | None = None,
           but: list[str] | None = None) -> None:
    """A short game notice (signon, resignation, civil disorder …) to everyone, or to ``to``."""
    phase = current_phase(ctx.store, game)
    subject, body = render("notice.txt", code=ctx.cfg.code, game=game.name, variant=game.variant.title,
                           short=short or (phase.short if phase else None), title=title, text=text,
                           deadline=shown_deadline(ctx, game, phase))
    if to is None:
        tell_all(ctx, game, subject, body, but=but)
    else:
        ctx.mail(to, subject, body, game_id=game.id)


# -- phases -----------------------------------------------------------------------------------------
@dataclass
class PhaseRow:
    id: int
    seq: int
    name: str
    short: str
    position_text: str = field(repr=False)  # the position as stored (JSON)
    deadline: datetime | None
    grace_end: datetime | None
    state: str
    variant: Variant

    @functools.cached_property
    def position_json(self) -> dict[str, Any]:
        # read when asked: most readers want the parsed Position, which _PARSED remembers by text
        return loads(self.position_text)  # type: ignore[no-any-return]

    @property
    def position(self) -> Position:
        """The phase's position; each caller gets its own copy, as the engine changes some in place."""
        return _own_copy(_parsed_position(self))

    @property
    def shared_position(self) -> Position:
        """The phase's position as every row of it shares it: for callers that only look at it
        (who must order, who is late, the order status); never to be changed or handed to the engine."""
        return _parsed_position(self)

    @property
    def phase(self) -> Phase:
        return self.variant.calendar.parse(self.name)


#: stored position text -> (its variant, the parsed Position, never handed out): an order mail
#: reads its phase's row several times, and parsing was a tenth of its cost
_PARSED: dict[str, tuple[Variant, Position]] = {}


def _parsed_position(ph: PhaseRow) -> Position:
    text, variant = ph.position_text, ph.variant
    hit = _PARSED.get(text)
    if hit is None or hit[0] is not variant:  # a seed file reloaded makes a new Variant
        if len(_PARSED) >= 32:
            _PARSED.clear()
        hit = _PARSED[text] = (variant, Position.from_json(ph.position_json, variant))
    return hit[1]


def _own_copy(pos: Position) -> Position:
    """A copy sharing nothing changeable with ``pos`` (units are never changed once made: shared)."""
    return Position(pos.variant, pos.phase, dict(pos.units), dict(pos.centres),
                    {p: dataclasses.replace(d) for p, d in pos.dislodged.items()}, copy.deepcopy(pos.extra))


def _phase(row: Any, v: Variant) -> PhaseRow:
    return PhaseRow(row["id"], row["seq"], row["name"], row["short"], row["position"],
                    from_iso(row["deadline"]), from_iso(row["grace_end"]), row["state"], v)


def current_phase(store: Store, game: Game) -> PhaseRow | None:
    row = store.one("SELECT * FROM phases WHERE game_id = ? AND state = 'open' ORDER BY seq DESC LIMIT 1", (game.id,))
    return _phase(row, game.variant) if row else None


def processed_phases(store: Store, game: Game) -> list[Any]:
    return store.all("SELECT * FROM phases WHERE game_id = ? AND state = 'processed' ORDER BY seq", (game.id,))


def schedule_phase(ctx: Ctx, game: Game, ph: PhaseRow) -> None:
    """(Re)make the phase's reminder and deadline events."""
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    if ph.deadline is None:
        return
    hours = float(game.options.get("remind_hours", ctx.cfg.reminder_hours))
    remind = ph.deadline - timedelta(hours=hours)
    if hours > 0 and remind > ctx.now:
        deadlines.schedule(ctx.store, game.id, ph.id, "reminder", remind)
    deadlines.schedule(ctx.store, game.id, ph.id, "deadline", ph.deadline)


def game_zone(ctx: Ctx, game: Game) -> str:
    """The zone the game's dates are read in and its clock runs in (SET TIMEZONE; else the judge's)."""
    return str(game.options.get("timezone") or ctx.cfg.timezone)


def next_deadline(ctx: Ctx, game: Game, kind: str, not_before: datetime | None) -> datetime:
    """The deadline of a ``kind`` phase opened now: its length ahead, on the master's clock and
    days (SET MOVE CLOCK, SET DAYS), never before ``not_before`` (:func:`deadlines.phase_deadline`)."""
    clock = (game.options.get("clock") or {}).get(kind)
    days = (game.options.get("days") or {}).get(kind)
    return deadlines.phase_deadline(ctx.now, game.hours(kind), clock, days, not_before, game_zone(ctx, game))


def open_phase(ctx: Ctx, game: Game, pos: Position) -> PhaseRow:
    seq = int(ctx.store.scalar("SELECT COALESCE(MAX(seq), 0) FROM phases WHERE game_id = ?", (game.id,))) + 1
    # not before the previous deadline, so early processing never pulls the next one earlier; the
    # first phase runs its full length from SET START
    last = from_iso(ctx.store.scalar("SELECT deadline FROM phases WHERE game_id = ? AND state = 'processed' "
                                     "ORDER BY seq DESC LIMIT 1", (game.id,)))
    begin = from_iso(game.options.get("start"))
    if last is None and begin is not None:
        last = begin + timedelta(hours=game.hours(pos.phase.kind))
    deadline = next_deadline(ctx, game, pos.phase.kind, last)
    grace_end = deadline + timedelta(hours=game.grace_hours)
    pid = ctx.store.insert("phases", game_id=game.id, seq=seq, name=str(pos.phase), short=pos.phase.short,
                           position=dumps(pos.to_json()), state="open", opened=iso(ctx.now),
                           deadline=iso(deadline), grace_end=iso(grace_end))
    ph = current_phase(ctx.store, game)
    assert ph is not None and ph.id == pid
    past_absences(ctx, game, ph)
    schedule_phase(ctx, game, ph)
    return ph


def past_absences(ctx: Ctx, game: Game, ph: PhaseRow) -> bool:
    """Move the phase's deadline past the absences (SET ABSENCE) it falls in, and tell everyone;
    whether it moved (the caller reschedules). Called where a phase's deadline is computed (a new
    phase, a rollback, RESUME, an absence set), not on the master's own SET DEADLINE, which
    stands as the master wrote it."""
    if ph.deadline is None:
        return False
    holders = {s["power"]: s["player_id"] for s in seats(ctx.store, game.id)
               if s["power"] and s["player_id"] is not None and s["status"] == "active"}
    new, moved = absence.move_past(game, ph.deadline, holders)
    if not moved:
        return False
    ph.deadline, ph.grace_end = new, new + timedelta(hours=game.grace_hours)
    ctx.store.update("phases", ph.id, deadline=iso(ph.deadline), grace_end=iso(ph.grace_end))
    away = "; ".join(f"{m.power} is away until {ctx.when(m.until)}" for m in moved)
    notice(ctx, game, "Deadline moved", f"The deadline for {ph.name} falls in an absence ({away}): "
           f"it is moved to {ctx.when(new)}.", short=ph.short)
    return True


def set_deadline(ctx: Ctx, game: Game, ph: PhaseRow, deadline: datetime) -> None:
    if deadline <= ctx.now:
        raise GameError(f"the deadline must be in the future (now: {ctx.when(ctx.now)})")
    ph.deadline = deadline
    ph.grace_end = deadline + timedelta(hours=game.grace_hours)
    ctx.store.update("phases", ph.id, deadline=iso(ph.deadline), grace_end=iso(ph.grace_end))
    schedule_phase(ctx, game, ph)


def pause(ctx: Ctx, game: Game) -> None:
    """Stop the game's clock (the master's PAUSE, or every player's PAUSE REQUEST under PAUSE VOTE)."""
    game.state = "paused"
    game.options.pop("pause_requests", None)
    ctx.store.update("games", game.id, state="paused", options=dumps(game.options))
    deadlines.cancel_events(ctx.store, game.id, ctx.now)


def set_grace(ctx: Ctx, game: Game, hours: float) -> None:
    game.options["grace_hours"] = hours
    save_options(ctx, game)
    ph = current_phase(ctx.store, game)
    if ph is not None and ph.deadline is not None:
        ph.grace_end = ph.deadline + timedelta(hours=hours)
        ctx.store.update("phases", ph.id, grace_end=iso(ph.grace_end))
        pend = ctx.store.one("SELECT id FROM events WHERE game_id = ? AND kind = 'grace' AND state = 'pending'",
                             (game.id,))
        if pend is not None:
            deadlines.cancel_events(ctx.store, game.id, ctx.now, ("grace",))
            deadlines.schedule(ctx.store, game.id, ph.id, "grace", max(ph.grace_end, ctx.now))


# -- who played a power ------------------------------------------------------------------------------
def phase_at(store: Store, game: Game, when: str | None) -> str | None:
    """The phase that was open at ``when`` (an ISO time; a phase opened at that very moment, as the
    first one is by the last player joining, counts from the next moment): the first one for a time
    before the start."""
    row = store.one("SELECT short FROM phases WHERE game_id = ? AND state IN ('open', 'processed') AND opened < ? "
                    "ORDER BY seq DESC LIMIT 1", (game.id, when or ""))
    if row is None:
        row = store.one("SELECT short FROM phases WHERE game_id = ? AND state IN ('open', 'processed') "
                        "ORDER BY seq LIMIT 1", (game.id,))
    return row["short"] if row else None


def record_departure(ctx: Ctx, game: Game, seat: Any, why: str) -> None:
    """A player leaves a power (resigned, ejected): keep who it was and over which phases, for
    SUMMARY. Kept in the game's options (``players_before``: power, player id, first and last
    phase, why), as the seat itself is handed to the next player."""
    if not seat["power"] or seat["player_id"] is None or game.state not in ("active", "paused"):
        return
    ph = current_phase(ctx.store, game)
    game.options.setdefault("players_before", []).append({
        "power": seat["power"], "player_id": seat["player_id"], "from": phase_at(ctx.store, game, seat["joined"]),
        "to": ph.short if ph else None, "why": why, "at": iso(ctx.now)})
    save_options(ctx, game)


# -- replacing players (the policy and its counts: :mod:`judge.game.replacements`) ----------------------
def open_powers(ctx: Ctx, game: Game, powers: list[str], why: str, last: str | None = None) -> list[str]:
    """Take ``powers`` from their players (kept for SUMMARY with the phases they played, through
    ``last`` if given: the phase just processed), announce them open for takeover to everyone (the
    leaving players too) and to the standby list. Returns the powers opened."""
    opened = []
    for p in powers:
        seat = seat_of_power(ctx.store, game.id, p)
        if seat is None or seat["status"] == "vacant" or seat["player_id"] is None:
            continue
        record_departure(ctx, game, seat, why)
        if last and game.options.get("players_before"):
            game.options["players_before"][-1]["to"] = last
        opened.append((p, seat_addresses(ctx.store, seat)))
    if not opened:
        return []
    names = [p for p, _ in opened]
    letters = game.variant.powers
    how = "\n".join(f"  SIGNON {letters[p].letter}{game.name} <password of your choice>   (takes {p})"
                    for p in names)
    text = (f"{join_names(names)} {'has' if len(names) == 1 else 'have'} {why} and "
            f"{'is' if len(names) == 1 else 'are'} open for takeover in '{game.name}'"
            + (": the game waits for a new player." if replacements.nmr_mode(game) == "wait" else
               ": until a new player takes over, its units hold, it builds nothing and any "
               "removals due follow the civil-disorder rule.")
            + f"\nA new player takes over with:\n{how}\n(or SIGNON ?{game.name} <password> for the first open power).")
    title = f"Open for takeover: {''.join(letters[p].letter for p in names)}"
    told = {a for to in audience(ctx.store, game) for a in to}
    notice(ctx, game, title, text)
    for p, old in opened:
        if old and not set(old) & told:
            notice(ctx, game, title, text, to=old)
    tell_standby(ctx, game, title, text)
    missed = game.options.setdefault("missed", {})
    for p, _ in opened:
        seat = seat_of_power(ctx.store, game.id, p)
        ctx.store.update("seats", seat["id"], status="vacant", player_id=None, password_hash=None, wait=0,
                         draw=0, draw_set=None, addresses=None, allies=None, concede=None)
        missed.pop(p, None)
    if replacements.nmr_mode(game) == "wait":
        game.options["awaiting"] = sorted(set(game.options.get("awaiting") or []) | set(names))
    save_options(ctx, game)
    return names


def tell_standby(ctx: Ctx, game: Game, title: str, text: str) -> None:
    """A power is open: the game's standby list hears of it too (those who play or watch the game
    have had the public notice)."""
    told = {a for to in audience(ctx.store, game) for a in to}
    for addr in replacements.standby_addresses(ctx.store, game):
        if addr not in told:
            notice(ctx, game, title, text + f"\n\n(You are on the standby list of '{game.name}': "
                   f"STANDBY {game.name} OFF takes you off it.)", to=[addr])


def wait_for_replacements(ctx: Ctx, game: Game, ph: PhaseRow, late: list[str]) -> None:
    """An ``nmr=wait`` game at the end of grace with powers still late: they are opened for
    takeover and the phase is not processed; the master is told."""
    opened = open_powers(ctx, game, late, "sent no orders by the end of grace")
    m = master_address(ctx.store, game)
    if m and opened:
        notice(ctx, game, f"Waiting for Replacements: {''.join(game.variant.powers[p].letter for p in opened)}",
               f"Game '{game.name}' (nmr=wait) is not processed: {join_names(opened)} sent no "
               f"orders by the end of grace and {'is' if len(opened) == 1 else 'are'} open for takeover. "
               f"The phase waits for the new players; PROCESS processes it now, the open powers' units "
               f"holding.", to=[m])


def awaited(store: Store, game: Game, ph: PhaseRow) -> list[str]:
    """The open powers an ``nmr=wait`` game waits for in this phase (vacant, owing orders)."""
    if replacements.nmr_mode(game) != "wait":
        return []
    out = []
    for p in game.options.get("awaiting") or []:
        s = seat_of_power(store, game.id, p)
        if s is not None and s["status"] == "vacant" and orderbook.needed(ph.position, p, game.rules) > 0:
            out.append(p)
    return out


def taken_over(ctx: Ctx, game: Game, power: str) -> None:
    """A new player has the power: nothing missed any more, not waited for; a waiting game whose
    deadline has passed gets a fresh one (a phase's length from now)."""
    game.options.get("missed", {}).pop(power, None)
    waiting = game.options.get("awaiting") or []
    if power in waiting:
        waiting.remove(power)
        ph = current_phase(ctx.store, game)
        if ph is not None and game.state == "active" and (ph.deadline is None or ph.deadline <= ctx.now):
            set_deadline(ctx, game, ph, ctx.now + timedelta(hours=game.hours(ph.phase.kind)))
    save_options(ctx, game)


# -- starting -----------------------------------------------------------------------------------------
def join(ctx: Ctx, game: Game, address: str, password: str) -> Any:
    """A new player joins a forming game; the game starts when every power has a player."""
    pid = player_id(ctx, address)
    sid = ctx.store.insert("seats", game_id=game.id, power=None, role="player", player_id=pid,
                           password_hash=hash_password(password, ctx.cfg.password_cost), status="active",
                           wait=0, draw=0, joined=iso(ctx.now))
    return ctx.store.one("SELECT * FROM seats WHERE id = ?", (sid,))


def start(ctx: Ctx, game: Game) -> None:
    """Assign powers (by the players' preferences, SET PREFERENCE; else at random: judge/game/assign.py),
    open the first phase, tell everyone. Empty powers are vacant."""
    from judge.game.assign import assign

    v = game.variant
    players = seats(ctx.store, game.id)
    rng = random.Random(f"{game.name}/{game.id}")
    prefs = {int(k): list(p) for k, p in (game.options.get("preferences") or {}).items()}
    given = assign([s["id"] for s in players], list(v.powers), prefs, rng)
    taken = [given[s["id"]] for s in players]
    powers = taken + [p for p in v.powers if p not in taken]
    for s in players:
        ctx.store.update("seats", s["id"], power=given[s["id"]])
    for p in powers[len(players):]:
        ctx.store.insert("seats", game_id=game.id, power=p, role="player", player_id=None, password_hash=None,
                         status="vacant", wait=0, draw=0, joined=iso(ctx.now))
    game.state = "active"
    ctx.store.update("games", game.id, state="active", started=iso(ctx.now))
    pos = Position.from_json(v.start_position(), v)
    ph = open_phase(ctx, game, pos)
    letters = {p.name: p.letter for p in v.powers.values()}
    order = list(v.powers)  # the variant's order (its seed's), not the order the powers were given in
    units = [f"{u.power}: {describe.KIND_WORD[u.kind]} {pos.map.name(u.loc)}"
             for u in sorted(pos.units.values(), key=lambda u: (order.index(u.power), u.loc))]
    units += start_notes(pos, game.rules, order)
    by_power = {s["power"]: s for s in seats(ctx.store, game.id)}
    roster = None if anonymous(game) else [(p, public_label(ctx.store, game, by_power.get(p)) or "(vacant)")
                                           for p in order]
    settings = settings_lines(game, game_zone(ctx, game), {k: switch(game, k) for k in SWITCHES})
    pictures = start_pictures(game, pos)
    files = [a.filename for a in pictures]
    shown = any(a.cid == "map" for a in pictures)
    vacant = [p for p in order if p in powers[len(players):]]

    def mail(to: list[str], power: str | None = None, observer: bool = False) -> None:
        """The start mail: a player's with its sign-on and examples; observers' and the list's with
        the public parts only (position, map, roster as the rules allow, settings)."""
        subject, text = render("starting.txt", code=ctx.cfg.code, game=game.name, variant=v.title,
                               short=ph.short, power=power, observer=observer,
                               letter=letters[power] if power else None,
                               examples=example_orders(pos, power) if power else [],
                               phase=str(pos.phase), deadline=ctx.when(ph.deadline), units=units, vacant=vacant,
                               roster=roster, settings=settings, files=files, pictures=shown)
        ctx.mail(to, subject, MailText(text, text.html, pictures), game_id=game.id, kind="start")

    for s in seats(ctx.store, game.id):
        if s["player_id"] is not None:
            mail(seat_addresses(ctx.store, s), s["power"])
    m = master_address(ctx.store, game)
    if m:  # the master sees who plays what, with the addresses
        notice(ctx, game, "Game Starting", f"Game '{game.name}' has started.\n\n{players_text(ctx.store, game, True)}",
               to=[m])
    # observers (each apart, so that no one sees another's address) and the mailing list
    for s in seats(ctx.store, game.id, "observer"):
        if a := seat_addresses(ctx.store, s):
            mail(a, observer=True)
    if lst := list_address(ctx.store, game):
        mail([lst])


def start_pictures(game: Game, pos: Position) -> list[Any]:
    """The map of the starting position for the Game Starting mail, as the game's results carry
    their map (SET MAP): a small PNG (the SVG where no PNG can be drawn, or with SET MAP SVG), shown
    in the HTML part and attached for text readers; none with SET MAP OFF or LINK (no archive page
    exists before the first results)."""
    mode = str(game.options.get("map") or "png")
    if mode in ("off", "link"):
        return []
    v = game.variant
    title = f"{game.name}: {pos.phase}"
    if mode != "svg":
        try:
            return [Attachment("map.png", "image/png", mail_png(v, pos, [], pos.phase, title), "map")]
        except (ImportError, OSError) as exc:  # no cairo here: the SVG instead
            log.warning("start map: no PNG (%s); sending SVG", exc)
    return [Attachment("map.svg", "image/svg+xml", draw_svg(v, pos, [], phase=pos.phase, title=title)
                            .encode("utf-8"), "map")]


def players_text(store: Store, game: Game, master: bool) -> str:
    """Who plays which power, one a line, as the master (with addresses) or anyone may see it."""
    return "\n".join(f"{s['power']}: {shown_person(store, game, s, master=master) or '(vacant)'}"
                     for s in seats(store, game.id))


def game_over(ctx: Ctx, game: Game) -> None:
    """What everyone is told when a game ends however it ends: who played (an anonymous game's
    end report: the players are revealed) and the diaries."""
    if (game.options.get("switches") or {}).get("anonymous") == "yes":
        notice(ctx, game, "Players revealed", f"Game '{game.name}' is over; it was played anonymously. "
               f"The players were:\n\n{players_text(ctx.store, game, False)}")
    publish_diaries(ctx, game)


def start_notes(pos: Position, rules: dict[str, Any], powers: list[str]) -> list[str]:
    """Start-mail lines beyond the units: hidden start units (1885 II), a first build season (Deluge II)."""
    hidden = orderbook.hidden_units(pos, rules)
    out = [f"{pw}: Army or Fleet {pos.map.name(p)} (its kind is chosen with the first orders, and shown "
           f"by the first results)" for p, pw in sorted(hidden.items(), key=lambda kv: (powers.index(kv[1]), kv[0]))]
    if pos.phase.kind == "adjustment":
        out += [n for p in powers if (n := describe.adjustment_note(pos, p, rules))]
    return out


# -- who must order ---------------------------------------------------------------------------------
def required_powers(store: Store, game: Game, ph: PhaseRow, pos: Position | None = None) -> list[str]:
    return _required(game, pos or ph.position, seats(store, game.id))


def _required(game: Game, pos: Position, seat_rows: list[Any]) -> list[str]:
    """The powers of the player seats ``seat_rows`` (power, status) that must order in ``pos``."""
    active = [s["power"] for s in seat_rows if s["status"] == "active" and s["power"]]
    need = orderbook.needed_by_power(pos, active, game.rules)
    return [p for p in active if need[p] > 0]


def late_powers(store: Store, game: Game, ph: PhaseRow, pos: Position | None = None) -> list[str]:
    pos = pos or ph.position
    return list(_still_missing(store, game, ph, pos, required_powers(store, game, ph, pos)))


def _still_missing(store: Store, game: Game, ph: PhaseRow, pos: Position, required: list[str]) -> Iterator[str]:
    """The powers of ``required`` whose orders are not complete, in turn (every power's orders read
    in one query, only when some power is required)."""
    if not required:
        return
    given, rules = orderbook.orders_by_power(store, ph.id), game.rules
    for p in required:
        if orderbook.missing(pos, p, given.get(p, {}), rules) > 0:
            yield p


def any_late(store: Store, game: Game, ph: PhaseRow, pos: Position | None = None) -> bool:
    """Whether :func:`late_powers` is not empty. Mostly a power that must order has not ordered at
    all, which the powers with orders tell without reading any order (with no orders a power
    misses all it needs); only when each has given some are the orders read."""
    pos = pos or ph.position
    # the player seats, each with whether its power has any order in: one query, not two
    rows = store.all("SELECT s.power AS power, s.status AS status, EXISTS (SELECT 1 FROM orders o WHERE "
                     "o.phase_id = ? AND o.power = s.power AND o.state = 'active') AS ordered FROM seats s "
                     "WHERE s.game_id = ? AND s.role = 'player' ORDER BY s.id", (ph.id, game.id))
    required = _required(game, pos, rows)
    if not required:
        return False
    ordered = {r["power"] for r in rows if r["ordered"]}
    if any(p not in ordered for p in required):
        return True
    return next(_still_missing(store, game, ph, pos, required), None) is not None


def ready(ctx: Ctx, game: Game, ph: PhaseRow) -> bool:
    """All orders in, somebody playing and nobody waiting: the phase may be processed early."""
    pos = ph.shared_position  # only looked at: who must order, who has
    if any_late(ctx.store, game, ph, pos):
        return False
    if awaited(ctx.store, game, ph):  # nmr=wait: an open power waits for its player
        return False
    active, waiting = ctx.store.one("SELECT COUNT(*), COALESCE(SUM(wait = 1), 0) FROM seats WHERE game_id = ? "
                                    "AND role = 'player' AND status = 'active'", (game.id,))
    # nobody playing (every power vacant or in civil disorder): no orders can come, so the phase
    # waits for its deadline rather than the game playing itself out at once
    return bool(active) and not waiting


def maybe_process(ctx: Ctx, game: Game) -> None:
    """Process while every order is in and nobody has SET WAIT (a phase may follow another at once)."""
    for _ in range(100):
        if game.state != "active":
            return
        ph = current_phase(ctx.store, game)
        if ph is None or not ready(ctx, game, ph):
            return
        process(ctx, game, ph, "early")


# -- processing -----------------------------------------------------------------------------------------
def process(ctx: Ctx, game: Game, ph: PhaseRow, reason: str) -> None:
    """Adjudicate the open phase with the orders given; late powers go into civil disorder at grace end."""
    v = game.variant
    pos = ph.position
    late = late_powers(ctx.store, game, ph, pos)
    if reason == "grace" and late and replacements.nmr_mode(game) == "wait":
        wait_for_replacements(ctx, game, ph, late)
        late = []
    if reason != "master" and awaited(ctx.store, game, ph):
        return  # nmr=wait: only a new player (or the master's PROCESS) moves the phase on
    abandoned = replacements.count_missed(ctx.store, game, ph, pos, ctx.now)
    save_options(ctx, game)
    if reason in ("grace",) and late:
        for p in late:
            ctx.store.conn.execute("UPDATE seats SET status = 'cd' WHERE game_id = ? AND power = ? AND status = 'active'",
                                   (game.id, p))
    orders = orderbook.all_orders(ctx.store, ph.id, list(v.powers))
    if sync_alliances(ctx.store, game, pos):  # the phase keeps the board the engine read
        ctx.store.update("phases", ph.id, position=dumps(pos.to_json()))
    result = adjudicate(pos, orders, game.rules)
    nxt = result.next
    victory = result.victory if result.victory and result.victory.get("final") else None
    if victory is None and game.options.get("centres"):
        victory = _centre_victory(nxt, int(game.options["centres"]), pos)
    events = list(result.events)
    ctx.store.update("phases", ph.id, state="processed", processed_at=iso(ctx.now),
                     results=dumps([r.as_json() for r in result.results]))
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    ctx.store.conn.execute("UPDATE seats SET wait = 0, draw = 0, draw_set = NULL, concede = NULL WHERE game_id = ?",
                           (game.id,))
    ctx.processed.append(f"{game.name} {ph.short}")
    cd = [f"{p}" for p in late] if reason == "grace" else []
    if victory:
        winners = list(victory.get("winner") or [])
        game.state = "finished"
        game.outcome = {"kind": "victory" if winners else "no winner", "winner": winners, "phase": ph.short}
        if victory.get("kind"):
            game.outcome["rule"] = victory["kind"]  # solo, alliance, survivor, no survivor …
        if victory.get("survivors"):
            game.outcome["powers"] = list(victory["survivors"])
        # the last ownership, which no phase row holds (none opens after the end), for SUMMARY
        game.outcome["centres"] = describe.centre_counts(nxt)
        game.outcome["centres_year"] = nxt.phase.year if nxt.phase.kind == "adjustment" else pos.phase.year
        ctx.store.update("games", game.id, state="finished", finished=iso(ctx.now), outcome=dumps(game.outcome))
        if not winners:
            events.append(end_without_winner(victory))
        subject, text = zine.results_mail(ctx, game, ph, pos, result, victory=victory, events=events, cd=cd,
                                          new=None)
        tell_all(ctx, game, subject, text, kind="results")
        game_over(ctx, game)
        return
    new = open_phase(ctx, game, nxt)
    subject, text = zine.results_mail(ctx, game, ph, pos, result, victory=None, events=events, cd=cd, new=new)
    tell_all(ctx, game, subject, text, kind="results")
    if abandoned:
        n = replacements.abandon_after(game)
        open_powers(ctx, game, abandoned, f"sent no orders for {n} {'phase' if n == 1 else 'phases'} in a row",
                                    last=ph.short)
    apply_future_orders(ctx, game, new)


def end_without_winner(victory: dict[str, Any]) -> str:
    """The results line for a game the variant ends with nobody winning (Deluge II after W1908)."""
    left = list(victory.get("survivors") or [])
    if left:
        return f"The game is over ({victory.get('kind')}): nobody wins; {', '.join(left)} survive."
    return f"The game is over ({victory.get('kind', 'no winner')}): nobody wins."


def _centre_victory(nxt: Position, need: int, before: Position) -> dict[str, Any] | None:
    if nxt.phase.kind != "adjustment" and nxt.phase.year == before.phase.year:
        return None
    counts = sorted(describe.centre_counts(nxt).items(), key=lambda kv: -kv[1])
    if counts and counts[0][1] >= need and (len(counts) == 1 or counts[1][1] < counts[0][1]):
        return {"winner": [counts[0][0]], "kind": "solo", "centres": counts[0][1], "final": True}
    return None


def apply_future_orders(ctx: Ctx, game: Game, ph: PhaseRow) -> None:
    """Orders sent earlier with PHASE for this phase are read now, against the new board."""
    v = game.variant
    key = v.calendar.order_key(ph.phase)
    pos = ph.position
    for row in ctx.store.all("SELECT * FROM future_orders WHERE game_id = ? AND state = 'pending' ORDER BY id",
                             (game.id,)):
        try:
            target = v.calendar.parse(row["phase_name"])
        except ValueError:
            ctx.store.update("future_orders", row["id"], state="dropped")
            continue
        tkey = v.calendar.order_key(target)
        if tkey > key:
            continue
        seat = seat_of_power(ctx.store, game.id, row["power"])
        if tkey < key or seat is None or seat["status"] not in ("active", "cd"):
            ctx.store.update("future_orders", row["id"], state="dropped")
            continue
        sub = orderbook.submit(ctx.store, ph.id, pos, row["power"], row["raw"], game.rules, row["message_id"] or "",
                               ctx.now)
        ctx.store.update("future_orders", row["id"], state="applied")
        lines = orderbook.current_orders(ctx.store, ph.id, row["power"])
        subject, text = render("future_applied.txt", code=ctx.cfg.code, game=game.name, short=ph.short,
                               phase=ph.name, power=row["power"], lines=sub.lines, errors=sub.errors,
                               orders=describe.order_list(pos, row["power"], lines, game.rules))
        ctx.mail(seat_addresses(ctx.store, seat), subject, text, game_id=game.id, kind="orders")


def rollback(ctx: Ctx, game: Game, target: str | None) -> PhaseRow:
    """Undo processing back to ``target`` (a processed phase; default the last one) and reopen it."""
    done = processed_phases(ctx.store, game)
    if not done:
        raise GameError("no phase has been processed yet: nothing to roll back")
    row = done[-1]
    if target:
        t = target.strip().lower()
        rows = [r for r in done if r["short"].lower() == t or r["name"].lower() == t or str(r["seq"]) == t]
        if not rows:
            known = ", ".join(r["short"] for r in done)
            raise GameError(f"no processed phase {target!r} (processed: {known})")
        row = rows[-1]
    ctx.store.conn.execute("UPDATE phases SET state = 'undone' WHERE game_id = ? AND seq > ? AND state IN ('open', 'processed')",
                           (game.id, row["seq"]))
    deadline = next_deadline(ctx, game, game.variant.calendar.parse(row["name"]).kind, None)
    ctx.store.update("phases", row["id"], state="open", results=None, report=None, processed_at=None,
                     deadline=iso(deadline), grace_end=iso(deadline + timedelta(hours=game.grace_hours)))
    ctx.store.conn.execute("UPDATE seats SET wait = 0, draw = 0, draw_set = NULL, concede = NULL WHERE game_id = ?",
                           (game.id,))
    if game.state in ("finished",):
        game.state, game.outcome = "active", None
        ctx.store.update("games", game.id, state="active", finished=None, outcome=None)
    ph = current_phase(ctx.store, game)
    assert ph is not None
    if game.state == "active":
        past_absences(ctx, game, ph)
        schedule_phase(ctx, game, ph)
    else:
        deadlines.cancel_events(ctx.store, game.id, ctx.now)
    return ph


def finish_draw(ctx: Ctx, game: Game, powers: list[str]) -> None:
    """The game ends in a draw between ``powers`` (every survivor under DIAS)."""
    ph = current_phase(ctx.store, game)
    game.state, game.outcome = "finished", {"kind": "draw", "powers": powers, "phase": ph.short if ph else None}
    ctx.store.update("games", game.id, state="finished", finished=iso(ctx.now), outcome=dumps(game.outcome))
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    rule = ("draws include all survivors" if switch(game, "dias") == "yes" else
            "a draw the surviving powers with a player all accepted")
    notice(ctx, game, "Draw", f"Game '{game.name}' has ended in a {len(powers)}-way draw between "
           f"{join_names(powers)} ({rule}).{final_standing(ctx, game, ph)}")
    game_over(ctx, game)


def final_standing(ctx: Ctx, game: Game, ph: PhaseRow | None) -> str:
    """The board as a game ended by vote leaves it, for the end notice (a draw or concession ends
    between results, so no results mail says it): each power's centres and units and its player
    (public names; an anonymous game's players are named by its own notice)."""
    if ph is None:
        return ""
    pos = ph.position
    centres = describe.centre_counts(pos)
    units = {p: 0 for p in pos.variant.powers}
    for u in pos.units.values():
        units[u.power] = units.get(u.power, 0) + 1
    who = {s["power"]: public_label(ctx.store, game, s) for s in seats(ctx.store, game.id) if s["power"]}
    width = max((len(p) for p in pos.variant.powers), default=0) + 1
    lines = [f"  {p + ':':{width}} {centres.get(p, 0):2} centres, {units.get(p, 0):2} units"
             + (f"  ({who[p]})" if who.get(p) else "")
             for p in pos.variant.powers if centres.get(p) or units.get(p)]
    return f"\n\nThe board at the end ({ph.name}):\n\n" + "\n".join(lines)


def survivors(pos: Position) -> list[str]:
    alive = {u.power for u in pos.units.values()} | set(pos.centres.values())
    return [p for p in pos.variant.powers if p in alive]


def voting_seats(ctx: Ctx, game: Game) -> tuple[PhaseRow | None, list[str], list[Any]]:
    """The open phase, the surviving powers, and the seats of those with an active player (who vote)."""
    ph = current_phase(ctx.store, game)
    if ph is None or game.state != "active":
        return None, [], []
    alive = survivors(ph.position)
    return ph, alive, [s for s in seats(ctx.store, game.id) if s["power"] in alive and s["status"] == "active"]


def draw_list(seat: Any) -> list[str] | None:
    """The powers a seat's draw vote names (None: no vote; [] all survivors). A NoDIAS game's
    NODRAW is kept as ``draw`` 0 with the seat's own power listed: njudge reads it as a vote for
    the game conceded to that power alone."""
    listed = loads(seat["draw_set"], None)
    if not seat["draw"] and not listed:
        return None
    return list(listed or [])


def agreed_draw(votes: dict[str, list[str] | None], alive: list[str], dias: bool) -> list[str] | None:
    """The draw every voter accepts, or None. ``votes``: each voting power's draw list.

    DIAS: every voter votes for the draw of all survivors. NoDIAS (njudge's ``data/draws``): a
    list naming its voter accepts any part of it that keeps the voter in; a list leaving the
    voter out accepts any part of the list with the voter added or not. The draws every voter
    accepts are then the parts of the powers all lists (each with its voter) share that keep in
    every voter who named himself; the largest of them passes.
    """
    if not votes or any(v is None for v in votes.values()):
        return None
    if dias:
        return list(alive) if all(set(v or alive) == set(alive) for v in votes.values()) else None
    shared = set(alive)
    keep: set[str] = set()
    for voter, listed in votes.items():
        named = set(listed or alive)
        shared &= named | {voter}
        if voter in named:
            keep.add(voter)
    if not shared or not keep <= shared:
        return None
    return [p for p in alive if p in shared]


def check_draw(ctx: Ctx, game: Game) -> bool:
    """End the game if every surviving power with a player accepts the same draw (a NoDIAS draw
    of one power is a concession to it)."""
    ph, alive, voting = voting_seats(ctx, game)
    if ph is None:
        return False
    draw = agreed_draw({s["power"]: draw_list(s) for s in voting}, alive, switch(game, "dias") == "yes")
    if draw is None:
        return False
    if len(draw) == 1 and len(alive) > 1:
        end_by_concession(ctx, game, ph, draw)
    else:
        finish_draw(ctx, game, draw)
    return True


def vote_lines(store: Store, game: Game) -> list[str]:
    """Each power's draw and concession vote this phase, for the master's (or, with public votes,
    everyone's) LIST."""
    out = []
    for s in seats(store, game.id):
        parts = []
        listed = draw_list(s)
        if listed is not None and not s["draw"]:
            parts.append("no draw (accepts only a concession to itself)")
        elif listed is not None:
            parts.append("draw " + ("(all survivors)" if not listed else "".join(
                game.variant.powers[p].letter for p in listed if p in game.variant.powers)))
        conceded = loads(s["concede"], None)
        if conceded:
            parts.append("concedes to " + join_names(conceded))
        if s["power"]:
            out.append(f"{s['power']}: {', '.join(parts) if parts else 'no vote'}")
    return out


# -- alliances and concessions (1885 II rules 5b-d) ---------------------------------------------------
def alliance_sizes(v: Variant) -> dict[int, int]:
    """Number of powers -> centres an alliance of that size needs to win (empty: no alliance wins)."""
    return {int(a["powers"]): int(a["centres"]) for a in v.victory.get("alliances", ())}


def seat_alliances(seat: Any) -> list[list[str]]:
    """The alliances a seat has declared (each a sorted list of power names, itself included)."""
    return [sorted(g) for g in loads(seat["allies"], None) or []]


def agreed_alliances(store: Store, game: Game) -> list[list[str]]:
    """The alliances every member has declared, sorted."""
    declared = {s["power"]: {tuple(g) for g in seat_alliances(s)} for s in seats(store, game.id) if s["power"]}
    out = {g for groups in declared.values() for g in groups if all(g in declared.get(m, ()) for m in g)}
    return [list(g) for g in sorted(out)]


def sync_alliances(store: Store, game: Game, pos: Position) -> bool:
    """Put the declared alliances into ``pos.extra["alliances"]``, where the engine reads them.

    Only alliances declared before a move count for it: a movement phase takes every alliance
    agreed now; the retreat and adjustment phases after it keep those the move was played with,
    less any a member has withdrawn since. True if ``pos`` changed.
    """
    if not alliance_sizes(game.variant):
        return False
    before = pos.extra.get("alliances")
    agreed = agreed_alliances(store, game)
    if pos.phase.kind != "movement":
        agreed = [g for g in agreed if g in [sorted(x) for x in before or []]]
    if agreed:
        pos.extra["alliances"] = agreed
    else:
        pos.extra.pop("alliances", None)
    return pos.extra.get("alliances") != before


def set_alliances(ctx: Ctx, game: Game, seat: Any, groups: list[list[str]]) -> None:
    """Record a seat's declared alliances; tell everyone when an alliance comes into force or ends."""
    before = agreed_alliances(ctx.store, game)
    ctx.store.update("seats", seat["id"], allies=dumps(sorted(sorted(g) for g in groups)) if groups else None)
    after = agreed_alliances(ctx.store, game)
    need = alliance_sizes(game.variant)
    for g in after:
        if g not in before:
            notice(ctx, game, "Alliance declared",
                   f"{join_names(g)} have declared an alliance: they win together if they jointly own {need[len(g)]} "
                   f"supply centres at the end of a move after which centres change hands.")
    for g in before:
        if g not in after:
            notice(ctx, game, "Alliance withdrawn", f"The alliance of {join_names(g)} has been withdrawn.")


def join_names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def check_concession(ctx: Ctx, game: Game) -> bool:
    """The game ends when every surviving power with a player concedes it to the same powers (rule 5d)."""
    ph, _, voting = voting_seats(ctx, game)
    votes = {tuple(loads(s["concede"], None) or ()) for s in voting}
    if ph is None or not voting or len(votes) != 1 or () in votes:
        return False
    end_by_concession(ctx, game, ph, list(votes.pop()))
    return True


def end_by_concession(ctx: Ctx, game: Game, ph: PhaseRow, winners: list[str]) -> None:
    game.state, game.outcome = "finished", {"kind": "concession", "winner": winners, "phase": ph.short}
    ctx.store.update("games", game.id, state="finished", finished=iso(ctx.now), outcome=dumps(game.outcome))
    deadlines.cancel_events(ctx.store, game.id, ctx.now)
    notice(ctx, game, "Concession", f"Every surviving power has conceded game '{game.name}' to {join_names(winners)}: "
           f"the game is over, {join_names(winners)} {'wins' if len(winners) == 1 else 'win'}."
           f"{final_standing(ctx, game, ph)}")
    game_over(ctx, game)


def largest_powers(pos: Position) -> list[str]:
    """The powers owning the most supply centres (njudge: a concession goes to the largest power)."""
    counts = describe.centre_counts(pos)
    top = max(counts.values(), default=0)
    return [p for p in pos.variant.powers if counts.get(p, 0) == top and top > 0]


# -- diaries ----------------------------------------------------------------------------------------
def diary_entries(store: Store, game: Game, power: str | None = None) -> list[Any]:
    """A game's DIARY notes (one power's, or every power's), oldest first."""
    if power is None:
        return store.all("SELECT * FROM diary WHERE game_id = ? ORDER BY id", (game.id,))
    return store.all("SELECT * FROM diary WHERE game_id = ? AND power = ? ORDER BY id", (game.id, power))


def publish_diaries(ctx: Ctx, game: Game) -> None:
    """At the end of a game its diaries are published: mailed to everyone (and shown by HISTORY
    and the archive from now on)."""
    entries = diary_entries(ctx.store, game)
    if entries:
        notice(ctx, game, "Diaries", f"Game '{game.name}' is over: the diaries its players kept are published.\n\n"
               + diary_text(entries))


def diary_text(entries: list[Any]) -> str:
    # as written, as press is: a diary's own line breaks kept, no line left for the notice to re-wrap
    return "\n\n".join(f"{e['power']}, {e['phase_name'] or 'before the start'}:\n"
                        + press_text(str(e["body"]), 2, WIDTH) for e in entries)


def record_late(ctx: Ctx, game: Game, ph: PhaseRow, late: list[str]) -> None:
    """Note each late power's player as late for this phase (once a phase, whatever the deadline
    changes): the master's WHOGAME shows the count. Kept in the game's options (``late``: player id
    -> phase ids) as it belongs to the player, not the power."""
    book = game.options.setdefault("late", {})
    changed = False
    for p in late:
        s = seat_of_power(ctx.store, game.id, p)
        if s is None or s["player_id"] is None:
            continue
        phases = book.setdefault(str(s["player_id"]), [])
        if ph.id not in phases:
            phases.append(ph.id)
            changed = True
    if changed:
        save_options(ctx, game)


def late_count(game: Game, player_id: int | None) -> int:
    return len((game.options.get("late") or {}).get(str(player_id), [])) if player_id is not None else 0


def late_dues(store: Store, game: Game, ph: PhaseRow, late: list[str]) -> list[str]:
    """In an adjustment phase, the builds and removals each late power still owes
    (``France: 2 builds due``); in other phases the names say enough."""
    pos = ph.position
    if pos.phase.kind != "adjustment":
        return []
    return [lateness.still_due(pos, p, orderbook.missing(pos, p, orderbook.current_orders(store, ph.id, p), game.rules))
            for p in late]


# -- the timed events ---------------------------------------------------------------------------------
def run_phase_event(ctx: Ctx, game: Game, ev: Any) -> None:
    """A Diplomacy game's timed event (reminder, deadline, grace): :func:`judge.game.events.run_event`
    sends each game's events to its own kind of game."""
    ph = current_phase(ctx.store, game)
    if game.state != "active" or ph is None or ph.id != ev["phase_id"]:
        return
    pos = ph.position
    if ev["kind"] == "reminder":
        if ph.deadline is None or ph.deadline <= ctx.now:  # the judge ran late: the deadline event speaks
            return
        for p in late_powers(ctx.store, game, ph, pos):
            s = seat_of_power(ctx.store, game.id, p)
            orders = describe.order_list(pos, p, orderbook.current_orders(ctx.store, ph.id, p), game.rules)
            subject, text = render("reminder.txt", code=ctx.cfg.code, game=game.name, variant=game.variant.title,
                                   short=ph.short, power=p, deadline=ctx.when(ph.deadline), orders=orders,
                                   left=deadlines.format_left(ph.deadline - ctx.now) if ph.deadline else "",
                                   note=describe.adjustment_note(pos, p, game.rules))
            ctx.mail(seat_addresses(ctx.store, s), subject, text, game_id=game.id, kind="reminder")
        return
    late = late_powers(ctx.store, game, ph, pos)
    if ev["kind"] == "deadline":
        record_late(ctx, game, ph, late)
        if not late:
            process(ctx, game, ph, "deadline")
            maybe_process(ctx, game)
            return
        grace_end = ph.grace_end or ctx.now
        if grace_end <= ctx.now:
            process(ctx, game, ph, "grace")
            maybe_process(ctx, game)
            return
        for to in audience(ctx.store, game):
            seat_powers = [s["power"] for s in seats(ctx.store, game.id)
                           if s["power"] in late and set(seat_addresses(ctx.store, s)) & set(to)]
            subject, text = render("late.txt", code=ctx.cfg.code, game=game.name, variant=game.variant.title,
                                   short=ph.short, late=late, you_late=bool(seat_powers),
                                   deadline=ctx.when(ph.deadline), grace_end=ctx.when(grace_end),
                                   dues=late_dues(ctx.store, game, ph, late),
                                   processed=lateness.processed_by(f"at the end of the grace period, "
                                                                   f"{ctx.when(grace_end)}"),
                                   after=lateness.after_grace(replacements.nmr_mode(game), pos.phase.kind))
            ctx.mail(to, subject, text, game_id=game.id, kind="late")
        deadlines.schedule(ctx.store, game.id, ph.id, "grace", grace_end)
        return
    if ev["kind"] == "grace":
        process(ctx, game, ph, "grace")
        maybe_process(ctx, game)
