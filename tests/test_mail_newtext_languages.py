"""The new text of a mail in every language and script, with nothing dropped silently.

Earlier messages are recognised by their shape (a header block of "Label: value" lines holding
an address and a date; an attribution ending in a colon with a date and an address or a verb),
with tables of words only as a second signal; phone lines, sign-offs, PGP armour and separators
are notes; the text is read normalised (invisible format characters removed, NFKC). Whole client
replies in these languages (MIME, code pages, HTML) are in tests/test_mail_newtext.py through
tests/client_mails.py; the mail path in tests/test_service_newtext_languages.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge.mail.incoming import clean_subject, parse_message
from judge.mail.language import parse_commands
from judge.mail.newtext import header_block, new_text, normalise

NEW = ["SIGNON Etg pw1", "F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"]
OLD = ["SIGNON Etg pw1", "F Lon - Eng", "F Edi - Nth", "A Lvp - Wal"]

# Outlook's header block as each language edition writes it (labels, date), and blocks whose
# labels are in no table of the judge's (Hungarian, Korean, Swahili, Turkish): the shape alone
HEADER_BLOCKS = {
    "pl": ["Od: The Judge <judge@example.test>", "Wysłano: wtorek, 24 listopada 2026 10:00",
           "Do: Bob Player <p1@example.test>", "Temat: TEST:tg - S1901M orders"],
    "fi": ["Lähettäjä: The Judge <judge@example.test>", "Lähetetty: tiistai 24. marraskuuta 2026 10.00",
           "Vastaanottaja: Bob Player <p1@example.test>", "Aihe: TEST:tg - S1901M orders"],
    "cs": ["Od: The Judge <judge@example.test>", "Odesláno: úterý 24. listopadu 2026 10:00",
           "Komu: Bob Player <p1@example.test>", "Předmět: TEST:tg - S1901M orders"],
    "ru": ["От: The Judge <judge@example.test>", "Отправлено: 24 ноября 2026 г. 10:00",
           "Кому: Bob Player <p1@example.test>", "Тема: TEST:tg - S1901M orders"],
    "ja": ["差出人: The Judge <judge@example.test>", "送信日時: 2026年11月24日 10:00",
           "宛先: Bob Player <p1@example.test>", "件名: TEST:tg - S1901M orders"],
    "zh": ["发件人: The Judge <judge@example.test>", "发送时间: 2026年11月24日 10:00",
           "收件人: Bob Player <p1@example.test>", "主题: TEST:tg - S1901M orders"],
    # Foxmail and QQ Mail: the fullwidth colon, no space after it, the weekday in brackets
    "zh-foxmail": ["发件人：\"The Judge\"<judge@example.test>", "发送时间：2026年11月24日(星期二) 上午10:00",
                   "收件人：\"Bob\"<p1@example.test>", "主题：TEST:tg - S1901M orders"],
    "zh-tw": ["寄件者: The Judge <judge@example.test>", "寄件日期: 2026年11月24日 上午 10:00",
              "收件者: Bob Player <p1@example.test>", "主旨: TEST:tg - S1901M orders"],
    "hu": ["Feladó: The Judge <judge@example.test>", "Elküldve: 2026. november 24. 10:00",
           "Címzett: Bob Player <p1@example.test>", "Tárgy: TEST:tg - S1901M orders"],
    "ko": ["보낸 사람: The Judge <judge@example.test>", "보낸 날짜: 2026년 11월 24일 화요일 오전 10:00",
           "받는 사람: Bob Player <p1@example.test>", "제목: TEST:tg - S1901M orders"],
    "sw": ["Kutoka: The Judge <judge@example.test>", "Imetumwa: Jumanne, 24 Novemba 2026 10:00",
           "Kwa: Bob Player <p1@example.test>", "Mada: TEST:tg - S1901M orders"],
    "tr": ["Kimden: The Judge <judge@example.test>", "Gönderildi: 24 Kasım 2026 Salı 10:00",
           "Kime: Bob Player <p1@example.test>", "Konu: TEST:tg - S1901M orders", "Önem: Yüksek"],
}


@pytest.mark.parametrize("lang", sorted(HEADER_BLOCKS))
@pytest.mark.parametrize("above", [[], ["_" * 32], ["-----Original Message-----"], ["", "_" * 32]])
def test_a_header_block_in_any_language_ends_the_new_text(lang: str, above: list[str]) -> None:
    block = HEADER_BLOCKS[lang]
    text, ignored = new_text("\n".join(NEW + [""] + above + block + [""] + OLD))
    assert text.split("\n") == NEW
    assert len(ignored) == 1 and ignored[0].kind == "quote"
    assert ignored[0].lines == sum(1 for l in above + block + OLD if l.strip())
    marker = above[-1] if above and "Original" in above[-1] else normalise(block[0])
    assert ignored[0].marker == marker


@pytest.mark.parametrize("separator", [
    "-----Wiadomość oryginalna-----", "-----Alkuperäinen viesti-----", "-----Původní zpráva-----",
    "-----Исходное сообщение-----", "-----元のメッセージ-----", "-----原始邮件-----", "-----原始郵件-----",
    "-------- Original Message --------", "------- Original Message -------",
    "\u2010" * 7 + " Original Message " + "\u2010" * 7,  # Proton Mail: U+2010 hyphens
    "---------- Forwarded message ---------", "---------- Wiadomość przekazana dalej ---------",
    "---------- Пересылаемое сообщение ----------",
])
def test_original_message_separators_in_other_languages(separator: str) -> None:
    text, ignored = new_text("\n".join(NEW + ["", separator] + OLD))
    assert text.split("\n") == NEW
    assert [b.kind for b in ignored] in (["quote"], ["forward"])
    assert ignored[0].lines == len(OLD) + 1 and ignored[0].marker == separator


@pytest.mark.parametrize("line", ["Begin forwarded message:", "Początek przekazywanej wiadomości:",
                                  "Välitetty viesti alkaa:", "Začátek přeposílané zprávy:",
                                  "Начало переадресованного сообщения:", "転送されたメッセージ:", "转发的邮件:"])
def test_apple_mail_forwards_in_other_languages(line: str) -> None:
    text, ignored = new_text("\n".join(NEW + ["", line, ""] + ["> " + l for l in OLD]))
    assert text.split("\n") == NEW and [b.kind for b in ignored] == ["forward"]


def test_a_thunderbird_forward_with_words_in_no_table_is_cut_by_its_header_block() -> None:
    block = ["-------- Перенаправленное сообщение --------", "Тема:\tRe: orders",
             "Дата:\tTue, 24 Nov 2026 10:00:00 +0000", "От:\tThe Judge <judge@example.test>", "Кому:\tBob"]
    text, ignored = new_text("\n".join(NEW + [""] + block + [""] + OLD))
    assert text.split("\n") == NEW
    assert [b.kind for b in ignored] == ["quote"] and ignored[0].marker == block[1]
    assert ignored[0].lines == len(block) + len(OLD)


def test_proton_mail_reply_with_its_hyphens_and_attribution() -> None:
    body = NEW + ["", "Sent with Proton Mail secure email.", "", "\u2010" * 7 + " Original Message " + "\u2010" * 7,
                  "On Tuesday, November 24th, 2026 at 10:00, The Judge <judge@example.test> wrote:", ""] + [
                     "> " + l for l in OLD]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == NEW
    assert [b.kind for b in ignored] == ["device", "quote"]


ATTRIBUTIONS = [
    # Gmail
    "W dniu wt., 24 lis 2026 o 10:00 The Judge <judge@example.test> napisał(a):",
    "The Judge (judge@example.test) kirjoitti ti 24.11.2026 klo 10.00:",
    "út 24. 11. 2026 v 10:00 odesílatel The Judge <judge@example.test> napsal:",
    "вт, 24 нояб. 2026 г. в 10:00, The Judge <judge@example.test>:",
    "2026年11月24日(火) 10:00 The Judge <judge@example.test>:",
    "The Judge <judge@example.test> 于2026年11月24日周二 10:00写道：",
    # Thunderbird
    "W dniu 24.11.2026 o 10:00, The Judge pisze:",
    "The Judge kirjoitti 24.11.2026 klo 10.00:",
    "Dne 24. 11. 26 v 10:00 The Judge napsal(a):",
    "24.11.2026 10:00, The Judge пишет:",
    "2026/11/24 10:00 に The Judge さんは書きました:",
    "在 2026/11/24 10:00, The Judge 写道:",
    # Apple Mail, Yandex, others
    "Wiadomość napisana przez The Judge <judge@example.test> w dniu 24.11.2026, o godz. 10:00:",
    "24 нояб. 2026 г., в 10:00, The Judge <judge@example.test> написал(а):",
    "2026/11/24 10:00、The Judge <judge@example.test>のメール:",
    "2026年11月24日 10:00，The Judge <judge@example.test> 写道：",
    "24.11.2026, 10:00, \"The Judge\" <judge@example.test>:",
    "The Judge <judge@example.test> 於 2026年11月24日 週二 上午10:00 寫道：",
    # Gmail in Korean, Turkish, Hungarian, Greek, Arabic and Hebrew (with the direction marks it writes)
    "2026년 11월 24일 (화) 오전 10:00, The Judge <judge@example.test>님이 작성:",
    "The Judge <judge@example.test>, 24 Kas 2026 Sal, 10:00 tarihinde şunu yazdı:",
    "The Judge <judge@example.test> ezt írta (időpont: 2026. nov. 24., K, 10:00):",
    "Στις Τρί 24 Νοε 2026 στις 10:00, ο/η The Judge <judge@example.test> έγραψε:",
    "\u200fفي الثلاثاء، 24 نوفمبر 2026 10:00 ص \u202aThe Judge\u202c \u200f<\u202ajudge@example.test\u202c> كتب:",
    "\u200fفي 24/11/2026 10:00، كتب The Judge:",  # Thunderbird in Arabic: no address
    "\u200f\u202bבתאריך יום ג׳, 24 בנוב׳ 2026 ב-10:00 מאת \u202aThe Judge\u202c\u200f <\u202a"
    "judge@example.test\u202c\u200f>:\u202c",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS)
@pytest.mark.parametrize("marks", [True, False])
def test_attributions_in_other_languages_and_scripts(attribution: str, marks: bool) -> None:
    old = ["> " + l for l in OLD] if marks else OLD
    text, ignored = new_text("\n".join(NEW + ["", attribution] + old))
    assert text.split("\n") == NEW
    assert [b.kind for b in ignored] == ["quote"]
    assert ignored[0].lines == len(OLD) + 1 and ignored[0].marker == normalise(attribution)


def test_bottom_posting_under_a_russian_attribution_keeps_the_new_text() -> None:
    body = ["SIGNON Etg pw1", "", "24.11.2026 10:00, The Judge пишет:"] + ["> " + l for l in OLD[1:]] + NEW[1:]
    text, ignored = new_text("\n".join(body))
    assert [l for l in text.split("\n") if l.strip()] == NEW


@pytest.mark.parametrize("device", [
    "Wysłane z iPhone'a", "Wysłane z mojego smartfona Galaxy", "Lähetetty iPhonesta", "Lähetetty Android-laitteesta",
    "Odesláno z iPhonu", "Отправлено с iPhone", "Отправлено из мобильной Почты Mail.ru", "iPhoneから送信",
    "発信元 iPhone から送信", "发自我的iPhone", "發自我的 iPhone", "Von meinem iPhone gesendet",
    "Envoyé de mon iPhone", "Sent from Gmail Mobile", "Sendt fra min iPhone", "Enviado do meu iPhone",
    "Pobierz aplikację Outlook dla systemu Android", "Получите Outlook для iOS", "iOS 版 Outlook を入手",
])
def test_phone_lines_in_other_languages_are_notes(device: str) -> None:
    text, ignored = new_text("\n".join(NEW + ["", device]))
    assert text.split("\n") == NEW
    assert [b.describe() for b in ignored] == [f"Ignored '{normalise(device)}' (added by your mail program)."]
    text, ignored = new_text("\n".join(NEW[:2] + [device] + NEW[2:]))  # the orders under it are read
    assert text.split("\n") == NEW and [b.kind for b in ignored] == ["device"]


@pytest.mark.parametrize("signoff", [
    "Thanks!", "Cheers", "Pozdrawiam,\nBob", "Pozdrawiam serdecznie\nŁukasz", "Dzięki!", "Terveisin\nMatti",
    "Kiitos", "S pozdravem\nJan Novák", "Díky", "С уважением,\nИван", "Спасибо!", "よろしくお願いします。",
    "ありがとうございます", "谢谢！", "祝好\n小明", "Med vennlig hilsen\nOla", "Üdvözlettel,\nPéter",
    "Saygılarımla", "Abraços, Bob",
])
def test_sign_offs_in_other_languages_are_notes(signoff: str) -> None:
    text, ignored = new_text("\n".join(NEW + ["", signoff]))
    assert text.split("\n") == NEW
    assert [b.kind for b in ignored] == ["signoff"]
    assert ignored[0].describe() == f"Ignored your sign-off '{' '.join(normalise(signoff).split())}'."


@pytest.mark.parametrize("name", ["Bob", "- Bob", "—Bob", "Łukasz", "Юрий", "Jean-Luc", "B.", "太郎", "小明"])
def test_a_bare_first_name_as_the_last_line_is_a_note(name: str) -> None:
    text, ignored = new_text("\n".join(NEW + ["", name]))
    assert text.split("\n") == NEW
    assert [b.describe() for b in ignored] == [f"Ignored your name '{name}' at the end."]


@pytest.mark.parametrize("last", ["HOLD", "Hold", "waive", "LON", "F Lon H", "A Lon - Nth", "SET WAIT", "Yes",
                                  "ENDPRESS"])
def test_a_last_line_that_is_no_name_stays(last: str) -> None:
    text, ignored = new_text("\n".join(NEW + [last]))
    assert text.split("\n") == NEW + [last] and ignored == []


def test_a_name_is_only_a_name_under_the_players_text() -> None:
    assert new_text("Bob") == ("Bob", [])


def test_a_press_letter_keeps_its_closing_name() -> None:
    body = NEW + ["PRESS TO F", "Shall we?", "Bob"]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == body and ignored == []


@pytest.mark.parametrize("greeting", ["Hi judge,", "Hello!", "Dear GM,", "Hallo zusammen!", "Bonjour,", "Hola,",
                                      "Cześć,", "Witam,", "Hei,", "Ahoj,", "Здравствуйте!", "こんにちは", "你好！",
                                      "안녕하세요"])
def test_a_greeting_as_the_first_line_is_a_note(greeting: str) -> None:
    text, ignored = new_text("\n".join([greeting, ""] + NEW))
    assert [l for l in text.split("\n") if l.strip()] == NEW
    assert [b.describe() for b in ignored] == [f"Ignored your greeting '{normalise(greeting)}'."]


@pytest.mark.parametrize("first", ["Hello Etg pw1", "Hi", "Dear Judge: A Lon H", "A Lon H"])
def test_a_first_line_that_is_no_greeting_stays(first: str) -> None:
    body = [first] + NEW[1:] if first != "Hi" else ["Hi"]
    assert new_text("\n".join(body)) == ("\n".join(body), [])


# -- inline PGP -------------------------------------------------------------------------------------

SIGNATURE = ["-----BEGIN PGP SIGNATURE-----", "", "iQEzBAEBCAAdFiEEqNvR0gT1C9F8P3mXkA5kQz0fJ8YFAmdDAYAACgkQkA5kQz0f",
             "J8bL7Af/cHX4m5dXq8k0zqj3nVtY1w==", "=Jt1x", "-----END PGP SIGNATURE-----"]


def test_an_inline_pgp_signed_mail_is_read_and_its_armour_noted() -> None:
    # RFC 4880 7.1: lines starting with a dash are dash-escaped in the signed text
    body = ["-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "", "SIGNON Etg pw1", "F Lon - Nth",
            "- --- Fall 1901 ---", "F Edi - Nwg"] + SIGNATURE
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == ["SIGNON Etg pw1", "F Lon - Nth", "--- Fall 1901 ---", "F Edi - Nwg"]
    assert [b.describe() for b in ignored] == [
        "Ignored 2 lines of PGP armour (from '-----BEGIN PGP SIGNED MESSAGE-----'): PGP signatures are not checked.",
        "Ignored 5 lines of PGP armour (from '-----BEGIN PGP SIGNATURE-----'): PGP signatures are not checked."]


def test_a_signed_mail_with_a_signature_and_a_quote_under_it() -> None:
    body = (["-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA512", ""] + NEW + ["", "- -- ", "Bob"] + SIGNATURE
            + ["", "On Tue, 24 Nov 2026 at 10:00, The Judge <judge@example.test> wrote:"] + ["> " + l for l in OLD])
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == NEW
    assert [b.kind for b in ignored] == ["pgp", "signature", "pgp", "quote"]


def test_an_encrypted_inline_message_is_named() -> None:
    body = NEW + ["", "-----BEGIN PGP MESSAGE-----", "", "hQEMA0x1y2z3AQf/abc", "=abcd", "-----END PGP MESSAGE-----",
                  "A Lvp H"]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == NEW + ["", "A Lvp H"]
    assert [b.describe() for b in ignored] == [
        "Ignored an encrypted PGP message (4 lines): the judge cannot read encrypted mail, send your commands as "
        "plain text."]


# -- separators do not end the mail -------------------------------------------------------------------


@pytest.mark.parametrize("rule", ["_" * 32, "_" * 10, "-" * 40, "=" * 20, "\u2014" * 10, "~~~~~~", "*****"])
def test_a_separator_line_without_a_header_block_is_a_note_and_the_orders_under_it_are_read(rule: str) -> None:
    body = NEW[:2] + ["", rule, ""] + NEW[2:]
    text, ignored = new_text("\n".join(body))
    assert [l for l in text.split("\n") if l.strip()] == NEW
    assert [b.describe() for b in ignored] == [f"Ignored a separator line '{rule}'."]


def test_a_separator_in_a_press_letter_stays_in_the_letter() -> None:
    body = ["SIGNON Etg pw1", "PRESS TO F", "Plans:", "_" * 20, "Bur", "ENDPRESS", "_" * 20, "A Lvp H"]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == body[:6] + ["A Lvp H"]
    assert [b.kind for b in ignored] == ["rule"]
    assert parse_commands(text)[1].body == "Plans:\n" + "_" * 20 + "\nBur"


# -- what is not an earlier message -------------------------------------------------------------------


@pytest.mark.parametrize("lines", [
    # a press letter written like a memo: no address, no date
    ["PRESS TO F", "From: England", "To: France", "Subject: the Channel", "", "Stay out.", "ENDPRESS"],
    ["PRESS TO F", "Od: Anglia", "Do: Francja", "Temat: Kanał", "", "Trzymaj się z daleka.", "ENDPRESS"],
    # Label: value lines of the player's own, no address
    ["Plan: Spring 1902", "Goal: Munich", "Ally: Germany"],
    ["England: A Lon H", "France: A Par H", "Germany: A Mun H"],
    # a date but no address and no separator: not a header block
    ["Note: deadline is 24.11.2026 10:00", "Status: ok", "Mood: good"],
    ["As I wrote in 1901:", "F Lon - Nth"],
    ["Как я писал 24.11:", "A Mos H"],
    ["As I wrote on 24.11:", "F Lon - Nth"],
    ["Как я написал 24.11:", "A Mos H"],
])
def test_label_value_lines_of_the_players_own_stay(lines: list[str]) -> None:
    body = ["SIGNON Etg pw1"] + lines + ["A Lvp H"]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == body and ignored == []


def test_header_block_shape() -> None:
    assert header_block(HEADER_BLOCKS["sw"], 0) == 4
    assert header_block(HEADER_BLOCKS["sw"][:2], 0) is None  # two lines are no block without the names
    assert header_block(["Kutoka: The Judge", "Imetumwa: 24 Novemba 2026", "Kwa: Bob"], 0) is None  # no address
    assert header_block(["-----", "Kutoka: The Judge", "Imetumwa: 24 Novemba 2026", "Kwa: Bob"], 1) == 3
    assert header_block(["Plans", "Kutoka: j@x.test", "Imetumwa: 2026", "Kwa: b@x.test"], 1) is None  # no boundary
    assert header_block(["Od: J", "Wysłano: wtorek"], 0) == 2  # the names alone: From and a date


# -- normalised reading -------------------------------------------------------------------------------


@pytest.mark.parametrize("written,read", [
    ("\ufeffSIGNON Etg pw1", "SIGNON Etg pw1"),  # a byte-order mark
    ("SIG\u200bNON Etg pw1", "SIGNON Etg pw1"),  # zero-width space
    ("\u200e\u202aF Lon - Nth\u202c", "F Lon - Nth"),  # directional marks
    ("\u2066A Lvp\u2069 - Yor\u200d", "A Lvp - Yor"),  # isolates, a zero-width joiner
    ("F Edi - Nor\u00adwegian Sea", "F Edi - Norwegian Sea"),  # a soft hyphen
    ("ＳＩＧＮＯＮ Ｅｔｇ ｐｗ１", "SIGNON Etg pw1"),  # fullwidth letters
    ("F\u00a0Lon\u2060 - Nth", "F Lon - Nth"),  # a no-break space, a word joiner
])
def test_invisible_and_fullwidth_characters_are_normalised(written: str, read: str) -> None:
    assert normalise(written) == read
    text, ignored = new_text(written + "\nA Lon H")
    assert text == read + "\nA Lon H" and ignored == []


def test_a_press_letter_is_passed_on_as_written() -> None:
    letter = ["Ｐｌａｎ：ｗｅ ｍｏｖｅ！", "👨\u200d👩\u200d👧 family", "من\u200cخواهم"]  # ZWJ emoji, Persian ZWNJ
    body = ["\ufeffSIGNON Etg pw1", "PRESS TO F"] + letter + ["ENDPRESS", "ＡＢＣ"]
    text, _ = new_text("\n".join(body))
    assert text.split("\n") == ["SIGNON Etg pw1", "PRESS TO F"] + letter + ["ENDPRESS", "ABC"]


def test_a_bom_before_signon_in_a_real_mail_loses_nothing() -> None:
    raw = ("From: Bob <p1@example.test>\r\nTo: judge@example.test\r\nSubject: orders\r\nMessage-ID: <bom@x>\r\n"
           "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           "\ufeffSIGNON Etg pw1\r\nF Lon - Nth\r\n").encode()
    m = parse_message(raw, "judge@example.test")
    assert [c.name for c in parse_commands(m.text)] == ["SIGNON", "ORDER"]


# -- reply prefixes --------------------------------------------------------------------------------


@pytest.mark.parametrize("subject", [
    "回复: orders", "回复：orders", "答复: orders", "回覆: orders", "转发: orders", "返信: orders", "転送: orders",
    "R: orders", "RIF: orders", "I: orders", "Ynt: orders", "Vá: orders", "Ответ: orders", "Отв: orders",
    "Re[2]: orders", "Re(3): orders", "Svar: orders", "SV: orders", "VS: orders", "AW: orders", "WG: orders",
    "Antw: orders", "Odp: orders", "TR: orders", "Rif.: orders", "Fwd: orders", "Fw: orders", "RE : orders",
    "Re: 回复: Odp: AW: Re[2]: orders", "ΑΠ: orders", "회신: orders",
])
def test_reply_prefixes_in_other_languages_are_dropped(subject: str) -> None:
    assert clean_subject(subject) == "orders"
    assert clean_subject(subject.replace("orders", "TEST:tg - S1901M orders"), "TEST") == "orders"


def test_invisible_characters_hide_no_reply_prefix() -> None:
    assert clean_subject("\ufeffRe: \u200f回复: \u202bTEST:tg - S1901M orders", "TEST") == "orders"


@pytest.mark.parametrize("subject", ["Reply to France", "Invitation: tea", "Idea: orders", "Rebuild: orders",
                                     "Ireland plans"])
def test_words_that_only_start_like_a_prefix_stay(subject: str) -> None:
    assert clean_subject(subject) == subject


# -- nothing vanishes: generated mails of every language's pieces ----------------------------------------

_PIECES = ([l for block in HEADER_BLOCKS.values() for l in block] + ATTRIBUTIONS + SIGNATURE + [
    "-----Wiadomość oryginalna-----", "\u2010" * 7 + " Original Message " + "\u2010" * 7, "_" * 32, "-----",
    "Wysłane z iPhone'a", "iPhoneから送信", "发自我的iPhone", "Pozdrawiam,", "С уважением,", "Bob", "太郎",
    "-----BEGIN PGP SIGNED MESSAGE-----", "Hash: SHA256", "- -- ", "> F Lon - Eng", "", "PRESS TO F", "ENDPRESS",
    "SIGNOFF", "-- "] + NEW + OLD)
_LINE = st.one_of(st.sampled_from(_PIECES), st.text(st.characters(
    blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=20))
_MARK = st.sampled_from(["", "", "\ufeff", "\u200b", "\u200e", "\u202b", "\u2066", "\u00ad", "\uff1a"])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(st.tuples(_LINE, _MARK, st.integers(0, 40)), max_size=40))
def test_every_line_of_a_generated_mail_is_kept_or_counted_in_a_note(lines: list[tuple[str, str, int]]) -> None:
    written = [l[:at] + mark + l[at:] for l, mark, at in lines]
    text, ignored = new_text("\n".join(written))
    kept = text.split("\n") if text else []
    it = iter(written)
    assert all(any(k in (l, normalise(l)) or k == normalise(l[2:]) for l in it) for k in kept)  # in order
    dropped = sum(1 for l in written if normalise(l).strip()) - sum(1 for k in kept if normalise(k).strip())
    extra = dropped - sum(b.lines for b in ignored)
    # the "-- " line that marks a signature is named by the note, not counted in it
    assert extra == 0 or (extra == 1 and any(normalise(l).strip() in ("--", "- --") for l in written)), (
        extra, ignored)
    assert all(b.lines > 0 and b.describe().startswith("Ignored") for b in ignored)


@pytest.mark.parametrize("greeting", ["Hi, I saw the open spot on the list.", "Hello judge,", "Dear GM,"])
def test_a_greeting_under_the_signon_line_is_a_note(greeting: str) -> None:
    """A take-over mail: SIGNON first, then "Hi, ..." before (or instead of) orders."""
    body = ["SIGNON ?tg newpw", greeting, "A Par - Bur"]
    text, ignored = new_text("\n".join(body))
    assert text.split("\n") == [body[0], body[2]]
    assert [b.describe() for b in ignored] == [f"Ignored your greeting '{normalise(greeting)}'."]
    # an order under the SIGNON is never taken for a greeting
    assert new_text("SIGNON Etg pw\nA Lon H\nHi there")[0].startswith("SIGNON Etg pw\nA Lon H")
