"""A plugin's fault during play never closes or freezes the window (issue 22,
reproducer 7): the window saves the game at the last good move, shows a screen
naming the plugin, the hook and the ruleset, and goes back to the launcher; a
hook that loops ends there too, through the hook watchdog the window always
sets. Driven by real input events."""

from __future__ import annotations

import inspect
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from plugin_support import KeepsCount
from window_process import relaunch

import blockyard
from blockyard import hookimpl, watchdog
from blockyard.actions import ActionSpec
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.persistence import load_saved_games
from blockyard.frontend.plugin_fault import WINDOW_HOOK_SECONDS, PluginFaultView, one_line
from blockyard.frontend.tray_view import TrayGameView
from blockyard.results import Scoring
from blockyard.rulehooks import (
    FIX_KEPT,
    FIX_LIST,
    FIX_RAISED,
    FIX_WRAPPER,
    FIX_WRITTEN,
    short_path,
)

MOD = """
[ruleset]
id = "fault-mod"
name = "Fault mod"
family = "test"
description = "a ruleset with a plugin that fails"
[board]
rows = 8
cols = 8
[pieces.small]
shapes = ["#", "##", "###"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.end-when-stuck]
[plugins.{plugin}]
"""

SAVED = "Your game is saved at the last good move; the launcher offers to resume it."
RAISED_FIX = one_line(FIX_RAISED)


def here(cls: type, text: str) -> str:
    """``tests/frontend/test_plugin_fault.py:LINE``: the line of ``cls``'s source
    holding ``text``, as the fault screen shows it (relative to the tests' folder)."""
    lines, first = inspect.getsourcelines(cls)
    line = first + next(i for i, source in enumerate(lines) if text in source)
    return f"{short_path(inspect.getsourcefile(cls) or '')}:{line}"


class FailAfterTwo:
    """Scores a point per move, and raises from the third move on (its preview too)."""

    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        if game.moves >= 2:
            raise ValueError("scoring broke")
        return Scoring(1, 0)


class LoopAfterOne:
    """Scores a point for the first move, then loops for ever."""

    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        while game.moves >= 1:
            pass
        return Scoring(1, 0)


class BoomAction:
    """An action (key B, no confirmation) whose perform raises."""

    def __init__(self, params):
        pass

    def perform(self, game):
        game.combo = 7  # changed, then taken back by the engine
        raise RuntimeError("boom")

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("boom", "Boom", self.perform, key="b", confirm=False)]


def place_by_keys(ui, game, count):
    for _ in range(count):
        slot = game.legal_moves()[0][0]
        before = game.moves
        ui.key(str(slot + 1), "Return")
        assert game.moves == before + 1


def fault_screen(ui):
    view = ui.view
    assert isinstance(view, PluginFaultView), type(view)
    return view, [line.text for line in view.lines]


def saved_on_disk(game):
    saves = [s for s in load_saved_games() if s.game.ruleset.id == game.ruleset.id]
    assert len(saves) == 1
    return saves[0].game


