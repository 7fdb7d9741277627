"""The hook watchdog: a hook (or an action's function) that loops or sleeps is
stopped as a PluginError naming plugin, hook and limit, the game unchanged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import blockyard
from blockyard import PluginError, hookimpl, watchdog
from blockyard.actions import ActionSpec
from blockyard.params import Params
from blockyard.watchdog import hook_timeout

RULES = """
[ruleset]
extends = "eu-classic"
id = "stalls"
name = "Stalls"
[plugins.stalls]
hook = "{hook}"
how = "{how}"
"""


def stall(how: str) -> None:
    if how == "sleep":
        time.sleep(30)  # the stalling hook under test (the watchdog ends it), not a wait
    else:
        while True:
            pass


class Stalls:
    """Loops or sleeps in one hook, from the second move on."""

    def __init__(self, params: Params) -> None:
        self.hook = params.string("hook")
        self.how = params.string("how")

    @hookimpl
    def blockyard_move_state(self, game, result):
        if self.hook == "move_state" and game.moves >= 1:
            stall(self.how)

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        if self.hook == "end_reason" and game.moves >= 2:  # asked after the move counts
            stall(self.how)

    @hookimpl
    def blockyard_game_start(self, game):
        if self.hook == "game_start":
            stall(self.how)

    @hookimpl
    def blockyard_summary_tips(self, game, summary):
        if self.hook == "summary_tips":
            stall(self.how)
        return []

    @hookimpl
    def blockyard_actions(self, ruleset):
        def perform(game):
            stall(self.how)
        return [ActionSpec("stall", "Stall", perform)] if self.hook == "perform" else []


@pytest.fixture
def stalling(rule_file, register_plugin):
    register_plugin("stalls", Stalls)

    def make(hook: str, how: str, seconds: float = 0.2):
        return blockyard.load_ruleset(rule_file(RULES.format(hook=hook, how=how)),
                                      hook_timeout=seconds)
    return make


@pytest.mark.parametrize("how", ["loop", "sleep"])
@pytest.mark.parametrize("hook", ["move_state", "end_reason"])
def test_a_stalling_hook_is_stopped_and_the_game_is_unchanged(stalling, hook, how):
    game = blockyard.new_game(stalling(hook, how), seed=1)
    game.place(*game.legal_moves()[0])
    before = game.snapshot()
    started = time.monotonic()
    with pytest.raises(PluginError, match=rf"blockyard_{hook} ran longer than 0\.2 s") as caught:
        game.place(*game.legal_moves()[0])
    assert time.monotonic() - started < 5
    assert caught.value.plugin == "stalls"
    assert game.snapshot() == before


def test_a_stalling_game_start_stops_new_game(stalling):
    with pytest.raises(PluginError, match=r"blockyard_game_start ran longer than 0\.2 s"):
        blockyard.new_game(stalling("game_start", "loop"), seed=1)


def test_a_stalling_action_is_stopped_and_the_game_is_unchanged(stalling):
    game = blockyard.new_game(stalling("perform", "loop"), seed=1)
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"action .stall.: perform ran longer than 0\.2 s"):
        game.act("stall")
    assert game.snapshot() == before


def test_a_hook_in_another_thread_is_stopped_too(stalling):
    game = blockyard.new_game(stalling("move_state", "loop"), seed=1)
    game.place(*game.legal_moves()[0])
    caught: list[BaseException] = []

    def play() -> None:
        try:
            game.place(*game.legal_moves()[0])
        except BaseException as exc:
            caught.append(exc)
    worker = threading.Thread(target=play)
    worker.start()
    worker.join(10)
    assert not worker.is_alive()
    assert len(caught) == 1 and isinstance(caught[0], PluginError)
    assert "ran longer than 0.2 s" in str(caught[0])


def test_the_default_limit_is_the_windows_headless_too_and_the_process_wide_limit(
        stalling, rule_file):
    from blockyard.frontend.plugin_fault import WINDOW_HOOK_SECONDS

    assert watchdog.DEFAULT_SECONDS == WINDOW_HOOK_SECONDS == 2.0
    ruleset = blockyard.load_ruleset("eu-classic")
    assert ruleset.hooks.timeout is None
    untimed = blockyard.load_ruleset(rule_file(RULES.format(hook="move_state", how="loop")))
    game = blockyard.new_game(untimed, seed=1)
    game.place(*game.legal_moves()[0])
    with hook_timeout(0.2), pytest.raises(PluginError, match=r"ran longer than 0\.2 s"):
        game.place(*game.legal_moves()[0])


def test_a_new_process_has_the_default_limit_and_off_switches_it_off():
    code = "import blockyard.watchdog as w; print(w.default_limit())"
    for env, shown in (({}, "2.0"), ({"BLOCKYARD_HOOK_TIMEOUT": "off"}, "None")):
        environ = {k: v for k, v in os.environ.items() if k != "BLOCKYARD_HOOK_TIMEOUT"}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**environ, **env}, timeout=120, check=True)
        assert done.stdout.split() == [shown]


class SlowActions:
    """Takes ``seconds`` to list its actions (asked once, as the ruleset loads)."""

    def __init__(self, params: Params) -> None:
        self.how = params.string("how")

    @hookimpl
    def blockyard_actions(self, ruleset):
        stall(self.how)
        return []


def test_blockyard_actions_is_timed_like_every_hook(rule_file, register_plugin):
    register_plugin("slow-actions", SlowActions)
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "slow"\nname = "Slow"\n'
                     '[plugins.slow-actions]\nhow = "sleep"\n')
    started = time.monotonic()
    with pytest.raises(PluginError, match=r"blockyard_actions ran longer than 0\.2 s") as caught:
        blockyard.load_ruleset(path, hook_timeout=0.2)
    assert time.monotonic() - started < 10  # stopped, not slept for its 30 s
    assert caught.value.plugin == "slow-actions" and caught.value.hook == "blockyard_actions"
    assert caught.value.where is not None and "test_watchdog.py:" in caught.value.where
    assert caught.value.fix is not None and "hook_timeout" in caught.value.fix


class Swallows:
    """Catches the watchdog's stop (a BaseException) and answers anyway."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_move_state(self, game, result):
        if game.moves >= 1:
            try:  # noqa: SIM105 (the mistake under test: the stop is swallowed)
                time.sleep(30)  # the stalling hook under test (the watchdog ends it)
            except BaseException:
                pass
        return {}


