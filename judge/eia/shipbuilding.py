"""I. Ship building and II. foreign naval sales: the yard table, completion dates, announcements.

Rulings (docs/variants/eia.md §I-II): MAXIMUM NUMBER caps the ships on a yard's stocks at once
(new and repair, own and contract); ships ordered in month M with time T are in port for month
M+T; "constructed" in note 3 means completed; a contract's yard is paid by its builder and the
buyer pays the agreed price on signing.
"""

from __future__ import annotations

from judge.eia import calendar
from judge.eia.context import Malformed, MASTER, STAGE_YARDS, Command, Ctx, Rejected, command, number, split_at
from judge.eia.data import Yard
from judge.eia.state import Work
from judge.eia.stores import count_at_yard, shipment, surcharged, yard_for

NEW, REPAIR = 0, 1


def terms(ctx: Ctx, yard: Yard, kind: int) -> tuple[int, int]:
    """(money per ship before any stores surcharge, months) for new construction or repair."""
    nation = ctx.tables.nations[yard.nation]
    cost, time = nation.cost[kind], nation.time[kind]
    note = ctx.tables.notes.get(yard.note) if yard.note else None
    if note and note.after_ships is not None and ctx.state.prussian_built >= note.after_ships:
        cost = note.cost[kind] if note.cost else cost
        time = note.time[kind] if note.time else time
    if note:
        time += note.add_time[kind]
    return cost, time


def on_stocks(ctx: Ctx, yard: Yard) -> int:
    return sum(w.ships for led in ctx.state.nations.values() for w in led.works if w.yard == yard.name)


def new_on_stocks(ctx: Ctx, yard: Yard) -> int:
    return sum(w.ships for led in ctx.state.nations.values() for w in led.works
               if w.yard == yard.name and w.kind == "new")


def _room(ctx: Ctx, yard: Yard, n: int) -> None:
    busy = on_stocks(ctx, yard)
    if busy + n > yard.max:
        raise Rejected(f"{yard.name} takes at most {yard.max} ships at once (MAXIMUM NUMBER); "
                       f"{busy} are on its stocks")


def _lay_down(ctx: Ctx, builder: str, owner: str, yard: Yard, n: int, kind: int) -> Work | None:
    """Pay for and start ``n`` ships; stocked stores pay the money of new ships (III.C).
    None if the stores were intercepted (III.B): that loss stands, nothing is laid down."""
    base, months = terms(ctx, yard, kind)
    each = surcharged(ctx, builder, base)
    led = ctx.ledger(builder)
    from_stock = min(n, led.stores.get(yard.name, 0)) if kind == NEW else 0
    money = each * (n - from_stock)
    manpower = n * ctx.tables["shipbuilding"]["manpower_per_ship"]
    label = ("new ships" if kind == NEW else "repairs") + f" ({n}) at {yard.name}"
    ctx.afford(builder, money, manpower, label)
    if not shipment(ctx, builder, yard.nation, money, label, yard.name):
        return None
    ctx.pay(builder, money, manpower, label)
    if from_stock:
        led.stores[yard.name] -= from_stock
        if not led.stores[yard.name]:
            del led.stores[yard.name]
    work = Work(ctx.state.new_id("W"), yard.name, n, "new" if kind == NEW else "repair", ctx.state.month,
                calendar.add(ctx.state.month, months), owner, builder)
    led.works.append(work)
    ready = calendar.title(work.done)
    stock_note = f", {from_stock} from stocked stores" if from_stock else ""
    ctx.say(f"{builder}: {label} for {owner}: {money} money{stock_note}, {manpower} manpower; ready "
            f"in port for {ready}.", sorted({builder, owner}), "yard")
    return work


def _announce_later(ctx: Ctx, yard: Yard) -> None:
    names = ctx.scratch.setdefault("yards_with_new_orders", [])
    if yard.name not in names:
        names.append(yard.name)


@command("BUILD", STAGE_YARDS, "BUILD <n> AT <yard>")
def build(ctx: Ctx, cmd: Command) -> None:
    n, yard = count_at_yard(ctx, cmd, "ships")
    _room(ctx, yard, n)
    if _lay_down(ctx, cmd.nation, cmd.nation, yard, n, NEW):
        _announce_later(ctx, yard)


@command("REPAIR", STAGE_YARDS, "REPAIR <n> AT <yard>")
def repair(ctx: Ctx, cmd: Command) -> None:
    """Repairs of prizes and damaged ships waiting in the yard's port; announced exactly (I.C)."""
    n, yard = count_at_yard(ctx, cmd, "ships")
    led = ctx.ledger(cmd.nation)
    waiting = led.damaged.get(yard.name, 0)
    if waiting < n:
        raise Rejected(f"{waiting} prizes or damaged ships of {cmd.nation} wait at {yard.name}, not {n}")
    _room(ctx, yard, n)
    work = _lay_down(ctx, cmd.nation, cmd.nation, yard, n, REPAIR)
    if not work:
        return
    led.damaged[yard.name] = waiting - n
    if not led.damaged[yard.name]:
        del led.damaged[yard.name]
    ctx.say(f"{cmd.nation} repairs {n} ship{'s' if n > 1 else ''} at {yard.name} "
            f"(back in service {calendar.title(work.done)}).", "all", "announcement")


@command("CONTRACT", STAGE_YARDS, "CONTRACT <n> AT <yard> FOR <buyer> PRICE <money>  (the builder) / "
         "CONTRACT <n> AT <yard> FROM <builder> PRICE <money>  (the buyer)")
