"""The Gymnasium environments' encoding of a tray game (:mod:`blockyard.gym`):
the action numbering (placements of each tray slot at each anchor, then the
ruleset's own actions), the action mask, the observation arrays (board, tray
pieces, running figures) and the text and image renderings. Kept apart from the
environment classes so that the encoding can be read, and tested, on its own."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import cached_property
from typing import Any

try:
    import numpy as np
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "blockyard.gym needs gymnasium and numpy: install them with "
        "'pip install blockyard[gym]'") from exc

from .pieces import Piece
from .ruleset import Ruleset
from .tray import TrayGame

STAT_NAMES: tuple[str, ...] = ("score", "combo", "moves", "lines_cleared", "swaps_left",
                               "time_left")
"""The entries of ``observation["stats"]``, in order: the game's score, combo
counter, moves (pieces placed), lines cleared (regions), swaps left (0 where
the ruleset has none) and seconds left on the clock (0 where it has none)."""

MIN_PIECE_SIZE = 5
"""The smallest side of the piece grids of ``observation["pieces"]``; a ruleset
with a larger piece (in any of its turns) gets grids as large as that piece."""

EXCLUDED_ACTIONS = frozenset({"end"})
"""Ruleset actions never offered as environment actions: ending a game on
purpose is what truncation (``max_episode_steps``) is for."""

_STAT_HIGH = float(np.finfo(np.float32).max)


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
        # each ruleset action: (name, None) without a target, (name, slot) for a
        # slot, (name, (row, col)) for a cell, (name, (slot, row, col)) for both
        extras: list[tuple[str, Any]] = []
        if actions == "all":
            for name, spec in ruleset.action_specs.items():
                if spec.automatic or name in EXCLUDED_ACTIONS:
                    continue
                if spec.takes_slot:
                    extras += [(name, slot) for slot in range(slots)]
                elif spec.target == "cell":
                    extras += [(name, (r, c)) for r in range(rows) for c in range(cols)]
                elif spec.target == "cell+slot":
                    extras += [(name, (s, r, c)) for s in range(slots) for r in range(rows)
                               for c in range(cols)]
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
        names += [name if extra is None else
                  f"{name} {' '.join(map(str, extra)) if isinstance(extra, tuple) else extra}"
                  for name, extra in self.extras]
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
            available = {action.name: action for action in game.actions()}
            tray = game.tray
            aimed: dict[str, set[tuple[int, ...]]] = {}
            for i, (name, extra) in enumerate(self.extras, self.placements):
                if name not in available:
                    continue
                if isinstance(extra, tuple):  # a cell: the targets its plugin allows
                    targets = aimed.get(name)
                    if targets is None:
                        targets = aimed[name] = set(game.action_targets(name))
                    if extra in targets:
                        bits |= 1 << i
                elif extra is None or tray[extra] is not None:
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

