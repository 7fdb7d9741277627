"""The application's start and stop: while it runs, the garbage collector passes
over the young objects less often (``YOUNG_OBJECTS``) and leaves out what start-up
made; once it stops, the process it ran in has its own threshold back."""

from __future__ import annotations

import gc
from pathlib import Path

from fastapi.testclient import TestClient

from blockyard.server import db
from blockyard.server.app import YOUNG_OBJECTS, create_app
from blockyard.server.settings import Settings


def test_the_collector_runs_less_often_while_serving_and_as_before_after(
        tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'lifespan.sqlite3'}"
    db.migrate(url)
    before = gc.get_threshold()
    assert before[0] != YOUNG_OBJECTS
    with TestClient(create_app(Settings(database=url, verifiers=1))) as client:
        assert client.get("/api/health").status_code == 200
        assert gc.get_threshold() == (YOUNG_OBJECTS, *before[1:])
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
