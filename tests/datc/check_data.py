"""Consistency checks for tests/datc/datc_v3.json (no engine needed).

Run:  python tests/datc/check_data.py

It checks the shape of the file (164 DATC v3.0 ids, each once, in DATC order), the
canonical order syntax and province keys, that every unit an order names stands in the
position, and so does every unit a support or convoy names (except the orders listed in
ABSENT_OK / OTHER_UNIT_OK, which test exactly that), that the
"invalid" marks agree with a small independent model of the standard map (adjacency,
coasts, convoy reachability), that the expected positions are consistent with the
expected move results (every unit that "succeeds" ends where it moved, no two units share
a province, every dislodged unit was entered by a successful move), and the civil
disorder expectations of 6.J (2023 rules: distance to the nearest owned centre over land
and sea, fleets before armies, then English alphabetical order).

The map here is deliberately independent of the engine's map data.
"""
from __future__ import annotations

import json
import re
import sys
from collections import deque
from pathlib import Path

DATA = Path(__file__).with_name("datc_v3.json")

# DATC v3.0 chapter 6: cases per section (164 in all)
SECTION_COUNTS = {"A": 12, "B": 15, "C": 9, "D": 34, "E": 15, "F": 25, "G": 20, "H": 16,
                  "I": 7, "J": 11}

POWERS = ["England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"]

NAMES = {
    "Boh": "Bohemia", "Bud": "Budapest", "Gal": "Galicia", "Tri": "Trieste", "Tyr": "Tyrolia",
    "Vie": "Vienna", "Cly": "Clyde", "Edi": "Edinburgh", "Lvp": "Liverpool", "Lon": "London",
    "Wal": "Wales", "Yor": "Yorkshire", "Bre": "Brest", "Bur": "Burgundy", "Gas": "Gascony",
    "Mar": "Marseilles", "Par": "Paris", "Pic": "Picardy", "Ber": "Berlin", "Kie": "Kiel",
    "Mun": "Munich", "Pru": "Prussia", "Ruh": "Ruhr", "Sil": "Silesia", "Apu": "Apulia",
    "Nap": "Naples", "Pie": "Piedmont", "Rom": "Rome", "Tus": "Tuscany", "Ven": "Venice",
    "Fin": "Finland", "Lvn": "Livonia", "Mos": "Moscow", "Sev": "Sevastopol",
    "StP": "St Petersburg", "Ukr": "Ukraine", "War": "Warsaw", "Ank": "Ankara",
    "Arm": "Armenia", "Con": "Constantinople", "Smy": "Smyrna", "Syr": "Syria",
    "Alb": "Albania", "Bel": "Belgium", "Bul": "Bulgaria", "Den": "Denmark", "Gre": "Greece",
    "Hol": "Holland", "Nwy": "Norway", "NAf": "North Africa", "Por": "Portugal",
    "Rum": "Rumania", "Ser": "Serbia", "Spa": "Spain", "Swe": "Sweden", "Tun": "Tunis",
    "Adr": "Adriatic Sea", "Aeg": "Aegean Sea", "Bal": "Baltic Sea", "Bar": "Barents Sea",
    "Bla": "Black Sea", "Bot": "Gulf of Bothnia", "Eas": "Eastern Mediterranean",
    "Eng": "English Channel", "Hel": "Helgoland Bight", "Ion": "Ionian Sea",
    "Iri": "Irish Sea", "Lyo": "Gulf of Lyon", "Mao": "Mid-Atlantic Ocean",
    "Nao": "North Atlantic Ocean", "Nth": "North Sea", "Nwg": "Norwegian Sea",
    "Ska": "Skagerrak", "Tys": "Tyrrhenian Sea", "Wes": "Western Mediterranean",
}
KEYS = set(NAMES)
INLAND = {"Boh", "Bud", "Gal", "Mos", "Mun", "Par", "Ruh", "Ser", "Sil", "Tyr", "Ukr", "Vie",
          "War", "Bur"}
SEAS = {"Adr", "Aeg", "Bal", "Bar", "Bla", "Bot", "Eas", "Eng", "Hel", "Ion", "Iri", "Lyo",
        "Mao", "Nao", "Nth", "Nwg", "Ska", "Tys", "Wes"}
