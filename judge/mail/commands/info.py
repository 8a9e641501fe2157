"""Commands anyone may send to learn about the judge and its games."""

from __future__ import annotations

import re
from typing import Any, TYPE_CHECKING

from judge.game.cold_store import archived_since
from judge.game import deadlines, lifecycle as games, orderbook
from judge.game.archive_paths import map_url
from judge.game.game_options import GAME_OPTIONS
from judge.game.lifecycle import Game
from judge.game.results import layout_choices
from judge.game.seats import anonymous, player_label, shown_master, shown_person
from judge.game.settings_words import victory_words
from judge.game.standings import centre_years, departures
from judge.mail import eia as eia_mail
from judge.mail.commands import CommandError, command, help_lines, two_columns
from judge.mail.language import Command
from judge.render import describe, lateness
from judge.render.templates import NBSP, WIDTH, render_part
from judge.render.zine import Attachment
from judge.variant import available_variants

if TYPE_CHECKING:
    from judge.mail.handler import Handler


def victory_text(g: Any) -> str:
    """How the game is won, for LIST: solo centres, alliances (1885 II), the survivor (Deluge II)."""
    return victory_words(g)


# -- anyone ----------------------------------------------------------------------------------
def reader(h: Handler, g: Game) -> tuple[bool, int | None]:
    """Who asks about ``g``, for what they may see of its people: (signed on as its master, the id of
    their own seat). Without a SIGNON the sender is anyone: a From line proves nothing. A seat is
    the sender's own when they signed on to it from one of its addresses: someone with its password
    writing from elsewhere does not learn the owner's address."""
    if h.session.game is None or h.session.game.id != g.id:
        return False, None
    seat = h.session.seat
    own = (seat is not None and not h.session.became
           and h.mail.sender in {games.address_of(h.ctx.store, seat["player_id"]), *games.seat_addresses(h.ctx.store, seat)})
    return bool(h.session.master), (seat["id"] if own else None)


def describe_game(h: Handler, g: Game) -> str:
    ph = games.current_phase(h.ctx.store, g)
    st = h.ctx.store
    seats = []
    late = set()
    if ph is not None and h.session.master and h.session.game is g:
        late = set(games.late_powers(st, g, ph))
    for s in games.seats(st, g.id):
        status = {"active": "", "cd": "civil disorder", "vacant": "vacant"}.get(s["status"], s["status"])
        if s["power"] in late:
            status = (status + ", " if status else "") + "orders missing"
        seats.append({"power": s["power"] or "(to be assigned)", "status": status})
    observers = len(games.seats(st, g.id, "observer"))
    rules = {k: v for k, v in (g.options.get("rules") or {}).items()}
    # the draw and concession votes: the master's LIST shows them, everyone's where votes are public
    master = h.session.master and h.session.game is not None and h.session.game.id == g.id
    master_view = master and g.state != "forming"
    if master_view:  # the master's view: who, orders, WAIT, late count, centres
        seats = master_seats(h, g, ph)
    votes = games.vote_lines(st, g) if g.state == "active" and (
        master or games.switch(g, "draw_votes") == "public") else []
    switches = {k: games.switch(g, k) for k in games.SWITCHES}
    return render_part("list_game.txt", name=g.name, variant=g.variant.title, state=g.state,
                       phase=ph.name if ph else None, short=ph.short if ph else None,
                       deadline=h.ctx.when(ph.deadline) if ph else None,
                       grace_end=h.ctx.when(ph.grace_end) if ph else None,
                       seats=seats, observers=observers, press=g.press, victory=victory_text(g),
                       movement=deadlines.format_hours(g.hours("movement")),
                       retreat=deadlines.format_hours(g.hours("retreat")),
                       adjustment=deadlines.format_hours(g.hours("adjustment")),
                       grace=deadlines.format_hours(g.grace_hours), rules=rules, outcome=g.outcome,
                       npowers=len(g.variant.powers), votes=votes, switches=switches,
                       list_address=games.list_address(st, g), master_view=master_view)


