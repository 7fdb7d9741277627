"""What the window's online tests share: a real ``blockyard serve`` subprocess
(the server tests' own helper, tests/server/server_support.py) on an SQLite
file in a temporary folder and a free loopback port (the module's ``server``
fixture, tests/frontend/conftest.py), accounts signed in on the window, a duel
opened from the lobby, a daily game submitted, and waiting for the window's
background calls (a wait on the condition, with a deadline)."""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "server"))

from server_support import Server, free_port, start_server

import blockyard
from blockyard.frontend import theme  # (the frontend conftest has started the screen)
from blockyard.frontend.widgets import FOCUS_RING
from blockyard.online import Client, LiveTable

DEADLINE = 120.0
"""Seconds to wait at most for an answer on loopback (a deadline for a condition:
generous, a loaded machine's server may take long; a wait that passes returns
as soon as the condition holds)."""
WAIT = 30.0
"""Seconds to wait at most for one live message."""


def serve(folder: Path, env: dict[str, str] | None = None) -> Server:
    """A ``blockyard serve`` on an SQLite file in ``folder``."""
    return start_server(f"sqlite:///{folder / 'server.sqlite3'}", folder, env=env)


def pump_until(ui, done: Callable[[], bool], seconds: float = DEADLINE) -> None:
    """Run the window's frames until ``done()``, for ``seconds`` at most."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError("the window did not get there")
        ui.pump(1)
        # not a wait for the condition (checked above each frame): leaves the
        # background threads (the window's calls, the live connection) the CPU
        time.sleep(0.02)


def account(server: Server, prefix: str) -> Client:
    """A new account on ``server``, signed in (its name in ``client.name``)."""
    client = Client(server.url)
    name = client.create_account(f"{prefix}{uuid.uuid4().hex[:8]}", "correct horse")
    client.sign_in(name, "correct horse")
    client.name = name  # type: ignore[attr-defined]
    return client


def sign_in_window(ui, server: Server, prefix: str = "win") -> Client:
    """A new account, signed in on the window too (saved as the player's)."""
    from blockyard.frontend.online.account import OnlineAccount

    client = account(server, prefix)
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), client.name, client.token)
    ui.app.online.save()
    return client


def until(live: LiveTable, kind: str) -> dict[str, Any]:
    """The next live message of type ``kind`` (the others skipped)."""
    for _ in range(1000):
        message = live.wait(WAIT)
        assert message is not None, f"no {kind} message"
        if message["type"] == kind:
            return message
    raise AssertionError(kind)


def start_duel(ui, server: Server):
    """A table opened from the window's lobby (mouse: New table, Open the table)
    and joined by a second player: ``(me, view, bob, bob_live, table_id, seed)``."""
    from blockyard.frontend.online.lobby_view import NewTableView
    from blockyard.frontend.online.table_view import LiveDuelView, WaitingView

    me = sign_in_window(ui, server)
    ui.app.show("lobby")
    lobby = ui.view
    pump_until(ui, lambda: lobby.pending is None)
    ui.click(lobby.new_button.rect.center_x, lobby.new_button.rect.center_y)
    form = ui.view
    assert isinstance(form, NewTableView)
    form.ruleset = [rid for rid, _name in form.rulesets].index("eu-classic")
    ui.click(form.create_button.rect.center_x, form.create_button.rect.center_y)
    pump_until(ui, lambda: isinstance(ui.view, WaitingView))
    table_id = int(ui.view.session.code.split("-")[0])
    bob = account(server, "bob")
    bob.join(table_id)
    bob_live = bob.live(table_id)
    seed = until(bob_live, "table")["seed"]
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    return me, ui.view, bob, bob_live, table_id, seed


def choose_rules(ui, form, ruleset_id: str = "eu-classic") -> None:
    """On the New table form, → until ``ruleset_id`` is the rules chosen (keyboard)."""
    for _ in range(len(form.rulesets)):
        if form.rulesets[form.ruleset][0] == ruleset_id:
            return
        ui.key("Right")
    assert form.rulesets[form.ruleset][0] == ruleset_id


def one_move_each(ui, view, live: LiveTable, seed: int) -> blockyard.Game:
    """The window places its first piece (keyboard: 1, Enter), then the opponent
    (``live``, seat 2) its first legal one, both shown: the opponent's game."""
    theirs = blockyard.new_game("eu-classic", seed=seed)
    ui.key("1", "Return")
    pump_until(ui, lambda: len(view.game.log) == 2)
    action = ["place", *theirs.legal_moves()[0]]
    theirs.apply(action)
    live.act(action)
    pump_until(ui, lambda: len(view.table.games[1].log) == 2)
    return theirs


def play_until_scored(ui, view, live: LiveTable, seed: int) -> blockyard.Game:
    """The opponent (``live``, seat 2) places pieces until it scores, and the
    window has shown its score: the opponent's game."""
    theirs = blockyard.new_game("eu-classic", seed=seed)
    while theirs.score == 0:
        action = ["place", *theirs.legal_moves()[0]]
        theirs.apply(action)
        live.act(action)
    pump_until(ui, lambda: view.table.scores[1] == theirs.score)
    return theirs


