"""Mail in: raw bytes → :class:`IncomingMail` (who, what text, or why we must not answer).

Never raises: a message that cannot be read yields an ``error`` to tell the sender, and a
message we must not answer (auto-replies, bounces, lists, loops) yields an ``ignore`` reason.
"""

from __future__ import annotations

import codecs
import functools
import hashlib
import re
from dataclasses import dataclass, field
from email import errors, policy, utils as email_utils
from email.headerregistry import BaseHeader, HeaderRegistry, UnstructuredHeader
from email.policy import EmailPolicy
from email.message import EmailMessage
from email.utils import getaddresses
from html.parser import HTMLParser
from typing import Any

from judge.game.outbox import CONTROL, MSG_ID, thread_ids
from judge.game.addresses import canonical_address
from judge.mail.feedparse import parse_bytes
from judge.mail.newtext import Ignored, header_block, new_text, one_quote_note, strip_invisible
from judge.mail.textbounce import text_bounce_failures

#: local parts of addresses that are machines, never people (njudge's list, and a few more)
MACHINE_SENDERS = frozenset({
    "mailer-daemon", "mailerdaemon", "mail-daemon", "postmaster", "mailer", "noreply", "no-reply",
    "donotreply", "do-not-reply",
})
MAX_BODY_CHARS = 100_000  # anything longer is cut (and the sender told)
MAX_MIME_DEPTH = 50  # multiparts nested deeper than this: no mail client writes that; set aside unread
MAX_NAMED_FILES = 10  # attachments named in the reply (the rest counted)

#: a msg-id fit to echo in In-Reply-To/References: printable ASCII, no spaces or brackets inside

# reply and forward prefixes as mail programs write them in their languages: Re/Fwd, German AW/WG,
# Nordic SV/VS/VB/VL, Dutch Antw/Doorst, French TR, Spanish RV/ENC, Italian R/RIF/I, Polish Odp/PD,
# Turkish Ynt/İlt, Hungarian Vá/Továbbítás, Russian Ответ/Отв/Пересл, Greek ΑΠ/ΣΧΕΤ/ΠΡΘ, Chinese
# 回复/答复/回覆/转发/轉寄, Japanese 返信/転送, Korean 회신/전달; counted (Re[2]:, Re(2):, Re^2:), also with
# the fullwidth colon
_SUBJECT_JUNK = re.compile(r"^\s*(?:(?:re|fwd?|fw|aw|wg|sv|vs|vb|vl|antw|doorst|tr|rv|enc|odp|pd|r|rif\.?|i|ynt"
                           r"|i̇lt|ilt|vá|va|továbbítás|ответ|отв|пересл|απ|σχετ|πρθ|回复|答复|回覆|转发|轉寄|轉發"
                           r"|返信|転送|회신|전달|res|ref|svar|antwort|rép|odg|ats|atb)"
                           r"\s*(?:\[\d+\]|\(\d+\)|\^\d+)?\s*[:：]"
                           r"|\[error flag\]|\[you are late!\])\s*",
                           re.I)


@dataclass
class IncomingMail:
    message_id: str  # the key for "handled once" (control characters and spaces removed)
    sender: str = ""  # the From address, lower case
    sender_name: str = ""  # the From display name as written (decoded), "" when none or malformed
    reply_to: list[str] = field(default_factory=list)  # where answers go
    subject: str = ""  # Re:/Fwd:/judge tags stripped
    text: str = ""  # the new text: quotes and signature stripped
    references: str = ""  # References + its own Message-ID, only well-formed ids: safe to echo
    reply_id: str | None = None  # its Message-ID if well-formed (In-Reply-To of our answer), else None
    ignore: str | None = None  # why this message must not be answered at all
    error: str | None = None  # why its text could not be read (answered with this)
    notes: list[str] = field(default_factory=list)  # things to tell the sender (e.g. truncated)
    ignored: list[Ignored] = field(default_factory=list)  # blocks not read as commands, each with why
    bounced: list[str] = field(default_factory=list)  # a bounce (DSN or text): the recipients that failed for good
    bounce_ids: list[str] = field(default_factory=list)  # the msg-ids a bounce names (which mail of ours bounced)
    aside: str | None = None  # why it is set aside unread (kept, raw bytes and all, as a failed message)


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


