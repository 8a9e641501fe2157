"""What reading a mail remembers: the content type and parameters a message keeps with its header
index (made afresh when its fields change, never shared between messages), and the lines known
to be no command (a command line, which may hold a password, is never kept)."""

from __future__ import annotations

from email.message import EmailMessage

import client_mails as cm
from judge.mail import language
from judge.mail.feedparse import parse_bytes
from judge.mail.incoming import _READ_POLICY, _ReadMessage
from judge.mail.language import _match_keyword, match_keyword


def _read(raw: bytes) -> _ReadMessage:
    msg = parse_bytes(raw, _READ_POLICY)
    assert isinstance(msg, _ReadMessage)
    return msg


def _plain(raw: bytes) -> EmailMessage:
    from email import policy
    from email.parser import BytesParser

    return BytesParser(policy=policy.default).parsebytes(raw)  # type: ignore[return-value]


def test_content_types_and_params_as_the_stdlib_reads_them() -> None:
    for raw in cm.all_clients(["A Vie - Gal"], ["Orders received."]).values():
        mine, theirs = list(_read(raw).walk()), list(_plain(raw).walk())
        for a, b in zip(mine, theirs):
            for _ in range(2):  # the second time from what was kept
                assert a.get_content_type() == b.get_content_type()
                assert a.get_params() == b.get_params() and a.get_params(unquote=False) == b.get_params(unquote=False)
                assert a.get_param("charset") == b.get_param("charset")
                assert a.get_content_charset() == b.get_content_charset()
                assert a.get_params(header="content-disposition") == b.get_params(header="content-disposition")


def test_a_changed_field_is_read_afresh() -> None:
    msg = _read(b'Content-Type: text/plain; charset="utf-8"; format=flowed\r\n\r\nhi\r\n')
    assert msg.get_content_type() == "text/plain" and msg.get_param("format") == "flowed"
    msg.replace_header("Content-Type", "text/html; charset=latin-1")
    assert msg.get_content_type() == "text/html" and msg.get_param("format") is None
    assert msg.get_content_charset() == "latin-1"
    msg.set_param("charset", "koi8-r")
    assert msg.get_content_charset() == "koi8-r"
    del msg["Content-Type"]
    assert msg.get_content_type() == "text/plain" and msg.get_params() is None
    msg["Content-Type"] = "multipart/mixed; boundary=x"
    assert msg.get_content_type() == "multipart/mixed" and msg.get_boundary() == "x"
    msg.set_default_type("message/rfc822")
    del msg["Content-Type"]
    assert msg.get_content_type() == "message/rfc822"


def test_params_handed_out_are_copies() -> None:
    msg = _read(b'Content-Type: text/plain; charset="utf-8"\r\n\r\nhi\r\n')
    params = msg.get_params(unquote=False)
    params.clear()
    assert msg.get_params(unquote=False) == [("text/plain", ""), ("charset", '"utf-8"')]


def test_match_keyword_remembers_only_lines_that_are_no_command(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(language, "_NOT_COMMANDS", {})  # what this test's lines leave, apart from other tests'
    lines = ["SIGNON Atg secretpw", "signon Atg pw2", "Hello judge, please sign me up.", "HELLO Atg pw",
             "A Vie - Gal", "ENDPRESS.", "If you agree, ...", "IF Austria A Vie - Gal", "", "   ", "PRESS TO F",
             "Login: Atg pw3", "x" * 300]
    for line in lines * 2:
        assert match_keyword(line) == _match_keyword(line)
    kept = set(language._NOT_COMMANDS)
    assert "A Vie - Gal" in kept and "Hello judge, please sign me up." in kept
    assert not any("pw" in line for line in kept)  # a command line (a password in it) is never kept
    assert kept == {line for line in lines if len(line) <= 200 and _match_keyword(line) is None}
    assert "x" * 300 not in kept  # nor a long line
    found = match_keyword("PRESS TO F")
    assert found is not None
    found[1].append("changed")
    assert match_keyword("PRESS TO F") == ("PRESS", ["TO", "F"])
