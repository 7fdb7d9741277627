"""The shared game engine: what every kind of play has in common.

A :class:`Game` owns the state (board, score, clock, plugin state, log) and the
order of events; every rule question goes to the ruleset's plugins through the
hooks of :mod:`blockyard.hookspecs`. The kinds of play build on it, chosen
by the rule file's ``[ruleset] mode`` among the registered modes
(:mod:`blockyard.modes`), whose record names the engine class. Blockyard's own:

- ``"tray"`` — :class:`blockyard.tray.TrayGame`: place pieces from a tray of
  three (eu, tiered, nepal, gravity);
- ``"falling"`` — :class:`blockyard.falling.FallingGame`: steer one falling
  stone at a time (sudoku-bloxx).

All share rule files, plugin hooks, seeded streams, snapshots, replays and
records. Actions are atomic: each validates completely before it changes
anything, so an :class:`IllegalMove` leaves the game exactly as it was.

This module is longer than most because the base class carries what must see
every field of every game: snapshots, rebuilding from a log, and the purity
check's probe and put-back (a hook that changed the game is undone here).
"""

from __future__ import annotations

import datetime as _dt
import math
import operator
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from . import rng, validate
from .actions import Action, ActionSpec
from .answers import reason_problem
from .discovery import load_ruleset, load_ruleset_text
from .errors import DataError, IllegalMove, PluginError, RulesetError
from .geometry import Board
from .params import short_repr
from .pieces import Piece
from .results import Summary
from .rulehooks import function_where
from .ruleset import Ruleset
from .validate import SCALARS, copy_json

if TYPE_CHECKING:
    from .modes import Mode

SNAPSHOT_FORMAT = "blockyard-snapshot/1"
_new_object = object.__new__

TraySpec = Sequence[str | Piece | None]


def today_in(timezone: str, now: _dt.datetime | None = None) -> _dt.date:
    """Today's date in ``timezone`` (``"local"`` or an IANA name) at the moment
    ``now`` (an aware datetime; the system clock's when ``None``)."""
    if timezone == "local" and now is None:
        return _dt.date.today()
    return _moment_in(timezone, now).date()


def next_daily(timezone: str, now: _dt.datetime | None = None) -> _dt.datetime:
    """When the next daily game of ``timezone`` begins after the moment ``now``
    (an aware datetime; the system clock's when ``None``): the next midnight
    there, as an aware datetime. Where a daylight-saving change skips midnight,
    the first moment of the new date."""
    here = _moment_in(timezone, now)
    tomorrow = _dt.datetime.combine(here.date() + _dt.timedelta(days=1), _dt.time())
    if timezone == "local":
        return tomorrow.astimezone()  # a naive time is read as the system's local time
    # fold 0 on a skipped midnight: the offset before the change, the new date's start
    return tomorrow.replace(tzinfo=here.tzinfo).astimezone(_dt.UTC)


def _moment_in(timezone: str, now: _dt.datetime | None) -> _dt.datetime:
    """The moment ``now`` (the system clock's when ``None``) on the clocks of
    ``timezone``."""
    if now is None:
        now = _dt.datetime.now(_dt.UTC)
    elif now.tzinfo is None or now.utcoffset() is None:
        raise ValueError(f"now: expected a time with its time zone, got {now.isoformat()}")
    if timezone == "local":
        return now.astimezone()
    from zoneinfo import ZoneInfo

    return now.astimezone(ZoneInfo(timezone))


