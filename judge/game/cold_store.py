"""``judge archive-games``: old finished games moved out of the hot store into an archive SQLite
file with the same schema, and back (``--restore``).

Each move is copy, verify, delete, each of the three its own transaction (the two files cannot
share one: in WAL mode SQLite commits attached databases one by one), so a kill at any instant
leaves every row in at least one of the two files:

* killed while copying: the archive's transaction rolls back; the game is whole in the hot store;
* killed after the copy, before the delete: the game is whole in both; the next run copies it
  again over the stale copy (archiving) or finds it restored and drops the archive's copy;
* killed while deleting: the hot store's transaction rolls back.

An archived game leaves its ``games`` row in the hot store, marked ``options.archived`` (the day
it was moved): the name stays taken (no new game can take it, so it can always come back), LIST
leaves it out, and HISTORY or a SIGNON for it get a message saying where it is. The players'
rows stay in the hot store (they are shared by games); the archive holds a copy of those its
games name. Row ids are kept as they are, so a game comes back exactly as it left; a game that
holds a table's newest row is kept for a later run, so SQLite never hands its ids to new rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from judge.game.store import Store, dumps, iso, loads

#: the options key that marks a games row whose game lives in the archive file
ARCHIVED = "archived"

_IDS = "(SELECT id FROM temp.moving)"
#: every table holding a game's rows, parents first, and how to pick a set of games' rows
#: (``{db}``: the schema read, main or the attached archive)
GAME_TABLES: list[tuple[str, str]] = [
    ("games", f"id IN {_IDS}"),
    ("seats", f"game_id IN {_IDS}"),
    ("phases", f"game_id IN {_IDS}"),
    ("orders", f"phase_id IN (SELECT id FROM {{db}}.phases WHERE game_id IN {_IDS})"),
    ("future_orders", f"game_id IN {_IDS}"),
    ("press", f"game_id IN {_IDS}"),
    ("diary", f"game_id IN {_IDS}"),
    ("reports", f"game_id IN {_IDS}"),
    ("events", f"game_id IN {_IDS}"),
    ("outbox", f"game_id IN {_IDS}"),
    ("auth_failures", f"game_id IN {_IDS}"),
    ("bounce_notices", f"game_id IN {_IDS}"),
    ("confirmations", f"game_id IN {_IDS}"),
]
_PLAYERS = (f"id IN (SELECT master_id FROM {{db}}.games WHERE id IN {_IDS}) "
            f"OR id IN (SELECT player_id FROM {{db}}.seats WHERE game_id IN {_IDS})")
BATCH = 500


class ArchiveError(RuntimeError):
    """The move could not be made safely; nothing was lost (the message says what stays where)."""


@dataclass
class Moved:
    games: list[str] = field(default_factory=list)
    rows: int = 0
    kept: list[str] = field(default_factory=list)  # left where they were, with the reason


def archived_since(options: dict[str, Any]) -> str | None:
    """The day a game was moved to the archive file, or None if it is in the hot store."""
    v = options.get(ARCHIVED)
    return str(v) if v else None


def archived_message(name: str, options: dict[str, Any]) -> str | None:
    """What a player is told about a game kept in the archive file (None: the game is here)."""
    since = archived_since(options)
    if since is None:
        return None
    return (f"game '{name}' is over and was moved to the judge's archive of old games on {since}; its "
            f"results are in the published game archive. The judge's keeper can bring it back "
            f"(judge archive-games --restore {name}) if you need it answered by mail.")


def _columns(store: Store, table: str) -> str:
    return ", ".join(f"[{r['name']}]" for r in store.all(f"PRAGMA main.table_info([{table}])"))


def _select(table: str, where: str, db: str, cols: str) -> str:
    return f"SELECT {cols} FROM {db}.[{table}] WHERE {where.format(db=db)}"


def _set_moving(store: Store, ids: list[int]) -> None:
    store.conn.execute("CREATE TEMP TABLE IF NOT EXISTS moving (id INTEGER PRIMARY KEY)")
    store.conn.execute("DELETE FROM temp.moving")
    store.conn.executemany("INSERT INTO temp.moving (id) VALUES (?)", [(i,) for i in ids])


def _copy(store: Store, src: str, dst: str) -> int:
    """Copy the moving games' rows from ``src`` to ``dst`` (replacing a stale copy there)."""
    n = 0
    for table, where in reversed(GAME_TABLES):  # children first: a stale copy goes before its parent
        store.conn.execute(f"DELETE FROM {dst}.[{table}] WHERE {where.format(db=dst)}")
    cols = _columns(store, "players")
    store.conn.execute(f"INSERT OR IGNORE INTO {dst}.players ({cols}) {_select('players', _PLAYERS, src, cols)}")
    for table, where in GAME_TABLES:
        cols = _columns(store, table)
        n += store.conn.execute(f"INSERT INTO {dst}.[{table}] ({cols}) {_select(table, where, src, cols)}").rowcount
    return n


