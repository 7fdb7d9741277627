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
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
from collections.abc import Collection, Iterable, Mapping

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from . import db, metrics
from .tablestore import lock_table

OVERDUE_BATCH = 200
"""The most abandoned seats one sweep handles (the next sweep takes the rest)."""


def touch(engine: Engine, seats: Iterable[tuple[int, int]], moment: _dt.datetime) -> None:
    """Record that the ``(table id, seat)`` pairs were present at ``moment``
    (one statement for all of them; a seat seen later already keeps that time)."""
    touch_each(engine, {seat: moment for seat in seats})


def touch_each(engine: Engine, marks: Mapping[tuple[int, int], _dt.datetime]) -> None:
    """Record that each ``(table id, seat)`` of ``marks`` was present at its moment
    (one statement for all of them; a seat seen later already keeps that time)."""
    rows = [{"table_id": t, "seat": s, "seen": marks[(t, s)]} for t, s in sorted(marks)]
    if not rows:
        return
    table = db.seat_presence
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert as pg_insert

            pg = pg_insert(table)
            conn.execute(pg.on_conflict_do_update(
                index_elements=["table_id", "seat"],
                set_={"seen": sa.func.greatest(table.c.seen, pg.excluded.seen)}), rows)
        else:
            from sqlalchemy.dialects.sqlite import insert as sqlite_insert

            lite = sqlite_insert(table)
            conn.execute(lite.on_conflict_do_update(
                index_elements=["table_id", "seat"],
                set_={"seen": sa.func.max(table.c.seen, lite.excluded.seen)}), rows)


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
    with engine.connect() as conn:
        return [(int(r.id), str(r.status), int(r.seat)) for r in conn.execute(query)]


def free_waiting(engine: Engine, table_id: int, seat: int, cutoff: _dt.datetime
                 ) -> bool:
    """Free ``seat`` of a waiting table when its player is still away since before
    ``cutoff``; a table left with nobody is closed. Whether the seat was freed."""
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
    with engine.connect() as conn:
        rows = conn.execute(sa.select(seats.c.table_id, seats.c.seat, seats.c.account_id)
                            .where(seats.c.table_id.in_(wanted))
                            .order_by(seats.c.table_id, seats.c.seat)).all()
    return [(int(r.table_id), int(r.seat), int(r.account_id)) for r in rows]


def forget(engine: Engine, table_id: int, seat: int) -> None:
    """Drop a freed seat's presence (its next holder starts afresh)."""
    with engine.begin() as conn:
        conn.execute(sa.delete(db.seat_presence).where(
            db.seat_presence.c.table_id == table_id, db.seat_presence.c.seat == seat))


class Marks:
    """The seats' presence written with group commit, in one server process: the
    marks made while a write is under way go together in the next one (one
    statement), and each :meth:`mark` returns once its write has committed. So a
    burst of connections opening or closing (every game of a tournament ending at
    once) costs a few writes, not one each."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._marks: dict[tuple[int, int], _dt.datetime] = {}
        self._waiting: list[asyncio.Future[None]] = []
        self._writer: asyncio.Task[None] | None = None

    async def mark(self, seats: Iterable[tuple[int, int]], moment: _dt.datetime) -> None:
        """Record that ``seats`` were present at ``moment``; whatever the database
        raised when it could not be written."""
        marks = self._marks
        for seat in seats:
            if seat not in marks or marks[seat] < moment:
                marks[seat] = moment
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(_retrieved)
        self._waiting.append(done)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write())
        await asyncio.shield(done)

    async def _write(self) -> None:
        from starlette.concurrency import run_in_threadpool

        while self._waiting:
            marks, self._marks = self._marks, {}
            waiting, self._waiting = self._waiting, []
            try:
                await run_in_threadpool(touch_each, self.engine, marks)
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
                    done.set_result(None)


def _retrieved(done: asyncio.Future[None]) -> None:
    if not done.cancelled():
        done.exception()