class _ReadMessage(EmailMessage):
    """``EmailMessage`` whose ``get`` (and ``in``) looks a field up by name in an index of the
    header block instead of walking it: the stdlib's own get_content_type, get_param, get_body
    ... ask for Content-Type a dozen times a mail, each a walk of its twenty-odd fields. The
    index (the first field of each name, as ``get`` finds) is made afresh whenever the fields
    change: a new list or another length, or a field replaced in place. The content type and a
    field's parameters (asked for as often, each a parse) are kept with the index, so they are
    made afresh with it: one message's, never shared."""

    _index: tuple[list[Any], int, dict[str, tuple[str, str]], dict[Any, Any]] | None = None

    def _indexed(self) -> tuple[list[Any], int, dict[str, tuple[str, str]], dict[Any, Any]]:
        headers = self._headers  # type: ignore[attr-defined]
        index = self._index
        if index is None or index[0] is not headers or index[1] != len(headers):
            first: dict[str, tuple[str, str]] = {}
            for k, v in headers:
                first.setdefault(k.lower(), (k, v))
            index = self._index = (headers, len(headers), first, {})  # (the list held: its id is not reused)
        return index

    def first_fields(self) -> dict[str, tuple[str, str]]:
        return self._indexed()[2]

    #: the MIME fields an unreadable one of which counts as absent (RFC 2045 5.2, 6.1: text/plain
    #: in US-ASCII, 7bit, no disposition); names of fields found unreadable in this part
    unreadable: frozenset[str] = frozenset()

    def get(self, name: str, failobj: Any = None) -> Any:
        found = self._indexed()[2].get(name.lower())
        if found is None:
            return failobj
        try:
            return self.policy.header_fetch_parse(*found)
        except Exception:  # the stdlib's parser fails on some fields (``Content-Type: ;0*``: IndexError)
            key = found[0].lower()
            if key not in _MIME_FIELDS:
                raise  # (the readers of the other fields have their own way with a field they cannot parse)
            self.unreadable = self.unreadable | {key}
            return failobj

    def __contains__(self, name: str) -> bool:  # type: ignore[override]
        key = name.lower()
        if key not in self._indexed()[2]:
            return False
        # an unreadable MIME field is absent for ``in`` as for ``get`` (RFC 2045 5.2): the stdlib's
        # get_param and del_param, finding the name, would go on to iterate parameters that are not there
        return key not in _MIME_FIELDS or self.get(name) is not None

    def replace_header(self, _name: str, _value: Any) -> None:
        self._index = None
        super().replace_header(_name, _value)

    def get_content_type(self) -> str:
        _, _, first, known = self._indexed()
        key = ("type", self._default_type)  # type: ignore[attr-defined]  # (the parser sets it for digests' parts)
        ctype = known.get(key)
        if ctype is None:
            found = first.get("content-type")
            plain = plain_content_type(found[1]) if found is not None else None
            if plain is None:
                ctype = super().get_content_type()
            else:  # the stdlib's reading of the field's text
                ctype = _splitparam(plain)[0].lower()
                if ctype.count("/") != 1:
                    ctype = "text/plain"
            known[key] = ctype
        return ctype  # type: ignore[no-any-return]

    def _get_params_preserve(self, failobj: Any, header: str) -> Any:
        _, _, first, known = self._indexed()
        name = header.lower()
        key = ("params", name)
        params = known.get(key)
        if params is None:
            found = first.get(name) if name == "content-type" else None
            plain = plain_content_type(found[1]) if found is not None else None
            if plain is None:
                missing = object()
                params = super()._get_params_preserve(missing, header)  # type: ignore[misc]
                if params is missing:
                    return failobj
            else:
                params = _plain_params(plain)
            known[key] = params
        return list(params)  # a copy: get_params hands it out


_READ_POLICY = _ReadPolicy(message_factory=_ReadMessage)
_MIME_FIELDS = frozenset({"content-type", "content-transfer-encoding", "content-disposition"})
UNREADABLE_CONTENT_TYPE = ("The Content-Type header field of your mail could not be read, so its body was read as "
                           "plain text (US-ASCII), as the mail standard says for such a field.")

# a Content-Type field as the header registry writes it back: ``type/subtype`` and parameters each
# a token or a plain quoted string, not empty (no quote, backslash, ``'``, ``%`` or ``*``: RFC 2231 shapes
# are the parser's)
_CT_TOKEN = r"[A-Za-z0-9!#$&+.^_`{|}~-]+"
_CT_QUOTED = r'"[ !#$&(-\[\]-~]+"'  # (an empty value is written back as the bare name)
_PLAIN_CTYPE = re.compile(rf"({_CT_TOKEN}/{_CT_TOKEN})((?:;[ \t]*{_CT_TOKEN}=(?:{_CT_TOKEN}|{_CT_QUOTED}))*)")
_CT_PARAM = re.compile(rf";[ \t]*({_CT_TOKEN})=(?:({_CT_TOKEN})|\"([^\"]*)\")")


try:  # the stdlib's own readers of a field's text (private: a Python without them reads every field the parser's way)
    from email.message import _parseparam, _splitparam  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover (present in 3.11-3.13)
    _parseparam = _splitparam = None


