"""Replacing players, through the mail path: a power whose player misses phases is opened for
takeover and announced (also to the standby list); nmr=wait games wait for the new player; the
new player gets the position and the press the power was sent; SUMMARY names both players."""

from __future__ import annotations

import json
import re


from mail_scenarios import confirm
from test_service_helpers import MASTER, Table, acquaint, hold_all
from test_service_retreats import flat

NEW = "newcomer@example.test"
STANDBY = "bench@example.test"


def summary_line(t: Table, power: str) -> list[str]:
    who = f"stranger{len(t.mails)}@example.test"
    body = t.reply_to(who, t.send(who, "SUMMARY tg")).body
    lines = body.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(power))
    out = [lines[at]]
    for ln in lines[at + 1:]:
        if "before:" not in ln:
            break
        out.append(ln)
    return out


def test_resign_answers_without_an_order_status_and_summary_shows_the_seat_once_vacant(table: Table) -> None:
    t = table
    t.start_game()
    turkey = t.powers["Turkey"]
    confirm(t, STANDBY, t.send(STANDBY, "SIGNON %tg"))  # njudge's standby form, confirmed from the address
    forged = "victim@example.test"  # asked for in its name, never confirmed: told nothing more
    t.send(forged, "STANDBY tg")
    reply = t.reply_to(turkey, t.send(turkey, t.signon("Turkey") + "\nRESIGN")).body
    assert "You have resigned Turkey" in reply
    assert "Orders not received" not in reply and "considered late" not in reply
    head, *before = summary_line(t, "Turkey")
    assert head.count("(vacant)") == 1 and "(from" not in head, head
    assert len(before) == 1 and "S1901M to S1901M (resigned)" in before[0]
    told = [m for m in t.to(STANDBY) if m.subject.endswith("Open for takeover: T")]
    assert told and "SIGNON Ttg <password>" in flat(told[0].body) and "STANDBY tg OFF" in told[0].body
    assert not [m for m in t.to(forged) if "takeover" in m.subject]


def test_a_power_silent_for_two_phases_is_opened_announced_and_taken_over(table: Table) -> None:
    t = table
    t.start_game()
    turkey = t.powers["Turkey"]
    out = t.send(STANDBY, "STANDBY tg")
    assert "standby list of 'tg'" in t.reply_to(STANDBY, out).body
    confirm(t, STANDBY, out)
    quitter = "quitter@example.test"
    confirm(t, quitter, t.send(quitter, "SIGNON %tg"))
    assert "no longer on the standby list" in t.reply_to(quitter, t.send(quitter, "STANDBY tg OFF")).body
    hold_all(t, skip=("Turkey",))
    assert t.phase() == "S1901M"  # Turkey owes orders
    t.advance(hours=24)  # the deadline: a late notice
    out = t.advance(hours=12)  # the end of grace: Turkey in civil disorder, one phase missed
    assert t.phase() == "F1901M"
    assert not [m for m in out if "takeover" in m.subject.lower()]
    # England writes to Turkey while it still has its (silent) player, then again once it is open
    t.send(t.powers["England"], t.signon("England") + "\nPRESS TO T\nBefore you left.\nENDPRESS")
    out = []
    hold_all(t, skip=("Turkey",))  # Turkey, in civil disorder, holds the phase up no more
    assert t.phase() == "S1902M"  # (no adjustment due in the winter)
    opened = [m for m in t.mails if m.subject.endswith("Open for takeover: T")]
    assert opened, [m.subject for m in t.mails[-10:]]
    got = {a for m in opened for a in m.to}
    assert turkey in got and STANDBY in got and MASTER in got and t.powers["England"] in got
    assert quitter not in got
    text = flat(next(m for m in opened if STANDBY in m.to).body)
    assert "Turkey has sent no orders for 2 phases in a row and is open for takeover" in text
    assert "SIGNON Ttg <password of your choice>" in text and "STANDBY tg OFF" in text
    seat = t.rows("SELECT * FROM seats WHERE power = 'Turkey'")[0]
    assert seat["status"] == "vacant" and seat["player_id"] is None and seat["password_hash"] is None
    t.advance(minutes=5)
    t.send(t.powers["England"], t.signon("England") + "\nPRESS TO T\nWelcome aboard.\nENDPRESS")
    reply = t.reply_to(NEW, t.send(NEW, "SIGNON Ttg newpw1")).body
    assert "You have taken over Turkey" in reply
    assert re.search(r"Turkey: Fleet Ankara, Army Constantinople, Army Smyrna; 3 centres", flat(reply)), reply
    assert "Welcome aboard." in reply and "Before you left." not in reply
    assert "WAIT is set" in reply
    head, *before = summary_line(t, "Turkey")
    assert "(vacant)" not in head and "(from S1902M)" in head, head
    assert len(before) == 1 and "S1901M to F1901M (sent no orders for 2 phases" in before[0], before