COASTAL = KEYS - INLAND - SEAS
MULTI = {"Spa": ("nc", "sc"), "StP": ("nc", "sc"), "Bul": ("ec", "sc")}
HOME = {
    "England": {"Lon", "Edi", "Lvp"}, "France": {"Bre", "Par", "Mar"},
    "Germany": {"Ber", "Kie", "Mun"}, "Italy": {"Rom", "Nap", "Ven"},
    "Austria": {"Vie", "Bud", "Tri"}, "Russia": {"StP", "Mos", "War", "Sev"},
    "Turkey": {"Ank", "Con", "Smy"},
}
SC = set().union(*HOME.values()) | {"Bel", "Bul", "Den", "Gre", "Hol", "Nwy", "Por", "Rum",
                                     "Ser", "Spa", "Swe", "Tun"}

_ARMY = """
Alb: Tri Ser Gre
Ank: Con Smy Arm
Apu: Ven Rom Nap
Arm: Ank Smy Syr Sev
Bel: Hol Ruh Bur Pic
Ber: Kie Mun Sil Pru
Boh: Mun Sil Gal Vie Tyr
Bre: Pic Par Gas
Bud: Vie Gal Rum Ser Tri
Bul: Rum Ser Gre Con
Bur: Par Pic Bel Ruh Mun Mar Gas
Cly: Edi Lvp
Con: Bul Ank Smy
Den: Kie Swe
Edi: Cly Lvp Yor
Fin: Swe Nwy StP
Gal: Boh Sil War Ukr Rum Bud Vie
Gas: Bre Par Bur Mar Spa
Gre: Alb Ser Bul
Hol: Bel Ruh Kie
Kie: Hol Ruh Mun Ber Den
Lon: Yor Wal
Lvn: Pru War Mos StP
Lvp: Cly Edi Yor Wal
Mar: Spa Gas Bur Pie
Mos: StP Lvn War Ukr Sev
Mun: Bur Ruh Kie Ber Sil Boh Tyr
NAf: Tun
Nap: Rom Apu
Nwy: Swe Fin StP
Par: Bre Pic Bur Gas
Pic: Bre Par Bur Bel
Pie: Mar Tyr Ven Tus
Por: Spa
Pru: Ber Sil War Lvn
Rom: Tus Ven Apu Nap
Ruh: Bel Hol Kie Mun Bur
Rum: Bud Gal Ukr Sev Bul Ser
Ser: Bud Rum Bul Gre Alb Tri
Sev: Ukr Mos Arm Rum
Sil: Ber Pru War Gal Boh Mun
Smy: Con Ank Arm Syr
Spa: Por Gas Mar
StP: Nwy Fin Lvn Mos
Swe: Nwy Fin Den
Syr: Smy Arm
Tri: Ven Tyr Vie Bud Ser Alb
Tun: NAf
Tus: Pie Ven Rom
Tyr: Mun Boh Vie Tri Ven Pie
Ukr: War Gal Rum Sev Mos
Ven: Tyr Tri Apu Rom Tus Pie
Vie: Boh Gal Bud Tri Tyr
Wal: Lvp Yor Lon
War: Pru Sil Gal Ukr Mos Lvn
Yor: Edi Lvp Wal Lon
"""

