"""The server's clock: the one place a server process reads the time it decides by.

Every rule of the server that involves time (a falling round's end, idle and
abandoned seats, a falling game's clock running slow, rate limits, who is online)
asks a :class:`Clock` it is given, never the system's clock directly: the
:class:`~blockyard.server.app.Server` takes one (:class:`SystemClock` unless told
otherwise) and hands it on. Tests give a :class:`FakeClock` and move it on by
hand, so a rule of time is tested in an instant and without a tolerance.

Two readings: :meth:`Clock.seconds` (monotonic seconds, that only go forward,
for durations measured inside one process) and :meth:`Clock.now` (the wall time in
UTC, for moments stored in the database and compared by every process).
"""

from __future__ import annotations

import datetime as _dt
import threading
import time
from typing import Protocol


class Clock(Protocol):
    """What the server reads the time from."""

    def seconds(self) -> float:
        """Seconds from an arbitrary start that never go backwards (monotonic)."""
        ...

    def now(self) -> _dt.datetime:
        """The current wall time, in UTC (time-zone aware)."""
        ...


class SystemClock:
    """The machine's clocks (the clock of a running server)."""

    def seconds(self) -> float:
        return time.monotonic()

    def now(self) -> _dt.datetime:
        return _dt.datetime.now(_dt.UTC)


FAKE_START = _dt.datetime(2026, 1, 1, 12, 0, tzinfo=_dt.UTC)
"""Where a :class:`FakeClock` starts unless told otherwise."""


class FakeClock:
    """A clock that moves only when told (:meth:`advance`): for tests. Both
    readings move together; safe to read and move from several threads (a test
    thread and a server's event loop)."""

    def __init__(self, start: _dt.datetime = FAKE_START) -> None:
        if start.tzinfo is None:
            raise ValueError("FakeClock: expected a time-zone aware start")
        self._start = start.astimezone(_dt.UTC)
        self._seconds = 0.0
        self._lock = threading.Lock()

    def seconds(self) -> float:
        with self._lock:
            return self._seconds

    def now(self) -> _dt.datetime:
        with self._lock:
            return self._start + _dt.timedelta(seconds=self._seconds)

    def advance(self, seconds: float) -> None:
        """Move the clock on by ``seconds`` (0 or more; ``ValueError`` otherwise)."""
        if not seconds >= 0:
            raise ValueError(f"FakeClock.advance: expected 0 or more seconds, found {seconds!r}")
        with self._lock:
            self._seconds += seconds