def test_a_player_who_orders_again_starts_counting_afresh(table: Table) -> None:
    t = table
    t.start_game()
    hold_all(t, skip=("Turkey",))
    t.advance(hours=36)  # S1901M: Turkey misses one
    assert t.phase() == "F1901M"
    hold_all(t)  # Turkey signs on again (out of civil disorder) and orders
    assert t.phase() == "S1902M"
    options = json.loads(t.rows("SELECT options FROM games WHERE name = 'tg'")[0]["options"])
    assert "Turkey" not in options["missed"]  # its count starts again
    assert t.rows("SELECT status FROM seats WHERE power = 'Turkey'")[0]["status"] == "active"


def test_set_abandon_and_nmr_by_the_master(table: Table) -> None:
    t = table
    t.start_game()
    reply = t.reply_to(MASTER, t.send(MASTER, "SIGNON Mtg masterpw\nSET ABANDON 1\nSET NMR wait")).body
    assert "no orders for 1 phase in a row is opened" in flat(reply)
    assert "NMR set to wait" in reply
    bad = t.reply_to(MASTER, t.send(MASTER, "SIGNON Mtg masterpw\nSET ABANDON 0")).body
    assert "abandon takes a number of phases from 1 to 99" in bad
    bad = t.reply_to(MASTER, t.send(MASTER, "SIGNON Mtg masterpw\nSET NMR sometimes")).body
    assert "nmr takes cd or wait" in bad
    p = t.powers["Italy"]
    refused = t.reply_to(p, t.send(p, t.signon("Italy") + "\nSET ABANDON 5")).body
    assert "master" in refused.lower()
    acquaint(t, "asker@example.test")  # a stranger's first answer is a short one
    helptext = flat(t.reply_to("asker@example.test", t.send("asker@example.test", "HELP")).body)
    assert "STANDBY game [OFF]" in helptext and "SET ABANDON" in helptext and "SET NMR" in helptext


def test_nmr_wait_waits_for_the_replacement_and_tells_the_master(table: Table) -> None:
    t = table
    t.start_game(options="move=24h retreat=12h adjust=12h grace=12h nmr=wait")
    hold_all(t, skip=("Turkey",))
    t.advance(hours=24)
    out = t.advance(hours=12)  # the end of grace: no civil disorder, the game waits
    assert t.phase() == "S1901M"
    told = [m for m in out if MASTER in m.to and "Waiting for Replacements: T" in m.subject]
    assert told and "PROCESS" in told[0].body
    assert [m for m in out if m.subject.endswith("Open for takeover: T")]
    assert not [m for m in out if "Results" in m.subject]
    t.advance(hours=72)
    assert t.phase() == "S1901M"  # still waiting, however long
    reply = t.reply_to(NEW, t.send(NEW, "SIGNON ?tg newpw2")).body
    assert "You have taken over Turkey" in reply
    ph = t.rows("SELECT deadline FROM phases WHERE state = 'open'")[0]
    assert ph["deadline"] > t.now.isoformat()[:19]  # a fresh deadline for the new player
    t.send(NEW, "SIGNON Ttg newpw2\nF Ank H\nA Con H\nA Smy H\nSET NOWAIT")
    assert t.phase() == "F1901M"


def test_phases_the_master_processes_before_the_deadline_are_missed_by_nobody(table: Table) -> None:
    t = table
    t.start_game()
    for _ in range(2):  # nobody orders: two phases with no orders from anyone
        t.send(MASTER, "SIGNON Mtg masterpw\nPROCESS")
    assert t.phase() == "S1902M"
    assert not [m for m in t.mails if "Open for takeover" in m.subject]
    assert {r["status"] for r in t.rows("SELECT status FROM seats WHERE role = 'player'")} == {"active"}


def test_the_master_may_process_a_waiting_game_with_the_open_power_holding(table: Table) -> None:
    t = table
    t.start_game(options="move=24h retreat=12h adjust=12h grace=12h")
    t.send(MASTER, "SIGNON Mtg masterpw\nSET NONMR")
    hold_all(t, skip=("Turkey",))
    t.advance(hours=36)
    assert t.phase() == "S1901M"
    t.send(MASTER, "SIGNON Mtg masterpw\nPROCESS")
    assert t.phase() == "F1901M"
    res = next(m for m in t.mails if "S1901M Results" in m.subject)
    assert "Constantinople" in res.body
    assert t.rows("SELECT status FROM seats WHERE power = 'Turkey'")[0]["status"] == "vacant"