# fleet adjacency between fleet locations ("Spa/nc" for a coast of a multi-coast province)
_FLEET = """
Adr: Ven Tri Alb Apu Ion
Aeg: Gre Bul/sc Con Smy Eas Ion
Bal: Swe Bot Lvn Pru Ber Kie Den
Bar: Nwg Nwy StP/nc
Bla: Rum Sev Arm Ank Con Bul/ec
Bot: Swe Fin StP/sc Lvn Bal
Eas: Aeg Smy Syr Ion
Eng: Iri Wal Lon Nth Bel Pic Bre Mao
Hel: Nth Den Kie Hol
Ion: Tun Tys Nap Apu Adr Alb Gre Aeg Eas
Iri: Nao Lvp Wal Eng Mao
Lyo: Spa/sc Mar Pie Tus Tys Wes
Mao: Nao Iri Eng Bre Gas Spa/nc Por Spa/sc NAf Wes
Nao: Nwg Cly Lvp Iri Mao
Nth: Nwg Nwy Ska Den Hel Hol Bel Eng Lon Yor Edi
Nwg: Bar Nwy Nth Edi Cly Nao
Ska: Nwy Swe Den Nth
Tys: Tus Rom Nap Ion Tun Wes Lyo
Wes: Lyo Tys Tun NAf Mao Spa/sc
Alb: Gre Tri
Ank: Arm Con
Apu: Ven Nap
Arm: Sev
Bel: Hol Pic
Ber: Kie Pru
Bre: Pic Gas
Bul/ec: Rum Con
Bul/sc: Con Gre
Cly: Edi Lvp
Con: Smy
Den: Kie Swe
Edi: Yor
Fin: Swe StP/sc
Gas: Spa/nc
Hol: Kie
Lon: Yor Wal
Lvn: Pru StP/sc
Lvp: Wal
Mar: Spa/sc Pie
NAf: Tun
Nap: Rom
Nwy: Swe StP/nc
Pie: Tus
Por: Spa/nc Spa/sc
Rom: Tus
Rum: Sev
Smy: Syr
Tri: Ven
"""


def _parse_adj(text: str) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = {}
    for line in text.strip().splitlines():
        a, rest = line.split(":")
        for b in rest.split():
            adj.setdefault(a, set()).add(b)
            adj.setdefault(b, set()).add(a)
    return adj


ARMY = _parse_adj(_ARMY)
FLEET = _parse_adj(_FLEET)


def prov(loc: str) -> str:
    return loc.split("/")[0]


def fleet_locs(p: str) -> list[str]:
    return [f"{p}/{c}" for c in MULTI[p]] if p in MULTI else [p]


def fleet_can_reach(loc: str, dest_prov: str) -> bool:
    """A fleet at loc can move to (some coast of) dest_prov."""
    return any(prov(n) == dest_prov for n in FLEET.get(loc, ()))


def army_convoy_route_exists(src: str, dst: str, fleets_at: set[str] | None) -> bool:
    """Sea path src -> seas -> dst; if fleets_at is given, only seas holding a fleet."""
    if src not in COASTAL or dst not in COASTAL or src == dst:
        return False
    start = [s for loc in fleet_locs(src) for s in FLEET.get(loc, ())
             if s in SEAS and (fleets_at is None or s in fleets_at)]
    seen, todo = set(start), deque(start)
    while todo:
        s = todo.popleft()
        if dst in {prov(n) for n in FLEET[s]}:
            return True
        for n in FLEET[s]:
            if n in SEAS and n not in seen and (fleets_at is None or n in fleets_at):
                seen.add(n)
                todo.append(n)
    return False


# --- order syntax ----------------------------------------------------------------------
PROV_RE = r"(?:[A-Z][A-Za-z]{2})(?:/(?:nc|sc|ec|wc))?"
UNIT_RE = rf"([AF]) ({PROV_RE})"
POWER_RE = r"(England|France|Germany|Italy|Austria|Russia|Turkey)"
ORDER_PATTERNS = [
    ("hold", re.compile(rf"^{POWER_RE}: {UNIT_RE} H$")),
    ("move", re.compile(rf"^{POWER_RE}: {UNIT_RE} - ({PROV_RE})( via convoy)?$")),
    ("support_move", re.compile(rf"^{POWER_RE}: {UNIT_RE} S {UNIT_RE} - ({PROV_RE})$")),
    ("support_hold", re.compile(rf"^{POWER_RE}: {UNIT_RE} S {UNIT_RE}$")),
    ("convoy", re.compile(rf"^{POWER_RE}: {UNIT_RE} C A ({PROV_RE}) - ({PROV_RE})$")),
    ("disband", re.compile(rf"^{POWER_RE}: {UNIT_RE} D$")),
    ("build", re.compile(rf"^{POWER_RE}: Build {UNIT_RE}$")),
    ("remove", re.compile(rf"^{POWER_RE}: Remove {UNIT_RE}$")),
    ("waive", re.compile(rf"^{POWER_RE}: Waive$")),
]


