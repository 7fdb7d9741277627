"""The bots consider actions aimed at a tray slot, a board cell or both (issue 36):
the greedy bot and the search take one when it and the placement after it make
more points than any placement now, only at targets the plugin allows and its
``perform`` accepts, and they play the example hammer to the end."""

from __future__ import annotations

from typing import Any

import pytest
from aimed_plugins import Shrink, Trade

import blockyard
from blockyard.bots import get_bot


def board(*rows: str) -> str:
    return "\n".join([*(row or "." * 10 for row in rows), *["." * 10] * (10 - len(rows))])


@pytest.fixture
def with_plugin(rule_file, register_plugin):
    def load(name: str, factory: Any) -> blockyard.Ruleset:
        register_plugin(name, factory)
        return blockyard.load_ruleset(rule_file(
            f'[ruleset]\nextends = "eu-classic"\nid = "{name}-test"\nname = "{name}"\n'
            f'[plugins.{name}]\n'))
    return load


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_the_bots_take_the_hammer_when_it_is_the_best_move(hammer, bot):
    # row 0 lacks (0, 1) only: no domino completes it, but one does once a
    # neighbouring cell is broken
    game = blockyard.new_game(hammer, seed=1, board=board("#.########"), tray=["##"])
    best_now = max(game.preview(*m).points for m in game.legal_moves())
    action = get_bot(bot).choose(game)
    assert action is not None and action[0] == "hammer"
    assert tuple(action[1:]) in game.action_targets("hammer")
    game.apply(list(action))
    follow = get_bot(bot).choose(game)
    assert follow is not None and follow[0] == "place"
    result = game.place(*follow[1:])
    assert result.lines == 1 and result.points > best_now
    assert game.state["hammer"]["left"] == 2


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_the_bots_keep_the_hammer_when_a_placement_is_as_good(hammer, bot):
    game = blockyard.new_game(hammer, seed=1, board=board("#########."), tray=["#"])
    assert get_bot(bot).choose(game) == ("place", 0, 0, 9)


def test_greedy_takes_an_action_aimed_at_a_tray_slot_when_it_scores_more(with_plugin):
    ruleset = with_plugin("shrink", Shrink)
    game = blockyard.new_game(ruleset, seed=1, board=board("#########."), tray=["##"])
    assert get_bot("greedy").choose(game) == ("shrink", 0)
    game.act("shrink", 0)
    assert get_bot("greedy").choose(game) == ("place", 0, 0, 9)


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_a_bot_proposes_an_aimed_action_only_where_the_plugin_allows_and_accepts_it(
        with_plugin, bot):
    ruleset = with_plugin("trade", Trade)
    # rows 0 and 5 lack (r, 2): breaking (r, 1) or (r, 3) lets the domino
    # complete the row; column 1 is not allowed and row 0 is refused by perform
    start = board("##.#######", "", "", "", "", "##.#######")
    game = blockyard.new_game(ruleset, seed=1, board=start, tray=["##", "#"])
    assert (1, 0, 3) in game.action_targets("trade")  # allowed, then refused by perform
    assert get_bot(bot).choose(game) == ("trade", 1, 5, 3)


@pytest.mark.parametrize("bot", ["greedy", "search"])
def test_bots_play_games_with_aimed_actions_to_the_end_never_proposing_an_illegal_one(
        with_plugin, hammer, bot):
    trade = with_plugin("trade", Trade)
    for ruleset, name in ((trade, "trade"), (hammer, "hammer")):
        taken = 0
        for seed in range(2):
            start = board(*["##.#######" if r % 3 == 0 else "." * 10 for r in range(9)])
            game = blockyard.new_game(ruleset, seed=seed, board=start)
            player = get_bot(bot, seed=seed)
            while not game.over and game.moves < 40:
                action = player.choose(game)
                assert action is not None
                if action[0] == name:
                    assert tuple(action[1:]) in game.action_targets(name)
                    if name == "trade":
                        assert action[3] != 1 and action[2] != 0
                    taken += 1
                game.apply(list(action))  # IllegalMove here would fail the test
            assert blockyard.replay(game.log).snapshot() == game.snapshot()
        assert taken >= 1, f"{bot} never took the {name}"