@functools.lru_cache(maxsize=512)  # (the text parts' fields are mostly alike: ``text/plain; charset="UTF-8"``)
def plain_content_type(value: str) -> str | None:
    """``str(policy.default.header_fetch_parse("Content-Type", value))`` without the parse, for
    the shapes mail programs write (``multipart/alternative;\\r\\n\\tboundary="..."``): the
    type, then each parameter as ``; name="value"``. None for any other shape, which goes through
    the stdlib's parser. A multipart's boundary makes its field unlike any other, so the parse
    (a few hundred Python calls) was made afresh for every mail from a mail program;
    tests/test_mail_header_text.py holds this to the stdlib."""
    if _splitparam is None or _parseparam is None:
        return None
    m = _PLAIN_CTYPE.fullmatch(value.replace("\r", "").replace("\n", ""))
    if m is None:
        return None
    params = [(p[1], p[2] if p[2] is not None else p[3]) for p in _CT_PARAM.finditer(m[2])]
    if len({name for name, _ in params}) < len(params):  # a name twice: the parser keeps the first
        return None
    return m[1] + "".join(f'; {name}="{value}"' for name, value in params)


@functools.lru_cache(maxsize=512)  # (a pure function of the field's text, as plain_content_type)
def _plain_params(plain: str) -> tuple[Any, ...]:
    """The parameters of a Content-Type field of :func:`plain_content_type`'s shape, as the
    stdlib's _get_params_preserve reads them (its values are strings and tuples: shared safely)."""
    pairs = []
    for p in _parseparam(plain):
        try:
            pname, val = p.split("=", 1)
            pname, val = pname.strip(), val.strip()
        except ValueError:
            pname, val = p.strip(), ""
        pairs.append((pname, val))
    return tuple(email_utils.decode_params(pairs))


def parse_message(raw: bytes, our_address: str = "", loop_header: str = "X-Judge-Loop") -> IncomingMail:
    """Read one message. Never raises."""
    try:
        return _parse(raw, canonical_address(our_address) or our_address.lower(), loop_header)
    except RecursionError:  # the stdlib parser recurses once per nested multipart
        return _too_deep(raw)
    except Exception as exc:  # a malformed mail never stops the judge: its sender (if one can be read) is told
        return _unreadable(raw, exc)


def _unreadable(raw: bytes, exc: Exception) -> IncomingMail:
    """A message the stdlib's parser fails on: answered with why, when its top header block names
    a sender (read alone, as for a mail nested too deep), else ignored (no one to answer)."""
    mail = _head_only(raw)
    if not mail.reply_to:
        mail.ignore = f"unreadable ({type(exc).__name__}) and no sender address"
    mail.error = (f"the message could not be read ({type(exc).__name__}): its header fields or MIME structure "
                  f"are malformed. Please send your commands as plain text")
    return mail


def _too_deep(raw: bytes) -> IncomingMail:
    """A message nested deeper than can be read: kept whole (set aside) and its sender told. Its
    sender and ids are read from the top header block alone, which never recurses."""
    mail = _head_only(raw)
    mail.aside = (f"its parts are nested more than {MAX_MIME_DEPTH} levels deep, deeper than the judge reads: "
                  f"nothing in it was acted on. Please send your commands as plain text")
    return mail


def _head_only(raw: bytes) -> IncomingMail:
    """Who wrote a message and its ids, read from its top header block alone."""
    try:
        head: EmailMessage = parse_bytes(raw, _READ_POLICY, headersonly=True)  # type: ignore[assignment]
        return _parse_head(head, raw)
    except Exception:
        return IncomingMail(message_id=_synthetic_id(raw))


def _depth(msg: EmailMessage) -> int:
    """How deep multiparts nest in a parsed message (counted without recursion)."""
    deepest, todo = 0, [(msg, 0)]
    while todo:
        part, d = todo.pop()
        deepest = max(deepest, d)
        if d <= MAX_MIME_DEPTH and part.is_multipart():
            payload = part.get_payload()
            todo += [(p, d + 1) for p in payload if isinstance(p, EmailMessage)] if isinstance(payload, list) else []
    return deepest


def _synthetic_id(raw: bytes) -> str:
    return f"<sha256-{hashlib.sha256(raw).hexdigest()[:40]}@judge.invalid>"


