"""The window's screens, found by name: records say which, not a chain of ifs.

Two registries, kept alike:

- **game screens**: every registered game mode (:class:`blockyard.modes.Mode`)
  names the screen that plays it as a dotted path
  (``"blockyard.frontend.tray_view:TrayGameView"``), which core cannot import;
  :func:`game_view` imports it. The app, the replay viewer and the language
  switch all find a game's screen here.
- **the other screens** (the settings, a ruleset's statistics, the replays
  kept, the lobby, a live table, Settings → Online…): each is a
  :class:`Screen` record, a name and the dotted path of its *opener*, a
  function ``opener(host, **arguments)`` that builds the screen from what the
  app lends it (:class:`~.session.Host`) and returns it (``None``: nothing to
  show). A package of screens contributes its records the way a package of
  modes does: a module with ``register_screens(register)`` that calls
  ``register(Screen(...))``, named in :data:`SCREEN_PACKAGES`. The app opens a
  screen by name (:func:`open_screen`) and imports none of them; a screen
  opens another by name too (``host.show("lobby")``).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from blockyard.modes import VIEW_PATH
from blockyard.registry import get_mode

if TYPE_CHECKING:
    import arcade

    from .game_screen import GameScreen
    from .session import Host


def game_view(kind: str) -> type[GameScreen]:
    """The screen class that plays games of the mode named ``kind`` (``game.kind``).
    ``ValueError`` for a mode nobody registered, or whose screen cannot be
    imported or is not a game screen."""
    from .game_screen import GameScreen

    try:
        mode = get_mode(kind)
    except KeyError as exc:
        raise ValueError(f"no game screen for games of kind {kind!r}: "
                         f"{exc.args[0]}") from None
    module_name, _, name = mode.view.partition(":")
    try:
        screen = getattr(importlib.import_module(module_name), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"mode {kind!r}: its screen {mode.view!r} cannot be imported: "
                         f"{exc}") from None
    if not isinstance(screen, type) or not issubclass(screen, GameScreen):
        raise ValueError(f"mode {kind!r}: its screen {mode.view!r} is not a GameScreen")
    return screen


SCREEN_NAME = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
"""A screen's name: a lower-case letter, then up to 39 lower-case letters, digits
or ``-`` (``"lobby"``, ``"online-settings"``)."""

SCREEN_PACKAGES = ("blockyard.frontend.local_screens", "blockyard.frontend.online")
"""The modules whose ``register_screens(register)`` contribute screens, by dotted
name (imported when a screen is first asked for)."""

Opener = Callable[..., "arcade.View | None"]
"""``opener(host, **arguments)``: the screen, built from what the app lends it."""


@dataclass(frozen=True, slots=True)
class Screen:
    """One screen the app can open by ``name`` (:data:`SCREEN_NAME`): ``opener``
    is the dotted path (``"package.module:function"``) of the function that
    builds it (:data:`Opener`); ``summary`` says in a line what it shows."""

    name: str
    opener: str
    summary: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not SCREEN_NAME.match(self.name):
            raise ValueError(f"Screen.name: expected a name such as 'lobby' (lower-case "
                             f"letters, digits and -), found {self.name!r}")
        if not isinstance(self.opener, str) or not VIEW_PATH.match(self.opener):
            raise ValueError(f"Screen {self.name!r}: opener: expected a dotted path "
                             f"'package.module:function', found {self.opener!r}")


_screens: dict[str, Screen] = {}
_loaded: list[str] = []  # the packages of SCREEN_PACKAGES registered so far


def register_screen(screen: Screen) -> None:
    """Add ``screen`` to the registry; ``ValueError`` for a name another screen
    has (or anything that is not a :class:`Screen`)."""
    if not isinstance(screen, Screen):
        raise ValueError(f"register_screen: expected a Screen, found {screen!r}")
    old = _screens.get(screen.name)
    if old is not None and old != screen:
        raise ValueError(f"screen {screen.name!r} is registered already (opener "
                         f"{old.opener!r})")
    _screens[screen.name] = screen


def registered_screens() -> dict[str, Screen]:
    """Every registered screen by name (a copy), the packages of
    :data:`SCREEN_PACKAGES` registered first."""
    for package in SCREEN_PACKAGES:
        if package not in _loaded:
            register = getattr(importlib.import_module(package), "register_screens", None)
            if not callable(register):
                raise ValueError(f"screen package {package!r} has no register_screens()")
            register(register_screen)
            _loaded.append(package)
    return dict(_screens)


def screen_opener(name: str) -> Opener:
    """The opener of the screen registered as ``name``. ``ValueError`` for a name
    nobody registered, or an opener that cannot be imported or called."""
    screens = registered_screens()
    screen = screens.get(name)
    if screen is None:
        raise ValueError(f"no screen named {name!r} (registered screens: "
                         f"{', '.join(sorted(screens))})")
    module_name, _, attribute = screen.opener.partition(":")
    try:
        opener: Any = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"screen {name!r}: its opener {screen.opener!r} cannot be "
                         f"imported: {exc}") from None
    if not callable(opener):
        raise ValueError(f"screen {name!r}: its opener {screen.opener!r} is not callable")
    found: Opener = opener
    return found


def to_screen(host: Host, name: str, **arguments: Any) -> Callable[[], None]:
    """A callback that opens the screen ``name`` with ``arguments`` (a Back button's,
    a screen's way on)."""
    def show() -> None:
        host.show(name, **arguments)
    return show


def open_screen(name: str, host: Host, **arguments: Any) -> arcade.View | None:
    """Build the screen registered as ``name`` for ``host`` with ``arguments`` (the
    opener's keyword arguments); ``None`` when it has nothing to show."""
    return screen_opener(name)(host, **arguments)


__all__ = ["SCREEN_NAME", "SCREEN_PACKAGES", "Opener", "Screen", "game_view", "open_screen",
           "register_screen", "registered_screens", "screen_opener", "to_screen"]
