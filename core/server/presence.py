"""Who is at a table, as every server process sees it: the seats' presence in
the database (table ``seat_presence``), and the seats it says are abandoned.

Each process writes, every few seconds and in one statement, the moment it last
had a live connection of each seat (:func:`touch`); a seat also counts as present
from the moment its player takes it (creating or joining the table) and when its
connection closes. A seat whose player has been away from every process longer
than the abandon timeout is then found by any process (:func:`overdue`): at a
playing table its game is ended (the ``end`` action, stored like any other, so
two processes doing it at once store it once); at a waiting table the seat is
freed (:func:`free_waiting`), and a waiting table left with nobody is closed
(status ``finished``, no result). So a seat that never connects, or whose player
vanishes, or whose process is killed, holds no table for longer than the timeout
(plus one sweep), whichever process is left.

**Who is there.** The same rows say, for everyone at the table, whether each
seat is ``present``, ``away``, ``reconnecting`` or ``left``
(:func:`view_of`, decided from the rows and the injected clock alone, so every
process says the same; :func:`seat_view` reads them): each process counts the seat's connections it
opens and closes (``links``, with the marks), what its window last said
(``away``, the ``presence`` message) and when its player last said they are
active or connected (``active``; their last action is read from the stored
actions), and the round the player left in (``left_round``: the ``leave``
message, or abandoned). A process that dies stops touching its seats: their
links are believed for :func:`stale_seconds` only. Each write returns the rows it
left, one ``version`` on, and (``announce``) announces at its commit those that
change who is there (:func:`announcements`): a process keeps the rows of its
tables from them (:mod:`~blockyard.server.seatviews`).
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from . import announcements as told
from . import db, metrics
from .events import retrieved
from .tablestore import lock_table

OVERDUE_BATCH = 200
"""The most abandoned seats one sweep handles (the next sweep takes the rest)."""


TOUCH_BATCH = 500
"""The most seats one statement of :func:`touch_each` writes."""


@dataclass(frozen=True)
class Row:
    """One seat's presence as stored (a ``seat_presence`` row): when its player was
    last connected (``seen``), its open connections (``links``, every process),
    whether its window said it is in the background, when its player last said
    they are active or connected, the round they left, and how many times the
    row changed (``version``: of two states of a row, the newer has the higher)."""

    table_id: int
    seat: int
    seen: _dt.datetime
    links: int
    away: bool
    active: _dt.datetime | None
    left_round: int | None
    version: int


def _row(r: Any) -> Row:
    seen = _utc(r.seen)
    assert seen is not None
    return Row(int(r.table_id), int(r.seat), seen, int(r.links), bool(r.away),
               _utc(r.active), None if r.left_round is None else int(r.left_round),
               int(r.version))


def announcements(rows: Iterable[Row] = (), gone: Iterable[tuple[int, int]] = ()
                  ) -> list[told.Presence]:
    """The ``presence`` announcements of rows changed (each as it is now) and of
    rows deleted (``gone``: ``(table id, seat)``), one per table (a table's seats
    fit a ``NOTIFY`` payload many times over)."""
    tables: dict[int, told.Presence] = {}
    for row in rows:
        event = tables.setdefault(row.table_id, told.presence(row.table_id))
        event.setdefault("rows", []).append(
            [row.seat, row.seen.isoformat(), row.links, row.away,
             None if row.active is None else row.active.isoformat(), row.left_round,
             row.version])
    for table_id, seat in gone:
        event = tables.setdefault(table_id, told.presence(table_id))
        event.setdefault("gone", []).append(seat)
    return [tables[table_id] for table_id in sorted(tables)]


def announced(event: Mapping[str, Any]) -> tuple[list[Row], list[int]] | None:
    """The rows and the seats deleted a ``presence`` announcement carries, or
    ``None`` when anything in it is not what :func:`announcements` makes."""
    table_id = event.get("table")
    if type(table_id) is not int:
        return None
    rows: list[Row] = []
    try:
        for seat, seen, links, away, active, left_round, version in event.get("rows") or []:
            if type(seat) is not int or type(links) is not int or type(away) is not bool \
                    or type(version) is not int \
                    or (left_round is not None and type(left_round) is not int):
                return None
            moment = _utc(_dt.datetime.fromisoformat(seen))
            assert moment is not None
            rows.append(Row(table_id, seat, moment, links, away,
                            None if active is None else _utc(_dt.datetime.fromisoformat(active)),
                            left_round, version))
        gone = list(event.get("gone") or [])
    except (TypeError, ValueError):
        return None
    if any(type(seat) is not int for seat in gone):
        return None
    return rows, gone


def _announce(conn: Any, events: list[told.Presence]) -> None:
    """Announce ``events`` at the commit of ``conn``'s transaction (PostgreSQL's
    ``NOTIFY``; SQLite's one process is told by its caller)."""
    told.notify(conn, events)


