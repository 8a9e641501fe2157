"""Replies as real mail clients write them, as raw RFC 5322 bytes: Outlook desktop and web (in
English, German, French, Dutch, Spanish, Italian, Polish, Finnish, Czech, Russian, Japanese and
Chinese, each in its code page), Gmail (web and Android), Apple Mail, iOS
Mail, Samsung Email and Thunderbird, each with its own MIME structure, charset, transfer
encoding, attribution or header block and HTML quote markers (as those clients produce them;
the markup is cut down to what matters, the structure is theirs).

Every builder takes the new text and the old message it replies to, both as lists of lines.
"""

from __future__ import annotations

import itertools
import textwrap
from email.message import EmailMessage
from email.policy import SMTP
from html import escape

JUDGE = "The Judge <judge@example.test>"
PLAYER = "Bob Player <p1@example.test>"
SUBJECT = "TEST:tg - S1901M orders"

# Outlook's header block and separator, as each language edition writes them
OUTLOOK = {
    "en": (("From", "Sent", "To", "Subject"), "Tuesday, November 24, 2026 10:00 AM", "-----Original Message-----",
           "RE"),
    "de": (("Von", "Gesendet", "An", "Betreff"), "Dienstag, 24. November 2026 10:00",
           "-----Ursprüngliche Nachricht-----", "AW"),
    "fr": (("De\u00a0", "Envoyé\u00a0", "À\u00a0", "Objet\u00a0"), "mardi 24 novembre 2026 10:00",
           "-----Message d'origine-----", "RE"),
    "nl": (("Van", "Verzonden", "Aan", "Onderwerp"), "dinsdag 24 november 2026 10:00",
           "-----Oorspronkelijk bericht-----", "RE"),
    "es": (("De", "Enviado el", "Para", "Asunto"), "martes, 24 de noviembre de 2026 10:00",
           "-----Mensaje original-----", "RE"),
    "it": (("Da", "Inviato", "A", "Oggetto"), "martedì 24 novembre 2026 10:00", "-----Messaggio originale-----",
           "R"),
    "pl": (("Od", "Wysłano", "Do", "Temat"), "wtorek, 24 listopada 2026 10:00", "-----Wiadomość oryginalna-----",
           "Odp"),
    "fi": (("Lähettäjä", "Lähetetty", "Vastaanottaja", "Aihe"), "tiistai 24. marraskuuta 2026 10.00",
           "-----Alkuperäinen viesti-----", "VS"),
    "cs": (("Od", "Odesláno", "Komu", "Předmět"), "úterý 24. listopadu 2026 10:00", "-----Původní zpráva-----",
           "Odp"),
    "ru": (("От", "Отправлено", "Кому", "Тема"), "24 ноября 2026 г. 10:00", "-----Исходное сообщение-----",
           "Ответ"),
    "ja": (("差出人", "送信日時", "宛先", "件名"), "2026年11月24日 10:00", "-----元のメッセージ-----", "返信"),
    "zh": (("发件人", "发送时间", "收件人", "主题"), "2026年11月24日 10:00", "-----原始邮件-----", "回复"),
}
GMAIL_ATTRIBUTION = {
    "en": "On Tue, Nov 24, 2026 at 10:00\u202fAM The Judge <judge@example.test> wrote:",
    "de": "Am Di., 24. Nov. 2026 um 10:00 Uhr schrieb The Judge <judge@example.test>:",
    "fr": "Le mar. 24 nov. 2026 à 10:00, The Judge <judge@example.test> a écrit :",
    "nl": "Op di 24 nov 2026 om 10:00 schreef The Judge <judge@example.test>:",
    "es": "El mar, 24 nov 2026 a las 10:00, The Judge (<judge@example.test>) escribió:",
    "it": "Il giorno mar 24 nov 2026 alle ore 10:00 The Judge <judge@example.test> ha scritto:",
    "pl": "W dniu wt., 24 lis 2026 o 10:00 The Judge <judge@example.test> napisał(a):",
    "fi": "The Judge (judge@example.test) kirjoitti ti 24.11.2026 klo 10.00:",
    "cs": "út 24. 11. 2026 v 10:00 odesílatel The Judge <judge@example.test> napsal:",
    "ru": "вт, 24 нояб. 2026 г. в 10:00, The Judge <judge@example.test>:",  # Gmail writes no verb in Russian
    "ja": "2026年11月24日(火) 10:00 The Judge <judge@example.test>:",  # nor in Japanese
    "zh": "The Judge <judge@example.test> 于2026年11月24日周二 10:00写道：",
}
THUNDERBIRD_ATTRIBUTION = {
    "en": "On 24/11/2026 10:00, The Judge wrote:",
    "de": "Am 24.11.26 um 10:00 schrieb The Judge:",
    "fr": "Le 24/11/2026 à 10:00, The Judge a écrit :",
    "nl": "Op 24-11-2026 om 10:00 schreef The Judge:",
    "es": "El 24/11/26 a las 10:00, The Judge escribió:",
    "it": "Il 24/11/26 10:00, The Judge ha scritto:",
    "pl": "W dniu 24.11.2026 o 10:00, The Judge pisze:",
    "fi": "The Judge kirjoitti 24.11.2026 klo 10.00:",
    "cs": "Dne 24. 11. 26 v 10:00 The Judge napsal(a):",
    "ru": "24.11.2026 10:00, The Judge пишет:",
    "ja": "2026/11/24 10:00 に The Judge さんは書きました:",
    "zh": "在 2026/11/24 10:00, The Judge 写道:",
}
APPLE_ATTRIBUTION = {
    "en": "On 24 Nov 2026, at 10:00, The Judge <judge@example.test> wrote:",
    "de": "Am 24.11.2026 um 10:00 schrieb The Judge <judge@example.test>:",
    "fr": "Le 24 nov. 2026 à 10:00, The Judge <judge@example.test> a écrit :",
    "nl": "Op 24 nov 2026 om 10:00 heeft The Judge <judge@example.test> het volgende geschreven:",
    "es": "El 24 nov 2026, a las 10:00, The Judge <judge@example.test> escribió:",
    "it": "Il giorno 24 nov 2026, alle ore 10:00, The Judge <judge@example.test> ha scritto:",
    "pl": "Wiadomość napisana przez The Judge <judge@example.test> w dniu 24.11.2026, o godz. 10:00:",
    "fi": "The Judge <judge@example.test> kirjoitti 24.11.2026 kello 10.00:",
    "cs": "24. 11. 2026 v 10:00, The Judge <judge@example.test>:",
    "ru": "24 нояб. 2026 г., в 10:00, The Judge <judge@example.test> написал(а):",
    "ja": "2026/11/24 10:00、The Judge <judge@example.test>のメール:",
    "zh": "2026年11月24日 10:00，The Judge <judge@example.test> 写道：",
}
IPHONE = {"en": "Sent from my iPhone", "de": "Von meinem iPhone gesendet", "fr": "Envoyé de mon iPhone",
          "nl": "Verstuurd vanaf mijn iPhone", "es": "Enviado desde mi iPhone", "it": "Inviato da iPhone",
          "pl": "Wysłane z iPhone'a", "fi": "Lähetetty iPhonesta", "cs": "Odesláno z iPhonu",
          "ru": "Отправлено с iPhone", "ja": "iPhoneから送信", "zh": "发自我的iPhone"}
