"""The moves a server process keeps of a round: added per seat in order only,
and completed from the database by reading just the missing ones, whatever
order the rows were stored in; a connection opening gets every move stored so far,
announced to its process yet or not."""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from server_support import local_server
from test_server_tables import live, receive, seated, until

import blockyard
from blockyard.server import accounts, db, livecache, presence, tablestore
from blockyard.server.actionstore import ActionStore, Taken
from blockyard.server.clock import FakeClock
from blockyard.server.tablestore import Move


def store_action(engine: sa.Engine, table: tablestore.Table, move: Move) -> None:
    store = ActionStore(engine)

    async def stored_and_closed() -> None:
        await store.store(table, move, None)
        await store.close()

    asyncio.run(stored_and_closed())


def test_a_seats_moves_are_added_in_order_only() -> None:
    known = livecache.RoundMoves(1)
    assert known.add(Move(0, 1, ["place", 0, 0, 0], 5, False))
    assert not known.add(Move(0, 3, ["place", 1, 0, 0], 9, False))  # move 2 missing
    assert not known.add(Move(0, 1, ["place", 0, 0, 0], 5, False))  # known already
    assert known.add(Move(1, 1, ["end"], 0, True))
    assert known.counts == {0: 1, 1: 1}
    assert known.has(0, 1) and not known.has(0, 2) and known.has(1, 1)
    assert [(m.seat, m.n) for m in known.moves] == [(0, 1), (1, 1)]


def test_what_the_kept_moves_say_of_each_seat_grows_with_them() -> None:
    """Who is there reads when each seat last acted (ticks aside), whether its game
    went over and whether it ended, from the moves kept: kept as they are added,
    it is what going over all of them says."""
    at = [_dt.datetime(2026, 12, 3, 9, 0, second, tzinfo=_dt.UTC) for second in range(6)]
    moves = [Move(0, 1, ["place", 0, 0, 0], 5, False, at[1]),
             Move(1, 1, ["tick"], 0, False, at[2]),
             Move(0, 2, ["place", 1, 0, 0], 9, True, at[3]),
             Move(1, 2, ["place", 2, 0, 0], 2, False, at[4]),
             Move(0, 3, ["end"], 9, True, at[5]),
             Move(1, 3, ["tick"], 2, False, None)]
    known = livecache.RoundMoves(1)
    for count, move in enumerate(moves, 1):
        assert known.add(move)
        assert known.done == presence.done_from(moves[:count])
    assert known.done == {0: (at[5], True, True), 1: (at[4], False, False)}
    assert not known.add(Move(1, 5, ["end"], 2, True))  # not the next: nothing noted
    assert known.done[1] == (at[4], False, False)


@pytest.fixture
def engine(tmp_path: Path) -> sa.Engine:
    url = f"sqlite:///{tmp_path / 'live.sqlite3'}"
    db.migrate(url)
    return db.make_engine(url)


def test_only_the_missing_moves_are_read(engine: sa.Engine) -> None:
    one = accounts.create_account(engine, "one", "password1")
    two = accounts.create_account(engine, "two", "password2")
    table = tablestore.create_table(engine, one, "eu-classic", 2, False, [], None)
    table = tablestore.join_table(engine, table.id, two, None)
    stored = [Move(1, 1, ["place", 0, 0, 0], 3, False), Move(0, 1, ["place", 1, 0, 0], 4,
                                                                 False),
              Move(1, 2, ["place", 2, 0, 0], 7, False), Move(0, 2, ["end"], 4, True)]
    for move in stored[:3]:
        store_action(engine, table, move)
    known = livecache.RoundMoves(table.round)
    assert known.add(stored[1])  # seat 0's first move, stored here
    missing = livecache.moves_after(engine, table.id, known, table.seats)
    assert missing == [stored[0], stored[2]]  # seat 1's moves, in the order stored
    for move in missing:
        assert known.add(move)
    store_action(engine, table, stored[3])
    assert livecache.moves_after(engine, table.id, known, table.seats) == [stored[3]]
    with pytest.raises(Taken):  # a seat's step is stored once
        store_action(engine, table, Move(0, 2, ["end"], 4, True))
    engine.dispose()


def test_an_announcement_carries_its_move_when_it_fits() -> None:
    import datetime as dt

    from blockyard.server.events import MAX_PAYLOAD

    table = tablestore.Table(7, "CODE", "eu-classic", 2, False, "playing", 3, 1, None, None,
                             ("ann", "bob"), (1, 2), frozenset())
    move = Move(1, 4, ["place", 2, 3, 4], 40, False, dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC))
    event = livecache.announcement(table, move)
    assert (event["kind"], event["table"], event["round"], event["seat"], event["n"]) == (
        "moves", 7, 3, 1, 4)
    carried = livecache.announced_move(event)
    assert carried == move and carried is not None and carried.at == move.at
    large = Move(1, 5, ["place", "x" * MAX_PAYLOAD], 40, False)  # past NOTIFY's limit
    bare = livecache.announcement(table, large)
    assert "action" not in bare and livecache.announced_move(bare) is None
    for wrong in ({"score": "40"}, {"action": []}, {"over": 1}, {"at": "noon"}, {"n": None}):
        assert livecache.announced_move({**event, **wrong}) is None


def test_a_connection_opening_where_the_table_is_watched_gets_a_move_not_yet_announced_there(
        database: str) -> None:
    # a player's move is stored by one process, and the player, acknowledged,
    # opens a connection on another process at once, before the move's
    # announcement reaches it; that process watches the table (the opponent is
    # connected there), yet the new connection gets the move, and the referee
    # there judges the player's next move on it
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        table_id, first, second, joined = seated(server)
        assert joined == {"seat": 1}
        engine = server.hub.server.engine
        table = tablestore.load_table(engine, table_id)
        game = blockyard.new_game("eu-classic", seed=table.seed)
        with live(server, table_id, second) as watching:
            until(watching, "table")
            action = ["place", *game.legal_moves()[0]]
            game.apply(action)
            # stored by "the other process": no announcement reaches this one
            store_action(engine, table, Move(0, 1, action, game.score, game.over,
                                             _dt.datetime.now(_dt.UTC)))
            with live(server, table_id, first) as player:
                assert receive(player)["type"] == "table"
                shown = until(player, "move")
                assert (shown["seat"], shown["action"], shown["score"]) == \
                    (0, action, game.score)
                following = ["place", *game.legal_moves()[0]]
                game.apply(following)
                player.send(json.dumps({"type": "act", "action": following}))
                answer = until(player, "move", lambda m: m["action"] == following)
                assert (answer["seat"], answer["score"]) == (0, game.score)
