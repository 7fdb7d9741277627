"""The live tables' moves stored with group commit (blockyard.server.actionstore):
moves accepted while a commit is under way go in the next transaction together,
each acknowledged only once its transaction has committed; a move stored already
is refused alone; a database away fails the group and stores none of it. On
SQLite and on PostgreSQL (where each stored move is also announced)."""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
from pathlib import Path
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from blockyard.server import accounts, db, livecache, tablestore
from blockyard.server.actionstore import ActionStore, Revoked, Taken, Unstored
from blockyard.server.events import CHANNEL
from blockyard.server.tablestore import Move, Table

pytestmark = pytest.mark.usefixtures("cheap_passwords")  # forty accounts per test, not their hashes


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres").new_database()
    db.migrate(url)
    return url


def tables(engine: sa.Engine, count: int) -> list[Table]:
    """``count`` duel tables, both seats taken, their rounds playing."""
    made = []
    for index in range(count):
        one = accounts.create_account(engine, f"one{index}", "password1")
        two = accounts.create_account(engine, f"two{index}", "password2")
        table = tablestore.create_table(engine, one, "eu-classic", 2, False, [], None)
        made.append(tablestore.join_table(engine, table.id, two, None))
    return made


def run(store: ActionStore, awaitable: Any) -> Any:
    """``asyncio.run`` of ``awaitable``, the store closed at its end (on PostgreSQL
    it holds a connection of the event loop it stored in)."""
    async def then_close() -> Any:
        try:
            return await awaitable
        finally:
            await store.close()

    return asyncio.run(then_close())


def stored(engine: sa.Engine, table: Table) -> list[Move]:
    return livecache.moves_after(engine, table.id, livecache.RoundMoves(table.round),
                                 table.seats)


def test_moves_accepted_together_are_committed_together(url: str) -> None:
    engine = db.make_engine(url)
    try:
        made = tables(engine, 20)
        store = ActionStore(engine)
        moves = [Move(seat, n, ["place", 0, 0, n], 10 * n, False)
                 for n in (1, 2) for seat in (0, 1)]

        async def play() -> None:
            for move in moves:  # each table's moves in order, the tables at once
                await asyncio.gather(*(store.store(table, move, None) for table in made))

        run(store, play())
        assert store.stored == 20 * len(moves)
        assert store.groups < store.stored  # grouped: fewer commits than moves
        for table in made:
            assert stored(engine, table) == moves
    finally:
        engine.dispose()


def test_the_moves_a_round_lacks_are_read_after_those_known_in_the_order_stored(
        url: str) -> None:
    engine = db.make_engine(url)
    try:
        (table,) = tables(engine, 1)
        store = ActionStore(engine)
        moves = [Move(0, 1, ["place", 0, 0, 0], 3, False), Move(1, 1, ["place", 1, 0, 0], 4, False),
                 Move(1, 2, ["place", 2, 0, 3], 9, False), Move(0, 2, ["end"], 3, True)]

        async def play() -> list[list[Move]]:
            for move in moves:
                await store.store(table, move, None)
            known = livecache.RoundMoves(table.round)
            every = await store.moves_after(table.id, known, table.seats)
            known.add(moves[0])
            known.add(moves[1])  # seat 0's first and seat 1's first known
            lacking = await store.moves_after(table.id, known, table.seats)
            other = await store.moves_after(table.id, livecache.RoundMoves(table.round + 1),
                                            table.seats)
            return [every, lacking, other]

        every, lacking, other = run(store, play())
        assert every == moves and lacking == moves[2:] and other == []
        assert all(move.at is not None and move.at.utcoffset() == _dt.timedelta(0)
                   for move in every)
        assert every == stored(engine, table)  # as the server's pool reads them
    finally:
        engine.dispose()


def test_a_move_stored_already_is_refused_alone(url: str) -> None:
    engine = db.make_engine(url)
    try:
        first, second, third = tables(engine, 3)
        store = ActionStore(engine)
        taken = Move(0, 1, ["place", 0, 0, 0], 3, False)
        run(store, store.store(second, taken, None))

        async def together() -> list[BaseException | None]:
            return await asyncio.gather(  # one group: the second table's move is not new
                store.store(first, Move(0, 1, ["place", 1, 0, 0], 4, False), None),
                store.store(second, Move(0, 1, ["place", 2, 0, 0], 5, False), None),
                store.store(third, Move(1, 1, ["end"], 0, True), None),
                return_exceptions=True)

        outcomes = run(store, together())
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], Taken)
        assert stored(engine, first) == [Move(0, 1, ["place", 1, 0, 0], 4, False)]
        assert stored(engine, second) == [taken]  # as it was
        assert stored(engine, third) == [Move(1, 1, ["end"], 0, True)]
    finally:
        engine.dispose()


