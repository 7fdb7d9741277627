"""Live tables: ``POST /api/tables``, ``GET /api/tables``, ``POST
/api/tables/{id}/join`` and the WebSocket ``/api/tables/{id}/live``.

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
best score, ``null`` on a tie) is stored and sent (and kept per seated account:
``GET /api/accounts/{name}/tables``); ``rematch`` deals anew at the same table.
At a playing table of a realtime game (a falling game) each ``table`` message is
followed by a ``clock`` message, the seconds since the round started.

Signing out (``DELETE /api/sessions``) closes every connection opened with that
token (code 4401, :meth:`Hub.sign_out`; announced to every process), and nothing
it sends afterwards is accepted. The messages of a connection are counted per
account (an address when not signed in) across its reconnects
(``Server.live_messages``), and a code sent for a private table by someone
neither seated nor invited is a guess, counted per account and per address
(:func:`guess_allowed`; over the limits 429, or close code 4429).

Every action and result is in the database, never only in this process: the
referees are caches, rebuilt from the stored actions whenever they are missing
or behind.

The :class:`Hub` holds the connections and the referees, delivers and stores;
its timer is a :class:`~blockyard.server.sweep.Sweep`, the storage is in
:mod:`~blockyard.server.tablestore`, the kept moves in
:mod:`~blockyard.server.livecache`, presence in :mod:`~blockyard.server.presence`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import json
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import sqlalchemy as sa
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field
from starlette import websockets as _starlette_websockets
from starlette.concurrency import run_in_threadpool

from ..discovery import known_ids, load_ruleset
from ..errors import PluginError, RulesetError
from ..game import today_in
from ..ruleset import ID_PATTERN
from . import accounts, livecache, presence, social, tablestore
from .accounts import Account
from .actionstore import ActionStore
from .clock import Clock
from .events import Events
from .referee import (
    ABANDON_ENV,
    ABANDON_SECONDS,
    CLOCK_ENV,
    CLOCK_TOLERANCE,
    IDLE_ENV,
    IDLE_SECONDS,
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
from .sweep import Sweep
from .tablestore import Move, Table, TableError

__all__ = ["ABANDON_ENV", "ABANDON_SECONDS", "CLOCK_ENV", "CLOCK_TOLERANCE", "IDLE_ENV",
           "IDLE_SECONDS", "MAX_ACTION_ARGS", "REFUSAL_KINDS", "Hub", "Watcher",
           "check_action", "install", "refused"]

if TYPE_CHECKING:
    from .app import Server

log = logging.getLogger("blockyard.server")
GONE: tuple[type[Exception], ...] = tuple(
    kind for kind in (WebSocketDisconnect,
                      getattr(_starlette_websockets, "WebSocketDisconnected", None))
    if kind is not None)
"""A live connection that is gone (newer Starlette raises ``WebSocketDisconnected``
on reading after a send to a closed peer)."""
DATABASE_AWAY = "the server's database is away: try again shortly"
"""The reason of a live connection closed (code 1013) because the database is away."""
BINARY_FRAME = "expected text frames, each one JSON object (a binary frame is not read)"
"""The ``refused`` reason (kind ``malformed``) of a binary frame."""
SIGNED_OUT = "signed out: the session token of this connection was revoked"
"""The ``refused`` reason (kind ``signed-out``) sent before a connection is closed
(code 4401) because its token was signed out."""
CODE_GUESSES = "too many guesses of table codes; try again in a minute"
"""The answer (429, or ``refused`` kind ``too-many`` and close code 4429) to a code
guess over the limits ``code_account`` and ``code_address``."""
MAX_REVOKED = 10_000
"""How many tokens signed out lately a process keeps (:attr:`Hub.revoked`)."""


async def receive_text(socket: WebSocket) -> str | None:
    """The next text frame of ``socket``, or ``None`` for a binary frame (which a
    live connection answers as malformed and carries on); one of :data:`GONE`
    raised when the peer is gone."""
    message = await socket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(int(message.get("code") or 1000), message.get("reason"))
    text = message.get("text")
    return text if isinstance(text, str) else None


async def close_signed_out(socket: WebSocket, lock: asyncio.Lock) -> None:
    """Tell a connection its token was signed out and close it (code 4401); once
    closed, nothing more is sent (a second call does nothing)."""
    async with lock:
        with contextlib.suppress(Exception):  # closed already: nothing to do
            await socket.send_json(refused(SIGNED_OUT, "signed-out"))
            await socket.close(4401)


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


class NewTable(BaseModel):
    """``POST /api/tables``: the ruleset, the seats, who may join."""

    model_config = ConfigDict(strict=True, extra="forbid")
    ruleset_id: Annotated[str, Field(max_length=64)]
    seats: Annotated[int, Field(ge=tablestore.MIN_SEATS, le=tablestore.MAX_SEATS)] = 2
    private: bool = False
    invite: Annotated[list[Annotated[str, Field(max_length=24)]],
                      Field(max_length=tablestore.MAX_INVITES)] = []


class JoinTable(BaseModel):
    """``POST /api/tables/{id}/join``: the table's code (for a private table
    without invitation)."""

    model_config = ConfigDict(strict=True, extra="forbid")
    code: Annotated[str | None, Field(max_length=16)] = None


@dataclass(eq=False)
class Watcher:
    """One live connection, signed in (``account``) or not. Whether it is a
    player's is read from the table each time (a spectator may take a seat, a
    player may leave it while connected), never kept here."""

    socket: WebSocket
    account: Account | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    token: str | None = None
    """What the database keeps of the session token it was opened with (its hash)."""
    signed_out: bool = False
    """The token was signed out: nothing more it sends is accepted."""
    round: int = 0
    seen: set[tuple[int, int]] = field(default_factory=set)
    """The (seat, n) of every move of :attr:`round` sent to this connection."""

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            await self.send_unlocked(message)

    async def send_unlocked(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # a closed connection: it is being dropped
            await self.socket.send_json(message)


class Hub:
    """This process's live connections and the referees of their tables. Every
    decision is the table's :class:`~blockyard.server.referee.Referee`'s; the hub
    feeds it (the table, the stored moves, the time from the server's clock),
    stores what it accepts (one call, :meth:`~blockyard.server.actionstore.ActionStore.store`:
    with group commit, the move and its announcement in one transaction with
    every other move accepted meanwhile), then announces it through
    :class:`~blockyard.server.events.Events` to every process, whose connections
    read it from the database."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.clock: Clock = server.clock
        self.watchers: dict[int, set[Watcher]] = {}
        self.locks: dict[int, asyncio.Lock] = {}
        self.referees: dict[int, Referee] = {}
        """The referee of each table's current round held here (dropped when it
        cannot be trusted: a move it accepted could not be stored)."""
        self.tables: dict[int, Table] = {}
        """The tables with connections here, as last read (dropped on every
        ``table`` announcement: seats, status and round change only with one)."""
        self.known: dict[int, livecache.RoundMoves] = {}
        """The moves of their current rounds read or stored here."""
        self.timing = Timing(idle_seconds=seconds_from_env(IDLE_ENV, IDLE_SECONDS),
                             abandon_seconds=seconds_from_env(ABANDON_ENV, ABANDON_SECONDS),
                             clock_tolerance=seconds_from_env(CLOCK_ENV, CLOCK_TOLERANCE))
        self.outages = Outages()
        """When this process found the database away (the abandon sweep does not
        count that time against anyone)."""
        self.sweep = Sweep(self)
        self.sweeper: asyncio.Task[None] | None = None
        self.events = Events(server.engine, self.on_event)
        self.actions = ActionStore(server.engine)
        """Where accepted moves are stored (group commit)."""
        self.revoked: OrderedDict[str, None] = OrderedDict()
        """The tokens (hashes) signed out lately, the last :data:`MAX_REVOKED`: a
        connection whose token was checked before its sign-out was announced is
        closed once it is registered."""

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

    def revoke(self, token: str) -> None:
        """Keep ``token`` (a hash) among the tokens signed out lately."""
        self.revoked[token] = None
        self.revoked.move_to_end(token)
        while len(self.revoked) > MAX_REVOKED:
            self.revoked.popitem(last=False)

    async def sign_out(self, token: str) -> None:
        """The session token whose hash is ``token`` was revoked: this process's
        table connections opened with it accept nothing from now on, and every
        process closes its connections of that token (code 4401; announced)."""
        self.revoke(token)
        for watchers in self.watchers.values():
            for watcher in watchers:
                if watcher.token == token:
                    watcher.signed_out = True
        await self.events.publish({"kind": "signed-out", "token": token})

    def lock(self, table_id: int) -> asyncio.Lock:
        return self.locks.setdefault(table_id, asyncio.Lock())

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
        if not self.watchers.get(table_id):
            self.watchers.pop(table_id, None)
            self.tables.pop(table_id, None)
            self.known.pop(table_id, None)
            self.referees.pop(table_id, None)

    async def moves(self, table: Table) -> list[Move]:
        return await run_in_threadpool(tablestore.actions, self.server.engine, table.id,
                                       table.round)

    # -- announcements ----------------------------------------------------------------

    async def on_event(self, event: dict[str, Any]) -> None:
        """An announcement from any process (this one too)."""
        kind, table_id = event.get("kind"), event.get("table")
        if kind == "resync":
            self.tables.clear()
            self.known.clear()
            self.referees.clear()
            for watched in list(self.watchers):
                await self.deliver_table(watched)
                await self.deliver_moves(watched)
            return
        if kind == "signed-out":
            token = event.get("token")
            if isinstance(token, str):
                self.revoke(token)
            for watchers in list(self.watchers.values()):
                for watcher in list(watchers):
                    if isinstance(token, str) and watcher.token == token:
                        watcher.signed_out = True
                        await close_signed_out(watcher.socket, watcher.lock)
            return
        if not isinstance(table_id, int):
            return
        if kind == "table":
            self.tables.pop(table_id, None)
        if not self.watchers.get(table_id):
            return
        if kind == "moves":
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
        elif kind == "table":
            await self.deliver_table(table_id)
        elif kind == "result":
            message = {"type": "result", "scores": event.get("scores"),
                       "winner": event.get("winner")}
            for watcher in list(self.watchers.get(table_id, ())):
                await watcher.send(message)

    def clock_message(self, table: Table) -> dict[str, Any] | None:
        """The ``clock`` message after the table message of a playing table of a
        falling game (see :func:`clock_message`), on this server's clock."""
        return clock_message(table, self.clock.now())

    async def deliver_table(self, table_id: int) -> None:
        table = await self.table(table_id)
        clock = self.clock_message(table)
        for watcher in list(self.watchers.get(table_id, ())):
            await watcher.send(table.message())
            if clock is not None:
                await watcher.send(clock)

    async def deliver_moves(self, table_id: int, only: Watcher | None = None) -> None:
        """Read the moves of the round not known here yet (one query), then send
        each connection of the table the moves it has not had (and tell the
        table's referee those another process accepted)."""
        table = await self.cached_table(table_id)
        known = self.known.get(table_id)
        if known is None or known.round != table.round:
            known = self.known[table_id] = livecache.RoundMoves(table.round)
        for move in await run_in_threadpool(livecache.moves_after, self.server.engine,
                                            table_id, known, table.seats):
            known.add(move)
            await self._learn(table_id, move)
        await self.send_known(table_id, only)

    async def _learn(self, table_id: int, move: Move) -> None:
        """Tell the table's referee (when held here) a move of its round another
        process stored; a referee that cannot follow it is dropped (built again
        from the stored moves when next asked)."""
        referee = self.referees.get(table_id)
        known = self.known.get(table_id)
        if referee is None or known is None or referee.table.round != known.round \
                or move.n <= referee.counts[move.seat]:
            return
        if not await run_in_threadpool(referee.learn, move):
            self.referees.pop(table_id, None)

    async def send_known(self, table_id: int, only: Watcher | None = None) -> None:
        """Send each connection of the table (or ``only``) the known moves of the
        round it has not had, in order."""
        known = self.known.get(table_id)
        if known is None:
            await self.deliver_moves(table_id, only)
            return
        for watcher in [only] if only else list(self.watchers.get(table_id, ())):
            async with watcher.lock:
                if watcher.round != known.round:
                    watcher.round, watcher.seen = known.round, set()
                for move in known.moves:
                    if (move.seat, move.n) not in watcher.seen:
                        watcher.seen.add((move.seat, move.n))
                        await watcher.send_unlocked(move.message())

    # -- the referee ------------------------------------------------------------------

    def _build(self, table: Table) -> Referee:
        moves = tablestore.actions(self.server.engine, table.id, table.round)
        return Referee(table, moves, timing=self.timing)

    async def referee(self, table: Table) -> Referee:
        """The referee of the table's current round, told the table as given (built
        from the stored moves when not held here, or held for another round)."""
        held = self.referees.get(table.id)
        if held is None or held.table.round != table.round:
            held = self.referees[table.id] = await run_in_threadpool(self._build, table)
        held.table = table
        return held

    async def caught_up(self, table: Table) -> Referee:
        """The table's referee with every move stored so far (of any process)."""
        referee = await self.referee(table)
        for move in await self.moves(table):
            if move.n > referee.counts[move.seat] \
                    and not await run_in_threadpool(referee.learn, move):
                self.referees.pop(table.id, None)
                return await self.referee(table)
        return referee

    async def _store(self, table: Table, move: Move, *, deliver: bool = True) -> bool:
        """Store an accepted move and (``deliver``) announce it; ``False`` when
        another process stored this seat's step first (the referee is dropped).
        Not delivered, the move is known here and announced by the caller."""
        event = livecache.announcement(table, move)
        shared = self.events.shared
        try:  # one transaction: the move and (PostgreSQL) its announcement, grouped
            await self.actions.store(table, move, event if shared and deliver else None)
        except sa.exc.IntegrityError:
            self.referees.pop(table.id, None)
            await self.events.publish({"kind": "moves", "table": table.id})
            return False
        except Exception:
            self.referees.pop(table.id, None)
            raise
        known = self.known.get(table.id)
        added = known is not None and known.round == table.round and known.add(move)
        if not deliver:
            return True
        if added:
            await (self.send_known(table.id) if shared else self.events.publish(event))
        elif shared:
            await self.deliver_moves(table.id)
        else:
            await self.events.publish(event)
        return True

    async def _store_all(self, table: Table, referee: Referee, moves: list[Move]) -> bool:
        """Store the referee's moves in order, then the result if the round is over;
        ``False`` when one could not be stored (the rest are not). Moves that
        finish their seat are announced only once the round's result, when they
        complete it, is stored: whoever sees the round's last move finds its
        result."""
        finishing = bool(moves) and referee.finished(moves[-1].seat)
        stored: list[Move] = []
        for move in moves:
            if not await self._store(table, move, deliver=not finishing):
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
        and not yet announced) and the result."""
        result, done = None, False
        try:
            referee = await self.caught_up(table)
            result = referee.result()
            if result is not None:
                _, done = await run_in_threadpool(tablestore.finish_round,
                                                  self.server.engine, table, result.scores,
                                                  result.winner)
        finally:  # stored, the moves are announced whatever became of the result
            await self._announce(table, moves or [])
        if result is not None and done:
            self.tables.pop(table.id, None)
            await self.events.publish({"kind": "table", "table": table.id})
            await self.events.publish({"kind": "result", "table": table.id,
                                       "scores": result.scores, "winner": result.winner})

    async def run_clock(self, table_id: int) -> None:
        """The moves the table's clock calls for now (a falling round's end, idle
        seats), stored (:meth:`Referee.due`)."""
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
        moves = await run_in_threadpool(referee.due, self.clock.now(), back)
        if not await self._store_all(table, referee, moves):
            return None
        return referee

    async def act(self, watcher: Watcher, table_id: int, action: Any) -> None:
        async with self.lock(table_id):
            if watcher.signed_out:  # signed out while this waited its turn
                return
            table = await self.cached_table(table_id)
            referee = await self._run_clock(table) or await self.referee(table)
            verdict = await run_in_threadpool(
                referee.act, table.seat_of(watcher.account), action, self.clock.now())
            if isinstance(verdict, Refusal):
                await watcher.send(verdict.message())
            elif not await self._store_all(table, referee, [verdict]):
                await watcher.send(refused("another connection of this seat acted first; "
                                           "the table has been sent again", "conflict"))

    async def end_seat(self, table_id: int, seat: int) -> None:
        """End a seat's game (the player left or abandoned it)."""
        async with self.lock(table_id):
            table = await self.table(table_id)
            if table.status != "playing":
                return
            referee = await self.caught_up(table)
            move = await run_in_threadpool(referee.end_seat, seat, self.clock.now())
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
            await self.events.publish({"kind": "table", "table": table_id})
        elif outcome == "end" and seat is not None:
            await self.end_seat(table_id, seat)

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
                await self.events.publish({"kind": "table", "table": table_id})
                return
        await self.end_seat(table_id, seat)

    async def rematch(self, watcher: Watcher, table_id: int) -> None:
        async with self.lock(table_id):
            table = await self.table(table_id)
            seat = table.seat_of(watcher.account)
            problem = (await self.referee(table)).rematch(seat)
            if problem is not None:
                await watcher.send(problem.message())
                return
            await run_in_threadpool(tablestore.rematch, self.server.engine, table,
                                    self.deal_date(table.ruleset_id), seat,
                                    self.clock.now())
            self.referees.pop(table_id, None)
            self.tables.pop(table_id, None)
        await self.events.publish({"kind": "table", "table": table_id})

    @staticmethod
    def deal_date(ruleset_id: str) -> str | None:
        """The date of a new deal of ``ruleset_id``: today's for a daily ruleset."""
        ruleset = load_ruleset(ruleset_id)
        return today_in(ruleset.timezone).isoformat() if ruleset.is_daily else None

    # -- presence ---------------------------------------------------------------------

    async def touch(self, seats: list[tuple[int, int]], at: _dt.datetime | None = None
                    ) -> None:
        """Mark ``(table id, seat)`` pairs present now (or ``at``; in the database)."""
        await run_in_threadpool(presence.touch, self.server.engine, seats,
                                at or self.clock.now())

    async def seat_now(self, watcher: Watcher, table_id: int) -> int | None:
        """The seat the connection's account holds at the table as stored now."""
        if watcher.account is None:
            return None
        with contextlib.suppress(TableError):
            table = await run_in_threadpool(tablestore.load_table, self.server.engine,
                                            table_id)
            return table.seat_of(watcher.account)
        return None

    async def arrived(self, watcher: Watcher, table_id: int) -> None:
        seat = await self.seat_now(watcher, table_id)
        if seat is not None:
            await self.touch([(table_id, seat)])

    async def departed(self, watcher: Watcher, table_id: int, at: _dt.datetime) -> None:
        """The connection closed at ``at``: the seat's away time counts from then
        (however long the database takes to hear it; the seat its account holds
        now, if any)."""
        seat = await self.seat_now(watcher, table_id)
        if seat is not None:
            await self.touch([(table_id, seat)], at)


