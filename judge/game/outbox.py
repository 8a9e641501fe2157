"""Mail out: compose messages and keep them in the ``outbox`` table until a transport sends them.

A message is queued inside the transaction of whatever caused it, so a reply is never lost and
never sent for something that did not happen. Transports take :class:`OutboxItem` rows and call
:func:`mark_sent` or :func:`mark_failed`; temporary failures are retried on a back-off schedule.
"""

from __future__ import annotations

import base64
import functools
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from email import quoprimime
from email.header import Header
from email.utils import format_datetime, formataddr, make_msgid
from typing import Any

from judge.game.addresses import ascii_address
from judge.game.config import JudgeConfig
from judge.game.store import Store, dumps, iso, loads
from judge.render.templates import mail_html

#: a well-formed msg-id: the only part of a sender's thread headers we ever echo (incoming mail
#: reads its own Message-ID with it too)
MSG_ID = re.compile(r"<[!-;=?-~]{1,250}@[!-;=?-~]{1,250}>")
MAX_REFERENCES = 20  # the newest ones only: a thread header must not grow without bound
CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def thread_ids(value: str) -> str:
    """The well-formed msg-ids in a References-like value, newest last, at most MAX_REFERENCES:
    nothing else of a sender's header is ever echoed into our own headers."""
    if not value.isprintable():  # (a printable value holds no control character: nothing to blank out)
        value = CONTROL.sub(" ", value)
    ids = list(dict.fromkeys(MSG_ID.findall(value)))
    return " ".join(ids[-MAX_REFERENCES:])


CRLF = "\r\n"

#: wait after the n-th temporary failure (the last value repeats)
BACKOFF = (timedelta(minutes=5), timedelta(minutes=15), timedelta(hours=1), timedelta(hours=4),
           timedelta(hours=12), timedelta(hours=24))


@dataclass
class OutboxItem:
    id: int
    sender: str
    recipients: list[str]
    message: bytes  # the whole RFC 5322 message (CRLF line ends)
    attempts: int


def compose(cfg: JudgeConfig, to: list[str], subject: str, text: str, now: datetime, *,
            in_reply_to: str | None = None, references: str | None = None,
            auto: str = "auto-generated", headers: dict[str, str] | None = None) -> tuple[bytes, str]:
    """Build one message; returns (bytes, Message-ID).

    Every message has a plain-text and an HTML part (``multipart/alternative``): the HTML that
    :mod:`judge.render.templates` made with the text (a :class:`~judge.render.templates.MailText`), or the text laid
    out. Files go beside the two (``multipart/mixed``): a picture with a Content-ID, which the HTML
    shows, marked inline with its file name; the others as attachments.

    The header fields and the body are written out directly: going through the stdlib's
    ``EmailMessage`` re-parses every header with the header registry, which cost more than all
    the rest of an order mail's reply, and a report's body (the same for every recipient) is
    built once and kept on its :class:`~judge.render.templates.MailText`.
    """
    domain = cfg.address.rpartition("@")[2] or "localhost"
    mid = make_msgid(idstring="judge", domain=domain)
    # a sender's text echoed into our header (their subject, their ids) is one clean line: a
    # decoded CR/LF must neither start a header of its own nor make this message unsendable
    subject = " ".join(CONTROL.sub(" ", subject).split())
    fields = [("To", to_field(to)), ("Subject", subject), ("Date", format_datetime(now)), ("Message-ID", mid)]
    in_reply_to = thread_ids(in_reply_to or "").rpartition(" ")[2]
    if in_reply_to:
        fields += [("In-Reply-To", in_reply_to), ("References", thread_ids(f"{references or ''} {in_reply_to}"))]
    sender, marks = _own_fields(cfg.name, cfg.address, auto, cfg.loop_header)
    head = "".join([sender, *(header_field(name, value, utf8=name == "To") for name, value in fields), marks,
                    *(header_field(name, value) for name, value in (headers or {}).items())]).encode("utf-8")
    files = list(getattr(text, "attachments", ()))
    if files:  # a report: the same body for every recipient, built once (its pictures are large)
        body = getattr(text, "mime_body", None)
        if body is None:
            body = _mime_body(str(text), getattr(text, "html", None) or mail_html(subject, str(text)), files)
            try:
                text.mime_body = body  # type: ignore[attr-defined]
            except AttributeError:  # a plain str: nothing to keep it on
                pass
        return head + body, mid
    html = getattr(text, "html", None) or mail_html(subject, str(text))
    return head + _alternative(str(text), html), mid


