"""A game window in a process of its own (``blockyard.frontend.app.run``) on the
tests' virtual screen, driven by real key events (xdotool) and waited for by what
it says it has done: the process prints ``drawn`` after its first frame and
``key`` after each key it has handled (a test-side wrapper of the window's event
dispatch, nothing in the product), so a test waits on those, with a deadline,
never for a guessed number of seconds."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time

DEADLINE = 120.0
"""Seconds to wait at most for the process to show its window or handle a key."""

CHILD = r'''
from blockyard.frontend import app

window_class = app.BlockyardWindow
dispatch = window_class.dispatch_event
drawn = []


def said(self, name, *args):
    result = dispatch(self, name, *args)
    if name == "on_draw" and not drawn:
        drawn.append(True)
        print("drawn", flush=True)
    elif name == "on_key_release":  # the press before it has been handled
        print("key", flush=True)
    return result


window_class.dispatch_event = said
app.run(**{kwargs})
'''


class WindowProcess(subprocess.Popen):
    """The game window in a process of its own, and what it has said so far."""

    def __init__(self, home, **kwargs) -> None:
        env = {**os.environ, "BLOCKYARD_HOME": str(home)}
        super().__init__([sys.executable, "-c", CHILD.replace("{kwargs}", repr(kwargs))],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.stdout is not None
        for line in self.stdout:
            self.lines.put(line.strip())
        self.lines.put("")  # the process ended

    def said(self, word: str) -> None:
        """Wait until the process says ``word`` (its next line)."""
        try:
            line = self.lines.get(timeout=DEADLINE)
        except queue.Empty:
            raise AssertionError(f"the window's process did not say {word!r}") from None
        assert line == word, f"the window's process said {line!r}, not {word!r}"

    def shown(self, ours: str) -> str:
        """Wait until the process has drawn its first frame: its X window id."""
        self.said("drawn")
        return process_window(ours)

    def keys(self, wid: str, *names: str) -> None:
        """Press each key on the process's window, once the one before is handled."""
        for name in names:
            subprocess.run(["xdotool", "key", "--window", wid, name], check=True)
            self.said("key")


def start_process(home, **kwargs) -> WindowProcess:
    """The game window in a process of its own (``run(**kwargs)``), on this screen."""
    return WindowProcess(home, **kwargs)


def process_window(ours: str) -> str:
    """The X window id of the other Blockyard window (the process's)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        found = subprocess.run(["xdotool", "search", "--name", "^Blockyard$"],
                               capture_output=True, text=True).stdout.split()
        others = [w for w in found if w != ours]
        if others:
            return others[-1]
        time.sleep(0.2)  # the polling interval of this wait (bounded by its deadline)
    raise AssertionError("the game window of the process did not open")


def relaunch(ui, window):
    """A new app reading the same folders, as a new process would."""
    from blockyard.frontend.app import BlockyardApp

    app = BlockyardApp(window)
    window.app = app
    ui.app = app
    app.show_launcher()
    ui.pump(3)
    return app


def wait_for(condition, seconds: float = DEADLINE) -> None:
    """Wait until ``condition()``, for ``seconds`` at most."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.1)  # the polling interval of this wait (bounded by its deadline)
