"""The reply's quoted-printable encoder (judge.game.outbox.qp_body) writes exactly what the
stdlib's ``quoprimime.body_encode`` writes, on any text as the outbox hands it over: its UTF-8
bytes, one character each."""

from __future__ import annotations

from email import quoprimime

from hypothesis import given, settings, strategies as st

from judge.game.outbox import CRLF, qp_body

PIECES = ["=", " ", "\t", "\n", ".", "From ", "x" * 40, "=3D", "a=", " \n", "\t\n", "é", "€", "日本", "\x00", "\x7f",
          "\x0b", "\x0c", "\x1c", "\x85", "\u2028", "<p style=\"margin:0\">", "&#39;"]


def as_outbox_hands_it(text: str) -> str:
    lines = text.splitlines()
    return ("\n".join(lines) + "\n").encode("utf-8").decode("latin-1")


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.characters(blacklist_categories=("Cs",)), max_size=200).map("".join))
def test_same_as_the_stdlib(text: str) -> None:
    raw = as_outbox_hands_it(text)
    assert qp_body(raw) == quoprimime.body_encode(raw, 76, eol=CRLF)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["=", " ", "\t", "a", "é"]), min_size=60, max_size=90).map("".join))
def test_line_ends_and_breaks_near_the_limit(line: str) -> None:
    for raw in (line, line + "\n", as_outbox_hands_it(line)):  # with and without the last line end
        assert qp_body(raw) == quoprimime.body_encode(raw, 76, eol=CRLF)


def test_a_reply_page() -> None:
    from judge.render.templates import mail_html

    raw = as_outbox_hands_it(mail_html("Re: TEST:tg - S1901M orders", "> F Bre - Mao\n  Müller's order\n" * 30))
    assert qp_body(raw) == quoprimime.body_encode(raw, 76, eol=CRLF)
    assert qp_body("") == quoprimime.body_encode("", 76, eol=CRLF)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["To", "Subject", "Date", "Message-ID", "References", "X-Judge-Loop", "A"]),
       st.lists(st.sampled_from(["a", "b", " ", "  ", "<m1.p0@example.test>", "x" * 30, ":", "-"]), max_size=30).map("".join))
def test_header_lines_fold_at_spaces_within_78_columns(name: str, value: str) -> None:
    """judge.game.outbox.header_field: unfolded, the field is the value as given, each line after
    the first a continuation; a field that fits 78 columns is one line; a folded line holds at
    most 78 columns of words, or a single word too long to fit."""
    from judge.game.outbox import header_field

    field = header_field(name, value)
    assert field.endswith(CRLF)
    lines = field[:-2].split(CRLF)
    assert "".join(lines) == f"{name}: {value}"
    assert all(line.startswith(" ") for line in lines[1:])
    assert all(len(line.rstrip(" ")) <= 78 or len(line.split()) <= 1 + (i == 0) for i, line in enumerate(lines))
    if len(name) + 2 + len(value) <= 78:
        assert lines == [f"{name}: {value}"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["=", " ", "\t", "\r", "\n", "\r\n", "x" * 40, "a=", "<p style=\"margin:0\">", "\x7f",
                                 "\x0c"]) | st.characters(min_codepoint=32, max_codepoint=126), max_size=200).map("".join))
def test_ascii_text_as_the_stdlib(raw: str) -> None:
    """Printable ASCII with tabs and line ends (the judge's HTML parts: only "=" is quoted), and
    the control characters beside them that are quoted after all."""
    assert qp_body(raw) == quoprimime.body_encode(raw, 76, eol=CRLF)
