"""The floor under ``blockyard serve``'s live tables, on the same stack.

A minimal Starlette app served by uvicorn (the same WebSocket implementation,
``websockets-sansio``, the same 16 KiB message limit, permessage-deflate
declined, as ``blockyard serve``) on PostgreSQL through psycopg 3's
async driver, doing the shape of work a live table does per action and nothing
more: parse the JSON, check it against the state kept in memory (a seat of this
table, playing, not over, not acting on another connection, a well-formed
``place`` or ``end``), store one row and NOTIFY it, send the move to the seats.
It knows nothing of the rules: a ``place`` scores one point, ``["end"]`` ends
the seat; so it is the floor of the stack's costs, never a referee. With
``--rules`` it checks each action on the engine as well (a game of the table's
seed per seat, the action played on it as the server's referee plays it, and
each move another process stored played on this process's copy): the same
floor plus the rules' own cost, to tell the stack's share from the engine's.

It speaks as much of the live protocol (the ``live`` channel of ``blockyard
serve``) as ``benchmarks/server.py``'s duel client needs, so that the same client
code drives both:

- ``GET /api/health``; ``GET /api/tables/{id}``: the table and the results of
  its finished round;
- the WebSocket ``/api/tables/{id}/live``, its first message the client's
  ``{"type": "hello", "token": TOKEN}`` (live protocol 4: no credential in the
  address): then the ``table`` message, every ``move`` of the round, then the
  ``result`` when the round is finished; ``{"type": "act", "action": [...]}``
  is answered by a ``move`` to every connection of the table (in this process
  directly, in the others through NOTIFY) or a ``refused`` to its sender; any
  other message is ``refused``. A bad token (or a first message that is not the
  hello) is closed with 4401, an unknown table with 4404.

Two ways of storing, chosen by ``--group-commit``:

- one transaction per action, on a pool of ``--pool`` connections (each
  action's INSERT and its ``pg_notify`` are one statement, so one round trip and
  one commit);
- group commit: one connection takes every action that arrived while the
  previous group was being committed and stores them all in one transaction
  (the same statement over arrays); each is acknowledged only after its group
  has committed, so nothing acknowledged is lost.

A seat's ``end`` costs one statement more once it is stored: the table's result,
when every seat's last stored move is over (on the pool, or grouped the same way
on a second connection).

Every process LISTENs on one channel (each payload one move, far under
PostgreSQL's 8,000-byte limit) and sends the moves of other processes to its
own connections. A process keeps a table in memory while it has connections to
it, loaded from the database on the first one. The accounts, tokens and tables
are written by :func:`prepare` (set-up, not measured).

Run:  python benchmarks/floor.py --database postgresql://... [--port 8766]
          [--group-commit] [--rules] [--pool 10]      (serves on 127.0.0.1 only)
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

HOST = "127.0.0.1"
CHANNEL = "floor_moves"
MAX_MESSAGE = 16 << 10
"""The largest WebSocket message a client may send (as ``blockyard serve``)."""
MAX_PAYLOAD = 8000
"""PostgreSQL's NOTIFY payload limit (bytes)."""
SEATS = 2
MAX_ARGUMENT = 64
"""A ``place`` argument (tray slot, row, column) is an int from 0 to this."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS floor_tables (
    id serial PRIMARY KEY, seed bigint NOT NULL, status text NOT NULL);
CREATE TABLE IF NOT EXISTS floor_seats (
    token text PRIMARY KEY, table_id int NOT NULL REFERENCES floor_tables,
    seat int NOT NULL, name text NOT NULL);
CREATE TABLE IF NOT EXISTS floor_moves (
    id bigserial PRIMARY KEY, table_id int NOT NULL, seat int NOT NULL, n int NOT NULL,
    action text NOT NULL, score int NOT NULL, over boolean NOT NULL,
    UNIQUE (table_id, seat, n));
CREATE TABLE IF NOT EXISTS floor_results (
    table_id int PRIMARY KEY, scores text NOT NULL);
"""

