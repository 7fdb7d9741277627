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
  (swap, rotate a slot, continue), in the order of :attr:`BlockyardEnv.action_names`.
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
import weakref
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

try:
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "blockyard.gym needs gymnasium and numpy: install them with "
        "'pip install blockyard[gym]'") from exc

from .discovery import list_rulesets, load_ruleset
from .errors import IllegalMove, RulesetError
from .game import new_game
from .pieces import Piece
from .ruleset import Ruleset
from .tray import TrayGame

__all__ = [
    "MIN_PIECE_SIZE",
    "STAT_NAMES",
    "BlockyardEnv",
    "BlockyardVectorEnv",
    "env_id",
    "register_envs",
]

STAT_NAMES: tuple[str, ...] = ("score", "combo", "moves", "lines_cleared", "swaps_left",
                               "time_left")
"""The entries of ``observation["stats"]``, in order: the game's score, combo
counter, moves (pieces placed), lines cleared (regions), swaps left (0 where
the ruleset has none) and seconds left on the clock (0 where it has none)."""

MIN_PIECE_SIZE = 5
"""The smallest side of the piece grids of ``observation["pieces"]``; a ruleset
with a larger piece (in any of its turns) gets grids as large as that piece."""

REWARDS = ("points", "lines", "survival")
ACTION_SETS = ("all", "place")
ILLEGAL = ("ignore", "raise")
EXCLUDED_ACTIONS = frozenset({"end"})
"""Ruleset actions never offered as environment actions: ending a game on
purpose is what truncation (``max_episode_steps``) is for."""

_STAT_HIGH = float(np.finfo(np.float32).max)
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


def _largest_extent(ruleset: Ruleset) -> int:
    extent = 1
    for piece in ruleset.pieces:
        extent = max(extent, piece.height, piece.width)
    return extent