def test_an_answer_that_comes_back_after_its_limit_is_refused(rule_file, register_plugin):
    register_plugin("swallows", Swallows)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "swallows"\nname = "Swallows"\n'
        "[plugins.swallows]\n"), hook_timeout=0.2)
    game = blockyard.new_game(ruleset, seed=1)
    game.place(*game.legal_moves()[0])
    before = game.snapshot()
    with pytest.raises(PluginError, match="caught the watchdog's stop and answered after its "
                       r"time limit of 0\.2 s: the answer is refused") as caught:
        game.place(*game.legal_moves()[0])
    assert caught.value.plugin == "swallows" and caught.value.hook == "blockyard_move_state"
    assert caught.value.fix is not None and "never catch BaseException" in caught.value.fix
    assert game.snapshot() == before


def time_left() -> float:
    """Seconds left of the watchdog's limit now running in this thread."""
    ident = threading.get_ident()
    if ident in watchdog.WATCH.deadlines:
        return watchdog.WATCH.deadlines[ident] - time.monotonic()
    return signal.getitimer(signal.ITIMER_REAL)[0]


class TwoSlowHooks:
    """Two hooks of one move: the first takes ``seconds``, the second notes what is
    left of the limit when it is asked, then stalls until it is stopped."""

    def __init__(self, params: Params) -> None:
        self.seconds = params.number("seconds")
        self.left: list[float] = []

    @hookimpl
    def blockyard_move_state(self, game, result):
        if game.moves >= 1:
            time.sleep(self.seconds)  # the slow hook under test, not a wait

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        if game.moves >= 2:  # asked after the second move counts
            self.left.append(time_left())
            stall("sleep")


