"""A dislodged unit with nowhere to go is destroyed with the movement results, through the mail path.

A retreat phase opens only when some dislodged unit has a choice; nobody is reminded, told late or
marked NRR for a unit that had none, and HISTORY, the archive report and njudge's layout say so.
"""

from __future__ import annotations

import json

import pytest

from test_service_helpers import MASTER, Table


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    yield t
    t.close()


def board(t: Table, add: dict[str, list[str]]) -> None:
    """The open Spring 1901 phase with ``add`` (power -> units) on the board besides the start units."""
    from judge.game import lifecycle as games
    from judge.engine.position import Position

    g = games.get_game(t.judge.store, "tg")
    ph = games.current_phase(t.judge.store, g)
    data = ph.position.to_json()
    for power, units in add.items():
        data["units"][power] = data["units"].get(power, []) + units
    pos = Position.from_json(data, g.variant)  # checked: every added unit can stand where it is
    t.judge.store.conn.execute("UPDATE phases SET position = ? WHERE id = ?", (json.dumps(pos.to_json()), ph.id))


def orders_all(t: Table, orders: dict[str, str]) -> list:
    """Every power orders: its line of ``orders``, else its units hold. Returns the mails sent."""
    from judge.game import lifecycle as games

    g = games.get_game(t.judge.store, "tg")
    pos = games.current_phase(t.judge.store, g).position
    out = []
    for power in t.powers:
        given = orders.get(power, "")
        moving = {ln.split()[1].lower() for ln in given.splitlines() if ln.strip()}
        holds = [f"{u.kind} {pos.map.display(u.loc)} H" for u in pos.units.values()
                 if u.power == power and pos.map.display(u.loc).lower() not in moving]
        out += t.order(power, "\n".join([*given.splitlines(), *holds]))
    return out


BELGIUM_TRAPPED = {  # Germany's army in Belgium, hemmed in: Holland, Ruhr, Picardy held, Burgundy the attacker's
    "Germany": ["A Bel", "A Hol", "A Ruh"], "France": ["A Bur", "A Pic"]}
TRAP = {"France": "A Bur - Bel\nA Pic S A Bur - Bel"}


def flat(text: str) -> str:
    """The text with its line wrapping and no-break spaces undone."""
    return " ".join(text.replace("\u00a0", " ").split())


def test_a_unit_with_nowhere_to_go_is_destroyed_with_the_moves_and_no_retreat_phase_opens(table: Table) -> None:
    t = table
    board(t, BELGIUM_TRAPPED)
    sent = orders_all(t, TRAP)
    assert t.phase() == "F1901M"  # processed at once: no S1901R waits for an order nobody can give
    shorts = [r["short"] for r in t.rows("SELECT short FROM phases ORDER BY seq")]
    assert shorts == ["S1901M", "F1901M"]
    germany = t.powers["Germany"]
    result = [m for m in t.to(germany, sent) if "S1901M" in m.subject and not m.subject.startswith("Re:")]
    assert result, [m.subject for m in sent]
    body = flat(result[-1].body)
    assert "Dislodged: A Belgium, no retreat: destroyed." in body, body
    assert "must disband" not in body and "S1901R" not in body
    # the board the Fall move starts from has no German army in Belgium, nor a dislodged one
    fall = json.loads(t.rows("SELECT position FROM phases WHERE short = 'F1901M'")[0]["position"])
    assert "A Bel" in fall["units"]["France"] and not fall["dislodged"]
    assert "A Bel" not in fall["units"]["Germany"]
    # nobody is reminded, told late or marked NRR about it: the next mails are the Fall's own
    later = t.advance(hours=17)
    assert all("S1901R" not in m.subject for m in later), [m.subject for m in later]
    # HISTORY keeps the report that says so
    hist = t.send("outsider@example.test", "HISTORY tg")
    text = flat("\n".join(m.body for m in hist))
    assert "no retreat: destroyed" in text