def touch(engine: Engine, seats: Iterable[tuple[int, int]], moment: _dt.datetime) -> None:
    """Record that the ``(table id, seat)`` pairs were present at ``moment``
    (one statement for all of them; a seat seen later already keeps that time)."""
    touch_each(engine, {seat: moment for seat in seats})


def touch_each(engine: Engine, marks: Mapping[tuple[int, int], _dt.datetime],
               links: Mapping[tuple[int, int], int] | None = None, *,
               announce: bool = False) -> list[Row]:
    """Record that each ``(table id, seat)`` of ``marks`` was present at its moment
    (one statement on PostgreSQL, one per :data:`TOUCH_BATCH` seats on SQLite; a
    seat seen later already keeps that time), and add ``links`` (connections
    opened, less those closed) to their counts: a seat with a connection opened
    is active from its moment, its window in front. The rows as they are now;
    ``announce``: those whose connections changed are announced at the commit
    (:func:`announcements`)."""
    links = links or {}
    rows = [{"table_id": t, "seat": s, "seen": marks[(t, s)], "links": links.get((t, s), 0),
             "active": marks[(t, s)] if links.get((t, s), 0) > 0 else None, "version": 1}
            for t, s in sorted(marks)]
    if not rows:
        return []
    table = db.seat_presence
    written: dict[tuple[int, int], Row] = {}
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # the seats as arrays: one statement of the same text for any number of
            # them (a VALUES list is compiled again for every count: 50-150 ms of
            # CPU for the 500 seats of a sweep, holding the event loop's GIL)
            for r in conn.execute(_TOUCH_ARRAYS, {
                    "tables": [row["table_id"] for row in rows],
                    "seats": [row["seat"] for row in rows],
                    "seen": [row["seen"] for row in rows],
                    "links": [row["links"] for row in rows],
                    "active": [row["active"] for row in rows]}):
                written[(int(r.table_id), int(r.seat))] = _row(r)
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            for first in range(0, len(rows), TOUCH_BATCH):
                given = sqlite_insert(table).values(rows[first:first + TOUCH_BATCH])
                upsert = given.on_conflict_do_update(
                    index_elements=["table_id", "seat"],
                    set_=_merged(table, given.excluded, sa.func.max)).returning(*table.c)
                for r in conn.execute(upsert):
                    written[(int(r.table_id), int(r.seat))] = _row(r)
        # a connection closed of a seat with no row (freed meanwhile): none open
        for key in [key for key, row in written.items() if row.links < 0]:
            fixed = conn.execute(
                sa.update(table).where(table.c.table_id == key[0], table.c.seat == key[1])
                .values(links=0, version=table.c.version + 1).returning(*table.c)).one()
            written[key] = _row(fixed)
        if announce:
            _announce(conn, announcements(row for key, row in sorted(written.items())
                                          if links.get(key, 0)))
    return [written[key] for key in sorted(written)]


def _merged(table: sa.Table, excluded: Any, latest: Any) -> dict[str, Any]:
    """What an upsert of :func:`touch_each` sets in a row there already."""
    opened = excluded.links > 0
    return {"seen": latest(table.c.seen, excluded.seen),
            "links": latest(table.c.links + excluded.links, 0),
            "away": sa.case((opened, sa.false()), else_=table.c.away),
            "active": sa.case((opened, excluded.seen), else_=table.c.active),
            "version": table.c.version + 1}


