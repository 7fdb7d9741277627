"""Frontend test harness: a real window on a virtual X server, driven by real
input events (xdotool), checked on screenshots (``arcade.get_image``).

An Xvfb server is started for the test session before Arcade is imported, so
the tests run the same on a desktop, over SSH and on CI. The window is created
once; each test gets a fresh :class:`BlockyardApp` on it (with its own
BLOCKYARD_HOME).
"""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest


def _start_xvfb() -> None:
    if shutil.which("xdotool") is None:
        raise RuntimeError("the frontend tests need xdotool: install it with "
                           "'apt-get install xvfb xdotool' (bash scripts/test.sh does)")
    # imported from its file: importing blockyard.frontend must wait for DISPLAY
    from blockyard.frontend.virtual_display import start_virtual_display

    start_virtual_display()


_start_xvfb()

import pyglet  # noqa: E402

pyglet.options["audio"] = ("silent",)  # sounds are played, and logged, without a device

import arcade  # noqa: E402  (after DISPLAY is set)

import blockyard  # noqa: E402
from blockyard.frontend.app import BlockyardApp, BlockyardWindow  # noqa: E402
from blockyard.frontend.screens import game_view  # noqa: E402

WIDTH, HEIGHT = 720, 960


class Driver:
    """Sends real X input events to the window and reads its pixels."""

    def __init__(self, window: arcade.Window) -> None:
        self.window = window

    @property
    def wid(self) -> str:
        """The X window id (pyglet's xlib window; a new one after going full screen)."""
        return str(self.window._window)

    @property
    def view(self):
        return self.window.current_view

    def pump(self, frames: int = 3, dt: float = 1 / 60, *, draw: bool = True) -> None:
        """Let the window process events, update and draw ``frames`` times (the
        last frame drawn is put on the screen: on the virtual screen a swap of
        buffers is the costliest step of a frame, and nothing reads the frames
        between). ``draw=False``: events and updates only."""
        for frame in range(frames):
            self.window.dispatch_events()
            view = self.window.current_view
            if view is not None:
                view.on_update(dt)
                if draw:
                    view.on_draw()
            if draw and frame == frames - 1:
                self.window.flip()

    def show_game(self, ruleset: str = "eu-classic", *, board: str | None = None,
                  tray: list[str | None] | None = None, seed: int = 1):
        """A new game of ``ruleset`` (from a starting position) on screen, after a
        few frames: ``(view, game)``."""
        game = blockyard.new_game(ruleset, seed=seed, board=board, tray=tray)
        self.app.show_game(game)
        self.pump(3)
        assert isinstance(self.view, game_view(game.kind))
        return self.view, game

    def sync(self) -> None:
        """Wait until the X server has delivered every event caused so far."""
        from pyglet.libs.x11 import xlib

        xlib.XSync(self.window._x_display, False)

    def xdo(self, *args: str) -> None:
        subprocess.run(["xdotool", *args], check=True)
        self.sync()
        self.pump(1, draw=False)  # the event handled (and a frame's time passed)
        self.sync()
        self.pump(1)  # whatever handling it caused, then drawn

    def _xy(self, x: float, y: float) -> tuple[str, str]:
        return str(round(x)), str(self.window.height - 1 - round(y))

    def move(self, x: float, y: float) -> None:
        self.xdo("mousemove", "--window", self.wid, *self._xy(x, y))

    def click(self, x: float, y: float, button: int = 1) -> None:
        self.move(x, y)
        self.xdo("click", str(button))

    def drag(self, points: list[tuple[float, float]]) -> None:
        """Press at the first point, move through the others, release at the last."""
        self.move(*points[0])
        self.xdo("mousedown", "1")
        for point in points[1:]:
            self.move(*point)
        self.xdo("mouseup", "1")

    def key(self, *names: str) -> None:
        for name in names:
            self.xdo("key", "--window", self.wid, name)

    def type(self, text: str) -> None:
        """Type text into the focused field (real key events)."""
        self.xdo("type", "--window", self.wid, "--delay", "5", text)

    def key_down(self, name: str) -> None:
        self.xdo("keydown", "--window", self.wid, name)

    def key_up(self, name: str) -> None:
        self.xdo("keyup", "--window", self.wid, name)

    def screenshot(self):
        """The current frame, drawn now (not a queued draw)."""
        self.window.current_view.on_draw()
        return arcade.get_image(0, 0, self.window.width, self.window.height)

    def pixel(self, x: float, y: float) -> tuple[int, int, int]:
        """The colour drawn at window position ``(x, y)`` (Arcade coordinates)."""
        image = self.screenshot()
        return image.getpixel((round(x), self.window.height - 1 - round(y)))[:3]

    def x_size(self) -> tuple[int, int]:
        """The window's size as the X server has it now."""
        from ctypes import byref

        from pyglet.libs.x11 import xlib

        attributes = xlib.XWindowAttributes()
        xlib.XGetWindowAttributes(self.window._x_display, self.window._window,
                                  byref(attributes))
        return attributes.width, attributes.height

    def wait_for_size(self, width: int, height: int, seconds: float = 60.0) -> None:
        """Run frames until the X server has the window at ``width`` x ``height``
        (a wait on the condition, with a deadline)."""
        deadline = time.monotonic() + seconds
        self.sync()
        while self.x_size() != (width, height):
            assert time.monotonic() < deadline, ("the window was not resized",
                                                 self.x_size(), (width, height))
            self.pump(1)
            self.sync()

    def resize(self, width: int, height: int) -> None:
        self.window.set_size(width, height)
        self.wait_for_size(width, height)
        self.pump(4)
        self.window.current_view.on_resize(width, height)
        self.pump(2)


