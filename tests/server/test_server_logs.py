"""What `blockyard serve` writes to its log: a time, a level, a logger and a
request id on every line, in text or JSON lines; its start-up (version, database
without its password, the migrations, the processes, the address); one record and
one traceback per failure, whose request id the JSON error carries; never a
session token or a table's code."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from fastapi import WebSocket
from server_support import CHEAP_HASHING, Server, free_port, start_server

import blockyard
from blockyard.server import db, logs
from blockyard.server.app import create_app
from blockyard.server.settings import Settings

TEXT_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|"
                       r"CRITICAL) [\w.]+ \[[-0-9a-f]+\] ")
"""The start of every line of the text format (a traceback's lines follow their record)."""


def records(log: str) -> list[str]:
    """The lines of ``log`` that start a record (not a traceback's or a long
    message's continuation)."""
    return [line for line in log.splitlines() if TEXT_LINE.match(line)]


def test_every_line_has_its_time_level_logger_and_request_id(tmp_path: Path) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path)
    try:
        answer = server.client.get("/api/health")
        rid = answer.headers["x-request-id"]
        assert re.fullmatch(r"[0-9a-f]{16}", rid)
        missing = server.client.get("/api/tables/999999")
        assert missing.status_code == 404
        assert missing.json()["request_id"] == missing.headers["x-request-id"] != rid
    finally:
        server.stop()
    log = server.log.read_text()
    # no failure here, so no traceback: every line is a record's, a migration's
    # description of several lines too
    lines = log.splitlines()
    assert len(lines) >= 8 and [line for line in lines if not TEXT_LINE.match(line)] == []
    assert "color_message" not in log
    said = "\n".join(records(log))
    assert f"INFO blockyard.server [-] Blockyard {blockyard.__version__}: database sqlite:///" \
        in said
    assert f"database schema migrated from none (an empty database) to {db.head_revision()}" in said
    assert "1 server process, each with 1 verifying process; /metrics on; listening on " \
           "http://127.0.0.1:" in said
    # the access line, with the request's duration after its status
    assert re.search(rf"INFO uvicorn\.access \[{rid}\] 127\.0\.0\.1:\d+ - \"GET /api/health "
                     r"HTTP/1\.1\" 200 \d+\.\d ms$", said, re.MULTILINE), said


def test_a_second_start_says_there_was_nothing_to_migrate(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    db.migrate(url)
    server = start_server(url, tmp_path, "--log-level", "info")
    server.stop()
    assert f"database schema already at {db.head_revision()}, the newest revision" \
        in server.log.read_text()


def test_json_lines_without_the_access_log(tmp_path: Path) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path,
                          "--log-format", "json", "--no-access-log")
    try:
        assert server.client.get("/api/health").status_code == 200
    finally:
        server.stop()
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if line]
    assert len(lines) >= 8
    for line in lines:
        assert {"timestamp", "level", "logger", "message", "request_id"} <= line.keys(), line
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", line["timestamp"])
    assert not [line for line in lines if line["logger"] == "uvicorn.access"]
    assert not [line for line in lines if "color_message" in line]
    assert any(line["message"].startswith(f"Blockyard {blockyard.__version__}: database")
               for line in lines)
    assert any("Uvicorn running on http://127.0.0.1:" in line["message"] for line in lines)


def test_json_access_lines_carry_their_parts_as_fields(tmp_path: Path) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path,
                          "--log-format", "json")
    try:
        rid = server.client.get("/api/leaderboards/eu-classic?limit=3").headers["x-request-id"]
        missing = server.client.get("/api/tables/999999").headers["x-request-id"]
    finally:
        server.stop()
    lines = {line["request_id"]: line for line in map(json.loads, server.log.read_text()
                                                      .splitlines())
             if line["logger"] == "uvicorn.access"}
    found, refused = lines[rid], lines[missing]
    assert (found["method"], found["path"], found["http_version"], found["status"]) == (
        "GET", "/api/leaderboards/eu-classic?limit=3", "1.1", 200)
    assert re.fullmatch(r"127\.0\.0\.1:\d+", found["client"])
    assert isinstance(found["duration_ms"], float) and found["duration_ms"] >= 0
    assert found["message"].endswith(f'200 {found["duration_ms"]} ms')
    assert (refused["status"], refused["path"]) == (404, "/api/tables/999999")


def test_a_higher_level_leaves_out_the_info_lines(tmp_path: Path) -> None:
    # not start_server: it waits for uvicorn's line "running on", an info line
    port, log = free_port(), tmp_path / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, str(CHEAP_HASHING), "serve", "--port", str(port), "--database",
             f"sqlite:///{tmp_path / 'db.sqlite3'}", "--log-level", "warning"],
            stdout=out, stderr=subprocess.STDOUT,
            env={**os.environ, "BLOCKYARD_HOME": str(tmp_path),
                 "BLOCKYARD_SERVER_VERIFIERS": "1"})
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).is_success:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)  # polling interval of the wait above (bounded by its deadline)
    finally:
        process.terminate()
        process.wait(timeout=20)
    said = log.read_text()
    assert not [line for line in said.splitlines() if " INFO " in line], said


