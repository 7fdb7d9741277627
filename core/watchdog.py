"""The hook watchdog: a plugin hook that runs too long is stopped.

A limit in seconds applies to the hooks and action functions of every plugin
that does not ship with Blockyard (Blockyard's own plugins are engine code,
held to their speed by its tests): the ruleset's own limit
(``load_ruleset(..., hook_timeout=S)``) or else the process-wide one —
``BLOCKYARD_HOOK_TIMEOUT`` (seconds, or ``off``) in the environment,
:func:`set_default`, or the :func:`hook_timeout` context manager. The
process-wide default is :data:`DEFAULT_SECONDS` (2 s), the same headless, in
``blockyard check``, on the server and in the window.

The limit bounds each hook call and, together, every hook call of one step of
play (a placement, an action, a tick, a preview, a new game): a hook that answers
in 0.9 s under a 1 s limit, asked twice by one move, stops that move.

How a running hook is stopped: in the main thread a real-time timer
(``SIGALRM``) raises :class:`Overtime` inside the hook, which also interrupts a
``time.sleep``, and again every :data:`REFIRE_SECONDS` until the hook returns;
in any other thread a watchdog thread raises it asynchronously in that thread,
between two Python instructions (a hook blocked inside one long C call is
stopped when that call returns). :class:`Overtime` is raised only while a
plugin's code runs, never inside the engine's. It derives from
``BaseException`` so that a plugin's ``except Exception`` cannot swallow it;
and a hook that catches it anyway (``except BaseException``) gains nothing:
an answer that comes back after its limit is refused as :class:`Overtime` too
(``late``). The facade turns it into a :class:`~blockyard.PluginError`
("… ran longer than S s") and the engine leaves the game as it was before the
step.
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
"""Environment variable: the process-wide hook time limit in seconds (``off``:
none)."""

DEFAULT_SECONDS = 2.0
"""The process-wide limit when the environment sets none (headless and in the
window alike)."""

REFIRE_SECONDS = 0.05
"""Once a limit has run out, :class:`Overtime` is raised again this often while
the plugin's code still runs (a hook that caught it is stopped again)."""

MAX_SECONDS = 3600.0
"""The longest limit that may be set (an hour)."""


class Overtime(BaseException):
    """Raised inside a hook call that ran longer than its limit; ``late`` when
    the call came back after its limit (its answer is refused)."""

    def __init__(self, late: bool = False) -> None:
        super().__init__("late" if late else "")
        self.late = late


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
        return DEFAULT_SECONDS
    if text.lower() in ("off", "none"):
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
        """Timed calls open in the main thread (steps and hooks, nested)."""
        self.main_in_hook = 0
        """Of those, the plugin calls: :class:`Overtime` is raised only inside them."""
        self.main_fired = False
        """The main thread's limit has run out."""
        self.handler_ready = False
        self.lock = threading.Condition()
        self.deadlines: dict[int, float] = {}  # other threads: ident → monotonic deadline
        self.fired: set[int] = set()
        self.depths: dict[int, int] = {}
        self.in_hook: dict[int, int] = {}
        self.thread: threading.Thread | None = None
        self.last_hook = ""
        """The last hook a timed call asked (named when a step's limit runs out
        between hooks)."""


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
    watch = WATCH
    if watch.main_depth:
        watch.main_fired = True
        if watch.main_in_hook:
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


def run_limited(call: Callable[[Any], Any], args: Any, seconds: float, *,
                plugin: bool = True) -> Any:
    """``call(args)``, raising :class:`Overtime` inside it once it has run for
    ``seconds``, and refusing (``Overtime(late=True)``) what it returns after
    that. A call nested in a timed call shares the outer call's limit: the
    engine times a whole step of play this way (``plugin=False``: engine code,
    in which :class:`Overtime` is never raised; the hooks it asks are timed
    inside it)."""
    ident = threading.get_ident()
    if ident == WATCH.main and _main_handler():
        return _run_in_main(call, args, seconds, plugin)
    return _run_in_thread(call, args, seconds, ident, plugin)


def _run_in_main(call: Callable[[Any], Any], args: Any, seconds: float, plugin: bool) -> Any:
    watch = WATCH
    outer = not watch.main_depth
    in_hook = watch.main_in_hook
    if outer:
        watch.main_fired = False
        watch.main_depth = 1
        signal.setitimer(signal.ITIMER_REAL, seconds, REFIRE_SECONDS)
    else:
        watch.main_depth += 1
    try:
        # (plain stores in the finally: the timer's handler raises only while
        # main_in_hook counts a plugin's call, so never in the engine's code)
        watch.main_in_hook = in_hook + plugin
        answer = call(args)
    except Overtime:
        watch.main_in_hook = in_hook
        _leave_main(outer)
        raise
    except BaseException:
        watch.main_in_hook = in_hook
        _leave_main(outer)
        if plugin and watch.main_fired:  # what a plugin raised after its limit
            raise Overtime(late=True) from None
        raise
    finally:
        watch.main_in_hook = in_hook
    _leave_main(outer)
    if watch.main_fired:
        raise Overtime(late=True)
    return answer


def _leave_main(outer: bool) -> None:
    watch = WATCH
    if outer:
        watch.main_depth = 0
        signal.setitimer(signal.ITIMER_REAL, 0)
    else:
        watch.main_depth -= 1


def _run_in_thread(call: Callable[[Any], Any], args: Any, seconds: float, ident: int,
                   plugin: bool) -> Any:
    watch = WATCH
    with watch.lock:
        depth = watch.depths.get(ident, 0)
        watch.depths[ident] = depth + 1
        if plugin:
            watch.in_hook[ident] = watch.in_hook.get(ident, 0) + 1
        if depth == 0:
            watch.fired.discard(ident)
            watch.deadlines[ident] = time.monotonic() + seconds
            _start_thread()
            watch.lock.notify_all()
    try:
        answer = call(args)
    except Overtime:
        _leave_thread(ident, depth, plugin)
        raise
    except BaseException:
        if _leave_thread(ident, depth, plugin) and plugin:
            raise Overtime(late=True) from None
        raise
    if _leave_thread(ident, depth, plugin):
        raise Overtime(late=True)
    return answer


def _leave_thread(ident: int, depth: int, plugin: bool) -> bool:
    """Close a timed call of thread ``ident``; whether its limit has run out
    (an Overtime still pending for the thread is taken back: the caller raises
    its own)."""
    watch = WATCH
    while True:
        try:
            watch.lock.acquire()
        except Overtime:  # delivered just as the call returned: the limit is out
            continue
        break
    try:
        if plugin:
            left = watch.in_hook[ident] - 1
            if left:
                watch.in_hook[ident] = left
            else:
                del watch.in_hook[ident]
        late = ident in watch.fired
        if late:
            _raise_in(ident, None)
        if depth == 0:
            del watch.depths[ident]
            watch.deadlines.pop(ident, None)
            watch.fired.discard(ident)
        else:
            watch.depths[ident] = depth
        return late
    finally:
        watch.lock.release()


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
                watch.fired.add(ident)
                if watch.in_hook.get(ident):
                    _raise_in(ident, Overtime)
                watch.deadlines[ident] = now + REFIRE_SECONDS  # again while it runs
            soonest = min(watch.deadlines.values(), default=None)
            watch.lock.wait(None if soonest is None else max(0.0, soonest - now))
