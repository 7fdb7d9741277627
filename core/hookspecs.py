"""The hook specifications: the plugin author's reference.

Blockyard's engine asks plugins every rule question through these hooks. Each
game has its own ``pluggy.PluginManager`` holding only the plugins its rule
file names (plus the core defaults, which answer last). A plugin is any object
with methods decorated by :data:`hookimpl` whose names are hook names below;
misspelled hook names and wrong argument names are rejected when a ruleset is
loaded.

Hooks marked *single answer* are ``firstresult``: the first non-``None``
answer wins, and the loader refuses a ruleset in which two of its plugins
answer the same single-answer hook. The other hooks collect every answer.

Arguments you may receive:

``ruleset``
    the :class:`~blockyard.Ruleset` being loaded or played.
``game``
    the running :class:`~blockyard.Game`. Read anything; change state only in
    hooks whose doc says so (``game_start``, ``after_move``, ``rescue``,
    ``continue_game``, ``swap``), and only through documented members.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .game import Game
    from .geometry import Board, Geometry, Region
    from .pieces import Piece, PieceFamily
    from .results import Clearing, FallingRules, MoveFacts, MoveResult, Scoring
    from .rulefiles import Ruleset
    from .stones import Stone

PROJECT = "blockyard"

hookspec = pluggy.HookspecMarker(PROJECT)
"""Marker for hook specifications."""

hookimpl = pluggy.HookimplMarker(PROJECT)
"""Marker for hook implementations: decorate plugin methods with ``@hookimpl``."""


# --------------------------------------------------------------------------
# Registration (the global registry, loaded from the ``blockyard`` entry points)
# --------------------------------------------------------------------------

class RegistrySpecs:
    """Hooks of the global registry, implemented by entry-point modules."""

    @hookspec
    def blockyard_register_plugins(
        self, register: Callable[[str, Callable[..., Any]], None]
    ) -> None:
        """Contribute rule plugins. Called once when the registry loads.

        Call ``register(name, factory)`` for each plugin. ``factory(params)``
        receives the plugin's parameter table (:class:`~blockyard.params.Params`)
        from the rule file and returns the plugin object; the loader then
        rejects every parameter the factory did not read.
        """

    @hookspec
    def blockyard_register_rulesets(self, register: Callable[[Any], None]) -> None:
        """Contribute rule files: call ``register(path)`` with a ``.toml`` file or
        a folder of them (a ``pathlib.Path`` or an ``importlib.resources`` path)."""


# --------------------------------------------------------------------------
# Ruleset hooks (asked once, while a ruleset loads)
# --------------------------------------------------------------------------

class RulesetSpecs:
    """Hooks asked while a ruleset loads."""

    @hookspec(firstresult=True)
    def blockyard_board_size(self, ruleset: Ruleset) -> tuple[int, int] | None:
        """Single answer. The board's ``(rows, cols)``.

        The core answers last with the rule file's ``[board]`` table.
        """

    @hookspec
    def blockyard_regions(self, ruleset: Ruleset, geometry: Geometry) -> list[Region]:
        """Every answer counts. The regions whose completion matters: lines for
        tray games, rows/columns/blocks for sudoku, diagonals for a mod. The
        clearing and scoring hooks receive the regions a move completed."""

    @hookspec
    def blockyard_piece_families(self, ruleset: Ruleset) -> list[PieceFamily]:
        """Every answer counts. Piece families added to those of the rule file's
        ``[pieces]`` table (which the core contributes first)."""

    @hookspec
    def blockyard_check_ruleset(self, ruleset: Ruleset) -> None:
        """Every plugin is called once the ruleset is loaded, to check its
        parameters against the rest of the file (e.g. that every family a
        weight table names exists). Raise :class:`~blockyard.RulesetError`."""

    @hookspec(firstresult=True)
    def blockyard_falling_rules(self, ruleset: Ruleset) -> FallingRules | None:
        """Single answer, required for ``mode = "falling"``. How stones fall: the
        seconds per row, normally and with soft drop, the spawn column and how
        many upcoming stones are shown."""

    @hookspec(firstresult=True)
    def blockyard_time_limit(self, ruleset: Ruleset) -> float | None:
        """Single answer. Seconds on the game clock, or ``None`` for no clock.
        The game is over with reason ``"time"`` when the clock reaches 0."""


# --------------------------------------------------------------------------
# Game hooks
# --------------------------------------------------------------------------

class GameSpecs:
    """Hooks asked while a game runs."""

    @hookspec
    def blockyard_game_start(self, game: Game) -> None:
        """Every plugin is called once when a new game starts, before the first
        set is dealt: set up ``game.state[<plugin name>]`` and counters such as
        ``game.swaps_left``. Not called on restore or replay of a snapshot."""

    @hookspec(firstresult=True)
    def blockyard_deal(self, game: Game, index: int) -> list[Any] | None:
        """Single answer, required. Batch number ``index`` (0, 1, …) of what the
        player gets: for tray games the three pieces of set ``index`` (the board
        may be consulted for a fit guarantee); for falling games the next stones
        (a bag). Draw randomness only from ``game.stream("deal", index, ...)``
        (docs/rules.md T7), so every player of a seed gets the same batches."""

    @hookspec
    def blockyard_allowed_anchors(self, game: Game, piece: Piece) -> int | None:
        """Every answer counts. A mask of anchors (bit ``row * cols + col``) where
        ``piece`` may be placed beyond "inside the board on empty cells"; the
        answers are ANDed. ``None`` means no restriction. Called only when some
        plugin implements it, so the common case stays fast."""

    @hookspec
    def blockyard_alternatives(self, game: Game, piece: Piece) -> list[Piece]:
        """Every answer counts. Other forms the player can turn ``piece`` into
        without a move (rotations). A piece counts as fitting somewhere for the
        end rule when it or one of its alternatives fits."""

    @hookspec(firstresult=True)
    def blockyard_clear(self, game: Game, board: Board, placed: int) -> Clearing | None:
        """Single answer. Called after ``placed`` (a mask) was added to ``board``:
        find the regions the move completed and return a
        :class:`~blockyard.results.Clearing` with them and the board afterwards
        (tray games empty them and may let blocks fall; sudoku keeps them and
        turns digits into jokers). Must not change ``board`` or the game:
        ``preview`` calls it too. The core answers last with "nothing happens"."""

    @hookspec(firstresult=True)
    def blockyard_accept_stone(self, game: Game, stone: Stone, row: int, col: int
                               ) -> bool | None:
        """Single answer (falling games). Whether ``stone``, having landed on
        ``(row, col)``, may stay. ``False`` makes the landing an error: the stone
        is removed and ``game.errors`` rises by 1. No answer means it stays."""

    @hookspec(firstresult=True)
    def blockyard_score(self, game: Game, move: MoveFacts) -> Scoring | None:
        """Single answer. Points for a move and the new combo counter. Must not
        change the game (``preview`` calls it); return state updates in
        :class:`~blockyard.results.Scoring` instead. The core answers last with 0."""

    @hookspec
    def blockyard_after_move(self, game: Game, result: MoveResult) -> None:
        """Every plugin is called after a move was applied and before the next
        set is dealt (e.g. a perfect clear earns a swap). May change the game."""

    @hookspec(firstresult=True)
    def blockyard_rescue(self, game: Game) -> bool | None:
        """Single answer. Called when no tray piece fits anywhere, before the end
        rule is asked. May change the tray and board (zen refill); return
        ``True`` if it did."""

    @hookspec
    def blockyard_end_reason(self, game: Game, stuck: bool) -> str | None:
        """Every answer counts; the first reason given ends the game. Called after
        each move, deal and rescue. ``stuck``: no tray piece fits anywhere.
        Return ``"stuck"`` (or another reason) to end the game, or ``None``.
        A ruleset none of whose plugins answers never ends by itself."""

    @hookspec(firstresult=True)
    def blockyard_continue_game(self, game: Game, apply: bool) -> bool | None:
        """Single answer. A rescue the player may take after the game is over
        (eu "continue"). With ``apply=False`` answer whether it is available now;
        with ``apply=True`` perform it (the engine then re-checks the end rule)."""

    @hookspec(firstresult=True)
    def blockyard_swap(self, game: Game) -> bool | None:
        """Single answer. Replace the tray with a new set (tiered "new blocks").
        Raise :class:`~blockyard.IllegalMove` when not allowed; return ``True``
        when done. No answer means the ruleset has no swaps."""

    @hookspec(firstresult=True)
    def blockyard_rotate(self, game: Game, piece: Piece) -> Piece | None:
        """Single answer. The piece after the player turns it; ``None`` means the
        ruleset does not allow turning pieces."""

    @hookspec
    def blockyard_invariants(self, game: Game) -> list[str]:
        """Every answer counts. Problems with the current position that must never
        happen under the plugin's rules (e.g. a digit twice in a sudoku row); an
        empty list when all holds. The conformance kit checks them after every
        action."""

    @hookspec
    def blockyard_summary_tips(self, game: Game, summary: dict[str, Any]) -> list[str]:
        """Every answer counts. Tips for the end-of-round summary, best first,
        chosen from the end position; the summary shows the first."""


SPEC_CLASSES = (RulesetSpecs, GameSpecs)