def _parse(raw: bytes, our_address: str, loop_header: str) -> IncomingMail:
    msg: EmailMessage = parse_bytes(raw, _READ_POLICY)  # type: ignore[assignment]
    mail = _parse_head(msg, raw)
    mail.ignore = ignore_reason(msg, mail.sender, our_address, loop_header)
    if _depth(msg) > MAX_MIME_DEPTH:
        too_deep = _too_deep(raw)
        mail.aside = None if mail.ignore else too_deep.aside
        return mail
    if mail.ignore:
        if msg.get_content_type() == "multipart/report":
            mail.bounced = dsn_failures(msg)
        if not mail.bounced and bounce_like(msg, mail.sender) and not _has_dsn(msg):
            mail.bounced = [c for c in map(_canonical, text_bounce_failures(read_body(msg)[0])) if c is not None]
        if mail.bounced:
            mail.bounce_ids = named_ids(msg, raw, mail.message_id, our_address)
        return mail
    if not mail.reply_to:
        mail.ignore = "no sender address"
        return mail
    text, ignored, error, part = _read_body(msg)
    files = attachment_names(msg)
    named = ", ".join(files[:MAX_NAMED_FILES]) + (f" and {len(files) - MAX_NAMED_FILES} more"
                                                  if len(files) > MAX_NAMED_FILES else "")
    if error:
        mail.error = error + (f" (attachments are not read: {named})" if files else "")
        return mail
    if files:
        mail.notes.append(f"Attachments are not read: {named}. The judge reads only the text of "
                          f"your mail: put your orders there.")
    if "content-type" in getattr(part, "unreadable", ()):
        mail.notes.append(UNREADABLE_CONTENT_TYPE)
    if len(text) > MAX_BODY_CHARS:
        rest = sum(1 for line in text[MAX_BODY_CHARS:].split("\n") if line.strip())
        text = text[:MAX_BODY_CHARS]
        mail.notes.append(f"Your message was longer than {MAX_BODY_CHARS} characters; the rest ({rest} more "
                          f"{'line' if rest == 1 else 'lines'}) was not read, and nothing in it was acted on.")
    mail.text, more = new_text(text)
    mail.ignored = one_quote_note(ignored + more)
    return mail


def _parse_head(msg: EmailMessage, raw: bytes) -> IncomingMail:
    """Who wrote the message, where answers go, its ids and subject: its top header block."""
    try:  # (a field the mail does not have is not asked for: References, Reply-To in most)
        has: Any = _first_fields(msg).keys()
    except Exception:  # (then each is asked, as it always was)
        has = None
    mid = clean_message_id(_header(msg, "Message-ID"))
    mail = IncomingMail(message_id=mid if mid else _synthetic_id(raw))
    mail.reply_id = mid if MSG_ID.fullmatch(mid) else None
    mail.references = thread_ids((_header(msg, "References") if has is None or "references" in has else "") + " " + mid)
    from_addrs = _addresses(msg, "From")
    mail.sender = from_addrs[0] if from_addrs else ""
    mail.sender_name = _display_name(msg) if from_addrs else ""
    # one address only: a Reply-To naming several would make every answer a fan-out
    replies = _addresses(msg, "Reply-To") if has is None or "reply-to" in has else []
    mail.reply_to = replies[:1] if len(replies) == 1 else from_addrs[:1]
    mail.subject = clean_subject(_header(msg, "Subject"))
    return mail


def named_ids(msg: EmailMessage, raw: bytes, own_id: str, our_address: str) -> list[str]:
    """The msg-ids of the judge's own mail a bounce names (in the copy or headers of the mail
    that bounced, base64 or quoted-printable too, or its In-Reply-To): ``<...@our domain>``, the
    bounce's own id left out, the domain in the case the judge writes it."""
    domain = our_address.rpartition("@")[2]
    if not domain:
        return []
    texts = [raw.decode("utf-8", "replace")]
    try:
        for part in msg.walk():
            if not part.is_multipart() and str(part.get("Content-Transfer-Encoding", "")).strip().lower() in (
                    "base64", "quoted-printable"):
                data = part.get_payload(decode=True)
                if isinstance(data, bytes):
                    texts.append(data.decode("utf-8", "replace"))
    except Exception:  # a part that cannot be decoded names nothing
        pass
    ids = []
    for found in MSG_ID.findall("\n".join(texts)):
        left, _, right = found[1:-1].rpartition("@")
        if right.lower() == domain and found != own_id:
            ids.append(f"<{left}@{domain}>")
    return list(dict.fromkeys(ids))[:50]


def _first_fields(msg: EmailMessage) -> dict[str, tuple[str, str]]:
    """Each field name (lower case) -> the first such field (its name as written, its raw value):
    what ``msg.get`` finds, made once a message (reading one asks for about twenty fields, and
    ``get`` walks the whole header block each time). Kept on the message, which is never changed."""
    if isinstance(msg, _ReadMessage):
        return msg.first_fields()
    first: dict[str, tuple[str, str]] | None = getattr(msg, "_judge_first_fields", None)
    if first is None:
        first = {}
        for k, v in msg.raw_items():
            first.setdefault(k.lower(), (k, v))
        msg._judge_first_fields = first  # type: ignore[attr-defined]
    return first


def _get(msg: EmailMessage, name: str) -> BaseHeader | None:
    """``msg.get(name)``, from :func:`_first_fields`."""
    found = _first_fields(msg).get(name.lower())
    return None if found is None else msg.policy.header_fetch_parse(*found)  # type: ignore[return-value]


#: field names the header registry parses as structured fields (not Subject: unstructured)
_STRUCTURED = frozenset(name for name, cls in HeaderRegistry().registry.items()
                        if not issubclass(cls, UnstructuredHeader))
_PRINTABLE = re.compile(r"[\t -~]*")
_DOT_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
_PLAIN_MSG_ID = re.compile(rf"[ \t]*<{_DOT_ATOM}@{_DOT_ATOM}>[ \t]*")


