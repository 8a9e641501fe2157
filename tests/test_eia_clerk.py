"""The master's clerk in an Empires in Arms game, through the mail path: every line answered on
its own, the month's stages in HELP, the at-once check and the gazette, the master's record,
team commands (duplicates, CLEAR), buyers' ledgers, units off the map, errors that name the fix."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta

import pytest

from judge.eia import clerk, dice
from eia_helpers import fresh
from test_eia_service import NATIONS, addr, setup_game
from test_service_helpers import MASTER, Table, flat


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path, keeper="keeper@example.test")
    yield t
    t.close()


def answers(body: str) -> list[tuple[str, str]]:
    """(echoed line, what follows it up to the next echo) for each '> line' of a reply."""
    body = re.split(r"\n\n(?:\d+ errors? encountered|No errors encountered)", body)[0]
    parts = re.split(r"^> ", body, flags=re.M)[1:]
    return [(p.split("\n", 1)[0].strip(), flat(p.split("\n", 1)[1] if "\n" in p else "")) for p in parts]


def stored(table: Table) -> list[str]:
    return [r["raw"] for r in table.rows("SELECT raw FROM orders WHERE state = 'active' ORDER BY id")]


def open_month(table: Table) -> dict:
    return table.rows("SELECT * FROM phases WHERE state = 'open'")[0]


# -- every line on its own ---------------------------------------------------------------------------
def test_a_bad_set_deadline_drops_no_other_line_of_the_masters_mail(table: Table) -> None:
    setup_game(table)
    out = table.send(MASTER, "SIGNON Meg masterpw\nWAR France England\nSET DEADLINE next blursday\n"
                             "MONEY France +5 subsidy\nSET DEADLINE +6h\nCONTROL Denmark BY France")
    reply = table.reply_to(MASTER, out).body
    assert "internal error" not in reply
    got = dict(answers(reply))
    assert got["SET DEADLINE next blursday"].startswith("*** Error: not a time: 'next blursday'")
    assert "Deadline for this month set to" in got["SET DEADLINE +6h"]
    assert stored(table) == ["Master: WAR France England", "Master: MONEY France +5 subsidy",
                             "Master: CONTROL Denmark BY France"]
    assert reply.count("*** Error") == 1
    out = table.advance(hours=6, minutes=1)
    gazette = flat([m for m in out if "1805-01 Results" in m.subject][0].body)
    assert "At war: England and France" in gazette and "Denmark (France)" in gazette


def test_a_bug_met_on_one_line_is_undone_and_the_other_lines_go_on(table: Table, monkeypatch) -> None:
    """A line that meets a bug (here: SET DEADLINE fails after writing) is undone to the last byte,
    answered with an error under it, reported to the keeper; the lines before and after it stand."""
    from judge.game import eia as games

    setup_game(table)
    before = open_month(table)["deadline"]
    real = games.set_deadline

    def broken(ctx, game, text):
        real(ctx, game, text)
        raise RuntimeError("a bug")

    monkeypatch.setattr(games, "set_deadline", broken)
    out = table.send(MASTER, "SIGNON Meg masterpw\nWAR France England\nSET DEADLINE +6h\nPEACE Austria Russia")
    reply = table.reply_to(MASTER, out).body
    got = dict(answers(reply))
    assert got["SET DEADLINE +6h"].startswith("*** Error: the judge met an internal error (RuntimeError) on this line")
    assert "accepted for this month" in got["PEACE Austria Russia"]
    assert stored(table) == ["Master: WAR France England", "Master: PEACE Austria Russia"]
    assert open_month(table)["deadline"] == before                       # the line's writes are undone
    assert not [m for m in out if "Deadline changed" in m.subject]      # and its notices never leave
    keeper = [m for m in out if m.to == ["keeper@example.test"]]
    assert keeper and "RuntimeError: a bug" in keeper[0].body


BAD_MASTER = ["SET DEADLINE blursday", "SET DEADLINE -3h", "ROLLBACK 1899-01", "EJECT nobody@example.test",
              "SET ROLE", "START", "RESUME", "SET", "FLY TO THE MOON", "MONEY France five", "WAR France France",
              "CLEAR POINTS Narnia +1", "PEACE France", "CONTROL Atlantis BY France", "France: BUILD 2 Brest"]
BAD_TEAM = ["BUILD two AT Brest", "BUILD 2 Brest", "BIULD 1 AT Brest", "SAIL", "PAUSE", "SET DEADLINE +1h",
            "EJECT france1@example.test", "LOAN 5 Narnia", "POINTS France +9 cheating", "England: BUILD 1 AT London",
            "CLEAR SAIL F9", "STORES 1 AT Atlantis", "REVEAL", "SET ROLE", "FORM S1 BOAT 3 AT Brest"]


def test_fuzz_bad_lines_mixed_with_good_each_answered_on_its_own(table: Table) -> None:
    """Mails of the master and of team members mixing good lines with bad: every good line takes
    effect (stored, or the deadline set), every bad line gets its own error, right under it, and
    no line meets an internal error."""
    setup_game(table, team=2)
    rng = random.Random(26)
    want: list[str] = []
    n = 0
    for round_ in range(6):
        for sender, sign, bad_pool in ((MASTER, "SIGNON Meg masterpw", BAD_MASTER),
                                       (addr("France", 1 + round_ % 2), f"SIGNON Feg pwFrance{1 + round_ % 2}",
                                        BAD_TEAM)):
            lines, kinds, deadline = [], [], None
            for _ in range(rng.randint(4, 9)):
                n += 1
                if rng.random() < 0.45:
                    lines.append(rng.choice(bad_pool))
                    kinds.append("bad")
                    continue
                if sender == MASTER:
                    line = rng.choice(["MONEY France +{n} fuzz {n}", "POINTS Russia +{n} fuzz {n}",
                                       "SET DEADLINE +{n}h", "Spain: LOAN {n} TO Turkey"]).format(n=n)
                else:
                    line = rng.choice(["CASUS AGAINST Austria grievance {n}", "LOAN {n} TO Spain",
                                       "BUILD {n} AT Toulon", "ANNOUNCE Brest {n}"]).format(n=n)
                lines.append(line)
                if line.startswith("SET DEADLINE"):
                    deadline = n
                    kinds.append("deadline")
                    continue
                kinds.append("good")
                want.append(line if line.startswith("Spain:") else
                            ("Master: " if sender == MASTER else "France: ") + line)
            out = table.send(sender, "\n".join([sign, *lines]))
            reply = table.reply_to(sender, out).body
            assert "internal error" not in reply
            got = answers(reply)[1:]
            assert [g[0] for g in got] == lines
            for (line, said), kind in zip(got, kinds):
                if kind == "bad":
                    assert said.startswith("*** Error:") and said.count("*** Error") == 1, (line, said)
                else:
                    assert "*** Error" not in said, (line, said)
            assert reply.count("*** Error") == kinds.count("bad")
            if deadline is not None:
                assert open_month(table)["deadline"].startswith(
                    (table.now + timedelta(hours=deadline)).strftime("%Y-%m-%dT%H:%M"))
    assert stored(table) == want and len(want) > 20


# -- errors that name the fix --------------------------------------------------------------------------
def test_errors_name_the_fix_and_a_misspelled_verb_gets_a_suggestion_never_a_guess(table: Table) -> None:
    setup_game(table)
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 2 Brest\nLOAN 5 Spain\nBIULD 2 AT Brest\n"
                     "CLAER\nFORM S1 SQUADRON 3 AT Brest\nSAIL S1\nMOVE S1 Channel ZONES 2\nxyzzy 3")
    got = dict(answers(table.reply_to(addr("France"), out).body))
    assert got["BUILD 2 Brest"] == "*** Error: AT is missing: write BUILD 2 AT Brest"
    assert got["LOAN 5 Spain"] == "*** Error: TO is missing: write LOAN 5 TO Spain"
    assert "did you mean BUILD? If so, write BUILD 2 AT Brest" in got["BIULD 2 AT Brest"]
    assert "did you mean CLEAR?" in got["CLAER"]
    assert "did you mean MOVE S1 TO Channel ZONES 2?" in got["MOVE S1 Channel ZONES 2"]
    assert got["xyzzy 3"] == "*** Error: unknown command 'xyzzy': send HELP for the EiA commands"
    # a suggestion is never acted on: nothing of the misspelled lines is stored
    assert stored(table) == ["France: FORM S1 SQUADRON 3 AT Brest", "France: SAIL S1",
                             "France: MOVE S1 Channel ZONES 2"]


# -- team commands ---------------------------------------------------------------------------------------
def test_a_teammates_duplicate_is_caught_and_clear_takes_only_the_senders_lines(table: Table) -> None:
    setup_game(table, team=2)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 2 AT Brest")
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nbuild 2 at  Brest.\nLOAN 5 TO Spain\nSTORES 1 AT Brest")
    got = dict(answers(table.reply_to(addr("France", 2), out).body))
    assert got["build 2 at  Brest."] == ("*** Error: France: BUILD 2 at Brest. is already in for this month (sent by "
                                         "france1@example.test (head of state)); it was not stored twice. If both "
                                         "are meant, write one line for the total, or CLEAR the first")
    assert stored(table) == ["France: BUILD 2 AT Brest", "France: LOAN 5 TO Spain", "France: STORES 1 AT Brest"]
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nCLEAR")
    body = flat(table.reply_to(addr("France", 2), out).body)
    assert "2 command(s) of France cleared for this month (yours only" in body
    assert "Still in for this month: 1. France: BUILD 2 AT Brest (france1@example.test (head of state))" in body
    assert stored(table) == ["France: BUILD 2 AT Brest"]                   # the teammate's line stays
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nCLEAR SAIL F9\nCLEAR England: BUILD 1 AT London\n"
                     "CLEAR build 2 at brest")
    got = dict(answers(table.reply_to(addr("France", 2), out).body))
    assert got["CLEAR SAIL F9"] == ("*** Error: no command 'SAIL F9' is in for France this month "
                                    "(in: 1. France: BUILD 2 AT Brest)")
    assert "only your team's commands" in got["CLEAR England: BUILD 1 AT London"]
    assert got["CLEAR build 2 at brest"].startswith("1 command(s) of France cleared for this month: France: BUILD 2")
    assert stored(table) == []
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 1 AT Brest\nSAIL F9")
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nCOMMANDS\nCLEAR 3\nCLEAR 2")  # by the listed number
    got = dict(answers(table.reply_to(addr("France", 2), out).body))
    assert got["COMMANDS"] == ("In for this month (the France team's): 1. France: BUILD 1 AT Brest (france1@example.test "
                               "(head of state)) 2. France: SAIL F9 (france1@example.test (head of state))")
    assert got["CLEAR 3"].startswith("*** Error: no command '3' is in for France this month (in: 1. France: BUILD")
    assert got["CLEAR 2"].startswith("1 command(s) of France cleared for this month: France: SAIL F9")
    table.send(addr("France"), "SIGNON Feg pwFrance1\nCLEAR")
    assert stored(table) == []
    # a team whose commands are all cleared is reminded before the deadline
    out = table.advance(hours=48 - table.judge.cfg.reminder_hours, minutes=1)
    assert {addr("France"), addr("France", 2)} <= {a for m in out if "Reminder" in m.subject for a in m.to}


# -- the month's stages --------------------------------------------------------------------------------
def test_help_gives_the_stages_of_a_month(table: Table) -> None:
    setup_game(table)
    out = table.send(addr("Spain"), "SIGNON Seg pwSpain1\nHELP")
    body = table.reply_to(addr("Spain"), out).body
    assert "1. setup: " in body and "2. treasury: LOAN" in body and "3. yards: STORES, BUILD" in body
    assert "8. politics: " in body and "CASUS" in body.split("8. politics: ")[1].split("\n")[0]


def test_a_line_refused_because_of_a_line_of_an_earlier_stage_says_so(table: Table) -> None:
    """A BUILD after a LOAN that spends the money: the treasury runs before the yards. Written in
    either order the check names the other line and the stages."""
    setup_game(table)
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nLOAN 55 TO Spain\nBUILD 1 AT Brest")
    got = dict(answers(table.reply_to(addr("France"), out).body))
    assert "accepted for this month" in got["BUILD 1 AT Brest"]
    assert ("but as things stand now it would be refused: new ships (1) at Brest costs 10 money and 1 manpower; "
            "France has 5 money and 30 manpower (because of your 'France: LOAN 55 TO Spain', which runs before it: "
            "the treasury stage comes before the yards stage)") in got["BUILD 1 AT Brest"]
    table.send(addr("Spain"), "SIGNON Seg pwSpain1\nBUILD 3 AT Cadiz")
    out = table.send(addr("Spain"), "SIGNON Seg pwSpain1\nLOAN 35 TO Turkey")
    said = dict(answers(table.reply_to(addr("Spain"), out).body))["LOAN 35 TO Turkey"]
    assert ("but with this line, your earlier 'Spain: BUILD 3 AT Cadiz' would be refused: new ships (3) at Cadiz "
            "costs 30 money and 3 manpower; Spain has 5 money") in said
    assert "(this line runs before it: the treasury stage, then the yards stage)" in said


def test_a_war_in_the_month_of_the_casus_grant_it_needs_is_warned(table: Table) -> None:
    """AFA 5: GRANT lifts the enforced peace, but in the politics stage, after the setup stage where
    WAR runs: a WAR sent with the GRANT would be refused; the check says so, in either order."""
    setup_game(table)
    table.send(MASTER, "SIGNON Meg masterpw\nPEACE Austria France MONTHS 24")
    table.advance(hours=48, minutes=1)
    table.send(addr("Austria"), "SIGNON Aeg pwAustria1\nCASUS AGAINST France the Duke of Enghien")
    table.advance(hours=48, minutes=1)
    out = table.send(MASTER, "SIGNON Meg masterpw\nCASUS Austria France GRANT\nWAR Austria France")
    said = dict(answers(table.reply_to(MASTER, out).body))["WAR Austria France"]
    assert "as things stand now it would be refused: Austria and France are under an enforced peace" in said
    assert ("(it needs your 'Master: CASUS Austria France GRANT', but that runs later in the month: the setup stage "
            "comes before the politics stage. Send this line next month)") in said
    out = table.send(MASTER, "SIGNON Meg masterpw\nCLEAR\nWAR Austria France\nCASUS Austria France GRANT")
    said = dict(answers(table.reply_to(MASTER, out).body))["CASUS Austria France GRANT"]
    assert ("this line comes too late in the month for your earlier 'Master: WAR Austria France': that line runs in "
            "the setup stage, before this one (the politics stage)") in said
    out = table.advance(hours=48, minutes=1)
    gazette = flat([m for m in out if "1805-03 Results" in m.subject][0].body)
    assert "grants Austria a casus belli against France" in gazette and "At war: nobody" in gazette
    out = table.send(MASTER, "SIGNON Meg masterpw\nWAR Austria France")         # the month after: good
    assert "would be refused" not in table.reply_to(MASTER, out).body


def test_at_once_warnings_do_not_depend_on_throwaway_dice(monkeypatch) -> None:
    """The check rolls no dice: whatever secret a random draw would give, the answer is the same,
    and a refusal that only some dice give says so."""
    state = fresh()
    earlier = ["France: FORM S1 SQUADRON 3 AT Brest", "France: SAIL S1"]
    seen = set()
    for i in range(1, 13):
        monkeypatch.setattr(dice, "new_secret", lambda i=i: f"{i:064x}")
        result = clerk.check(state, earlier, "France: MOVE S1 TO Toulon PORT ZONES 2")
        seen.add((result.error, tuple(result.warnings)))
    assert seen == {(None, ("it may be refused, depending on the month's dice: S1 is in port at Brest: it must "
                            "SAIL first (VIII)",))}


# -- the gazette, the master's record, the ledgers ----------------------------------------------------
def test_gazette_record_and_ledgers_give_the_state(table: Table) -> None:
    setup_game(table)
    table.send(MASTER, "SIGNON Meg masterpw\nWAR France England\nCONTROL Denmark BY France\nPAPACY Austria\n"
                       "EGYPT France\nPEACE Austria Russia MONTHS 24\nCONTINENTAL Spain\nMONEY France +30 income\n"
                       "ADMIRAL France AT Brest")          # +2: F1 (2-6) leaves port whatever the die
    table.send(addr("France"), "SIGNON Feg pwFrance1\nFORM F1 FLEET 5 AT Brest\nBREAKOUT F1 RETURN VIA Biscay\n"
                               "CONTRACT 2 AT Cadiz FROM Spain PRICE 30\nFORM S1 SQUADRON 3 AT Toulon\nSAIL S1")
    table.send(addr("Spain"), "SIGNON Seg pwSpain1\nCONTRACT 2 AT Cadiz FOR France PRICE 30")
    out = table.advance(hours=48, minutes=1)
    assert not [m for m in out if "Income before the economic step" in m.subject]     # January: no step
    gazette = flat([m for m in out if "1805-01 Results" in m.subject][0].body)
    for text in ("At war: England and France", "Enforced peace: Austria and Russia until January 1807",
                 "Minor nations controlled: Denmark (France)", "The Papacy: controlled by Austria",
                 "Egypt: controlled by France", "Continental System: Spain",
                 "setup, treasury, yards, sailing, pursuit, movement, combat, politics",
                 "Next month: February 1805; deadline Fri Jan 11 2030 12:01:00 +0000."):
        assert text in gazette, text
    assert "February 1805 closes with an economic step" not in gazette
    france = flat([m for m in out if "France ledger" in m.subject][0].body)
    assert "On the stocks at Cadiz: 2 (new) bought from Spain, ready January 1806" in france
    assert ("fleet F1: 5 ships off the map (left by Biscay): back on the map in February 1805; that month RETURN it "
            "TO Biscay or an adjacent area, or it returns where it left") in france
    spain = flat([m for m in out if "Spain ledger" in m.subject][0].body)
    assert "On the stocks at Cadiz: 2 (new) for France, ready January 1806" in spain
    record = [m for m in out if "Master's record" in m.subject][0].body
    head = flat(record[:record.index("Every event of January 1805")])
    for text in ("The state as February 1805 opens:", "France: treasury 60, manpower 30, political +1",
                 # the squadron's sail roll is the game's (4-6 to leave port): where it is depends on it
                 "in port: Brest: 10 laid up; Toulon: 9 laid up at sea: squadron S1 (3) at Toulon"
                 if "France squadron S1 at Toulon leaves port" in gazette else
                 "in port: Brest: 10 laid up; Toulon: 9 laid up, squadron S1 (3) at sea: none",
                 "fleet F1: 5 ships off the map", "on the stocks: Cadiz: 2 (new) for France, ready January 1806",
                 "England: treasury 60", "London: 30 laid up", "At war: England and France",
                 "Enforced peace: Austria and Russia until January 1807", "Denmark (France)",
                 "The Papacy: controlled by Austria", "Egypt: controlled by France", "Continental System: Spain"):
        assert text in head, (text, head)
    assert "REMINDER" not in head
    out = table.advance(hours=48, minutes=1)                    # March 1805 closes with the economic step
    record = flat([m for m in out if "Master's record" in m.subject][0].body)
    assert record.index("REMINDER: March 1805 closes with an economic step: enter each nation's income (MONEY, "
                        "MANPOWER) before its deadline") < record.index("Every event of February 1805")
    gazette = flat([m for m in out if "1805-02 Results" in m.subject][0].body)
    assert "March 1805 closes with an economic step." in gazette
    state = json.loads(open_month(table)["position"])
    assert state["month"] == "1805-03" and NATIONS
    # before March's deadline the master, who has entered no income yet, is reminded
    out = table.advance(hours=48 - table.judge.cfg.reminder_hours, minutes=1)
    told = [m for m in out if "Income before the economic step" in m.subject]
    assert [m.to for m in told] == [[MASTER]]
    assert "March 1805 closes with an economic step, and no MONEY or MANPOWER entry" in flat(told[0].body)


def test_a_nation_has_at_most_max_commands_in_a_month(table: Table, monkeypatch) -> None:
    """Each line is checked with all the nation's others: the clerk takes a bounded number a month."""
    from judge.game import eia as games

    monkeypatch.setattr(games, "MAX_COMMANDS", 3)
    setup_game(table)
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\n" + "\n".join(f"CASUS AGAINST Austria wrong {k}"
                                                                        for k in range(5)))
    got = answers(table.reply_to(addr("France"), out).body)[1:]
    assert ["accepted for this month" in said for _, said in got] == [True, True, True, False, False]
    assert got[3][1] == ("*** Error: France has 3 commands in for this month, the most the clerk takes: CLEAR "
                         "some, or write them as fewer lines")
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nCLEAR CASUS AGAINST Austria wrong 0\n"
                                     "CASUS AGAINST Austria wrong 3")
    assert "accepted for this month" in dict(answers(table.reply_to(addr("France"), out).body))[
        "CASUS AGAINST Austria wrong 3"]
