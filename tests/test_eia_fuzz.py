"""Hostile and hurried input to the EiA step: random command lines never crash it, never make
money, manpower or ships negative, and a month is the same every time for the same secret."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings, strategies as st

from judge.eia.step import step, trial
from eia_helpers import SECRET, fresh

NATIONS = ["England", "France", "Spain", "Prussia", "Austria", "Russia", "Turkey", "Master", "Narnia", "france"]
VERBS = ["BUILD", "REPAIR", "CONTRACT", "STORES", "ANNOUNCE", "FORM", "DOCK", "SAIL", "BREAKOUT", "PURSUE",
         "INTERCEPT", "TRAIL", "MOVE", "RETURN", "TRANSPORT", "LAND", "LOAN", "CEDE", "CASUS", "DENY", "ALLOW",
         "MONEY", "MANPOWER", "SHIPS", "CONTROL", "WAR", "PEACE", "ADMIRAL", "BATTLE", "COMBAT", "FORT", "POINTS",
         "SURRENDER", "POLAND", "PAPACY", "CONTINENTAL", "RENOUNCE", "EGYPT", "TSAR", "HONOURS", "INVASION", "build"]
WORDS = ["2", "-3", "0", "99", "AT", "TO", "FOR", "FROM", "PRICE", "VIA", "WATCH", "WEST", "INDIES", "RETURN", "ENGAGE",
         "FLEET", "SQUADRON", "ZONES", "PORT", "INF", "CAV", "ON", "WINNER", "LOSSES", "VALUE", "GARRISON", "NONE",
         "MILITIA", "ATTACKER", "KEEPS", "CREATE", "PARTITION", "START", "END", "VICTORY", "DEFEAT", "VP", "F1", "S1",
         "Brest", "Portsmouth", "London", "Cadiz", "Königsberg", "Channel", "France", "England", "Spain", "Venice",
         "Sweden", "GRANT", "AGAINST", "ü", "", ":", "#"]

line = st.builds(lambda n, v, ws: f"{n}: {v} {' '.join(ws)}", st.sampled_from(NATIONS), st.sampled_from(VERBS),
                 st.lists(st.sampled_from(WORDS), max_size=8))
MAJORS = NATIONS[:7]
YARDS = ["Brest", "Toulon", "London", "Dublin", "Cadiz", "Corunna", "Danzig", "Trieste", "Zara", "Riga", "Sinope",
         "Copenhagen", "Venice"]
n = st.integers(-2, 40)
good = st.one_of(
    st.builds(lambda a, k, y: f"{a}: BUILD {k} AT {y}", st.sampled_from(MAJORS), n, st.sampled_from(YARDS)),
    st.builds(lambda a, k, y: f"{a}: STORES {k} AT {y}", st.sampled_from(MAJORS), n, st.sampled_from(YARDS)),
    st.builds(lambda a, k, y: f"{a}: REPAIR {k} AT {y}", st.sampled_from(MAJORS), n, st.sampled_from(YARDS)),
    st.builds(lambda k, z, w: f"Master: BATTLE AT Channel WINNER {w} LOSSES England F1 {k} France F1 {k} TO "
              f"{'Portsmouth' if w == 'England' else 'Brest'} ZONES {z}", n, n, st.sampled_from(["England", "France"])),
    st.builds(lambda v, g: f"Master: FORT Brest VALUE {v} GARRISON {g} ATTACKER England F1",
              st.integers(0, 130), st.sampled_from(["FULL", "MILITIA", "NONE"])),
    st.builds(lambda o: f"France: BREAKOUT F1 {o} VIA Biscay ENGAGE", st.sampled_from(["WEST INDIES", "RETURN"])),
    st.builds(lambda o, m: f"England: PURSUE F1 WATCH Brest {o}\nEngland: {m} F1",
              st.sampled_from(["WEST INDIES", "RETURN"]), st.sampled_from(["TRAIL", "INTERCEPT"])),
    st.builds(lambda i, c: f"England: TRANSPORT C1 INF {i} CAV {c} ON F1", n, n),
    st.builds(lambda a, k: f"Master: MONEY {a} {k:+d} gift", st.sampled_from(MAJORS), n),
    st.builds(lambda a, k: f"{a}: LOAN {k} TO England", st.sampled_from(MAJORS), n),
    st.builds(lambda z: f"France: SAIL S1\nFrance: MOVE S1 TO Toulon PORT ZONES {z}", n),
    st.sampled_from(["Master: PAPACY Turkey", "Master: EGYPT France", "Master: EGYPT NONE", "Master: POLAND CREATE "
                     "Russia", "Master: POLAND PARTITION Austria", "Master: CONTINENTAL Spain", "Master: RENOUNCE Spain",
                     "Master: INVASION START", "Master: INVASION END", "Master: TSAR VICTORY", "England: RETURN F1 TO "
                     "Channel", "France: RETURN F1 TO Biscay", "England: DENY STORES TO France"]),
)
SETUP = ("Master: WAR France England\nEngland: FORM F1 FLEET 10 AT London\nFrance: FORM F1 FLEET 8 AT Brest\n"
         "France: FORM S1 SQUADRON 3 AT Toulon\nEngland: SAIL F1")
START = fresh(setup=SETUP)


def _check(state: dict) -> None:
    for nation, led in state["nations"].items():
        assert led["money"] >= 0 and led["manpower"] >= 0, nation
        assert all(n > 0 for n in led["docked"].values()), led["docked"]
        for u in led["units"].values():
            assert u["ships"] > 0
        for w in led["works"]:
            assert w["ships"] > 0


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.one_of(line, good, good), max_size=12), min_size=1, max_size=4))
def test_random_commands_never_break_a_month(months: list[list[str]]) -> None:
    state = copy.deepcopy(START)
    for lines in months:
        text = "\n".join(lines)
        out = step(state, text, SECRET)
        assert out == step(state, text, SECRET)                 # deterministic given the secret
        _check(out["state"])
        for e in out["events"]:
            assert e["to"] and isinstance(e["text"], str)
        # the check a mailed line gets at once, with other dice: every refusal names its line, and a
        # line it refuses for its own words (form: never stored) is refused at the deadline too
        tried = trial(state, text)
        refused_now = {e["line"] for e in out["events"] if e["kind"] == "rejected" and "line" in e}
        assert {e["line"] for e in tried if e["form"]} <= refused_now
        assert all(isinstance(e["line"], int) and 1 <= e["line"] <= len(lines) + text.count("\n") + 1
                   for e in tried)
        state = out["state"]