def late_counts(st: Any, g: Game) -> dict[str, int]:
    """How many processed phases each power was late in: it had orders to give and they were
    incomplete when the phase was processed, or its last orders came after the deadline. Counted
    for the power, whoever played it."""
    out = dict.fromkeys(g.variant.powers, 0)
    for row in games.processed_phases(st, g):
        pos = games._phase(row, g.variant).position
        for power in out:
            if orderbook.needed(pos, power, g.rules) <= 0:
                continue
            last = st.scalar("SELECT MAX(created) FROM orders WHERE phase_id = ? AND power = ?", (row["id"], power))
            if (orderbook.missing(pos, power, orderbook.current_orders(st, row["id"], power), g.rules) > 0
                    or (last and row["deadline"] and last > row["deadline"])):
                out[power] += 1
    return out


def master_seats(h: Handler, g: Game, ph: Any) -> list[dict[str, Any]]:
    """LIST's table for the master: each power's player (name and address), its orders (none,
    partial, complete or not needed), WAIT, how many phases it was late, its centres."""
    st = h.ctx.store
    pos = ph.position if ph is not None else None
    # a game over has no open phase: its last centres are in its outcome (none after TERMINATE)
    centres = describe.centre_counts(pos) if pos is not None else dict((g.outcome or {}).get("centres") or {})
    late = late_counts(st, g)
    out = []
    for s in games.seats(st, g.id):
        p = s["power"]
        state = "-"
        if pos is not None and p and g.state in ("active", "paused"):  # a game over takes no orders
            need = orderbook.needed(pos, p, g.rules)
            miss = orderbook.missing(pos, p, orderbook.current_orders(st, ph.id, p), g.rules) if need > 0 else 0
            state = "not needed" if need <= 0 else "none" if miss >= need else "partial" if miss else "complete"
            if miss and pos.phase.kind == "adjustment":  # the builds or removals still due, by number
                state = lateness.adjustments_still_due(pos, p, miss)
        status = {"active": "", "cd": "civil disorder", "vacant": "vacant"}.get(s["status"], s["status"])
        out.append({"power": p, "status": status,
                    "player": shown_person(st, g, s, master=True) or "(vacant)", "orders": state,
                    "wait": bool(s["wait"]), "late": late.get(p, 0), "centres": centres.get(p, 0 if centres else "-")})
    return out


@command("HELP", who="anyone", syntax="HELP",
         summary="the commands and game options, with what each does (this list)", example="HELP")
def help_(h: Handler, cmd: Command) -> None:
    # the commands come from the registry; templates/help.txt holds what is said around them
    h.say(render_part("help.txt", code=h.ctx.cfg.code, address=h.ctx.cfg.address, variants=available_variants(),
                      anyone=help_lines("anyone"), player=help_lines("player"), master=help_lines("master"),
                      options=two_columns([(f"{o.name}={o.values}", o.help(h.ctx.cfg)) for o in GAME_OPTIONS],
                                          column=24)))


@command("VERSION", who="anyone", syntax="VERSION",
         summary="the judge's version", example="VERSION")
def version(h: Handler, cmd: Command) -> None:
    from importlib.metadata import PackageNotFoundError, version
    try:
        v = version("judge")
    except PackageNotFoundError:
        v = "unknown"
    h.say(f"judge {v}")


#: LIST names at most this many running games of each state (the newest), beside those open to
#: join and the sender's own
LIST_RUNNING = 100


@command("LIST", who="anyone", syntax="LIST [game]",
         summary="the games here, or one game in detail", example="LIST first")
def list_(h: Handler, cmd: Command) -> None:
    if not cmd.args and h.session.game is None:
        rows = []
        # a host's thousands of games are no answer to a mail (nor to be read for each LIST): the
        # games open to join, the newest running ones, and the sender's own; games over are left out
        st = h.ctx.store
        me = st.scalar("SELECT id FROM players WHERE address = ?", (h.mail.sender,))
        found = {r["id"]: r for r in st.all("SELECT * FROM games WHERE state = 'forming'")}
        for state in ("active", "paused"):
            found.update((r["id"], r) for r in st.all("SELECT * FROM games WHERE state = ? ORDER BY id DESC LIMIT ?",
                                                      (state, LIST_RUNNING)))
        mine = {r["id"] for r in st.all("SELECT id FROM games WHERE master_id = ? UNION SELECT game_id FROM seats "
                                        "WHERE player_id = ?", (me, me))} if me is not None else set()
        found.update((r["id"], r) for r in st.all(
            f"SELECT * FROM games WHERE id IN ({', '.join('?' for _ in mine)})", tuple(mine)))
        shown_running = 0
        for r in sorted(found.values(), key=lambda r: r["name"]):
            g = games._game(r)
            if g.options.get("private") and g.id not in mine:  # SET PRIVATE: unlisted (LIST name still answers)
                continue
            if archived_since(g.options):
                continue
            shown_running += g.state in ("active", "paused")
            if g.variant_name == "eia_afa":
                rows.append(eia_mail.list_row(h.ctx, g))
                continue
            ph = games.current_phase(h.ctx.store, g)
            filled = sum(1 for s in games.seats(h.ctx.store, g.id) if s["player_id"] is not None)
            rows.append({"name": g.name, "variant": g.variant_name, "state": g.state,
                         "phase": ph.short if ph else "-", "players": filled,
                         "powers": len(g.variant.powers)})
        over = not rows and st.one("SELECT 1 FROM games LIMIT 1") is not None
        h.say(render_part("list.txt", games=rows, over=over))
        more = int(st.scalar("SELECT COUNT(*) FROM games WHERE state IN ('active', 'paused')") or 0) - shown_running
        if more > 0:
            where = f" (all of them: {h.ctx.cfg.archive_url})" if h.ctx.cfg.archive_url else ""
            h.say(f"{more} more running games are not listed here, nor those that are over: LIST name shows "
                  f"any game{where}.")
        return
    h.say(describe_game(h, h.arg_game(cmd)))


