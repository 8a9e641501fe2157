"""Nothing the player wrote is dropped silently, in any language, through the real mail path:
the Maildir judge (``run_once``, and ``judge serve --maildir --once`` as a process), the pipe
(``judge deliver``) and ``Judge.receive`` under generated mails.

Every non-blank line of the new text ends up in the reply as a command, an order, a note or an
error (:func:`assert_every_line_answered`); a property test checks it on generated mails
(orders, commands, junk, quotes, signatures, phone lines, blank lines, invisible characters).
"""

from __future__ import annotations

import email
import mailbox
import os
import re
import subprocess
import sys
import tempfile
from email import policy
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import client_mails as cm
from judge.mail.handler import echo_line
from judge.mail.language import parse_commands
from judge.mail.newtext import new_text, one_quote_note
from judge.orders.lexer import order_lines
from test_service_helpers import JUDGE, Mail, Table

OLD = ["F Lon - Eng", "F Edi - Nth", "A Lvp - Wal"]
NEW = ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]
OLD_LIST = {"England: Fleet London -> English Channel.", "England: Fleet Edinburgh -> North Sea.",
            "England: Army Liverpool -> Wales."}
NEW_LIST = {"England: Fleet London -> North Sea.", "England: Fleet Edinburgh -> Norwegian Sea.",
            "England: Army Liverpool -> Yorkshire."}
NEW_LANGS = ("pl", "fi", "cs", "ru", "ja", "zh")


def _orders_in(body: str) -> set[str]:
    return {l for l in body.split("\n") if l.startswith("England: ")}


def _flat(s: str) -> str:
    return " ".join(s.split())


def assert_every_line_answered(body: str, reply: str) -> None:
    """Each line of the new text is in the reply: a command or an order echoed ("> line", a
    password hidden), a block left out named in a note; lines after an error that stops the
    mail are named as not read. (Quoted blocks are named in one note, as the reply does.)"""
    text, ignored = new_text(body)
    flat = _flat(reply)
    for b in one_quote_note(ignored):
        assert _flat(b.describe()) in flat, (b.describe(), reply)
    cmds = parse_commands(text)
    for k, cmd in enumerate(cmds):
        if cmd.name == "ORDER":  # as written, or as the order reader echoes it (no list marker, no "# comment")
            wants = ["> " + cmd.line, "> " + next(order_lines(cmd.line), cmd.line).strip()]
        else:
            wants = ["> " + echo_line(cmd, 10 ** 6)]
        if not any(_flat(w) in flat for w in wants):
            want = wants[0]
            rest = cmds[k:]
            assert re.search(r"Not read after the error above: \d+ more lines?, from ", reply) and any(
                c is cmd for c in rest), (want, reply)
            return
        if cmd.name == "SIGNOFF" and cmd.unread:
            assert f"Not read after SIGNOFF: {len(cmd.unread)} more" in reply, reply


def _game(tmp: Path) -> tuple[Table, str]:
    t = Table(tmp)
    t.start_game()
    addr = t.powers["England"]
    first = t.reply_to(addr, t.order("England", "\n".join(OLD)))
    assert _orders_in(first.body) == OLD_LIST
    return t, addr


def _quoted_reply(t: Table, addr: str) -> list[str]:
    """What a reply quotes: the judge's answer to the old orders, over the player's old mail."""
    first = [m for m in t.to(addr) if m.subject.startswith("Re:")][-1]
    return first.body.split("\n") + ["", t.signon("England")] + OLD


# -- client replies in Polish, Finnish, Czech, Russian, Japanese and Chinese ---------------------------