class _Codec:
    """What one ruleset's environments share: spaces, the action table and the
    encoding of a game into observation arrays and action masks."""

    def __init__(self, ruleset: Ruleset, actions: str, piece_size: int | None) -> None:
        self.ruleset = ruleset
        self.rows = rows = ruleset.rows
        self.cols = cols = ruleset.cols
        self.size = size = rows * cols
        self.slots = slots = ruleset.tray_slots
        self.placements = slots * size
        needed = max(MIN_PIECE_SIZE, _largest_extent(ruleset))
        if piece_size is None:
            piece_size = needed
        elif isinstance(piece_size, bool) or not isinstance(piece_size, int) \
                or not needed <= piece_size <= 32:
            raise ValueError(f"piece_size: expected an integer from {needed} (the largest "
                             f"piece of {ruleset.id!r}, at least {MIN_PIECE_SIZE}) to 32, "
                             f"found {piece_size!r}")
        self.piece_size = piece_size
        extras: list[tuple[str, int | None]] = []
        if actions == "all":
            for name, spec in ruleset.action_specs.items():
                if spec.automatic or name in EXCLUDED_ACTIONS:
                    continue
                if spec.takes_slot:
                    extras += [(name, slot) for slot in range(slots)]
                else:
                    extras.append((name, None))
        self.extras = tuple(extras)
        after_end = [ruleset.action_specs[name].after_end for name, _ in extras]
        self.timed = ruleset.time_limit is not None
        self.swaps = "swap" in ruleset.action_specs
        self.extras_after_end = any(after_end)
        self.extras_during_play = not all(after_end)
        self.n_actions = self.placements + len(extras)
        self.mask_bytes = (self.n_actions + 7) // 8
        self.grid_bits = piece_size * piece_size
        self.mask_offset = size + slots * self.grid_bits
        self.packed_bits = self.mask_offset + self.n_actions
        self.packed_bytes = (self.packed_bits + 7) // 8
        self._piece_bits: dict[frozenset[tuple[int, int]], int] = {}

    @cached_property
    def action_names(self) -> tuple[str, ...]:
        names = [f"place {s} {r} {c}" for s in range(self.slots) for r in range(self.rows)
                 for c in range(self.cols)]
        names += [name if slot is None else f"{name} {slot}" for name, slot in self.extras]
        return tuple(names)

    def spaces(self) -> tuple[spaces.Discrete, spaces.Dict]:
        """New action and observation spaces (each environment seeds its own)."""
        p = self.piece_size
        return spaces.Discrete(self.n_actions), spaces.Dict({
            "board": spaces.MultiBinary([self.rows, self.cols]),
            "pieces": spaces.MultiBinary([self.slots, p, p]),
            "stats": spaces.Box(0.0, _STAT_HIGH, (len(STAT_NAMES),), np.float32),
        })

    # -- encoding --------------------------------------------------------------------
    #
    # A step's board, tray and mask are packed into one int -- the board's bits,
    # then the S piece grids (row-major, P × P each), then the legal actions --
    # and unpacked by one numpy call; the arrays handed out are views of that
    # fresh array, so nothing is shared between steps.

    def piece_bits(self, piece: Piece) -> int:
        """The P × P grid of ``piece`` as bits (``r * P + c``), cached per shape."""
        bits = self._piece_bits.get(piece.cells)
        if bits is None:
            p = self.piece_size
            if piece.height > p or piece.width > p:
                raise ValueError(
                    f"piece {piece.id!r} ({piece.height}×{piece.width}) does not fit the "
                    f"{p}×{p} piece grids of this environment; pass a larger piece_size")
            bits = sum(1 << (r * p + c) for r, c in piece.cells)
            self._piece_bits[piece.cells] = bits
        return bits

    def packed(self, game: TrayGame, legal: int) -> int:
        """Board, tray and legal actions of ``game`` as one int (see above)."""
        tray = 0
        shift = self.size
        grid = self.grid_bits
        known = self._piece_bits
        for piece in game._tray:  # the engine's own list: no tuple made per step
            if piece is not None:
                bits = known.get(piece.cells)
                tray |= (self.piece_bits(piece) if bits is None else bits) << shift
            shift += grid
        return game._board.bits | tray | (legal << self.mask_offset)

    def stats(self, game: TrayGame) -> tuple[float, ...]:
        left = game.time_left if self.timed else None
        return (game.score, game.combo, game.moves, game.lines_cleared,
                game.swaps_left if self.swaps else 0, 0.0 if left is None else left)

    def observe(self, game: TrayGame, legal: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The observation of ``game`` and its action mask, as new arrays."""
        flat = np.unpackbits(
            np.frombuffer(self.packed(game, legal).to_bytes(self.packed_bytes, "little"),
                          np.uint8), bitorder="little").view(np.int8)
        p, size, offset = self.piece_size, self.size, self.mask_offset
        obs: dict[str, np.ndarray] = {"board": flat[:size].reshape(self.rows, self.cols),
               "pieces": flat[size:offset].reshape(self.slots, p, p),
               "stats": np.array(self.stats(game), np.float32)}
        return obs, flat[offset:self.packed_bits].view(bool)

    def observe_batch(self, games: Sequence[TrayGame], legal: Sequence[int]
                      ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The stacked observations and masks of ``games``, as new arrays."""
        n, nb = len(games), self.packed_bytes
        buffer = b"".join(self.packed(game, bits).to_bytes(nb, "little")
                          for game, bits in zip(games, legal, strict=True))
        flat = np.unpackbits(np.frombuffer(buffer, np.uint8).reshape(n, nb), axis=1,
                             bitorder="little").view(np.int8)
        p, size, offset = self.piece_size, self.size, self.mask_offset
        obs: dict[str, np.ndarray] = {"board": flat[:, :size].reshape(n, self.rows, self.cols),
               "pieces": flat[:, size:offset].reshape(n, self.slots, p, p),
               "stats": np.array([self.stats(game) for game in games], np.float32)
               .reshape(n, len(STAT_NAMES))}
        return obs, flat[:, offset:self.packed_bits].view(bool)

    def legal_bits(self, game: TrayGame) -> int:
        """The legal actions of ``game`` as an int: bit ``a`` is set when action
        ``a`` is legal now."""
        bits = 0
        over = game.over_reason is not None
        if not over:
            size = self.size
            shift = 0
            for fit in game.fit_masks():
                bits |= fit << shift
                shift += size
        # actions offered only after the end are never available during play and
        # the others never after it (docs/api.md §5.4, §5.5), so the game is asked
        # only when some action can be available now
        if self.extras_after_end if over else self.extras_during_play:
            available = {action.name for action in game.actions()}
            tray = game.tray
            for i, (name, slot) in enumerate(self.extras, self.placements):
                if name in available and (slot is None or tray[slot] is not None):
                    bits |= 1 << i
        return bits

    def mask(self, bits: int) -> np.ndarray:
        """A new boolean array of the actions whose bits are set."""
        return np.unpackbits(
            np.frombuffer(bits.to_bytes(self.mask_bytes, "little"), np.uint8),
            count=self.n_actions, bitorder="little").view(bool)

    def describe(self, action: int) -> str:
        return self.action_names[action]


_CODECS: weakref.WeakValueDictionary[tuple[int, str, int | None], _Codec] = \
    weakref.WeakValueDictionary()


def _codec(ruleset: Ruleset, actions: str, piece_size: int | None) -> _Codec:
    """The codec of a ruleset, shared by its environments while any is alive
    (the key holds the ruleset's identity; the codec keeps the ruleset alive)."""
    key = (id(ruleset), actions, piece_size)
    codec = _CODECS.get(key)
    if codec is None or codec.ruleset is not ruleset:
        codec = _Codec(ruleset, actions, piece_size)
        _CODECS[key] = codec
    return codec


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
    def extra_actions(self) -> tuple[tuple[str, int | None], ...]:
        """The ruleset actions after the placements, as ``(name, slot or None)``."""
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
        key = (name, args[0] if args else None)
        if len(args) > 1 or key not in codec.extras:
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
        game = new_game(self.ruleset, seed=game_seed, board=options.get("board"),
                        tray=options.get("tray"))
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

def render_text(game: TrayGame, piece_size: int = MIN_PIECE_SIZE) -> str:
    """The game as text: a status line, the board (``#`` filled, ``.`` empty)
    and the tray slots side by side (``-`` for a used slot)."""
    status = f"{game.ruleset.id}  score {game.score}  combo {game.combo}  moves {game.moves}"
    if game.swaps_left:
        status += f"  swaps {game.swaps_left}"
    if game.over_reason is not None:
        status += f"  over ({game.over_reason})"
    lines = [status, *game.board_text().split("\n"), ""]
    columns = []
    for slot, piece in enumerate(game.tray):
        rows = [f"{slot}:".ljust(piece_size)]
        art = piece.art.split("\n") if piece is not None else ["-"]
        for r in range(piece_size):
            text = art[r].replace(" ", ".") if r < len(art) else ""
            rows.append(text.ljust(piece_size))
        columns.append(rows)
    for parts in zip(*columns, strict=True):
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines) + "\n"