class Game:
    """A game in progress. Create one with :func:`blockyard.new_game`.

    Members every game has: ``ruleset``, ``seed``, ``date``, ``rows``, ``cols``,
    ``board``, ``board_text()``, ``score``, ``moves``, ``over``,
    ``over_reason``, ``time_left``, ``tick()``, ``end_round()``, ``snapshot()``,
    ``clone()``, ``log``, ``summary()``, ``state`` (the plugins' own saved
    state), ``kind`` (the mode's name) and ``mode`` (the ruleset's
    :class:`~blockyard.modes.Mode` record).
    """

    _STATE_FIELDS: ClassVar[tuple[str, ...]] = ("score", "moves", "over_reason", "elapsed_us")
    _DERIVED_FIELDS: ClassVar[tuple[str, ...]] = ()
    """Figures the engine keeps that a snapshot does not hold (its log gives them
    again): compared by the purity check like the snapshot's own."""
    _PURE_LISTS: ClassVar[tuple[str, ...]] = ()
    """The engine's own lists (besides ``state`` and ``log``) that the purity
    check copies before a hook and compares after it."""
    _CACHES: ClassVar[tuple[str, ...]] = ()
    """Attributes that only cache what the rest of the game determines (a hook
    may fill them by asking, e.g. ``legal_moves()``): put back as they were
    after a hook, never counted as a change."""
    _PURE_NAMES: ClassVar[dict[str, str]] = {"_board": "the board", "log": "the log",
                                            "state": "state"}
    """How the purity check's error names an attribute (default: its name)."""
    _STEPS: ClassVar[tuple[str, ...]] = ("act", "actions")
    """The public methods that are one step of play each: the hooks one of them
    asks share the watchdog's limit (:func:`timed_engine`)."""
    _COUNTERS: ClassVar[tuple[str, ...]] = ("moves", "elapsed_us")
    """The engine's whole-number figures besides the score: what a plugin's
    ``perform`` or ``blockyard_game_start`` writes into them is checked
    (:func:`blockyard.answers.written_problem`)."""

    def __init__(self, ruleset: Ruleset, seed: int, date: str | None) -> None:
        self.ruleset = ruleset
        self.mode: Mode = ruleset.mode_record
        self.seed = seed
        self.date = date
        self.rows = ruleset.rows
        self.cols = ruleset.cols
        self._geo = ruleset.geometry
        self._hooks = ruleset.hooks
        self._has_end = "end_reason" in ruleset.implemented
        self._specs = ruleset.action_specs
        self._auto = ruleset.automatic_actions
        limit = ruleset.time_limit
        self._limit_us: int | None = None if limit is None else round(limit * 1_000_000)
        self._board = Board(self._geo)
        self.score = 0
        self.moves = 0
        self.lines_cleared = 0
        self.best_combo = 0
        self.over_reason: str | None = None
        self.elapsed_us = 0
        self.state: dict[str, Any] = {}
        self.log: list[list[Any]] = []
        self._pure_held: tuple[Game, Any] | None = None

    # -- starting ----------------------------------------------------------------------

    @staticmethod
    def start(ruleset: Ruleset, *, seed: int | None = None, date: _dt.date | None = None,
              board: str | None = None, tray: TraySpec | None = None,
              stream: str | None = None) -> Game:
        """Start a new game of the ruleset's kind (see :func:`blockyard.new_game`)."""
        _check_start(seed, date, board, tray, stream)
        day: str | None = None
        if ruleset.is_daily:
            when = date or today_in(ruleset.timezone)
            day = when.isoformat()
            if seed is None:
                seed = rng.daily_seed(ruleset.id, when)
        elif date is not None:
            day = date.isoformat()
        if seed is None:
            seed = rng.random_seed()
        engine = ruleset.mode_record.engine
        hooks = ruleset.hooks
        if hooks.timed:
            engine = timed_engine(engine)
        game = engine(ruleset, seed, day)
        extra = game._load_start(board=board, tray=tray, stream=stream)
        game.log.append(["start", {"ruleset": ruleset.to_toml(), "id": ruleset.id,
                                   "seed": seed, "date": day, **extra}])
        if hooks.timed:
            hooks.step(game, "start", game._started)
        else:
            game._started()
        return game

    def _started(self) -> None:
        """Ask the plugins to set up the game, then begin it."""
        self._hooks.game_start(self)
        self._begin()

    def _load_start(self, *, board: str | None, tray: TraySpec | None,
                    stream: str | None) -> dict[str, Any]:
        """Set up a starting position; returns what the log must remember of it."""
        raise NotImplementedError

    def _begin(self) -> None:
        """Deal or spawn what the first move needs, and check the end rule."""
        raise NotImplementedError

    # -- public state ------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """The name of the game's mode (``[ruleset] mode``; a snapshot's ``"kind"``)."""
        return self.mode.name

    @property
    def over(self) -> bool:
        return self.over_reason is not None

    @property
    def time_left(self) -> float | None:
        """Seconds left on the clock; ``None`` when the ruleset has no clock."""
        if self._limit_us is None:
            return None
        return max(0, self._limit_us - self.elapsed_us) / 1_000_000

    @property
    def grid(self) -> Board:
        """The board object (bitboard and cell codes), for plugins: an immutable
        :class:`~blockyard.geometry.Board` (its ``fill``/``empty`` return new
        boards); the game changes its board only through its documented services."""
        return self._board

    def board_text(self) -> str:
        """The board as text, rows joined by newlines."""
        return self._board.text()

    def stream(self, *key: int | str) -> random.Random:
        """The random stream ``(seed, *key)`` (docs/rules.md T7)."""
        return rng.stream(self.seed, *key)

    def _end_reason(self, stuck: bool, action: str) -> str | None:
        if self._has_end:
            for reason in self._hooks.end_reason(self, stuck, action):
                if reason:
                    return str(reason)
        return None

    # -- actions contributed by plugins ---------------------------------------------------

    def _spec_available(self, spec: ActionSpec) -> bool:
        if spec.automatic or spec.after_end != (self.over_reason is not None):
            return False
        return bool(self._ask_action(spec, "available", spec.available))

    def _ask_action(self, spec: ActionSpec, what: str, func: Callable[..., Any],
                    *args: Any) -> Any:
        return self._hooks.action(self, spec, what, func, *args)

    def actions(self) -> list[Action]:
        """The player actions other than placing that are available now, as
        plugins contribute them (swap, rotate, continue, end round, a mod's own).
        Actions offered only after the end (eu's continue) are listed once the
        game is over."""
        owner = self.ruleset.action_owner
        return [Action(spec.name, spec.label, spec.key, spec.takes_slot, rescue, spec.after_end,
                       uses, owner[spec.name], spec.help, spec.target)
                for spec, uses, rescue in self._available_actions()]

    def _available_actions(self) -> list[tuple[ActionSpec, Any, bool]]:
        """What :meth:`actions` lists, before it is dressed for the player: each
        available action's spec, uses left (``None``: unlimited) and whether it is
        a rescue, the plugins asked exactly as :meth:`actions` asks them."""
        out = []
        for spec in self._specs.values():
            if not self._spec_available(spec):
                continue
            uses = None if spec.uses_left is None else \
                self._ask_action(spec, "uses_left", spec.uses_left)
            out.append((spec, uses, bool(self._ask_action(spec, "rescue", spec.rescue))))
        return out

    def has_action(self, name: str) -> bool:
        """Whether the ruleset has the action ``name`` at all (available now or not)."""
        return name in self._specs and not self._specs[name].automatic

    def act(self, name: str, *args: Any) -> Any:
        """Perform the available action ``name`` (``act("rotate", 0)``): atomic,
        logged as ``[name, *args]`` and repeated by :func:`blockyard.replay`.
        ``IllegalMove`` when it is not available now or its arguments are wrong;
        the game is then left exactly as it was."""
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None or spec.automatic:
            names = ", ".join(n for n, s in self._specs.items() if not s.automatic)
            raise IllegalMove(f"no action {name!r} in ruleset {self.ruleset.id!r} "
                              f"(its actions: {names})")
        self._check_target(spec, args)
        if spec.after_end and self.over_reason is None:
            raise IllegalMove(f"{spec.label}: only after the game is over")
        if not spec.after_end and self.over_reason is not None:
            raise IllegalMove(f"the game is over ({self.over_reason})")
        if not self._spec_available(spec):
            if spec.uses_left is not None and \
                    self._ask_action(spec, "uses_left", spec.uses_left) == 0:
                raise IllegalMove(f"{spec.label}: no {spec.name} left")
            raise IllegalMove(f"{spec.label} is not available now")
        before = self.snapshot_state()
        log_length = len(self.log)
        try:
            answer = self._ask_action(spec, "perform", spec.perform, *args)
            if spec.after_end and self.over_reason is not None \
                    and self.over_reason == before["over_reason"]:
                self.over_reason = None
            self.log.append([name, *args])
            if self.over_reason is None:
                self._after_action(name)
        except BaseException:
            self._restore_state(before)
            del self.log[log_length:]
            raise
        return answer

    def _check_slot_arg(self, slot: Any) -> None:
        raise IllegalMove("this game has no tray")

    def _check_target(self, spec: ActionSpec, args: Sequence[Any]) -> None:
        """``IllegalMove`` unless ``args`` are a target of ``spec``'s kind: a filled
        tray slot, a cell on the board, or both (``slot, row, col``); an action
        with a target then asks its plugin's ``allowed``."""
        name, target = spec.name, spec.target
        if target == "none":
            if args:
                raise IllegalMove(f"{name}: takes no arguments, found {len(args)}")
            return
        if target == "slot":
            if len(args) != 1:
                raise IllegalMove(f"{name}: expected one tray slot, found {len(args)} arguments")
            self._check_slot_arg(args[0])
        else:
            wanted = "a row and a column" if target == "cell" else "a tray slot, a row and a column"
            if len(args) != spec.arity:
                raise IllegalMove(f"{name}: expected {wanted}, found {len(args)} arguments")
            if target == "cell+slot":
                self._check_slot_arg(args[0])
            row, col = args[-2], args[-1]
            for what, value, size in (("row", row, self.rows), ("col", col, self.cols)):
                if isinstance(value, bool) or not isinstance(value, int) \
                        or not 0 <= value < size:
                    raise IllegalMove(f"{name}: {what}: expected 0 to {size - 1}, found "
                                      f"{value!r:.40}")
        if (self.over_reason is None or spec.after_end) \
                and not self._ask_action(spec, "allowed", spec.allowed, *args):
            raise IllegalMove(f"{spec.label}: not allowed at {_target_text(spec, args)}")

    def action_targets(self, name: str) -> list[tuple[int, ...]]:
        """Every target the action ``name`` may be aimed at now, as its logged
        arguments (``(slot,)``, ``(row, col)``, ``(slot, row, col)``; ``[()]`` for
        an action without a target), asked of its plugin's ``allowed``; ``[]``
        when it is not available now. For bots, the window and the kit."""
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None or spec.automatic or not self._spec_available(spec):
            return []
        if spec.target == "none":
            return [()]
        slots = [s for s, p in enumerate(getattr(self, "tray", ())) if p is not None]
        cells: list[tuple[int, ...]] = [(r, c) for r in range(self.rows)
                                         for c in range(self.cols)]
        candidates: list[tuple[int, ...]] = (
            [(s,) for s in slots] if spec.target == "slot"
            else cells if spec.target == "cell"
            else [(s, r, c) for s in slots for r, c in cells])
        ask, allowed = self._ask_action, spec.allowed
        return [t for t in candidates if ask(spec, "allowed", allowed, *t)]

    def action_preview(self, name: str, *target: Any) -> frozenset[tuple[int, int]]:
        """The board cells the action ``name`` aimed at ``target`` would change, as
        its plugin's ``preview`` says (none when it has none): for the window's
        highlight before the player confirms. ``IllegalMove`` exactly when
        ``act(name, *target)`` would refuse: an unknown action, a wrong target,
        one not available now (its uses spent, the game over), one its plugin's
        ``perform`` refuses (the action is taken on a :meth:`clone` to know);
        changes nothing."""
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None or spec.automatic:
            raise IllegalMove(f"no action {name!r} in ruleset {self.ruleset.id!r}")
        self.clone().act(name, *target)  # what act refuses, on a twin that is dropped
        if spec.preview is None:
            return frozenset()
        mask = self._ask_action(spec, "preview", spec.preview, *target)
        if mask is None:
            return frozenset()
        size = self.rows * self.cols
        if isinstance(mask, bool) or not isinstance(mask, int) or mask < 0 or mask >> size:
            raise self._hooks.error(
                "actions", f"action {name!r}: preview returned {mask!r:.40}; expected a mask "
                f"of the board's {size} cells (0 ≤ mask < 2**{size}) or None",
                plugin=self.ruleset.action_owner.get(name), seed=self.seed, action=name,
                where=function_where(spec.preview))
        return self._geo.cells_of(mask)

    def _after_action(self, name: str) -> None:
        """Re-deal and apply the end rule after an action."""

    def end_game(self, reason: str) -> None:
        """End the game with ``reason`` (for plugins' actions, e.g. end round): one
        line of 1 to 64 printable characters (what a snapshot carries); anything
        else is a ``TypeError`` or ``ValueError`` and changes nothing."""
        if not isinstance(reason, str) or not reason:
            raise TypeError(f"end_game: expected a reason, found {_short(reason)}")
        problem = reason_problem(reason)
        if problem is not None:
            raise ValueError(f"end_game: {problem}")
        self.over_reason = reason

    # -- actions every game has ---------------------------------------------------------

    def end_round(self) -> None:
        """End the game now (reason ``"ended"``); a shorthand for ``act("end")``."""
        if self.over_reason is not None:
            raise IllegalMove(f"the game is already over ({self.over_reason})")
        self.act("end")

    def _require_running(self) -> None:
        if self.over_reason is not None:
            raise IllegalMove(f"the game is over ({self.over_reason})")

    @staticmethod
    def _seconds_to_us(seconds: float) -> int:
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) \
                or not math.isfinite(seconds) or not 0 <= seconds <= 86_400:
            raise IllegalMove(f"tick: expected a number of seconds from 0 to 86400, "
                              f"found {seconds!r:.40}")
        return round(seconds * 1_000_000)

    def _log_tick(self, us: int) -> None:
        last = self.log[-1] if self.log else None
        if last is not None and last[0] == "tick":
            self.log[-1] = ["tick", last[1] + us]  # a new entry: clones share entries
        else:
            self.log.append(["tick", us])

    def summary(self, record_before: int | None = None) -> Summary:
        """The end-of-round summary (docs/rules.md §4.5); see :class:`Summary`.

        ``record_before`` is the best score before this game (the records module
        passes it); ``record_after`` is then the better of it and this score,
        for rulesets that keep a record."""
        failed = self._failed_pieces()
        facts: dict[str, Any] = {"points": self.score, "failed_pieces": failed,
                 "lines_cleared": self.lines_cleared, "best_combo": self.best_combo}
        try:
            tips = self._hooks.summary_tips(self, facts)
        except PluginError as exc:
            import warnings

            warnings.warn(str(exc), stacklevel=2)
            tips = []
        keeps = self.ruleset.record_kind != "none"
        after = None
        if keeps:
            after = self.score if record_before is None else max(record_before, self.score)
        return Summary(
            ruleset_id=self.ruleset.id, points=self.score,
            record_before=record_before if keeps else None, record_after=after,
            new_record=keeps and self.score > 0 and (record_before is None
                                                     or self.score > record_before),
            lines_cleared=facts["lines_cleared"], best_combo=self.ruleset.display.factor(
                facts["best_combo"]),
            moves=self.moves, failed_pieces=failed, tip=tips[0] if tips else None,
            over_reason=self.over_reason, date=self.date)

    def _failed_pieces(self) -> tuple[Piece, ...]:
        return ()

    # -- snapshots and replays ----------------------------------------------------------

    def snapshot_state(self) -> dict[str, Any]:
        """The mutable game state (without ruleset and log), JSON-safe."""
        out = {name: copy_json(getattr(self, name)) for name in self._STATE_FIELDS}
        out["cells"] = list(self._board.colours)
        out["bits"] = self._board.bits
        out["state"] = copy_json(self.state)
        return out

    def digest_state(self) -> list[Any]:
        """What the final-state digest (:func:`blockyard.replays.state_digest`)
        hashes besides the cells' colours, in one JSON-safe list: the kind, seed
        and date, then the state fields, the board's bits and the plugins'
        state. An engine whose :meth:`snapshot_state` holds more (a mode of its
        own) is digested by its snapshot state instead, so nothing it keeps is
        left out."""
        if type(self).snapshot_state is not Game.snapshot_state:
            return self._digest_snapshot()
        return self._digest_fields()

    def _digest_fields(self) -> list[Any]:
        return [self.kind, self.seed, self.date,
                [getattr(self, name) for name in self._STATE_FIELDS],
                self._board.bits, self.state]

    def _digest_snapshot(self) -> list[Any]:
        snap = self.snapshot_state()
        snap.pop("cells", None)  # hashed as bytes
        snap.pop("cell_pieces", None)  # decided by the moves, as the colours are
        return [self.kind, self.seed, self.date, snap]

    def _restore_state(self, data: dict[str, Any]) -> None:
        for name in self._STATE_FIELDS:
            value = data[name]
            setattr(self, name, value if type(value) in SCALARS else copy_json(value))
        # (the cells' piece ids: tray games' snapshots; a falling game's are all None)
        self._board = Board(self._geo, data["bits"], data["cells"], data.get("cell_pieces"))
        self.state = copy_json(data["state"])

    def _figures(self) -> tuple[int, dict[str, Any], dict[str, Any]]:
        """The score, the counters and a copy of the plugins' state, for
        :func:`~blockyard.answers.written_problem` to compare with afterwards."""
        return (self.score, {name: getattr(self, name, None) for name in self._COUNTERS},
                _copy_state(self.state))

    # -- purity: what a hook other than game_start may not change -------------------------
    #
    # The rule facade (blockyard.rulehooks) takes a mark before asking a hook
    # other than blockyard_game_start and compares the game's probe with it
    # after. The probe is one tuple of what a snapshot holds, read by identity
    # (boards and pieces never change; the plugins' state and the log are
    # containers), so comparing two probes is cheap; the state's contents are
    # compared with a copy kept on the game, made again only when the engine has
    # changed the state or the log since the last hook (about once per move).

    _pure_held: tuple[Game, Any] | None
    """``(game, mark)`` while the engine asks several hooks in a row without
    changing the game in between (``TrayGame.evaluate``): the facade then leaves
    the check to the engine, which compares the game with the mark once after
    them all (and on a change asks them again, one check each, to name the hook)."""

    def _pure_probe(self) -> tuple[Any, ...]:
        """The game's fields the purity check compares, in one tuple: the state,
        the log, its length and last entry first, the fields of a snapshot after
        them (subclasses add theirs, and their caches last)."""
        log = self.log
        cls = type(self)
        return (self.state, log, len(log), log[-1] if log else None,
                *(_PURE_FIELDS.get(cls) or _pure_fields(cls))(self),
                *[tuple(getattr(self, name)) for name in cls._PURE_LISTS])

    def _pure_mark(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """What the purity check compares after a hook: the probe, and the copy of
        the state and the log it refers to."""
        probe = self._pure_probe()
        now = self.__dict__
        seen = now.get("_pure_seen")
        if seen is None or seen[0] is not probe[0]:
            now["_pure_seen"] = seen = (probe[0], _copy_state(probe[0]), probe[2], probe[3],
                                        tuple(probe[1]))
        elif seen[2] != probe[2] or seen[3] is not probe[3]:
            state = seen[1] if seen[1] == probe[0] else _copy_state(probe[0])
            now["_pure_seen"] = seen = (probe[0], state, probe[2], probe[3], tuple(probe[1]))
        elif seen[1] != probe[0]:
            now["_pure_seen"] = seen = (probe[0], _copy_state(probe[0]), probe[2], probe[3],
                                        seen[4])
        return probe, seen

    def _pure_check(self, mark: tuple[tuple[Any, ...], tuple[Any, ...]]) -> str | None:
        """``None`` when the game is as the mark saw it; else the game is put back
        exactly as it was and what had changed is returned (``"score 120 → 897"``).
        Caches a hook filled (``legal_moves()`` asked in a hook) are put back
        silently."""
        try:
            after = self._pure_probe()
            if after == mark[0] and mark[1][1] == after[0]:
                return None
        except Exception:  # a value a plugin put there that cannot be compared
            pass
        return self._pure_restore(mark)

    def _pure_restore(self, mark: tuple[tuple[Any, ...], tuple[Any, ...]]) -> str | None:
        """Put the game back as the mark saw it; what differed (``None`` when only
        a cache did)."""
        probe, seen = mark
        cls = type(self)
        names = cls._PURE_NAMES
        changes: list[str] = []
        now = self.__dict__
        if cls not in _PURE_NAMES_OF:
            _pure_fields(cls)
        fields = _PURE_NAMES_OF[cls]
        for name, before in zip(fields, probe[4:4 + len(fields)], strict=True):
            after = now.get(name, _MISSING)
            if after is before:
                continue
            if name in cls._CACHES:
                pass
            elif name in names:
                changes.append(names[name])
            elif after is _MISSING:
                changes.append(f"deleted {name}")
            elif type(before) in SCALARS and type(after) in SCALARS:
                if before == after:
                    continue
                changes.append(f"{name} {_short(before)} → {_short(after)}")
            else:
                changes.append(names.get(name, name))
            now[name] = before
        for name in ("state", "log"):
            if now.get(name, _MISSING) is not (probe[0] if name == "state" else probe[1]):
                changes.append(names[name])
                now[name] = probe[0] if name == "state" else probe[1]
        state, saved, length, _, entries = seen
        try:
            differs = [k for k in [*saved, *(k for k in state if k not in saved)]
                       if k not in saved or k not in state or saved[k] != state[k]]
        except Exception:  # a plugin's value that cannot be compared
            differs = ["?"]
        if differs:
            changes.extend(f"state[{k!r:.40}]" for k in differs)
            _put_back_state(state, saved)
        log = probe[1]
        if len(log) != length or (log and log[-1] is not probe[3]) \
                or any(a is not b for a, b in zip(log, entries, strict=False)):
            changes.append(f"the log ({length} → {len(log)} entries)")
            log[:] = entries
        for name, copy in zip(cls._PURE_LISTS, probe[4 + len(fields):], strict=True):
            current = now[name]
            if len(current) != len(copy) or any(a is not b for a, b in zip(current, copy,
                                                                             strict=False)):
                changes.append(names.get(name, name))
                current[:] = copy
        if changes:
            self._pure_restored()
        return ", ".join(dict.fromkeys(changes)) or None

    def _pure_restored(self) -> None:
        """After the purity check put the game back: rebuild what derives from the
        fields put back (a kind of play's own caches)."""

    def clone(self) -> Game:
        """An independent copy of the game, equal in :meth:`snapshot`, for search
        (OpenSpiel's ``clone``): playing on either leaves the other as it was.

        Cheap (a few microseconds): it shares what never changes — the ruleset,
        the board (boards are immutable), the pieces, the entries of the log
        (the engine never changes an entry, it appends or replaces) — and copies
        only the mutable containers: the plugins' ``state`` (JSON values), the
        log list and the engine's own lists (the tray, the stone queue)."""
        twin: Game = _new_object(type(self))
        twin.__dict__ = self.__dict__.copy()  # a copy at once: faster than update()
        twin.state = _copy_state(self.state)
        twin.log = self.log.copy()
        twin._pure_held = None
        self._clone_into(twin)
        return twin

    def _clone_into(self, twin: Game) -> None:
        """Give ``twin`` (a :meth:`clone` sharing this game's attributes) its own
        copy of each mutable container a kind of play adds."""

    def snapshot(self) -> dict[str, Any]:
        """A complete, JSON-safe copy of the game: :func:`blockyard.restore`
        continues identically (the random streams are keyed by counters, so the
        counters are the generator state)."""
        snap = self._snapshot_sharing_log()
        snap["log"] = copy_json(self.log)
        return snap

    def _snapshot_sharing_log(self) -> dict[str, Any]:
        """:meth:`snapshot` with the game's own log list in it, not a copy (for
        comparing, not for handing out)."""
        snap = self.snapshot_state()
        snap["format"] = SNAPSHOT_FORMAT
        snap["kind"] = self.kind
        snap["ruleset"] = self.ruleset.to_toml()
        snap["seed"] = self.seed
        snap["date"] = self.date
        snap["log"] = self.log
        return snap

    @staticmethod
    def from_snapshot(snap: dict[str, Any]) -> Game:
        """Rebuild a game from :meth:`snapshot`: the log is the truth.

        The snapshot is checked for form first (:mod:`blockyard.validate`:
        ``DataError`` for anything malformed, ``RulesetError`` for its rule text);
        then its log is played again on the engine, and a snapshot whose state is
        not exactly what its log produces is refused with a ``DataError`` naming
        the first field that differs. The game returned is the one the log built:
        a snapshot is a cache of its log, never an authority."""
        text, kind = validate.snapshot_header(snap, SNAPSHOT_FORMAT)
        ruleset = load_ruleset_text(text, "<snapshot>")
        mode = ruleset.mode_record
        if mode.name != kind:
            raise DataError(f"snapshot of a {kind[:32]!r} game, but ruleset "
                            f"{ruleset.id!r} plays {mode.name!r}")
        cls = mode.engine
        built = validate.check_snapshot(snap, ruleset, mode, cls._STATE_FIELDS)
        validate.check_state_shape(snap["state"], _model_state(ruleset))
        try:
            game = Game._from_entries(built["log"], ruleset, "snapshot.log", checked=True)
        except RulesetError as exc:
            raise DataError(f"snapshot.log: its rules cannot be loaded: {exc}") from None
        truth = game._snapshot_sharing_log()
        if "cell_pieces" in truth and "cell_pieces" not in snap:
            # written before the cells' piece ids were kept: the log gives them
            truth = {key: value for key, value in truth.items() if key != "cell_pieces"}
        differs = validate.first_difference(snap, truth, "snapshot")
        if differs is not None and differs.startswith("snapshot.tray["):
            # written by an engine that gave a turned piece one mark per turn ever made
            differs = validate.first_difference(validate.turns_counted(snap), truth, "snapshot")
        if differs is not None:
            # a log that gives another game each time: the plugins, not the snapshot
            found = nondeterminism(ruleset, built["log"])
            if found is not None:
                raise found
            raise DataError(f"{differs}: not what the snapshot's log produces (the log is "
                            "the truth; the snapshot was changed or is from another engine)")
        return game

    def _actions(self) -> dict[str, Callable[..., Any]]:
        """The engine's own logged action names and how to perform them again."""
        return {"tick": lambda us: self._advance_clock(self._log_us(us))}

    @staticmethod
    def _log_us(us: Any) -> int:
        """A logged clock step: whole microseconds, at least 0, at most a day."""
        if type(us) is not int or not 0 <= us <= 86_400_000_000:
            raise IllegalMove(f"tick: expected whole microseconds from 0 to 86400000000, "
                              f"found {us!r:.40}")
        return us

    def apply(self, action: Sequence[Any]) -> Any:
        """Perform one logged action (``["place", s, r, c]``, ``["tick", µs]``,
        ``["swap"]``…)."""
        name, *args = action
        handler = self._actions().get(name)
        if handler is not None:
            return handler(*args)
        if name in self._specs:
            return self.act(name, *args)
        raise IllegalMove(f"unknown action {name!r} for a {self.kind} game of "
                          f"{self.ruleset.id!r}")

    @staticmethod
    def from_log(log: Sequence[Sequence[Any]], *, ruleset: Ruleset | None = None,
                 where: str = "log") -> Game:
        """Rebuild a game by running ``log`` again from its start. A malformed
        log, or one with an action that is not allowed where it stands, is a
        ``DataError`` naming the entry (``where[i]``); its rule text a
        ``RulesetError``. ``ruleset``: the rules already loaded from the same
        text (a snapshot's), which the log's start must then carry."""
        entries = validate.check_log(log)
        return Game._from_entries(entries, ruleset, where, checked=False)

    @staticmethod
    def _from_entries(entries: list[Any], ruleset: Ruleset | None, where: str, *,
                      checked: bool) -> Game:
        """:meth:`from_log` on a log whose start is checked, and with ``checked``
        every entry too (:func:`validate.check_snapshot` checks them all)."""
        start = entries[0][1]
        if ruleset is not None and start["ruleset"] != ruleset.to_toml():
            raise DataError(f"{where}[0]: the log's rules are not the snapshot's")
        ruleset = ruleset or load_ruleset_text(start["ruleset"], "<log>")
        if "id" in start and start["id"] != ruleset.id:
            raise DataError(f"{where}[0]: the start names ruleset {start['id'][:64]!r} but its "
                            f"rules are {ruleset.id!r}")
        date = _dt.date.fromisoformat(start["date"]) if start.get("date") else None
        try:
            game = Game.start(ruleset, seed=start["seed"], date=date, board=start.get("board"),
                              tray=start.get("tray"), stream=start.get("stream"))
        except RulesetError:
            raise
        except ValueError as exc:  # IllegalMove included: a wrong starting position
            raise DataError(f"{where}[0]: {exc}") from None
        for index, action in enumerate(entries[1:], start=1):
            if not checked:
                validate.check_entry(action, index, game.mode)
            try:
                game.apply(action)
            except IllegalMove as exc:
                raise DataError(f"{where}[{index}] {action!r:.60}: {exc}") from None
        return game

    def _advance_clock(self, us: int) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.ruleset.id} seed={self.seed} score={self.score} "
                f"moves={self.moves} over={self.over_reason}>")


