"""Player actions other than placing, contributed by plugins.

A plugin contributes actions through ``blockyard_actions(ruleset)``, asked once
when the ruleset loads, by returning :class:`ActionSpec` objects. The engine
treats every contribution alike: :meth:`Game.actions` lists those available
now, :meth:`Game.act` performs one atomically and logs it as ``[name, *args]``,
:func:`blockyard.replay` repeats it, and the frontend shows a button and a key
for it. Swap, rotate, continue, end round and the zen refill are all actions of
ordinary plugins; a mod adds its own the same way.

The end rule of tray games is general: a game is over with reason ``"stuck"``
exactly when no tray piece fits and no available action is a *rescue*.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

ActionPredicate = Callable[[Any], bool]
"""A function of the running game answering a yes/no question about an action."""

RESERVED_NAMES = frozenset({"start", "place", "tick", "move", "soft", "hard"})
"""Log entry names the engine uses itself; no plugin action may take them."""

TARGETS = ("none", "slot", "cell", "cell+slot")
"""What an action takes (:attr:`ActionSpec.target`): nothing, a tray slot, a
board cell, or a tray slot and a board cell. Logged as ``[name]``,
``[name, slot]``, ``[name, row, col]`` and ``[name, slot, row, col]``."""

TARGET_ARITY = {"none": 0, "slot": 1, "cell": 2, "cell+slot": 3}
"""How many logged arguments each kind of target has."""


def _always(game: Any) -> bool:
    return True


def _never(game: Any) -> bool:
    return False


def _anywhere(game: Any, *target: Any) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """An action a plugin contributes (the answer of ``blockyard_actions``).

    ``name``
        as written in the game log (``"swap"``); lower-case letters, digits,
        ``-`` and ``_``; unique within a ruleset.
    ``label``
        the player's word for it (``"Swap"``), shown on its button.
    ``perform(game, *args)``
        does it. It may change the game through the documented services
        (``game.state[<plugin name>]``, ``set_slot``, ``set_tray``,
        ``deal_next_set``, ``empty_cells``, ``combo``, ``end_game``). Raise
        :class:`~blockyard.IllegalMove` to refuse; the game is then restored.
    ``key``
        the default key (``"s"``), or ``None``.
    ``takes_slot``
        the action takes one argument, a tray slot (0 to ``len(game.tray) - 1``) holding a piece
        (rotate); the same as ``target="slot"``.
    ``target``
        what the action is aimed at (:data:`TARGETS`): ``"none"`` (the
        default; ``"slot"`` when ``takes_slot``), ``"slot"``, ``"cell"`` (a
        board cell: ``act("hammer", row, col)``) or ``"cell+slot"`` (a tray
        slot and a cell: ``act("bomb", slot, row, col)``). The engine refuses a
        cell off the board and a slot that is empty, then asks ``allowed``.
    ``allowed(game, *target)``
        whether the action may be aimed at ``target`` now (the slot and/or the
        ``row, col`` as logged), for an action with a target: a hammer only
        on a filled cell. :meth:`Game.action_targets` lists every target it
        allows; the kit, the bots and the window ask it.
    ``preview(game, *target)``
        the board cells (a mask, bit ``row * cols + col``) the action would
        change if aimed at ``target``, for the window to highlight before the
        player confirms, or ``None``: :meth:`Game.action_preview`.
    ``after_end``
        offered only once the game is over (eu "continue"): performing it
        reopens the game, and the engine applies the end rule again.
    ``automatic``
        the engine takes it itself, before the end rule, whenever no tray
        piece fits and it is available (zen refill); it is never listed by
        ``Game.actions()`` and never logged (replaying the log repeats it).
    ``available(game)``
        whether it can be taken now (beyond running/over and ``after_end``).
    ``rescue(game)``
        whether taking it now can make a tray piece fit (a swap while swaps
        are left; a turn after which a piece fits). A game is never over as
        "stuck" while an available action is a rescue.
    ``uses_left(game)``
        how many times it can still be taken (shown on the button as
        "Swap (2)"), or ``None`` when unlimited.
    ``help``
        one line of player text saying what it does.
    ``sound``
        the name of the window's sound effect played when it is taken
        (``"swap"``), or ``None`` for none. A name the window does not know
        plays nothing.
    ``confirm``
        whether the window asks the player to click (or press) it a second
        time before taking it. ``None`` (the default) means: yes for an action
        of the running game that takes no slot (swap, end round), no for an
        ``after_end`` or ``takes_slot`` action; see :attr:`asks_confirmation`.
    ``ends_game``
        taking it ends the game at once (end round): the window takes it for
        a game the player abandons, so that its log says how it ended.
    """

    name: str
    label: str
    perform: Callable[..., Any]
    key: str | None = None
    takes_slot: bool = False
    after_end: bool = False
    automatic: bool = False
    available: ActionPredicate = _always
    rescue: ActionPredicate = _never
    uses_left: Callable[[Any], int | None] | None = None
    help: str = ""
    sound: str | None = None
    confirm: bool | None = None
    ends_game: bool = False
    target: str = "none"
    allowed: Callable[..., bool] = _anywhere
    preview: Callable[..., int | None] | None = None

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise TypeError(f"action {self.name!r}: target must be one of "
                            f"{', '.join(repr(t) for t in TARGETS)}, not {self.target!r:.40}")
        if self.takes_slot and self.target == "none":
            object.__setattr__(self, "target", "slot")
        elif self.target == "slot" and not self.takes_slot:
            object.__setattr__(self, "takes_slot", True)
        elif self.takes_slot and self.target != "slot":
            raise TypeError(f"action {self.name!r}: takes_slot is target 'slot', not "
                            f"{self.target!r}")
        if self.sound is not None and not isinstance(self.sound, str):
            raise TypeError(f"action {self.name!r}: sound must be a sound name (str) or None, "
                            f"not {self.sound!r}")
        if self.confirm is not None and not isinstance(self.confirm, bool):
            raise TypeError(f"action {self.name!r}: confirm must be True, False or None, "
                            f"not {self.confirm!r}")
        if not isinstance(self.ends_game, bool):
            raise TypeError(f"action {self.name!r}: ends_game must be True or False, "
                            f"not {self.ends_game!r}")

    @property
    def arity(self) -> int:
        """How many logged arguments the action takes (its target's)."""
        return TARGET_ARITY[self.target]

    @property
    def asks_confirmation(self) -> bool:
        """Whether the window asks for a second click (or key) before taking it:
        ``confirm`` when set, else yes exactly for an action of the running game
        that takes no target."""
        if self.confirm is not None:
            return self.confirm
        return self.target == "none" and not self.after_end


@dataclass(frozen=True, slots=True)
class Action:
    """An action available now, as :meth:`Game.actions` lists it.

    ``name`` (as written in the log), ``label`` (player text), ``key`` (default
    key or ``None``), ``takes_slot``, ``rescue`` (taking it now can make a tray
    piece fit), ``after_end`` (offered after the game ended), ``uses_left``
    (``None`` when unlimited), ``plugin`` (the plugin contributing it),
    ``help`` (one line of player text explaining what it does) and ``target``
    (what it is aimed at: :data:`TARGETS`).
    """

    name: str
    label: str
    key: str | None
    takes_slot: bool
    rescue: bool
    after_end: bool
    uses_left: int | None
    plugin: str
    help: str = ""
    target: str = "none"
