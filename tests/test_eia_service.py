"""Empires in Arms games by mail: teams with roles, team press, commands through the same step
function, the monthly gazette with the rolls, private ledgers, the dice secret revealed."""

from __future__ import annotations

import json
import re


from judge.eia import dice
from test_service_helpers import MASTER, Table, observe

NATIONS = ["England", "France", "Spain", "Prussia", "Austria", "Russia", "Turkey"]


def addr(nation: str, i: int = 1) -> str:
    return f"{nation.lower()}{i}@example.test"


def mailed_rolls(body: str) -> tuple[list[dict], dict]:
    """ROLLS' JSON (month by month, with the figures each gazette printed): the rolls and anchors."""
    from judge.eia.cli import collect

    return collect(json.loads(body[body.index("\n[\n") + 1:body.rindex("]") + 1]))


def setup_game(table: Table, team: int = 1, months: int = 0) -> None:
    extra = f" months={months}" if months else ""
    out = table.send(MASTER, f"CREATE ?eg masterpw eia_afa month=48h team={team}{extra}")
    assert "Empires in Arms" in table.reply_to(MASTER, out).body
    for n in NATIONS:
        for i in range(1, team + 1):
            role = ["head of state", "diplomat", "general"][i - 1]
            table.send(addr(n, i), f"SIGNON ?eg pw{n}{i} {n} {role}")


def test_create_join_teams_and_start(table: Table) -> None:
    setup_game(table, team=2)
    starting = [m for m in table.mails if "Game Starting" in m.subject]
    assert {a for m in starting for a in m.to} >= {addr(n, i) for n in NATIONS for i in (1, 2)} | {MASTER}
    body = starting[0].body
    assert "France: france1 (head of state), france2 (diplomat)" in " ".join(body.split())
    assert "@example.test" not in body  # the roster names the players, never their addresses
    commitment = re.search(r"SHA-256 of the judge's secret\): ([0-9a-f]{64})", " ".join(body.split())).group(1)
    options = json.loads(table.rows("SELECT options FROM games")[0]["options"])
    assert dice.commitment(options["eia"]["secret"]) == commitment
    # a third member of a team of two is refused; the LIST of all games shows the EiA game
    out = table.send("late@example.test", "SIGNON ?eg pwlate France general")
    assert "team is full" in table.reply_to("late@example.test", out).body
    out = table.send("who@example.test", "LIST")
    assert "eg" in table.reply_to("who@example.test", out).body


def test_commands_gazette_ledgers_and_team_press(table: Table) -> None:
    setup_game(table, team=2)
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 3 AT Toulon\nFLY TO THE MOON\n"
                                     "POINTS France +9 cheating\nPRESS TO TEAM\nBuild at Brest, not Toulon.\nENDPRESS")
    reply = table.reply_to(addr("France"), out)
    assert "accepted for this month: France: BUILD 3 AT Toulon" in reply.body
    assert "unknown command 'FLY'" in reply.body and "only the games master gives POINTS" in reply.body
    press = [m for m in out if "Press from France" in m.subject]
    assert [m.to for m in press] == [[addr("France", 2)]]          # the rest of the team only
    team_copy = table.reply_to(addr("France", 2), out)                           # the team sees its commands,
    assert team_copy.body == reply.body and addr("France") not in team_copy.to   # in a copy of its own
    assert addr("England") not in reply.to + team_copy.to
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nFrance: STORES 1 AT Brest")
    assert "accepted for this month: France: STORES 1 AT Brest" in table.reply_to(addr("France", 2), out).body
    out = table.send(addr("England", 2), "SIGNON Eeg pwEngland2\nPRESS TO F\nWe watch Brest.\nENDPRESS")
    press = [m for m in out if "Press from England" in m.subject]
    got = sorted(a for m in press for a in m.to)
    assert got == sorted([addr("France"), addr("France", 2), addr("England")])   # both teams, whole
    table.send(MASTER, "SIGNON Meg masterpw\nWAR France England\nMONEY France +5 subsidy\nSpain: BUILD 1 AT Cadiz")
    # nobody else sees a team's commands before the deadline
    assert not [m for m in table.mails if "BUILD 3 AT Toulon" in m.body and addr("France") not in m.to
                and addr("France", 2) not in m.to and MASTER not in m.to]
    out = table.advance(hours=48, minutes=1)
    gazette = [m for m in out if "1805-01 Results" in m.subject]
    assert gazette and {a for m in gazette for a in m.to} >= {addr(n) for n in NATIONS} | {MASTER}
    text = gazette[0].body
    assert "France and England are at war." in text
    assert "naval stores shipped by France to Toulon" in text          # the roll is published with its purpose
    # I.C: the figure's die would tell the true number: the gazette holds it sealed, the builder sees it
    assert "announced number at Cadiz: sealed until the secret is revealed" in text
    spain = [m for m in out if "Spain ledger" in m.subject][0].body
    assert "Your sealed dice" in spain and re.search(r"announced number at Cadiz: \d+ \(d\d+\)", spain)
    ledgers = [m for m in out if "France ledger" in m.subject]
    assert sorted(a for m in ledgers for a in m.to) == [addr("France"), addr("France", 2)]
    assert "Treasury" in ledgers[0].body
    assert not [m for m in out if "France ledger" in m.subject and addr("England") in m.to]
    record = [m for m in out if "Master's record" in m.subject]
    assert record and record[0].to == [MASTER]
    assert table.rows("SELECT short FROM phases WHERE state = 'open'")[0]["short"] == "1805-02"


