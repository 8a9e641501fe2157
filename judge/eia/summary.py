"""The state of the game in words, for the gazette (what all of Europe knows), the master's
record (everything) and a team's ledger (its units). Pure code: state JSON in, lines out."""

from __future__ import annotations

from typing import Any

from judge.eia import calendar
from judge.eia.data import Tables


def _pair_text(key: str) -> str:
    return " and ".join(key.split("|"))


def wars(state: dict[str, Any]) -> list[str]:
    return [f"{a} and {b}" for a, b in sorted(state.get("wars") or [])]


def europe(state: dict[str, Any]) -> list[str]:
    """Public: who is at war, the enforced peaces, who controls the minors, the Papacy and Egypt,
    the Continental System and Poland."""
    month = state["month"]
    at_war = wars(state)
    out = ["At war: " + ("; ".join(at_war) if at_war else "nobody: Europe is at peace.")]
    peace = [f"{_pair_text(k)} until {calendar.title(v)}" for k, v in sorted((state.get("peace") or {}).items())
             if calendar.index(v) > calendar.index(month)]
    if peace:
        out.append("Enforced peace: " + "; ".join(peace))
    control = state.get("control") or {}
    held = [f"{minor} ({who})" for minor, who in sorted(control.items()) if who]
    free = [minor for minor, who in sorted(control.items()) if not who]
    out.append("Minor nations controlled: " + (", ".join(held) if held else "none"))
    if free:
        out.append("Uncontrolled: " + ", ".join(free))
    out.append(f"The Papacy: {'controlled by ' + state['papacy'] if state.get('papacy') else 'free'}")
    out.append(f"Egypt: {'controlled by ' + state['egypt'] if state.get('egypt') else 'free'}"
               + (" (at war with England: XVI)" if state.get("egypt_hostile") else ""))
    cs = state.get("continental") or {}
    out.append("Continental System: " + (", ".join(sorted(cs)) if cs else "nobody"))
    if state.get("poland"):
        out.append(f"Poland: created by {state['poland']}")
    return out


def unit_line(unit: dict[str, Any]) -> str:
    """A fleet or squadron: where it is, and when a unit off the map comes back (IX)."""
    where = f"{unit['ships']} ships at {unit['at']}" + (" (in port)" if unit["in_port"] else " (at sea)")
    away = unit.get("away")
    if away == "off_map":
        back = calendar.title(unit["back_from"]) if unit.get("back_from") else "next month"
        where = (f"{unit['ships']} ships off the map (left by {unit['exit_zone']}): back on the map in {back}; "
                 f"that month RETURN it TO {unit['exit_zone']} or an adjacent area, or it returns where it left")
    elif away == "to_west_indies":
        where = (f"{unit['ships']} ships on the way to the West Indies: arrives {calendar.title(unit['arrives'])}; "
                 f"may RETURN from {calendar.title(unit['back_from'])} (IX)")
    elif away == "west_indies":
        where = (f"{unit['ships']} ships in the West Indies: may RETURN (to a west map edge) from "
                 f"{calendar.title(unit['back_from'])}" if unit.get("back_from") else
                 f"{unit['ships']} ships in the West Indies")
    return f"{unit['kind']} {unit['id']}: {where}"


def fleets(led: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """(in port, at sea, off the map) lines of one nation: ports with laid-up ships and units."""
    ports: dict[str, list[str]] = {}
    for port, n in (led.get("docked") or {}).items():
        ports.setdefault(port, []).append(f"{n} laid up")
    sea, away = [], []
    for u in (led.get("units") or {}).values():
        if u.get("away"):
            away.append(unit_line(u))
        elif u["in_port"]:
            ports.setdefault(u["at"], []).append(f"{u['kind']} {u['id']} ({u['ships']})")
        else:
            sea.append(f"{u['kind']} {u['id']} ({u['ships']}) at {u['at']}")
    for port, n in (led.get("damaged") or {}).items():
        ports.setdefault(port, []).append(f"{n} waiting for repair")
    return [f"{p}: {', '.join(v)}" for p, v in sorted(ports.items())], sea, away


def works(state: dict[str, Any], nation: str | None = None) -> list[str]:
    """Ships on the stocks: all of them, or those ``nation`` builds or has paid for (II: a buyer)."""
    out = []
    for builder, led in state["nations"].items():
        for w in led.get("works") or []:
            if nation is not None and nation not in (w["owner"], w["builder"]):
                continue
            deal = ""
            if w["owner"] != w["builder"]:
                deal = f" bought from {w['builder']}" if nation == w["owner"] else f" for {w['owner']}"
            out.append(f"{w['yard']}: {w['ships']} ({w['kind']}){deal}, ready {calendar.title(w['done'])}"
                       + (f" [{builder}]" if nation is None else ""))
    return out


def economic_due(state: dict[str, Any], tables: Tables) -> bool:
    """Whether the month now open closes with an economic step."""
    return calendar.is_economic(state["month"], tables.economic_first, tables.economic_every)


def master_state(state: dict[str, Any], tables: Tables) -> list[str]:
    """The master's record opens with this: the whole state, nation by nation, then Europe."""
    out: list[str] = []
    if economic_due(state, tables):
        out += [f"REMINDER: {calendar.title(state['month'])} closes with an economic step: enter each nation's "
                f"income (MONEY, MANPOWER) before its deadline, so the step counts it.", ""]
    for nation, led in state["nations"].items():
        ports, sea, away = fleets(led)
        out.append(f"{nation}: treasury {led['money']}, manpower {led['manpower']}, political {led['pp']:+d}, "
                   f"victory {led['vp']:+d}" + (f", militia {led['militia']}" if led.get("militia") else ""))
        out.append("  in port: " + ("; ".join(ports) if ports else "none"))
        out.append("  at sea: " + ("; ".join(sea) if sea else "none"))
        out += [f"  {line}" for line in away]
        built = works(state, nation)
        out += [f"  on the stocks: {line}" for line in built if "bought from" not in line]
        for p in led.get("prizes") or []:
            out.append(f"  prizes under way to {p['to_port']}: {p['captured']} prizes, {p['damaged']} damaged, "
                       f"{p['zones_left']} sea zones to go")
        if led.get("stores"):
            out.append("  naval stores: " + ", ".join(f"{y} {n}" for y, n in sorted(led["stores"].items())))
        for c in (led.get("corps") or {}).values():
            out.append(f"  corps {c['id']} at sea ({c['infantry']} inf, {c['cavalry']} cav), {c['months']} month(s)")
    out.append("")
    out += europe(state)
    peace = [f"{_pair_text(k)} until {calendar.title(v)}" for k, v in sorted((state.get("peace") or {}).items())
             if calendar.index(v) <= calendar.index(state["month"])]
    if peace:
        out.append("Enforced peace expired: " + "; ".join(peace))
    for q in state.get("casus") or []:
        out.append(f"Casus belli awaiting your ruling: {q['by']} against {q['against']}: {q['reason']}")
    if state.get("tsar_released"):
        out.append("The Tsar is released from field command (XVII.C)")
    if state.get("invaded"):
        out.append("England is invaded (AFA 2.B)")
    return out
