"""Joining, through the mail path: power preferences, private and invitation-only games, and a
SIGNON that forgot the ``?``."""

from __future__ import annotations

import random
import re
from contextlib import closing

import pytest

from judge.game.assign import assign
from tests.test_service_helpers import MASTER, Table, acquaint, flat


@pytest.fixture
def table(tmp_path):
    with closing(Table(tmp_path)) as t:
        yield t


def reply(table: Table, sender: str, body: str) -> str:
    return flat(table.reply_to(sender, table.send(sender, body)).body)


def assigned(table: Table) -> dict[str, str]:
    """address -> power, from the Game Starting mails."""
    out = {}
    for m in table.mails:
        found = re.search(r"You are (\w+)\.", m.body)
        if "Game Starting" in m.subject and found:
            out[m.to[0]] = found.group(1)
    return out


def test_signon_without_the_question_mark_says_how_to_join(table):
    table.send(MASTER, "CREATE ?northsea masterpw standard")
    body = reply(table, "new@example.test", "SIGNON northsea secret1")
    assert "SIGNON ?northsea <password>" in body, body
    assert "No such game" not in body and "secret1" not in body


def test_preferences_are_honoured_first_choices_first(table):
    table.send(MASTER, "CREATE ?tg masterpw standard")
    prefs = ["E", "England, France", "G", "Italy", "a", "R T", "T"]
    for i, p in enumerate(prefs):
        body = reply(table, f"p{i}@example.test", f"SIGNON ?tg pw{i}\nSET PREFERENCE {p}")
        assert "Your preferences:" in body, body
    got = assigned(table)
    # p0 and p1 both ask England first; only p1 named a second choice, so p0 gets England and
    # p1 France (two players served) rather than p1 England and p0 nothing listed
    assert got["p0@example.test"] == "England" and got["p1@example.test"] == "France"
    assert got["p2@example.test"] == "Germany" and got["p3@example.test"] == "Italy"
    assert got["p4@example.test"] == "Austria"
    # p5 (Russia, Turkey) and p6 (Turkey): both first choices met
    assert got["p5@example.test"] == "Russia" and got["p6@example.test"] == "Turkey"


def test_a_bad_preference_is_refused_and_changes_nothing(table):
    table.send(MASTER, "CREATE ?tg masterpw standard")
    body = reply(table, "p0@example.test", "SIGNON ?tg pw0\nSET PREFERENCE EX")
    assert "no power 'X' in Standard" in body, body
    body = reply(table, "p0@example.test", "SIGNON ?tg pw0\nSET PREFERENCE England, England")
    assert "England is named twice" in body
    assert "no power" in reply(table, "p0@example.test", "SIGNON ?tg pw0\nSET PREFERENCE Atlantis")
    assert "any power" in reply(table, "p0@example.test", "SIGNON ?tg pw0\nSET PREFERENCE *")


def test_equal_claims_are_decided_by_chance():
    winners = {assign([1, 2], ["England", "France", "Italy"], {1: ["England"], 2: ["England"]},
                      random.Random(seed))[1] == "England" for seed in range(40)}
    assert winners == {True, False}
    # lexicographic: three first choices beat two first and two second choices
    prefs = {1: ["A", "B"], 2: ["B", "C"], 3: ["C", "A"]}
    for seed in range(10):
        assert assign([1, 2, 3], ["A", "B", "C"], prefs, random.Random(seed)) == {1: "A", 2: "B", 3: "C"}


def test_a_private_game_is_unlisted_and_an_invitation_game_needs_its_password(table):
    for addr in ("p0@example.test", "p1@example.test"):  # known addresses: answered every time
        acquaint(table, addr)
    table.send(MASTER, "CREATE ?club masterpw standard")
    table.send(MASTER, "CREATE ?open masterpw standard")
    body = reply(table, MASTER, "SIGNON Mclub masterpw\nSET PRIVATE\nSET JOIN PASSWORD letmein")
    assert "left out of the list" in body and "needs the join password" in body and "letmein" not in body, body
    listing = reply(table, "someone@example.test", "LIST")
    assert "open" in listing and "club" not in listing
    body = reply(table, "p0@example.test", "SIGNON ?club pw0")
    assert "by invitation" in body and "SIGNON ?club <your password> <the join password>" in body, body
    assert "Invalid password" in reply(table, "p0@example.test", "SIGNON ?club pw0 wrongword")
    assert not table.rows("SELECT * FROM seats s JOIN games g ON g.id = s.game_id WHERE g.name = 'club'")
    body = reply(table, "p0@example.test", "SIGNON ?club pw0 letmein")
    assert "You have joined 'club'" in body and "letmein" not in body and "pw0" not in body, body
    # once in, the player's own password is enough
    assert "Error" not in reply(table, "p0@example.test", "SIGNON ?club pw0")
    assert "Anyone may join" in reply(table, MASTER, "SIGNON Mclub masterpw\nSET JOIN PASSWORD NONE")
    assert "You have joined 'club'" in reply(table, "p1@example.test", "SIGNON ?club pw1")


def test_guessing_the_join_password_is_throttled_and_the_master_told(table):
    acquaint(table, "guesser@example.test")
    table.send(MASTER, "CREATE ?club masterpw standard")
    reply(table, MASTER, "SIGNON Mclub masterpw\nSET JOIN PASSWORD letmein")
    for i in range(table.cfg.seat_failures):
        assert "Invalid password" in reply(table, "guesser@example.test", f"SIGNON ?club pwg guess{i}")
    assert [m for m in table.to(MASTER) if "Wrong passwords: Join password" in m.subject]
    body = reply(table, "guesser@example.test", "SIGNON ?club pwg letmein")  # locked now, even when right
    assert "Too many wrong passwords" in body, body
