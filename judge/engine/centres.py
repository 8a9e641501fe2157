"""Who owns the places a power builds in that are not supply centres (1885 II: Sicily).

Its own module because the adjustment rules and the least-effect removals (which the adjustment
rules call) both ask it: in either of them, the other would have to import it back.
"""

from __future__ import annotations

from judge.engine.position import Position


def build_centre_owners(pos: Position) -> dict[str, str]:
    """Owners of the build centres: build sites that are not supply centres (1885 II: Sicily).

    A build centre is owned like a supply centre but counts for nothing (neither builds nor
    victory): its owner may build there if it is one of the owner's build sites. Owners are kept
    in ``pos.extra["build_centres"]`` (province -> power), updated with the centres' owners; one
    not recorded there belongs to the power that lists it among its ``build_sites``.
    """
    m = pos.map
    rec = {m.lookup(k) or k: v for k, v in (pos.extra.get("build_centres") or {}).items()}
    out: dict[str, str] = {}
    for pw in pos.variant.powers.values():
        for s in pw.build_sites:
            if s not in m.centres:
                out.setdefault(s, rec.get(s, pw.name))
    return out