@pytest.fixture(scope="session")
def window():
    win = BlockyardWindow(WIDTH, HEIGHT, "Blockyard", resizable=True)
    win.set_location(0, 0)
    yield win
    win.close()


@pytest.fixture(scope="session")
def sound_files(tmp_path_factory) -> list:
    """The window's sound effects, synthesised once for the session (half a second
    of each test's start otherwise): each test's home gets a copy, where the app
    finds them made (the synthesis itself: test_settings_and_feel.py)."""
    from blockyard.frontend.sound import SOUNDS, sound_file

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BLOCKYARD_HOME", str(tmp_path_factory.mktemp("soundhome")))
        return [sound_file(name) for name in SOUNDS]


@pytest.fixture
def ui(window, isolated_home, sound_files):
    """A fresh app on the shared window and a driver for it."""
    sounds = isolated_home / "data" / "sounds"
    sounds.mkdir(parents=True, exist_ok=True)
    for made in sound_files:
        shutil.copyfile(made, sounds / made.name)
    # the earlier test's screen is done with: a blank one takes its place before the
    # window goes back to its size and runs frames (the old screen, laid out again at that
    # size and updated, served no test: half a second each time for a launcher)
    window.show_view(arcade.View())
    resized = (window.width, window.height) != (WIDTH, HEIGHT)
    if resized:
        window.set_size(WIDTH, HEIGHT)
        window.dispatch_events()
    app = BlockyardApp(window)
    # the how-to-play page shows itself the first time a ruleset is played; tests
    # start games directly unless they test that page (they clear this list)
    app.settings.help_seen = [info.id for info in blockyard.list_rulesets()]
    window.app = app
    driver = Driver(window)
    driver.app = app
    driver.pump(2)
    if resized:  # an earlier test changed the size: wait for it and lay out again
        driver.resize(WIDTH, HEIGHT)
    yield driver
    app.close_player_feed()  # the signed-in player's own connection, if one was opened
    # the test's app is done: it stops following the language, or every language set
    # after it (a later test's, this fixture's own English again) would rebuild the screen
    # it left on the shared window (138 switches of a translation test took 4 minutes)
    window.stop_following_language()
    from blockyard.frontend import theme

    theme.apply()  # the theme is the module's state: back to the default for the next test
    if window.fullscreen:
        window.set_fullscreen(False)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A ``blockyard serve`` for the module's online tests (each test makes fresh
    accounts and tables on it): tests/frontend/online_support.py."""
    from online_support import serve

    running = serve(tmp_path_factory.mktemp("server"))
    yield running
    running.stop()


@pytest.fixture
def english(request):
    """A test that switches the window's language leaves it English (a test's app on
    the window stops following the language first, as ``ui`` has it do at its end:
    the screen the test left is not built again in English for no one)."""
    from blockyard.frontend import i18n

    window = request.getfixturevalue("window") if "window" in request.fixturenames else None
    yield
    stop = getattr(window, "stop_following_language", None)
    if callable(stop):
        stop()
    i18n.set_language("en")
