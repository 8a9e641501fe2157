"""The new text of a mail: what the player wrote this time, without the old text around it.

Mail clients put earlier messages under (or, bottom-posting, above) the new text in many ways:
``>`` quotes after an attribution ("On … wrote:", "Am … schrieb …:", "Le … a écrit :" …),
Outlook's header block without any quote marks ("Von:/Gesendet:/An:/Betreff:" and its French,
Dutch, Spanish, Italian and English siblings), "-----Original Message-----" separators, and a
player may paste the judge's own earlier reply. A phone adds "Sent from my iPhone"; people sign
off with "Regards, Bob". None of that may be read as commands, and none of the player's own
lines may vanish silently: every block left out is returned as an :class:`Ignored` with its
reason, and the reply lists them.

email-reply-parser is not used for this: it treats a line ending in ``--`` or ``__`` as a
signature (dropping a ``--- Spring 1902 ---`` heading after a blank line and the orders under
it), any single "From: …" or "To: …" line as a mail header (dropping the rest of a press
letter), "Only changes from what I wrote:" as a quote header, and knows no header blocks but
English ones (tests in ``tests/test_mail_newtext.py`` pin each case). docs/mail-reading.md
lists what is left out and what is not.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Callable

from judge.mail.language import match_keyword, opens_letter

# -- what an ignored block is ---------------------------------------------------------------------


@dataclass(frozen=True)
class Ignored:
    """A block of the mail that was not read as commands."""

    kind: str  # "quote", "forward", "judge", "signature", "signoff", "device"
    lines: int  # non-blank lines left out
    marker: str = ""  # the line that gave it away (shortened)
    places: int = 1  # quoted blocks counted in this one note (a reply quoting between its own lines)

    def describe(self) -> str:
        n, m = self.lines, _short(self.marker)
        if self.kind == "quote":
            where = f", from '{m}'" if m else ""
            apart = f" in {self.places} places" if self.places > 1 else ""
            return f"Ignored {n} quoted {_lines(n)}{apart} (an earlier message{where})."
        if self.kind == "forward":
            return f"Ignored {n} {_lines(n)} of a forwarded message (from '{m}')."
        if self.kind == "judge":
            return f"Ignored {n} {_lines(n)} of the judge's own earlier mail (from '{m}')."
        if self.kind == "signature":
            return f"Ignored your signature ({n} {_lines(n)} after '-- ')."
        if self.kind == "device":
            return f"Ignored '{m}' (added by your mail program)."
        if self.kind == "pgp":
            return f"Ignored {n} {_lines(n)} of PGP armour (from '{m}'): PGP signatures are not checked."
        if self.kind == "encrypted":
            return (f"Ignored an encrypted PGP message ({n} {_lines(n)}): the judge cannot read encrypted mail, "
                    f"send your commands as plain text.")
        if self.kind == "rule":
            return f"Ignored a separator line '{m}'."
        if self.kind == "name":
            return f"Ignored your name '{m}' at the end."
        if self.kind == "greeting":
            return f"Ignored your greeting '{m}'."
        return f"Ignored your sign-off '{m}'."


def one_quote_note(ignored: list[Ignored]) -> list[Ignored]:
    """The quoted blocks of one mail as one note where the first was, counting all their lines: a
    reply that answers between the lines it quotes gets "Ignored 7 quoted lines in 3 places", not
    three notes."""
    quotes = [b for b in ignored if b.kind == "quote"]
    if len(quotes) < 2:
        return ignored
    one = Ignored("quote", sum(b.lines for b in quotes), quotes[0].marker, sum(b.places for b in quotes))
    at = ignored.index(quotes[0])
    rest = [b for b in ignored if b.kind != "quote"]
    return rest[:at] + [one] + rest[at:]


def _lines(n: int) -> str:
    return "line" if n == 1 else "lines"


def _short(s: str, width: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= width else s[: width - 3].rstrip() + "..."


# -- the patterns -------------------------------------------------------------------------------

# Outlook's header block ("From:/Sent:/To:/Subject:"). It is recognised by its shape (see
# :func:`header_block`) in any language and script; these names are a second signal, enough
# alone for a From line followed by a date line (Outlook with Exchange names writes no address).
# Gmail's plain text of an Outlook mail writes the names in bold ("*From:*").
_FIELD_NAMES = {
    "from": ("from", "von", "de", "van", "da", "från", "fra", "od", "expéditeur", "afzender", "remitente",
             "mittente", "nadawca", "lähettäjä", "odesílatel", "от", "отправитель", "差出人", "送信者", "发件人",
             "發件人", "寄件者", "寄件人", "feladó", "kimden", "avsändare", "afsender", "보낸 사람", "αποστολέας"),
    "date": ("sent", "date", "gesendet", "datum", "envoyé", "verzonden", "verstuurd", "enviado", "inviato",
             "data", "fecha", "skickat", "sendt", "enviada", "enviado el", "enviada em", "sent at", "wysłano",
             "wysłane", "lähetetty", "päivämäärä", "odesláno", "отправлено", "дата", "送信日時", "日付", "发送时间",
             "發送時間", "日期", "时间", "時間", "寄件日期", "elküldve", "dátum", "gönderildi", "tarih", "보낸 날짜",
             "ημερομηνία", "στάλθηκε"),
    "to": ("to", "an", "à", "a", "aan", "para", "till", "til", "destinataire", "destinatario", "destinatário",
           "do", "komu", "кому", "宛先", "收件人", "收件者", "vastaanottaja", "címzett", "kime", "받는 사람", "προς"),
    "cc": ("cc", "kopie", "copie", "cc/bcc", "dw", "kopia", "копия", "抄送", "副本", "kopio"),
    "subject": ("subject", "betreff", "objet", "onderwerp", "asunto", "oggetto", "ämne", "emne", "sujet",
                "assunto", "temat", "aihe", "předmět", "тема", "件名", "主题", "主旨", "主題", "tárgy", "konu",
                "제목", "θέμα"),
}
_FIELD = {name: kind for kind, names in _FIELD_NAMES.items() for name in names}
# "Label: value": a label of up to four words of letters in any script (no digits), then a colon
# (the fullwidth one of Chinese and Japanese clients is a colon after NFKC)
_FIELD_RE = re.compile(r"^\s*\*?([^\W\d_][^\W\d_.'’-]*(?:[ ./][^\W\d_][^\W\d_.'’-]*){0,3})\s?:\*?(?:\s*(.*))?$")
# bounded (RFC 5321 sizes): a long line without "@" must not cost more than a look at each character
_ADDRESS = re.compile(r"[^\s<>()\[\]@:;,\"]{1,64}@[^\s<>()\[\]@:;,\"]{1,255}\.[^\W\d_]{2,63}")
# a date or a time as mail programs write them: a year, 10:00 / 10.00, 24.11.2026, 2026/11/24, 2026年
_DATE = re.compile(r"(?<!\d)(19|20)\d\d(?!\d)|(?<!\d)\d{1,2}[:.]\d\d(?!\d)|(?<!\d)\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?!\d)")

# "-----Original Message-----" and its family; Thunderbird writes "-------- Original Message --------",
# Proton Mail "‐‐‐‐‐‐‐ Original Message ‐‐‐‐‐‐‐" with U+2010 hyphens. Any dashed line right above a
# header block goes with it; these words cut alone.
_SEPARATOR_WORDS = (
    "original message", "ursprüngliche nachricht", "originalnachricht", "message d'origine",
    "message d’origine", "message original", "oorspronkelijk bericht", "origineel bericht", "mensaje original",
    "messaggio originale", "mensagem original", "ursprungligt meddelande", "original meddelelse",
    "wiadomość oryginalna", "oryginalna wiadomość", "alkuperäinen viesti", "původní zpráva", "původní e-mail",
    "исходное сообщение", "оригинальное сообщение", "元のメッセージ", "原始邮件", "原始郵件", "原始消息",
    "opprinnelig melding", "oprindelig meddelelse", "eredeti üzenet", "orijinal ileti", "orijinal mesaj",
    "αρχικό μήνυμα", "원본 메시지", "reply message", "original mail",
)
_FORWARD_WORDS = (
    "forwarded message", "weitergeleitete nachricht", "message transféré", "doorgestuurd bericht",
    "mensaje reenviado", "messaggio inoltrato", "mensagem encaminhada", "vidarebefordrat meddelande",
    "wiadomość przekazana dalej", "przekazana wiadomość", "välitetty viesti", "välitetty viesti alkaa",
    "přeposlaná zpráva", "пересылаемое сообщение", "пересланное сообщение", "転送されたメッセージ",
    "转发的邮件", "轉寄的郵件", "已转发邮件", "videresendt melding", "videresendt meddelelse", "továbbított üzenet",
    "iletilen ileti", "προωθημένο μήνυμα", "전달된 메시지",
)
_DASH = "\\-_=~*\u2010-\u2015\u2212\u2500\u2501\u30fc"
_DASHED = re.compile(rf"^\s*[{_DASH}]{{2,}}\s*(.+?)\s*[{_DASH}]{{2,}}\s*$")
_RULE = re.compile(rf"^\s*[{_DASH}#]{{3,}}\s*$")  # a line of dashes, underscores, ... only
_FORWARD_LINE = re.compile(
    r"^\s*(begin forwarded message|anfang der weitergeleiteten nachricht|début du message réexpédié"
    r"|begin doorgestuurd bericht|inicio del mensaje reenviado|inizio messaggio inoltrato"
    r"|początek przekazanej wiadomości|początek przekazywanej wiadomości|välitetty viesti alkaa"
    r"|začátek přeposlané zprávy|začátek přeposílané zprávy"
    r"|начало переадресованного сообщения|転送されたメッセージ|转发的邮件|以下是转发的邮件)\s*:\s*$", re.I)

# attributions: "On <date>, <name> wrote:" and its translations, Gmail's "<date>, <name> <address>:"
# (Russian, Japanese: no verb at all). See :func:`_is_attribution` for what is enough.
_ATTR_START = re.compile(r"^\s*(on|am|le|op|el|il|em|den|w dniu|dne|dnia|в|el día|le jour|在)\s", re.I)
_VERBS_SPACED = ("wrote", "schrieb", "a écrit", "schreef", "escribió", "escribio", "ha scritto", "scrisse",
                 "escreveu", "skrev", "skrive", "napisał", "napisała", "napisał\\(a\\)", "napsal", "napsala",
                 "napsal\\(a\\)", "kirjoitti", "пишет", "написал", "написала", "написал\\(а\\)", "írta", "yazdı",
                 "kirjutas", "pisze", "rašė", "rakstīja", "έγραψε", "het volgende geschreven", "geschreven",
                 "a scris", "כתב", "כתבה", "كتب")
_VERBS_CJK = ("写道", "寫道", "書きました", "のメール", "님이 작성", "작성:")
_ATTR_VERB = re.compile(r"((?<![^\W\d_])(" + "|".join(_VERBS_SPACED) + r")(?![^\W\d_])|"
                        + "|".join(_VERBS_CJK) + r").{0,120}:\s*$", re.I)
_HAS_DATE_OR_ADDRESS = re.compile(r"\d|@")
_TIME_OR_DAY = re.compile(r"(?<!\d)\d{1,2}:\d\d(?!\d)|(?<!\d)\d{1,4}[./-]\d{1,2}[./-]\d{1,4}(?!\d)"
                          r"|\d{4}年|\d{1,2}月\d{1,2}日")

# the judge's own mail (templates/*.txt and their HTML parts copied as text)
_JUDGE_START = [
    re.compile(r"^\s*:: Judge: \S+\s+Game: "),
    re.compile(r"^\s*Judge: \S+\s+\W?\s*Game: \S+\s+\W?\s*Variant: "),  # the HTML part, copied as text
    re.compile(r"^\s*Judge \S+ \u00b7 "),  # a report's HTML part
    re.compile(r"^\s*How to use this judge \("),  # templates/help.txt (a reply outside a game has no header)
]
# templates/press.txt: the letter under it is the sender's text, up to the reader's own commands
_PRESS_HEADER = re.compile(r"^\s*(Broadcast message|Message)( from .+?)?( to .+?)? in ['\u2018]\S+['\u2019]:\s*$")
_HTML_TITLE = re.compile(r"^\s*Game \S+ \u2014 .*\d")  # "Game tg — Spring 1901 Movement"
_JUDGE_END = [
    re.compile(r"^\s*(No errors encountered\.|\d+ errors? encountered\.( Error flag set\.)?|Error flag set\.)\s*$"),
    re.compile(r"^\s*Judge \S+, game \S+ \(\w+\)\s*$"),  # a report's signature
]
_JUDGE_ANCHOR = _JUDGE_START + _JUDGE_END + [
    re.compile(r"^\s*:: Deadline: "),
    re.compile(r"^\s*\*\*\* Error: "),
    re.compile(r"^\s*\w+ orders for .+\(\S+\.\d{3}\)\.?\s*$"),
    re.compile(r"^\s*Time to deadline: "),
    re.compile(r"^\s*Deadline: .*\(grace until"),
    re.compile(r"^\s*Your orders are complete\.\s*$"),
    re.compile(r"^\s*Orders not received for all units \("),
    # the orders status once the deadline passed, or when the phase completes (templates/orders_status.txt)
    re.compile(r"^\s*(Orders not complete \(|The deadline has passed and your orders|Still late: "
               r"|Every power's orders are in: |The phase is processed as soon as |The grace period ended )"),
    re.compile(r"^\s*Signed on as \w+ in '"),
    re.compile(r"^\s*Sign on with: "),  # templates/starting.txt
    re.compile(r"^\s*then write your orders, one a line, for example:"),
    re.compile(r"^\s*Game '\S+' has started\. You are "),
    re.compile(r"^\s*The deadline for \S+ is "),  # templates/reminder.txt
    re.compile(r"^\s*Your orders so far:\s*$"),
    re.compile(r"^\s*Diplomacy game '\S+' is waiting for orders from "),  # templates/late.txt
    re.compile(r"^\s*Current orders for \w+:\s*$"),  # templates/future_applied.txt
    re.compile(r"^\s*The orders you queued for "),
    re.compile(r"^\s*History of '\S+':\s*$"),  # templates/history.txt
    re.compile(r"^\s*Ignored (\d+ (quoted )?lines? |your (signature|sign-off|name|greeting) |'|a separator line '"
               r"|an encrypted PGP message ).*\.\s*$"),  # templates/ignored.txt
    re.compile(r"^\s*The \d+ order lines? above your SIGNON (is|are) read as "),  # handler.read_above_signon
    re.compile(r"^\s*Not read after (the error above|SIGNOFF): \d+ more lines?, from "),
]
#: the Game Starting mail's example: "SIGNON Fgame mypassword" and the power's own orders under it
_EXAMPLE_SIGNON = re.compile(r"^\s*SIGNON \w+ mypassword\s*$")
#: the orders status's words (judge.render.lateness), in lower case: found anywhere in a line, in any case
_STATUS_WORDS = (r"you are late|a power (still late|that sends no orders)|every power's orders|grace period"
                 r"|grace ends in|orders given by then|civil disorder|unordered|takeover|follow by mail|by the deadline"
                 r"|not ordered are waived|builds? due|removals? due|(may build|must remove) \d+ units?|pending orders:"
                 r"|has no adjustments to make")
_STATUS_LINE = re.compile(rf"^(?i:.*({_STATUS_WORDS}))")
_JUDGE_LINE = [  # judge-like lines: left out only next to an anchor
    re.compile(r"^\s*>"),
    re.compile(r"^\s*[\w .'-]+: (Army|Fleet|Army or Fleet) .*\.\s*$"),
    re.compile(r"^\s*[\w .'-]+: .*No Order Processed"),
    re.compile(r"^\s*[\w .'-]+ \([^)]*\):"),  # a report's "England (p1): F London - North Sea, …"
    re.compile(r"^\s{2,}\S"),  # wrapped or indented text (press bodies, warnings)
    re.compile(r"^\s*(Note|Next|Deadline|Unowned|Has|Dislodged): "),
    re.compile(r"^\s*(-+|=+|Supply centres|Press|--)\s*$"),
    re.compile(r"^\s*From \S.* to \S.*:\s*$"),
    re.compile(r"^\s*[\w ,]*\d\d:\d\d(:\d\d)? [+-]\d{4}\)?\s*$"),  # a deadline wrapped at 72 columns
    _EXAMPLE_SIGNON,  # starting.txt's example (its orders: _as_the_judge_writes)
    # starting.txt's map note, roster and settings (judge/game/settings_words.py names the topics)
    re.compile(r"^\s*(The map of the starting position|Players:\s*$|The game.s settings|This game is anonymous"
               r"|(Deadlines|Grace|A late power|Messages|Draws|Concessions|Victory|Results|Anonymous|Addresses"
               r"|Predictions|Rules):\s)"),
    # the status's sentences wrapped at 72 columns (judge.render.lateness words them)
    _STATUS_LINE,
    # an adjustment phase's order list (judge.render.describe.order_list)
    re.compile(r"^\s*[\w .'-]+:\s+(Builds (an army|a fleet|a [\w/ ]+) in|Removes the \w+ in|Build waived).*\.\s*$"),
    re.compile(r"^\s*(\d+ )?(minutes?|hours?|days?)\.\s*$"),
    re.compile(r"^\s*(Message sent to|The map of the position|Wait flag is set|You have voted for a draw"
               r"|The game is paused|considered late if|units hold\.|No orders received\.|----- Pending orders"
               r"|Game \S+ - |Movement|Retreat|Adjustment)"),
]

_SIGNATURE = re.compile(r"^--\s*$")  # "-- " ends the commands (njudge); "--" alone too

# "Sent from my iPhone" and friends, as phones and webmail add them
_APPS = r"outlook|yahoo|aol|gmx|web\.de|t-online|proton\s?mail|blackberry|spark|airmail|samsung|mail|gmail"
_DEVICE = re.compile(
    rf"^\s*(sent from (my|mail for|the \S+ app|{_APPS})\b.{{0,40}}|get outlook for \w+.{{0,40}}"
    rf"|sent (with|via|using) (the )?({_APPS})\b.{{0,40}}"
    rf"|von meinem .{{1,30}} gesendet|gesendet (von|mit|über) (meinem|meiner|der|dem|{_APPS})\b.{{0,40}}"
    rf"|envoyé (de|depuis|avec) (mon|ma|l'|{_APPS})\b.{{0,40}}|obtenir outlook pour .{{1,40}}"
    rf"|(verzonden|verstuurd) (vanaf|met|van|via) (mijn|de|{_APPS})\b.{{0,40}}|download outlook voor .{{1,30}}"
    rf"|enviado (desde|do|de|con) (mi|meu|o meu|{_APPS})\b.{{0,40}}|obtener outlook para .{{1,30}}"
    rf"|inviato da(l mio)? (iphone|ipad|android|dispositivo|smartphone|telefono|{_APPS})\b.{{0,40}}"
    rf"|scarica outlook per .{{1,30}}|skickat från (min|{_APPS})\b.{{0,40}})\s*$", re.I)
# the same in any language: a short line naming a phone or mail program and a word for "sent"
# ("Wysłane z iPhone'a", "Lähetetty iPhonesta", "Отправлено с iPhone", "iPhoneから送信", "发自我的iPhone"),
# or Outlook's advertisement for its app ("Pobierz aplikację Outlook dla systemu Android")
_DEVICE_WORDS_ASCII = (r"iphon|ipad|android|galaxy|samsung|huawei|xiaomi|blackberry|outlook|gmail|yahoo"
                       r"|proton\s?mail|thunderbird|fairemail|k-9 mail|smartphone|mobile")
_DEVICE_WORD = re.compile(_DEVICE_WORDS_ASCII + r"|мобильн|スマートフォン|手机|手機", re.I)
#: the same for an ASCII line lower-cased (only the ASCII words can be in it): a search for these
#: words in any case was tried at every character of every short line of a mail
_DEVICE_WORD_LOWER = re.compile(_DEVICE_WORDS_ASCII)


def _has_device_word(s: str) -> bool:
    return (_DEVICE_WORD_LOWER.search(s.lower()) if s.isascii() else _DEVICE_WORD.search(s)) is not None


_SENT_WORD = re.compile(r"sent|gesendet|envoy|wysłan|lähetet|odeslán|odeslan|отправлен|sendt|enviad|inviat"
                        r"|verzonden|verstuurd|skickat|küldve|küldés|gönderil|送信|发自|發自|来自|來自|发送|發送|보냄"
                        r"|απεστάλη|εστάλη|trimis|poslano|poslané|išsiųsta|nosūtīts|saadetud", re.I)
_APP_AD = re.compile(r"outlook.*(ios|android)|(ios|android).*outlook", re.I)


def _device_line(line: str) -> bool:
    if _DEVICE.match(line):
        return True
    s = line.strip()
    if not s or len(s) > 60 or not _has_device_word(s) or len(s.split()) > 8:
        return False
    return (_SENT_WORD.search(s) is not None or _APP_AD.search(s) is not None) and not match_keyword(s)


# closing words; a sign-off is such a line at the very end, maybe with a name after it
_CLOSING = re.compile(
    r"^\s*((best|kind|warm|warmest|many)?\s*(regards|wishes)|best|all the best|thanks( again| a lot)?|thank you"
    r"|thx|ta|cheers|ciao|bye|later|cu|yours( truly| sincerely)?|sincerely|love|take care|good luck|have fun"
    r"|cordialement|bien (à|a) (vous|toi)|amitiés|bises|merci( beaucoup)?|à bientôt|salutations"
    r"|(viele |liebe |beste |schöne |herzliche )?grüße|(viele |liebe )?gruesse|gruß|lg|vg|mfg|danke( schön)?"
    r"|mit freundlichen grüßen|(met )?(vriendelijke )?groet(en)?|mvg|bedankt|dank( je| u)?( wel)?"
    r"|(un )?saludos?( cordiales)?|gracias|atentamente|abrazos"
    r"|(cordiali )?saluti|un saluto|grazie( mille)?|a presto|buona giornata"
    r"|pozdrawiam( serdecznie)?|pozdrowienia|serdecznie|dzięki|dziękuję|z poważaniem"
    r"|(ystävällisin )?terveisin|kiitos|moi|s pozdravem|(s )?díky|děkuji|zdravím"
    r"|с уважением|спасибо|всего (доброго|хорошего)|пока|удачи"
    r"|(med )?(vennlig|venlig|vänliga?) hilsen?|(vänliga )?hälsningar|mvh|tack|takk|tak"
    r"|atenciosamente|abraços|obrigad[oa]|üdv(özlettel)?|köszönöm|saygılar(ımla)?|teşekkürler"
    r"|よろしくお願いします|よろしくお願いいたします|よろしく|ありがとう(ございます)?|以上(です)?"
    r"|谢谢|謝謝|此致敬礼|此致|祝好|顺祝商祺|多谢|感谢)(?![^\W\d_])"
    r"\s*[,.!:;)\-–—。、！]*\s*(?P<name>.*)$", re.I)
_NAME = re.compile(r"^[^\W\d_][^\d]{0,38}$")
# a greeting as the first line ("Hi judge,", "Hallo zusammen!", "Cześć,", "Здравствуйте!", "こんにちは")
_GREETING = re.compile(
    r"^\s*(hi|hello|hey|hiya|dear|greetings|good (morning|afternoon|evening)|hallo|moin|servus|guten (tag|morgen)"
    r"|liebe[rs]?|bonjour|bonsoir|salut|cher|chère|hola|buenos días|buenas|ciao|salve|buongiorno|hoi|dag"
    r"|goedemorgen|cześć|witam|dzień dobry|hei|moi|terve|hej|hallå|god dag|ahoj|dobrý den|привет"
    r"|здравствуйте|добрый день|olá|oi|bom dia|merhaba|szia|γεια|こんにちは|こんばんは|おはよう(ございます)?"
    r"|お疲れ様です|你好|您好|大家好|안녕하세요)(?![^\W\d_])[^:]{0,40}$", re.I)


# -- reading --------------------------------------------------------------------------------------


def new_text(text: str) -> tuple[str, list[Ignored]]:
    """The player's new text and the blocks left out (in the order they appear).

    The text is read normalised (:func:`normalise`). Each pass marks lines the earlier ones
    left: inline PGP armour, an earlier message without quote marks (it runs to the end), the
    judge's whole mails, its notices and pieces (not inside press letters), ``>`` quotes, the
    signature, separator lines, phone lines and the sign-off at the end. A press letter's lines
    are given back as written (a letter is passed on, not read)."""
    written = text.split("\n")
    lines = list(written) if text.isascii() else [normalise(line) for line in written]  # (ASCII: as written)
    kind: list[Ignored | None] = [None] * len(lines)  # which block each line was left out in

    unescaped = _mark_pgp(lines, kind)
    cut = _quote_cut(lines, kind)
    if cut is not None:
        start, block = cut
        _mark(lines, kind, range(start, len(lines)), block)
    judged = _as_the_judge_writes(lines)
    _mark_judge_mails(judged, kind)
    # a press letter is not executed: pieces of the judge's output in it are the writer's to send
    letters = _press_bodies(lines, kind)
    for k in letters:
        kind[k] = _LETTER
    _mark_judge_notices(judged, kind)
    for k in letters:
        kind[k] = None
    _mark_quotes(lines, kind)
    _mark_signature(lines, kind)
    # the lines marked since the letters were found are no commands: the letters' other lines are the same
    in_letter = set(letters)
    _mark_rules(lines, kind, in_letter)
    _mark_signoffs(lines, kind, in_letter)
    _mark_greeting(lines, kind)

    _merge_neighbours(lines, kind)
    as_written = in_letter - unescaped
    kept = [written[k] if k in as_written else line for k, (line, block) in enumerate(zip(lines, kind))
            if block is None]
    while kept and not kept[-1].strip():
        kept.pop()
    blocks: dict[int, Ignored] = {}  # by identity: two blocks may be alike
    for k in kind:
        if k is not None:
            blocks.setdefault(id(k), k)
    return "\n".join(kept), [b for b in blocks.values() if b.lines]


def normalise(line: str) -> str:
    """A line as the judge reads it: invisible format characters (Unicode category Cf: the
    byte-order mark, zero-width spaces and joiners, directional marks and embeddings, the soft
    hyphen) removed, then NFKC (fullwidth letters and the fullwidth colon, ligatures, no-break
    spaces become their plain forms). "\ufeffSIGNON", "SIG\u200bNON" and "ＳＩＧＮＯＮ" are SIGNON."""
    if line.isascii():
        return line
    return unicodedata.normalize("NFKC", strip_invisible(line))


_ASCII = frozenset(map(chr, range(128)))


def strip_invisible(s: str) -> str:
    """``s`` without invisible format characters (Unicode category Cf)."""
    if s.isascii():
        return s
    # (each other character asked once, not each character of the line)
    invisible = [c for c in set(s) - _ASCII if unicodedata.category(c) == "Cf"]
    return s.translate(dict.fromkeys(map(ord, invisible))) if invisible else s


_LETTER = Ignored("letter", 0)  # stands for a press letter's lines while the judge's output is looked for


def _report_press_heading(lines: list[str], k: int) -> bool:
    """A report's "Press" heading (over a rule, or over "From England to France:" in its HTML part)."""
    nxt = lines[k + 1] if k + 1 < len(lines) else ""
    return lines[k].strip() == "Press" and (re.match(r"^\s*-{3,}\s*$", nxt) is not None
                                            or re.match(r"^\s*From \S.* to \S.*:\s*$", nxt) is not None)


