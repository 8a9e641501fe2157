"""The mail door reads header fields without the stdlib's header parser where the parser would give
the value back unchanged (judge.mail.incoming.plain_header_text): held here to the stdlib, on
random values and on whole random header blocks (encoded words in several scripts, folding,
8-bit bytes, hostile shapes, repeated and differently cased names)."""

from __future__ import annotations

import re
from typing import Any
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from hypothesis import HealthCheck, example, given, settings, strategies as st

from judge.mail.incoming import _READ_POLICY, _header, plain_content_type, plain_header_text

#: the fields the mail door reads as text, and a few more of each kind
NAMES = ["Subject", "Message-ID", "References", "In-Reply-To", "Auto-Submitted", "Precedence", "X-Judge-Loop",
         "X-Autoreply", "X-Autorespond", "X-Auto-Reply", "List-Id", "List-Unsubscribe", "Return-Path",
         "message-id", "SUBJECT", "From", "Reply-To", "To", "Content-Type", "Date", "MIME-Version"]

PIECES = [" ", "\t", "(", ")", "<", ">", "@", ",", ";", ":", "\\", '"', ".", "[", "]", "=", "?", "_", "-", "a", "Z",
          "0", "\r\n ", "\r\n\t", "\x00", "\x7f", "=?", "?=", "=?utf-8?q?caf=C3=A9?=", "=?UTF-8?B?0J/RgNC40LLQtdGC?=",
          "=?iso-2022-jp?b?GyRCJDMkcyRLJEEkTxsoQg==?=", "=?utf-8?q?bad", "=?x-unknown?q?a?=", "<a@b.example>",
          "<m1.p3@example.test>", "<x.y@[127.0.0.1]>", "(comment)", '"quoted"', "Ünïcödé", "日本語", "\udce9",
          "SIGNON Fgame pw", "Re: ", "auto-replied", "bulk"]


def reference(msg: EmailMessage, name: str) -> str:
    """What the mail door read before: ``msg.get`` through the header registry, the raw text when
    the parser fails, undecodable bytes as U+FFFD."""
    def text(value: str) -> str:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    try:
        v = msg.get(name)
    except Exception:
        v = None
    if v is None:
        raws = [v for k, v in msg.raw_items() if k.lower() == name.lower()]
        return text(str(raws[0])) if raws else ""
    return text(str(v))


values = st.lists(st.sampled_from(PIECES) | st.characters(min_codepoint=32, max_codepoint=126),
                  max_size=24).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(NAMES), values)
def test_plain_text_is_what_the_parser_gives(name: str, value: str) -> None:
    plain = plain_header_text(name, value)
    if plain is not None:
        assert plain == str(policy.default.header_fetch_parse(name, value))


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"[ \t]*<[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
                     r"@[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*>[ \t]*", fullmatch=True))
def test_plain_message_ids_are_read_as_the_parser_reads_them(value: str) -> None:
    assert plain_header_text("Message-ID", value) == value
    assert str(policy.default.header_fetch_parse("Message-ID", value)) == value


def _raw_block(fields: list[tuple[str, str]]) -> bytes:
    head = "".join(f"{n}: {v}\r\n" for n, v in fields)
    return head.encode("utf-8", "surrogateescape") + b"\r\nSIGNON Fgame pw\r\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(NAMES), values), max_size=8))
def test_fields_read_from_a_whole_message_match_the_stdlib(fields: list[tuple[str, str]]) -> None:
    # a value must not end a field early or start another: a raw CR/LF is always followed by space
    fields = [(n, re.sub(r"\r\n(?![ \t])", " ", v).replace("\r", " ").replace("\n", " ").strip() or "x")
              for n, v in fields]
    msg = BytesParser(policy=_READ_POLICY).parsebytes(_raw_block(fields))
    for name in {n for n, _ in fields} | {"Subject", "Message-ID", "List-Id", "Return-Path"}:
        assert _header(msg, name) == reference(msg, name), name


