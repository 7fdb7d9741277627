"""The ruleset model: a validated rule file and the facade that asks its plugins.

:class:`Ruleset` is built from the resolved rule-file table (see
:mod:`blockyard.rulefiles` for reading and ``extends``, and
:mod:`blockyard.discovery` for finding rule files). It reads the engine's own
tables (``[ruleset]``, ``[board]``, ``[records]``; the player texts of
``[display]`` and ``[help]`` through :mod:`blockyard.display`; ``[pieces]``
through :mod:`blockyard.pieces`), starts the plugins the file names
(:func:`blockyard.registry.build_plugins`), builds the rule facade
(:class:`blockyard.rulehooks.RuleHooks`, ``ruleset.hooks``) that every rule
question goes through, asks the load-time hooks (board size, piece families,
regions, actions, clock) and checks every answer. Once loaded, a ruleset is
sealed: no plugin can be added to it.
"""

from __future__ import annotations

import hashlib
import inspect
import math
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from functools import cached_property
from typing import Any

import tomli_w

from .actions import RESERVED_NAMES, ActionSpec
from .answers import MAX_TIME_LIMIT
from .defaults import CoreDefaults
from .display import (  # noqa: F401 (re-exported: Display, Help, HELP_MAX_CHARS)
    HELP_MAX_CHARS,
    Display,
    Help,
    drop_stale_translations,
    read_display,
    read_help,
)
from .errors import PluginError, RulesetError, did_you_mean  # noqa: F401 (did_you_mean re-exported)
from .geometry import Geometry, Region, geometry, parse_board_text
from .modes import Mode
from .params import Params
from .pieces import (
    MAX_BOARD,
    Piece,
    PieceFamily,
    PieceLook,
    colour_families,
    parse_families,
    piece_json,
)
from .registry import build_plugins, is_bundled_plugin, registry
from .rulehooks import LOADING, RuleHooks

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
ACTION_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
DEFAULT_TRAY_SLOTS = 3
"""``[tray] slots`` when the rule file does not say: a set of three pieces."""
MAX_TRAY_SLOTS = 6


def _region_owner(ruleset: Ruleset, geo: Geometry, region: Region) -> str:
    """The plugin whose ``blockyard_regions`` answer holds ``region`` (asked again
    one by one; only when a region is refused)."""
    names = [n for n in ruleset.hooks.impl_names("regions") if n != "core"]
    if len(names) == 1:
        return names[0]
    for name, plugin in ruleset.plugin_objects:
        method = getattr(plugin, "blockyard_regions", None)
        if name not in names or method is None:
            continue
        try:
            params = inspect.signature(method).parameters
            found = method(**{k: v for k, v in (("ruleset", ruleset), ("geometry", geo))
                              if k in params})
        except Exception:
            continue
        if isinstance(found, list) and any(r == region and getattr(r, "mask", None)
                                           == region.mask for r in found):
            return name
    return ", ".join(names) or "core"


