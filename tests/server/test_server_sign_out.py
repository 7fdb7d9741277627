"""Signing out through a real server (SQLite and PostgreSQL): ``DELETE
/api/sessions`` closes every live connection opened with that token, table
sockets and the personal channel alike (close code 4401), and a move sent on one
after the sign-out is not accepted; the player's other sessions carry on; one process
signing out closes the connections another holds. Racing sign-outs against a
stream of moves, on one process and across two, no move sent after the 204 is
stored: the move's own transaction sees the sign-out, even when its
announcement never reaches the process holding the socket."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import threading
import time
from typing import Any

import pytest
import sqlalchemy as sa
from server_support import Server, engine_of, local_server
from test_server_social import me_live
from test_server_tables import WAIT, auth, live, new_table, until
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

import blockyard
from blockyard.server import accounts, tablestore
from blockyard.server.clock import FakeClock


def close_code(socket: ClientConnection) -> tuple[int | None, list[dict[str, Any]]]:
    """The close code the server ended ``socket`` with, and the messages before
    it (``TimeoutError`` when it stays open past :data:`WAIT`)."""
    seen = []
    with contextlib.suppress(ConnectionClosed):
        for _ in range(1000):
            seen.append(json.loads(socket.recv(timeout=WAIT)))
        raise AssertionError("the connection was never closed")
    return socket.close_code, seen


def test_signing_out_closes_the_tokens_live_connections(server: Server) -> None:
    _, token = server.account("so")
    _, other = server.account("so")
    table = new_table(server, token)
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(other)).json() == {"seat": 1}
    seed = server.client.get(f"/api/tables/{table['id']}").json()["seed"]
    game = blockyard.new_game("eu-classic", seed=seed)
    action = ["place", *game.legal_moves()[0]]
    with live(server, table["id"], token) as mine, \
            live(server, table["id"], token) as again, me_live(server, token) as feed, \
            live(server, table["id"], other) as theirs:
        for socket in (mine, again):
            until(socket, "table")
        round_ = until(theirs, "table")["round"]
        until(feed, "online")
        assert server.client.delete("/api/sessions", headers=auth(token)).status_code == 204
        with contextlib.suppress(ConnectionClosed):  # closed already, or about to be
            mine.send(json.dumps({"type": "act", "action": action}))
        for socket in (mine, again, feed):
            code, seen = close_code(socket)
            assert code == 4401
            assert not [m for m in seen if m.get("type") == "move"]
            assert seen[-1]["type"] == "refused" and seen[-1]["kind"] == "signed-out"
        with engine_of(server.database) as engine:  # the move sent after: not stored
            assert tablestore.actions(engine, table["id"], round_) == []
        # the other player's connection carries on, and their moves are taken
        theirs.send(json.dumps({"type": "act", "action": action}))
        assert until(theirs, "move")["seat"] == 1
    assert server.client.get("/api/me/invitations", headers=auth(other)).status_code == 200
    assert server.client.get("/api/me/invitations", headers=auth(token)).status_code == 401


def test_signing_out_on_one_process_closes_the_connections_on_another(
        two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    _, token = first.account("sx")
    table = new_table(first, token)
    with live(second, table["id"], token) as socket, me_live(second, token) as feed:
        until(socket, "table")
        until(feed, "online")
        assert first.client.delete("/api/sessions", headers=auth(token)).status_code == 204
        for closed in (socket, feed):
            code, seen = close_code(closed)
            assert code == 4401 and seen[-1]["kind"] == "signed-out"


def test_a_connection_opening_while_its_token_is_signed_out_is_closed(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the sign-out announced after the token was checked, before the connection
    # was registered (the server in this process: the announcement made by hand)
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as local:
        _, token = local.account("sr")
        table = new_table(local, token)
        local.hub.room.revoke(accounts.token_hash(token))
        for opened in (live(local, table["id"], token), me_live(local, token)):
            with opened as socket:
                code, seen = close_code(socket)
                assert code == 4401 and seen[-1]["kind"] == "signed-out"


def duel(server: Server) -> tuple[int, str, blockyard.Game]:
    """A playing table opened on ``server``: its id, seat 0's token, and seat 0's
    game as dealt."""
    _, token = server.account("sr")
    _, other = server.account("sr")
    table = new_table(server, token)
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(other)).json() == {"seat": 1}
    seed = server.client.get(f"/api/tables/{table['id']}").json()["seed"]
    return table["id"], token, blockyard.new_game("eu-classic", seed=seed)


def seat_moves(server: Server, table_id: int) -> int:
    """How many actions of seat 0 the database holds for the table's first round."""
    with engine_of(server.database) as engine:
        return sum(1 for move in tablestore.actions(engine, table_id, 1) if move.seat == 0)


