"""Slow HTTP clients through a real ``blockyard serve`` on 127.0.0.1: a
connection that sends nothing, one that trickles its headers one byte a second
(slowloris) and one that trickles its body are each closed by the server within
its stated limit (:mod:`blockyard.server.slowclients`) and a generous margin; a
prompt client is answered as before."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from server_support import Server, start_server

from blockyard.server.slowclients import BODY_SECONDS, HEADER_SECONDS

MARGIN = 30.0  # seconds beyond the server's limit: a bound, never a measured time


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("slowhome")
    running = start_server(f"sqlite:///{home / 'server.sqlite3'}", home)
    try:
        yield running
    finally:
        running.stop()


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


def test_a_prompt_client_is_answered_on_one_connection(served: Server) -> None:
    with connect(served) as sock:
        for _ in range(2):  # keep-alive: a second request on the same connection
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            answer = b""
            while b'"ok":true' not in answer:
                chunk = sock.recv(4096)
                assert chunk, "closed before the answer"
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200")

