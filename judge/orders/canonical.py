"""A fast path for order lines already in the judge's canonical notation.

Front ends, mappers and ``judge adjudicate --batch`` callers send orders exactly as the judge
prints them ("England: F Lon - Nth", "A Par S A Mar - Bur", "A Lon - Bel via convoy",
"F Nth C A Lon - Bel", "Build F StP/nc", "Waive"). Reading those through the free-form grammar
costs most of an adjudication, so :func:`read_line` reads them with a split and a few dict
look-ups instead (and :func:`read_run` a run of plain moves, holds and supports in one go). It
gives exactly the :class:`ParsedLine` the full parser gives or, for anything it is not sure of,
``None``: the caller then uses the full parser.

Other tools and players write the same orders in other spellings: names in lower or upper case
("F ank - con", "A PAR S A MAR - BUR"), power names in any case ("ENGLAND:"), coasts as
``stp/sc``, ``StP/SC``, ``StP(sc)``, ``stp_sc``, ``spa nc``, ``Spa (nc)``, dots after words ("A
Par. - Bur.") and MILA's "via" for "via convoy". A line that is not canonical as written is
written again word by word into canonical text through a case-free table of the map's
spellings (a location's spelling is taken only once the full parser is seen to read it, before
each word that may follow it, as that location; worked out the first time it is met, or taken on
the check of a spelling with the same tokens: "lon." on "lon", "stp_sc" on "stp/sc"), and read
as that text; the order keeps the line as the full parser shows it. Lines that differ only in
case share their respelling; on a map where canonical text reads as its own respelling
(``Table.case_free``), a line whose lower-case text was respelt before reads as that text
without being tried as canonical text first.

It gives up on any name that is not a location's printed key in one of those spellings, a
coast to infer, a kind that differs from the unit's, a unit that is not there, an order a
signed-on player may not give, a warning the full parser would add, and every variant order
kind. ``tests/test_order_fast_path.py`` checks the two agree on random phases of every variant,
and ``tests/test_spelling_fast_path.py`` on real phases written in random spellings.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Remove, Retreat, Support, Waive
from judge.orders.lexer import Tok, tokenize
from judge.orders.names import Names
from judge.orders.parsed import ParsedLine, read_order
from judge.engine.variant_kinds import ARMY_FLEET
from judge.variant import Map

if TYPE_CHECKING:
    from judge.engine.position import Position
    from judge.orders.parser import Context

_KINDS = ("A", "F")
#: order words in canonical text, by their lower-case spellings (kinds are added per map)
_WORDS = {"h": "H", "s": "S", "c": "C", "d": "D", "-": "-", "via": "via", "convoy": "convoy",
          "build": "Build", "remove": "Remove", "waive": "Waive"}
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
#: words that may follow a location in canonical text; a name is only fast if none of them
#: changes how the full parser reads it
_FOLLOWERS = ("H", "S", "C", "D", "via", "-")
_WITH_FOLLOWERS = ("", *_FOLLOWERS)  # a name alone, then before each
#: how many lines (and canonical texts) a table remembers, and how many word spellings, before it
#: starts afresh
_REMEMBER, _REMEMBER_WORDS = 20000, 5000
_UNSEEN = object()  # ``Table.shapes``' answer for a line not met yet
_new = object.__new__


class Table:
    """Printed location keys ("StP/nc", "Lon") and power names of one map, checked against the
    full parser's own name look-up, and the shapes of the lines read so far."""

    def __init__(self, names: Names, m: Map, reserved: frozenset[str]):
        from judge.orders.parser import RESERVED  # (imported once here, not by each location's check)

        self.locs: dict[str, str] = {}
        self.coasted: dict[str, bool] = {}  # province -> has coasts to choose from
        for p, prov in m.provinces.items():
            self.coasted[p] = bool(prov.coasts)
            for loc in (p, *(f"{p}/{c}" for c in prov.coasts)):
                text = m.display(loc)
                if text.lower() not in reserved and self._reads_as(names, text, p, loc, parser_reserved=RESERVED):
                    self.locs[text] = loc
        # "A"/"F" must not also be a power's abbreviation ("A Par" would then be Austria's)
        self.kinds = frozenset(k for k in _KINDS if names.power(k.lower()) is None)
        self.powers = {pn.name: pn.name for pn in names.powers.values()}
        self.shapes: dict[str, tuple | None] = {}  # line -> what it says, board aside (None: not canonical)
        self.canon: dict[str, tuple] = {}  # canonical text -> its shape, ``shown`` aside
        #: a line in lower case -> ``respelt`` and the shape of that text (None: not canonical)
        self.respellings: dict[str, tuple[str | None, tuple | None]] = {}
        # other spellings: lower-case word -> canonical word (None: not sure), filled as met
        self.words: dict[str, str | None] = self._first_words()
        self.power_names = {name.lower() + ":": name + ":" for name in self.powers}
        self.named = {name + ":": name for name in self.powers}  # a power's name in canonical text -> the power
        #: every word canonical text may have (``_first_canonical`` reads no line with another)
        self.plain_words = frozenset((*self.locs, *self.kinds, *_WORDS.values(), *self.power_names.values()))
        #: each word canonical text may have is one word (the respelling's words are then its text's)
        self.one_word = all(len(w.split()) == 1 for w in self.plain_words)
        self.keys = {m.provinces[p].key.lower(): p for p in self.coasted}  # "stp" -> "stp"
        self.coast_words = {c for prov in m.provinces.values() for c in prov.coasts}
        self._names, self._map = names, m
        self.case_free = self._case_free()

    def _case_free(self) -> bool:
        """Does a line that is canonical text read as its respelling does, on this map? Then a
        line whose lower-case text was respelt before (to some text) needs no canonical reading of
        its own: its shape is that text's. So when each word of canonical text is the only one
        with its lower-case spelling, and respelt (where it has a spelling at all) gives it back:
        no characters the respelling reads apart (" ()_."), no coast a word could be joined to,
        a location's key in lower case naming it, "via" and "convoy" no location's key."""
        plain = self.plain_words
        if len({w.lower() for w in plain}) != len(plain) or "via" in self.locs or "convoy" in self.locs:
            return False
        if any(c in w for w in plain for c in " ()_.") or any(w.lower() in self.coast_words for w in plain):
            return False
        if any(w.endswith(":") for w in plain if w not in self.power_names.values()):
            return False
        for text, loc in self.locs.items():
            prov, _, coast = text.lower().partition("/")
            p, _, c = loc.partition("/")
            if self.keys.get(prov) != p or coast != c:
                return False
        return True

    def _first_words(self) -> dict[str, str | None]:
        words: dict[str, str | None] = dict(_WORDS)
        words.update((k.lower(), k) for k in self.kinds)
        return words

    @staticmethod
    def _reads_as(names: Names, text: str, prov: str, loc: str, whole: bool = False,
                  parser_reserved: frozenset[str] | None = None) -> bool:
        """Does the full parser read the first words of ``text`` as ``loc``, and nothing more
        (all its tokens if ``whole``, else the printed key's), alone and before each of
        ``_FOLLOWERS``? (``text`` is tokenized once and each follower's token put after it, as
        ``tokenize(f"{text} {f}")`` gives them: this runs for every location of the map and every
        new spelling met, and tokenizing is most of its cost.) ``parser_reserved``: the parser's
        reserved words, when the caller has them at hand."""
        if parser_reserved is None:
            from judge.orders.parser import RESERVED as parser_reserved

        toks = tokenize(text)
        want = len(toks) if whole else 1 if "/" not in loc else 3
        read_as = Table._read_as
        for f in _WITH_FOLLOWERS:  # (a loop, not ``all`` over a generator: this runs ~600 times a map)
            if not read_as(names, _followed(toks, text, f), prov, loc, want, parser_reserved):
                return False
        return True

    @staticmethod
    def _read_as(names: Names, toks: list[Tok], prov: str, loc: str, want: int, reserved: frozenset[str]) -> bool:
        """``_reads_as`` for one follower: the tokens ``toks`` begin with ``want`` naming ``loc``
        (``reserved``: the parser's reserved words)."""
        try:
            found = names.province(toks, 0, reserved)
        except ValueError:
            return False
        if found != (prov, 1):
            return False
        if "/" in loc:
            c = names.coast(toks, 1)
            return c is not None and c == (loc.partition("/")[2], want)
        return names.coast(toks, 1) is None and (len(toks) == 1 or toks[1].text != "/")

    def shape(self, line: str) -> tuple | None:
        """``(power named, order word, kind, location, more..., made, text, shown)`` for a line in
        canonical text or another spelling of it, else None; ``made`` the order of a move, hold or
        support that names its power (``_made``), ``text`` the canonical text
        without the power's name, as the order prints it (the names in it are the printed keys),
        ``shown`` the line as the full parser shows it (None: the line itself, the shape then the
        one of every line that differs from it only in case). Remembered (orders repeat from
        phase to phase and game to game)."""
        found = self.shapes.get(line, _UNSEEN)  # (not a KeyError caught: it costs more than the rest)
        return self.first_shape(line) if found is _UNSEEN else found

    def first_shape(self, line: str) -> tuple | None:
        """``shape`` of a line not met yet (or no longer remembered). Only a line that is
        ``lexer.is_plain`` has one: ``read_run`` takes a line with a shape for a plain one."""
        # (``lexer.is_plain``: a character of a string read by its index, never by a slice, which
        # makes one; the last one read once)
        last = line[-1] if line else ":"
        if last == ":" or not line[0].isalpha() or "#" in line:
            found = None
        else:
            # the respelling reads the line without case: remembered that way, one for all the ways
            # of writing a line that differ only in case ("F ank - con", "F ANK - CON", "F Ank - Con");
            # on a ``case_free`` map, one respelt to some text reads as that text, canonical or not
            low = line.lower()
            hit = self.respellings.get(low)
            if hit is not None and hit[0] is not None and self.case_free:
                found = hit[1]
            else:
                # canonical text as it is; a line with a word canonical text never has ("ank", "PAR",
                # "Spa/NC", "Bur.") is not, and goes straight to its respelling; so does one all in
                # lower case (canonical text's orders begin with "A", "F", "Build", "Remove" or "Waive")
                found = None
                if low != line:
                    words = line.split()
                    # (the canonical texts met are remembered: most lines met again in another case are known)
                    if self.plain_words.issuperset(words):
                        found = self.canon.get(line) or self._first_canonical(line, words)
                if found is None:
                    if hit is None:
                        hit = self._respelling(line, low)
                    if hit[0] is not None and hit[0] != line:
                        found = hit[1]
            if found is not None:
                shown = line.strip()  # (as ParsedLine keeps it)
                if shown is not line or last == ".":  # else the line shows as itself: its shape is shared
                    found = found[:-1] + (_shown(shown).strip() if shown[-1] == "." else shown,)
        if len(self.shapes) >= _REMEMBER:
            self.shapes.clear()  # a long run (or a flood of odd lines) starts remembering afresh
        self.shapes[line] = found
        return found

    def _respelling(self, line: str, low: str) -> tuple[str | None, tuple | None]:
        """``respellings``' entry for ``low``, ``line.lower()``: made and remembered."""
        words = self._respelt_words(low)
        if words is None:
            canon = found = None
        else:
            canon = " ".join(words)
            if not self.one_word:  # (a word of canonical text with a space in it: the text's own words)
                words = canon.split()
            found = self.canon.get(canon) or self._first_canonical(canon, words)
        if len(self.respellings) >= _REMEMBER:
            self.respellings.clear()
        got = self.respellings[low] = (canon, found)
        return got

    def _first_canonical(self, text: str, words: list[str]) -> tuple | None:
        """``shape`` of canonical text not in ``canon`` (``words``: its words), ``shown`` None;
        remembered for the texts that are canonical (each met in many spellings)."""
        if not words:
            return None
        named = self.named.get(words[0])  # ("England:" -> "England"; most lines begin with one)
        if named is not None:
            if len(words) == 1:
                return None
            words = words[1:]
        elif words[0][-1] == ":":
            return None
        found = self._order(words, named)
        if found is not None:
            found += (_made(found), " ".join(words), None)
            if len(self.canon) >= _REMEMBER:
                self.canon.clear()
            self.canon[text] = found
        return found

    def respelt(self, line: str, low_line: str | None = None) -> str | None:
        """``line`` in canonical text, word by word; None where a word has no canonical spelling.
        (``low_line``: ``line.lower()``, when made already.)"""
        out = self._respelt_words(line.lower() if low_line is None else low_line)
        return None if out is None else " ".join(out)

    def _respelt_words(self, low_line: str) -> list[str] | None:
        """``respelt``'s words (``low_line``: the line in lower case)."""
        low = low_line.split()
        if not low:
            return None
        named = self.power_names.get(low[0])  # (a power's name ends in a colon: most lines begin with one)
        if named is not None:
            del low[0]
        elif low[0][-1] == ":":
            return None
        try:  # (each word looked up by a subscript, in C: a word not met yet is for ``_respelt``)
            out = list(map(self.words.__getitem__, low))
        except KeyError:
            out = None
        if out is None or None in out or not out:
            out = self._respelt(low)
            if out is None:
                return None
        if out[-1] == "via":  # MILA's "A Lon - Bel via"
            out.append("convoy")
        if named is not None:
            out.insert(0, named)
        return out

    def _respelt(self, low: list[str]) -> list[str] | None:
        """``respelt``'s words where one is new or two make one ("spa nc", "Spa (nc)")."""
        spelt = self.words
        out: list[str] = []
        i, n = 0, len(low)
        while i < n:
            w = low[i]
            if i + 1 < n and w in self.keys and low[i + 1].strip("().") in self.coast_words:
                w = f"{w} {low[i + 1]}"
                i += 1
            got = spelt.get(w, "")
            if got == "":
                got = self._spelling(w)
                if len(spelt) >= _REMEMBER_WORDS:
                    # full: start afresh rather than refuse every new word from now on (a
                    # daemon meets thousands of odd words in a year; the fast path must stay fast)
                    spelt = self.words = self._first_words()
                spelt[w] = got
            if got is None:
                return None
            out.append(got)
            i += 1
        return out or None

    def _spelling(self, w: str) -> str | None:
        """The canonical word for the lower-case spelling ``w``, if the full parser reads it so."""
        base = w.rstrip(".")
        if base in _WORDS or base in ("a", "f"):  # "S.", "H.", "A."
            return self.words.get(base)
        if "/" in base:
            prov, _, coast = base.partition("/")
        elif base.endswith(")") and "(" in base:
            prov, _, coast = base[:-1].partition("(")
        elif " " in base:
            prov, _, coast = base.partition(" ")
            coast = coast.strip("()")
        elif "_" in base or "." in base:
            prov, _, coast = base.replace(".", "_").rpartition("_")
        else:
            prov, coast = base, ""
        p = self.keys.get(prov.strip())
        if p is None:
            return None
        loc = f"{p}/{coast}" if coast else p
        text = self._map.display(loc)
        if coast and coast not in self._map.provinces[p].coasts or self.locs.get(text) != loc:
            return None
        if w == text.lower() and text.isascii() and ("/" not in loc or len(tokenize(w)) == 3):
            # the printed key in another case ("lon", "stp/sc"): read so by the check that made
            # the table (the same tokens but for a case the name look-ups never see; only a
            # coast's count of tokens differs between the two checks, hence the three)
            return text
        alias = _alias(w, base, prov, coast)
        if alias is not None and self._known(alias) == text:
            return text
        if self._reads_as(self._names, w, p, loc, whole=True):
            return text
        return None

    def _known(self, w: str) -> str | None:
        """``_spelling(w)``, remembered with the words met."""
        got = self.words.get(w, "")
        if got == "":
            got = self._spelling(w)
            if len(self.words) < _REMEMBER_WORDS:  # (a full table is started afresh by ``_respelt`` only)
                self.words[w] = got
        return got

    def _order(self, words: list[str], named: str | None) -> tuple | None:
        """``_first_canonical``'s reading of the order's words (``named``: the power named before them)."""
        locs, kinds = self.locs, self.kinds
        n = len(words)
        head = words[0]
        if head == "Waive":
            return (named, "waive") if n == 1 else None
        if head in ("Build", "Remove"):
            loc = locs.get(words[2]) if n == 3 else None
            if loc is None or words[1] not in kinds:
                return None
            kind, prov = words[1], loc.partition("/")[0]
            if head == "Build" and (kind == "A" and loc != prov or kind == "F" and self.coasted[prov] and loc == prov):
                return None  # a coast the full parser would warn about or ask for
            return named, head, kind, loc, prov
        if n < 3 or head not in kinds:
            return None
        loc = locs.get(words[1])
        if loc is None:
            return None
        prov = loc.partition("/")[0]
        verb = words[2]
        if n == 3:
            return (named, verb, head, loc, prov) if verb in ("H", "D") else None
        if verb == "-":
            via = n == 6 and words[4] == "via" and words[5] == "convoy"
            if not (n == 4 or via) or via and head != "A":
                return None
            dest = locs.get(words[3])
            if dest is None or "/" in dest and head == "A" or head == "F" and "/" not in dest and self.coasted[dest]:
                return None  # an army's coast, or a fleet's coast to infer
            return named, "via" if via else "-", head, loc, prov, dest
        if verb == "S" and n in (5, 7) and words[3] in kinds:
            target = locs.get(words[4])
            if target is None or n == 7 and words[5] != "-":
                return None
            dest = locs.get(words[6]) if n == 7 else None
            if n == 7 and (dest is None or "/" in dest and words[3] != "F"):
                return None
            return named, "S", head, loc, prov, words[3], target, dest, target.partition("/")[0]
        if verb == "C" and n == 7 and words[3] == "A" in kinds and words[5] == "-":
            target, dest = locs.get(words[4]), locs.get(words[6])
            if target is None or dest is None or "/" in dest:
                return None
            return named, "C", head, loc, prov, "A", target, dest, target.partition("/")[0]
        return None