def _press_bodies(lines: list[str], kind: list[Ignored | None]) -> list[int]:
    """The lines of PRESS/BROADCAST letters and DIARY notes, as :func:`commands.parse_commands` reads them: up to
    ENDPRESS, SIGNOFF, a ``--`` line or the end. The judge's press notices and a report's press
    heading start with those words too; they are not letters."""
    out: list[int] = []
    inside = False
    for k, line in enumerate(lines):
        if kind[k] is not None:
            continue
        m = match_keyword(line.strip())
        if inside:
            if (m and m[0] in ("ENDPRESS", "SIGNOFF") and not m[1]) or _SIGNATURE.match(line):
                inside = False
            else:
                out.append(k)
        elif m and opens_letter(*m) and not _PRESS_HEADER.match(line) and not _report_press_heading(lines, k):
            inside = True
    return out


def _merge_neighbours(lines: list[str], kind: list[Ignored | None]) -> None:
    """Blocks of one kind with only blank lines between them are one note ("Ignored 40 lines of
    the judge's own earlier mail", not three notes for a pasted HISTORY reply)."""
    groups: list[list] = []  # [kind, lines, marker] of each note
    group_of: dict[int, int] = {}  # block (by identity) -> its note
    prev: int | None = None
    for k, line in enumerate(lines):
        cur = kind[k]
        if cur is None:
            if line.strip():
                prev = None
            continue
        g = group_of.get(id(cur))
        if g is None:
            if prev is not None and groups[prev][0] == cur.kind and cur.kind in ("judge", "quote"):
                g = prev
                groups[g][1] += cur.lines
            else:
                g = len(groups)
                groups.append([cur.kind, cur.lines, cur.marker])
            group_of[id(cur)] = g
        prev = g
    notes = [Ignored(*g) for g in groups]
    for k, cur in enumerate(kind):
        if cur is not None:
            kind[k] = notes[group_of[id(cur)]]


