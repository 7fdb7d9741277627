"""The live tables' accepted moves stored with group commit.

A move the referee accepted is stored by :meth:`ActionStore.store`. Every move
accepted while a commit is under way waits for the next one, and that one
transaction stores them all (on PostgreSQL it also announces each of them to the
other processes: ``NOTIFY`` is sent at the commit, never for a move that is not
stored). A ``store`` call returns — the move is acknowledged — only once the
transaction that holds its move has committed, so nothing acknowledged is ever
lost; and under load one commit (one write to the disk, one hand-off to a worker
thread, one connection check) serves many moves instead of one.

A group that cannot be stored because one of its moves is stored already (the
same step of a seat, stored first by another process) is stored again move by
move, so that only that move is refused (:class:`sqlalchemy.exc.IntegrityError`
from its ``store`` call) and the others are stored. Any other failure (the
database away) fails every move of the group, none of them stored.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from starlette.concurrency import run_in_threadpool

from . import db
from .accounts import now
from .events import CHANNEL
from .tablestore import Move, Table

GROUP_LIMIT = 500
"""The most moves one transaction stores (the rest wait for the next)."""

_NOTIFY = sa.text("SELECT pg_notify(:channel, :payload)")


@dataclass
class _Pending:
    """A move waiting for its group's commit."""

    table_id: int
    round: int
    move: Move
    announce: dict[str, Any] | None
    done: asyncio.Future[None]


def _retrieved(done: asyncio.Future[None]) -> None:
    if not done.cancelled():
        done.exception()


class ActionStore:
    """Stores accepted moves in groups (one transaction each) on ``engine``; one
    per server process, used from its event loop."""

    def __init__(self, engine: Engine, *, group_limit: int = GROUP_LIMIT) -> None:
        self.engine = engine
        self.group_limit = group_limit
        self._waiting: list[_Pending] = []
        self._writer: asyncio.Task[None] | None = None
        self.groups = 0
        """Transactions committed so far (for the benchmark and tests)."""
        self.stored = 0
        """Moves stored so far."""

    async def store(self, table: Table, move: Move, announce: dict[str, Any] | None) -> None:
        """Store an accepted move of ``table``'s current round (accepted at
        ``move.at``; now when it says none) and, when ``announce`` is given,
        announce it to every process in the same transaction; return once it is
        committed. ``IntegrityError`` when that step of the seat is stored
        already; whatever the database raised when it could not be stored."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(_retrieved)  # told even when its caller is gone
        self._waiting.append(_Pending(table.id, table.round, move, announce, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_groups())
        await asyncio.shield(done)  # a client gone does not take the move from its group

    async def close(self) -> None:
        """Wait until every move handed to :meth:`store` is stored (or failed)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)

    async def _write_groups(self) -> None:
        while self._waiting:
            group = self._waiting[:self.group_limit]
            del self._waiting[:self.group_limit]
            try:
                failures = await run_in_threadpool(self._write, group)
            except BaseException as exc:  # the database away: none of the group stored
                for item in group:
                    if not item.done.done():
                        item.done.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for item, failure in zip(group, failures, strict=True):
                if item.done.done():
                    continue
                if failure is None:
                    item.done.set_result(None)
                else:
                    item.done.set_exception(failure)

    def _write(self, group: list[_Pending]) -> list[sa.exc.IntegrityError | None]:
        """Store ``group`` in one transaction (in a worker thread); when one of its
        moves is stored already, each move in a transaction of its own. Per move:
        ``None`` when stored, or the ``IntegrityError`` that refused it."""
        try:
            with self.engine.begin() as conn:
                self._insert(conn, group)
        except sa.exc.IntegrityError:
            if len(group) == 1:
                raise
        else:
            self.groups += 1
            self.stored += len(group)
            return [None] * len(group)
        failures: list[sa.exc.IntegrityError | None] = []
        for item in group:
            try:
                with self.engine.begin() as conn:
                    self._insert(conn, [item])
            except sa.exc.IntegrityError as exc:
                failures.append(exc)
            else:
                self.groups += 1
                self.stored += 1
                failures.append(None)
        return failures

    @staticmethod
    def _insert(conn: Connection, group: list[_Pending]) -> None:
        moment = now()
        conn.execute(sa.insert(db.table_actions), [
            {"table_id": item.table_id, "round": item.round, "seat": item.move.seat,
             "n": item.move.n, "action": json.dumps(item.move.action),
             "score": item.move.score, "over": item.move.over,
             "created": item.move.at or moment} for item in group])
        notices = [{"channel": CHANNEL, "payload": json.dumps(item.announce,
                                                              separators=(",", ":"))}
                   for item in group if item.announce is not None]
        if notices:
            conn.execute(_NOTIFY, notices)
