"""Game modes: the kinds of play, registered as records rather than switched on.

A rule file's ``[ruleset] mode`` names a :class:`Mode`. Everything that differs
between kinds of play is a field of that record — the engine class, the
snapshot's own fields and their check, the conformance kit's checks, what a
bot does, the words for a completed area, the screen that plays it — so no
module compares ``game.kind`` with a name; it asks the game's mode
(``game.mode``, ``ruleset.mode_record``) instead.

Modes come from packages, like rule plugins and bots: an entry-point module
implements ``blockyard_register_modes(register)``
(:class:`~blockyard.hookspecs.RegistrySpecs`) and calls ``register(mode)``.
Blockyard's own ``"tray"`` and ``"falling"`` modes are registered that way by
:mod:`blockyard.plugins.modes`. The registered modes are
``blockyard.registry.registry().modes`` (by name) and :func:`blockyard.registry.registered_modes`.

Core never imports the frontend: a mode names its screen as a dotted path
(``"package.module:Class"``) that only the window imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game
    from .ruleset import Ruleset

MODE_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
"""A mode's name: a lower-case letter, then up to 31 lower-case letters, digits,
``-`` or ``_`` (it is written in rule files and snapshots as ``kind``)."""

VIEW_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
"""A screen's dotted path: ``package.module:Class``."""


@dataclass(frozen=True, slots=True)
class AreaWords:
    """The player's words for what a move completes in a mode, in English; the
    window translates them through its catalogue when it has them.

    ``heading``: the column heading of a count (``"Lines"``); ``one`` and
    ``many``: the count's sentence in the singular and the plural, with a
    ``{n}`` field (``"{n} line cleared"``, ``"{n} lines cleared"``)."""

    heading: str
    one: str
    many: str

    def __post_init__(self) -> None:
        for name in ("heading", "one", "many"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"AreaWords.{name}: expected a text, found {value!r}")
        for name in ("one", "many"):
            if "{n}" not in getattr(self, name):
                raise ValueError(f"AreaWords.{name}: the text needs a {{n}} field for the "
                                 f"count, found {getattr(self, name)!r}")


@dataclass(frozen=True, slots=True)
class ModeChecks:
    """The conformance kit's checks for one mode (:mod:`blockyard.testing`).

    ``choose(game, rnd)``: a random legal action as a log entry (``None``: the
    random player stops); ``illegal(game, rnd)``: ``(label, call)`` pairs of
    actions that must raise :class:`~blockyard.IllegalMove` and change nothing;
    ``position(game, report, where)``: check the position, reporting failures
    with ``report.fail(...)`` and passed checks with ``report.count(name)``;
    ``ruleset_checks``: functions ``(ruleset, seed, report)`` run once per
    ruleset (e.g. that the stones depend on the seed only)."""

    choose: Callable[[Any, Any], list[Any] | None]
    illegal: Callable[[Any, Any], list[tuple[str, Any]]]
    position: Callable[[Any, Any, str], None]
    ruleset_checks: tuple[Callable[[Any, int, Any], None], ...] = ()


def _no_snapshot_fields(snap: Mapping[str, Any], ruleset: Ruleset) -> dict[str, Any]:
    return {}


def _no_ruleset_check(ruleset: Ruleset) -> None:
    return None


