"""judge.render.templates: tidy (the last step of every rendered mail text), wrap_text and
text_to_html held to what they promise on any text (line ends of every kind, signature
separators, Unicode spaces, markup characters)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from judge.render.templates import NBSP, text_to_html, tidy, wrap_line, wrap_text

PIECES = ["\n", "\r\n", "\r", " ", "\t", "-- ", "--", "a", "b c", "\x0c", "\x1c", "\u2028", "\x85", "\xa0", "\u3000",
          "\n\n\n", "-- \n", "  x  "]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(PIECES) | st.characters(blacklist_categories=("Cs",)), max_size=40).map("".join))
def test_tidy_keeps_every_line_and_drops_only_blank_runs_and_trailing_space(text: str) -> None:
    out = tidy(text)
    assert out.endswith("\n") and not out.endswith("\n\n") or out == "\n"
    lines = out[:-1].split("\n")
    written = [line if line == "-- " else line.rstrip() for line in text.splitlines()]
    # every line with text is kept, in order, without its trailing white space (but "-- ")
    assert [line for line in lines if line] == [line for line in written if line]
    assert all(line == "-- " or line == line.rstrip() for line in lines)
    # at most one blank line in a row, none first or last; and one wherever the text had any
    assert not any(a == b == "" for a, b in zip(lines, lines[1:]))
    if any(written):
        assert lines[0] and lines[-1]
        kept = [i for i, line in enumerate(written) if line]
        gaps = [b - a > 1 for a, b in zip(kept, kept[1:])]
        shown = [i for i, line in enumerate(lines) if line]
        assert gaps == [b - a > 1 for a, b in zip(shown, shown[1:])]
    else:
        assert out == "\n"


def test_tidy_on_a_reply_shape() -> None:
    assert tidy("\n\n:: Judge: T  \n\n\n> SIGNON Fgame\nOK \t\n\n-- \nsig\n\n") == ":: Judge: T\n\n> SIGNON Fgame\nOK\n\n-- \nsig\n"


TEXT = st.lists(st.sampled_from(PIECES + [":: Judge: T", "> A Par - Bur", "*** Error: x", "-----", "SET NAME x      what",
                                          "<&>'\"", "North\xa0Sea", "word " * 20]), max_size=16).map("".join)


@settings(max_examples=500, deadline=None)
@given(TEXT)
def test_one_line_lays_out_as_the_same_line_in_a_text(line: str) -> None:
    """A single line (a reply's echo or note) is laid out as it is in a longer text."""
    line = line.replace("\r\n", "\n").split("\n")[0]
    assert text_to_html(line) == text_to_html("\n" + line)
    if not line.endswith("\r"):  # (a CR before the LF added would make one line end of them)
        assert text_to_html(line) == text_to_html(line + "\n")
    assert "<" not in str(text_to_html(line)).replace("<p ", "").replace("<div ", "").replace("<hr ", "") \
        .replace("</p>", "").replace("</div>", "").replace("<br />", "")  # everything the player wrote escaped


@settings(max_examples=500, deadline=None)
@given(TEXT, st.sampled_from([72, 30]))
def test_wrap_text_wraps_each_line_alone(text: str, width: int) -> None:
    lines = [part for line in text.split("\n") for part in wrap_line(line, width)]
    assert wrap_text(text, width) == "\n".join(lines).replace(NBSP, " ")