def submit_a_daily_game(ui, server: Server, prefix: str):
    """A new account signed in on the window plays one move of today's daily game,
    ends the round (confirmed) and presses U on its summary: ``(client, name,
    game, submit view)`` once the server answered the submission."""
    from blockyard.frontend.online.account import OnlineAccount
    from blockyard.frontend.online.leaderboard_view import SubmitView
    from blockyard.frontend.summary_view import SummaryView

    client = Client(server.url)
    name = client.create_account(f"{prefix}{uuid.uuid4().hex[:8]}", "correct horse")
    token = client.sign_in(name, "correct horse")
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), name, token)
    game = ui.app.start_game("eu-daily")
    ui.key("1", "Return", "e", "e")  # one move, then end the round (confirmed)
    pump_until(ui, lambda: isinstance(ui.view, SummaryView))
    summary = ui.view
    assert summary.submit.visible
    ui.key("u")
    submitting = ui.view
    assert isinstance(submitting, SubmitView)
    pump_until(ui, lambda: submitting.pending is None)
    return client, name, game, submitting


# -- the window's online screens --------------------------------------------------------------

SIZES = [(480, 640), (720, 960), (1280, 720)]
"""The reference sizes of the fit checks: small portrait, the default, wide."""
LANGUAGES = ("en", "de", "es", "ne")


def open_online(ui):
    """The online page (server and account), straight from the app."""
    from blockyard.frontend.online.settings_view import OnlineSettingsView

    ui.app.show("online-settings")
    ui.pump(2)
    assert isinstance(ui.view, OnlineSettingsView)
    return ui.view


def resize(ui, width: int, height: int) -> None:
    """Resize the window and wait (a bounded number of frames) until X has done it,
    then lay the screen out at that size."""
    ui.resize(width, height)
    for _ in range(100):
        if (ui.window.width, ui.window.height) == (width, height):
            break
        ui.window.set_size(width, height)
        ui.sync()
        ui.pump(1)
    assert (ui.window.width, ui.window.height) == (width, height)
    ui.view.on_resize(width, height)
    ui.pump(1)


def close(a: tuple[int, int, int], b: tuple[int, ...], slack: int = 6) -> bool:
    return all(abs(x - y) <= slack for x, y in zip(a, b[:3], strict=False))


def ringed(ui, button) -> bool:
    """Whether the focus ring is drawn on ``button`` (its left edge, read back)."""
    r = button.rect
    return close(ui.pixel(r.left + FOCUS_RING / 2, r.center_y), theme.ACCENT)


def lit(ui, button) -> bool:
    """Whether ``button`` is drawn chosen: lighter (the hover/focus fill) or ringed."""
    r = button.rect
    return ringed(ui, button) or close(ui.pixel(r.left + FOCUS_RING + 2, r.bottom + 6),
                                       theme.PANEL_HOVER)


class QuietLive:
    """A live table that never hears anything (layout only)."""

    table_id = 12

    def poll(self):
        return []

    def act(self, action):
        return False

    def leave(self):
        return False

    def say(self, phrase):
        return False

    def window(self, state):
        return False

    def close(self):
        pass


def check_buttons(buttons, width, height, code):
    for button in buttons:
        if not button.visible:
            continue
        assert button.text.content_width <= button.rect.width + 1, (code, button.label)
        assert button.text.content_height <= button.rect.height + 1, (code, button.label)
        assert button.rect.left >= 0 and button.rect.right <= width, (code, button.label)
        assert button.rect.bottom >= 0 and button.rect.top <= height, (code, button.label)


def check_text(text, width, code):
    left = text.x - (text.content_width / 2 if text.anchor_x == "center" else
                     text.content_width if text.anchor_x == "right" else 0)
    assert left >= -1 and left + text.content_width <= width + 1, (code, text.text)


__all__ = ["DEADLINE", "LANGUAGES", "SIZES", "WAIT", "QuietLive", "Server", "account",
           "check_buttons", "check_text", "choose_rules", "close", "free_port", "lit",
           "one_move_each", "open_online",
           "play_until_scored", "pump_until", "resize", "ringed", "serve", "sign_in_window",
           "start_duel", "submit_a_daily_game", "until"]


def falling_table(ui, channel):
    """A live Sudoku Bloxx table of "me" and "you", playing, fed by ``channel`` (a
    :class:`QuietLive` of the test's), shown in the window: ``(table, view)``."""
    from blockyard.frontend.online.table_view import LiveFallingView, live_view
    from blockyard.tablesession import TableSession

    table = TableSession(channel, "me", "")
    table.take({"type": "table", "id": 12, "ruleset_id": "sudoku-bloxx", "seed": 5,
                "seats": ["me", "you"], "status": "playing", "round": 1,
                "presence": ["present", "present"], "waiting_for": [0, 1]})
    view = live_view(ui.app.session(), table, lambda: None)
    assert isinstance(view, LiveFallingView)
    ui.window.show_view(view)
    return table, view
