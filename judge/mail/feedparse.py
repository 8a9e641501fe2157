"""The stdlib's MIME parser (``email.feedparser``), unchanged but for one cost: matching boundaries.

For every multipart the stdlib compiles a regular expression for its boundary line. Each mail's
boundary is unique, so ``re``'s cache never hits, and the compile (about 1.5 ms) was the largest
single cost of reading an order mail from a mail program. Here the same parser code runs (its
``_parsegen`` is the stdlib's own code object) with a stand-in for the ``re`` module it sees:
that stand-in's ``compile`` recognises the boundary pattern and returns a matcher written in
Python that answers exactly as the pattern would (tests/test_mail_feedparse.py holds it to
the compiled pattern on every kind of line); any other pattern is compiled by ``re`` as before.
Should a later Python change its boundary pattern, the stand-in no longer recognises it and the
stdlib's compile is used: slower, never different. Python 3.13's parser itself no longer compiles
a pattern a boundary (it matches the separator's prefix, then one shared pattern), so there the
stand-in is never asked and the parser runs as the stdlib's.
"""

from __future__ import annotations

import email.feedparser as _stdlib
import re
import types
from email.feedparser import FeedParser
from email.message import Message
from io import StringIO
from typing import Any

_HEAD = "(?P<sep>"
_TAIL = r")(?P<end>--)?(?P<ws>[ \t]*)(?P<linesep>\r\n|\r|\n)?$"
_ESCAPED = re.compile(r"\\(.)", re.S)
_LINE_ENDS = ("\r\n", "\r", "\n")  # the pattern's line-end group, longest first


class _BoundaryMatch:
    """What the parser reads of a match: ``group('end')`` and ``group('linesep')``."""

    __slots__ = ("end", "linesep")

    def __init__(self, end: str | None, linesep: str | None):
        self.end, self.linesep = end, linesep

    def group(self, name: str) -> str | None:
        return self.end if name == "end" else self.linesep if name == "linesep" else None


class BoundaryLine:
    """``re.compile('(?P<sep>' + re.escape(sep) + _TAIL)``'s ``match``, without the compile:
    the line starts with ``sep``, then ``--`` or not, spaces and tabs, one line end or none, and
    (as ``$`` allows) one more ``\\n`` at most."""

    __slots__ = ("sep", "n")

    def __init__(self, sep: str):
        self.sep, self.n = sep, len(sep)

    def match(self, line: str) -> _BoundaryMatch | None:
        if not line.startswith(self.sep):
            return None
        rest = line[self.n:]
        end = None
        if rest.startswith("--"):  # the pattern tries the close delimiter first; without it, "-" fits nothing
            end, rest = "--", rest[2:]
        rest = rest.lstrip(" \t")
        if rest in _LINE_ENDS:
            return _BoundaryMatch(end, rest)
        if rest == "":
            return _BoundaryMatch(end, None)
        if rest[-1] == "\n" and rest[:-1] in _LINE_ENDS:  # "$" matches before a final newline too
            return _BoundaryMatch(end, rest[:-1])
        return None


class _Re:
    """The ``re`` module as the stdlib's parser code sees it here."""

    escape = staticmethod(re.escape)

    @staticmethod
    def compile(pattern: str, flags: int = 0) -> Any:
        if not flags and pattern.startswith(_HEAD) and pattern.endswith(_TAIL):
            escaped = pattern[len(_HEAD):-len(_TAIL)]
            sep = _ESCAPED.sub(r"\1", escaped)
            if re.escape(sep) == escaped:  # it is the boundary pattern, and sep is what it escapes
                return BoundaryLine(sep)
        return re.compile(pattern, flags)

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)


class ReadFeedParser(FeedParser):
    """``FeedParser`` whose multipart code sees :class:`_Re` as ``re``."""

    _parsegen = types.FunctionType(FeedParser._parsegen.__code__,  # type: ignore[attr-defined]
                                   {**vars(_stdlib), "re": _Re()}, "_parsegen",
                                   FeedParser._parsegen.__defaults__,  # type: ignore[attr-defined]
                                   FeedParser._parsegen.__closure__)  # type: ignore[attr-defined]


def parse_bytes(raw: bytes, policy: Any, headersonly: bool = False) -> Message:
    """``BytesParser(policy=policy).parsebytes(raw, headersonly)``, with :class:`ReadFeedParser`
    (fed as ``email.parser.Parser.parse`` feeds it: 8192 characters at a time)."""
    text = raw.decode("ascii", errors="surrogateescape")
    parser = ReadFeedParser(policy=policy)
    if headersonly:
        parser._set_headersonly()  # type: ignore[attr-defined]
    fp = StringIO(text)
    while data := fp.read(8192):
        parser.feed(data)
    return parser.close()
