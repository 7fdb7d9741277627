"""A real ``blockyard serve`` for the online client's tests: the server tests'
own helper (tests/server/server_support.py) on an SQLite file in a temporary
folder and a free loopback port."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from server_support import Server, start_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("onlinehome")
    running = start_server(f"sqlite:///{home / 'server.sqlite3'}", home)
    try:
        yield running
    finally:
        running.stop()