STORE = f"""
WITH stored AS (
    INSERT INTO floor_moves (table_id, seat, n, action, score, over)
    SELECT * FROM unnest(%s::int[], %s::int[], %s::int[], %s::text[], %s::int[],
                         %s::boolean[])
    ON CONFLICT (table_id, seat, n) DO NOTHING
    RETURNING table_id, seat, n, action, score, over)
SELECT table_id, seat, n, pg_notify('{CHANNEL}', json_build_object(
    't', table_id, 's', seat, 'n', n, 'a', action::json, 'p', score, 'o', over)::text)
FROM stored
"""
"""Store moves (those whose (table, seat, n) is taken are left out) and NOTIFY each
stored one, in one statement: one round trip, one transaction when autocommitted."""

FINISH = f"""
WITH last AS (
    SELECT DISTINCT ON (table_id, seat) table_id, seat, score, over FROM floor_moves
    WHERE table_id = ANY(%s) ORDER BY table_id, seat, n DESC),
done AS (
    INSERT INTO floor_results (table_id, scores)
    SELECT table_id, json_agg(score ORDER BY seat)::text FROM last GROUP BY table_id
    HAVING count(*) = {SEATS} AND bool_and(over)
    ON CONFLICT DO NOTHING RETURNING table_id)
UPDATE floor_tables SET status = 'finished' WHERE id IN (SELECT table_id FROM done)
"""
"""After seats' last moves are stored: the result of each of these tables whose
every seat's last stored move is over (its winner is read from its scores), in
one statement. Run after the move's own commit, so of two seats ending at once
the later sees both."""


def refused(reason: str, kind: str) -> str:
    return json.dumps({"type": "refused", "reason": reason, "kind": kind})


def check_action(action: Any) -> str | None:
    """Why ``action`` is not a ``place`` or ``end`` this floor takes, or ``None``."""
    if not isinstance(action, list) or not action or not isinstance(action[0], str):
        return "action: expected [name, *arguments] as written in game.log"
    name, arguments = action[0], action[1:]
    if name == "place":
        if len(arguments) != 3 or not all(type(a) is int and 0 <= a <= MAX_ARGUMENT
                                          for a in arguments):
            return "place: expected [\"place\", slot, row, column] (ints)"
        return None
    if name == "end":
        return "end: expected [\"end\"]" if arguments else None
    return f"action: {name[:40]!r} is not an action of this table (place or end)"


@dataclass(frozen=True)
class Move:
    table_id: int
    seat: int
    n: int
    """Its place among the seat's moves (1: the first)."""
    action: list[Any]
    score: int
    over: bool

    def message(self) -> str:
        return json.dumps({"type": "move", "seat": self.seat, "action": self.action,
                           "score": self.score, "over": self.over})


@dataclass
class Seat:
    name: str = ""
    n: int = 0
    score: int = 0
    over: bool = False
    busy: bool = False
    """An action of this seat is being stored by this process."""
    game: Any = None
    """With ``--rules``: the seat's game (``blockyard.Game``) as played so far."""
    applied: int = 0
    """With ``--rules``: how many of the seat's moves ``game`` has had."""
    actions: list[list[Any]] = field(default_factory=list)
    """With ``--rules``: the seat's stored actions (to play ``game`` again from its
    start when an action played on it was not stored)."""


def play(game: Any, action: list[Any]) -> None:
    """Play ``action`` (``place`` or ``end``) on the engine's ``game``; raises the
    engine's ``IllegalMove`` when the rules refuse it. ``end`` of a game over
    already (stuck, with eu's continue still offered) only finishes the seat."""
    if action[0] == "place":
        game.place(*action[1:])
    elif not game.over:
        game.end_round()


def finished(game: Any, action: list[Any]) -> bool:
    """Whether the seat is done after ``action``, as the referee says: it ended
    its game, or the game is over with no action offered after the end (eu's
    continue keeps a stuck seat playing)."""
    return action[0] == "end" or (game.over and not game.can_continue)


def new_seat_game(seed: int) -> Any:
    import blockyard

    return blockyard.new_game("eu-classic", seed=seed)


@dataclass(eq=False)
class Watcher:
    socket: WebSocket
    seat: int
    sent: int = 0
    """How many of the table's moves this connection has been sent."""