@pytest.mark.parametrize("way_back", ["Return", "Escape", "click"])
def test_a_score_hook_that_raises_after_two_moves_shows_the_fault_screen(
        ui, rule_file, register_plugin, capfd, way_back):
    register_plugin("fail-after-two", FailAfterTwo)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="fail-after-two")))
    game = blockyard.new_game(ruleset, seed=3)
    ui.app.show_game(game)
    ui.pump(3)
    place_by_keys(ui, game, 2)
    log = [list(entry) for entry in game.log]
    capfd.readouterr()
    slot = game.legal_moves()[0][0]
    ui.key(str(slot + 1))  # picking the piece up previews its move: the hook raises
    if isinstance(ui.view, TrayGameView):
        ui.key("Return")
    view, lines = fault_screen(ui)
    assert view.title.text == "A rule plugin failed"
    assert lines == ["Plugin: fail-after-two", "Hook: blockyard_score",
                     "Ruleset: Fault mod (fault-mod)",
                     f"In the plugin's code: {here(FailAfterTwo, 'raise ValueError')}",
                     "raised ValueError: scoring broke", f"To fix: {RAISED_FIX}", SAVED]
    assert [button.label for button in view.buttons] == ["Back to launcher"]
    # saved at the last good move: the game as it was before the step that failed
    assert game.moves == 2 and [list(e) for e in game.log] == log
    again = saved_on_disk(game)
    assert again.moves == 2 and [list(e) for e in again.log] == log
    err = capfd.readouterr().err
    assert err.splitlines() == [
        "blockyard: plugin 'fail-after-two', hook blockyard_score (ruleset 'fault-mod', "
        "seed 3, action place): raised ValueError: scoring broke "
        f"[at {here(FailAfterTwo, 'raise ValueError')}]. To fix: {RAISED_FIX}; the game "
        "is saved at the last good move"]
    # the screen is drawn: the button stands out from the background
    rect = view.buttons[0].rect
    from blockyard.frontend import theme

    assert ui.pixel(rect.left + 3, rect.center_y) != tuple(theme.BACKGROUND[:3])
    if way_back == "click":
        ui.click(rect.center_x, rect.center_y)
    else:
        ui.pump(40)  # Enter waits 0.6 s: the key of the failed move never dismisses it
        ui.key(way_back)
    assert isinstance(ui.view, LauncherView)
    assert not ui.window.closed
    assert ui.app.saved_game is not None and ui.app.saved_game.moves == 2


def test_enter_at_once_does_not_dismiss_the_fault_screen(ui, rule_file, register_plugin):
    register_plugin("fail-after-two", FailAfterTwo)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="fail-after-two")))
    game = blockyard.new_game(ruleset, seed=3)
    ui.app.show_game(game)
    ui.pump(3)
    place_by_keys(ui, game, 2)
    ui.key(str(game.legal_moves()[0][0] + 1))
    if isinstance(ui.view, TrayGameView):
        ui.key("Return")
    fault_screen(ui)
    ui.key("Return")  # the player still pressing keys for the move
    fault_screen(ui)


def test_a_looping_score_hook_ends_on_the_fault_screen(ui, rule_file, register_plugin):
    register_plugin("loop-after-one", LoopAfterOne)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="loop-after-one")),
                                     hook_timeout=0.3)
    game = blockyard.new_game(ruleset, seed=5)
    ui.app.show_game(game)
    ui.pump(3)
    place_by_keys(ui, game, 1)
    slot = game.legal_moves()[0][0]
    ui.key(str(slot + 1))
    if isinstance(ui.view, TrayGameView):
        ui.key("Return")
    _view, lines = fault_screen(ui)
    assert lines[:3] == ["Plugin: loop-after-one", "Hook: blockyard_score",
                         "Ruleset: Fault mod (fault-mod)"]
    assert lines[3] == f"In the plugin's code: {here(LoopAfterOne, 'while game.moves')}"
    assert "ran longer than 0.3 s" in lines[4]
    assert lines[5].startswith("To fix: make blockyard_score answer within 0.3 s")
    assert lines[6] == SAVED
    assert saved_on_disk(game).moves == 1
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)


def test_an_action_whose_perform_raises_shows_the_fault_screen(ui, rule_file,
                                                               register_plugin):
    register_plugin("boom-action", BoomAction)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="boom-action")))
    game = blockyard.new_game(ruleset, seed=2)
    ui.app.show_game(game)
    ui.pump(3)
    place_by_keys(ui, game, 1)
    before = game.snapshot()
    ui.key("b")
    _view, lines = fault_screen(ui)
    assert lines == ["Plugin: boom-action", "Hook: blockyard_actions",
                     "Ruleset: Fault mod (fault-mod)",
                     f"In the plugin's code: {here(BoomAction, 'raise RuntimeError')}",
                     "action 'boom': perform raised RuntimeError: boom",
                     f"To fix: {RAISED_FIX}", SAVED]
    assert game.snapshot() == before
    assert saved_on_disk(game).snapshot() == before


