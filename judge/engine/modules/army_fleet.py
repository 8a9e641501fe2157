"""The Army/Fleet (A/F) rules and the Fast Ferry, after two rule texts.

Texts: Stephen Agar's "Universal Army/Fleet Rules Module" (``../shared/seeds/000_…``), Fred C.
Davis Jr.'s "Army/Fleet Rules Module, 1984 Revision" (in ``../shared/seeds/001_…``), and the
Deluge II "Additional Rule Revisions" 2-3 (``../shared/seeds/004_…``), which follow Davis.
Rule switch ``af_rules``: ``"davis1984"`` (default) or ``"agar"``. Every choice the texts leave
open is written in ``docs/rulings.md``, section "Army/Fleet module".

**The unit.** An A/F is one army riding one fleet of the same power, in a sea space only
(position JSON ``"A/F Eng"``). It fights as one unit (strength one, may be supported), may move
to a sea space, hold and support, but may not convoy ("Fast Ferry") and no army may board it.

**Orders** (types in :mod:`judge.engine.variant_kinds`):

- ``A Lon E F Eng`` — embark: an army in a coastal province boards a fleet of its power in an
  adjacent sea space;
- ``A Mao D Por`` — disembark: the army aboard lands from the sea space it is in when it lands —
  the A/F's own space, or the space the A/F moves to this turn (``A/F Eng - Mao``) — in a
  coastal province next to it. ``A Eng - Bre`` from a sea space is read the same way;
- the A/F's own order: ``A/F Eng - Mao``, ``A/F Eng H``, ``A/F Eng S ...``; written ``F Eng ...``
  it is the same order. When the army lands from the A/F's space this turn, the fleet's order
  is the fleet's alone (``F Eng - Nth``, ``F Eng S A Eng D Bre``);
- ``F Eng FF A Lon - Bre`` (or the rulebook's ``F Eng C A Lon - Bre``) — the Fast Ferry, a
  convoy across exactly one sea space by one fleet. Longer convoys are illegal.

**How it is adjudicated.** In the resolver (Kruijswijk's decisions) an embarkation is a decision
(Agar: always true — adjudicated before the moves; Davis: false when the fleet is ordered to
support, or is attacked and does not move away). A disembarkation is a *carried* move from the
sea space with its own strength and supports; its "path" is a decision of its own (the army is
aboard; the A/F reached the space; Davis: the A/F's space was not taken from under it). The
fleet's move away from a landing fails when the landing bounces (the fleet stays to take the
army back aboard). A Fast Ferry whose army cannot land leaves the army aboard its fleet as an
A/F when the fleet is of its power, else the army goes home.

Paradoxes: Agar's exception 5 first (a landing that would decide its own A/F's move fails), then
"all units involved stand" (Agar 7, and Davis III h for cycles with A/F orders; other Fast Ferry
paradoxes follow ``convoy_paradox`` under Davis).

After the moves: Davis's rations (``pos.extra["af_rations"]``: display name of the A/F's space ->
moves the army has spent aboard; the fourth ends in starvation), dislodged A/Fs' retreats (Davis:
to a sea space if any is open), and (Agar) armies' retreats onto their fleets. The retreat and
adjustment phases are wrapped (module hooks) for A/Fs retreating ashore, armies retreating
aboard, and removals that take only the army of an A/F.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from judge.engine import modules
from judge.engine.adjustment import adjustments_due, unit_count
from judge.engine.modules import RuleModule
from judge.engine.movement import (CONVOY, GUESSING, MOVE, RESOLVED, SUPPORT, UNRESOLVED, Illegal,
                                   MovementOutcome, _a)
from judge.engine.orders import Convoy, Move, Order, OrderResult, Remove, Retreat, Support
from judge.engine.retreat import retreat_options as standard_retreat_options
from judge.engine.position import Dislodged, Position, Unit
from judge.engine.variant_kinds import Disembark, Embark, FastFerry
from judge.variant import PROV, Map

NAME = "army_fleet"
DAVIS, AGAR = "davis1984", "agar"
EMBARK = 5  # decision: the army is aboard (after boarding this turn)
PATH = 6  # decision: a landing's army is where it lands from, and (Davis) its A/F was not disrupted
RATIONS = "af_rations"  # pos.extra: A/F space (display) -> moves its army has spent aboard (Davis)
RETREATING = "af_rations_retreating"  # pos.extra: dislodged A/F space -> {"moves", "power", "to"}
MAX_MOVES = 4  # Davis II b: "an Army can be on the seas for a total of 4 consecutive A/F moves"


def af_rules(rules: dict[str, Any]) -> str:
    return str(rules.get("af_rules", DAVIS))


# ================================================================== executed order types
@dataclass(slots=True)
class LandingSupport(Support):
    """A support for a disembarkation (``F Mao S A Eng D Bre``): target is the sea space the army
    lands from, dest the province it lands in."""

    def text(self, m: Map) -> str:
        return f"{_u(self.kind, self.loc, m)} S A {m.display(self.target)} D {m.display(self.dest or '')}"


@dataclass(slots=True)
class FerryConvoy(Convoy):
    """A Fast Ferry: the rulebook convoy across one sea space (printed as the player wrote it)."""

    ff: bool = True

    def text(self, m: Map) -> str:
        verb = "FF" if self.ff else "C"
        return f"{_u(self.kind, self.loc, m)} {verb} A {m.display(self.target)} - {m.display(self.dest)}"


def _u(kind: str | None, loc: str, m: Map) -> str:
    return f"{kind} {m.display(loc)}" if kind else m.display(loc)


@dataclass
class Landing:
    slot: int  # index of its result
    order: Disembark
    af: str  # province of the A/F (or of the fleet boarded this turn) at the start of the turn
    here: bool  # lands from the A/F's own space (else from the space the A/F moves to)
    army_from: str | None  # the army's province when it boards this turn
    d: int = -1  # decision: the landing (a carried move)
    path: int = -1  # decision: the landing's path
    main: int = -1  # decision: the fleet's (A/F's) own order
    embark: int = -1  # decision: the boarding this turn, or -1


# ================================================================== the resolver mixin
class ArmyFleetResolver:
    """Mixin for :class:`judge.engine.movement.MovementResolver` (see the module docstring)."""

    # -- legality -------------------------------------------------------------------------
    @property
    def davis(self: Any) -> bool:
        return af_rules(self.rules) != AGAR

    def check(self: Any, order: Order, unit: Unit | None) -> Order:
        if isinstance(order, FastFerry):
            order = FerryConvoy(order.power, order.kind, order.loc, "A", order.army, order.dest)
        elif type(order) is Convoy:
            order = FerryConvoy(order.power, order.kind, order.loc, order.target_kind, order.target, order.dest,
                                False)
        if (unit is not None and unit.kind == "F" and order.kind == "A/F"
                and self._boarded.get(unit.prov) == unit.power):
            ex = super().check(replace(order, kind="F"), unit)  # type: ignore[misc]
            return replace(ex, kind="A/F")  # the A/F formed by this turn's boarding
        if unit is not None and unit.kind == "A/F" and order.kind in ("F", "A/F", None):
            written = order.kind
            ex = super().check(replace(order, kind="A/F"), unit)  # type: ignore[misc]
            return replace(ex, kind=written or "A/F") if written == "F" else ex
        return super().check(order, unit)  # type: ignore[misc]

    def check_other(self: Any, order: Order, unit: Unit) -> Order:
        if not isinstance(order, Embark):
            return super().check_other(order, unit)  # type: ignore[misc]
        m = self.m
        if unit.kind != "A":
            raise Illegal(f"only an army can embark; the unit in {m.name(unit.loc)} is {_a(unit.kind)}")
        fp = PROV[order.fleet]
        fleet = self.pos.units.get(fp)
        if m.terrain.get(fp) != "sea":
            raise Illegal(f"an army can board a fleet only in a sea space; {m.name(fp)} is not one")
        if fleet is None:
            raise Illegal(f"there is no fleet in {m.name(fp)} to board")
        if fleet.kind == "A/F":
            raise Illegal(f"an army cannot board an A/F: the A/F in {m.name(fp)} carries an army already")
        if fleet.kind != "F":
            raise Illegal(f"the unit in {m.name(fp)} is {_a(fleet.kind)}, not a fleet")
        if fleet.power != unit.power:
            raise Illegal(f"an A/F can only consist of two units of the same power; the fleet in "
                          f"{m.name(fp)} is {fleet.power}'s")
        if m.terrain[unit.prov] != "coast" or fp not in m.fleet_reach_prov.get(unit.prov, ()):
            raise Illegal(f"the army in {m.name(unit.prov)} is not on a coast next to {m.name(fp)}")
        return Embark(order.power, "A", unit.loc, fp)

    def check_move(self: Any, unit: Unit, dest: str, via_convoy: bool) -> str:
        if unit.kind == "A/F" and self.m.terrain.get(PROV[dest]) != "sea" and unit.prov not in self._lands_here:
            raise Illegal(f"an A/F can exist only in a sea space: it cannot enter {self.m.name(PROV[dest])} "
                          "(land its army first)")
        return super().check_move(unit, dest, via_convoy)  # type: ignore[misc]

    def convoy_possible(self: Any, src: str, dest: str, exclude: str | None = None) -> bool:
        """Fast Ferry only: one fleet in one sea space next to both ends."""
        m = self.m
        reach = m.fleet_reach_prov
        return any(dest in reach.get(s, ()) for s in self._fleet_seas() if s != exclude and src in reach.get(s, ()))

    def check_convoy(self: Any, order: Convoy, unit: Unit) -> Convoy:
        m = self.m
        if unit.kind == "A/F":
            raise Illegal("an A/F cannot convoy (no Fast Ferry): its transports are already loaded")
        ex = super().check_convoy(order, unit)  # type: ignore[misc]
        reach = m.fleet_reach_prov.get(unit.prov, ())
        if ex.target not in reach or ex.dest not in reach:
            raise Illegal(f"with the Army/Fleet rules a convoy crosses one sea space only (Fast Ferry): "
                          f"{m.name(unit.prov)} does not touch both {m.name(ex.target)} and {m.name(ex.dest)}")
        ff = order.ff if isinstance(order, FerryConvoy) else True
        return FerryConvoy(ex.power, ex.kind, ex.loc, ex.target_kind, ex.target, ex.dest, ff)

    def check_support(self: Any, order: Support, unit: Unit) -> Support:
        m = self.m
        tp = PROV[order.target]
        target = self.pos.units.get(tp)
        if m.terrain.get(tp) == "sea" and (order.target_kind == "A" or (
                order.target_kind is None and target is None and tp in self._landing_sources)):
            return self._check_landing_support(order, unit, tp)
        if target is not None and target.kind == "A/F" and order.target_kind == "F":
            order = replace(order, target_kind="A/F")
        return super().check_support(order, unit)  # type: ignore[misc]

    def _check_landing_support(self: Any, order: Support, unit: Unit, sea: str) -> Support:
        m = self.m
        if order.dest is None:
            raise Illegal(f"an army aboard in {m.name(sea)} cannot be supported to hold; support the A/F")
        dp = PROV[order.dest]
        if m.terrain.get(dp) != "coast" or dp not in m.fleet_reach_prov.get(sea, ()):
            raise Illegal(f"no army can land from {m.name(sea)} in {m.name(dp)}")
        if sea == unit.prov and unit.kind != "A/F" and self._boarded.get(sea) != unit.power:
            raise Illegal("a unit cannot support itself")
        if dp == unit.prov:
            raise Illegal("a unit cannot support a move into its own province")
        if not self.can_reach_for_support(unit, dp):
            raise Illegal(f"the {_w(unit.kind)} in {m.name(unit.loc)} can't reach {m.name(dp)} to support")
        return LandingSupport(order.power, unit.kind, unit.loc, "A", sea, dp)

    # -- set-up ---------------------------------------------------------------------------
    def read_order(self: Any, order: Order) -> Order:
        if type(order) is Move and order.kind == "A" and self.m.terrain.get(PROV[order.loc]) == "sea":
            return Disembark(order.power, "A", order.loc, order.dest)  # an army at sea moving ashore lands
        return order

    def side_order(self: Any, order: Order) -> bool:
        return isinstance(order, Disembark)  # the army's order, beside its A/F's (or fleet's) own

    def survey(self: Any, orders: list[Order]) -> None:
        units = self.pos.units
        boarded: dict[str, str] = {}  # fleet province -> power, for embark orders as written
        last_written: dict[str, Order] = {}  # province -> the last order written for its unit
        landings = [o for o in orders if isinstance(o, Disembark)]
        for o in orders:
            if isinstance(o, Disembark):
                continue
            if o.loc:
                last_written[PROV[o.loc]] = o
            if isinstance(o, Embark) and o.fleet:
                boarded[PROV[o.fleet]] = o.power
        self._boarded = boarded
        self._ordered_to_support = {p for p, o in last_written.items() if isinstance(o, Support)}
        # where a landing is ordered from the A/F's own space (the fleet's order is then its own)
        self._lands_here = set()
        self._landing_sources: dict[str, str] = {}
        for o in landings:
            s = PROV[o.loc]
            self._landing_sources[s] = o.power
            u = units.get(s)
            if u is not None and u.power == o.power and (u.kind == "A/F" or boarded.get(s) == o.power):
                self._lands_here.add(s)

    def settle(self: Any, side: list[tuple[int, Order]], results: list[OrderResult | None]) -> None:
        m = self.m
        units = self.pos.units

        def drop(prov: str, reason: str) -> None:
            self.drop(prov, reason, results)

        # boardings: one army per fleet; not onto a fleet that ferries another army
        by_fleet: dict[str, list[str]] = {}
        for prov, ex in self.order_of.items():
            if isinstance(ex, Embark):
                by_fleet.setdefault(ex.fleet, []).append(prov)
        self.embarks: dict[str, str] = {}  # fleet province -> army province
        for fp, armies in by_fleet.items():
            fo = self.order_of.get(fp)
            if len(armies) > 1:
                for a in armies:
                    drop(a, f"two armies are ordered to board the fleet in {m.name(fp)}")
            elif isinstance(fo, Convoy):
                drop(armies[0], f"the fleet in {m.name(fp)} is ordered to convoy: a fleet may not land one "
                                "army and pick up another in the same turn")
            else:
                self.embarks[fp] = armies[0]

        # landings
        self.landings: dict[str, Landing] = {}  # A/F province -> its landing
        for slot, o in side:
            assert isinstance(o, Disembark)
            try:
                lan = self._check_landing(slot, o)
            except Illegal as exc:
                results[slot] = OrderResult(o, o.power, None, "invalid", str(exc), map=m)
                continue
            if lan.af in self.landings:
                old = results[self.landings[lan.af].slot]
                assert old is not None
                old.result, old.reason = "invalid", "replaced by a later order for the same army"
            self.landings[lan.af] = lan
            results[slot] = OrderResult(lan.order, o.power, None, "", map=m)

        # the orders that depend on each other
        for fp, army in list(self.embarks.items()):
            fo = self.order_of.get(fp)
            lan = self.landings.get(fp)
            if (isinstance(fo, Move) and m.terrain[PROV[fo.dest]] != "sea"
                    and not (lan is not None and lan.here)):
                drop(army, f"the fleet in {m.name(fp)} is ordered into {m.name(PROV[fo.dest])}, where an A/F "
                           "cannot go")
                del self.embarks[fp]
        for af, lan in list(self.landings.items()):
            if lan.army_from is not None and lan.af not in self.embarks:
                r = results[lan.slot]
                assert r is not None
                r.result, r.reason = "invalid", "the army is not ordered to board that fleet"
                del self.landings[af]
        for prov, ex in list(self.order_of.items()):
            u = units[prov]
            if u.kind != "A/F":
                continue
            lan = self.landings.get(prov)
            here = lan is not None and lan.here
            if isinstance(ex, Move) and m.terrain[PROV[ex.dest]] != "sea" and not here:
                drop(prov, f"an A/F can exist only in a sea space: it cannot enter {m.name(PROV[ex.dest])}")
            elif (here and self.davis and isinstance(ex, Support)
                  and not (isinstance(ex, LandingSupport) and PROV[ex.target] == prov
                           and ex.dest == lan.order.dest)):  # type: ignore[union-attr]
                drop(prov, "a fleet that lands its army may support that landing, or move, but not support "
                           "another unit (Davis III g)")

        self._implied: dict[int, str] = {}  # result slot -> why the judge gave the order

        def judge_gives(prov: str | None, ex: Order, reason: str) -> int:
            slot = self.give(prov, ex, reason, results)
            if prov is None or isinstance(ex, Move):
                self._implied[slot] = reason
            return slot

        # orders read from the fleet's order (rulings): an army of the fleet's power with no order
        # of its own goes by its Fast Ferry; the army aboard lands where its fleet supports it to
        for fp, ex in list(self.order_of.items()):
            if isinstance(ex, FerryConvoy):
                a = units.get(ex.target)
                if a is not None and a.kind == "A" and a.power == ex.power and ex.target not in self.order_of:
                    try:
                        mv = self.check(Move(a.power, "A", a.loc, ex.dest), a)
                    except Illegal:
                        continue
                    judge_gives(ex.target, mv, "no order: carried by its Fast Ferry")
            elif (isinstance(ex, LandingSupport) and PROV[ex.target] == fp and fp not in self.landings
                  and (units[fp].kind == "A/F" or fp in self.embarks)):
                d = Disembark(ex.power, "A", fp, ex.dest)  # type: ignore[arg-type]
                self.landings[fp] = Landing(-1, d, fp, True, self.embarks.get(fp))
                self.landings[fp].slot = judge_gives(None, d, "no order: landed by its fleet")

    def _check_landing(self: Any, slot: int, o: Disembark) -> Landing:
        m = self.m
        units = self.pos.units
        s = PROV[o.loc]
        if o.kind not in (None, "A"):
            raise Illegal("only an army disembarks")
        if m.terrain.get(s) != "sea":
            raise Illegal(f"an army disembarks from a sea space; {m.name(s)} is not one")
        dp = PROV[o.dest]
        if m.terrain.get(dp) != "coast" or dp not in m.fleet_reach_prov.get(s, ()):
            raise Illegal(f"an army aboard in {m.name(s)} can land only in a coastal province next to it, "
                          f"not in {m.name(dp)}")
        ex = Disembark(o.power, "A", s, dp)
        u = units.get(s)
        if u is not None and u.power == o.power and u.kind == "A/F":
            return Landing(slot, ex, s, True, None)
        if u is not None and u.power == o.power and s in self.embarks:
            return Landing(slot, ex, s, True, self.embarks[s])
        movers = []
        for p, mo in self.order_of.items():
            if not isinstance(mo, Move) or PROV[mo.dest] != s:
                continue
            w = units[p]
            if w.power != o.power:
                continue
            if w.kind == "A/F" and p not in self._lands_here:
                movers.append(Landing(slot, ex, p, False, None))
            elif w.kind == "F" and p in self.embarks:
                movers.append(Landing(slot, ex, p, False, self.embarks[p]))
        if len(movers) == 1:
            return movers[0]
        if movers:
            raise Illegal(f"two of {o.power}'s A/Fs move to {m.name(s)}: say which army lands")
        raise Illegal(f"no army of {o.power} is aboard in {m.name(s)} or on an A/F moving there")

    def code_of(self: Any, order: Order) -> int:
        if isinstance(order, Embark):
            return EMBARK
        return super().code_of(order)  # type: ignore[misc]

    def extend_index(self: Any) -> None:
        self.forced: dict[int, bool] = {}  # decisions set by a paradox rule
        self.stood: set[int] = set()  # decisions of units that "stand" after a paradox
        self._events: list[str] = []
        idx_of, code = self.idx_of, self.code
        self.embark_idx: dict[str, int] = {fp: idx_of[a] for fp, a in self.embarks.items()}
        self.land_of: dict[int, Landing] = {}  # landing decision -> landing
        self.path_of: dict[int, Landing] = {}  # path decision -> landing
        self.landing_of_main: dict[int, Landing] = {}  # fleet's own order -> its landing from here
        for lan in self.landings.values():
            lan.main = idx_of[lan.af]
            lan.embark = self.embark_idx.get(lan.af, -1)
            lan.path = self.add_decision(lan.order, PATH, PROV[lan.order.loc], None)
            lan.d = self.add_decision(lan.order, MOVE, PROV[lan.order.loc], lan.order.dest)
            self.carried[lan.d] = True
            self.carriers[lan.d] = [lan.path]
            self.land_of[lan.d] = lan
            self.path_of[lan.path] = lan
            if lan.here:
                self.landing_of_main[lan.main] = lan
        # supports of landings; supports to hold an army that boards are void
        n = len(self.order)
        landing_supports = [i for i in range(n) if isinstance(self.order[i], LandingSupport)]
        if landing_supports:
            ls = set(landing_supports)
            for j in range(n):
                if self.supports[j]:
                    self.supports[j] = [s for s in self.supports[j] if s not in ls]
            for s in landing_supports:
                o = self.order[s]
                self.void.discard(s)
                match = [lan.d for lan in self.landings.values()
                         if PROV[lan.order.loc] == PROV[o.target] and lan.order.dest == o.dest]
                if match:
                    self.supports[match[0]].append(s)
                else:
                    self.void.add(s)
        for e in self.embark_idx.values():
            for s in self.supports[e]:
                self.void.add(s)
            self.supports[e] = []
        # Fast Ferries by a fleet of the army's own power: the army stays aboard if it cannot land
        self.own_ferries: dict[int, list[int]] = {}
        for i in range(n):
            if code[i] == MOVE and self.carried[i] and i not in self.land_of:
                # two of them: the army stays aboard the one whose space comes first by name,
                # whatever the order of the orders
                own = sorted((c for c in self.carriers[i] if self.power[c] == self.power[i]), key=lambda c: self.src[c])
                if own:
                    self.own_ferries[i] = own

    # -- decisions ------------------------------------------------------------------------
    def adjudicate(self: Any, i: int) -> bool:
        f = self.forced.get(i)
        if f is not None:
            return f
        c = self.code[i]
        if c == EMBARK:
            return self.boards(i)
        if c == PATH:
            return self.landing_path(self.path_of[i])
        return super().adjudicate(i)  # type: ignore[misc]

    def boards(self: Any, e: int) -> bool:
        """Davis III c: the army fails to board if the fleet is ordered to support, or must defend
        its space (is attacked and does not move away). Agar 3: boarding never fails."""
        if not self.davis:
            return True
        fp = PROV[self.order[e].fleet]
        f = self.idx_of[fp]
        if self.code[f] == SUPPORT or fp in self._ordered_to_support:
            return False  # "ordered to support", even where the support itself is not possible
        attackers = [k for k in self.into.get(fp, ()) if self.power[k] != self.power[e]]
        if self.rules.get("af_boarding_attack") == "sea_space":  # Deluge II 3 g
            attackers = [k for k in attackers if self.m.terrain.get(self.src[k]) == "sea"]
        # a move that does not take place (Davis III d: a fleet kept back by its army's failed
        # landing) attacks nothing, as it cuts no support
        attackers = [k for k in attackers if self.path_ok(k)]
        if not attackers:
            return True  # not attacked: a move of the fleet's own power is no naval battle
        return self.code[f] == MOVE and self.resolve(f)

    def landing_path(self: Any, lan: Landing) -> bool:
        if lan.embark >= 0 and not self.resolve(lan.embark):
            return False  # the army is not aboard
        if not lan.here:
            return self.resolve(lan.main)  # the A/F must reach the space it lands from
        if self.davis and self.disrupted(lan):
            return False
        return True

    def disrupted(self: Any, lan: Landing) -> bool:
        """Davis IV d-f (Deluge II l, m): a landing from the A/F's own space fails when the space is
        taken — by any attack while the A/F stays (it is dislodged), or by an attack supported by
        another power's units after the fleet moved away. A move of the A/F's own power is no
        attack: the A/F does not "lose" its space to it."""
        s = PROV[lan.order.loc]
        main = lan.main
        away = self.code[main] == MOVE and self.resolve(main)
        for k in self.into.get(s, ()):
            if self.power[k] == self.power[lan.d]:
                continue
            if self.resolve(k) and (not away or self.count_supports(k, exclude_power=self.power[lan.d]) > 1):
                return True
        return False

    def path_ok(self: Any, i: int) -> bool:
        lan = self.land_of.get(i)
        if lan is None:
            if i in self.landing_of_main and self.stays_for_its_army(i):
                return False  # the fleet's move does not take place: no standoff, no cut support
            return super().path_ok(i)  # type: ignore[misc]
        if i in self.forced_fail:
            return False
        return self.resolve(lan.path)

    def stays_for_its_army(self: Any, i: int) -> bool:
        """Davis III d "Any order for the Fleet to move elsewhere will not take place, as the F is
        forced to remain in place to reboard the Army" (Deluge II 3 h; Agar 5): the fleet's move
        ``i`` away from its army's landing, which failed."""
        lan = self.landing_of_main[i]
        return self.resolve(lan.path) and lan.d not in self.forced_fail and not self.resolve(lan.d)

    def move_succeeds(self: Any, i: int) -> bool:
        if i in self.landing_of_main and self.stays_for_its_army(i):
            return False  # Davis III d, Agar 5: the fleet stays to take the army back aboard
        return super().move_succeeds(i)  # type: ignore[misc]

    def vacates(self: Any, j: int) -> bool | None:
        """Has the unit whose order is ``j`` left its province? None: the standard answer."""
        c = self.code[j]
        if c == EMBARK:
            return self.resolve(j)
        if j in self.own_ferries:
            return self.resolve(j) or self.ferried_by(j) >= 0
        return None

    def ferried_by(self: Any, j: int) -> int:
        """The fleet of its own power that carries the army of Fast Ferry ``j`` and keeps it
        aboard when it cannot land (Agar 2, Davis I b), or -1."""
        if j in self.forced_fail or j in self.stood:
            return -1
        for c in self.own_ferries.get(j, ()):
            if self.resolve(c):
                return c
        return -1

    def hold_strength(self: Any, prov: str) -> int:
        j = self.idx_of.get(prov)
        if j is not None:
            v = self.vacates(j)
            if v is not None:
                return 0 if v else 1
        return super().hold_strength(prov)  # type: ignore[misc]

    def attack_strength(self: Any, i: int) -> int:
        if i in self.stood:
            return 0
        j = self.idx_of.get(self.dst[i])
        if j is not None and self.vacates(j):
            return self.count_supports(i) if self.path_ok(i) else 0
        return super().attack_strength(i)  # type: ignore[misc]

    def prevent_strength(self: Any, i: int) -> int:
        if i in self.stood:
            return 0
        return super().prevent_strength(i)  # type: ignore[misc]

    # -- cycles ---------------------------------------------------------------------------
    def backup_rule(self: Any, cycle: list[int]) -> None:
        code = self.code
        if any(code[d] in (PATH, EMBARK) for d in cycle) or any(d in self.land_of for d in cycle):
            outs = self.cycle_outcomes
            if all(code[d] in (MOVE, PATH) for d in cycle) and outs is not None:
                if len(outs) == 2 and (outs[0] | outs[1]) in outs:
                    # circular movement through a landing: the outcome where everyone moves (the
                    # other one's moves all fail), whichever decision the cycle was met at
                    every = outs[0] | outs[1]
                    for k, d in enumerate(cycle):
                        self.res[d], self.state[d] = bool(every >> k & 1), RESOLVED
                    return
            elif all(code[d] in (MOVE, PATH) for d in cycle) and self._two_outcomes(cycle[0]):
                # circular movement through a landing: take the outcome where the head succeeds
                self.res[cycle[0]] = True
                self.state[cycle[0]] = RESOLVED
                for d in cycle[1:]:
                    if self.state[d] != RESOLVED:
                        self.state[d] = UNRESOLVED
                return
            self.break_paradox(cycle)
            return
        super().backup_rule(cycle)  # type: ignore[misc]

    def _two_outcomes(self: Any, head: int) -> bool:
        """Are both guesses for ``head`` consistent (false gives false, true gives true)?"""
        deps = self.deps
        mark = len(deps)
        out = []
        for guess in (False, True):
            self.res[head] = guess
            self.state[head] = GUESSING
            out.append(self.adjudicate(head))
            for d in deps[mark:]:
                if d != head:
                    self.state[d] = UNRESOLVED
            del deps[mark:]
        self.state[head] = UNRESOLVED
        return out == [False, True]

    def af_involved(self: Any, cycle: list[int]) -> bool:
        """Is an "A/F Convoy or Disembarkation order" (Davis III h) part of the cycle: a boarding, a
        landing or its support, or the move of an A/F (or of a fleet an army boards)?"""
        units = self.pos.units
        for d in cycle:
            if d in self.land_of or d in self.path_of or self.code[d] == EMBARK:
                return True
            if isinstance(self.order[d], LandingSupport):
                return True
            p = self.src[d]
            if self.code[d] == MOVE and self.idx_of.get(p) == d and (units[p].kind == "A/F" or p in self.embarks):
                return True
        return False

    def break_paradox(self: Any, cycle: list[int]) -> None:
        if not self.davis:
            # Agar 5 (exception): a landing from where its A/F moves this turn that would affect that
            # move fails.
            hit = [lan for lan in self.landings.values()
                   if not lan.here and lan.d not in self.forced_fail
                   and (lan.path in cycle or lan.d in cycle or lan.main in cycle)]
            if hit:
                for lan in hit:
                    self.forced_fail.add(lan.d)
                self._reopen(cycle)
                return
            self.stand(cycle)  # Agar 7
            return
        if self.af_involved(cycle):
            self.stand(cycle)  # Davis III h
            return
        super().break_paradox(cycle)  # type: ignore[misc]

    def stand(self: Any, cycle: list[int]) -> None:
        """All units involved stand: their moves, supports, boardings and landings do not happen."""
        for d in cycle:
            c = self.code[d]
            if c == CONVOY:
                for j in range(len(self.order)):
                    if self.carried[j] and d in self.carriers[j]:
                        self._stand_move(j)
            elif c == MOVE:
                self._stand_move(d)
            elif c in (SUPPORT, EMBARK, PATH):
                self.forced[d] = False
                self.stood.add(d)
                if c == PATH:
                    self._stand_move(self.path_of[d].d)
        for lan in self.landings.values():  # a landing that stands keeps its fleet in place with it
            if lan.here and lan.d in self.stood and self.code[lan.main] == MOVE and lan.main not in self.stood:
                self._stand_move(lan.main)
        self._reopen(cycle)

    def _stand_move(self: Any, j: int) -> None:
        self.forced[j] = False
        self.stood.add(j)
        self.forced_fail.add(j)
        movers = self.into.get(self.dst[j])
        if movers and j in movers:
            movers.remove(j)
        for sup in self.supports[j]:  # its supporters are involved too
            self.forced[sup] = False
            self.stood.add(sup)

    def _reopen(self: Any, cycle: list[int]) -> None:
        for d in cycle:
            if self.state[d] != RESOLVED:
                self.state[d] = UNRESOLVED
        self.stale = True  # decisions outside the cycle may have read what changed

    # -- outcome --------------------------------------------------------------------------
    def decisions_final(self: Any) -> None:
        res = self.res
        # armies at sea at the end of the move: fleet province (start) -> army's origin (or the fleet)
        cargo: dict[str, str] = {p: p for p, u in self.pos.units.items() if u.kind == "A/F"}
        for fp, army in self.embarks.items():
            if res[self.idx_of[army]]:
                cargo[fp] = army
        ferried: dict[int, int] = {}
        for j in self.own_ferries:
            if not res[j]:
                c = self.ferried_by(j)
                if c >= 0:
                    ferried[j] = c
                    cargo[self.src[c]] = self.src[j]
        self._cargo = cargo
        self._ferried = ferried
        self._ashore: set[str] = set()

    def unit_after(self: Any, prov: str, unit: Unit) -> Unit | None:
        j = self.idx_of[prov]
        if unit.kind == "A":
            if (self.code[j] == EMBARK and self.res[j]) or j in self._ferried:
                return None  # at sea: it is its fleet's army now
            return unit
        lan = self.landings.get(prov)
        has_army = prov in self._cargo and not (lan is not None and self.res[lan.d])
        kind = "A/F" if has_army else "F"
        return Unit(unit.power, kind, unit.loc) if kind != unit.kind else unit

    def arrival(self: Any, i: int) -> Unit | None:
        lan = self.land_of.get(i)
        return Unit(lan.order.power, "A", lan.order.dest) if lan is not None else None

    def can_stand(self: Any, unit: Unit, loc: str) -> bool:
        return unit.kind != "A/F" or self.m.terrain[PROV[loc]] == "sea"

    def strand(self: Any, stranded: list[tuple[Unit, str]], after: Position, contested: frozenset[str],
               dislodged: dict[str, Dislodged]) -> None:
        """Davis IV e: an A/F whose fleet went ashore with the army still aboard: "the GM will move
        the A/F to the nearest sea space" — a retreat to a sea space, or the army is lost."""
        m = self.m
        for u, loc in stranded:
            opts = tuple(o for o in self.retreat_options(after, Unit(u.power, "A/F", loc), None, contested)
                         if m.terrain[PROV[o]] == "sea")
            if opts:
                dislodged[u.prov] = Dislodged(u, None, opts)
            else:
                after.units[PROV[loc]] = Unit(u.power, "F", loc)
                self._events.append(f"{u.power}: the army of the A/F that went ashore in {m.display(loc)} "
                                    "is annihilated (no sea space to go to)")
            self._ashore.add(u.prov)

    def retreat_options(self: Any, after: Position, u: Unit, attacker_from: str | None,
                        contested: frozenset[str]) -> tuple[str, ...]:
        return retreat_options(after, u, attacker_from, contested, self.rules)

    def fill_results(self: Any, results: list[OrderResult | None], dislodged: dict[str, Dislodged]) -> None:
        super().fill_results(results, dislodged)  # type: ignore[misc]
        m = self.m
        res = self.res
        for p, slot in self.result_slot.items():
            r = results[slot]
            if r is None or r.result == "invalid":
                continue
            i = self.idx_of[p]
            if self.code[i] == EMBARK:
                if res[i]:
                    r.result, r.reason = "succeeds", ""
                else:
                    r.result = "fails"
                    r.reason = self._why_not_aboard(i)
                    if p in dislodged:
                        r.reason += ", dislodged"
            elif i in self._ferried:
                c = self._ferried[i]
                r.reason = f"{r.reason}; the army stays aboard: A/F {m.display(self.src[c])}"
            elif (self.code[i] == MOVE and self.carried[i] and not res[i] and i not in self.forced_fail
                  and self.path_ok(i)):  # carried, could not land, and no ferry of its power holds it
                r.reason = f"{r.reason}; the army returns to {m.display(p)} (the ferry is another power's)"
            if p in self._ashore:
                r.reason = ("the army is still aboard and an A/F cannot stand ashore: it goes to a sea space "
                            "(Davis IV e)")
            lan = self.landing_of_main.get(i)
            if lan is not None and self.code[i] == MOVE and not res[i] and res[lan.path] and not res[lan.d]:
                r.reason = "the army's landing failed: the fleet stays to take it back aboard"
            if i in self.stood:
                r.result, r.reason = "fails", "paradox: all units involved stand"
        for lan in self.landings.values():
            r = results[lan.slot]
            if r is None or r.result == "invalid":
                continue
            d = lan.d
            if res[d]:
                r.result, r.reason = "succeeds", ""
                continue
            r.result = "fails"
            if d in self.stood or lan.path in self.stood:
                r.reason = "paradox: all units involved stand"
            elif d in self.forced_fail:
                r.reason = "it would decide its own A/F's move (Agar 5, exception): it does not take place"
            elif lan.embark >= 0 and not res[lan.embark]:
                r.reason = "the army did not board"
            elif not lan.here and not res[lan.main]:
                r.reason = f"the A/F did not reach {m.display(lan.order.loc)}"
            elif not res[lan.path]:
                r.reason = f"the A/F's space {m.display(lan.order.loc)} was taken: the landing is disrupted"
            else:
                r.reason = "bounced"
        for slot, why in self._implied.items():
            r = results[slot]
            if r is not None and not r.reason.startswith(why):
                r.reason = f"{why}; {r.reason}" if r.reason else why
        for p, slot in self.result_slot.items():  # units that stood in a paradox; dislodged units say so
            r = results[slot]
            i = self.idx_of[p]
            if r is None or r.result == "invalid":
                continue
            if i in self.stood:
                r.result, r.reason = "fails", "paradox: all units involved stand"
            if p in dislodged and p not in self._ashore and "dislodged" not in r.reason:
                r.reason += ", dislodged"

    def _why_not_aboard(self: Any, e: int) -> str:
        if e in self.stood:
            return "paradox: all units involved stand"
        fp = PROV[self.order[e].fleet]
        if self.code[self.idx_of[fp]] == SUPPORT or fp in self._ordered_to_support:
            return "the fleet is ordered to support (Davis III c): the army does not board"
        return "the fleet had to defend its space (Davis III c): the army does not board"

    # -- after the moves ------------------------------------------------------------------
    def after_movement(self: Any, after: Position, out: MovementOutcome, events: list[str]) -> None:
        finals = self._af_final(out)  # (before the other modules change the board)
        super().after_movement(after, out, events)  # type: ignore[misc]
        events.extend(self._events)
        after.extra.pop(RETREATING, None)
        if not self.davis:
            after.extra.pop(RATIONS, None)
            return
        m = self.m
        old = rations_at_start(self.pos)
        fresh: dict[str, int] = {}
        retreating: dict[str, dict[str, Any]] = {}
        for prov, where, origin in finals:
            moves = (old.get(origin, 0) if origin is not None else 0) + 1
            if where == "units":
                u = after.units.get(prov)
                if u is None or u.kind != "A/F":
                    continue
                if moves >= MAX_MOVES:
                    after.units[prov] = Unit(u.power, "F", u.loc)
                    events.append(_starved(u, m))
                else:
                    fresh[m.display(prov)] = moves
            else:
                d = after.dislodged.get(prov)
                if d is None or d.unit.kind != "A/F":
                    continue
                if moves >= MAX_MOVES:
                    f = Unit(d.unit.power, "F", d.unit.loc)
                    after.dislodged[prov] = Dislodged(f, d.attacker_from, standard_retreat_options(
                        after, f, d.attacker_from, out.contested))
                    events.append(_starved(d.unit, m))
                else:
                    retreating[m.display(prov)] = {"moves": moves, "power": d.unit.power,
                                                   "to": [m.display(r) for r in d.retreats]}
        if fresh:
            after.extra[RATIONS] = fresh
        else:
            after.extra.pop(RATIONS, None)
        if retreating:
            after.extra[RETREATING] = retreating

    def _af_final(self: Any, out: MovementOutcome) -> list[tuple[str, str, str | None]]:
        """The A/Fs after the moves, in the order of the fleets on the board they started from:
        (province, "units" or "dislodged", the province of the A/F it was at the start, or None
        for a fleet an army went aboard this turn)."""
        found = []
        for p, u in self.pos.units.items():
            if u.kind == "A":
                continue
            origin = p if u.kind == "A/F" else None
            d = out.dislodged.get(p)
            if d is not None:
                if d.unit.kind == "A/F":
                    found.append((p, "dislodged", origin))
                continue
            here = PROV[out.moved[p]] if p in out.moved else p
            now = out.units.get(here)
            if now is not None and now.kind == "A/F":
                found.append((here, "units", origin))
        return found


