"""Only the new text is read, through the real path (Maildir in, game service, reply out): a
German Outlook reply quoting the old orders applies only the new ones, a pasted copy of the
judge's own reply or report is not executed again, and every reply says what it left out."""

from __future__ import annotations

from pathlib import Path

import client_mails as cm
from test_service_helpers import JUDGE, Mail, Table, hold_all

OLD = ["F Lon - Eng", "F Edi - Nth", "A Lvp - Wal"]
NEW = ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]
OLD_LIST = ["England: Fleet London -> English Channel.", "England: Fleet Edinburgh -> North Sea.",
            "England: Army Liverpool -> Wales."]
NEW_LIST = ["England: Fleet London -> North Sea.", "England: Fleet Edinburgh -> Norwegian Sea.",
            "England: Army Liverpool -> Yorkshire."]


def _html(m: Mail) -> str:
    return m.msg.get_body(("html",)).get_content()  # type: ignore[union-attr]


def _england_with_old_orders(tmp: Path) -> tuple[Table, str, Mail]:
    t = Table(tmp)
    t.start_game()
    addr = t.powers["England"]
    first = t.reply_to(addr, t.order("England", "\n".join(OLD)))
    for line in OLD_LIST:
        assert line in first.body
    return t, addr, first


def _orders_in(body: str) -> list[str]:
    return [l for l in body.split("\n") if l.startswith("England: ")]


def test_german_outlook_reply_applies_only_the_new_orders(tmp_path: Path) -> None:
    t, addr, first = _england_with_old_orders(tmp_path)
    # Outlook quotes the judge's reply under its header block, and under that the player's first mail
    old = first.body.split("\n") + ["", "Von: Bob Player <%s>" % addr, "Gesendet: Montag, 7. Januar 2030 12:00",
                                    "An: The Judge <%s>" % JUDGE, "Betreff: orders", "", t.signon("England")] + OLD
    new = [t.signon("England")] + NEW + ["", "Viele Grüße", "Bob"]
    t.drop(cm.outlook_desktop("de", new, old, sender=f"Bob Player <{addr}>"))
    reply = t.reply_to(addr, t.run())
    # the order status lists the orders now stored for England: the new ones only
    assert sorted(_orders_in(reply.body)) == sorted(NEW_LIST)
    assert "[Error Flag]" not in reply.subject and "No errors encountered." in reply.body
    quoted = sum(1 for l in old if l.strip()) + 4  # the judge's reply, the first mail, two header blocks
    expected = [f"Ignored {quoted} quoted lines (an earlier message, from 'Von: The Judge",
                "Ignored your sign-off 'Viele Grüße Bob'."]
    flat = " ".join(reply.body.split())
    html = " ".join(_html(reply).split())
    for e in expected:
        assert e in flat, reply.body
        assert e.replace("'", "&#39;") in html


def test_html_only_french_outlook_reply(tmp_path: Path) -> None:
    t, addr, first = _england_with_old_orders(tmp_path)
    new = [t.signon("England")] + NEW
    t.drop(cm.outlook_web("fr", new, [t.signon("England")] + OLD, html_only=True, sender=addr))
    reply = t.reply_to(addr, t.run())
    assert sorted(_orders_in(reply.body)) == sorted(NEW_LIST)
    assert "Ignored 8 quoted lines (an earlier message, from 'De : The Judge" in " ".join(reply.body.split())
    assert "[Error Flag]" not in reply.subject


def test_a_pasted_copy_of_the_judges_reply_is_not_executed_again(tmp_path: Path) -> None:
    t, addr, _ = _england_with_old_orders(tmp_path)
    # a reply with an error, echoes and an order list, pasted whole without quote marks
    bad = t.reply_to(addr, t.order("England", "A Yor - Lon"))
    assert "[Error Flag]" in bad.subject
    pasted = bad.body.strip("\n")
    body = t.signon("England") + "\n" + "\n".join(NEW) + "\n\n" + pasted + "\n"
    reply = t.reply_to(addr, t.send(addr, body))
    assert sorted(_orders_in(reply.body)) == sorted(NEW_LIST), reply.body
    assert "[Error Flag]" not in reply.subject
    n = sum(1 for l in pasted.split("\n") if l.strip())
    assert f"Ignored {n} lines of the judge's own earlier mail (from ':: Judge: TEST Game: tg" in " ".join(
        reply.body.split())


def test_a_pasted_report_is_not_executed_again(tmp_path: Path) -> None:
    t, addr, _ = _england_with_old_orders(tmp_path)
    hold_all(t, skip=("England",))
    assert t.phase() == "F1901M"
    report = [m for m in t.to(addr) if "Results" in m.subject][-1]
    # above the new orders this time (a player replying "below" the report)
    body = report.body.strip("\n") + "\n\n" + t.signon("England") + "\nF Eng H\nF Nth H\nA Wal H\n"
    reply = t.reply_to(addr, t.send(addr, body))
    assert "[Error Flag]" not in reply.subject, reply.body
    assert "No errors encountered." in reply.body
    n = sum(1 for l in report.body.split("\n") if l.strip())
    assert f"Ignored {n} lines of the judge's own earlier mail (from ':: Judge: TEST Game: tg" in " ".join(
        reply.body.split())
    assert reply.body.count("Ignored") == 1