class ForgetsReturn:
    """A scoring wrapper that forgets ``return scoring`` (the commonest slip)."""

    def __init__(self, params):
        pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        scoring.points *= 2


def test_a_wrapper_that_forgets_to_return_shows_the_fault_screen_with_file_and_line(
        ui, rule_file, register_plugin):
    register_plugin("forgets-return", ForgetsReturn)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="forgets-return")))
    game = blockyard.new_game(ruleset, seed=3)
    ui.app.show_game(game)
    ui.pump(3)
    before = game.snapshot()
    slot = game.legal_moves()[0][0]
    ui.key(str(slot + 1))  # the first key: its preview asks the wrapper
    if isinstance(ui.view, TrayGameView):
        ui.key("Return")
    _view, lines = fault_screen(ui)
    assert lines[:4] == ["Plugin: forgets-return", "Hook: blockyard_score",
                         "Ruleset: Fault mod (fault-mod)",
                         f"In the plugin's code: {here(ForgetsReturn, '@hookimpl')}"]
    assert lines[4].startswith("returned None (no answer); expected Scoring")
    assert lines[5] == f"To fix: {one_line(FIX_WRAPPER)}"
    assert game.snapshot() == before


class WritesHugeScore:
    """An action (key W, no confirmation) whose perform writes a score no game can
    reach (issue 36: figures an action writes are bounded like hook answers)."""

    def __init__(self, params):
        pass

    def perform(self, game):
        game.score = 10**100

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("bang", "Bang", self.perform, key="w", confirm=False)]


def test_an_action_that_writes_a_figure_out_of_bounds_shows_the_fault_screen(
        ui, rule_file, register_plugin):
    register_plugin("writes-huge", WritesHugeScore)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="writes-huge")))
    game = blockyard.new_game(ruleset, seed=2)
    ui.app.show_game(game)
    ui.pump(3)
    place_by_keys(ui, game, 1)
    before = game.snapshot()
    ui.key("w")
    _view, lines = fault_screen(ui)
    assert lines[:4] == ["Plugin: writes-huge", "Hook: blockyard_actions",
                         "Ruleset: Fault mod (fault-mod)",
                         f"In the plugin's code: {here(WritesHugeScore, 'def perform')}"]
    assert lines[4].startswith("action 'bang': perform wrote"), lines[4]
    assert lines[5] == f"To fix: {one_line(FIX_WRITTEN)}" and lines[6] == SAVED
    assert game.snapshot() == before
    assert saved_on_disk(game).snapshot() == before


class BareReasonAfterOne:
    """A wrapper of the list hook ``blockyard_end_reason`` that, from the first move
    on, returns one reason instead of the list of every plugin's answers."""

    def __init__(self, params):
        pass

    @hookimpl(wrapper=True)
    def blockyard_end_reason(self, game, stuck):
        reasons = yield
        return "gone" if game.moves >= 1 else reasons


def test_a_list_hook_wrapper_returning_one_answer_shows_the_fault_screen(
        ui, rule_file, register_plugin):
    register_plugin("bare-reason", BareReasonAfterOne)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="bare-reason")))
    game = blockyard.new_game(ruleset, seed=2)
    ui.app.show_game(game)
    ui.pump(3)
    before = game.snapshot()
    slot = game.legal_moves()[0][0]
    ui.key(str(slot + 1), "Return")  # the move asks the end rule: the wrapper answers "gone"
    _view, lines = fault_screen(ui)
    assert lines[:4] == ["Plugin: bare-reason", "Hook: blockyard_end_reason",
                         "Ruleset: Fault mod (fault-mod)",
                         f"In the plugin's code: {here(BareReasonAfterOne, '@hookimpl')}"]
    assert "where the list of every plugin's answers" in lines[4], lines[4]
    assert lines[5] == f"To fix: {one_line(FIX_LIST)}" and lines[6] == SAVED
    assert game.snapshot() == before