def _alias(w: str, base: str, prov: str, coast: str) -> str | None:
    """A spelling the full parser reads as it reads ``w`` once that one is read as a location
    (``_spelling``'s parts of ``w``), so that the check through the full parser runs once for
    them all; None if there is none. The full check of a new spelling (each name before each
    word that may follow it) is most of the cost of a phase's first lines in a new process.

    - "lon." -> "lon", "stp/sc." -> "stp/sc": a dot makes no token; it only stops a word being
      joined to a hyphen right after it or to the next word as a coast ("n. c."), so a name read
      so without it is read so with it.
    - "stp_sc" -> "stp/sc": an underscore between two letters is a slash token (the coast check
      reads its ``low``, "/", never its text).
    - "stp(sc)" -> "stp sc": brackets make no token, and the words stand where they stood.
    """
    if w != base:
        return base
    if coast and prov[-1:].isascii() and prov[-1:].isalnum() and coast[:1].isascii() and coast[:1].isalnum():
        if w == f"{prov}_{coast}":
            return f"{prov}/{coast}"
        if w == f"{prov}({coast})":
            return f"{prov} {coast}"
    return None


def _followed(toks: list[Tok], text: str, f: str) -> list[Tok]:
    """``tokenize(f"{text} {f}")`` for ``toks = tokenize(text)`` and a follower ``f`` (a word or
    "-", "" for none), without tokenizing again."""
    if not f:
        return toks
    at = len(text) + 1
    tok = _FOLLOWER_TOKS.get((f, at))
    if tok is None:  # (made once for each place a follower stands in: ~600 checks a map, a few places)
        tok = Tok(f, f.lower(), at, at + len(f), f != "-")
        if len(_FOLLOWER_TOKS) < 1024:
            _FOLLOWER_TOKS[(f, at)] = tok
    return [*toks, tok]