def _touch_arrays() -> Any:
    """:func:`touch_each` on PostgreSQL: the seats' marks as arrays (``tables``,
    ``seats``, ``seen``, ``links``, ``active``), upserted by :func:`_merged`'s rules,
    every row returned. One statement for any number of seats, so compiled once."""
    from sqlalchemy.dialects.postgresql import ARRAY
    from sqlalchemy.dialects.postgresql import insert as pg_insert

    table = db.seat_presence
    moment = sa.DateTime(timezone=True)
    given = sa.func.unnest(
        sa.bindparam("tables", type_=ARRAY(sa.Integer)),
        sa.bindparam("seats", type_=ARRAY(sa.Integer)),
        sa.bindparam("seen", type_=ARRAY(moment)),
        sa.bindparam("links", type_=ARRAY(sa.Integer)),
        sa.bindparam("active", type_=ARRAY(moment)),
    ).table_valued("table_id", "seat", "seen", "links", "active").render_derived()
    insert = pg_insert(table).from_select(
        ["table_id", "seat", "seen", "links", "active", "version"],
        sa.select(given.c.table_id, given.c.seat, given.c.seen, given.c.links,
                  given.c.active, sa.literal(1)))
    return insert.on_conflict_do_update(
        index_elements=["table_id", "seat"],
        set_=_merged(table, insert.excluded, sa.func.greatest)).returning(*table.c)


_TOUCH_ARRAYS = _touch_arrays()


def _changed(engine: Engine, table_id: int, seat: int, values: dict[str, Any],
             announce: bool) -> list[Row]:
    here = db.seat_presence
    with engine.begin() as conn:
        rows = [_row(r) for r in conn.execute(
            sa.update(here).where(here.c.table_id == table_id, here.c.seat == seat)
            .values(**values, version=here.c.version + 1).returning(*here.c))]
        if announce:
            _announce(conn, announcements(rows))
    return rows


def say_window(engine: Engine, table_id: int, seat: int, away: bool,
               moment: _dt.datetime, *, announce: bool = False) -> list[Row]:
    """The seat's window said it is in the background (``away``) or active again
    (active from ``moment``); the row as it is now (announced at the commit when
    ``announce``)."""
    values: dict[str, Any] = {"away": away}
    if not away:
        values["active"] = moment
    return _changed(engine, table_id, seat, values, announce)


def mark_active(engine: Engine, table_id: int, seat: int, moment: _dt.datetime, *,
                announce: bool = False) -> list[Row]:
    """The seat's player did something at the table but act (asked for a rematch):
    active from ``moment``; the row as it is now (announced at the commit when
    ``announce``)."""
    return _changed(engine, table_id, seat, {"active": moment}, announce)


def mark_left(engine: Engine, table_id: int, seat: int, round_: int, *,
              announce: bool = False) -> list[Row]:
    """The seat's player left ``round_`` (the ``leave`` message, or abandoned); the
    row as it is now (announced at the commit when ``announce``)."""
    return _changed(engine, table_id, seat, {"left_round": round_}, announce)


def left_seats(engine: Engine, table_id: int, round_: int) -> list[int]:
    """The seats whose player left ``round_``."""
    here = db.seat_presence
    with db.reading(engine) as conn:
        return sorted(int(s) for s in conn.execute(
            sa.select(here.c.seat).where(here.c.table_id == table_id,
                                         here.c.left_round == round_)).scalars())


def stale_seconds(beat: float) -> float:
    """How long a seat's count of connections is believed without a touch: three
    sweeps (every process with a connection touches its seats every sweep)."""
    return 3 * beat + 1


@dataclass(frozen=True)
class SeatView:
    """Who is there at a table: each seat's presence (one of
    :data:`~blockyard.protocol.PRESENCE_STATES`, ``None`` for a free seat), the
    seats whose game is not finished at a playing table (``waiting_for``), and the
    seats whose player left the round (``left``)."""

    presence: tuple[str | None, ...]
    waiting_for: tuple[int, ...]
    left: tuple[int, ...]


@dataclass(frozen=True)
class ViewTiming:
    """The times :func:`seat_view` decides by, in seconds."""

    away_seconds: float
    abandon_seconds: float
    stale_seconds: float


VIEW_BATCH = 200
"""The most tables one pair of :func:`seat_views` queries asks about."""


def seat_view(engine: Engine, table: TableSeats, now: _dt.datetime, timing: ViewTiming,
              here: Collection[int] = (), continuable: Collection[str] = ()) -> SeatView:
    """Who is there at ``table`` at ``now`` (two queries): a held seat is

    - ``left`` when its player left this round (the ``leave`` message, or abandoned);
    - connected (a connection ``here``, in the asking process, or one counted by
      a process that touched the seat within ``stale_seconds``): ``away`` when its
      window says so, or at a playing table when the seat's game is not finished
      and its player has neither acted nor said they are active (nor connected)
      for ``away_seconds``; else ``present``;
    - not connected: ``reconnecting`` while its game is not over (or the table
      not playing) and it was last connected less than ``abandon_seconds`` ago;
      else ``left``.

    ``continuable``: the rulesets whose rules offer an action after the end (a
    seat over in one is finished only once ended)."""
    return seat_views(engine, [table], now, timing, {table.id: here}, continuable)[table.id]