def test_the_fault_screen_speaks_the_players_language(ui, rule_file, register_plugin):
    register_plugin("fail-after-two", FailAfterTwo)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="fail-after-two")))
    ui.app.set_language("de")
    try:
        game = blockyard.new_game(ruleset, seed=3)
        ui.app.show_game(game)
        ui.pump(3)
        place_by_keys(ui, game, 2)
        ui.key(str(game.legal_moves()[0][0] + 1))
        if isinstance(ui.view, TrayGameView):
            ui.key("Return")
        view, lines = fault_screen(ui)
        assert view.title.text == "Ein Regel-Plugin ist fehlgeschlagen"
        assert lines[2] == "Regelwerk: Fault mod (fault-mod)"
        assert lines[3].startswith("Im Code des Plugins: ")
        assert lines[5].startswith("Zur Behebung: ")
        assert lines[6] == ("Dein Spiel ist beim letzten gültigen Zug gespeichert; in der "
                            "Auswahl kannst du es fortsetzen.")
        assert view.buttons[0].label == "Zurück zur Auswahl"
    finally:
        ui.app.set_language("en")


LOOPING_OFFER = """
    from blockyard import hookimpl
    from blockyard.actions import ActionSpec

    def linger_offered(game):
        while True:  # asked once the game is over: by the window, for its prompt
            pass

    class LoopOffer:
        def __init__(self, params):
            pass

        @hookimpl
        def blockyard_actions(self, ruleset):
            return [ActionSpec("linger", "Linger", lambda game: None, after_end=True,
                               available=linger_offered)]

    @hookimpl
    def blockyard_register_plugins(register):
        register("loop-offer", LoopOffer)
    """

QUICK_TIMED = """
[ruleset]
extends = "eu-timed"
id = "quick-timed"
name = "Quick timed"
[help]
text = ""
[plugins.clock]
seconds = 0.3
[plugins.loop-offer]
"""


def play_with_package(tmp_path, module, code, *args):
    """Run ``python -m blockyard *args`` with a plugin package ``module`` (its source
    ``code``) installed, in a home of its own, with no hook limit set outside."""
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{module}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 1.0\n",
                                   encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[blockyard]\n{module} = {module}\n",
                                           encoding="utf-8")
    env = {**os.environ, "BLOCKYARD_HOME": str(tmp_path / "home"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(site),
                                                       os.environ.get("PYTHONPATH")]))}
    for name in ("BLOCKYARD_HOOK_TIMEOUT", "BLOCKYARD_DISABLE_PLUGINS",
                 "BLOCKYARD_LOAD_PLUGINS"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "blockyard", *args], capture_output=True,
                          text=True, env=env, timeout=300)


def test_the_window_always_sets_a_hook_watchdog_and_quit_after_still_closes(tmp_path):
    """``blockyard play``: the clock runs out, and the window asks what may be done
    after the end: a plugin's ``available`` loops. The window's 2 s watchdog stops
    it, the fault screen shows, and --quit-after closes the window."""
    rules = tmp_path / "quick.toml"
    rules.write_text(QUICK_TIMED, encoding="utf-8")
    shot = tmp_path / "fault.png"
    done = play_with_package(tmp_path, "loopoffer", LOOPING_OFFER, "--quit-after", "6",
                             "--screenshot", str(shot), "play", str(rules))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(
        r"blockyard: plugin 'loop-offer', hook blockyard_actions \(ruleset 'quick-timed', "
        r"seed \d+, action linger\): action 'linger': available ran longer than 2 s "
        r"\(.*\) \[at .*loopoffer\.py:\d+\]\. To fix: make action 'linger': available "
        r"answer within 2 s, .*; the game is saved at the last good move", lines[0]), lines[0]
    saves = list((tmp_path / "home").rglob("saves/quick-timed.json"))
    assert len(saves) == 1  # the game over by time, as the engine left it
    assert json.loads(saves[0].read_text())["snapshot"]["over_reason"] == "time"
    assert shot.is_file()