#: ``_followed``'s tokens by follower and offset (the name look-ups only read tokens)
_FOLLOWER_TOKS: dict[tuple[str, int], Tok] = {}


_TABLES: "weakref.WeakKeyDictionary[Map, Table]" = weakref.WeakKeyDictionary()


def table_for(names: Names, m: Map) -> Table:
    t = _TABLES.get(m)
    if t is None:
        from judge.orders.parser import RESERVED

        t = _TABLES[m] = Table(names, m, RESERVED)
    return t


def read_line(ctx: "Context", line: str, table: Table | None = None, source: str = "", lineno: int = 0
              ) -> ParsedLine | None:
    """The order on ``line`` if it is a plain line (``lexer.is_plain``) of canonical text, or of
    another spelling of it, that the full parser reads the same way; else None.

    ``table``: ``table_for`` the map (looked up when not given); ``source``, ``lineno``: the
    ParsedLine's (the whole line as written, its number)."""
    if table is None:
        table = table_for(ctx.names, ctx.map)
    shape = table.shapes.get(line, _UNSEEN)  # a line met before: without the call (most lines, most phases)
    if shape is _UNSEEN:
        shape = table.first_shape(line)
    if shape is None:
        return None
    pos = ctx.pos
    found = _general(ctx, shape, shape[-1] or line, pos, pos.phase.kind)
    if found is not None:
        found.source, found.lineno = source, lineno
    return found


