"""Purity: a hook answers, it does not change the game (issue 22, reproducer 4).

Every hook other than ``blockyard_game_start``, and every function of an action
spec other than ``perform``, is asked with the game compared before and after:
a hook that changed it (``game.score += 777``, ``game.state[...]``, the board,
the tray, the log, ...) is a ``PluginError`` naming the plugin and the hook,
and the game is exactly as before the call. ``preview()``, ``evaluate()`` and
``summary()`` never change the snapshot, whatever a plugin does."""

from __future__ import annotations

import inspect
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from plugin_support import KeepsCount

import blockyard
from blockyard import PluginError, hookimpl
from blockyard.actions import ActionSpec
from blockyard.params import Params
from blockyard.results import Scoring
from blockyard.rulehooks import purity_check

CORNER = "#" + "." * 9 + "\n" + "\n".join(["." * 10] * 9)
"""An eu-classic board with one filled cell, so that emptying cells changes it."""


def mutate(game: Any, what: str) -> None:
    """Change the game the way a careless or cheating plugin would."""
    if what == "score":
        game.score += 777
    elif what == "state":
        game.state["mutator"] = {"n": 99}
    elif what == "state-inner":
        game.state["mutator"]["n"] += 1
    elif what == "state-rebound":
        game.state = {}
    elif what == "board":
        game.empty_cells(game.grid.bits)
    elif what == "tray":
        game.set_slot(0, None)
    elif what == "log":
        game.log.append(["tick", 5])
    elif what == "log-cleared":
        game.log.clear()
    elif what == "over":
        game.end_game("cheat")
    elif what == "moves":
        game.moves = 10**6
    elif what == "streak":
        game.streak = 99
    elif what == "deleted":
        del game.score
    elif what == "queue":
        game.queue.append(game.queue[0])
    else:
        raise AssertionError(what)


class Mutator:
    """Changes the game (``what``) in one hook (``hook``), once the game has
    started. Its single-answer hooks are wrappers, so that it can join any
    ruleset; the change comes before the ``yield``."""

    def __init__(self, params: Params) -> None:
        self.hook = params.string("hook")
        self.what = params.string("what")

    def _maybe(self, game: Any, hook: str) -> None:
        if self.hook == hook:
            mutate(game, self.what)

    @hookimpl
    def blockyard_game_start(self, game):
        game.state["mutator"] = {"n": 0}  # game_start may change the game

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        self._maybe(game, "score")
        return (yield)

    @hookimpl(wrapper=True)
    def blockyard_clear(self, game, board):
        self._maybe(game, "clear")
        return (yield)

    @hookimpl(wrapper=True)
    def blockyard_deal(self, game, index):
        if index >= 1:
            self._maybe(game, "deal")
        return (yield)

    @hookimpl(wrapper=True)
    def blockyard_accept_stone(self, game, stone, row, col):
        self._maybe(game, "accept_stone")
        return (yield)

    @hookimpl
    def blockyard_move_state(self, game, result):
        self._maybe(game, "move_state")

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        if game.moves >= 1:
            self._maybe(game, "end_reason")

    @hookimpl
    def blockyard_allowed_anchors(self, game, piece):
        if game.moves >= 1:
            self._maybe(game, "allowed_anchors")

    @hookimpl
    def blockyard_summary_tips(self, game, summary):
        self._maybe(game, "summary_tips")
        return []

    @hookimpl
    def blockyard_invariants(self, game):
        self._maybe(game, "invariants")
        return []

    @hookimpl
    def blockyard_actions(self, ruleset):
        def ask(what: str) -> Callable[[Any], Any]:
            def answer(game: Any) -> Any:
                self._maybe(game, what)
                return 1 if what == "uses_left" else True
            return answer

        def perform(game):
            game.score += 5  # perform may change the game
        return [ActionSpec("bonus", "Bonus", perform, available=ask("available"),
                           rescue=ask("rescue"), uses_left=ask("uses_left"))]