def _w(kind: str) -> str:
    return {"A": "army", "F": "fleet", "A/F": "army/fleet"}.get(kind, kind)


def _starved(u: Unit, m: Map) -> str:
    return (f"{u.power}: the army aboard the A/F in {m.display(u.loc)} starves after {MAX_MOVES} moves at sea "
            "(Davis II b); the fleet remains")


def rations_at_start(pos: Position) -> dict[str, int]:
    """Province -> moves the army of the A/F there has spent aboard, at the start of a movement.

    An A/F with no entry in ``extra["af_rations"]`` retreated there: its count is the one of the
    dislodged A/F of its power that could retreat there (the highest if several could)."""
    m = pos.map
    out: dict[str, int] = {}
    for k, v in (pos.extra.get(RATIONS) or {}).items():
        p = m.lookup(str(k))
        if p is not None:
            out[p] = int(v)
    pending = pos.extra.get(RETREATING) or {}
    for p, u in pos.units.items():
        if u.kind != "A/F" or p in out:
            continue
        best = 0
        for rec in pending.values():
            if rec.get("power") == u.power and any(m.lookup(str(t)) == p for t in rec.get("to", ())):
                best = max(best, int(rec.get("moves", 0)))
        if best:
            out[p] = best
    return out


# ================================================================== retreat and adjustment phases
def retreat_options(after: Position, u: Unit, attacker_from: str | None, contested: frozenset[str],
                    rules: dict[str, Any]) -> tuple[str, ...]:
    """Where a dislodged unit may retreat under the A/F rules, on the board ``after`` the moves (from
    the movement phase, or a retreat position whose ``retreats`` the judge works out)."""
    m = after.map
    davis = af_rules(rules) != AGAR
    opts = standard_retreat_options(after, u, attacker_from, contested)
    if u.kind == "A/F" and davis:
        seas = tuple(o for o in opts if m.terrain[PROV[o]] == "sea")
        return seas or opts  # Davis IV a: a sea space if any is open; else the fleet goes alone
    if u.kind == "A" and not davis and m.terrain[u.prov] == "coast":
        aboard = tuple(sorted(s for s in m.fleet_reach_prov.get(u.prov, ())
                              if m.terrain[s] == "sea" and s != attacker_from
                              and (f := after.units.get(s)) is not None and f.kind == "F" and f.power == u.power))
        return tuple(sorted(set(opts) | set(aboard)))  # Agar 6: onto an own fleet, forming an A/F
    return opts


