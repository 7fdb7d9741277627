"""The speed-ups around uvicorn and Starlette (blockyard.server.speedups): in one
module, behind one setting (``lean``), on the versions they are tested on.

What they rely on is checked here, so that a new uvicorn or Starlette that
changes it fails a test rather than the server: pyproject caps both, and every
internal the subclasses override or read is still there, with the signature
used. (What they buy, the memory an open connection keeps: test_server_lean_sockets.py.)
In process: no database but an SQLite file for the application's settings."""

from __future__ import annotations

import inspect
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from packaging.requirements import Requirement
from packaging.version import Version
from starlette.routing import Match, WebSocketRoute
from starlette.websockets import WebSocket
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from blockyard.server import db, speedups
from blockyard.server.settings import Settings
from blockyard.server.speedups import App, LeanWebSocketProtocol, TimedH11Protocol

ROOT = Path(__file__).resolve().parents[2]


def requirements() -> dict[str, list[Requirement]]:
    """The requirements of pyproject's lists that name uvicorn or Starlette, by name."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found: dict[str, list[Requirement]] = {"uvicorn": [], "starlette": []}
    for listed in project["optional-dependencies"].values():
        for text in listed:
            requirement = Requirement(text)
            if requirement.name in found:
                found[requirement.name].append(requirement)
    return found


@pytest.mark.parametrize("name", ["uvicorn", "starlette"])
def test_pyproject_caps_the_stack_to_the_version_tested_on(name: str) -> None:
    listed = requirements()[name]
    # the server extra and the test extra (which installs the server's dependencies)
    assert len(listed) >= 2, f"pyproject names {name} in the server and test extras"
    installed = Version(version(name))
    for requirement in listed:
        caps = [spec for spec in requirement.specifier if spec.operator in ("<", "<=")]
        assert caps, f"{requirement}: no upper bound (speedups subclasses {name}'s internals)"
        assert installed in requirement.specifier, (
            f"{name} {installed} is installed, outside {requirement}")
        # the cap is the release after the one tested on: a newer one is tested first
        for cap in caps:
            assert Version(cap.version) <= Version(
                f"{installed.major}.{installed.minor + 1}"), (
                f"{requirement}: capped beyond the {installed} tested on")


def parameters(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


@pytest.mark.parametrize("ours,theirs", [
    (TimedH11Protocol, H11Protocol), (LeanWebSocketProtocol, WebSocketsSansIOProtocol)])
def test_every_uvicorn_method_overridden_is_still_there_with_its_signature(
        ours: type, theirs: type) -> None:
    overridden = [name for name, member in vars(ours).items()
                  if inspect.isfunction(member) and hasattr(theirs, name)]
    assert overridden, f"{ours.__name__} overrides nothing of {theirs.__name__}"
    for name in overridden:
        assert parameters(getattr(theirs, name)) == parameters(getattr(ours, name)), (
            f"{theirs.__name__}.{name} changed its parameters")
    # what each one expects of uvicorn's class: the methods it hooks (not new ones)
    own = {"forget_handshake", "_follow", "_expect", "_too_slow"}
    hooked = {name for name, member in vars(ours).items() if inspect.isfunction(member)}
    assert hooked - own <= set(overridden), (
        f"{ours.__name__} hooks a method {theirs.__name__} no longer has: "
        f"{sorted(hooked - own - set(overridden))}")


def source(cls: type) -> str:
    return inspect.getsource(cls)


def test_the_websocket_protocol_still_keeps_the_handshake_where_it_is_let_go() -> None:
    text = source(WebSocketsSansIOProtocol)
    # the handshake is kept as these two attributes, and start_keepalive is called
    # once the answer is written: where LeanWebSocketProtocol lets them go
    assert "self.request = " in text and "self.response = " in text
    assert "self.start_keepalive()" in text


def test_the_h11_protocol_still_has_what_the_deadlines_read() -> None:
    text = source(H11Protocol)
    for attribute in ("self.conn = ", "self.transport = ", "self.loop = ", "self.logger = ",
                      "self.client = "):
        assert attribute in text, f"H11Protocol sets no {attribute.strip(' =')}"
    assert "self.handle_websocket_upgrade(" in text
    assert "self.on_response_complete" in text


def test_a_websocket_route_still_matches_as_the_short_way_reads_it() -> None:
    async def live(socket: WebSocket) -> None:  # pragma: no cover - never called
        await socket.close()

    route = WebSocketRoute("/api/tables/{table_id}/live", live)
    scope = {"type": "websocket", "path": "/api/tables/7/live", "root_path": "",
             "path_params": {}}
    match, child = route.matches(scope)
    assert match is Match.FULL
    assert child["endpoint"] is live and child["path_params"] == {"table_id": "7"}
    assert parameters(App.__call__) == ["self", "scope", "receive", "send"]
    assert parameters(super(App, App).__call__) == ["self", "scope", "receive", "send"]


async def _asgi(scope: Any, receive: Any, send: Any) -> None:  # pragma: no cover
    raise AssertionError("never served")


@pytest.mark.parametrize("lean", [True, False])
def test_uvicorn_takes_the_connection_tuning(lean: bool) -> None:
    options = speedups.uvicorn_options(lean)
    config = uvicorn.Config(_asgi, **options)
    config.load()
    assert config.http_protocol_class is TimedH11Protocol  # a protection: always
    assert config.ws_max_size == speedups.MAX_MESSAGE
    assert config.timeout_keep_alive == speedups.KEEP_ALIVE_SECONDS
    if lean:
        assert config.ws_protocol_class is LeanWebSocketProtocol
        assert config.ws_per_message_deflate is False
    else:
        assert config.ws_protocol_class is WebSocketsSansIOProtocol
        assert config.ws_per_message_deflate is True


@pytest.mark.parametrize("lean", [True, False])
def test_the_setting_decides_the_live_channels_short_way(tmp_path: Path, lean: bool) -> None:
    from blockyard.server.app import create_app

    url = f"sqlite:///{tmp_path / 'speedups.sqlite3'}"
    db.migrate(url)
    app = create_app(Settings(database=url, verifiers=1, lean=lean))
    try:
        paths = {route.path for route in app.live_routes}
        assert paths == ({"/api/tables/{table_id}/live", "/api/me/live"} if lean else set())
    finally:
        app.state.server.close()


@pytest.mark.parametrize("lean", [True, False])
def test_a_live_channel_answers_the_same_either_way(tmp_path: Path, lean: bool) -> None:
    # FastAPI's whole way (the setting off) serves the live channels as the short
    # way does: a hello with a token that is no session's is refused, then 4401
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from blockyard.server.app import create_app

    url = f"sqlite:///{tmp_path / 'either.sqlite3'}"
    db.migrate(url)
    app = create_app(Settings(database=url, verifiers=1, lean=lean))
    with TestClient(app) as client, client.websocket_connect("/api/me/live") as ws:
        ws.send_json({"type": "hello", "token": "no-such-session"})
        answer = ws.receive_json()
        assert answer["type"] == "refused" and answer["kind"] == "signed-out"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4401
