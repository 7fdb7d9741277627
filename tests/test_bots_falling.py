"""The bots in Sudoku Bloxx: the search bot's fast look-ahead (a light copy of the
game, one state copy per choice, the hot plugin callers) chooses exactly what
the same evaluation written the plain way (a full restore and the public API)
chooses; it never changes the game, looks only at shown stones, and the sudoku
check it asks is the sudoku rule."""

from __future__ import annotations

import random

import pytest

import blockyard
from blockyard import botbase
from blockyard.bots import get_bot
from blockyard.stones import Stone, digit_of


def reference_value(game, col: int) -> float:
    """The search bot's evaluation of dropping the current stone into ``col``
    (without the tie-break), written the straightforward way: every copy is a
    full ``restore`` of a snapshot, every move goes through the public API."""
    copy = blockyard.restore(game.snapshot())
    start = copy.current.col
    for _ in range(abs(col - start)):
        copy.move(1 if col > start else -1)
    if copy.moves == game.moves:
        copy.hard_drop()
    value = float(copy.score - game.score) - 400.0 * (copy.errors - game.errors)
    if copy.over:
        return value - (0.0 if copy.over_reason == "time" else 5000.0)
    assert copy.current.row == -1  # the next stone is above the board: every column
    best = None
    snap = copy.snapshot()
    for c in range(copy.cols):
        after = blockyard.restore(snap)
        for _ in range(abs(c - after.current.col)):
            after.move(1 if c > after.current.col else -1)
        after.hard_drop()
        landed = (after.score - copy.score) - 400.0 * (after.errors - copy.errors)
        if best is None or landed > best:
            best = landed
    value += 0.8 * (best or 0.0)
    pairs = 0
    for stone in game.upcoming:  # the stones shown on the game itself
        if stone.digit is None:
            continue
        for c in range(copy.cols):
            if copy.column_full(c):
                continue
            row = copy.landing_row(c, -1)
            if copy.ruleset.hooks.accept_stone(copy, stone, row, c, "test") is not False:
                pairs += 1
    value += 3.0 * pairs
    return value


def reference_choice(bot, game):
    """The search bot's choice from :func:`reference_value` (ties broken by a
    noise per column drawn once per stone), and the values without the noise."""
    cur = game.current
    stream = random.Random(f"blockyard-bot:search:{bot.seed}:{game.seed}:{game.moves}:falling")
    noise = [stream.random() * 0.01 for _ in range(game.cols)]
    values = [reference_value(game, col) for col in botbase._reachable_columns(game)]
    best_col, best_value = cur.col, None
    for col, value in zip(botbase._reachable_columns(game), values, strict=True):
        value += noise[col]
        if best_value is None or value > best_value:
            best_col, best_value = col, value
    if best_col == cur.col:
        return ("hard",), values
    return ("move", 1 if best_col > cur.col else -1), values


def positions(seed: int, every: int, stones: int):
    """Positions of a game played by the search bot (one second of clock per
    stone, as ``play`` does): the stone already one row down, and every
    ``every`` stones also the stone still above the board."""
    game = blockyard.new_game("sudoku-bloxx", seed=seed)
    bot = get_bot("search")
    while not game.over and game.moves < stones:
        if game.moves % every == 0:
            yield game
        before = game.moves
        game.apply(list(bot.choose(game)))
        if game.moves > before and not game.over:
            if game.moves % every == 0:
                yield game  # above the board
            game.tick(1.0)


def test_the_fast_evaluation_is_the_plain_one_exactly():
    checked = 0
    for seed in (0, 5):
        for game in positions(seed, every=9, stones=50):
            bot = get_bot("search", seed=seed)
            choice, values = reference_choice(bot, game)
            rng, again = random.Random(seed), random.Random(seed)
            assert [bot.falling_value(game, col, rng) for col in
                    botbase._reachable_columns(game)] == \
                [value + again.random() * 0.01 for value in values], (seed, game.moves)
            assert bot.choose(game) == choice
            checked += 1
    assert checked >= 16


