"""Mail in: raw bytes → :class:`IncomingMail` (who, what text, or why we must not answer).

Never raises: a message that cannot be read yields an ``error`` to tell the sender, and a
message we must not answer (auto-replies, bounces, lists, loops) yields an ``ignore`` reason.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from email import policy
from email.headerregistry import BaseHeader
from email.policy import EmailPolicy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses
from html.parser import HTMLParser

from email_reply_parser import EmailReplyParser

#: local parts of addresses that are machines, never people (njudge's list, and a few more)
MACHINE_SENDERS = frozenset({
    "mailer-daemon", "mailerdaemon", "mail-daemon", "postmaster", "mailer", "noreply", "no-reply",
    "donotreply", "do-not-reply",
})
MAX_BODY_CHARS = 100_000  # anything longer is cut (and the sender told)

#: a msg-id fit to echo in In-Reply-To/References: printable ASCII, no spaces or brackets inside
_MSG_ID = re.compile(r"<[!-;=?-~]{1,250}@[!-;=?-~]{1,250}>")
MAX_REFERENCES = 20  # the newest ones only: a thread header must not grow without bound
CONTROL = re.compile(r"[\x00-\x1f\x7f]")

_SUBJECT_JUNK = re.compile(r"^\s*(?:(?:re|fwd?|fw|aw|wg|sv|vs|antw|tr|rv|enc|odp|vl)\s*(?:\[\d+\])?\s*:"
                           r"|\[error flag\]|\[you are late!\])\s*",
                           re.I)


@dataclass
class IncomingMail:
    message_id: str  # the key for "handled once" (control characters and spaces removed)
    sender: str = ""  # the From address, lower case
    reply_to: list[str] = field(default_factory=list)  # where answers go
    subject: str = ""  # Re:/Fwd:/judge tags stripped
    text: str = ""  # the new text: quotes and signature stripped
    references: str = ""  # References + its own Message-ID, only well-formed ids: safe to echo
    reply_id: str | None = None  # its Message-ID if well-formed (In-Reply-To of our answer), else None
    ignore: str | None = None  # why this message must not be answered at all
    error: str | None = None  # why its text could not be read (answered with this)
    notes: list[str] = field(default_factory=list)  # things to tell the sender (e.g. truncated)
    bounced: list[str] = field(default_factory=list)  # a DSN: the recipients whose delivery failed


@functools.lru_cache(maxsize=512)
def _parsed_header(name: str, value: str) -> BaseHeader:
    return policy.default.header_fetch_parse(name, value)  # type: ignore[no-any-return]


class _ReadPolicy(EmailPolicy):
    """``policy.default`` remembering parsed header fields by (name, text): reading one mail asks
    for Content-Type a dozen times, and most mails' Content-Type lines are alike. Header objects
    are read-only, so sharing them is safe."""

    def header_fetch_parse(self, name: str, value: str) -> BaseHeader:  # type: ignore[override]
        if isinstance(value, str) and len(value) < 1000:
            return _parsed_header(name, value)
        return super().header_fetch_parse(name, value)  # type: ignore[no-any-return]


_READ_POLICY = _ReadPolicy()


def parse_message(raw: bytes, our_address: str = "", loop_header: str = "X-Judge-Loop") -> IncomingMail:
    """Read one message. Never raises."""
    try:
        return _parse(raw, our_address.lower(), loop_header)
    except Exception as exc:  # a malformed mail never stops the judge
        return IncomingMail(message_id=_synthetic_id(raw), error=f"the message could not be read ({type(exc).__name__})")


def _synthetic_id(raw: bytes) -> str:
    return f"<sha256-{hashlib.sha256(raw).hexdigest()[:40]}@judge.invalid>"


def _parse(raw: bytes, our_address: str, loop_header: str) -> IncomingMail:
    msg: EmailMessage = BytesParser(policy=_READ_POLICY).parsebytes(raw)  # type: ignore[assignment]
    mid = clean_message_id(_header(msg, "Message-ID"))
    mail = IncomingMail(message_id=mid if mid else _synthetic_id(raw))
    mail.reply_id = mid if _MSG_ID.fullmatch(mid) else None
    mail.references = thread_ids(_header(msg, "References") + " " + mid)
    from_addrs = _addresses(msg, "From")
    mail.sender = from_addrs[0] if from_addrs else ""
    # one address only: a Reply-To naming several would make every answer a fan-out
    replies = _addresses(msg, "Reply-To")
    mail.reply_to = replies[:1] if len(replies) == 1 else from_addrs[:1]
    mail.subject = clean_subject(_header(msg, "Subject"))
    mail.ignore = ignore_reason(msg, mail.sender, our_address, loop_header)
    if mail.ignore:
        if msg.get_content_type() == "multipart/report":
            mail.bounced = dsn_failures(msg)
        return mail
    if not mail.reply_to:
        mail.ignore = "no sender address"
        return mail
    text, error = body_text(msg)
    files = attachment_names(msg)
    if error:
        mail.error = error + (f" (attachments are not read: {', '.join(files)})" if files else "")
        return mail
    if files:
        mail.notes.append(f"Attachments are not read: {', '.join(files)}. The judge reads only the text of "
                          f"your mail: put your orders there.")
    if len(text) > MAX_BODY_CHARS:
        text = text[:MAX_BODY_CHARS]
        mail.notes.append(f"Your message was longer than {MAX_BODY_CHARS} characters; the rest was not read.")
    mail.text = strip_reply(text)
    return mail


def _header(msg: EmailMessage, name: str) -> str:
    try:
        v = msg.get(name)
    except Exception:
        v = None
    if v is None:
        try:
            raws = [v for k, v in msg.raw_items() if k.lower() == name.lower()]
        except Exception:
            raws = []
        return _text(str(raws[0])) if raws else ""
    return _text(str(v))


def _text(value: str) -> str:
    """Header text as storable UTF-8: undecodable 8-bit bytes (kept by the parser as lone
    surrogates, which SQLite cannot store) become U+FFFD."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def clean_message_id(value: str) -> str:
    """A Message-ID as a key: whitespace and control characters (a decoded ``=0D=0A``) removed."""
    return "".join(CONTROL.sub("", value).split())[:500]


