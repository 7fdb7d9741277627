"""The live channels' ``hello`` (live protocol 4, SQLite and PostgreSQL): the
credentials come in the first message, ``{"type": "hello", "token", "code"}``,
never in the address. A ``token`` or ``code`` in the URL is nobody's (the
connection is a spectator's, a private table refuses it); the hello admits
players, spectators and holders of a private table's code; a first message
that is not a hello is refused (4400), and a connection that sends none is
closed once its time, on the server's clock, is up (4408)."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import LocalServer, Server, engine_of, local_server
from test_server_tables import WAIT, auth, live, new_table, until
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

import blockyard
from blockyard import protocol
from blockyard.server import settings, tablestore
from blockyard.server.clock import FakeClock


def closed(socket: ClientConnection) -> tuple[int | None, list[dict[str, Any]]]:
    """The close code the server ended ``socket`` with, and the messages before it."""
    seen = []
    with contextlib.suppress(ConnectionClosed):
        for _ in range(1000):
            seen.append(json.loads(socket.recv(timeout=WAIT)))
        raise AssertionError("the connection was never closed")
    return socket.close_code, seen


def raw(server: Server | LocalServer, path: str) -> ClientConnection:
    """A WebSocket to ``path`` that has sent nothing yet."""
    return connect(server.url.replace("http://", "ws://") + path,
                   open_timeout=WAIT).__enter__()  # closed by the caller's with


def first_move(server: Server, table_id: int) -> list[Any]:
    seed = server.client.get(f"/api/tables/{table_id}").json()["seed"]
    return ["place", *blockyard.new_game("eu-classic", seed=seed).legal_moves()[0]]


def duel(server: Server) -> tuple[int, str, str]:
    """A playing table: its id and its two seats' tokens."""
    _, owner = server.account("hl")
    _, other = server.account("hl")
    table = new_table(server, owner)
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(other)).json() == {"seat": 1}
    return table["id"], owner, other


def test_a_token_in_the_address_is_nobodys(server: Server) -> None:
    table_id, owner, _ = duel(server)
    action = first_move(server, table_id)
    # the seat's own token in the URL, a hello without one: a spectator
    with raw(server, f"/api/tables/{table_id}/live?token={owner}") as socket:
        socket.send(json.dumps(protocol.hello()))
        assert until(socket, "table")["status"] == "playing"
        socket.send(json.dumps(protocol.act(action)))
        assert until(socket, "refused")["kind"] == "spectator"
    # and on the player's own channel: no hello token, no player
    with raw(server, f"/api/me/live?token={owner}") as socket:
        socket.send(json.dumps(protocol.hello()))
        code, seen = closed(socket)
        assert code == 4401 and seen[-1]["kind"] == "signed-out"
    # nothing was played in the seat's name
    with engine_of(server.database) as engine:
        assert tablestore.actions(engine, table_id, 1) == []
    with live(server, table_id, owner) as socket:
        assert until(socket, "table")["status"] == "playing"
        socket.send(json.dumps(protocol.act(action)))
        assert until(socket, "move")["action"] == action  # its first move is this one


def test_a_code_in_the_address_opens_no_private_table(server: Server) -> None:
    _, owner = server.account("hc")
    _, stranger = server.account("hc")
    table = new_table(server, owner, private=True)
    path = f"/api/tables/{table['id']}/live?code={table['code']}"
    for token in (stranger, None):
        with raw(server, path) as socket:
            socket.send(json.dumps(protocol.hello(token)))
            code, seen = closed(socket)
            assert code == 4403 and seen[-1]["kind"] == "private"


def test_the_hello_admits_players_spectators_and_holders_of_the_code(server: Server) -> None:
    table_id, owner, other = duel(server)
    action = first_move(server, table_id)
    with live(server, table_id, owner) as player, live(server, table_id) as watching:
        assert until(watching, "table")["protocol"] == protocol.VERSION == 4
        until(player, "table")
        player.send(json.dumps(protocol.act(action)))
        assert until(player, "move")["seat"] == 0
        assert until(watching, "move")["seat"] == 0
        watching.send(json.dumps(protocol.act(action)))
        assert until(watching, "refused")["kind"] == "spectator"
    assert server.client.get("/api/health").json()["protocol"] == 4
    # a private table: its code in the hello admits a stranger, as a spectator
    _, stranger = server.account("hc")
    private = new_table(server, owner, private=True)
    with live(server, private["id"], stranger, code=private["code"]) as socket:
        assert until(socket, "table")["id"] == private["id"]
    with live(server, private["id"], code=private["code"]) as socket:  # not signed in
        assert until(socket, "table")["id"] == private["id"]
    with live(server, private["id"], stranger) as socket:  # no code: refused
        code, seen = closed(socket)
        assert code == 4403 and seen[-1]["kind"] == "private"
    # the player's own channel: the token in the hello
    url = server.url.replace("http://", "ws://") + "/api/me/live"
    with connect(url, open_timeout=WAIT) as feed:
        feed.send(json.dumps(protocol.hello(other)))
        assert until(feed, "online")["type"] == "online"


@pytest.mark.parametrize("first", [
    json.dumps(protocol.act(["place", 0, 0, 0])),
    json.dumps({"type": "hello", "token": 7}),
    json.dumps({"type": "hello", "code": "x" * 40}),
    "not json",
])
def test_a_first_message_that_is_not_a_hello_is_refused(server: Server, first: str) -> None:
    _, token = server.account("nh")
    table = new_table(server, token)
    for path in (f"/api/tables/{table['id']}/live", "/api/me/live"):
        with raw(server, path) as socket:
            socket.send(first)
            code, seen = closed(socket)
            assert code == 4400 and seen == [seen[-1]]
            assert seen[-1]["kind"] == "malformed"
            assert "hello" in seen[-1]["reason"] or "token" in seen[-1]["reason"] \
                or "code" in seen[-1]["reason"]


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    monkeypatch.delenv(settings.HELLO_ENV, raising=False)
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        yield server


def waiting_for_hello(server: LocalServer, count: int) -> None:
    deadline = time.monotonic() + WAIT
    while len(server.hub.hellos.waiting) != count:
        assert time.monotonic() < deadline, "the server never began waiting for the hello"
        time.sleep(0.02)  # polling interval of the wait above (bounded by its deadline)


def test_a_connection_that_sends_no_hello_is_closed_at_its_deadline(local: LocalServer
                                                                      ) -> None:
    _, token = local.account("sl")
    table = new_table(local, token)
    with raw(local, f"/api/tables/{table['id']}/live?token={token}") as silent, \
            raw(local, "/api/me/live") as quiet:
        waiting_for_hello(local, 2)
        # its time not yet up on the server's clock: still waiting
        local.clock.advance(settings.HELLO_SECONDS - 1)
        local.run(local.hub.sweep.once())
        waiting_for_hello(local, 2)
        local.clock.advance(1)  # up: the sweep closes both
        local.run(local.hub.sweep.once())
        for socket in (silent, quiet):
            code, seen = closed(socket)
            assert code == 4408 and seen[-1]["kind"] == "malformed"
            assert "hello" in seen[-1]["reason"]
    assert local.hub.hellos.waiting == {}
    # a connection that says hello in time is served as ever
    with live(local, table["id"], token) as socket:
        assert until(socket, "table")["id"] == table["id"]
        assert local.hub.hellos.waiting == {}
