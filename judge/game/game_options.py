"""The options a game takes, as users read them: each CREATE ``name=value`` (which the master may
also send as ``SET NAME value``) with its values, its default, what it means and an example.

The values and defaults come from where :func:`~judge.game.lifecycle.apply_option` reads them;
the meanings are written here. HELP lists them, and the guides in docs/ are generated from
them (``python -m judge.docs_gen``); tests/test_docs_generated.py checks that every option
``apply_option`` takes is here and that every example is accepted.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge.game import deadlines
from judge.game.config import JudgeConfig
from judge.game.lifecycle import PRESS_MODES, SWITCH_ALIASES, SWITCHES
from judge.game.replacements import ABANDON_DEFAULT, NMR_MODES
from judge.render.zine import MAP_MODES
from judge.rules import RULE_SWITCHES


@dataclass(frozen=True)
class GameOption:
    name: str  # as CREATE takes it: name=value
    values: str  # what it takes
    default: str
    meaning: str  # one line
    example: str  # a CREATE option as a master writes it
    anytime: bool = False  # the master may SET it after the start too
    aliases: tuple[str, ...] = ()
    config_key: str = ""  # the default is this judge's setting ([judge.options]) of that name

    def default_on(self, cfg: JudgeConfig | None = None) -> str:
        """The default on the judge ``cfg`` (None: a judge as installed, its settings untouched)."""
        if not self.config_key:
            return self.default
        return f"{_format_hours(float(getattr(cfg or JudgeConfig(), self.config_key)))} (the judge's setting)"

    def help(self, cfg: JudgeConfig | None = None) -> str:
        """The meaning, the default and when it may be set, as HELP and the guides say it."""
        return f"{self.meaning}; default {self.default_on(cfg)}" + ("" if self.anytime else "; before the start")


def _format_hours(hours: float) -> str:
    """48h, 90m: as a master writes a phase length (not 2d: the judge's own settings are hours)."""
    return f"{int(hours)}h" if hours == int(hours) else deadlines.format_hours(hours)


def _switch(name: str, meaning: str, example: str) -> GameOption:
    aliases = tuple(sorted(a for a, n in SWITCH_ALIASES.items() if n == name))
    default = SWITCHES[name][0] + (" (1885 II: any)" if name == "concessions" else "")
    return GameOption(name, "|".join(SWITCHES[name]), default, meaning, example,
                      anytime=name == "predict", aliases=aliases)


RULE_MEANINGS = {
    "convoy_paradox": ("how a convoy paradox is broken (DATC 4.A.2)", "convoy_paradox=1971"),
    "adjacent_convoy": ("an army moving to an adjacent space goes by convoy only when the order says so (DATC 4.A.3)",
                        "adjacent_convoy=explicit"),
    "civil_disorder": ("which units a power in civil disorder removes (DATC 4.D.8)", "civil_disorder=least_effect"),
    "build_sites": ("where builds may go: home centres, or any vacant owned centre", "build_sites=any_owned"),
    "modules": ("extra rule modules, e.g. army_fleet", "modules=army_fleet"),
    "af_rules": ("Army/Fleet module: Davis's or Agar's text where they differ", "af_rules=agar"),
    "af_boarding_attack": ("Army/Fleet: which attacks on a fleet's space stop an army boarding it",
                           "af_boarding_attack=sea_space"),
    "default_retreat": ("a dislodged unit without a retreat order: disbanded, or moved by the Right-Hand Rule",
                        "default_retreat=right_hand"),
    "retreat_disband": ("whether a dislodged unit may be ordered to disband", "retreat_disband=forbidden"),
    "calendar": ("which of the variant's calendars is played (1885 II: build_months, eight moves a year)",
                 "calendar=build_months"),
}


def _rule(name: str) -> GameOption:
    default, allowed = RULE_SWITCHES[name]
    meaning, example = RULE_MEANINGS[name]
    shown = "|".join(allowed) if allowed else "a list of names" if name == "modules" else "a name"
    return GameOption(name, shown, f"the variant's, else {default}" if default not in ((), "")
                      else "the variant's own", meaning, example)


#: every option, in the order the guides and HELP list them
GAME_OPTIONS: tuple[GameOption, ...] = (
    GameOption("move", "a duration: 48h, 3d, 90m", "", "how long a movement phase lasts",
               "move=72h", anytime=True, aliases=("moves", "movement"), config_key="movement_hours"),
    GameOption("retreat", "a duration", "", "how long a retreat phase lasts", "retreat=12h",
               anytime=True, aliases=("retreats",), config_key="retreat_hours"),
    GameOption("adjust", "a duration", "", "how long a build/removal phase lasts",
               "adjust=12h", anytime=True, aliases=("adjustment", "build", "builds"), config_key="adjustment_hours"),
    GameOption("grace", "a duration (0: none)", "",
               "after a deadline, how long late powers may still order before they are in civil disorder",
               "grace=12h", anytime=True, config_key="grace_hours"),
    GameOption("nmr", "|".join(NMR_MODES), NMR_MODES[0],
               "a power without orders at the end of grace: civil disorder, or open for takeover while the game waits",
               "nmr=wait", anytime=True),
    GameOption("abandon", "a number of phases, 1-99", str(ABANDON_DEFAULT),
               "a power whose player sends no orders this many phases in a row is opened for takeover",
               "abandon=3", anytime=True),
    GameOption("map", "|".join(MAP_MODES), MAP_MODES[0],
               "the map in results mails: a small PNG, SVG, both, a link to the archive (link: the judge needs "
               "an archive_url), or none", "map=svg", anytime=True),
    GameOption("press", "|".join(PRESS_MODES), PRESS_MODES[0],
               "press between powers: signed (white), unsigned allowed (grey), either (any), or none",
               "press=grey"),
    GameOption("centres", "a number of supply centres", "the variant's (18 in standard)",
               "how many supply centres win the game", "centres=16", aliases=("centers", "centre", "center")),
    _switch("fake", "fake press: a letter may claim to come from another power", "fake=yes"),
    _switch("observer_press", "what observers may send to the players (to the master: always)",
            "observer_press=white"),
    _switch("minor_press", "press in retreat and adjustment phases", "minor_press=no"),
    _switch("dias", "draws include all survivors (no: a draw names its powers)", "dias=no"),
    _switch("draw_votes", "whether everyone sees the draw and concession votes (the master always does)",
            "draw_votes=public"),
    _switch("concessions", "whom the game may be conceded to: the largest power, any power, or nobody",
            "concessions=none"),
    _switch("anonymous", "players and observers see no player's name or address until the game ends",
            "anonymous=yes"),
    _switch("addresses", "whether everyone may see the players' addresses", "addresses=public"),
    _switch("predict", "whether a player may PREDICT the results of their own orders", "predict=yes"),
    *(_rule(name) for name in RULE_SWITCHES),
)
