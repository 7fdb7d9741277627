"""``[tray] slots``: how many pieces a set deals (1 to 6, default 3), read from
the rule file and used by the engine, snapshots, replays, bots and the
Gymnasium environments."""

from __future__ import annotations

import json

import pytest

import blockyard
from blockyard import DataError, IllegalMove, RulesetError
from blockyard.bots import get_bot


def variant(rule_file, slots: int | str, base: str = "eu-classic",
            rid: str | None = None, extra: str = "") -> blockyard.Ruleset:
    """A small rule file extending ``base`` with ``[tray] slots = slots``."""
    rid = rid or f"{base}-{slots}-slots"
    return blockyard.load_ruleset(rule_file(
        f'[ruleset]\nid = "{rid}"\nname = "Slots"\nfamily = "test"\ndescription = "x"\n'
        f'extends = "{base}"\n\n[tray]\nslots = {slots}\n{extra}', f"{rid}.toml"))


def test_three_slots_without_a_tray_table():
    for ruleset_id in ("eu-classic", "tiered", "nepal-new", "arcadeforge", "woodoku"):
        ruleset = blockyard.load_ruleset(ruleset_id)
        assert ruleset.tray_slots == 3
        assert len(blockyard.new_game(ruleset, seed=1).tray) == 3
        assert "[tray]" not in ruleset.to_toml()  # the bundled rules are unchanged


@pytest.mark.parametrize("slots", [1, 4])
def test_a_variant_plays_to_the_end_under_the_conformance_kit(rule_file, slots,
                                                               blockyard_conformance):
    ruleset = variant(rule_file, slots)
    assert ruleset.tray_slots == slots
    report = blockyard_conformance(ruleset, games=4, max_actions=300)
    assert report.games == 4
    # to the end. With eu's one-fits dealing one slot always holds a piece that
    # fits, so that game hardly ends: the variant without the guarantee does
    unguaranteed = variant(rule_file, slots, rid=f"no-guarantee-{slots}",
                           extra='\n[plugins.weighted-dealing]\nguarantee = "none"\n')
    blockyard_conformance(unguaranteed, games=4, max_actions=300)
    for seed in range(3):
        game = blockyard.new_game(unguaranteed, seed=seed)
        get_bot("greedy").play(game, max_moves=2000)
        assert game.over and game.over_reason == "stuck"
        assert len(game.tray) == slots
        assert game.tray.count(None) < slots
        assert not any(game.piece_fits_somewhere(p) for p in game.tray if p is not None)
        assert blockyard.replay(game.log).snapshot() == game.snapshot()


@pytest.mark.parametrize(("base", "slots"), [("tiered", 2), ("arcadeforge-rotate", 6),
                                             ("eu-zen", 5)])
def test_variants_with_actions_conform(rule_file, base, slots, blockyard_conformance):
    blockyard_conformance(variant(rule_file, slots, base), games=3, max_actions=200)


@pytest.mark.parametrize("slots", [1, 4])
def test_snapshots_and_logs_round_trip_with_the_slots(rule_file, slots):
    ruleset = variant(rule_file, slots)
    game = blockyard.new_game(ruleset, seed=8)
    for _ in range(2 * slots + 1):
        game.place(*game.legal_moves()[-1])
    snap = json.loads(json.dumps(game.snapshot()))
    assert len(snap["tray"]) == slots
    restored = blockyard.restore(snap)
    assert restored.snapshot() == game.snapshot()
    assert restored.tray == game.tray
    assert blockyard.replay(game.log).snapshot() == game.snapshot()
    for twin in (restored, game):
        twin.place(*twin.legal_moves()[0])
    assert restored.snapshot() == game.snapshot()


def test_a_snapshot_with_the_wrong_number_of_slots_is_refused(rule_file):
    game = blockyard.new_game(variant(rule_file, 4), seed=2)
    snap = game.snapshot()
    snap["tray"] = snap["tray"][:3]
    with pytest.raises(DataError, match=r"snapshot\.tray: expected 4 slots \(\[tray\] slots\), "
                                        r"found 3"):
        blockyard.restore(snap)