def parse_order(line: str):
    for kind, rx in ORDER_PATTERNS:
        m = rx.match(line)
        if m:
            return kind, m.groups()
    raise ValueError(f"order does not match the canonical syntax: {line!r}")


def check_loc(loc: str, where: str, errors: list[str]) -> None:
    p = prov(loc)
    if p not in KEYS:
        errors.append(f"{where}: unknown province {p!r}")
    elif "/" in loc and loc.split("/")[1] not in MULTI.get(p, ()) and p not in MULTI:
        # a coast on a single-coast province: only allowed where the DATC writes one
        errors.append(f"{where}: coast on single-coast province {loc!r}")


def phase_kind(phase: str) -> str:
    m = re.fullmatch(r"(Spring|Fall|Winter) (\d{4}) (Movement|Retreat|Adjustment)", phase)
    if not m:
        raise ValueError(f"bad phase {phase!r}")
    return m.group(3)


# --- civil disorder (DATC 4.D.8, 2023 rules) --------------------------------------------
def distance(src: str, targets: set[str]) -> int:
    graph: dict[str, set[str]] = {}
    for adj in (ARMY, FLEET):
        for a, bs in adj.items():
            for b in bs:
                graph.setdefault(prov(a), set()).add(prov(b))
    seen, todo = {src: 0}, deque([src])
    while todo:
        p = todo.popleft()
        if p in targets:
            return seen[p]
        for n in graph.get(p, ()):
            if n not in seen:
                seen[n] = seen[p] + 1
                todo.append(n)
    return 10**6


def civil_disorder_order(units: list[str], owned: set[str]) -> list[str]:
    """Units in the order civil disorder removes them (first = removed first)."""
    def key(u: str):
        kind, loc = u.split()
        return (-distance(prov(loc), owned), 0 if kind == "F" else 1, NAMES[prov(loc)])
    return sorted(units, key=key)


# --- the checks -----------------------------------------------------------------------
def unit_at(units: dict[str, list[str]], p: str):
    for power, us in units.items():
        for u in us:
            if prov(u.split()[1]) == p:
                return power, u
    return None