@pytest.mark.parametrize("lang", NEW_LANGS)
def test_outlook_replies_in_other_languages_apply_only_the_new_orders(tmp_path: Path, lang: str) -> None:
    t, addr = _game(tmp_path)
    old = _quoted_reply(t, addr)
    builders = [lambda n, o: cm.outlook_desktop(lang, n, o, sender=addr),
                lambda n, o: cm.outlook_desktop(lang, n, o, separator=True, sender=addr),
                lambda n, o: cm.outlook_web(lang, n, o, sender=addr),
                lambda n, o: cm.gmail(lang, n, o, sender=addr),
                lambda n, o: cm.thunderbird(lang, n, o, sender=addr),
                lambda n, o: cm.ios_mail(lang, n, o, sender=addr)]
    for build in builders:
        t.drop(build([t.signon("England")] + NEW, old))
        reply = t.reply_to(addr, t.run())
        assert _orders_in(reply.body) == NEW_LIST, reply.body
        assert "[Error Flag]" not in reply.subject and "No errors encountered." in reply.body
        assert "quoted lines (an earlier message" in _flat(reply.body)
        t.order("England", "\n".join(OLD))  # the old orders again, for the next client


def test_a_polish_outlook_reply_with_sign_off_and_phone_line(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    new = [t.signon("England")] + NEW + ["", "Pozdrawiam,", "Łukasz", "", "Wysłane z iPhone'a"]
    t.drop(cm.outlook_desktop("pl", new, _quoted_reply(t, addr), sender=f"Łukasz <{addr}>"))
    reply = t.reply_to(addr, t.run())
    assert _orders_in(reply.body) == NEW_LIST
    flat = _flat(reply.body)
    assert "Ignored your sign-off 'Pozdrawiam, Łukasz'." in flat
    assert "Ignored 'Wysłane z iPhone'a' (added by your mail program)." in flat
    assert "quoted lines (an earlier message, from 'Od: The Judge <judge@example.test>')" in flat
    assert "[Error Flag]" not in reply.subject


# -- no silent drops -------------------------------------------------------------------------------------


def test_orders_under_a_line_of_underscores_are_read(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join([t.signon("England"), NEW[0], "", "_" * 32, "", NEW[1], NEW[2], "", "Bob"])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(reply.body) == NEW_LIST, reply.body
    assert f"Ignored a separator line '{'_' * 32}'." in reply.body
    assert "Ignored your name 'Bob' at the end." in reply.body
    assert_every_line_answered(body, reply.body)


@pytest.mark.parametrize("invisible", ["\ufeff", "\u200b", "\u200e", "\u2066", "\u00ad"])
def test_invisible_characters_lose_no_orders(tmp_path: Path, invisible: str) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join([invisible + t.signon("England")] + [invisible + o.replace(" ", " " + invisible, 1) for o in NEW])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(reply.body) == NEW_LIST, reply.body
    assert "[Error Flag]" not in reply.subject


def test_fullwidth_orders_are_read(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else "\u3000" if c == " " else c
                   for c in "\n".join([t.signon("England")] + NEW))
    reply = t.reply_to(addr, t.send(addr, wide))
    assert _orders_in(reply.body) == NEW_LIST, reply.body


def test_orders_above_signon_are_read_for_the_power(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join(NEW[:2] + ["", t.signon("England"), NEW[2]])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(reply.body) == NEW_LIST, reply.body
    assert "The 2 order lines above your SIGNON are read as England's:" in reply.body
    assert "[Error Flag]" not in reply.subject
    assert_every_line_answered(body, reply.body)


def test_a_greeting_above_signon_is_a_note_not_an_order(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join(["Cześć,", "", NEW[0], t.signon("England"), NEW[1], NEW[2], "", "Dzięki!", "Łukasz"])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(reply.body) == NEW_LIST, reply.body
    assert "Ignored your greeting 'Cześć,'." in reply.body and "Ignored your sign-off 'Dzięki! Łukasz'." in reply.body
    assert "[Error Flag]" not in reply.subject
    assert_every_line_answered(body, reply.body)


def test_orders_above_a_failed_signon_and_after_it_are_named(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join(NEW[:2] + ["SIGNON Etg wrongpassword", NEW[2], "SET WAIT"])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(t.reply_to(addr, t.order("England", "")).body) == OLD_LIST  # nothing changed
    assert "Not read after the error above: 2 more lines, from 'A Lvp - Yor'." in reply.body
    assert "> F Lon - Nth" in reply.body and "> F Edi - Nwg" in reply.body
    assert "the 2 order lines above your SIGNON were not read" in reply.body
    assert_every_line_answered(body, reply.body)


def test_remarks_the_order_reader_passes_over_are_named(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join([t.signon("England"), "On to Munich, as I wrote:", NEW[0], "# the fleets:", NEW[1], NEW[2]])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(reply.body) == NEW_LIST
    assert "> On to Munich, as I wrote:\n> # the fleets:\n  Note: these lines are not read as orders (a remark)" in (
        reply.body)
    assert_every_line_answered(body, reply.body)


def test_lines_after_signoff_are_named(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join([t.signon("England"), NEW[0], "SIGNOFF", "", NEW[1], "SET WAIT"])
    reply = t.reply_to(addr, t.send(addr, body))
    assert "Not read after SIGNOFF: 2 more lines, from 'F Edi - Nwg'." in reply.body
    assert "England: Fleet London -> North Sea." in reply.body and "Norwegian" not in reply.body
    assert_every_line_answered(body, reply.body)


def test_orders_with_no_signon_are_each_named(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join(NEW)
    reply = t.reply_to(addr, t.send(addr, body))
    assert "Signon command not encountered" in reply.body
    assert_every_line_answered(body, reply.body)


def test_an_inline_pgp_signed_mail_applies_its_orders(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join(["-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "", t.signon("England")] + NEW
                     + ["- -- ", "Bob", "-----BEGIN PGP SIGNATURE-----", "", "iQEzBAEBCAAdFiEEqNvR0gT1C9F8",
                        "=Jt1x", "-----END PGP SIGNATURE-----"])
    reply = t.reply_to(addr, t.send(addr, body))
    assert _orders_in(reply.body) == NEW_LIST
    assert "[Error Flag]" not in reply.subject
    assert "of PGP armour" in reply.body and "Ignored your signature (1 line after '-- ')." in reply.body
    assert_every_line_answered(body, reply.body)


def test_a_pasted_reply_with_the_new_notes_is_not_read_again(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    body = "\n".join([NEW[0], t.signon("England"), "# remark", "_" * 20, NEW[1], "SIGNOFF", "A Yor H", "", "Bob"])
    first = t.reply_to(addr, t.send(addr, body))
    for note in ("Ignored a separator line", "Ignored your name 'Bob'", "The 1 order line above your SIGNON",
                 "not read as an order (a remark)", "Not read after SIGNOFF: 1 more line"):
        assert note in first.body, first.body
    pasted = first.body.strip("\n").split("\n")
    for full in ([t.signon("England"), NEW[2], ""] + pasted, pasted + ["", t.signon("England"), NEW[2]]):
        reply = t.reply_to(addr, t.send(addr, "\n".join(full)))
        assert "[Error Flag]" not in reply.subject, reply.body
        assert "lines of the judge's own earlier mail" in reply.body


# -- PHASE as a heading ---------------------------------------------------------------------------------


@pytest.mark.parametrize("phase,said", [("PHASE Fall 1901", "Orders below are for Fall 1901 Movement."),
                                        ("PHASE fall 1901 movement", "Orders below are for Fall 1901 Movement."),
                                        ("Fall 1901:", "Orders below are for Fall 1901 Movement."),
                                        ("PHASE Spring 1902 Retreat", "Orders below are for Spring 1902 Retreat."),
                                        ("PHASE Spring 1901", "Orders below are for the current phase, "
                                                              "Spring 1901 Movement.")])
def test_phase_reads_like_a_heading(tmp_path: Path, phase: str, said: str) -> None:
    t, addr = _game(tmp_path)
    reply = t.reply_to(addr, t.order("England", f"{phase}\nF Lon - Nth"))
    assert said in reply.body, reply.body
    assert "[Error Flag]" not in reply.subject


# -- the subject does not grow ----------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["回复: ", "答复：", "返信: 転送: ", "R: RIF: ", "I: ", "Ynt: ", "Vá: ", "Ответ: Отв: ",
                                    "Re[2]: ", "Svar: SV: VS: ", "AW: WG: ", "Antw: Odp: TR: Rif.: ", "Fwd: Fw: "])
def test_reply_prefixes_in_other_languages_do_not_make_the_subject_grow(tmp_path: Path, prefix: str) -> None:
    t, addr = _game(tmp_path)
    first = t.reply_to(addr, t.order("England", "\n".join(NEW)))
    again = t.reply_to(addr, t.send(addr, t.signon("England") + "\n" + "\n".join(NEW), subject=prefix + first.subject))
    assert again.subject == first.subject == "Re: TEST:tg - S1901M orders"


# -- the other doors: `judge serve --maildir --once`, `judge deliver` -------------------------------------


def test_judge_serve_maildir_once(tmp_path: Path) -> None:
    t, addr = _game(tmp_path)
    old = _quoted_reply(t, addr)
    t.close()
    mails = [cm.outlook_desktop("ja", [t.signon("England")] + NEW, old, sender=addr),
             ("From: " + addr + "\r\nTo: " + JUDGE + "\r\nSubject: =?utf-8?b?5Zue5aSNOiBvcmRlcnM=?=\r\n"
              "Message-ID: <bom-serve@x>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Content-Transfer-Encoding: 8bit\r\n\r\n\ufeff" + t.signon("England") + "\r\n" + NEW[0]
              + "\r\n________________________________\r\n" + NEW[1] + "\r\n").encode()]
    for raw in mails:
        t.drop(raw)
    run = subprocess.run([sys.executable, "-m", "judge.cli", "serve", "--maildir", str(t.folders.root), "--once",
                          "--db", str(t.cfg.db_path), "--code", "TEST", "--address", JUDGE],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "JUDGE_DB": ""})
    assert run.returncode == 0, run.stderr
    t.reopen()
    replies = [m for m in t.run() if addr in m.to]
    assert len(replies) == 2
    ja, bom = replies
    assert _orders_in(ja.body) == NEW_LIST, ja.body
    assert "quoted lines (an earlier message, from '差出人: The Judge <judge@example.test>')" in _flat(ja.body)
    assert {"England: Fleet London -> North Sea.", "England: Fleet Edinburgh -> Norwegian Sea.",
            "England: Army Liverpool -> Yorkshire."} == _orders_in(bom.body), bom.body
    assert "Ignored a separator line" in bom.body and bom.subject == "Re: TEST:tg - S1901M orders"
    t.close()


def test_judge_deliver(tmp_path: Path) -> None:
    from judge.cli import main

    t, addr = _game(tmp_path)
    raw = cm.gmail("zh", [t.signon("England")] + NEW + ["", "谢谢！", "", "发自我的iPhone"], _quoted_reply(t, addr),
                   sender=addr)
    t.close()
    out = tmp_path / "pipe-out"
    r = CliRunner().invoke(main, ["deliver", "--db", str(t.cfg.db_path), "--outbox-maildir", str(out)], input=raw)
    assert r.exit_code == 0 and "handled" in r.output, r.output
    got = [email.message_from_bytes(m.as_bytes(), policy=policy.default) for m in mailbox.Maildir(str(out))]
    mine = [m for m in got if addr in str(m["To"])]
    assert len(mine) == 1 and "[Error Flag]" not in str(mine[0]["Subject"])
    text = mine[0].get_body(("plain",)).get_content()  # type: ignore[union-attr]
    assert _orders_in(text) == NEW_LIST, text
    flat = _flat(text)
    assert "Ignored your sign-off '谢谢!'." in flat and "Ignored '发自我的iPhone' (added by your mail program)." in flat
    assert "quoted lines (an earlier message, from 'The Judge <judge@example.test>" in flat


# -- the invariant, on generated mails through Judge.receive ---------------------------------------------

_BLOCKS = [
    ["", "Od: The Judge <judge@example.test>", "Wysłano: wtorek, 24 listopada 2026 10:00", "Do: Bob <p@x.test>",
     "Temat: orders", "", "F Lon - Eng"],
    ["", "_" * 32, "差出人: The Judge <judge@example.test>", "送信日時: 2026年11月24日 10:00", "宛先: Bob",
     "件名: orders", "", "A Lvp - Wal"],
    ["", "вт, 24 нояб. 2026 г. в 10:00, The Judge <judge@example.test>:", "> F Lon - Eng"],
    ["", "-----原始邮件-----", "F Edi - Nth"],
    ["", "-- ", "Bob Player"],
    ["", "Wysłane z iPhone'a"], ["iPhoneから送信"], ["Terveisin", "Matti"], ["Bob"],
    ["_" * 32], ["-----"], ["-----BEGIN PGP SIGNATURE-----", "iQEz", "-----END PGP SIGNATURE-----"],
]
_LINES = st.sampled_from(["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor", "A Lvp H", "F Lon - Mos", "A Yor - Lon",
                          "SET WAIT", "SET NOWAIT", "Fall 1901:", "PHASE Fall 1901", "hello there",
                          "I think we should talk", "Bur", "", "", "CLEAR", "SIGNON Etg wrongpw", "A Mun - Ber",
                          "# a comment", "On to Munich, as I wrote:", "A Lvp H # hold", "1. F Lon - Nth",
                          "SIGNOFF"])
_INVISIBLE = st.sampled_from(["", "", "\u200b", "\ufeff", "\u200e", "\u202b", "\u00ad", "\u2060"])


@st.composite
def _mails(draw: st.DrawFn) -> list[tuple[str, str, int]]:
    """Lines (``{signon}`` for England's SIGNON), each with an invisible character and where it goes."""
    body: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        body.append(draw(_LINES))
    body.append("{signon}")
    for _ in range(draw(st.integers(0, 10))):
        if draw(st.integers(0, 5)) == 0:
            body += draw(st.sampled_from(_BLOCKS))
        else:
            body.append(draw(_LINES))
    return [(line, draw(_INVISIBLE), draw(st.integers(0, 100))) for line in body]


_TABLE: list[tuple[Table, str]] = []


def _shared_game() -> tuple[Table, str]:
    """One game for all examples (a game is slow to start); no limit trips on thousands of mails."""
    if not _TABLE:
        t = Table(Path(tempfile.mkdtemp(prefix="judge-invariant-")), same_body_limit=10 ** 6, reply_limit=10 ** 6,
                  seat_failures=10 ** 6, sender_failures=10 ** 6)
        t.start_game()
        _TABLE.append((t, t.powers["England"]))
    return _TABLE[0]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=_mails())
@example(lines=[("{signon}", "", 0), ("", "", 0),  # two quoted blocks: one note, "in 2 places"
                ("вт, 24 нояб. 2026 г. в 10:00, The Judge <judge@example.test>:", "", 0), ("> F Lon - Eng", "", 0),
                ("F Lon - Nth", "", 0), ("", "", 0),
                ("вт, 24 нояб. 2026 г. в 10:00, The Judge <judge@example.test>:", "", 0), ("> F Lon - Eng", "", 0)])
def test_every_line_of_a_generated_mail_is_answered(lines: list[tuple[str, str, int]]) -> None:
    t, addr = _shared_game()
    written = []
    for line, mark, at in lines:
        line = line.replace("{signon}", t.signon("England"))
        at = min(at, len(line))
        written.append(line[:at] + mark + line[at:])
    body = "\n".join(written)
    t.n += 1
    result = t.judge.receive(t.raw(addr, body), now=t.now)
    assert result == "handled", result
    replies = [m for m in t.run() if addr in m.to]
    assert len(replies) == 1
    assert_every_line_answered(body, replies[0].body)


def test_lines_above_signon_in_an_empires_in_arms_game(tmp_path: Path) -> None:
    from test_eia_service import addr, setup_game

    t = Table(tmp_path)
    setup_game(t, team=1)
    body = "BUILD 3 AT Toulon\nSIGNON Feg pwFrance1\nFLY TO THE MOON"
    reply = t.reply_to(addr("France"), t.send(addr("France"), body))
    assert "The 1 order line above your SIGNON is read as France's:" in reply.body
    assert "accepted for this month: France: BUILD 3 AT Toulon" in reply.body
    assert "unknown command 'FLY'" in reply.body
    t.close()