def test_the_secret_is_revealed_at_the_end_and_the_rolls_verify(table: Table) -> None:
    setup_game(table, months=2)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nFORM S1 SQUADRON 3 AT Brest")
    table.advance(hours=48, minutes=1)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nSAIL S1")
    out = table.advance(hours=48, minutes=1)
    final = [m for m in out if "1805-02 Results" in m.subject][0]
    secret = re.search(r"now revealed:\s+([0-9a-f]{64})", final.body).group(1)
    assert table.rows("SELECT state FROM games")[0]["state"] == "finished"
    rolls = [r for row in table.rows("SELECT results FROM phases WHERE state = 'processed' ORDER BY seq")
             for r in json.loads(row["results"])["rolls"]]
    assert rolls and any("S1 leaves Brest" in r["purpose"] for r in rolls)
    assert dice.verify("eg", secret, rolls) == []


def test_the_master_reveals_midgame_and_the_dice_commit_anew(table: Table) -> None:
    setup_game(table)
    out = table.send(MASTER, "SIGNON Meg masterpw\nREVEAL")
    notice = [m for m in out if "Dice secret revealed" in m.subject]
    assert notice and {a for m in notice for a in m.to} >= {addr(n) for n in NATIONS}
    old = re.search(r"now revealed:\s+([0-9a-f]{64})", notice[0].body).group(1)
    new = re.search(r"commit to:\s+([0-9a-f]{64})", notice[0].body).group(1)
    options = json.loads(table.rows("SELECT options FROM games")[0]["options"])
    assert options["eia"]["secret"] != old and dice.commitment(options["eia"]["secret"]) == new
    out = table.advance(hours=48, minutes=1)                               # the month steps with the new secret
    assert [m for m in out if "1805-01 Results" in m.subject]


def test_a_diplomacy_game_beside_an_eia_game_is_untouched(table: Table) -> None:
    setup_game(table)
    table.start_game()
    assert table.phase() == "S1901M"
    out = table.send("who@example.test", "LIST")
    body = table.reply_to("who@example.test", out).body
    assert "eg" in body and "tg" in body


