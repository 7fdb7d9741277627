"""Bots: the registry, determinism, never changing the game, every ruleset, actions."""

from __future__ import annotations

import types

import pytest

import blockyard
from blockyard import bots, registry
from blockyard.bots import Bot, get_bot, list_bots
from blockyard.errors import PluginError
from blockyard.hookspecs import hookimpl

TRAY_RULESETS = ["eu-classic", "eu-hardcore", "eu-timed", "eu-zen", "eu-daily", "tiered",
                 "tiered-gravity", "arcadeforge", "arcadeforge-rotate", "woodoku", "nepal-new",
                 "nepal-today"]


def test_the_bundled_bots_are_listed():
    assert {"random", "greedy", "search"} <= set(list_bots())
    assert list_bots() == sorted(list_bots())


def test_an_unknown_bot_or_parameter_is_named():
    with pytest.raises(ValueError, match=r"no bot named 'clever'.*greedy"):
        get_bot("clever")
    with pytest.raises(ValueError, match=r"bot 'greedy'.*depth"):
        get_bot("greedy", depth=3)
    with pytest.raises(ValueError, match="beam"):
        get_bot("search", beam=0)


@pytest.mark.parametrize("name", ["random", "greedy", "search"])
@pytest.mark.parametrize("ruleset", ["eu-classic", "tiered", "arcadeforge-rotate",
                                     "sudoku-bloxx"])
def test_choose_changes_nothing_and_is_deterministic(name, ruleset):
    game = blockyard.new_game(ruleset, seed=3)
    get_bot("greedy").play(game, max_moves=4)
    before = game.snapshot()
    first = get_bot(name, seed=5).choose(game)
    assert game.snapshot() == before
    assert get_bot(name, seed=5).choose(game) == first
    assert get_bot(name, seed=5).choose(blockyard.restore(before)) == first
    game.apply(list(first))  # the choice is a legal action


@pytest.mark.parametrize("ruleset", [*TRAY_RULESETS, "sudoku-bloxx"])
@pytest.mark.parametrize("name", ["random", "greedy", "search"])
def test_every_bot_plays_every_bundled_ruleset(ruleset, name):
    game = blockyard.new_game(ruleset, seed=11)
    moves = get_bot(name).play(game, max_moves=25)
    assert moves == game.moves
    assert moves == 25 or game.over
    replayed = blockyard.replay(game.log)  # every action the bot took is a logged action
    assert replayed.snapshot()["bits"] == game.snapshot()["bits"]
    assert replayed.score == game.score


def test_play_is_the_same_game_twice():
    a = blockyard.new_game("tiered", seed=2)
    b = blockyard.new_game("tiered", seed=2)
    get_bot("search", seed=1).play(a, max_moves=30)
    get_bot("search", seed=1).play(b, max_moves=30)
    assert a.log == b.log


def test_greedy_takes_the_move_with_the_most_points():
    # the top row needs one cell: the dot there clears it, every other move scores less
    board = "#########.\n" + "\n".join(["." * 10] * 9)
    game = blockyard.new_game("eu-classic", seed=1, board=board, tray=["#", "##", "###"])
    action = get_bot("greedy").choose(game)
    best = max(game.preview(*m).points for m in game.legal_moves())
    assert game.preview(*action[1:]).points == best
    assert action == ("place", 0, 0, 9)


def test_search_places_the_whole_tray_clearing_every_line_it_can():
    board = "\n".join(["#######..."] * 3 + ["#########."] * 2 + ["." * 10] * 5)
    game = blockyard.new_game("eu-classic", seed=1, board=board,
                              tray=["###\n###\n###", "#\n#", "#"])
    plan = []
    bot = get_bot("search")
    while any(p is not None for p in game.tray) and not game.over:
        action = bot.choose(game)
        plan.append(action)
        game.apply(list(action))
        if game.set_index > 1:
            break
    assert game.lines_cleared == 5 and len(plan) == 3


def test_search_turns_pieces_where_the_ruleset_allows_it():
    # only the vertical bar fits into the empty column: the horizontal one must turn
    board = "\n".join(["#####.##"] * 8)
    game = blockyard.new_game("arcadeforge-rotate", seed=1, board=board,
                              tray=["####", None, None])
    action = get_bot("search").choose(game)
    assert action == ("rotate", 0)
    game.apply(list(action))
    action = get_bot("search").choose(game)
    assert action[:2] == ("place", 0) and action[3] == 5


