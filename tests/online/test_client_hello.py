"""``blockyard.online``'s live connections and live protocol 4: the address
carries no credential, the first message of every connection (a reconnection's
too) is the ``hello`` with the token and the table's code, and a connection the
server closed for a hello that came too late (4408) is made again rather than
ended for good. Against a WebSocket server of the test's own on 127.0.0.1 that
records what each connection received."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from websockets.sync.server import Server, ServerConnection, serve

from blockyard import online, protocol

WAIT = 30.0  # seconds: a bound on a message that must come, never a measured time


class Recorder:
    """A WebSocket server: per connection, its path and its first message; the
    first connection is closed with 4408, every later one is sent a table."""

    def __init__(self) -> None:
        self.seen: queue.Queue[tuple[str, Any]] = queue.Queue()
        self.count = 0
        self.lock = threading.Lock()

    def handle(self, connection: ServerConnection) -> None:
        with self.lock:
            self.count += 1
            first = self.count == 1
        path = connection.request.path if connection.request is not None else ""
        self.seen.put((path, json.loads(connection.recv(timeout=WAIT))))
        if first:
            connection.close(protocol.NO_HELLO)
            return
        connection.send(json.dumps({"type": "table", "protocol": protocol.VERSION, "id": 7,
                                    "ruleset_id": "eu-classic", "seed": 3,
                                    "seats": ["alice", None], "status": "waiting",
                                    "round": 1}))
        try:
            for _ in connection:
                pass
        except Exception:  # the client gone
            return


@pytest.fixture
def recorder() -> Iterator[tuple[Recorder, str]]:
    made = Recorder()
    server: Server = serve(made.handle, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield made, f"http://127.0.0.1:{server.socket.getsockname()[1]}"
    finally:
        server.shutdown()
        thread.join(WAIT)


def test_a_live_table_says_hello_first_and_again_after_a_late_hello(
        recorder: tuple[Recorder, str]) -> None:
    made, url = recorder
    with online.LiveTable(url, 7, "the-token", code="ABCDEFGH",
                          delays=(0.05,)) as live:
        for _ in range(2):  # the connection closed 4408, then the one made again
            path, first = made.seen.get(timeout=WAIT)
            assert path == "/api/tables/7/live"  # no query: nothing in the address
            assert first == {"type": "hello", "token": "the-token", "code": "ABCDEFGH"}
        kinds = []
        while "table" not in kinds:
            message = live.wait(WAIT)
            assert message is not None, f"no table message after {kinds}"
            kinds.append(message["type"])
            assert message.get("state") != "closed", message  # never ended for good


def test_a_player_feed_says_hello_with_its_token(recorder: tuple[Recorder, str]) -> None:
    made, url = recorder
    feed = online.PlayerFeed(url, "the-token", delays=(0.05,))
    try:
        path, first = made.seen.get(timeout=WAIT)
        assert path == "/api/me/live"
        assert first == {"type": "hello", "token": "the-token"}
    finally:
        feed.close()