def read_run(ctx: "Context", table: Table, lines: list[str], i: int, lineno: int, out: list[ParsedLine]
             ) -> tuple[int, int]:
    """Read ``lines[i:]`` for as long as each is a plain line (``lexer.is_plain``) with a move, a
    hold or a support in a movement phase that ``read_line`` reads, putting each line's
    ParsedLine on ``out``; return the index of the line it stopped at and the number of the last
    line it read (``lineno``: the one before ``lines[i]``). The caller reads the line it stopped
    at the general way.

    Most lines of most batch cases are such lines: this is ``read_line`` and ``parse_orders``'
    loop written out for them, with what stays the same for a whole order text looked up once
    (the player's power and the heading's too: only a line the full parser reads can change
    them). It gives what ``_general`` gives for the same shape (checked in the same order)."""
    pos = ctx.pos
    if pos.phase.kind != "movement" or i >= len(lines):
        return i, lineno
    shapes, met, first_shape = table.shapes.get, table.shapes, table.first_shape
    units, me, sticky, m = pos.units.get, ctx.power, ctx.sticky, ctx.map
    put, new = out.append, _new
    start = lineno  # (the lines read are counted by it: a ``for`` costs less than an index kept)
    for raw in lines[i:] if i else lines:
        line = raw.rstrip()
        shape = shapes(line)
        if shape is None:  # not met yet, or not canonical (a line with a shape is plain: ``Table.first_shape``)
            if line in met:
                break
            shape = first_shape(line)
            if shape is None:
                break
        unit = units(shape[4])
        if unit is None or unit.kind != shape[2] or unit.loc != shape[3]:
            break
        power = shape[0] or sticky or unit.power if me is None else _power(ctx, shape[0] or sticky, unit.power)
        if power is None:
            break
        # the shape's fields by positive index, per kind of order (a tuple's item at a negative index
        # is read through a generic call); the order itself from the shape where a power is named
        # (``_made``: ``power`` is then that power, or the line was refused above), else made here
        # without the class call, every field set (a dataclass's ``__init__`` called through the
        # class costs about as much as the rest of the line's reading here;
        # ``tests/test_order_fast_path.py`` checks them against the class call); one store a
        # field: more than three stored at once go through a tuple made and freed for it
        op = shape[1]
        if op == "-":
            order, written, shown = shape[6], shape[7], shape[8]
            if order is None:
                order = new(Move)
                order.power = power
                order.kind = shape[2]
                order.loc = shape[3]
                order.dest = shape[5]
                order.via_convoy = False
        elif op == "H":
            order, written, shown = shape[5], shape[6], shape[7]
            if order is None:
                order = new(Hold)
                order.power, order.kind, order.loc = power, shape[2], shape[3]
        elif op == "S":  # ``_target`` written out
            order, written, shown = shape[9], shape[10], shape[11]
            target = shape[6]
            held = units(shape[8])
            if held is not None:
                if held.loc != target:
                    if "/" in target:
                        break
                    target = held.loc
                    written = None  # the unit's coast, not the one written
                    order = None
            elif "/" in target:
                break
            if order is None:
                order = new(Support)
                order.power = power
                order.kind = shape[2]
                order.loc = shape[3]
                order.target_kind = shape[5]
                order.target = target
                order.dest = shape[7]
        else:  # not a move, a hold or a support (the movement phase's most common orders): the general way's
            break
        # ``read_order`` written out: a call costs as much as the object
        p = new(ParsedLine)
        p.line = shown or line
        p.order = order
        p.power = power
        p.error = ""
        p.suggestions = []
        p.warnings = []
        p.map = m
        p.written = written
        p.source = line
        lineno += 1
        p.lineno = lineno
        p.note = ""
        put(p)
    return i + lineno - start, lineno