def test_the_window_keeps_a_limit_set_before_it(monkeypatch):
    from blockyard.frontend.plugin_fault import use_window_watchdog

    monkeypatch.setattr(watchdog.WATCH, "limit", None)
    assert use_window_watchdog() == WINDOW_HOOK_SECONDS == 2.0
    assert watchdog.default_limit() == 2.0
    monkeypatch.setattr(watchdog.WATCH, "limit", 5.0)  # BLOCKYARD_HOOK_TIMEOUT=5
    assert use_window_watchdog() == 5.0
    assert watchdog.default_limit() == 5.0


FAILING_START = """
    from blockyard import hookimpl

    class BadStart:
        def __init__(self, params):
            pass

        @hookimpl
        def blockyard_game_start(self, game):
            raise KeyError("no such state")

    @hookimpl
    def blockyard_register_plugins(register):
        register("bad-start", BadStart)
    """

BAD_START_RULES = """
[ruleset]
extends = "eu-classic"
id = "bad-start"
name = "Bad start"
[help]
text = ""
[plugins.bad-start]
"""


def test_blockyard_play_a_game_whose_start_fails_shows_the_fault_screen(tmp_path):
    """The window opens on the fault screen (no game was begun, so none is saved)
    instead of closing at once; --quit-after closes it."""
    rules = tmp_path / "bad.toml"
    rules.write_text(BAD_START_RULES, encoding="utf-8")
    done = play_with_package(tmp_path, "badstart", FAILING_START, "--quit-after", "1",
                             "play", str(rules))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert re.fullmatch(r"blockyard: plugin 'bad-start', hook blockyard_game_start "
                        r"\(ruleset 'bad-start', seed \d+, action start\): raised KeyError: "
                        r"'no such state' \[at .*badstart\.py:\d+\]\. To fix: .*", lines[0]), \
        lines[0]
    assert not list((tmp_path / "home").rglob("saves/*.json"))


class FailingStart:
    """Its ``game_start`` raises."""

    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_game_start(self, game):
        raise KeyError("no such state")


def fault_after_watched_edit(ui, rule_file, plugin: str):
    """A game of a watched rule file with one move played, then the file edited to
    add ``plugin``: the game and the fault screen's lines."""
    import arcade

    rules = rule_file(MOD.format(plugin="line-scoring") + "triangular_base = 10\n",
                      "watched.toml")
    game = ui.app.start_game(str(rules), seed=4)
    ui.pump(2)
    place_by_keys(ui, game, 1)
    check = ui.app.watch_rule_file(str(rules))
    try:
        rules.write_text(rules.read_text() + f"[plugins.{plugin}]\n")
        check(0.5)  # the new rules replay the game, then start one: both fail
        ui.pump(2)
        _view, lines = fault_screen(ui)
    finally:
        arcade.unschedule(check)
    return game, lines


def test_watch_an_edit_whose_plugin_fails_at_the_start_shows_the_fault_screen(
        ui, rule_file, register_plugin):
    register_plugin("failing-start", FailingStart)
    game, lines = fault_after_watched_edit(ui, rule_file, "failing-start")
    assert lines == ["Plugin: failing-start", "Hook: blockyard_game_start",
                     "Ruleset: Fault mod (fault-mod)",
                     f"In the plugin's code: {here(FailingStart, 'raise KeyError')}",
                     "raised KeyError: 'no such state'", f"To fix: {RAISED_FIX}", SAVED]
    assert saved_on_disk(game).moves == 1  # the game of the rules before the edit


