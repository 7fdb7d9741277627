"""The headless API contract (docs/api.md): names, meanings, starting positions,
snapshots and replays."""

from __future__ import annotations

import json

import pytest

import blockyard
from blockyard import IllegalMove, RulesetError


def test_module_level_names():
    for name in ("list_rulesets", "load_ruleset", "new_game", "daily_seed", "restore",
                 "replay", "RulesetError", "IllegalMove", "hookimpl", "hookspec"):
        assert hasattr(blockyard, name), name
    assert issubclass(RulesetError, ValueError) and issubclass(IllegalMove, ValueError)


def test_list_rulesets_gives_ids_names_families_descriptions_and_paths():
    infos = {i.id: i for i in blockyard.list_rulesets()}
    for rid in ("eu-classic", "eu-hardcore", "eu-daily", "eu-zen", "eu-timed"):
        info = infos[rid]
        assert info.family == "eu" and info.name and info.description
        assert info.path.endswith(f"{rid}.toml")


def test_ruleset_members():
    ruleset = blockyard.load_ruleset("eu-classic")
    assert (ruleset.id, ruleset.family, ruleset.rows, ruleset.cols) == ("eu-classic", "eu", 10, 10)
    assert ruleset.name and isinstance(ruleset.pieces, tuple)
    assert all(isinstance(p, blockyard.Piece) for p in ruleset.pieces)
    assert ruleset.to_toml().startswith("[ruleset]")


def test_new_game_by_id_path_or_ruleset_gives_the_same_game():
    ruleset = blockyard.load_ruleset("eu-classic")
    by_id = blockyard.new_game("eu-classic", seed=5)
    by_path = blockyard.new_game(ruleset.path, seed=5)
    by_object = blockyard.new_game(ruleset, seed=5)
    assert by_id.snapshot() == by_path.snapshot() == by_object.snapshot()


def test_a_random_seed_is_kept_in_game_seed():
    game = blockyard.new_game("eu-classic")
    assert isinstance(game.seed, int)
    again = blockyard.new_game("eu-classic", seed=game.seed)
    assert again.tray == game.tray


def test_game_members():
    game = blockyard.new_game("eu-classic", seed=1)
    assert (game.rows, game.cols, game.seed) == (10, 10, 1)
    assert game.ruleset == blockyard.load_ruleset("eu-classic")
    assert isinstance(game.board, tuple) and isinstance(game.board[0], tuple)
    for name in ("score", "combo", "best_combo", "lines_cleared", "moves", "swaps_left"):
        assert getattr(game, name) == 0
    assert game.over is False and game.over_reason is None and game.time_left is None
    piece = game.tray[0]
    assert isinstance(piece.cells, frozenset) and piece.size == len(piece.cells)
    assert piece.id and piece.art


def test_board_is_rows_of_colour_indexes():
    game = blockyard.new_game("eu-classic", seed=1, tray=["##", None, None])
    game.place(0, 2, 3)
    colour = game.board[2][3]
    assert colour > 0 and game.board[2][4] == colour and game.board[2][5] == 0
    assert colour == blockyard.load_ruleset("eu-classic").families[1].pieces[0].colour


def test_move_result_fields():
    board = "\n".join(["#########."] + ["." * 10] * 8 + ["#........."])
    game = blockyard.new_game("eu-classic", seed=1, board=board, tray=["#", None, None])
    result = game.place(0, 0, 9)
    assert result.points == 101 and result.cells == 1
    assert result.cleared_rows == (0,) and result.cleared_cols == ()
    assert result.lines == 1 and result.combo == 1 and result.perfect_clear is False
    assert result.placed == frozenset({(0, 9)})


def test_legal_moves_lists_every_fitting_slot_row_col():
    game = blockyard.new_game("eu-classic", seed=1, tray=["#####", None, "#/#/#/#/#"])
    moves = game.legal_moves()
    assert len(moves) == 10 * 6 + 6 * 10
    assert all(game.can_place(*m) for m in moves)
    assert (0, 0, 5) in moves and (0, 0, 6) not in moves and (2, 5, 0) in moves