RULES = """
[ruleset]
extends = "{base}"
id = "mutated"
name = "Mutated"
[plugins.mutator]
hook = "{hook}"
what = "{what}"
"""


@pytest.fixture
def mutated(rule_file, register_plugin):
    register_plugin("mutator", Mutator)

    def load(hook: str, what: str, base: str = "eu-classic") -> blockyard.Ruleset:
        return blockyard.load_ruleset(rule_file(RULES.format(base=base, hook=hook, what=what)))
    return load


def first_fault(game: Any, action: Callable[[Any], Any], tries: int = 12) -> PluginError:
    """Take ``action`` until a PluginError: the game must then be as before."""
    for _ in range(tries):
        before = game.snapshot()
        try:
            action(game)
        except PluginError as exc:
            assert game.snapshot() == before
            return exc
    raise AssertionError(f"no PluginError in {tries} actions")


def place_first(game: Any) -> None:
    game.place(*game.legal_moves()[0])


def take_actions(game: Any) -> None:
    game.actions()
    game.place(*game.legal_moves()[0])


TRAY_ACTION: dict[str, Callable[[Any], Any]] = {
    "score": place_first, "clear": place_first, "deal": place_first,
    "move_state": place_first, "end_reason": place_first, "allowed_anchors": place_first,
    "invariants": lambda game: game.ruleset.hooks.invariants(game),
    "available": take_actions, "rescue": take_actions, "uses_left": take_actions,
}

CHANGE = {
    "score": r"score \d+ → \d+", "state": r"state\['mutator'\]",
    "state-inner": r"state\['mutator'\]", "state-rebound": "state", "board": "the board",
    "tray": "the tray", "log": r"the log \(\d+ → \d+ entries\)",
    "log-cleared": r"the log \(\d+ → 0 entries\)", "over": "over_reason None → 'cheat'",
    "moves": r"moves \d+ → 1000000", "deleted": "deleted score", "streak": r"streak \d+ → 99",
    "queue": "the stone queue",
}


def check_error(exc: PluginError, hook: str, what: str) -> None:
    assert exc.plugin == "mutator"
    assert exc.hook == ("blockyard_actions" if hook in ("available", "rescue", "uses_left")
                        else f"blockyard_{hook}")
    assert re.search("changed the game: " + CHANGE[what], str(exc)), str(exc)


@pytest.mark.parametrize("hook", sorted(TRAY_ACTION))
@pytest.mark.parametrize("what", ["score", "state", "state-inner"])
def test_a_tray_hook_that_changes_the_game_is_refused_and_undone(mutated, hook, what):
    game = blockyard.new_game(mutated(hook, what), seed=1, board=CORNER)
    exc = first_fault(game, TRAY_ACTION[hook])
    check_error(exc, hook, what)
    if hook in ("available", "rescue", "uses_left"):
        assert f"action 'bonus': {hook} changed the game" in str(exc)
    # the game goes on as if nothing had been asked
    assert blockyard.restore(game.snapshot()).snapshot() == game.snapshot()


CHANGES = ["score", "state", "state-inner", "state-rebound", "board", "tray", "log",
           "log-cleared", "over", "moves", "deleted", "streak"]


@pytest.mark.parametrize(("hook", "what"), [
    (hook, what) for hook in ("score", "clear", "end_reason", "deal") for what in CHANGES
    if (hook, what) != ("deal", "tray")])  # a deal comes when the tray is empty anyway
def test_every_kind_of_change_is_named_and_undone(mutated, hook, what):
    game = blockyard.new_game(mutated(hook, what), seed=1, board=CORNER)
    exc = first_fault(game, place_first)
    check_error(exc, hook, what)
    assert exc.seed == 1


@pytest.mark.parametrize(("hook", "what"), [
    ("accept_stone", "score"), ("accept_stone", "state-inner"), ("accept_stone", "log"),
    ("accept_stone", "queue"), ("clear", "score"), ("score", "state"), ("end_reason", "over"),
    ("deal", "queue")])
