"""Gymnasium environments for every tray ruleset (``pip install blockyard[gym]``).

Importing this module registers each tray ruleset that can be found (bundled,
the user's, and those of installed plugins) as ``blockyard/<ruleset-id>-v0``,
with a vector entry point for :func:`gymnasium.make_vec`::

    import gymnasium
    env = gymnasium.make("blockyard.gym:blockyard/eu-classic-v0")
    obs, info = env.reset(seed=0)
    mask = info["action_mask"]

The spaces, rewards, options and the treatment of actions other than placing
are described in ``docs/gym.md``; in short:

- actions ``Discrete(S × rows × cols + E)``, ``S`` the ruleset's tray slots
  (``[tray] slots``, three by default): action ``slot × rows × cols + row
  × cols + col`` places the piece of ``slot`` with its top-left corner at
  ``(row, col)``; the ``E`` actions after them are the ruleset's own actions
  (swap, rotate a slot, continue, and an action aimed at a cell once per
  cell: ``"hammer 3 4"``), in the order of :attr:`BlockyardEnv.action_names`.
  A ruleset without such actions (or ``actions="place"``) has exactly
  ``Discrete(S × rows × cols)``;
- ``info["action_mask"]`` and :meth:`BlockyardEnv.action_masks` give the legal
  actions (the convention of maskable-policy libraries);
- observations are a ``Dict`` of the board and the ``S`` tray pieces as binary
  grids and a vector of running figures (:data:`STAT_NAMES`);
- the reward is the points of the move (``reward="lines"``: regions cleared;
  ``reward="survival"``: 1 for each piece placed).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

try:
    import gymnasium
    import numpy as np
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "blockyard.gym needs gymnasium and numpy: install them with "
        "'pip install blockyard[gym]'") from exc

from .discovery import list_rulesets, load_ruleset
from .errors import IllegalMove, RulesetError
from .game import new_game
from .gymcodec import (
    MIN_PIECE_SIZE,
    STAT_NAMES,
    _codec,
    render_image,
    render_text,
)
from .ruleset import Ruleset
from .tray import TrayGame

__all__ = [
    "MIN_PIECE_SIZE",
    "STAT_NAMES",
    "BlockyardEnv",
    "BlockyardVectorEnv",
    "env_id",
    "register_envs",
    "render_image",
    "render_text",
]

REWARDS = ("points", "lines", "survival")
ACTION_SETS = ("all", "place")
ILLEGAL = ("ignore", "raise")

_ID_PATTERN = re.compile(r"^[\w.-]+$")


def env_id(ruleset_id: str) -> str:
    """The registered Gymnasium id of a ruleset: ``blockyard/<ruleset-id>-v0``."""
    return f"blockyard/{ruleset_id}-v0"


def _resolve(ruleset: str | Path | Ruleset) -> Ruleset:
    loaded = ruleset if isinstance(ruleset, Ruleset) else load_ruleset(ruleset)
    if not loaded.mode_record.has_tray:
        raise ValueError(f"ruleset {loaded.id!r} is a {loaded.mode!r} game; the Gymnasium "
                         "environments play tray rulesets only")
    return loaded


def _choice(name: str, value: Any, allowed: Sequence[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{name}: expected one of {', '.join(map(repr, allowed))}, "
                         f"found {value!r}")
    return str(value)


class BlockyardEnv(gymnasium.Env[dict[str, np.ndarray], np.int64]):
    """One game of a tray ruleset as a Gymnasium environment (docs/gym.md).

    Parameters:

    ``ruleset``
        a ruleset id, the path of a rule file, or a loaded :class:`Ruleset`; it
        must be a tray ruleset (``ValueError`` otherwise).
    ``reward``
        ``"points"`` (default): the points the move scored; ``"lines"``: the
        number of regions it cleared; ``"survival"``: 1 for every piece
        placed. Other actions (swap, rotate, continue) earn 0.
    ``actions``
        ``"all"`` (default): placements followed by the ruleset's own actions
        (``end`` excepted); ``"place"``: placements only, and the episode ends
        as soon as no piece can be placed.
    ``piece_size``
        the side of the piece grids (default: the ruleset's largest piece, at
        least :data:`MIN_PIECE_SIZE`).
    ``seconds_per_move``
        seconds the clock of a timed ruleset advances after every action
        (default 0: time stands still between steps).
    ``illegal_action``
        what a step with an action the mask rules out does: ``"ignore"``
        (default; the game is unchanged, the reward is ``illegal_reward`` and
        ``info["illegal"]`` is true) or ``"raise"`` (:class:`blockyard.IllegalMove`).
    ``render_mode``
        ``None``, ``"rgb_array"`` (an image of the board and the tray in the
        game window's colours) or ``"ansi"`` (text).
    ``cell_pixels``
        the size of a board cell in ``rgb_array`` images.
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array", "ansi"],  # noqa: RUF012
                                "render_fps": 4}

    def __init__(self, ruleset: str | Path | Ruleset = "eu-classic", *,
                 reward: Literal["points", "lines", "survival"] = "points",
                 actions: Literal["all", "place"] = "all",
                 piece_size: int | None = None,
                 seconds_per_move: float = 0.0,
                 illegal_action: Literal["ignore", "raise"] = "ignore",
                 illegal_reward: float = 0.0,
                 render_mode: str | None = None,
                 cell_pixels: int = 24) -> None:
        super().__init__()
        self.reward_kind = _choice("reward", reward, REWARDS)
        self.illegal_action = _choice("illegal_action", illegal_action, ILLEGAL)
        _choice("actions", actions, ACTION_SETS)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: expected None, 'rgb_array' or 'ansi', "
                             f"found {render_mode!r}")
        if isinstance(seconds_per_move, bool) or not isinstance(seconds_per_move, int | float) \
                or not 0 <= seconds_per_move <= 86_400:
            raise ValueError(f"seconds_per_move: expected a number of seconds from 0 to "
                             f"86400, found {seconds_per_move!r}")
        if isinstance(cell_pixels, bool) or not isinstance(cell_pixels, int) \
                or not 4 <= cell_pixels <= 128:
            raise ValueError(f"cell_pixels: expected an integer from 4 to 128, "
                             f"found {cell_pixels!r}")
        self.ruleset = _resolve(ruleset)
        self._codec = codec = _codec(self.ruleset, actions, piece_size)
        self.action_space, self.observation_space = codec.spaces()  # type: ignore[assignment]
        self.render_mode = render_mode
        self.seconds_per_move = float(seconds_per_move)
        self.illegal_reward = float(illegal_reward)
        self.cell_pixels = cell_pixels
        self.game: TrayGame | None = None
        self._legal = 0  # the legal actions now, as bits (see _Codec.legal_bits)

    # -- public description -------------------------------------------------------------

    @property
    def action_names(self) -> tuple[str, ...]:
        """A name for every action, by number: ``"place S R C"``, then the
        ruleset's own (``"swap"``, ``"rotate 0"``…, ``"continue"``)."""
        return self._codec.action_names

    @property
    def extra_actions(self) -> tuple[tuple[str, Any], ...]:
        """The ruleset actions after the placements, as ``(name, None)`` (no
        target), ``(name, slot)``, ``(name, (row, col))`` (a cell) or ``(name,
        (slot, row, col))``."""
        return self._codec.extras

    @property
    def piece_size(self) -> int:
        return self._codec.piece_size

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as a boolean array (a new copy)."""
        return self._codec.mask(self._legal)

    def decode_action(self, action: int) -> tuple[Any, ...]:
        """What action number ``action`` does, as a log entry of the game:
        ``("place", slot, row, col)``, ``("swap",)``, ``("rotate", slot)``…"""
        a = self._check_action(action)
        codec = self._codec
        if a < codec.placements:
            slot, rest = divmod(a, codec.size)
            return ("place", slot, *divmod(rest, codec.cols))
        name, extra = codec.extras[a - codec.placements]
        if isinstance(extra, tuple):
            return (name, *extra)
        return (name,) if extra is None else (name, extra)

    def encode_action(self, name: str, *args: int) -> int:
        """The action number of ``("place", slot, row, col)`` or of a ruleset
        action (``"swap"``, ``("rotate", slot)``); ``ValueError`` when the
        environment has no such action."""
        codec = self._codec
        if name == "place":
            try:
                slot, row, col = (operator.index(x) for x in args)
            except (TypeError, ValueError):
                raise ValueError(f"place: expected slot, row and col as integers, "
                                 f"found {args!r:.60}") from None
            if not (0 <= slot < codec.slots and 0 <= row < codec.rows
                    and 0 <= col < codec.cols):
                raise ValueError(f"place {slot} {row} {col}: outside the tray or the "
                                 f"{codec.rows}×{codec.cols} board")
            return slot * codec.size + row * codec.cols + col
        key = (name, None if not args else args[0] if len(args) == 1 else tuple(args))
        if key not in codec.extras:
            names = ", ".join(codec.action_names[codec.placements:]) or "none"
            raise ValueError(f"no environment action {name!r} with arguments {args!r} "
                             f"(the ruleset actions of this environment: {names})")
        return codec.placements + codec.extras.index(key)

    # -- the Gymnasium API ------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a new game. ``seed`` seeds the environment's generator, which
        draws the game's seed; ``options`` may give ``game_seed`` (the
        Blockyard seed to use instead, as in ``blockyard.new_game``), ``board``
        and ``tray`` (a starting position, docs/api.md §4)."""
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"game_seed", "board", "tray"}
        if unknown:
            raise ValueError(f"reset options: unknown {', '.join(sorted(unknown))} "
                             "(known: game_seed, board, tray)")
        game_seed = options.get("game_seed")
        if game_seed is None:
            game_seed = int(self.np_random.integers(0, 2**32))
        try:
            game = new_game(self.ruleset, seed=game_seed, board=options.get("board"),
                            tray=options.get("tray"))
        except ValueError as exc:
            if type(exc) is not ValueError or not str(exc).startswith("seed: "):
                raise
            # the option's name, not new_game's: a seed a snapshot cannot carry
            raise ValueError(f"reset options: game_seed: {str(exc).removeprefix('seed: ')}"
                             ) from None
        assert isinstance(game, TrayGame)
        self.game = game
        self._legal = self._codec.legal_bits(game)
        obs, mask = self._codec.observe(game, self._legal)
        return obs, self._info(mask, 0, 0, False)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool,
                                         dict[str, Any]]:
        reward, terminated, points, lines, illegal = self._play(action)
        assert self.game is not None
        obs, mask = self._codec.observe(self.game, self._legal)
        return obs, reward, terminated, False, self._info(mask, points, lines, illegal)

    def _play(self, action: Any) -> tuple[float, bool, int, int, bool]:
        """Perform ``action`` on the game: ``(reward, terminated, points,
        lines, illegal)``; the mask is brought up to date."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before step()")
        a = self._check_action(action)
        if not (self._legal >> a) & 1:
            if self.illegal_action == "raise":
                raise IllegalMove(f"action {a} ({self._codec.describe(a)}) is not legal now")
            return self.illegal_reward, self._legal == 0, 0, 0, True
        codec = self._codec
        points = lines = 0
        if a < codec.placements:
            slot, rest = divmod(a, codec.size)
            row, col = divmod(rest, codec.cols)
            result = game.place(slot, row, col)
            points, lines = result.points, result.lines
            kind = self.reward_kind
            reward = float(points if kind == "points" else lines if kind == "lines" else 1)
        else:
            name, extra = codec.extras[a - codec.placements]
            if extra is None:
                game.act(name)
            elif isinstance(extra, tuple):  # a cell target, with its slot
                game.act(name, *extra)
            else:
                game.act(name, extra)
            reward = 0.0
        if self.seconds_per_move and game.over_reason is None:
            game.tick(self.seconds_per_move)
        self._legal = legal = codec.legal_bits(game)
        return reward, legal == 0, points, lines, False

    def render(self) -> Any:
        """``"rgb_array"``: an ``H × W × 3`` image; ``"ansi"``: text; ``None``
        without a render mode."""
        if self.render_mode is None:
            return None
        if self.game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "ansi":
            return render_text(self.game, self._codec.piece_size)
        return render_image(self.game, self._codec.piece_size, self.cell_pixels)

    # -- helpers -----------------------------------------------------------------------------

    def _check_action(self, action: Any) -> int:
        try:
            a = operator.index(action)  # ints and numpy integers, never floats
        except TypeError:
            raise ValueError(f"action: expected an integer, found {action!r:.40}") from None
        if not 0 <= a < self._codec.n_actions:
            raise ValueError(f"action {action!r:.40} is outside "
                             f"Discrete({self._codec.n_actions})")
        return a

    def _info(self, mask: np.ndarray, points: int, lines: int, illegal: bool
              ) -> dict[str, Any]:
        game = self.game
        assert game is not None
        return {"action_mask": mask, "points": points, "lines": lines,
                "illegal": illegal, "score": game.score, "over_reason": game.over_reason}


class BlockyardVectorEnv(VectorEnv):
    """``num_envs`` games of one tray ruleset, stepped together in this process
    (the vector entry point of :func:`gymnasium.make_vec`).

    Takes the parameters of :class:`BlockyardEnv`, and:

    ``max_episode_steps``
        truncates an episode after that many steps (``None``: never);
    ``autoreset_mode``
        ``AutoresetMode.SAME_STEP`` (default): a game that ends is replaced
        in the same step, the returned observation and ``action_mask`` are the
        new game's, and ``info["final_obs"]`` / ``info["final_info"]`` hold
        the last ones of the game that ended; ``AutoresetMode.NEXT_STEP``: the
        next step starts the new game, whatever its action.

    Observations are the single observations stacked (``board`` ``(n, rows,
    cols)``, ``pieces`` ``(n, S, p, p)`` (S tray slots), ``stats`` ``(n, 6)``);
    ``info["action_mask"]`` and :meth:`action_masks` are ``(n, actions)``
    boolean arrays. ``reset(seed=s)`` seeds game ``i`` with ``s + i``.
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array", "ansi"],  # noqa: RUF012
                                "render_fps": 4,
                                "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 1, ruleset: str | Path | Ruleset = "eu-classic", *,
                 max_episode_steps: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                 render_mode: str | None = None, **kwargs: Any) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs: expected an integer of at least 1, found {num_envs!r}")
        if max_episode_steps is not None and (
                isinstance(max_episode_steps, bool) or not isinstance(max_episode_steps, int)
                or max_episode_steps < 1):
            raise ValueError(f"max_episode_steps: expected None or an integer of at least 1, "
                             f"found {max_episode_steps!r}")
        mode = AutoresetMode(autoreset_mode)
        if mode == AutoresetMode.DISABLED:
            raise ValueError("autoreset_mode: SAME_STEP or NEXT_STEP (DISABLED is not supported)")
        loaded = _resolve(ruleset)
        self.envs = [BlockyardEnv(loaded, render_mode=render_mode, **kwargs)
                     for _ in range(num_envs)]
        first = self.envs[0]
        self.ruleset = loaded
        self.num_envs = num_envs
        self.render_mode = render_mode
        self.max_episode_steps = max_episode_steps
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.single_action_space = first.action_space
        self.single_observation_space = first.observation_space
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._codec = codec = first._codec
        p = codec.piece_size
        self._obs: dict[str, np.ndarray] = {
            "board": np.zeros((num_envs, codec.rows, codec.cols), np.int8),
            "pieces": np.zeros((num_envs, codec.slots, p, p), np.int8),
            "stats": np.zeros((num_envs, len(STAT_NAMES)), np.float32)}
        self._masks = np.zeros((num_envs, codec.n_actions), bool)
        self._steps = [0] * num_envs
        self._pending = [False] * num_envs  # NEXT_STEP: reset on the next step

    @property
    def action_names(self) -> tuple[str, ...]:
        return self._codec.action_names

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game, as an ``(n, actions)`` boolean array."""
        return self._masks.copy()

    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None
              ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a new game in every slot. ``seed``: ``None``, an int (game ``i``
        gets ``seed + i``) or one seed per game; ``options`` go to every game."""
        if seed is None or isinstance(seed, int):
            seeds: list[int | None] = [None if seed is None else seed + i
                                       for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed: expected {self.num_envs} seeds, found {len(seeds)}")
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(
                seeds[0] if seeds[0] is not None else None)
        for i, env in enumerate(self.envs):
            env.reset(seed=seeds[i], options=options)
        self._write()
        self._steps = [0] * self.num_envs
        self._pending = [False] * self.num_envs
        n = self.num_envs
        zeros = np.zeros(n, np.int64)
        return self._observations(), self._infos(zeros, zeros.copy(), np.zeros(n, bool))

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions)
        n = self.num_envs
        if actions.shape != (n,):
            raise ValueError(f"actions: expected an array of shape ({n},), "
                             f"found shape {actions.shape}")
        rewards = np.zeros(n, np.float64)
        terminated = np.zeros(n, bool)
        truncated = np.zeros(n, bool)
        points = np.zeros(n, np.int64)
        lines = np.zeros(n, np.int64)
        illegal = np.zeros(n, bool)
        finals: dict[int, tuple[dict[str, np.ndarray], dict[str, Any]]] = {}
        same_step = self.autoreset_mode == AutoresetMode.SAME_STEP
        limit = self.max_episode_steps
        for i, env in enumerate(self.envs):
            if self._pending[i]:
                env.reset()
                self._pending[i] = False
                self._steps[i] = 0
                continue
            reward, term, points[i], lines[i], illegal[i] = env._play(actions[i])
            self._steps[i] += 1
            trunc = limit is not None and not term and self._steps[i] >= limit
            rewards[i], terminated[i], truncated[i] = reward, term, trunc
            if term or trunc:
                if same_step:
                    assert env.game is not None
                    obs, mask = env._codec.observe(env.game, env._legal)
                    finals[i] = (obs, env._info(mask, int(points[i]), int(lines[i]),
                                                bool(illegal[i])))
                    env.reset()
                    self._steps[i] = 0
                else:
                    self._pending[i] = True
        self._write()
        infos = self._infos(points, lines, illegal)
        if finals:
            final_obs = np.empty(n, object)
            final_info = np.empty(n, object)
            has = np.zeros(n, bool)
            for i, (obs, info) in finals.items():
                final_obs[i], final_info[i], has[i] = obs, info, True
            infos.update({"final_obs": final_obs, "_final_obs": has,
                          "final_info": final_info, "_final_info": has.copy()})
        return self._observations(), rewards, terminated, truncated, infos

    def render(self) -> tuple[Any, ...] | None:
        """One frame per game (see :meth:`BlockyardEnv.render`)."""
        if self.render_mode is None:
            return None
        return tuple(env.render() for env in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        for env in self.envs:
            env.close()

    def _write(self) -> None:
        """Encode every game at once (one unpack for the whole batch)."""
        games = [env.game for env in self.envs if env.game is not None]
        assert len(games) == self.num_envs, "reset() starts every game"
        self._obs, self._masks = self._codec.observe_batch(
            games, [env._legal for env in self.envs])

    def _observations(self) -> dict[str, np.ndarray]:
        # the arrays are new at every step; hand out copies only of what is
        # kept for action_masks()
        return dict(self._obs)

    def _infos(self, points: np.ndarray, lines: np.ndarray, illegal: np.ndarray
               ) -> dict[str, Any]:
        n = self.num_envs
        every = np.ones(n, bool)
        scores = np.array([env.game.score if env.game else 0 for env in self.envs], np.int64)
        return {"action_mask": self._masks.copy(), "_action_mask": every,
                "points": points, "_points": every.copy(), "lines": lines,
                "_lines": every.copy(), "illegal": illegal, "_illegal": every.copy(),
                "score": scores, "_score": every.copy()}


# -- rendering ------------------------------------------------------------------------------

def register_envs(rulesets: Sequence[str | Path | Ruleset] | None = None) -> list[str]:
    """Register ``blockyard/<id>-v0`` for the given rulesets (ids, rule-file
    paths or loaded rulesets; by default every tray ruleset
    :func:`blockyard.list_rulesets` finds that loads) and return
    the ids registered now. An id registered already is left as it is; a
    ruleset that is not a tray game, does not load, or whose id Gymnasium
    cannot use, is skipped (or, when named explicitly, raises ``ValueError``)."""
    explicit = rulesets is not None
    if rulesets is None:
        rulesets = [info.id for info in list_rulesets() if info.error is None]
    done = []
    for item in rulesets:
        try:
            loaded = _resolve(item)
        except (RulesetError, ValueError, OSError):
            if explicit:
                raise
            continue
        if not _ID_PATTERN.fullmatch(loaded.id):
            if explicit:
                raise ValueError(f"ruleset id {loaded.id!r} cannot name a Gymnasium "
                                 "environment (letters, digits, '_', '-' and '.' only)")
            continue
        name = env_id(loaded.id)
        if name in gymnasium.registry:
            continue
        # made again by id, by the rule file's path, or from the ruleset itself
        # when it has no file (rule text)
        source: str | Ruleset = loaded.id
        if explicit:
            source = str(item) if not isinstance(item, Ruleset) else (item.path or item)
        gymnasium.register(
            id=name, entry_point="blockyard.gym:BlockyardEnv",
            vector_entry_point="blockyard.gym:BlockyardVectorEnv",
            kwargs={"ruleset": source})
        done.append(name)
    return done


register_envs()
