"""Named rule switches: their defaults and the values each may take.

A variant sets its own values in ``[rules]`` of its seed file; a game may override them
(``SET`` before the start, or ``--option`` on the command line).
"""

from __future__ import annotations

from typing import Any

#: switch -> (default, allowed values or None for free-form)
RULE_SWITCHES: dict[str, tuple[Any, tuple[Any, ...] | None]] = {
    # DATC 4.A.2: how a convoy paradox is broken.
    "convoy_paradox": ("szykman", ("szykman", "1971", "convoyed_attack_yields")),
    # DATC 4.A.3 (v3.0 preference): an adjacent move goes by convoy only when the order says
    # "via convoy" or a fleet of the army's own power is ordered to convoy it.
    "adjacent_convoy": ("explicit", ("explicit",)),
    # DATC 4.D.8: which units go when a power in civil disorder must remove units.
    "civil_disorder": ("distance_2023", ("distance_2023", "least_effect")),
    # Where builds may be placed: own home centres, or any vacant owned centre (Deluge II).
    "build_sites": ("home", ("home", "any_owned")),
    # Extra rule modules (order kinds and their semantics).
    "modules": ((), None),
    # Army/Fleet module: which text rules where the two differ.
    "af_rules": ("davis1984", ("davis1984", "agar")),
    # Army/Fleet boarding (Davis III c): which attacks on the fleet's space stop an army boarding:
    # any other power's fleet ("defend its sea space against another Fleet"), or only one coming
    # from another sea space (Deluge II 3 g, "attacked from another sea space").
    "af_boarding_attack": ("any_fleet", ("any_fleet", "sea_space")),
    # A dislodged unit with no retreat order: disbanded, or retreated by Just's Right-Hand Rule.
    "default_retreat": ("disband", ("disband", "right_hand")),
    # May a dislodged unit be ordered to disband? 1885 II rule 10b: "A player may not write an
    # 'Off the Board' or 'Disbanded' retreat order."
    "retreat_disband": ("allowed", ("allowed", "forbidden")),
    # Which of the variant's calendars a game plays (``[calendar]``, ``[calendars.<name>]`` in its
    # seed): "" or "default" is the variant's own; 1885 II also has "build_months" (rule 4 read as
    # eight moves a year). The variant checks the name (judge.variant.Variant.calendar_named).
    "calendar": ("", None),
}


class RuleError(ValueError):
    """An unknown rule switch or a value it does not take."""


def check_rule(name: str, value: Any) -> Any:
    """Return ``value`` normalised for switch ``name``, or raise :class:`RuleError`."""
    if name not in RULE_SWITCHES:
        known = ", ".join(sorted(RULE_SWITCHES))
        raise RuleError(f"unknown rule {name!r} (known rules: {known})")
    default, allowed = RULE_SWITCHES[name]
    if name == "modules":
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split() if v]
        if not isinstance(value, (list, tuple)):
            raise RuleError("rule 'modules' takes a list of module names")
        return tuple(str(v).lower() for v in value)
    value = str(value).lower()
    if allowed is not None and value not in allowed:
        raise RuleError(f"rule {name!r} takes one of {', '.join(allowed)}, not {value!r}")
    return value


#: merged rules by their layers' contents: a mail's handling asks for a game's rules a score of
#: times, always with the same few layers (a fresh copy is handed out each time)
_MERGED: dict[tuple[Any, ...], dict[str, Any]] = {}
_MERGED_MAX = 4096


def _layers_key(layers: tuple[dict[str, Any] | None, ...]) -> tuple[Any, ...] | None:
    try:
        key = tuple(tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in (layer or {}).items())
                    for layer in layers)
        hash(key)
    except TypeError:  # a value that cannot be a key (a nested dict): merged afresh
        return None
    return key


def merge_rules(*layers: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults, then each layer in turn (variant, then game options)."""
    key = _layers_key(layers)
    known = _MERGED.get(key) if key is not None else None
    if known is not None:
        return dict(known)
    rules = {name: default for name, (default, _) in RULE_SWITCHES.items()}
    for layer in layers:
        for name, value in (layer or {}).items():
            rules[name] = check_rule(name, value)
    if key is not None:
        if len(_MERGED) >= _MERGED_MAX:
            _MERGED.clear()
        _MERGED[key] = dict(rules)
    return rules