def _made(shape: tuple) -> Move | Hold | Support | None:
    """The order of a move, hold or support shape that names its power, made once for every line
    read as it (``read_run`` takes it: an order is never changed once read); None for another."""
    named, op = shape[0], shape[1]
    if named is None:
        return None
    if op == "-":
        return Move(named, shape[2], shape[3], shape[5], False)
    if op == "H":
        return Hold(named, shape[2], shape[3])
    if op == "S":
        return Support(named, shape[2], shape[3], shape[5], shape[6], shape[7])
    return None


def _general(ctx: "Context", shape: tuple, shown: str, pos: "Position", phase: str) -> ParsedLine | None:
    """``read_line`` for every shape and phase (``shown``: the line as the order keeps it)."""
    m = ctx.map
    named, op = shape[0], shape[1]
    explicit = named or ctx.sticky
    if op == "waive":
        power = ctx.power or explicit
        if phase != "adjustment" or power is None or (ctx.power and explicit and explicit != ctx.power):
            return None
        return _parsed(shown, Waive(power, None, ""), power, m, shape[-2])
    kind, loc, prov = shape[2], shape[3], shape[4]
    if op == "Build" or op == "Remove":
        if phase != "adjustment":
            return None
        if op == "Build":
            if explicit is None and ctx.power is None:
                power = pos.centres.get(prov)
            else:
                power = _power(ctx, explicit, None)
            return None if power is None else _parsed(shown, Build(power, kind, loc), power, m, shape[-2])
        unit = pos.units.get(prov)
        if unit is None or unit.kind != kind or unit.loc != loc:
            return None
        power = _power(ctx, explicit, unit.power)
        return None if power is None else _parsed(shown, Remove(power, kind, loc), power, m, shape[-2])
    if phase == "movement":
        unit = pos.units.get(prov)
    elif phase == "retreat":
        d = pos.dislodged.get(prov)
        unit = d.unit if d else None
    else:
        return None
    if unit is None or unit.kind != kind or unit.loc != loc:
        return None
    if ctx.power is None:  # _power() without a signed-on player
        power = explicit or unit.power
    else:
        power = _power(ctx, explicit, unit.power)
        if power is None:
            return None
    if op == "-":
        if phase == "retreat":
            return _parsed(shown, Retreat(power, kind, loc, shape[5]), power, m, shape[-2])
        return _parsed(shown, Move(power, kind, loc, shape[5], False), power, m, shape[-2])
    if phase != "movement":
        return _parsed(shown, Disband(power, kind, loc), power, m, shape[-2]) if op == "D" else None
    if op == "H":
        return _parsed(shown, Hold(power, kind, loc), power, m, shape[-2])
    if op == "via":
        return _parsed(shown, Move(power, kind, loc, shape[5], True), power, m, shape[-2])
    if op == "S" or op == "C":
        tkind, target = shape[5], _target(ctx, shape[6])
        if target is None:
            return None
        written = shape[-2] if target == shape[6] else None  # else the unit's coast, not the one written
        if op == "S":
            return _parsed(shown, Support(power, kind, loc, tkind, target, shape[7]), power, m, written)
        if ARMY_FLEET not in ctx.modules:
            return _parsed(shown, Convoy(power, kind, loc, tkind, target, shape[7]), power, m, written)
    return None


def _shown(line: str) -> str:
    """The line as the full parser shows an order read from all of it: without the dots after
    its last word, but the one after a single letter ("A Par H.")."""
    body = line.rstrip(".")
    if body != line and body[-1:].lower() in _LETTERS and body[-2:-1].lower() not in _LETTERS:
        return body + "."
    return body


def _parsed(line: str, order, power: str, m: Map, written: str | None) -> ParsedLine:
    return read_order(line, order, power, m, written)  # (``line``: stripped by Table.shape)


def _power(ctx: "Context", explicit: str | None, owner: str | None) -> str | None:
    """Who gives the order (as the full parser decides it); None where it would refuse it."""
    if ctx.power is not None:
        if explicit and explicit != ctx.power or owner is not None and owner != ctx.power:
            return None
        return ctx.power
    return explicit or owner


def _target(ctx: "Context", loc: str) -> str | None:
    """Where a supported or convoyed unit stands, as the full parser reads it; None: not sure."""
    unit = ctx.pos.units.get(loc.partition("/")[0])
    if unit is None:
        return None if "/" in loc else loc
    if unit.loc != loc and "/" in loc:
        return None
    return unit.loc