def seconds_from_env(name: str, default: float) -> float:
    """Seconds (0 to a day) from the environment variable ``name``, else
    ``default``; ``ValueError`` naming the variable for anything else."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 86_400:
        raise ValueError(f"{name}: expected seconds from 0 to 86400, found {text[:40]!r}")
    return value


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


def clock_message(table: Table, now: _dt.datetime) -> dict[str, Any] | None:
    """The ``clock`` message sent after the ``table`` message of a playing table of
    a realtime game (a falling game): the seconds since the round started at
    ``now``, so a client (a window opening or reopening on the table) brings its
    game clock up to the table's. ``None`` for other tables."""
    elapsed = round_elapsed(table, now)
    return None if elapsed is None else {"type": "clock", "elapsed": round(elapsed, 3)}


def account_tables(server: Server, name: str, limit: int) -> dict[str, Any]:
    """The answer of ``GET /api/accounts/{name}/tables`` (``ApiError`` 422 for a
    bad name or limit, 404 for no such account)."""
    from .app import account_listing

    return account_listing(name, limit, "tables",
                           lambda who, n: tablestore.account_results(server.engine, who, n))


def install(app: FastAPI, server: Server) -> Hub:
    """Add the table routes and the live WebSocket to ``app``."""
    from .app import ApiError, bearer, check_id, client_address, id_problem, json_body, read_model

    hub = Hub(server)
    app.state.hub = hub

    def served_ruleset(ruleset_id: str) -> str | None:
        if not ID_PATTERN.match(ruleset_id):
            return None
        try:
            ruleset = load_ruleset(ruleset_id)
        except (RulesetError, PluginError):
            return None
        return today_in(ruleset.timezone).isoformat() if ruleset.is_daily else ""

    @app.post("/api/tables", status_code=201, openapi_extra=json_body(NewTable))
    async def create_table(request: Request) -> dict[str, Any]:
        """Open a table: the creator holds seat 0; ``private`` tables admit the
        invited names and whoever has the code."""
        account = await run_in_threadpool(server.account, request)
        body = await read_model(request, NewTable)
        for name in body.invite:
            try:
                accounts.check_name(name)
            except accounts.AccountError:
                raise ApiError(422, f"invite: {name!r} is not an account name") from None
        date = served_ruleset(body.ruleset_id)
        if date is None:
            raise ApiError(422, f"ruleset_id: this server does not serve "
                                f"{body.ruleset_id!r}")
        try:  # floods of invitations are refused (429) before the table opens
            invited = await run_in_threadpool(social.check_invites, server.engine, account,
                                              body.invite)
        except social.InviteRefused as exc:
            raise ApiError(exc.status, str(exc)) from None
        try:
            table = await run_in_threadpool(
                tablestore.create_table, server.engine, account, body.ruleset_id, body.seats,
                body.private, body.invite, date or None)
        except TableError as exc:
            raise ApiError(exc.status, str(exc)) from None
        await hub.touch([(table.id, 0)])  # away from now on until connected
        await app.state.social.announce(invited)  # pushed to the invited players
        return {"id": table.id, "code": table.code}

    @app.get("/api/tables")
    def list_tables() -> dict[str, Any]:
        """Public tables that are waiting or playing, newest first."""
        found = tablestore.list_tables(server.engine)
        return {"tables": [{"id": t.id, "ruleset_id": t.ruleset_id, "seats": list(t.players),
                            "status": t.status} for t in found]}

    @app.get("/api/tables/{table_id}")
    def get_table(table_id: int, request: Request, code: str | None = None
                  ) -> dict[str, Any]:
        """A table with the results of its finished rounds. A private table is
        shown in full only to whom may watch it (seated or invited, signed in with
        ``Authorization: Bearer TOKEN``, or with its ``code`` in the query); to
        anyone else only its ``id``, ``seats`` and ``status``."""
        check_id(table_id, "table_id")
        try:
            table = tablestore.load_table(server.engine, table_id)
        except TableError as exc:
            raise ApiError(exc.status, str(exc)) from None
        if table.private:
            token = bearer(request)
            account = accounts.account_for(server.engine, token) if token else None
            code = code[:32] if code else None
            if relies_on_code(table, account, code) \
                    and not guess_allowed(server, account, client_address(request)):
                raise ApiError(429, CODE_GUESSES)
            if not table.may_watch(account, code):
                return {"id": table.id, "seats": list(table.players),
                        "status": table.status}
        message = table.message()
        del message["type"]
        return {**message, "results": tablestore.results(server.engine, table_id)}

    @app.get("/api/accounts/{name}/tables")
    def get_player_tables(name: str, limit: int = 100) -> dict[str, Any]:
        """A player's table results, newest first (``limit`` 1–1000): every
        finished round they held a seat in, with their seat."""
        return account_tables(server, name, limit)

    @app.post("/api/tables/{table_id}/join", openapi_extra=json_body(JoinTable))
    async def join_table(table_id: int, request: Request) -> dict[str, Any]:
        """Take a seat: ``403`` for a private table without invitation or code,
        ``409`` when full."""
        check_id(table_id, "table_id")
        account = await run_in_threadpool(server.account, request)
        raw = await request.body()
        body = JoinTable() if not raw.strip() else await read_model(request, JoinTable)
        if body.code is not None:  # a guess of a private table's code is counted
            try:
                found = await run_in_threadpool(tablestore.load_table, server.engine,
                                                table_id)
            except TableError as exc:
                raise ApiError(exc.status, str(exc)) from None
            if relies_on_code(found, account, body.code) and not await run_in_threadpool(
                    guess_allowed, server, account, client_address(request)):
                raise ApiError(429, CODE_GUESSES)
        try:
            table = await run_in_threadpool(tablestore.join_table, server.engine, table_id,
                                            account, body.code, server.clock.now())
        except TableError as exc:
            raise ApiError(exc.status, str(exc)) from None
        seat = table.seat_of(account)
        if seat is not None:
            await hub.touch([(table_id, seat)])  # away from now on until connected
        await hub.events.publish({"kind": "table", "table": table_id})
        return {"seat": seat}

    @app.websocket("/api/tables/{table_id}/live")
    async def live(socket: WebSocket, table_id: int) -> None:
        token = socket.query_params.get("token")
        code = socket.query_params.get("code")
        account = None
        try:
            if token:
                account = await run_in_threadpool(accounts.account_for, server.engine, token)
                if account is not None:  # a live connection: the player is online
                    await run_in_threadpool(server.online.seen, account.id)
        except sa.exc.SQLAlchemyError as exc:  # the database away: no one's fault here
            hub.outages.failed(server.clock.now())  # and no one's away time counts
            log.warning("table %s: a live connection refused, the database is away (%s)",
                        table_id, type(exc).__name__)
            await socket.accept()
            await socket.close(1013, DATABASE_AWAY)
            return
        await socket.accept()
        problem = id_problem(table_id, "table_id")
        if problem is not None:
            await socket.send_json(refused(f"no such table ({problem})", "not-found"))
            await socket.close(4404)
            return
        if token and account is None:
            await socket.send_json(refused("sign in first: the token is not valid", "signed-out"))
            await socket.close(4401)
            return
        try:
            table = await hub.table(table_id)
            guessed = relies_on_code(table, account, code) and not await run_in_threadpool(
                guess_allowed, server, account, client_address(socket))
        except TableError as exc:
            await socket.send_json(refused(str(exc), "not-found"))
            await socket.close(4404)
            return
        except sa.exc.SQLAlchemyError:
            hub.outages.failed(server.clock.now())
            await socket.close(1013, DATABASE_AWAY)
            return
        if guessed:
            await socket.send_json(refused(CODE_GUESSES, "too-many"))
            await socket.close(4429)
            return
        if not table.may_watch(account, code):
            await socket.send_json(refused("this table is private: an invitation or its "
                                           "code is needed", "private"))
            await socket.close(4403)
            return
        watcher = Watcher(socket, account,
                          token=accounts.token_hash(token) if account and token else None)
        hub.watchers.setdefault(table_id, set()).add(watcher)
        try:
            if watcher.token in hub.revoked:  # signed out while this connection opened
                watcher.signed_out = True
                await close_signed_out(socket, watcher.lock)
                return
            await hub.arrived(watcher, table_id)
            # read again only if it changed since (a table announcement drops it)
            table = await hub.cached_table(table_id)
            await watcher.send(table.message())
            clock = hub.clock_message(table)
            if clock is not None:
                await watcher.send(clock)
            await hub.deliver_moves(table_id, only=watcher)
            if table.status == "finished":
                done = await run_in_threadpool(tablestore.results, server.engine, table_id)
                if done:
                    await watcher.send({"type": "result", "scores": done[-1]["scores"],
                                        "winner": done[-1]["winner"]})
            # counted per account (an address when not signed in), across reconnects
            budget = f"table:{account.id}" if account else \
                f"table-address:{client_address(socket)}"
            while True:
                text = await receive_text(socket)
                if watcher.signed_out:
                    await close_signed_out(socket, watcher.lock)
                    break
                if not server.live_messages.hit(budget):
                    await watcher.send(refused(f"too many messages: at most "
                                               f"{server.messages_per_minute} a minute",
                                               "too-many"))
                    break
                if text is None:
                    await watcher.send(refused(BINARY_FRAME, "malformed"))
                    continue
                try:
                    message = json.loads(text)
                except (ValueError, RecursionError):
                    await watcher.send(refused("expected one JSON object per message", "malformed"))
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "act" and "action" not in message:
                    await watcher.send(refused("action: missing (expected [name, "
                                               "*arguments] as written in game.log)",
                                               "malformed"))
                elif kind == "act":
                    await hub.act(watcher, table_id, message.get("action"))
                elif kind == "leave":
                    await hub.leave(watcher, table_id)
                    break
                elif kind == "rematch":
                    await hub.rematch(watcher, table_id)
                else:
                    await watcher.send(refused("type: expected act, leave or rematch", "malformed"))
        except GONE:
            pass
        finally:
            closed = hub.clock.now()
            hub.watchers.get(table_id, set()).discard(watcher)
            hub.drop(table_id)
            with contextlib.suppress(Exception):
                await hub.departed(watcher, table_id, closed)
            with contextlib.suppress(Exception):
                await socket.close()

    return hub