def thread_ids(value: str) -> str:
    """The well-formed msg-ids in a References-like value, newest last, at most MAX_REFERENCES:
    nothing else of a sender's header is ever echoed into our own headers."""
    ids = list(dict.fromkeys(_MSG_ID.findall(CONTROL.sub(" ", value))))
    return " ".join(ids[-MAX_REFERENCES:])


_ANGLE_ADDR = re.compile(r"<([^<>\s]+@[^<>\s]+)>")


def _addresses(msg: EmailMessage, name: str) -> list[str]:
    try:  # the header parser knows display names from addresses, encoded words and all
        hdr = msg.get(name)
        found = [a.addr_spec for a in hdr.addresses] if hdr is not None else []
    except Exception:  # e.g. a display name decoding to CR/LF: take the address in <...>
        raw = _header(msg, name)
        found = _ANGLE_ADDR.findall(raw) or [a for _, a in getaddresses([raw])]
    return [a for a in (addr.strip().lower() for addr in found) if plausible_address(a)]


def plausible_address(addr: str) -> bool:
    """An address the judge will write into a header and an SMTP envelope: ASCII, one ``@``
    with text on both sides, none of the characters that would make it two addresses or a
    header of its own."""
    local, at, domain = addr.rpartition("@")
    return (bool(at and local and domain) and "@" not in local and not any(c in addr for c in ' <>,;:"()[]\\')
            and not CONTROL.search(addr) and addr.isascii() and len(addr) <= 254)


def clean_subject(subject: str, code: str = "") -> str:
    """Drop ``Re:``, ``Fwd:`` (and their German, Nordic, French, Spanish, Polish … forms) and our
    own tags from the front of a subject; with the judge's ``code``, also the game tags our
    subjects start with (``CODE:game - S1901M``), so a reply to a reply to a reply keeps one."""
    s = " ".join(subject.split())
    tag = re.compile(rf"^{re.escape(code)}:[\w-]+(?:\s+-\s+[A-Z]\d{{3,4}}[A-Z])?(?:\s+|$)", re.I) if code else None
    while True:
        t = _SUBJECT_JUNK.sub("", s, count=1)
        if tag is not None:
            t = tag.sub("", t, count=1)
        if t == s:
            return s
        s = t


def ignore_reason(msg: EmailMessage, sender: str, our_address: str, loop_header: str) -> str | None:
    """Why this message must never be answered, or None."""
    auto = _header(msg, "Auto-Submitted").split(";")[0].strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    prec = _header(msg, "Precedence").strip().lower()
    if prec in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {prec}"
    if loop_header and _header(msg, loop_header):
        return f"mail from a judge ({loop_header})"
    for h in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply"):
        if _header(msg, h):
            return f"auto-reply ({h})"
    if _header(msg, "List-Id") or _header(msg, "List-Unsubscribe"):
        return "mailing-list mail"
    if msg.get_content_type() == "multipart/report":
        return "delivery report (bounce)"
    rp = _header(msg, "Return-Path").strip()
    if rp == "<>":
        return "bounce (empty Return-Path)"
    if not sender:
        return "no sender address"
    local = sender.split("@", 1)[0]
    if local in MACHINE_SENDERS or local.startswith("mailer-daemon"):
        return f"machine sender {sender}"
    if our_address and sender == our_address:
        return "mail from ourselves"
    return None