def contract(ctx: Ctx, cmd: Command) -> None:
    """II: both sides send matching lines in the same month; the deal stays secret between them,
    but its ships count in the yard's announced number."""
    parts = split_at(cmd.words, "AT", "FOR", "FROM", "PRICE")
    n = number((parts[""] or [""])[0], "CONTRACT: how many ships", 1)
    yard = ctx.tables.yard(" ".join(parts.get("AT", [])))
    if not yard:
        raise Malformed("CONTRACT: name the yard (AT <yard>)")
    price = number((parts.get("PRICE") or ["0"])[0], "CONTRACT: the price")
    if "FOR" in parts:
        builder, buyer = cmd.nation, ctx.nation_name(" ".join(parts["FOR"]))
    elif "FROM" in parts:
        builder, buyer = ctx.nation_name(" ".join(parts["FROM"])), cmd.nation
    else:
        raise Malformed("CONTRACT: say FOR <buyer> (you build) or FROM <builder> (you buy)")
    if builder == buyer:
        raise Malformed("CONTRACT: a nation builds for itself with BUILD")
    key = (builder, buyer, yard.name, n, price)
    pending = ctx.scratch.setdefault("contracts", {})
    side = "builder" if cmd.nation == builder else "buyer"
    pending.setdefault(key, set()).add(side)
    if pending[key] != {"builder", "buyer"}:
        ctx.say(f"Contract noted: {n} ships at {yard.name}, {builder} for {buyer}, price {price}; "
                f"it is signed when the other side sends the matching line this month.", [cmd.nation], "contract")
        return
    if ctx.controller(yard.nation) != builder:
        raise Rejected(f"{builder} does not control {yard.nation}, whose yard {yard.name} is")
    ctx.ledger(buyer)
    _room(ctx, yard, n)
    ctx.afford(buyer, price, 0, f"the contract price for {n} ships")
    del pending[key]
    if not _lay_down(ctx, builder, buyer, yard, n, NEW):
        return
    if price:
        ctx.change(buyer, "money", -price, f"contract: {n} ships at {yard.name} from {builder}")
        ctx.change(builder, "money", price, f"contract: {n} ships at {yard.name} for {buyer}")
    _announce_later(ctx, yard)


@command("ANNOUNCE", STAGE_YARDS, "ANNOUNCE <yard> <n>")
def announce(ctx: Ctx, cmd: Command) -> None:
    """I.C: the builder may state the figure itself (within 5 of the truth, never negative)."""
    if len(cmd.words) < 2:
        raise Malformed("ANNOUNCE: give the yard and the number, e.g. ANNOUNCE Brest 7")
    n = number(cmd.words[-1], "ANNOUNCE: the number", 0)
    yard = yard_for(ctx, cmd, " ".join(cmd.words[:-1]))
    ctx.scratch.setdefault("announce", {})[yard.name] = (n, cmd.line)


def announcements(ctx: Ctx) -> None:
    """After the yards stage: one public figure for each yard where new ships were ordered."""
    for (builder, buyer, yard_name, n, price), sides in ctx.scratch.pop("contracts", {}).items():
        ctx.say(f"The contract for {n} ships at {yard_name} ({builder} for {buyer}, price {price}) was not "
                f"signed: {'the buyer' if sides == {'builder'} else 'the builder'} sent no matching line.",
                [builder, buyer], "rejected")
    within = ctx.tables["shipbuilding"]["announce_within"]
    wanted = ctx.scratch.get("announce", {})
    for name in ctx.scratch.get("yards_with_new_orders", []):
        yard = ctx.tables.yards[name]
        true = new_on_stocks(ctx, yard)
        low, high = max(0, true - within), true + within
        given = wanted.pop(name, None)
        if given and low <= given[0] <= high:
            figure = given[0]
        else:
            if given:
                ctx.say(f"{given[1]!r}: {given[0]} is not within {within} of the ships on the stocks; "
                        f"the judge draws the figure.", [ctx.controller(yard.nation)], "rejected")
            # sealed: its die and range (max(0, n-5)..n+5) would give away the true number (I.C, II)
            figure = ctx.roller.pick("yard figure", ctx.controller(yard.nation), name, f"announced number at {name}",
                                     low, high, sealed=[ctx.controller(yard.nation), MASTER])
        ctx.state.announced[name] = figure
        ctx.say(f"Vessels are being constructed at {name} ({yard.nation}): about {figure}.", "all", "announcement")
    for name, (_, line) in wanted.items():
        ctx.say(f"{line!r}: no new ships were ordered at {name} this month; nothing to announce.",
                [ctx.controller(ctx.tables.yards[name].nation)], "rejected")


def complete(ctx: Ctx) -> None:
    """At the start of a month: finished ships go into port (contracts to the buyer, at the yard)."""
    month = ctx.state.month
    for led in ctx.state.nations.values():
        for work in [w for w in led.works if calendar.index(w.done) <= calendar.index(month)]:
            led.works.remove(work)
            owner = ctx.state.nations[work.owner]
            owner.docked[work.yard] = owner.docked.get(work.yard, 0) + work.ships
            what = "new ships" if work.kind == "new" else "repaired ships"
            ctx.say(f"{work.ships} {what} of {work.owner} ready at {work.yard}.", sorted({work.owner, work.builder}),
                    "yard")
            if work.kind == "new" and ctx.tables.yards[work.yard].note == 3:
                before = ctx.state.prussian_built
                ctx.state.prussian_built += work.ships
                limit = ctx.tables.notes[3].after_ships
                if before < limit <= ctx.state.prussian_built:
                    ctx.say(f"{ctx.state.prussian_built} ships have been built at Prussian yards: from now on "
                            f"they cost {ctx.tables.notes[3].cost} and take {ctx.tables.notes[3].time} months "
                            f"(note 3).", "all", "announcement")
    busy = {w.yard for led in ctx.state.nations.values() for w in led.works if w.kind == "new"}
    for name in list(ctx.state.announced):
        if name not in busy:
            del ctx.state.announced[name]
