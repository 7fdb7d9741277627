"""blockyard.gym: the Gymnasium environments (docs/gym.md, docs/api.md §9)."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode

import blockyard
import blockyard.gym as bg
from blockyard.frontend import theme

ROOT = Path(__file__).resolve().parent.parent
TRAY_RULESETS = sorted(info.id for info in blockyard.list_rulesets()
                       if info.error is None and blockyard.load_ruleset(info.id).mode == "tray")
FULL_BOTTOM = "\n".join(["." * 10] * 6 + ["#########."] * 4)
STUCK_BOARD = "\n".join(["#########."] * 10)  # only column 9 free: no 3×3 square fits
SQUARE = "###\n###\n###"
I4 = "#\n#\n#\n#"


def masked_random_run(env: bg.BlockyardEnv, seed: int, steps: int) -> list[tuple]:
    """Play ``steps`` masked random actions; the record of everything seen."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    seen = [(obs, info["action_mask"])]
    for _ in range(steps):
        legal = np.flatnonzero(info["action_mask"])
        action = int(legal[rng.integers(len(legal))])
        obs, reward, terminated, _truncated, info = env.step(action)
        seen.append((action, obs, reward, terminated, info["action_mask"]))
        if terminated:
            obs, info = env.reset()
            seen.append((obs, info["action_mask"]))
    return seen


def assert_same(a: object, b: object) -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, tuple | list):
        assert isinstance(b, tuple | list) and len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    elif isinstance(a, np.ndarray):
        assert isinstance(b, np.ndarray) and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


# -- registration ---------------------------------------------------------------------

def test_every_tray_ruleset_is_registered_and_nothing_else():
    registered = {name for name in gymnasium.registry if name.startswith("blockyard/")}
    assert registered == {f"blockyard/{rid}-v0" for rid in TRAY_RULESETS}
    assert "blockyard/sudoku-bloxx-v0" not in registered
    assert {"blockyard/eu-classic-v0", "blockyard/tiered-v0",
            "blockyard/arcadeforge-rotate-v0"} <= registered
    spec = gymnasium.spec("blockyard/eu-classic-v0")
    assert spec.entry_point == "blockyard.gym:BlockyardEnv"
    assert spec.vector_entry_point == "blockyard.gym:BlockyardVectorEnv"


