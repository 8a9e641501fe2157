"""Strict reader for canonical order text (``England: F Lon - Nth``), one order per line.

This is the engine's own notation, used by test data and as the fast path of
``judge adjudicate``. Free-form player text is the order language's job (``judge.orders``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, Support, Waive
from judge.engine.position import Position
from judge.variant import province_of


class NotationError(ValueError):
    pass


@dataclass
class ParsedLine:
    line: str
    order: Order | None
    power: str | None
    error: str = ""


_TOKEN = re.compile(r"\s*(->|-|[^\s-]+(?:\s*\(\s*[nsew]c\s*\))?)", re.I)


def parse_canonical(text: str, pos: Position) -> list[ParsedLine]:
    out = []
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            order, power = parse_line(line, pos)
            out.append(ParsedLine(raw.strip(), order, power))
        except NotationError as exc:
            out.append(ParsedLine(raw.strip(), None, None, str(exc)))
    return out


def parse_line(line: str, pos: Position) -> tuple[Order, str]:
    v = pos.variant
    m = pos.map
    power = None
    head, sep, rest = line.partition(":")
    if sep:
        p = v.power(head.strip())
        if p is None:
            raise NotationError(f"unknown power {head.strip()!r}")
        power = p.name
        line = rest.strip()
    toks = [t.strip() for t in _TOKEN.findall(line)]
    toks = ["-" if t == "->" else t for t in toks if t]
    low = [t.lower() for t in toks]
    kind_phase = pos.phase.kind

    def loc(tok: str) -> str:
        tok = re.sub(r"\s*\(\s*([nsew]c)\s*\)", r"/\1", tok)
        name, _, coast = tok.partition("/")
        pid = m.lookup(name)
        if pid is None:
            raise NotationError(f"unknown province {name!r}")
        return f"{pid}/{coast.lower()}" if coast else pid

    def kind_at(i: int) -> tuple[str | None, int]:
        if i < len(toks) and low[i] in ("a", "f", "a/f"):
            return toks[i].upper(), i + 1
        return None, i

    def owner_of(p: str) -> str:
        if power:
            return power
        u = pos.units.get(province_of(p)) or (pos.dislodged[province_of(p)].unit
                                             if province_of(p) in pos.dislodged else None)
        if u is not None:
            return u.power
        c = pos.centres.get(province_of(p))
        if c:
            return c
        raise NotationError("say which power gives this order (e.g. 'England: ...')")

    if not toks:
        raise NotationError("empty order")
    if low[0] in ("waive", "w"):
        if power is None:
            raise NotationError("say which power waives (e.g. 'England: Waive')")
        return Waive(power, None, ""), power
    if low[0] in ("build", "b", "remove", "r", "disband") and kind_phase == "adjustment":
        k, i = kind_at(1)
        if i >= len(toks):
            raise NotationError("missing province")
        where = loc(toks[i])
        cls = Build if low[0] in ("build", "b") else Remove
        pw = owner_of(where)
        return cls(pw, k, where), pw
    k, i = kind_at(0)
    if i >= len(toks):
        raise NotationError("missing province")
    here = loc(toks[i])
    i += 1
    pw = owner_of(here)
    if i == len(toks) or low[i] in ("h", "hold", "holds", "stands"):
        if kind_phase == "adjustment" and i < len(toks) and low[i] in ("build", "b"):
            return Build(pw, k, here), pw
        return Hold(pw, k, here), pw
    verb = low[i]
    if verb in ("d", "disband", "disbands"):
        if kind_phase == "adjustment":
            return Remove(pw, k, here), pw
        return Disband(pw, k, here), pw
    if verb in ("build", "b") and kind_phase == "adjustment":
        return Build(pw, k, here), pw
    if verb == "-":
        path = [t for t in toks[i + 1:]]
        via = False
        if len(path) >= 2 and [t.lower() for t in path[-2:]] == ["via", "convoy"]:
            via, path = True, path[:-2]
        path = [t for t in path if t != "-"]
        if not path:
            raise NotationError("missing destination")
        dest = loc(path[-1])
        if len(path) > 1:  # a convoy route written out is ignored (DATC 4.A.6)
            for t in path[:-1]:
                loc(t)
        if kind_phase == "retreat":
            return Retreat(pw, k, here, dest), pw
        return Move(pw, k, here, dest, via), pw
    if verb in ("s", "support", "supports", "c", "convoy", "convoys"):
        tk, j = kind_at(i + 1)
        if j >= len(toks):
            raise NotationError("missing supported unit")
        target = loc(toks[j])
        dest = None
        if j + 1 < len(toks):
            if toks[j + 1] != "-" or j + 2 >= len(toks):
                if low[j + 1] in ("h", "hold", "holds"):
                    dest = None
                else:
                    raise NotationError(f"cannot read {' '.join(toks[j + 1:])!r}")
            else:
                dest = loc(toks[j + 2])
        if verb.startswith("s"):
            return Support(pw, k, here, tk, target, dest), pw
        if dest is None:
            raise NotationError("a convoy order needs the army's destination")
        return Convoy(pw, k, here, tk or "A", target, dest), pw
    raise NotationError(f"cannot read order {line!r}")
