"""Actions that take a target (issue 36): an ActionSpec aimed at a tray slot, a
board cell or both; the log writes the target, the plugin says which targets
are allowed and what the action would change; the conformance kit checks it.
Played with the example hammer (examples/hammer)."""

from __future__ import annotations

from pathlib import Path

import pytest

import blockyard
from blockyard import IllegalMove, PluginError
from blockyard.actions import ActionSpec
from blockyard.testing import check_ruleset

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "hammer"
BOARD = "\n".join(["##........", *["." * 10] * 9])


def test_the_hammer_breaks_the_cell_the_player_chooses_and_is_logged(hammer):
    game = blockyard.new_game(hammer, seed=1, board=BOARD)
    (action,) = [a for a in game.actions() if a.name == "hammer"]
    assert action.target == "cell" and action.uses_left == 3 and not action.takes_slot
    assert game.action_targets("hammer") == [(0, 0), (0, 1)]  # the filled cells only
    assert game.action_preview("hammer", 0, 1) == frozenset({(0, 1)})
    game.act("hammer", 0, 1)
    assert game.log[-1] == ["hammer", 0, 1]
    assert game.board_text().splitlines()[0] == "#........."
    assert game.state["hammer"]["left"] == 2
    again = blockyard.replay(game.log)
    assert again.snapshot() == game.snapshot()
    assert blockyard.restore(game.snapshot()).snapshot() == game.snapshot()


@pytest.mark.parametrize(("args", "told"), [
    ((), "expected a row and a column, found 0"),
    ((0,), "expected a row and a column, found 1"),
    ((0, 10), r"col: expected 0 to 9, found 10"),
    ((-1, 0), r"row: expected 0 to 9, found -1"),
    ((0, True), "col: expected 0 to 9, found True"),
    ((5, 5), r"Hammer: not allowed at row 5, column 5"),  # an empty cell
])
def test_a_target_off_the_board_or_refused_by_the_plugin_changes_nothing(hammer, args, told):
    game = blockyard.new_game(hammer, seed=1, board=BOARD)
    before = game.snapshot()
    with pytest.raises(IllegalMove, match=told):
        game.act("hammer", *args)
    with pytest.raises(IllegalMove, match=told):
        game.action_preview("hammer", *args)
    assert game.snapshot() == before


def test_a_replayed_log_with_a_refused_target_is_refused(hammer):
    game = blockyard.new_game(hammer, seed=1, board=BOARD)
    with pytest.raises(blockyard.DataError, match=r"log\[1\].*not allowed at row 5"):
        blockyard.replay([*game.log, ["hammer", 5, 5]])


def test_the_conformance_kit_plays_and_checks_the_hammer(hammer):
    report = check_ruleset(hammer, games=4, max_actions=80)
    assert report.ok, report.text()
    assert not report.warnings, report.warnings  # the hammer was offered


def test_a_target_kind_is_one_of_four():
    with pytest.raises(TypeError, match=r"target must be one of 'none', 'slot', 'cell'"):
        ActionSpec("x", "X", lambda game: None, target="column")
    assert ActionSpec("x", "X", lambda game, slot: None, takes_slot=True).target == "slot"
    assert ActionSpec("x", "X", lambda game, slot: None, target="slot").takes_slot
    assert ActionSpec("x", "X", lambda g, s, r, c: None, target="cell+slot").arity == 3


def test_a_preview_out_of_the_board_names_the_plugin(hammer, monkeypatch):
    game = blockyard.new_game(hammer, seed=1, board=BOARD)
    spec = game.ruleset.action_specs["hammer"]
    bad = ActionSpec(spec.name, spec.label, spec.perform, target="cell",
                     allowed=spec.allowed, preview=lambda g, r, c: 1 << 200)
    monkeypatch.setitem(game.ruleset.action_specs, "hammer", bad)
    with pytest.raises(PluginError, match=r"preview returned .*expected a mask") as caught:
        game.action_preview("hammer", 0, 0)
    assert caught.value.plugin == "hammer" and caught.value.where is not None


