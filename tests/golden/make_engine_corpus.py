"""Write the golden engine corpus, ``tests/golden/engine_corpus.jsonl``: today's adjudication
outcomes, pinned, so a refactor of the engine (the movement resolver, the rule modules' hooks)
can be checked to change none of them. ``tests/test_engine_corpus.py`` replays every case.

    python tests/golden/make_engine_corpus.py

Regenerate ONLY after a deliberate rule change (a ruling, a fixed adjudication bug), never to
make a refactor pass; the commit message must say which rule changed and why the changed
outcomes are right. The generator is deterministic (fixed seed, stdlib ``random``): the same
engine writes the same file, byte for byte.

One JSON line a case: ``{"id", "variant", "rules", "position", "orders", "expected"}`` where
``rules`` is the full rule dict played (variant's rules merged with the case's options),
``position`` is ``Position.to_json()``, ``orders`` the order lines (``Power: order``) and
``expected`` ``{"results": [[power, text, result, reason], ...], "next", "events"}`` (and
``victory`` when there is one, ``destroyed`` when a dislodged unit had no retreat). Lines the order language cannot read are results too
(``invalid``, with the reader's reason), in the order they were written.

Two sources of positions, under every rule set below:

- robot games (``judge.demo.robots.Robot``, as ``bench/corpus.py`` plays them), every phase;
- dense random scenarios around one sea space: A/Fs, fleets and the armies next to them, with
  order mixes rich in the Army/Fleet kinds (embark, disembark, landing supports, Fast Ferry,
  A/F moves; fleets of boarded armies moving; attacks on boarded fleets), plain orders and some
  invalid ones; each followed through its retreat and adjustment phases.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from judge.demo.robots import Robot  # noqa: E402
from judge.engine import adjudicate, modules, read_position  # noqa: E402
from judge.engine.position import Position, Unit  # noqa: E402
from judge.orders import parse_orders  # noqa: E402
from judge.orders.lexer import order_lines  # noqa: E402
from judge.rules import merge_rules  # noqa: E402
from judge.variant import Variant, load_variant, province_of  # noqa: E402

OUT = Path(__file__).resolve().parent / "engine_corpus.jsonl"
SEED = 20261126

#: (variant, options over the variant's rules, robot games, random scenarios)
RULE_SETS: list[tuple[str, dict[str, Any], int, int]] = [
    ("af_standard", {}, 2, 250),  # Davis 1984, szykman
    ("af_standard", {"convoy_paradox": "1971"}, 1, 150),
    ("af_standard", {"af_boarding_attack": "sea_space"}, 1, 110),
    ("af_standard", {"af_rules": "agar"}, 2, 250),
    ("af_standard", {"af_rules": "agar", "convoy_paradox": "1971"}, 1, 130),
    ("af_standard", {"af_rules": "agar", "convoy_paradox": "convoyed_attack_yields"}, 0, 70),
    ("deluge2", {}, 2, 150),  # Davis, af_boarding_attack sea_space, transform
    ("deluge2", {"af_boarding_attack": "any_fleet"}, 1, 90),
    ("deluge2", {"af_rules": "agar"}, 1, 90),
    ("1885", {}, 1, 120),
    ("coast_running", {}, 1, 90),
    ("coast_running", {"convoy_paradox": "szykman"}, 1, 50),
    ("coast_running", {"convoy_paradox": "1971"}, 1, 50),
    ("standard", {}, 1, 50),
    ("standard", {"convoy_paradox": "1971"}, 1, 50),
    ("standard", {"convoy_paradox": "convoyed_attack_yields"}, 1, 50),
]
ROBOT_YEARS = 3


# ------------------------------------------------------------------ running a case
def game_rules(variant: str, options: dict[str, Any]) -> tuple[dict[str, Any], Variant]:
    v = load_variant(variant)
    rules = merge_rules(v.rules, options)
    return rules, v.with_rules(rules)


def run(v: Variant, rules: dict[str, Any], pos: Position, text: str) -> tuple[dict[str, Any], Position]:
    """Adjudicate order ``text`` in ``pos``: the expected outcome (JSON) and the next position."""
    def parse(t: str, at: Position) -> list:
        return parse_orders(t, at, rules=rules, warn=False)

    parsed = modules.read_orders(text, pos, rules, parse, order_lines)
    res = adjudicate(pos, [p.order for p in parsed if p.order is not None], rules)
    engine = iter(res.results)
    results: list[list[str]] = []
    for p in parsed:
        if p.order is None:
            results.append([p.power or "", p.line, "invalid", p.error])
        else:
            r = next(engine)
            results.append([r.power, r.text, r.result, r.reason])
    results.extend([r.power, r.text, r.result, r.reason] for r in engine)  # the judge's own (defaults)
    out: dict[str, Any] = {"results": results, "next": res.next.to_json(), "events": list(res.events)}
    if res.victory:
        out["victory"] = res.victory
    if res.destroyed:  # dislodged with no retreat: destroyed with the moves
        out["destroyed"] = [d.unit.text(pos.map) for d in res.destroyed]
    return out, res.next


def replay(case: dict[str, Any]) -> tuple[dict[str, Any], Position]:
    """A stored case adjudicated by today's engine: what ``case["expected"]`` must equal (and
    the next position). The position is read from its JSON, as the test reads it."""
    rules = merge_rules(case["rules"])
    v = load_variant(case["variant"]).with_rules(rules)
    pos = read_position(case["position"], v, rules)
    return run(v, rules, pos, "".join(line + "\n" for line in case["orders"]))


def dumps(case: dict[str, Any]) -> str:
    return json.dumps(case, separators=(",", ":"), sort_keys=True)


def jsonable(rules: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in rules.items()}


# ------------------------------------------------------------------ robot games
def robot_phases(v: Variant, rules: dict[str, Any], rng: random.Random, games: int
                 ) -> Iterator[tuple[Position, str]]:
    for _ in range(games):
        robots = [Robot(f"r{i}@corpus.invalid", "x", random.Random(rng.random()), power=p, free_form=False)
                  for i, p in enumerate(v.powers)]
        pos = read_position(v.start_position(), v, rules)
        start_year = pos.phase.year
        while pos.phase.year < start_year + ROBOT_YEARS:
            lines = [f"{r.power}: {line}" for r in robots for line in r.orders(pos, rules)]
            text = "".join(line + "\n" for line in lines)
            yield pos, text
            _, nxt = run(v, rules, pos, text)
            if nxt.phase == pos.phase:
                break
            pos = nxt


# ------------------------------------------------------------------ random local scenarios
class Scenario:
    """Random units around one sea space and random orders for them, rich in A/F kinds."""

    def __init__(self, v: Variant, rules: dict[str, Any], rng: random.Random):
        self.v, self.rules, self.rng = v, rules, rng
        self.af = "army_fleet" in rules.get("modules", ())

    def movement_phases(self) -> list:
        cal = self.v.calendar
        ph, out = cal.start, []
        for _ in range(40):
            if ph.kind == "movement":
                out.append(ph)
            ph = cal.following(ph)
            if ph.year > cal.start.year + 1:
                break
        return out

    def position(self) -> Position | None:
        rng, v = self.rng, self.v
        phase = rng.choice(self.movement_phases())
        m = v.map_at(phase)
        seas = sorted(p for p, t in m.terrain.items() if t == "sea" and m.fleet_reach_prov.get(p))
        if not seas:
            return None
        centre = rng.choice(seas)
        area = {centre} | set(m.any_adj.get(centre, ()))
        for p in sorted(area):
            if rng.random() < 0.5:
                area |= set(m.any_adj.get(p, ()))
        area_l = sorted(area)
        powers = rng.sample(sorted(v.powers), min(len(v.powers), rng.choice((2, 2, 3, 3, 4))))
        units: dict[str, Unit] = {}
        for p in area_l:
            if rng.random() > 0.62:
                continue
            t = m.terrain[p]
            power = rng.choice(powers)
            if t == "sea":
                kind = rng.choice(("A/F", "A/F", "F", "F") if self.af else ("F",))
                loc = p
            elif t == "coast":
                kind = rng.choice(("A", "A", "A", "F"))
                locs = m.unit_locs("F", p)
                if kind == "F" and not locs:
                    kind = "A"
                loc = rng.choice(locs) if kind == "F" else p
            else:
                kind, loc = "A", p
            if m.can_hold("F" if kind == "A/F" else kind, loc):
                units[p] = Unit(power, kind, loc)
        if len(units) < 2:
            return None
        for p, u in sorted(units.items()):  # fleets often belong to an army's power next to them
            if m.terrain[p] == "sea" and rng.random() < 0.5:
                ashore = sorted({o.power for q, o in units.items() if o.kind == "A" and q in m.fleet_reach_prov.get(p, ())})
                if ashore:
                    u.power = rng.choice(ashore)
        centres: dict[str, str] = {}
        for c in sorted(m.centres):  # nearby centres to random owners: some adjustments are due
            if c in area and rng.random() < 0.7:
                centres[c] = rng.choice(powers)
            elif c in area and c in units and rng.random() < 0.5:
                centres[c] = units[c].power
        extra: dict[str, Any] = {}
        if self.af and rng.random() < 0.3:  # Davis's rations: some armies long at sea
            ration = {m.display(u.loc): rng.randint(1, 3) for u in units.values() if u.kind == "A/F"}
            if ration:
                extra["af_rations"] = ration
        return Position(v, phase, units, centres, {}, extra)

    # -- orders --------------------------------------------------------------------------
    def movement_orders(self, pos: Position) -> list[str]:
        rng, m = self.rng, pos.map
        d = m.display
        lines: list[str] = []
        self.planned: list[tuple[str, str, str, bool]] = []
        done = self.paradox(pos, lines) if rng.random() < 0.3 else set()
        units = sorted(pos.units.values(), key=lambda u: u.loc)
        supporters = []
        for u in units:
            if u.prov in done:
                continue
            if rng.random() < 0.08:
                continue  # unordered: the judge's default
            if rng.random() < 0.3:
                supporters.append(u)  # ordered after the moves, to support one of them
                continue
            for o in self.unit_orders(pos, u):
                lines.append(f"{u.power}: {o}")
        for u in supporters:
            lines.append(f"{u.power}: {self.support(pos, u)}")
        if rng.random() < 0.25:  # an order that cannot be read or cannot be executed
            u = rng.choice(units)
            bad = rng.choice((f"{u.kind} {d(u.loc)} - {d(rng.choice(sorted(m.provinces)))}",
                              f"A {d(rng.choice(sorted(m.provinces)))} - {d(u.loc)}",
                              f"F {d(u.loc)} jumps about",
                              f"A/F {d(u.loc)} C A {d(u.loc)} - {d(rng.choice(sorted(m.provinces)))}"))
            lines.append(f"{u.power}: {bad}")
        rng.shuffle(lines)
        return lines

    def paradox(self, pos: Position, lines: list[str]) -> set[str]:
        """Set up (on the board ``pos``, replacing units) a carried move into a province whose
        fleet supports an attack on the carrier: a convoy / Fast Ferry paradox, or a landing that
        would decide its own A/F's move. Returns the provinces whose units it ordered."""
        rng, m = self.rng, pos.map
        d = m.display
        seas = sorted(p for p in {u.prov for u in pos.units.values()} | set(m.terrain)
                      if m.terrain[p] == "sea" and p in pos.units)
        rng.shuffle(seas)
        for sea in seas:
            shore = sorted(p for p in m.fleet_reach.get(sea, ()) if m.terrain[p] == "coast")
            # a coast whose fleet can support into the sea, and another unit that can attack it
            landing_sites = [(p, loc) for p in shore for loc in m.unit_locs("F", p)
                             if sea in map(province_of, m.fleet_adj.get(loc, ()))]
            attackers = [loc for loc in sorted(m.fleet_adj.get(sea, ())) if province_of(loc) not in (sea,)]
            if len(shore) < 2 or not landing_sites or not attackers:
                continue
            to, to_loc = rng.choice(landing_sites)
            frm = rng.choice([p for p in shore if p != to])
            att = rng.choice([a for a in attackers if province_of(a) not in (to, frm)] or [None])
            if att is None:
                continue
            p1, p2 = rng.sample(sorted(pos.variant.powers), 2)
            if self.af and rng.random() < 0.5:
                done = self.af_template(pos, lines, sea, to, to_loc, frm, att, p1, p2)
                if done:
                    return done
            afloat = self.af and rng.random() < 0.5
            pos.units[sea] = Unit(p1, "A/F" if afloat else "F", sea)
            pos.units[to] = Unit(p2, "F", to_loc)
            pos.units[province_of(att)] = Unit(p2, "F", att)
            done = {sea, to, province_of(att)}
            if afloat:
                lines.append(f"{p1}: A {d(sea)} {rng.choice(('D', '-'))} {d(to)}")
                if rng.random() < 0.3:
                    lines.append(f"{p1}: F {d(sea)} S A {d(sea)} D {d(to)}")
            else:
                pos.units[frm] = Unit(p1, "A", frm)
                done.add(frm)
                verb = rng.choice(("FF", "C")) if self.af else "C"
                lines += [f"{p1}: A {d(frm)} - {d(to)}", f"{p1}: F {d(sea)} {verb} A {d(frm)} - {d(to)}"]
            lines += [f"{p2}: F {d(to_loc)} S F {d(att)} - {d(sea)}", f"{p2}: F {d(att)} - {d(sea)}"]
            return done
        return set()

    def af_template(self, pos: Position, lines: list[str], sea: str, to: str, to_loc: str, frm: str, att: str,
                    p1: str, p2: str) -> set[str]:
        """Two A/F set pieces: an A/F moving into ``sea`` and landing from it in ``to``, whose
        fleet supports an attack on ``sea`` (Agar 5's exception; Davis III h); or an army of
        ``frm`` boarding its fleet in ``sea`` while the fleet is attacked from a coast or a sea
        space (Davis III c; Deluge II 3 g)."""
        rng, m = self.rng, pos.map
        d = m.display
        piece = rng.random()
        if piece < 0.2:  # Davis IV e: the landing disrupted, the fleet (army aboard) ordered ashore
            ashore = [(p, loc) for p in sorted(m.fleet_reach.get(sea, ())) if m.terrain[p] == "coast"
                      and p not in (to, frm, province_of(att)) for loc in m.unit_locs("F", p)
                      if sea in map(province_of, m.fleet_adj.get(loc, ()))]
            helpers = [loc for loc in m.unit_locs("F", frm) if sea in map(province_of, m.fleet_adj.get(loc, ()))]
            if not ashore or not helpers:
                return set()
            c2, c2_loc = rng.choice(ashore)
            for p in (to, c2):
                pos.units.pop(p, None)
            pos.units[sea] = Unit(p1, "A/F", sea)
            pos.units[province_of(att)] = Unit(p2, "F", att)
            pos.units[frm] = Unit(p2, "F", helpers[0])
            lines += [f"{p1}: A {d(sea)} D {d(to)}", f"{p1}: F {d(sea)} - {d(c2_loc)}",
                      f"{p2}: F {d(att)} - {d(sea)}", f"{p2}: F {d(helpers[0])} S F {d(att)} - {d(sea)}"]
            return {sea, to, c2, frm, province_of(att)}
        if piece < 0.65:
            before = [s for s in sorted(m.fleet_adj.get(sea, ()))
                      if m.terrain[province_of(s)] == "sea" and province_of(s) not in (to, province_of(att))]
            if not before:
                return set()
            s0 = rng.choice(before)
            pos.units[s0] = Unit(p1, "A/F", s0)
            pos.units[sea] = Unit(p2, "F", sea)  # the space the A/F moves to, held by another power
            lines += [f"{p1}: {rng.choice(('A/F', 'F'))} {d(s0)} - {d(sea)}", f"{p1}: A {d(sea)} D {d(to)}"]
            if rng.random() < 0.5:  # it leaves for the shore the army lands on
                pos.units.pop(to, None)
                lines.append(f"{p2}: F {d(sea)} - {d(to_loc)}")
            else:  # it holds, supported from that shore
                pos.units[to] = Unit(p2, "F", to_loc)
                lines += [f"{p2}: F {d(sea)} H", f"{p2}: F {d(to_loc)} S F {d(sea)}"]
            r = rng.random()
            pos.units[province_of(att)] = Unit(p1, "F", att)
            if r < 0.4:
                lines.append(f"{p1}: F {d(att)} S A/F {d(s0)} - {d(sea)}")
            elif r < 0.7 and province_of(to) in m.fleet_reach.get(att, ()):
                lines.append(f"{p1}: F {d(att)} S A {d(sea)} D {d(to)}")
            else:
                lines.append(f"{p1}: F {d(att)} H")
            return {s0, sea, to, province_of(att)}
        pos.units[sea] = Unit(p1, "F", sea)
        pos.units[frm] = Unit(p1, "A", frm)
        pos.units[to] = Unit(p2, "F", to_loc)
        lines += [f"{p1}: A {d(frm)} E F {d(sea)}", f"{p2}: F {d(to_loc)} - {d(sea)}"]
        r = rng.random()
        if r < 0.3:
            lines.append(f"{p1}: F {d(sea)} H")
        elif r < 0.5:
            lines.append(f"{p1}: F {d(sea)} - {d(att)}")
        elif r < 0.6:
            lines.append(f"{p1}: F {d(sea)} S A {d(frm)}")
        done = {sea, frm, to}
        if rng.random() < 0.4:  # and from the sea too
            pos.units[province_of(att)] = Unit(p2, "F", att)
            lines.append(f"{p2}: F {d(att)} " + (f"- {d(sea)}" if rng.random() < 0.5 else f"S F {d(to_loc)} - {d(sea)}"))
            done.add(province_of(att))
        return done

    def neighbours(self, m, u: Unit) -> list[str]:
        if u.kind == "A":
            return sorted(m.army_adj.get(u.prov, ()))
        return sorted(m.fleet_adj.get(u.loc, ()))

    def support(self, pos: Position, u: Unit) -> str:
        """A support, most often for a move or landing planned this turn (else a random one)."""
        m, rng = pos.map, self.rng
        d = m.display
        reach = m.army_adj.get(u.prov, frozenset()) if u.kind == "A" else m.fleet_reach.get(u.loc, frozenset())
        planned = [(k, f, t, land) for k, f, t, land in self.planned if t in reach and province_of(f) != u.prov]
        if planned and rng.random() < 0.75:
            kind, frm, to, land = rng.choice(planned)
            if land:
                return f"{u.kind} {d(u.loc)} S A {d(frm)} D {d(to)}"
            return f"{u.kind} {d(u.loc)} S {kind} {d(frm)} - {d(to)}"
        others = [o for o in pos.units.values() if o is not u]
        rng.shuffle(others)
        for o in others:
            if o.kind == "A/F" and self.af and rng.random() < 0.5:  # a landing's support
                shore = sorted(p for p in m.fleet_reach.get(o.loc, ()) if p in reach and m.terrain[p] == "coast")
                if shore:
                    return f"{u.kind} {d(u.loc)} S A {d(o.loc)} D {d(rng.choice(shore))}"
            targets = [p for p in map(province_of, self.neighbours(m, o)) if p in reach]
            if targets and rng.random() < 0.7:
                return f"{u.kind} {d(u.loc)} S {o.kind} {d(o.loc)} - {d(rng.choice(targets))}"
            if o.prov in reach:
                return f"{u.kind} {d(u.loc)} S {o.kind} {d(o.loc)}"
        return f"{u.kind} {d(u.loc)} H"

    def plan(self, kind: str, frm: str, to: str, land: bool = False) -> None:
        """Note a move (or landing) ordered this turn, for the supports written after it."""
        self.planned.append((kind, frm, province_of(to), land))

    def unit_orders(self, pos: Position, u: Unit) -> list[str]:
        m, rng = pos.map, self.rng
        d = m.display
        me = f"{u.kind} {d(u.loc)}"
        adj = self.neighbours(m, u)
        move = f"{me} H"
        if adj:
            occupied = [a for a in adj if province_of(a) in pos.units and pos.units[province_of(a)].power != u.power]
            to = rng.choice(occupied if occupied and rng.random() < 0.5 else adj)
            move = f"{me} - {d(to)}"
            self.plan(u.kind, u.loc, to)
        sea = m.terrain[u.prov] == "sea"
        choice = rng.random()
        if u.kind == "A":
            seas = sorted(p for p in m.fleet_reach_prov.get(u.prov, ()) if m.terrain[p] == "sea")
            ships = [p for p in seas if p in pos.units and pos.units[p].power == u.power
                     and pos.units[p].kind == "F"]
            if self.af and seas and choice < (0.4 if ships else 0.1):  # embark (mostly on a fleet of its own)
                s = rng.choice(ships if ships and rng.random() < 0.9 else seas)
                return [f"A {d(u.loc)} E F {d(s)}"]
            if seas and choice < 0.5:  # across one sea space: a convoy or Fast Ferry target
                s = rng.choice(seas)
                far = sorted(p for p in m.fleet_reach_prov.get(s, ()) if m.terrain[p] == "coast" and p != u.prov)
                if far:
                    to = rng.choice(far)
                    self.plan("A", u.loc, to)
                    return [f"A {d(u.loc)} - {d(to)}"]
            if choice < 0.8:
                return [move]
            return [self.support(pos, u) if choice < 0.95 else f"{me} H"]
        if u.kind == "F" and sea:
            if choice < 0.3:  # convoy / Fast Ferry an army from one shore to another
                shore = sorted(p for p in m.fleet_reach.get(u.loc, ()) if m.terrain[p] == "coast")
                armies = [p for p in shore if p in pos.units and pos.units[p].kind == "A"] or shore
                if len(shore) >= 2:
                    a = rng.choice(armies)
                    to = rng.choice([p for p in shore if p != a])
                    verb = rng.choice(("FF", "C") if self.af else ("C",))
                    return [f"{me} {verb} A {d(a)} - {d(to)}"]
            if choice < 0.6:
                return [move]
            return [self.support(pos, u) if choice < 0.9 else f"{me} H"]
        if u.kind == "A/F":
            shore = sorted(p for p in m.fleet_reach.get(u.loc, ()) if m.terrain[p] == "coast")
            seas = sorted(p for p in m.fleet_reach.get(u.loc, ()) if m.terrain[p] == "sea")
            if shore and choice < 0.3:  # land; the fleet moves, holds or supports the landing
                to = rng.choice(shore)
                land = f"A {d(u.loc)} {rng.choice(('D', 'D', '-'))} {d(to)}"
                self.plan("A", u.loc, to, land=True)
                fleet = rng.random()
                if fleet < 0.35 and adj:
                    return [land, f"F {d(u.loc)} - {d(rng.choice(adj))}"]
                if fleet < 0.5:
                    return [land, f"F {d(u.loc)} S A {d(u.loc)} D {d(to)}"]
                if fleet < 0.6:
                    return [land, f"F {d(u.loc)} H"]
                return [land]
            if seas and choice < 0.45:  # move on and land from where it arrives
                s = rng.choice(seas)
                far = sorted(p for p in m.fleet_reach_prov.get(s, ()) if m.terrain[p] == "coast")
                kind = rng.choice(("A/F", "F"))
                out = [f"{kind} {d(u.loc)} - {d(s)}"]
                self.plan("A/F", u.loc, s)
                if far:
                    to = rng.choice(far)
                    out.append(f"A {d(s)} D {d(to)}")
                    self.plan("A", s, to, land=True)
                return out
            if choice < 0.7:
                return [move if rng.random() < 0.7 else f"F {d(u.loc)} - {d(rng.choice(adj))}" if adj else move]
            if choice < 0.9:
                return [self.support(pos, u)]
            return [f"{me} H"]
        # a fleet on a coast
        if choice < 0.6:
            return [move]
        return [self.support(pos, u) if choice < 0.9 else f"{me} H"]

    def retreat_orders(self, pos: Position) -> list[str]:
        rng, m = self.rng, pos.map
        d = m.display
        lines = []
        for dl in sorted(pos.dislodged.values(), key=lambda x: x.unit.loc):
            u = dl.unit
            me = f"{u.kind} {d(u.loc)}"
            r = rng.random()
            if dl.retreats and r < 0.7:
                lines.append(f"{u.power}: {me} - {d(rng.choice(dl.retreats))}")
            elif r < 0.8:
                lines.append(f"{u.power}: {me} disband")
            elif r < 0.9:
                adj = self.neighbours(m, Unit(u.power, "F" if u.kind == "A/F" else u.kind, u.loc))
                if adj:
                    lines.append(f"{u.power}: {me} - {d(rng.choice(adj))}")
            # else: no order (the default retreat)
        return lines

    def adjustment_orders(self, pos: Position) -> list[str]:
        from judge.engine.adjustment import adjustments_due, build_sites

        rng, m = self.rng, pos.map
        d = m.display
        lines = []
        for power, due in sorted(adjustments_due(pos).items()):
            mine = sorted((u for u in pos.units.values() if u.power == power), key=lambda u: u.loc)
            if due < 0:
                for u in rng.sample(mine, min(len(mine), -due + rng.choice((0, 0, 1)))):
                    kind = rng.choice(("A", "F", "A/F")) if u.kind == "A/F" else u.kind
                    lines.append(f"{power}: Remove {kind} {d(u.loc)}")
            elif due > 0:
                sites = build_sites(pos, power, self.rules)
                for s in sites[:due]:
                    locs = m.fleet_locs.get(s)
                    if locs and rng.random() < 0.4:
                        lines.append(f"{power}: Build F {d(rng.choice(locs))}")
                    else:
                        lines.append(f"{power}: Build A {d(s)}")
                if rng.random() < 0.2:
                    lines.append(f"{power}: Waive")
        return lines


