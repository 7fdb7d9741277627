"""Slow HTTP clients through a real ``blockyard serve`` on 127.0.0.1: a
connection that sends nothing, one that trickles its headers one byte a second
(slowloris) and one that trickles its body are each closed by the server within
its stated limit (:mod:`blockyard.server.speedups`) and a generous margin; a
prompt client is answered as before. The server runs with the deadlines set
short (``BLOCKYARD_SERVER_HEADER_SECONDS``, ``BLOCKYARD_SERVER_BODY_SECONDS``): the
same protocol, without waiting out the defaults (10 s and 60 s) for each case;
the defaults themselves are checked where they are read. A WebSocket upgrade
leaves no deadline armed (in this process, on the protocol: no time passes)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from server_support import Server, Transport, start_server

from blockyard.server import speedups as slowclients

HEADER_SECONDS = 2.0
BODY_SECONDS = 3.0
"""The deadlines the server of these tests runs with."""
MARGIN = 30.0  # seconds beyond the server's limit: a bound, never a measured time


def test_the_deadlines_are_the_documented_ones_unless_set(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.delenv(slowclients.HEADER_ENV, raising=False)
    monkeypatch.delenv(slowclients.BODY_ENV, raising=False)
    assert slowclients.deadlines() == (10.0, 60.0)
    monkeypatch.setenv(slowclients.HEADER_ENV, "2")
    monkeypatch.setenv(slowclients.BODY_ENV, " 3.5 ")
    assert slowclients.deadlines() == (2.0, 3.5)
    for value in ("0", "0.5", "soon", "86401"):
        monkeypatch.setenv(slowclients.BODY_ENV, value)
        with pytest.raises(ValueError, match=slowclients.BODY_ENV):
            slowclients.deadlines()


def serving(tmp_path_factory: pytest.TempPathFactory, env: dict[str, str]
            ) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("slowhome")
    running = start_server(f"sqlite:///{home / 'server.sqlite3'}", home, env=env)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with the short deadlines of these tests."""
    yield from serving(tmp_path_factory, {slowclients.HEADER_ENV: f"{HEADER_SECONDS:g}",
                                          slowclients.BODY_ENV: f"{BODY_SECONDS:g}"})


@pytest.fixture(scope="module")
def served_as_deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with the default deadlines (a prompt client on a loaded machine
    has all of the 10 s to send its next request)."""
    yield from serving(tmp_path_factory, {})


def connect(server: Server) -> socket.socket:
    host, port = server.url.removeprefix("http://").split(":")
    assert host == "127.0.0.1"
    return socket.create_connection((host, int(port)), timeout=MARGIN)


def closed_while_trickling(sock: socket.socket, start: bytes, limit: float) -> bool:
    """Send ``start``, then one byte a second; whether the server closed the
    connection (read an end, or the send refused) before ``limit`` + :data:`MARGIN`
    seconds."""
    deadline = time.monotonic() + limit + MARGIN
    sock.sendall(start)
    sock.settimeout(1.0)  # the pace of the trickle: a byte a second
    while time.monotonic() < deadline:
        try:
            if sock.recv(4096) == b"":
                return True
        except TimeoutError:
            pass
        except OSError:  # reset by the server
            return True
        try:
            sock.sendall(b"a")
        except OSError:
            return True
    return False


def test_a_connection_that_sends_nothing_is_closed(served: Server) -> None:
    with connect(served) as sock:
        sock.settimeout(HEADER_SECONDS + MARGIN)
        assert sock.recv(4096) == b""


def test_headers_trickling_in_are_closed(served: Server) -> None:
    with connect(served) as sock:
        assert closed_while_trickling(
            sock, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ", HEADER_SECONDS)


def test_a_body_trickling_in_is_closed(served: Server) -> None:
    body = b'{"name": "slowbody", "password": "correct horse'  # never finished
    with connect(served) as sock:
        assert closed_while_trickling(
            sock, b"POST /api/accounts HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n" + body,
            BODY_SECONDS)


def test_a_prompt_client_is_answered_on_one_connection(served_as_deployed: Server) -> None:
    with connect(served_as_deployed) as sock:
        for _ in range(2):  # keep-alive: a second request on the same connection
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = b""
            while b'"ok":true' not in answer:
                chunk = sock.recv(4096)
                assert chunk, "closed before the answer"
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200")



UPGRADE = (b"GET /api/tables/1/live HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
           b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
           b"Sec-WebSocket-Version: 13\r\n\r\n")


def test_a_websocket_upgrade_ends_the_request_deadlines() -> None:
    # once its headers are in, an upgrade request's connection is the WebSocket's:
    # no deadline is left armed (one left for the body h11 still expected closed every
    # live connection at BODY_SECONDS, 60 s by default, and kept this protocol alive).
    # In this process, on the protocol itself: no time has to pass
    import asyncio

    from uvicorn.config import Config
    from uvicorn.server import ServerState

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        pass  # the WebSocket's own work is not under test

    async def run() -> None:
        config = Config(app=app, ws="websockets-sansio", http=slowclients.TimedH11Protocol,
                        lifespan="off")
        config.load()
        protocol = slowclients.TimedH11Protocol(config=config, server_state=ServerState(),
                                                app_state={},
                                                _loop=asyncio.get_running_loop())
        transport = Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        assert protocol.deadline is not None and protocol.waiting_for == "headers"
        protocol.data_received(UPGRADE)
        assert transport.protocol is not None and transport.protocol is not protocol
        assert protocol.deadline is None and protocol.upgraded
        protocol.connection_lost(None)

    asyncio.run(run())