def test_the_gym_env_has_one_action_per_cell_masked_by_the_plugin(hammer):
    import warnings

    import gymnasium as gym  # the test extra installs it: this test always runs
    from gymnasium.utils.env_checker import check_env

    from blockyard.gym import BlockyardEnv

    env = BlockyardEnv(hammer)
    placements = env.ruleset.tray_slots * 100
    assert env.action_space == gym.spaces.Discrete(placements + 100 + 1)  # hammer cells, end
    _obs, info = env.reset(options={"game_seed": 1, "board": BOARD})
    hammer_at = env.encode_action("hammer", 0, 1)
    assert env.action_names[hammer_at] == "hammer 0 1"
    assert env.decode_action(hammer_at) == ("hammer", 0, 1)
    mask = info["action_mask"]
    aimed = [env.decode_action(a)[1:] for a in range(len(mask))
             if mask[a] and env.decode_action(a)[0] == "hammer"]
    assert aimed == [(0, 0), (0, 1)]
    env.step(hammer_at)
    assert env.game.log[-1] == ["hammer", 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(BlockyardEnv(hammer), skip_render_check=True)


def test_the_greedy_bot_uses_the_hammer_when_nothing_fits(hammer):
    from blockyard.bots import get_bot

    # nothing fits: the board is full but for one cell and the tray holds a domino
    full = "\n".join(["#########.", *["##########"] * 9])
    game = blockyard.new_game(hammer, seed=1, board=full, tray=["domino:##"])
    assert not game.legal_moves() and not game.over
    bot = get_bot("greedy")
    bot.play(game, max_moves=1)
    entry = next(e for e in game.log if e[0] == "hammer")
    assert entry[1:] == [0, 8]  # the cell beside the hole: the domino fits after it


def test_the_hammer_of_modding_md_plays_as_written(register_plugin):
    from blockyard import hookimpl

    text = (Path(__file__).resolve().parents[1] / "MODDING.md").read_text(encoding="utf-8")
    section = text.split("### Actions that take a target: a hammer", 1)[1]
    code = section.split("```python\n")[1].split("```", 1)[0]
    namespace: dict[str, object] = {"hookimpl": hookimpl, "ActionSpec": ActionSpec}
    exec(code, namespace)  # the documented plugin, as a modder copies it
    register_plugin("hammer", namespace["Hammer"])
    game = blockyard.new_game(blockyard.load_ruleset(EXAMPLE / "hammer.toml"), seed=1,
                              board=BOARD)
    assert game.action_targets("hammer") == [(0, 0), (0, 1)]
    game.act("hammer", 0, 0)
    assert game.log[-1] == ["hammer", 0, 0] and game.grid.bits == 0b10


# -- a preview refuses exactly what the action refuses (issue 52) -----------------------------

def test_a_preview_refuses_once_the_uses_are_spent_as_the_action_does(hammer):
    game = blockyard.new_game(hammer, seed=1, board="\n".join(["####......",
                                                               *["." * 10] * 9]))
    for col in range(3):
        assert game.action_preview("hammer", 0, col) == frozenset({(0, col)})
        game.act("hammer", 0, col)
    before = game.snapshot()
    with pytest.raises(IllegalMove, match="no hammer left"):
        game.act("hammer", 0, 3)
    with pytest.raises(IllegalMove, match="no hammer left"):
        game.action_preview("hammer", 0, 3)
    assert game.snapshot() == before


def test_a_preview_refuses_after_the_end_as_the_action_does(hammer):
    game = blockyard.new_game(hammer, seed=1, board=BOARD)
    game.end_round()
    before = game.snapshot()
    with pytest.raises(IllegalMove, match="the game is over"):
        game.act("hammer", 0, 0)
    with pytest.raises(IllegalMove, match="the game is over"):
        game.action_preview("hammer", 0, 0)
    assert game.snapshot() == before


def test_a_preview_refuses_a_target_the_plugins_perform_refuses(rule_file, register_plugin):
    from aimed_plugins import Trade

    register_plugin("trade", Trade)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "trade-test"\nname = "trade"\n'
        '[plugins.trade]\n'))
    board = "\n".join(["##.#######", *["." * 10] * 4, "##.#######", *["." * 10] * 4])
    game = blockyard.new_game(ruleset, seed=1, board=board, tray=["##", "#"])
    assert (1, 0, 3) in game.action_targets("trade")  # allowed, then refused by perform
    before = game.snapshot()
    with pytest.raises(IllegalMove, match="not on the top row"):
        game.act("trade", 1, 0, 3)
    with pytest.raises(IllegalMove, match="not on the top row"):
        game.action_preview("trade", 1, 0, 3)
    assert game.snapshot() == before
    assert game.action_preview("trade", 1, 5, 3) == frozenset({(5, 3)})
    assert game.snapshot() == before