def test_the_demo_plays_24_months_with_robot_teams_and_every_roll_verifies(tmp_path) -> None:
    """`judge demo --variant eia_afa` through the CLI: 24 gazettes, the secret revealed, rolls checked."""
    import subprocess
    import sys

    out = tmp_path / "eia-demo"
    run = subprocess.run([sys.executable, "-m", "judge.cli", "demo", "--variant", "eia_afa", "--out", str(out),
                          "--quiet"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "24 months of Empires in Arms" in run.stdout and "every roll verified" in run.stdout
    reports = sorted((out / "reports").glob("*-report.txt"))
    assert len(reports) == 24
    last = reports[-1].read_text(encoding="utf-8")
    assert "December 1806" in last and "now revealed" in last
    rolls = json.loads((out / "reports" / "rolls.json").read_text(encoding="utf-8"))
    kinds = " ".join(r["purpose"] for r in rolls)
    for what in ("leaves", "prizes after the battle", "fort roll", "naval stores"):
        assert what in kinds


def _processed(table: Table) -> dict:
    return json.loads(table.rows("SELECT results FROM phases WHERE state = 'processed' ORDER BY seq")[-1]["results"])


def _gazette(mails: list, month: str = "1805-01") -> str:
    return " ".join([m for m in mails if f"{month} Results" in m.subject][0].body.split())


def test_rollback_replays_a_month_with_the_same_dice(table: Table) -> None:
    """A ROLLBACK reopens the month with the commands it was stepped with, in their order: stepped again
    it gives the same dice, and the gazette says so. The teams, who have seen the dice, cannot change
    the commands; the master can, and the gazette says he did (with the committed hashes), never what
    he changed."""
    setup_game(table)
    table.send(MASTER, "SIGNON Meg masterpw\nWAR France England")
    table.send(addr("France"), "SIGNON Feg pwFrance1\nFORM S1 SQUADRON 3 AT Brest\nSAIL S1\nBUILD 2 AT Toulon")
    table.send(addr("England"), "SIGNON Eeg pwEngland1\nFORM E1 FLEET 10 AT Plymouth\nSAIL E1")
    out = table.advance(hours=48, minutes=1)
    first, gazette = _processed(table), _gazette(out)
    assert f"Dice of 1805-01: {first['roll_count']} rolls, digest {first['rolls_digest']}" in gazette
    assert f"Commands of 1805-01 committed: {first['commands_hash']}" in gazette
    out = table.send(MASTER, "SIGNON Meg masterpw\nROLLBACK")
    assert "rolled back to January 1805" in table.reply_to(MASTER, out).body
    notice = " ".join([m for m in out if "Rollback" in m.subject and addr("France") in m.to][0].body.split())
    assert "stepped again with the commands it had, so its dice come out the same" in notice
    # France would rather not have sailed: refused, the stored commands stand
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 1 AT Brest\nCLEAR")
    reply = " ".join(table.reply_to(addr("France"), out).body.split())
    assert reply.count("was rolled back: it is stepped again with the commands it had") == 2
    # nor can the master give the month a new secret (new dice) by revealing the old one now
    out = table.send(MASTER, "SIGNON Meg masterpw\nREVEAL")
    assert "it keeps its secret, so that it is stepped with the same dice" in " ".join(
        table.reply_to(MASTER, out).body.split())
    out = table.advance(hours=48, minutes=1)
    again, gazette = _processed(table), _gazette(out)
    assert again["rolls"] == first["rolls"] and again["commands_hash"] == first["commands_hash"]
    assert "This month was rolled back by the master and stepped again with the commands it had (the same " \
           "committed hash as the first time): the same dice." in gazette
    # the master changes the month: the gazette says so, and a roll whose key is unchanged keeps its dice
    table.send(MASTER, "SIGNON Meg masterpw\nROLLBACK\nSpain: BUILD 1 AT Cadiz\nSpain: BUILD two AT Cadiz")
    out = table.advance(hours=48, minutes=1)
    third, gazette = _processed(table), _gazette(out)
    assert third["commands_hash"] != first["commands_hash"]
    assert (f"who changed its commands before it was stepped again (a line added by the master); commands "
            f"committed the first time as {first['commands_hash']}, now as {third['commands_hash']}") in gazette
    assert "BUILD 1 AT Cadiz" not in gazette                         # the change is noted, never quoted
    keyed = lambda out: {tuple(r["key"]): r["dice"] for r in out["rolls"]}  # noqa: E731
    assert all(keyed(third)[k] == v for k, v in keyed(first).items())
    assert ("Spain", "Cadiz", "yard figure", 1) in keyed(third)           # Spain is at peace: no shipment roll
    # the master may open the month to the teams (ROLLBACK OPEN): his act, and the gazette says so
    table.send(MASTER, "SIGNON Meg masterpw\nROLLBACK OPEN")
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nCLEAR\nFORM S1 SQUADRON 3 AT Brest")
    assert "accepted for this month: France: FORM S1 SQUADRON 3 AT Brest" in table.reply_to(addr("France"), out).body
    out = table.advance(hours=48, minutes=1)
    gazette = _gazette(out)
    assert ("who opened its commands to the teams; they were changed before it was stepped again (lines cleared by "
            "the France team; a line added by the France team)") in gazette
    assert not [r for r in _processed(table)["rolls"] if r["key"][:3] == ["France", "S1", "leave port"]]
    # the month after is an ordinary month again: the teams send commands
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 1 AT Brest")
    assert "accepted for this month" in table.reply_to(addr("France"), out).body


def test_a_month_rolled_before_keys_keeps_its_recorded_dice_on_rollback(table: Table) -> None:
    """Games stored before rolls were keyed: a month processed then (its rolls numbered by arrival,
    scheme eia-dice-2, no count in its gazette) is replayed under that scheme on a rollback, so it
    keeps the dice it was published with; they verify as before."""
    from judge.eia.step import step
    from judge.game.store import dumps

    setup_game(table)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nFORM S1 SQUADRON 3 AT Brest\nFORM S2 SQUADRON 2 AT Toulon\n"
                               "SAIL S2\nSAIL S1")
    table.advance(hours=48, minutes=1)
    row = table.rows("SELECT id, position, results FROM phases WHERE state = 'processed'")[0]
    secret = json.loads(table.rows("SELECT options FROM games")[0]["options"])["eia"]["secret"]
    commands = "\n".join(r["raw"] for r in table.rows("SELECT raw FROM orders WHERE phase_id = ? AND state = 'active' "
                                                      "ORDER BY id", (row["id"],)))
    old = step(json.loads(row["position"]), commands, secret, scheme=dice.LEGACY)
    old = {k: v for k, v in old.items() if k in ("month", "next_month", "events", "rolls", "announcements")}
    assert old["rolls"] and all("key" not in r for r in old["rolls"])
    table.judge.store.conn.execute("UPDATE phases SET results = ? WHERE id = ?", (dumps(old), row["id"]))
    table.judge.store.conn.commit()
    assert dice.verify("eg", secret, old["rolls"], need_anchors=True) == []
    table.send(MASTER, "SIGNON Meg masterpw\nROLLBACK")
    table.advance(hours=48, minutes=1)
    again = _processed(table)
    assert [(r["purpose"], r["dice"]) for r in again["rolls"]] == [(r["purpose"], r["dice"]) for r in old["rolls"]]
    assert again["dice_scheme"] == dice.LEGACY
    # and the month after rolls under the keyed scheme again
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 1 AT Brest")
    table.advance(hours=48, minutes=1)
    assert all("key" in r for r in _processed(table)["rolls"])


def test_the_console_knows_eia_games(table: Table) -> None:
    console = table.judge.console()
    g = console.create("cg", "masterpw", "eia_afa", ["month=24h"], MASTER)
    assert g.variant_name == "eia_afa"
    assert console.process("cg") == "cg started"
    shown = console.show("cg")
    assert shown["month"] == "1805-01" and len(shown["teams"]) == 7 and len(shown["commitment"]) == 64
    assert [x for x in console.games() if x["name"] == "cg"][0]["phase"] == "1805-01"
    assert console.process("cg") == "cg 1805-01 processed"
    assert console.rollback("cg", None) == "cg rolled back to 1805-01"


def test_rolls_by_mail_verify_once_the_secret_is_out(table: Table) -> None:
    """ROLLS answers with every published roll as JSON that survives the mail's line wrapping."""
    setup_game(table, months=1)
    table.send(MASTER, "SIGNON Meg masterpw\nWAR France England")
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 2 AT Toulon\nFORM S1 SQUADRON 3 AT Brest\nSAIL S1")
    out = table.advance(hours=48, minutes=1)
    secret = re.search(r"now revealed:\s+([0-9a-f]{64})", [m for m in out if "Results" in m.subject][0].body).group(1)
    out = table.send("watcher@example.test", "OBSERVE eg watchpw\nROLLS")
    body = table.reply_to("watcher@example.test", out).body
    rolls, anchors = mailed_rolls(body)
    assert len(rolls) >= 2 and any("naval stores" in r["purpose"] for r in rolls)
    assert dice.verify("eg", secret, rolls, anchors=anchors, need_anchors=True) == []
    assert anchors["1805-01"].roll_count == len(rolls)


def test_judge_dice_verify_checks_the_mailed_rolls_against_the_mailed_gazette(table: Table, tmp_path) -> None:
    """A player keeps the gazette as mailed and, once the secret is out, ROLLS' answer: `judge dice verify`
    passes them; a last roll deleted from the JSON (its count edited to match) fails on the gazette's
    printed count."""
    import subprocess
    import sys

    setup_game(table, months=1)
    table.send(MASTER, "SIGNON Meg masterpw\nWAR France England")
    table.send(addr("France"), "SIGNON Feg pwFrance1\nSTORES 1 AT Toulon\nFORM S1 SQUADRON 3 AT Brest\nSAIL S1")
    out = table.advance(hours=48, minutes=1)
    results = [m for m in out if "1805-01 Results" in m.subject and addr("Spain") in m.to][0].body
    secret = re.search(r"now revealed:\s+([0-9a-f]{64})", results).group(1)
    commitment = json.loads(table.rows("SELECT position FROM phases ORDER BY seq")[0]["position"])["commitment"]
    (tmp_path / "gazette.txt").write_text(results, encoding="utf-8")
    out = table.send("watcher@example.test", "OBSERVE eg watchpw\nROLLS")
    body = table.reply_to("watcher@example.test", out).body
    months = json.loads(body[body.index("\n[\n") + 1:body.rindex("]") + 1])

    def verify(data: object) -> subprocess.CompletedProcess:
        (tmp_path / "rolls.json").write_text(json.dumps(data), encoding="utf-8")
        return subprocess.run([sys.executable, "-m", "judge.cli", "dice", "verify", "--game", "eg", "--secret", secret,
                               "--commitment", commitment, "--rolls", str(tmp_path / "rolls.json"),
                               "--gazette", str(tmp_path / "gazette.txt")], capture_output=True, text=True, timeout=120)

    ok = verify(months)
    assert ok.returncode == 0 and "all match" in ok.stdout, ok.stdout
    months[0]["rolls"].pop()
    months[0].update(dice.month_anchor(months[0]["rolls"]))
    bad = verify(months)
    assert bad.returncode == 1 and "printed" in bad.stdout and "the gazette" in bad.stdout, bad.stdout


def test_a_reminder_goes_to_the_teams_without_commands_only(table: Table) -> None:
    setup_game(table)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 1 AT Brest")
    out = table.advance(hours=48 - table.judge.cfg.reminder_hours, minutes=1)
    reminded = {a for m in out if "Reminder" in m.subject for a in m.to}
    assert reminded == {addr(n) for n in NATIONS if n != "France"}
    assert "No commands from the England team yet for January 1805" in " ".join(
        [m for m in out if addr("England") in m.to][0].body.split())
    # the late notice: the gazette names the teams that sent nothing by the deadline
    out = table.advance(hours=table.judge.cfg.reminder_hours)
    gazette = " ".join([m for m in out if "1805-01 Results" in m.subject][0].body.split())
    assert "No commands this month from: England, Spain, Prussia, Austria, Russia, Turkey." in gazette


def test_commands_typed_in_a_hurry_on_a_phone(table: Table) -> None:
    """Lower case, trailing dots, commas, accents, and the quoted mail below a reply are handled."""
    setup_game(table)
    body = ("signon feg pwFrance1\nbuild 2 at brest.\nstores 1 at Marseille\nform s1 squadron 3 at brest\n"
            "sail s1.\n\nOn Mon, 1 Jan 2001, judge wrote:\n> BUILD 9 AT Toulon\n> POINTS France +9\n")
    out = table.send(addr("France"), body)
    reply = table.reply_to(addr("France"), out).body
    for stored in ("France: BUILD 2 at brest.", "France: STORES 1 at Marseille", "France: SAIL s1."):
        assert f"accepted for this month: {stored}" in reply
    assert "Toulon" not in reply and "*** Error" not in reply
    table.advance(hours=48, minutes=1)
    state = json.loads(table.rows("SELECT position FROM phases WHERE state = 'open'")[0]["position"])
    france = state["nations"]["France"]
    assert [w["yard"] for w in france["works"]] == ["Brest"] and france["stores"] == {"Marseilles": 1}
    assert "s1" in france["units"]                                     # unit names are matched in any case
    rolls = json.loads(table.rows("SELECT results FROM phases WHERE state = 'processed'")[0]["results"])["rolls"]
    assert [r["purpose"] for r in rolls if "leaves" in r["purpose"]] == ["France s1 leaves Brest"]
    out = table.send(addr("Prussia"), "signon peg pwPrussia1\nbuild 1 at Königsberg")
    assert "accepted for this month: Prussia: BUILD 1 at Königsberg" in table.reply_to(addr("Prussia"), out).body


def test_the_master_sets_the_deadline(table: Table) -> None:
    setup_game(table)
    out = table.send(MASTER, "SIGNON Meg masterpw\nSET DEADLINE +6h")
    assert "Deadline for this month set to" in table.reply_to(MASTER, out).body
    assert [m for m in out if "Deadline changed" in m.subject and addr("Turkey") in m.to]
    out = table.advance(hours=6, minutes=1)
    assert [m for m in out if "1805-01 Results" in m.subject]
    out = table.send(addr("Spain"), "SIGNON Seg pwSpain1\nSET DEADLINE +1h")
    assert "only the game master" in table.reply_to(addr("Spain"), out).body


def test_rolls_by_mail_withhold_a_sealed_die_until_its_secret_is_out(table: Table) -> None:
    """I.C: only "the number plus or minus five" is public. Before the reveal ROLLS lists the yard
    figure's roll by number and purpose only; after the master's REVEAL it gives its dice, and
    every roll of the month verifies with no number missing."""
    setup_game(table)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 4 AT Toulon")
    table.advance(hours=48, minutes=1)
    observe(table, "watcher@example.test", "eg")
    out = table.send("watcher@example.test", "OBSERVE eg watchpw\nROLLS")
    body = table.reply_to("watcher@example.test", out).body
    rolls, _ = mailed_rolls(body)
    sealed = [r for r in rolls if r["purpose"] == "announced number at Toulon"]
    assert sealed and "dice" not in sealed[0] and "modifier" not in sealed[0] and "sides" not in sealed[0]
    out = table.send(MASTER, "SIGNON Meg masterpw\nROLLS")
    body = table.reply_to(MASTER, out).body
    seen, _ = mailed_rolls(body)
    assert [r["dice"] for r in seen if r["purpose"] == "announced number at Toulon"]   # the master sees it
    out = table.send(MASTER, "SIGNON Meg masterpw\nREVEAL")
    secret = re.search(r"now revealed:\s+([0-9a-f]{64})", table.reply_to(MASTER, out).body).group(1)
    out = table.send("watcher@example.test", "SIGNON Oeg watchpw\nROLLS")
    body = table.reply_to("watcher@example.test", out).body
    rolls, anchors = mailed_rolls(body)
    figure = [r for r in rolls if r["purpose"] == "announced number at Toulon"][0]
    assert figure["dice"] and dice.verify("eg", secret, rolls, anchors=anchors, need_anchors=True) == []


def test_a_bad_command_is_refused_at_once_and_never_drops_the_good_ones_beside_it(table: Table) -> None:
    """GUIDE: "Bad input gets a clear, specific error message and changes nothing else: a bad order
    never drops the good orders beside it." A line wrong in its own words is refused on arrival,
    under its echo, and not stored; one the state refuses now (a unit still in port, another's
    minor yard) is stored with a warning, since the master or the month's dice may change that; a
    line for another nation says whose it is."""
    setup_game(table, team=2)
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD two AT Brest\nBUILD 2 AT Brest\n"
                     "England: BUILD 1 AT London\nBUILD 1 AT Portsmouth\nBUILD 3 AT Brest please\nSAIL\n"
                     "STORES 1 AT Copenhagen\nFORM S1 SQUADRON 3 AT Toulon")
    body = " ".join(table.reply_to(addr("France"), out).body.split())
    assert "> BUILD two AT Brest *** Error: BUILD: how many ships: expected a number, got 'two'" in body
    assert "> BUILD 2 AT Brest accepted for this month: France: BUILD 2 AT Brest" in body
    assert "England's commands come from the England team" in body
    assert "> BUILD 1 AT Portsmouth *** Error: Portsmouth is a yard of England; France does not control" in body
    assert "'Brest please' is not a shipyard of the table (I)" in body
    assert "SAIL: name the fleets/squadrons that are to leave port" in body
    assert ("accepted for this month: France: STORES 1 AT Copenhagen but as things stand now it would be refused: "
            "Copenhagen is a yard of Denmark; France does not control Denmark") in body
    assert "FORM S1 SQUADRON 3 AT Toulon but as things stand" not in body
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nFra: BUILD 1 AT Brest\nBUILD 2 AT Brest and 3 AT Toulon")
    body = " ".join(table.reply_to(addr("France"), out).body.split())
    assert "'Fra' names no nation: start the line with your nation's name or letter" in body
    assert "AT appears twice: write one command a line" in body
    stored = [r["raw"] for r in table.rows("SELECT raw FROM orders WHERE state = 'active' ORDER BY id")]
    assert stored == ["France: BUILD 2 AT Brest", "France: STORES 1 AT Copenhagen",
                      "France: FORM S1 SQUADRON 3 AT Toulon"]
    # the second member's lines join the team's; a SAIL after the team's FORM is good
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nSAIL S1")
    body = " ".join(table.reply_to(addr("France", 2), out).body.split())
    assert "accepted for this month: France: SAIL S1" in body and "would be refused" not in body
    # the master's CONTROL makes the stored STORES good at the deadline
    table.send(MASTER, "SIGNON Meg masterpw\nCONTROL Denmark BY France")
    table.advance(hours=48, minutes=1)
    state = json.loads(table.rows("SELECT position FROM phases WHERE state = 'open'")[0]["position"])
    assert state["nations"]["France"]["stores"] == {"Copenhagen": 1}