@functools.lru_cache(maxsize=64)
def _own_fields(name: str, address: str, auto: str, loop_header: str) -> tuple[str, str]:
    """The header lines every message of this judge has alike (its settings' own, no one's text):
    From, and Auto-Submitted with the loop header, each written out once."""
    return (header_field("From", formataddr((name, address))),
            header_field("Auto-Submitted", auto) + header_field(loop_header, address))


def to_field(to: list[str]) -> str:
    """The To addresses as the header gives them: an internationalized domain as its ``xn--``
    A-labels (so the message stays ASCII and any server takes it); only an address whose local
    part is not ASCII stays UTF-8 (RFC 6532), and such a message can only go out over SMTPUTF8."""
    return ", ".join(ascii_address(a) or a for a in to)


def header_field(name: str, value: str, utf8: bool = False) -> str:
    """One header line (CRLF): folded to 78 columns, non-ASCII text as RFC 2047 encoded words
    (``utf8``: written as raw UTF-8, RFC 6532, for addresses, which encoded words may not hold)."""
    if "\r" in value or "\n" in value:  # as EmailMessage: a value never starts a header of its own
        raise ValueError(f"header {name} may not contain CR or LF: {value!r}")
    if not value.isascii() and not utf8 or len(value) > 900 and max(map(len, value.split(" "))) > 900:
        # encoded words: for non-ASCII text, and to split a word too long for a line (RFC 5322: 998)
        return f"{name}: {Header(value, 'utf-8', header_name=name).encode(linesep=CRLF)}\r\n"
    if len(name) + len(value) <= 76:  # "Name: value" fits one line: the loop below would not fold it
        return f"{name}: {value}\r\n"
    # fold at spaces only, so unfolding gives the value back; a longer word stays whole
    lines, line = [], f"{name}:"
    for word in value.split(" "):
        if word and len(line) + 1 + len(word) > 78 and line.strip(" ") != f"{name}:":
            lines.append(line)
            line = ""
        line += " " + word
    lines.append(line)
    return CRLF.join(lines) + CRLF


#: the characters quoted-printable writes as ``=XX`` (the stdlib's table), but ``=`` itself
_QP_QUOTED = re.compile("[" + re.escape("".join(
    chr(c) for c in range(256) if c != 0x3D and quoprimime._QUOPRI_BODY_ENCODE_MAP[c] != chr(c))) + "]")


def qp_body(body: str) -> str:
    """``quoprimime.body_encode(body, 76, eol=CRLF)`` for ``body`` of characters below 256 (the
    UTF-8 bytes, one character each), the same text made faster: the stdlib quotes with
    ``str.translate`` over a table, a slow path in CPython that took most of a reply's encoding
    (its HTML part quotes every ``=``), so here ``=`` is replaced at once and the rest (rare in
    the judge's HTML) by a regular expression; the wrapping below is the stdlib's.
    tests/test_outbox_qp.py holds it to the stdlib."""
    if not body:
        return body
    # printable ASCII (with tabs and line ends) quotes only "=": told apart by two C scans, not by
    # the expression's class tested at every character (most of the judge's HTML parts)
    plain = body.isascii() and body.replace("\t", " ").replace("\r", " ").replace("\n", " ").isprintable()
    body = body.replace("=", "=3D")
    if not plain:
        body = _QP_QUOTED.sub(lambda m: f"={ord(m.group()):02X}", body)
    eol, maxlinelen = CRLF, 76
    soft_break = "=" + eol
    maxlinelen1 = maxlinelen - 1
    out: list[str] = []
    append = out.append
    for line in body.splitlines():
        start = 0
        laststart = len(line) - 1 - maxlinelen
        while start <= laststart:  # pieces of at most 75 characters and a soft break, never inside =XX
            stop = start + maxlinelen1
            if line[stop - 2] == "=":
                append(line[start:stop - 1])
                start = stop - 2
            elif line[stop - 1] == "=":
                append(line[start:stop])
                start = stop - 1
            else:
                append(line[start:stop] + "=")
                start = stop
        if line and line[-1] in " \t":  # white space ending a line is quoted (or kept before a soft break)
            room = start - laststart
            if room >= 3:
                q = f"={ord(line[-1]):02X}"
            elif room == 2:
                q = line[-1] + soft_break
            else:
                q = soft_break + f"={ord(line[-1]):02X}"
            append(line[start:-1] + q)
        else:
            append(line[start:])
    if body[-1] in CRLF:
        append("")
    return eol.join(out)


