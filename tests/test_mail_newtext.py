"""Only the new text of a mail is read, but all of it (issue 13, part 2).

Replies as real clients write them (tests/client_mails.py) keep the new orders and lose the
quoted old ones; the player's own lines that merely look like markers stay; format=flowed is
rejoined; every block left out is named with its reason.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import client_mails as cm
from judge.mail.language import parse_commands
from judge.mail.incoming import html_new_text, parse_message, unflow
from judge.mail.newtext import _separator_like, header_block, new_text, normalise

NEW = ["SIGNON Etg pw1", "F Lon - Nth", "", "F Edi - Nwg", "A Lvp - Yor"]
OLD = ["SIGNON Etg pw1", "F Lon - Eng", "F Edi - Nth", "A Lvp - Wal"]
CLIENTS = cm.all_clients(NEW, OLD)


def _read(raw: bytes) -> tuple[list[str], list[str]]:
    m = parse_message(raw, "judge@example.test")
    assert m.error is None and m.ignore is None
    return m.text.split("\n"), [b.describe() for b in m.ignored]


@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_a_client_reply_keeps_the_new_orders_and_drops_the_quoted_ones(client: str) -> None:
    m = parse_message(CLIENTS[client], "judge@example.test")
    assert m.text.split("\n") == NEW, m.text
    quotes = [b for b in m.ignored if b.kind in ("quote", "forward")]
    assert len(quotes) == 1, m.ignored
    # the block names what gave it away: the attribution, the header block or the separator
    marker = quotes[0].marker
    assert ("judge@example.test" in marker or "The Judge" in marker or "riginal" in marker
            or any(sep in marker for _, _, sep, _ in cm.OUTLOOK.values())), marker
    assert quotes[0].lines >= len(OLD)
    assert "Ignored" in quotes[0].describe() and "earlier message" in quotes[0].describe()


@pytest.mark.parametrize("lang", cm.LANGS)
def test_outlook_header_block_names_the_earlier_message_in_every_language(lang: str) -> None:
    names = cm.OUTLOOK[lang][0]
    text, ignored = _read(cm.outlook_desktop(lang, NEW, OLD))
    assert text == NEW
    assert ignored == [f"Ignored 8 quoted lines (an earlier message, from '{names[0].strip()} : The Judge "
                       f"<judge@example.test>')." if lang == "fr" else
                       f"Ignored 8 quoted lines (an earlier message, from '{names[0]}: The Judge "
                       f"<judge@example.test>')."]


@pytest.mark.parametrize("lang", cm.LANGS)
def test_html_only_outlook_reply_is_cut_at_the_html_level(lang: str) -> None:
    for raw in (cm.outlook_desktop(lang, NEW, OLD, html_only=True), cm.outlook_web(lang, NEW, OLD, html_only=True)):
        m = parse_message(raw, "judge@example.test")
        assert m.text.split("\n") == NEW
        assert [b.kind for b in m.ignored] == ["quote"]
        assert m.ignored[0].marker.startswith(cm.OUTLOOK[lang][0][0].strip())


def test_an_empty_text_part_beside_the_html_one_is_passed_over() -> None:
    raw = (b"From: a@example.test\r\nMessage-ID: <e@x>\r\nMIME-Version: 1.0\r\n"
           b"Content-Type: multipart/alternative; boundary=XX\r\n\r\n--XX\r\nContent-Type: text/plain\r\n\r\n"
           b" \r\n\r\n--XX\r\nContent-Type: text/html\r\n\r\n<div>LIST</div><blockquote>HELP</blockquote>\r\n"
           b"--XX--\r\n")
    m = parse_message(raw)
    assert m.text == "LIST" and [b.lines for b in m.ignored] == [1]


def test_html_markers_each_set_their_part_aside() -> None:
    cases = {
        '<div>A Lon H</div><div class="gmail_quote"><div class="gmail_attr">On Tue wrote:</div>'
        '<blockquote class="gmail_quote">F Edi H</blockquote></div>': "On Tue wrote:",
        '<p>A Lon H</p><div class="moz-cite-prefix">Am 24.11.26 um 10:00 schrieb J:<br></div>'
        '<blockquote type="cite">F Edi H</blockquote>': "Am 24.11.26 um 10:00 schrieb J:",
        '<div>A Lon H</div><div id="AppleOriginalContents"><div>F Edi H</div></div>': "F Edi H",
        '<div>A Lon H</div><blockquote><div>F Edi H</div></blockquote>': "F Edi H",
        '<div>A Lon H</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg"><b>From:</b> J</div>'
        '<div>F Edi H</div>': "From: J",
        '<div>A Lon H</div><div style="border:none; border-top:solid #B5C4DF 1.0pt; padding:3.0pt 0in 0in 0in">'
        '<p><b>From:</b> J<br><b>Sent:</b> Tuesday</p></div><p>F Edi H</p>': "From: J",
    }
    for html, marker in cases.items():
        text, ignored = html_new_text(html)
        assert text == "A Lon H", html
        assert [(b.kind, b.marker) for b in ignored] == [("quote", marker)], html


def test_a_bordered_box_without_a_header_block_is_the_players() -> None:
    box = '<div style="border:none;border-top:solid #E1E1E1 1.0pt;padding:3.0pt 0cm 0cm 0cm"><p>{}</p></div>'
    text, ignored = html_new_text("<p>A Lon H</p>" + box.format("F Edi H") + "<p>A Lvp H</p>")
    assert text == "A Lon H\nF Edi H\nA Lvp H" and ignored == []
    text, ignored = html_new_text("<p>A Lon H</p>" + box.format("<b>Von:</b> J<br><b>Gesendet:</b> Di") + "<p>x</p>")
    assert text == "A Lon H" and [(b.kind, b.lines) for b in ignored] == [("quote", 3)]


def test_thunderbird_cite_prefix_and_its_blockquote_are_one_block() -> None:
    text, ignored = html_new_text('<p>A Lon H</p><div class="moz-cite-prefix">On 1/1/26, J wrote:</div>'
                                  '<blockquote type="cite">F Edi H<br>A Lvp H</blockquote>')
    assert text == "A Lon H" and len(ignored) == 1 and ignored[0].lines == 3


def test_html_after_a_quote_is_read() -> None:
    """Bottom-posting in HTML: the text after a blockquote is new."""
    text, ignored = html_new_text("<blockquote>F Edi H</blockquote><div>A Lon H</div><div>A Lvp H</div>")
    assert text == "A Lon H\nA Lvp H" and ignored[0].lines == 1


# -- plain-text markers --------------------------------------------------------------------------


@pytest.mark.parametrize("attribution", [
    ["On Tue, Nov 24, 2026 at 10:00 AM The Judge <", "judge@example.test> wrote:"],
    ["Am Di., 24. Nov. 2026 um 10:00 Uhr schrieb The Judge", "<judge@example.test>:"],
    ["Le mar. 24 nov. 2026 à 10:00, The Judge <judge@example.test> a", "écrit :"],
    ["Op di 24 nov 2026 om 10:00 schreef The Judge <judge@example.test>:"],
    ["El mar, 24 nov 2026 a las 10:00, The Judge (<judge@example.test>)", "escribió:"],
    ["Il giorno mar 24 nov 2026 alle ore 10:00 The Judge <", "judge@example.test> ha scritto:"],
    ["The Judge <judge@example.test> schrieb am 24.11.2026 um 10:00:"],
])
def test_attributions_wrapped_or_not_with_and_without_quote_marks(attribution: list[str]) -> None:
    for old in (["> " + l for l in OLD], OLD):  # quoted with ">" or pasted as is
        if not attribution[0].startswith(("On", "Am", "Le", "Op", "El", "Il")) and old is OLD:
            continue  # a bare "X wrote:" is only trusted right above ">" lines
        text, ignored = new_text("\n".join(NEW + [""] + attribution + [""] + old))
        assert text.split("\n") == NEW
        assert len(ignored) == 1 and ignored[0].marker == " ".join(attribution)


def test_an_attribution_without_a_date_counts_right_above_quote_marks() -> None:
    text, ignored = new_text("A Lon H\n\nOn Tuesday, The Judge wrote:\n> F Edi H\n")
    assert text == "A Lon H" and ignored[0].marker == "On Tuesday, The Judge wrote:"
    text, ignored = new_text("On Tuesday, The Judge wrote:\nA Lon H\n")  # no quote under it: a line of the player's
    assert text == "On Tuesday, The Judge wrote:\nA Lon H" and ignored == []


def test_bottom_posting_keeps_the_text_under_the_quote() -> None:
    text, ignored = new_text("On 24/11/2026 10:00, The Judge wrote:\n> F Lon - Eng\n> A Lvp - Wal\n\n"
                             "SIGNON Etg pw1\nF Lon - Nth\n\n> A Lvp - Wal\n\nA Lvp - Yor")
    assert [l for l in text.split("\n") if l] == ["SIGNON Etg pw1", "F Lon - Nth", "A Lvp - Yor"]
    assert [b.lines for b in ignored] == [3, 1]


def test_forwarded_message_is_named_as_such() -> None:
    text, ignored = new_text("LIST\n\n---------- Forwarded message ---------\nFrom: X <x@example.test>\n"
                             "Date: Tue, Nov 24, 2026\nSubject: orders\n\nF Lon - Eng")
    assert text == "LIST" and ignored[0].kind == "forward"
    assert "forwarded message" in ignored[0].describe()


OWN_LINES = {
    "heading": ["SIGNON Etg pw1", "--- Spring 1902 ---", "A Lon H", "--- Fall 1902 ---", "F Edi H"],
    "underscores": ["SIGNON Etg pw1", "A Lon H", "____", "F Edi H", "________________________________", "A Lvp H"],
    "press letter to": ["SIGNON Etg pw1", "PRESS TO F", "To: France", "From: England", "", "Let us ally.",
                        "ENDPRESS", "A Lon H"],
    "press letter from": ["SIGNON Etg pw1", "PRESS TO F", "From: England", "To: France", "Subject: the Channel",
                          "Keep out of it.", "ENDPRESS", "A Lon H"],
    "changes": ["SIGNON Etg pw1", "Only changes from what I wrote:", "A Lon H"],
    # what email-reply-parser dropped: a heading or a rule after a blank line, one From: line
    "heading after a blank": ["SIGNON Etg pw1", "A Lon H", "", "--- Spring 1902 ---", "F Edi H"],
    "rule after a blank": ["SIGNON Etg pw1", "A Lon H", "", "____", "", "F Edi H"],
    "from line after a blank": ["SIGNON Etg pw1", "A Lon H", "", "From: England, with love", "F Edi H"],
    "one from line": ["SIGNON Etg pw1", "A Lon H", "From: Bob, who wrote:", "F Edi H"],
    "on to": ["SIGNON Etg pw1", "On to Munich, as I wrote:", "A Ber - Mun", "A Kie - Ber"],
    "wrote in press": ["SIGNON Etg pw1", "BROADCAST", "Germany wrote to me: peace.", "ENDPRESS", "A Lon H"],
    "dashes": ["SIGNON Etg pw1", "A Lon H", "-----", "F Edi H", "=====", "A Lvp H"],
    "to line": ["SIGNON Etg pw1", "To: whom it may concern", "A Lon H"],
    "lone order list line": ["SIGNON Etg pw1", "England: Fleet London -> North Sea.", "A Lvp H"],
    "judge-like words": ["SIGNON Etg pw1", "A Lon H", "Your orders are complete?", "F Edi H"],
}


@pytest.mark.parametrize("case", sorted(OWN_LINES))
def test_the_players_own_lines_are_not_quote_markers(case: str) -> None:
    text, ignored = new_text("\n".join(OWN_LINES[case]))
    # a separator line ("____", "-----") is no order: a note of its own; the lines around it are read
    rules = [l for l in OWN_LINES[case] if len(l) >= 3 and set(l) <= set("-_=")]
    assert text.split("\n") == [l for l in OWN_LINES[case] if l not in rules]
    assert [b.describe() for b in ignored] == [f"Ignored a separator line '{r}'." for r in rules]


def test_a_header_block_needs_from_and_a_date() -> None:
    assert header_block(["From: England", "To: France"], 0) is None
    assert header_block(["From: England", "To: France", "Subject: x"], 0) is None
    assert header_block(["To: France", "From: England", "Date: 1 Jan"], 0) is None
    assert header_block(["From: J <j@x>", "Sent: Tuesday"], 0) == 2
    assert header_block(["Subject: x", "Date: Tue", "From: J <j@x>", "To: B"], 0) == 4  # Thunderbird's forward
    assert header_block(["*From:* J <j@x>", "*Date:* Tue", "*To:* B"], 0) == 3  # Gmail's text of Outlook's bold
    assert header_block(["Von: J", "Gesendet: Di", "An: a@x; b@x;", "   c@x", "Betreff: x"], 0) == 5


# -- the judge's own earlier mail ---------------------------------------------------------------

REPLY = """:: Judge: TEST  Game: tg  Variant: Standard Diplomacy
:: Deadline: S1901M Tue Jan 08 2030 12:00:00 +0000