def test_the_master_pauses_and_resumes_an_eia_game(table: Table) -> None:
    """A games master running a real game stops the clock (a holiday, a dispute) and starts it again:
    no reminder or deadline while paused, commands still taken, a fresh deadline on RESUME."""
    setup_game(table)
    out = table.send(addr("Spain"), "SIGNON Seg pwSpain1\nPAUSE")
    assert "only the game master" in table.reply_to(addr("Spain"), out).body
    out = table.send(MASTER, "SIGNON Meg masterpw\nPAUSE")
    assert "paused" in table.reply_to(MASTER, out).body
    assert [m for m in out if "Paused" in m.subject and addr("Turkey") in m.to]
    out = table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 1 AT Brest")
    assert "accepted for this month" in table.reply_to(addr("France"), out).body
    out = table.advance(hours=100)
    assert not [m for m in out if "Results" in m.subject or "Reminder" in m.subject]
    out = table.send(MASTER, "SIGNON Meg masterpw\nRESUME")
    assert "resumed; deadline" in table.reply_to(MASTER, out).body
    assert [m for m in out if "Resumed" in m.subject and addr("England") in m.to]
    out = table.advance(hours=48, minutes=1)                # month=48h: a full month from the resume
    assert [m for m in out if "1805-01 Results" in m.subject]
    state = json.loads(table.rows("SELECT position FROM phases WHERE state = 'open'")[0]["position"])
    assert [w["yard"] for w in state["nations"]["France"]["works"]] == ["Brest"]