# ------------------------------------------------------------------ the corpus
def cases() -> Iterator[dict[str, Any]]:
    rng = random.Random(SEED)
    n = 0

    def case(variant: str, rules: dict[str, Any], pos: Position, lines: list[str]) -> tuple[dict[str, Any], Position]:
        nonlocal n
        n += 1
        c = {"id": f"{variant}-{n:05d}", "variant": variant, "rules": jsonable(rules),
             "position": pos.to_json(), "orders": lines}
        # as the file holds it (keys sorted): the order of the powers in a position decides the
        # order of the judge's default results
        c = json.loads(dumps(c))
        c["expected"], nxt = replay(c)
        return c, nxt

    for variant, options, games, scenarios in RULE_SETS:
        rules, v = game_rules(variant, options)
        for pos, text in robot_phases(v, rules, random.Random(rng.random()), games):
            yield case(variant, rules, pos, text.splitlines())[0]
        sc = Scenario(v, rules, random.Random(rng.random()))
        made = 0
        while made < scenarios:
            pos = sc.position()
            if pos is None:
                continue
            made += 1
            c, nxt = case(variant, rules, pos, sc.movement_orders(pos))
            yield c
            for _ in range(2):  # its retreat and adjustment phases, if any
                if nxt.phase.kind == "retreat":
                    lines = sc.retreat_orders(nxt)
                elif nxt.phase.kind == "adjustment" and sc.rng.random() < 0.5:
                    lines = sc.adjustment_orders(nxt)
                else:
                    break
                c, nxt = case(variant, rules, nxt, lines)
                yield c