@dataclass(eq=False)
class TableState:
    """A table as this process knows it: loaded on its first connection here, then
    kept up to date by the moves stored here and the NOTIFYs of the others."""

    id: int
    seed: int = 0
    status: str = "playing"
    seats: list[Seat] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    """Every move message of the round, in the order this process learnt them."""
    result: str | None = None
    watchers: set[Watcher] = field(default_factory=set)
    loaded: asyncio.Event = field(default_factory=asyncio.Event)
    found: bool = False
    pending: list[Move] = field(default_factory=list)
    """Moves announced while it was being loaded or while their seat's move was
    being stored here."""

    def message(self) -> str:
        return json.dumps({"type": "table", "id": self.id, "ruleset_id": "eu-classic",
                           "seed": self.seed, "seats": [s.name for s in self.seats],
                           "status": self.status})


class Pool:
    """A fixed number of autocommitted connections, each used by one task at a time
    (a broken one is replaced when next taken)."""

    def __init__(self, url: str, size: int) -> None:
        self.url, self.size = url, size
        self.idle: asyncio.Queue[psycopg.AsyncConnection[Any] | None] = asyncio.Queue()

    async def open(self) -> None:
        for _ in range(self.size):
            self.idle.put_nowait(await connect(self.url))

    @contextlib.asynccontextmanager
    async def connection(self) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        conn = await self.idle.get()
        try:
            if conn is None or conn.broken:
                conn = None
                conn = await connect(self.url)
            yield conn
        finally:
            self.idle.put_nowait(conn)

    async def close(self) -> None:
        while not self.idle.empty():
            conn = self.idle.get_nowait()
            if conn is not None:
                await conn.close()


async def connect(url: str) -> psycopg.AsyncConnection[Any]:
    return await psycopg.AsyncConnection.connect(url, autocommit=True)


async def store(conn: psycopg.AsyncConnection[Any], moves: list[Move]
                ) -> set[tuple[int, int, int]]:
    """Store ``moves`` in one transaction (the connection autocommits the one
    statement) and NOTIFY them; the (table, seat, n) of those stored."""
    columns = ([m.table_id for m in moves], [m.seat for m in moves], [m.n for m in moves],
               [json.dumps(m.action) for m in moves], [m.score for m in moves],
               [m.over for m in moves])
    cursor = await conn.execute(STORE, columns)
    return {(row[0], row[1], row[2]) for row in await cursor.fetchall()}


class GroupCommit:
    """Group commit on one connection: every item that arrived while the previous
    group was being committed goes into the next transaction (one statement over
    arrays); each caller is answered once its group has committed."""

    def __init__(self, url: str, work: Callable[[psycopg.AsyncConnection[Any], list[Any]],
                                                Awaitable[list[bool]]]) -> None:
        self.url = url
        self.work = work
        """Stores a group in one transaction: whether each item was stored."""
        self.conn: psycopg.AsyncConnection[Any] | None = None
        self.waiting: list[tuple[Any, asyncio.Future[bool]]] = []
        self.wake = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.conn = await connect(self.url)
        self.task = asyncio.create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        if self.conn is not None:
            await self.conn.close()

    async def store(self, item: Any) -> bool:
        """Whether ``item`` was stored, once its group has committed."""
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self.waiting.append((item, future))
        self.wake.set()
        return await future

    async def run(self) -> None:
        while True:
            await self.wake.wait()
            self.wake.clear()
            group, self.waiting = self.waiting, []
            if not group:
                continue
            try:
                if self.conn is None or self.conn.broken:
                    self.conn = await connect(self.url)
                stored = await self.work(self.conn, [item for item, _ in group])
            except psycopg.Error as exc:
                for _, future in group:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, future), done in zip(group, stored, strict=True):
                if not future.done():
                    future.set_result(done)


async def store_moves(conn: psycopg.AsyncConnection[Any], moves: list[Move]) -> list[bool]:
    stored = await store(conn, moves)
    return [(m.table_id, m.seat, m.n) in stored for m in moves]


async def finish_tables(conn: psycopg.AsyncConnection[Any], table_ids: list[int]
                        ) -> list[bool]:
    """Store the results of the finished ones of ``table_ids`` (:data:`FINISH`)."""
    await conn.execute(FINISH, (sorted(set(table_ids)),))
    return [True] * len(table_ids)


