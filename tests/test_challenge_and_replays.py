"""Challenge codes (blockyard.challenge) and replay files (blockyard.replays)."""

from __future__ import annotations

import json

import pytest

import blockyard
from blockyard.challenge import Challenge, decode, encode
from blockyard.replays import (
    KEEP,
    ReplayError,
    list_replays,
    load_replay,
    replay_data,
    save_replay,
    state_digest,
)

IDS = [info.id for info in blockyard.list_rulesets()]


@pytest.mark.parametrize("ruleset_id", IDS)
@pytest.mark.parametrize("seed, score", [(0, None), (7, 0), (2**32 - 1, 123456), (99, None)])
def test_codes_round_trip_for_every_ruleset(ruleset_id, seed, score):
    code = encode(ruleset_id, seed, score)
    assert set(code) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ-")
    assert len(code.replace("-", "")) <= 24
    assert decode(code) == Challenge(ruleset_id, seed, score)


def test_codes_forgive_case_spaces_and_look_alike_letters():
    code = encode("tiered", 4242, 900)
    assert decode(code.lower()) == decode(code.replace("-", " ")) == Challenge("tiered", 4242, 900)
    with_o = code.replace("0", "O")
    assert decode(with_o) == Challenge("tiered", 4242, 900)


def test_every_single_character_typo_is_caught():
    code = encode("eu-classic", 31337, 2500)
    plain = code.replace("-", "")
    alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    caught = 0
    for i, ch in enumerate(plain):
        for other in alphabet.replace(ch, ""):
            typo = plain[:i] + other + plain[i + 1:]
            try:
                decoded = decode(typo)
            except ValueError:
                caught += 1
            else:
                assert decoded != Challenge("eu-classic", 31337, 2500)
    assert caught >= 0.999 * len(plain) * 31


@pytest.mark.parametrize("code, message", [
    ("", "empty"),
    ("ABCD-EF", "has 6 characters"),
    ("0BQ8-WM00-0007-V2U", "'U' cannot be in a code: character 15 is mistyped"),
    ("0BQ8-WM00-0007-V2D", "mistyped"),
    (None, "is text"),
])
def test_malformed_codes_get_a_readable_message(code, message):
    with pytest.raises(ValueError, match=message):
        decode(code)


def test_a_code_for_a_ruleset_not_installed_here():
    code = encode("someone-elses-mod", 5)
    with pytest.raises(ValueError, match="not installed here"):
        decode(code)


def test_encode_refuses_what_does_not_fit():
    with pytest.raises(ValueError, match="seed"):
        encode("eu-classic", 2**32)
    with pytest.raises(ValueError, match="score"):
        encode("eu-classic", 1, -5)