def test_a_falling_hook_that_changes_the_game_is_refused_and_undone(mutated, hook, what):
    game = blockyard.new_game(mutated(hook, what, "sudoku-bloxx"), seed=2)
    exc = first_fault(game, lambda g: g.hard_drop(), tries=40)
    check_error(exc, hook, what)


def test_discard_points_changes_nothing(mutated):
    game = blockyard.new_game(mutated("score", "score", "sudoku-bloxx"), seed=2)
    before = game.snapshot()
    with pytest.raises(PluginError, match="changed the game: score 0 → 777"):
        game.discard_points()
    assert game.snapshot() == before


@pytest.mark.parametrize("what", ["score", "state", "state-inner", "board", "tray", "log",
                                  "over"])
@pytest.mark.parametrize("hook", ["score", "clear"])
def test_preview_and_evaluate_never_change_the_snapshot(mutated, hook, what):
    game = blockyard.new_game(mutated(hook, what), seed=1, board=CORNER)
    moves = game.legal_moves()
    before = game.snapshot()
    with pytest.raises(PluginError, match="changed the game") as caught:
        game.preview(*moves[0])
    assert game.snapshot() == before
    assert caught.value.plugin == "mutator"
    with pytest.raises(PluginError, match="changed the game") as caught:
        game.evaluate(moves[:50])
    assert game.snapshot() == before
    assert caught.value.hook == f"blockyard_{hook}"
    with pytest.raises(PluginError, match="changed the game"):
        game.evaluate(iter(moves[:5]))  # an iterator is asked again to name the hook
    assert game.snapshot() == before


@pytest.mark.parametrize("what", ["score", "state", "board", "log-cleared", "over"])
def test_summary_never_changes_the_snapshot(mutated, what):
    game = blockyard.new_game(mutated("summary_tips", what), seed=1, board=CORNER)
    game.place(*game.legal_moves()[0])
    before = game.snapshot()
    with pytest.warns(UserWarning, match="plugin 'mutator', hook blockyard_summary_tips.*"
                                         "changed the game"):
        summary = game.summary()
    assert game.snapshot() == before
    assert summary.points == game.score and summary.tip is None


class Cheat:
    """A plain (not wrapping) scoring plugin that cheats on every move."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        game.score += 777
        return Scoring(move.cells, 0)


CHEAT_RULES = """
[ruleset]
id = "cheat"
name = "Cheat"
family = "test"
description = "Scores through a plugin that changes the game."
[board]
rows = 8
cols = 8
[pieces.dot]
shapes = ["#"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.cheat]
"""


def test_a_plain_hook_is_checked_on_the_direct_path_too(rule_file, register_plugin):
    register_plugin("cheat", Cheat)
    game = blockyard.new_game(blockyard.load_ruleset(rule_file(CHEAT_RULES)), seed=4)
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"plugin 'cheat', hook blockyard_score .*changed "
                                          r"the game: score 0 → 777") as caught:
        game.place(0, 0, 0)
    assert game.snapshot() == before
    assert caught.value.action == "place"
    for move in game.legal_moves()[:3]:  # every way of asking is refused the same way
        with pytest.raises(PluginError, match="changed the game"):
            game.preview(*move)
        with pytest.raises(PluginError, match="changed the game"):
            game.evaluate([move])
    assert game.snapshot() == before


class Swallows:
    """Changes the game, then hides what it did behind ``except Exception``."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        try:
            game.score += 1
            game.log.pop()
            raise ValueError("covering my tracks")
        except Exception:
            return None


def test_a_change_is_found_whatever_the_plugin_catches(rule_file, register_plugin):
    register_plugin("swallows", Swallows)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "swallows"\nname = "S"\n'
        "[plugins.swallows]\n"))
    with pytest.raises(PluginError, match=r"changed the game: score 0 → 1, the log \(1 → 0"):
        blockyard.new_game(ruleset, seed=3)


class Reader:
    """Asks the game questions in every hook (fills the engine's caches)."""

    def __init__(self, params: Params) -> None:
        self.asked = 0

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        self.asked += 1
        game.legal_moves()  # fills the fit-mask cache: not a change
        game.preview(*game.legal_moves()[0]) if game.legal_moves() else None
        game.clone().place(*game.legal_moves()[0]) if game.legal_moves() else None
        game.snapshot()
        game.summary()
        return None


