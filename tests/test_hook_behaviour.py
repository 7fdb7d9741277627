"""Hooks that no bundled ruleset needs, exercised through small plugins: a modder's
view of what each hook can do."""

from __future__ import annotations

import contextlib

import pytest

import blockyard
from blockyard import IllegalMove, hookimpl
from blockyard.bots import get_bot
from blockyard.geometry import Region
from blockyard.params import Params
from blockyard.pieces import Piece, PieceFamily

BASE = """
[ruleset]
id = "hooks"
name = "Hooks"
family = "test"
description = "hook behaviour"
[board]
rows = 6
cols = 6
[pieces.dot]
shapes = ["#"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
[plugins.end-when-stuck]
"""


class WideBoard:
    """blockyard_board_size: a plugin decides the board size (here from a parameter)."""

    def __init__(self, params: Params) -> None:
        self.cols = params.integer("cols")

    @hookimpl
    def blockyard_board_size(self, ruleset):
        return (ruleset.data["board"]["rows"], self.cols)


class Diagonals:
    """blockyard_regions: the main diagonal is a region that clears like a line."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_regions(self, ruleset, geometry):
        mask = sum(1 << (i * geometry.cols + i) for i in range(min(geometry.rows, geometry.cols)))
        return [Region("diag", 0, mask)]


class Bomb:
    """blockyard_piece_families: contribute a piece family from code."""

    def __init__(self, params: Params) -> None:
        self.weight = params.number("weight", 1.0)

    @hookimpl
    def blockyard_piece_families(self, ruleset):
        bomb = Piece.from_art("#.#\n.#.\n#.#", id="bomb", family="bomb")
        return [PieceFamily("bomb", self.weight, (bomb,))]


class LeftHalf:
    """blockyard_allowed_anchors: pieces may only be anchored in the left half."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_allowed_anchors(self, game, piece):
        half = game.cols // 2
        return sum(1 << (r * game.cols + c) for r in range(game.rows) for c in range(half))


@pytest.fixture
def hooks_ruleset(rule_file, register_plugin):
    for name, factory in (("wide-board", WideBoard), ("test-diagonals", Diagonals),
                          ("bomb", Bomb), ("left-half", LeftHalf)):
        register_plugin(name, factory)

    def make(extra: str):
        return blockyard.load_ruleset(rule_file(BASE + extra))
    return make


def test_blockyard_board_size_can_come_from_a_plugin(hooks_ruleset):
    ruleset = hooks_ruleset("[plugins.wide-board]\ncols = 9\n")
    assert (ruleset.rows, ruleset.cols) == (6, 9)
    assert blockyard.new_game(ruleset, seed=1).board_text().splitlines()[0] == "." * 9


def test_blockyard_regions_adds_regions_that_clear_and_count(hooks_ruleset):
    ruleset = hooks_ruleset("[plugins.test-diagonals]\n")
    board = "\n".join("".join("#" if r == c and r < 5 else "." for c in range(6))
                      for r in range(6))
    game = blockyard.new_game(ruleset, seed=1, board=board, tray=["#", None, None])
    result = game.place(0, 5, 5)
    assert result.regions == (("diag", 0),) and result.lines == 1
    assert result.points == 1 + 10
    assert game.board_text() == "\n".join(["." * 6] * 6)


def test_blockyard_piece_families_contributes_pieces(hooks_ruleset):
    ruleset = hooks_ruleset("[plugins.bomb]\nweight = 5.0\n")
    assert [f.name for f in ruleset.families] == ["dot", "bomb"]
    assert ruleset.pieces[-1].size == 5 and ruleset.pieces[-1].colour == 2


def test_blockyard_allowed_anchors_restricts_placement(hooks_ruleset):
    ruleset = hooks_ruleset("[plugins.left-half]\n")
    game = blockyard.new_game(ruleset, seed=1, tray=["#", None, None])
    assert {c for _, _, c in game.legal_moves()} == {0, 1, 2}
    assert not game.can_place(0, 0, 4)
    before = game.snapshot()
    with pytest.raises(IllegalMove, match="may not be placed"):
        game.place(0, 0, 4)
    assert game.snapshot() == before
    game.place(0, 0, 2)


class MoveCounter:
    """blockyard_game_start and blockyard_move_state: plugin state lives in
    ``game.state`` so that snapshots, restore and replay carry it."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_game_start(self, game):
        game.state["move-counter"] = {"clears": 0}

    @hookimpl
    def blockyard_move_state(self, game, result):
        if result.lines:
            return {"move-counter": {"clears": game.state["move-counter"]["clears"] + 1}}
        return None


def test_game_start_and_move_state_keep_plugin_state_in_the_game(rule_file, register_plugin):
    register_plugin("move-counter", MoveCounter)
    ruleset = blockyard.load_ruleset(rule_file(BASE + "[plugins.move-counter]\n"))
    board = "\n".join(["#####."] + ["." * 6] * 5)
    game = blockyard.new_game(ruleset, seed=1, board=board, tray=["#", "#", None])
    assert game.state["move-counter"] == {"clears": 0}
    game.place(0, 0, 5)
    game.place(1, 3, 3)
    assert game.state["move-counter"] == {"clears": 1}
    assert blockyard.restore(game.snapshot()).state == game.state
    assert blockyard.replay(game.log).state == game.state


class WrappedStart:
    """A new-style wrapper around blockyard_game_start, and a second plain
    implementation: the engine must call them exactly as pluggy does."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_game_start(self, game):
        game.state["wrapped"] = {"before": len(game.state)}
        answer = yield
        game.state["wrapped"]["after"] = len(game.state)
        return answer


def test_plugins_are_called_as_pluggy_calls_them_wrappers_included(rule_file, register_plugin):
    register_plugin("move-counter", MoveCounter)
    register_plugin("wrapped-start", WrappedStart)
    ruleset = blockyard.load_ruleset(rule_file(
        BASE + "[plugins.move-counter]\n[plugins.wrapped-start]\n"))
    game = blockyard.new_game(ruleset, seed=1)
    # the wrapper ran around the plain implementations (line-scoring, move-counter)
    assert len(game.state) == 3  # line-scoring, move-counter, wrapped
    assert game.state["wrapped"] == {"before": 0, "after": 3}
    assert game.state["move-counter"] == {"clears": 0}


@pytest.mark.parametrize("ruleset_id", ["tiered", "sudoku-bloxx", "eu-zen"])
def test_plain_hook_calls_play_exactly_as_pluggy_does(ruleset_id):
    """The rule facade calls plain implementations directly, in pluggy's order;
    with hook monitoring on (``ruleset.monitor``), every call goes through pluggy's
    own caller. The same seed and actions must give the same game both ways."""
    def play(monitored: bool):
        ruleset = blockyard.load_ruleset(ruleset_id)
        seen: list[str] = []
        watch = ruleset.monitor(lambda name, impls, kw: seen.append(name),
                                lambda *args: None) if monitored else contextlib.nullcontext()
        with watch:
            game = blockyard.new_game(ruleset, seed=7)
            get_bot("greedy", seed=1).play(game, max_moves=60)
        return game.snapshot(), seen

    plain, seen_plain = play(False)
    monitored, seen = play(True)
    assert plain == monitored
    assert seen_plain == []
    assert "blockyard_game_start" in seen or "blockyard_end_reason" in seen