def test_the_hooks_of_one_move_together_keep_the_limit(rule_file, register_plugin):
    made: list[TwoSlowHooks] = []
    register_plugin("two-slow", lambda params: made.append(TwoSlowHooks(params)) or made[-1])
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "two-slow"\nname = "Two slow"\n'
        "[plugins.two-slow]\nseconds = 0.3\n"), hook_timeout=1.6)
    game = blockyard.new_game(ruleset, seed=1)
    game.place(*game.legal_moves()[0])
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"ran longer than 1\.6 s") as caught:
        game.place(*game.legal_moves()[0])  # 0.3 s, then the second hook until stopped
    assert caught.value.plugin == "two-slow"
    assert caught.value.hook == "blockyard_end_reason"
    assert game.snapshot() == before
    # the second hook had what the first left of the move's limit, not a limit of its
    # own (a slower machine leaves it less still)
    assert made[-1].left and made[-1].left[-1] <= 1.6 - 0.3


def test_the_environment_variable_sets_the_limit(tmp_path):
    code = ("import blockyard, blockyard.watchdog as w; print(w.default_limit()); "
            "print(blockyard.load_ruleset('eu-classic').hooks.timeout)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "BLOCKYARD_HOOK_TIMEOUT": "1.5"}, timeout=120,
                          check=True)
    assert done.stdout.split() == ["1.5", "None"]
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "BLOCKYARD_HOOK_TIMEOUT": "-1"}, timeout=120)
    assert bad.returncode != 0 and "BLOCKYARD_HOOK_TIMEOUT" in bad.stderr


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), 10**9, True, "2"])
def test_a_bad_limit_is_refused(value):
    with pytest.raises(ValueError, match="hook_timeout"):
        blockyard.load_ruleset("eu-classic", hook_timeout=value)


def test_a_timed_ruleset_plays_the_same_games():
    plain = blockyard.new_game("tiered", seed=5)
    timed = blockyard.new_game(blockyard.load_ruleset("tiered", hook_timeout=2), seed=5)
    for _ in range(20):
        if plain.over:
            break
        move = plain.legal_moves()[0]
        plain.place(*move)
        timed.place(*move)
    assert plain.snapshot()["log"] == timed.snapshot()["log"]
    assert plain.score == timed.score


class Tips:
    """Answers its tips at once (beside a plugin whose tips stall)."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_summary_tips(self, game, summary):
        return ["a tip"]


@pytest.mark.parametrize("first", ["stalls", "tips"])
def test_the_stalling_plugin_is_named_among_several(rule_file, register_plugin, first):
    # a hook several plugins answer: the one that ran too long is named, whichever
    # the facade would name for the hook as a whole
    register_plugin("stalls", Stalls)
    register_plugin("more-tips", Tips)
    tables = {"stalls": '[plugins.stalls]\nhook = "summary_tips"\nhow = "loop"\n',
              "tips": "[plugins.more-tips]\n"}
    second = "tips" if first == "stalls" else "stalls"
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "two-tips"\nname = "Two tips"\n'
        + tables[first] + tables[second]), hook_timeout=0.2)
    game = blockyard.new_game(ruleset, seed=1)
    with pytest.raises(PluginError, match=r"ran longer than 0\.2 s") as caught:
        ruleset.hooks.summary_tips(game, {"points": 0, "failed_pieces": (), "lines_cleared": 0,
                                          "best_combo": 0})
    assert caught.value.plugin == "stalls"
    assert caught.value.hook == "blockyard_summary_tips"


@pytest.mark.parametrize("plugin", ["stalls", "swallows"])
def test_check_names_a_stalling_hook_and_one_that_swallows_the_stop(rule_file, register_plugin,
                                                                     capsys, plugin):
    from blockyard.cli import main

    if plugin == "stalls":
        register_plugin("stalls", Stalls)
        path = rule_file(RULES.format(hook="move_state", how="loop"))
    else:
        register_plugin("swallows", Swallows)
        path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "swallows"\n'
                         'name = "Swallows"\n[plugins.swallows]\n')
    assert main(["check", str(path), "--games", "1"]) == 1  # under check's own 2 s limit
    fail = next(line for line in capsys.readouterr().out.splitlines() if "FAIL" in line)
    assert f"plugin '{plugin}'" in fail and "blockyard_move_state" in fail
    assert "test_watchdog.py:" in fail and "To fix:" in fail
    assert ("ran longer than 2 s" if plugin == "stalls" else
            "caught the watchdog's stop and answered after its time limit") in fail
