"""Every mail the judge sends has a plain-text part (72 columns) and a valid HTML part with the
same content; nothing a player wrote reaches the HTML unescaped; mailing-list copies are marked."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from mail_scenarios import (ARCHIVE_URL, EVIL, EVIL_BROADCAST, EVIL_NAME, EVIL_ORDER, LIST, OBSERVER, PUBLIC,
                            SECRET, odd_mails, showcase, victory)
from test_report_html import check_html
from test_service_helpers import MASTER, Mail, Table

#: what the subject of each kind of mail says (every kind must turn up in the games below)
KINDS = {
    "reply": r"^Re: ", "error reply": r"^Re: \[Error Flag\]", "start": r"Game Starting$",
    "movement results": r"\d{4}M Results$", "retreat results": r"\d{4}R Results$",
    "adjustment results": r"\d{4}A Results$", "victory": r" Victory", "draw": r" Draw$",
    "reminder": r" Reminder$", "late notice": r"Late Notice", "press": r" Press from ", "broadcast": r" Broadcast",
    "signon notice": r"New Player Signon", "future orders": r"Pending orders", "delivery failure": r"not delivered",
}


@pytest.fixture(scope="module")
def mails(tmp_path_factory: pytest.TempPathFactory) -> list[Mail]:
    a = showcase(tmp_path_factory.mktemp("showcase"))
    odd_mails(a)
    b = victory(tmp_path_factory.mktemp("victory"))
    out = a.mails + b.mails
    a.close()
    b.close()
    return out


def parts(m: Mail) -> tuple[str, str]:
    text = m.msg.get_body(("plain",))
    html = m.msg.get_body(("html",))
    assert text is not None and html is not None, m.subject
    return text.get_content(), html.get_content()


def words(s: str) -> Counter[str]:
    return Counter(re.findall(r"[A-Za-z0-9]+", s.replace("\xa0", " ")))


def test_every_kind_of_mail_turns_up(mails: list[Mail]) -> None:
    for kind, pattern in KINDS.items():
        assert any(re.search(pattern, m.subject) for m in mails), kind
    assert any(m.subject.startswith("Re: [Error Flag]") and "internal error" in m.body for m in mails)
    bodies = "\n".join(m.body for m in mails)
    for command in ("How to use this judge", "Games on this judge", "Players in 'tg'", "Summary of game 'tg'",
                    "History of 'tg'"):  # HELP, LIST, WHOGAME, SUMMARY, HISTORY
        assert command in bodies


def test_every_mail_is_text_and_html_alternatives(mails: list[Mail]) -> None:
    for m in mails:
        top = m.msg.get_content_type()
        assert top in ("multipart/alternative", "multipart/mixed"), (m.subject, top)
        alt = m.msg if top == "multipart/alternative" else next(
            p for p in m.msg.iter_parts() if p.get_content_type() == "multipart/alternative")
        kinds = [p.get_content_type() for p in alt.iter_parts()]
        assert kinds[0] == "text/plain" and kinds[1] in ("text/html", "multipart/related"), (m.subject, kinds)
        for p in m.msg.walk():
            if p.get_content_maintype() == "text":
                assert p.get_content_charset() == "utf-8"


def test_html_parts_are_valid(mails: list[Mail]) -> None:
    seen = set()
    for m in mails:
        _, html = parts(m)
        if html in seen:
            continue
        seen.add(html)
        assert html.lstrip().startswith("<!DOCTYPE html>"), m.subject
        check_html(html)
        assert re.search(r"<title>[^<]+</title>", html), m.subject


def test_text_parts_fit_72_columns(mails: list[Mail]) -> None:
    for m in mails:
        text, _ = parts(m)
        for line in text.splitlines():
            # an njudge header line, or a single word longer than a line, may stick out
            assert len(line) <= 72 or line.startswith("::") or " " not in line.strip(), (m.subject, line)


def test_html_says_what_the_text_says(mails: list[Mail]) -> None:
    seen = set()
    for m in mails:
        text, html = parts(m)
        if (text, html) in seen:
            continue
        seen.add((text, html))
        p = check_html(html)
        shown = words(" ".join(p.text))
        if " Results" in m.subject or " Victory" in m.subject:
            # the zine: the njudge header lines and the note on the attachments are for text readers
            text = "\n".join(l for l in text.splitlines() if not l.startswith("::") and "map.png" not in l)
        missing = words(text) - shown
        assert not missing, (m.subject, sorted(missing))


def test_results_carry_the_map_inline(mails: list[Mail]) -> None:
    results = [m for m in mails if m.subject.endswith(" Results")]
    assert results
    for m in results:
        _, html = parts(m)
        assert 'src="cid:map"' in html
        assert m.msg.get_content_type() == "multipart/mixed"  # the map beside the alternatives: every
        png = [p for p in m.msg.iter_attachments() if p.get_content_type() == "image/png"]  # reader has it
        assert png and png[0]["Content-ID"] == "<map>" and png[0].get_content().startswith(b"\x89PNG")
        assert not [p for p in m.msg.walk() if p.get_content_type() == "image/svg+xml"]  # SET MAP BOTH: see
        text, _ = parts(m)  # tests/test_results_map.py
        assert text.startswith(":: Judge: TEST  Game: ")  # njudge header lines first (mappers)


def test_no_html_has_unescaped_player_text(mails: list[Mail]) -> None:
    found = Counter[str]()
    for m in mails:
        text, html = parts(m)
        text = m.subject + "\n" + text  # the subject is the HTML part's title
        for raw in EVIL:
            assert raw not in html, (m.subject, raw)
            if raw in text:
                found[raw] += 1
                escaped = raw.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                assert escaped in html.replace("&#39;", "'"), (m.subject, raw)
        # and as a browser reads it: no script, no picture but the map, no event handler
        p = check_html(html)
        for tag, attrs in p.tags:
            assert tag not in ("script", "iframe", "object", "embed"), (m.subject, tag)
            assert tag != "img" or attrs.get("src") == "cid:map", (m.subject, attrs)
            assert not any(a.startswith("on") for a in attrs), (m.subject, tag, attrs)
    assert all(found[raw] for raw in EVIL), found  # each did reach some mail, as text
    results = [m for m in mails if m.subject.endswith("S1901M Results")]
    assert EVIL_NAME in results[0].body and EVIL_BROADCAST in results[0].body  # a name, public press
    assert any(EVIL_ORDER in m.body for m in mails if m.subject.startswith("Re: [Error Flag]"))


def test_private_press_stays_private(mails: list[Mail]) -> None:
    with_secret = [m for m in mails if SECRET in m.body]
    assert with_secret and all(" Press from E to F" in m.subject or m.subject.startswith("Re:") for m in with_secret)
    assert any(PUBLIC in m.body for m in mails if m.subject.endswith("S1901M Results"))


def test_mailing_list_gets_public_mail_with_list_headers(mails: list[Mail]) -> None:
    to_list = [m for m in mails if LIST in m.to]
    assert to_list and all(m.to == [LIST] for m in to_list)
    subjects = [m.subject for m in to_list]
    assert sum(s.endswith(" Results") for s in subjects) == 4  # S1901M, F1901M, F1901R, W1901A
    assert any(" Broadcast" in s for s in subjects) and any(" Draw" in s for s in subjects)
    assert not any(" Press " in s or s.startswith("Re:") or "Reminder" in s or "[You are late!]" in s
                   for s in subjects)
    for m in to_list:
        assert m.msg["List-Id"] == '"TEST game tg" <tg.test.example.test>'
        assert m.msg["List-Post"] == f"<mailto:{LIST}>"
        assert m.msg["List-Archive"] == f"<{ARCHIVE_URL}/tg/index.html>"
    assert not any(m.msg["List-Id"] for m in mails if LIST not in m.to)
    # observers receive the same reports as the list
    watched = {m.subject for m in mails if OBSERVER in m.to}
    assert {s for s in subjects if "Results" in s} <= watched


def test_set_list_is_for_the_master_and_shown_by_list(tmp_path: Path) -> None:
    t = Table(tmp_path)
    try:
        t.start_game()
        out = t.send(t.powers["France"], t.signon("France") + f"\nSET LIST {LIST}")
        assert "only the game master" in t.reply_to(t.powers["France"], out).body
        out = t.send(MASTER, "SIGNON Mtg masterpw\nSET LIST not-an-address")
        assert "not an email address" in t.reply_to(MASTER, out).body
        t.send(MASTER, f"SIGNON Mtg masterpw\nSET LIST {LIST}")
        assert t.rows("SELECT list_address FROM games")[0]["list_address"] == LIST
        out = t.send("someone@example.test", "LIST tg")
        assert f"Mailing list: {LIST}" in t.reply_to("someone@example.test", out).body
        t.send(MASTER, "SIGNON Mtg masterpw\nSET NO LIST")
        assert t.rows("SELECT list_address FROM games")[0]["list_address"] is None
    finally:
        t.close()


def test_list_named_before_the_start_hears_of_it(tmp_path: Path) -> None:
    t = Table(tmp_path)
    try:
        t.send(MASTER, f"CREATE ?lg masterpw standard\nSET LIST {LIST}")
        for i in range(7):
            t.send(f"p{i}@example.test", f"SIGNON ?lg pw{i}")
        start = [m for m in t.mails if m.to == [LIST]]
        assert [m.subject for m in start] == ["TEST:lg - S1901M Game Starting"]
        assert start[0].msg["List-Id"] == '"TEST game lg" <lg.test.example.test>'
        assert "@example.test" not in start[0].body  # the list is told who plays by the reports, not here
    finally:
        t.close()
