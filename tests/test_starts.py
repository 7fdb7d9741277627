"""Every start the API takes gives a game it can restore (issue 52, point 4):
seeds outside the snapshot's range, starting boards and trays of the wrong type,
dates that are not dates, a time limit or an end reason a snapshot cannot carry
are refused with ``ValueError`` naming the field, in ``new_game``, ``blockyard
play --seed`` and the gym's ``reset``; what is accepted restores."""

from __future__ import annotations

import datetime as _dt
import json

import pytest

import blockyard
from blockyard import PluginError, hookimpl
from blockyard.actions import ActionSpec
from blockyard.cli import main
from blockyard.params import Params
from blockyard.validate import MAX_SEED


def restores(game: blockyard.Game) -> bool:
    snap = json.loads(json.dumps(game.snapshot()))
    return blockyard.restore(snap).snapshot() == game.snapshot()


@pytest.mark.parametrize("seed", [MAX_SEED, 2**64, -MAX_SEED - 1, 10**30,
                                  pytest.param(10**5000, id="5001-digits")])
def test_a_seed_a_snapshot_cannot_carry_is_refused_naming_the_seed(seed):
    with pytest.raises(ValueError, match=r"^seed: expected an integer from -2\*\*63 to "
                                         r"2\*\*63 - 1"):
        blockyard.new_game("eu-classic", seed=seed)


@pytest.mark.parametrize("seed", [MAX_SEED - 1, -MAX_SEED, 0])
def test_every_seed_in_the_snapshots_range_plays_and_restores(seed):
    game = blockyard.new_game("eu-classic", seed=seed)
    game.place(*game.legal_moves()[0])
    assert game.seed == seed and restores(game)


@pytest.mark.parametrize(("field", "value", "told"), [
    ("board", 5, r"^board: expected text \(a str\), found int 5"),
    ("board", b"..........", r"^board: expected text \(a str\), found bytes"),
    ("board", ["." * 10] * 10, r"^board: expected text \(a str\), found list"),
    ("tray", "##", r"^tray: expected a list of pieces .* found the str '##'; one piece is a "
                   r"list of one"),
    ("tray", b"#", r"^tray: expected a list of pieces .* found the bytes"),
    ("tray", 7, r"^tray: expected a list of pieces .* found int 7"),
    ("stream", 5, r"^stream: expected text \(a str\), found int 5"),
    ("date", "2026-12-07", r"^date: expected a datetime.date, found str"),
    ("date", _dt.datetime(2026, 12, 7, 10), r"^date: expected a datetime.date, found datetime"),
])
def test_a_start_of_the_wrong_type_is_a_value_error_naming_the_field(field, value, told):
    with pytest.raises(ValueError, match=told):
        blockyard.new_game("eu-classic", seed=1, **{field: value})


def test_a_tray_of_one_piece_is_a_list_of_one():
    game = blockyard.new_game("eu-classic", seed=1, tray=["##"])
    assert game.tray[0] is not None and game.tray[0].size == 2 and game.tray[1:] == (None, None)
    assert restores(game)


def test_play_refuses_a_seed_a_saved_game_cannot_hold_before_any_window(monkeypatch, capsys):
    import blockyard.frontend_entry

    calls: list[dict[str, object]] = []
    monkeypatch.setattr(blockyard.frontend_entry, "run_frontend",
                        lambda **kwargs: calls.append(kwargs) or 0)
    with pytest.raises(SystemExit) as done:
        main(["play", "eu-classic", "--seed", str(2**63)])
    assert done.value.code == 2 and calls == []
    err = capsys.readouterr().err
    assert "--seed: expected a whole number from -2**63 to 2**63 - 1" in err, err
    assert main(["play", "eu-classic", "--seed", str(2**63 - 1)]) == 0
    assert calls[0]["seed"] == 2**63 - 1


def test_the_gym_refuses_a_game_seed_a_snapshot_cannot_carry():
    from blockyard.gym import BlockyardEnv

    env = BlockyardEnv("eu-classic")
    with pytest.raises(ValueError, match=r"^reset options: game_seed: expected an integer "
                                         r"from -2\*\*63 to 2\*\*63 - 1"):
        env.reset(options={"game_seed": 2**64})
    env.reset(options={"game_seed": 2**63 - 1})
    assert env.game is not None and restores(env.game)


# -- what plugins hand over at the start and the end ------------------------------------------

