"""The consistency test over every bundled ruleset, and proof that the kit fails
when a plugin breaks a guarantee."""

from __future__ import annotations

import random

import pytest

import blockyard
from blockyard import hookimpl
from blockyard.actions import ActionSpec
from blockyard.params import Params
from blockyard.results import Scoring
from blockyard.testing import CAP_GRACE, RESCUE_REPEATS, check_ruleset

BUNDLED = [info.id for info in blockyard.list_rulesets()]


@pytest.mark.parametrize("ruleset_id", BUNDLED)
def test_every_bundled_ruleset_conforms(ruleset_id, blockyard_conformance):
    report = blockyard_conformance(ruleset_id, games=8, max_actions=150)
    assert report.games == 8
    assert report.checks["determinism"] == 8 and report.checks["replay"] == 8


class GlobalRandomScoring:
    """Breaks determinism: scores from the process-wide random module."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        return Scoring(random.randrange(1_000_000), 0)


class LeakyStateScoring:
    """Breaks preview: counts calls in the plugin object instead of game state."""

    def __init__(self, params: Params) -> None:
        self.calls = 0

    @hookimpl
    def blockyard_score(self, game, move):
        self.calls += 1
        return Scoring(self.calls, 0)


BROKEN = """
[ruleset]
id = "broken"
name = "Broken"
family = "test"
description = "a ruleset with a broken scoring plugin"
[board]
rows = 6
cols = 6
[pieces.dot]
shapes = ["#", "##"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.end-when-stuck]
[plugins.{plugin}]
"""


@pytest.mark.parametrize("plugin, factory, complaint", [
    ("global-random-scoring", GlobalRandomScoring, "different games"),
    ("leaky-state-scoring", LeakyStateScoring, "preview"),
])
def test_the_kit_catches_a_broken_plugin(rule_file, register_plugin, plugin, factory,
                                         complaint):
    register_plugin(plugin, factory)
    path = rule_file(BROKEN.format(plugin=plugin))
    report = check_ruleset(path, games=3, max_actions=40)
    assert not report.ok
    assert any(complaint in failure for failure in report.failures), report.text()
    with pytest.raises(AssertionError, match="FAIL"):
        from blockyard.testing import assert_conforms

        assert_conforms(path, games=3, max_actions=40)


# -- state entries written by their owner only (issue 52, point 3) ------------------------

class WritesAnothersEntry:
    """Takes away one of the swaps plugin's swaps after every move, through its own
    ``blockyard_move_state`` answer: an update of the entry ``game.state["swaps"]``,
    which belongs to the swaps plugin."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_move_state(self, game, result):
        left = game.state.get("swaps", {}).get("left", 0)
        return {"swaps": {"left": max(0, left - 1)}, "thief": {"moves": game.moves + 1}}