def test_make_with_the_module_prefix_works_in_a_fresh_process():
    code = ("import gymnasium, sys\n"
            "env = gymnasium.make('blockyard.gym:blockyard/eu-classic-v0')\n"
            "obs, info = env.reset(seed=3)\n"
            "print(env.action_space, sorted(obs), int(info['action_mask'].sum()))\n"
            "assert 'blockyard.gym' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.startswith("Discrete(301) ['board', 'pieces', 'stats'] ")
    assert int(out.stdout.split()[-1]) > 0


def test_register_envs_refuses_a_falling_ruleset_named_explicitly():
    with pytest.raises(ValueError, match=r"sudoku-bloxx.*tray rulesets only"):
        bg.register_envs(["sudoku-bloxx"])
    with pytest.raises(ValueError, match="tray rulesets only"):
        bg.BlockyardEnv("sudoku-bloxx")


def test_a_rule_file_found_later_is_registered_on_request(rule_file):
    path = rule_file("""
        [ruleset]
        extends = "eu-classic"
        id = "gym-test-small"
        name = "Small"
        family = "eu"
        description = "8×8"
        [board]
        rows = 8
        cols = 8
    """)
    ruleset = blockyard.load_ruleset(path)
    try:
        assert bg.register_envs([ruleset]) == ["blockyard/gym-test-small-v0"]
        assert bg.register_envs([path]) == []  # already there
        env = gymnasium.make("blockyard/gym-test-small-v0")
        assert env.action_space == gymnasium.spaces.Discrete(3 * 64 + 1)
        assert env.unwrapped.ruleset.path == str(path)
        vec = gymnasium.make_vec("blockyard/gym-test-small-v0", num_envs=2)
        assert vec.reset(seed=0)[0]["board"].shape == (2, 8, 8)
    finally:
        del gymnasium.registry["blockyard/gym-test-small-v0"]


# -- the environment checker ------------------------------------------------------------

@pytest.mark.parametrize("ruleset_id", TRAY_RULESETS)
def test_check_env_passes_without_warnings(ruleset_id):
    env = gymnasium.make(bg.env_id(ruleset_id))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # the unwrapped env keeps its spec, so every declared render mode is checked too
        check_env(env.unwrapped)


@pytest.mark.parametrize("ruleset_id", ["eu-classic", "tiered", "arcadeforge-rotate"])
def test_check_env_passes_for_placements_only_and_other_rewards(ruleset_id):
    for kwargs in ({"actions": "place"}, {"reward": "lines"}, {"reward": "survival"}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(bg.BlockyardEnv(ruleset_id, **kwargs), skip_render_check=True)


# -- spaces and the meaning of actions -------------------------------------------------

@pytest.mark.parametrize(("ruleset_id", "size", "extras"), [
    ("eu-classic", 300, ("continue",)),
    ("eu-zen", 300, ()),                       # the refill is automatic
    ("arcadeforge", 192, ()),
    ("arcadeforge-rotate", 192, ("rotate 0", "rotate 1", "rotate 2")),
    ("tiered", 300, ("swap",)),
    ("woodoku", 243, ()),
])
def test_action_space_is_placements_then_the_rulesets_own_actions(ruleset_id, size, extras):
    env = bg.BlockyardEnv(ruleset_id)
    assert env.action_space == gymnasium.spaces.Discrete(size + len(extras))
    assert env.action_names[size:] == extras
    assert "end" not in env.action_names
    only = bg.BlockyardEnv(ruleset_id, actions="place")
    assert only.action_space == gymnasium.spaces.Discrete(size)


def test_observation_space_is_documented_dict():
    env = bg.BlockyardEnv("eu-classic")
    space = env.observation_space
    assert set(space.spaces) == {"board", "pieces", "stats"}
    assert space["board"] == gymnasium.spaces.MultiBinary([10, 10])
    assert space["pieces"] == gymnasium.spaces.MultiBinary([3, 5, 5])
    assert space["stats"].shape == (len(bg.STAT_NAMES),) == (6,)
    assert bg.STAT_NAMES == ("score", "combo", "moves", "lines_cleared", "swaps_left",
                             "time_left")
    assert bg.BlockyardEnv("eu-classic", piece_size=7).observation_space["pieces"].shape \
        == (3, 7, 7)
    with pytest.raises(ValueError, match="piece_size: expected an integer from 5"):
        bg.BlockyardEnv("eu-classic", piece_size=4)


def test_action_number_is_slot_row_col():
    env = bg.BlockyardEnv("eu-classic")
    assert env.decode_action(0) == ("place", 0, 0, 0)
    assert env.decode_action(1 * 100 + 3 * 10 + 7) == ("place", 1, 3, 7)
    assert env.decode_action(299) == ("place", 2, 9, 9)
    assert env.decode_action(300) == ("continue",)
    assert env.encode_action("place", 2, 4, 5) == 245
    assert env.encode_action("place", np.int64(2), 4, 5) == 245
    with pytest.raises(ValueError, match="place: expected slot, row and col"):
        env.encode_action("place", 1, 2)
    with pytest.raises(ValueError, match="outside the tray"):
        env.encode_action("place", 3, 0, 0)
    assert env.encode_action("continue") == 300
    rotate = bg.BlockyardEnv("arcadeforge-rotate")
    assert rotate.encode_action("rotate", 2) == 194
    assert rotate.decode_action(193) == ("rotate", 1)
    with pytest.raises(ValueError, match="no environment action 'swap'"):
        env.encode_action("swap")
    with pytest.raises(ValueError, match=r"outside Discrete\(301\)"):
        env.decode_action(301)


@pytest.mark.parametrize("ruleset_id", ["eu-classic", "woodoku", "nepal-today", "tiered",
                                        "arcadeforge"])
def test_mask_is_exactly_the_games_legal_moves(ruleset_id):
    env = bg.BlockyardEnv(ruleset_id)
    rng = np.random.default_rng(1)
    _obs, info = env.reset(seed=11)
    checked = 0
    for _ in range(150):
        game = env.game
        mask = info["action_mask"]
        np.testing.assert_array_equal(mask, env.action_masks())
        placements = {env.decode_action(int(a))[1:]
                      for a in np.flatnonzero(mask[:3 * game.rows * game.cols])}
        assert placements == set(game.legal_moves())
        extras = {env.action_names[int(a)] for a in np.flatnonzero(mask)
                  if a >= 3 * game.rows * game.cols}
        assert extras == {a.name for a in game.actions() if a.name != "end"}
        checked += 1
        legal = np.flatnonzero(mask)
        _obs, _reward, terminated, _truncated, info = env.step(int(legal[rng.integers(len(legal))]))
        if terminated:
            assert not info["action_mask"].any()
            _obs, info = env.reset()
    assert checked == 150


def test_observation_matches_the_game():
    env = bg.BlockyardEnv("tiered")
    obs, info = env.reset(seed=5)
    for action in (0, 1, 2):
        legal = np.flatnonzero(info["action_mask"][:300])
        obs, _reward, _terminated, _truncated, info = env.step(int(legal[action * 7 % len(legal)]))
        game = env.game
        np.testing.assert_array_equal(obs["board"], np.array(game.board) != 0)
        assert obs["board"].dtype == np.int8
        for slot, piece in enumerate(game.tray):
            expected = np.zeros((5, 5), np.int8)
            if piece is not None:
                for r, c in piece.cells:
                    expected[r, c] = 1
            np.testing.assert_array_equal(obs["pieces"][slot], expected)
        np.testing.assert_array_equal(
            obs["stats"], np.array([game.score, game.combo, game.moves, game.lines_cleared,
                                    game.swaps_left, 0], np.float32))
        assert obs["stats"][4] == game.swaps_left > 0
        assert env.observation_space.contains(obs)


def test_time_left_and_seconds_per_move():
    env = bg.BlockyardEnv("eu-timed", seconds_per_move=30)
    obs, info = env.reset(seed=2)
    limit = env.game.time_left
    assert limit is not None and obs["stats"][5] == pytest.approx(limit)
    legal = np.flatnonzero(info["action_mask"])
    obs, _reward, terminated, _truncated, info = env.step(int(legal[0]))
    assert obs["stats"][5] == pytest.approx(limit - 30)
    steps = 1
    while not terminated:
        legal = np.flatnonzero(info["action_mask"])
        obs, _reward, terminated, _truncated, info = env.step(int(legal[-1]))
        steps += 1
    assert steps <= limit / 30 + 1


# -- rewards -------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["points", "lines", "survival"])
def test_reward_is_the_moves_points_lines_or_one(kind):
    env = bg.BlockyardEnv("eu-classic", reward=kind)
    _obs, info = env.reset(options={"game_seed": 42, "board": FULL_BOTTOM, "tray": [I4]})
    twin = blockyard.new_game("eu-classic", seed=42, board=FULL_BOTTOM, tray=[I4])
    assert env.game.snapshot() == twin.snapshot()
    rng = np.random.default_rng(0)
    scored = 0
    for step in range(60):
        legal = np.flatnonzero(info["action_mask"])
        action = env.encode_action("place", 0, 6, 9) if step == 0 else \
            int(legal[rng.integers(len(legal))])
        kind_of, *args = env.decode_action(action)
        _obs, reward, terminated, _truncated, info = env.step(action)
        if kind_of == "place":
            result = twin.place(*args)
            expected = {"points": result.points, "lines": result.lines, "survival": 1}[kind]
            scored += result.points
            assert info["points"] == result.points and info["lines"] == result.lines
        else:
            twin.act(kind_of, *args)
            expected = 0
        assert reward == expected
        assert isinstance(reward, float)
        assert info["score"] == twin.score == env.game.score
        if step == 0:  # the vertical I4 completes four rows at once
            assert info["lines"] == 4 and info["points"] > 0
        if terminated:
            break
    assert scored == twin.score
    assert env.game.snapshot() == twin.snapshot()


# -- determinism ---------------------------------------------------------------------------

@pytest.mark.parametrize("ruleset_id", ["eu-classic", "tiered", "arcadeforge-rotate",
                                        "eu-zen", "woodoku"])
def test_same_seed_and_actions_give_the_same_observations_and_rewards(ruleset_id):
    first = masked_random_run(bg.BlockyardEnv(ruleset_id), 7, 300)
    second = masked_random_run(bg.BlockyardEnv(ruleset_id), 7, 300)
    assert_same(first, second)
    other = masked_random_run(bg.BlockyardEnv(ruleset_id), 8, 300)
    with pytest.raises(AssertionError):
        assert_same(first, other)


def test_reset_seed_draws_the_game_seed_and_game_seed_pins_it():
    env = bg.BlockyardEnv("eu-classic")
    env.reset(seed=123)
    a = env.game.seed
    env.reset()
    b = env.game.seed
    env.reset(seed=123)
    assert env.game.seed == a
    env.reset()
    assert env.game.seed == b != a
    _obs, _info = env.reset(options={"game_seed": 99})
    game = blockyard.new_game("eu-classic", seed=99)
    assert env.game.seed == 99 and env.game.tray == game.tray
    with pytest.raises(ValueError, match="unknown colour"):
        env.reset(options={"colour": 1})


# -- the ruleset's own actions --------------------------------------------------------------

def test_eu_continue_is_the_only_action_when_stuck_and_reopens_the_game():
    env = bg.BlockyardEnv("eu-classic")
    _obs, info = env.reset(options={"game_seed": 1, "board": STUCK_BOARD,
                                   "tray": [SQUARE, SQUARE, SQUARE]})
    assert env.game.over_reason == "stuck"
    assert np.flatnonzero(info["action_mask"]).tolist() == [300]
    _obs, reward, terminated, _truncated, info = env.step(300)
    assert reward == 0.0 and not terminated
    assert env.game.over_reason is None and env.game.continues_used == 1
    assert info["action_mask"][:300].any() and not info["action_mask"][300]
    # the same start with placements only: nothing is legal, the episode is over
    only = bg.BlockyardEnv("eu-classic", actions="place")
    _obs, info = only.reset(options={"game_seed": 1, "board": STUCK_BOARD,
                                    "tray": [SQUARE, SQUARE, SQUARE]})
    assert not info["action_mask"].any()
    _obs, reward, terminated, _truncated, info = only.step(0)
    assert terminated and info["illegal"] and info["over_reason"] == "stuck"


def test_tiered_swap_deals_a_new_tray_and_is_masked_when_none_are_left():
    env = bg.BlockyardEnv("tiered")
    obs, info = env.reset(seed=4)
    swap = env.encode_action("swap")
    left = env.game.swaps_left
    assert left > 0 and info["action_mask"][swap]
    for used in range(1, left + 1):
        set_before = env.game.set_index
        obs, reward, _terminated, _truncated, info = env.step(swap)
        assert reward == 0.0 and env.game.swaps_left == left - used
        assert obs["stats"][4] == left - used
        assert env.game.log[-1] == ["swap"] and env.game.set_index == set_before + 1
    assert not info["action_mask"][swap]


def test_rotate_turns_the_piece_of_its_slot():
    env = bg.BlockyardEnv("arcadeforge-rotate")
    obs, _info = env.reset(options={"game_seed": 3, "tray": ["###", "#", "##\n#."]})
    obs, reward, _terminated, _truncated, _info = env.step(env.encode_action("rotate", 0))
    assert env.game.tray[0].art == "#\n#\n#" and reward == 0.0
    np.testing.assert_array_equal(obs["pieces"][0][:, 0], [1, 1, 1, 0, 0])
    env.step(env.encode_action("place", 1, 0, 0))
    assert env.game.tray[1] is None
    assert not env.action_masks()[env.encode_action("rotate", 1)]
    assert env.action_masks()[env.encode_action("rotate", 2)]


# -- illegal actions ----------------------------------------------------------------------------

def test_an_illegal_action_changes_nothing_or_raises():
    env = bg.BlockyardEnv("eu-classic", illegal_reward=-5)
    obs, info = env.reset(options={"game_seed": 1, "tray": [SQUARE, SQUARE, SQUARE]})
    before = env.game.snapshot()
    illegal = env.encode_action("place", 0, 9, 9)  # a 3×3 square there leaves the board
    assert not info["action_mask"][illegal]
    obs2, reward, terminated, _truncated, info2 = env.step(illegal)
    assert reward == -5 and info2["illegal"] and not terminated
    assert env.game.snapshot() == before
    assert_same(obs, obs2)
    strict = bg.BlockyardEnv("eu-classic", illegal_action="raise")
    strict.reset(options={"game_seed": 1, "tray": [SQUARE, SQUARE, SQUARE]})
    with pytest.raises(blockyard.IllegalMove, match=r"action 99 \(place 0 9 9\)"):
        strict.step(99)
    with pytest.raises(ValueError, match=r"outside Discrete\(301\)"):
        env.step(301)
    with pytest.raises(ValueError, match="expected an integer"):
        env.step("left")
    with pytest.raises(ValueError, match="reward: expected one of"):
        bg.BlockyardEnv("eu-classic", reward="score")


# -- rendering -------------------------------------------------------------------------------

def test_rgb_array_shows_board_and_tray_in_theme_colours():
    env = bg.BlockyardEnv("eu-classic", render_mode="rgb_array", cell_pixels=24)
    env.reset(options={"game_seed": 1, "board": "#" + "." * 9 + "\n" + "\n".join(
        ["." * 10] * 9), "tray": ["#", None, None]})
    image = env.render()
    assert image.dtype == np.uint8 and image.shape == (10 * 24 + 5 * 12 + 3 * 8, 256, 3)
    margin = 8
    x0 = (256 - 240) // 2
    families = len(env.game.ruleset.families)
    # the pre-filled cell at (0, 0) is neutral, the empty one next to it is empty
    assert tuple(image[margin + 12, x0 + 12]) == theme.piece_colour(families + 1, families)[:3]
    assert tuple(image[margin + 12, x0 + 36]) == theme.EMPTY_CELL[:3]
    assert tuple(image[0, 0]) == theme.BACKGROUND[:3]
    # the dot in slot 0 is drawn in the middle of the first tray panel
    top, panel = 10 * 24 + 2 * margin, 5 * 12
    left = (256 - (3 * panel + 2 * margin)) // 2
    dot = tuple(image[top + panel // 2, left + panel // 2])
    assert dot == theme.piece_colour(env.game.tray[0].colour, families)[:3]
    assert tuple(image[top + 2, left + panel + margin + 2]) == theme.PANEL[:3]


def test_ansi_shows_status_board_and_tray():
    env = bg.BlockyardEnv("tiered", render_mode="ansi")
    env.reset(options={"game_seed": 1, "tray": ["##", "#\n#", None]})
    text = env.render()
    lines = text.splitlines()
    assert lines[0].startswith("tiered  score 0  combo 0  moves 0  swaps ")
    assert lines[1:11] == env.game.board_text().split("\n")
    assert lines[12].split() == ["0:", "1:", "2:"]
    assert lines[13].split() == ["##", "#", "-"]
    assert lines[14].split() == ["#"]
    assert bg.BlockyardEnv("tiered").render() is None


# -- vector environments ----------------------------------------------------------------------

def test_make_vec_uses_the_vector_entry_point_and_matches_single_envs():
    vec = gymnasium.make_vec("blockyard/eu-classic-v0", num_envs=3)
    assert isinstance(vec.unwrapped, bg.BlockyardVectorEnv)
    assert vec.single_action_space == gymnasium.spaces.Discrete(301)
    obs, info = vec.reset(seed=10)
    assert obs["board"].shape == (3, 10, 10) and obs["pieces"].shape == (3, 3, 5, 5)
    assert info["action_mask"].shape == (3, 301)
    singles = [bg.BlockyardEnv("eu-classic") for _ in range(3)]
    single_obs = [env.reset(seed=10 + i)[0] for i, env in enumerate(singles)]
    for i in range(3):
        for key in obs:
            np.testing.assert_array_equal(obs[key][i], single_obs[i][key])
    rng = np.random.default_rng(0)
    for _ in range(100):
        masks = vec.unwrapped.action_masks()
        np.testing.assert_array_equal(masks, info["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, _truncated, info = vec.step(actions)
        for i, env in enumerate(singles):
            o, r, term, *_ = env.step(int(actions[i]))
            assert (r, term) == (rewards[i], terminated[i])
            if not term:
                for key in obs:
                    np.testing.assert_array_equal(obs[key][i], o[key])
        if terminated.any():
            break
    assert terminated.any()
    vec.close()


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP])
def test_vector_autoreset(mode):
    vec = bg.BlockyardVectorEnv(2, "eu-classic", autoreset_mode=mode)
    obs, info = vec.reset(seed=0, options={"board": STUCK_BOARD, "tray": [SQUARE] * 3})
    assert (info["action_mask"].sum(axis=1) == 1).all()  # continue only
    obs, rewards, terminated, _truncated, info = vec.step(np.array([300, 300]))
    assert not terminated.any()
    # play both games to their end with the first legal action each time
    ended = None
    for _ in range(500):
        actions = np.array([np.flatnonzero(m)[0] if m.any() else 0
                            for m in info["action_mask"]])
        obs, _rewards, terminated, _truncated, info = vec.step(actions)
        if terminated.any():
            ended = int(np.flatnonzero(terminated)[0])
            break
    assert ended is not None
    if mode == AutoresetMode.SAME_STEP:
        assert info["_final_obs"][ended]
        final = info["final_obs"][ended]
        assert final["board"].sum() > 0
        assert obs["board"][ended].sum() == 0  # a new game, no start position
        assert info["action_mask"][ended].any()
        assert info["final_info"][ended]["over_reason"] == "stuck"
    else:
        assert "final_obs" not in info
        assert not info["action_mask"][ended].any()
        obs, rewards, terminated, _truncated, info = vec.step(np.zeros(2, np.int64))
        assert rewards[ended] == 0 and obs["board"][ended].sum() == 0
        assert info["action_mask"][ended].any()


def test_vector_max_episode_steps_truncates():
    vec = gymnasium.make_vec("blockyard/eu-zen-v0", num_envs=2, max_episode_steps=5)
    obs, info = vec.reset(seed=1)
    for step in range(5):
        actions = np.array([np.flatnonzero(m)[0] for m in info["action_mask"]])
        obs, _rewards, _terminated, truncated, info = vec.step(actions)
        assert truncated.all() == (step == 4)
    assert (obs["stats"][:, 2] == 0).all()  # new games


# -- the example -------------------------------------------------------------------------------

def test_the_example_evaluates_a_masked_agent():
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import gym_agent
    finally:
        sys.path.remove(str(ROOT / "examples"))
    first = gym_agent.evaluate("eu-classic", gym_agent.greedy_policy, episodes=2, seed=0,
                               max_steps=60)
    again = gym_agent.evaluate("eu-classic", gym_agent.greedy_policy, episodes=2, seed=0,
                               max_steps=60)
    assert first == again and len(first) == 2
    rand = gym_agent.evaluate("eu-classic", gym_agent.random_policy(0), episodes=2, seed=0,
                              max_steps=60)
    assert all(score >= 0 for score in first + rand)


def test_the_example_trains_maskable_ppo_when_sb3_contrib_is_installed():
    pytest.importorskip("sb3_contrib")
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import gym_agent
    finally:
        sys.path.remove(str(ROOT / "examples"))
    policy = gym_agent.train_maskable_ppo("arcadeforge", 256, seed=0, max_steps=50)
    scores = gym_agent.evaluate("arcadeforge", policy, episodes=1, seed=0, max_steps=50)
    assert len(scores) == 1 and scores[0] >= 0