# the code page each Outlook edition writes its mail in
OUTLOOK_CHARSET = {"pl": "windows-1250", "cs": "windows-1250", "ru": "windows-1251", "ja": "iso-2022-jp",
                   "zh": "gb2312"}
LANGS = tuple(OUTLOOK)


_count = itertools.count(1)


def _message(headers: dict[str, str], sender: str = PLAYER) -> EmailMessage:
    msg = EmailMessage(policy=SMTP)
    msg["From"] = sender
    msg["To"] = JUDGE
    msg["Date"] = "Tue, 24 Nov 2026 11:00:00 +0100"
    msg["Message-ID"] = f"<client{next(_count)}@mail.example.test>"
    msg["In-Reply-To"] = "<reply1@judge.example.test>"
    msg["References"] = "<orders1@mail.example.test> <reply1@judge.example.test>"
    for k, v in headers.items():
        msg[k] = v
    return msg


def _html_lines(lines: list[str], tag: str = "div") -> str:
    return "".join(f"<{tag}>{escape(l) if l else '<br>'}</{tag}>" for l in lines)


def _raw(msg: EmailMessage) -> bytes:
    return msg.as_bytes(policy=SMTP)


def _alternative(msg: EmailMessage, plain: list[str], html: str, charset: str, html_only: bool) -> bytes:
    """multipart/alternative (text, then HTML), quoted-printable; or the HTML part alone."""
    if html_only:
        msg.set_content(html, subtype="html", charset=charset, cte="quoted-printable")
    else:
        msg.set_content("\n".join(plain) + "\n", charset=charset, cte="quoted-printable")
        msg.add_alternative(html, subtype="html", charset=charset, cte="quoted-printable")
    return _raw(msg)