def plain_header_text(name: str, value: str) -> str | None:
    """``str(policy.default.header_fetch_parse(name, value))`` without the parse, where that is
    known to be the value itself (CR and LF removed): an unstructured field of printable ASCII
    with no encoded word (``=?``) in it, or a Message-ID that is one plain ``<dot-atom@dot-atom>``.
    None for anything else, which goes through the stdlib's parser. The stdlib's parser is slow
    (a fifth of an order mail's service time went to reading its header fields) and these are
    the fields almost every mail has; tests/test_mail_header_text.py holds this to the stdlib."""
    v = value.replace("\r", "").replace("\n", "")
    lname = name.lower()
    if lname == "message-id":
        return v if _PLAIN_MSG_ID.fullmatch(v) else None
    if lname in _STRUCTURED or "=?" in v or not _PRINTABLE.fullmatch(v):
        return None
    return v


def _header(msg: EmailMessage, name: str) -> str:
    """The first ``name`` field's text (encoded words decoded), "" when there is none; its raw
    text when the parser fails on it."""
    try:
        found = _first_fields(msg).get(name.lower())
    except Exception:
        return ""
    if found is None:
        return ""
    plain = plain_header_text(*found)
    if plain is not None:
        return plain
    try:
        return _text(str(msg.policy.header_fetch_parse(*found)))
    except Exception:
        return _text(str(found[1]))


def _text(value: str) -> str:
    """Header text as storable UTF-8: undecodable 8-bit bytes (kept by the parser as lone
    surrogates, which SQLite cannot store) become U+FFFD."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def clean_message_id(value: str) -> str:
    """A Message-ID as a key: whitespace and control characters (a decoded ``=0D=0A``) removed."""
    return "".join(CONTROL.sub("", value).split())[:500]


_ANGLE_ADDR = re.compile(r"<([^<>\s]+@[^<>\s]+)>")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_COMMENT = re.compile(r"\((?:[^()\\]|\\.)*\)")
_ADDR_SPEC = re.compile(r"[^\s<>,;:()\"]+@[^\s<>,;:()\"]+")
_ENCODED_WORD = re.compile(r"=\?[^?\s]+\?[bq]\?[^?\s]*\?=", re.I)


def _addresses(msg: EmailMessage, name: str) -> list[str]:
    """The addresses of an address header (From, Reply-To). The header parser knows display
    names from addresses, encoded words and all; where it finds the header malformed (an
    unquoted display name that looks like an address, ``p2@x.test <evil@y.test>``, or one that
    decodes to CR/LF) the address is the one in angle brackets, as mail servers and mail
    clients read it: read from the raw header, so an encoded word can never make one."""
    try:
        hdr = _get(msg, name)
        found = [a.addr_spec for a in hdr.addresses] if hdr is not None else []
        malformed = hdr is not None and any(isinstance(d, errors.InvalidHeaderDefect) for d in hdr.defects)
    except Exception:
        found, malformed = [], True
    if malformed:
        raw = _raw_header(msg, name)
        angled, bare = _angle_addresses(raw), _bare(raw)
        if len({a.lower() for a in angled} or {a.lower() for a in _ADDR_SPEC.findall(bare)}) > 1:
            return []  # a malformed header naming two addresses: which one wrote is anybody's guess
        if angled:
            found = angled
        elif not found:
            found = [a for _, a in getaddresses([bare])]
    return [c for c in (_canonical(a) for a in found) if c is not None]


def _display_name(msg: EmailMessage) -> str:
    """The From field's display name (encoded words decoded): only from a well-formed field naming
    one address. It is a name to show, never a source of the address (:func:`_addresses`)."""
    try:
        hdr = _get(msg, "From")
        if hdr is None or len(hdr.addresses) != 1 or any(isinstance(d, errors.InvalidHeaderDefect)
                                                          for d in hdr.defects):
            return ""
        return str(hdr.addresses[0].display_name or "")
    except Exception:  # a field the parser cannot take apart names no one
        return ""


def _raw_header(msg: EmailMessage, name: str) -> str:
    """The first ``name`` field as it was written (encoded words not decoded), unfolded."""
    try:
        raws = [v for k, v in msg.raw_items() if k.lower() == name.lower()]
    except Exception:
        return ""
    return " ".join(str(raws[0]).split()) if raws else ""


def _bare(raw: str) -> str:
    """A raw header value without its encoded words, quoted strings and comments."""
    bare = _QUOTED.sub(" ", _ENCODED_WORD.sub(" ", raw))
    for _ in range(5):  # comments nest
        bare = _COMMENT.sub(" ", bare)
    return bare


def _angle_addresses(raw: str) -> list[str]:
    """Each ``<addr>`` of a raw header value, encoded words, quoted strings and comments left out first."""
    return _ANGLE_ADDR.findall(_bare(raw))


def _canonical(addr: str) -> str | None:
    """A parsed address in its stored form. Raw UTF-8 headers (RFC 6532, as Gmail, Outlook.com
    and Apple Mail send them) reach us as surrogate escapes: they are read back as UTF-8, and
    bytes that are not UTF-8 make no address."""
    try:
        addr = addr.encode("utf-8", "surrogateescape").decode("utf-8")
    except UnicodeError:
        return None
    return canonical_address(addr)


def plausible_address(addr: str) -> bool:
    """An address the judge will write into a header and an SMTP envelope (ASCII or, RFC 6531,
    UTF-8): see :func:`judge.game.addresses.canonical_address`."""
    return canonical_address(addr) is not None


def clean_subject(subject: str, code: str = "") -> str:
    """Drop ``Re:``, ``Fwd:`` (and their forms in other languages and scripts: ``_SUBJECT_JUNK``)
    and our own tags from the front of a subject; with the judge's ``code``, also the game tags our
    subjects start with (``CODE:game - S1901M``), so a reply to a reply to a reply keeps one."""
    s = " ".join(strip_invisible(subject).split())  # a byte-order mark or a direction mark hides no prefix
    tag = _subject_tag(code) if code else None
    while True:  # (both expressions are anchored at the start: a match there is all a sub would cut)
        m = _SUBJECT_JUNK.match(s)
        t = s[m.end():] if m else s
        if tag is not None:
            m = tag.match(t)
            t = t[m.end():] if m else t
        if t == s:
            return s
        s = t


@functools.lru_cache(maxsize=16)
def _subject_tag(code: str) -> re.Pattern[str]:
    """The game tag the judge's subjects start with (``CODE:game - S1901M``)."""
    return re.compile(rf"^{re.escape(code)}:[\w-]+(?:\s+-\s+[A-Z]\d{{3,4}}[A-Z])?(?:\s+|$)", re.I)