def _mark(lines: list[str], kind: list[Ignored | None], idx: range | list[int], proto: Ignored) -> None:
    """Mark lines ``idx`` (those not yet marked) as one block; its count is of non-blank lines."""
    free = [i for i in idx if kind[i] is None]
    block = Ignored(proto.kind, sum(1 for i in free if lines[i].strip()), proto.marker)
    for i in free:
        kind[i] = block


# -- an earlier message under the new text -------------------------------------------------------


def _field_line(line: str) -> tuple[str, str] | None:
    """(label, value) of a "Label: value" line, or None."""
    m = _FIELD_RE.match(line)
    if not m or len(m.group(1)) > 30:
        return None
    return m.group(1), m.group(2) or ""


def _field(line: str) -> str | None:
    f = _field_line(line)
    return None if f is None else _FIELD.get(f[0].lower())


def _separator_like(line: str) -> bool:
    """A rule or a dashed line ("-----Původní zpráva-----", "________", "‐‐‐‐ Original Message ‐‐‐‐")."""
    if _RULE.match(line):
        return True
    m = _DASHED.match(line)
    # words between the dashes: a lone letter ("____ A --") is no separator's title
    return m is not None and len(line.strip()) <= 80 and re.search(r"[^\W\d_]{2}", m.group(1)) is not None


