"""What a zine-style results report says, worked out once for both the text and the HTML part.

Order texts use full province names; the words of one name are joined by no-break spaces
(:data:`NBSP`) so that wrapping never splits "North Sea" (the text part turns them back into
spaces after wrapping).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from judge.engine import PhaseResult, Position
from judge.engine.adjustment import unit_count
from judge.engine.orders import OrderResult
from judge.render.describe import Describer
from judge.render.templates import NBSP, nb
from judge.variant import Variant, province_of

MISSED = {"movement": "NMR", "retreat": "NRR", "adjustment": "NRR"}  # no moves / no reply received


@dataclass
class GameInfo:
    """What the report needs to know about the game beyond the board."""

    name: str
    judge: str = "judge"
    players: dict[str, str | None] = field(default_factory=dict)  # power -> player's name (None: vacant)
    nmr: list[str] = field(default_factory=list)  # powers whose orders did not arrive
    gm_actions: list[tuple[str | None, str]] = field(default_factory=list)  # (power or None, "/r/ a moab")
    deadline: datetime | None = None  # of the next phase
    timezone: str = "UTC"  # the game's time zone (IANA name)
    press: list[tuple[str, str | list[str], str]] = field(default_factory=list)  # (from, to, text)


@dataclass
class OrderLine:
    text: str
    tag: str = ""  # "bounced", "cut", "dislodged", "void: ...", "no order" ...
    failed: bool = False


@dataclass
class PowerBlock:
    name: str
    player: str | None
    colour: str
    markers: list[str] = field(default_factory=list)  # "NMR", "GM /r/ a moab"
    orders: list[OrderLine] = field(default_factory=list)
    dislodged: list[str] = field(default_factory=list)  # "F North Sea, may retreat to ..."
    has: str = ""  # adjustment results: the units now on the board, "A Vienna, F Trieste"
    has_count: str = ""  # "5 - 1 short"


@dataclass
class CentreRow:
    power: str
    colour: str
    centres: list[str]
    gained: list[str]
    lost: list[str]
    units: int
    change: str  # "builds 1", "removes 2", "no change"


@dataclass
class PressItem:
    sender: str
    to: str
    text: str


@dataclass
class ReportView:
    game: str
    judge: str
    variant: str
    phase: str
    phase_short: str
    powers: list[PowerBlock]
    gm: list[str]  # games-master actions not tied to a power
    events: list[str]
    centres: list[CentreRow] | None
    unowned: list[str]
    victory: str
    next_phase: str
    deadline: str
    press: list[PressItem]


def names(items: list[str]) -> str:
    """``a, b or c`` style lists for retreat options."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def format_deadline(when: datetime | None, tz_name: str) -> str:
    """``Tue 6 Jan 2004, 23:30 CET (Europe/Berlin)``, or ``… 23:30 UTC`` where the zone is named as its
    abbreviation (no "UTC (UTC)"); a naive time is taken as UTC."""
    if when is None:
        return ""
    try:
        tz = ZoneInfo(tz_name)
    except (ZoneInfoNotFoundError, ValueError):
        tz, tz_name = ZoneInfo("UTC"), "UTC"
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    t = when.astimezone(tz)
    zone = "" if tz_name == t.tzname() else f" ({tz_name})"
    return f"{t:%a} {t.day} {t:%b %Y, %H:%M} {t.tzname()}{zone}"


def tag(r: OrderResult) -> str:
    """The bracketed note after an order: why it failed, or what the judge did."""
    if r.result == "invalid":
        return f"void: {r.reason}" if r.reason else "void"
    reason = r.reason
    if r.default:
        return "no order" if reason.startswith("no order:") else reason  # "no order, dislodged", "civil disorder"
    if r.result == "fails":
        head, _, _ = reason.partition(":")
        return head or "failed"
    return reason  # a successful order may still end with "dislodged"