def send_moves(socket: ClientConnection, game: blockyard.Game, answered: threading.Event,
               sent_before: list[int]) -> None:
    """Send the game's first legal move, one after another, until the game is over
    or the connection closed, counting in ``sent_before`` those sent before
    ``answered`` was set."""
    while not game.over:
        after = answered.is_set()
        action = ["place", *game.legal_moves()[0]]
        game.apply(action)
        try:
            socket.send(json.dumps({"type": "act", "action": action}))
        except ConnectionClosed:
            return
        sent_before[0] += not after
        time.sleep(0.002)  # a pace for the moves, not a measurement


def race(acting: Server, signing: Server, trials: int) -> list[str]:
    """Sign seat 0 out on ``signing`` while its connection to ``acting`` sends one
    legal move after another (a thread, each move a couple of milliseconds after
    the last); per trial, the moves stored must be at most those sent before the
    204 was received (a connection's moves are taken in order). What went wrong,
    per trial."""
    problems = []
    for trial in range(trials):
        table_id, token, game = duel(acting)
        answered = threading.Event()
        sent_before = [0]
        with live(acting, table_id, token) as socket:
            until(socket, "table")
            actor = threading.Thread(target=send_moves,
                                     args=(socket, game, answered, sent_before))
            actor.start()
            time.sleep(0.005 + 0.01 * (trial % 5))  # the sign-out lands mid-stream
            answer = signing.client.delete("/api/sessions", headers=auth(token))
            answered.set()
            actor.join(WAIT)
            assert answer.status_code == 204
            code, seen = close_code(socket)
        stored = seat_moves(acting, table_id)
        if code != 4401 or seen[-1].get("kind") != "signed-out":
            problems.append(f"trial {trial}: closed {code} after {seen[-1:]}")
        if stored > sent_before[0]:
            problems.append(f"trial {trial}: {stored} moves stored, {sent_before[0]} sent "
                            "before the sign-out answered 204")
    return problems


def test_no_action_sent_after_a_sign_out_is_accepted_on_another_process(
        two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    assert race(second, first, trials=8) == []


def test_no_action_sent_after_a_sign_out_is_accepted_on_the_same_process(
        server: Server) -> None:
    assert race(server, server, trials=4) == []


def cut_listeners(database: str) -> int:
    """Cut every process's LISTEN connection to ``database`` (each reconnects a
    moment later): an announcement sent meanwhile reaches no process. How many."""
    with engine_of(database) as engine, engine.connect() as conn:
        return int(conn.execute(sa.text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND query ILIKE 'LISTEN%' "
            "AND pid <> pg_backend_pid()")).scalar_one())


def test_a_leave_after_a_sign_out_whose_announcement_is_lost_is_refused(
        two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    name, token = first.account("sl")
    table = new_table(first, token)
    with live(second, table["id"], token) as socket:
        until(socket, "table")
        assert cut_listeners(first.database) >= 2
        assert first.client.delete("/api/sessions", headers=auth(token)).status_code == 204
        socket.send(json.dumps({"type": "leave"}))
        code, seen = close_code(socket)
        assert code == 4401 and seen[-1]["kind"] == "signed-out"
    # the seat is still the player's: the leave was not taken
    assert first.client.get(f"/api/tables/{table['id']}").json()["seats"][0] == name


def test_a_sign_out_whose_announcement_is_lost_still_refuses_every_later_action(
        two_servers: tuple[Server, Server]) -> None:
    # the other process never hears of the sign-out (its LISTEN connection cut
    # as it happens): the transaction that would store the move sees it
    first, second = two_servers
    table_id, token, game = duel(first)
    action = ["place", *game.legal_moves()[0]]
    with live(second, table_id, token) as socket:
        until(socket, "table")
        assert cut_listeners(first.database) >= 2  # both processes' listeners
        assert first.client.delete("/api/sessions", headers=auth(token)).status_code == 204
        socket.send(json.dumps({"type": "act", "action": action}))
        code, seen = close_code(socket)
        assert code == 4401 and seen[-1]["kind"] == "signed-out"
        assert not [m for m in seen if m.get("type") == "move"]
    assert seat_moves(first, table_id) == 0
