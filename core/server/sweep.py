"""The timer of the live tables in one server process: every few seconds (and at
the moment a table's referee is next due) a :class:`Sweep` closes the live
connections that sent no ``hello`` in time, marks this process's
connected seats present, ends or frees the seats away from every process for the
abandon time, and makes the moves the tables' clocks call for (a falling round's
end, idle seats). What each of those is, is the referee's
(:mod:`~blockyard.server.referee`); the sweep only asks on time and has the hub
(:mod:`~blockyard.server.tables`) store and deliver the answers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from starlette.concurrency import run_in_threadpool

from . import announcements, presence

if TYPE_CHECKING:
    from .tables import Hub

log = logging.getLogger("blockyard.server")


class Sweep:
    """The timer of one process's hub."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        timing = hub.timing
        self.beat = min(5.0, max(0.2, min(timing.abandon_seconds, timing.idle_seconds) / 4))
        """Seconds between two sweeps at most."""
        self.continuable: frozenset[str] = frozenset()
        """The rulesets whose rules offer an action after the end (eu's continue):
        a seat over in one is finished only when nothing is left to offer (set by
        the hub on start)."""

    async def connected_seats(self) -> list[tuple[int, int]]:
        """The ``(table id, seat)`` of every seat whose current player (as stored
        now: one query) has a live connection to its table in this process."""
        hub = self.hub
        here = hub.room.seated_here()
        if not here:
            return []
        held = await run_in_threadpool(presence.held_seats, hub.server.engine,
                                       {table_id for table_id, _ in here})
        found = sorted({(table_id, seat) for table_id, seat, holder in held
                        if (table_id, holder) in here})
        for table_id, seat in found:  # a spectator who took a seat: counted as its
            if not any(w.linked == seat for w in hub.room.at(table_id)):
                await hub.link(table_id, seat)
        return found

    async def once(self) -> list[tuple[int, str, int]]:
        """Mark this process's connected seats present, end or free the seats away
        from every process for the abandon time (never counting a time the
        database was away: :class:`~blockyard.server.referee.Outages`), and make
        the moves the clocks of the tables watched here call for; the seats ended
        or freed."""
        hub = self.hub
        hub.hellos.close_overdue()  # the connections that sent no hello in time
        try:
            await hub.touch(await self.connected_seats())
        except Exception:
            hub.outages.failed(hub.clock.now())
            raise
        now = hub.clock.now()
        hub.outages.answered(now)
        cutoff = hub.outages.abandon_cutoff(now, hub.timing.abandon_seconds)
        if cutoff is None:
            found: list[tuple[int, str, int]] = []
        else:
            found = await run_in_threadpool(presence.overdue, hub.server.engine, cutoff,
                                            presence.OVERDUE_BATCH, self.continuable)
        for table_id, status, seat in found:
            with contextlib.suppress(Exception):  # one table's trouble stops no other
                if status == "playing":
                    table = await hub.table(table_id)
                    await hub.left(table, seat)  # abandoned: the seat left the round
                    await hub.end_or_decline(table, seat)
                elif cutoff is not None and await run_in_threadpool(
                        presence.free_waiting, hub.server.engine, table_id, seat, cutoff):
                    await hub.events.publish(announcements.table_changed(table_id))
            hub.drop(table_id)  # what was read for it, unless someone here watches
        for table_id in hub.room.watched():
            try:
                await hub.run_clock(table_id)
            except Exception as exc:  # one table's trouble stops no other
                log.warning("table %s: the clock's moves failed (%s)", table_id,
                            type(exc).__name__)
        try:  # who is there changes with time too
            await hub.seats.push_all()
        except Exception as exc:  # the database away for a moment: the next sweep
            log.warning("who is there could not be told (%s)", type(exc).__name__)
        return found

    def pause(self) -> float:
        """Seconds until the next sweep: a beat, or less when a referee held here
        is due sooner (a falling round ending between two beats)."""
        hub = self.hub
        now = hub.clock.now()
        pause = self.beat
        for referee in list(hub.referees.values()):
            due = referee.next_due(hub.outages.back_at)
            if due is not None:
                pause = min(pause, max(0.05, (due - now).total_seconds()))
        return pause

    async def run(self) -> None:
        """:meth:`once` every :meth:`pause` seconds (runs until cancelled)."""
        while True:
            await asyncio.sleep(self.pause())
            try:
                await self.once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the database away for a moment: the next sweep
                log.warning("seat sweep failed (%s)", type(exc).__name__)