def seat_views(engine: Engine, tables: Sequence[TableSeats], now: _dt.datetime,
               timing: ViewTiming, here: Mapping[int, Collection[int]] | None = None,
               continuable: Collection[str] = ()) -> dict[int, SeatView]:
    """Who is there at each of ``tables`` (by id), as :func:`seat_view` says it,
    in two queries per :data:`VIEW_BATCH` tables (``here``: by table id, its seats
    connected in the asking process)."""
    found: dict[int, SeatView] = {}
    for first in range(0, len(tables), VIEW_BATCH):
        batch = list(tables[first:first + VIEW_BATCH])
        rows = read_rows(engine, [table.id for table in batch])
        done = read_done(engine, batch)
        for table in batch:
            found[table.id] = view_of(table, now, timing, (here or {}).get(table.id, ()),
                                      table.ruleset_id in continuable,
                                      rows.get(table.id, {}), done.get(table.id, {}))
    return found


Done = dict[int, tuple[_dt.datetime | None, bool, bool]]
"""Per seat of a playing table's round: when its player last acted (not a tick),
whether a move left its game over, whether it was ended."""


def read_rows(engine: Engine, table_ids: Iterable[int]) -> dict[int, dict[int, Row]]:
    """The presence rows of the tables (by table id, then seat; one query)."""
    here_t = db.seat_presence
    rows: dict[int, dict[int, Row]] = {}
    wanted = sorted(set(table_ids))
    if not wanted:
        return rows
    with db.reading(engine) as conn:
        for kept in conn.execute(sa.select(here_t).where(here_t.c.table_id.in_(wanted))):
            rows.setdefault(int(kept.table_id), {})[int(kept.seat)] = _row(kept)
    return rows


def read_done(engine: Engine, tables: Sequence[TableSeats]) -> dict[int, Done]:
    """What :data:`Done` says of the current round of each playing table of
    ``tables`` (by table id; one query, none when none is playing)."""
    actions = db.table_actions
    tick = actions.c.action.like('["tick"%')
    done: dict[int, Done] = {}
    playing = [t for t in tables if t.status == "playing"]
    if not playing:
        return done
    rounds = sa.or_(*(sa.and_(actions.c.table_id == t.id, actions.c.round == t.round)
                      for t in playing))
    query = (sa.select(actions.c.table_id, actions.c.seat,
                       sa.func.max(sa.case((~tick, actions.c.created))).label("acted"),
                       sa.func.max(sa.case((actions.c.over.is_(True), 1),
                                           else_=0)).label("over"),
                       sa.func.max(sa.case((actions.c.action == json.dumps(["end"]), 1),
                                           else_=0)).label("ended"))
             .where(rounds).group_by(actions.c.table_id, actions.c.seat))
    with db.reading(engine) as conn:
        for r in conn.execute(query):
            done.setdefault(int(r.table_id), {})[int(r.seat)] = (
                _utc(r.acted), bool(r.over), bool(r.ended))
    return done


def done_from(moves: Iterable[Any]) -> Done:
    """What :data:`Done` says of a round whose moves (each with ``seat``,
    ``action``, ``over`` and ``at``) are ``moves``: the same as :func:`read_done`
    reads of them once stored."""
    done: Done = {}
    for move in moves:
        note_done(done, move)
    return done


def note_done(done: Done, move: Any) -> None:
    """Add one more move of the round (as :func:`done_from` takes them) to what
    ``done`` says of it: so that a round's moves kept one by one
    (:class:`~blockyard.server.livecache.RoundMoves`) keep it as they grow,
    instead of going over every move of the round at each look."""
    acted, over, ended = done.get(move.seat, (None, False, False))
    action = move.action
    if (not action or action[0] != "tick") and move.at is not None \
            and (acted is None or move.at > acted):
        acted = move.at
    done[move.seat] = (acted, over or bool(move.over),
                       ended or (len(action) == 1 and action[0] == "end"))