def _differences(store: Store) -> list[str]:
    """Tables where the moving games' rows differ between the hot store and the archive."""
    bad = []
    for table, where in GAME_TABLES:
        cols = _columns(store, table)
        a, b = _select(table, where, "main", cols), _select(table, where, "arch", cols)
        na = store.scalar(f"SELECT COUNT(*) FROM ({a})")
        nb = store.scalar(f"SELECT COUNT(*) FROM ({b})")
        if na != nb or store.one(f"{a} EXCEPT {b}") is not None or store.one(f"{b} EXCEPT {a}") is not None:
            bad.append(table)
    return bad


def _delete(store: Store, db: str) -> None:
    for table, where in reversed(GAME_TABLES):
        store.conn.execute(f"DELETE FROM {db}.[{table}] WHERE {where.format(db=db)}")


def _attach(store: Store, archive: Path) -> None:
    Store(archive).close()  # made (0600) or migrated to this judge's schema
    store.conn.execute("ATTACH DATABASE ? AS arch", (str(archive),))


def _newest_rows(store: Store) -> dict[str, int]:
    out = {}
    for table, _ in GAME_TABLES:
        if table in ("bounce_notices", "reports"):  # no id of their own (reports: the phase's)
            continue
        top = store.scalar(f"SELECT MAX(id) FROM main.[{table}]")
        if top is not None:
            out[table] = int(top)
    return out


def _owner(store: Store, table: str, row_id: int) -> int | None:
    if table == "games":
        return row_id
    if table == "orders":
        return store.scalar("SELECT p.game_id FROM orders o JOIN phases p ON p.id = o.phase_id WHERE o.id = ?",
                            (row_id,))
    return store.scalar(f"SELECT game_id FROM main.[{table}] WHERE id = ?", (row_id,))


def archive_games(store: Store, archive: Path, before: datetime, now: datetime | None = None) -> Moved:
    """Move every finished or terminated game that ended before ``before`` to ``archive``."""
    now = now or datetime.now(timezone.utc)
    moved = Moved()
    rows = store.all("SELECT id, name, options FROM games WHERE state IN ('finished', 'terminated') "
                     "AND finished < ? ORDER BY id", (iso(before),))
    held = {_owner(store, t, i) for t, i in _newest_rows(store).items()}
    ids: list[int] = []
    names: dict[int, str] = {}
    for r in rows:
        if archived_since(loads(r["options"], {})):
            continue
        busy = store.scalar("SELECT 1 FROM outbox WHERE game_id = ? AND status = 'pending' UNION ALL "
                            "SELECT 1 FROM events WHERE game_id = ? AND state = 'pending'", (r["id"], r["id"]))
        if busy:
            moved.kept.append(f"{r['name']}: mail or an event of it is still pending")
        elif r["id"] in held:
            moved.kept.append(f"{r['name']}: it holds the newest row of a table (moved on a later run)")
        else:
            ids.append(r["id"])
            names[r["id"]] = r["name"]
    _attach(store, archive)
    try:
        for k in range(0, len(ids), BATCH):
            batch = ids[k:k + BATCH]
            _set_moving(store, batch)
            with store.transaction():  # 1. copy (only the archive is written)
                moved.rows += _copy(store, "main", "arch")
            bad = _differences(store)  # 2. verify
            if bad:
                raise ArchiveError(f"the archive's copy differs in {', '.join(bad)}: nothing was deleted "
                                   f"from the hot store")
            with store.transaction():  # 3. delete, leaving the games rows marked
                stamp = iso(now)[:10]
                olds = {r["id"]: loads(r["options"], {}) for r in
                        store.all(f"SELECT id, options FROM main.games WHERE id IN {_IDS}")}
                keep = [t for t in GAME_TABLES if t[0] != "games"]
                for table, where in reversed(keep):
                    store.conn.execute(f"DELETE FROM main.[{table}] WHERE {where.format(db='main')}")
                store.conn.executemany("UPDATE main.games SET options = ? WHERE id = ?",
                                       [(dumps({**o, ARCHIVED: stamp}), gid) for gid, o in olds.items()])
            moved.games += [names[i] for i in batch]
    finally:
        store.conn.execute("DETACH DATABASE arch")
    return moved


