"""Live tables: ``POST /api/tables``, ``GET /api/tables``, ``POST
/api/tables/{id}/join`` and the WebSocket ``/api/tables/{id}/live``.

Every seat plays the same deal (the table's seed). Each ``act`` is applied by
the server on that seat's own game (the engine is the only judge of legality
and score), stored, then broadcast as a ``move`` to every player and spectator
of the table, in order; a refused action is answered to its sender alone. A
connection gets the table and every move of the round so far when it opens, so
a player whose connection dropped reconnects (the same token) and carries on. A
seat whose player stays away from a playing table for :data:`ABANDON_SECONDS`
(``BLOCKYARD_SERVER_ABANDON_SECONDS``) is ended (the ``end`` action). When every
seat is over, the result (scores, winner: the best score, ``null`` on a tie) is
stored and sent; ``rematch`` deals anew at the same table.

Every action and result is in the database, never only in this process: the
seats' games are caches, rebuilt from the stored actions whenever they are
missing or behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import json
import os
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import sqlalchemy as sa
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from .. import validate
from ..discovery import load_ruleset
from ..errors import DataError, IllegalMove, PluginError, RulesetError
from ..game import Game, new_game, today_in
from ..ruleset import ID_PATTERN
from . import accounts, limits, social, tablestore
from .accounts import Account
from .events import Events
from .tablestore import Move, Table, TableError

if TYPE_CHECKING:
    from .app import Server

ABANDON_ENV = "BLOCKYARD_SERVER_ABANDON_SECONDS"
ABANDON_SECONDS = 120.0
"""A seat whose player has no connection to a playing table this long is ended."""
MAX_ACTION_ARGS = 8
CLOCK_ENV = "BLOCKYARD_SERVER_CLOCK_TOLERANCE"
CLOCK_TOLERANCE = 5.0
"""Falling games: an action is refused while the seat's game clock (the sum of
its ``tick`` actions) is more than this many seconds behind the wall time since
the round started: the client's clock may not run slow."""


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
    """One live connection: a player (``seat``) or a spectator."""

    socket: WebSocket
    account: Account | None
    seat: int | None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    round: int = 0
    seen: set[tuple[int, int]] = field(default_factory=set)
    """The (seat, n) of every move of :attr:`round` sent to this connection."""

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            await self.send_unlocked(message)

    async def send_unlocked(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):  # a closed connection: it is being dropped
            await self.socket.send_json(message)


def _date(text: str | None) -> _dt.date | None:
    return _dt.date.fromisoformat(text) if text else None