def test_folded_and_encoded_fields_from_real_clients() -> None:
    import client_mails as cm

    raws = list(cm.all_clients(["SIGNON Fgame pw", "A Par - Bur"], ["old line"]).values())
    raws.append(b"From: =?utf-8?q?J=C3=BCrgen?= <j@example.test>\r\nSubject: =?utf-8?b?0J/RgNC40LrQsNC3?=\r\n"
                b" =?utf-8?q?_A_Par_-_Bur?=\r\nMessage-ID: <weird id@x>\r\nReferences: <a@b>\r\n\t<c@d> junk\r\n"
                b"Auto-Submitted: auto-replied (vacation)\r\n\r\nbody\r\n")
    for raw in raws:
        msg = BytesParser(policy=_READ_POLICY).parsebytes(raw)
        for name in NAMES:
            assert _header(msg, name) == reference(msg, name), (name, raw[:200])


#: pieces of Content-Type fields: the shapes mail programs write, and every character the fast
#: reading must either hold to the stdlib or leave to it (quotes, RFC 2231 ``*``/``'``/``%``, 8-bit)
CT_PIECES = ["text/plain", "multipart/alternative", "Multipart/Mixed", "text/HTML", ";", "; ", ";\r\n\t", ";\r\n ",
             " ", "\t", "=", '"', "'", "''", "*", "%E9", "\\", "(", ")", ",", ":", "@", "/", "?", "[", "]", "<", ">",
             "charset", "UTF-8", "us-ascii", "format", "flowed", "delsp", "yes", "boundary", "_000_DB9PR05MB",
             "=_abc", "----=_Part_1_2", "Apple-Mail=_9F1B", "000000000000b4f2a3", "name", "x.txt", "é", "\udce9", ""]
ct_values = st.lists(st.sampled_from(CT_PIECES) | st.characters(min_codepoint=32, max_codepoint=126),
                     max_size=16).map("".join)


@settings(max_examples=1500, deadline=None)
@given(ct_values)
def test_plain_content_type_is_what_the_parser_gives(value: str) -> None:
    plain = plain_content_type(value)
    if plain is not None:
        assert plain == str(policy.default.header_fetch_parse("Content-Type", value))


@settings(max_examples=300, deadline=None)
@given(st.from_regex(r"(text|multipart)/[a-z]{1,8}(;[ \t]{0,2}(\r\n)?[ \t]{0,2}[a-z]{1,8}=([A-Za-z0-9._-]{1,12}"
                     r"|\"[ A-Za-z0-9=_.;:/?-]{1,20}\")){0,3}", fullmatch=True))
def test_plain_content_types_are_read_without_the_parser(value: str) -> None:
    """Every field of the plain shapes takes the fast reading (but one naming a parameter twice,
    which the parser reads), and it agrees with the parser."""
    names = re.findall(r";[ \t\r\n]*([a-z]+)=", re.sub(r'"[^"]*"', "", value))
    plain = plain_content_type(value)
    assert (plain is None) == (len(set(names)) < len(names))
    if plain is not None:
        assert plain == str(policy.default.header_fetch_parse("Content-Type", value))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ct_values)
