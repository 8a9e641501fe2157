"""A game's settings in words, for the Game Starting mail a player keeps: deadlines, grace, what
becomes of a late power, press, draws, concessions, victory, results, and what else differs from
the defaults. Reads the game's options only (no store, no mail)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from judge.game import replacements
from judge.render import lateness

if TYPE_CHECKING:
    from judge.game.lifecycle import Game

_DAY_NAMES = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_KINDS = (("movement", "movement phases last"), ("retreat", "retreats"), ("adjustment", "adjustments"))
#: the press kinds (the topic is "Messages", not "Press": a pasted copy's "Press: ..." would read as PRESS)
PRESS_WORDS = {
    "white": "white press: every letter names its writer",
    "grey": "grey press: letters do not name their writer",
    "any": "white or grey press, as the writer chooses (PRESS ... GREY hides the writer)",
    "none": "no press: no letters between players (letters to the master only)",
}
OBSERVER_WORDS = {"none": "observers may write to the master only", "white": "observers may send white press",
                  "any": "observers may send white or grey press"}
CONCESSION_WORDS = {"largest": "all the others may concede the game to the largest power",
                    "any": "all the others may concede the game to any power (or alliance)",
                    "none": "no concessions"}

#: how the results carry the map (SET MAP), as the settings say it
MAP_WORDS = {"png": "with the map as a picture", "svg": "with the map as an SVG picture",
             "both": "with the map (a PNG picture, and the SVG attached)", "link": "with a link to the map",
             "off": "without a map"}


def span(hours: float) -> str:
    """``36`` → "36 hours", ``48`` → "2 days", ``0.5`` → "30 minutes"."""
    if hours >= 24 and hours % 24 == 0:
        n = int(hours // 24)
        return f"{n} day{'s' if n != 1 else ''}"
    if hours == int(hours):
        return f"{int(hours)} hour{'s' if hours != 1 else ''}"
    return f"{round(hours * 60)} minutes"


def _days(mask: str) -> str:
    """SET DAYS' mask (Sunday first; lower case: afternoons only) in words."""
    out = []
    for ch, name in zip(mask, _DAY_NAMES):
        if ch != "-":
            out.append(name + (" (afternoon)" if ch.islower() else ""))
    return ", ".join(out)


def victory_words(game: "Game") -> str:
    """How the game is won: solo centres, alliances (1885 II), the survivor (Deluge II)."""
    v = game.variant.victory
    parts = []
    n = int(game.options.get("centres") or v.get("centres") or 0)
    if n:
        parts.append(f"{n} supply centres")
    parts += [f"{a['centres']} jointly for {a['powers']} allied powers" for a in v.get("alliances", ())]
    if v.get("survivor_after"):
        parts.append(f"the survivor after {v['survivor_after']}")
    return "; ".join(parts) or "by agreement"


def settings_lines(game: "Game", zone: str, switches: dict[str, str]) -> list[tuple[str, str]]:
    """(topic, sentence) pairs: the game's settings as a player needs them. ``zone``: the time
    zone its deadlines are given in; ``switches``: every switch's value (defaults filled in)."""
    o: dict[str, Any] = game.options
    clock, days = o.get("clock") or {}, o.get("days") or {}
    lengths = []
    for kind, words in _KINDS:
        text = f"{words} {span(game.hours(kind))}"
        if clock.get(kind) is not None:
            h, m = divmod(int(clock[kind]), 60)
            text += f" (then on to the next {h:02d}:{m:02d})"
        if days.get(kind):
            text += f" (deadlines on {_days(days[kind])} only)"
        lengths.append(text)
    text = f"{'; '.join(lengths)}. Deadlines are given in {zone} time."
    out = [("Deadlines", text[0].upper() + text[1:])]
    grace = game.grace_hours
    out.append(("Grace", lateness.grace_rule(span(grace)) if grace > 0 else
                "none: the phase is processed at its deadline."))
    when = " when grace ends" if grace > 0 else " at the deadline"
    out.append(("A late power", f"{lateness.after_grace(replacements.nmr_mode(game), None, when=when)} "
                f"{lateness.missed_phases(replacements.abandon_after(game))}"))
    press = PRESS_WORDS.get(game.press, game.press)
    extras = []
    if switches["fake"] == "yes":
        extras.append("fake press allowed (a letter may claim another writer or recipients)")
    if switches["minor_press"] == "no":
        extras.append("none in retreat and adjustment phases")
    extras.append(OBSERVER_WORDS.get(switches["observer_press"], switches["observer_press"]))
    out.append(("Messages", f"{press}; " + "; ".join(extras) + "."))
    dias = ("a draw includes every surviving power (DIAS)" if switches["dias"] == "yes" else
            "a draw is shared by the powers the votes name (NoDIAS)")
    out.append(("Draws", f"{dias}; votes are {switches['draw_votes']}"
                f"{' (everyone sees them)' if switches['draw_votes'] == 'public' else ' (only the master sees them)'}."))
    out.append(("Concessions", CONCESSION_WORDS.get(switches["concessions"], switches["concessions"]) + "."))
    out.append(("Victory", victory_words(game) + "."))
    layout = str(o.get("results") or "zine")
    results = ("njudge's text layout ('Movement results for ...')" if layout == "njudge" else
               "a report " + MAP_WORDS.get(str(o.get("map") or "png"), "with the map"))
    out.append(("Results", f"{results}; SET RESULTS NJUDGE or ZINE chooses your own."))
    if switches["anonymous"] == "yes":
        out.append(("Anonymous", "no player's name or address is shown to players and observers until the end."))
    elif switches["addresses"] == "public":
        out.append(("Addresses", "public: everyone may see the players' addresses."))
    if switches["predict"] == "yes":
        out.append(("Predictions", "PREDICT shows what your orders would do."))
    rules = o.get("rules") or {}
    if rules:
        out.append(("Rules", ", ".join(f"{k}={v}" for k, v in sorted(rules.items())) + "."))
    return out