class Hub:
    """This process's live connections and cached seat games. Every change is
    stored first, then announced through :class:`~blockyard.server.events.Events`
    to every process, whose connections read it from the database."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.watchers: dict[int, set[Watcher]] = {}
        self.locks: dict[int, asyncio.Lock] = {}
        self.games: dict[tuple[int, int, int], Game] = {}
        self.away: dict[tuple[int, int], float] = {}
        self.abandon_seconds = seconds_from_env(ABANDON_ENV, ABANDON_SECONDS)
        self.clock_tolerance = seconds_from_env(CLOCK_ENV, CLOCK_TOLERANCE)
        self.sweeper: asyncio.Task[None] | None = None
        self.events = Events(server.engine, self.on_event)

    async def start(self) -> None:
        await self.events.start()
        self.sweeper = asyncio.create_task(self.sweep())

    async def stop(self) -> None:
        if self.sweeper is not None:
            self.sweeper.cancel()
        await self.events.stop()

    def lock(self, table_id: int) -> asyncio.Lock:
        return self.locks.setdefault(table_id, asyncio.Lock())

    async def table(self, table_id: int) -> Table:
        return await run_in_threadpool(tablestore.load_table, self.server.engine, table_id)

    async def moves(self, table: Table) -> list[Move]:
        return await run_in_threadpool(tablestore.actions, self.server.engine, table.id,
                                       table.round)

    # -- announcements ----------------------------------------------------------------

    async def on_event(self, event: dict[str, Any]) -> None:
        """An announcement from any process (this one too)."""
        kind, table_id = event.get("kind"), event.get("table")
        if kind == "resync":
            for known in list(self.watchers):
                await self.deliver_table(known)
                await self.deliver_moves(known)
            return
        if not isinstance(table_id, int):
            return
        if kind == "present" and isinstance(event.get("seat"), int):
            self.away.pop((table_id, event["seat"]), None)
        if not self.watchers.get(table_id):
            return
        if kind == "moves":
            await self.deliver_moves(table_id)
        elif kind == "table":
            await self.deliver_table(table_id)
        elif kind == "result":
            message = {"type": "result", "scores": event.get("scores"),
                       "winner": event.get("winner")}
            for watcher in list(self.watchers.get(table_id, ())):
                await watcher.send(message)

    async def deliver_table(self, table_id: int) -> None:
        table = await self.table(table_id)
        for watcher in list(self.watchers.get(table_id, ())):
            await watcher.send(table.message())

    async def deliver_moves(self, table_id: int, only: Watcher | None = None) -> None:
        """Send each connection of the table the moves of the round it has not had."""
        table = await self.table(table_id)
        moves = await self.moves(table)
        for watcher in [only] if only else list(self.watchers.get(table_id, ())):
            async with watcher.lock:
                if watcher.round != table.round:
                    watcher.round, watcher.seen = table.round, set()
                for move in moves:
                    if (move.seat, move.n) not in watcher.seen:
                        watcher.seen.add((move.seat, move.n))
                        await watcher.send_unlocked(move.message())

    # -- seat games -------------------------------------------------------------------

    def _rebuild(self, table: Table, seat: int) -> Game:
        game = new_game(table.ruleset_id, seed=table.seed, date=_date(table.date))
        for move in tablestore.actions(self.server.engine, table.id, table.round):
            if move.seat == seat:
                game.apply(move.action)
        return game

    async def game(self, table: Table, seat: int, moves: list[Move]) -> Game:
        """The seat's game of the current round, as far as the stored ``moves``
        (rebuilt when not cached, or when another process moved it on)."""
        key = (table.id, table.round, seat)
        count = sum(1 for m in moves if m.seat == seat)
        cached = self.games.get(key)
        if cached is None or len(cached.log) - 1 != count:
            cached = await run_in_threadpool(self._rebuild, table, seat)
            self.games[key] = cached
        return cached

    def _forget(self, table_id: int) -> None:
        for key in [k for k in self.games if k[0] == table_id]:
            del self.games[key]

    async def act(self, watcher: Watcher, table_id: int, action: Any) -> None:
        async with self.lock(table_id):
            table = await self.table(table_id)
            seat = table.seat_of(watcher.account)
            if seat is None:
                await watcher.send(refused("spectators cannot act: take a seat to play"))
                return
            if table.status != "playing":
                await watcher.send(refused(f"the table is {table.status}, not playing"))
                return
            game = await self.game(table, seat, await self.moves(table))
            if game.over:
                await watcher.send(refused(f"your game is over ({game.over_reason})"))
                return
            problem = check_action(action, len(game.log), game) \
                or self.slow_clock(table, game, action)
            if problem:
                await watcher.send(refused(problem))
                return
            try:
                await run_in_threadpool(game.apply, action)
            except (IllegalMove, DataError, PluginError, ValueError, TypeError) as exc:
                await watcher.send(refused(str(exc)[:300]))
                return
            if not await self._accepted(table, seat, game, list(action)):
                await watcher.send(refused("another connection of this seat acted first; "
                                           "the table has been sent again"))

    def slow_clock(self, table: Table, game: Game, action: list[Any]) -> str | None:
        """Why a falling game's action is refused for a slow clock, or ``None``."""
        if game.kind != "falling" or action[0] == "tick" or table.started is None:
            return None
        wall = (accounts.now() - table.started).total_seconds()
        clock = sum(entry[1] for entry in game.log[1:] if entry[0] == "tick") / 1e6
        if wall - clock > self.clock_tolerance:
            return (f"your game clock is {wall - clock:.1f} s behind the table's (at most "
                    f"{self.clock_tolerance:g} s allowed): send the ticks first")
        return None

    async def _accepted(self, table: Table, seat: int, game: Game, action: list[Any]) -> bool:
        """Store an applied action and announce it; ``False`` when another process
        stored this seat's action first (the cached game is dropped)."""
        try:
            await run_in_threadpool(tablestore.add_action, self.server.engine, table, seat,
                                    len(game.log) - 1, action, int(game.score), game.over)
        except sa.exc.IntegrityError:
            self.games.pop((table.id, table.round, seat), None)
            await self.events.publish({"kind": "moves", "table": table.id})
            return False
        except Exception:
            self.games.pop((table.id, table.round, seat), None)
            raise
        await self.events.publish({"kind": "moves", "table": table.id})
        if game.over:
            await self._maybe_finish(table)
        return True

    async def _maybe_finish(self, table: Table) -> None:
        moves = await self.moves(table)
        seat_games = [await self.game(table, seat, moves) for seat in range(table.seats)]
        if not all(g.over for g in seat_games):
            return
        scores = [int(g.score) for g in seat_games]
        best = max(scores)
        winner = scores.index(best) if scores.count(best) == 1 else None
        _, done = await run_in_threadpool(tablestore.finish_round, self.server.engine,
                                          table, scores, winner)
        if done:
            await self.events.publish({"kind": "table", "table": table.id})
            await self.events.publish({"kind": "result", "table": table.id,
                                       "scores": scores, "winner": winner})

    async def end_seat(self, table_id: int, seat: int) -> None:
        """End a seat's game (the player left or abandoned it)."""
        async with self.lock(table_id):
            table = await self.table(table_id)
            if table.status != "playing":
                return
            game = await self.game(table, seat, await self.moves(table))
            if game.over:
                return
            await run_in_threadpool(game.apply, ["end"])
            await self._accepted(table, seat, game, ["end"])

    async def leave(self, watcher: Watcher, table_id: int) -> None:
        table = await self.table(table_id)
        seat = table.seat_of(watcher.account)
        if seat is None:
            return
        if table.status == "waiting":
            async with self.lock(table_id):
                await run_in_threadpool(tablestore.leave_waiting, self.server.engine,
                                        table, seat)
            await self.events.publish({"kind": "table", "table": table_id})
        elif table.status == "playing":
            await self.end_seat(table_id, seat)

    async def rematch(self, watcher: Watcher, table_id: int) -> None:
        async with self.lock(table_id):
            table = await self.table(table_id)
            if table.seat_of(watcher.account) is None:
                await watcher.send(refused("only a player at the table can ask for a rematch"))
                return
            if table.status != "finished":
                await watcher.send(refused(f"the table is {table.status}: a rematch starts "
                                           "only when every game is over"))
                return
            ruleset = load_ruleset(table.ruleset_id)
            date = today_in(ruleset.timezone).isoformat() if ruleset.is_daily else None
            await run_in_threadpool(tablestore.rematch, self.server.engine, table, date)
            self._forget(table_id)
        await self.events.publish({"kind": "table", "table": table_id})

    # -- presence ---------------------------------------------------------------------

    async def arrived(self, watcher: Watcher, table_id: int) -> None:
        if watcher.seat is not None:
            self.away.pop((table_id, watcher.seat), None)
            await self.events.publish({"kind": "present", "table": table_id,
                                       "seat": watcher.seat})

    def departed(self, watcher: Watcher, table_id: int, table: Table | None) -> None:
        """The connection closed: a player with no other connection here is away."""
        seat = watcher.seat
        if seat is None or table is None or table.status != "playing":
            return
        if any(w.seat == seat for w in self.watchers.get(table_id, ())):
            return
        self.away.setdefault((table_id, seat), time.monotonic())

    async def sweep(self) -> None:
        """End the seats abandoned for :attr:`abandon_seconds` (runs forever)."""
        while True:
            await asyncio.sleep(min(5.0, max(0.2, self.abandon_seconds / 4)))
            moment = time.monotonic()
            for (table_id, seat), since in list(self.away.items()):
                if moment - since >= self.abandon_seconds:
                    self.away.pop((table_id, seat), None)
                    with contextlib.suppress(Exception):
                        await self.end_seat(table_id, seat)


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


