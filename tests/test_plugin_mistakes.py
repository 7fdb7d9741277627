"""Every plugin mistake a modder makes is contained and named (issue 36): a
wrong or missing answer, a figure written out of bounds, state kept across
games. Each is a ``PluginError`` naming the plugin, the hook, the file and line
in the plugin's code and what to do, headless and in ``blockyard check``; the
game is left as it was."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

import blockyard
from blockyard import PluginError, hookimpl
from blockyard.actions import ActionSpec
from blockyard.cli import main
from blockyard.params import Params

RULES = """
[ruleset]
extends = "eu-classic"
id = "mistakes"
name = "Mistakes"
[plugins.mistake]
{params}
"""

HERE = Path(__file__).name


def line_of(func: Any) -> int:
    """The first line of ``func`` in this file (its decorator's, when it has one)."""
    return inspect.getsourcelines(func)[1]


def assert_named(error: PluginError, hook: str, line: int, fix: str) -> None:
    """A rating-3 message: plugin, hook, file:line and what to do."""
    assert error.plugin == "mistake"
    assert error.hook == hook
    assert error.where is not None and error.where.endswith(f"{HERE}:{line}"), error.where
    assert error.fix is not None and fix in error.fix
    text = str(error)
    assert "plugin 'mistake'" in text and hook in text and f"{HERE}:{line}" in text
    assert f"To fix: {error.fix}" in text


@pytest.fixture
def ruleset_with(rule_file, register_plugin):
    def make(plugin: type, params: str = "") -> blockyard.Ruleset:
        register_plugin("mistake", plugin)
        return blockyard.load_ruleset(rule_file(RULES.format(params=params)))
    return make


# -- a wrapper that forgets to return ------------------------------------------------------

class ForgetsReturn:
    """Doubles every move's points, and forgets ``return scoring``."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        scoring.points *= 2


class ForgetsClearing:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_clear(self, game, board, placed, piece, row, col):
        yield


@pytest.mark.parametrize(("plugin", "hook"), [(ForgetsReturn, "blockyard_score"),
                                              (ForgetsClearing, "blockyard_clear")])
def test_a_wrapper_that_forgets_to_return_is_named_with_its_line(ruleset_with, plugin, hook):
    game = blockyard.new_game(ruleset_with(plugin), seed=1)
    before = game.snapshot()
    with pytest.raises(PluginError, match="returned None") as caught:
        game.place(*game.legal_moves()[0])
    assert_named(caught.value, hook, line_of(getattr(plugin, hook)),
                 "return the answer its yield gave")
    assert game.snapshot() == before
    with pytest.raises(PluginError, match="returned None"):
        game.preview(*game.legal_moves()[0])


# -- a wrapper on a list hook that returns a single answer ---------------------------------

class BareReason:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_end_reason(self, game, stuck):
        yield
        return "gone"


class BareTips:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_summary_tips(self, game, summary):
        yield
        return 5


def test_a_list_hook_wrapper_returning_one_answer_is_refused_not_read_letter_by_letter(
        ruleset_with):
    with pytest.raises(PluginError, match="where the list of every plugin's answers") as caught:
        blockyard.new_game(ruleset_with(BareReason), seed=1)
    assert_named(caught.value, "blockyard_end_reason",
                 line_of(BareReason.blockyard_end_reason),
                 "return that list")


def test_a_tips_wrapper_returning_a_number_is_refused(rule_file, register_plugin):
    register_plugin("mistake", BareTips)
    ruleset = blockyard.load_ruleset(rule_file(RULES.format(params="")))
    game = blockyard.new_game(ruleset, seed=1)
    with pytest.warns(UserWarning, match=r"blockyard_summary_tips.*returned integer 5"):
        assert game.summary().tip is None  # the end screen goes on without tips
    with pytest.raises(PluginError, match=r"returned integer 5 where the list") as caught:
        ruleset.hooks.summary_tips(game, {"points": 0, "failed_pieces": (), "lines_cleared": 0,
                                          "best_combo": 0})
    assert_named(caught.value, "blockyard_summary_tips",
                 line_of(BareTips.blockyard_summary_tips),
                 "return that list")


# -- figures written by an action's perform or by game_start --------------------------------

def write(game: Any, what: str) -> None:
    if what == "score-huge":
        game.score = 10**100
    elif what == "score-nan":
        game.score = float("nan")
    elif what == "score-text":
        game.score = "lots"
    elif what == "score-jump":
        game.score += 10**9 + 1
    elif what == "moves-negative":
        game.moves = -5
    elif what == "combo-huge":
        game.combo = 10**7
    elif what == "state-5mb":
        game.state["mistake"] = {"big": "x" * 5_000_000}
    elif what == "state-object":
        game.state["mistake"] = {"thing": object()}
    elif what == "over-long":
        game.over_reason = "x" * 100
    else:
        raise AssertionError(what)


WRITES = ["score-huge", "score-nan", "score-text", "score-jump", "moves-negative",
          "combo-huge", "state-5mb", "state-object", "over-long"]


class Writer:
    """Writes ``what`` in its action's perform or in its game_start (``where``)."""

    def __init__(self, params: Params) -> None:
        self.what = params.string("what")
        self.where = params.string("where")

    @hookimpl
    def blockyard_game_start(self, game):
        if self.where == "game_start":
            write(game, self.what)

    def perform(self, game):
        write(game, self.what)

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("bang", "Bang", self.perform)]


