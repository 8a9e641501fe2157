"""judge.mail.feedparse: the stdlib's MIME parser with boundary lines matched without a regex
compile. Its matcher is held to the stdlib's compiled pattern on every short line over the
characters that matter, and whole messages (client mails, nested, malformed) parse the same."""

from __future__ import annotations

import itertools
import random
import re
from email import policy
from email.message import Message
from email.feedparser import FeedParser
from email.parser import BytesParser

import client_mails as cm
from judge.mail.feedparse import BoundaryLine, _Re, parse_bytes


def _stdlib_pattern(sep: str) -> re.Pattern[str]:
    # as email/feedparser.py writes it
    return re.compile('(?P<sep>' + re.escape(sep) + r')(?P<end>--)?(?P<ws>[ \t]*)(?P<linesep>\r\n|\r|\n)?$')


def _same(sep: str, line: str) -> None:
    want = _stdlib_pattern(sep).match(line)
    got = BoundaryLine(sep).match(line)
    assert (want is None) == (got is None), (sep, line)
    if want is not None and got is not None:
        assert (got.group("end"), got.group("linesep")) == (want.group("end"), want.group("linesep")), (sep, line)


def test_every_short_tail_matches_as_the_pattern() -> None:
    sep = "--=_abc"
    alphabet = ["-", " ", "\t", "\r", "\n", "x", "--"]
    for n in range(6):
        for tail in itertools.product(alphabet, repeat=n):
            _same(sep, sep + "".join(tail))
            _same(sep, sep[:-1] + "".join(tail))  # a line that only begins like the boundary
            _same(sep, "".join(tail) + sep)


def test_random_lines_and_odd_boundaries() -> None:
    rng = random.Random(27)
    seps = ["--b", "--" + "=" * 15 + "0123456789==", "--Apple-Mail=_1F2E", "--a.b(c)*d+e?f[g]{h}|i^j$k",
            "--back\\slash", "--sp ace", "--tab\tbed", "--új", "----"]
    chars = " \t\r\n-=abx\\"
    for sep in seps:
        for _ in range(2000):
            tail = "".join(rng.choice(chars) for _ in range(rng.randrange(8)))
            _same(sep, sep + tail)
            _same(sep, tail)


def test_only_the_boundary_pattern_is_replaced() -> None:
    fake_re = _Re()
    for sep in ["--x", "--a.b*c", "--\\"]:
        pattern = _stdlib_pattern(sep).pattern
        matcher = fake_re.compile(pattern)
        assert isinstance(matcher, BoundaryLine) and matcher.sep == sep
    other = fake_re.compile(r"(?P<sep>--x)(?P<end>--)?")
    assert isinstance(other, re.Pattern)
    assert isinstance(fake_re.compile(_stdlib_pattern("--x").pattern, re.I), re.Pattern)


def _messages() -> list[bytes]:
    old = ["Orders received.", "", "A Vie - Gal"]
    new = ["SIGNON Atg pw", "A Vie - Gal", "F Tri - Alb"]
    out = list(cm.all_clients(new, old).values())
    nested = (b"From: a@example.test\r\nMessage-ID: <n@x>\r\nMIME-Version: 1.0\r\n"
              b'Content-Type: multipart/mixed; boundary="out"\r\n\r\npreamble\r\n--out\r\n'
              b'Content-Type: multipart/alternative; boundary="in.(1)"\r\n\r\n--in.(1)\r\n'
              b"Content-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
              b"Gr=FC=DFe\r\n--in.(1)  \r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\n"
              b"PHA+aGk8L3A+\r\n--in.(1)--\r\n--out\r\nContent-Type: application/pdf; name=a.pdf\r\n\r\nxx\r\n"
              b"--out--\r\nepilogue\r\n")
    broken = [nested.replace(b"--out--\r\n", b""), nested.replace(b"--in.(1)--", b"--in.(1)-"),
              nested.replace(b"\r\n", b"\n"), nested.replace(b"\r\n", b"\r"), nested[:200],
              b"Content-Type: multipart/mixed; boundary=\"\"\r\n\r\n--\r\nx\r\n----\r\n",
              b"Content-Type: multipart/mixed\r\n\r\nno boundary\r\n"]
    deep = b"Content-Type: multipart/mixed; boundary=b0\r\n\r\n"
    for i in range(1, 30):
        deep += f"--b{i - 1}\r\nContent-Type: multipart/mixed; boundary=b{i}\r\n\r\n".encode()
    return out + [nested, *broken, deep + b"--b29\r\n\r\ntext\r\n"]


def _shape(msg: Message) -> list[tuple[object, ...]]:
    """Everything the parser decided, part by part (as_bytes would invent a boundary where none was)."""
    return [(list(p.raw_items()), p.get_content_type(), None if p.is_multipart() else p.get_payload(),
             p.preamble, p.epilogue, [type(d) for d in p.defects]) for p in msg.walk()]


def test_messages_parse_as_the_stdlib_parses_them() -> None:
    for raw in _messages():
        for headersonly in (False, True):
            want = BytesParser(policy=policy.default).parsebytes(raw, headersonly=headersonly)
            got = parse_bytes(raw, policy.default, headersonly=headersonly)
            assert type(got) is type(want)
            assert _shape(got) == _shape(want)


def test_the_parser_uses_the_matcher(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    made: list[object] = []
    compile_ = _Re.compile

    def counting(pattern: str, flags: int = 0) -> object:
        made.append(compile_(pattern, flags))
        return made[-1]

    monkeypatch.setattr(_Re, "compile", staticmethod(counting))
    parse_bytes(_messages()[0], policy.default)
    if "boundaryre" in FeedParser._parsegen.__code__.co_varnames:  # (3.11, 3.12) a pattern a boundary
        assert made and all(isinstance(m, BoundaryLine) for m in made)
    else:  # Python 3.13 matches boundary lines without compiling a pattern for each: none is compiled
        assert made == []