class WritesNegativeMoves:
    """Its ``game_start`` writes a move count below zero (issue 36: figures
    game_start writes are bounded like hook answers)."""

    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_game_start(self, game):
        game.moves = -5


def test_a_game_start_that_writes_a_figure_out_of_bounds_shows_the_fault_screen(
        ui, rule_file, register_plugin):
    register_plugin("negative-moves", WritesNegativeMoves)
    game, lines = fault_after_watched_edit(ui, rule_file, "negative-moves")
    assert lines[:4] == ["Plugin: negative-moves", "Hook: blockyard_game_start",
                         "Ruleset: Fault mod (fault-mod)",
                         "In the plugin's code: "
                         f"{here(WritesNegativeMoves, '@hookimpl')}"]
    assert "wrote" in lines[4] and "moves" in lines[4], lines[4]
    assert lines[5] == f"To fix: {one_line(FIX_WRITTEN)}" and lines[6] == SAVED
    assert saved_on_disk(game).moves == 1  # the game of the rules before the edit


class FailingTips:
    """Its summary tips raise: the summary shows without a tip."""

    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_summary_tips(self, game, summary):
        raise ValueError("no tips today")


def test_tips_that_fail_leave_the_summary_and_one_line_on_stderr(ui, rule_file,
                                                                 register_plugin, capfd):
    from blockyard.frontend.summary_view import SummaryView

    register_plugin("failing-tips", FailingTips)
    ruleset = blockyard.load_ruleset(rule_file(MOD.format(plugin="failing-tips")))
    game = blockyard.new_game(ruleset, seed=3)
    ui.app.show_game(game)
    ui.pump(2)
    place_by_keys(ui, game, 1)
    capfd.readouterr()
    game.end_round()
    ui.app.finish_game(game)
    assert isinstance(ui.view, SummaryView)
    assert capfd.readouterr().err.splitlines() == [
        "blockyard: plugin 'failing-tips', hook blockyard_summary_tips (ruleset 'fault-mod', "
        "seed 3, action summary): raised ValueError: no tips today "
        f"[at {here(FailingTips, 'raise ValueError')}]. To fix: {RAISED_FIX}"]


class RefusingLandings:
    """Wraps the landing check of falling games and raises once a stone lands."""

    def __init__(self, params):
        pass

    @hookimpl(wrapper=True)
    def blockyard_accept_stone(self, game, stone, row, col):
        yield
        raise ValueError("landing refused")


def test_a_plugin_fault_in_a_tick_of_a_falling_game_shows_the_fault_screen(
        ui, rule_file, register_plugin, monkeypatch):
    # as under arcade.run (pyglet's event loop): the window's events are dispatched
    # at once, through the window's dispatch_event, not queued for the next poll
    monkeypatch.setattr(ui.window, "_enable_event_queue", False)
    register_plugin("refusing-landings", RefusingLandings)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "sudoku-bloxx"\nid = "bad-landing"\nname = "Bad landing"\n'
        '[help]\ntext = ""\n[plugins.refusing-landings]\n'))
    game = blockyard.new_game(ruleset, seed=1)
    ui.app.show_game(game)
    ui.pump(2)
    before = game.snapshot()
    for _ in range(400):  # the stone falls with the window's updates, and lands
        ui.window.dispatch_event("on_update", 0.25)
        if isinstance(ui.view, PluginFaultView):
            break
    _view, lines = fault_screen(ui)
    assert lines[:3] == ["Plugin: refusing-landings", "Hook: blockyard_accept_stone",
                         "Ruleset: Bad landing (bad-landing)"]
    assert lines[3:] == [f"In the plugin's code: {here(RefusingLandings, 'raise ValueError')}",
                         "raised ValueError: landing refused", f"To fix: {RAISED_FIX}", SAVED]
    assert game.moves == 0 and game.over_reason is None and game.log[0] == before["log"][0]
    assert saved_on_disk(game).snapshot() == game.snapshot()  # the ticks before the landing
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)


