"""Table events between server processes: PostgreSQL's LISTEN/NOTIFY.

Behind several server processes (``--workers N``, or several hosts behind a
load balancer on one PostgreSQL), the players and spectators of one table may
be connected to different processes. Every change of a table is first stored
in the database, then announced on the channel :data:`CHANNEL` with
``pg_notify``; every process listens and passes the announcement to its own
connections, which read what changed from the database. PostgreSQL's own
LISTEN/NOTIFY is used rather than Redis pub/sub because the database is already
there and is the truth: one service less to run, and an announcement is
only a nudge, so none can carry state that the database does not have. With an
SQLite database (one process) the announcements stay in the process.

An announcement made on its own (:meth:`Events.publish`) is sent on a
connection of the process's own with psycopg's async driver, in the event loop:
those made while one group is being sent go together in the next (one
statement, :data:`_NOTIFY`: one round trip, one transaction, in the order they
were made), and each caller resumes once its group is committed. PostgreSQL
delivers two identical announcements of one transaction once: each is a nudge
that says the same the second time (a quick phrase, the one announcement that
is not, is announced by its connection's loop, which reads nothing more until
it is sent). One made with a change of the database
(a move, a round's result, presence) is sent in that change's own transaction
instead, so it goes out at its commit and never for a change not stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from sqlalchemy.engine import Engine

from . import announcements, db
from .announcements import CHANNEL, MAX_PAYLOAD, E, Kind, Subscribers, payload

__all__ = ["CHANNEL", "MAX_PAYLOAD", "Events", "payload", "retrieved"]

log = logging.getLogger("blockyard.server")


class Events:
    """Announcements of table changes to every server process (this one too)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.subscribers = Subscribers()
        """This process's handlers of each kind (:meth:`subscribe`)."""
        self.shared = engine.dialect.name == "postgresql"
        self.task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()
        self._own = db.OwnConnection(engine)
        """The connection the announcements made on their own go out on."""
        self._waiting: list[tuple[str, asyncio.Future[None]]] = []
        self._writer: asyncio.Task[None] | None = None

    def subscribe(self, kind: Kind[E], handler: Callable[[E], Awaitable[None]]) -> None:
        """Call ``handler`` with every announcement of ``kind``, of any process
        (:mod:`~blockyard.server.announcements`)."""
        self.subscribers.subscribe(kind, handler)

    def publish_sync(self, event: Mapping[str, Any]) -> None:
        """Announce ``event`` to the other processes (blocking; PostgreSQL only)."""
        text = payload(event)
        if len(text) > MAX_PAYLOAD:  # pragma: no cover - events are small
            raise ValueError("table event too large")
        with self.engine.begin() as conn:
            announcements.notify_payloads(conn, [text])

    async def publish(self, event: Mapping[str, Any]) -> None:
        """Announce ``event`` to every process's connections; on PostgreSQL,
        return once it is committed (with those made meanwhile: see above)."""
        if not self.shared:
            await self.subscribers.deliver(event)
            return
        text = payload(event)
        if len(text) > MAX_PAYLOAD:  # pragma: no cover - events are small
            raise ValueError("table event too large")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(retrieved)  # told even when its caller is gone
        self._waiting.append((text, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._send_groups())
        await done  # a caller gone (cancelled) cancels its wait: the group still sends it

    async def _send_groups(self) -> None:
        while self._waiting:
            group, self._waiting = self._waiting, []
            try:
                # sent twice at worst (the connection kept found dead): an
                # announcement then says the same again
                await self._own.execute_again(_NOTIFY, (_COMPACT.encode(
                    [text for text, _ in group]),))
            except BaseException as exc:  # the database away: none of the group sent
                for _, done in group:
                    if not done.done():
                        done.set_exception(exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for _, done in group:
                if not done.done():
                    done.set_result(None)

    async def start(self) -> None:
        """Start listening (PostgreSQL: a connection of its own, reconnected when
        lost)."""
        if not self.shared:
            self.ready.set()
            return
        self.task = asyncio.create_task(self._listen())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.ready.wait(), 30)

    async def _listen(self) -> None:
        import psycopg
        from psycopg import sql

        url = self.engine.url.set(drivername="postgresql")
        conninfo = url.render_as_string(hide_password=False)
        pause = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(conninfo,
                                                                 autocommit=True) as conn:
                    await conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(CHANNEL)))
                    self.ready.set()
                    pause = 0.5
                    # a missed announcement while reconnecting: every table rereads
                    await self._deliver(announcements.resync())
                    async for note in conn.notifies():
                        try:
                            event = json.loads(note.payload)
                        except ValueError:
                            continue
                        if isinstance(event, dict):
                            await self._deliver(event)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("table events: lost the database (%s); reconnecting",
                            type(exc).__name__)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 10.0)

    async def _deliver(self, event: Mapping[str, Any]) -> None:
        try:
            await self.subscribers.deliver(event)
        except Exception as exc:  # one table's trouble must not stop the listener
            if db.database_unavailable(exc):  # no fault of the server's: one line
                log.warning("table event %s: the database is unavailable (%s)",
                            event.get("kind"), type(exc).__name__)
            else:
                log.exception("table event %s", event.get("kind"))

    async def stop(self) -> None:
        while self._writer is not None and not self._writer.done():
            with contextlib.suppress(Exception):  # every announcement made is sent
                await asyncio.shield(self._writer)
        await self._own.close()
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


_NOTIFY = f"""
SELECT {announcements.pg_notify("given.payload")}
FROM json_array_elements_text(%s::json) WITH ORDINALITY AS given(payload, place)
ORDER BY given.place
"""
"""Announce a group (a JSON array of the payloads, in order) in one statement."""


def retrieved(done: asyncio.Future[Any]) -> None:
    """A done callback for a group commit's future: its exception counts as
    retrieved even when its caller is gone (no "never retrieved" warning)."""
    if not done.cancelled():
        done.exception()


_COMPACT = json.JSONEncoder(separators=(",", ":"))
"""Made once: ``json.dumps`` with ``separators`` makes an encoder at every call."""
