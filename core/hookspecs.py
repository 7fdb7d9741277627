"""The hook specifications: the plugin author's reference.

Blockyard's engine asks plugins every rule question through these hooks. Each
ruleset has one rule facade (:class:`~blockyard.rulehooks.RuleHooks`) holding
only the plugins its rule file names (plus the core defaults, which answer
last), shared by its games; once the ruleset is loaded, no plugin can be added.
A plugin is any object with methods decorated by :data:`hookimpl` whose names are hook names below;
misspelled hook names and wrong argument names are rejected when a ruleset is
loaded.

Hooks marked *single answer* are ``firstresult``: the first non-``None``
answer wins (an implementation returning ``None`` lets the next one answer,
down to the core's default), and the loader refuses a ruleset in which two of
its plugins answer the same single-answer hook. The other hooks collect every
answer. Wrappers (``@hookimpl(wrapper=True)``) work as in pluggy.

Arguments you may receive:

``ruleset``
    the :class:`~blockyard.Ruleset` being loaded or played.
``game``
    the running :class:`~blockyard.Game`. Read anything; change state only in
    ``game_start`` and in the ``perform`` function of an action you contribute
    (:class:`~blockyard.actions.ActionSpec`), and only through documented
    members. Every other game hook must answer without changing the game:
    ``preview`` and bots call them too, and the engine restores the game
    exactly when any plugin raises.

Whatever a plugin raises (other than :class:`~blockyard.IllegalMove` from an
action's ``perform``), whatever answer of the wrong type it returns (a wrapper
that drops the answer, or returns one answer where the list of every answer is
due, included) and whatever figures out of bounds ``game_start`` or an action's
``perform`` writes becomes a :class:`~blockyard.PluginError` naming the plugin,
the hook, the ruleset, the seed and the action, the file and line in the
plugin's code and what to do; the game is left exactly as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from .actions import ActionSpec
    from .game import Game
    from .geometry import Board, Geometry, Region
    from .modes import Mode
    from .pieces import Piece, PieceFamily
    from .results import Clearing, FallingRules, MoveFacts, MoveResult, Scoring
    from .ruleset import Ruleset
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

    @hookspec
    def blockyard_register_bots(self, register: Callable[[str, Callable[..., Any]], None]
                                ) -> None:
        """Contribute bots (players for ``blockyard simulate`` and
        :mod:`blockyard.bots`): call ``register(name, factory)`` for each.
        ``factory(**params)`` returns a :class:`blockyard.bots.Bot` (subclass it
        and implement ``tray_steps`` and ``falling_value``); ``params`` are those
        given to ``get_bot(name, **params)`` or ``--bot-param``. A name taken by
        Blockyard's own bots or by another package is reported and skipped."""

    @hookspec
    def blockyard_register_modes(self, register: Callable[[Mode], None]) -> None:
        """Contribute game modes (kinds of play a rule file names with ``[ruleset]
        mode``): call ``register(mode)`` with a :class:`blockyard.modes.Mode` for
        each — its engine class, screen, conformance checks, bot steps and the
        rest. Blockyard's ``"tray"`` and ``"falling"`` are registered this way
        too; a name taken by them or by another package is reported and
        skipped."""


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
        return []

    @hookspec
    def blockyard_piece_families(self, ruleset: Ruleset) -> list[PieceFamily]:
        """Every answer counts. Piece families added to those of the rule file's
        ``[pieces]`` table (which the core contributes first)."""
        return []

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

    @hookspec(firstresult=True)
    def blockyard_max_errors(self, ruleset: Ruleset) -> int | None:
        """Single answer, falling games. How many errors end the game (the plugin
        whose end rule counts them answers), or ``None`` when errors end nothing.
        Read once at load as ``game.errors_allowed`` (the window shows it)."""

    @hookspec
    def blockyard_actions(self, ruleset: Ruleset) -> list[ActionSpec]:
        """Every answer counts. The player actions other than placing that this
        plugin contributes (swap, rotate, continue, end round, zen refill, a
        mod's own), as :class:`~blockyard.actions.ActionSpec` objects. Asked
        once when the ruleset loads; names must be unique within the ruleset.
        An action may take a target the player aims it at (``target``: a tray
        slot, a board cell, or both), with ``allowed`` saying where it may be
        aimed and ``preview`` what it would change there. Keep the action's
        state in ``game.state[<plugin name>]``."""
        return []


# --------------------------------------------------------------------------
# Game hooks
# --------------------------------------------------------------------------