@pytest.mark.parametrize("option", [["--log-level", "loud"], ["--log-format", "xml"]])
def test_a_bad_log_option_is_refused(option: list[str], tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from blockyard.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["serve", *option])
    assert stopped.value.code == 2
    assert option[0] in capsys.readouterr().err


def test_log_config_names_a_bad_level_or_format() -> None:
    with pytest.raises(ValueError, match="log level: expected one of debug, info"):
        logs.log_config("verbose")
    with pytest.raises(ValueError, match="log format: expected one of text, json"):
        logs.log_config("info", "yaml")


def test_the_database_url_is_shown_without_its_password() -> None:
    shown = db.shown_url("postgresql://blockyard:s3cret@db.example.org/blockyard")
    assert "s3cret" not in shown and shown.startswith("postgresql+psycopg://blockyard:")


def _app(tmp_path: Path, failure: BaseException | None = None) -> Any:
    """The application on a new database, with a route raising ``failure``."""
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    db.migrate(url)
    app = create_app(Settings(database=url, verifiers=1))
    if failure is not None:
        async def fail() -> None:
            raise failure

        app.add_api_route("/api/test-failure", fail)
    return app


def ask(app: Any, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """``GET path`` of ``app`` in this process; an exception the application lets
    out is raised here (uvicorn would log it, a second time)."""
    async def get() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=True)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get(path, headers=headers)

    return asyncio.run(get())


def _ours(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith(("blockyard", "uvicorn"))]


