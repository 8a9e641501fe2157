"""The results mail of a processed phase: the zine report of :mod:`judge.render.zine` with the game's facts.

:func:`results_mail` gathers what the report says beyond the board (players, orders the master
gave for a power, the next deadline in the game's time zone, the public press of the phase),
renders it through :func:`judge.render.templates.results_mail`, and keeps the report (text, HTML
and map pictures) in the ``reports`` table for HISTORY and ``judge publish``.

Only public matter goes in: results exist after processing, and press only when it was
broadcast (private press went to its recipients alone and stays with them).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from judge.engine import PhaseResult
from judge.engine.position import Position
from judge.render.njudge_layout import render_njudge
from judge.render.zine import GameInfo, render_results
from judge.game.archive_paths import map_url
from judge.game.deadlines import format_time
from judge.game.orderbook import current_orders
from judge.render.templates import MailText, render_part, results_mail as render_results_mail
from judge.game.seats import master_address, public_label, seat_addresses, seat_of_power, seats
from judge.game.store import Store, iso, loads

if TYPE_CHECKING:
    from judge.game.lifecycle import Ctx, Game, PhaseRow

GREY_SENDER = "Anonymous"
#: the layouts a results mail comes in (``SET RESULTS``): the zine report (the default), or
#: njudge's own text layout, which the tools written for njudge results read
LAYOUTS = ("zine", "njudge")


class ResultsText(MailText):
    """A results mail (the zine report), with the other layouts its recipients chose:
    ``layouts`` (layout -> mail text) and ``chosen`` (address -> layout; ``""``: the game's)."""

    layouts: dict[str, MailText]
    chosen: dict[str, str]


def for_recipient(text: str, to: list[str]) -> str:
    """The copy of ``text`` for the person at ``to``: the layout they chose, else the game's."""
    if not isinstance(text, ResultsText):
        return text
    layout = next((text.chosen[a] for a in to if a in text.chosen), text.chosen.get("", "zine"))
    return text.layouts.get(layout, text)


def layout_choices(store: Store, game: "Game") -> dict[str, str]:
    """Address -> results layout, for the players and observers who chose one (``SET RESULTS``);
    ``""``: the game's layout (the master's choice), which everyone else gets. A choice is the
    person's, not the seat's: whoever takes over a power gets the game's layout until they choose."""
    chosen = {"": str(game.options.get("results") or "zine")}
    by_player = game.options.get("results_players") or {}
    for s in seats(store, game.id, None):
        layout = by_player.get(str(s["player_id"]))
        if layout:
            for a in seat_addresses(store, s):
                chosen[a] = layout
    return chosen


def set_layout(game: "Game", value: str, player_id: int | None) -> str:
    """``SET RESULTS NJUDGE|ZINE``: the game's layout (``player_id`` None: the master's setting),
    or one player's or observer's own (also ``DEFAULT``: the game's again); returns the reply."""
    v = value.strip().lower()
    if player_id is not None and v in ("default", "game"):
        (game.options.get("results_players") or {}).pop(str(player_id), None)
        return f"Your results now come in the game's layout ({game.options.get('results') or 'zine'})."
    if v not in LAYOUTS:
        extra = ", or DEFAULT (the game's layout)" if player_id is not None else ""
        raise ValueError(f"SET RESULTS takes NJUDGE (njudge's text layout) or ZINE (the report with its map)"
                         f"{extra}, not {value.strip()!r}")
    what = ("njudge's text layout ('Movement results for ...'), which programs written for njudge "
            "read" if v == "njudge" else "the zine report")
    if player_id is None:
        game.options["results"] = v
        return f"Results of '{game.name}' now come in {what}, except to those who chose otherwise."
    game.options.setdefault("results_players", {})[str(player_id)] = v
    return f"Your results of '{game.name}' now come in {what}."


def master_orders(store: Store, game: "Game", ph: "PhaseRow") -> list[tuple[str, str]]:
    """Orders standing for a power that came from the master (BECOME), as ``(power, order)``."""
    from judge.game.orderbook import from_dict, order_key

    master = master_address(store, game)
    if not master:
        return []
    out: list[tuple[str, str]] = []
    for power in game.variant.powers:
        seat = seat_of_power(store, game.id, power)
        own = set(seat_addresses(store, seat)) if seat is not None else set()
        slots: dict[str, tuple[Any, str, bool]] = {}
        rows = store.all("SELECT o.orders, i.sender FROM orders o LEFT JOIN inbox i ON i.message_id = o.message_id "
                         "WHERE o.phase_id = ? AND o.power = ? AND o.state = 'active' ORDER BY o.id", (ph.id, power))
        for row in rows:
            by_master = row["sender"] == master and master not in own
            for d in loads(row["orders"], []):
                o = from_dict(d)
                slots[order_key(o, slots)] = (o, str(d.get("text") or ""), by_master)  # type: ignore[arg-type]
        out += [(power, text) for _, text, by_master in slots.values() if by_master and text]
    return out


def public_press(store: Store, game: "Game", ph: "PhaseRow") -> list[tuple[str, str, str]]:
    """The phase's broadcasts, as ``(from, to, text)``; grey press without its sender."""
    rows = store.all("SELECT sender, shown_from, grey, body FROM press WHERE game_id = ? AND phase_name = ? "
                     "AND broadcast = 1 ORDER BY id", (game.id, ph.name))
    # faked press shows the sender its readers were shown (the master's copy said who sent it)
    return [(GREY_SENDER if r["grey"] else r["shown_from"] or r["sender"], "everyone", r["body"]) for r in rows]


def game_info(ctx: "Ctx", game: "Game", ph: "PhaseRow", new: "PhaseRow | None") -> GameInfo:
    st = ctx.store
    players = {s["power"]: public_label(st, game, s) for s in seats(st, game.id) if s["power"]}
    return GameInfo(name=game.name, judge=ctx.cfg.code, players=players, gm_actions=master_orders(st, game, ph),
                    deadline=new.deadline if new is not None else None,
                    timezone=str(game.options.get("timezone") or ctx.cfg.timezone),
                    press=public_press(st, game, ph))  # type: ignore[arg-type]


def results_mail(ctx: "Ctx", game: "Game", ph: "PhaseRow", before: Position, result: PhaseResult, *,
                 victory: dict[str, Any] | None, events: list[str], cd: list[str], new: "PhaseRow | None"
                 ) -> tuple[str, MailText]:
    """The results mail of ``ph`` (and its report kept for HISTORY and the archive).

    ``victory`` is the game's end as the service decided it (None: the game goes on, into
    ``new``); ``events`` the adjudicator's notes with the service's own; ``cd`` the powers put
    into civil disorder at the end of grace."""
    notes = list(events)
    if cd:
        # a power that ordered some of its units is late too, but it did send orders: say which is which
        partial = [p for p in cd if current_orders(ctx.store, ph.id, p)]
        none = [p for p in cd if p not in partial]
        said = " and ".join(x for x in (
            f"Orders were not received from {', '.join(none)}" if none else "",
            f"{'orders from ' if none else 'Orders from '}{', '.join(partial)} were incomplete" if partial else "")
            if x)
        notes.append(f"{said} by the end of grace: {'they are' if len(cd) > 1 else 'it is'} now in civil "
                     f"disorder (units hold, dislodged units disband, builds are waived, removals follow the "
                     f"civil-disorder rule) until a player signs on again.")
    shown = replace(result, victory=victory, events=notes)
    mode = str(game.options.get("map") or "png")
    url = map_url(ctx.cfg.archive_url, game.name, ph.seq, ph.short) if ctx.cfg.archive_url else None
    report = render_results(game.variant, before, shown, game_info(ctx, game, ph, new), map_mode=mode, map_url=url)
    v = game.variant
    winners = list((victory or {}).get("winner") or [])
    subject, text = render_results_mail(
        report, code=ctx.cfg.code, game=game.name, variant=v.title, short=ph.short,
        deadline=f"{new.short} {ctx.when(new.deadline)}" if new is not None else None,
        victory="".join(v.powers[w].letter for w in winners if w in v.powers) if victory else None)
    # njudge's layout is kept with every report (HISTORY gives it to whoever chose it), and mailed
    # to those who chose it
    tz = str(game.options.get("timezone") or ctx.cfg.timezone)
    in_cd = {*cd, *(s["power"] for s in seats(ctx.store, game.id) if s["status"] == "cd" and s["power"])}
    body = render_njudge(v, before, shown, game=game.name, seq=ph.seq, cd=in_cd,
                         deadline=format_time(new.deadline, tz) if new is not None and new.deadline else None)
    keep(ctx.store, game, ph, subject, report, ctx.now, njudge=body)
    out = ResultsText(text, text.html, text.attachments)
    out.chosen, out.layouts = layout_choices(ctx.store, game), {"zine": text}
    if "njudge" in out.chosen.values():
        plain = render_part("results_njudge.txt", page_title=subject, code=ctx.cfg.code, game=game.name,
                            variant=v.title, body=body,
                            deadline=f"{new.short} {ctx.when(new.deadline)}" if new is not None else None,
                            pictures=any(a.cid == "map" for a in report.attachments),
                            map_url=url if mode == "link" else None)
        out.layouts["njudge"] = MailText(plain, plain.html, report.attachments)
    return subject, out


def keep(store: Store, game: "Game", ph: "PhaseRow", subject: str, report: Any, now: Any,
         njudge: str | None = None) -> None:
    """Store the report of ``ph`` (again, after a rollback), with its text in njudge's layout."""
    files = {a.filename: a.data for a in (report.pictures or report.attachments)}
    store.update("phases", ph.id, report=report.text)
    store.conn.execute("DELETE FROM reports WHERE phase_id = ?", (ph.id,))
    store.insert("reports", phase_id=ph.id, game_id=game.id, subject=subject, text=report.text, html=report.html,
                 png=files.get("map.png"), svg=(files["map.svg"].decode("utf-8") if "map.svg" in files else None),
                 created=iso(now), njudge=njudge)