def view_of(table: TableSeats, now: _dt.datetime, timing: ViewTiming, here: Collection[int],
            continues: bool, rows: Mapping[int, Row], done: Done) -> SeatView:
    """Who is there at ``table`` at ``now`` (as :func:`seat_view` says) from its
    presence ``rows``, what ``done`` says of its round, and ``here`` (its seats
    connected in the asking process); ``continues``: its rules offer an action
    after the end."""
    stale = now - _dt.timedelta(seconds=timing.stale_seconds)
    quiet = now - _dt.timedelta(seconds=timing.away_seconds)
    gone = now - _dt.timedelta(seconds=timing.abandon_seconds)
    states: list[str | None] = []
    waiting: list[int] = []
    left: list[int] = []
    for seat, holder in enumerate(table.player_ids):
        acted, over, ended = done.get(seat, (None, False, False))
        finished = ended or (over and not continues)
        if table.status == "playing" and not finished:
            waiting.append(seat)
        if holder is None:
            states.append(None)
            continue
        row = rows.get(seat)
        if row is not None and row.left_round == table.round:
            states.append("left")
            left.append(seat)
            continue
        seen = row.seen if row is not None else None
        connected = seat in here or (row is not None and row.links > 0
                                     and seen is not None and seen >= stale)
        if connected:
            lately = max((m for m in (row.active if row is not None else None, acted)
                          if m is not None), default=None)
            idle = table.status == "playing" and not finished \
                and lately is not None and lately < quiet  # nothing known: just came
            states.append("away" if (row is not None and row.away) or idle else "present")
        elif (table.status != "playing" or not over) and table.status != "finished" \
                and seen is not None and seen >= gone:
            states.append("reconnecting")
        else:
            states.append("left")
    return SeatView(tuple(states), tuple(waiting), tuple(left))


class TableSeats(Protocol):
    """What :func:`seat_view` reads of a table (the store's
    :class:`~blockyard.server.tablestore.Table` is one)."""

    @property
    def id(self) -> int: ...
    @property
    def ruleset_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def round(self) -> int: ...
    @property
    def player_ids(self) -> tuple[int | None, ...]: ...


def _utc(moment: _dt.datetime | None) -> _dt.datetime | None:
    if moment is not None and moment.tzinfo is None:  # SQLite keeps no time zone: UTC
        return moment.replace(tzinfo=_dt.UTC)
    return moment


def overdue(engine: Engine, cutoff: _dt.datetime, limit: int = OVERDUE_BATCH,
            continuable: Collection[str] = ()) -> list[tuple[int, str, int]]:
    """The ``(table id, status, seat)`` of the seats away since before ``cutoff``:
    at playing tables whose round started before it, the seats not known to be
    finished (no game over stored; in the ``continuable`` rulesets, whose rules
    offer an action after the end, no ``["end"]`` stored: the referee tells the
    rest); at waiting tables, the held seats."""
    tables, seats, here = db.tables, db.table_seats, db.seat_presence
    actions = db.table_actions
    of_seat = (actions.c.table_id == tables.c.id, actions.c.round == tables.c.round,
               actions.c.seat == seats.c.seat)
    over: sa.ColumnElement[bool] = sa.exists().where(*of_seat, actions.c.over.is_(True))
    ended = sa.exists().where(*of_seat, actions.c.action == json.dumps(["end"]))
    if continuable:
        over = sa.or_(ended, sa.and_(over, tables.c.ruleset_id.not_in(sorted(continuable))))
    query = (sa.select(tables.c.id, tables.c.status, seats.c.seat)
             .select_from(tables.join(seats, seats.c.table_id == tables.c.id)
                          .outerjoin(here, sa.and_(here.c.table_id == seats.c.table_id,
                                                   here.c.seat == seats.c.seat)))
             .where(tables.c.status.in_(("waiting", "playing")),
                    sa.or_(here.c.seen.is_(None), here.c.seen < cutoff),
                    sa.or_(sa.and_(tables.c.status == "playing", tables.c.started < cutoff,
                                   ~over),
                           sa.and_(tables.c.status == "waiting",
                                   tables.c.created < cutoff)))
             .order_by(tables.c.id, seats.c.seat).limit(limit))
    with db.reading(engine) as conn:
        return [(int(r.id), str(r.status), int(r.seat)) for r in conn.execute(query)]