_DSN_FIELD = re.compile(r"^(final-recipient|original-recipient|action)\s*:\s*(.*)$", re.I | re.M)


def dsn_failures(msg: EmailMessage) -> list[str]:
    """Recipients a delivery status notification (RFC 3464) reports as failed: each block's
    ``Final-Recipient`` (or ``Original-Recipient``) whose ``Action`` is ``failed``. Delays and
    successes are not failures. Never raises."""
    out: list[str] = []
    try:
        for part in msg.walk():
            if part.get_content_type() != "message/delivery-status":
                continue
            payload = part.get_payload()
            blocks = [str(b) for b in payload] if isinstance(payload, list) else str(payload).split("\n\n")
            for block in blocks:
                fields: dict[str, str] = {}
                for name, value in _DSN_FIELD.findall(block.replace("\r\n", "\n")):
                    fields.setdefault(name.lower(), value.strip())
                rcpt = fields.get("final-recipient") or fields.get("original-recipient") or ""
                addr = _text(rcpt.partition(";")[2] or rcpt).strip().strip("<>").lower()
                if fields.get("action", "").lower().startswith("failed") and "@" in addr and " " not in addr:
                    out.append(addr)
    except Exception:
        return out
    return list(dict.fromkeys(out))


def attachment_names(msg: EmailMessage) -> list[str]:
    """The files attached to a message (``orders.docx``), to say they were not read. Pictures
    shown inline (signature logos, pasted screenshots) are decoration, not attachments."""
    names: list[str] = []
    try:
        if not msg.is_multipart():
            return []
        for part in msg.iter_attachments():
            fn = part.get_filename()
            disp = part.get_content_disposition()
            if part.get_content_maintype() == "image" and disp != "attachment":
                continue
            if not fn and part.get_content_maintype() == "text":
                continue  # Apple Mail splits the text around an attachment: more text, no file
            if part.get_content_type() == "message/rfc822":
                names.append("a forwarded message")
            else:
                names.append(_text(" ".join(str(fn).split()))[:100] if fn else part.get_content_type())
        # attachments inside nested parts (Apple Mail puts them in multipart/mixed inside alternative)
        for sub in msg.iter_parts():
            if sub.is_multipart() and sub.get_content_type() != "multipart/alternative":
                names += [n for n in attachment_names(sub) if n not in names]  # type: ignore[arg-type]
    except Exception:
        return names
    return list(dict.fromkeys(names))


def body_text(msg: EmailMessage) -> tuple[str, str | None]:
    """The message's text: its text/plain part, or text from its HTML part. (text, error)."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:
        part = None
    if part is None:
        if msg.is_multipart() or msg.get_content_maintype() != "text":
            return "", "the message has no text part: please send your commands as plain text"
        part = msg
    try:
        content = part.get_content()
    except LookupError:
        cs = part.get_content_charset() or "?"
        return "", (f"the message is in the character set {cs!r}, which the judge cannot read: "
                    "please send it as UTF-8 plain text")
    except Exception:
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            return "", "the message text could not be decoded: please send it as UTF-8 plain text"
        content = payload.decode("utf-8", "replace")
    if not isinstance(content, str):
        return "", "the message has no text part: please send your commands as plain text"
    if part.get_content_subtype() == "html":
        content = html_to_text(content)
    return content.replace("\r\n", "\n").replace("\r", "\n"), None


def strip_reply(text: str) -> str:
    """Keep only the new text: drop quoted replies and the signature."""
    lines = text.split("\n")
    # a "-- " signature line ends the commands (njudge); cut there before anything else
    for i, line in enumerate(lines):
        if line.rstrip() == "--":
            lines = lines[:i]
            break
    text = "\n".join(lines)
    try:
        return EmailReplyParser.parse_reply(text)
    except Exception:
        return "\n".join(l for l in lines if not l.lstrip().startswith(">"))


class _TextFromHTML(HTMLParser):
    BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.quote = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "head"):
            self.skip += 1
        if tag == "blockquote":
            self.quote += 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "head") and self.skip:
            self.skip -= 1
        if tag == "blockquote" and self.quote:
            self.quote -= 1
        if tag in self.BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skip and not self.quote:  # quoted text (blockquote) is an old message
            self.parts.append(data)


def html_to_text(html: str) -> str:
    p = _TextFromHTML()
    p.feed(html)
    p.close()
    text = "".join(p.parts).replace("\xa0", " ")
    return "\n".join(" ".join(line.split()) for line in text.split("\n"))