class WritesItsOwnEntry:
    """Counts its moves in its own entry, ``game.state["counter"]``."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_move_state(self, game, result):
        return {"counter": {"moves": game.moves + 1}}


def test_the_kit_names_a_move_state_entry_written_by_another_plugin(rule_file,
                                                                   register_plugin, capsys):
    from blockyard.cli import main

    register_plugin("thief", WritesAnothersEntry)
    path = rule_file('[ruleset]\nextends = "tiered"\nid = "thief"\nname = "Thief"\n'
                     "[plugins.thief]\n")
    report = check_ruleset(path, games=2, max_actions=40)
    assert not report.ok
    told = [f for f in report.failures if "game.state['swaps']" in f]
    assert len(told) == 1, report.text()  # once, however many moves wrote it
    assert "plugin 'thief', hook blockyard_move_state" in told[0]
    assert "the entry of plugin 'swaps'" in told[0] and "test_conformance.py:" in told[0]
    assert "To fix:" in told[0] and "game.state['thief']" not in told[0]
    assert main(["check", str(path), "--games", "2"]) == 1
    assert "the entry of plugin 'swaps'" in capsys.readouterr().out


def test_a_plugin_writing_its_own_entry_passes_the_kit(rule_file, register_plugin):
    register_plugin("counter", WritesItsOwnEntry)
    path = rule_file('[ruleset]\nextends = "tiered"\nid = "counted"\nname = "Counted"\n'
                     "[plugins.counter]\n")
    report = check_ruleset(path, games=2, max_actions=40)
    assert report.ok, report.text()


# -- games that never end, actions never offered (issue 22, reproducer 5) ------------------

STUCK_SOON = """
[ruleset]
id = "stuck-soon"
name = "Stuck soon"
family = "test"
description = "a small board of long pieces that is soon stuck, with a plugin's action"
[board]
rows = 4
cols = 4
[pieces.long]
shapes = ["###", "##\\n#."]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
[plugins.end-when-stuck]
[plugins.{plugin}]
"""


class FutileContinue:
    """An ``after_end`` action always offered once the game is over, that does nothing."""

    def __init__(self, params: Params) -> None:
        pass

    def perform(self, game) -> None:
        pass

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("forever", "Forever", self.perform, after_end=True)]


class FutileRescue:
    """A rescue always offered that does nothing: the game is never over as stuck."""

    def __init__(self, params: Params) -> None:
        pass

    def perform(self, game) -> None:
        pass

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("wiggle", "Wiggle", self.perform, rescue=lambda game: True)]


class TurnAll:
    """A rescue always offered that turns every tray piece a quarter turn: the tray
    changes, but once no turn fits the game goes on turning forever."""

    def __init__(self, params: Params) -> None:
        pass

    def perform(self, game) -> None:
        for slot, piece in enumerate(game.tray):
            if piece is not None:
                game.set_slot(slot, piece.rotated())

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("turn-all", "Turn all", self.perform, rescue=lambda game: True)]


class NeverOffered:
    """An action whose ``available`` never says yes."""

    def __init__(self, params: Params) -> None:
        pass

    def perform(self, game) -> None:
        raise AssertionError("never taken")

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("ghost", "Ghost", self.perform, available=lambda game: False)]


@pytest.mark.parametrize("plugin, factory, action", [
    ("futile-continue", FutileContinue, "forever"),
    ("futile-rescue", FutileRescue, "wiggle"),
])
def test_a_rescue_that_changes_nothing_is_a_game_that_never_ends(
        rule_file, register_plugin, plugin, factory, action):
    register_plugin(plugin, factory)
    report = check_ruleset(rule_file(STUCK_SOON.format(plugin=plugin)), games=3,
                           max_actions=150)
    assert not report.ok
    never = [f for f in report.failures if "never ends" in f]
    assert never, report.text()
    assert all(f"{action!r} (plugin {plugin!r}) was taken {RESCUE_REPEATS} times in a row "
               "as a rescue and changed nothing" in f for f in never), report.text()
    assert report.warnings == []  # the action was offered


def test_the_number_of_futile_rescues_is_a_parameter(rule_file, register_plugin):
    register_plugin("futile-continue", FutileContinue)
    path = rule_file(STUCK_SOON.format(plugin="futile-continue"))
    report = check_ruleset(path, games=1, rescue_repeats=3)
    assert any("'forever' (plugin 'futile-continue') was taken 3 times in a row" in f
               for f in report.failures), report.text()
    for bad in (1, 0, 2.5, True, "3"):
        with pytest.raises(ValueError, match="rescue_repeats"):
            check_ruleset(path, games=1, rescue_repeats=bad)


def test_a_game_kept_alive_by_rescues_at_the_cap_never_ends(rule_file, register_plugin):
    register_plugin("turn-all", TurnAll)
    report = check_ruleset(rule_file(STUCK_SOON.format(plugin="turn-all")), games=3,
                           max_actions=60)
    assert not report.ok
    assert any(f"the game never ends: it reached the kit's cap of 60 actions and {CAP_GRACE} "
               "rescues more with no piece fitting, and 'turn-all' (plugin 'turn-all') is "
               "still offered as a rescue" in f for f in report.failures), report.text()


def test_an_action_never_offered_is_a_note_not_a_failure(rule_file, register_plugin):
    register_plugin("never-offered", NeverOffered)
    report = check_ruleset(rule_file(STUCK_SOON.format(plugin="never-offered")), games=2,
                           max_actions=40)
    assert report.ok, report.text()
    assert report.warnings == [
        f"action 'ghost' of plugin 'never-offered' was never offered in 2 games "
        f"({report.actions} actions): check when its available() says yes, or play more "
        "games (--games)"]
    assert "  WARN action 'ghost' of plugin 'never-offered' was never offered" in report.text()
    assert report.text().endswith("all checks passed")


def test_the_bundled_rescues_let_every_game_end():
    for ruleset_id in ("eu-classic", "tiered", "arcadeforge-rotate"):
        report = check_ruleset(ruleset_id, games=8, max_actions=150)
        assert report.ok, report.text()
        assert report.checks["every game ends"] == 8
        assert report.warnings == []


def test_blockyard_check_fails_a_game_that_never_ends_and_notes_unoffered_actions(
        rule_file, register_plugin, capsys):
    from blockyard.cli import main

    register_plugin("futile-continue", FutileContinue)
    register_plugin("never-offered", NeverOffered)
    endless = rule_file(STUCK_SOON.format(plugin="futile-continue"), "endless.toml")
    assert main(["check", str(endless), "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL stuck-soon seed" in out
    assert "the game never ends: 'forever' (plugin 'futile-continue') was taken" in out
    ghost = rule_file(STUCK_SOON.format(plugin="never-offered"), "ghost.toml")
    assert main(["check", str(ghost), "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "  WARN action 'ghost' of plugin 'never-offered' was never offered in 2 games" in out
    assert out.rstrip().endswith("all checks passed")
    # the same reports as one JSON document each, with the same exit statuses
    import json

    assert main(["check", str(endless), "--games", "2", "--json"]) == 1
    failed = json.loads(capsys.readouterr().out)
    assert (failed["ruleset"], failed["ok"]) == ("stuck-soon", False)
    assert any("the game never ends: 'forever' (plugin 'futile-continue') was taken" in f
               for f in failed["failures"])
    assert main(["check", str(ghost), "--games", "2", "--json"]) == 0
    passed = json.loads(capsys.readouterr().out)
    assert passed["ok"] and passed["failures"] == [] and passed["checks"]
    (warning,) = passed["warnings"]
    assert warning.startswith("action 'ghost' of plugin 'never-offered' was never offered "
                              "in 2 games")


class PenaltyScoring:
    """Every move costs 7 points: the score goes below zero, as MODDING allows
    (a move may score down to -10^9 points)."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        return Scoring(-7, 0)


def test_a_score_below_zero_passes_the_kit(rule_file, register_plugin):
    register_plugin("penalty", PenaltyScoring)
    path = rule_file('[ruleset]\nid = "penalty"\nname = "Penalty"\nfamily = "test"\n'
                     'description = "every move costs"\n[board]\nrows = 5\ncols = 5\n'
                     '[pieces.dot]\nshapes = ["#"]\n[plugins.weighted-dealing]\n'
                     "[plugins.line-clearing]\n[plugins.penalty]\n")
    report = check_ruleset(path, games=2, max_actions=30)
    assert report.ok, report.text()
    game = blockyard.new_game(blockyard.load_ruleset(path), seed=1)
    game.place(*game.legal_moves()[0])
    assert game.score == -7