def header_block(lines: list[str], i: int, parsed: list[tuple[str, str] | None] | None = None) -> int | None:
    """If a mail header block (as Outlook writes an earlier message's) starts at line ``i``, the
    number of lines it spans.

    Recognised by its shape, in any language and script: a run of 3 to 7 "Label: value" lines
    (a wrapped value may take one more line) holding an address and a date, at a boundary (the
    start of the text, after a blank line or a separator). Or by its names: a From line and a
    Sent/Date line (in the languages of ``_FIELD_NAMES``), which Outlook writes even without an
    address. One header-like line is not enough: a press letter may start "To: France", or
    "From: England / To: France / Subject: …". ``parsed``: :func:`_field_line` of every line,
    when the caller has it."""
    def field(k: int) -> tuple[str, str] | None:
        return _field_line(lines[k]) if parsed is None else parsed[k]

    first = field(i)
    if first is None:
        return None
    boundary = i == 0 or not lines[i - 1].strip() or _separator_like(lines[i - 1])
    if not boundary and _FIELD.get(first[0].lower()) not in ("from", "date", "subject"):
        return None  # (most lines of a run of "Label: value" lines: a block starts only once)
    fields: list[tuple[str, str]] = []
    j = i
    while j < len(lines) and j - i < 12:
        f = field(j)
        if f is not None:
            fields.append(f)
        elif not lines[j].strip() or j + 1 >= len(lines) or field(j + 1) is None:
            break  # a wrapped value ("To: a; b;\n c") is allowed one continuation line
        else:
            fields.append(("", lines[j]))
        j += 1
    named = [_FIELD.get(label.lower()) for label, _ in fields]
    if named[0] in ("from", "date", "subject") and {"from", "date"} <= set(named):
        return j - i
    labelled = sum(1 for label, _ in fields if label)
    if not boundary or not 3 <= labelled <= 7:
        return None
    values = " ".join(v for _, v in fields)[:2000]
    if _DATE.search(values) and (("@" in values and _ADDRESS.search(values)) or (i > 0 and _separator_like(lines[i - 1]))):
        return j - i
    return None


