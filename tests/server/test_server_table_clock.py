"""Live tables on the server's clock, through the real routes and sockets of a
server in this process that decides by a fake clock (SQLite and PostgreSQL): a
falling round ends at its time limit, idle seats are ended, and the database
away never counts against a player. Nothing here waits for time to pass: the
test moves the clock, then runs one sweep of the server (what its timer does)."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from server_support import LocalServer, local_server
from test_server_tables import live, seated, until
from websockets.exceptions import ConnectionClosed

import blockyard
from blockyard.server import accounts, presence
from blockyard.server.clock import FakeClock


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
          ) -> Iterator[LocalServer]:
    """A server in this process on a fake clock (started at the real time: the
    store stamps some rows with it), abandon time 120 s, idle time 300 s (or the
    test's ``idle`` parameter)."""
    monkeypatch.setenv("BLOCKYARD_SERVER_ABANDON_SECONDS", "120")
    monkeypatch.setenv("BLOCKYARD_SERVER_IDLE_SECONDS",
                       getattr(request, "param", {}).get("idle", "300"))
    monkeypatch.delenv("BLOCKYARD_SERVER_CLOCK_TOLERANCE", raising=False)
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    clock = FakeClock(_dt.datetime.now(_dt.UTC))
    with local_server(database, clock) as server:
        yield server


def duel(server: LocalServer, ruleset: str) -> tuple[int, int, str, str]:
    """A playing table of ``ruleset``: its id, seed and both players' tokens."""
    table_id, owner, other, joined = seated(server, ruleset, "ck")
    assert joined == {"seat": 1}
    seed = server.client.get(f"/api/tables/{table_id}").json()["seed"]
    return table_id, int(seed), owner, other


def act(socket: Any, action: list[Any]) -> None:
    socket.send(json.dumps({"type": "act", "action": action}))


def moves_until_result(socket: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The move messages before the result message, and the result."""
    moves = []
    while True:
        message = until_any(socket, ("move", "result"))
        if message["type"] == "result":
            return moves, message
        moves.append(message)


def until_any(socket: Any, kinds: tuple[str, ...]) -> dict[str, Any]:
    while True:
        message = json.loads(socket.recv(timeout=30))
        if message["type"] in kinds:
            return dict(message)


@pytest.mark.parametrize("local", [{"idle": "1000"}], indirect=True)
def test_the_falling_round_ends_on_the_servers_clock(local: LocalServer) -> None:
    table_id, seed, owner, other = duel(local, "sudoku-bloxx")
    with live(local, table_id, owner) as one, live(local, table_id, other) as two:
        # both connected (each greeted once its hello is read) before the clock moves
        assert until(one, "clock")["elapsed"] == until(two, "clock")["elapsed"] == 0
        act(one, ["tick", 1_000_000])
        act(one, ["hard"])
        until(one, "move")
        until(one, "move")  # both accepted before the clock moves on
        local.clock.advance(359.999)
        local.run(local.hub.sweep.once())
        act(one, ["move", 1])  # 359.999 s: the round is still on (and this one's clock
        assert until(one, "refused")["kind"] == "clock"  # far behind)
        local.clock.advance(0.001)  # 360 s since the round started: the round is over
        local.run(local.hub.sweep.once())  # (no player has sent anything since)
        moves, result = moves_until_result(two)
        games = [blockyard.new_game("sudoku-bloxx", seed=seed) for _ in range(2)]
        expected = []
        for seat, action in ((0, ["tick", 1_000_000]), (0, ["hard"]),
                             (0, ["tick", 359_000_000]), (1, ["tick", 360_000_000])):
            games[seat].apply(action)
            expected.append((seat, action, games[seat].score, games[seat].over))
        assert [(m["seat"], m["action"], m["score"], m["over"]) for m in moves] == expected
        assert games[0].over and games[1].over
        assert result["scores"] == [games[0].score, games[1].score]
        assert moves_until_result(one)[1] == result


def test_end_is_accepted_while_the_players_clock_is_behind(local: LocalServer) -> None:
    table_id, _, owner, other = duel(local, "sudoku-bloxx")
    with live(local, table_id, owner) as one, live(local, table_id, other) as two:
        until(one, "clock")
        until(two, "clock")
        local.clock.advance(30)  # far past the 5 s the clock may lag
        act(one, ["hard"])
        assert until(one, "refused")["kind"] == "clock"
        act(one, ["end"])
        assert until(two, "move") == {"type": "move", "seat": 0, "action": ["end"],
                                      "score": 0, "over": True}


def test_a_connected_player_who_never_acts_holds_no_duel(local: LocalServer) -> None:
    table_id, seed, owner, other = duel(local, "eu-classic")
    with live(local, table_id, owner) as one, live(local, table_id, other) as two:
        until(one, "table")
        until(two, "table")
        game = blockyard.new_game("eu-classic", seed=seed)
        action = ["place", *game.legal_moves()[0]]
        game.apply(action)
        local.clock.advance(100)
        act(one, action)  # seat 0 acts; seat 1 is connected and never does
        assert until(two, "move")["seat"] == until(one, "move")["seat"] == 0
        local.clock.advance(200)
        local.run(local.hub.sweep.once())
        ended = {"type": "move", "seat": 1, "action": ["end"], "score": 0, "over": True}
        assert until(one, "move") == until(two, "move") == ended
        local.clock.advance(99)
        local.run(local.hub.sweep.once())  # seat 0 acted 299 s ago: it plays on
        act(one, ["end"])
        assert until(two, "move") == {"type": "move", "seat": 0, "action": ["end"],
                                      "score": game.score, "over": True}
        assert until(two, "result")["scores"] == [game.score, 0]


@pytest.mark.parametrize("local", [{"idle": "1000"}], indirect=True)
def test_the_database_away_never_counts_against_a_reconnecting_player(
        local: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    table_id, seed, owner, other = duel(local, "eu-classic")
    away = {"now": False}
    real_touch, real_account = presence.touch_each, accounts.account_for

    def touch(*args: Any, **options: Any) -> list[presence.Row]:
        if away["now"]:
            raise sa.exc.OperationalError("touch", {}, Exception("the database is away"))
        return real_touch(*args, **options)

    def account_for(*args: Any) -> Any:
        if away["now"]:
            raise sa.exc.OperationalError("token", {}, Exception("the database is away"))
        return real_account(*args)

    monkeypatch.setattr(presence, "touch_each", touch)
    monkeypatch.setattr(accounts, "account_for", account_for)
    with live(local, table_id, owner) as one:
        until(one, "table")
        with live(local, table_id, other) as two:
            until(two, "table")
        local.run(local.hub.sweep.once())  # seat 1 away from now
        local.clock.advance(100)
        local.run(local.hub.sweep.once())
        away["now"] = True  # 160 s of outage; seat 1's player tries to come back
        for _ in range(16):
            local.clock.advance(10)
            with pytest.raises(Exception):  # noqa: B017 - whatever the failing sweep raises
                local.run(local.hub.sweep.once())
            with live(local, table_id, other) as refused, pytest.raises(ConnectionClosed):
                refused.recv(timeout=30)
            assert refused.close_code == 1013
        local.clock.advance(5)
        away["now"] = False  # the database is back: seat 1 away 265 s, none of it counted
        local.run(local.hub.sweep.once())
        local.clock.advance(119)
        local.run(local.hub.sweep.once())  # 119 s since it came back: no one is ended
        with live(local, table_id, other) as back:  # seat 1 is back and plays on
            until(back, "table")
            game = blockyard.new_game("eu-classic", seed=seed)
            action = ["place", *game.legal_moves()[0]]
            act(back, action)
            move = until(back, "move")
            assert (move["seat"], move["action"]) == (1, action)


@pytest.mark.parametrize("local", [{"idle": "1000"}], indirect=True)
def test_a_stuck_seat_whose_player_goes_away_is_ended_after_the_abandon_time(
        local: LocalServer) -> None:
    # over with a continue left, the seat is not finished: its player going away
    # must not hold the table forever (nobody else is connected to it either)
    table_id, seed, owner, other = duel(local, "eu-classic")
    game = blockyard.new_game("eu-classic", seed=seed)
    with live(local, table_id, other) as two:
        until(two, "table")
        act(two, ["end"])
        until(two, "move")
    with live(local, table_id, owner) as one:
        until(one, "table")
        while not game.over:
            action = ["place", *game.legal_moves()[0]]
            game.apply(action)
            act(one, action)
            move = until(one, "move")
            while move["seat"] != 0:
                move = until(one, "move")
        assert [a.name for a in game.actions()] == ["continue"]
    local.wait_gone(table_id)
    local.clock.advance(1)
    local.run(local.hub.sweep.once())  # both away from here on
    local.clock.advance(121)
    local.run(local.hub.sweep.once())
    stored = local.client.get(f"/api/tables/{table_id}").json()
    assert stored["status"] == "finished"
    assert [r["scores"] for r in stored["results"]] == [[game.score, 0]]


def test_an_action_while_the_database_is_away_is_refused_and_play_goes_on(
        local: LocalServer, monkeypatch: pytest.MonkeyPatch) -> None:
    # the store cannot store the move (the database away): the action is refused
    # (kind not-now), nothing is accepted, the connection stays open, and once
    # the database is back the same action is accepted
    from blockyard.server import actionstore

    table_id, seed, owner, _ = duel(local, "eu-classic")
    away = {"now": True}
    real_pg, real_lite = actionstore.ActionStore._write_postgresql, actionstore.ActionStore._write

    async def postgresql(self: Any, group: Any) -> Any:
        if away["now"]:
            raise sa.exc.OperationalError("store", {}, Exception("the database is away"))
        return await real_pg(self, group)

    def sqlite(self: Any, group: Any) -> Any:
        if away["now"]:
            raise sa.exc.OperationalError("store", {}, Exception("the database is away"))
        return real_lite(self, group)

    monkeypatch.setattr(actionstore.ActionStore, "_write_postgresql", postgresql)
    monkeypatch.setattr(actionstore.ActionStore, "_write", sqlite)
    game = blockyard.new_game("eu-classic", seed=seed)
    action = ["place", *game.legal_moves()[0]]
    with live(local, table_id, owner) as one:
        until(one, "table")
        act(one, action)
        refused = until(one, "refused")
        assert refused["kind"] == "not-now" and "database" in refused["reason"]
        away["now"] = False
        act(one, action)
        move = until(one, "move")  # the first move accepted: the refused one was not
        game.place(*action[1:])
        assert (move["seat"], move["action"], move["score"]) == (0, action, game.score)
    assert local.client.get(f"/api/tables/{table_id}").json()["status"] == "playing"