def test_roles_strict_lets_each_role_send_only_its_commands(table: Table) -> None:
    """TEAM PLAY: "one person to be the Head of State/Economics Minister, one the Diplomat, and one the
    General/Field Commander". With roles=strict (off by default: "any internal division labor that
    the team members decide on is acceptable") the general sails, the head of state builds, the
    diplomat deals; a member cannot change his own role, the master can."""
    out = table.send(MASTER, "CREATE ?eg masterpw eia_afa month=48h team=3 roles=strict")
    assert "created" in table.reply_to(MASTER, out).body
    for n in NATIONS:
        for i, role in enumerate(["head of state", "diplomat", "general"], 1):
            table.send(addr(n, i), f"SIGNON ?eg pw{n}{i} {n} {role}")
    out = table.send(addr("France", 3), "SIGNON Feg pwFrance3\nFORM S1 SQUADRON 3 AT Brest\nBUILD 1 AT Brest\n"
                     "SET ROLE head of state")
    body = " ".join(table.reply_to(addr("France", 3), out).body.split())
    assert "accepted for this month: France: FORM S1 SQUADRON 3 AT Brest" in body
    assert "BUILD is for the head of state of your team (roles=strict); you are the general" in body
    assert "roles are fixed in this game" in body
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nSAIL S1\nLOAN 5 TO Spain")
    body = " ".join(table.reply_to(addr("France", 2), out).body.split())
    assert "SAIL is for the head of state or the general" in body and "France: LOAN 5 TO Spain" in body
    out = table.send(addr("France", 1), "SIGNON Feg pwFrance1\nSAIL S1\nBUILD 1 AT Brest")
    body = " ".join(table.reply_to(addr("France", 1), out).body.split())
    assert "France: SAIL S1" in body and "France: BUILD 1 AT Brest" in body and "Error" not in body
    out = table.send(addr("France", 2), "SIGNON Feg pwFrance2\nCLEAR")    # the diplomat clears his LOAN only
    assert "1 command(s) of France cleared" in table.reply_to(addr("France", 2), out).body
    left = [r["raw"] for r in table.rows("SELECT raw FROM orders WHERE state = 'active' ORDER BY id")]
    assert left == ["France: FORM S1 SQUADRON 3 AT Brest", "France: SAIL S1", "France: BUILD 1 AT Brest"]
    out = table.send(MASTER, f"SIGNON Meg masterpw\nSET ROLE {addr('France', 3)} diplomat")
    assert "is now diplomat of the France team" in table.reply_to(MASTER, out).body
    out = table.send(addr("France", 3), "SIGNON Feg pwFrance3\nMOVE S1 TO Channel ZONES 2")
    assert "MOVE is for the head of state or the general" in " ".join(table.reply_to(addr("France", 3), out).body.split())
    # off by default: any member sends any command
    from judge.game import eia as eia_games
    from judge.game.lifecycle import get_game

    out = table.send(MASTER, "CREATE ?free masterpw eia_afa team=2")
    free = get_game(table.judge.store, "free")
    assert free is not None and free.options["roles"] == "free"
    assert eia_games.role_allows(free, "general", "BUILD") is None


