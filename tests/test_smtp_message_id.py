"""The SMTP runner finds a message's own Date and Message-ID without the stdlib's header parser
when the header block is plain; it must give what the parser gives, on every header block."""

from __future__ import annotations

from datetime import datetime, timezone
from email.parser import BytesHeaderParser
from email.policy import compat32

from hypothesis import example, given, settings, strategies as st

from judge.daemon.smtp_out import _own_date_and_id, with_date_and_id
from judge.game.config import JudgeConfig
from judge.game.outbox import compose


def parser_says(message: bytes) -> tuple[bool, str | None]:
    """Whether the parser finds a Date, and the Message-ID it keeps (None: one is added)."""
    hdr = BytesHeaderParser(policy=compat32).parsebytes(message)
    mid = hdr.get("Message-ID")
    return hdr.get("Date") is not None, str(mid).strip() if mid else None


def test_the_services_own_messages() -> None:
    cfg = JudgeConfig(address="judge@example.test")
    raw, mid = compose(cfg, ["p@example.test"], "Re: orders", "Orders received.\n",
                       datetime(2026, 1, 1, tzinfo=timezone.utc), in_reply_to="<m1@example.test>")
    assert parser_says(raw) == (True, mid) and _own_date_and_id(raw) == mid
    assert with_date_and_id(raw, None) == (raw, mid)


NAMES = st.sampled_from(["Date", "date", "DATE", "Message-ID", "message-id", "Message-Id", "From", "To",
                         "Subject", "X-Loop", "References", "From ", "Message-ID ", " Message-ID", ""])
VALUES = st.sampled_from(["", " ", " <a@b>", "<a@b>", " <a@b> ", "\t<c@d>", " Mon, 1 Jan 2024 00:00:00 +0000",
                          " x", " caf\u00e9", " <\u00e9@b>"])
LINE_ENDS = st.sampled_from(["\r\n", "\n", "\r\n ", "\r\n\t", "\r\n \r\n"])


@settings(max_examples=600, deadline=None)
@example([("Date", " x", "\r\n"), ("Message-ID", " <a@b>", "\r\n\t"), ("Message-ID", " <c@d>", "\r\n")], "\r\n")
@example([("Date", "", "\r\n"), ("Message-ID", "", "\r\n ")], "\r\n")  # folded to nothing
@given(st.lists(st.tuples(NAMES, VALUES, LINE_ENDS), max_size=6), st.sampled_from(["\r\n", "\n", ""]))
def test_the_same_as_the_parser(fields: list[tuple[str, str, str]], gap: str) -> None:
    head = "".join(f"{n}:{v}{e}" for n, v, e in fields)
    raw = (head + gap + "body\r\nDate: no\r\n").encode("utf-8")
    dated, kept = parser_says(raw)
    own = _own_date_and_id(raw)
    if own is not None:  # found without the parser: exactly what the parser finds
        assert (dated, kept) == (True, own)
    out, mid = with_date_and_id(raw, "<fresh@x>")
    added = out[:len(out) - len(raw)]
    assert out.endswith(raw) and mid == (kept if kept is not None else "<fresh@x>")
    assert added.startswith(b"Date: ") != dated and (b"Message-ID: <fresh@x>" in added) == (kept is None)