def test_the_fast_evaluation_with_a_full_column_errors_and_discards():
    # column 0 full: dropping there discards the stone; a 5 in column 1 or 2
    # repeats the 5 of its block: an error
    rows = "\n".join(["1........", "2........", "3........", "4........", "6........",
                      "7........", "8........", "5........", "9........"])
    game = blockyard.new_game("sudoku-bloxx", seed=4, board=rows, stream="5 5 S 3 5 7")
    bot = get_bot("search")
    assert game.current.row == -1 and game.column_full(0)
    values = {c: bot.falling_value(game, c, random.Random(c)) for c in range(9)}
    assert values == {c: reference_value(game, c) + random.Random(c).random() * 0.01
                      for c in range(9)}
    assert bot.choose(game) == reference_choice(bot, game)[0]
    assert values[1] < values[0]  # an error is worse than a discard


def test_a_bot_that_kept_values_chooses_what_a_new_bot_chooses():
    # the search bot keeps the columns' values while the stone is steered; a
    # bot that has seen other positions (or none) makes the same choices
    game = blockyard.new_game("sudoku-bloxx", seed=6)
    kept = get_bot("search")
    other = blockyard.new_game("sudoku-bloxx", seed=8)
    while not game.over and game.moves < 40:
        action = kept.choose(game)
        assert action == get_bot("search").choose(game)
        if game.moves % 5 == 0:
            kept.choose(other)  # another game in between: its values are not used here
        before = game.moves
        game.apply(list(action))
        if game.moves > before and not game.over:
            game.tick(1.0)
    assert game.moves == 40 or game.over


def test_choose_and_every_step_leave_the_game_as_it_was():
    for game in positions(3, every=9, stones=45):
        before, log = game.snapshot(), [list(e) for e in game.log]
        for _ in get_bot("search").steps(game):
            assert game.snapshot() == before
        assert game.log == log


def test_only_the_shown_stones_count():
    # the same board and the same four stones (falling + three shown); what comes
    # after them differs and must not change anything the bot does
    rows = "\n".join([".........", ".........", ".........", ".........", ".........",
                      ".........", "....3....", "..9.4.1..", "..2.8.6.5"])
    first = blockyard.new_game("sudoku-bloxx", seed=2, board=rows, stream="5 3 7 1 2 4 6")
    second = blockyard.new_game("sudoku-bloxx", seed=2, board=rows, stream="5 3 7 1 9 8 6")
    assert first.current.stone == second.current.stone and first.upcoming == second.upcoming
    bot = get_bot("search")
    for col in range(9):
        assert bot.falling_value(first, col, random.Random(0)) == \
            bot.falling_value(second, col, random.Random(0))
    assert bot.choose(first) == bot.choose(second)


@pytest.mark.parametrize("seed", [0, 7])
def test_the_sudoku_check_is_the_sudoku_rule(seed):
    game = blockyard.new_game("sudoku-bloxx", seed=seed)
    get_bot("greedy").play(game, max_moves=40)
    codes = [c for row in game.board for c in row]

    def digits(cells):
        return {digit_of(codes[r * 9 + c].code) for r, c in cells if codes[r * 9 + c]}

    checked = 0
    for row in range(9):
        for col in range(9):
            block = [(r, c) for r in range(row // 3 * 3, row // 3 * 3 + 3)
                     for c in range(col // 3 * 3, col // 3 * 3 + 3)]
            seen = digits([(row, c) for c in range(9)]) | digits([(r, col) for r in range(9)]) \
                | digits(block)
            for digit in range(1, 10):
                answer = game.ruleset.hooks.accept_stone(game, Stone(digit), row, col)
                assert (answer is not False) == (digit not in seen), (row, col, digit)
                checked += 1
            assert game.ruleset.hooks.accept_stone(game, Stone(None, symbol=True), row,
                                                   col) is True
    assert checked == 729


def test_search_still_beats_greedy_in_sudoku_bloxx():
    totals = {}
    for name in ("greedy", "search"):
        totals[name] = 0
        for seed in (2, 9):
            game = blockyard.new_game("sudoku-bloxx", seed=seed)
            get_bot(name).play(game)
            totals[name] += game.score
    assert totals["search"] > totals["greedy"]
