"""Live tables (their routes: :mod:`.routes.tables`: ``POST /api/tables``, ``GET
/api/tables``, ``POST /api/tables/{id}/join`` and the WebSocket
``/api/tables/{id}/live``).

Every seat plays the same deal (the table's seed). Each ``act`` is judged by
the table's :class:`~blockyard.server.referee.Referee` (the rules of a table,
time included, on the server's clock), stored, then broadcast as a ``move`` to
every player and spectator of the table, in order; a refused action is answered
to its sender alone. A connection gets the table and every move of the round so
far when it opens, so a player whose connection dropped reconnects (the same
token) and carries on. A seat whose player is away from every server process
for the abandon time (``BLOCKYARD_SERVER_ABANDON_SECONDS``; never connected
counts as away) is ended at a playing table (the ``end`` action) and freed at a
waiting one (:mod:`~blockyard.server.presence`, in the database); a seat idle
for ``BLOCKYARD_SERVER_IDLE_SECONDS`` is ended, and a falling round ends on the
server's clock. When every seat is finished, the result (scores, winner: the
best score of the seats that finished rather than left, ``null`` on a tie; the
rules of a rated round judged where it is stored:
:func:`~blockyard.server.tablestore.finish_round`) is stored and sent (and kept per seated account:
``GET /api/accounts/{name}/tables``); ``rematch`` deals anew at the same table.
At a playing table of a realtime game (a falling game) each ``table`` message is
followed by a ``clock`` message, the seconds since the round started.

Who is there (each seat present, away, reconnecting or left, and whom a playing
table waits for: :func:`~blockyard.server.presence.seat_view`) is in every
``table`` message and sent again (a ``seats`` message) whenever it changes: a
connection of a seat opens or closes, its window says it is away or active
(the ``presence`` message), a seat finishes or acts after being away, a seat
is left or abandoned (each change announced to every process with the rows it
left: :mod:`~blockyard.server.seatviews`), or time passes (each sweep looks
again). A seated player's quick phrase (``say``,
one of :data:`~blockyard.protocol.PHRASES`; at most ``phrases`` a minute per
account, else refused ``too-many``; a spectator's refused ``spectator``) is
announced (a ``said`` announcement) and sent as ``said`` to every connection of
the table but its speaker's, and those whose player muted the speaker.

Signing out (``DELETE /api/sessions``) closes every connection opened with that
token (code 4401, :meth:`Hub.sign_out`, :meth:`Room.close_signed_out`; announced
to every process), and nothing it sends afterwards is accepted: each action is
stored with its connection's token, and the transaction that would store it
sees a sign-out committed before it (:class:`~blockyard.server.actionstore.Revoked`),
whichever process signed out and whether or not the announcement has arrived
here. An action the
database cannot store (away) is refused, kind ``not-now``, and the connection
stays open. The messages of a connection are counted per
account (an address when not signed in) across its reconnects
(``Server.live_messages``), and a code sent for a private table by someone
neither seated nor invited is a guess, counted per account and per address
(:func:`guess_allowed`; over the limits 429, or close code 4429).

Every action and result is in the database, never only in this process: the
referees are caches, rebuilt from the stored actions whenever they are missing
or behind.

The :class:`Hub` connects the three parts of a live table: the
:class:`~blockyard.server.referee.Referee` decides (held here per table, a cache
rebuilt from the stored moves), the store keeps
(:class:`~blockyard.server.actionstore.ActionStore`, group commit, and
:mod:`~blockyard.server.tablestore`), the :class:`~blockyard.server.room.Room`
holds this process's connections and fans messages out to them. Its timer is a
:class:`~blockyard.server.sweep.Sweep`, the kept moves are in
:mod:`~blockyard.server.livecache`, presence in :mod:`~blockyard.server.presence`
and who is there as this process keeps it in :mod:`~blockyard.server.seatviews`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as _dt
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.concurrency import run_in_threadpool

from .. import protocol
from ..discovery import known_ids, load_ruleset
from ..errors import PluginError, RulesetError
from ..game import today_in
from . import accounts, announcements, friends, livecache, metrics, presence, tablestore
from .accounts import Account
from .actionstore import ActionStore, Revoked, Taken, Unstored
from .clock import Clock
from .events import Events
from .referee import (
    END,
    MAX_ACTION_ARGS,
    REFUSAL_KINDS,
    Outages,
    Referee,
    Refusal,
    Timing,
    check_action,
    refused,
    round_elapsed,
)
from .room import Connection, Room, Watcher
from .seatviews import SeatViews
from .sockets import Hellos
from .sweep import Sweep
from .tablestore import Move, Table, TableError
from .web import account_listing

__all__ = ["MAX_ACTION_ARGS", "REFUSAL_KINDS", "Hub", "check_action", "refused"]

if TYPE_CHECKING:
    from .state import Server

log = logging.getLogger("blockyard.server")
T = TypeVar("T")
CODE_GUESSES = "too many guesses of table codes; try again in a minute"
"""The answer (429, or ``refused`` kind ``too-many`` and close code 4429) to a code
guess over the limits ``code_account`` and ``code_address``."""


def relies_on_code(table: Table, account: Account | None, code: str | None) -> bool:
    """Whether ``code`` is a guess of the table's code: sent for a private table
    by someone neither seated nor invited (counted by the code limits)."""
    return code is not None and table.private and not table.may_watch(account, None)


def guess_allowed(server: Server, account: Account | None, address: str) -> bool:
    """Count a code guess of ``account`` (when signed in), then of ``address``;
    ``False`` when over either limit (a guess refused by the first is not counted
    by the second). Blocking: one short transaction each."""
    if account is not None and not server.code_account.hit(f"account:{account.id}"):
        return False
    return server.code_address.hit(address)


class Hub:
    """The live tables of this process: their :class:`~blockyard.server.room.Room`
    (the connections) and the referees of the tables watched here. Every
    decision is the table's :class:`~blockyard.server.referee.Referee`'s; the hub
    feeds it (the table, the stored moves, the time from the server's clock),
    stores what it accepts (one call, :meth:`~blockyard.server.actionstore.ActionStore.store`:
    with group commit, the move and its announcement in one transaction with
    every other move accepted meanwhile), then announces it through
    :class:`~blockyard.server.events.Events` to every process, whose rooms send
    it to their connections."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.clock: Clock = server.clock
        self.room = Room()
        """This process's live connections (tables' and players' own)."""
        self.hellos = Hellos(self.clock, server.settings.hello_seconds)
        """The live connections here waiting for their ``hello`` (the sweep closes
        those past their time)."""
        self.locks: dict[int, _TableLock] = {}
        """The tables being decided here: one at a time per table, kept only while
        someone holds or waits for it."""
        self.referees: dict[int, Referee] = {}
        """The referee of each table's current round held here (dropped when it
        cannot be trusted: a move it accepted could not be stored)."""
        self.tables: dict[int, Table] = {}
        """The tables with connections here, as last read (dropped on every
        ``table`` announcement: seats, status and round change only with one)."""
        self.known: dict[int, livecache.RoundMoves] = {}
        """The moves of their current rounds read or stored here."""
        self.timing: Timing = server.settings.timing
        self.outages = Outages()
        """When this process found the database away (the abandon sweep does not
        count that time against anyone)."""
        self.sweep = Sweep(self)
        self.sweeper: asyncio.Task[None] | None = None
        self.events = Events(server.engine)
        self.actions = ActionStore(server.engine, clock=server.clock)
        self.marks = presence.Marks(server.engine, announce=self.events.shared)
        """Where the seats' presence is written (group commit; announced at the
        commit where who is there changes)."""
        self.seats = SeatViews(self, presence.ViewTiming(
            away_seconds=server.settings.away_seconds,
            abandon_seconds=self.timing.abandon_seconds,
            stale_seconds=presence.stale_seconds(self.sweep.beat)))
        """Who is there at the tables watched here (kept in memory)."""
        self._subscribe()

    async def start(self) -> None:
        # the plugin registry and the rulesets are loaded here, once, before any
        # connection: loaded on first use by several worker threads at once (the
        # seat games rebuilt after a restart) the registry refuses all but one
        self.sweep.continuable = continuable_rulesets(known_ids())
        await self.events.start()
        self.sweeper = asyncio.create_task(self.sweep.run())

    async def stop(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
        await self.actions.close()  # every accepted move handed over is stored
        await self.events.stop()

    async def sign_out(self, token: str) -> None:
        """The session token whose hash is ``token`` was revoked: this process's
        connections opened with it accept nothing from now on, and every process
        closes its connections of that token (code 4401; announced)."""
        self.room.revoke(token)
        await self.events.publish(announcements.signed_out(token))

    async def signed_in(self, connection: Connection) -> bool:
        """Whether the session token ``connection`` was opened with is still live,
        as the database says now (one query; a spectator's connection: ``True``).
        ``False``: this process's connections of that token are closed (4401), as
        its announcement would have them."""
        token = connection.token
        if token is None:
            return True
        if not connection.signed_out and await run_in_threadpool(
                accounts.session_live, self.server.engine, token):
            return True
        self.room.close_signed_out(token)
        return False

    def lock(self, table_id: int) -> _TableLock:
        """Decide for the table alone (its actions, its clock, leaving, rematch):
        ``async with hub.lock(table_id):``."""
        held = self.locks.get(table_id)
        if held is None:
            held = self.locks[table_id] = _TableLock(self.locks, table_id)
        return held

    async def table(self, table_id: int) -> Table:
        """The table as stored now (and kept as :meth:`cached_table`)."""
        found = await run_in_threadpool(tablestore.load_table, self.server.engine, table_id)
        self.tables[table_id] = found
        return found

    async def cached_table(self, table_id: int) -> Table:
        """The table as last read here (read when not kept)."""
        found = self.tables.get(table_id)
        return found if found is not None else await self.table(table_id)

    def drop(self, table_id: int) -> None:
        """Forget what is kept of a table nobody here is connected to."""
        if not self.room.watching(table_id):
            self.tables.pop(table_id, None)
            self.known.pop(table_id, None)
            self.referees.pop(table_id, None)
            self.seats.drop(table_id)

    # -- announcements ----------------------------------------------------------------

    def _subscribe(self) -> None:
        """This hub's handler of each kind of announcement it acts on."""
        subscribe = self.events.subscribe
        subscribe(announcements.RESYNC, self._on_resync)
        subscribe(announcements.SIGNED_OUT, self._on_signed_out)
        subscribe(announcements.PRESENCE, self._on_presence)
        subscribe(announcements.TABLE, self._on_table)
        subscribe(announcements.SAID, self._on_said)
        subscribe(announcements.MOVES, self._on_moves)
        subscribe(announcements.RESULT, self._on_result)

    async def _on_resync(self, event: announcements.Resync) -> None:
        """Announcements may have been missed: every table watched here reread."""
        self.tables.clear()
        self.known.clear()
        self.referees.clear()
        self.seats.clear()
        for watched in self.room.watched():
            await self.deliver_table(watched)
            await self.deliver_moves(watched)

    async def _on_signed_out(self, event: announcements.SignedOut) -> None:
        token = event.get("token")
        if isinstance(token, str):
            self.room.close_signed_out(token)

    async def _on_presence(self, event: announcements.Presence) -> None:
        if isinstance(event.get("table"), int):
            await self.seats.heard(event)

    async def _on_table(self, event: announcements.TableChanged) -> None:
        table_id = event.get("table")
        if not isinstance(table_id, int):
            return
        kept = self.tables.pop(table_id, None)
        if kept is not None and finished_now(kept, event) and not kept.rated:
            # a round finished: only the status changed (no read; at a rated
            # table the seats' ratings changed too: read again)
            self.tables[table_id] = dataclasses.replace(kept, status="finished")
        elif kept is None or not finished_now(kept, event):
            self.seats.reread(table_id)  # its seats may have changed hands
        if self.room.watching(table_id):
            await self.deliver_table(table_id, self.tables.get(table_id))

    async def _on_said(self, event: announcements.Said) -> None:
        table_id = event.get("table")
        if isinstance(table_id, int) and self.room.watching(table_id):
            await self.deliver_said(table_id, event)

    async def _on_moves(self, event: announcements.Moves) -> None:
        table_id = event.get("table")
        if not isinstance(table_id, int) or not self.room.watching(table_id):
            return
        await self._moves_event(table_id, event)
        if self._changes_seats(table_id, event):
            await self.seats.push(table_id)

    async def _on_result(self, event: announcements.Result) -> None:
        table_id = event.get("table")
        if not isinstance(table_id, int) or not self.room.watching(table_id):
            return
        changes, left = event.get("ratings"), event.get("left")
        self.room.send(table_id, protocol.result(
            event.get("scores") or [], event.get("winner"),
            changes if isinstance(changes, list) else None,
            [s for s in left if isinstance(s, int)] if isinstance(left, list) else [],
            event.get("aborted") is True))

    def _changes_seats(self, table_id: int, event: Mapping[str, Any]) -> bool:
        """Whether a ``moves`` announcement may change who is there: a move that
        ends its seat's game, or of a seat shown away (its player is back), or
        one the announcement does not carry."""
        view = self.seats.sent.get(table_id)
        seat, over = event.get("seat"), event.get("over")
        if view is None or not isinstance(seat, int) or not 0 <= seat < len(view.presence):
            return True
        return over is not False or view.presence[seat] == "away" \
            or list(event.get("action") or []) == ["end"]

    async def _moves_event(self, table_id: int, event: Mapping[str, Any]) -> None:
        """A ``moves`` announcement: the moves sent to the connections here."""
        known = self.known.get(table_id)
        seat, n = event.get("seat"), event.get("n")
        if known is not None and known.round == event.get("round") \
                and isinstance(seat, int) and isinstance(n, int) and known.has(seat, n):
            await self.send_known(table_id)  # stored here: no need to read it
        elif known is not None and known.round == event.get("round") \
                and (move := livecache.announced_move(event)) is not None \
                and known.add(move):  # carried, and the seat's next: no need to read it
            await self._learn(table_id, move)
            await self.send_known(table_id)
        else:
            await self.deliver_moves(table_id)

    def clock_message(self, table: Table) -> protocol.ClockMessage | None:
        """The ``clock`` message after the table message of a playing table of a
        falling game (see :func:`clock_message`), on this server's clock."""
        return clock_message(table, self.clock.now())

    async def deliver_table(self, table_id: int, table: Table | None = None) -> None:
        """Send every connection of the table the table (as given, else as stored
        now) and, at a falling game's playing table, its clock."""
        if table is None:
            table = await self.table(table_id)
        message = await self.seats.table_message(table)
        clock = self.clock_message(table)  # sent before any later look at who is there
        self.room.send(table_id, message, *([clock] if clock is not None else []))

    async def seat_view(self, table: Table) -> presence.SeatView:
        """Who is there at ``table`` now (:class:`~blockyard.server.seatviews.SeatViews`)."""
        return await self.seats.view(table)

    async def window(self, watcher: Watcher, table_id: int, state: str) -> None:
        """The ``presence`` message: the connection's window is in the background
        (``away``) or active again; a spectator's is refused."""
        seat = await self.seat_now(watcher, table_id)
        if seat is None:
            watcher.post(refused("spectators have no seat to be away from", "spectator"))
            return
        self.seats.keep(await run_in_threadpool(
            presence.say_window, self.server.engine, table_id, seat, state == "away",
            self.clock.now(), announce=self.events.shared))
        await self.seats.push(table_id)

    async def say(self, watcher: Watcher, table_id: int, phrase: str) -> None:
        """The ``say`` message: a seated player's quick phrase, counted per account
        (``phrases`` a minute), announced to every process."""
        seat = await self.seat_now(watcher, table_id)
        if seat is None or watcher.account is None:
            watcher.post(refused("spectators cannot speak at a table: take a seat first",
                                 "spectator"))
            return
        account = watcher.account
        if not await run_in_threadpool(self.server.phrase_limit.hit, f"account:{account.id}"):
            watcher.post(refused(f"at most {self.server.settings.limits['phrases']} quick "
                                 "phrases a minute; wait a moment", "too-many"))
            return
        await self.events.publish(announcements.said(table_id, seat, account.id,
                                                     account.name, phrase))

    async def deliver_said(self, table_id: int, event: Mapping[str, Any]) -> None:
        """Send an announced quick phrase to the table's connections here, but its
        speaker's and those of the players who muted the speaker."""
        seat, speaker, name, phrase = (event.get("seat"), event.get("account"),
                                       event.get("name"), event.get("phrase"))
        if not isinstance(seat, int) or not isinstance(speaker, int) \
                or not isinstance(name, str) or phrase not in protocol.PHRASES:
            return
        listeners = [w for w in self.room.at(table_id)
                     if w.account is None or w.account.id != speaker]
        if not listeners:
            return
        ids = {w.account.id for w in listeners if w.account is not None}
        muting = await run_in_threadpool(friends.muters_of, self.server.engine,
                                         speaker, ids)
        message = protocol.said(seat, name, str(phrase))
        for watcher in listeners:
            if watcher.account is None or watcher.account.id not in muting:
                watcher.post(message)

    async def deliver_moves(self, table_id: int, only: Watcher | None = None) -> None:
        """Read the moves of the round not known here yet (one query), then send
        each connection of the table the moves it has not had (and tell the
        table's referee those another process accepted)."""
        await self.know_round(await self.cached_table(table_id))
        await self.send_known(table_id, only)

    async def know_round(self, table: Table) -> None:
        """Every move of the table's round stored so far known here (as a
        connection opens, or to send what an announcement did not carry): those
        not known yet are read (one query, of the moves
        after those known). Read even when this process watches the table: a move
        another process stored just now may not have been announced here yet (its
        player, acknowledged there, reconnecting here at once), and the
        connection is owed it, as this table's referee is before the player's
        next action."""
        known = self.known.get(table.id)
        if known is None or known.round != table.round:
            known = self.known[table.id] = livecache.RoundMoves(table.round)
        for move in await self.actions.moves_after(table.id, known, table.seats):
            known.add(move)
            await self._learn(table.id, move)

    async def _learn(self, table_id: int, move: Move) -> None:
        """Tell the table's referee (when held here) a move of its round another
        process stored; a referee that cannot follow it is dropped (built again
        from the stored moves when next asked)."""
        referee = self.referees.get(table_id)
        known = self.known.get(table_id)
        if referee is None or known is None or referee.table.round != known.round \
                or move.n <= referee.counts[move.seat]:
            return
        if not await judged(referee, referee.learn, move):
            self.referees.pop(table_id, None)

    async def send_known(self, table_id: int, only: Watcher | None = None) -> None:
        """Send each connection of the table (or ``only``) the known moves of the
        round it has not had, in order."""
        known = self.known.get(table_id)
        if known is None:
            await self.deliver_moves(table_id, only)
            return
        self.room.send_moves(table_id, known, only)

    # -- the referee ------------------------------------------------------------------

    def _build(self, table: Table) -> Referee:
        moves = tablestore.actions(self.server.engine, table.id, table.round)
        return Referee(table, moves, timing=self.timing)

    async def referee(self, table: Table) -> Referee:
        """The referee of the table's current round, told the table as given (when
        not held here, or held for another round: built from the round's moves as
        kept here, else as stored)."""
        held = self.referees.get(table.id)
        if held is None or held.table.round != table.round:
            known = self.known.get(table.id)
            if known is not None and known.round == table.round \
                    and not load_ruleset(table.ruleset_id).hooks.timed:
                # every seat's moves from its first, in order: no read (and
                # Blockyard's own rules: built here, as the referee is asked)
                held = Referee(table, known.moves, timing=self.timing)
            else:
                held = await run_in_threadpool(self._build, table)
            self.referees[table.id] = held
        held.table = table
        return held

    async def caught_up(self, table: Table) -> Referee:
        """The table's referee with every move stored so far (of any process: only
        those it lacks are read)."""
        referee = await self.referee(table)
        had = livecache.RoundMoves(table.round, counts=dict(enumerate(referee.counts)))
        for move in await self.actions.moves_after(table.id, had, table.seats):
            if move.n > referee.counts[move.seat] \
                    and not await judged(referee, referee.learn, move):
                self.referees.pop(table.id, None)
                return await self.referee(table)
        return referee

    async def _store(self, table: Table, move: Move, *, deliver: bool = True,
                     token: str | None = None) -> bool:
        """Store an accepted move and (``deliver``) announce it; ``False`` when
        another process stored this seat's step first (the referee is dropped).
        Not delivered, the move is announced by the caller (and known here from it).
        ``token``: the hash of the session token the move was sent with, checked in
        the move's own transaction (:class:`~blockyard.server.actionstore.Revoked`
        raised, the referee dropped, when it was signed out)."""
        event, payload = livecache.encoded_announcement(table, move)
        shared = self.events.shared
        try:  # one transaction: the move and (PostgreSQL) its announcement, grouped
            await self.actions.store(table, move, payload if shared and deliver else None,
                                     token)
        except Taken:
            self.referees.pop(table.id, None)
            await self.events.publish(announcements.moves(table.id))
            return False
        except Exception:  # Revoked, Unstored: the referee took a move not stored
            self.referees.pop(table.id, None)
            raise
        if not deliver:  # announced by the caller, and known here from that: so no
            return True  # other send shows it before the round's result is stored
        known = self.known.get(table.id)
        # known here: added now, or already (its announcement, sent at the commit,
        # may come back to this process before this call resumes)
        added = known is not None and known.round == table.round \
            and (known.has(move.seat, move.n) or known.add(move))
        if added:
            await (self.send_known(table.id) if shared else self.events.publish(event))
        elif shared:
            await self.deliver_moves(table.id)
        else:
            await self.events.publish(event)
        return True

    async def _store_all(self, table: Table, referee: Referee, moves: list[Move], *,
                         token: str | None = None) -> bool:
        """Store the referee's moves in order, then the result if the round is over;
        ``False`` when one could not be stored (the rest are not). Moves that
        finish their seat are announced only once the round's result, when they
        complete it, is stored: whoever sees the round's last move finds its
        result. ``token``: the hash of the session token the moves were sent with
        (``None``: the clock's)."""
        finishing = bool(moves) and referee.finished(moves[-1].seat)
        stored: list[Move] = []
        for move in moves:
            if not await self._store(table, move, deliver=not finishing, token=token):
                await self._announce(table, stored)
                return False
            stored.append(move)
        if finishing:
            await self._maybe_finish(table, stored)
        return True

    async def _announce(self, table: Table, moves: list[Move]) -> None:
        for move in moves:  # known here already (_store): every process is told
            await self.events.publish(livecache.announcement(table, move))

    async def _maybe_finish(self, table: Table, moves: list[Move] | None = None) -> None:
        """Store the round's result when every seat is finished (the referee first
        told every move stored, of any process), then announce ``moves`` (stored
        and not yet announced), the table and the result, in that order (on
        PostgreSQL at the result's own commit)."""
        shared = self.events.shared
        told = [livecache.announcement(table, move) for move in moves or []]
        result, done = None, None
        ends: list[announcements.Announcement] = []

        def announced(stored: tablestore.Finished) -> list[announcements.Announcement]:
            # the round's end as its transaction stored it: the winner, the seats
            # that left and the rating changes judged there
            assert result is not None
            ends[:] = [announcements.table_changed(table.id, round=table.round, status="finished"),
                       announcements.result(table.id, result.scores, stored.winner, stored.ratings,
                                   stored.left, stored.aborted)]
            return told + ends if shared else []

        try:
            # every seat finished as known here: each seat's moves are known up to
            # its last (a finished seat makes no more), so nothing stored is lacking
            held = self.referees.get(table.id)
            known = held is not None and held.table.round == table.round \
                and held.result() is not None
            referee = held if known and held is not None else await self.caught_up(table)
            result = referee.result()
            if result is not None:
                done = await run_in_threadpool(
                    tablestore.finish_round, self.server.engine, table, result.scores,
                    announced, self.clock.now())
        finally:  # stored, the moves are announced whatever became of the result
            if not (done is not None and shared):
                for move_event in told:
                    await self.events.publish(move_event)
        if result is not None and done is not None:
            if table.rated:  # the seats' ratings changed with the result: read again
                self.tables.pop(table.id, None)
            else:
                self.tables[table.id] = dataclasses.replace(table, status="finished")
            if not shared:
                for event in ends:
                    await self.events.publish(event)

    async def run_clock(self, table_id: int) -> None:
        """The moves the table's clock calls for now (a falling round's end, idle
        seats), stored (:meth:`Referee.due`). A table whose held referee has
        nothing due is passed over without its lock (the sweep asks every table
        watched here, every beat)."""
        held, kept = self.referees.get(table_id), self.tables.get(table_id)
        if held is not None and kept is not None and held.table.round == kept.round:
            due = held.next_due(self.outages.back_at)
            if kept.status != "playing" or due is None or due > self.clock.now():
                return
        async with self.lock(table_id):
            await self._run_clock(await self.cached_table(table_id))

    async def _run_clock(self, table: Table) -> Referee | None:
        if table.status != "playing":
            return None
        referee = await self.referee(table)
        back = self.outages.back_at
        due = referee.next_due(back)
        if due is None or due > self.clock.now():
            return referee
        moves = await judged(referee, referee.due, self.clock.now(), back)
        for move in moves:  # idle: the seat left the round (ranked last in its result)
            if move.action == END and move.seat in referee.idled:
                await self.left(table, move.seat)
        if not await self._store_all(table, referee, moves):
            return None
        return referee

    async def act(self, watcher: Watcher, table_id: int, action: Any) -> None:
        async with self.lock(table_id):
            if watcher.signed_out:  # signed out while this waited its turn
                return
            table = await self.cached_table(table_id)
            referee = await self._run_clock(table) or await self.referee(table)
            verdict = await judged(referee, referee.act, table.seat_of(watcher.account),
                                   action, self.clock.now())
            if isinstance(verdict, Refusal):
                metrics.actions.labels("refused", verdict.kind).inc()
                watcher.post(verdict.message())
                return
            try:
                stored = await self._store_all(table, referee, [verdict],
                                               token=watcher.token)
            except Revoked:  # signed out, maybe on another process: seen in the
                # move's own transaction, before the announcement reaches this one
                metrics.actions.labels("refused", "signed-out").inc()
                if watcher.token is not None:
                    self.room.close_signed_out(watcher.token)
                return
            except Unstored:  # the database away: no one's fault, nothing accepted
                self.outages.failed(self.clock.now())
                metrics.actions.labels("refused", "not-now").inc()
                watcher.post(refused("the move could not be stored: the server's database "
                                     "is away; try again shortly", "not-now"))
                return
            if not stored:
                metrics.actions.labels("refused", "conflict").inc()
                watcher.post(refused("another connection of this seat acted first; "
                                     "the table has been sent again", "conflict"))
                return
            metrics.actions.labels("accepted", "").inc()

    async def end_seat(self, table_id: int, seat: int) -> None:
        """End a seat's game (the player left or abandoned it)."""
        async with self.lock(table_id):
            table = await self.table(table_id)
            if table.status != "playing":
                return
            referee = await self.caught_up(table)
            move = await judged(referee, referee.end_seat, seat, self.clock.now())
            if move is not None:
                await self._store_all(table, referee, [move])

    async def leave(self, watcher: Watcher, table_id: int) -> None:
        """The player of ``watcher`` leaves the table, decided in the database
        (:func:`~blockyard.server.tablestore.leave_table`, seeing the table's
        status and round as they are now): the seat freed, the rematch's round
        declined, or the seat's game ended. A spectator's ``leave`` is not answered."""
        if watcher.account is None:
            return
        table = await self.cached_table(table_id)
        async with self.lock(table_id):
            outcome, table, seat = await run_in_threadpool(
                tablestore.leave_table, self.server.engine, table_id, watcher.account,
                self.deal_date(table.ruleset_id))
            if outcome in ("freed", "declined") and seat is not None:
                await run_in_threadpool(presence.forget, self.server.engine, table_id, seat)
                self.referees.pop(table_id, None)
                self.tables.pop(table_id, None)
        if outcome in ("freed", "declined"):
            await self.events.publish(announcements.table_changed(table_id))
        elif outcome == "end" and seat is not None:
            if seat in (await self.seat_view(table)).waiting_for:
                await self.left(table, seat)  # not finished: the seat left the round
            await self.end_seat(table_id, seat)

    async def left(self, table: Table, seat: int) -> None:
        """The seat's player left the table's current round (the ``leave`` message,
        or abandoned): so every process shows it, and the round's result says it."""
        self.seats.keep(await run_in_threadpool(
            presence.mark_left, self.server.engine, table.id, seat, table.round,
            announce=self.events.shared))
        await self.seats.push(table.id)

    async def end_or_decline(self, table: Table, seat: int) -> None:
        """A player leaves a playing table (or is away past the timeout): a round
        another seat's rematch dealt, in which this seat has not acted, is declined
        (the seat freed, the round dealt again and waiting for a player); any other
        ends the seat's game."""
        table_id = table.id
        if table.rematch_by is not None and table.rematch_by != seat:
            async with self.lock(table_id):
                declined = await run_in_threadpool(
                    tablestore.decline_rematch, self.server.engine, table, seat,
                    self.deal_date(table.ruleset_id))
                if declined:
                    await run_in_threadpool(presence.forget, self.server.engine,
                                            table_id, seat)
                    self.referees.pop(table_id, None)
                    self.tables.pop(table_id, None)
            if declined:
                await self.events.publish(announcements.table_changed(table_id))
                return
        await self.end_seat(table_id, seat)

    async def rematch(self, watcher: Watcher, table_id: int) -> None:
        async with self.lock(table_id):
            table = await self.table(table_id)
            seat = table.seat_of(watcher.account)
            problem = (await self.referee(table)).rematch(seat)
            if problem is not None:
                watcher.post(problem.message())
                return
            try:
                await run_in_threadpool(tablestore.rematch, self.server.engine, table,
                                        self.deal_date(table.ruleset_id), seat,
                                        self.clock.now())
            except TableError as exc:  # the asker holds the most seats one may
                watcher.post(refused(str(exc), "seats-held"))
                return
            self.referees.pop(table_id, None)
            self.tables.pop(table_id, None)
            if seat is not None:  # asking is the player's input: present in the new round
                self.seats.keep(await run_in_threadpool(
                    presence.mark_active, self.server.engine, table_id, seat,
                    self.clock.now(), announce=self.events.shared))
        await self.events.publish(announcements.table_changed(table_id))

    @staticmethod
    def deal_date(ruleset_id: str) -> str | None:
        """The date of a new deal of ``ruleset_id``: today's for a daily ruleset."""
        ruleset = load_ruleset(ruleset_id)
        return today_in(ruleset.timezone).isoformat() if ruleset.is_daily else None

    # -- presence ---------------------------------------------------------------------

    async def touch(self, seats: list[tuple[int, int]], at: _dt.datetime | None = None
                    ) -> None:
        """Mark ``(table id, seat)`` pairs present now (or ``at``; in the database,
        with the other marks made meanwhile: :class:`~blockyard.server.presence.Marks`)."""
        self.seats.keep(await self.marks.mark(seats, at or self.clock.now()))

    async def left_seats(self, table: Table) -> list[int]:
        """The seats whose player left the table's round (as kept here, else as
        stored)."""
        kept = self.seats.left(table)
        if kept is not None:
            return kept
        return await run_in_threadpool(presence.left_seats, self.server.engine, table.id,
                                       table.round)

    async def seat_now(self, watcher: Watcher, table_id: int) -> int | None:
        """The seat the connection's account holds at the table (as kept here: a
        table announcement drops what is kept, so it is read again after any
        change of its seats)."""
        if watcher.account is None:
            return None
        with contextlib.suppress(TableError):
            return (await self.cached_table(table_id)).seat_of(watcher.account)
        return None

    async def arrived(self, watcher: Watcher, table: Table) -> None:
        """A connection to ``table`` (as read just now) opened: its seat, if its
        account holds one, is present from now on (announced to every process at
        the commit; this one's connections are told when it is greeted)."""
        seat = table.seat_of(watcher.account)
        if seat is not None:
            watcher.linked = seat
            self.seats.keep(await self.marks.mark([(table.id, seat)], self.clock.now(),
                                                  links=1))

    async def link(self, table_id: int, seat: int) -> None:
        """The sweep found connections here of a seat their account took while
        connected (a spectator who joined): counted now as that seat's."""
        for watcher in self.room.at(table_id):
            if watcher.linked is None and watcher.account is not None \
                    and (await self.seat_now(watcher, table_id)) == seat:
                watcher.linked = seat
                self.seats.keep(await self.marks.mark([(table_id, seat)], self.clock.now(),
                                                      links=1))
                await self.seats.push(table_id)

    async def departed(self, watcher: Watcher, table_id: int, at: _dt.datetime) -> None:
        """The connection closed at ``at``: the seat's away time counts from then
        (however long the database takes to hear it; the seat its account holds
        now, if any)."""
        seat = await self.seat_now(watcher, table_id)
        linked, watcher.linked = watcher.linked, None
        if linked is not None:  # seen at ``at`` too: one write
            self.seats.keep(await self.marks.mark([(table_id, linked)], at, links=-1))
        if seat is not None and seat != linked:
            await self.touch([(table_id, seat)], at)
        if seat is not None or linked is not None:  # a spectator's changes nothing
            await self.seats.push(table_id)


class _TableLock:
    """One table's lock (:meth:`Hub.lock`), kept in ``locks`` only while someone
    holds it or waits for it. (A class of its own rather than a generator-based
    context manager: it is taken at every action.)"""

    __slots__ = ("lock", "locks", "table_id", "users")

    def __init__(self, locks: dict[int, _TableLock], table_id: int) -> None:
        self.lock = asyncio.Lock()
        self.locks = locks
        self.table_id = table_id
        self.users = 0
        """How many hold it or wait for it."""

    async def __aenter__(self) -> None:
        self.users += 1
        try:
            await self.lock.acquire()
        except BaseException:
            self._leave()
            raise

    async def __aexit__(self, *exc: object) -> None:
        self.lock.release()
        self._leave()

    def _leave(self) -> None:
        self.users -= 1
        if not self.users and self.locks.get(self.table_id) is self:
            del self.locks[self.table_id]


async def judged(referee: Referee, ask: Callable[..., T], *args: Any) -> T:
    """``ask(*args)``, a question to ``referee``: answered here, in the event loop,
    when its rules are Blockyard's own (:attr:`Referee.inline`: microseconds, less
    than a hand-off to a worker thread costs), else in a worker thread."""
    if referee.inline:
        return ask(*args)
    return await run_in_threadpool(ask, *args)


def finished_now(table: Table, event: Mapping[str, Any]) -> bool:
    """Whether a ``table`` announcement says only that ``table``'s round (as kept)
    has finished: the status is all that changed."""
    return table.status in ("playing", "finished") and event.get("status") == "finished" \
        and event.get("round") == table.round


def continuable_rulesets(ids: Iterable[str]) -> frozenset[str]:
    """The rulesets of ``ids`` (those that load) whose rules offer an action after
    the end of the game."""
    found = set()
    for ruleset_id in ids:
        try:
            specs = load_ruleset(ruleset_id).action_specs.values()
        except (RulesetError, PluginError):
            continue
        if any(spec.after_end for spec in specs):
            found.add(ruleset_id)
    return frozenset(found)


def clock_message(table: Table, now: _dt.datetime) -> protocol.ClockMessage | None:
    """The ``clock`` message sent after the ``table`` message of a playing table of
    a realtime game (a falling game): the seconds since the round started at
    ``now``, so a client (a window opening or reopening on the table) brings its
    game clock up to the table's. ``None`` for other tables."""
    elapsed = round_elapsed(table, now)
    return None if elapsed is None else protocol.clock(elapsed)


def account_tables(server: Server, name: str, limit: int) -> dict[str, Any]:
    """The answer of ``GET /api/accounts/{name}/tables`` (``ApiError`` 422 for a
    bad name or limit, 404 for no such account)."""
    return account_listing(name, limit, "tables",
                           lambda who, n: tablestore.account_results(server.engine, who, n))