class GameSpecs:
    """Hooks asked while a game runs."""

    @hookspec
    def blockyard_game_start(self, game: Game) -> None:
        """Every plugin is called once when a new game starts, before the first
        set is dealt: set up ``game.state[<plugin name>]``. Not called on restore
        or replay of a snapshot."""

    @hookspec(firstresult=True)
    def blockyard_deal(self, game: Game, index: int) -> list[Any] | None:
        """Single answer, required. Batch number ``index`` (0, 1, …) of what the
        player gets: for tray games the pieces of set ``index`` (a list of
        ``game.ruleset.tray_slots`` :class:`~blockyard.Piece`, three unless the
        rule file's ``[tray] slots`` says otherwise; the board may be consulted for a fit
        guarantee); for falling games the next stones (a non-empty list of
        :class:`~blockyard.stones.Stone`, a bag). Draw randomness only from
        ``game.stream("deal", index, ...)`` (docs/rules.md T7), so every player of
        a seed gets the same batches. Must not change the game."""

    @hookspec
    def blockyard_allowed_anchors(self, game: Game, piece: Piece) -> int | None:
        """Every answer counts. A mask of anchors (bit ``row * cols + col``) where
        ``piece`` may be placed beyond "inside the board on empty cells"; the
        answers are ANDed. ``None`` means no restriction. Called only when some
        plugin implements it, so the common case stays fast."""

    @hookspec(firstresult=True)
    def blockyard_clear(self, game: Game, board: Board, placed: int, piece: Piece | None,
                        row: int, col: int) -> Clearing | None:
        """Single answer. Called after ``placed`` (a mask) was added to ``board``
        by ``piece`` anchored at ``(row, col)`` (falling games: ``piece`` is
        ``None`` and ``(row, col)`` is where the stone landed): find the regions
        the move completed and return a :class:`~blockyard.results.Clearing`
        with them and the board afterwards (tray games empty them and may let
        blocks fall; sudoku keeps them and turns digits into jokers). Must not
        change ``board`` or the game: ``preview`` calls it too. The core answers
        last with "nothing happens"."""

    @hookspec
    def blockyard_affected_cells(self, game: Game, piece: Piece, row: int, col: int
                                 ) -> int | None:
        """Every answer counts (the masks are ORed). The board cells (a mask, bit
        ``row * cols + col``) that placing ``piece`` anchored at ``(row, col)``
        affects beyond the cells it covers and the regions it completes — a
        bomb's blast area, empty cells included — so the window's preview glows
        them before the piece is placed (``game.affected_cells(slot, row,
        col)``). ``None`` for none. Must not change the game."""

    @hookspec(firstresult=True)
    def blockyard_accept_stone(self, game: Game, stone: Stone, row: int, col: int
                               ) -> bool | None:
        """Single answer (falling games). Whether ``stone``, having landed on
        ``(row, col)``, may stay. ``False`` makes the landing an error: the stone
        is removed and ``game.errors`` rises by 1. No answer means it stays."""

    @hookspec(firstresult=True)
    def blockyard_score(self, game: Game, move: MoveFacts) -> Scoring | None:
        """Single answer. Points for a move and the new combo counter, from the
        :class:`~blockyard.results.MoveFacts` (the piece, where it went and the
        cells it covered, the regions it completed, every cell it empties, the
        combo counter and the streak before the move, ``streak_before``; MODDING.md's
        table of facts lists them all). Must not change the game
        (``preview`` calls it); return state updates in
        :class:`~blockyard.results.Scoring` instead. The core answers last with 0."""

    @hookspec
    def blockyard_move_state(self, game: Game, result: MoveResult) -> dict[str, Any] | None:
        """Every answer counts. Called after a tray move was scored, before the
        next set is dealt: return updates to your own saved state (a dict merged
        into ``game.state``, e.g. ``{"swaps": {"left": 3}}`` when a perfect clear
        earns a swap), or ``None``. Must not change the game."""

    @hookspec
    def blockyard_end_reason(self, game: Game, stuck: bool) -> str | None:
        """Every answer counts; the first reason given ends the game. Called after
        each move, deal and action. ``stuck`` (tray games): no tray piece fits
        and no available action is a rescue, so the game ends now: as
        ``"stuck"`` unless a plugin gives a reason of its own (no plugin needs
        to end a stuck game). Return a reason such as ``"complete"`` to end the
        game for a rule of your own, or ``None``."""

    @hookspec
    def blockyard_invariants(self, game: Game) -> list[str]:
        """Every answer counts. Problems with the current position that must never
        happen under the plugin's rules (e.g. a digit twice in a sudoku row); an
        empty list when all holds. The conformance kit checks them after every
        action."""
        return []

    @hookspec
    def blockyard_summary_tips(self, game: Game, summary: dict[str, Any]) -> list[str]:
        """Every answer counts. Tips for the end-of-round summary, best first,
        chosen from the end position; the summary shows the first."""
        return []


SPEC_CLASSES = (RulesetSpecs, GameSpecs)