def _others(rules: dict[str, Any]) -> dict[str, Any]:
    return dict(rules, modules=tuple(n for n in rules.get("modules", ()) if n != NAME))


def adjudicate_retreats(pos: Position, orders: list[Order], rules: dict[str, Any]) -> tuple:
    """Retreats with A/Fs: an A/F that retreats ashore becomes a fleet and its army is disbanded
    (Agar 6; Davis IV a when no sea space is open); an army that retreats onto a fleet of its power
    forms an A/F (Agar 6). ``F Eng - Mao`` for a dislodged A/F is its retreat order."""
    m = pos.map
    fixed = []
    for o in orders:
        d = pos.dislodged.get(PROV[o.loc]) if o.loc else None
        if d is not None and d.unit.kind == "A/F" and o.kind == "F":
            o = replace(o, kind="A/F")
        fixed.append(o)
    results, units = modules.adjudicate_retreats(pos, fixed, _others(rules))
    for r in results:
        o = r.order
        if r.result != "succeeds" or not isinstance(o, Retreat):
            continue
        d = pos.dislodged.get(PROV[o.loc])
        if d is None:
            continue
        dp = PROV[o.dest]
        u = d.unit
        if u.kind == "A/F" and m.terrain[dp] != "sea":
            units[dp] = Unit(u.power, "F", o.dest)
            r.reason = "the A/F becomes a fleet ashore: its army is disbanded"
        elif u.kind == "A" and m.terrain[dp] == "sea":
            f = pos.units.get(dp)
            if f is not None and f.kind == "F" and f.power == u.power:
                units[dp] = Unit(u.power, "A/F", f.loc)
                r.reason = f"the army boards the fleet: A/F {m.display(dp)}"
    return results, units