def finished_game(ruleset="eu-classic", seed=3):
    game = blockyard.new_game(ruleset, seed=seed)
    while not game.over and game.moves < 25:
        if game.kind == "falling":
            game.move(1 if game.moves % 2 else -1)
            game.hard_drop()
            game.tick(0.3)
        else:
            moves = game.legal_moves()
            game.place(*moves[len(moves) // 2])
    if not game.over:
        game.end_round()
    return game


@pytest.mark.parametrize("ruleset", ["eu-classic", "sudoku-bloxx", "eu-timed"])
def test_a_replay_file_rebuilds_the_finished_game_exactly(ruleset, tmp_path):
    game = finished_game(ruleset)
    path = save_replay(game, player="Ana", folder=tmp_path)
    loaded = load_replay(path)
    loaded.check()
    assert loaded.player == "Ana" and loaded.score == game.score
    assert loaded.rebuild().snapshot() == game.snapshot()
    assert loaded.start().moves == 0
    data = json.loads(path.read_text())
    assert data["engine"] == blockyard.__version__
    assert data["ruleset_digest"] == game.ruleset.digest


def test_a_replay_whose_rule_file_changed_is_refused(tmp_path, isolated_home):
    folder = isolated_home / "config" / "rulesets"
    folder.mkdir(parents=True)
    rules = folder / "mine.toml"
    rules.write_text('[ruleset]\nextends = "eu-classic"\nid = "mine"\nname = "Mine"\n')
    game = finished_game("mine")
    path = save_replay(game, folder=tmp_path)
    load_replay(path).check()
    rules.write_text('[ruleset]\nextends = "eu-classic"\nid = "mine"\nname = "Mine"\n'
                     "[plugins.line-scoring]\nperfect_clear = 5000\n")
    # said as what it is: the rule key with both values, never "altered"
    with pytest.raises(ReplayError, match=r"the rules of 'mine' differ: played with "
                       r"plugins\.line-scoring\.perfect_clear = 2000; this installation "
                       r"has 5000; the replay would show a different game"):
        load_replay(path).check()


def test_a_replay_that_plays_differently_is_refused(tmp_path):
    game = finished_game()
    path = save_replay(game, folder=tmp_path)
    data = json.loads(path.read_text())
    data["final_digest"] = "0" * 64
    path.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match="plays it differently"):
        load_replay(path).check()


@pytest.mark.parametrize(("key", "claim"), [
    ("score", "+1000"), ("seed", "+1"), ("over_reason", "altered"), ("date", "2001-01-01")])
def test_a_replay_header_that_differs_from_its_log_is_refused_naming_the_field(
        tmp_path, key, claim):
    # issue 22, reproducer 2: the header is a claim; the log is the referee
    game = finished_game()
    path = save_replay(game, folder=tmp_path)
    assert load_replay(path).check().snapshot() == game.snapshot()
    data = json.loads(path.read_text())
    data[key] = data[key] + 1000 if claim == "+1000" else (
        data[key] + 1 if claim == "+1" else claim)
    path.write_text(json.dumps(data))
    loaded = load_replay(path)  # a well-formed file: only the game can tell
    with pytest.raises(ReplayError, match=rf": {key}: the file says .* but its log plays "
                                          r".*; the file was altered"):
        loaded.check()


def test_a_replay_header_of_another_type_is_refused():
    game = finished_game()
    from blockyard.replays import Replay, replay_data

    data = replay_data(game)
    assert Replay(None, dict(data)).check().score == game.score
    data["over_reason"] = None if game.over_reason else "stuck"
    with pytest.raises(ReplayError, match="over_reason: the file says"):
        Replay(None, data).check()


def test_the_figures_of_a_replay_are_the_rebuilt_games(tmp_path):
    game = finished_game()
    loaded = load_replay(save_replay(game, folder=tmp_path))
    assert loaded.game.score == game.score and loaded.game.over_reason == game.over_reason
    assert loaded.game is loaded.game  # rebuilt once


def test_not_a_replay(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    with pytest.raises(ReplayError, match="not a Blockyard replay"):
        load_replay(bad)
    bad.write_text("{")
    with pytest.raises(ReplayError, match="not a readable replay"):
        load_replay(bad)


def test_only_the_last_20_replays_per_ruleset_are_kept(isolated_home):
    games = [finished_game(seed=s) for s in range(KEEP + 3)]
    for game in games:
        save_replay(game)
    kept = list_replays("eu-classic")
    assert len(kept) == KEEP
    seeds = {load_replay(p).data["seed"] for p in kept}
    assert seeds == {g.seed for g in games[3:]}
    assert state_digest(games[0]) != state_digest(games[1])


def test_a_mistyped_code_points_at_the_wrong_character():
    from blockyard.challenge import ALPHABET, CodeError

    for score in (None, 2500):
        plain = encode("eu-classic", 31337, score).replace("-", "")
        for i in range(0, len(plain), 3):
            other = ALPHABET[(ALPHABET.index(plain[i]) + 7) % 32]
            typo = plain[:i] + other + plain[i + 1:]
            with pytest.raises(CodeError) as caught:
                decode(typo[:4] + "-" + typo[4:])
            error = caught.value
            assert (error.reason, error.position, error.character, error.suggestion) == \
                ("mistyped", i + 1, other, plain[i])
            assert str(error) == (f"The code is mistyped: character {i + 1} ({other}) is "
                                  f"probably {plain[i]}.")


def test_the_mistyped_character_is_the_one_change_that_makes_the_code_valid():
    # the definition, by trial of every character, beside likely_typo's reading of
    # it from the check symbols: valid codes, one change, two changes, noise
    import random

    from blockyard.challenge import CHECK_SYMBOLS, check_symbols, likely_typo

    def by_trial(symbols):
        for index, original in enumerate(symbols):
            for value in range(32):
                trial = [*symbols[:index], value, *symbols[index + 1:]]
                if value != original and \
                        check_symbols(trial[:-CHECK_SYMBOLS]) == trial[-CHECK_SYMBOLS:]:
                    return index, value
        return None

    rnd = random.Random(5)
    found = 0
    for _ in range(400):
        data = [rnd.randrange(32) for _ in range(rnd.randrange(1, 14))]
        symbols = data + check_symbols(data)
        for _ in range(rnd.choice((0, 1, 1, 1, 2, 3))):
            symbols[rnd.randrange(len(symbols))] = rnd.randrange(32)
        if rnd.random() < 0.1:
            symbols = [rnd.randrange(32) for _ in symbols]
        expected = by_trial(symbols)
        found += expected is not None
        assert likely_typo(symbols) == expected, symbols
    assert found > 100  # the one-change case was tried, often


def test_a_code_with_two_typos_is_refused_without_guessing():
    from blockyard.challenge import ALPHABET, CodeError

    plain = encode("eu-classic", 31337, 2500).replace("-", "")
    typo = "".join(ALPHABET[(ALPHABET.index(ch) + 1) % 32] if i in (2, 9) else ch
                   for i, ch in enumerate(plain))
    with pytest.raises(CodeError) as caught:
        decode(typo)
    assert caught.value.reason == "mistyped" and caught.value.position is None
    assert str(caught.value).startswith("The code is mistyped")


@pytest.mark.parametrize("older", ["snapshot_state_digest", "legacy_state_digest"])
def test_a_replay_file_of_an_older_final_digest_form_still_checks(tmp_path, older):
    # before blockyard-state/3 files hashed the snapshot's JSON; before December
    # 2026 the rule text too
    from blockyard import replays

    game = blockyard.new_game("eu-classic", seed=6)
    for _ in range(5):
        game.place(*game.legal_moves()[0])
    game.end_round()
    data = replay_data(game, "old")
    digest = getattr(replays, older)(game)
    assert data["final_digest"] == state_digest(game) != digest
    data["final_digest"] = digest
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    assert load_replay(path).check().score == game.score
    data["final_digest"] = "0" * 64
    path.write_text(json.dumps(data))
    with pytest.raises(ReplayError, match="plays it differently"):
        load_replay(path).check()


def _changed(key, value, game):
    """``value`` of snapshot field ``key`` changed the least a game could."""
    if key == "cells":
        filled = next(i for i, colour in enumerate(value) if colour)
        return [*value[:filled], value[filled] % 9 + 1, *value[filled + 1:]]
    if key == "tray":
        slot = next(i for i, piece in enumerate(value) if piece)
        return [*value[:slot], {**value[slot], "colour": value[slot]["colour"] + 1},
                *value[slot + 1:]]
    if key == "bits":
        return value  # the cells' colours say where the board is filled: below
    if key == "state":
        return {**value, "zz-plugin": {"n": 1}}
    if isinstance(value, bool) or value is None:
        return not value if isinstance(value, bool) else "ended"
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, list):
        return [*value, value[0] if value else 1]
    raise AssertionError(f"no change made for {key}: {value!r}")


@pytest.mark.parametrize("ruleset_id", ["eu-classic", "sudoku-bloxx", "arcadeforge-rotate"])
def test_the_final_digest_changes_with_every_field_a_snapshot_holds(ruleset_id):
    """The digest is hashed from the game's fields, not a snapshot's JSON: any
    field of the snapshot state (but the cells' piece ids, which the moves
    decide) changed alone changes it."""
    from blockyard.replays import reaches

    game = blockyard.new_game(ruleset_id, seed=4)
    for _ in range(6):
        if game.kind == "tray":
            game.place(*game.legal_moves()[0])
        else:
            game.hard_drop()
            game.tick(0.5)
    base = state_digest(game)
    assert base == state_digest(game.clone()) and reaches(game, base)
    state = game.snapshot_state()
    for key, value in state.items():
        if key in ("cell_pieces", "bits"):
            continue
        other = game.clone()
        changed = {**state, key: _changed(key, value, game)}
        if key == "cells":
            changed["cell_pieces"] = None
        other._restore_state(changed)
        assert state_digest(other) != base, f"{key} is not in the digest"
    board = game.grid
    other = game.clone()
    other._restore_state({**state, "bits": board.bits ^ 1 if board.bits & 1 else board.bits | 1,
                          "cells": None, "cell_pieces": None})
    assert state_digest(other) != base, "bits are not in the digest"


def test_an_engine_that_snapshots_more_has_that_in_its_digest():
    from blockyard.tray import TrayGame

    class Keeps(TrayGame):
        extra = 1

        def snapshot_state(self):
            return {**super().snapshot_state(), "extra": self.extra}

    game = blockyard.new_game("eu-classic", seed=2)
    game.place(*game.legal_moves()[0])
    base = state_digest(game)
    game.__class__ = Keeps
    assert state_digest(game) != base
    first = state_digest(game)
    game.extra = 2
    assert state_digest(game) != first


@pytest.mark.parametrize(("ruleset_id", "board"), [
    ("eu-classic", None), ("sudoku-bloxx", None), ("arcadeforge-rotate", None),
    ("eu-classic", "\n".join(["#" + "." * 9] + ["." * 10] * 9))])
def test_the_replay_text_is_the_replay_data_in_compact_json(ruleset_id, board):
    """replay_json writes in parts what replay_data holds: the same keys in the
    same order, the same values (a chosen start's reason too)."""
    from blockyard.replays import replay_json

    game = blockyard.new_game(ruleset_id, seed=5, **({"board": board} if board else {}))
    for _ in range(4):
        if game.kind == "tray":
            game.place(*game.legal_moves()[0])
        else:
            game.hard_drop()
    for _ in range(2):  # the same rules and plugins a second time: from the parts kept
        text = replay_json(game, "pl\u00e4yer")
        data = replay_data(game, "pl\u00e4yer")
        written = json.loads(text)
        assert written.pop("finished")[:4] == data.pop("finished")[:4]
        assert list(written) == list(data) and written == json.loads(json.dumps(data))
        assert text.isascii() and ", " not in text[:200]
    assert (written["chosen_start"] is None) == (board is None)
