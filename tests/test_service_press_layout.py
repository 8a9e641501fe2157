"""Press as written: a letter mailed from real clients (Gmail, Outlook, Apple Mail, iPhone,
Thunderbird, Samsung; format=flowed and not; plain-text mode hard-wrapped at 76) reaches its
reader line for line; only a line longer than a mail line is wrapped, at spaces, never leaving a
word alone; the HTML part keeps the breaks and has no fixed width. The same in the results mail."""

from __future__ import annotations

import re

import pytest

import client_mails as cm
from judge.render.templates import PRESS_KEEP, press_line
from test_service_helpers import Mail, Table, hold_all

URL = "https://www.example.org/diplomacy/openings/lepanto-and-the-key-lepanto-variations-explained.html"
LETTER = [
    "Dear Kaiser,",
    "",
    "Happy to talk Belgium with you, but first I would like to understand what you intend in the "
    "north: Denmark, Holland and Sweden are a lot for one power, and I have my own Italian ambitions "
    "to think of as well, which I am sure you understand.",
    "Short line.  Two spaces after the full stop, as some of us still type, and a long line after it "
    "that must wrap without a huge hanging indent.",
    "This line is hard-wrapped by a plain-text mail program at seventy-six",  # 69 columns
    "columns, so it must stay exactly as it is, not be cut again into pieces.",
    "A line of seventy-five characters: it was short enough for the writer's mail",  # 77
    "",
    "See " + URL,
    "    Indented: F Lon - Nth, A Lvp - Yor, F Edi - Nwg; and then in autumn we can talk Norway again.",
    "",
    "Yours,",
    "Nicholas",
]


def press_body(mail: Mail) -> list[str]:
    """The letter as the recipient's text part has it (under the 'Message from ...' line)."""
    lines = mail.body.rstrip("\n").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("Message from"))
    return lines[start + 2:]


def assert_as_written(got: list[str], letter: list[str], indent: str = "") -> None:
    """Each written line is one line, or (longer than a mail line) consecutive lines that join back
    to it, none ending on a lone word; nothing else."""
    i = 0
    for line in letter:
        if len(indent + line) <= PRESS_KEEP:
            assert got[i] == (indent + line if line else ""), (got[i], line)
            i += 1
            continue
        want = line.split()
        pieces: list[str] = []
        while len(pieces) < len(want):
            assert got[i].startswith(indent) and len(got[i]) <= PRESS_KEEP or " " not in got[i].strip(), got[i]
            pieces += got[i].split()
            i += 1
        assert pieces == want
        assert len(got[i - 1].split()) > 1 or len(got[i - 1]) > PRESS_KEEP, f"a lone word: {got[i - 1]!r}"
    assert got[i:] == [], got[i:]


def test_press_line_wraps_only_long_lines_at_spaces() -> None:
    assert press_line("x" * 78) == ["x" * 78]
    assert press_line(URL + " " + URL) == [URL, URL]  # a word longer than a line stays whole
    para = " ".join(["word"] * 15) + " Italian ambitions"  # one word over 72: not left alone
    out = press_line(para + " " + "x" * 3)
    assert all(len(o.split()) > 1 for o in out) and " ".join(out).split() == (para + " xxx").split()


def send_from(table: Table, raw: bytes) -> list[Mail]:
    table.drop(raw)
    return table.run()