def test_slots_and_starting_trays_follow_the_rule_file(rule_file):
    ruleset = variant(rule_file, 4)
    game = blockyard.new_game(ruleset, seed=1, tray=["#", "##", None, "#\n#"])
    assert [p and p.art for p in game.tray] == ["#", "##", None, "#\n#"]
    game.place(3, 0, 0)
    with pytest.raises(IllegalMove, match=r"slot: expected a tray slot from 0 to 3, found 4"):
        game.place(4, 0, 0)
    with pytest.raises(ValueError, match=r"tray: at most 4 pieces"):
        blockyard.new_game(ruleset, seed=1, tray=["#"] * 5)
    assert blockyard.replay(game.log).snapshot() == game.snapshot()
    with pytest.raises(ValueError, match=r"set_tray: at most 4 pieces"):
        game.set_tray([game.tray[0]] * 5)


@pytest.mark.parametrize(("value", "words"), [
    ("0", "tray.slots: expected at least 1, found 0"),
    ("7", "tray.slots: expected at most 6, found 7"),
    ('"three"', "tray.slots: expected an integer, found"),
    ("2.5", "tray.slots: expected an integer, found"),
])
def test_a_wrong_slot_count_is_refused_by_name(rule_file, value, words):
    with pytest.raises(RulesetError) as caught:
        variant(rule_file, value, rid="bad-slots")
    assert words in str(caught.value)
    assert "bad-slots.toml" in str(caught.value)


def test_unknown_tray_keys_and_falling_trays_are_refused(rule_file):
    with pytest.raises(RulesetError, match=r"tray"):
        blockyard.load_ruleset(rule_file(
            '[ruleset]\nid = "x-slots"\nname = "x"\nfamily = "t"\ndescription = "x"\n'
            'extends = "eu-classic"\n\n[tray]\nslot = 4\n', "x.toml"))
    with pytest.raises(RulesetError, match=r"tray: a tray is for tray games"):
        blockyard.load_ruleset(rule_file(
            '[ruleset]\nid = "sudoku-tray"\nname = "x"\nfamily = "t"\ndescription = "x"\n'
            'extends = "sudoku-bloxx"\n\n[tray]\nslots = 4\n', "s.toml"))


@pytest.mark.parametrize("bot", ["random", "greedy", "search"])
def test_bots_play_every_slot_count(rule_file, bot):
    for slots in (1, 4):
        game = blockyard.new_game(variant(rule_file, slots), seed=5)
        get_bot(bot).play(game, max_moves=3 * slots + 2)
        assert game.moves == 3 * slots + 2 or game.over


def test_the_gym_environment_is_sized_by_the_slots(rule_file):
    gym = pytest.importorskip("blockyard.gym")
    from gymnasium.utils.env_checker import check_env

    ruleset = variant(rule_file, 4)
    env = gym.BlockyardEnv(ruleset, actions="place")
    size = ruleset.rows * ruleset.cols
    assert env.action_space.n == 4 * size
    assert env.observation_space["pieces"].shape == (4, 5, 5)
    obs, info = env.reset(seed=3)
    game = env.game
    assert obs["pieces"].shape == (4, 5, 5)
    for slot, piece in enumerate(game.tray):
        assert obs["pieces"][slot].sum() == (piece.size if piece else 0)
    mask = info["action_mask"]
    assert mask.shape == (4 * size,)
    expected = {slot * size + row * ruleset.cols + col for slot, row, col in game.legal_moves()}
    assert set(mask.nonzero()[0].tolist()) == expected
    assert env.encode_action("place", 3, 1, 2) == 3 * size + ruleset.cols + 2
    with pytest.raises(ValueError, match="outside the tray"):
        env.encode_action("place", 4, 0, 0)
    action = max(expected)  # a placement from the last slots
    obs, reward, _, _, info = env.step(action)
    assert reward == game.score
    assert [line.split()[:4] for line in gym.render_text(game).splitlines()
            if line.startswith("0:")] == [["0:", "1:", "2:", "3:"]]
    assert gym.render_image(game).shape[2] == 3
    check_env(gym.BlockyardEnv(ruleset), skip_render_check=True)
    vec = gym.BlockyardVectorEnv(2, ruleset)
    obs, info = vec.reset(seed=1)
    assert obs["pieces"].shape == (2, 4, 5, 5)
    assert info["action_mask"].shape[1] == vec.single_action_space.n
    vec.close()