> SIGNON Etg ****
Signed on as England in 'tg'.
> F Lon - Eng
> A Yor - Lon
*** Error: there is no army in Yorkshire

Movement orders for Spring of 1901. (tg.001)

England: Fleet Edinburgh -> Norwegian Sea.
England: Army Liverpool -> Wales.
England: Fleet London -> English Channel.

Your orders are complete.
Deadline: Tue Jan 08 2030 12:00:00 +0000  (grace until Wed Jan 09 2030
00:00:00 +0000)
Time to deadline: 1 day.

1 error encountered.
Error flag set."""

STATUS = """Movement orders for Spring of 1901. (tg.001)

England: Fleet Edinburgh -> Norwegian Sea.
England: Army Liverpool, No Order Processed.

Orders not received for all units (1 missing): you will be
considered late if they are not complete by the deadline. Unordered
units hold.
Deadline: Tue Jan 08 2030 12:00:00 +0000  (grace until Wed Jan 09 2030
00:00:00 +0000)
Time to deadline: 1 day."""

GRACE = """Movement orders for Spring of 1901. (tg.001)

England: Fleet Edinburgh -> Norwegian Sea.
England: Army Liverpool, No Order Processed.

The deadline has passed and your orders are not complete (1 missing):
you are late.
Still late: England (you), Italy.
The phase is processed as soon as every power's orders are complete, or
at the end of the grace period, Wed Jan 09 2030 00:00:00 +0000, with the
orders given by then. A power still late then is put in civil disorder:
its unordered units hold.
A power that sends no orders at all for 2 phases in a row is opened for
takeover.
Deadline: Tue Jan 08 2030 12:00:00 +0000  (grace until Wed Jan 09 2030
00:00:00 +0000)
Time to deadline: the deadline has passed; grace ends in 11 hours, 30
minutes."""

PROCESSING = """Adjustment orders for Winter of 1901. (tg.003)

