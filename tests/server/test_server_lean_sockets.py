"""What an open live connection keeps, and what it no longer keeps: the
application's short way for its live routes (blockyard.server.speedups.App), uvicorn's
WebSocket protocol without the handshake once open
(blockyard.server.speedups), an idle outbox without a finished task
(blockyard.server.sockets.Outbox). In process: no database."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient
from server_support import Transport
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from blockyard.server.logs import REQUEST_ID, Requests
from blockyard.server.sockets import Outbox
from blockyard.server.speedups import App, LeanWebSocketProtocol


def lean_app(seen: list[dict[str, Any]]) -> App:
    """An application whose one live route says what it was given, and fails on
    ``/live/0``."""

    async def live(socket: WebSocket) -> None:
        n = int(socket.path_params["n"])
        seen.append({"n": n, "app": socket.app, "request_id": REQUEST_ID.get(),
                     "keys": set(socket.scope)})
        if n == 0:
            raise RuntimeError("a bug")
        await socket.accept()
        await socket.send_json({"n": n, "text": await socket.receive_text()})
        await socket.close(4000)

    app = App()
    app.add_middleware(Requests)
    app.serve_live([WebSocketRoute("/live/{n}", live)])
    return app


def test_a_live_route_is_served_the_short_way() -> None:
    seen: list[dict[str, Any]] = []
    app = lean_app(seen)
    with TestClient(app) as client, \
            client.websocket_connect("/live/7", headers={"X-Request-ID": "given-id-1"}) as ws:
        ws.send_text("hello")
        assert ws.receive_json() == {"n": 7, "text": "hello"}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4000
    [only] = seen
    assert only["n"] == 7 and only["app"] is app and only["request_id"] == "given-id-1"
    # none of FastAPI's layers was passed through: no exception handlers, no exit stack
    assert "starlette.exception_handlers" not in only["keys"]
    assert not any(key.startswith("fastapi") for key in only["keys"])


def test_a_failing_live_route_is_logged_once_and_closed_1011(
        caplog: pytest.LogCaptureFixture) -> None:
    seen: list[dict[str, Any]] = []
    with TestClient(lean_app(seen)) as client, caplog.at_level(logging.ERROR), \
            pytest.raises(WebSocketDisconnect) as closed, \
            client.websocket_connect("/live/0") as ws:
        ws.receive_text()
    assert closed.value.code == 1011
    logged = [r for r in caplog.records if "internal error on the live connection" in
              r.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None


def test_a_websocket_to_another_path_is_closed_as_fastapi_closes_it() -> None:
    with TestClient(lean_app([])) as client, pytest.raises(WebSocketDisconnect) as closed, \
            client.websocket_connect("/elsewhere") as ws:
        ws.receive_text()
    assert closed.value.code == 1000


UPGRADE = (b"GET /live/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
           b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
           b"Sec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n")
PING_TEXT = bytes([0x81, 0x84, 1, 2, 3, 4, 0x71, 0x6B, 0x6D, 0x63])
"""A masked text frame ``ping`` from the client."""


def test_an_open_websocket_keeps_no_handshake() -> None:
    # uvicorn's protocol kept the handshake's request and answer (their headers,
    # about 4 kB) for the connection's life; websockets' parser keeps the request
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    got: list[Any] = []
    scopes: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        scopes.append(scope)
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        got.append(await receive())
        await send({"type": "websocket.send", "text": "pong"})

    async def run() -> None:
        config = Config(app=app, ws=LeanWebSocketProtocol, ws_per_message_deflate=False,
                        lifespan="off")  # as blockyard serve runs it
        config.load()
        protocol = LeanWebSocketProtocol(config=config, server_state=ServerState(),
                                         app_state={}, _loop=asyncio.get_running_loop())
        transport = Transport()
        protocol.connection_made(transport)  # type: ignore[arg-type]
        protocol.data_received(UPGRADE)
        request = protocol.request
        assert request.headers["Sec-WebSocket-Key"]  # kept until the answer is written
        for _ in range(20):
            await asyncio.sleep(0)
        assert transport.written.startswith(b"HTTP/1.1 101")
        assert b"permessage-deflate" not in transport.written  # declined, as before
        assert not hasattr(protocol, "request") and not hasattr(protocol, "response")
        assert len(request.headers) == 0  # the parser's own reference: emptied
        # the application's scope keeps its copy of the headers
        assert (b"Sec-WebSocket-Key", b"dGhlIHNhbXBsZSBub25jZQ==") in scopes[0]["headers"]
        protocol.data_received(PING_TEXT)
        for _ in range(20):
            await asyncio.sleep(0)
        assert got == [{"type": "websocket.receive", "text": "ping"}]
        assert transport.written.endswith(b"\x81\x04pong")
        protocol.connection_lost(None)

    asyncio.run(run())


class Socket:
    """Takes what it is sent; the first send waits until let go (``slow``)."""

    def __init__(self, slow: bool = False) -> None:
        self.texts: list[str] = []
        self.go = asyncio.Event()
        if not slow:
            self.go.set()

    async def send_json(self, message: Any) -> None:
        await self.go.wait()
        self.texts.append(str(message))


def test_an_idle_outbox_keeps_no_task() -> None:
    # a finished writer task (and its coroutine) is 0.6 kB an idle connection kept
    async def run() -> None:
        box = Outbox(Socket(slow=True))  # type: ignore[arg-type]
        box.start()
        box.post({"type": "table"})
        assert box._writer is not None  # the send waits: a task carries it on
        box.socket.go.set()  # type: ignore[attr-defined]
        for _ in range(20):
            await asyncio.sleep(0)
        assert box._writer is None and box._waiting is None
        box.post({"type": "clock"})  # the next message: written at once, no task
        assert box._writer is None and box._waiting is None
        await box.flushed()
        assert box._writer is None
        await box.stop()

    asyncio.run(run())