@dataclass(frozen=True, slots=True, eq=False)
class Mode:
    """One kind of play, as ``[ruleset] mode`` names it.

    ``name``
        what rule files write as ``mode`` and what ``game.kind`` and a
        snapshot's ``"kind"`` are (:data:`MODE_NAME`).
    ``engine``
        the :class:`~blockyard.Game` subclass that plays it.
    ``view``
        the window's screen for it, a dotted path ``"package.module:Class"``
        imported only by the frontend (a
        :class:`blockyard.frontend.game_screen.GameScreen` subclass).
    ``checks``
        the conformance kit's checks (:class:`ModeChecks`).
    ``bot_steps(bot, game)``
        what a bot does in a running game of this mode: a generator of
        actions, the best found so far last (:meth:`blockyard.bots.Bot.steps`
        asks it once the game-over case is handled).
    ``bot_fallback(bot, game)``
        a move a bot makes when it keeps choosing other actions.
    ``move_actions``
        the logged actions that make a move (place a piece, drop a stone).
    ``engine_actions``
        the engine's own logged actions and their number of arguments
        (``{"place": 3, "tick": 1}``), checked in logs and snapshots.
    ``area_words``
        the player's words for what a move completes (:class:`AreaWords`).
    ``has_tray``
        games deal pieces into a tray: placements, ``fit_masks()``, combos and
        the pieces that did not fit (the summary, the statistics page, the
        simulation's deals and the Gymnasium environments use these).
    ``realtime``
        games run on their clock even without a time limit (a falling
        stone): the records keep every game's play time, and a replay shows
        the actions between the clock's ticks as they came instead of pausing
        between them.
    ``given_board``
        whether a rule file may give a starting board (``[board] given``).
    ``snapshot_fields``
        the keys a snapshot of this mode has besides the common ones and the
        engine's state fields (``("tray",)``).
    ``check_snapshot(snap, ruleset)``
        checks the mode's own fields of a snapshot (raising
        :class:`~blockyard.DataError`); returns what the checks built for the
        restored game to own (e.g. ``{"tray": [pieces]}``).
    ``check_ruleset(ruleset)``
        the mode's own checks of a loaded ruleset (raising
        :class:`~blockyard.RulesetError`), e.g. that a tray game has pieces.
    """

    name: str
    engine: type[Game]
    view: str
    checks: ModeChecks
    bot_steps: Callable[[Any, Any], Iterator[Any]]
    bot_fallback: Callable[[Any, Any], tuple[Any, ...]]
    move_actions: frozenset[str]
    engine_actions: Mapping[str, int]
    area_words: AreaWords
    has_tray: bool = False
    realtime: bool = False
    given_board: bool = False
    snapshot_fields: tuple[str, ...] = ()
    check_snapshot: Callable[[Mapping[str, Any], Ruleset], dict[str, Any]] = field(
        default=_no_snapshot_fields)
    check_ruleset: Callable[[Ruleset], None] = field(default=_no_ruleset_check)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not MODE_NAME.fullmatch(self.name):
            raise ValueError(f"Mode.name: expected a lower-case letter, then up to 31 "
                             f"lower-case letters, digits, '-' or '_', found {self.name!r}")
        where = f"mode {self.name!r}"
        if not isinstance(self.engine, type) or not any(
                c.__module__ == "blockyard.game" and c.__qualname__ == "Game"
                for c in self.engine.__mro__):  # blockyard.Game, named: game imports modes' users
            raise ValueError(f"{where}: engine: expected a subclass of blockyard.Game, "
                             f"found {self.engine!r}")
        if not isinstance(self.view, str) or not VIEW_PATH.fullmatch(self.view):
            raise ValueError(f"{where}: view: expected a dotted path 'package.module:Class', "
                             f"found {self.view!r}")
        if not isinstance(self.checks, ModeChecks):
            raise ValueError(f"{where}: checks: expected a ModeChecks, found {self.checks!r}")
        if not isinstance(self.area_words, AreaWords):
            raise ValueError(f"{where}: area_words: expected an AreaWords, "
                             f"found {self.area_words!r}")
        for name in ("bot_steps", "bot_fallback", "check_snapshot", "check_ruleset"):
            if not callable(getattr(self, name)):
                raise ValueError(f"{where}: {name}: expected a function, "
                                 f"found {getattr(self, name)!r}")
        if not isinstance(self.move_actions, frozenset) or not self.move_actions \
                or not all(isinstance(a, str) and a for a in self.move_actions):
            raise ValueError(f"{where}: move_actions: expected a frozenset of action names, "
                             f"found {self.move_actions!r}")
        if not isinstance(self.engine_actions, Mapping) or not all(
                isinstance(k, str) and k and type(v) is int and 0 <= v <= 8
                for k, v in self.engine_actions.items()):
            raise ValueError(f"{where}: engine_actions: expected a table of action names "
                             f"and argument counts (0 to 8), found {self.engine_actions!r}")
        if not self.move_actions <= self.engine_actions.keys():
            raise ValueError(f"{where}: move_actions {sorted(self.move_actions)} are not all "
                             f"engine actions {sorted(self.engine_actions)}")
        if not isinstance(self.snapshot_fields, tuple) or not all(
                isinstance(f, str) and f for f in self.snapshot_fields):
            raise ValueError(f"{where}: snapshot_fields: expected a tuple of key names, "
                             f"found {self.snapshot_fields!r}")

    def __repr__(self) -> str:
        return f"Mode({self.name!r}, engine={self.engine.__name__})"


__all__ = ["MODE_NAME", "VIEW_PATH", "AreaWords", "Mode", "ModeChecks"]