@pytest.mark.parametrize("what", WRITES)
def test_figures_an_action_writes_out_of_bounds_are_refused_naming_it(ruleset_with, what):
    game = blockyard.new_game(ruleset_with(Writer, f'what = "{what}"\nwhere = "perform"'),
                              seed=1)
    game.place(*game.legal_moves()[0])
    before = game.snapshot()
    with pytest.raises(PluginError, match="action 'bang': perform wrote") as caught:
        game.act("bang")
    assert_named(caught.value, "blockyard_actions", line_of(Writer.perform),
                 "within the bounds")
    assert game.snapshot() == before
    # the next move is the game's as before, and no bundled plugin is blamed for it
    game.place(*game.legal_moves()[0])


@pytest.mark.parametrize("what", WRITES)
def test_figures_game_start_writes_out_of_bounds_are_refused_naming_it(ruleset_with, what):
    ruleset = ruleset_with(Writer, f'what = "{what}"\nwhere = "game_start"')
    with pytest.raises(PluginError, match="wrote") as caught:
        blockyard.new_game(ruleset, seed=1)
    assert_named(caught.value, "blockyard_game_start",
                 line_of(Writer.blockyard_game_start),
                 "within the bounds")


def test_figures_within_bounds_are_accepted(ruleset_with):
    class Fine(Writer):
        def perform(self, game):
            game.score -= 10**9  # MODDING allows ±10^9 points at once, either sign
            game.state["mistake"] = {"n": 3, "seen": [1, 2, 3]}
    game = blockyard.new_game(ruleset_with(Fine, 'what = "x"\nwhere = "perform"'), seed=1)
    game.act("bang")
    assert game.score == -10**9 and game.state["mistake"]["n"] == 3


# -- blockyard check names each mistake ------------------------------------------------------

@pytest.mark.parametrize(("plugin", "params", "hook"), [
    (ForgetsReturn, "", "blockyard_score"),
    (BareReason, "", "blockyard_end_reason"),
    (Writer, 'what = "score-huge"\nwhere = "game_start"', "blockyard_game_start"),
    (Writer, 'what = "score-nan"\nwhere = "perform"', "blockyard_actions"),
])
def test_check_names_plugin_hook_file_and_line(rule_file, register_plugin, capsys, plugin,
                                               params, hook):
    register_plugin("mistake", plugin)
    path = rule_file(RULES.format(params=params))
    assert main(["check", str(path), "--games", "1"]) == 1
    out = capsys.readouterr().out
    fail = next(line for line in out.splitlines() if "FAIL" in line)
    assert "plugin 'mistake'" in fail and hook in fail and f"{HERE}:" in fail
    assert "To fix:" in fail


class SetsUp:
    """A well-behaved game_start beside the one that writes out of bounds."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_game_start(self, game):
        game.state["sets-up"] = {"ready": True}


def test_of_two_game_starts_the_one_that_wrote_the_figure_is_named(rule_file,
                                                                   register_plugin):
    register_plugin("mistake", Writer)
    register_plugin("sets-up", SetsUp)
    for order in ("[plugins.sets-up]\n[plugins.mistake]\n", "[plugins.mistake]\n"
                  "[plugins.sets-up]\n"):
        path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "two-starts"\n'
                         'name = "Two starts"\n' + order.replace(
                             "[plugins.mistake]\n", '[plugins.mistake]\nwhat = "moves-negative"'
                             '\nwhere = "game_start"\n'))
        with pytest.raises(PluginError, match="wrote moves = -5") as caught:
            blockyard.new_game(blockyard.load_ruleset(path), seed=2, board=None)
        assert_named(caught.value, "blockyard_game_start",
                     line_of(Writer.blockyard_game_start), "within the bounds")
