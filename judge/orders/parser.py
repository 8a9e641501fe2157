"""The grammar: one line of tokens → orders, read against the board.

A recursive-descent reader with a little backtracking where the notation is ambiguous
("ENG F Lon - Nth": England's prefix, or the English Channel?). Every order it reads is
checked here only for what makes it not an order of this game at all: unreadable text,
unknown names, no such unit, a unit of another power when the orders come from a signed-on
player, a coast that does not exist or cannot be inferred, an order kind the variant lacks.
Whether a well-formed order is legal (can the army reach Belgium?) is the engine's verdict;
``parse_orders(..., check=True)`` adds it (``judge.orders.review``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from judge.engine.orders import Build, Convoy, Disband, Hold, Move, Order, Remove, Retreat, Support, Waive
from judge.engine.position import KIND_WORD, Position, Unit
from judge.orders.lexer import Tok
from judge.orders.names import AmbiguousName, Names, PowerName, or_list, slips
from judge.orders.parsed import ParsedLine
from judge.engine.variant_kinds import (ARMY_FLEET, COAST_RUNNING, TRANSFORM, Disembark, Embark, FastFerry,
                                        Protect, Transform)
from judge.variant import Map, province_of

HOLD_W = frozenset({"h", "hold", "holds", "stand", "stands", "std", "stay", "stays", "remain", "remains"})  # "Std.": postal
HOLD_AFTER_W = frozenset({"still", "put", "fast", "firm"})  # "stand still", "stays put", "hold firm"
MOVE_W = frozenset({"-", "->", "m", "mv", "move", "moves", "to", "attack", "attacks", "go", "goes"})
TO_W = frozenset({"to", "into", "towards"})
RETREAT_W = frozenset({"r", "retreat", "retreats", "retreated"})
SUPPORT_W = frozenset({"s", "sup", "supp", "support", "supports"})
CONVOY_W = frozenset({"c", "convoy", "convoys", "transport", "transports"})
EMBARK_W = frozenset({"embark", "embarks", "board", "boards"})
ON_W = frozenset({"on", "onto", "aboard", "in", "into", "to", "at"})
DISEMBARK_W = frozenset({"disembark", "disembarks", "land", "lands"})
DISBAND_W = frozenset({"d", "disband", "disbands", "disbanded"})
REMOVE_W = frozenset({"remove", "removes", "removed", "destroy", "destroys"})
BUILD_W = frozenset({"b", "build", "builds", "built"})
WAIVE_W = frozenset({"w", "waive", "waives", "waived"})
#: how many builds a waive gives up ("waive one build", "waive 2")
COUNT_W = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
PROTECT_W = frozenset({"p", "protect", "protects"})
FERRY_W = frozenset({"ff", "ferry", "ferries"})
TRANSFORM_W = frozenset({"tr", "trafo", "transform", "transforms", "becomes"})
VIA_W = frozenset({"via", "by"})
#: the Electronic Protocol's support and convoy words, with the kind of the unit they carry
#: ("A Lvp SA Yor-Edi": support the army in Yorkshire; "F Nth CA Yor-Bel": convoy it)
SUPPORT_KIND_W = {"sa": "A", "sf": "F"}
CONVOY_KIND_W = {"ca": "A"}
#: words that begin a new order after one just read on the same line ("... and A Bur")
LEAD_W = frozenset({"build", "builds", "remove", "removes", "disband", "disbands", "waive", "waives", "destroy"})
#: a verb heading a list of orders: "Builds: A Vie, A Bud", "Removes: F Nth"
VERB_HEAD_W = frozenset({"build", "builds", "remove", "removes", "removals", "disband", "disbands", "disbandments",
                         "retreat", "retreats"})
ROUTE_W = MOVE_W - {"to"}
KIND_W = {"a": "A", "army": "A", "f": "F", "fleet": "F"}
FILLER_W = frozenset({"the", "in", "at", "from"})
OWN_W = frozenset({"the", "my", "our"})  # before a unit or a place: "my army in Paris"
SEPARATORS = frozenset({";", ","})
#: words never read as a province prefix ("the" is not "The Netherlands", "transforms" not "Transylvania")
RESERVED = frozenset().union(HOLD_W, MOVE_W, TO_W, RETREAT_W, SUPPORT_W, CONVOY_W, EMBARK_W, ON_W, DISEMBARK_W,
                             DISBAND_W, REMOVE_W, BUILD_W, WAIVE_W, PROTECT_W, FERRY_W, TRANSFORM_W, VIA_W,
                             KIND_W, FILLER_W, OWN_W, {"fast", "an", "of", "coast", "and", "then", "unit"})

#: order words a misspelling of which is read as them (one slip, five letters or more), said so
VERB_SPELLINGS = ("support", "supports", "convoy", "convoys", "holds", "stands", "moves", "retreat", "retreats",
                  "disband", "disbands", "transport", "transports")

#: which rule module provides each variant order kind, for "this variant has no ... orders"
MODULE_OF = {"embark": ARMY_FLEET, "disembark": ARMY_FLEET, "fast ferry": ARMY_FLEET,
             "army/fleet": ARMY_FLEET, "protect": COAST_RUNNING, "transform": TRANSFORM}


def _clip(text: str, most: int = 60) -> str:
    """Quoted input in a message, cut short ("a 100 kB line" must not come back whole)."""
    return text if len(text) <= most else text[:most - 1] + "…"


class OrderError(Exception):
    """An order that cannot be read; ``at`` is the token where reading stopped."""

    def __init__(self, message: str, at: int, suggestions: list[str] | None = None, power: str | None = None):
        super().__init__(message)
        self.at = at
        self.suggestions = suggestions or []
        self.power = power


@dataclass(slots=True)
class Context:
    """What one ``parse_orders`` call reads against, and what it has read so far."""

    pos: Position
    map: Map
    names: Names
    modules: frozenset[str]
    power: str | None  # the signed-on player, or None (any power, named or taken from the unit)
    sticky: str | None = None  # power named by the last "England:" header
    af_moves: dict[str, str] = field(default_factory=dict)  # sea an A/F is ordered to -> its power
    suggestions_left: int = 50  # "did you mean" look-ups are slow: a bounded number per call
    rules: dict | None = None  # the game's rules (None: the variant's)

    @property
    def phase(self) -> str:
        return self.pos.phase.kind


@dataclass(slots=True)
class Ref:
    """A unit as written: "A Lon", "German A Hol", "IF Ion", "StP/nc", "A/F(ENG)"."""

    owner: PowerName | None
    kind: str | None
    prov: str | None  # None: no province written ("A disembarks Tunis")
    coast: str | None
    af_ambiguous: bool  # "AF" in an A/F game: an Austrian fleet or an army/fleet
    start: int
    end: int


Result = tuple[Order, str, int, list[str]]  # order, power, index after it, warnings


class LineReader:
    def __init__(self, ctx: Context, line: str, toks: list[Tok]):
        self.ctx = ctx
        self.m = ctx.map
        self.names = ctx.names
        self.line = line
        self.toks = toks
        self.n = len(toks)
        self.start = 0  # where the order being read begins
        self.notes: list[str] = []  # how the order being read was read where it needed a choice
        self.lead: tuple[str, PowerName | None] | None = None  # "France disbands F Gol and A Bur"
        self.repeat = 1  # how many of the order just read ("waive two builds")

    # -- driver ------------------------------------------------------------------------------
    def read(self) -> list[ParsedLine]:
        out: list[ParsedLine] = []
        toks, n, ctx = self.toks, self.n, self.ctx
        i = 0
        head: int | None = None  # where a power prefix on this line began
        sticky = ctx.sticky
        line_power: str | None = None  # "England: F Lon - Nth. A Lvp H": England's, for this line
        lead: tuple[str, PowerName | None] | None = None  # a verb shared over "and"
        marker = ""  # a letter of a list in front of the line's first order
        line_lead: tuple[str, PowerName | None] | None = None  # "Builds: A Vie, A Bud"
        while i < n:
            t = toks[i]
            if t.low in SEPARATORS:
                i += 1
                lead = None
                continue
            if t.word and not out and head is None and i + 1 < n and self.sheet_prefix(t):
                pn = self.names.power(t.low) or self.names.letters.get(t.low)
                if pn is not None and (ctx.power is None or pn.name == ctx.power):
                    line_power, head = pn.name, i  # an order sheet's "E) A Lvp - Yor"
                    i += 1
                    continue
                if len(t.low) == 1:  # "b) F Lon - Nth": a lettered list, said so
                    marker = f"'{t.text})' read as a list marker"
                    i += 1
                    continue
            if (t.word and t.dot and len(t.low) == 1 and not out and head is None and i == 0
                    and self.kind_word(i + 1) is not None):  # "a. A Par - Bur": "a." is no army here
                marker = f"'{t.text}.' read as a list marker"
                i += 1
                continue
            if t.word and i + 1 < n and toks[i + 1].low == ":":
                pn = self.names.power(t.low) or self.names.letters.get(t.low)
                if pn is None and t.low in VERB_HEAD_W and not out and i == (0 if head is None else head + 2):
                    verb = {"removals": "remove", "disbandments": "disband"}.get(t.low, t.low)
                    line_lead = (verb, self.names.powers.get(line_power.lower()) if line_power else None)
                    i += 2
                    continue
                if pn is None:
                    end = self.resync(i + 2)
                    known = sorted({p.name for p in self.names.powers.values()})
                    import difflib  # only for an unknown power: not at start-up

                    close = difflib.get_close_matches(t.low, [k.lower() for k in known], n=2, cutoff=0.6)
                    out.append(ParsedLine(self.text(i, end), None, ctx.power, f"unknown power {_clip(t.text)!r}",
                                          [k for k in known if k.lower() in close], map=self.m))
                    i = end
                    continue
                if i + 2 >= n and head is None:  # "England:" alone: the power of the lines below
                    ctx.sticky = pn.name
                    return out + [self.heading(pn.name)]
                line_power = pn.name
                head = i if head is None else head
                i += 2
                continue
            if n == 1 and t.low in self.names.full_names:  # a power's name alone: a header
                ctx.sticky = self.names.powers[t.low].name
                return out + [self.heading(ctx.sticky)]
            start = i if head is None else head
            head = None
            self.start = i
            ctx.sticky = line_power or sticky
            self.notes, self.lead, self.repeat = ([marker] if marker else []), None, 1
            marker = ""
            try:
                order, power, end, warnings = self.order(i, lead or line_lead)
                try:
                    self.whole(end)
                except OrderError as exc:
                    exc.power = exc.power or power
                    raise
                parsed = ParsedLine(self.text(start, end), order, power, warnings=warnings + self.notes,
                                    map=self.m)
            except OrderError as exc:
                end = self.resync(max(exc.at, i))
                power = exc.power or ctx.power or ctx.sticky
                parsed = ParsedLine(self.text(start, end), None, power, str(exc), exc.suggestions, map=self.m)
            out.append(parsed)
            o = parsed.order
            for _ in range(self.repeat - 1 if o is not None else 0):  # "waive two builds": one waive each
                out.append(ParsedLine(parsed.line, o, parsed.power, map=self.m))
            if isinstance(o, Move) and o.kind == "A/F":
                ctx.af_moves[o.dest] = o.power
            lead = None
            if o is not None and self.low(end) == "and" and self.starts_unit(end + 1):
                lead = self.lead  # "France disbands F Gol and A Bur": both disbanded
                end += 1
            i = max(end, i + 1)
        ctx.sticky = sticky
        return out

    def heading(self, power: str) -> ParsedLine:
        """A power's name heading the lines below ("England:"): no order, said as a note."""
        return ParsedLine(self.line.strip(), None, power, map=self.m, note=f"a heading: the orders below are {power}'s")

    def sheet_prefix(self, t: Tok) -> bool:
        """Is ``t`` (the line's first word) closed by a bracket: a power's letter or name as order
        sheets and zines head a power's orders ("E) A Lvp - Yor", "England) ..."), or a letter
        of a list ("b) F Lon - Nth")?"""
        line = self.line
        return line[t.end:t.end + 1] == ")" and "(" not in line[:t.start] and (
            len(t.low) == 1 or self.names.power(t.low) is not None)

    def whole(self, k: int) -> None:
        """An order is read whole or refused whole: what follows it on the line must be another
        order (a unit, a power naming one, a build or removal word, "and" before a unit), a
        separator, or come after a full stop. Anything else refuses the order with it."""
        if k >= self.n or self.toks[k].low in SEPARATORS or self.toks[k - 1].dot:
            return
        t = self.toks[k]
        w = t.low
        if t.word and (w == "and" and self.starts_unit(k + 1) or w in LEAD_W or self.kind_word(k) is not None
                       or self.zine(k) is not None):
            return
        if w == "+" or self.power_word(k) is not None and (
                self.low(k + 1) == ":" or self.kind_word(k + 1) is not None or self.zine(k + 1) is not None):
            return
        raise self.fail(f"cannot read {_clip(t.text)!r} after {_clip(self.text(self.start, k))!r}: the order "
                        "is not read (put a comma or a full stop between two orders)", k)

    def text(self, start: int, end: int) -> str:
        line = self.line
        s, e = self.toks[start].start, self.toks[end - 1].end
        while s > 0 and line[s - 1] in "([{":
            s -= 1
        if self.toks[end - 1].dot and len(self.toks[end - 1].low) == 1 and line[e:e + 1] == ".":
            e += 1  # the dot of an initial ("E.C.")
        while e < len(line) and line[e] in ")]}":
            e += 1
        return line[s:e]

    def resync(self, k: int) -> int:
        """After an error: skip to the next ';' or ',', or past the next word with a dot where an
        order can begin after it (a unit, a place: not the next letter of "St.P." or "s.c.")."""
        while k < self.n:
            if self.toks[k].low in SEPARATORS:
                return k
            if self.toks[k].dot and (k + 1 >= self.n or self.starts_unit(k + 1) or self.is_loc(k + 1)):
                return k + 1
            k += 1
        return self.n

    # -- helpers -----------------------------------------------------------------------------
    def low(self, k: int) -> str:
        return self.toks[k].low if k < self.n else ""

    def fail(self, message: str, at: int, suggestions: list[str] | None = None, power: str | None = None
             ) -> OrderError:
        return OrderError(message, at, suggestions, power)

    def first_of(self, attempts: list[Callable[[], Result]]) -> Result:
        """The first reading that works; else the error of the one that read furthest."""
        best: OrderError | None = None
        for attempt in attempts:
            noted = len(self.notes)
            try:
                return attempt()
            except OrderError as exc:
                del self.notes[noted:]  # what a reading that failed noted is not said
                if best is None or exc.at > best.at:
                    best = exc
        assert best is not None
        raise best

    def need_module(self, what: str, at: int) -> None:
        if MODULE_OF[what] not in self.ctx.modules:
            raise self.fail(f"this variant has no {what} {'units' if what == 'army/fleet' else 'orders'}", at)

    def power_word(self, k: int) -> PowerName | None:
        """A power's name, abbreviation or adjective at ``k`` ("England", "ENG", "English", "Germany's")."""
        w = self.low(k)
        if not w or not self.toks[k].word:
            return None
        pn = self.names.power(w)
        if pn is None and w.endswith("s"):
            pn = self.names.power(w[:-1]) if w[:-1] in self.names.full_names else None
        return pn

    def kind_word(self, k: int) -> tuple[str, int] | None:
        """A unit kind at ``k``: "A", "army", "a fleet", "an army", "A/F", "army/fleet"."""
        w = self.low(k)
        if w in ("a", "an") and self.low(k + 1) in ("army", "fleet") and self.toks[k + 1].word:
            k += 1
            w = self.low(k)
        if w not in KIND_W or not self.toks[k].word:
            return None
        if self.low(k + 1) == "/" and self.low(k + 2) in ("f", "fleet") and self.toks[k + 2].word and KIND_W[w] == "A":
            return "A/F", k + 3
        return KIND_W[w], k + 1

    def zine(self, k: int) -> tuple[PowerName | None, str | None, bool] | None:
        """A nationality initial glued to a unit kind ("EF", "TA"); "AF" may be an A/F."""
        w = self.low(k)
        if len(w) != 2 or w[1] not in "af" or not self.toks[k].word:
            return None
        af_game = ARMY_FLEET in self.ctx.modules
        if w == "af" and af_game:
            if "a" in self.names.letters:
                return None, None, True
            return None, "A/F", False
        pn = self.names.letters.get(w[0])
        if pn is None:
            return None
        return pn, w[1].upper(), False

    def starts_unit(self, k: int) -> bool:
        return self.kind_word(k) is not None or self.zine(k) is not None or self.power_word(k) is not None

    def boundary(self, k: int) -> bool:
        """Does the order end before ``k``?"""
        return (k >= self.n or self.toks[k].low in SEPARATORS or self.toks[k - 1].dot
                or self.starts_unit(k))

    def province_at(self, k: int) -> tuple[str, int] | None:
        try:
            return self.names.province(self.toks, k, RESERVED)
        except AmbiguousName as exc:
            raise self.fail(str(exc), k, exc.suggestions) from None

    def is_loc(self, k: int) -> bool:
        try:
            return self.names.province(self.toks, k, RESERVED) is not None
        except AmbiguousName:
            return True

    def loc(self, k: int, what: str, fits: Callable[[str], bool] | None = None) -> tuple[str, str | None, int]:
        """A province and the coast written with it: ("stp", "nc", index after).

        ``fits``: which provinces make sense here (a unit there, in reach); it settles an
        abbreviation of two provinces ("LIV": Liverpool or Livonia). A misspelt name that is
        clearly one province is read as it, and the reading noted."""
        if self.low(k) in OWN_W and not self.is_loc(k):
            k += 1
        found = self.province_at(k)
        if found is None:
            found = self.misspelt(k, what)
        prov, end = found
        if fits is not None:
            prov = self.settle_dual(k, end, prov, fits)
        k = end
        coast = self.names.coast(self.toks, k)
        if coast is None:
            if k < self.n and self.toks[k].text == "/":  # "Mar/xc": a coast we do not know
                given = self.toks[k + 1].text if k + 1 < self.n else ""
                have = self.m.provinces[prov].coasts
                known = f" (its coasts: {or_list([self.m.display(f'{prov}/{x}') for x in have])})" if have else ""
                raise self.fail(f"{self.m.provinces[prov].name} has no coast {given!r}{known}", k)
            return prov, None, k
        c, end = coast
        p = self.m.provinces[prov]
        if c not in p.coasts and c in self.coasts_after_phase(prov):
            return prov, c, end  # a build on a coast the map change after this phase creates
        if c not in p.coasts:
            name = self.m.coast_names.get(c, c)
            if not p.coasts:
                raise self.fail(f"{p.name} has no coasts to choose from ({name!r} given)", k)
            have = or_list([self.m.display(f"{prov}/{x}") for x in p.coasts])
            raise self.fail(f"{p.name} has no {name} (its coasts: {have})", k)
        return prov, c, end

    def misspelt(self, k: int, what: str) -> tuple[str, int]:
        """A word (or two) that is no name but clearly one province's name misspelt ("burgandy",
        "Beglium"): that province, noted. Two provinces as close: refused, naming them."""
        for span in (1, 2):
            words = self.toks[k:k + span]
            if len(words) < span or not all(t.word for t in words) or any(t.dot for t in words[:-1]):
                break
            if any(t.low in RESERVED or self.names.power(t.low) for t in words):
                break
            close = self.names.close("".join(t.low for t in words))
            written = self.line[words[0].start:words[-1].end]
            if len(close) == 1:
                self.notes.append(f"read {_clip(written)!r} as {self.m.provinces[close[0]].name}")
                return close[0], k + span
            if len(close) > 1:
                names = sorted(self.m.provinces[p].name for p in close)
                raise self.fail(f"unknown province {_clip(written)!r}: it could be {or_list(names)}", k, names)
        raise self.unknown(k, what)

    def misspelt_unit(self, k: int, fits: Callable[[str], bool]) -> str | None:
        """The ordered unit's place misspelt ("A Pairs - Bur"): read only where one province is
        that close and has a unit to order, and noted."""
        t = self.toks[k] if k < self.n else None
        if t is None or not t.word or len(t.low) < 5 or t.low in RESERVED or self.names.power(t.low):
            return None  # (four letters are too few at the head of a line: "rest hold" is no "Brest")
        good = [p for p in self.names.close(t.low) if fits(p)]
        if len(good) != 1:
            return None
        self.notes.append(f"read {_clip(t.text)!r} as {self.m.provinces[good[0]].name}")
        return good[0]

    def settle_dual(self, k: int, end: int, prov: str, fits: Callable[[str], bool]) -> str:
        """An abbreviation that names two provinces ("LIV": Liverpool, and the start of Livonia)
        is the one that ``fits``; when both or neither do, the one it names outright."""
        dual = self.names.dual
        other = dual.get(self.toks[k].low if end == k + 1 else "".join(t.low for t in self.toks[k:end]))
        if other is None:
            return prov
        good = [p for p in (prov, other) if fits(p)]
        written = self.line[self.toks[k].start:self.toks[end - 1].end]
        if len(good) == 2:
            names = sorted(self.m.provinces[p].name for p in good)
            raise self.fail(f"{_clip(written)!r} could be {or_list(names)}: write the name out", k, names)
        if good == [other]:
            self.notes.append(f"read {_clip(written)!r} as {self.m.provinces[other].name}")
            return other
        return prov

    def reaches(self, unit: Unit, prov: str) -> bool:
        """Could ``unit`` move to ``prov`` next (an army: by land)?"""
        m = self.m
        if unit.kind == "A":
            return prov in m.army_adj.get(unit.prov, ())
        return prov in m.fleet_reach.get(unit.loc, ())

    def coasts_after_phase(self, prov: str) -> tuple[str, ...]:
        """Coasts ``prov`` will have once this adjustment phase is over (Deluge II: the sinking
        after the winter's builds creates coasts a fleet built now must name)."""
        pos = self.ctx.pos
        if self.ctx.phase != "adjustment":
            return ()
        changes = pos.variant.changes_after(pos.phase)
        if not changes:
            return ()
        after = changes[-1][1].provinces.get(prov)
        return after.coasts if after else ()

    def unknown(self, k: int, what: str) -> OrderError:
        if k >= self.n or self.toks[k].low in SEPARATORS:
            return self.fail(f"missing {what} after {_clip(self.text(self.start, k))!r}" if k > self.start
                             else f"missing {what}", k)
        t = self.toks[k]
        if not t.word:
            return self.fail(f"expected {what}, found {_clip(t.text)!r}", k)
        if t.low in RESERVED:
            return self.fail(f"expected {what}, found {_clip(t.text)!r}", k)
        words = [t]
        j = k + 1
        while not words[-1].dot and j < self.n and self.toks[j].word and self.toks[j].low not in RESERVED:
            words.append(self.toks[j])
            j += 1
        written = self.line[words[0].start:words[-1].end]
        suggestions: list[str] = []
        if self.ctx.suggestions_left > 0:
            self.ctx.suggestions_left -= 1
            suggestions = self.names.suggest("".join(w.low for w in words)) or self.names.suggest(t.low)
        if len(words) > 1 and not suggestions:
            written = t.text
        return self.fail(f"unknown province {_clip(written)!r}", k, suggestions)

    # -- units -------------------------------------------------------------------------------
    def unit_ref(self, k: int, need_loc: bool = True, what: str = "a unit or province",
                 fits: Callable[[str], bool] | None = None) -> Ref:
        start = k
        owner: PowerName | None = None
        kind: str | None = None
        af_ambiguous = False
        if self.low(k) in OWN_W and not self.is_loc(k):
            k += 1
        z = self.zine(k)
        if z is not None and (self.is_loc(k + 1) or self.low(k + 1) in FILLER_W):
            owner, kind, af_ambiguous = z
            k += 1
        else:
            pn = self.power_word(k)
            if pn is not None and (self.kind_word(k + 1) or self.is_loc(k + 1)) and not self.multiword_loc(k):
                owner = pn
                k += 1
            kw = self.kind_word(k)
            if kw is not None:
                kind, k = kw
                if kind == "A/F":
                    self.need_module("army/fleet", start)
        while self.low(k) in FILLER_W and not self.is_loc(k):
            k += 1
        if not need_loc and not self.is_loc(k):
            guess = self.misspelt_unit(k, fits) if fits is not None else None
            if guess is None:
                return Ref(owner, kind, None, None, af_ambiguous, start, k)
            return Ref(owner, kind, guess, None, af_ambiguous, start, k + 1)
        prov, coast, k = self.loc(k, "a province" if kind or owner else what, fits)
        return Ref(owner, kind, prov, coast, af_ambiguous, start, k)

    def multiword_loc(self, k: int) -> bool:
        """Is ``toks[k]`` the first word of a province name of several words ("English Channel")?"""
        try:
            found = self.names.province(self.toks, k, RESERVED)
        except AmbiguousName:
            return False
        return found is not None and found[1] > k + 1

    def board_unit(self, prov: str) -> Unit | None:
        pos = self.ctx.pos
        if self.ctx.phase == "retreat":
            d = pos.dislodged.get(prov)
            return d.unit if d else None
        return pos.units.get(prov)

    def resolve_af(self, ref: Ref, unit: Unit | None) -> tuple[PowerName | None, str | None]:
        """Settle "AF" by the board: an A/F there, or an Austrian fleet."""
        if not ref.af_ambiguous:
            return ref.owner, ref.kind
        austria = self.names.letters["a"]
        if unit is not None and unit.kind == "A/F":
            return None, "A/F"
        if unit is not None and unit.kind == "F" and unit.power == austria.name:
            return austria, "F"
        where = self.m.name(ref.prov) if ref.prov else "there"
        raise self.fail(f"'AF' is ambiguous in {where}: an Austrian fleet or an army/fleet? "
                        f"Write 'Austrian F' or 'A/F'", ref.start)

    def decide_power(self, named: PowerName | None, ref_owner: PowerName | None, unit: Unit | None,
                     at: int) -> str:
        """Who gives the order: the player signed on, a power named, or the unit's owner."""
        ctx = self.ctx
        if named and ref_owner and named.name != ref_owner.name:
            raise self.fail(f"the order names both {named.name} and {ref_owner.name}", at)
        explicit = (named or ref_owner).name if (named or ref_owner) else ctx.sticky
        if ctx.power is not None:
            if explicit and explicit != ctx.power:
                raise self.fail(f"you play {ctx.power}: you cannot give orders for {explicit}", at, power=ctx.power)
            if unit is not None and unit.power != ctx.power:
                raise self.fail(f"the {KIND_WORD[unit.kind]} in {self.m.name(unit.prov)} belongs to {unit.power}",
                                at, power=ctx.power)
            return ctx.power
        if explicit:
            return explicit
        if unit is not None:
            return unit.power
        raise self.fail("say which power gives this order (e.g. 'England: ...')", at)

    def subject(self, ref: Ref, named: PowerName | None) -> tuple[Unit, str, str, list[str]]:
        """The ordered unit on the board: (unit, kind as written or from the board, power, warnings)."""
        assert ref.prov is not None
        unit = self.board_unit(ref.prov)
        m = self.m
        if unit is None:
            word = KIND_WORD.get(ref.kind or "", "unit")
            if self.ctx.phase == "retreat":
                raise self.fail(f"there is no dislodged {word} in {m.name(ref.prov)}", ref.start)
            raise self.fail(f"there is no {word} in {m.name(ref.prov)}", ref.start)
        owner, kind = self.resolve_af(ref, unit)
        power = self.decide_power(named, owner, unit, ref.start)
        warnings: list[str] = []
        if ref.coast and unit.kind == "F" and unit.loc != f"{ref.prov}/{ref.coast}":
            coast = m.coast_names.get(unit.loc.partition("/")[2], "coast")
            warnings.append(f"the fleet in {m.name(ref.prov)} is on the {coast}")
        elif ref.coast and unit.kind != "F":
            warnings.append(f"coast ignored: the {KIND_WORD[unit.kind]} in {m.name(ref.prov)} is not on a coast")
        return unit, kind or unit.kind, power, warnings

    def target(self, ref: Ref, warnings: list[str]) -> tuple[str | None, str]:
        """A unit an order refers to (supported, convoyed, protected): its kind and location."""
        assert ref.prov is not None
        unit = self.ctx.pos.units.get(ref.prov)
        owner, kind = self.resolve_af(ref, unit)
        if unit is None:
            return kind, ref.prov
        if owner is not None and owner.name != unit.power:
            warnings.append(f"the {KIND_WORD[unit.kind]} in {self.m.name(ref.prov)} belongs to {unit.power}, "
                            f"not {owner.name}")
        return kind or unit.kind, unit.loc

    def dest_loc(self, kind: str, here: str, prov: str, coast: str | None, warnings: list[str], at: int) -> str:
        """Where a unit of ``kind`` at ``here`` is sent: a fleet's coast inferred when only one is
        reachable (DATC 4.B.2), an error when two are and none is named (4.B.1). An A/F's fleet
        uses coasts too: it goes ashore when its army lands, or retreats ashore (Davis III a, IV a)."""
        m = self.m
        p = m.provinces[prov]
        if kind not in ("F", "A/F"):
            if coast:
                warnings.append("coast ignored: an army does not use coasts")
            return prov
        if coast:
            return f"{prov}/{coast}"
        if not p.coasts:
            return prov
        reach = m.fleet_adj.get(here, frozenset())
        possible = [loc for loc in m.fleet_locs[prov] if loc in reach]
        if len(possible) == 1:
            return possible[0]
        if len(possible) > 1:
            raise self.fail(f"the coast of {p.name} must be given ({or_list([m.display(x) for x in possible])})", at)
        return prov  # not reachable at all: the engine says so

    # -- orders ------------------------------------------------------------------------------
    def order(self, i: int, lead: tuple[str, PowerName | None] | None = None) -> Result:
        if lead is not None:
            return self.body(i, lead[1], lead[0])
        pn = self.power_word(i)
        if pn is None or self.low(i + 1) == ":":
            return self.body(i, None)
        as_prefix: Callable[[], Result] = lambda: self.body(i + 1, pn)
        as_body: Callable[[], Result] = lambda: self.body(i, None)
        if self.multiword_loc(i):  # "English Channel - Bre" is no English order
            return self.first_of([as_body, as_prefix])
        return self.first_of([as_prefix, as_body])

    def body(self, i: int, named: PowerName | None, lead: str | None = None) -> Result:
        """One order from ``toks[i]``; ``lead``: the verb of the order before it, which this one
        shares ("disbands F Gol and A Bur")."""
        phase = self.ctx.phase
        if i >= self.n:
            raise self.fail("missing order", i)
        w = lead or self.low(i)
        verb = lead is not None or self.toks[i].word
        after = i if lead is not None else i + 1  # where the unit after the verb begins
        if w == "+" and not self.toks[i].word:  # "+ A Bud": the zines' build
            w, verb = "build", True
        if w in WAIVE_W and verb:
            return self.waive(after, named)
        if w in BUILD_W and verb and self.low(after) in WAIVE_W:  # "Build waived." (njudge's results)
            return self.waive(after + 1, named)
        if w in BUILD_W and verb:
            self.lead = (w, named)
            return self.build(self.unit_ref(after, fits=self.free_site), named)
        if (w in REMOVE_W or w in DISBAND_W or (w == "r" and phase == "adjustment")) and verb:
            self.lead = (w, named)
            ref = self.unit_ref(after, fits=self.has_unit)
            return self.disband(ref, named, ref.end, removal=w not in DISBAND_W)
        if w in RETREAT_W and verb and self.starts_unit(after):  # "France retreated F Nap-Tys"
            self.lead = (w, named)
            return self.retreat_first(after, named)
        ref = self.unit_ref(i, need_loc=False, fits=self.has_unit)
        return self.tail(ref, named)

    def retreat_first(self, k: int, named: PowerName | None) -> Result:
        """A retreat written verb first, as reports print it ("Germany retreats F Bal-Liv")."""
        if self.ctx.phase != "retreat":
            raise self.fail(f"retreat orders are given only in retreat phases; this is {self.ctx.pos.phase}", k - 1)
        ref = self.unit_ref(k, fits=self.has_unit)
        unit, kind, power, warnings = self.subject(ref, named)
        j = ref.end
        if self.low(j) in MOVE_W:
            j += 1 + (self.low(j) != "to" and self.low(j + 1) in TO_W)
        return self.move(power, kind, unit, j, warnings)

    def has_unit(self, prov: str) -> bool:
        """Is there a unit to order in ``prov`` (a dislodged one in a retreat phase)?"""
        return self.board_unit(prov) is not None

    def free_site(self, prov: str) -> bool:
        return prov not in self.ctx.pos.units and prov in self.ctx.pos.centres

    def waive(self, k: int, named: PowerName | None) -> Result:
        pn = self.power_word(k)
        if pn is not None:
            if named and named.name != pn.name:
                raise self.fail(f"the order names both {named.name} and {pn.name}", k)
            named = pn
            k += 1
        if named is None and self.ctx.sticky is None and self.ctx.power is None:
            raise self.fail("say which power waives (e.g. 'England: Waive')", k)
        power = self.decide_power(named, None, None, k)
        w = self.low(k)
        if k < self.n and (w.isdigit() or w in COUNT_W) and self.toks[k].word:  # "waive one build", "waive 2"
            self.repeat = COUNT_W.get(w) or min(int(w[:3]), 99)
            k += 1
            if self.repeat < 1:
                raise self.fail("a waive gives up one build or more", k - 1)
        if self.low(k) in ("build", "builds") and self.toks[k].word:
            k += 1
        return Waive(power, None, ""), power, k, []

    def build(self, ref: Ref, named: PowerName | None) -> Result:
        assert ref.prov is not None
        m = self.m
        prov = ref.prov
        p = m.provinces[prov]
        warnings: list[str] = []
        # "AF" in a build: an A/F is never built, so an Austrian fleet
        owner, kind = (self.names.letters["a"], "F") if ref.af_ambiguous else (ref.owner, ref.kind)
        if named is None and owner is None and self.ctx.sticky is None and self.ctx.power is None:
            holder = self.ctx.pos.centres.get(prov)
            if holder is None:
                raise self.fail(f"say which power builds in {p.name} (e.g. 'England: Build A Lon')", ref.start)
            power = holder
        else:
            power = self.decide_power(named, owner, None, ref.start)
        if kind is None:
            if p.terrain != "land":
                raise self.fail(f"say which kind of unit to build in {p.name} (A or F)", ref.start, power=power)
            kind = "A"
        loc = prov
        if kind == "F" and p.coasts:
            if not ref.coast:
                coasts = or_list([m.display(c) for c in m.fleet_locs[prov]])
                raise self.fail(f"say which coast of {p.name} the fleet is built on ({coasts})", ref.end,
                                power=power)
            loc = f"{prov}/{ref.coast}"
        elif ref.coast and kind == "F":
            loc = f"{prov}/{ref.coast}"  # a coast only the coming map change creates
        elif ref.coast and kind != "F":
            warnings.append("coast ignored: an army does not use coasts")
        return Build(power, kind, loc), power, ref.end, warnings

    def disband(self, ref: Ref, named: PowerName | None, end: int, removal: bool) -> Result:
        """Disband (retreat phase) or remove (adjustment phase) the unit ``ref``."""
        if ref.prov is None:
            raise self.unknown(ref.end, "a unit")
        phase = self.ctx.phase
        if phase == "adjustment":
            unit = self.ctx.pos.units.get(ref.prov)
            if unit is None:
                raise self.fail(f"there is no {KIND_WORD.get(ref.kind or '', 'unit')} in {self.m.name(ref.prov)}",
                                ref.start)
            owner, kind = self.resolve_af(ref, unit)
            power = self.decide_power(named, owner, unit, ref.start)
            return Remove(power, kind or unit.kind, unit.loc), power, end, []
        unit, kind, power, warnings = self.subject(ref, named)
        cls = Remove if removal and phase != "retreat" else Disband
        return cls(power, kind, unit.loc), power, end, warnings

    def tail(self, ref: Ref, named: PowerName | None) -> Result:
        j = ref.end
        w = self.low(j)
        word = j < self.n and self.toks[j].word
        phase = self.ctx.phase
        # orders that do not need the unit on the board now
        if word and (w in DISEMBARK_W or (w == "d" and self.is_loc(j + 1 + (self.low(j + 1) in ON_W)))):
            return self.disembark(ref, named, j)
        if ref.prov is None:
            raise self.unknown(j, "a unit or province")
        building = w in BUILD_W and word
        if (phase == "adjustment" and self.boundary(j) and ref.prov in self.ctx.pos.units
                and self.line[:self.toks[ref.start].start].strip() == "*"):
            return self.disband(ref, named, j, removal=True)  # "* F Bre": the zines' removal mark
        if phase == "adjustment" and (building or (self.boundary(j) and ref.prov not in self.ctx.pos.units)):
            order, power, _, warnings = self.build(ref, named)  # "A Par B", or "A Par" where Paris is empty
            return order, power, j + building, warnings
        unit, kind, power, warnings = self.subject(ref, named)
        try:
            return self.verb(ref, named, unit, kind, power, warnings)
        except OrderError as exc:
            exc.power = exc.power or power
            raise

    def verb(self, ref: Ref, named: PowerName | None, unit: Unit, kind: str, power: str, warnings: list[str]
             ) -> Result:
        """What the unit ``ref`` (found on the board) is ordered to do."""
        j = ref.end
        w = self.low(j)
        word = j < self.n and self.toks[j].word
        if word and len(w) >= 5 and w not in RESERVED:  # "suport", "convoi": an order word misspelt
            fixed = next((v for v in VERB_SPELLINGS if slips(w, v, 1) <= 1), None)
            if fixed is not None and not self.is_loc(j):
                self.notes.append(f"read {_clip(self.toks[j].text)!r} as {fixed!r}")
                self.toks[j].low = w = fixed
        phase = self.ctx.phase
        here = unit.loc
        if w in HOLD_W and word:
            return Hold(power, kind, here), power, j + 1 + (self.low(j + 1) in HOLD_AFTER_W), warnings
        if w in MOVE_W:
            k = j + 1
            if self.low(k) in HOLD_W and self.toks[k].word and self.boundary(k + 1):
                return Hold(power, kind, here), power, k + 1, warnings  # "F Kie-H", "A Lpl-holds"
            if w != "to" and self.low(k) in TO_W:
                k += 1
            kw = self.kind_word(k)
            if kw is not None and self.transform_ends(kw[1]):
                return self.transform(power, kind, unit, k, j, warnings)
            return self.move(power, kind, unit, k, warnings)
        if not word and not self.boundary(j):
            raise self.fail(f"cannot read {_clip(self.toks[j].text)!r} after {_clip(self.text(ref.start, j))!r}", j)
        if word and w in SUPPORT_KIND_W:
            return self.support(power, kind, here, j + 1, warnings, SUPPORT_KIND_W[w])
        if word and w in CONVOY_KIND_W:
            return self.convoy(power, kind, here, j + 1, warnings, CONVOY_KIND_W[w])
        if word and w in VIA_W and self.is_loc(j + 1):  # "A Yor via Nth to Nwy"
            return self.move(power, kind, unit, j + 1, warnings, route_first=True)
        if w in RETREAT_W:
            if phase != "retreat":
                raise self.fail(f"retreat orders are given only in retreat phases; this is {self.ctx.pos.phase}", j)
            k = j + 1 + (self.low(j + 1) == ":")  # "F(Lvn) retreat: Bot"
            k += self.low(k) in TO_W
            return self.move(power, kind, unit, k, warnings)
        if w in SUPPORT_W:
            return self.support(power, kind, here, j + 1, warnings)
        if w in CONVOY_W:
            return self.convoy(power, kind, here, j + 1, warnings)
        if w == "t":  # transport (convoy) or transform: "F Nth T A Lon - Bel", "A Lon T F"
            kw = self.kind_word(j + 1)
            if kw is not None and self.transform_ends(kw[1]):
                return self.transform(power, kind, unit, j + 1, j, warnings)
            return self.convoy(power, kind, here, j + 1, warnings)
        if w == "e":  # embark; after a fleet, an "(e)" that can only mean convoy (a misprinted "(c)")
            if unit.kind == "F" and kind == "F":
                warnings.append("'e' after a fleet read as convoy")
                return self.convoy(power, kind, here, j + 1, warnings)
            return self.embark(power, kind, here, j + 1, warnings)
        if w in EMBARK_W:
            return self.embark(power, kind, here, j + 1, warnings)
        if w in PROTECT_W:
            self.need_module("protect", j)
            return self.carry(Protect, power, kind, here, j + 1, warnings)
        if w in FERRY_W or (w == "fast" and self.low(j + 1) in FERRY_W):
            self.need_module("fast ferry", j)
            return self.carry(FastFerry, power, kind, here, j + 1 + (w == "fast"), warnings)
        if w in TRANSFORM_W:
            return self.transform(power, kind, unit, j + 1, j, warnings)
        if w in DISBAND_W or w in REMOVE_W or (w == "r" and phase == "adjustment"):
            return self.disband(ref, named, j + 1, removal=w not in DISBAND_W)
        if self.boundary(j):
            if phase == "retreat":
                kw = KIND_WORD[unit.kind]
                raise self.fail(f"say where the {kw} in {self.m.name(unit.prov)} retreats "
                                f"('{unit.text(self.m)} - ...') or disband it ('{unit.text(self.m)} D')", j)
            if phase == "adjustment":
                raise self.fail(f"{self.m.name(unit.prov)} is occupied: to remove the unit there, write "
                                f"'Remove {unit.text(self.m)}'", j)
            return Hold(power, kind, here), power, j, warnings
        raise self.fail(f"cannot read {_clip(self.toks[j].text)!r} after {_clip(self.text(ref.start, j))!r}", j)

    def transform_ends(self, k: int) -> bool:
        """After "A Lon T F" (or "-> F/nc", "into a fleet (north coast)") does the order end?"""
        coast = self.names.coast(self.toks, k)
        if coast is not None:
            k = coast[1]
        return k >= self.n or self.boundary(k)

    def move(self, power: str, kind: str, unit: Unit, k: int, warnings: list[str], route_first: bool = False
             ) -> Result:
        """``route_first``: the order names the seas before the destination ("A Yor via Nth to Nwy")."""
        fits = (lambda p: self.reaches(unit, p)) if not route_first else None
        prov, coast, k = self.loc(k, "a destination", fits)
        route: list[str] = []
        via = False
        while self.low(k) in ROUTE_W or (self.low(k) == "to" and self.is_loc(k + 1)) or (
                route_first and self.toks[k - 1].word and not self.toks[k - 1].dot and self.is_loc(k)):
            route.append(prov)  # (after "via" the seas may follow each other: "via Nth Hel to Kie")
            prov, coast, k = self.loc(k + (self.low(k) in ROUTE_W or self.low(k) == "to"), "a destination")
        if route_first and not route:
            raise self.fail(f"say where the army goes by way of {self.m.name(prov)} ('... via Nth to Nwy')", k)
        if self.low(k) in VIA_W:
            if self.low(k + 1) in ("convoy", "c"):
                via, k = True, k + 2
            elif self.is_loc(k + 1):  # "via Nth", "via Nth - Nwg": the route written after the destination
                _, _, k = self.loc(k + 1, "a province")
                while self.low(k) in MOVE_W and self.is_loc(k + 1):
                    _, _, k = self.loc(k + 1, "a province")
                via = True
            elif self.toks[k].word and self.boundary(k + 1):  # "A Lon - Bel VIA" (MILA's and DAIDE's notation)
                via, k = True, k + 1
        if route:
            via = True  # a route written out (DATC 4.A.6: the route itself is not binding)
        if via and kind != "A":
            raise self.fail(f"only an army moves by convoy; the {KIND_WORD[kind]} in {self.m.name(unit.prov)} "
                            "cannot", k - 1)
        dest = self.dest_loc(kind, unit.loc, prov, coast, warnings, k - 1)
        if self.ctx.phase == "retreat":
            if via:
                raise self.fail("a retreat cannot go by convoy", k - 1)
            return Retreat(power, kind, unit.loc, dest), power, k, warnings
        return Move(power, kind, unit.loc, dest, via), power, k, warnings

    def support(self, power: str, kind: str, here: str, k: int, warnings: list[str], want: str | None = None
                ) -> Result:
        """``want``: the kind the support word itself gives the supported unit ("SA", "SF")."""
        ref = self.unit_ref(k, what="the supported unit", fits=self.ctx.pos.units.__contains__)
        self.want_kind(ref, want)
        k = ref.end
        tkind, target = self.target(ref, warnings)
        dest = None
        w = self.low(k)
        supporter = self.ctx.pos.units.get(province_of(here))
        fits = (lambda p: self.reaches(supporter, p)) if supporter is not None else None
        if w == "to" and self.low(k + 1) in HOLD_W:
            k += 2
        elif w in HOLD_W:
            k += 1
        elif w in MOVE_W or w == "into" or w in DISEMBARK_W or (w == "d" and self.is_loc(k + 1)):
            k += 1
            if self.low(k) in TO_W and w not in ("to", "into"):
                k += 1
            prov, coast, k = self.loc(k, "the destination of the supported unit", fits)
            if coast and tkind != "F":
                warnings.append("coast ignored: an army does not use coasts")
                coast = None
            if prov != province_of(target):  # "A Yor SF Lon-Lon": the Electronic Protocol's support to hold
                dest = f"{prov}/{coast}" if coast else prov
        elif k < self.n and self.toks[k].word and not self.toks[k - 1].dot and self.is_loc(k) \
                and self.kind_word(k) is None and self.zine(k) is None:
            return self.support_no_dash(power, kind, here, ref.start, k, tkind, target, warnings, fits)
        return Support(power, kind, here, tkind, target, dest), power, k, warnings

    def support_no_dash(self, power: str, kind: str, here: str, start: int, k: int, tkind: str | None, target: str,
                        warnings: list[str], fits: Callable[[str], bool] | None) -> Result:
        """"F Lon S Nth Eng": three provinces and no dash. It is the support of a move when that is
        the only legal reading: the supported unit can go there, the supporter can reach it, and
        the third name cannot begin an order of its own (a unit of this player's there)."""
        m = self.m
        prov, coast, end = self.loc(k, "the destination of the supported unit", fits)
        pos = self.ctx.pos
        supporter, moving = pos.units.get(province_of(here)), pos.units.get(province_of(target))
        dest = f"{prov}/{coast}" if coast and tkind == "F" else prov
        order = Support(power, kind, here, tkind, target, dest)
        written = _clip(self.text(self.start, end))
        legal = (supporter is not None and moving is not None and prov not in (supporter.prov, moving.prov)
                 and self.reaches(supporter, prov)
                 and (self.reaches(moving, prov) or moving.kind == "A" and m.terrain.get(prov) == "coast"
                      and m.terrain.get(moving.prov) == "coast"))
        there = pos.units.get(prov)
        own = there is not None and (self.ctx.power is None or there.power == self.ctx.power)
        if legal and not own:
            self.notes.append(f"read as {order.text(m)!r} (a support of a move: no dash was written)")
            return order, power, end, warnings
        hold = Support(power, kind, here, tkind, target, None).text(m)
        if legal:
            raise self.fail(f"{written!r} could be {order.text(m)!r} or {hold!r} followed by an order for the "
                            f"unit in {m.name(prov)}: write a dash for the move, or a comma between two orders", k)
        raise self.fail(f"{written!r} is not read: {order.text(m)!r} is not a possible support, and a support "
                        f"to hold is written {hold!r}", k)

    def want_kind(self, ref: Ref, want: str | None) -> None:
        if want is None:
            return
        if ref.kind is not None and ref.kind != want:
            raise self.fail(f"the order says {KIND_WORD[want]} and then {KIND_WORD.get(ref.kind, ref.kind)}", ref.start)
        ref.kind = want

    def convoy(self, power: str, kind: str, here: str, k: int, warnings: list[str], want: str | None = None
               ) -> Result:
        if ARMY_FLEET in self.ctx.modules:  # the convoy of A/F games is the one-space fast ferry
            return self.carry(FastFerry, power, kind, here, k, warnings)
        ref = self.unit_ref(k, what="the convoyed army", fits=self.ctx.pos.units.__contains__)
        self.want_kind(ref, want)
        tkind, target = self.target(ref, warnings)
        dest, k = self.carried_dest(ref.end, "the convoyed army", tkind or "A", warnings)
        return Convoy(power, kind, here, tkind or "A", target, dest), power, k, warnings

    def carried_dest(self, k: int, what: str, kind: str, warnings: list[str]) -> tuple[str, int]:
        w = self.low(k)
        bare = (k < self.n and self.toks[k].word and not self.toks[k - 1].dot and self.is_loc(k)
                and self.kind_word(k) is None)  # "F Nth C A Lon Bel": a carrying order needs a destination
        if w not in MOVE_W and w != "into" and not bare:
            raise self.fail(f"say where {what} goes ('... - Bel')", k)
        if not bare:
            k += 1 + (w not in ("to", "into") and self.low(k + 1) in TO_W)
        prov, coast, k = self.loc(k, f"the destination of {what}")
        if bare:
            self.notes.append(f"read {self.m.name(prov)} as where {what} goes (no dash was written)")
        if coast and kind != "F":
            warnings.append("coast ignored: an army does not use coasts")
            coast = None
        return (f"{prov}/{coast}" if coast else prov), k

    def carry(self, cls: type[FastFerry] | type[Protect], power: str, kind: str, here: str, k: int,
              warnings: list[str]) -> Result:
        """Fast ferry (a fleet carries an army) and protect (an army lets a fleet run its coast)."""
        ref = self.unit_ref(k, what="the ferried army" if cls is FastFerry else "the protected fleet")
        tkind, target = self.target(ref, warnings)
        if cls is FastFerry:
            if tkind not in (None, "A"):
                raise self.fail("only an army can be ferried", ref.start)
            dest, k = self.carried_dest(ref.end, "the ferried army", "A", warnings)
            return FastFerry(power, kind, here, target, dest), power, k, warnings
        if tkind not in (None, "F"):
            raise self.fail("only a fleet can be protected", ref.start)
        dest, k = self.carried_dest(ref.end, "the protected fleet", "F", warnings)
        return Protect(power, kind, here, target, dest), power, k, warnings

    def embark(self, power: str, kind: str, here: str, k: int, warnings: list[str]) -> Result:
        self.need_module("embark", k - 1)
        if kind != "A":
            raise self.fail("only an army embarks", k - 1)
        if self.low(k) in ON_W:
            k += 1
        ref = self.unit_ref(k, what="the fleet to board")
        tkind, fleet = self.target(ref, warnings)
        if tkind == "A":
            raise self.fail("an army embarks on a fleet", ref.start)
        return Embark(power, kind, here, fleet), power, ref.end, warnings

    def disembark(self, ref: Ref, named: PowerName | None, j: int) -> Result:
        self.need_module("disembark", j)
        k = j + 1
        if self.low(k) in ON_W:
            k += 1
        dest, _, k = self.loc(k, "where the army lands")
        if ref.kind not in (None, "A"):
            raise self.fail("only an army disembarks", ref.start)
        if ref.prov:
            start, mover = ref.prov, self.moving_to(ref.prov)
        else:
            start, mover = self.disembark_from(dest, named or ref.owner)
        if start is None:
            raise self.fail("say where the army disembarks from (e.g. 'A(Mao) D Por')", j)
        unit = self.ctx.pos.units.get(start)
        carrier = unit if unit is not None and unit.kind == "A/F" else None
        if carrier is None and mover is not None and (named or ref.owner or self.ctx.sticky or self.ctx.power) is None:
            return Disembark(mover, "A", start, dest), mover, k, []
        power = self.decide_power(named, ref.owner, carrier, ref.start)
        return Disembark(power, "A", start, dest), power, k, []

    def moving_to(self, sea: str) -> str | None:
        """The power whose A/F this mail moves to ``sea`` (it carries the army that lands from there)."""
        return self.ctx.af_moves.get(sea)

    def disembark_from(self, dest: str, named: PowerName | None) -> tuple[str | None, str | None]:
        """The sea an army lands from when the order leaves it out ("A disembarks Tunis"), and
        whose A/F carries it: the sea an A/F of this mail moves to, or where one stands, next to
        the landing place."""
        m = self.m
        near = [p for p in m.provinces if m.is_sea(p) and dest in m.fleet_reach_prov.get(p, ())]
        who = named.name if named else (self.ctx.power or self.ctx.sticky)
        moved = [(sea, pw) for sea, pw in self.ctx.af_moves.items() if sea in near and who in (None, pw)]
        if len(moved) == 1:
            return moved[0]
        here = [u for p in near if (u := self.ctx.pos.units.get(p)) and u.kind == "A/F" and who in (None, u.power)]
        return (here[0].loc, here[0].power) if len(here) == 1 else (None, None)

    def transform(self, power: str, kind: str, unit: Unit, k: int, at: int, warnings: list[str]) -> Result:
        self.need_module("transform", at)
        if self.low(k) in TO_W:
            k += 1
        kw = self.kind_word(k)
        if kw is None:
            raise self.fail("say what the unit transforms into (A or F)", k)
        new_kind, k = kw
        coast = ""
        c = self.names.coast(self.toks, k)
        if c is not None:
            coast, k = c
        p = self.m.provinces[unit.prov]
        if new_kind == "F" and p.coasts:
            if not coast:
                coasts = or_list([self.m.display(x) for x in self.m.fleet_locs[unit.prov]])
                raise self.fail(f"say which coast of {p.name} the fleet will stand on ({coasts})", k)
            if coast not in p.coasts:
                raise self.fail(f"{p.name} has no {self.m.coast_names.get(coast, coast)}", k)
        elif coast:
            warnings.append(f"coast ignored: {p.name} has no coasts to choose from" if new_kind == "F"
                            else "coast ignored: an army does not use coasts")
            coast = ""
        return Transform(power, kind, unit.loc, new_kind, coast), power, k, warnings