def ignore_reason(msg: EmailMessage, sender: str, our_address: str, loop_header: str) -> str | None:
    """Why this message must never be answered, or None."""
    try:  # (a field it does not have reads as "": most of these are asked of a mail without them)
        has = _first_fields(msg).keys()
    except Exception:  # as _header reads them then: none
        has = frozenset()
    auto = _header(msg, "Auto-Submitted").split(";")[0].strip().lower() if "auto-submitted" in has else ""
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    prec = _header(msg, "Precedence").strip().lower() if "precedence" in has else ""
    if prec in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {prec}"
    if loop_header and loop_header.lower() in has and _header(msg, loop_header):
        return f"mail from a judge ({loop_header})"
    for h in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply"):
        if h.lower() in has and _header(msg, h):
            return f"auto-reply ({h})"
    if "list-id" in has and _header(msg, "List-Id") or "list-unsubscribe" in has and _header(msg, "List-Unsubscribe"):
        return "mailing-list mail"
    if msg.get_content_type() == "multipart/report":
        return "delivery report (bounce)"
    rp = _header(msg, "Return-Path").strip() if "return-path" in has else ""
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


_MTA_SENDERS = frozenset({"mailer-daemon", "mailerdaemon", "mail-daemon", "postmaster"})  # not noreply: a service


def bounce_like(msg: EmailMessage, sender: str) -> bool:
    """Mail a mail server wrote about mail that was sent: the only mail whose text is read as a
    bounce (so a player forwarding or quoting one is just a player). Its envelope sender is empty,
    or it comes from a mail system's own mailbox, or it says it was sent automatically; list mail
    is never one (a bounce posted to a list is a person's mail)."""
    if _header(msg, "List-Id") or _header(msg, "List-Unsubscribe"):
        return False
    local = sender.split("@", 1)[0]
    auto = _header(msg, "Auto-Submitted").split(";")[0].strip().lower()
    return (_header(msg, "Return-Path").strip() == "<>" or msg.get_content_type() == "multipart/report"
            or local in _MTA_SENDERS or local.startswith("mailer-daemon")
            or auto in ("auto-replied", "auto-generated"))


def _has_dsn(msg: EmailMessage) -> bool:
    """A report with a ``message/delivery-status`` part: that part, not its words, says what failed."""
    try:
        return any(p.get_content_type() == "message/delivery-status" for p in msg.walk())
    except Exception:
        return False


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
                    out.append(canonical_address(addr) or addr)
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
    text, _, error = read_body(msg)
    return text, error


def read_body(msg: EmailMessage) -> tuple[str, list[Ignored], str | None]:
    """The text of the message's text/plain part (format=flowed rejoined), or of its HTML part
    with the quoted earlier message cut out at the HTML level. (text, blocks cut out, error)."""
    return _read_body(msg)[:3]  # type: ignore[return-value]