def _check_start(seed: Any, date: Any, board: Any, tray: Any, stream: Any) -> None:
    """``ValueError`` naming the field unless the arguments of :meth:`Game.start`
    are of a start a snapshot can carry: a seed from ``-2**63`` to ``2**63 - 1``
    (:data:`blockyard.validate.MAX_SEED`, the range ``restore()`` reads), a
    ``datetime.date``, text for ``board`` and ``stream``, and a list of pieces
    for ``tray`` (one string is refused: ``"##"`` is not two one-cell pieces)."""
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed: expected an integer, found {_short(seed)}")
        if not -validate.MAX_SEED <= seed < validate.MAX_SEED:
            raise ValueError(f"seed: expected an integer from -2**63 to 2**63 - 1 (what a "
                             f"snapshot holds), found {_short(seed)}")
    if date is not None and (not isinstance(date, _dt.date) or isinstance(date, _dt.datetime)):
        raise ValueError(f"date: expected a datetime.date, found {type(date).__name__} "
                         f"{_short(date)}")
    for name, value in (("board", board), ("stream", stream)):
        if value is not None and type(value) is not str:
            raise ValueError(f"{name}: expected text (a str), found {type(value).__name__} "
                             f"{_short(value)}")
    if tray is not None:
        if isinstance(tray, str | bytes | bytearray):
            raise ValueError(f"tray: expected a list of pieces (ASCII art, FAMILY:ART, a Piece "
                             f"or None each), found the {type(tray).__name__} {_short(tray)}; "
                             "one piece is a list of one: tray=[\"##\"]")
        if not isinstance(tray, list | tuple):
            raise ValueError(f"tray: expected a list of pieces (ASCII art, FAMILY:ART, a Piece "
                             f"or None each), found {type(tray).__name__} {_short(tray)}")


