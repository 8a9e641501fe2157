"""Order text → lines of the orders block → tokens.

What is not orders is dropped here: everything after a signature ("-- ") or a forwarded
message header, quoted lines ("> ..."), the "On ... wrote:" line that introduces them,
``#`` comments and list markers ("1.", "2)", "- ", "* ") in front of an order.

Tokens are words and a few symbols. A dot never becomes a token: it is remembered on the
word before it (``Tok.dot``), because a dot may end an abbreviation ("St. Pete.", "A.") as
well as an order ("F Ion-WMed. A Tun P F Ion-WMed."), and only the parser can tell which.
Brackets are dropped too ("A(Lon)", "(S)", "(nc)", "[England]" read as without them), and
angle brackets around a failed order in a report ("<A <LPL>-holds>"); a ">" no "<" opened is
an arrow ("A Lon > Bel"). An underscore between two words is a slash ("stp_sc", as some tools
write a coast).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

#: symbols the parser knows: "->" (any arrow), "-" (any dash), ":", "/", ";", ","
_TOKEN = re.compile(r"""
    (?P<w>[^\W_]+(?:['’][^\W_]+)*)
  | (?P<arrow>[-=]+>+|>>+|→|⇒|⟶)
  | (?P<dash>[-‐‑‒–—―]+)
  | (?P<sym>[:/;,>])
  | (?P<under>(?<=[^\W_])_(?=[^\W_]))
  | (?P<dot>[.…]+)
  | (?P<skip>[()\[\]{}"'‘’“”!?*`]+)
  | (?P<lt><)
  | (?P<junk>[^\s])
""", re.VERBOSE)

# ``other_line``'s patterns, as text: compiled when first used (and kept by ``re``'s own cache of
# compiled patterns), since a batch of orders in canonical text meets none of the lines they are
# for, and compiling the three was a hundredth of its start-up
_SIGNATURE = r"^--\s*$|^-{3,}\s*(original|forwarded) message\s*-{3,}$|^_{10,}\s*$"  # (re.I)
_WROTE = r"^(on\b.*\bwrote|.*\bschrieb|le\b.*\ba écrit)\s*:\s*$"  # (re.I)
_LIST_MARK = r"^\s*(?:\d{1,3}[.)]|[-*•·])\s+"
_SIGNATURE_START = frozenset("-_")
_LIST_START = frozenset("-*•·")


@dataclass(slots=True)
class Tok:
    text: str  # as written
    low: str  # words: lower case without apostrophes; symbols: "->", "-", ":", "/", ";", ","
    start: int  # offsets in the line
    end: int
    word: bool
    dot: bool = False  # a dot follows (abbreviation or end of an order)


def order_lines(text: str) -> Iterator[str]:
    """The lines of the orders block, comments and list markers removed (blank lines kept out)."""
    for _, line in source_lines(text):
        if line:
            yield line


def source_lines(text: str) -> Iterator[tuple[str, str]]:
    """``(the line as written, the line to read)`` for each line of the orders block; the line to
    read is "" for a line that is only a comment or a quotation ("# plan B", "> F Lon - Nth"),
    which the reader notes rather than passing over in silence.

    A "*" list marker is kept (as a blank, with the star) because in an adjustment phase
    "* F Bre" is the zines' removal mark; the tokenizer drops it everywhere else."""
    for raw in text.splitlines():
        stripped = raw.strip()
        if is_plain(raw, stripped):
            yield stripped, raw.rstrip()
            continue
        got = other_line(raw)
        if got is END:
            return
        if got is not None:
            yield got


def is_plain(raw: str, stripped: str) -> bool:
    """Is ``raw`` (``stripped``: without the blanks around it) a line of the orders block that is
    read as it is? Most lines are orders, for which none of ``other_line``'s cases can apply: this
    runs on every line of every mail and batch case, and the patterns are tried only where their
    first (or last) character could match."""
    return stripped[:1].isalpha() and stripped[-1] != ":" and "#" not in raw


#: ``other_line``'s answer for the line that ends the orders block (a signature, a forwarded message)
END = ("", "--")


def other_line(raw: str) -> tuple[str, str] | None:
    """``source_lines``' pair for a line that is not ``is_plain``; None for a line that gives
    nothing (a blank line), ``END`` for the line that ends the block."""
    first = raw.strip()[:1]
    if first in _SIGNATURE_START and (re.match(_SIGNATURE, raw.strip(), re.I) or raw.rstrip("\r\n") == "-- "):
        return END
    line = raw.split("#", 1)[0]
    stripped = line.strip()
    if not stripped or stripped[0] == ">" or stripped[-1] == ":" and re.match(_WROTE, stripped, re.I):
        if stripped[:1] == ">" or not stripped and raw.strip():
            return raw.strip(), ""
        return None
    if stripped[0] in _LIST_START or stripped[0].isdigit():
        mark = re.match(_LIST_MARK, line)
        if mark:
            blank = " " * mark.end()
            if stripped[0] == "*":
                at = line.index("*")
                blank = blank[:at] + "*" + blank[at + 1:]
            line = blank + line[mark.end():]
    return raw.strip(), line.rstrip()


def tokenize(line: str) -> list[Tok]:
    toks: list[Tok] = []
    opened = 0  # "<" not closed yet: a ">" closes it ("<A <LPL>-holds>", a report's failed order)
    for mt in _TOKEN.finditer(line):
        group = mt.lastgroup
        s = mt.group()
        if group == "lt":
            opened += 1
            continue
        if opened and s == ">":
            opened -= 1
            continue
        if group == "w":
            toks.append(Tok(s, s.lower().replace("'", "").replace("’", ""), mt.start(), mt.end(), True))
        elif group == "dot":
            if toks:
                toks[-1].dot = True
        elif group == "skip":
            continue
        else:
            low = "->" if group == "arrow" or s == ">" else "-" if group == "dash" else "/" if group == "under" else s
            toks.append(Tok(s, low, mt.start(), mt.end(), False))
    return toks