def _text_part(subtype: str, text: str) -> str:
    """A text part: 7bit when it is short-lined ASCII, else quoted-printable (UTF-8)."""
    lines = text.splitlines()
    if text.isascii() and max(map(len, lines), default=0) <= 78:
        cte, body = "7bit", CRLF.join(lines) + CRLF
    else:  # as the stdlib does it: the UTF-8 bytes, one character each, for quoprimime
        raw = ("\n".join(lines) + "\n").encode("utf-8").decode("latin-1")
        cte, body = "quoted-printable", qp_body(raw)
        if not body.endswith(CRLF):
            body += CRLF
    return (f'Content-Type: text/{subtype}; charset="utf-8"\r\nContent-Transfer-Encoding: {cte}\r\n\r\n'
            f"{body}")


def _boundary(parts: list[str]) -> str:
    boundary = "=_" + secrets.token_hex(16)
    while any(boundary in p for p in parts):  # astronomically unlikely, but then never ambiguous
        boundary = "=_" + secrets.token_hex(16)
    return boundary


def _multipart(subtype: str, parts: list[str], top: bool = False) -> str:
    """A multipart entity (its header fields, then the parts); ``top``: with MIME-Version."""
    boundary = _boundary(parts)
    out = ["MIME-Version: 1.0\r\n" if top else "", f'Content-Type: multipart/{subtype};\r\n boundary="{boundary}"\r\n\r\n']
    out += [f"--{boundary}\r\n{p}\r\n" for p in parts]  # that CRLF belongs to the delimiter after
    out.append(f"--{boundary}--\r\n")
    return "".join(out)


def _alternative(text: str, html: str) -> bytes:
    return _multipart("alternative", [_text_part("plain", text), _text_part("html", html)], top=True).encode("utf-8")


def _file_part(a: Any) -> str:
    """A picture or attachment, base64 in 76-column lines; inline with its Content-ID, or attached."""
    data = base64.encodebytes(a.data).decode("ascii").replace("\n", CRLF)
    name = a.filename.replace("\\", "").replace('"', "")
    head = f"Content-Type: {a.content_type}\r\nContent-Transfer-Encoding: base64\r\n"
    if a.cid:
        head += f'Content-ID: <{a.cid}>\r\nContent-Disposition: inline; filename="{name}"\r\n'
    else:
        head += f'Content-Disposition: attachment; filename="{name}"\r\n'
    return f"{head}\r\n{data}"


def _mime_body(text: str, html: str, files: list[Any]) -> bytes:
    """The body with pictures: text and HTML as alternatives, and the files beside them
    (``multipart/mixed``). A picture the HTML shows (``cid:map``) keeps its Content-ID there and
    is marked inline with a file name: inside a ``multipart/related`` under the HTML part a reader
    of the text part (a text-only client, some phone apps) never saw it, though the text says the
    map is attached; as a sibling of the alternatives every reader gets it, still once (the mail
    stays within its size budget). Written out directly, as the two-part body is: the stdlib's
    generator cost several times the rest."""
    alternative = _multipart("alternative", [_text_part("plain", text), _text_part("html", html)])
    body = _multipart("mixed", [alternative, *(_file_part(a) for a in files)], top=True)
    return body.encode("ascii")


def list_headers(cfg: JudgeConfig, game: str, address: str) -> dict[str, str]:
    """RFC 2369/2919 headers for a report sent to a game's mailing list."""
    domain = cfg.address.rpartition("@")[2] or "localhost"
    label = f"{game}.{cfg.code.lower()}.{domain}"
    out = {"List-Id": f'"{cfg.code} game {game}" <{label}>', "List-Post": f"<mailto:{address}>"}
    if cfg.archive_url:
        out["List-Archive"] = f"<{cfg.archive_url.rstrip('/')}/{game}/index.html>"
    return out


