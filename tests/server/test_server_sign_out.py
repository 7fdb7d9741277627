"""Signing out through a real server (SQLite and PostgreSQL): ``DELETE
/api/sessions`` closes every live connection opened with that token, table
sockets and the personal channel alike (close code 4401), and a move sent on one
after the sign-out is not accepted; the player's other sessions carry on; one process
signing out closes the connections another holds."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
from typing import Any

import pytest
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
