"""Where Davis's 1984 module and Agar's universal module differ: the same position and orders under
``af_rules = "davis1984"`` and ``"agar"``, and the two outcomes. Each case names the sentences it
rests on; docs/rulings.md ("Army/Fleet module") lists the differences."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from test_af_helpers import AGAR, DAVIS, play, position


@dataclass
class Case:
    name: str
    units: dict[str, str]
    orders: str
    davis: dict[str, set[str]]  # units after the move, by power (powers listed are checked)
    agar: dict[str, set[str]]
    davis_dislodged: dict[str, list[str]] | None = None
    agar_dislodged: dict[str, list[str]] | None = None


CASES = [
    Case("boarding a fleet that must defend its space",  # Davis III c; Agar 1, 3
         {"England": "A Lon, F Eng", "France": "F Bre"},
         "England: A Lon E F Eng\nEngland: F Eng H\nFrance: F Bre - Eng",
         davis={"England": {"A Lon", "F Eng"}}, agar={"England": {"A/F Eng"}}),
    Case("boarding a fleet that moves and is bounced while attacked",  # Davis III c clarification
         {"England": "A Lon, F Eng", "France": "F Bre, F Mao"},
         "England: A Lon E F Eng\nEngland: F Eng - Mao\nFrance: F Bre - Eng",
         davis={"England": {"A Lon", "F Eng"}}, agar={"England": {"A/F Eng"}}),
    Case("boarding a fleet ordered to support",  # Davis III c; Agar 3
         {"England": "A Lon, F Eng, F Nth"},
         "England: A Lon E F Eng\nEngland: F Eng S F Nth",
         davis={"England": {"A Lon", "F Eng", "F Nth"}}, agar={"England": {"A/F Eng", "F Nth"}}),
    Case("boarding a fleet ordered, as the A/F it becomes, to support",  # Davis III c; Agar 1, 3
         {"England": "A Lon, F Eng, F Nth", "Germany": "F Bel"},
         "England: A Lon E F Eng\nEngland: A/F Eng S F Nth - Bel\nEngland: F Nth - Bel",
         davis={"England": {"A Lon", "F Eng", "F Bel"}}, agar={"England": {"A/F Eng", "F Bel"}},
         davis_dislodged={"F Bel": ["Hol", "Pic"]}, agar_dislodged={"F Bel": ["Hol", "Pic"]}),
    Case("boarding, landing and the fleet supporting the landing in one move",  # Davis III c; Agar 1, 5
         {"England": "A Lon, F Eng", "France": "A Bre"},
         "England: A Lon E F Eng\nEngland: A Eng D Bre\nEngland: F Eng S A Eng D Bre",
         davis={"England": {"A Lon", "F Eng"}, "France": {"A Bre"}},
         agar={"England": {"A Bre", "F Eng"}, "France": set()}, agar_dislodged={"A Bre": ["Gas", "Par", "Pic"]}),
    Case("landing with the fleet's support when the fleet is dislodged",  # Davis IV d; Agar 5
         {"England": "A/F Eng", "France": "F Bre, F Mao"},
         "England: A Eng D Wal\nEngland: F Eng S A Eng D Wal\nFrance: F Bre - Eng\nFrance: F Mao S F Bre - Eng",
         davis={"England": set()}, agar={"England": {"A Wal"}},
         davis_dislodged={"A/F Eng": ["Iri", "Nth"]},
         agar_dislodged={"F Eng": ["Bel", "Iri", "Lon", "Nth", "Pic"]}),
    Case("landing while the A/F holds and is dislodged",  # Deluge II l; Agar 5
         {"England": "A/F Nth", "Germany": "F Hel, F Den"},
         "England: A Nth D Yor\nGermany: F Hel - Nth\nGermany: F Den S F Hel - Nth",
         davis={"England": set()}, agar={"England": {"A Yor"}},
         davis_dislodged={"A/F Nth": ["Eng", "Nwg", "Ska"]},
         agar_dislodged={"F Nth": ["Bel", "Edi", "Eng", "Hol", "Lon", "Nwg", "Nwy", "Ska"]}),
    Case("landing while the fleet moves away and a supported attack takes its space",  # Davis IV e; Agar 5
         {"England": "A/F Eng", "France": "F Bre, F Mao"},
         "England: A Eng D Wal\nEngland: F Eng - Nth\nFrance: F Bre - Eng\nFrance: F Mao S F Bre - Eng",
         davis={"England": {"A/F Nth"}}, agar={"England": {"A Wal", "F Nth"}}),
    Case("the fleet lands its army and supports another unit",  # Davis III g; Agar 5
         {"England": "A/F Eng, A Wal", "France": "A Lon"},
         "England: A Eng D Pic\nEngland: A Wal - Lon\nEngland: F Eng S A Wal - Lon",
         davis={"England": {"A Pic", "F Eng", "A Wal"}}, agar={"England": {"A Pic", "F Eng", "A Lon"}}),
    Case("Agar's exception example: a landing that would decide its A/F's move",  # Davis III h; Agar 5
         {"England": "A/F Nth, F Mao", "France": "F Eng"},
         "England: A/F Nth - Eng\nEngland: A Eng D Bre\nEngland: F Mao S A Eng D Bre\nFrance: F Eng - Bre",
         davis={"England": {"A/F Nth", "F Mao"}, "France": {"F Eng"}},
         agar={"England": {"A/F Eng", "F Mao"}, "France": {"F Bre"}}),
    Case("Davis's paradox example: equal strength from the same sea space",  # Davis III h; Agar 5
         {"England": "A/F Nth", "France": "F Eng"},
         "England: A/F Nth - Eng\nEngland: A Eng D Bre\nFrance: F Eng - Bre",
         davis={"England": {"A/F Nth"}, "France": {"F Eng"}},
         agar={"England": {"A/F Eng"}, "France": {"F Bre"}}),
    Case("a Fast Ferry paradox",  # Davis I (the rulebook convoy: the game's paradox rule); Agar 7
         {"England": "F Lon, F Wal", "France": "A Bre, F Eng"},
         "England: F Lon S F Wal - Eng\nEngland: F Wal - Eng\nFrance: A Bre - Lon\nFrance: F Eng C A Bre - Lon",
         davis={"England": {"F Lon", "F Eng"}, "France": {"A Bre"}},
         agar={"England": {"F Lon", "F Wal"}, "France": {"A Bre", "F Eng"}},
         davis_dislodged={"F Eng": ["Bel", "Iri", "Mao", "Nth", "Pic"]}, agar_dislodged={}),
    Case("Deluge II's fifth example",  # Deluge II g (Davis III c); Agar 1, 3
         {"England": "A Lon, F Eng"},
         "England: A(Lon) E F(ENG)\nEngland: F(ENG) S A(Lon) - Bre",
         davis={"England": {"A Lon", "F Eng"}}, agar={"England": {"A/F Eng"}}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_orders_two_outcomes(case: Case):
    pos = position(case.units)
    outcomes = {}
    for rules, want, want_dislodged in ((DAVIS, case.davis, case.davis_dislodged),
                                        (AGAR, case.agar, case.agar_dislodged)):
        out = play(pos, case.orders, rules)
        got = {p: out.units(p) for p in want}
        assert got == want, f"{rules}: {out.out['orders']}"
        if want_dislodged is not None:
            assert out.dislodged() == want_dislodged, rules
        outcomes[rules] = (got, out.dislodged())
    assert outcomes[DAVIS] != outcomes[AGAR]


def test_rations_four_moves_at_sea():
    """Davis II b: the army starves at the end of its fourth move aboard; Agar has no limit."""
    pos = position({"England": "A/F Eng"}, extra={"af_rations": {"Eng": 3}})
    assert play(pos, "England: A/F Eng H", DAVIS).units("England") == {"F Eng"}
    assert play(pos, "England: A/F Eng H", AGAR).units("England") == {"A/F Eng"}


def test_retreat_of_an_a_f_with_sea_and_coast_open():
    """Davis IV a: to a sea space (a coast only when no sea is open); Agar 6: a coastal space too,
    where it becomes a fleet."""
    pos = position({"England": "A/F Eng", "France": "F Bre, F Mao"})
    orders = "France: F Bre - Eng\nFrance: F Mao S F Bre - Eng"
    assert play(pos, orders, DAVIS).dislodged() == {"A/F Eng": ["Iri", "Nth"]}
    out = play(pos, orders, AGAR)
    assert out.dislodged() == {"A/F Eng": ["Bel", "Iri", "Lon", "Nth", "Pic", "Wal"]}
    assert play(out.next, "England: A/F Eng - Lon", AGAR).units("England") == {"F Lon"}


def test_retreat_of_an_army_onto_its_fleet():
    """Agar 6: "An army on land can retreat to an adjacent fleet in a sea space and create an A/F";
    Davis has no such retreat."""
    pos = position({"England": "A Wal, F Iri", "France": "A Lon, A Lvp"})
    orders = "France: A Lon - Wal\nFrance: A Lvp S A Lon - Wal"
    assert play(pos, orders, DAVIS).dislodged() == {"A Wal": ["Yor"]}
    out = play(pos, orders, AGAR)
    assert out.dislodged() == {"A Wal": ["Iri", "Yor"]}
    assert play(out.next, "England: A Wal - Iri", AGAR).units("England") == {"A/F Iri"}