# -- Outlook ------------------------------------------------------------------------------------


def outlook_desktop(lang: str, new: list[str], old: list[str], separator: bool = False,
                    html_only: bool = False, sender: str = PLAYER) -> bytes:
    """Outlook for Windows: multipart/alternative, Windows-1252 quoted-printable; the earlier message
    under a header block (newer editions) or an "-----Original Message-----" line (older ones,
    and plain-text mode)."""
    names, date, sep, re_ = OUTLOOK[lang]
    msg = _message({"Subject": f"{re_}: {SUBJECT}", "Thread-Topic": SUBJECT,
                    "Thread-Index": "AQHZ3x1234567890abcdefABCDEF==", "Content-Language": f"{lang}-{lang.upper()}",
                    "X-Mailer": "Microsoft Outlook 16.0", "MIME-Version": "1.0"}, sender)
    block = [f"{names[0]}: {JUDGE}", f"{names[1]}: {date}", f"{names[2]}: {PLAYER}", f"{names[3]}: {SUBJECT}"]
    plain = new + [""] + ([sep] if separator else []) + block + [""] + old
    b = "".join(f"<b>{escape(n)}:</b> {escape(v.split(': ', 1)[1])}<br>" for n, v in zip(names, block))
    html = ('<html xmlns:o="urn:schemas-microsoft-com:office:office"><head><meta http-equiv="Content-Type" '
            'content="text/html; charset=windows-1252"><meta name="Generator" content="Microsoft Word 15 '
            '(filtered medium)"><style><!-- p.MsoNormal {margin:0cm;font-size:11.0pt;} --></style></head>'
            f'<body lang="{lang.upper()}" link="#0563C1" vlink="#954F72"><div class="WordSection1">'
            + "".join(f'<p class="MsoNormal">{escape(l) if l else "<o:p>&nbsp;</o:p>"}<o:p></o:p></p>' for l in new)
            + '<p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
            '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm">'
            f'<p class="MsoNormal">{b}<o:p></o:p></p></div><p class="MsoNormal"><o:p>&nbsp;</o:p></p>'
            + "".join(f'<p class="MsoNormal">{escape(l)}<o:p></o:p></p>' for l in old) + "</div></body></html>")
    charset = OUTLOOK_CHARSET.get(lang, "windows-1252")
    return _alternative(msg, plain, html.replace("charset=windows-1252", f"charset={charset}"), charset, html_only)


def outlook_web(lang: str, new: list[str], old: list[str], html_only: bool = False, sender: str = PLAYER) -> bytes:
    """Outlook on the web / new Outlook: an underscore rule over the header block in the text part;
    ``appendonsend`` and ``divRplyFwdMsg`` in the HTML."""
    names, date, _, re_ = OUTLOOK[lang]
    msg = _message({"Subject": f"{re_}: {SUBJECT}", "Thread-Topic": SUBJECT, "Content-Language": lang,
                    "X-MS-Has-Attach": "", "MIME-Version": "1.0"}, sender)
    vals = [JUDGE, date, PLAYER, SUBJECT]
    plain = new + ["", "_" * 32] + [f"{n}: {v}" for n, v in zip(names, vals)] + [""] + old
    head = "".join(f"<b>{escape(n)}:</b> {escape(v)}<br>" for n, v in zip(names, vals))
    html = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><style type="text/css" '
            'style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head><body dir="ltr">'
            + "".join(f'<div class="elementToProof" style="font-family: Aptos, Arial, sans-serif; font-size: 12pt;">'
                      f'{escape(l) if l else "<br>"}</div>' for l in new)
            + '<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
            f'<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" '
            f'color="#000000">{head}</font><div>&nbsp;</div></div><div class="BodyFragment"><font size="2">'
            '<span style="font-size:11pt;"><div class="PlainText">' + "<br>".join(escape(l) for l in old)
            + "</div></span></font></div></body></html>")
    return _alternative(msg, plain, html, "utf-8", html_only)