def check_step(cid: str, si: int, phase: str, units: dict, centers: dict, dislodged_in: dict,
               step: dict, allowed_absent: set[str], errors: list[str]) -> tuple[dict, dict]:
    where = f"{cid} step {si}"
    kind = phase_kind(phase)
    lines = step["orders"].split("\n") if step["orders"] else []
    exp = step["expect"]
    results = exp.get("results", {})
    for k, v in results.items():
        m = re.fullmatch(r"(.*) #(\d+)", k)
        if m and lines.count(m.group(1)) >= int(m.group(2)) >= 2:
            continue
        if k not in lines:
            errors.append(f"{where}: result key not an order line: {k!r}")
        if v not in ("succeeds", "fails", "invalid"):
            errors.append(f"{where}: bad result {v!r}")
    if len(set(lines)) != len(lines) and not any(lines.count(l) > 1 and kind == "Adjustment" for l in lines):
        errors.append(f"{where}: duplicate order lines")
    fleets_at = {prov(u.split()[1]) for us in units.values() for u in us if u.startswith("F ")}
    moved: dict[str, str] = {}     # province -> destination location
    for line in lines:
        try:
            okind, g = parse_order(line)
        except ValueError as e:
            errors.append(f"{where}: {e}")
            continue
        power = g[0]
        res = results.get(line)
        if okind == "waive":
            continue
        ukind, uloc = g[1], g[2]
        check_loc(uloc, where, errors)
        for x in g[3:]:
            if x and x.strip() and x != " via convoy" and x not in ("A", "F"):
                check_loc(x, where, errors)
        if okind in ("build", "remove"):
            if kind != "Adjustment":
                errors.append(f"{where}: {okind} outside adjustment: {line}")
            continue
        if kind == "Adjustment":
            errors.append(f"{where}: non-adjustment order in adjustment: {line}")
            continue
        pool = dislodged_in if kind == "Retreat" else units
        found = unit_at(pool, prov(uloc))
        present = bool(found and found[0] == power and found[1].split()[0] == ukind)
        if not present and line not in allowed_absent:
            errors.append(f"{where}: order names a unit that is not in the position: {line}")
        if okind in ("support_move", "support_hold", "convoy") and kind == "Movement":
            named_kind, named_loc = (g[3], g[4]) if okind != "convoy" else ("A", g[3])
            other = unit_at(units, prov(named_loc))
            if other is None:
                errors.append(f"{where}: the unit this order names is not on the board: {line}")
            elif other[1].split()[0] != named_kind and line not in OTHER_UNIT_OK.get(cid.split("[")[0], ()):
                errors.append(f"{where}: the unit this order names is of the other kind: {line}")
        if okind == "move" or (okind in ("hold",) and kind == "Movement"):
            if okind == "move" and res is None:
                errors.append(f"{where}: move without an expected result: {line}")
            if okind == "hold" and res is None:
                errors.append(f"{where}: hold without an expected result: {line}")
        # independent legality model (movement phase)
        if kind == "Movement" and present:
            actual = found[1].split()[1]
            legal = True
            if okind == "move":
                dst = g[3]
                legal = move_legal(ukind, actual, dst, fleets_at)
            elif okind in ("support_move", "support_hold"):
                target = prov(g[5 if okind == "support_move" else 4])
                tgt_unit = unit_at(units, prov(g[4]))
                legal = (target != prov(actual)
                         and (fleet_can_reach(actual, target) if ukind == "F"
                              else target in ARMY.get(prov(actual), ())))
                if okind == "support_move" and legal:
                    # the supported move itself must be possible
                    if tgt_unit is None:
                        legal = False
                    else:
                        legal = move_legal(tgt_unit[1].split()[0], tgt_unit[1].split()[1],
                                           g[5], fleets_at, strict_coast=False)
                if okind == "support_hold" and legal and prov(g[4]) == prov(actual):
                    legal = False
            elif okind == "convoy":
                legal = (prov(actual) in SEAS and ukind == "F")
            if res == "invalid" and legal:
                if line not in INVALID_BEYOND_MODEL.get(cid.split("[")[0], ()):
                    errors.append(f"{where}: marked invalid but the map model finds it legal: {line}")
            if res != "invalid" and res is not None and not legal:
                errors.append(f"{where}: map model finds the order illegal but expected {res}: {line}")
        if res == "succeeds" and okind == "move":
            moved[prov(uloc)] = g[3]
    return moved, results


# orders whose own unit is deliberately not in the position (the DATC tests exactly that)
ABSENT_OK = {
    "6.A.6": {"Germany: F Lon - Nth"},                     # England's fleet, ordered by Germany
    "6.H.1": {"Austria: A Ser S F Tri - Alb"},             # not dislodged: no order in a retreat
    "6.H.3": {"England: F Nth C A Hol - Yor"},
    "6.H.4": {"England: F Nth - Nwg"},
}

# support/convoy orders that name a unit of the wrong kind on purpose
OTHER_UNIT_OK = {
    "6.A.7": {"England: F Nth C A Lon - Bel"},   # only armies can be convoyed
}

# orders that are illegal for reasons the simple map model does not capture
INVALID_BEYOND_MODEL = {
    "6.A.8": {"Austria: F Tri S F Tri"},
    "6.D.31": {"Turkey: F Bla S A Rum - Arm"},
    "6.D.34": {"Italy: A Pru S A Lvn - Pru"},
    "6.G.7": {"Russia: F Bot C A Swe - Nwy"},
    "6.G.19": {"France: F Wes C A Mar - Spa"},
    "6.D.22": {"Germany: A Bur S F Kie - Mun"},
}


def move_legal(ukind: str, actual: str, dst: str, fleets_at: set[str], strict_coast=True) -> bool:
    dp = prov(dst)
    if dp == prov(actual) or dp not in KEYS:
        return False
    if ukind == "A":
        if dp in SEAS:
            return False
        return dp in ARMY.get(prov(actual), ()) or army_convoy_route_exists(prov(actual), dp, fleets_at)
    # fleet
    if dp in INLAND:
        return False
    if dp in MULTI:
        reach = [n for n in FLEET.get(actual, ()) if prov(n) == dp]
        if not reach:
            return False
        if "/" in dst:
            return dst in reach
        return len(reach) == 1 or not strict_coast
    return fleet_can_reach(actual, dp)