def test_the_master_ejects_a_team_member_and_a_new_one_takes_the_place(table: Table) -> None:
    """A member who stops playing is removed by the master; his password no longer works, his team and
    the master are told, and a new member joins in his place (team=2 stays the limit)."""
    setup_game(table, team=2)
    out = table.send(addr("Austria", 2), "SIGNON Aeg pwAustria2\nEJECT austria1@example.test")
    assert "only the game master" in table.reply_to(addr("Austria", 2), out).body
    out = table.send(MASTER, "SIGNON Meg masterpw\nEJECT Austria1@example.test")
    assert "removed from the Austria team" in table.reply_to(MASTER, out).body
    assert [m for m in out if "Ejected" in m.subject and m.to == [addr("Austria")]]
    told = [m for m in out if "Ejected from Austria" in m.subject]
    assert sorted(a for m in told for a in m.to) == sorted([addr("Austria", 2), MASTER])
    out = table.send(addr("Austria"), "SIGNON Aeg pwAustria1\nBUILD 1 AT Trieste")
    assert "Invalid password" in table.reply_to(addr("Austria"), out).body
    table.send("new@example.test", "SIGNON ?eg pwNew Austria general")
    out = table.send("new@example.test", "SIGNON Aeg pwNew\nBUILD 1 AT Trieste")
    assert "accepted for this month: Austria: BUILD 1 AT Trieste" in table.reply_to("new@example.test", out).body
    out = table.send("third@example.test", "SIGNON ?eg pwThird Austria")
    assert "team is full" in table.reply_to("third@example.test", out).body
    out = table.send(MASTER, "SIGNON Meg masterpw\nEJECT nobody@example.test")
    assert "is not in a team" in table.reply_to(MASTER, out).body


