"""What the window's online tests share: a real ``blockyard serve`` subprocess
(the server tests' own helper, tests/server/server_support.py) on an SQLite
file in a temporary folder and a free loopback port, and waiting for the
window's background calls (bounded by a count of frames, never a measured time)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from server_support import Server, free_port, start_server

FRAMES = 1200  # frames to wait at most for an answer on loopback (each ~1/40 s)


def serve(folder: Path) -> Server:
    """A ``blockyard serve`` on an SQLite file in ``folder``."""
    return start_server(f"sqlite:///{folder / 'server.sqlite3'}", folder)


def pump_until(ui, done: Callable[[], bool], frames: int = FRAMES) -> None:
    """Run the window's frames until ``done()`` (a bounded number of them)."""
    for _ in range(frames):
        if done():
            return
        ui.pump(1)
        time.sleep(0.02)
    raise AssertionError("the window did not get there")


__all__ = ["FRAMES", "Server", "free_port", "pump_until", "serve"]
