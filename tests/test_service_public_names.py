"""Public names people recognise: a player who joins is shown by the display name their mail
program sends ("Bertrand Dupuis <bertrand.dupuis@...>"), never by the address; the join reply says
which name, where it came from and how to change it. Encoded words in any script, quoted names,
"Last, First", names that are only the address, emoji and control characters, over-long names,
two players with one name in a game, anonymous games. Through the Maildir path with raw From fields."""

from __future__ import annotations

import itertools
import re
from email.utils import formataddr

import pytest

from judge.game.public_names import MAX_NAME, clean_display_name, unique_name
from test_service_helpers import JUDGE, MASTER, Table

_ids = itertools.count(1)
POWERS = frozenset({"England", "France", "Germany", "Italy", "Austria", "Russia", "Turkey"})


@pytest.mark.parametrize("display,address,shown", [
    ("Bertrand Dupuis", "bertrand.dupuis@example.test", "Bertrand Dupuis"),
    ('"Dupuis, Bertrand"', "b@example.test", "Bertrand Dupuis"),
    ("Dupuis, Bertrand", "b@example.test", "Bertrand Dupuis"),
    ("'Dieter Müller'", "dieter@example.test", "Dieter Müller"),
    ("Анна Петрова", "anna@example.test", "Анна Петрова"),
    ("山田太郎", "taro@example.test", "山田太郎"),
    ("Bob 🎲🇫🇷", "robert@example.test", "Bob"),
    ("Eve\u202e\u0007 Smith", "eve@example.test", "Eve Smith"),
    ("bob@example.test", "bob@example.test", None),
    ("BOB@EXAMPLE.TEST", "bob@example.test", None),
    ("bob", "bob@example.test", None),
    ("Bob (robert@example.test)", "robert@example.test", "Bob"),
    ("France", "f@example.test", None),
    ("The Judge", "x@example.test", None),
    ("🎲🎲", "x@example.test", None),
    ("", "x@example.test", None),
])
def test_clean_display_name(display: str, address: str, shown: str | None) -> None:
    assert clean_display_name(display, address, POWERS) == shown


def test_an_overlong_name_is_cut_at_a_space() -> None:
    name = clean_display_name("Maximilian Alexander Friedrich von Hohenzollern-Sigmaringen", "m@x.test")
    assert name == "Maximilian Alexander Friedrich von"
    assert len(clean_display_name("X" * 200, "m@x.test") or "") == MAX_NAME


def test_unique_name() -> None:
    assert unique_name("Bob", {"alice"}) == "Bob"
    assert unique_name("Bob", {"bob", "Bob (2)"}) == "Bob (3)"
    assert len(unique_name("Y" * MAX_NAME, {"Y" * MAX_NAME})) == MAX_NAME


def raw_mail(from_field: str, body: str) -> bytes:
    """A mail with ``from_field`` as written (a non-ASCII one as its mail program encodes it)."""
    if not from_field.isascii():
        name, _, addr = from_field.rpartition(" <")
        from_field = formataddr((name, addr.rstrip(">")))  # RFC 2047 encoded words
    head = (f"From: {from_field}\r\nTo: {JUDGE}\r\nSubject: join\r\nMessage-ID: <{next(_ids)}@client.test>\r\n"
            "Date: Mon, 07 Jan 2030 12:00:00 +0000\r\nMIME-Version: 1.0\r\n"
            "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n")
    return (head + body + "\r\n").encode("utf-8")


def join(t: Table, from_field: str, addr: str, game: str = "ng", pw: str = "secretpw") -> str:
    t.drop(raw_mail(from_field, f"SIGNON ?{game} {pw}"))
    return " ".join(t.reply_to(addr, t.run()).body.split())


