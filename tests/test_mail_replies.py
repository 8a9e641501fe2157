"""Replies players can read (issue 13 part 5), through the real Maildir path: subjects that do not
grow, what happens to unordered units said per phase, extra builds and orders for a phase that
is over refused at once and by name, attachments named as not read, unknown SET options."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from test_service_helpers import JUDGE, MASTER, Table, hold_all, flat


@pytest.fixture
def table(tmp_path):
    t = Table(tmp_path)
    t.start_game()
    yield t
    t.close()


def active_orders(table: Table, power: str) -> int:
    return table.rows("SELECT count(*) AS n FROM orders o JOIN phases p ON p.id = o.phase_id "
                      "WHERE o.power = ? AND o.state = 'active' AND p.state = 'open'", (power,))[0]["n"]


def test_reply_subjects_do_not_grow(table: Table) -> None:
    eng = table.powers["England"]
    subject = "orders"
    seen = []
    for _ in range(5):  # a player answering the judge's answer, again and again
        out = table.send(eng, table.signon("England") + "\nF Lon - Nth", subject=f"Re: {subject}")
        subject = table.reply_to(eng, out).subject
        seen.append(subject)
    assert set(seen) == {"Re: TEST:tg - S1901M orders"}
    # an error flag comes and goes without piling up either
    out = table.send(eng, table.signon("England") + "\nF Lon - Xyz", subject=f"AW: {subject}")
    flagged = table.reply_to(eng, out).subject
    assert flagged == "Re: [Error Flag] TEST:tg - S1901M orders"
    out = table.send(eng, table.signon("England") + "\nF Lon - Nth", subject=f"Re: {flagged}")
    assert table.reply_to(eng, out).subject == "Re: TEST:tg - S1901M orders"


def test_replying_to_a_results_mail_keeps_one_tag(table: Table) -> None:
    hold_all(table)
    eng = table.powers["England"]
    results = [m for m in table.mails if m.subject.endswith("S1901M Results")][0]
    out = table.send(eng, table.signon("England"), subject=f"Re: {results.subject}")
    # the answer reads as the answer to England's mail, not as the results again
    assert table.reply_to(eng, out).subject == "Re: TEST:tg - F1901M Answer to your commands"


def test_movement_status_says_unordered_units_hold(table: Table) -> None:
    eng = table.powers["England"]
    out = table.order("England", "F Lon - Nth")
    assert "Unordered units hold." in flat(table.reply_to(eng, out).body)


def test_retreat_status_says_unordered_dislodged_units_disband(table: Table) -> None:
    table.order("Germany", "A Mun - Tyr\nA Ber H\nF Kie H")
    hold_all(table, skip=("Germany",))
    assert table.phase() == "F1901M"
    table.order("Austria", "A Vie - Tyr\nA Bud H\nF Tri H")
    table.order("Italy", "A Ven S A Vie - Tyr\nA Rom H\nF Nap H")
    hold_all(table, skip=("Austria", "Italy"))
    assert table.phase() == "F1901R"
    ger = table.powers["Germany"]
    out = table.send(ger, table.signon("Germany"))
    body = flat(table.reply_to(ger, out).body)
    assert "Unordered dislodged units disband." in body and "Unordered units hold." not in body
    # "Fall 1901:" as a heading in the retreat phase means the retreats, not the movement that is over
    out = table.send(ger, table.signon("Germany") + "\nSET WAIT\nFall 1901:\nA Tyr - Boh")
    reply = table.reply_to(ger, out)
    assert "[Error Flag]" not in reply.subject, reply.body
    assert active_orders(table, "Germany") == 1


def to_winter_with_one_english_build(table: Table) -> None:
    table.order("England", "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor")
    hold_all(table, skip=("England",))
    table.order("England", "F Nth - Nwy\nF Nwg H\nA Yor H")
    hold_all(table, skip=("England",))
    assert table.phase() == "W1901A"


def test_builds_beyond_the_number_due_are_refused_at_once(table: Table) -> None:
    to_winter_with_one_english_build(table)
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nSET WAIT\nBuild A Lon\nBuild F Edi\nBuild A Lvp")
    reply = table.reply_to(eng, out)
    body = flat(reply.body)
    assert "[Error Flag]" in reply.subject
    assert body.count("England may build 1 unit this phase") == 2
    assert "this would be build number 2: refused" in body and "this would be build number 3: refused" in body
    assert active_orders(table, "England") == 1  # the first build stands
    assert "Builds not ordered are waived." not in body  # complete: nothing missing
    # a second mail adding a build is refused too, the one given stands
    out = table.send(eng, table.signon("England") + "\nBuild F Edi")
    assert "England may build 1 unit this phase" in flat(table.reply_to(eng, out).body)
    assert active_orders(table, "England") == 1


def test_missing_build_status_says_it_is_waived(table: Table) -> None:
    to_winter_with_one_english_build(table)
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nSET WAIT")
    assert "Builds not ordered are waived." in flat(table.reply_to(eng, out).body)


def test_orders_headed_with_a_phase_that_is_over_are_refused_by_name(table: Table) -> None:
    hold_all(table)
    assert table.phase() == "F1901M"
    fra = table.powers["France"]
    late_mail = "\n".join([table.signon("France"), "", "Spring 1901:", "A Par - Bur", "A Mar - Spa", "F Bre - Mao"])
    out = table.send(fra, late_mail)
    body = flat(table.reply_to(fra, out).body)
    assert "Spring 1901 Movement has already passed: 'tg' is at Fall 1901 Movement now" in body
    assert "these orders are for Spring 1901 Movement, which is over" in body
    assert active_orders(table, "France") == 0
    # PHASE naming a past phase: the orders after it are not given to the current phase either
    out = table.send(fra, table.signon("France") + "\nPHASE S1901M\nA Par - Bur")
    assert "which is over" in flat(table.reply_to(fra, out).body) and active_orders(table, "France") == 0
    # a heading naming the current phase is just a heading
    out = table.send(fra, table.signon("France") + "\n--- Fall 1901 ---\nA Par - Bur")
    reply = table.reply_to(fra, out)
    assert "[Error Flag]" not in reply.subject and active_orders(table, "France") == 1


def test_attachments_are_named_as_not_read(table: Table) -> None:
    eng = table.powers["England"]
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = f"Eng Player <{eng}>", JUDGE, "my orders"
    m["Message-ID"] = "<att-1@outlook.example.test>"
    m.set_content(table.signon("England") + "\nF Lon - Nth\n\nSee attached for the rest.\n")
    m.add_attachment(b"PK\x03\x04 not really a docx", maintype="application",
                     subtype="vnd.openxmlformats-officedocument.wordprocessingml.document", filename="Orders S1901.docx")
    m.add_attachment("A Lvp - Yor\n", filename="orders.txt")
    m.add_attachment(b"%PDF-1.7", maintype="application", subtype="pdf", filename="map.pdf")
    table.drop(bytes(m))
    out = table.run()
    body = flat(table.reply_to(eng, out).body)
    assert "Attachments are not read: Orders S1901.docx, orders.txt, map.pdf." in body
    assert active_orders(table, "England") == 1  # the text was read


def test_apple_mail_attachment_between_text_and_an_inline_logo(table: Table) -> None:
    """Apple Mail: text, the attachment shown inline, more text; a logo inline in a signature."""
    eng = table.powers["England"]
    raw = (f"From: {eng}\r\nTo: {JUDGE}\r\nSubject: orders\r\nMessage-Id: <apple-1@icloud.example.test>\r\n"
           "Mime-Version: 1.0 (Mac OS X Mail 16.0)\r\nContent-Type: multipart/mixed; boundary=\"Apple-Mail=_A\"\r\n\r\n"
           "--Apple-Mail=_A\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
           f"{table.signon('England')}\r\nF Lon - Nth\r\n\r\n"
           "--Apple-Mail=_A\r\nContent-Disposition: inline; filename=\"Spring orders.pdf\"\r\n"
           "Content-Type: application/pdf; name=\"Spring orders.pdf\"\r\nContent-Transfer-Encoding: base64\r\n\r\n"
           "JVBERi0xLjQK\r\n\r\n"
           "--Apple-Mail=_A\r\nContent-Transfer-Encoding: 7bit\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
           "\r\nCheers\r\n\r\n"
           "--Apple-Mail=_A\r\nContent-Disposition: inline; filename=logo.png\r\nContent-Type: image/png; name=logo.png\r\n"
           "Content-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n--Apple-Mail=_A--\r\n")
    table.drop(raw.encode())
    out = table.run()
    body = flat(table.reply_to(eng, out).body)
    assert "Attachments are not read: Spring orders.pdf." in body and "logo.png" not in body


@pytest.mark.parametrize("subject", [
    "Re: TEST:tg - S1901M orders", "AW: Re: TEST:tg - S1901M orders", "SV: TEST:tg - S1901M orders",
    "RE: [Error Flag] TEST:tg - S1901M orders", "TR: Re: TEST:tg - F1901M orders", "RV: WG: TEST:tg orders",
    "Antw: Re: Re: TEST:tg - S1901M orders",
])
def test_reply_subject_in_every_language_keeps_one_tag(table: Table, subject: str) -> None:
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England"), subject=subject)
    assert table.reply_to(eng, out).subject == "Re: TEST:tg - S1901M orders"


def test_unknown_set_option_is_unknown_not_master_only(table: Table) -> None:
    eng = table.powers["England"]
    out = table.send(eng, table.signon("England") + "\nSET COLOUR blue")
    body = flat(table.reply_to(eng, out).body)
    assert "unknown SET option 'COLOUR'" in body and "only the game master" not in body
    assert "WAIT" in body and "DEADLINE" in body and "PASSWORD" in body and "MAP" in body
    # every master word of the other commands is known (SET MAP came with the results map, SET
    # CALENDAR with 1885's calendar switch): a player is told they are the master's, not unknown
    from judge.game.lifecycle import OPTION_WORDS

    for word in ("MAP PNG", "CALENDAR build_months", "CONVOY_PARADOX 1971", *(f"{w} x" for w in OPTION_WORDS)):
        out = table.send(eng, table.signon("England") + f"\nSET {word}")
        body = flat(table.reply_to(eng, out).body)
        assert "only the game master" in body and "unknown SET option" not in body, word
    # master-only options are still the master's
    out = table.send(eng, table.signon("England") + "\nSET DEADLINE +2d")
    assert "only the game master" in table.reply_to(eng, out).body
    out = table.send(MASTER, "SIGNON Mtg masterpw\nSET FROBNICATE 3")
    assert "unknown SET option 'FROBNICATE'" in table.reply_to(MASTER, out).body