CLIENTS = {
    "gmail": lambda new, old, s: cm.gmail("en", new, old, sender=s),
    "gmail-html-only": lambda new, old, s: cm.gmail("en", new, old, html_only=True, sender=s),
    "outlook-desktop": lambda new, old, s: cm.outlook_desktop("en", new, old, sender=s),
    "outlook-web-html-only": lambda new, old, s: cm.outlook_web("en", new, old, html_only=True, sender=s),
    "apple-mail-flowed": lambda new, old, s: cm.apple_mail("en", new, old, sender=s),
    "apple-mail-plain": lambda new, old, s: cm.apple_mail("en", new, old, flowed=False, sender=s),
    "ios-mail": lambda new, old, s: cm.ios_mail("en", new, old, sender=s),
    "thunderbird-flowed": lambda new, old, s: cm.thunderbird("en", new, old, sender=s),
    "samsung": lambda new, old, s: cm.samsung_email(new, old, sender=s),
}


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_press_reaches_its_reader_as_written(table: Table, client: str) -> None:
    table.start_game()
    new = [table.signon("England"), "PRESS TO G"] + LETTER + ["ENDPRESS"]
    old = [":: Judge: TEST  Game: tg  Variant: Standard Diplomacy", "", "Your orders are complete."]
    sender = f"Nicholas Pratt <{table.powers['England']}>"
    out = send_from(table, CLIENTS[client](new, old, sender))
    got = [m for m in out if " Press " in m.subject and table.powers["Germany"] in m.to]
    assert len(got) == 1, [m.subject for m in out]
    assert_as_written(press_body(got[0]), LETTER)
    # the HTML part: the letter as written (its own breaks, pre-wrap), no fixed width anywhere
    html = got[0].msg.get_body(("html",)).get_content()
    assert "white-space:pre-wrap" in html and "overflow-wrap:anywhere" in html
    assert not re.search(r"(?<!max-)width:\s*\d+px", html)
    assert "Italian ambitions\nto think" not in html and "Happy to talk Belgium with you, but first" in html


def test_press_in_the_results_mail_as_written(table: Table) -> None:
    table.start_game()
    table.order("England", "F Lon H", extra="BROADCAST\n" + "\n".join(LETTER) + "\nENDPRESS")
    hold_all(table)  # the last orders: the phase is processed at once
    results = [m for m in table.mails if "Results" in m.subject and table.powers["France"] in m.to]
    assert results, [m.subject for m in table.mails]
    lines = results[0].body.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("From England")) + 1
    end = start + next(i for i, line in enumerate(lines[start:]) if line.strip() == "Nicholas") + 1
    assert_as_written(lines[start:end], LETTER, indent="  ")


# -- a reply that answers between the lines it quotes ------------------------------------------------
def test_interleaved_quotes_are_one_note_counting_every_line(table: Table) -> None:
    table.start_game()
    body = "\n".join([
        "On Tue, 7 Jan 2030 at 12:00, Judge <judge@example.test> wrote:",
        "> Your orders for England:",
        "> F Lon H",
        "",
        table.signon("England"),
        "F Lon - Nth",
        "",
        "> F Edi H",
        "> A Lvp H",
        "> (three units)",
        "",
        "F Edi - Nwg",
        "A Lvp - Yor",
        "",
        "> The deadline is Tuesday.",
    ])
    out = table.send(table.powers["England"], body, subject="Re: TEST:tg - S1901M orders")
    reply = table.reply_to(table.powers["England"], out).body
    notes = [line for line in reply.split("\n") if "quoted line" in line]
    assert len(notes) == 1, reply
    assert notes[0].startswith("Ignored 7 quoted lines in 3 places"), notes  # the attribution too
    assert "F Edi - Nwg" in reply and "A Lvp - Yor" in reply


def test_a_diary_note_is_shown_as_written(table: Table) -> None:
    """DIARY READ (and the diaries published at the end) show a note's own lines: no hanging
    indent guessed from two spaces, long lines wrapped at spaces within the reply's 72 columns."""
    table.start_game()
    note = ["Spring.  France says she will go to Burgundy, and I think I believe her this time, mostly.",
            "Short line.", "", "A line of seventy characters, as a plain-text mail program wrapped it"]
    table.order("England", "", extra="DIARY\n" + "\n".join(note) + "\nENDPRESS")
    body = table.reply_to(table.powers["England"], table.order("England", "DIARY READ 1")).body
    lines = body.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("Spring."))
    got = lines[start:start + 5]
    assert [g.strip() for g in got[2:]] == note[1:], got
    assert " ".join(got[0].split() + got[1].split()) == " ".join(note[0].split())
    assert all(len(g) <= 72 and g.startswith("  ") and not g.startswith("   ") for g in got if g), got