def restore_games(store: Store, archive: Path, names: list[str]) -> Moved:
    """Bring the named games back from ``archive`` into the hot store, exactly as they left."""
    if not archive.is_file():
        raise ArchiveError(f"no archive file {archive}")
    moved = Moved()
    _attach(store, archive)
    try:
        wanted: list[int] = []
        leftovers: list[int] = []  # restored before, the archive's copy not yet dropped
        for name in names:
            here = store.one("SELECT id, options FROM main.games WHERE name = ?", (name.strip().lower(),))
            there = store.one("SELECT id FROM arch.games WHERE name = ?", (name.strip().lower(),))
            if there is None:
                raise ArchiveError(f"no game '{name}' in {archive}")
            if here is not None and here["id"] != there["id"]:
                raise ArchiveError(f"'{name}' in the hot store is another game (id {here['id']}, the "
                                   f"archive's is {there['id']}): nothing was restored")
            if here is not None and not archived_since(loads(here["options"], {})):
                leftovers.append(there["id"])
            else:
                wanted.append(there["id"])
        if leftovers:
            _set_moving(store, leftovers)
            if _differences(store):
                raise ArchiveError("a game is both in the hot store and, different, in the archive: "
                                   "nothing was changed")
            with store.transaction():
                _delete(store, "arch")
        if wanted:
            _set_moving(store, wanted)
            for table, where in GAME_TABLES[1:]:
                if table in ("bounce_notices",):
                    continue
                key = "phase_id" if table == "reports" else "id"
                clash = store.scalar(f"SELECT COUNT(*) FROM main.[{table}] WHERE {key} IN "
                                     f"(SELECT {key} FROM arch.[{table}] WHERE {where.format(db='arch')})")
                if clash:
                    raise ArchiveError(f"{clash} row ids of table {table} were taken by new rows since the games "
                                       f"were archived: nothing was restored")
            with store.transaction():  # 1. copy back (the games rows replace their marked rows)
                store.conn.execute(f"DELETE FROM main.games WHERE id IN {_IDS}")
                moved.rows += _copy(store, "arch", "main")
            bad = _differences(store)  # 2. verify
            if bad:
                raise ArchiveError(f"the restored rows differ in {', '.join(bad)}; the archive keeps its copy")
            with store.transaction():  # 3. drop the archive's copy
                _delete(store, "arch")
        moved.games = [n.strip().lower() for n in names]
    finally:
        store.conn.execute("DETACH DATABASE arch")
    return moved


def _cli():  # noqa: ANN202 (click is imported only when the command runs)
    import click

    @click.command("archive-games")
    @click.option("--db", envvar="JUDGE_DB", default="judge.sqlite", show_default=True,
                  help="The judge's SQLite file (env JUDGE_DB).")
    @click.option("--archive", "archive_path", default=None,
                  help="The archive file (default: <db>.archive.sqlite beside the store).")
    @click.option("--before", default=None, help="Move games that ended before this day (YYYY-MM-DD, UTC).")
    @click.option("--restore", is_flag=True, help="Bring the GAMES named back into the hot store.")
    @click.argument("games", nargs=-1)
    def archive_games_command(db: str, archive_path: str | None, before: str | None, restore: bool,
                              games: tuple[str, ...]) -> None:
        """Move games that ended before --before DATE out of the hot store into an archive file, or
        bring GAMES back with --restore."""
        from judge.game.store import SchemaMismatch

        if not Path(db).is_file():
            raise click.UsageError(f"no judge store at {db} (give --db)")
        if bool(before) == bool(restore) or bool(games) != bool(restore):
            raise click.UsageError("give either --before DATE or --restore GAME...")
        archive = Path(archive_path) if archive_path else Path(db).with_suffix(".archive.sqlite")
        try:
            store = Store(db, upgrade=False)
        except SchemaMismatch as exc:
            raise click.ClickException(str(exc)) from None
        try:
            if before:
                try:
                    day = datetime.strptime(before, "%Y-%m-%d").replace(tzinfo=timezone.utc)
                except ValueError:
                    raise click.UsageError(f"--before {before}: write the day as YYYY-MM-DD") from None
                done = archive_games(store, archive, day)
            else:
                done = restore_games(store, archive, list(games))
        except ArchiveError as exc:
            raise click.ClickException(str(exc)) from None
        finally:
            store.close()
        click.echo(json.dumps({"archive": str(archive), "restored" if restore else "archived": done.games,
                               "rows": done.rows, "kept": done.kept}))

    return archive_games_command


archive_games_command = _cli()