def test_a_group_the_database_cannot_store_fails_whole(url: str, tmp_path: Path) -> None:
    engine = db.make_engine(url)
    try:
        made = tables(engine, 2)
    finally:
        engine.dispose()
    if url.startswith("sqlite"):  # a folder that is not there: no database to open
        away = f"sqlite:///{tmp_path / 'gone' / 'live.sqlite3'}"
    else:  # a port nothing listens on
        away = str(sa.make_url(url).set(port=1))
    engine = db.make_engine(away)
    try:
        store = ActionStore(engine)

        async def together() -> list[BaseException | None]:
            return await asyncio.gather(*(
                store.store(table, Move(0, 1, ["place", 0, 0, 0], 3, False), None)
                for table in made), return_exceptions=True)

        outcomes = run(store, together())
        assert all(isinstance(outcome, Unstored) for outcome in outcomes)
        assert store.stored == 0
    finally:
        engine.dispose()
    engine = db.make_engine(url)
    try:
        assert all(stored(engine, table) == [] for table in made)
    finally:
        engine.dispose()


def test_each_stored_move_is_announced_at_its_commit(request: pytest.FixtureRequest
                                                     ) -> None:
    url = request.getfixturevalue("postgres").new_database()
    db.migrate(url)
    engine = db.make_engine(url)
    try:
        made = tables(engine, 3)
        raw = engine.raw_connection()
        try:
            listener = raw.driver_connection
            assert isinstance(listener, psycopg.Connection)
            listener.autocommit = True
            listener.execute(f"LISTEN {CHANNEL}")
            store = ActionStore(engine)
            move = Move(0, 1, ["end"], 0, True)

            async def together() -> None:
                await asyncio.gather(*(store.store(
                    table, move, livecache.encoded_announcement(table, move)[1])
                    for table in made))

            run(store, together())
            heard: list[dict[str, Any]] = [
                json.loads(notice.payload)
                for notice in listener.notifies(timeout=30, stop_after=len(made))]
        finally:
            raw.close()
        assert sorted(event["table"] for event in heard) == sorted(t.id for t in made)
        # each carries its move (the other processes need no read)
        assert all(livecache.announced_move(event) == move for event in heard)
    finally:
        engine.dispose()


def test_two_moves_of_one_step_in_one_group_store_and_announce_the_first_only(
        url: str) -> None:
    engine = db.make_engine(url)
    try:
        (table,) = tables(engine, 1)
        store = ActionStore(engine)
        first, second = (Move(0, 1, ["place", 0, 0, k], k, False) for k in (1, 2))

        async def together() -> list[BaseException | None]:
            return await asyncio.gather(store.store(table, first, None),
                                        store.store(table, second, None),
                                        return_exceptions=True)

        outcomes = run(store, together())
        assert outcomes[0] is None and isinstance(outcomes[1], Taken)
        assert stored(engine, table) == [first]
    finally:
        engine.dispose()


def test_a_read_after_the_database_ended_the_stores_connection_is_made_again(
        request: pytest.FixtureRequest) -> None:
    # a restart ends the store's connection unseen: the read that finds it dead is
    # sent once more on a new one (a move's group is not: it may have committed)
    url = request.getfixturevalue("postgres").new_database()
    db.migrate(url)
    engine = db.make_engine(url)
    try:
        (table,) = tables(engine, 1)
        store = ActionStore(engine)
        move = Move(0, 1, ["place", 0, 0, 0], 3, False)

        async def play() -> list[Move]:
            await store.store(table, move, None)
            with engine.connect() as conn:
                ended = conn.execute(sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND query LIKE '%jsonb_array_elements%'")).scalars().all()
            assert ended == [True]
            return await store.moves_after(table.id, livecache.RoundMoves(table.round),
                                           table.seats)

        assert run(store, play()) == [move]
    finally:
        engine.dispose()


def test_a_move_of_a_signed_out_token_is_refused_alone_in_its_group(url: str) -> None:
    # the session read in the transaction that would store the move: a move
    # sent with a revoked token is left out, the others of its group stored
    engine = db.make_engine(url)
    try:
        made = tables(engine, 3)
        tokens = [accounts.sign_in(engine, f"one{index}", "password1") for index in range(3)]
        assert all(tokens)
        hashes = [accounts.token_hash(token or "") for token in tokens]
        assert accounts.revoke(engine, tokens[1] or "")
        store = ActionStore(engine)
        move = Move(0, 1, ["place", 0, 0, 1], 10, False)

        async def play() -> list[BaseException | None]:
            found = await asyncio.gather(
                *(store.store(table, move, None, token) for table, token in zip(
                    made, hashes, strict=True)),
                store.store(made[1], Move(1, 1, ["place", 0, 0, 2], 20, False), None),
                return_exceptions=True)
            return list(found)

        answers = run(store, play())
        assert answers[0] is None and answers[2] is None
        assert isinstance(answers[1], Revoked)
        assert answers[3] is None  # the clock's move (no token) of that same table
        assert [len(stored(engine, table)) for table in made] == [1, 1, 1]
        assert [m.seat for m in stored(engine, made[1])] == [1]  # not the signed-out one
    finally:
        engine.dispose()