def adjudicate_adjustments(pos: Position, orders: list[Order], rules: dict[str, Any]) -> tuple | None:
    """Removals with A/Fs (an A/F counts as two units): ``Remove A Eng`` takes only the army of the
    A/F in Eng (one removal); ``Remove A/F Eng`` (or ``F Eng``) takes both (two removals). A power
    in civil disorder loses the army of an A/F the standard order picks, not the whole A/F (Davis
    IV c). None (the other rules decide) when no A/F is on the board."""
    if not any(u.kind == "A/F" for u in pos.units.values()):
        return None
    m = pos.map
    due = adjustments_due(pos)
    units = dict(pos.units)
    mine: dict[int, OrderResult] = {}
    rest: list[Order] = []
    for k, o in enumerate(orders):
        p = PROV[o.loc] if o.loc else ""
        u = units.get(p)
        if not isinstance(o, Remove) or pos.units.get(p) is None or pos.units[p].kind != "A/F":
            rest.append(o)
            continue
        power = o.power
        need = -due.get(power, 0)
        if u is None:
            mine[k] = OrderResult(o, power, None, "fails", f"the unit in {m.name(p)} is already removed", map=m)
            continue
        if u.kind != "A/F":  # its army was removed by an earlier order: the fleet is an ordinary unit
            rest.append(o)
            continue
        army_only = o.kind == "A"
        cost = 1 if army_only else 2
        reason = ""
        if pos.units[p].power != power:
            reason = f"the unit in {m.name(p)} belongs to {pos.units[p].power}"
        elif need <= 0:
            reason = f"{power} has no removals due"
        elif cost > need:
            reason = (f"removing the A/F in {m.name(p)} removes two units; {power} has only one removal due: "
                      f"remove its army (Remove A {m.display(p)})")
        if reason:
            mine[k] = OrderResult(o, power, None, "invalid", reason, map=m)
            continue
        due[power] = due.get(power, 0) + cost
        if army_only:
            units[p] = Unit(power, "F", u.loc)
            mine[k] = OrderResult(Remove(power, "A", u.loc), power, f"Remove A {m.display(p)} (the army of the A/F)",
                                  "succeeds", map=m)
        else:
            del units[p]
            mine[k] = OrderResult(Remove(power, "A/F", u.loc), power, None, "succeeds", map=m)
    pos2 = Position(pos.variant, pos.phase, units, pos.centres, pos.dislodged, pos.extra)
    theirs, out_units = modules.adjudicate_adjustments(pos2, rest, _others(rules))
    results: list[OrderResult] = []
    it = iter(theirs)
    for k in range(len(orders)):
        results.append(mine[k] if k in mine else next(it))
    armies_only: dict[str, list[int]] = {}  # power -> results that took only an A/F's army
    for r in it:  # the judge's own orders: waives and civil-disorder removals
        o = r.order
        if r.default and isinstance(o, Remove) and units.get(PROV[o.loc]) is not None \
                and units[PROV[o.loc]].kind == "A/F":
            p = PROV[o.loc]
            out_units[p] = Unit(o.power, "F", units[p].loc)  # Davis IV c: only the army goes
            r = OrderResult(Remove(o.power, "A", units[p].loc), o.power,
                            f"Remove A {m.display(p)} (the army of the A/F)", r.result, r.reason, default=True, map=m)
            armies_only.setdefault(o.power, []).append(len(results))
        results.append(r)
    for power, slots in armies_only.items():  # too few units to pick from: the fleets go too
        excess = (sum(unit_count(u) for u in out_units.values() if u.power == power)
                  - sum(1 for owner in pos.centres.values() if owner == power))
        for k in slots[:max(excess, 0)]:
            r = results[k]
            p = PROV[r.order.loc]  # type: ignore[union-attr]
            del out_units[p]
            results[k] = OrderResult(Remove(power, "A/F", units[p].loc), power, None, r.result, r.reason,
                                     default=True, map=m)
    return results, out_units


MODULE = RuleModule(NAME, resolver_mixin=ArmyFleetResolver, adjudicate_retreats=adjudicate_retreats,
                    adjudicate_adjustments=adjudicate_adjustments, retreat_options=retreat_options)