# ------------------------------------------------------------------ what the corpus covers
KINDS = {  # order kind -> how its canonical text reads
    "embark": re.compile(r"^A \S+ E F "),
    "landing": re.compile(r"^A \S+ D "),
    "landing support": re.compile(r" S A \S+ D "),
    "fast ferry": re.compile(r"^(F|A/F) \S+ (FF|C) A "),
    "A/F move": re.compile(r"^A/F \S+ - "),
    "A/F hold or support": re.compile(r"^A/F \S+ (H|S )"),
    "support": re.compile(r" S "),
    "convoy": re.compile(r" C A "),
}


def coverage(cases: list[dict[str, Any]]) -> dict[str, int]:
    """Cases with at least one order of each kind that succeeds / fails / is invalid, and cases
    with a paradox, a dislodged A/F, an A/F removed, a retreat or adjustment phase."""
    out: dict[str, int] = {}

    def count(key: str) -> None:
        out[key] = out.get(key, 0) + 1

    for c in cases:
        seen: set[str] = set()
        af_spaces = {u.split()[1] for us in c["position"]["units"].values() for u in us if u.startswith("A/F ")}
        for _power, text, result, reason in c["expected"]["results"]:
            for kind, pat in KINDS.items():
                if pat.search(text):
                    seen.add(f"{kind} {result}")
            if text.startswith("Remove ") and text.split()[-1] in af_spaces:
                seen.add(f"A/F removal {result}")
            if "paradox" in reason or "decide its own" in reason:
                seen.add("paradox")
        if any(d["unit"].startswith("A/F") for ds in c["expected"]["next"].get("dislodged", {}).values()
               for d in ds):
            seen.add("dislodged A/F")
        seen.add(c["position"]["phase"].split()[-1].lower() + " phase")
        seen.add("variant " + c["variant"])
        for key in seen:
            count(key)
    return dict(sorted(out.items()))


def main() -> None:
    with OUT.open("w", encoding="utf-8", newline="\n") as f:
        count = 0
        for c in cases():
            f.write(dumps(c) + "\n")
            count += 1
    print(f"{count} cases, {OUT.stat().st_size / 1e6:.2f} MB -> {OUT.relative_to(ROOT)}")
    with OUT.open(encoding="utf-8") as f:
        for key, n in coverage([json.loads(line) for line in f]).items():
            print(f"  {n:5d}  {key}")


if __name__ == "__main__":
    main()