# -- a plugin keeping state across games on its object (issue 36) --------------------------

class CountsGames:
    """Counts on its object the games it started, and scores every move of a
    later game a point more: a second game of the same rules is not what its moves
    give (a replay, a restore in another process start with a new object)."""

    def __init__(self, params):
        self.games = 0

    @hookimpl
    def blockyard_game_start(self, game):
        self.games += 1

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        scoring.points += self.games - 1
        return scoring


KEPT_FIX = one_line(FIX_KEPT)
KEPT_SAVE = "Your saved game is kept: the launcher offers to resume it, replayed from its moves."
LOST_SAVE = "Your saved game is kept as it was; it cannot be resumed while this plugin fails."


def test_a_second_game_of_a_plugin_counting_games_on_its_object_shows_the_fault_screen(
        ui, rule_file, register_plugin, capfd, monkeypatch):
    import blockyard.game

    replays = []
    drift = blockyard.game.drift
    monkeypatch.setattr(blockyard.game, "drift", lambda game: replays.append(game) or drift(game))
    register_plugin("counts-games", CountsGames)
    rules = rule_file(MOD.format(plugin="counts-games"))
    first = ui.app.start_game(str(rules), seed=3)
    ui.pump(2)
    place_by_keys(ui, first, 3)  # the first game is what its moves give: played on
    assert isinstance(ui.view, TrayGameView) and ui.view.game is first
    # its log replayed once (the plugin's object had changed since the rules loaded),
    # then not again while the object holds the same
    assert replays == [first]
    ui.key("Escape", "Down", "Return", "Up", "Return")  # pause → restart, confirmed
    second = ui.view.game
    assert second is not first and first.over_reason == "ended"
    capfd.readouterr()
    slot = second.legal_moves()[0][0]
    ui.key(str(slot + 1), "Return")  # its first move scores a point more than its log gives
    view, lines = fault_screen(ui)
    assert lines == ["Plugin: counts-games", "Hook: blockyard_game_start",
                     "Ruleset: Fault mod (fault-mod)",
                     f"In the plugin's code: {here(CountsGames, 'self.games += 1')}",
                     "keeps state across games: since the ruleset loaded, self.games 0 → 2 "
                     "changed, so the same seed and moves no longer give the same game",
                     f"To fix: {KEPT_FIX}", SAVED]
    err = capfd.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("blockyard: plugin 'counts-games', hook "
                                               "blockyard_game_start (ruleset 'fault-mod'")
    assert f"[at {here(CountsGames, 'self.games += 1')}]" in err[0]
    # saved is the game its moves give (the log is the truth), not the one on screen
    by_log = saved_on_disk(second)
    assert [list(e) for e in by_log.log] == [list(e) for e in second.log]
    assert by_log.moves == 1 and by_log.score == second.score - 1
    assert ui.app.saves[by_log.ruleset.id].game.snapshot() == by_log.snapshot()
    rect = view.buttons[0].rect
    from blockyard.frontend import theme

    assert ui.pixel(rect.left + 3, rect.center_y) != tuple(theme.BACKGROUND[:3])
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView) and not ui.window.closed


def drifted_save(rules, moves: int):
    """The save the window wrote before it compared a game with its log: the second
    game of the same loaded rules, played ``moves`` moves, as a file of the
    player's saves (its log gives another game on the rules loaded anew)."""
    from blockyard.discovery import clear_caches
    from blockyard.frontend.persistence import SavedGame, save_game, saves_dir

    ruleset = blockyard.load_ruleset(rules)
    for _ in range(2):
        game = blockyard.new_game(ruleset, seed=6)
        for _ in range(moves):
            game.place(*game.legal_moves()[0])
    save_game(SavedGame(game.ruleset.id, game, hints=1, played=12.5))
    clear_caches()  # the window opens in a new process: nothing loaded yet
    path = saves_dir() / f"{game.ruleset.id}.json"
    return game, path, path.read_bytes()


