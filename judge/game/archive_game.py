"""What the archive says about one game: its state in words, the next deadline, the master, who
plays each power (and who played it before, over which phases), the supply-centre chart and the
result. Public matter only: public names, never an address; nobody is named while an anonymous
game runs (docs/privacy.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from judge.game import lifecycle
from judge.game.seats import ANONYMOUS_LABEL, anonymous, person_label, public_label, seats
from judge.game.standings import centre_years, departures
from judge.game.store import Store, from_iso
from judge.render import describe
from judge.render.centre_chart import Series, centre_chart

if TYPE_CHECKING:
    from judge.game.lifecycle import Game

#: the state a visitor reads, for the store's states
STATES = {"forming": "forming", "active": "running", "paused": "paused", "finished": "finished",
          "terminated": "finished"}
#: why a player left a power, as SUMMARY keeps it, in a few words for the page
STATUS_WORDS = {"cd": "in civil disorder", "resigned": "resigned", "ejected": "ejected"}


def when(t: datetime | None) -> str:
    """A time on the pages: ``Tue 8 Jan 2030, 12:00 UTC`` (the archive is read everywhere: UTC)."""
    return f"{t:%a} {t.day} {t:%b %Y, %H:%M} UTC" if t is not None else ""


def result_words(outcome: dict[str, Any] | None) -> str:
    """How the game ended, in a sentence: who won, who shares the draw, who was conceded to."""
    if not outcome:
        return ""
    kind = str(outcome.get("kind") or "")
    winners = list(outcome.get("winner") or [])
    powers = list(outcome.get("powers") or [])
    at = f" ({outcome['phase']})" if outcome.get("phase") else ""
    if kind == "victory" and winners:
        return (f"{winners[0]} wins" if len(winners) == 1 else f"{_and(winners)} win together") + f"{at}."
    if kind == "draw":
        return f"Draw shared by {_and(powers)}{at}." if powers else f"Drawn{at}."
    if kind == "concession":
        return f"Conceded to {_and(winners)}{at}." if winners else f"Conceded{at}."
    if kind == "terminated":
        return "Ended by the master without a result."
    if kind == "no winner":
        return f"Over without a winner{at}" + (f"; {_and(powers)} survive." if powers else ".")
    return f"{kind[:1].upper()}{kind[1:]}{at}." if kind else ""


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def open_phase(store: Store, game: "Game") -> Any:
    return store.one("SELECT * FROM phases WHERE game_id = ? AND state = 'open' ORDER BY seq DESC LIMIT 1", (game.id,))


def deadline_words(game: "Game", phase: Any) -> tuple[str, str]:
    """(what the page says of the next deadline, its ISO time for ``<time datetime>`` or "")."""
    if game.state == "paused":
        return "none while the game is paused", ""  # by the master, or by every player's vote
    if game.state != "active" or phase is None:
        return "", ""
    deadline, grace = from_iso(phase["deadline"]), from_iso(phase["grace_end"])
    if deadline is None:
        return "none set (the phase is processed when every order is in)", ""
    words = when(deadline) + _local(game, deadline)
    if grace is not None and grace > deadline:
        words += f" (late orders accepted until {when(grace)})"
    return words, deadline.isoformat()


def _local(game: "Game", t: datetime) -> str:
    """The deadline on the game's own clock too, when the game keeps one (``SET TIMEZONE``): the
    players' mails give it there."""
    zone = str(game.options.get("timezone") or "")
    if not zone or zone.upper() == "UTC":
        return ""
    try:
        from zoneinfo import ZoneInfo

        local = t.astimezone(ZoneInfo(zone))
    except (ValueError, KeyError, OSError):
        return ""
    return f" ({local:%a} {local.day} {local:%b, %H:%M} {zone})"


def players(store: Store, game: "Game") -> list[dict[str, Any]]:
    """Each power in the variant's order: its colour, its player's public name (None: vacant),
    their state, the phase they took it over in, and who played it before (name, from, to, why).
    An anonymous game not over shows no one, and so no one before either."""
    v = game.variant
    hidden = anonymous(game)
    rows = {s["power"]: s for s in seats(store, game.id) if s["power"] in v.powers}
    out = []
    for power in v.powers:
        s = rows.get(power)
        if s is None:
            continue
        gone = [] if hidden else departures(game.options, power)
        before = [{"player": person_label(store, b.get("player_id")) or "(unknown)", "from": b.get("from") or "?",
                   "to": b.get("to") or "?", "why": b.get("why") or "left"} for b in gone]
        label = public_label(store, game, s)
        out.append({"power": power, "colour": v.powers[power].colour, "player": label,
                    "status": STATUS_WORDS.get(s["status"], ""), "before": before,
                    "since": (lifecycle.phase_at(store, game, s["joined"]) if before and label else None)})
    return out


def forming_players(store: Store, game: "Game") -> list[str]:
    """Who has joined a game that has not started (no powers yet): public names, or "anonymous"."""
    return [public_label(store, game, s) or ANONYMOUS_LABEL for s in seats(store, game.id)
            if s["player_id"] is not None]


def centre_history(store: Store, game: "Game") -> tuple[list[str], list[Series]]:
    """The supply centres each power held at the start, then after each played year's
    adjustments: the columns' names ("Start", "1901", ...) and one series per power, in the
    variant's order. Nothing before the game starts."""
    v = game.variant
    rows = store.all("SELECT * FROM phases WHERE game_id = ? AND state IN ('open', 'processed') ORDER BY seq",
                     (game.id,))
    if not rows:
        return [], []
    positions = [lifecycle._phase(r, v).position for r in rows]
    years = [("Start", describe.centre_counts(positions[0]))]
    years += [(str(y["year"]), y["counts"]) for y in centre_years(positions, game.outcome)]
    return ([name for name, _ in years],
            [Series(p.name, p.colour, [int(c.get(p.name, 0)) for _, c in years]) for p in v.powers.values()])


def chart(game: "Game", columns: list[str], series: list[Series]) -> Markup | None:
    """The chart of :func:`centre_history` as inline SVG (None until a year has been played: a
    chart of the start alone says nothing)."""
    if len(columns) < 2:
        return None
    return centre_chart(columns, series, chart_id=f"centres-{game.name}",
                        title=f"Supply centres in game {game.name}, year by year")