# -- Gmail, Apple, phones, Thunderbird ----------------------------------------------------------


def gmail(lang: str, new: list[str], old: list[str], html_only: bool = False, sender: str = PLAYER) -> bytes:
    """Gmail (web and Android app): the attribution wrapped like the rest of the text part, ``>``
    quotes; ``gmail_quote`` in the HTML."""
    attribution = GMAIL_ATTRIBUTION[lang]
    msg = _message({"Subject": f"Re: {SUBJECT}", "MIME-Version": "1.0"}, sender)
    plain = new + [""] + textwrap.wrap(attribution, 76, break_long_words=False, break_on_hyphens=False) + [""]
    plain += ["> " + l if l else ">" for l in old]
    html = ('<div dir="ltr">' + _html_lines(new) + '</div><br><div class="gmail_quote gmail_quote_container">'
            f'<div dir="ltr" class="gmail_attr">{escape(attribution)}<br></div><blockquote class="gmail_quote" '
            'style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">'
            + "<br>".join(escape(l) for l in old) + "</blockquote></div>")
    return _alternative(msg, plain, html, "utf-8", html_only)


def flow(lines: list[str], width: int = 66, delsp: bool = False, quote: str = "") -> list[str]:
    """RFC 3676 encoding: long lines broken softly (a trailing space), space-stuffing."""
    out: list[str] = []
    for line in lines:
        if line and (line[0] in " >" or line.startswith("From ")):
            line = " " + line  # space-stuffing
        if len(line) <= width or line == "-- ":
            out.append(line if line == "-- " else (quote + line).rstrip(" "))
            continue
        words = line.split(" ")
        cur = ""
        for w in words:
            if cur and len(cur) + 1 + len(w) > width:
                out.append(quote + cur + " " + (" " if delsp else ""))
                cur = w
            else:
                cur = f"{cur} {w}" if cur else w
        out.append(quote + cur)
    return out


def apple_mail(lang: str, new: list[str], old: list[str], flowed: bool = True, sender: str = PLAYER) -> bytes:
    """Apple Mail (macOS): text/plain format=flowed; delsp=yes beside HTML with ``<blockquote type="cite">``
    holding the attribution."""
    attribution = APPLE_ATTRIBUTION[lang]
    msg = _message({"Subject": f"Re: {SUBJECT}", "X-Mailer": "Apple Mail (2.3774.200.91.1.1)",
                    "Mime-Version": "1.0 (Mac OS X Mail 16.0 \\(3774.200.91.1.1\\))"}, sender)
    quoted = ["> " + attribution, ">"] + ["> " + l if l else ">" for l in old]
    plain = (flow(new, delsp=True) if flowed else new) + [""] + quoted
    html = ('<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
            '<body style="overflow-wrap: break-word; -webkit-nbsp-mode: space; line-break: after-white-space;">'
            + _html_lines(new) + f'<div><br><blockquote type="cite"><div>{escape(attribution)}</div>'
            '<br class="Apple-interchange-newline"><div><div>' + "<br>".join(escape(l) for l in old)
            + "</div></div></blockquote></div><br></body></html>")
    params = {"format": "flowed", "delsp": "yes"} if flowed else {}
    msg.set_content("\n".join(plain) + "\n", charset="utf-8", cte="quoted-printable", params=params)
    msg.add_alternative(html, subtype="html", charset="utf-8", cte="quoted-printable")
    return _raw(msg)