class Ruleset:
    """A loaded, validated ruleset. Compare with ``==`` (resolved contents).

    ``hooks`` is its rule facade (:class:`~blockyard.rulehooks.RuleHooks`): the
    one way to ask its plugins a rule question. ``hook_timeout``: seconds a hook
    may run before it is stopped as a :class:`~blockyard.PluginError` (``None``:
    the process-wide limit of :mod:`blockyard.watchdog`, none unless set)."""

    id: str
    name: str
    family: str
    description: str
    rows: int
    cols: int
    pieces: tuple[Piece, ...]
    families: tuple[PieceFamily, ...]
    path: str | None
    help: Help
    hooks: RuleHooks

    def __init__(self, data: dict[str, Any], path: str | None, *,
                 hook_timeout: float | None = None) -> None:
        self.data = data
        self.path = path
        self.where = where = path or "<rule file>"
        rows, cols, given = self._read_tables(data)
        self.file_families = tuple(parse_families(data.get("pieces", {}), where))
        self.plugin_objects = tuple(build_plugins(data.get("plugins", {}), where))
        self.hooks = hooks = RuleHooks(
            self, self.plugin_objects, CoreDefaults(self), timeout=hook_timeout,
            bundled=[name for name, _ in self.plugin_objects if is_bundled_plugin(name)])
        self.implemented = hooks.implemented
        self._ask_board(rows, cols)
        self.given: str | None = self._parse_given(given) if given else None
        limit = hooks.time_limit(self)
        # the clock counts whole microseconds (a snapshot's elapsed_us): a limit that
        # rounds to none would give games whose own snapshot says the clock ran out
        if limit is not None and not (math.isfinite(limit) and round(limit * 1_000_000) >= 1
                                      and limit <= MAX_TIME_LIMIT):
            raise self._load_error("time_limit", f"a clock of more than 0 (at least "
                                   f"0.000001, a microsecond: the clock's step) and at most "
                                   f"{MAX_TIME_LIMIT:g} seconds, found {limit!r}")
        self.time_limit: float | None = limit
        self.errors_allowed: int | None = hooks.max_errors(self)
        """How many errors end a game (``blockyard_max_errors``), or ``None``."""
        self.action_specs, self.action_owner = self._collect_actions()
        hooks.check_ruleset(self)
        self._check_complete()
        hooks.seal()

    def _read_tables(self, data: dict[str, Any]) -> tuple[int, int, str]:
        """Read ``[ruleset]``, ``[board]``, ``[records]``, ``[display]`` and ``[help]``;
        returns the ``[board]`` table's rows, columns and given stones."""
        where = self.where
        meta = Params(data["ruleset"], path=where, prefix="ruleset")
        self.id = meta.string("id")
        if not ID_PATTERN.fullmatch(self.id):
            raise meta.error("id", "expected 1 to 64 lower-case letters, digits, '-' or '_', "
                             f"found {self.id!r}")
        self.name = meta.string("name")
        self.family = meta.string("family")
        self.description = meta.string("description")
        self.mode = meta.string("mode", "tray")
        modes = registry().modes
        if self.mode not in modes:
            raise meta.error("mode", f"unknown mode {self.mode!r}; the registered modes are "
                             f"{', '.join(repr(m) for m in sorted(modes))}")
        self.mode_record: Mode = modes[self.mode]
        self.seed_mode = meta.string("seed", "random", choices=("random", "daily"))
        self.timezone = meta.string("timezone", "local")
        meta.finish()
        if self.seed_mode == "daily" and self.timezone != "local":
            try:
                from zoneinfo import ZoneInfo

                ZoneInfo(self.timezone)
            except Exception:
                raise meta.error("timezone", f"unknown time zone {self.timezone!r}") from None

        board = Params(data["board"], path=where, prefix="board")
        rows = board.integer("rows", minimum=1, maximum=MAX_BOARD)
        cols = board.integer("cols", minimum=1, maximum=MAX_BOARD)
        given = board.string("given", "")
        board.finish()

        records = Params(data.get("records", {}), path=where, prefix="records")
        self.record_group = records.string("group", self.id)
        self.record_kind = records.string("kind", "best", choices=("best", "per-date", "none"))
        records.finish()

        if "tray" in data and not self.mode_record.has_tray:
            raise RulesetError("a tray is for tray games (mode = \"tray\")", path=where,
                               key="tray")
        tray = Params(data.get("tray", {}), path=where, prefix="tray")
        self.tray_slots: int = tray.integer("slots", DEFAULT_TRAY_SLOTS, minimum=1,
                                            maximum=MAX_TRAY_SLOTS)
        """``[tray] slots``: how many pieces a set deals, 1 to 6 (default 3)."""
        tray.finish()

        self.display = read_display(data.get("display", {}), where)
        self.help = read_help(data.get("help", {}), where)
        return rows, cols, given

    def _ask_board(self, rows: int, cols: int) -> None:
        """Ask the board's size, piece families and regions, and check them."""
        hooks, where = self.hooks, self.where
        size = hooks.board_size(self)
        self.rows, self.cols = size if size else (rows, cols)
        if not (1 <= self.rows <= MAX_BOARD and 1 <= self.cols <= MAX_BOARD):
            raise self._load_error("board_size", f"a board of 1 to {MAX_BOARD} rows and "
                                   f"columns, found {self.rows}×{self.cols}")
        self.families = tuple(colour_families(hooks.piece_families(self)))
        self.pieces = tuple(p for f in self.families for p in f.pieces)
        for piece in self.pieces:
            if piece.height > self.rows or piece.width > self.cols:
                raise RulesetError(
                    f"piece {piece.id!r} ({piece.height}×{piece.width}) does not fit on a "
                    f"{self.rows}×{self.cols} board", path=where, key=f"pieces.{piece.family}")
        self.geometry: Geometry = geometry(self.rows, self.cols)
        geo = self.geometry
        answer = hooks.regions(self, geo)
        for region in answer:  # checked before binding: cells off the board have no (row, col)
            if region.mask & ~geo.full or not region.mask or (
                    region.cells and region.cells != geo.cells_of(region.mask)):
                raise hooks.error(
                    "regions", f"expected regions inside the {self.rows}×{self.cols} board, "
                    f"found {region!r} with cells outside it, none, or cells that are not its "
                    "mask's", plugin=_region_owner(self, geo, region), action=LOADING)
        self.regions: tuple[Region, ...] = tuple(geo.bind(r) for r in answer)

    def _check_complete(self) -> None:
        """Refuse a ruleset that cannot be played: no dealing, no pieces, no fall."""
        where, hooks = self.where, self.hooks
        if not hooks.impl_names("deal"):
            raise RulesetError("no plugin deals pieces; add a dealing plugin such as "
                               "[plugins.weighted-dealing]", path=where, key="plugins")
        self.mode_record.check_ruleset(self)

    def _parse_given(self, text: str) -> str:
        """``[board] given``: the stones a falling game starts with, as board text
        (``.`` empty, ``1``–``9`` a digit), one line per row; returned as the
        canonical board text. Whether the digits keep the game's own rule (the
        sudoku rule) is checked by its plugins."""
        if not self.mode_record.given_board:
            raise RulesetError("given stones are for falling games (mode = \"falling\"); "
                               "a tray game's starting board is given to new_game(board=...)",
                               path=self.where, key="board.given")
        try:
            lines = parse_board_text(text, self.rows, self.cols, ".123456789")
        except ValueError as exc:
            raise RulesetError(str(exc), path=self.where, key="board.given") from None
        return "\n".join(lines)

    # -- asking plugins ------------------------------------------------------------------

    def plugin_error(self, hook: str, problem: str, *, plugin: str | None = None,
                     seed: int | None = None, action: str | None = None,
                     cause: BaseException | None = None) -> PluginError:
        """A :class:`PluginError` naming the plugin, hook, ruleset, seed and action
        (for the engine's own checks of an answer; see :meth:`RuleHooks.error`)."""
        return self.hooks.error(hook, problem, plugin=plugin, seed=seed, action=action,
                                cause=cause)

    def monitor(self, before: Callable[..., None], after: Callable[..., None]
                ) -> AbstractContextManager[None]:
        """Watch every hook call of this ruleset's games in a ``with`` block
        (pluggy's ``add_hookcall_monitoring``; see :meth:`RuleHooks.monitor`)."""
        return self.hooks.monitor(before, after)

    def register(self, plugin: object, name: str | None = None) -> None:
        """Refused: a loaded ruleset is sealed (:class:`~blockyard.rulehooks.SealedError`).
        Name the plugin in the rule file's ``[plugins]`` table instead."""
        self.hooks.register(plugin, name)

    def _load_error(self, hook: str, expected: str) -> PluginError:
        return self.hooks.error(hook, f"expected {expected}", action=LOADING)

    def _collect_actions(self) -> tuple[dict[str, ActionSpec], dict[str, str]]:
        specs: dict[str, ActionSpec] = {}
        owner: dict[str, str] = {}
        hooks = self.hooks
        for plugin, answer in hooks.actions(self):
            for spec in answer:
                if not ACTION_NAME.fullmatch(spec.name) or spec.name in RESERVED_NAMES:
                    raise hooks.error(
                        "actions", f"action name {spec.name!r} is not allowed (lower-case "
                        "letters, digits, '-', '_'; not one of "
                        f"{', '.join(sorted(RESERVED_NAMES))})", plugin=plugin, action=LOADING)
                if spec.name in specs:
                    raise RulesetError(
                        f"plugins {owner[spec.name]!r} and {plugin!r} both contribute the "
                        f"action {spec.name!r}; a ruleset may use only one of them",
                        path=self.where, key="plugins")
                if not isinstance(spec.label, str) or not spec.label:
                    raise hooks.error("actions", f"action {spec.name!r} has no label",
                                      plugin=plugin, action=LOADING)
                specs[spec.name] = spec
                owner[spec.name] = plugin
                if plugin != "core":
                    for func in (spec.perform, spec.available, spec.rescue, spec.uses_left):
                        hooks.note_owner(func, plugin)
        return specs, owner

    # -- identity and output -----------------------------------------------------

    def name_in(self, language: str) -> str:
        """The ruleset's name in ``language`` (``[display.i18n.<language>] name``), or
        its ``name`` when the rule file gives none in that language."""
        return self.display.in_language(language).name or self.name

    def description_in(self, language: str) -> str:
        """The ruleset's description in ``language``, or its ``description``."""
        return self.display.in_language(language).description or self.description

    @property
    def is_daily(self) -> bool:
        return self.seed_mode == "daily"

    def to_toml(self) -> str:
        """The fully resolved rule file, written with tomli-w."""
        return self._toml

    @cached_property
    def _toml(self) -> str:
        return tomli_w.dumps(self.data, multiline_strings=True)

    @cached_property
    def automatic_actions(self) -> tuple[ActionSpec, ...]:
        """The actions the engine takes by itself when the game is stuck (zen refill)."""
        return tuple(s for s in self.action_specs.values() if s.automatic)

    @cached_property
    def player_actions(self) -> tuple[ActionSpec, ...]:
        """The actions a player may take while the game runs (rescue candidates)."""
        return tuple(s for s in self.action_specs.values()
                     if not s.automatic and not s.after_end)

    @cached_property
    def looks(self) -> dict[int, PieceLook]:
        """The look of each piece family that has one (``[pieces.NAME] look``
        or a plugin's :class:`PieceFamily`), by the colour index its pieces
        and board cells carry: what the window draws beyond the colour."""
        return {index: fam.look for index, fam in enumerate(self.families, start=1)
                if fam.look is not None and not fam.look.plain}

    @cached_property
    def saved_pieces(self) -> dict[str, tuple[dict[str, Any], Piece]]:
        """For each piece id of the ruleset, its saved form (:func:`piece_json`)
        and the piece: a snapshot's tray piece equal to its saved form is that
        piece, checked and rebuilt without parsing."""
        return {p.id: (piece_json(p), p) for p in self.pieces}

    @cached_property
    def digest(self) -> str:
        """SHA-256 of :meth:`to_toml`: identifies the exact rules a game used."""
        return hashlib.sha256(self.to_toml().encode()).hexdigest()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Ruleset):
            return NotImplemented
        return self.data == other.data

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return f"Ruleset({self.id!r})"