def build_view(variant: Variant, before: Position, result: PhaseResult, game: GameInfo) -> ReportView:
    after = result.next
    kind = result.phase.kind
    m = variant.map_at(result.phase)
    say = Describer(variant, m, before)
    by_power: dict[str, list[OrderResult]] = {}
    for r in result.results:
        by_power.setdefault(r.power, []).append(r)
    nmr = set(game.nmr)
    gm_by_power: dict[str, list[str]] = {}
    gm_general: list[str] = []
    for power, text in game.gm_actions:
        if power in variant.powers:
            gm_by_power.setdefault(power, []).append(f"GM {text}")
        else:
            gm_general.append(f"GM {text}")
    powers: list[PowerBlock] = []
    for name, pw in variant.powers.items():
        rs = by_power.get(name, [])
        alive = any(u.power == name for u in after.units.values()) or name in after.centres.values()
        if not (rs or name in gm_by_power or (kind == "adjustment" and alive)):
            continue
        block = PowerBlock(name, game.players.get(name), pw.colour)
        owed = [r for r in rs if not _no_choice(before, kind, r)]
        if owed and (name in nmr or all(r.default for r in owed)):
            block.markers.append(MISSED.get(kind, "NMR"))
        block.markers += gm_by_power.get(name, [])
        for r in rs:
            note = tag(r)
            block.orders.append(OrderLine(say.order(r), nb(note) if len(note) < 24 else note,
                                          r.result != "succeeds"))
        if after.phase.kind == "retreat":
            for d in sorted(after.dislodged.values(), key=lambda d: m.name(d.unit.loc)):
                if d.unit.power == name:
                    where = [say.loc(x) for x in d.retreats]
                    block.dislodged.append(f"{d.unit.kind}{NBSP}{say.loc(d.unit.loc)}, " + (
                        f"may retreat to {names(where)}" if where else "must disband"))
        for d in sorted(result.destroyed, key=lambda d: m.name(d.unit.loc)):
            if d.unit.power == name:  # nowhere to go: no retreat phase for it
                block.dislodged.append(f"{d.unit.kind}{NBSP}{say.loc(d.unit.loc)}, no retreat: destroyed")
        if kind == "adjustment":
            mine = sorted((u for u in after.units.values() if u.power == name), key=lambda u: m.name(u.loc))
            block.has = ", ".join(f"{u.kind}{NBSP}{say.loc(u.loc)}" for u in mine) or "no units"
            n_units = sum(unit_count(u) for u in mine)
            short = sum(1 for p in after.centres.values() if p == name) - n_units
            block.has_count = f"{n_units} - {short} short" if short > 0 else str(n_units)
        powers.append(block)
    centres, unowned = _centre_chart(variant, before, after, say)
    return ReportView(
        game=game.name, judge=game.judge, variant=variant.title, phase=str(result.phase),
        phase_short=result.phase.short, powers=powers, gm=gm_general, events=list(result.events),
        centres=centres, unowned=unowned, victory=_victory(variant, result), next_phase=str(after.phase),
        deadline=format_deadline(game.deadline, game.timezone),
        press=[PressItem(s, t if isinstance(t, str) else ", ".join(t), x) for s, t, x in game.press],
    )


def _no_choice(before: Position, kind: str, r: OrderResult) -> bool:
    """The judge's disband of a dislodged unit that had nowhere to go: no order was owed for it
    (a retreat phase stored before such units were destroyed with the moves)."""
    if kind != "retreat" or not r.default or r.order is None:
        return False
    d = before.dislodged.get(province_of(r.order.loc))
    return d is not None and not d.retreats


def _centre_chart(variant: Variant, before: Position, after: Position, say: Describer
                  ) -> tuple[list[CentreRow] | None, list[str]]:
    """Owners, gains and losses and adjustments due, when ownership was just worked out."""
    if after.phase.kind != "adjustment" and before.centres == after.centres:
        return None, []
    m = after.map
    key = lambda p: m.name(p)  # noqa: E731
    rows = []
    for name, pw in variant.powers.items():
        now = sorted((c for c, p in after.centres.items() if p == name), key=key)
        was = {c for c, p in before.centres.items() if p == name}
        units = sum(unit_count(u) for u in after.units.values() if u.power == name)
        if not now and not was and not units:
            continue
        due = len(now) - units
        change = f"builds {due}" if due > 0 else f"removes {-due}" if due < 0 else "no change"
        rows.append(CentreRow(name, pw.colour, [say.loc(c) for c in now],
                              [say.loc(c) for c in now if c not in was],
                              [say.loc(c) for c in sorted(was - set(now), key=key)], units, change))
    unowned = sorted((c for c in m.centres if c not in after.centres), key=key)
    return rows, [say.loc(c) for c in unowned]


def _victory(variant: Variant, result: PhaseResult) -> str:
    v = result.victory
    if not v:
        return ""
    winners = [str(w) for w in v.get("winner", [])]
    who = " and ".join(winners) or "nobody"
    if v.get("kind") == "solo" and winners:
        return f"{who} wins with {v.get('centres', '?')} supply centres."
    return f"The game ends ({v.get('kind', 'over')}): {who}."