def free_waiting(engine: Engine, table_id: int, seat: int, cutoff: _dt.datetime, *,
                 announce: bool = False) -> bool:
    """Free ``seat`` of a waiting table when its player is still away since before
    ``cutoff``; a table left with nobody is closed. Whether the seat was freed (its
    presence row deleted: announced at the commit when ``announce``)."""
    tables, seats, here = db.tables, db.table_seats, db.seat_presence
    with engine.begin() as conn:  # holding the table: a join at the same moment waits
        lock_table(conn, table_id)
        back = sa.exists().where(here.c.table_id == table_id, here.c.seat == seat,
                                 here.c.seen >= cutoff)
        waiting = sa.exists().where(tables.c.id == table_id, tables.c.status == "waiting")
        freed = conn.execute(sa.delete(seats).where(
            seats.c.table_id == table_id, seats.c.seat == seat, ~back, waiting))
        if not freed.rowcount:
            return False
        conn.execute(sa.delete(here).where(here.c.table_id == table_id,
                                           here.c.seat == seat))
        if announce:
            _announce(conn, announcements(gone=[(table_id, seat)]))
        nobody = ~sa.exists().where(seats.c.table_id == table_id)
        conn.execute(sa.update(tables).where(tables.c.id == table_id,
                                             tables.c.status == "waiting", nobody)
                     .values(status="finished"))
        return True


def held_seats(engine: Engine, table_ids: Iterable[int]) -> list[tuple[int, int, int]]:
    """The ``(table id, seat, account id)`` of every held seat of the tables (one
    query), as stored now."""
    wanted = sorted(set(table_ids))
    if not wanted:
        return []
    seats = db.table_seats
    with db.reading(engine) as conn:
        rows = conn.execute(sa.select(seats.c.table_id, seats.c.seat, seats.c.account_id)
                            .where(seats.c.table_id.in_(wanted))
                            .order_by(seats.c.table_id, seats.c.seat)).all()
    return [(int(r.table_id), int(r.seat), int(r.account_id)) for r in rows]


def forget(engine: Engine, table_id: int, seat: int, *, announce: bool = False) -> None:
    """Drop a freed seat's presence (its next holder starts afresh; announced at
    the commit when ``announce``)."""
    with engine.begin() as conn:
        conn.execute(sa.delete(db.seat_presence).where(
            db.seat_presence.c.table_id == table_id, db.seat_presence.c.seat == seat))
        if announce:
            _announce(conn, announcements(gone=[(table_id, seat)]))


class Marks:
    """The seats' presence written with group commit, in one server process: the
    marks made while a write is under way go together in the next one (one
    statement), and each :meth:`mark` returns once its write has committed, with
    the rows that write left. So a burst of connections opening or closing (every
    game of a tournament ending at once) costs a few writes, not one each.
    ``announce``: the rows whose connections changed are announced at the commit
    (:func:`touch_each`)."""

    def __init__(self, engine: Engine, *, announce: bool = False) -> None:
        self.engine = engine
        self.announce = announce
        self._marks: dict[tuple[int, int], _dt.datetime] = {}
        self._links: dict[tuple[int, int], int] = {}
        self._waiting: list[asyncio.Future[list[Row]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def mark(self, seats: Iterable[tuple[int, int]], moment: _dt.datetime,
                   links: int = 0) -> list[Row]:
        """Record that ``seats`` were present at ``moment`` and add ``links`` to
        their counts of connections (1: one opened, -1: one closed); the rows the
        write left (of these seats and the others written with them); whatever the
        database raised when it could not be written."""
        marks = self._marks
        for seat in seats:
            if seat not in marks or marks[seat] < moment:
                marks[seat] = moment
            if links:
                self._links[seat] = self._links.get(seat, 0) + links
        done: asyncio.Future[list[Row]] = asyncio.get_running_loop().create_future()
        done.add_done_callback(retrieved)
        self._waiting.append(done)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        return await asyncio.shield(done)

    async def _write(self) -> None:
        from starlette.concurrency import run_in_threadpool

        while self._waiting:
            marks, self._marks = self._marks, {}
            links, self._links = self._links, {}
            waiting, self._waiting = self._waiting, []
            try:
                rows = await run_in_threadpool(touch_each, self.engine, marks, links,
                                               announce=self.announce)
                metrics.group_commit.labels("presence").observe(len(marks))
            except BaseException as exc:
                for done in waiting:
                    if not done.done():
                        done.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for done in waiting:
                if not done.done():
                    done.set_result(rows)