def ios_mail(lang: str, new: list[str], old: list[str], sender: str = PLAYER) -> bytes:
    """iPhone Mail: "Sent from my iPhone" (localised) under the new text, the attribution quoted too."""
    attribution = APPLE_ATTRIBUTION[lang]
    msg = _message({"Subject": f"Re: {SUBJECT}", "X-Mailer": "iPhone Mail (22B91)", "Mime-Version": "1.0 (1.0)"}, sender)
    plain = new + ["", IPHONE[lang], "", "> " + attribution, "> "] + ["> " + l if l else ">" for l in old]
    msg.set_content("\n".join(plain) + "\n", charset="utf-8", cte="quoted-printable")
    return _raw(msg)


def samsung_email(new: list[str], old: list[str], sender: str = PLAYER) -> bytes:
    """Samsung Email on Android: a dashed "Original message" line, header fields with trailing
    spaces, base64."""
    msg = _message({"Subject": f"Re: {SUBJECT}", "MIME-Version": "1.0"}, sender)
    plain = new + ["", "", "", "Sent from my Galaxy", "", "", "-------- Original message --------",
                   f"From: {JUDGE} ", "Date: 24/11/2026 10:00 (GMT+00:00) ", "To: p1@example.test ",
                   f"Subject: Re: {SUBJECT} ", ""] + old
    msg.set_content("\n".join(plain) + "\n", charset="utf-8", cte="base64")
    return _raw(msg)


def thunderbird(lang: str, new: list[str], old: list[str], flowed: bool = True, html: bool = False, sender: str = PLAYER) -> bytes:
    """Thunderbird: text/plain format=flowed (delsp=no), 8bit; or HTML with ``moz-cite-prefix``."""
    attribution = THUNDERBIRD_ATTRIBUTION[lang]
    msg = _message({"Subject": f"Re: {SUBJECT}", "MIME-Version": "1.0",
                    "User-Agent": "Mozilla Thunderbird", "Content-Language": lang}, sender)
    if html:
        body = ('<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8">'
                "</head><body><p>" + "<br>".join(escape(l) for l in new) + "</p>"
                f'<div class="moz-cite-prefix">{escape(attribution)}<br></div><blockquote type="cite" '
                'cite="mid:reply1@judge.example.test"><pre class="moz-quote-pre" wrap="">'
                + escape("\n".join(old)) + "</pre></blockquote><br></body></html>")
        msg.set_content(body, subtype="html", charset="utf-8", cte="8bit")
        return _raw(msg)
    quoted = ["> " + l if l else ">" for l in old]
    plain = (flow(new) if flowed else new) + ["", attribution] + (flow(old, quote="> ") if flowed else quoted)
    params = {"format": "flowed"} if flowed else {}
    msg.set_content("\n".join(plain) + "\n", charset="utf-8", cte="8bit", params=params)
    return _raw(msg)


def all_clients(new: list[str], old: list[str]) -> dict[str, bytes]:
    """One reply from every client and language above, by name."""
    out: dict[str, bytes] = {}
    for lang in LANGS:
        out[f"outlook-desktop-{lang}"] = outlook_desktop(lang, new, old)
        out[f"outlook-desktop-{lang}-separator"] = outlook_desktop(lang, new, old, separator=True)
        out[f"outlook-desktop-{lang}-html-only"] = outlook_desktop(lang, new, old, html_only=True)
        out[f"outlook-web-{lang}"] = outlook_web(lang, new, old)
        out[f"outlook-web-{lang}-html-only"] = outlook_web(lang, new, old, html_only=True)
        out[f"gmail-{lang}"] = gmail(lang, new, old)
        out[f"gmail-{lang}-html-only"] = gmail(lang, new, old, html_only=True)
        out[f"apple-mail-{lang}"] = apple_mail(lang, new, old)
        out[f"ios-mail-{lang}"] = ios_mail(lang, new, old)
        out[f"thunderbird-{lang}"] = thunderbird(lang, new, old)
        out[f"thunderbird-{lang}-html"] = thunderbird(lang, new, old, html=True)
    out["samsung-email"] = samsung_email(new, old)
    return out