def refused(reason: str) -> dict[str, Any]:
    """The ``refused`` message."""
    return {"type": "refused", "reason": reason}


def check_action(action: Any, index: int, game: Game) -> str | None:
    """Why ``action`` is not a well-formed log action, or ``None``."""
    if not isinstance(action, list) or not action or not isinstance(action[0], str) \
            or len(action) > MAX_ACTION_ARGS + 1:
        return "action: expected [name, *arguments] as written in game.log"
    try:
        validate.check_entry(action, index, game.mode)
    except (DataError, ValueError) as exc:
        return f"action: {str(exc)[:200]}"
    return None


def install(app: FastAPI, server: Server) -> Hub:
    """Add the table routes and the live WebSocket to ``app``."""
    from .app import ApiError, json_body, read_model

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
        await app.state.social.announce(invited)  # pushed to the invited players
        return {"id": table.id, "code": table.code}

    @app.get("/api/tables")
    def list_tables() -> dict[str, Any]:
        """Public tables that are waiting or playing, newest first."""
        found = tablestore.list_tables(server.engine)
        return {"tables": [{"id": t.id, "ruleset_id": t.ruleset_id, "seats": list(t.players),
                            "status": t.status} for t in found]}

    @app.get("/api/tables/{table_id}")
    def get_table(table_id: int) -> dict[str, Any]:
        """A public table (or a private one: only its seats and status) with the
        results of its finished rounds."""
        try:
            table = tablestore.load_table(server.engine, table_id)
        except TableError as exc:
            raise ApiError(exc.status, str(exc)) from None
        message = table.message()
        del message["type"]
        return {**message, "results": tablestore.results(server.engine, table_id)}

    @app.post("/api/tables/{table_id}/join", openapi_extra=json_body(JoinTable))
    async def join_table(table_id: int, request: Request) -> dict[str, Any]:
        """Take a seat: ``403`` for a private table without invitation or code,
        ``409`` when full."""
        account = await run_in_threadpool(server.account, request)
        raw = await request.body()
        body = JoinTable() if not raw.strip() else await read_model(request, JoinTable)
        try:
            table = await run_in_threadpool(tablestore.join_table, server.engine, table_id,
                                            account, body.code)
        except TableError as exc:
            raise ApiError(exc.status, str(exc)) from None
        await hub.events.publish({"kind": "table", "table": table_id})
        return {"seat": table.seat_of(account)}

    @app.websocket("/api/tables/{table_id}/live")
    async def live(socket: WebSocket, table_id: int) -> None:
        token = socket.query_params.get("token")
        code = socket.query_params.get("code")
        account = None
        if token:
            account = await run_in_threadpool(accounts.account_for, server.engine, token)
            if account is not None:  # a live connection: the player is online
                await run_in_threadpool(server.presence.seen, account.id)
        await socket.accept()
        if token and account is None:
            await socket.send_json(refused("sign in first: the token is not valid"))
            await socket.close(4401)
            return
        try:
            table = await hub.table(table_id)
        except TableError as exc:
            await socket.send_json(refused(str(exc)))
            await socket.close(4404)
            return
        if not table.may_watch(account, code):
            await socket.send_json(refused("this table is private: an invitation or its "
                                           "code is needed"))
            await socket.close(4403)
            return
        watcher = Watcher(socket, account, table.seat_of(account))
        hub.watchers.setdefault(table_id, set()).add(watcher)
        try:
            await hub.arrived(watcher, table_id)
            table = await hub.table(table_id)
            await watcher.send(table.message())
            await hub.deliver_moves(table_id, only=watcher)
            if table.status == "finished":
                done = await run_in_threadpool(tablestore.results, server.engine, table_id)
                if done:
                    await watcher.send({"type": "result", "scores": done[-1]["scores"],
                                        "winner": done[-1]["winner"]})
            budget = limits.RateLimit(server.messages_per_minute, 60.0)
            while True:
                text = await socket.receive_text()
                if not budget.hit(""):
                    await watcher.send(refused(f"too many messages: at most "
                                               f"{server.messages_per_minute} a minute"))
                    break
                try:
                    message = json.loads(text)
                except (ValueError, RecursionError):
                    await watcher.send(refused("expected one JSON object per message"))
                    continue
                kind = message.get("type") if isinstance(message, dict) else None
                if kind == "act":
                    await hub.act(watcher, table_id, message.get("action"))
                elif kind == "leave":
                    await hub.leave(watcher, table_id)
                    break
                elif kind == "rematch":
                    await hub.rematch(watcher, table_id)
                else:
                    await watcher.send(refused("type: expected act, leave or rematch"))
        except WebSocketDisconnect:
            pass
        finally:
            hub.watchers.get(table_id, set()).discard(watcher)
            latest = None
            with contextlib.suppress(Exception):
                latest = await hub.table(table_id)
            hub.departed(watcher, table_id, latest)
            with contextlib.suppress(Exception):
                await socket.close()

    return hub