TRAY = """
[ruleset]
id = "starts"
name = "Starts"
family = "test"
description = "starts a snapshot can carry"
[board]
rows = 5
cols = 5
[pieces.dot]
shapes = ["#"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
"""


class Clock:
    def __init__(self, params: Params) -> None:
        self.seconds = params.number("seconds")

    @hookimpl
    def blockyard_time_limit(self, ruleset):
        return self.seconds


@pytest.mark.parametrize("seconds", ["1e-9", "4e-7"])
def test_a_time_limit_below_the_clocks_microsecond_is_refused(rule_file, register_plugin,
                                                             seconds):
    register_plugin("tiny-clock", Clock)
    path = rule_file(TRAY + f"[plugins.tiny-clock]\nseconds = {seconds}\n")
    with pytest.raises(PluginError, match=r"plugin 'tiny-clock', hook blockyard_time_limit.*"
                                          r"at least 0.000001, a microsecond"):
        blockyard.load_ruleset(path)


def test_a_time_limit_of_a_microsecond_gives_games_that_restore(rule_file, register_plugin):
    register_plugin("tiny-clock", Clock)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.tiny-clock]\nseconds = 1e-6\n"))
    game = blockyard.new_game(ruleset, seed=1)
    assert game.over_reason is None and restores(game)
    game.tick(1.0)
    assert game.over_reason == "time" and restores(game)


class Reason:
    """Ends the game after one move with the reason its parameter gives."""

    def __init__(self, params: Params) -> None:
        self.reason = params.string("reason")

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        return self.reason if game.moves else None


class Quit:
    """An action ending the game with the reason its parameter gives."""

    def __init__(self, params: Params) -> None:
        self.reason = params.string("reason")

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("quit", "Quit", lambda game: game.end_game(self.reason))]


@pytest.mark.parametrize("reason", ["a\\u0000b", "two\\nlines", "tab\\there", "x" * 65])
def test_an_end_reason_a_snapshot_cannot_carry_is_a_plugin_error(rule_file, register_plugin,
                                                                   reason):
    register_plugin("reason", Reason)
    register_plugin("quit", Quit)
    ruleset = blockyard.load_ruleset(rule_file(
        TRAY + f'[plugins.reason]\nreason = "{reason}"\n', "reason.toml"))
    game = blockyard.new_game(ruleset, seed=1, tray=["#"])
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"plugin 'reason', hook blockyard_end_reason"):
        game.place(0, 0, 0)
    assert game.snapshot() == before
    ruleset = blockyard.load_ruleset(rule_file(
        TRAY + f'[plugins.quit]\nreason = "{reason}"\n', "quit.toml"))
    game = blockyard.new_game(ruleset, seed=1)
    before = game.snapshot()
    with pytest.raises(PluginError, match=r"plugin 'quit', hook blockyard_actions .*"
                                          r"end_game: expected a reason of"):
        game.act("quit")
    assert game.snapshot() == before


def test_an_end_reason_of_one_printable_line_ends_a_game_that_restores(rule_file,
                                                                       register_plugin):
    register_plugin("quit", Quit)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + '[plugins.quit]\nreason = "gave up — ok"\n'))
    game = blockyard.new_game(ruleset, seed=1)
    game.act("quit")
    assert game.over_reason == "gave up — ok" and restores(game)


def test_a_snapshot_with_an_end_reason_of_two_lines_is_refused_naming_it():
    game = blockyard.new_game("eu-classic", seed=1)
    game.end_round()
    snap = game.snapshot()
    snap["over_reason"] = "ended\nagain"
    with pytest.raises(blockyard.DataError, match=r"^snapshot.over_reason: expected a reason of "
                                                  r"printable characters on one line"):
        blockyard.restore(snap)


def test_a_timed_game_whose_last_tick_runs_past_the_limit_restores():
    game = blockyard.new_game("eu-timed", seed=1)
    limit = game.time_left
    assert limit is not None
    game.tick(limit - 0.5)
    game.tick(3.0)  # ends the game 2.5 s past its limit
    assert game.over_reason == "time" and restores(game)
    snap = game.snapshot()
    snap["elapsed_us"] = round(limit * 1_000_000) + 86_400_000_001
    with pytest.raises(blockyard.DataError, match=r"^snapshot.elapsed_us: expected an integer"):
        blockyard.restore(snap)
