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
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

CHANNEL = "blockyard_tables"
"""The NOTIFY channel of table events."""
MAX_PAYLOAD = 7000
"""PostgreSQL's payload limit is 8000 bytes; events are far smaller."""

Handler = Callable[[dict[str, Any]], Awaitable[None]]
log = logging.getLogger("blockyard.server")


class Events:
    """Announcements of table changes to every server process (this one too)."""

    def __init__(self, engine: Engine, handler: Handler) -> None:
        self.engine = engine
        self.handler = handler
        self.shared = engine.dialect.name == "postgresql"
        self.task: asyncio.Task[None] | None = None
        self.ready = asyncio.Event()

    def publish_sync(self, event: dict[str, Any]) -> None:
        """Announce ``event`` to the other processes (blocking; PostgreSQL only)."""
        payload = json.dumps(event, separators=(",", ":"))
        if len(payload) > MAX_PAYLOAD:  # pragma: no cover - events are small
            raise ValueError("table event too large")
        with self.engine.begin() as conn:
            conn.execute(sa.select(sa.func.pg_notify(CHANNEL, payload)))

    async def publish(self, event: dict[str, Any]) -> None:
        """Announce ``event`` to every process's connections."""
        if not self.shared:
            await self.handler(event)
            return
        from starlette.concurrency import run_in_threadpool

        await run_in_threadpool(self.publish_sync, event)

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
                    await self._deliver({"kind": "resync"})
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

    async def _deliver(self, event: dict[str, Any]) -> None:
        try:
            await self.handler(event)
        except Exception:  # one table's trouble must not stop the listener
            log.exception("table event %s", event.get("kind"))

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