def test_starting_board_ignores_blank_lines_and_indentation():
    text = """

        #.........
        ..........
        ..........
        ..........
        ..........
        ..........
        ..........
        ..........
        ..........
        .........#

    """
    game = blockyard.new_game("eu-classic", seed=1, board=text)
    assert game.board_text().splitlines()[0] == "#........."
    assert game.board_text().splitlines()[9] == ".........#"


@pytest.mark.parametrize("text, message", [
    ("\n".join(["." * 10] * 9), "expected 10 rows, found 9"),
    ("\n".join(["." * 10] * 9 + ["." * 11]), "row 9: expected 10 cells, found 11"),
    ("\n".join(["." * 10] * 4 + ["....x....."] + ["." * 10] * 5),
     "row 4: unexpected character 'x'"),
])
def test_a_wrong_starting_board_raises_value_error_naming_the_row(text, message):
    with pytest.raises(ValueError, match=message):
        blockyard.new_game("eu-classic", seed=1, board=text)


def test_starting_tray_pieces_need_not_belong_to_the_set_and_dealing_goes_on():
    game = blockyard.new_game("eu-classic", seed=9, tray=["####\n#..#", None, None])
    assert game.tray[0].cells == frozenset({(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 3)})
    assert game.tray[1] is None and game.tray[2] is None
    game.place(0, 0, 0)
    assert all(p is not None for p in game.tray)
    with pytest.raises(ValueError, match="tray slot 1"):
        blockyard.new_game("eu-classic", seed=9, tray=["#", "#?#"])
    with pytest.raises(ValueError, match="at most 3"):
        blockyard.new_game("eu-classic", seed=9, tray=["#"] * 4)


def test_stream_is_for_sudoku_bloxx_only():
    with pytest.raises(ValueError, match="stream"):
        blockyard.new_game("eu-classic", seed=1, stream="5 6")


def play(game: blockyard.Game, moves: int) -> blockyard.Game:
    for _ in range(moves):
        legal = game.legal_moves()
        if not legal:
            break
        game.place(*legal[(game.moves * 7) % len(legal)])
    return game


def test_snapshot_is_json_safe_and_restore_continues_identically_rng_included():
    game = play(blockyard.new_game("eu-classic", seed=21), 8)
    snap = json.loads(json.dumps(game.snapshot()))
    copy = blockyard.restore(snap)
    assert copy.snapshot() == game.snapshot()
    play(game, 20)
    play(copy, 20)
    assert copy.snapshot() == game.snapshot()
    assert copy.tray == game.tray


def test_replay_rebuilds_the_game_from_its_log():
    game = blockyard.new_game("eu-timed", seed=4)
    play(game, 5)
    game.tick(1.25)
    game.tick(0.5)
    play(game, 5)
    rebuilt = blockyard.replay(json.loads(json.dumps(game.log)))
    assert rebuilt.snapshot() == game.snapshot()
    assert rebuilt.time_left == game.time_left == 178.25


def test_the_log_starts_with_the_start_and_records_every_action():
    game = blockyard.new_game("eu-classic", seed=4, tray=["#", "#", None])
    game.place(0, 0, 0)
    game.end_round()
    assert game.log[0][0] == "start" and game.log[0][1]["seed"] == 4
    assert game.log[1:] == [["place", 0, 0, 0], ["end"]]


def test_end_round_ends_the_game_with_reason_ended():
    game = blockyard.new_game("eu-classic", seed=4)
    game.end_round()
    assert game.over and game.over_reason == "ended"


def test_restore_refuses_something_that_is_not_a_snapshot():
    with pytest.raises(ValueError, match="not a Blockyard snapshot"):
        blockyard.restore({"score": 3})


def test_python_m_blockyard_and_console_script_exist():
    import importlib.metadata

    scripts = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="console_scripts")}
    assert scripts["blockyard"] == "blockyard.cli:main"
    import importlib.util

    assert importlib.util.find_spec("blockyard.__main__") is not None


def test_challenge_codes_are_reachable_from_the_package():
    code = blockyard.challenge.encode("eu-classic", 5, 100)
    assert blockyard.challenge.decode(code) == blockyard.challenge.Challenge("eu-classic", 5, 100)