def test_joining_players_are_shown_by_the_names_their_mail_programs_send(table: Table) -> None:
    table.send(MASTER, "CREATE ?ng masterpw standard")
    r = join(table, "Bertrand Dupuis <bertrand.dupuis@example.test>", "bertrand.dupuis@example.test")
    assert ("Others see you as 'Bertrand Dupuis' (the name your mail program sends with your address). "
            "SET NAME <your name> changes it (the judge then mails you a code to CONFIRM).") in r
    r = join(table, "=?utf-8?b?0JDQvdC90LAg0J/QtdGC0YDQvtCy0LA=?= <anna@example.test>", "anna@example.test")
    assert "Others see you as 'Анна Петрова'" in r
    r = join(table, '"Dupuis, Marie" <marie@example.test>', "marie@example.test")
    assert "Others see you as 'Marie Dupuis'" in r
    r = join(table, "dieter@example.test", "dieter@example.test")
    assert "Others see you as 'dieter' (your mailbox name: your mail program sends no name)" in r
    r = join(table, '"dieter@other.test" <dieter@other.test>', "dieter@other.test")
    assert ("Others see you as 'dieter (2)' (your mailbox name: the name your mail program sends is not "
            "one to show) ('dieter' is already how another player in 'ng' is shown)") in r
    r = join(table, "=?iso-8859-1?q?Bertrand_Dupuis?= <bd2@example.test>", "bd2@example.test")
    assert "Others see you as 'Bertrand Dupuis (2)'" in r and "already how another player" in r
    r = join(table, "Bob \U0001F3B2\u202e <robert@example.test>", "robert@example.test")
    assert "Others see you as 'Bob'" in r
    names = {row["address"]: row["name"] for row in table.rows("SELECT address, name FROM players")}
    assert names["anna@example.test"] == "Анна Петрова" and names["dieter@other.test"] == "dieter (2)"
    assert not [n for n in names.values() if "@" in n]  # no name is ever an address


def test_a_display_name_never_supplies_the_address(table: Table) -> None:
    table.send(MASTER, "CREATE ?ng masterpw standard")
    r = join(table, '"other@example.test" <real@example.test>', "real@example.test")
    assert "Others see you as 'real'" in r
    assert not table.rows("SELECT * FROM players WHERE address = 'other@example.test'")


def test_an_anonymous_game_shows_no_name_and_says_so(table: Table) -> None:
    table.send(MASTER, "CREATE ?ng masterpw standard anonymous=yes")
    r = join(table, "Bertrand Dupuis <bd@example.test>", "bd@example.test")
    assert ("'ng' is anonymous: no one sees your name until it is over; then you are shown as "
            "'Bertrand Dupuis'") in r, r


def test_a_name_the_player_has_is_kept(table: Table) -> None:
    table.send(MASTER, "CREATE ?ng masterpw standard")
    table.send(MASTER, "CREATE ?og masterpw standard")
    join(table, "Bertrand Dupuis <bd@example.test>", "bd@example.test", game="og")
    r = join(table, "B. D. from the office <bd@example.test>", "bd@example.test")
    assert "Others see you as 'Bertrand Dupuis' (the name you have on this judge)" in r