def test_asking_the_game_questions_in_a_hook_is_no_change(rule_file, register_plugin):
    register_plugin("reader", Reader)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "reader"\nname = "R"\n[plugins.reader]\n'))
    plain = blockyard.new_game("eu-classic", seed=5)
    game = blockyard.new_game(ruleset, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(15):
            if game.over:
                break
            move = game.legal_moves()[0]
            game.place(*move)
            plain.place(*move)
    assert game.snapshot()["log"][1:] == plain.snapshot()["log"][1:]
    assert (game.score, game.board_text()) == (plain.score, plain.board_text())
    assert dict(ruleset.plugin_objects)["reader"].asked > 10


def test_game_start_and_perform_may_change_the_game(mutated):
    game = blockyard.new_game(mutated("none", "score"), seed=1)
    assert game.state["mutator"] == {"n": 0}  # set by game_start
    game.act("bonus")
    assert game.score == 5 and game.log[-1] == ["bonus"]


def test_the_check_can_be_turned_off_to_measure_its_cost(mutated):
    game = blockyard.new_game(mutated("score", "score"), seed=1)
    with purity_check(False):
        game.preview(*game.legal_moves()[0])
    assert game.score == 777  # unchecked: the change stays
    with pytest.raises(PluginError, match="changed the game"):
        game.preview(*game.legal_moves()[0])
    assert game.score == 777


# -- whose hooks are checked: every plugin's but Blockyard's own (outside tests) --------

@pytest.mark.parametrize("hook", sorted(TRAY_ACTION))
def test_outside_tests_every_other_plugin_is_still_checked(mutated, hook):
    # a player's game checks every plugin that does not ship with Blockyard, on
    # every path (with or without Blockyard's own plugins checked too)
    with purity_check(True, bundled=False):
        game = blockyard.new_game(mutated(hook, "score"), seed=1, board=CORNER)
        exc = first_fault(game, TRAY_ACTION[hook])
    check_error(exc, hook, "score")


def test_blockyard_s_own_plugins_are_trusted_unless_asked(mutated):
    eu = blockyard.load_ruleset("eu-classic").hooks
    assert {"clear", "score", "deal"} <= eu.unchecked and not eu.outcomes_checked
    mixed = mutated("score", "score").hooks
    # the mutator implements every game hook: those are checked, the rest not
    assert not {"score", "clear", "deal", "end_reason"} & mixed.unchecked
    assert "board_size" in mixed.unchecked and mixed.outcomes_checked


def test_an_impure_bundled_plugin_is_caught_when_the_tests_ask(monkeypatch, rule_file):
    from blockyard.plugins import scoring

    def cheating(self, game, move):
        game.score += 1
        return Scoring(0, 0)

    monkeypatch.setattr(scoring.LineScoring, "blockyard_score", hookimpl(cheating))
    # a ruleset of its own (the bundled one may be cached with the real scorer)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "cheating"\nname = "Cheating"\n'))
    game = blockyard.new_game(ruleset, seed=1)
    with purity_check(True, bundled=True), pytest.raises(PluginError, match="changed the game"):
        game.preview(*game.legal_moves()[0])
    assert game.score == 0
    with purity_check(True, bundled=False):
        game.preview(*game.legal_moves()[0])  # trusted: not compared
    assert game.score == 1


# -- a plugin keeping state across games, or drawing from the random module ---------------

class DrawsRandom:
    """Adds points drawn from the random module (not from game.stream): so many
    possible that two games of the same seed never score alike by chance (with a
    handful, a short game's twin sometimes did, and ``check`` rightly said "ok")."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        import random

        scoring = yield
        scoring.points += random.randrange(1_000_000)
        return scoring


SCORED = [0]
"""What :class:`CountsInItsModule` counts: a module's own variable, not the plugin
object's (so the object holds what it held when the rules loaded)."""


class CountsInItsModule:
    """Adds a point every third move it scores, counting in a variable of its
    module: the same seed scores one way in the first game and another in the
    second, and the plugin object never changes."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        SCORED[0] += 1
        scoring.points += SCORED[0] % 3
        return scoring


NONDETERMINISTIC = ('[ruleset]\nextends = "eu-classic"\nid = "drifts"\nname = "Drifts"\n'
                    "[plugins.drifts]\n")


@pytest.mark.parametrize(("plugin", "told"), [
    (KeepsCount, r"keeps state across games: since the ruleset loaded, self\.scored 0 → \d+"),
    (DrawsRandom, "answered differently for the same position"),
    (CountsInItsModule, "answered differently for the same position")])
def test_check_names_a_plugin_whose_games_differ_for_the_same_seed(
        rule_file, register_plugin, capsys, plugin, told):
    from blockyard.cli import main

    register_plugin("drifts", plugin)
    assert main(["check", str(rule_file(NONDETERMINISTIC)), "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert "ok  determinism" not in out
    fails = [line for line in out.splitlines() if "same seed and actions gave different" in line]
    assert fails, out
    assert re.search(told, fails[0]) and "plugin 'drifts', hook blockyard_score" in fails[0]
    assert f"{Path(inspect.getsourcefile(plugin)).name}:" in fails[0] and "To fix:" in fails[0]


def test_restore_of_a_drifting_game_blames_the_plugin_not_the_snapshot(rule_file,
                                                                       register_plugin):
    register_plugin("drifts", DrawsRandom)
    game = blockyard.new_game(blockyard.load_ruleset(rule_file(NONDETERMINISTIC)), seed=4)
    for _ in range(6):
        game.place(*game.legal_moves()[0])
    with pytest.raises(PluginError, match="answered differently") as caught:
        for _ in range(20):  # a draw of the same points by chance is replayed again
            blockyard.restore(game.snapshot())
    assert caught.value.plugin == "drifts" and caught.value.hook == "blockyard_score"
    assert caught.value.where is not None and "test_purity.py:" in caught.value.where


def test_the_state_kept_is_named_with_the_line_that_changes_it(rule_file, register_plugin):
    register_plugin("drifts", KeepsCount)
    ruleset = blockyard.load_ruleset(rule_file(NONDETERMINISTIC))
    assert ruleset.hooks.kept_state() is None
    game = blockyard.new_game(ruleset, seed=1)
    game.place(*game.legal_moves()[0])
    found = ruleset.hooks.kept_state()
    assert found is not None and found.plugin == "drifts"
    assert found.hook == "blockyard_score"
    lines, first = inspect.getsourcelines(KeepsCount)
    line = first + next(i for i, text in enumerate(lines) if "self.scored += 1" in text)
    assert found.where is not None and found.where.endswith(f"plugin_support.py:{line}")


def test_drift_finds_a_second_game_of_the_same_rules_not_what_its_moves_give(
        rule_file, register_plugin):
    from blockyard.game import drift

    register_plugin("drifts", KeepsCount)
    ruleset = blockyard.load_ruleset(rule_file(NONDETERMINISTIC))
    assert ruleset.hooks.held_state() == ruleset.hooks.held_state(at_load=True) \
        == {"drifts": {"scored": "0"}}
    games = []
    for _ in range(2):
        game = blockyard.new_game(ruleset, seed=1)
        for _ in range(5):
            game.place(*game.legal_moves()[0])
        games.append(game)
    assert ruleset.hooks.held_state() == {"drifts": {"scored": "10"}}
    assert drift(games[0]) is None  # the first game is what its moves give
    found = drift(games[1])
    assert found is not None
    error, by_log = found
    assert error.plugin == "drifts" and error.hook == "blockyard_score"
    assert "keeps state across games" in error.problem and "plugin_support.py:" in error.where
    assert by_log is not None and by_log.log == games[1].log
    assert by_log.snapshot() == games[0].snapshot()  # the same seed and moves: the same game
    assert by_log.score != games[1].score