@example(";0*")  # fields the stdlib's parser cannot read (IndexError): read as absent
@example(";charset*")
def test_content_type_and_parameters_match_the_stdlib(value: str) -> None:
    value = re.sub(r"\r\n(?![ \t])", " ", value).replace("\r", " ").replace("\n", " ").strip() or "x"
    raw = _raw_block([("From", "a@b.example"), ("Content-Type", value)])
    def parsed(pol: Any) -> Any:  # the stdlib's parser fails on some fields (";0*": IndexError) already here
        try:
            return BytesParser(policy=pol).parsebytes(raw)
        except Exception as exc:
            return type(exc)

    ours, theirs = parsed(_READ_POLICY), parsed(policy.default)
    assert isinstance(ours, EmailMessage)  # ours never fails
    if not isinstance(theirs, EmailMessage):  # the stdlib's parser fails (";0*": IndexError): the field is
        assert "content-type" in ours.unreadable  # read as absent (RFC 2045 5.2: text/plain in US-ASCII)
        assert (ours.get_content_type(), ours.get_params(), ours.get_content_charset()) == ("text/plain", None, None)
        for param in ("charset", "boundary", "format", "delsp", "name"):  # as for an absent field
            assert ours.get_param(param) is None and ours.get_param(param, "") == ""
        assert (ours.get_boundary(), ours.get_filename()) == (None, None)
        assert "Content-Type" not in ours and "content-type" not in ours  # absent for ``in`` too
        ours.del_param("charset")  # (nothing to remove)
        return

    def same(ask: Any) -> None:  # the same answer, or the same error (the stdlib's parser fails on some)
        def outcome(msg: EmailMessage) -> Any:
            try:
                return ask(msg)
            except Exception as exc:
                return type(exc)
        assert outcome(ours) == outcome(theirs)

    same(lambda m: m.get_content_type())
    for header in ("content-type", "Content-Type"):
        same(lambda m: m.get_params(header=header))
        same(lambda m: m.get_params(header=header, unquote=False))
    for param in ("charset", "boundary", "format", "delsp", "name"):
        same(lambda m: m.get_param(param))
    same(lambda m: m.get_content_charset())
    same(lambda m: m.get_boundary())


def test_client_mails_read_their_parts_as_the_stdlib_does() -> None:
    import client_mails as cm

    for raw in cm.all_clients(["SIGNON Fgame pw", "A Par - Bur"], ["old line"]).values():
        ours = BytesParser(policy=_READ_POLICY).parsebytes(raw)
        theirs = BytesParser(policy=policy.default).parsebytes(raw)
        mine, stdlib = list(ours.walk()), list(theirs.walk())
        assert len(mine) == len(stdlib)
        for a, b in zip(mine, stdlib):
            assert (a.get_content_type(), a.get_params(), a.get_boundary(), a.get_content_charset()) == \
                (b.get_content_type(), b.get_params(), b.get_boundary(), b.get_content_charset())


def test_without_the_stdlibs_private_readers_every_field_takes_the_parsers_way(monkeypatch: Any) -> None:
    """The fast Content-Type reading leans on two private stdlib functions; a Python without them
    must still read every client's parts, only by the parser."""
    import judge.mail.incoming as incoming

    monkeypatch.setattr(incoming, "_splitparam", None)
    plain_content_type.cache_clear()
    try:
        assert plain_content_type('text/plain; charset="UTF-8"') is None
        test_client_mails_read_their_parts_as_the_stdlib_does()
    finally:
        plain_content_type.cache_clear()


def _clean_subject_by_sub(subject: str, code: str) -> str:
    """clean_subject as it was written with ``re.sub`` (the reference for the anchored matching)."""
    from judge.mail.incoming import _SUBJECT_JUNK
    from judge.mail.newtext import strip_invisible

    s = " ".join(strip_invisible(subject).split())
    tag = re.compile(rf"^{re.escape(code)}:[\w-]+(?:\s+-\s+[A-Z]\d{{3,4}}[A-Z])?(?:\s+|$)", re.I) if code else None
    while True:
        t = _SUBJECT_JUNK.sub("", s, count=1)
        if tag is not None:
            t = tag.sub("", t, count=1)
        if t == s:
            return s
        s = t


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["Re:", "RE :", "Fwd:", "AW:", "Re[2]:", "Ответ:", "回复：", " ", "\t", "TEST:tg",
                                 "TEST:tg - S1901M", "test:TG", " - ", "[Error Flag]", "[You are late!]", "orders",
                                 "SIGNON Ftg pw", "Re", ":", "\ufeff", "x:"]), max_size=8).map("".join),
       st.sampled_from(["", "TEST", "J.X"]))
def test_clean_subject_cuts_what_a_sub_at_the_start_cut(subject: str, code: str) -> None:
    from judge.mail.incoming import clean_subject

    assert clean_subject(subject, code) == _clean_subject_by_sub(subject, code)