def norm(units: dict) -> dict:
    return {p: sorted(u.lower() for u in us) for p, us in units.items() if us}


def main() -> int:
    data = json.loads(DATA.read_text())
    errors: list[str] = []
    ids = [c["id"] for c in data["cases"]]
    if len(ids) != 164 or len(set(ids)) != 164:
        errors.append(f"expected 164 distinct ids, got {len(ids)} ({len(set(ids))} distinct)")
    official = [f"6.{sec}.{n}" for sec, count in SECTION_COUNTS.items()
                for n in range(1, count + 1)]
    if ids != official:
        errors.append("ids are not the DATC v3.0 ids in DATC order")
    if "Kruijswijk" not in data.get("source", ""):
        errors.append("source must credit Kruijswijk")
    for case in data["cases"]:
        cid = case["id"]
        pos = case["position"]
        allowed_absent = ABSENT_OK.get(cid, set())
        for power in list(pos["units"]) + list(pos.get("centers", {})):
            if power not in POWERS:
                errors.append(f"{cid}: unknown power {power}")
        for us in pos["units"].values():
            for u in us:
                k, loc = u.split()
                check_loc(loc, cid, errors)
                if k == "F" and prov(loc) in MULTI and "/" not in loc:
                    errors.append(f"{cid}: fleet on multi-coast province without coast: {u}")
                if k == "A" and prov(loc) in SEAS or k == "F" and prov(loc) in INLAND:
                    errors.append(f"{cid}: unit on impossible terrain: {u}")
        scen = [("[" + s["label"] + "]", s["position"], s["steps"]) for s in case.get("scenarios", [])]
        for label0, pos0, steps0 in scen:
            run_sequence(cid + label0, pos0, steps0, set(), errors)
        seqs = [("", case["steps"])] + [
            ("[" + ",".join(f"{k}={v}" for k, v in o["options"].items()) + "]", o["steps"])
            for o in case.get("options", [])]
        for label, steps in seqs:
            run_sequence(cid + label, pos, steps, allowed_absent, errors)
    if errors:
        print("\n".join(errors))
        print(f"{len(errors)} problem(s)")
        return 1
    print(f"OK: {len(ids)} cases")
    return 0


def run_sequence(cid, pos, steps, allowed_absent, errors):
    label = ""
    units = {p: list(us) for p, us in pos["units"].items()}
    dislodged_in = {p: [d["unit"] for d in ds] for p, ds in pos.get("dislodged", {}).items()}
    for si, step in enumerate(steps):
        phase = step.get("phase") or pos["phase"]
        if si == 0 and phase != pos["phase"]:
            errors.append(f"{cid}: first step phase differs from position phase")
        check_step(cid, si, phase, units, pos.get("centers", {}), dislodged_in,
                   step, allowed_absent, errors)
        check_consistency(cid, si, phase, units, dislodged_in, step, pos, errors)
        exp = step["expect"]
        new_dis: dict[str, list[str]] = {}
        for d in exp.get("dislodged", []):
            owner = [p for p, us in units.items() if d in us]
            if len(owner) != 1:
                errors.append(f"{cid} step {si}: cannot find owner of dislodged {d}")
            else:
                new_dis.setdefault(owner[0], []).append(d)
        units = {p: list(us) for p, us in exp["units"].items()}
        dislodged_in = new_dis