def test_sign_offs_and_phone_lines_are_notes_not_errors(tmp_path: Path) -> None:
    t, addr, _ = _england_with_old_orders(tmp_path)
    reply = t.reply_to(addr, t.order("England", "\n".join(NEW), extra="\nThanks!\nBob\n\nSent from my iPhone"))
    assert "[Error Flag]" not in reply.subject and "No errors encountered." in reply.body
    assert "Ignored your sign-off 'Thanks! Bob'." in reply.body
    assert "Ignored 'Sent from my iPhone' (added by your mail program)." in reply.body
    assert "Ignored your sign-off" in _html(reply)


def test_a_mail_that_is_all_quote_says_so(tmp_path: Path) -> None:
    t, addr, first = _england_with_old_orders(tmp_path)
    t.drop(cm.gmail("en", [], first.body.split("\n"), sender=addr))
    reply = t.reply_to(addr, t.run())
    assert "No commands found in your message" in reply.body
    assert "quoted lines (an earlier message, from 'On Tue, Nov 24, 2026" in " ".join(reply.body.split())
    assert sorted(_orders_in(t.reply_to(addr, t.order("England", "")).body)) == sorted(OLD_LIST)


def test_the_judges_html_mails_copied_as_text_are_not_read_again(tmp_path: Path) -> None:
    """A player copying the judge's reply or report from the HTML view pastes other lines than the
    text part has ("Judge: TEST · Game: tg · Variant: …"); they are the judge's all the same."""
    from judge.mail.incoming import html_to_text
    from judge.mail.newtext import new_text

    t, addr, _ = _england_with_old_orders(tmp_path)
    bad = t.reply_to(addr, t.order("England", "A Yor H"))
    hold_all(t, skip=("England",))
    report = [m for m in t.to(addr) if "Results" in m.subject][-1]
    for mail in (bad, report):
        copied = html_to_text(_html(mail))
        text, ignored = new_text("SIGNON Etg pw1\nF Eng H\n\n" + copied)
        assert text == "SIGNON Etg pw1\nF Eng H", copied
        assert [b.kind for b in ignored] == ["judge"]
        assert ignored[0].lines == sum(1 for l in copied.split("\n") if l.strip())


def test_no_mail_the_judge_sends_is_read_again_when_pasted(tmp_path: Path) -> None:
    """Every kind of mail of a short game (joining notices, game start, replies with errors, HELP,
    LIST, WHOGAME, SUMMARY, HISTORY, press and broadcasts, reminders, late notices, results),
    its text part or its HTML part copied as text, pasted above or below a player's orders
    without quote marks: only the orders are read."""
    from judge.mail.incoming import html_to_text
    from judge.mail.newtext import new_text

    t = Table(tmp_path)
    t.start_game()
    t.send("gm@example.test", "SIGNON Mtg masterpw")
    t.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor\nA Yor H",
            extra="PRESS TO F\nhello - there\nENDPRESS\nBROADCAST\nhi all\nENDPRESS")
    t.send("x@example.test", "HELP\nLIST\nLIST tg\nWHOGAME tg\nSUMMARY tg")
    hold_all(t, skip=("England", "Italy"))
    t.advance(hours=16, minutes=1)  # a reminder
    t.advance(hours=8)  # late notices
    t.advance(hours=12)  # results
    t.send("x@example.test", "HISTORY tg")
    mine = ["SIGNON Etg pw1", "A Lvp - Yor", "F Lon H"]
    seen = set()
    for m in t.mails:
        seen.add(m.subject.split(" - ")[-1].split(" ", 1)[-1])
        for body in (m.body, html_to_text(_html(m))):
            pasted = body.strip("\n").split("\n")
            for full in (pasted + [""] + mine, mine + [""] + pasted):
                text, ignored = new_text("\n".join(full))
                assert [l for l in text.split("\n") if l.strip()] == mine, (m.subject, text)
                assert [b.kind for b in ignored] == ["judge"], (m.subject, ignored)
    assert {"Game Starting", "Reminder", "Results", "orders"} <= seen | {s.split()[-1] for s in seen}, seen


def test_the_judges_output_in_a_press_letter_stays_in_the_letter() -> None:
    from judge.mail.language import parse_commands
    from judge.mail.newtext import new_text

    status = ["Movement orders for Spring of 1901. (tg.001)", "", "England: Fleet London -> North Sea.",
              "", "Your orders are complete."]
    body = ["SIGNON Etg pw1", "PRESS TO F", "My orders, as the judge has them:", ""] + status + ["ENDPRESS", "A Lon H"]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == body and ignored == []
    assert parse_commands(text)[1].body.endswith("Your orders are complete.")
    # an earlier message under a letter that runs to the end is still cut (it was never meant to be sent)
    text, ignored = new_text("\n".join(body[:-2] + ["", "Von: J <j@x>", "Gesendet: Di", "", "secret plans"]))
    assert "secret plans" not in text and [b.kind for b in ignored] == ["quote"]