def test_a_saved_game_a_plugin_keeping_state_cannot_restore_is_kept_and_named(
        ui, window, rule_file, register_plugin, capfd):
    register_plugin("keeps-count", KeepsCount)
    game, path, before = drifted_save(rule_file(MOD.format(plugin="keeps-count")), 5)
    capfd.readouterr()
    relaunch(ui, window)
    view, lines = fault_screen(ui)  # first, before the launcher: not a file set aside
    assert lines == ["Plugin: keeps-count", "Hook: blockyard_score",
                     "Ruleset: Fault mod (fault-mod)",
                     f"In the plugin's code: {here(KeepsCount, 'self.scored += 1')}",
                     "keeps state across games: since the ruleset loaded, self.scored 0 → 5 "
                     "changed, so the same seed and moves no longer give the same game",
                     f"To fix: {KEPT_FIX}", KEPT_SAVE]
    assert capfd.readouterr().err.splitlines() == [
        f"blockyard: {one_line(str(view.error), 1000)}; the saved game fault-mod.json is "
        "kept as it was"]
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) \
        == ["fault-mod.json"]
    rect = view.buttons[0].rect
    ui.click(rect.center_x, rect.center_y)
    launcher = ui.view
    assert isinstance(launcher, LauncherView) and ui.app.notices == []
    entry = launcher.entries[0]
    assert entry.resume is not None and entry.title == "Resume: Fault mod"
    ui.key("Return")  # resumed: every move kept, as its log gives them
    resumed = ui.view
    assert isinstance(resumed, TrayGameView)
    assert [list(e) for e in resumed.game.log] == [list(e) for e in game.log]
    assert resumed.game.moves == 5 and resumed.game.score != game.score
    kept = ui.app.saves["fault-mod"]  # with what the save held besides the game
    assert kept.hints == 1 and kept.played >= 12.5


class FailsWhenTold:
    """Its ``game_start`` raises while ``FAILING`` is set (a plugin broken since
    the game was saved)."""

    FAILING = False

    def __init__(self, params):
        pass

    @hookimpl
    def blockyard_game_start(self, game):
        if FailsWhenTold.FAILING:
            raise KeyError("no such state")


def test_a_saved_game_whose_plugin_now_fails_is_kept_not_set_aside(
        ui, window, rule_file, register_plugin, monkeypatch):
    from blockyard.discovery import clear_caches
    from blockyard.frontend.persistence import save_game, saves_dir
    register_plugin("fails-when-told", FailsWhenTold)
    game = blockyard.new_game(blockyard.load_ruleset(
        rule_file(MOD.format(plugin="fails-when-told"))), seed=2)
    game.place(*game.legal_moves()[0])
    save_game(game)
    path = saves_dir() / "fault-mod.json"
    before = path.read_bytes()
    monkeypatch.setattr(FailsWhenTold, "FAILING", True)
    clear_caches()
    relaunch(ui, window)
    _view, lines = fault_screen(ui)
    assert lines == ["Plugin: fails-when-told", "Hook: blockyard_game_start",
                     "Ruleset: fault-mod",
                     f"In the plugin's code: {here(FailsWhenTold, 'raise KeyError')}",
                     "raised KeyError: 'no such state'", f"To fix: {RAISED_FIX}", LOST_SAVE]
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)
    assert not any(e.resume for e in ui.view.entries) and ui.app.notices == []
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) \
        == ["fault-mod.json"]
    monkeypatch.setattr(FailsWhenTold, "FAILING", False)  # the plugin fixed: it resumes
    clear_caches()
    relaunch(ui, window)
    entry = ui.view.entries[0]
    assert entry.resume is not None and entry.resume.game.snapshot() == game.snapshot()