def test_a_failure_is_one_record_with_one_traceback_and_the_id_in_the_answer(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = _app(tmp_path, RuntimeError("something broke"))
    caplog.set_level(logging.INFO)
    with caplog.filtering(logs.RequestIds()):
        answer = ask(app, "/api/test-failure")
    assert answer.status_code == 500
    body = answer.json()
    assert body == {"error": "internal server error",
                    "request_id": answer.headers["x-request-id"]}
    failures = [r for r in _ours(caplog) if r.levelno >= logging.WARNING]
    assert len(failures) == 1
    assert failures[0].exc_info is not None and "something broke" in caplog.text
    assert caplog.text.count("Traceback") == 1
    assert getattr(failures[0], "request_id", None) == body["request_id"]


def test_the_database_away_is_a_503_and_one_line_without_a_traceback(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    app = _app(tmp_path, sa.exc.OperationalError("SELECT 1", {},
                                                 Exception("connection refused")))
    caplog.set_level(logging.INFO)
    answer = ask(app, "/api/test-failure")
    assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
    assert answer.json() == {"error": logs.UNAVAILABLE,
                             "request_id": answer.headers["x-request-id"]}
    failures = [r for r in _ours(caplog) if r.levelno >= logging.WARNING]
    assert len(failures) == 1 and failures[0].exc_info is None
    assert "database unavailable on GET /api/test-failure: OperationalError" \
        in failures[0].getMessage()


def test_a_proxys_request_id_is_kept_and_a_strange_one_replaced(tmp_path: Path) -> None:
    app = _app(tmp_path)
    kept = ask(app, "/api/health", {"X-Request-ID": "nginx-4f2a9c01"})
    assert kept.headers["x-request-id"] == "nginx-4f2a9c01"
    for strange in ("short", "a b c d e f g h", "x" * 65, "x;y=1;z=2;w=3"):
        answer = ask(app, "/api/health", {"X-Request-ID": strange})
        assert re.fullmatch(r"[0-9a-f]{16}", answer.headers["x-request-id"]), strange


def test_a_failing_live_connection_is_closed_1011_and_logged_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    from contextlib import contextmanager

    from server_support import _local_server
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    db.migrate(url)

    def with_a_broken_socket(database: str, verifiers: int, clock: Any) -> Any:
        app = create_app(database, verifiers=verifiers, clock=clock)

        async def broken(websocket: WebSocket) -> None:
            await websocket.accept()
            raise RuntimeError("the socket broke")

        app.add_api_websocket_route("/api/test-live", broken)
        return app

    caplog.set_level(logging.INFO)
    with contextmanager(_local_server)(url, None, with_a_broken_socket) as server:
        address = server.url.replace("http://", "ws://") + "/api/test-live"
        with connect(address, open_timeout=30) as socket, \
                pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=30)
    # an error's close, never taken for a normal end
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
    failures = [r for r in _ours(caplog) if r.levelno >= logging.WARNING]
    assert len(failures) == 1 and failures[0].exc_info is not None
    assert "internal error on the live connection /api/test-live" in failures[0].getMessage()


def test_a_live_connections_handshake_answer_carries_its_request_id(tmp_path: Path) -> None:
    from contextlib import contextmanager

    from server_support import _local_server
    from websockets.sync.client import connect

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    db.migrate(url)
    with contextmanager(_local_server)(url, None, create_app) as server:
        address = server.url.replace("http://", "ws://") + "/api/tables/1/live"
        with connect(address, open_timeout=30,
                     additional_headers={"X-Request-ID": "nginx-4f2a9c01"}) as socket:
            assert socket.response is not None
            assert socket.response.headers["X-Request-ID"] == "nginx-4f2a9c01"
        with connect(address, open_timeout=30) as socket:  # none given: one made
            assert socket.response is not None
            assert re.fullmatch(r"[0-9a-f]{16}", socket.response.headers["X-Request-ID"])


def test_a_session_leaves_no_token_and_no_table_code_in_the_log(server: Server) -> None:
    # a player's whole session at a private table, a stranger holding its code,
    # and an old client still putting both in the addresses (taken as nobody's)
    from test_server_tables import auth, live, new_table, until
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    _, owner = server.account("lg")
    _, friend = server.account("lg")
    table = new_table(server, owner, private=True)
    code = table["code"]
    shown = server.client.get(f"/api/tables/{table['id']}", params={"code": code})
    assert shown.status_code == 200 and "seed" in shown.json()
    joined = server.client.post(f"/api/tables/{table['id']}/join", json={"code": code},
                                headers=auth(friend))
    assert joined.json() == {"seat": 1}
    with live(server, table["id"], owner) as mine, \
            live(server, table["id"], code=code) as watching:
        until(mine, "table")
        until(watching, "table")
    base = server.url.replace("http://", "ws://")
    for path in (f"/api/tables/{table['id']}/live?token={owner}&code={code}",
                 f"/api/me/live?token={friend}"):
        with connect(base + path, open_timeout=30) as old:
            old.send(json.dumps({"type": "refresh"}))  # no hello: refused
            with pytest.raises(ConnectionClosed):
                for _ in range(10):
                    old.recv(timeout=30)
    for token in (owner, friend):
        assert server.client.delete("/api/sessions", headers=auth(token)).status_code == 204
    # the server wrote its lines for all of it (the last call's among them)
    deadline = time.monotonic() + 30
    while "DELETE /api/sessions" not in server.log.read_text(errors="replace"):
        assert time.monotonic() < deadline, server.log.read_text()[-2000:]
        time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
    written = server.log.read_text(errors="replace")
    assert f"/api/tables/{table['id']}/live" in written
    for secret in (owner, friend, code):
        assert secret not in written, f"{secret[:4]}… is in the log"


def test_no_spelling_of_a_token_or_a_code_reaches_the_log_even_at_debug(
        tmp_path: Path) -> None:
    # percent-encoded keys, ';' between query parts, and uvicorn's debug lines of
    # the frames a live channel receives (its hello)
    from test_server_tables import auth, live, new_table, until
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    server = start_server(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path,
                          "--log-level", "debug", "--log-format", "json")
    try:
        _, owner = server.account("dbg")
        table = new_table(server, owner, private=True)
        code = table["code"]
        shown = server.client.get(f"/api/tables/{table['id']}?c%6Fde={code}")
        assert shown.status_code == 200  # the key decoded as the server decodes it
        with live(server, table["id"], owner) as mine, \
                live(server, table["id"], code=code) as watching:
            until(mine, "table")
            until(watching, "table")
        base = server.url.replace("http://", "ws://")
        with connect(f"{base}/api/tables/{table['id']}/live?%74oken={owner}&c%6Fde={code}",
                     open_timeout=30) as old:
            old.send(json.dumps({"type": "refresh"}))  # no hello: refused
            with pytest.raises(ConnectionClosed):
                for _ in range(10):
                    old.recv(timeout=30)
        with pytest.raises(InvalidStatus):  # no such path: refused at the handshake
            connect(f"{base}/api/me/live;token={owner}", open_timeout=30)
        assert server.client.delete("/api/sessions", headers=auth(owner)).status_code == 204
        deadline = time.monotonic() + 30
        while "DELETE /api/sessions" not in server.log.read_text(errors="replace"):
            assert time.monotonic() < deadline, server.log.read_text()[-2000:]
            time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
    finally:
        server.stop()
    written = server.log.read_text(errors="replace")
    assert '"hello"' in written or "hello" in written  # the frames were logged
    for secret in (owner, code):
        assert secret not in written, f"{secret[:4]}… is in the log"