def _is_attribution(joined: str) -> bool:
    """Whether a line ending in ":" (or up to three, joined) introduces an earlier message:
    "On <date>, <name> wrote:" (a start word, the verb, a date or an address); the verb with an
    address and a date ("Bob (bob@x) kirjoitti 24.11.2026:", "Bob <bob@x> 于2026年11月24日写道:");
    the verb with a time or a day ("24.11.2026 10:00, Bob пишет:"); or, as Gmail writes it in
    Russian and Japanese, no verb at all: a date and an address ("2026年11月24日(火) 10:00 Bob <bob@x>:")."""
    verb = _ATTR_VERB.search(joined) is not None
    address = "@" in joined and _ADDRESS.search(joined) is not None
    if verb and (_ATTR_START.match(joined) and _HAS_DATE_OR_ADDRESS.search(joined)
                 or address and _DATE.search(joined) or _TIME_OR_DAY.search(joined)):
        return True
    return address and _TIME_OR_DAY.search(joined) is not None and len(joined) <= 250


def _attribution(lines: list[str], i: int) -> int | None:
    """If an attribution starts at line ``i`` (possibly wrapped over up to three lines as Gmail
    does), the number of lines it spans."""
    first = lines[i].strip()
    if not first or first.startswith(">"):
        return None
    if not first.endswith(":") and not (_ATTR_START.match(first) or _HAS_DATE_OR_ADDRESS.search(first)):
        return None  # a wrapped attribution starts with its date, its address or its start word
    joined = ""
    for n in range(3):
        if i + n >= len(lines) or not lines[i + n].strip() or lines[i + n].lstrip().startswith(">"):
            return None
        joined = (joined + " " + lines[i + n].strip()).strip()
        if len(joined) > 400:
            return None  # mail programs write (and wrap) it short
        if joined.endswith(":"):
            return n + 1 if _is_attribution(joined) and not match_keyword(first) else None
    return None


