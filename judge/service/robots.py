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
from judge.engine.position import Position
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

    def orders(self, pos: Position) -> list[str]:
        """Order lines for this robot's power in the phase ``pos`` is in."""
        assert self.power is not None
        kind = pos.phase.kind
        style = self.rng.choice((0, 0, 1, 2)) if self.free_form else 0
        move_word = {0: " - ", 1: " to ", 2: " -> "}[style]
        m = pos.map
        lines: list[str] = []
        if kind == "movement":
            mine = sorted((u for u in pos.units.values() if u.power == self.power), key=lambda u: u.loc)
            taken: set[str] = set()
            for u in mine:
                if u.kind == "A":
                    cands = sorted(m.army_adj.get(u.prov, ()))
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
            # a unit left holding supports a neighbour's attack where it can
            moves = {}  # target province -> (unit, dest)
            for u, line in zip(mine, lines):
                if line.endswith((" H", " holds")):
                    continue
                for c in (m.army_adj.get(u.prov, ()) if u.kind == "A" else m.fleet_adj.get(u.loc, ())):
                    if line.lower().endswith((m.display(c).lower(), m.provinces[province_of(c)].name.lower())):
                        moves[province_of(c)] = (u, c)
            for i, u in enumerate(mine):
                if not lines[i].endswith((" H", " holds")):
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
                else:
                    lines.append(f"{d.unit.kind} {m.display(d.unit.loc)} disband")
        else:
            due = adjustments_due(pos).get(self.power, 0)
            if due > 0:
                sites = build_sites(pos, self.power)
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
                for u in self.rng.sample(mine, -due):
                    lines.append(f"Remove {u.kind} {m.display(u.loc)}")
        return lines
