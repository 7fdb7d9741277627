"""What an open live connection keeps, and what it no longer keeps: the
application's short way for its live routes (blockyard.server.app.App). In
process: no database."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.routing import WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from blockyard.server.app import App
from blockyard.server.logs import REQUEST_ID, Requests


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
