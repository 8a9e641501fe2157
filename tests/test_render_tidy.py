"""judge.render.templates.tidy, the last step of every rendered mail text: held to what it
promises on any text (line ends of every kind, signature separators, Unicode spaces)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from judge.render.templates import tidy

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
