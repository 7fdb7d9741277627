"""The hook watchdog: a plugin hook that runs too long is stopped.

A limit in seconds applies to every hook call made through the rule facade
(:class:`blockyard.rulehooks.RuleHooks`): the ruleset's own limit
(``load_ruleset(..., hook_timeout=S)``) or else the process-wide one —
``BLOCKYARD_HOOK_TIMEOUT`` (seconds) in the environment, :func:`set_default`,
or the :func:`hook_timeout` context manager (the window and the conformance kit
always set one). With no limit, hooks run untimed (the headless default).

How a running hook is stopped: in the main thread a real-time timer
(``SIGALRM``) raises :class:`Overtime` inside the hook, which also interrupts a
``time.sleep``; in any other thread a watchdog thread raises it asynchronously
in that thread, between two Python instructions (a hook blocked inside one long
C call is stopped when that call returns). :class:`Overtime` derives from
``BaseException`` so that a plugin's ``except Exception`` cannot swallow it; the
facade turns it into a :class:`~blockyard.PluginError` ("… ran longer than S s")
and the engine leaves the game as it was before the action.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

TIMEOUT_ENV = "BLOCKYARD_HOOK_TIMEOUT"
"""Environment variable: the process-wide hook time limit in seconds."""

MAX_SECONDS = 3600.0
"""The longest limit that may be set (an hour)."""


class Overtime(BaseException):
    """Raised inside a hook call that ran longer than its limit."""


def check_seconds(value: Any, what: str = "hook_timeout") -> float | None:
    """``value`` as a limit in seconds (``None``: no limit); ``ValueError`` naming
    ``what`` for anything but a number above 0 and at most :data:`MAX_SECONDS`."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value) or not 0 < value <= MAX_SECONDS:
        raise ValueError(f"{what}: expected seconds above 0 and at most {MAX_SECONDS:g}, "
                         f"found {value!r:.40}")
    return float(value)


def _from_environment() -> float | None:
    text = os.environ.get(TIMEOUT_ENV, "").strip()
    if not text:
        return None
    try:
        return check_seconds(float(text), TIMEOUT_ENV)
    except ValueError as exc:
        raise ValueError(f"{exc} (environment variable)") from None


class _Watch:
    """The process-wide limit and what is being timed now."""

    def __init__(self) -> None:
        self.limit: float | None = _from_environment()
        self.main = threading.main_thread().ident
        self.main_depth = 0
        self.handler_ready = False
        self.lock = threading.Condition()
        self.deadlines: dict[int, float] = {}  # other threads: ident → monotonic deadline
        self.fired: set[int] = set()
        self.depths: dict[int, int] = {}
        self.thread: threading.Thread | None = None


WATCH = _Watch()


def default_limit() -> float | None:
    """The process-wide limit in seconds, or ``None``."""
    return WATCH.limit


def set_default(seconds: float | None) -> None:
    """Set the process-wide limit (``None``: none) for every ruleset without a
    limit of its own."""
    WATCH.limit = check_seconds(seconds)


@contextlib.contextmanager
def hook_timeout(seconds: float | None) -> Iterator[None]:
    """The process-wide limit is ``seconds`` inside the ``with`` block."""
    before = WATCH.limit
    WATCH.limit = check_seconds(seconds)
    try:
        yield
    finally:
        WATCH.limit = before


def _on_alarm(signum: int, frame: Any) -> None:
    if WATCH.main_depth:
        raise Overtime


def _main_handler() -> bool:
    """Install the timer's handler once; ``False`` when someone else's handler
    holds ``SIGALRM`` (then the watchdog thread is used)."""
    if WATCH.handler_ready:
        return True
    if not hasattr(signal, "setitimer"):
        return False
    current = signal.getsignal(signal.SIGALRM)
    if current not in (signal.SIG_DFL, signal.SIG_IGN, None, _on_alarm):
        return False
    signal.signal(signal.SIGALRM, _on_alarm)
    WATCH.handler_ready = True
    return True


def run_limited(call: Callable[[Any], Any], args: Any, seconds: float) -> Any:
    """``call(args)``, raising :class:`Overtime` inside it once it has run for
    ``seconds``. A call nested in a timed call is covered by the outer limit."""
    ident = threading.get_ident()
    if ident == WATCH.main and _main_handler():
        if WATCH.main_depth:
            return call(args)
        WATCH.main_depth = 1
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return call(args)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            WATCH.main_depth = 0
    return _run_in_thread(call, args, seconds, ident)


def _run_in_thread(call: Callable[[Any], Any], args: Any, seconds: float, ident: int) -> Any:
    watch = WATCH
    with watch.lock:
        depth = watch.depths.get(ident, 0)
        watch.depths[ident] = depth + 1
        if depth == 0:
            watch.deadlines[ident] = time.monotonic() + seconds
            _start_thread()
            watch.lock.notify_all()
    try:
        return call(args)
    finally:
        with watch.lock:
            watch.depths[ident] = depth
            if depth == 0:
                del watch.depths[ident]
                watch.deadlines.pop(ident, None)
                if ident in watch.fired:  # fired just as the call returned: take it back
                    watch.fired.discard(ident)
                    _raise_in(ident, None)


def _start_thread() -> None:
    if WATCH.thread is None or not WATCH.thread.is_alive():
        WATCH.thread = threading.Thread(target=_watchdog, name="blockyard-hook-watchdog",
                                        daemon=True)
        WATCH.thread.start()


def _raise_in(ident: int, exc: type[BaseException] | None) -> None:
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident),
                                               ctypes.py_object(exc) if exc else None)


def _watchdog() -> None:
    watch = WATCH
    with watch.lock:
        while True:
            now = time.monotonic()
            due = [i for i, d in watch.deadlines.items() if d <= now]
            for ident in due:
                del watch.deadlines[ident]
                watch.fired.add(ident)
                _raise_in(ident, Overtime)
            soonest = min(watch.deadlines.values(), default=None)
            watch.lock.wait(None if soonest is None else max(0.0, soonest - now))
