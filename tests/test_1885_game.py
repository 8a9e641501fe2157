"""A scripted game of 1885 II, several years long, through the adjudicator's JSON contract.

The first months are written by hand (hidden start units, rule 11's March builds, a Sicily
crossing); after that deterministic robots write the orders — moves towards centres, supports,
no retreat orders at all (the Right-Hand Rule settles them) and removals left to the judge for
some powers (least effect). Every phase goes through ``judge.adjudicate.run_phase``; one goes
through the real command line, ``judge adjudicate --variant 1885``, as a subprocess.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from judge.adjudicate import run_phase
from judge.variant import load_variant

V = load_variant("1885")
M = V.map
CAL = V.calendar

OPTIONS: dict = {}  # the seed's own rules, the Army/Fleet module included

HAND = {
    "January 1885 Movement": """
        Italy: F Rom - Tys
        Italy: F Nap - Ion
        Italy: A Ven - Apu
        Russia: A Sev - Rum
        Russia: F StP - Bot
        Russia: A Mos - Ukr
        Russia: A War - Gal
        Sweden: Nwy - Ska
        Sweden: A Sto - Fin
        Sweden: F Mal - Den
        Turkey: A Con - Bul
        Turkey: A Smy - Syr
        Turkey: F Sin - Bla
        Austria: A Bud - Ser
        Austria: F Spl - Alb
        Austria: A Clu H
        England: F Lvp - Iri
        England: F Edi - Nwg
        England: F Lon - Nth
        Spain: F Val - Wes
        Spain: A Mad - Nav
        Spain: A Cad - Por
        France: A Par - Bur
        France: A Mar - Swi
        France: F Bre - Mao
        Germany: A Mun - Swa
        Germany: F Kie - Hol
        Germany: A Ber - Kie
        Germany: A Dre - Boh
    """,
    "February 1885 Movement": """
        Italy: F Tys - Tun
        Italy: F Ion S F Tys - Tun
        Italy: A Apu - Nap
        Russia: A Rum H
        Russia: F Bot - Sto
        Sweden: F Ska - Nwy
        Sweden: A Fin - StP
        Turkey: A Bul - Con
        Turkey: A Syr - Egy
        Turkey: F Bla - Sin
        Austria: A Ser H
        Austria: F Alb - Gre
        England: F Iri - Ire
        England: F Nwg - Ice
        Spain: F Wes - Mor
        Spain: A Nav - Mad
        France: F Mao - Bre
        Germany: F Hol - Bel
        Germany: A Kie - Hol
    """,
    # rule 11: Turkey still holds Macedonia, Russia Archangel: each builds in any home centre
    "March 1885 Adjustment": """
        Turkey: Build A Smy
        Russia: Build F Arc
        Russia: Build A Mos
    """,
    # rule 9: an Italian army crosses to Sicily by the direct passage
    "March 1885 Movement": """
        Italy: A Nap - Sic
    """,
}


def _moves(unit: str) -> list[str]:
    kind, loc = unit.split()
    p = M.lookup(loc)
    reach = M.army_adj[p] if kind == "A" else M.fleet_reach[p]
    return sorted(M.provinces[q].key for q in reach)


def robot_orders(pos: dict, rng: random.Random) -> str:
    phase = CAL.parse(pos["phase"])
    lines = []
    owner = {c: p for p, cs in pos["centers"].items() for c in cs}
    if phase.kind == "movement":
        for power, units in sorted(pos["units"].items()):
            plans = {}
            for u in units:
                options = _moves(u)
                good = [q for q in options if M.provinces[M.lookup(q)].sc and owner.get(q) != power]
                if good and rng.random() < 0.8:
                    plans[u] = rng.choice(good)
                elif rng.random() < 0.5:
                    plans[u] = rng.choice(options)
            for u in units:
                helpable = [(v, d) for v, d in plans.items() if v != u and d in _moves(u)]
                if helpable and rng.random() < 0.4:
                    v, d = rng.choice(sorted(helpable))
                    lines.append(f"{power}: {u} S {v} - {d}")
                elif u in plans:
                    lines.append(f"{power}: {u} - {plans[u]}")
    elif phase.kind == "retreat":
        # no retreat orders: the Right-Hand Rule; now and then a forbidden "disband" (rule 10b)
        for power, ds in sorted(pos["dislodged"].items()):
            for d in ds:
                if rng.random() < 0.2:
                    lines.append(f"{power}: {d['unit']} D")
    else:
        for power in sorted(V.powers):
            n_units = len(pos["units"].get(power, []))
            n_centres = len(pos["centers"].get(power, []))
            if n_centres > n_units:
                taken = {u.split()[1] for us in pos["units"].values() for u in us}
                sites = [M.provinces[s].key for s in (*V.powers[power].home, *V.powers[power].build_sites)]
                free = [s for s in sites if s not in taken]
                for s in free[:n_centres - n_units]:
                    kind = "F" if M.terrain[M.lookup(s)] == "coast" and rng.random() < 0.5 else "A"
                    lines.append(f"{power}: Build {kind} {s}")
            elif n_units > n_centres and power not in ("France", "Turkey", "Austria"):  # others: civil disorder
                for u in sorted(pos["units"][power])[:n_units - n_centres]:
                    lines.append(f"{power}: Remove {u}")
    return "\n".join(lines)


def play_game(until_year: int = 1888, seed: int = 1885) -> list[tuple[dict, str, dict]]:
    rng = random.Random(seed)
    pos = V.start_position()
    log = []
    while CAL.parse(pos["phase"]).year < until_year:
        orders = HAND.get(pos["phase"])
        if orders is None:
            orders = robot_orders(pos, rng)
        out = run_phase("1885", pos, orders, OPTIONS)
        log.append((pos, orders, out))
        if "victory" in out:
            break
        pos = out["next"]
    return log


@pytest.fixture(scope="module")
def game():
    return play_game()


def _by_phase(game, phase: str):
    for pos, orders, out in game:
        if pos["phase"] == phase:
            return pos, orders, out
    raise KeyError(phase)


def test_game_runs_several_years(game):
    years = {CAL.parse(pos["phase"]).year for pos, _, _ in game}
    assert years == {1885, 1886, 1887}
    kinds = {CAL.parse(pos["phase"]).kind for pos, _, _ in game}
    assert kinds == {"movement", "retreat", "adjustment"}
    assert len(game) > 60


def test_phases_follow_the_calendar(game):
    for pos, _, out in game:
        here, nxt = CAL.parse(pos["phase"]), CAL.parse(out["next"]["phase"])
        assert out["phase"] == pos["phase"]
        assert CAL.order_key(nxt) > CAL.order_key(here)
        if nxt.kind == "retreat":
            assert out["next"]["dislodged"]
        if nxt.kind == "adjustment":  # only after a "Fall" move: February, May, August, November
            assert nxt.season in ("March", "June", "September", "December")


def test_ownership_changes_only_after_fall_moves(game):
    for pos, _, out in game:
        if CAL.parse(out["next"]["phase"]).kind != "adjustment":
            assert {p: sorted(c) for p, c in out["next"]["centers"].items() if c} == \
                   {p: sorted(c) for p, c in pos["centers"].items() if c}, pos["phase"]


def test_first_move_reveals_the_hidden_units(game):
    pos, _, out = game[0]
    assert pos["phase"] == "January 1885 Movement"
    assert "Rom" not in " ".join(pos["units"]["Italy"])
    nxt = out["next"]["units"]
    assert "F Tys" in nxt["Italy"]
    assert {"A Rum", "F Bot"} <= set(nxt["Russia"])  # Sevastopol: an army; St Petersburg: a fleet
    assert "F Ska" in nxt["Sweden"]  # Norway: a fleet, told by its move to a sea
    assert len(out["events"]) == 4


def test_march_1885_rule_11_builds(game):
    pos, _, out = _by_phase(game, "March 1885 Adjustment")
    r = {o["order"]: o["result"] for o in out["orders"]}
    assert r["Build A Smy"] == "succeeds"  # for Macedonia, in another home centre
    assert r["Build F Arc"] == "succeeds"
    assert "Mac" in pos["centers"]["Turkey"] and "Arc" in pos["centers"]["Russia"]


def test_sicily_reached_by_the_direct_passage(game):
    _, _, out = _by_phase(game, "March 1885 Movement")
    assert {o["order"]: o["result"] for o in out["orders"]}["A Nap - Sic"] == "succeeds"
    assert "A Sic" in out["next"]["units"]["Italy"]


def test_retreats_by_the_right_hand_rule(game):
    seen = 0
    for pos, _, out in game:
        if CAL.parse(pos["phase"]).kind != "retreat":
            continue
        for o in out["orders"]:
            if not o.get("default"):
                assert o["order"].endswith(" D") and o["result"] == "invalid"  # rule 10b
                continue
            seen += 1
            unit = " ".join(o["order"].split()[:2])
            d = next(d for ds in pos["dislodged"].values() for d in ds if d["unit"] == unit)
            if o["order"].endswith(" D"):  # off the board only when no space was left
                assert o["reason"] == "no order: disbanded"
            else:
                assert o["order"].split(" - ")[1] in d["retreats"]
    assert seen > 0


def test_units_never_exceed_centres_after_adjustments(game):
    for pos, _, out in game:
        if CAL.parse(pos["phase"]).kind == "adjustment":
            for power in V.powers:
                assert len(out["next"]["units"].get(power, [])) <= len(pos["centers"].get(power, [])), \
                    (pos["phase"], power)


def test_judge_removes_with_least_effect(game):
    removals = [o for pos, _, out in game if CAL.parse(pos["phase"]).kind == "adjustment"
                for o in out["orders"] if o.get("reason") == "civil disorder"]
    assert removals and all(o["order"].startswith("Remove ") for o in removals)
    assert {o["power"] for o in removals} <= {"France", "Turkey", "Austria"}


def judge_adjudicate(tmp_path: Path, position: dict, orders: str) -> dict:
    """``judge adjudicate --variant 1885`` as a subprocess; its JSON output."""
    (tmp_path / "pos.json").write_text(json.dumps(position))
    (tmp_path / "orders.txt").write_text(orders)
    args = [sys.executable, "-m", "judge.cli", "adjudicate", "--variant", "1885",
            "--position", str(tmp_path / "pos.json"), "--orders", str(tmp_path / "orders.txt")]
    for name, value in OPTIONS.items():
        args += ["--option", f"{name}={value}"]
    r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_command_line_call(game, tmp_path: Path):
    pos, orders, out = game[len(game) // 2]
    assert judge_adjudicate(tmp_path, pos, orders) == out


def test_command_line_first_move(tmp_path: Path):
    """The first move through the command line: the start position and orders for hidden units."""
    out = judge_adjudicate(tmp_path, V.start_position(), HAND["January 1885 Movement"])
    assert out["next"]["phase"] == "February 1885 Movement"
    assert all(o["result"] == "succeeds" for o in out["orders"]), [o for o in out["orders"] if o["result"] != "succeeds"]