def _next_text(lines: list[str], i: int) -> str:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return lines[i] if i < len(lines) else ""


def _quote_cut(lines: list[str], kind: list[Ignored | None]) -> tuple[int, Ignored] | None:
    """Where an earlier message without ``>`` quote marks starts: everything from there on is old."""
    parsed = [_field_line(line) if ":" in line else None for line in lines]
    for i, line in enumerate(lines):
        if kind[i] is not None or not line.strip() or line.lstrip().startswith(">"):
            continue
        dashed = _DASHED.match(line)
        words = " ".join(dashed.group(1).lower().split()) if dashed else ""
        if words in _SEPARATOR_WORDS:
            return i, Ignored("quote", 0, line)
        if words in _FORWARD_WORDS or _FORWARD_LINE.match(line):
            return i, Ignored("forward", 0, line)
        n = header_block(lines, i, parsed) if parsed[i] is not None else None
        if n is not None:
            start = i
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            if k >= 0 and kind[k] is None and _separator_like(lines[k]):
                start = k  # Outlook's "________" (or any dashed line) above its header block
            return start, Ignored("quote", 0, line)
        n = _attribution(lines, i)
        if n is not None and not _next_text(lines, i + n).lstrip().startswith(">"):
            return i, Ignored("quote", 0, " ".join(l.strip() for l in lines[i:i + n]))
    return None


# -- inline PGP ---------------------------------------------------------------------------------

_PGP_BEGIN = re.compile(r"^\s*-----BEGIN PGP (SIGNED MESSAGE|SIGNATURE|MESSAGE|PUBLIC KEY BLOCK)-----\s*$")
_PGP_ARMOR_HEADER = re.compile(r"^\s*(Hash|Version|Comment|Charset|MessageID):")


def _mark_pgp(lines: list[str], kind: list[Ignored | None]) -> set[int]:
    """Inline PGP (RFC 4880 section 7): the "BEGIN PGP SIGNED MESSAGE" line with its "Hash:"
    lines, the signature block (and an inline encrypted message or key, which cannot be read) are
    notes. The signed text between is the player's: its dash-escaped lines ("- -- ") are
    unescaped in ``lines``; their indexes are returned."""
    unescaped: set[int] = set()
    i = 0
    while i < len(lines):
        m = _PGP_BEGIN.match(lines[i])
        if m is None or kind[i] is not None:
            i += 1
            continue
        what = m.group(1)
        if what == "SIGNED MESSAGE":
            j = i + 1
            while j < len(lines) and _PGP_ARMOR_HEADER.match(lines[j]):
                j += 1
            if j < len(lines) and not lines[j].strip():
                j += 1
            _mark(lines, kind, range(i, j), Ignored("pgp", 0, lines[i]))
            while j < len(lines) and not _PGP_BEGIN.match(lines[j]):
                if lines[j].startswith("- "):
                    lines[j] = lines[j][2:]
                    unescaped.add(j)
                j += 1
            i = j
            continue
        end = i + 1
        while end < len(lines) and not re.match(rf"^\s*-----END PGP {what}-----\s*$", lines[end]):
            end += 1
        _mark(lines, kind, range(i, min(end + 1, len(lines))),
              Ignored("encrypted" if what == "MESSAGE" else "pgp", 0, lines[i]))
        i = end + 1
    return unescaped


def _mark_rules(lines: list[str], kind: list[Ignored | None], letters: set[int]) -> None:
    """A separator line ("________", "-----", "=====") outside a press letter is no order and no
    command: a note, and the lines under it are read (with a header block under it, it went with
    the earlier message)."""
    for i, line in enumerate(lines):
        if kind[i] is None and i not in letters and _RULE.match(line) and not _SIGNATURE.match(line):
            _mark(lines, kind, [i], Ignored("rule", 0, line))


def _next_nonblank(lines: list[str]) -> list[int]:
    """For each line, the index of the first non-blank line at or after it (len(lines) if none)."""
    nxt = [len(lines)] * (len(lines) + 1)
    for i in range(len(lines) - 1, -1, -1):
        nxt[i] = i if lines[i].strip() else nxt[i + 1]
    return nxt


def _mark_quotes(lines: list[str], kind: list[Ignored | None]) -> None:
    """``>`` quotes anywhere (bottom-posting keeps the text after them), each with its attribution."""
    quoted = [line.lstrip().startswith(">") for line in lines] + [False]
    if not any(q and k is None for q, k in zip(quoted, kind)):
        return  # a block is marked only above a quoted line still unmarked: none, so nothing to look for
    nxt = _next_nonblank(lines)
    i = 0
    while i < len(lines):
        if kind[i] is not None:
            i += 1
            continue
        n = _attribution(lines, i) or _bare_attribution(lines, i)
        start = i
        j = nxt[i + (n or 0)] if i + (n or 0) < len(lines) else len(lines)
        if j >= len(lines) or kind[j] is not None or not quoted[j]:
            i = j if (not n and j > i) else i + 1  # a blank run leads to the same line: skip it
            continue
        end = j
        while end < len(lines) and kind[end] is None and (quoted[end] or (not lines[end].strip() and quoted[nxt[end]])):
            end += 1
        if n:
            marker = " ".join(l.strip() for l in lines[start:start + n])
        else:  # Apple and iPhone Mail quote the attribution too
            first = [l.lstrip("> ").rstrip() for l in lines[j:end]]
            marker = first[0] if first and (_attribution(first, 0) or _bare_attribution(first, 0)) else ""
        _mark(lines, kind, range(start, end), Ignored("quote", 0, marker))
        i = end