def test_judge_publish_archives_an_eia_game_with_public_matter_only(table: Table, tmp_path) -> None:
    """judge publish: an EiA game gets its pages like any game — the gazettes month by month and
    the teams by role — and nothing private: no ledger, no address, no sealed die, no command text."""
    from judge.game.archive import write_archive

    setup_game(table, team=2)
    table.send(addr("France"), "SIGNON Feg pwFrance1\nBUILD 3 AT Toulon")
    table.advance(hours=48, minutes=1)
    counts = write_archive(table.judge.store, tmp_path / "site", "TEST")
    assert counts["games"] == 1 and counts["phases"] == 1
    game = (tmp_path / "site" / "eg" / "index.html").read_text()
    assert "Empires in Arms" in game and "France (head of state)" in game and "france1" in game
    assert "@" not in game and "February 1805" in game
    month = (tmp_path / "site" / "eg" / "001-1805-01.html").read_text()
    assert "EG GAZETTE" in month and "announced number at Toulon: sealed until the secret is revealed" in month
    assert "BUILD 3 AT Toulon" not in month and "Treasury" not in month and "@example" not in month


def test_observing_an_eia_game_needs_the_address_to_confirm(table: Table) -> None:
    """A forged From cannot subscribe anyone to a game's gazette: OBSERVE only mails the address a
    code, and the address is no observer until CONFIRM comes back from it; a wrong password from a
    returning observer is refused."""
    setup_game(table)
    out = table.send("victim@example.test", "OBSERVE eg forgedpw")
    reply = table.reply_to("victim@example.test", out)
    assert "CONFIRM" in reply.body and "Until then the judge sends you nothing" in reply.body
    assert not table.rows("SELECT s.id FROM seats s JOIN players p ON p.id = s.player_id "
                          "WHERE s.role = 'observer' AND p.address = ?", ("victim@example.test",))
    out = table.advance(hours=48, minutes=1)
    assert not [m for m in out if "victim@example.test" in m.to], "no gazette before CONFIRM"
    observe(table, "victim@example.test", "eg", "forgedpw")
    out = table.send("victim@example.test", "OBSERVE eg wrongpw")
    assert "Error" in table.reply_to("victim@example.test", out).subject
