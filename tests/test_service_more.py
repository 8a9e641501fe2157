"""The game service's behaviour found untested by the audit (issue 4): schema migration, restart
after downtime, the remaining commands, press modes, reply headers and ``judge deliver``'s
temporary failure."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from datetime import timedelta
from email import message_from_bytes, policy

import sqlite_utils

from judge.mail import Judge
from judge.game.store import MIGRATIONS, SCHEMA_VERSION, dumps, iso
from test_service_helpers import JUDGE, MASTER, START, Table, acquaint, hold_all


# -- 1. schema migration --------------------------------------------------------------------------
def test_old_schema_is_migrated_when_a_judge_opens_it_and_keeps_its_rows(tmp_path) -> None:
    # a database as version 1 of the program left it: only the first migration step ran
    conn = sqlite3.connect(str(tmp_path / "judge.sqlite"), isolation_level=None)
    MIGRATIONS[0](sqlite_utils.Database(conn))
    conn.execute("PRAGMA user_version = 1")
    options = {"rules": {}, "press": "white", "centres": None, "movement_hours": 24.0, "retreat_hours": 12.0,
               "adjustment_hours": 12.0, "grace_hours": 12.0}
    conn.execute("INSERT INTO players (id, address, name, created) VALUES (1, ?, '', ?)", (MASTER, iso(START)))
    conn.execute("INSERT INTO games (id, name, variant, state, master_id, options, created) "
                 "VALUES (1, 'old', 'standard', 'forming', 1, ?, ?)", (dumps(options), iso(START)))
    conn.execute("INSERT INTO settings (key, value) VALUES ('kept', 'yes')")
    conn.close()
    seats_v1 = set(sqlite_utils.Database(str(tmp_path / "judge.sqlite"))["seats"].columns_dict)
    assert "allies" not in seats_v1

    t = Table(tmp_path)  # opens a Judge on the old file
    try:
        st = t.judge.store
        assert st.version == SCHEMA_VERSION > 1
        assert {"allies", "concede"} <= set(st.db["seats"].columns_dict)  # v2
        assert "list_address" in st.db["games"].columns_dict and st.db["reports"].exists()  # v3
        assert st.scalar("SELECT COUNT(*) FROM sqlite_master WHERE name = 'orders_active'") == 1  # v4
        assert st.get_setting("kept") == "yes"
        assert t.rows("SELECT name, variant, state FROM games") == [
            {"name": "old", "variant": "standard", "state": "forming"}]
        # the migrated game works: a player joins it (the seat row uses the new columns' defaults)
        out = t.send("p@example.test", "SIGNON ?old secretpw\nLIST old")
        reply = t.reply_to("p@example.test", out)
        assert "Error Flag" not in reply.subject and "You have joined 'old'" in reply.body
        # opening it again changes nothing
        t.reopen()
        assert t.judge.store.version == SCHEMA_VERSION
        assert len(t.rows("SELECT * FROM seats")) == 1
    finally:
        t.close()


# -- 2. restart after downtime ----------------------------------------------------------------------
def test_events_missed_while_down_run_once_each_on_restart(table: Table) -> None:
    table.start_game()  # tg: move=24h grace=12h; reminder 8h before the deadline
    hold_all(table, skip=("Italy",))
    assert table.phase() == "S1901M"
    # a second game, 12h moves and no grace, with one player; the master starts it (other powers vacant)
    table.send(MASTER, "CREATE ?tg2 masterpw standard move=12h grace=0h")
    table.send("solo@example.test", "SIGNON ?tg2 solopw")
    table.send(MASTER, "SIGNON Mtg2 masterpw\nSTART")
    assert table.phase("tg2") == "S1901M"
    solo_power = table.rows("SELECT power FROM seats s JOIN games g ON g.id = s.game_id "
                            "WHERE g.name = 'tg2' AND s.player_id IS NOT NULL")[0]["power"]
    assert table.rows("SELECT kind FROM events WHERE state = 'done'") == []

    # the judge is down for two days: both games' reminders and deadlines (and tg's grace) pass
    table.judge.close()
    table.now += timedelta(hours=48)
    table.judge = Judge(table.cfg)
    assert table.judge.run_due(table.now) == 4  # two reminders, two deadlines
    assert table.judge.run_due(table.now) == 0
    out = table.run()  # writes the queued mail; runs nothing more
    assert table.judge.run_due(table.now) == 0

    done = table.rows("SELECT g.name, e.kind, COUNT(*) AS n FROM events e JOIN games g ON g.id = e.game_id "
                      "WHERE e.state = 'done' GROUP BY g.name, e.kind ORDER BY g.name, e.kind")
    assert [(r["name"], r["kind"], r["n"]) for r in done] == [
        ("tg", "deadline", 1), ("tg", "reminder", 1), ("tg2", "deadline", 1), ("tg2", "reminder", 1)]
    # each game advanced exactly one phase (the new phase's deadline counts from the restart)
    assert table.phase("tg") == "F1901M" and table.phase("tg2") == "F1901M"
    for name in ("tg", "tg2"):
        states = [r["state"] for r in table.rows(
            "SELECT p.state FROM phases p JOIN games g ON g.id = p.game_id WHERE g.name = ? ORDER BY seq", (name,))]
        assert states == ["processed", "open"]
    assert table.judge.next_wakeup() > table.now

    # no reminder: its time came while the judge was down and the deadline has passed since
    assert not [m for m in out if "Reminder" in m.subject]
    # one results mail per phase for every seat and the master; the late powers went into civil disorder
    for name, who in (("tg", set(table.powers.values()) | {MASTER}), ("tg2", {"solo@example.test", MASTER})):
        res = [m for m in out if m.subject.startswith(f"TEST:{name} - S1901M Results")]
        got = [a for m in res for a in m.to]
        assert sorted(got) == sorted(who), name
    assert table.rows("SELECT g.name, s.power FROM seats s JOIN games g ON g.id = s.game_id "
                      "WHERE s.status = 'cd' ORDER BY g.name") == [
        {"name": "tg", "power": "Italy"}, {"name": "tg2", "power": solo_power}]
    # no late notices: at restart the grace had already ended, so the phase was processed at once
    assert not [m for m in out if "Late Notice" in m.subject]

    # a restart with nothing due does nothing either
    table.reopen()
    assert table.judge.run_due(table.now) == 0
    assert table.run() == []


# -- 3. commands ---------------------------------------------------------------------------------------
def test_set_nowait_after_wait_lets_the_phase_process_early(table: Table) -> None:
    table.start_game()
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor", extra="SET WAIT")
    hold_all(table, skip=("England",))
    assert table.phase() == "S1901M"
    out = table.send(table.powers["England"], table.signon("England") + "\nSET NOWAIT")
    assert "Wait flag cleared." in table.reply_to(table.powers["England"], out).body
    assert table.phase() == "F1901M"
    assert any("S1901M Results" in m.subject for m in out)


def test_set_address_sends_replies_and_results_to_the_new_address(table: Table) -> None:
    table.start_game()
    old, new = table.powers["France"], "france.new@example.test"
    out = table.send(old, table.signon("France") + f"\nSET ADDRESS {new}")
    assert f"now goes to {new}" in table.reply_to(old, out).body
    assert table.rows("SELECT addresses FROM seats WHERE power = 'France'")[0]["addresses"] == dumps([new])
    # an order mail from the old address: the reply also goes to the new one, as a mail of its own
    out = table.order("France", "A Par H\nA Mar H\nF Bre H")
    assert table.reply_to(old, out).to == [old] and table.reply_to(new, out).to == [new]
    # the results go to the new address only
    hold_all(table, skip=("France",))
    res = [m for m in table.mails if "S1901M Results" in m.subject]
    tos = [a for m in res for a in m.to]
    assert new in tos and old not in tos


def test_clear_withdraws_the_orders(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    out = table.send(eng, table.signon("England") + "\nCLEAR")
    body = table.reply_to(eng, out).body
    assert "Orders cleared for Spring 1901" in body
    assert "North Sea" not in body
    assert body.count("No Order Processed") == 3
    assert table.rows("SELECT COUNT(*) AS n FROM orders WHERE power = 'England' AND state = 'active'") == [{"n": 0}]
    hold_all(table, skip=("England",))
    assert table.phase() == "S1901M"  # England is late again


def test_set_grace_moves_the_grace_end(table: Table) -> None:
    table.start_game()
    before = table.judge.console().show("tg")
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET GRACE 2d")
    assert "Grace period set to 2d." in table.reply_to(MASTER, out).body
    after = table.judge.console().show("tg")
    assert after["deadline"] == before["deadline"]
    assert after["grace_end"] == iso(START + timedelta(hours=24 + 48)) != before["grace_end"]
    assert after["options"]["grace_hours"] == 48
    # a player may not
    fra = table.powers["France"]
    out = table.send(fra, table.signon("France") + "\nSET GRACE 1h")
    assert "only the game master" in table.reply_to(fra, out).body
    # the deadline passes with Italy late: the grace runs to the new end
    hold_all(table, skip=("Italy",))
    table.advance(hours=24)
    table.advance(hours=47)
    assert table.phase() == "S1901M"
    table.advance(hours=1)
    assert table.phase() == "F1901M"


def test_terminate_ends_the_game_and_tells_the_players(table: Table) -> None:
    table.start_game()
    fra = table.powers["France"]
    out = table.send(fra, table.signon("France") + "\nTERMINATE")
    assert "only the game master" in table.reply_to(fra, out).body and table.game_state() == "active"
    out = table.send(MASTER, "SIGNON Mtg masterpw\nTERMINATE")
    assert "Game 'tg' terminated." in table.reply_to(MASTER, out).body
    assert table.game_state() == "terminated"
    told = {a for m in out if "Terminated" in m.subject for a in m.to}
    assert told >= set(table.powers.values())
    assert table.judge.next_wakeup() is None
    # the game takes no more orders
    eng = table.powers["England"]
    out = table.order("England", "F Lon - Nth")
    assert "is over" in table.reply_to(eng, out).body


def test_signoff_ends_the_commands(table: Table) -> None:
    table.start_game()
    eng = table.powers["England"]
    out = table.order("England", "F Lon - Nth\nSIGNOFF\nF Edi - Nwg\nSET WAIT")
    body = table.reply_to(eng, out).body
    assert "England: Fleet London -> North Sea." in body
    assert "England: Fleet Edinburgh, No Order Processed." in body
    assert "Norwegian" not in body
    assert table.rows("SELECT wait FROM seats WHERE power = 'England'") == [{"wait": 0}]


def test_master_sets_rules_before_the_start_only(table: Table) -> None:
    table.send(MASTER, "CREATE ?tg masterpw standard")
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET convoy_paradox 1971")
    reply = table.reply_to(MASTER, out)
    assert "Error Flag" not in reply.subject and "Rule convoy_paradox set to 1971." in reply.body
    assert table.judge.console().show("tg")["options"]["rules"] == {"convoy_paradox": "1971"}
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET convoy_paradox nonsense")
    assert "[Error Flag]" in table.reply_to(MASTER, out).subject
    # the game starts (the master forces it); now the rule cannot change
    table.send(MASTER, "SIGNON Mtg masterpw\nSTART")
    assert table.game_state() == "active"
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET convoy_paradox szykman")
    reply = table.reply_to(MASTER, out)
    assert "[Error Flag]" in reply.subject
    assert "can only be set before the game starts" in reply.body
    assert table.judge.console().show("tg")["options"]["rules"] == {"convoy_paradox": "1971"}


def test_history_with_from_and_to(table: Table) -> None:
    table.start_game()
    for _ in range(3):
        table.send(MASTER, "SIGNON Mtg masterpw\nPROCESS")
    done = [r["short"] for r in table.rows("SELECT short FROM phases WHERE state = 'processed' ORDER BY seq")]
    assert len(done) == 3 and done[:2] == ["S1901M", "F1901M"]
    who = "reader@example.test"
    acquaint(table, who)  # a stranger gets one short answer an hour

    def history(args: str) -> str:
        out = table.send(who, f"HISTORY tg {args}")
        reply = table.reply_to(who, out)
        return reply.body

    # each report starts with its heading (a report's last lines also name the next phase)
    titles = {s: f"Game tg - Standard Diplomacy - {n}" for s, n in (("S1901M", "Spring 1901 Movement"),
                                                                   ("F1901M", "Fall 1901 Movement"))}
    third = "Game tg - Standard Diplomacy - " + table.rows("SELECT name FROM phases WHERE short = ?",
                                                           (done[2],))[0]["name"]
    body = history("")
    assert all(t in body for t in (titles["S1901M"], titles["F1901M"], third))
    body = history("F1901M")  # from F1901M to the end
    assert titles["S1901M"] not in body and titles["F1901M"] in body and third in body
    body = history("from S1901M to F1901M")
    assert titles["S1901M"] in body and titles["F1901M"] in body and third not in body
    body = history("F1901M F1901M")
    assert titles["S1901M"] not in body and titles["F1901M"] in body and third not in body
    out = table.send(who, "HISTORY tg S1905M")
    reply = table.reply_to(who, out)
    assert "[Error Flag]" in reply.subject and "no processed phase S1905M" in reply.body


# -- 4. press modes ---------------------------------------------------------------------------------------
def test_white_press_game_refuses_grey_press(table: Table) -> None:
    table.start_game(options="move=24h press=white")
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nPRESS TO F GREY\nGuess who.\nENDPRESS")
    reply = table.reply_to(eng, out)
    assert "[Error Flag]" in reply.subject and "allows only white press" in reply.body
    assert not [m for m in out if "Press" in m.subject and table.powers["France"] in m.to]
    assert table.rows("SELECT COUNT(*) AS n FROM press") == [{"n": 0}]


def test_no_press_game_refuses_press_except_to_the_master(table: Table) -> None:
    table.start_game(options="move=24h press=none")
    eng, fra = table.powers["England"], table.powers["France"]
    out = table.send(eng, table.signon("England") + "\nPRESS TO F\nHello.\nENDPRESS")
    reply = table.reply_to(eng, out)
    assert "[Error Flag]" in reply.subject and "does not allow press (except to the master)" in reply.body
    assert not table.to(fra, [m for m in out if "Press" in m.subject])
    out = table.send(eng, table.signon("England") + "\nBROADCAST\nHello all.\nENDPRESS")
    assert "does not allow press" in table.reply_to(eng, out).body
    # the service lets a power write to the master alone in a no-press game
    out = table.send(eng, table.signon("England") + "\nPRESS TO M\nA question for the GM.\nENDPRESS")
    assert "Error Flag" not in table.reply_to(eng, out).subject
    to_master = [m for m in out if "Press from E" in m.subject]
    assert [m.to for m in to_master] == [[MASTER]] and "A question for the GM." in to_master[0].body
    # but not to the master and a power together
    out = table.send(eng, table.signon("England") + "\nPRESS TO MF\nSneaky.\nENDPRESS")
    assert "does not allow press" in table.reply_to(eng, out).body


def test_grey_press_hides_the_sender(table: Table) -> None:
    table.start_game(options="move=24h press=grey")
    eng, fra = table.powers["England"], table.powers["France"]
    out = table.send(eng, table.signon("England") + "\nPRESS TO F\nSomeone likes you.\nENDPRESS")
    assert "grey: without your name" in table.reply_to(eng, out).body
    press = table.to(fra, [m for m in out if "Press" in m.subject])
    assert len(press) == 1
    mail = press[0]
    assert "Someone likes you." in mail.body
    assert "England" not in mail.body and "from E" not in mail.subject and eng not in mail.body
    assert mail.msg["Reply-To"] is None or eng not in str(mail.msg["Reply-To"])
    assert table.rows("SELECT sender, grey FROM press") == [{"sender": "England", "grey": 1}]


# -- 5. reply headers and judge deliver --------------------------------------------------------------------
def test_reply_threads_on_the_incoming_message_id(table: Table) -> None:
    acquaint(table, "someone@example.test")  # a stranger gets one answer an hour
    out = table.send("someone@example.test", "HELP", message_id="<first.1@client.test>")
    reply = table.reply_to("someone@example.test", out)
    assert reply.msg["In-Reply-To"] == "<first.1@client.test>"
    assert reply.msg["References"] == "<first.1@client.test>"
    # an answer within a thread: the thread's References come first, then the message's own id
    out = table.send("someone@example.test", "LIST", message_id="<second.2@client.test>",
                     headers={"References": "<root.0@client.test>"})
    reply = table.reply_to("someone@example.test", out)
    assert reply.msg["In-Reply-To"] == "<second.2@client.test>"
    assert str(reply.msg["References"]).split() == ["<root.0@client.test>", "<second.2@client.test>"]


def _deliver(db: str, raw: bytes, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from judge.cli import main; main()", "deliver", "--db", db,
                           "--address", JUDGE], input=raw, capture_output=True, cwd=cwd, timeout=60)


def test_deliver_exits_75_when_the_store_cannot_be_opened(tmp_path) -> None:
    from judge.demo.robots import make_mail

    raw = make_mail("p@example.test", JUDGE, "HELP", "help", message_id="<d1@example.test>", date=START)
    # the database's folder cannot be made: a plain file stands where it should be
    # (a folder that merely does not exist is created; file permissions do not stop root, so they are not used)
    (tmp_path / "not-a-dir").write_text("x")
    proc = _deliver(str(tmp_path / "not-a-dir" / "judge.sqlite"), raw, tmp_path)
    assert proc.returncode == 75, proc.stderr
    assert b"judge deliver:" in proc.stderr
    # a store that does not exist (a typo, a judge not yet set up): kept by the MTA, not a new empty judge
    db = tmp_path / "new-folder" / "judge.sqlite"
    proc = _deliver(str(db), raw, tmp_path)
    assert proc.returncode == 75, proc.stderr
    assert b"no judge database at" in proc.stderr and b"judge init" in proc.stderr
    assert not db.exists()
    # once made with `judge init`, the same message is handled (exit 0) and its reply queued
    init = subprocess.run([sys.executable, "-m", "judge.cli", "init", "--db", str(db)], capture_output=True, timeout=60)
    assert init.returncode == 0, init.stderr
    proc = _deliver(str(db), raw, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b"handled"
    row = sqlite3.connect(str(db)).execute("SELECT message FROM outbox").fetchone()
    msg = message_from_bytes(row[0], policy=policy.default)
    assert msg["In-Reply-To"] == "<d1@example.test>" and msg["References"] == "<d1@example.test>"


def test_a_game_nobody_plays_waits_for_its_deadlines(table: Table) -> None:
    # found while writing the restart test: with every power vacant or in civil disorder, "all
    # orders in" was trivially true and the game played itself out, up to 100 phases at once
    table.send(MASTER, "CREATE ?tg masterpw standard move=12h grace=0h")
    table.send("solo@example.test", "SIGNON ?tg solopw")
    table.send(MASTER, "SIGNON Mtg masterpw\nSTART")
    power = table.rows("SELECT power FROM seats WHERE player_id IS NOT NULL")[0]["power"]
    letter = power[0]
    table.send("solo@example.test", f"SIGNON {letter}tg solopw\nRESIGN")
    assert table.rows("SELECT COUNT(*) AS n FROM seats WHERE status = 'active'") == [{"n": 0}]
    assert table.phase() == "S1901M"
    table.advance(hours=12)  # the deadline processes one phase, no more
    assert table.phase() == "F1901M"