def _bare_attribution(lines: list[str], i: int) -> int | None:
    """"Bob <bob@example.org> wrote:", "On Tuesday, Bob wrote:": only trusted right above ``>`` lines."""
    line = lines[i]
    # (the expression ends in ":" and white space: a line that does not is none, found without
    # the search of its verbs, tried at every character)
    if line.rstrip().endswith(":") and _ATTR_VERB.search(line) and not line.lstrip().startswith(">"):
        return 1
    return None


# -- the judge's own mail ---------------------------------------------------------------------------


def _either(patterns: list[re.Pattern[str]]) -> Callable[[str], re.Match[str] | None]:
    """Whether one of ``patterns`` matches a line: one alternation, compiled once (a mail may
    have 50 000 lines), its ``match`` called directly (a line is asked up to five times)."""
    return re.compile("|".join(f"(?:{p.pattern})" for p in patterns)).match


_IS_JUDGE_START = _either(_JUDGE_START)
_IS_JUDGE_END = _either(_JUDGE_END)
_IS_JUDGE_ANCHOR = _either(_JUDGE_ANCHOR)
_IS_JUDGE_SHAPE = _either([p for p in _JUDGE_LINE if p is not _STATUS_LINE])
_STATUS_WORDS_LOWER = re.compile(_STATUS_WORDS)


def _IS_JUDGE_LINE(line: str) -> re.Match[str] | None:  # noqa: N802 (one of the _IS_JUDGE_* tests)
    """Whether one of :data:`_JUDGE_LINE` matches a line. The status's words are looked for in
    the line lower-cased when it is one ASCII line (the same answer: case-insensitive ASCII),
    not by ``.*`` and a case-insensitive alternation tried at every character (most of the cost
    of asking this of a player's line)."""
    found = _IS_JUDGE_SHAPE(line)
    if found is not None:
        return found
    if line.isascii() and "\n" not in line:
        return _STATUS_WORDS_LOWER.search(line.lower())
    return _STATUS_LINE.match(line)


def _is_title(lines: list[str], i: int) -> bool:
    """A report's title: "Game tg - Standard Diplomacy - Spring 1901 Movement" over a rule of ``=``
    (or its HTML part's "Game tg — Spring 1901 Movement")."""
    return lines[i].lstrip().startswith("Game ") and (
        _HTML_TITLE.match(lines[i]) is not None
        or (i + 1 < len(lines) and re.match(r"^\s*={10,}\s*$", lines[i + 1]) is not None))


def _as_the_judge_writes(lines: list[str]) -> list[str]:
    """``lines`` for the passes that find the judge's mails: the (at most two) example orders right
    under the Game Starting mail's "SIGNON Fgame mypassword" indented, as the judge writes them in
    its text part (an HTML part copied as text loses the indent), so they count as the judge's."""
    out = list(lines)
    for k, line in enumerate(lines):
        if _EXAMPLE_SIGNON.match(line):
            for j in range(k + 1, min(k + 3, len(lines))):
                if not lines[j].strip():
                    break
                out[j] = "  " + lines[j].lstrip()
    return out


def _mark_judge_mails(lines: list[str], kind: list[Ignored | None]) -> None:
    """A copy of a whole mail of the judge's must not be executed again: a reply or report from
    its header (":: Judge: …", or a report's title) to its footer ("No errors encountered.",
    "Error flag set.", a report's signature). A reply outside a game has no header: from its
    footer back to the player's last command or order above it."""
    n = len(lines)
    # for each line, the next footer, header and line already left out (scanning once, not per header)
    next_end, next_start, next_marked = [n] * (n + 1), [n] * (n + 1), [n] * (n + 1)
    for k in range(n - 1, -1, -1):
        next_end[k] = k if _IS_JUDGE_END(lines[k]) else next_end[k + 1]
        next_start[k] = k if _IS_JUDGE_START(lines[k]) else next_start[k + 1]
        next_marked[k] = k if kind[k] is not None else next_marked[k + 1]
    i = 0
    while i < n:
        if kind[i] is None and (_IS_JUDGE_START(lines[i]) or _is_title(lines, i)):
            end = next_end[i + 1]
            if end < n and end < next_start[i + 1] and end < next_marked[i + 1]:
                while end + 1 < n and kind[end + 1] is None and _IS_JUDGE_END(lines[end + 1]):
                    end += 1  # "1 error encountered." / "Error flag set."
                first = j = i
                while j > 0 and kind[j - 1] is None and (not lines[j - 1].strip()
                                                         or lines[j - 1].lstrip().startswith(">")):
                    j -= 1
                    if lines[j].strip():
                        first = j  # the echo of the command it answers ("> HELP")
                _mark(lines, kind, range(first, end + 1), Ignored("judge", 0, lines[i]))
                i = end + 1
                continue
        i += 1
    for end in range(n):
        if kind[end] is None and _IS_JUDGE_END(lines[end]):
            i = end
            while i > 0 and kind[i - 1] is None and not _players_line(lines[i - 1]):
                i -= 1
            first = min(k for k in range(i, end + 1) if lines[k].strip())
            _mark(lines, kind, range(first, end + 1), Ignored("judge", 0, lines[first]))


def _mark_judge_notices(lines: list[str], kind: list[Ignored | None]) -> None:
    """The judge's notices (no footer) and pieces of its mails. A notice runs from its header (or a
    press notice's "Message from England to France in 'tg':") to the player's first command; a
    piece is a run of judge-like lines from a line only the judge writes ("(tg.001)" headings,
    "*** Error:", "Time to deadline:") on. A lone "England: Fleet London -> North Sea." is a
    player's order."""
    n = len(lines)
    i = 0
    while i < n:
        press = kind[i] is None and _PRESS_HEADER.match(lines[i]) is not None
        if kind[i] is None and (press or _IS_JUDGE_START(lines[i])):
            j = i + 1
            while j < n and kind[j] is None and not _IS_JUDGE_START(lines[j]) and not _players_line(
                    lines[j], commands_only=press):  # a letter may hold anything but a command
                j += 1
            last = max(k for k in range(i, j) if lines[k].strip())
            _mark(lines, kind, range(i, last + 1), Ignored("judge", 0, lines[i]))
            i = j
            continue
        i += 1

    def judgy(k: int) -> bool:
        # (the anchors include every start line: no need to ask for _JUDGE_START apart)
        return kind[k] is None and (not lines[k].strip() or _IS_JUDGE_ANCHOR(lines[k]) is not None
                                    or _IS_JUDGE_LINE(lines[k]) is not None or _is_title(lines, k))

    i = 0
    while i < n:
        if not judgy(i):
            i += 1
            continue
        j = i
        while j < n and judgy(j):
            j += 1
        run = [k for k in range(i, j) if lines[k].strip()]
        anchors = [k for k in run if _IS_JUDGE_ANCHOR(lines[k]) or _is_title(lines, k)]
        if anchors:  # from the first anchor on (the judge's mails start with one), and the echo above it
            first = anchors[0]
            while first > i and (not lines[first - 1].strip() or lines[first - 1].lstrip().startswith(">")):
                first -= 1
            _mark(lines, kind, range(first, run[-1] + 1), Ignored("judge", 0, lines[anchors[0]]))
        i = j