def queue(store: Store, cfg: JudgeConfig, to: list[str], subject: str, text: str, now: datetime, *,
          in_reply_to: str | None = None, references: str | None = None, auto: str = "auto-generated",
          game_id: int | None = None, kind: str = "notice",
          game_list: tuple[str, str | None] | None = None) -> int | None:
    """Queue one message to ``to`` (our own address and duplicates dropped). Returns the row id.
    ``game_list``: the name and list address of game ``game_id`` when the caller holds them as
    the store does now (read in this transaction, unchanged since), so they are not read again."""
    rcpts = list(dict.fromkeys(a.strip().lower() for a in to if a and a.strip()))
    rcpts = [a for a in rcpts if a != cfg.address]
    if not rcpts:
        return None
    headers = None
    if game_id is not None:  # a copy for the game's mailing list is marked as list mail
        if game_list is None:
            g = store.one("SELECT name, list_address FROM games WHERE id = ?", (game_id,))
            game_list = (g["name"], g["list_address"]) if g is not None else ("", None)
        name, address = game_list
        if address and address in rcpts:
            headers = list_headers(cfg, name, address)
    data, mid = compose(cfg, rcpts, subject, text, now, in_reply_to=in_reply_to, references=references, auto=auto,
                        headers=headers)
    return store.insert("outbox", sender=cfg.address, recipients=dumps(rcpts), message=data, status="pending",
                        attempts=0, next_attempt=iso(now), created=iso(now), game_id=game_id, kind=kind,
                        message_id=mid)


def pending(store: Store, now: datetime, limit: int = 50) -> list[OutboxItem]:
    rows = store.all("SELECT id, sender, recipients, message, attempts FROM outbox "
                     "WHERE status = 'pending' AND next_attempt <= ? ORDER BY id LIMIT ?", (iso(now), int(limit)))
    return [OutboxItem(r["id"], r["sender"], loads(r["recipients"], []), bytes(r["message"]), r["attempts"])
            for r in rows]


def mark_sent(store: Store, item_id: int, now: datetime) -> None:
    mark_sent_many(store, [item_id], now)


def mark_sent_many(store: Store, item_ids: list[int], now: datetime) -> None:
    """Several sends recorded in one transaction: a commit (an fsync) cost as much as a reply."""
    with store.transaction():
        store.conn.executemany("UPDATE outbox SET status = 'sent', sent_at = ?, attempts = attempts + 1 "
                               "WHERE id = ? AND status = 'pending'", [(iso(now), int(i)) for i in item_ids])


def mark_failed(store: Store, cfg: JudgeConfig, item_id: int, error: str, permanent: bool, now: datetime) -> None:
    """Record a failed delivery: retry later, or give up and tell the game master."""
    with store.transaction():
        row = store.one("SELECT * FROM outbox WHERE id = ?", (int(item_id),))
        if row is None or row["status"] != "pending":
            return
        attempts = int(row["attempts"] or 0) + 1
        if not permanent and attempts < cfg.max_attempts:
            wait = BACKOFF[min(attempts - 1, len(BACKOFF) - 1)]
            store.update("outbox", row["id"], attempts=attempts, last_error=error[:1000], next_attempt=iso(now + wait))
            return
        store.update("outbox", row["id"], attempts=attempts, last_error=error[:1000], status="failed")
        if row["kind"] == "failure-report":
            return  # never report the failure of a failure report (no loops)
        recipients = loads(row["recipients"], [])
        tell: list[str] = []
        game_name = None
        if row["game_id"] is not None:
            g = store.one("SELECT g.name, p.address FROM games g LEFT JOIN players p ON p.id = g.master_id "
                          "WHERE g.id = ?", (row["game_id"],))
            if g is not None:
                game_name = g["name"]
                if g["address"]:
                    tell.append(g["address"])
        if cfg.keeper:
            tell.append(cfg.keeper)
        tell = [a for a in tell if a not in recipients]
        if tell:
            from judge.render.templates import render

            subject, text = render("delivery_failure.txt", code=cfg.code, game=game_name, recipients=recipients,
                                   error=error, attempts=attempts, permanent=permanent)
            queue(store, cfg, tell, subject, text, now, game_id=row["game_id"], kind="failure-report")