def render_image(game: TrayGame, piece_size: int = MIN_PIECE_SIZE,
                 cell: int = 24) -> np.ndarray:
    """An ``H × W × 3`` ``uint8`` image of the board and, below it, the tray,
    in the colours of the game window."""
    from .frontend import theme  # Arcade is a dependency; no window is opened

    rows, cols = game.rows, game.cols
    margin = max(2, cell // 3)
    small = max(2, cell // 2)
    panel = piece_size * small
    board_w = cols * cell
    slots = game.ruleset.tray_slots
    tray_w = slots * panel + (slots - 1) * margin
    width = max(board_w, tray_w) + 2 * margin
    height = rows * cell + panel + 3 * margin
    image = np.empty((height, width, 3), np.uint8)
    image[:] = theme.BACKGROUND[:3]
    families = len(game.ruleset.families)
    gap = max(1, cell // 12)
    x0 = (width - board_w) // 2
    for r, row in enumerate(game.board):
        for c, colour in enumerate(row):
            rgb = theme.piece_colour(colour, families)[:3] if colour else theme.EMPTY_CELL[:3]
            y, x = margin + r * cell, x0 + c * cell
            image[y + gap:y + cell - gap, x + gap:x + cell - gap] = rgb
    top = rows * cell + 2 * margin
    left = (width - tray_w) // 2
    sgap = max(1, small // 12)
    for slot, piece in enumerate(game.tray):
        px = left + slot * (panel + margin)
        image[top:top + panel, px:px + panel] = theme.PANEL[:3]
        if piece is None:
            continue
        rgb = theme.piece_colour(piece.colour, families)[:3]
        oy = top + (panel - piece.height * small) // 2
        ox = px + (panel - piece.width * small) // 2
        for r, c in piece.cells:
            y, x = oy + r * small, ox + c * small
            image[y + sgap:y + small - sgap, x + sgap:x + small - sgap] = rgb
    return image


# -- registration ------------------------------------------------------------------------------

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
        if not _ID_PATTERN.match(loaded.id):
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