_ORDER_SHAPED = re.compile(r"^(((a|f|army|fleet)\s+)?\S+(\s+\S+){0,3}\s+(-|->|h|holds?|s|supports?|c|convoys?)(\s|$)"
                           r"|(build|remove|disband|waive)\s)", re.I)


def _players_line(line: str, commands_only: bool = False) -> bool:
    """A line that ends a judge's notice pasted above the player's text: a command or an order
    written at the start of the line (the judge indents its examples) that the judge never writes."""
    if not line or line[0].isspace() or _IS_JUDGE_ANCHOR(line) or _IS_JUDGE_LINE(line):
        return False
    if match_keyword(line.strip()) is not None:
        return True
    # the judge's lists end their items with "," or "." ("A Liverpool - Yorkshire." wrapped)
    return not commands_only and _ORDER_SHAPED.match(line) is not None and not line.rstrip().endswith((",", "."))


# -- signature and sign-offs ---------------------------------------------------------------------


def _mark_signature(lines: list[str], kind: list[Ignored | None]) -> None:
    for i, line in enumerate(lines):
        if kind[i] is None and _SIGNATURE.match(line):
            rest = [k for k in range(i + 1, len(lines)) if kind[k] is None]
            block = Ignored("signature", sum(1 for k in rest if lines[k].strip()), line)
            for k in [i] + rest:
                kind[k] = block
            return


def _unclosed_press(lines: list[str], kind: list[Ignored | None], upto: int) -> bool:
    """Whether line ``upto`` is inside a PRESS/BROADCAST letter or a DIARY note that runs to the end
    of the mail (its closing words belong to the letter)."""
    open_ = False
    for k in range(upto):
        if kind[k] is not None:
            continue
        m = match_keyword(lines[k].strip())
        if m and opens_letter(*m):
            open_ = True
        elif m and m[0] in ("ENDPRESS", "SIGNOFF") and not m[1]:
            open_ = False
    return open_


def _mark_greeting(lines: list[str], kind: list[Ignored | None]) -> None:
    """A greeting as the first line of the player's text, with more under it, or as the line right
    under a first line that is a command ("SIGNON ?game pw" / "Hi, I saw the open spot.")."""
    text = [i for i, k in enumerate(kind) if k is None and lines[i].strip()]
    if len(text) < 2:
        return
    first = 1 if match_keyword(lines[text[0]].strip()) else 0
    at = text[first]
    if _GREETING.match(lines[at]) and not match_keyword(lines[at].strip()):
        _mark(lines, kind, [at], Ignored("greeting", 0, lines[at].strip()))


def _mark_signoffs(lines: list[str], kind: list[Ignored | None], letters: set[int]) -> None:
    for i, line in enumerate(lines):
        # in a press letter only the phone lines of the table: the letter's own words are the writer's
        # (_device_line asks _DEVICE first itself: outside a letter it is the whole test)
        if kind[i] is None and (_device_line(line) if i not in letters else _DEVICE.match(line)):
            _mark(lines, kind, [i], Ignored("device", 0, line))
    tail = [i for i, k in enumerate(kind) if k is None and lines[i].strip()]
    # the closing words may come with up to three lines of name after them
    for back in range(1, min(4, len(tail)) + 1):
        i = tail[-back]
        m = _CLOSING.match(lines[i])
        if m is None or match_keyword(lines[i].strip()):
            continue
        name = m.group("name").strip()
        after = [lines[k].strip() for k in tail[-back + 1:]] if back > 1 else []
        if (name and not _is_name(name)) or not all(_is_name(a) for a in after):
            continue
        if _unclosed_press(lines, kind, i):
            return
        _mark(lines, kind, range(i, len(lines)), Ignored("signoff", 0, " ".join([lines[i].strip()] + after)))
        return
    # no closing words: a bare first name as the last line ("Bob", "- Bob"), under the player's text
    if len(tail) >= 2 and _bare_name(lines[tail[-1]]) and not _unclosed_press(lines, kind, tail[-1]):
        _mark(lines, kind, range(tail[-1], len(lines)), Ignored("name", 0, lines[tail[-1]].strip()))


# one word that is a name, not an order's or a command's: capitalised ("Bob", "Jean-Luc", "B.",
# "Łukasz", "Юрий"), or a short name in a script without case ("太郎", "小明")
_BARE_NAME = re.compile(r"^[-~–—\s]*([^\W\d_](?:[^\W\d_]|['’.-]){0,19})\s*$")
_NOT_NAMES = frozenset({"hold", "holds", "h", "waive", "build", "builds", "remove", "disband", "retreat", "support",
                        "supports", "convoy", "convoys", "move", "moves", "yes", "no", "ok", "okay", "done", "end",
                        "stop", "wait", "nowait", "draw", "army", "fleet", "a", "f"})


def _bare_name(line: str) -> bool:
    m = _BARE_NAME.match(line)
    if m is None or match_keyword(line.strip()):
        return False
    word = m.group(1)
    if word.lower().rstrip(".") in _NOT_NAMES:
        return False
    if word[0].isupper():
        rest = word[1:].replace("-", "").replace("'", "").replace("’", "").replace(".", "")
        return not rest or not rest.isupper() or len(word) <= 2  # "Bob", "B."; not "HOLD", "LON"
    return not word[0].islower() and len(word) <= 4  # no case: CJK


_CONTACT = re.compile(r"^(<?\S+@\S+\.\w+>?|<?(https?://|www\.)\S+>?|(tel|phone|mobile|mob|tél|handy)?[.:]?\s*"
                      r"[+(]?\d[\d ()./-]{5,}\d)$", re.I)


def _is_name(s: str) -> bool:
    """A name under closing words ("Bob", "Bob Smith", "B.", "-- Bob (England)") or a contact line
    (address, web page, telephone), not a command or an order."""
    if _CONTACT.match(s.strip()):
        return True
    s = s.strip(" -–—")
    words = s.split()
    if not words or len(words) > 4 or not _NAME.match(s) or match_keyword(s):
        return False
    # "A Lon H", "F Bre - Mao": a unit then a place is an order, not a name
    return not (len(words) > 1 and words[0].lower() in ("a", "f", "army", "fleet", "build", "remove", "disband"))
