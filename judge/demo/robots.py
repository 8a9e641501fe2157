"""Robot players for ``judge demo`` (and the tests): they write mail the way people do.

A robot looks at the board, picks plausible orders (greedy for supply centres, never clever),
and writes them in free-form text when the order language is installed, else in the canonical
notation. They make the odd mistake on purpose, so the demo shows error replies.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from datetime import datetime

from judge.engine.adjustment import adjustments_due, build_sites
from judge.engine.position import Position, Unit
from judge.variant import province_of


def make_mail(sender: str, to: str, body: str, subject: str = "orders", *, message_id: str | None = None,
              date: datetime | None = None, headers: dict[str, str] | None = None) -> bytes:
    """A plain-text message as a mail client would send it."""
    m = EmailMessage()
    m["From"] = sender
    m["To"] = to
    m["Subject"] = subject
    m["Message-ID"] = message_id or make_msgid(domain=sender.rpartition("@")[2] or "robot.invalid")
    if date is not None:
        m["Date"] = format_datetime(date)
    for k, v in (headers or {}).items():
        m[k] = v
    m.set_content(body)
    return bytes(m)


def free_form_available() -> bool:
    try:
        import judge.orders  # noqa: F401
        from judge.orders import parse_orders  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass
class Robot:
    address: str
    password: str
    rng: random.Random
    power: str | None = None
    free_form: bool = field(default_factory=free_form_available)
    mistakes: float = 0.08  # chance of one wrong order in a message

    def _unit(self, pos: Position, kind: str, loc: str, style: int) -> str:
        m = pos.map
        if kind == "A/F":
            return f"A/F {m.display(loc)}"
        if style == 1:
            return f"{'army' if kind == 'A' else 'fleet'} {m.provinces[province_of(loc)].name.lower()}"
        if style == 2:
            return m.provinces[province_of(loc)].name
        return f"{kind} {m.display(loc)}"

    def _place(self, pos: Position, loc: str, style: int) -> str:
        m = pos.map
        if style in (1, 2) and "/" not in loc:
            return m.provinces[loc].name if style == 2 else m.provinces[loc].name.lower()
        return m.display(loc)

    def orders(self, pos: Position, rules: dict | None = None) -> list[str]:
        """Order lines for this robot's power in the phase ``pos`` is in (``rules``: the game's)."""
        assert self.power is not None
        rules = rules if rules is not None else pos.variant.rules
        modules = set(rules.get("modules", ()))
        kind = pos.phase.kind
        style = self.rng.choice((0, 0, 1, 2)) if self.free_form else 0
        move_word = {0: " - ", 1: " to ", 2: " -> "}[style]
        m = pos.map
        lines: list[str] = []
        if kind == "movement":
            mine = sorted((u for u in pos.units.values() if u.power == self.power), key=lambda u: u.loc)
            from judge.game.orderbook import hidden_units

            for prov, pw in sorted(hidden_units(pos, rules).items()):  # 1885 II: choose the kind now
                if pw == self.power:
                    mine.append(Unit(pw, self.rng.choice(("A", "F")), prov))
            taken: set[str] = set()
            boarded: set[str] = set()  # fleets an army boards this move: they hold
            for u in mine:
                special = self._variant_order(pos, u, modules, boarded)
                if special:
                    taken.add(u.prov)
                    lines.append(special)
                    continue
                if u.kind == "A":
                    cands = sorted(m.army_adj.get(u.prov, ()))
                elif u.kind == "A/F":  # an army/fleet keeps to the sea
                    cands = sorted(c for c in m.fleet_adj.get(u.loc, ()) if m.terrain[province_of(c)] == "sea")
                else:
                    cands = sorted(m.fleet_adj.get(u.loc, ()))
                good = [c for c in cands if province_of(c) in m.centres and pos.centres.get(province_of(c)) != self.power
                        and province_of(c) not in taken]
                other = [c for c in cands if province_of(c) not in taken and
                         not (province_of(c) in pos.units and pos.units[province_of(c)].power == self.power)]
                dest = None
                if good and self.rng.random() < 0.8:
                    dest = self.rng.choice(good)
                elif other and self.rng.random() < 0.6:
                    dest = self.rng.choice(other)
                if dest is None:
                    taken.add(u.prov)
                    lines.append(f"{self._unit(pos, u.kind, u.loc, style)} {'holds' if style else 'H'}")
                else:
                    taken.add(province_of(dest))
                    lines.append(f"{self._unit(pos, u.kind, u.loc, style)}{move_word}{self._place(pos, dest, style)}")
            for i, u in enumerate(mine):
                if u.prov in boarded:
                    lines[i] = f"{self._unit(pos, u.kind, u.loc, 0)} H"
            # a unit left holding supports a neighbour's attack where it can
            moves = {}  # target province -> (unit, dest)
            for u, line in zip(mine, lines):
                if line.endswith((" H", " holds")) or u.kind == "A/F":
                    continue
                for c in (m.army_adj.get(u.prov, ()) if u.kind == "A" else m.fleet_adj.get(u.loc, ())):
                    if line.lower().endswith((m.display(c).lower(), m.provinces[province_of(c)].name.lower())):
                        moves[province_of(c)] = (u, c)
            for i, u in enumerate(mine):
                if not lines[i].endswith((" H", " holds")) or u.prov in boarded:
                    continue
                reach = m.army_adj.get(u.prov, ()) if u.kind == "A" else m.fleet_reach.get(u.loc, frozenset())
                for target, (mover, dest) in moves.items():
                    if target in reach:
                        lines[i] = (f"{u.kind} {m.display(u.loc)} S {mover.kind} {m.display(mover.loc)} - "
                                    f"{m.display(province_of(dest))}")
                        break
            if lines and self.rng.random() < self.mistakes:
                u = mine[0]
                far = sorted(p for p in m.provinces if p not in m.army_adj.get(u.prov, ()) and p != u.prov
                             and m.terrain[p] in ("land", "coast"))
                lines.append(f"{u.kind} {m.display(u.loc)} - {m.display(self.rng.choice(far))}")
        elif kind == "retreat":
            for d in sorted(pos.dislodged.values(), key=lambda d: d.unit.loc):
                if d.unit.power != self.power:
                    continue
                if d.retreats:
                    lines.append(f"{d.unit.kind} {m.display(d.unit.loc)} - {m.display(self.rng.choice(d.retreats))}")
                elif rules.get("retreat_disband") != "forbidden":  # else the variant's default retreat
                    lines.append(f"{d.unit.kind} {m.display(d.unit.loc)} disband")
        else:
            due = adjustments_due(pos).get(self.power, 0)
            if due > 0:
                sites = build_sites(pos, self.power, rules)
                self.rng.shuffle(sites)
                for s in sites[:due]:
                    coastal = m.fleet_locs.get(s)
                    if coastal and self.rng.random() < 0.4:
                        lines.append(f"Build F {m.display(self.rng.choice(coastal))}")
                    else:
                        lines.append(f"Build A {m.display(s)}")
                for _ in range(due - len(sites[:due])):
                    lines.append("Waive")
            elif due < 0:
                mine = sorted((u for u in pos.units.values() if u.power == self.power), key=lambda u: u.loc)
                left = -due
                for u in self.rng.sample(mine, min(-due, len(mine))):
                    if left <= 0:
                        break
                    if u.kind == "A/F" and left == 1:  # an army/fleet is two units: take only its army
                        lines.append(f"Remove A {m.display(u.loc)}")
                    else:
                        lines.append(f"Remove {u.kind} {m.display(u.loc)}")
                    left -= 2 if u.kind == "A/F" and left > 1 else 1
        return lines

    def _variant_order(self, pos: Position, u: Unit, modules: set[str], boarded: set[str]) -> str | None:
        """Now and then an order only a rule module knows: transform, embark, disembark."""
        m = pos.map
        if not modules & {"transform", "army_fleet"} or u.prov not in pos.units or self.rng.random() > 0.25:
            return None  # (nor for a hidden start unit)
        coasts = m.fleet_locs.get(u.prov, ())
        if "transform" in modules and u.kind == "A" and coasts and m.terrain[u.prov] == "coast":
            c = self.rng.choice(coasts)
            return f"A {m.display(u.loc)} T F{c[len(u.prov):]}"
        if "army_fleet" in modules and u.kind == "A":
            ships = [f for f in pos.units.values() if f.power == u.power and f.kind == "F" and f.prov not in boarded
                     and m.terrain[f.prov] == "sea" and f.prov in m.fleet_reach_prov.get(u.prov, ())]
            if ships and m.terrain[u.prov] == "coast":
                ship = self.rng.choice(ships)
                boarded.add(ship.prov)
                return f"A {m.display(u.loc)} E F {m.display(ship.loc)}"
        if "army_fleet" in modules and u.kind == "A/F":
            shore = sorted(p for p in m.fleet_reach.get(u.loc, ()) if m.terrain[p] == "coast")
            if shore:
                return f"A {m.display(u.loc)} D {m.display(self.rng.choice(shore))}"
        return None
