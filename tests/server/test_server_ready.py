"""`GET /api/ready`: 200 while the database answers and its schema is this
build's, 503 with the reason while it is unreachable or behind, 200 again at once
on its return (within 5 s); `/api/health` says only that the process is up."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from server_support import Server, engine_of, start_server

from blockyard.server import db

WAIT = 60.0
"""A bound on an answer that must come, never a measured time."""


def ready(server: Server) -> httpx.Response:
    return server.client.get("/api/ready", timeout=15)


def unready_answers(server: Server) -> int:
    """Ask ``/api/ready`` until it answers 200 (under :data:`WAIT`): how many
    answers were 503 before it."""
    deadline, unready = time.monotonic() + WAIT, 0
    while True:
        answer = ready(server)
        if answer.status_code == 200:
            return unready
        assert answer.status_code == 503, answer.text
        unready += 1
        assert time.monotonic() < deadline, answer.text
        time.sleep(0.1)  # polling interval of the wait above (bounded by its deadline)


def test_ready_and_a_schema_behind(tmp_path: Path) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path)
    try:
        answer = ready(server)
        assert (answer.status_code, answer.json()) == (
            200, {"ready": True, "schema_revision": db.head_revision()})
        with engine_of(server.database) as engine, engine.begin() as conn:
            # as if an older build's schema were back
            conn.execute(sa.text("UPDATE alembic_version SET version_num = '0006'"))
        behind = ready(server)
        assert behind.status_code == 503 and behind.headers["retry-after"] == "5"
        assert behind.json()["error"] == (
            f"the database's schema is at revision 0006, this build needs "
            f"{db.head_revision()}: run the migrations (blockyard serve-db upgrade)")
        assert server.client.get("/api/health").status_code == 200
        with engine_of(server.database) as engine, engine.begin() as conn:
            conn.execute(sa.text("UPDATE alembic_version SET version_num = :head"),
                         {"head": db.head_revision()})
        assert ready(server).status_code == 200
    finally:
        server.stop()


def test_unready_while_postgresql_is_stopped_and_ready_soon_after_it_returns(
        own_postgres: dict[str, Any], tmp_path: Path) -> None:
    server = start_server(own_postgres["url"], tmp_path)
    try:
        assert ready(server).status_code == 200
        subprocess.run(own_postgres["stop"], check=True, capture_output=True, timeout=60)
        answer = ready(server)
        assert answer.status_code == 503
        assert answer.json()["error"].startswith("the database is unreachable (")
        assert server.client.get("/api/health").status_code == 200  # the process is up
        assert ready(server).status_code == 503  # and stays unready, answering at once
        subprocess.run(own_postgres["start"], check=True, capture_output=True, timeout=180)
        # ready at once: each answer is immediate, and at most the one call that
        # meets a connection of the pool opened before the restart is answered 503
        # (SQLAlchemy then replaces them all), far within the 5 s the operator is promised
        assert unready_answers(server) <= 1
    finally:
        server.stop()