SENDER = '"Weiß, Jürgen" <jw@example.test>'
CLIENTS = {  # each client's reply, new text and old, as it writes it (From: SENDER)
    "gmail": lambda cm, new, old: cm.gmail("de", new, old, sender=SENDER),
    "outlook-desktop": lambda cm, new, old: cm.outlook_desktop("de", new, old, sender=SENDER),
    "outlook-web-html-only": lambda cm, new, old: cm.outlook_web("de", new, old, html_only=True, sender=SENDER),
    "apple-mail": lambda cm, new, old: cm.apple_mail("de", new, old, sender=SENDER),
    "ios-mail": lambda cm, new, old: cm.ios_mail("de", new, old, sender=SENDER),
    "thunderbird": lambda cm, new, old: cm.thunderbird("de", new, old, sender=SENDER),
    "samsung-email": lambda cm, new, old: cm.samsung_email(new, old, sender=SENDER),
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_the_name_each_client_sends_is_the_public_name(table: Table, client: str) -> None:
    """A join written as a reply from each real client, its From field as that client writes it
    (a directory-style "Last, First" with non-ASCII letters, RFC 2047 encoded)."""
    import client_mails as cm

    table.send(MASTER, "CREATE ?ng masterpw standard")
    table.drop(CLIENTS[client](cm, ["SIGNON ?ng secretpw"], ["Game 'ng' (Standard Diplomacy) created."]))
    reply = " ".join(table.reply_to("jw@example.test", table.run()).body.split())
    assert "Others see you as 'Jürgen Weiß' (the name your mail program sends with your address)" in reply


def test_set_name_to_a_name_another_player_shows_is_made_unique(table: Table) -> None:
    """SET NAME (confirmed) to the name a co-player already shows: " (2)" after it, and said."""
    table.start_game()
    eng, fra = table.powers["England"], table.powers["France"]
    out = table.send(eng, table.signon("England") + "\nSET NAME Lord Byron")
    code = re.search(r"CONFIRM ([A-Z2-7]{16})", table.reply_to(eng, out).body).group(1)
    table.send(eng, f"CONFIRM {code}")
    out = table.send(fra, table.signon("France") + "\nSET NAME lord byron")
    code = re.search(r"CONFIRM ([A-Z2-7]{16})", table.reply_to(fra, out).body).group(1)
    reply = " ".join(table.reply_to(fra, table.send(fra, f"CONFIRM {code}")).body.split())
    assert ("Reports now name you lord byron (2) ('lord byron' is already how another player in one of your "
            "games is shown).") in reply
    assert table.rows("SELECT name FROM players WHERE address = ?", (fra,)) == [{"name": "lord byron (2)"}]


def said(t: Table, from_field: str, addr: str, body: str) -> str:
    t.drop(raw_mail(from_field, body))
    return " ".join(t.reply_to(addr, t.run()).body.split())


def test_the_master_and_observers_are_named_as_players_are(table: Table) -> None:
    """CREATE and OBSERVE (once confirmed) take the From display name as sign-on does, say so, and
    the game's roster shows them by it, never by address."""
    r = said(table, f'"Rams, Dieter" <{MASTER}>', MASTER, "CREATE ?ng masterpw standard")
    assert ("Others see you as 'Dieter Rams' (the name your mail program sends with your address). "
            "SET NAME <your name> changes it") in r
    r = said(table, "=?utf-8?b?0JDQvdC90LAg0J/QtdGC0YDQvtCy0LA=?= <anna@example.test>", "anna@example.test",
             "OBSERVE ng watchpw")
    code = re.search(r"CONFIRM (\w+)", r)
    assert code and "Others see you" not in r  # not an observer until the address consents
    r = said(table, "Анна Петрова <anna@example.test>", "anna@example.test", f"CONFIRM {code.group(1)}")
    assert "You are observing 'ng'" in r and "Others see you as 'Анна Петрова'" in r
    # a second observer whose mail program sends no name: the mailbox name, and the reply says why
    r = said(table, "bob@example.test", "bob@example.test", "OBSERVE ng watchpw")
    code = re.search(r"CONFIRM (\w+)", r)
    r = said(table, "bob@example.test", "bob@example.test", f"CONFIRM {code.group(1)}")  # type: ignore[union-attr]
    assert "Others see you as 'bob' (your mailbox name: your mail program sends no name)" in r
    who = " ".join(table.reply_to("x@example.test", table.send("x@example.test", "WHOGAME ng")).body.split())
    assert "Dieter Rams" in who and "Анна Петрова" in who and "@example.test" not in who.split("WHOGAME", 1)[1]
    # a name already held is kept, and the reply says whose it is
    r = said(table, f"Someone Else <{MASTER}>", MASTER, "CREATE ?ng2 masterpw standard")
    assert "Others see you as 'Dieter Rams' (the name you have on this judge)" in r
    # an anonymous game names its master all the same (WHOGAME shows them), and the reply says so
    r = said(table, f"Someone Else <{MASTER}>", MASTER, "CREATE ?ng3 masterpw standard anonymous=yes")
    assert "Others see you as 'Dieter Rams'" in r and "is anonymous" not in r


def test_the_master_is_told_who_joined_and_nobody_else_is(table: Table) -> None:
    # found in the play test: "A player has joined 'ng' (1 of 7)" left the master guessing who
    table.send(MASTER, "CREATE ?ng masterpw standard")
    table.drop(raw_mail("Bertrand Dupuis <bertrand.dupuis@example.test>", "SIGNON ?ng secretpw"))
    out = table.run()
    [note] = [m for m in out if "New Player Signon" in m.subject]
    assert note.to == [MASTER]
    assert ("Bertrand Dupuis <bertrand.dupuis@example.test> has joined 'ng' (1 of 7)."
            in " ".join(note.body.split()))
    join(table, "anna@example.test", "anna@example.test")
    [note] = [m for m in table.mails if "New Player Signon" in m.subject and "anna" in m.body]
    assert "anna <anna@example.test> has joined 'ng' (2 of 7)." in " ".join(note.body.split())