class Floor:
    """The app's state: the tables kept in memory, the pools, the listener."""

    def __init__(self, url: str, group_commit: bool, pool: int, rules: bool = False
                 ) -> None:
        self.url = url
        self.rules = rules
        self.reads = Pool(url, pool)
        """Handshakes and GET; with one transaction per action, the actions and the
        results too."""
        self.group = GroupCommit(url, store_moves) if group_commit else None
        self.results = GroupCommit(url, finish_tables) if group_commit else None
        self.tables: dict[int, TableState] = {}
        self.listener: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()

    async def start(self) -> None:
        await self.reads.open()
        for group in (self.group, self.results):
            if group is not None:
                await group.start()
        self.listener = asyncio.create_task(self.listen())
        await asyncio.wait_for(self.listening.wait(), 60)

    async def stop(self) -> None:
        if self.listener is not None:
            self.listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.listener
        for group in (self.group, self.results):
            if group is not None:
                await group.stop()
        await self.reads.close()

    async def listen(self) -> None:
        """Every move stored by any process (this one too: already known, skipped)."""
        while True:
            try:
                async with await connect(self.url) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    async for notice in conn.notifies():
                        event = json.loads(notice.payload)
                        move = Move(event["t"], event["s"], event["n"], event["a"],
                                    event["p"], event["o"])
                        table = self.tables.get(move.table_id)
                        if table is None:
                            continue
                        if not table.loaded.is_set() or table.seats[move.seat].busy:
                            # being loaded, or this seat's move is being stored here:
                            # learnt after (a move of this process is sent to its
                            # player only once its result, if any, is stored)
                            table.pending.append(move)
                            continue
                        await self.learn(table, move)
            except psycopg.OperationalError:
                await asyncio.sleep(0.5)  # the database is away: listen again

    async def table(self, table_id: int) -> TableState | None:
        """The table, loaded from the database when no connection here has it."""
        table = self.tables.get(table_id)
        if table is not None:
            await table.loaded.wait()
            return table if table.found else None
        table = self.tables[table_id] = TableState(table_id)
        try:
            async with self.reads.connection() as conn:
                row = await (await conn.execute(
                    "SELECT seed, status FROM floor_tables WHERE id = %s",
                    (table_id,))).fetchone()
                if row is not None:
                    table.found = True
                    table.seed, table.status = int(row[0]), str(row[1])
                    table.seats = [Seat(game=new_seat_game(table.seed) if self.rules
                                        else None) for _ in range(SEATS)]
                    for seat, name in await (await conn.execute(
                            "SELECT seat, name FROM floor_seats WHERE table_id = %s",
                            (table_id,))).fetchall():
                        table.seats[seat].name = name
                    moves = await (await conn.execute(
                        "SELECT seat, n, action, score, over FROM floor_moves "
                        "WHERE table_id = %s ORDER BY id", (table_id,))).fetchall()
                    for seat, n, action, score, over in moves:
                        self.take(table, Move(table_id, seat, n, json.loads(action), score,
                                              over))
                    result = await (await conn.execute(
                        "SELECT scores FROM floor_results WHERE table_id = %s",
                        (table_id,))).fetchone()
                    if result is not None:
                        table.result = result_message(json.loads(result[0]))
        finally:
            table.loaded.set()
            if not table.found:
                self.tables.pop(table_id, None)
        for move in table.pending:
            self.take(table, move)
        table.pending.clear()
        return table if table.found else None

    async def catch_up(self, table: TableState) -> None:
        """Learn the moves announced while their seat's move was being stored."""
        while table.pending:
            await self.learn(table, table.pending.pop(0))

    def take(self, table: TableState, move: Move) -> bool:
        """Add ``move`` to the table as kept here; ``False`` when it was known."""
        seat = table.seats[move.seat]
        if move.n != seat.n + 1:
            return False  # known (a move of this process, or read when loading)
        seat.n, seat.score, seat.over = move.n, move.score, move.over
        if seat.game is not None:
            seat.actions.append(move.action)
            if seat.applied < move.n:  # another process's move (or read when loading)
                play(seat.game, move.action)
                seat.applied = move.n
        table.moves.append(move.message())
        return True

    async def learn(self, table: TableState, move: Move) -> None:
        """A move stored by any process: kept, sent to the connections here, and
        the result sent when every seat is over."""
        if self.take(table, move):
            if all(seat.over for seat in table.seats) and table.result is None:
                scores = [seat.score for seat in table.seats]
                table.result = result_message(scores)
                table.status = "finished"
            await self.deliver(table)
            if table.status == "finished" and table.result is not None:
                for watcher in list(table.watchers):
                    with contextlib.suppress(Exception):
                        await watcher.socket.send_text(table.result)

    async def deliver(self, table: TableState) -> None:
        """Send every connection of the table the moves it has not had, in order."""
        for watcher in list(table.watchers):
            while watcher.sent < len(table.moves):
                text = table.moves[watcher.sent]
                watcher.sent += 1
                try:
                    await watcher.socket.send_text(text)
                except Exception:  # a closed connection: its handler drops it
                    break

    async def finish(self, table_id: int) -> None:
        """After a seat's last move is stored: the table's result, if every seat is
        over (:data:`FINISH`)."""
        if self.results is not None:
            await self.results.store(table_id)
        else:
            async with self.reads.connection() as conn:
                await finish_tables(conn, [table_id])

    def unplay(self, seat: Seat) -> None:
        """With ``--rules``: the seat's game as stored, after an action played on it
        was not stored (played again from its start: rare)."""
        if seat.game is not None and seat.applied > len(seat.actions):
            seat.game = new_seat_game(seat.game.seed)
            for action in seat.actions:
                play(seat.game, action)
            seat.applied = len(seat.actions)

    async def act(self, watcher: Watcher, table: TableState, action: Any) -> None:
        seat = table.seats[watcher.seat]
        if table.status != "playing":
            await watcher.socket.send_text(refused(f"the table is {table.status}, not "
                                                   "playing", "not-now"))
            return
        if seat.over:
            await watcher.socket.send_text(refused("your game is over", "game-over"))
            return
        if seat.busy:
            await watcher.socket.send_text(refused("another connection of this seat is "
                                                   "acting", "conflict"))
            return
        problem = check_action(action)
        if problem is not None:
            await watcher.socket.send_text(refused(problem, "illegal"))
            return
        if seat.game is not None:
            try:
                play(seat.game, action)
            except ValueError as exc:  # the engine's IllegalMove, a bad argument
                await watcher.socket.send_text(refused(str(exc), "illegal"))
                return
            seat.applied = seat.n + 1
            move = Move(table.id, watcher.seat, seat.n + 1, action, seat.game.score,
                        finished(seat.game, action))
        else:
            move = Move(table.id, watcher.seat, seat.n + 1, action,
                        seat.score + (action[0] == "place"), action[0] == "end")
        seat.busy = True
        try:
            if self.group is not None:
                stored = await self.group.store(move)
            else:
                async with self.reads.connection() as conn:
                    stored = bool(await store(conn, [move]))
            if stored and move.over:
                await self.finish(table.id)
        except psycopg.Error:
            seat.busy = False
            self.unplay(seat)
            await self.catch_up(table)
            await watcher.socket.send_text(refused("the move could not be stored: try "
                                                   "again", "not-now"))
            return
        finally:
            seat.busy = False
        if stored:
            await self.learn(table, move)
        else:
            self.unplay(seat)
        await self.catch_up(table)
        if not stored:
            await watcher.socket.send_text(refused("another connection of this seat acted "
                                                   "first", "conflict"))

    async def live(self, socket: WebSocket) -> None:
        table_id = int(socket.path_params["table_id"])
        await socket.accept()
        first = await socket.receive()  # the hello, with the token (protocol 4)
        if first["type"] == "websocket.disconnect":
            return
        try:
            hello = json.loads(first.get("text") or "")
        except (ValueError, RecursionError):
            hello = None
        token = hello.get("token") if isinstance(hello, dict) \
            and hello.get("type") == "hello" else None
        token = token[:64] if isinstance(token, str) else ""
        async with self.reads.connection() as conn:
            row = await (await conn.execute(
                "SELECT seat FROM floor_seats WHERE token = %s AND table_id = %s",
                (token, table_id))).fetchone()
        if row is None:
            await socket.send_text(refused("sign in first: the token is not valid",
                                           "signed-out"))
            await socket.close(4401)
            return
        table = await self.table(table_id)
        if table is None:
            await socket.send_text(refused("no such table", "not-found"))
            await socket.close(4404)
            return
        watcher = Watcher(socket, int(row[0]))
        table.watchers.add(watcher)
        try:
            await socket.send_text(table.message())
            await self.deliver(table)
            if table.result is not None:
                await socket.send_text(table.result)
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                try:
                    data = json.loads(message.get("text") or "")
                except (ValueError, RecursionError):
                    await socket.send_text(refused("expected one JSON object per message",
                                                   "malformed"))
                    continue
                if isinstance(data, dict) and data.get("type") == "act":
                    await self.act(watcher, table, data.get("action"))
                elif isinstance(data, dict) and data.get("type") == "leave":
                    break
                else:
                    await socket.send_text(refused("type: expected act or leave (the floor "
                                                   "deals one round)", "malformed"))
        except WebSocketDisconnect:
            pass
        finally:
            table.watchers.discard(watcher)
            if not table.watchers and self.tables.get(table_id) is table:
                del self.tables[table_id]
            with contextlib.suppress(Exception):
                await socket.close()

    async def get_table(self, request: Request) -> JSONResponse:
        table_id = int(request.path_params["table_id"])
        async with self.reads.connection() as conn:
            row = await (await conn.execute(
                "SELECT seed, status FROM floor_tables WHERE id = %s",
                (table_id,))).fetchone()
            if row is None:
                return JSONResponse({"error": f"no table {table_id}"}, status_code=404)
            names = await (await conn.execute(
                "SELECT name FROM floor_seats WHERE table_id = %s ORDER BY seat",
                (table_id,))).fetchall()
            done = await (await conn.execute(
                "SELECT scores FROM floor_results WHERE table_id = %s",
                (table_id,))).fetchall()
        return JSONResponse({
            "id": table_id, "ruleset_id": "eu-classic", "seed": row[0],
            "seats": [name for (name,) in names], "status": row[1],
            "results": [{"scores": json.loads(scores), "winner": winner(json.loads(scores))}
                        for (scores,) in done]})