def test_only_the_units_with_a_choice_are_asked_for_and_reminded(table: Table) -> None:
    t = table
    # besides the trapped German army, Austria's fleet in Trieste is dislodged from Venice and
    # may retreat to the Adriatic or Albania
    board(t, {**BELGIUM_TRAPPED, "Italy": ["A Tyr"]})
    sent = orders_all(t, {**TRAP, "Italy": "A Ven - Tri\nA Tyr S A Ven - Tri"})
    assert t.phase() == "S1901R"
    ph = json.loads(t.rows("SELECT position FROM phases WHERE short = 'S1901R'")[0]["position"])
    assert list(ph["dislodged"]) == ["Austria"]  # the German army is gone, not waiting
    report = flat([m for m in sent if "S1901M" in m.subject and not m.subject.startswith("Re:")][-1].body)
    assert "no retreat: destroyed" in report and "may retreat to" in report
    # the reminder goes to Austria alone; the late notice names Austria alone (the retreat's
    # deadline is the movement's, 24 hours on: processing early never pulls a deadline earlier)
    reminded = t.advance(hours=16, minutes=1)
    assert {a for m in reminded for a in m.to} == {t.powers["Austria"]}, [(m.to, m.subject) for m in reminded]
    late = t.advance(hours=8)
    notices = [m for m in late if "Late Notice" in m.subject]
    assert notices and all(m.subject.endswith("Late Notice: Austria") for m in notices), \
        [m.subject for m in notices]
    assert not [m for m in notices if t.powers["Germany"] in m.to and "You are late" in m.subject]
    # Austria retreats: the phase is processed at once, nobody else needed
    out = t.order("Austria", "F Tri - Alb")
    assert t.phase() == "F1901M"
    body = [m for m in out if "S1901R" in m.subject and not m.subject.startswith("Re:")][-1].body
    assert "NRR" not in body


def test_njudge_layout_reports_the_destroyed_unit(table: Table) -> None:
    t = table
    board(t, BELGIUM_TRAPPED)
    t.send(MASTER, "SIGNON Mtg masterpw\nSET RESULTS NJUDGE")
    sent = orders_all(t, TRAP)
    body = flat([m for m in t.to(t.powers["England"], sent) if "S1901M" in m.subject
                 and not m.subject.startswith("Re:")][-1].body)
    assert "The German Army in Belgium with no valid retreats was destroyed." in body, body
    assert "Retreats for Spring of 1901" not in body and "Fall of 1901" in body


def test_a_retreat_phase_stored_before_asks_nothing_for_a_unit_with_no_choice(table: Table) -> None:
    """A game stored by an earlier judge may sit in a retreat phase whose only dislodged unit has
    nowhere to go: nobody is reminded or told late, and the deadline disbands it."""
    from judge.engine.position import Position
    from judge.game import lifecycle as games

    t = table
    g = games.get_game(t.judge.store, "tg")
    ph = games.current_phase(t.judge.store, g)
    data = ph.position.to_json()
    data["phase"] = "Spring 1901 Retreat"
    data["units"]["France"] = [u for u in data["units"]["France"] if u != "A Par"] + ["A Bel", "A Pic"]
    data["units"]["Germany"] = data["units"]["Germany"] + ["A Hol", "A Ruh", "A Bur"]
    data["dislodged"] = {"Germany": [{"unit": "A Bel", "from": "Bur", "retreats": []}]}
    pos = Position.from_json(data, g.variant)
    t.judge.store.conn.execute("UPDATE phases SET name = ?, short = ?, position = ? WHERE id = ?",
                               (str(pos.phase), pos.phase.short, json.dumps(pos.to_json()), ph.id))
    assert t.phase() == "S1901R"
    waiting = t.advance(hours=23)
    assert not [m for m in waiting if "Reminder" in m.subject or "Late" in m.subject], \
        [m.subject for m in waiting]
    done = t.advance(hours=1, minutes=1)
    assert t.phase() == "F1901M"
    assert not [m for m in done if "Late" in m.subject]
    report = flat(next(m for m in done if "S1901R Results" in m.subject).body)
    assert "Germany" in report and "NRR" not in report, report