@command("WHOGAME", who="anyone", syntax="WHOGAME game",
         summary="who plays which power",
         aliases=("WHO GAME",), example="WHOGAME first")
def whogame(h: Handler, cmd: Command) -> None:
    g = h.arg_game(cmd)
    st = h.ctx.store
    master, own = reader(h, g)
    rows = [{"power": s["power"] or "(to be assigned)", "status": s["status"],
             "address": shown_person(st, g, s, master=master, own=s["id"] == own) or "(vacant)",
             "late": games.late_count(g, s["player_id"]) if master else 0}  # the master's: times late
            for s in games.seats(st, g.id)]
    obs = [shown_person(st, g, s, master=master, own=s["id"] == own) for s in games.seats(st, g.id, "observer")]
    h.say(render_part("whogame.txt", name=g.name, rows=rows, observers=[o for o in obs if o],
                      master=shown_master(st, g, master=master)))


#: a HISTORY of up to this many phases carries their maps (a whole game's would make a mail of
#: megabytes); a longer one says where each map is instead
HISTORY_MAPS = 3
MAP_ATTACHED = re.compile(r"The map of the position is attached \(([^)\n]*)\)\.")


def history_report(h: Handler, g: Game, row: Any, attach: bool, layout: str = "zine") -> str:
    """A phase's stored report for HISTORY, in ``layout`` (njudge's where it is kept, else the
    zine's). Its results mail carried the map; HISTORY attaches it too (as ``<game>-<phase>.png``),
    or says where it is: it never says a map is attached that is not."""
    text = row["report"] or ""
    njudge = (h.ctx.store.scalar("SELECT njudge FROM reports WHERE phase_id = ?", (row["id"],))
              if layout == "njudge" else None)
    found = MAP_ATTACHED.search(text)
    if njudge:  # njudge's layout names no map: the map sentence follows it
        # programs read njudge's results one order a line: a reply's 72-column wrapping must not
        # split one (its words joined as a province name's are; the text part turns them back)
        lines = [line.replace(" ", NBSP) if len(line) > WIDTH else line for line in njudge.rstrip("\n").split("\n")]
        text = "\n".join(lines) + ("\n\n" + found.group(0) if found else "")
        found = MAP_ATTACHED.search(text)
    if not found:
        return text
    pic = h.ctx.store.one("SELECT png, svg FROM reports WHERE phase_id = ?", (row["id"],))
    files = []
    if pic is not None:  # the pictures the results mail carried (the archive keeps both)
        stem = f"{g.name}-{row['short']}"
        carried = found.group(1)
        if "map.png" in carried and pic["png"]:
            files.append(Attachment(f"{stem}.png", "image/png", bytes(pic["png"])))
        if "map.svg" in carried and pic["svg"]:
            files.append(Attachment(f"{stem}.svg", "image/svg+xml", str(pic["svg"]).encode("utf-8")))
    if not files:  # nothing kept to send, nor to publish: no promise of a map elsewhere either
        said = "The map of the position is not kept for this phase, so it is not attached."
    elif attach and h.attach_allowed(len(files)):
        h.attachments += files
        said = f"The map of the position is attached ({', '.join(f.filename for f in files)})."
    elif h.ctx.cfg.archive_url:
        said = f"The map of the position: {map_url(h.ctx.cfg.archive_url, g.name, row['seq'], row['short'])}"
    elif h.reply_chars is not None:  # an address the judge does not know: no maps however asked
        said = "The map of the position is not attached here: maps go only to addresses the judge knows."
    else:
        said = f"The map of the position is not attached here: HISTORY {g.name} {row['short']} sends it."
    return MAP_ATTACHED.sub(lambda _: said, text, count=1)


