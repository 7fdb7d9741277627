"""Who is there at the tables watched in one server process, kept in memory.

Every change of a seat's presence is written to the database
(:mod:`~blockyard.server.presence`) and, where it changes who is there, announced
at its commit with the rows it left (one ``presence`` announcement per table).
Each process keeps the presence rows of the tables it has connections to: read
once, when the first of them opens, then kept by those announcements and by the
process's own writes (of two states of a row the newer wins, whatever order they
arrive in: each row counts its changes) and read again once a sweep (one query
for :data:`~blockyard.server.presence.VIEW_BATCH` tables: it brings the moments
the other processes last saw their seats, which are not announced). Who is there
is then decided from those rows, the round's moves known here
(:attr:`Hub.known <blockyard.server.tables.Hub.known>`) and the server's clock,
in the event loop: a change costs no query in any process, however many watch.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from starlette.concurrency import run_in_threadpool

from .. import protocol
from . import presence
from .tablestore import Table, TableError

if TYPE_CHECKING:
    from .room import Watcher
    from .tables import Hub


class SeatViews:
    """Who is there at the tables watched here: the rows kept, the views last
    sent, and their sending (one look at a time)."""

    def __init__(self, hub: Hub, timing: presence.ViewTiming) -> None:
        self.hub = hub
        self.timing = timing
        self.rows: dict[int, dict[int, presence.Row]] = {}
        """The presence rows of the tables watched here, by table and seat."""
        self.sent: dict[int, presence.SeatView] = {}
        """Who is there at each table watched here, as last sent to it."""
        self.lock = asyncio.Lock()
        """Who is there is decided and sent one look at a time: an older look never
        follows a newer one."""

    # -- the rows kept ----------------------------------------------------------------

    def keep(self, rows: Iterable[presence.Row]) -> None:
        """Take the rows (as written or announced) of the tables whose rows are
        kept here, each unless a newer state of it is kept already."""
        for row in rows:
            kept = self.rows.get(row.table_id)
            if kept is None:
                continue
            old = kept.get(row.seat)
            if old is None or row.version >= old.version:
                kept[row.seat] = row

    def forget(self, table_id: int, seats: Iterable[int]) -> None:
        """The rows of those seats were deleted (the seats freed)."""
        kept = self.rows.get(table_id)
        for seat in seats:
            if kept is not None:
                kept.pop(seat, None)

    def drop(self, table_id: int) -> None:
        """Keep nothing of a table nobody here is connected to (or whose seats
        changed: its rows are read again when next needed)."""
        self.rows.pop(table_id, None)
        self.sent.pop(table_id, None)

    def reread(self, table_id: int) -> None:
        """The table's seats may have changed hands: its rows are read again when
        next needed (what was last sent is kept, to send only a change)."""
        self.rows.pop(table_id, None)

    def clear(self) -> None:
        """Keep nothing (announcements may have been missed: all read again)."""
        self.rows.clear()
        self.sent.clear()

    async def heard(self, event: Mapping[str, Any]) -> None:
        """A ``presence`` announcement: its rows kept, and the table's connections
        here told who is there, if that changed."""
        table_id, found = event.get("table"), presence.announced(event)
        if not isinstance(table_id, int) or found is None:
            return
        rows, gone = found
        self.keep(rows)
        self.forget(table_id, gone)
        await self.push(table_id)

    async def _rows_of(self, tables: Sequence[Table], again: bool = False
                       ) -> dict[int, dict[int, presence.Row]]:
        """The rows of ``tables``: as kept, those not kept read (one query; kept
        from now on for the tables watched here), or (``again``) all read and
        merged with those kept."""
        wanted = [t.id for t in tables if again or t.id not in self.rows]
        read: dict[int, dict[int, presence.Row]] = {}
        if wanted:
            for table_id in wanted:  # announced while this reads: kept meanwhile
                if self.hub.room.watching(table_id):
                    self.rows.setdefault(table_id, {})
            read = await run_in_threadpool(presence.read_rows, self.hub.server.engine,
                                           wanted)
            for table_id in wanted:
                if table_id in self.rows:
                    self.keep(read.get(table_id, {}).values())
        return {t.id: self.rows[t.id] if t.id in self.rows else read.get(t.id, {})
                for t in tables}

    # -- who is there -----------------------------------------------------------------

    def _here(self, table: Table) -> set[int]:
        return {seat for watcher in self.hub.room.at(table.id)
                if (seat := table.seat_of(watcher.account)) is not None}

    async def views(self, tables: Sequence[Table], again: bool = False
                    ) -> dict[int, presence.SeatView]:
        """Who is there at each of ``tables`` now (its seats connected here count
        as connected whatever the rows say); the round's moves as known here, read
        (one query) only for playing tables whose moves are not known here."""
        rows = await self._rows_of(tables, again)
        done: dict[int, presence.Done] = {}
        lacking = []
        for table in tables:
            known = self.hub.known.get(table.id)
            if known is not None and known.round == table.round:
                done[table.id] = known.done
            elif table.status == "playing":
                lacking.append(table)
        if lacking:
            done.update(await run_in_threadpool(presence.read_done, self.hub.server.engine,
                                                lacking))
        now, continuable = self.hub.clock.now(), self.hub.sweep.continuable
        return {table.id: presence.view_of(table, now, self.timing, self._here(table),
                                           table.ruleset_id in continuable,
                                           rows.get(table.id, {}), done.get(table.id, {}))
                for table in tables}

    async def view(self, table: Table) -> presence.SeatView:
        """Who is there at ``table`` now."""
        return (await self.views([table]))[table.id]

    def left(self, table: Table) -> list[int] | None:
        """The seats whose player left the table's round, from the rows kept
        (``None`` when they are not kept here)."""
        kept = self.rows.get(table.id)
        if kept is None:
            return None
        return sorted(seat for seat, row in kept.items() if row.left_round == table.round)

    # -- sent -------------------------------------------------------------------------

    async def greet(self, watcher: Watcher, table: Table) -> None:
        """Send a connection that just opened the ``table`` message, with who is
        there now, and count it greeted: from then on it is sent each change. What
        it is told is what the table's other connections were told last (a change
        since is sent to them first)."""
        async with self.lock:
            view = await self.view(table)
            if self.sent.get(table.id) != view:
                self.sent[table.id] = view
                self._send(table.id, view)
            watcher.post(table.message(view))
            watcher.greeted = True

    async def table_message(self, table: Table) -> dict[str, Any]:
        """The ``table`` message of ``table`` for every connection of it, with who
        is there now (kept as sent)."""
        async with self.lock:
            view = await self.view(table)
            self.sent[table.id] = view
            return dict(table.message(view))

    async def push(self, table_id: int) -> None:
        """Send the table's connections here who is there, when it changed since
        last sent."""
        if not self.hub.room.watching(table_id):
            return
        table = await self.hub.cached_table(table_id)
        async with self.lock:
            view = await self.view(table)
            if self.sent.get(table_id) == view:
                return
            self.sent[table_id] = view
            self._send(table_id, view)

    async def push_all(self) -> None:
        """Read the rows of every table watched here again (one query per
        :data:`~blockyard.server.presence.VIEW_BATCH` tables: the moments other
        processes last saw their seats) and send each who is there where it changed
        since last sent (time changes it too)."""
        tables = []
        for table_id in self.hub.room.watched():
            with contextlib.suppress(TableError):
                tables.append(await self.hub.cached_table(table_id))
        async with self.lock:
            for first in range(0, len(tables), presence.VIEW_BATCH):
                batch = tables[first:first + presence.VIEW_BATCH]
                for table_id, view in (await self.views(batch, again=True)).items():
                    if self.hub.room.watching(table_id) and self.sent.get(table_id) != view:
                        self.sent[table_id] = view
                        self._send(table_id, view)

    def _send(self, table_id: int, view: presence.SeatView) -> None:
        """The ``seats`` message to the table's connections here that were sent
        the table (one opening gets who is there in its ``table`` message)."""
        message = protocol.seats(view.presence, view.waiting_for)
        for watcher in self.hub.room.at(table_id):
            if watcher.greeted:
                watcher.post(message)