def _read_body(msg: EmailMessage) -> tuple[str, list[Ignored], str | None, EmailMessage | None]:
    """:func:`read_body`, and the part read (None when none was)."""
    try:
        part = msg.get_body(preferencelist=("plain", "html"))
    except Exception:
        part = None
    if part is None:
        if msg.is_multipart() or msg.get_content_maintype() != "text":
            return "", [], "the message has no text part: please send your commands as plain text", None
        part = msg
    try:
        content = _mislabelled(part)
        if content is None:
            content = part.get_content()
    except LookupError:
        cs = part.get_content_charset() or _text(" ".join(str(part.get_param("charset", "?")).split()))[:60]
        return "", [], (f"the message is in the character set {cs!r}, which the judge cannot read: "
                        "please send it as UTF-8 plain text"), part
    except Exception:
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            return "", [], "the message text could not be decoded: please send it as UTF-8 plain text", part
        content = payload.decode("utf-8", "replace")
    if not isinstance(content, str):
        return "", [], "the message has no text part: please send your commands as plain text", part
    content = content.replace("\r\n", "\n").replace("\r", "\n")
    if part.get_content_subtype() == "html":
        return *html_new_text(content), None, part
    if not content.strip() and msg.is_multipart():  # an empty text part beside the HTML one
        try:
            html = msg.get_body(preferencelist=("html",))
            if html is not None:
                return *html_new_text(html.get_content().replace("\r\n", "\n")), None, html
        except Exception:
            pass
    if str(part.get_param("format", "")).lower() == "flowed":
        content = unflow(content, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    return content, [], None, part


_ASCII_LABELS = frozenset({"us-ascii", "ascii", "ansi_x3.4-1968", "us", "iso646-us", "646"})
#: codecs (by their ``codecs.lookup`` names) that read every ASCII byte as that character (not
#: UTF-7, UTF-16 or EBCDIC): the common mail charsets
_ASCII_SUPERSETS = frozenset({"ascii", "utf-8", "cp1252", "cp1250", "cp1251", "koi8-r", "koi8-u",
                              *(f"iso8859-{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 14, 15, 16))})


def _mislabelled(part: EmailMessage) -> str | None:
    """The text of a part that says it is ASCII (or says nothing, which means ASCII) but holds
    8-bit bytes, as mailers without a charset setting send ``München``: read as UTF-8 when the
    bytes are valid UTF-8, else as Windows-1252 (Latin-1 for the bytes it leaves undefined),
    rather than as replacement characters. A part under a charset label nobody knows (such as
    ``x-unknown-8bit``) is read when it is ASCII or UTF-8, which can be told for sure. A part of
    ASCII bytes under a charset that reads them as ASCII (:data:`_ASCII_SUPERSETS`) is read here
    too: its text is those bytes, as ``get_content`` would decode them again. None when the part
    is none of these (or cannot be read: the caller says so)."""
    given = part.get_content_charset()
    cs = (given or "us-ascii").lower()
    if part.get_content_maintype() != "text":
        return None
    known = cs in _ASCII_LABELS or _known_charset(cs)
    reads_ascii = cs in _ASCII_LABELS or known and codecs.lookup(cs).name in _ASCII_SUPERSETS
    if known and not reads_ascii:
        return None
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        return None
    if data.isascii():  # (most mails: what get_content would decode again, under the label it reads)
        # (a label not given, empty or not ASCII: get_content reads it its own way, or fails)
        return data.decode("ascii") if not known or given and reads_ascii else None
    if known and cs not in _ASCII_LABELS:  # 8-bit text under its own label: get_content reads it
        return None
    if cs not in _ASCII_LABELS:  # a label nobody knows: UTF-8 is recognisable, anything else a guess
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return "".join(_eight_bit_line(line) for line in data.splitlines(keepends=True))


def _known_charset(name: str) -> bool:
    """A charset Python can decode (``x-unknown-8bit``, ``unknown``, a typo: not)."""
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


def _eight_bit_line(line: bytes) -> str:
    """One line of unlabelled 8-bit text (a line at a time: a mail pasted together from two
    sources may mix them): UTF-8 if it is that, else Windows-1252, else Latin-1."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        return line.decode("cp1252")
    except UnicodeDecodeError:  # 0x81, 0x8d, 0x8f, 0x90, 0x9d: undefined in cp1252
        return line.decode("latin-1")


def unflow(text: str, delsp: bool = False) -> str:
    """Rejoin RFC 3676 format=flowed text: a line ending in a space continues on the next line of
    the same quote depth (with ``delsp=yes`` that space was added by the sender and goes);
    space-stuffing is undone. The stdlib does not do this; Apple Mail and Thunderbird send it."""
    out: list[str] = []
    cur: str | None = None
    cur_depth = 0

    def emit(depth: int, body: str) -> None:
        out.append((">" * depth + " " + body) if depth else body)

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        body = line[depth:]
        if body.startswith(" "):
            body = body[1:]  # space-stuffed (or the space after the quote marks)
        if cur is not None and depth != cur_depth:
            emit(cur_depth, cur)  # a quote depth change ends a paragraph (RFC 3676 4.5)
            cur = None
        soft = body.endswith(" ") and body != "-- "  # the signature separator is never flowed
        if soft and delsp:
            body = body[:-1]
        cur, cur_depth = (cur or "") + body, depth
        if not soft:
            emit(depth, cur)
            cur = None
    if cur is not None:
        emit(cur_depth, cur)
    return "\n".join(out)


def strip_reply(text: str) -> str:
    """Keep only the new text: drop quoted replies, the judge's own output, signature and sign-offs."""
    return new_text(text)[0]


class _TextFromHTML(HTMLParser):
    """HTML → text lines, setting aside what mail clients mark as the earlier message: a
    ``<blockquote>``, Gmail's ``gmail_quote``, Thunderbird's ``moz-cite-prefix``, Apple Mail's
    ``AppleOriginalContents``; and from Outlook's reply separator (``divRplyFwdMsg``,
    ``appendonsend``, the ``border-top`` header box) to the end."""

    BLOCK = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote", "table", "hr"}
    SKIP = {"script", "style", "head", "title"}
    QUOTE_CLASSES = ("gmail_quote", "moz-cite-prefix", "yahoo_quoted", "appleoriginalcontents")
    SIGNATURE_CLASSES = ("gmail_signature", "moz-signature")
    CUT_IDS = ("divrplyfwdmsg", "appendonsend", "stopspelling", "mail-editor-reference-message-container")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0
        self.aside: list[tuple[str, list[str]]] = []  # (kind, text parts) of each block set aside
        self.inside: tuple[str, int] | None = None  # (tag, nesting) of the element being set aside
        self.cut = False  # from here to the end is the earlier message
        self.new_since_aside = True

    def _begin_aside(self, kind: str) -> None:
        if self.aside and not self.new_since_aside and self.aside[-1][0] == kind:
            return  # Thunderbird's cite prefix and its blockquote are one block
        self.aside.append((kind, []))
        self.new_since_aside = False

    def _out(self, text: str) -> None:
        if self.cut or self.inside is not None:
            self.aside[-1][1].append(text)
        else:
            self.parts.append(text)
            if text.strip():
                self.new_since_aside = True

    def _line_end(self, tag: str) -> None:
        """<br> ends a line; a block (<div>, <p>, …) ends one only if text is open, so that
        ``<div>a</div><div>b</div>`` are two lines and ``<div><br></div>`` is a blank one."""
        buf = self.aside[-1][1] if (self.cut or self.inside is not None) else self.parts
        if tag == "br" or (buf and not buf[-1].endswith("\n")):
            self._out("\n")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skip += 1
        a = {k.lower(): (v or "").lower() for k, v in attrs}
        if self.inside is not None and tag == self.inside[0]:
            self.inside = (tag, self.inside[1] + 1)
        elif self.inside is None and not self.cut:
            classes = a.get("class", "").split() + [a.get("id", "")]
            style = "".join(a.get("style", "").split())
            if a.get("id") in self.CUT_IDS or "outlookmessageheader" in classes:
                self._begin_aside("quote")
                self.cut = True
            elif tag == "div" and "border-top:solid" in style:
                self._begin_aside("box")  # Outlook's header box, if a header block is in it
                self.cut = True
            elif tag == "blockquote" or any(c in self.QUOTE_CLASSES for c in classes):
                self._begin_aside("quote")
                self.inside = (tag, 1)
            elif any(c in self.SIGNATURE_CLASSES for c in classes):
                self._begin_aside("signature")
                self.inside = (tag, 1)
        if tag in self.BLOCK:
            self._line_end(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if self.inside is not None and tag == self.inside[0]:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        if tag in self.BLOCK and tag != "br":
            self._line_end(tag)
        if self.inside is not None and tag == self.inside[0]:
            n = self.inside[1] - 1
            self.inside = (tag, n) if n else None

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self._out(data)


def _html_lines(parts: list[str]) -> str:
    """Text lines from the parser's pieces: spaces collapsed, one blank line at most between
    paragraphs (every <div> and <p> starts a line)."""
    text = "".join(parts).replace("\xa0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    out = [l for i, l in enumerate(lines) if l or (i and lines[i - 1])]
    return "\n".join(out).strip("\n")


def html_new_text(html: str) -> tuple[str, list[Ignored]]:
    """The text of an HTML body without the parts mail clients mark as quoted, and those parts."""
    p = _TextFromHTML()
    p.feed(html)
    p.close()
    ignored = []
    for kind, parts in p.aside:
        lines = [line for line in _html_lines(parts).split("\n") if line.strip()]
        if kind == "box":
            if not any(header_block(lines, i) for i in range(min(2, len(lines)))):
                if p.parts and not p.parts[-1].endswith("\n"):
                    p.parts.append("\n")
                p.parts += parts  # a bordered box of the player's own (a signature, a table)
                continue
            kind = "quote"
        if lines:
            ignored.append(Ignored(kind, len(lines), lines[0] if kind == "quote" else "-- "))
    return _html_lines(p.parts), ignored


def html_to_text(html: str) -> str:
    return html_new_text(html)[0]