def winner(scores: list[int]) -> int | None:
    best = max(scores)
    return scores.index(best) if scores.count(best) == 1 else None


def result_message(scores: list[int]) -> str:
    return json.dumps({"type": "result", "scores": scores, "winner": winner(scores)})


def app(url: str, group_commit: bool, pool: int, rules: bool = False) -> Starlette:
    """The floor's ASGI app on the PostgreSQL database at ``url``."""
    floor = Floor(url, group_commit, pool, rules)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await floor.start()
        yield
        await floor.stop()

    async def health(_: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "version": "floor"})

    return Starlette(routes=[
        Route("/api/health", health),
        Route("/api/tables/{table_id:int}", floor.get_table),
        WebSocketRoute("/api/tables/{table_id:int}/live", floor.live),
    ], lifespan=lifespan)


def prepare(url: str, duels: int, rng: random.Random | None = None
            ) -> list[tuple[int, str, str, int]]:
    """The schema (when missing) and ``duels`` playing tables of two seats, each
    with its own token: (table id, first token, second token, seed) per duel."""
    rng = rng or random.Random()
    made = []
    with psycopg.connect(url) as conn:
        conn.execute(SCHEMA)
        for _ in range(duels):
            seed = rng.randrange(1 << 31)
            row = conn.execute("INSERT INTO floor_tables (seed, status) VALUES (%s, "
                               "'playing') RETURNING id", (seed,)).fetchone()
            assert row is not None
            tokens = [secrets.token_urlsafe(32) for _ in range(SEATS)]
            for seat, token in enumerate(tokens):
                conn.execute("INSERT INTO floor_seats (token, table_id, seat, name) "
                             "VALUES (%s, %s, %s, %s)",
                             (token, row[0], seat, f"f{row[0]}s{seat}"))
            made.append((int(row[0]), tokens[0], tokens[1], seed))
    return made


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True, help="postgresql://…")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--group-commit", action="store_true")
    parser.add_argument("--rules", action="store_true",
                        help="check each action on the engine too (eu-classic)")
    parser.add_argument("--pool", type=int, default=10,
                        help="connections per process (Blockyard's pool size: 10)")
    args = parser.parse_args()
    if not 1 <= args.pool <= 100:
        parser.error("--pool: expected 1 to 100")
    uvicorn.run(app(args.database, args.group_commit, args.pool, args.rules), host=HOST,
                port=args.port, ws="websockets-sansio", ws_max_size=MAX_MESSAGE,
                ws_per_message_deflate=False, timeout_graceful_shutdown=5)


if __name__ == "__main__":
    main()