England may build 1 unit (free home centres: London).
England:                  Builds an army in London.

Your orders are complete.
Every power's orders are in: the phase is being processed now, and the
results follow by mail."""

ADJUSTMENT = """Adjustment orders for Winter of 1901. (tg.003)

England may build 2 units (free home centres: Edinburgh, London).
No orders received.

Orders not complete (England: 2 builds due): you will be considered late
if they are not complete by the deadline. Builds not ordered are waived.
Deadline: Tue Jan 08 2030 12:00:00 +0000  (grace until Wed Jan 09 2030
00:00:00 +0000)
Time to deadline: 1 day."""


@pytest.mark.parametrize("where", ["below", "above", "between"])
@pytest.mark.parametrize("pasted", [REPLY, STATUS, GRACE, PROCESSING, ADJUSTMENT])
def test_the_judges_own_output_is_never_read_again(where: str, pasted: str) -> None:
    mine = ["SIGNON Etg pw1", "F Lon - Nth", "A Lvp - Yor"]
    if where == "below":
        body = mine + [""] + pasted.split("\n")
    elif where == "above":
        body = pasted.split("\n") + [""] + mine
    else:
        body = mine[:2] + [""] + pasted.split("\n") + [""] + mine[2:]
    text, ignored = new_text("\n".join(body))
    assert [l for l in text.split("\n") if l.strip()] == mine
    assert len(ignored) == 1 and ignored[0].kind == "judge"
    assert ignored[0].lines == sum(1 for l in pasted.split("\n") if l.strip())
    assert ignored[0].describe().startswith(f"Ignored {ignored[0].lines} lines of the judge's own earlier mail")


# -- signature and sign-offs ----------------------------------------------------------------------


def test_signature_is_named_with_its_length() -> None:
    text, ignored = new_text("SIGNON Etg pw1\nA Lon H\n-- \nBob Player\nhttps://bob.example.test\n")
    assert text == "SIGNON Etg pw1\nA Lon H"
    assert [b.describe() for b in ignored] == ["Ignored your signature (2 lines after '-- ')."]


@pytest.mark.parametrize("signoff", [
    "Regards, Bob", "Thanks!", "Cheers", "Best,\nBob", "Kind regards,\n\nBob Player", "Thanks again - Bob",
    "Viele Grüße\nBob", "LG Bob", "Mit freundlichen Grüßen\nBob Player\nEngland", "Cordialement,\nBob",
    "Merci !", "Met vriendelijke groet,\nBob", "Groeten, Bob", "Saludos,\nBob", "Un saludo", "Gracias!",
    "Cordiali saluti\nBob", "Grazie mille", "Ciao, Bob",
    "Best regards,\nBob Player\nbob@example.test\n+44 20 7946 0958",
])
def test_sign_offs_are_a_note(signoff: str) -> None:
    text, ignored = new_text("SIGNON Etg pw1\nA Lon H\n\n" + signoff + "\n")
    assert text == "SIGNON Etg pw1\nA Lon H"
    assert [b.kind for b in ignored] == ["signoff"]
    assert ignored[0].describe() == f"Ignored your sign-off '{' '.join(signoff.split())}'."


@pytest.mark.parametrize("device", [
    "Sent from my iPhone", "Sent from my Galaxy", "Get Outlook for Android", "Sent from Outlook for iOS",
    "Von meinem iPhone gesendet", "Gesendet von meinem iPad", "Envoyé de mon iPhone", "Obtenir Outlook pour Android",
    "Verzonden vanaf mijn iPhone", "Verstuurd vanaf mijn iPhone", "Enviado desde mi iPhone", "Inviato da iPhone",
    "Inviato dal mio dispositivo Galaxy", "Sent with Proton Mail secure email.", "Gesendet mit der WEB.DE Mail App",
    "Sent from Yahoo Mail for iPhone", "Sent from Mail for Windows",
])
def test_phone_lines_are_a_note(device: str) -> None:
    text, ignored = new_text(f"SIGNON Etg pw1\nA Lon H\nThanks, Bob\n\n{device}")
    assert text == "SIGNON Etg pw1\nA Lon H"
    assert [b.kind for b in ignored] == ["signoff", "device"]
    text, ignored = new_text(f"SIGNON Etg pw1\n{device}\nA Lon H")  # the orders under it are read
    assert text == "SIGNON Etg pw1\nA Lon H" and [b.kind for b in ignored] == ["device"]


@pytest.mark.parametrize("body", [
    "SIGNON Etg pw1\nThanks,\nA Lon - Nth",  # an order is not a name
    "SIGNON Etg pw1\nA Lon H\nCheers\nENDPRESS",  # nor is a command
    "SIGNON Etg pw1\nPRESS TO F\nDear Paris, shall we?\nRegards,\nLondon",  # the letter's own closing
    "SIGNON Etg pw1\nA Lon H\nThanks for the stab, I will remember it 1901",
    "SIGNON Etg pw1\nA Lon H\nByelorussia is not on the map",
    "SIGNON Etg pw1\nPRESS TO F\nSent with love from London\nGesendet von Berlin\nENDPRESS\nA Lon H",
])
def test_closing_words_that_are_not_a_sign_off_stay(body: str) -> None:
    text, ignored = new_text(body)
    assert text == body and ignored == []


# -- format=flowed ------------------------------------------------------------------------------


def test_unflow_rejoins_soft_breaks() -> None:
    assert unflow("PRESS TO F\nThis is a long \nletter.\nENDPRESS") == "PRESS TO F\nThis is a long letter.\nENDPRESS"
    assert unflow("long \nline", delsp=True) == "longline"  # delsp=yes: the space was the sender's
    assert unflow("long  \nline", delsp=True) == "long line"
    assert unflow(" From the north\n >not a quote") == "From the north\n>not a quote"  # space-stuffing undone
    assert unflow("> quoted \n> text\n>> deeper \n>> still") == "> quoted text\n>> deeper still"
    assert unflow("para \n> quote") == "para \n> quote"  # a quote depth change ends the paragraph
    assert unflow("orders\n-- \nBob") == "orders\n-- \nBob"  # the signature separator is never flowed
    assert unflow("a \nb\n\nc") == "a b\n\nc"


def test_flowed_mail_from_thunderbird_and_apple_is_rejoined() -> None:
    letter = ("PRESS TO F", "Dear Paris, this is a long letter about the Channel and Belgium and the future "
              "of our alliance, written without any line breaks at all.", "ENDPRESS", "A Lon H")
    for raw in (cm.thunderbird("en", list(letter), OLD), cm.apple_mail("en", list(letter), OLD)):
        assert b'format="flowed"' in raw
        m = parse_message(raw, "judge@example.test")
        assert m.text.split("\n") == list(letter)
        press = parse_commands(m.text)[0]
        assert press.body == letter[1]


def test_text_that_is_not_flowed_keeps_its_trailing_spaces_apart() -> None:
    raw = cm.thunderbird("en", ["A Lon H ", "F Edi H"], OLD, flowed=False)
    assert parse_message(raw).text.split("\n") == ["A Lon H ", "F Edi H"]


# -- nothing the player wrote as commands is lost ------------------------------------------------

_WORDS = st.sampled_from(["A", "F", "Lon", "Nth", "-", "H", "S", "From", "To:", "wrote", "wrote:", "On", "Am",
                          "schrieb", "Sent:", "Von:", "Date:", "Subject:", "Regards", "Thanks", "--", "____",
                          "Spring", "1902", "England:", "Fleet", "->", "a", "écrit", ":", "PRESS", "Bob"])
COMMAND_LINE = st.lists(_WORDS, min_size=1, max_size=7).map(" ".join).filter(
    lambda l: not l.startswith(("--", ">")) and l.strip() != "--")
QUOTE_BLOCKS = [
    ["", "On Tue, Nov 24, 2026 at 10:00 AM The Judge <judge@example.test>", "wrote:", "", "> F Lon - Eng"],
    ["", "Von: The Judge <judge@example.test>", "Gesendet: Dienstag, 24. November 2026 10:00",
     "An: Bob", "Betreff: orders", "", "F Lon - Eng"],
    ["", "________________________________", "De : The Judge", "Envoyé : mardi 24 novembre 2026 10:00",
     "À : Bob", "Objet : orders", "", "F Lon - Eng"],
    ["", "-----Original Message-----", "From: J", "Sent: Tuesday", "F Lon - Eng"],
    ["", "Am 24.11.26 um 10:00 schrieb The Judge:", "F Lon - Eng"],
    ["", "-- ", "Bob"],
    ["", "Sent from my iPhone"],
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(commands=st.lists(COMMAND_LINE, min_size=1, max_size=8), block=st.sampled_from(QUOTE_BLOCKS))
@example(commands=["____ A --"], block=QUOTE_BLOCKS[1])  # once read as a separator above the block
def test_command_lines_before_any_quote_block_are_all_kept(commands: list[str], block: list[str]) -> None:
    alone, notes = new_text("\n".join(commands))
    # lines the strategy happened to make into a real marker ("On 1902 wrote:", a From+Date block)
    # are not commands; a sign-off at the very end is a note (checked below)
    assume(all(b.kind == "signoff" for b in notes))
    # nor is a line of dashes around words ("____ Spring ____"): above a header block it is the
    # block's own separator line, as Outlook writes one
    assume(not any(_separator_like(c) for c in commands))
    kept = alone.split("\n") if alone else []
    assert kept == commands[:len(kept)]
    if len(kept) < len(commands):
        assert notes and len(commands) - len(kept) <= 4
    text, ignored = new_text("\n".join(commands + block))
    assert text == alone  # the block after them changes nothing in how they are read
    assert [b.kind for b in ignored if b.kind != "signoff"] != [] or block == QUOTE_BLOCKS[-1]


_ANY_LINE = st.one_of(
    COMMAND_LINE,
    st.sampled_from([line for block in QUOTE_BLOCKS for line in block] + REPLY.split("\n") + STATUS.split("\n")
                    + ["> x", ">", "Thanks,", "Bob", "--", "Game tg - Standard - Spring 1901 Movement", "=" * 20,
                       "PRESS TO F", "ENDPRESS", "Sent from my iPhone", "Begin forwarded message:"]),
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
            max_size=30),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(_ANY_LINE, max_size=40))
def test_every_line_left_out_is_counted_in_a_note(lines: list[str]) -> None:
    """Nothing vanishes silently: the kept lines are the mail's lines in order, and every other
    non-blank line is counted in one of the notes (bar the "-- " line that marks a signature)."""
    text, ignored = new_text("\n".join(lines))
    kept = text.split("\n") if text else []
    it = iter(lines)
    # a subsequence, in order (read normalised; a press letter's lines as written)
    assert all(any(k in (l, normalise(l)) for l in it) for k in kept)
    dropped = sum(1 for l in lines if normalise(l).strip()) - sum(1 for k in kept if normalise(k).strip())
    extra = dropped - sum(b.lines for b in ignored)
    assert extra == 0 or (extra == 1 and any(l.strip() == "--" for l in lines) and "--" not in kept)
    assert all(b.lines > 0 and b.describe().startswith("Ignored") for b in ignored)


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(st.sampled_from(list("ab <>/=\"'&;") + [
    "<blockquote>", "</blockquote>", "<div>", "</div>", '<div class="gmail_quote">', '<div id="divRplyFwdMsg">',
    "<br>", "<p>", "</p>", "<script>", "</script>", "A Lon H", "&nbsp;", "<!--", "-->"]), max_size=60))
def test_any_html_is_read_without_raising(pieces: list[str]) -> None:
    html = "".join(pieces)
    text, ignored = html_new_text(html)
    assert isinstance(text, str) and all(b.lines > 0 for b in ignored)


@pytest.mark.parametrize("client,tail", [
    ("GMX / WEB.DE (Date line first)", ["Gesendet mit der WEB.DE Mail App", "", "",
                                        "Gesendet: Dienstag, 24. November 2026 um 10:00 Uhr",
                                        'Von: "The Judge" <judge@example.test>', "An: p1@example.test",
                                        "Betreff: TEST:tg - S1901M orders"]),
    ("Yahoo (no quote marks)", ["", "On Tuesday, November 24, 2026 at 10:00:00 AM GMT, The Judge "
                                "<judge@example.test> wrote:", ""]),
    ("Proton Mail", ["", "Sent with Proton Mail secure email.", "", "------- Original Message -------",
                     "On Tuesday, November 24th, 2026 at 10:00, The Judge <judge@example.test> wrote:", ""]),
    ("Mail for Windows", ["", "Sent from Mail for Windows", "", "From: The Judge", "Sent: Tuesday, 24 November 2026 10:00",
                          "To: p1@example.test", "Subject: orders", ""]),
    ("Outlook for Mac, German", ["", "Von: The Judge <judge@example.test>",
                                 "Datum: Dienstag, 24. November 2026 um 10:00", "An: p1@example.test",
                                 "Betreff: orders", ""]),
])
def test_more_clients_plain_text(client: str, tail: list[str]) -> None:
    text, ignored = new_text("\n".join(NEW + tail + OLD))
    assert text.split("\n") == NEW, client
    assert ignored[-1].kind == "quote" and ignored[-1].lines >= len(OLD)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["you are late", "YOU ARE LATE", "a power still late", "A Power that sends no orders",
                                 "builds due", "Build due", "may build 2 units", "MUST REMOVE 1 unit",
                                 "pending orders:", "Pending Orders:", "England: ", "Army ", "Fleet ", "London", ".",
                                 " ", "  ", ">", "-", "=", ":", "(", ")", "12:00 +0000", "\u0130", "\u017f", "\u212a",
                                 "\u0131", "é", "\n", "grace period", "No Order Processed", "A Par - Bur"])
                | st.characters(min_codepoint=32, max_codepoint=0x2FF), max_size=12).map("".join))
def test_judge_line_test_is_the_alternation_of_its_patterns(line: str) -> None:
    """_IS_JUDGE_LINE (the status's words looked for in an ASCII line lower-cased) answers as the
    one alternation of every pattern of _JUDGE_LINE."""
    import re

    from judge.mail import newtext

    alternation = re.compile("|".join(f"(?:{p.pattern})" for p in newtext._JUDGE_LINE))
    assert (newtext._IS_JUDGE_LINE(line) is not None) == (alternation.match(line) is not None)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["iPhone", "IPAD", "Android", "Proton Mail", "protonmail", "ProtonMail", "K-9 Mail",
                                 "k-9  mail", "Gmail", "Sent from my ", "мобильн", "МОБИЛЬН", "手机", "\u212a-9 mail",
                                 "\u0130phone", "\u017fmartphone", " ", "\t", "-", "9"])
                | st.characters(min_codepoint=32, max_codepoint=0x4FF), max_size=10).map("".join))
def test_device_words_are_found_as_the_case_blind_expression_finds_them(s: str) -> None:
    from judge.mail import newtext

    assert newtext._has_device_word(s) == (newtext._DEVICE_WORD.search(s) is not None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["Bob wrote", "Bob <bob@example.org> wrote:", "schrieb", ":", " ", "\t", "\u00a0",
                                 "\u2028", "\x1c", "> ", "\n", "写道", "On Tuesday, Bob wrote"])
                | st.characters(min_codepoint=9, max_codepoint=0x4FF), max_size=10).map("".join))
def test_a_bare_attribution_ends_in_a_colon(line: str) -> None:
    """The verbs' expression ends in ":" and white space: the shortcut in _bare_attribution
    (a line not so ending is none) answers as the expression."""
    from judge.mail import newtext

    expected = 1 if newtext._ATTR_VERB.search(line) and not line.lstrip().startswith(">") else None
    assert newtext._bare_attribution([line], 0) == expected