def test_a_bot_swaps_when_nothing_fits_and_continues_after_the_end():
    board = "\n".join(["#.#.#.#.#."] * 10)
    game = blockyard.new_game("tiered", seed=1, board=board, tray=["##", "##", "##"])
    assert not game.over and game.swaps_left == 1
    assert get_bot("greedy").choose(game) == ("swap",)
    eu = blockyard.new_game("eu-classic", seed=1, board=board, tray=["##", "##", "##"])
    assert eu.over and eu.can_continue
    assert get_bot("search").choose(eu) == ("continue",)
    assert get_bot("search", continues=False).choose(eu) is None


def test_the_steps_form_yields_at_least_once_and_ends_with_the_choice():
    game = blockyard.new_game("eu-classic", seed=4)
    bot = get_bot("search")
    seen = list(bot.steps(game))
    assert seen and seen[-1] == bot.choose(game)
    assert len(seen) > 1  # the search gives a provisional answer before it is done
    quick = bot.choose(game, budget_ms=0)
    assert quick is not None and quick[0] in ("place", "rotate")
    best, finished = bots.run_steps(bot.steps(game), 10_000)
    assert finished and best == seen[-1]


def test_sudoku_bots_steer_and_drop():
    game = blockyard.new_game("sudoku-bloxx", seed=2)
    action = get_bot("search").choose(game)
    assert action[0] in ("move", "hard")
    moves = get_bot("search").play(game, max_moves=10)
    assert moves == 10 and game.errors == 0
    assert game.elapsed_us == 10 * 1_000_000  # one second of the clock per stone


def test_a_timed_game_ends_on_the_clock():
    game = blockyard.new_game("eu-timed", seed=0)
    get_bot("search").play(game, seconds_per_move=30)
    assert game.over_reason == "time" and game.moves == 6


def test_search_scores_more_than_greedy():
    scores = {}
    for name in ("greedy", "search"):
        total = 0
        for seed in range(2):
            game = blockyard.new_game("eu-classic", seed=seed)
            get_bot(name).play(game, max_moves=60)
            total += game.score
        scores[name] = total
    assert scores["search"] > 2 * scores["greedy"]


class FirstMoveBot(Bot):
    name = "first"

    def tray_steps(self, game):
        yield ("place", *game.legal_moves()[0])

    def falling_value(self, game, col, rng):
        return -col


def test_register_bots_a_package_contributes_a_bot_and_a_taken_name_is_skipped(monkeypatch,
                                                                              capsys):
    module = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_bots(register):
        register("first", FirstMoveBot)
        register("greedy", FirstMoveBot)  # taken by Blockyard: reported and skipped

    module.blockyard_register_bots = blockyard_register_bots
    reg = registry.registry()
    try:
        monkeypatch.setattr(registry, "_reported", set())
        reg.add_module(module, "bot-package")
        assert capsys.readouterr().err == ("blockyard: bot name 'greedy' of 'bot-package' is "
                                           "taken (by Blockyard); skipped\n")
        assert "first" in list_bots()
        assert reg.bots["first"].source == "bot-package"
        bot = get_bot("first")
        game = blockyard.new_game("eu-classic", seed=1)
        assert bot.choose(game) == ("place", *game.legal_moves()[0])
        assert type(get_bot("greedy")) is bots.GreedyBot
    finally:
        reg.bots.pop("first", None)
        reg.problems[:] = [p for p in reg.problems if "bot-package" not in p]


def test_register_bot_in_this_process():
    bots.register_bot("first-runtime", FirstMoveBot)
    try:
        assert "first-runtime" in list_bots()
        with pytest.raises(PluginError, match="taken"):
            bots.register_bot("first-runtime", FirstMoveBot)
        game = blockyard.new_game("sudoku-bloxx", seed=1)
        assert get_bot("first-runtime").choose(game) == ("move", -1)
    finally:
        bots.unregister_bot("first-runtime")
    assert "first-runtime" not in list_bots()
