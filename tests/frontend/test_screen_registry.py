"""Screens found by name (blockyard.frontend.screens): a package registers
Screen records naming their openers by dotted path, the app opens one by name
and imports none of them; a bad record, name or opener is a clear error."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import blockyard.frontend as frontend
from blockyard.frontend import screens
from blockyard.frontend.local_screens import SCREENS as LOCAL_SCREENS
from blockyard.frontend.online import SCREENS as ONLINE_SCREENS
from blockyard.frontend.online.settings_view import OnlineSettingsView
from blockyard.frontend.screens import (
    Screen,
    register_screen,
    registered_screens,
    screen_opener,
)

FRONTEND = Path(frontend.__file__).parent


@pytest.fixture
def scratch_registry(monkeypatch):
    """The registry as it is, restored after the test."""
    registered_screens()  # the packages' screens first
    monkeypatch.setattr(screens, "_screens", dict(screens._screens))


def test_the_screens_are_registered_by_their_packages():
    found = registered_screens()
    for screen in ONLINE_SCREENS:
        assert found[screen.name] == screen
        assert screen.opener.startswith("blockyard.frontend.online.")
        assert callable(screen_opener(screen.name))
    for screen in LOCAL_SCREENS:
        assert found[screen.name] == screen and callable(screen_opener(screen.name))
    assert {"online-settings", "lobby", "table", "reopened-table", "leaderboard",
            "submit", "launcher", "summary", "replay", "plugin-fault", "settings", "help",
            "stats", "replays"} <= set(found)


@pytest.mark.parametrize("name, opener, problem", [
    ("Lobby", "a.b:c", "Screen.name: expected a name such as 'lobby'"),
    ("", "a.b:c", "Screen.name"),
    ("x" * 41, "a.b:c", "Screen.name"),
    ("lobby", "a.b.c", "opener: expected a dotted path 'package.module:function'"),
    ("lobby", "", "opener: expected a dotted path"),
])
def test_a_screen_record_is_checked(name, opener, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        Screen(name, opener)


def test_a_name_taken_is_refused_and_the_same_record_again_is_not(scratch_registry):
    lobby = registered_screens()["lobby"]
    register_screen(lobby)  # the same record: nothing changes
    with pytest.raises(ValueError, match=re.escape(
            "screen 'lobby' is registered already (opener "
            "'blockyard.frontend.online.lobby_view:open_lobby')")):
        register_screen(Screen("lobby", "somewhere.else:open"))
    with pytest.raises(ValueError, match="expected a Screen"):
        register_screen(("lobby", "a.b:c"))  # type: ignore[arg-type]


def test_an_unknown_name_or_a_broken_opener_is_a_clear_error(scratch_registry):
    with pytest.raises(ValueError, match=r"no screen named 'nowhere' \(registered screens: "
                                         r".*lobby.*\)"):
        screen_opener("nowhere")
    register_screen(Screen("missing", "blockyard.frontend.nowhere:open"))
    with pytest.raises(ValueError, match=re.escape(
            "screen 'missing': its opener 'blockyard.frontend.nowhere:open' cannot be "
            "imported")):
        screen_opener("missing")
    register_screen(Screen("not-callable", "blockyard.frontend.screens:SCREEN_PACKAGES"))
    with pytest.raises(ValueError, match="is not callable"):
        screen_opener("not-callable")


def open_test_screen(host, title: str = "A test screen"):
    """A screen this test registers (a menu with Back to the launcher)."""
    from blockyard.frontend.menus import MenuView

    return MenuView(title, [], [("Back", host.show_launcher)], host.show_launcher)


def test_the_app_opens_screens_by_name(ui, scratch_registry):
    assert ui.app.show("online-settings") is True
    assert isinstance(ui.view, OnlineSettingsView)
    ui.key("Escape")  # back: the launcher, the opener's default
    assert type(ui.view).__name__ == "LauncherView"
    # nothing to reopen: the opener says so and the screen on show stays
    shown = ui.view
    assert ui.app.show("reopened-table") is False and ui.view is shown
    # a screen registered by anyone opens the same way, with its arguments
    register_screen(Screen("test-screen", f"{__name__}:open_test_screen"))
    assert ui.app.show("test-screen", title="Registered here") is True
    ui.pump(1)
    assert ui.view.title.text == "Registered here"
    ui.key("Escape")
    assert ui.view is not shown and type(ui.view).__name__ == "LauncherView"
    with pytest.raises(TypeError):
        ui.app.show("test-screen", nonsense=1)  # an argument the opener has not


def test_the_app_imports_none_of_the_registered_screens():
    tree = ast.parse((FRONTEND / "app.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            assert not re.search(r"(^|\.)(online\.(lobby_view|table_view|settings_view|"
                                 r"leaderboard_view)|pages|local_screens|launcher|"
                                 r"summary_view|replay_view)$", module), (module, node.lineno)
            assert not {"LobbyView", "OnlineSettingsView", "LeaderboardView", "SubmitView",
                        "WaitingView", "SettingsView", "HelpView", "StatsView",
                        "LauncherView", "SummaryView", "ReplayView", "PluginFaultView"} \
                & {alias.name for alias in node.names}


def test_the_app_imports_at_the_top_of_its_module_only():
    """No import hides inside a function of app.py (a late import hides a cycle and
    a dependency from whoever reads the module's head); the ones under
    TYPE_CHECKING are for the types alone."""
    tree = ast.parse((FRONTEND / "app.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = [n for n in ast.walk(node) if isinstance(n, ast.Import | ast.ImportFrom)]
            assert not inner, (node.name, [n.lineno for n in inner])


@pytest.mark.parametrize("module", ["__init__", "account", "errors", "friends_view",
                                    "leaderboard_view", "lobby_view", "notices",
                                    "settings_view", "table_view"])
def test_no_online_module_imports_the_app(module):
    text = (FRONTEND / "online" / f"{module}.py").read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom):
            assert (node.module or "") not in ("app", "blockyard.frontend.app"), module
            assert "BlockyardApp" not in {alias.name for alias in node.names}