@command("HISTORY", who="anyone", syntax="HISTORY game [from] [to]",
         summary="past results, e.g. HISTORY mygame S1901M F1902M", example="HISTORY first S1901M F1902M")
def history(h: Handler, cmd: Command) -> None:
    g = h.arg_game(cmd)
    done = games.processed_phases(h.ctx.store, g)
    shorts = [r["short"].lower() for r in done]
    lo, hi = 0, len(done)
    rest = [a.lower() for a in cmd.args[1:] if a.lower() not in ("from", "to")]
    if rest:
        if rest[0] not in shorts:
            raise CommandError(f"no processed phase {rest[0].upper()} in '{g.name}' (processed: "
                               f"{', '.join(r['short'] for r in done) or 'none'})")
        lo = shorts.index(rest[0])
    if len(rest) > 1:
        if rest[1] not in shorts:
            raise CommandError(f"no processed phase {rest[1].upper()} in '{g.name}'")
        hi = len(shorts) - shorts[::-1].index(rest[1])
    part = done[lo:hi]
    attach = len(part) <= HISTORY_MAPS
    chosen = layout_choices(h.ctx.store, g)  # the asker's SET RESULTS, else the game's layout
    layout = chosen.get(h.mail.sender, chosen[""])
    h.say(render_part("history.txt", name=g.name, reports=[history_report(h, g, r, attach, layout) for r in part]))
    # DIARY notes: the writer's own come back with HISTORY; when the game is over, everyone's
    over = g.state in ("finished", "terminated")
    signed_here = h.session.game is not None and h.session.game.id == g.id
    own = h.session.power if signed_here and not h.session.became else None
    if over or own:
        entries = games.diary_entries(h.ctx.store, g, None if over else own)
        if entries:
            h.say(("Diaries of '" + g.name + "' (published at the end of the game):" if over else
                   f"{own}'s diary (private until the game ends):") + "\n\n" + games.diary_text(entries))


def replaced_line(st: Any, b: dict[str, Any]) -> str:
    """A player who left a power, by public name, with the phases they played it: ``Smith, S1901M
    to F1902M (resigned)``."""
    name = player_label(st, {"player_id": b.get("player_id"), "status": "gone"}) or "(unknown)"
    return f"{name}, {b.get('from') or '?'} to {b.get('to') or '?'} ({b.get('why') or 'left'})"


@command("SUMMARY", who="anyone", syntax="SUMMARY game",
         summary="players and supply-centre history", example="SUMMARY first")
def summary(h: Handler, cmd: Command) -> None:
    g = h.arg_game(cmd)
    st = h.ctx.store
    v = g.variant
    rows = st.all("SELECT * FROM phases WHERE game_id = ? AND state IN ('open', 'processed') ORDER BY seq", (g.id,))
    years = centre_years([games._phase(r, v).position for r in rows], g.outcome)
    master, own = reader(h, g)
    hidden = anonymous(g) and not master and g.state not in ("finished", "terminated")
    players = []
    for s in games.seats(st, g.id):
        gone = departures(g.options, s["power"])
        players.append({"power": s["power"] or "?", "status": s["status"],
                        "address": shown_person(st, g, s, master=master, own=s["id"] == own) or "(vacant)",
                        # who held a power before is hidden in a running anonymous game, as its player is
                        "before": [] if hidden else [replaced_line(st, b) for b in gone],
                        "since": games.phase_at(st, g, s["joined"]) if gone and s["player_id"] is not None
                        and s["status"] != "vacant" and not hidden else None})
    ph = games.current_phase(st, g)
    h.say(render_part("summary.txt", name=g.name, variant=v.title, state=g.state, outcome=g.outcome,
                         through=ph.short if ph else (rows[-1]["short"] if rows else "-"),
                         master=shown_master(st, g, master=master), players=players, powers=list(v.powers),
                         letters={p.name: p.letter for p in v.powers.values()}, years=years))