def _target_text(spec: ActionSpec, args: Sequence[Any]) -> str:
    """``row 3, column 4`` / ``slot 1`` / ``slot 1, row 3, column 4``."""
    if spec.target == "slot":
        return f"slot {args[0]}"
    cell = f"row {args[-2]}, column {args[-1]}"
    return cell if spec.target == "cell" else f"slot {args[0]}, {cell}"


_MISSING: Any = object()
_TIMED: dict[type[Game], type[Game]] = {}


def timed_engine(cls: type[Game]) -> type[Game]:
    """``cls`` with each of its :attr:`~Game._STEPS` made one step of play of the
    hook watchdog (:meth:`blockyard.rulehooks.RuleHooks.step`): the engine of a
    ruleset with plugins from elsewhere. Blockyard's own rulesets play the plain
    class, and pay nothing."""
    timed = _TIMED.get(cls)
    if timed is not None:
        return timed
    if cls in _TIMED.values():
        return cls

    def stepped(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        def step(self: Game, *args: Any, **kwargs: Any) -> Any:
            return self._hooks.step(self, name, func, self, *args, **kwargs)
        step.__name__ = step.__qualname__ = name
        step.__doc__ = func.__doc__
        step.__wrapped__ = func  # type: ignore[attr-defined]
        return step

    methods = {name: stepped(name, getattr(cls, name)) for name in cls._STEPS}
    timed = type(cls.__name__, (cls,), {**methods, "__module__": cls.__module__,
                                        "__qualname__": cls.__qualname__})
    _TIMED[cls] = timed
    return timed
_PURE_FIELDS: dict[type[Game], Callable[[Game], tuple[Any, ...]]] = {}
_PURE_NAMES_OF: dict[type[Game], tuple[str, ...]] = {}


def _pure_fields(cls: type[Game]) -> Callable[[Game], tuple[Any, ...]]:
    """An attrgetter of the fields the purity check compares on a game of
    ``cls`` (after the state and the log): the snapshot's fields, the board, the
    engine's lists (by identity) and its caches."""
    names = tuple(dict.fromkeys((*cls._STATE_FIELDS, *cls._DERIVED_FIELDS, "_board",
                                 *cls._PURE_LISTS, *cls._CACHES)))
    _PURE_NAMES_OF[cls] = names
    getter = _PURE_FIELDS[cls] = operator.attrgetter(*names)
    return getter


def _put_back_state(state: dict[str, Any], saved: dict[str, Any]) -> None:
    """Give ``state`` the contents of ``saved`` (a copy), keeping its entries'
    dicts and lists as objects (the engine's own backup of a move refers to
    them) and putting their contents back in place."""
    for key in [k for k in state if k not in saved]:
        del state[key]
    for key, value in saved.items():
        current = state.get(key, _MISSING)
        if type(current) is dict and type(value) is dict:
            current.clear()
            current.update(copy_json(value))
        elif type(current) is list and type(value) is list:
            current[:] = copy_json(value)
        else:
            state[key] = copy_json(value)


def _short(value: Any) -> str:
    return short_repr(value)


def _copy_state(state: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of the plugins' state (JSON values): the common shape, a
    table per plugin of plain values, a table copy each; anything deeper by
    :func:`~blockyard.validate.copy_json`."""
    out = state.copy()
    for name, entry in out.items():
        if type(entry) is dict:
            entry = out[name] = entry.copy()
            for value in entry.values():
                if type(value) not in SCALARS:
                    return copy_json(state)  # type: ignore[no-any-return]
        elif type(entry) not in SCALARS:
            return copy_json(state)  # type: ignore[no-any-return]
    return out


def new_game(ruleset: str | Ruleset | Any, *, seed: int | None = None,
             date: _dt.date | None = None, board: str | None = None,
             tray: TraySpec | None = None, stream: str | None = None) -> Game:
    """Start a game of ``ruleset`` (an id, a path or a :class:`Ruleset`).

    ``seed``: ``None`` picks a random one (kept in ``game.seed``). ``date``: the
    day of a daily ruleset (default: today in its time zone). ``board``, ``tray``
    (tray games) and ``stream`` (falling games): a starting position.
    """
    return Game.start(load_ruleset(ruleset), seed=seed, date=date, board=board, tray=tray,
                      stream=stream)


_MODEL_STATES: dict[int, tuple[Ruleset, dict[str, Any]]] = {}


def _model_state(ruleset: Ruleset) -> dict[str, Any]:
    """The plugins' state of a new game of ``ruleset``, the model a snapshot's
    state must follow (computed once per loaded ruleset)."""
    cached = _MODEL_STATES.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        return cached[1]
    try:
        model = Game.start(ruleset, seed=0).state
    except (IllegalMove, ValueError):
        model = {}
    if len(_MODEL_STATES) > 64:
        _MODEL_STATES.clear()
    _MODEL_STATES[id(ruleset)] = (ruleset, model)
    return model


def nondeterminism(ruleset: Ruleset, log: Sequence[Sequence[Any]]) -> PluginError | None:
    """Why games of ``ruleset`` are not determined by their seed and actions, as
    a :class:`PluginError` naming the plugin, or ``None`` when no cause is found:
    a plugin that keeps state across games (its object changed since the ruleset
    loaded: :meth:`~blockyard.rulehooks.RuleHooks.kept_state`), else the first
    hook whose answer differs when ``log`` (a game of ``ruleset``) is played twice
    more with every hook call watched (randomness not from ``game.stream``, the
    clock). Only on an error path: it plays the log twice."""
    hooks = ruleset.hooks
    kept = hooks.kept_state()
    if kept is not None:
        return kept
    runs: list[list[tuple[str, tuple[str, ...], str]]] = []
    for _ in range(2):
        seen: list[tuple[str, tuple[str, ...], str]] = []

        def after(outcome: Any, hook_name: str, hook_impls: Any, kwargs: Any,
                  seen: list[tuple[str, tuple[str, ...], str]] = seen) -> None:
            exc = outcome.exception
            try:
                told = f"raised {type(exc).__name__}" if exc is not None \
                    else repr(outcome.get_result())
            except Exception:  # an answer whose repr fails
                told = "?"
            seen.append((hook_name, tuple(str(i.plugin_name) for i in hook_impls
                                          if i.plugin_name != "core"), told))

        with hooks.monitor(lambda *args: None, after):
            try:
                Game.from_log(log, ruleset=ruleset)
            except Exception as exc:  # the replay went elsewhere: compared up to here
                seen.append(("replay", (), f"{type(exc).__name__}: {exc}"))
        runs.append(seen)
    for first, second in zip(*runs, strict=False):
        if first == second or not first[1]:
            continue
        hook, plugins = first[0], first[1]
        # Blockyard's own plugins are held deterministic by its tests: name the others
        plugins = tuple(p for p in plugins if p not in hooks.trusted) or plugins
        name = hook.removeprefix("blockyard_")
        return PluginError(
            f"answered differently for the same position ({_short(first[2])}, then "
            f"{_short(second[2])}): the answer depends on something besides the game",
            plugin=" or ".join(plugins), hook=hook, ruleset=ruleset.id,
            where=", ".join(filter(None, (hooks.impl_where(p, name) for p in plugins))) or None,
            fix="draw randomness from game.stream(...), never from the random module or the "
                "clock, and keep what changes during a game in game.state")
    return None


def replay_afresh(log: Sequence[Sequence[Any]], ruleset: Ruleset) -> Game:
    """The game ``log`` (a game of ``ruleset``) gives on the same rules loaded
    anew, every plugin object made again as another process makes it: what a
    restore or a replay gives elsewhere, whatever the loaded plugins hold now."""
    fresh = Ruleset(ruleset.data, ruleset.path, hook_timeout=ruleset.hooks.timeout)
    return Game.from_log(log, ruleset=fresh)


def drift(game: Game) -> tuple[PluginError, Game | None] | None:
    """Whether ``game`` is still the game its own log gives: ``None`` when its
    log, played again on its rules loaded anew (:func:`replay_afresh`), gives it
    exactly; else the :class:`PluginError` naming the plugin that made it another
    (one keeping state across games on its object, else the hook that answers
    differently, as :func:`nondeterminism` finds it) and the game its log gives
    (``None`` when the log no longer plays through). Plays the log once: asked
    where a plugin's object changed (``ruleset.hooks.held_state()``), not per move."""
    ruleset = game.ruleset
    try:
        by_log: Game | None = replay_afresh(game.log, ruleset)
    except (IllegalMove, PluginError, DataError):
        by_log = None
    if by_log is not None and by_log._snapshot_sharing_log() == game._snapshot_sharing_log():
        return None
    found = ruleset.hooks.kept_state()
    if found is None and by_log is not None:
        found = nondeterminism(by_log.ruleset, game.log)
    if found is None:
        found = PluginError("the game is no longer the one its moves give: a plugin's answers "
                            "depend on something besides the game", ruleset=ruleset.id,
                            fix=FIX_DRIFT)
    return found, by_log


FIX_DRIFT = ("keep what changes during a game in game.state, and draw randomness from "
             "game.stream(...), never from the random module or the clock")


def carry_over(game: Game, ruleset: Ruleset) -> Game:
    """``game`` under new rules: its log replayed with ``ruleset`` when the new
    rules allow every action of it, else a new game of ``ruleset`` with the same
    seed (``blockyard play --watch``)."""
    start = dict(game.log[0][1])
    start["ruleset"] = ruleset.to_toml()
    start["id"] = ruleset.id
    try:
        return Game.from_log([["start", start], *game.log[1:]])
    except (IllegalMove, PluginError, ValueError, TypeError, KeyError):
        return Game.start(ruleset, seed=game.seed)


def restore(snapshot: dict[str, Any]) -> Game:
    """A game from ``game.snapshot()``."""
    return Game.from_snapshot(snapshot)


def replay(log: Sequence[Sequence[Any]]) -> Game:
    """A game rebuilt by running ``game.log`` again from its start."""
    return Game.from_log(log)