def check_consistency(cid, si, phase, units, dislodged_in, step, pos, errors):
    where = f"{cid} step {si}"
    exp = step["expect"]
    kind = phase_kind(phase)
    lines = step["orders"].split("\n") if step["orders"] else []
    results = exp.get("results", {})
    after = exp["units"]
    occupied: dict[str, str] = {}
    for p, us in after.items():
        for u in us:
            pr = prov(u.split()[1])
            if pr in occupied:
                errors.append(f"{where}: two units in {pr}")
            occupied[pr] = p
    if kind == "Movement":
        before = {(p, u) for p, us in units.items() for u in us}
        dis = set(exp["dislodged"])
        # apply successful moves
        expected = {}
        moved_from = {}
        for line in lines:
            kind_, g = parse_order(line)
            if kind_ == "move" and results.get(line) == "succeeds":
                moved_from[prov(g[2])] = g[3]
        entered = {prov(d) for d in moved_from.values()}
        for p, u in before:
            k, loc = u.split()
            pr = prov(loc)
            if u in dis:
                if pr in moved_from:
                    errors.append(f"{where}: {u} both moved and dislodged")
                if pr not in entered:
                    errors.append(f"{where}: {u} dislodged but nobody moved into {pr}")
                continue
            if pr in moved_from:
                dst = moved_from[pr]
                if k == "F" and prov(dst) in MULTI and "/" not in dst:
                    reach = [n for n in FLEET.get(loc, ()) if prov(n) == dst]
                    if len(reach) == 1:
                        dst = reach[0]
                if k == "A":
                    dst = prov(dst)
                expected.setdefault(p, []).append(f"{k} {dst}")
            else:
                expected.setdefault(p, []).append(u)
        for d in dis:
            if not any(u == d for _, u in before):
                errors.append(f"{where}: dislodged unit {d} not in the position")
        if norm(expected) != norm(after):
            errors.append(f"{where}: expected units do not follow from the move results:\n"
                          f"   derived  {norm(expected)}\n   declared {norm(after)}")
        # every successful move's destination: no non-moving, non-dislodged unit stays there
        for src, dst in moved_from.items():
            occ = [u for _, u in before if prov(u.split()[1]) == prov(dst)]
            for u in occ:
                if u not in dis and prov(u.split()[1]) not in moved_from:
                    errors.append(f"{where}: move into {dst} succeeds but {u} stays there")
        for line in lines:
            kind_, g = parse_order(line)
            if kind_ == "hold":
                u = f"{g[1]} {g[2]}"
                want = "fails" if u in dis else "succeeds"
                if results.get(line) != want:
                    errors.append(f"{where}: hold result should be {want}: {line}")
    elif kind == "Retreat":
        if exp.get("dislodged"):
            errors.append(f"{where}: dislodged after a retreat step")
        expected = {p: list(us) for p, us in units.items()}
        targets = {}
        for line in lines:
            kind_, g = parse_order(line)
            if kind_ == "move" and results.get(line) == "succeeds":
                targets.setdefault(prov(g[3]), []).append((g[0], f"{g[1]} {g[3] if g[1] == 'F' else prov(g[3])}"))
        for pr, lst in targets.items():
            if len(lst) > 1:
                errors.append(f"{where}: two retreats into {pr} both succeed")
            p, u = lst[0]
            expected.setdefault(p, []).append(u)
        if norm(expected) != norm(after):
            errors.append(f"{where}: expected units after retreat do not follow:\n"
                          f"   derived  {norm(expected)}\n   declared {norm(after)}")
    else:  # Adjustment
        centers = pos.get("centers", {})
        expected = {p: list(us) for p, us in units.items()}
        removed_by_order = {}
        seen: dict[str, int] = {}
        for line in lines:
            kind_, g = parse_order(line)
            seen[line] = seen.get(line, 0) + 1
            r = results.get(line if seen[line] == 1 else f"{line} #{seen[line]}")
            if kind_ == "build" and r == "succeeds":
                expected.setdefault(g[0], []).append(f"{g[1]} {g[2]}")
            if kind_ == "remove" and r == "succeeds":
                expected[g[0]].remove(f"{g[1]} {g[2]}")
                removed_by_order[g[0]] = removed_by_order.get(g[0], 0) + 1
        # civil disorder for powers with too few removals
        for p, us in units.items():
            need = len(us) - len(centers.get(p, []))
            if need > 0:
                left = need - removed_by_order.get(p, 0)
                if left > 0:
                    order = civil_disorder_order(expected[p], set(centers.get(p, [])))
                    for u in order[:left]:
                        expected[p].remove(u)
        if norm(expected) != norm(after):
            errors.append(f"{where}: expected units after adjustment do not follow:\n"
                          f"   derived  {norm(expected)}\n   declared {norm(after)}")


if __name__ == "__main__":
    sys.exit(main())
