"""The rule facade: the one place that asks plugins a rule question.

Every ruleset has one :class:`RuleHooks` object (``ruleset.hooks``). It holds
the ruleset's plugin manager — private and sealed once the ruleset is loaded —
and offers one typed method per hook of :mod:`blockyard.hookspecs`
(``hooks.clear(...) -> Clearing``, ``hooks.score(...) -> Scoring``,
``hooks.deal(...)``, ``hooks.end_reason(...)``, …). Each method asks the
plugins, checks the answer once and turns whatever a plugin raises, or an answer
of the wrong type, into a :class:`~blockyard.PluginError` naming the plugin, the
hook, the ruleset, the seed and the action.

How a hook is asked is decided once, when the ruleset loads, from pluggy's
public :class:`pluggy.HookImpl` fields alone:

- when every implementation is a plain one (no wrapper, no historic hook, no
  keyword argument with a default), the method calls them directly, in the
  order pluggy would (last registered first, ``tryfirst``/``trylast`` honoured),
  each with the arguments it names; a single-answer hook keeps pluggy's rule
  that the first answer other than ``None`` wins and a ``None`` falls through to
  the next implementation (down to the core's default);
- otherwise, and while :meth:`RuleHooks.monitor` is on, it calls pluggy's own
  hook caller.

Both paths give the same answers (``tests/test_hook_behaviour.py`` plays every
bundled ruleset both ways). ``BLOCKYARD_TRACE_PLUGINS=1`` prints every hook call
with its arguments and answer to standard error, as datasette's
``DATASETTE_TRACE_PLUGINS`` does.

The bounds an answer must keep are in :mod:`blockyard.answers`. This module is
longer than most because :class:`RuleHooks` has one short, typed method per hook
(the facade's point: a newcomer finds how ``blockyard_score`` is asked under
``RuleHooks.score``, an attribute bound to its checked caller); the binding,
purity and watchdog code they share is here too, since every method goes
through it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from functools import partial
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

from .actions import ActionSpec
from .answers import (  # noqa: F401 (the bounds are also read as rulehooks.MAX_…)
    ANSWER_BOUNDS,
    MAX_COMBO,
    MAX_DEAL,
    MAX_ERRORS,
    MAX_POINTS,
    MAX_REASON,
    MAX_SCORE,
    MAX_STATE_DEPTH,
    MAX_STATE_ITEMS,
    MAX_STATE_ITEMS_FLAT,
    MAX_STATE_TEXT,
    MAX_TEXT,
    MAX_TEXTS,
    Check,
    _anything,
    _deal_ok,
    _flat_figures,
    _is_int,
    _list_of,
    _number_ok,
    _scoring_ok,
    _size_ok,
    _texts_within,
    reason_problem,
    state_within,
    written_problem,
)
from .errors import IllegalMove, PluginError, RulesetError, did_you_mean
from .geometry import Board, Geometry, Region
from .hookspecs import PROJECT, SPEC_CLASSES
from .params import describe
from .pieces import PieceFamily
from .results import Clearing, FallingRules, Scoring
from .watchdog import WATCH, Overtime, check_seconds, run_limited

if TYPE_CHECKING:
    from .game import Game
    from .pieces import Piece
    from .results import MoveFacts, MoveResult
    from .ruleset import Ruleset
    from .stones import Stone

TRACE_ENV = "BLOCKYARD_TRACE_PLUGINS"
"""Set to ``1`` to print every hook call, its arguments and its answer to stderr."""

LOADING = "loading the ruleset"
"""The action named in errors of the hooks asked while a ruleset loads."""

FIX_RAISED = ("make the hook answer without raising there (an action's perform may raise "
              "IllegalMove to refuse; nothing else may raise)")
FIX_WRAPPER = ("a wrapper must return the answer its yield gave, changed or not "
               "(answer = yield … return answer)")
FIX_LIST = ("a hook that collects every plugin's answer gives its wrappers the list of "
            "answers: return that list (changed or not), never a single answer")
FIX_CHANGED = ("return the change instead (Scoring.state, blockyard_move_state); only "
               "blockyard_game_start and an action's perform may change the game")
FIX_WRITTEN = ("write figures within the bounds of MODDING.md's \"What your answers may be\" "
               "(the same as hook answers)")
FIX_KEPT = ("keep what changes during a game in game.state[<plugin name>] (set up in "
            "blockyard_game_start); the plugin object holds its parameters only")
NEEDS_ANSWER = frozenset({"board_size", "clear", "score"})
"""The single-answer hooks the core always answers: ``None`` from them means a
wrapper dropped the answer."""

Monitor = Callable[..., None]


class SealedError(RulesetError):
    """A plugin was registered with a ruleset that is already loaded."""


class _Manager(pluggy.PluginManager):
    """pluggy's plugin manager, refusing registrations once the ruleset is sealed."""

    sealed = False
    ruleset_id = "?"

    def register(self, plugin: object, name: str | None = None) -> str | None:
        if self.sealed:
            raise SealedError(
                f"ruleset {self.ruleset_id!r} is loaded and sealed: a plugin cannot be "
                "registered with it afterwards; name the plugin in the rule file's "
                "[plugins] table (after blockyard.register_plugin() for one made at run "
                "time) and load the ruleset again")
        return super().register(plugin, name)


# ---------------------------------------------------------------------------
# purity: a hook answers, it does not change the game
# ---------------------------------------------------------------------------

_MAY_CHANGE = frozenset({"game_start"})
"""The game hooks allowed to change the game (besides an action's ``perform``)."""


class _Purity:
    """Which hooks the purity check covers (instance attributes: read on every
    hook call, where CPython reads an instance's own attribute fastest)."""

    def __init__(self) -> None:
        self.on = True
        """Check the hooks of plugins that do not ship with Blockyard (always, but
        for measuring the check's cost)."""
        self.bundled = False
        """Check the hooks of Blockyard's own plugins too, and their answers in
        full (the conformance kit turns it on)."""


PURITY = _Purity()


@contextlib.contextmanager
def purity_check(on: bool, *, bundled: bool | None = None) -> Iterator[None]:
    """Turn the purity check on or off inside the ``with`` block (process-wide).

    The check is always on for every plugin that does not ship with Blockyard:
    each of its hooks other than ``blockyard_game_start``, and each function of
    its action specs other than ``perform``, is asked with the game's state
    copied before and compared after, and a hook that changed the game is a
    :class:`~blockyard.PluginError` with the game put back. Blockyard's own
    plugins are code of the engine, held pure by its tests; ``bundled=True``
    checks them too (the conformance kit does, on every bundled ruleset in the
    test suite). Turning the
    check off is for measuring its cost (``benchmarks/engine.py``) only."""
    before = PURITY.on, PURITY.bundled
    PURITY.on = bool(on)
    if bundled is not None:
        PURITY.bundled = bool(bundled)
    try:
        yield
    finally:
        PURITY.on, PURITY.bundled = before


def _ask_ruleset(caller: Callable[..., Any], ruleset: Ruleset) -> Any:
    """``caller(ruleset=ruleset)`` (a ruleset hook's caller, as ``run_limited`` calls it)."""
    return caller(ruleset=ruleset)


def _spread(func: Callable[..., Any]) -> Callable[[tuple[Any, ...]], Any]:
    """``func`` taking its arguments as one tuple (what ``run_limited`` passes)."""
    return lambda args: func(*args)


def _up_to_yield(func: Callable[..., Any]) -> Callable[..., None]:
    """Run a hook wrapper (a generator function) up to its ``yield``, then close it."""
    def run(*args: Any) -> None:
        gen = func(*args)
        try:
            next(gen)
        finally:
            gen.close()
    return run


# ---------------------------------------------------------------------------
# binding a hook
# ---------------------------------------------------------------------------

def _plain_caller(argnames: tuple[str, ...], impls: Sequence[tuple[Callable[..., Any],
                                                                      tuple[str, ...]]],
                  collecting: bool) -> Callable[..., Any]:
    """A function taking the hook's arguments (positionally, in specification
    order) that calls each implementation in ``impls`` (pluggy's calling order)
    with the arguments it names: every answer other than ``None`` collected, or
    the first one returned (pluggy's first-non-None fall-through).

    Written as Python source and compiled once, as :mod:`dataclasses` writes
    ``__init__``: a hook call is then one plain call per implementation, with no
    loop, argument tuple or picking in between. The names in the source are the
    hook specification's argument names (pluggy refuses an implementation naming
    any other), so nothing from a plugin but its function objects enters it."""
    lines = [f"def call({', '.join(argnames)}):"]
    if collecting:
        lines.append("    out = []")
    for index, (_, names) in enumerate(impls):
        asked = f"f{index}({', '.join(names)})"
        if collecting:
            lines += [f"    answer = {asked}", "    if answer is not None:",
                      "        out.append(answer)"]
        elif index == len(impls) - 1:
            lines.append(f"    return {asked}")
        else:
            lines += [f"    answer = {asked}", "    if answer is not None:",
                      "        return answer"]
    lines.append("    return out" if collecting else "    return None")
    namespace: dict[str, Any] = {f"f{i}": func for i, (func, _) in enumerate(impls)}
    exec("\n".join(lines), namespace)  # the source is built from the spec's names only
    call: Callable[..., Any] = namespace["call"]
    return call


class ClearCall(Protocol):
    """How :attr:`RuleHooks.clear` is called."""

    def __call__(self, game: Game, board: Board, placed: int, piece: Piece | None, row: int,
                 col: int, action: str = "place") -> Clearing: ...


class ScoreCall(Protocol):
    """How :attr:`RuleHooks.score` is called."""

    def __call__(self, game: Game, move: MoveFacts, action: str = "place") -> Scoring: ...


class _Hook:
    """One hook as the facade asks it: its caller, its answer check, and whether it
    collects every answer or takes the first."""

    __slots__ = (
        "argnames",
        "call",
        "check",
        "collecting",
        "expected",
        "first",
        "has_game",
        "name",
        "plain",
        "pluggy_call",
        "rest",
    )

    def __init__(self, name: str, caller: Any, expected: str, check: Check) -> None:
        self.name = name
        self.expected = expected
        self.check = check
        spec = caller.spec
        self.argnames: tuple[str, ...] = tuple(spec.argnames)
        self.collecting = not spec.opts.get("firstresult")
        self.has_game = bool(self.argnames) and self.argnames[0] == "game"
        argnames = self.argnames
        self.first: Callable[..., Any] | None = None
        """The implementation pluggy asks first, when ``plain`` may call it
        directly with every argument in order (else ``None``)."""
        self.rest: Callable[..., Any] | None = None
        """With ``first``: the plain caller of the implementations after it, or
        ``None`` when there are none."""

        def through_pluggy(*args: Any) -> Any:
            return caller(**dict(zip(argnames, args, strict=True)))
        self.pluggy_call: Callable[..., Any] = through_pluggy
        self.plain = self.direct(caller)
        """The direct caller (:func:`_plain_caller`), or ``None`` when pluggy's
        own caller is needed."""
        self.call: Callable[..., Any] = self.plain or through_pluggy

    def direct(self, caller: Any) -> Callable[..., Any] | None:
        """A plain call of each implementation in pluggy's order, when that is all
        pluggy would do (no wrappers, no historic hook, no keyword defaults)."""
        spec = caller.spec
        impls = caller.get_hookimpls()
        if spec.opts.get("historic") or any(i.hookwrapper or i.wrapper or i.kwargnames
                                            for i in impls):
            return None
        # pluggy calls the last registered first
        order = [(impl.function, tuple(impl.argnames)) for impl in reversed(impls)]
        if order and not self.collecting and order[0][1] == self.argnames:
            # the first answerer takes every argument in order: the inline forms
            # call it directly and the rest only when it answers None
            self.first = order[0][0]
            self.rest = _plain_caller(self.argnames, order[1:], False) if order[1:] else None
        return _plain_caller(self.argnames, order, self.collecting)


class RuleHooks:
    """The typed, sealed facade of a ruleset's plugins: one method per hook.

    Built by :class:`~blockyard.Ruleset` while it loads (``ruleset.hooks``); the
    games of the ruleset share it (plugins keep configuration only, every game
    keeps its own state). Game hooks take the game first and a keyword
    ``action`` (the action being taken, named in errors); the seed named in
    errors is the game's."""

    clear: ClearCall
    """``blockyard_clear``: the regions the move completed and the board after it
    (``clear(game, board, placed, piece, row, col, action="place")``). Checked
    whole: a :class:`Clearing` whose regions are
    :class:`~blockyard.geometry.Region` objects (a list is taken as a tuple) and
    whose board is this ruleset's size.

    An attribute bound while the ruleset loads (as is :attr:`score`), not a method:
    asked for every move a bot weighs, it is a plain closure that calls the
    plugins directly and accepts the answer of the usual shape inline, handing
    every other case (a watchdog limit, a purity check, an answer of another
    shape) to the complete check. The one definition of what is checked is
    ``_clear_in_full``."""

    score: ScoreCall
    """``blockyard_score``: points and the new combo counter for a move
    (``score(game, move, action="place")``; the core's default answers 0 when no
    plugin does); the points may not take the score past ±:data:`MAX_SCORE`.
    Bound as :attr:`clear` is; the complete check is ``_score_in_full``."""

    # bound by _bind(): ask(action, *hook arguments) -> the checked answer
    _ask_board_size: Callable[..., Any]
    _ask_regions: Callable[..., Any]
    _ask_piece_families: Callable[..., Any]
    _ask_check_ruleset: Callable[..., Any]
    _ask_falling_rules: Callable[..., Any]
    _ask_time_limit: Callable[..., Any]
    _ask_max_errors: Callable[..., Any]
    _ask_actions: Callable[..., Any]
    _ask_game_start: Callable[..., Any]
    _ask_deal: Callable[..., Any]
    _ask_allowed_anchors: Callable[..., Any]
    _ask_clear: Callable[..., Any]
    _ask_affected_cells: Callable[..., Any]
    _ask_accept_stone: Callable[..., Any]
    _ask_score: Callable[..., Any]
    _ask_move_state: Callable[..., Any]
    _ask_end_reason: Callable[..., Any]
    _ask_invariants: Callable[..., Any]
    _ask_summary_tips: Callable[..., Any]

    def __init__(self, ruleset: Ruleset, plugins: Sequence[tuple[str, object]],
                 defaults: object, *, timeout: float | None = None,
                 bundled: Collection[str] = ()) -> None:
        self._ruleset = ruleset
        self.ruleset_id = ruleset.id
        self.timeout = check_seconds(timeout)
        """This ruleset's hook time limit in seconds (``None``: the process-wide
        one of :mod:`blockyard.watchdog`, which is none unless set)."""
        pm = _Manager(PROJECT)
        pm.ruleset_id = ruleset.id
        for specs in SPEC_CLASSES:
            pm.add_hookspecs(specs)
        pm.register(defaults, name="core")
        where = ruleset.where
        # pluggy calls the last registered first: register in reverse file order
        for name, obj in reversed(plugins):
            try:
                pm.register(obj, name=name)
            except pluggy.PluginValidationError as exc:
                raise RulesetError(f"plugin {name!r} is broken: {exc}", path=where,
                                   key=f"plugins.{name}") from exc
        self._pm = pm
        self._check_hook_names(where)
        self._check_single_answers(where)
        self._code_owner: dict[CodeType, str] = {}
        self._plugin_files: dict[str, set[str]] = {}
        """The source files of the plugins' hook code → the plugin (for ``file:line``
        in errors)."""
        for caller in self._callers():
            for impl in caller.get_hookimpls():
                code = getattr(impl.function, "__code__", None)
                if code is not None:
                    self._code_owner[code] = impl.plugin_name
                    if impl.plugin_name != "core":
                        self._plugin_files.setdefault(code.co_filename, set()).add(
                            impl.plugin_name)
        self._objects = {name: obj for name, obj in plugins}
        self._held: dict[str, dict[str, str]] = {}
        self.implemented = frozenset(
            caller.name.removeprefix("blockyard_") for caller in self._callers()
            if any(impl.plugin_name != "core" for impl in caller.get_hookimpls()))
        """The hooks (without the ``blockyard_`` prefix) some plugin other than the
        core answers; the engine skips asking the others where that is safe."""
        trusted = frozenset({"core", *bundled})
        self.unchecked = frozenset(
            caller.name.removeprefix("blockyard_") for caller in self._callers()
            if all(impl.plugin_name in trusted for impl in caller.get_hookimpls()))
        """The hooks only Blockyard's own plugins (``bundled``: the names of those
        among ``plugins``) and the core answer: the purity check skips them
        unless :func:`purity_check` asks for ``bundled`` too."""
        self._trusted = trusted
        self.trusted = trusted
        """The names of the core and of Blockyard's own plugins among this ruleset's."""
        self.timed = any(name not in trusted for name, _ in plugins)
        """Whether some plugin does not ship with Blockyard: its hooks are timed,
        and the engine times each step of play as a whole (:meth:`step`)."""
        self.outcomes_checked = not {"clear", "score"} <= self.unchecked
        """Whether the purity check covers ``clear`` or ``score`` (the engine
        checks them together around a move's outcome)."""
        self._monitors = 0
        self._hooks: dict[str, _Hook] = {}
        hook = pm.hook
        for name, caller, check in (
                ("board_size", hook.blockyard_board_size, _size_ok),
                ("regions", hook.blockyard_regions, _list_of(Region)),
                ("piece_families", hook.blockyard_piece_families, _list_of(PieceFamily)),
                ("check_ruleset", hook.blockyard_check_ruleset, _anything),
                ("falling_rules", hook.blockyard_falling_rules,
                 lambda v: isinstance(v, FallingRules)),
                ("time_limit", hook.blockyard_time_limit, _number_ok),
                ("max_errors", hook.blockyard_max_errors,
                 lambda v: _is_int(v) and 1 <= v <= MAX_ERRORS),
                ("actions", hook.blockyard_actions, _list_of(ActionSpec)),
                ("game_start", hook.blockyard_game_start, _anything),
                ("deal", hook.blockyard_deal, _deal_ok),
                ("allowed_anchors", hook.blockyard_allowed_anchors,
                 lambda v: _is_int(v) and v >= 0),
                ("clear", hook.blockyard_clear, lambda v: isinstance(v, Clearing)),
                ("affected_cells", hook.blockyard_affected_cells,
                 lambda v: _is_int(v) and v >= 0),
                ("accept_stone", hook.blockyard_accept_stone, lambda v: isinstance(v, bool)),
                ("score", hook.blockyard_score, _scoring_ok),
                ("move_state", hook.blockyard_move_state, state_within),
                ("end_reason", hook.blockyard_end_reason,
                 lambda v: isinstance(v, str) and (not v or reason_problem(v) is None)),
                ("invariants", hook.blockyard_invariants, _texts_within(MAX_TEXT)),
                ("summary_tips", hook.blockyard_summary_tips, _texts_within(MAX_TEXT))):
            expected = ANSWER_BOUNDS[name]
            self._hooks[name] = _Hook(name, caller, expected, check)
        self._bind()
        if os.environ.get(TRACE_ENV, "") not in ("", "0"):
            self._monitors += 1
            pm.add_hookcall_monitoring(_trace_before, _trace_after)
            self._bind()

    def _callers(self) -> Iterator[Any]:
        for name in dir(self._pm.hook):
            if name.startswith("blockyard_"):
                yield getattr(self._pm.hook, name)

    def _check_hook_names(self, where: str) -> None:
        """Refuse a plugin method marked as a hook implementation whose name is no
        Blockyard hook, naming the closest hook."""
        hook = self._pm.hook
        known = [n for n in dir(hook) if n.startswith("blockyard_")
                 and getattr(getattr(hook, n), "spec", None) is not None]
        for hook_name, caller in vars(hook).items():
            if hook_name.startswith("blockyard_") and getattr(caller, "spec", None) is None:
                impl = caller.get_hookimpls()[0]
                raise RulesetError(f"plugin {impl.plugin_name!r} implements {hook_name}, which "
                                   f"is not a Blockyard hook{did_you_mean(hook_name, known)} "
                                   "(see MODDING.md)", path=where,
                                   key=f"plugins.{impl.plugin_name}")
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as exc:
            raise RulesetError(f"a plugin implements an unknown hook: {exc}", path=where,
                               key="plugins") from exc

    def _check_single_answers(self, where: str) -> None:
        """Refuse two plugins answering the same single-answer hook."""
        for caller in self._callers():
            if not caller.spec or not caller.spec.opts.get("firstresult"):
                continue
            answering = [impl.plugin_name for impl in caller.get_hookimpls()
                         if impl.plugin_name != "core" and not (impl.hookwrapper or impl.wrapper)]
            if len(answering) > 1:
                names = " and ".join(f"plugins.{n}" for n in sorted(answering))
                raise RulesetError(f"{names} both answer the single-answer hook {caller.name}; "
                                   "a ruleset may use only one of them", path=where,
                                   key="plugins")

    def seal(self) -> None:
        """Refuse every later registration (done when the ruleset has loaded), and
        note what each plugin from elsewhere holds (its parameters): a game must
        find it so (:meth:`kept_state`)."""
        self._pm.sealed = True
        self._held = {name: _fingerprint(obj) for name, obj in self._objects.items()
                      if name not in self._trusted}

    def held_state(self, *, at_load: bool = False) -> dict[str, dict[str, str]]:
        """What each plugin from elsewhere holds now (``at_load``: held when the
        ruleset loaded), attribute by attribute as short texts: the cheap test a
        caller makes before asking :meth:`kept_state` or replaying a game (the
        window asks it after every action; empty for Blockyard's own plugins)."""
        if at_load:
            return {name: dict(held) for name, held in self._held.items()}
        return {name: _fingerprint(self._objects[name]) for name in self._held}

    def kept_state(self) -> PluginError | None:
        """The :class:`PluginError` for a plugin from elsewhere whose object no
        longer holds what it held when the ruleset loaded (it keeps state across
        games: the same seed and moves would score differently), or ``None``.
        Asked where games of the same seed and actions came out different (the
        conformance kit, a snapshot its own log does not rebuild): a plugin may
        well record what it was asked (a test's spy) without changing a game."""
        for name, before in self._held.items():
            after = _fingerprint(self._objects[name])
            if after == before:
                continue
            changed = [k for k in dict.fromkeys([*before, *after]) if before.get(k) != after.get(k)]
            shown = ", ".join(
                f"self.{k} {before.get(k, '(unset)')} → {after.get(k, '(deleted)')}"
                for k in changed[:3])
            hook, where = _assignment_of(type(self._objects[name]), changed)
            return PluginError(
                f"keeps state across games: since the ruleset loaded, {shown} changed, so "
                "the same seed and moves no longer give the same game", plugin=name,
                hook=hook, ruleset=self.ruleset_id, action="start", where=where, fix=FIX_KEPT)
        return None

    def register(self, plugin: object, name: str | None = None) -> None:
        """Always refused on a loaded ruleset (:class:`SealedError`): a ruleset's
        plugins are the ones its rule file names."""
        self._pm.register(plugin, name)

    # -- binding -----------------------------------------------------------------------

    def _bind(self) -> None:
        """Bind every hook method to its caller: the direct one, or pluggy's while
        some monitor is on."""
        for hook in self._hooks.values():
            call = hook.pluggy_call if self._monitors else hook.call
            setattr(self, "_ask_" + hook.name, self._asker(hook, call))
        # clear and score, asked for every move a bot weighs, are bound to their
        # direct caller with the usual answer checked inline (the _in_full methods
        # stay the one definition of what is checked: the inline forms hand any
        # other case to them)
        self.clear = self._clear_in_full
        self.score = self._score_in_full
        if not self._monitors:
            for name, fast in (("clear", self._fast_clear), ("score", self._fast_score)):
                hook = self._hooks[name]
                if hook.plain is not None and (self.timeout is None or name in self.unchecked):
                    # the first answerer called directly, the others after a None
                    first, rest = (hook.first, hook.rest) if hook.first else (hook.plain, None)
                    setattr(self, name, fast(first, rest))


    def _fast_clear(self, first: Callable[..., Any], rest: Callable[..., Any] | None
                    ) -> Callable[..., Clearing]:
        """:meth:`clear` when no watchdog limit is set and the purity check is the
        engine's (or off): the answer of the common shape accepted inline."""
        watch, purity, raised = WATCH, PURITY, self._raised
        slow, checked = self._clear_in_full, self._checked_clearing
        checked_hook = "clear" not in self.unchecked

        def clear(game: Game, board: Board, placed: int, piece: Piece | None, row: int,
                  col: int, action: str = "place") -> Clearing:
            if (checked_hook and watch.limit is not None) or (
                    purity.on and (checked_hook or purity.bundled)
                    and ((held := game._pure_held) is None or held[0] is not game)):
                return slow(game, board, placed, piece, row, col, action)
            try:
                value = first(game, board, placed, piece, row, col)
                if value is None and rest is not None:
                    value = rest(game, board, placed, piece, row, col)
            except (IllegalMove, PluginError, RulesetError):
                raise
            except Exception as exc:
                raise raised("clear", exc, game.seed, action) from exc
            # (the engine's own reads of a Board: _geo is what .geo returns)
            if type(value) is Clearing and not value.row_drops \
                    and type(after := value.board) is Board and after._geo is board._geo:
                cleared = value.cleared
                if cleared is None or (type(cleared) is int and cleared >= 0
                                       and not cleared >> after._geo.size):
                    regions = value.regions
                    if not regions:
                        return value
                    if type(regions) is tuple:
                        for region in regions:
                            if type(region) is not Region:
                                break
                        else:
                            return value
            return checked(game, board, self._checked("clear", value, game, action), action)
        return clear

    def _fast_score(self, first: Callable[..., Any], rest: Callable[..., Any] | None
                    ) -> Callable[..., Scoring]:
        """:meth:`score` when no watchdog limit is set and the purity check is the
        engine's (or off): the answer of the common shape accepted inline.

        The state a Blockyard plugin's scorer keeps is the plugin's code, not a
        rule file's numbers: when only Blockyard's own plugins answer the hook,
        its shape is taken as the tests hold it (the conformance kit walks it,
        with ``purity_check(True, bundled=True)``); points, combo and the score's
        bound are checked whoever answers, since rule files set them."""
        watch, purity, raised = WATCH, PURITY, self._raised
        slow, bounded = self._score_in_full, self._bounded_scoring
        checked_hook = "score" not in self.unchecked
        trusted = not checked_hook

        def score(game: Game, move: MoveFacts, action: str = "place") -> Scoring:
            if (checked_hook and watch.limit is not None) or (
                    purity.on and (checked_hook or purity.bundled)
                    and ((held := game._pure_held) is None or held[0] is not game)):
                return slow(game, move, action)
            try:
                value = first(game, move)
                if value is None and rest is not None:
                    value = rest(game, move)
            except (IllegalMove, PluginError, RulesetError):
                raise
            except Exception as exc:
                raise raised("score", exc, game.seed, action) from exc
            if type(value) is Scoring:
                points, combo = value.points, value.combo
                if type(points) is int and type(combo) is int \
                        and -MAX_POINTS <= points <= MAX_POINTS and 0 <= combo <= MAX_COMBO \
                        and -MAX_SCORE <= game.score + points <= MAX_SCORE \
                        and ((trusted and not purity.bundled) or not (state := value.state) or (
                            type(state) is dict and len(state) <= MAX_STATE_ITEMS_FLAT
                            and _flat_figures(state, MAX_STATE_ITEMS_FLAT))
                            or state_within(state)):
                    return value
            return bounded(game, self._checked("score", value, game, action), action)
        return score

    def _checked(self, name: str, value: Any, game: Game, action: str) -> Any:
        """``value`` when it is a single-answer hook's acceptable answer (or
        ``None``), else the PluginError ``ask`` raises for it."""
        hook = self._hooks[name]
        if value is not None and not hook.check(value):
            raise self.error(name, f"returned {describe(value)}; expected {hook.expected}",
                             seed=game.seed, action=action)
        return value

    def _asker(self, hook: _Hook, call: Callable[..., Any]) -> Callable[..., Any]:
        """``ask(action, *args)``: ``call`` with errors and the answer checked."""
        check, error, collecting = hook.check, self.error, hook.collecting
        has_game, name, expected = hook.has_game, hook.name, hook.expected

        own, watch = self.timeout, WATCH
        pure, purity = has_game and name not in _MAY_CHANGE, PURITY
        bundled_only = name in self.unchecked
        timed = _spread(call)
        # pluggy's caller (wrappers): its answer's form is checked too
        through_pluggy = call is not hook.plain
        needs_answer = name in NEEDS_ANSWER

        def ask(action: str, *args: Any) -> Any:
            # Blockyard's own plugins are engine code: only other plugins are timed
            limit = None if bundled_only else own if own is not None else watch.limit
            changed = mark = None
            if pure and purity.on and (purity.bundled or not bundled_only):
                game = args[0]
                held = game._pure_held  # the engine checks several hooks at once
                if held is None or held[0] is not game:
                    mark = game._pure_mark()
            try:
                try:
                    if limit is None:
                        value = call(*args)
                    else:
                        watch.last_hook = name
                        value = run_limited(timed, args, limit)
                finally:
                    if mark is not None:
                        try:
                            after = game._pure_probe()
                            same = after == mark[0] and mark[1][1] == after[0]
                        except Exception:  # a value a plugin put there cannot be compared
                            same = False
                        if not same:
                            changed = game._pure_restore(mark)
            except (IllegalMove, PluginError, RulesetError):
                if changed is not None:
                    raise error(name, f"changed the game: {changed}", seed=args[0].seed,
                                action=action, plugin=self._changer(hook, args, limit),
                                fix=FIX_CHANGED) from None
                raise
            except Overtime as exc:  # named after the plugin whose code it stopped
                if limit is None:  # a step's limit ran out in a hook that is not timed
                    raise
                raise self._overtime(name, exc, limit, args[0].seed if has_game else None,
                                     action) from None
            except Exception as exc:
                raise self._raised(name, exc, args[0].seed if has_game else None,
                                   action) from exc
            if changed is not None:
                raise error(name, f"changed the game: {changed}", seed=args[0].seed,
                            action=action, plugin=self._changer(hook, args, limit),
                            fix=FIX_CHANGED)
            if collecting:
                if through_pluggy and type(value) is not list:
                    raise self._not_a_list(hook, args, value, action)
                for answer in value:
                    if not check(answer):
                        raise error(name, f"returned {describe(answer)}; expected {expected}",
                                    seed=args[0].seed if has_game else None, action=action,
                                    plugin=self._culprit(hook, args, answer))
            elif value is None:
                if needs_answer:
                    raise self._single_wrong(hook, args, value, action)
            elif not check(value):
                raise self._single_wrong(hook, args, value, action)
            return value
        return ask

    def _overtime(self, name: str, exc: Overtime, limit: float, seed: int | None,
                  action: str, plugin: str | None = None, what: str | None = None
                  ) -> PluginError:
        """The PluginError of a hook (or an action's ``what``) stopped by the watchdog."""
        told = what or f"blockyard_{name}"
        fix = (f"make {told} answer within {limit:g} s, and never catch BaseException around "
               "code that may run long (the watchdog's stop is one); a slower plugin needs a "
               "higher limit: BLOCKYARD_HOOK_TIMEOUT=S or load_ruleset(..., hook_timeout=S)")
        if exc.late:
            problem = (f"{told} caught the watchdog's stop and answered after its time limit "
                       f"of {limit:g} s: the answer is refused")
        else:
            problem = (f"{told} ran longer than {limit:g} s (the limit of each hook call, "
                       "and of all the hook calls of one step of play together)")
        if plugin is None:
            plugin = self.owner_of(exc, self.answering(name))
        return self.error(name, problem, seed=seed, action=action, plugin=plugin,
                          where=self.raised_at(exc, plugin) or self.impl_where(plugin, name),
                          fix=fix)

    def _wrappers(self, hook: _Hook) -> list[Any]:
        """The wrapper implementations of ``hook``, in pluggy's calling order."""
        impls = getattr(self._pm.hook, "blockyard_" + hook.name).get_hookimpls()
        return [i for i in reversed(impls) if i.hookwrapper or i.wrapper]

    def _with_only(self, hook: _Hook, args: tuple[Any, ...], keep: Collection[str]) -> Any:
        """The hook asked of the plugins named in ``keep`` (and the core) only."""
        pm = self._pm
        others = [p for p in pm.get_plugins() if pm.get_name(p) not in keep
                  and pm.get_name(p) != "core"]
        kwargs = dict(zip(hook.argnames, args, strict=True))
        return pm.subset_hook_caller("blockyard_" + hook.name, others)(**kwargs)

    def _wrapper_blamed(self, hook: _Hook, args: tuple[Any, ...], bad: Callable[[Any], bool]
                        ) -> str | None:
        """The wrapper whose answer is ``bad`` when it alone wraps the plain
        implementations (asked one by one, only on the error path), else the
        outermost wrapper, else ``None``."""
        wrappers = self._wrappers(hook)
        if not wrappers:
            return None
        impls = getattr(self._pm.hook, "blockyard_" + hook.name).get_hookimpls()
        plain = {str(i.plugin_name) for i in impls if not (i.hookwrapper or i.wrapper)}
        for impl in wrappers:
            try:
                answer = self._with_only(hook, args, plain | {str(impl.plugin_name)})
            except Exception:
                continue
            if bad(answer):
                return str(impl.plugin_name)
        return str(wrappers[0].plugin_name)

    def _not_a_list(self, hook: _Hook, args: tuple[Any, ...], value: Any, action: str
                    ) -> PluginError:
        """A collecting hook whose wrapper returned something other than the list."""
        plugin = self._wrapper_blamed(hook, args, lambda a: type(a) is not list) or \
            self.answering(hook.name)
        return self.error(hook.name, f"returned {describe(value)} where the list of every "
                          "plugin's answers was expected (a wrapper returned a single "
                          "answer, or something else)",
                          seed=args[0].seed if hook.has_game else None, action=action,
                          plugin=plugin, fix=FIX_LIST)

    def _single_wrong(self, hook: _Hook, args: tuple[Any, ...], value: Any, action: str
                      ) -> PluginError:
        """A single-answer hook's wrong (or dropped) answer, blamed on the wrapper
        that made it so, or on the plugin that answered."""
        def wrong(answer: Any) -> bool:
            return (answer is None and hook.name in NEEDS_ANSWER) or \
                (answer is not None and not hook.check(answer))
        plugin = None
        fix: str | None = None
        if self._wrappers(hook):
            try:
                plain = self._with_only(hook, args, {
                    str(i.plugin_name) for i in getattr(
                        self._pm.hook, "blockyard_" + hook.name).get_hookimpls()
                    if not (i.hookwrapper or i.wrapper)})
            except Exception:
                plain = None
            if not wrong(plain):  # the plain answer is right: a wrapper spoilt it
                plugin = self._wrapper_blamed(hook, args, wrong)
                fix = FIX_WRAPPER if value is None else \
                    f"{FIX_WRAPPER}; the answer must be {hook.expected}"
        if plugin is None:
            impls = getattr(self._pm.hook, "blockyard_" + hook.name).get_hookimpls()
            answering = [str(i.plugin_name) for i in impls if i.plugin_name != "core"
                         and not (i.hookwrapper or i.wrapper)]
            plugin = answering[-1] if answering else None
        told = "returned None (no answer)" if value is None else f"returned {describe(value)}"
        return self.error(hook.name, f"{told}; expected {hook.expected}",
                          seed=args[0].seed if hook.has_game else None, action=action,
                          plugin=plugin, fix=fix)

    def _changer(self, hook: _Hook, args: tuple[Any, ...], limit: float | None) -> str | None:
        """Which plugin's implementation changes the game when asked alone (only on
        the error path of the purity check; the game is put back after each)."""
        game = args[0]
        for impl in reversed(getattr(self._pm.hook, "blockyard_" + hook.name).get_hookimpls()):
            func = impl.function
            picked = tuple(args[hook.argnames.index(n)] for n in impl.argnames)
            if impl.hookwrapper or impl.wrapper:  # a wrapper's part up to its yield
                func = _up_to_yield(func)
            mark = game._pure_mark()
            try:
                if limit is None:
                    func(*picked)
                else:
                    run_limited(_spread(func), picked, limit)
            except (Exception, Overtime):  # only who changes the game is asked here
                pass
            finally:
                changed = game._pure_check(mark)
            if changed is not None:
                return str(impl.plugin_name)
        return None

    @contextlib.contextmanager
    def monitor(self, before: Monitor, after: Monitor) -> Iterator[None]:
        """Watch every hook call while the ``with`` block runs, through pluggy's own
        :meth:`pluggy.PluginManager.add_hookcall_monitoring` (``before(hook_name,
        hook_impls, kwargs)`` and ``after(outcome, hook_name, hook_impls, kwargs)``).
        Every hook is asked through pluggy's caller meanwhile, so each call is seen."""
        undo = self._pm.add_hookcall_monitoring(before, after)
        self._monitors += 1
        self._bind()
        try:
            yield
        finally:
            undo()
            self._monitors -= 1
            self._bind()

    # -- errors -----------------------------------------------------------------------------

    def owner_of(self, exc: BaseException, default: str = "?") -> str:
        """The plugin whose code raised ``exc`` (the outermost plugin frame)."""
        tb: TracebackType | None = exc.__traceback__
        while tb is not None:
            owner = self._code_owner.get(tb.tb_frame.f_code)
            if owner is not None:
                return owner
            tb = tb.tb_next
        return default

    def note_owner(self, func: Callable[..., Any] | None, plugin: str) -> None:
        """Name ``plugin`` as the owner of ``func``'s code (a function an action
        spec hands over), so an exception raised in it names the plugin."""
        code = getattr(getattr(func, "__func__", func), "__code__", None)
        if code is not None:
            self._code_owner.setdefault(code, plugin)
            self._plugin_files.setdefault(code.co_filename, set()).add(plugin)

    def answering(self, hook: str) -> str:
        """The plugin answering ``hook`` (the last registered, else ``"core"``)."""
        impls = getattr(self._pm.hook, "blockyard_" + hook).get_hookimpls()
        names = [i.plugin_name for i in impls if i.plugin_name != "core"]
        return str(names[-1]) if names else "core"

    def impl_names(self, hook: str) -> list[str]:
        """The plugins implementing ``hook`` (the core's default included), in
        registration order."""
        return [str(i.plugin_name)
                for i in getattr(self._pm.hook, "blockyard_" + hook).get_hookimpls()]

    def error(self, hook: str, problem: str, *, plugin: str | None = None,
              seed: int | None = None, action: str | None = None,
              cause: BaseException | None = None, where: str | None = None,
              fix: str | None = None) -> PluginError:
        """A :class:`PluginError` naming the plugin, hook, ruleset, seed and action,
        the place in the plugin's code (``where``; by default where ``cause`` was
        raised, else the plugin's function for the hook) and what to do (``fix``;
        by default what a raising hook or a wrong answer calls for)."""
        if plugin is None:
            plugin = self.owner_of(cause, self.answering(hook)) if cause else \
                self.answering(hook)
        if where is None:
            where = (self.raised_at(cause, plugin) if cause is not None else None) \
                or self.impl_where(plugin, hook)
        if fix is None:
            fix = FIX_RAISED if cause is not None else \
                f"answer {ANSWER_BOUNDS.get(hook, 'what the hook asks')}"
        return PluginError(problem, plugin=plugin, hook="blockyard_" + hook,
                           ruleset=self.ruleset_id, seed=seed, action=action, where=where,
                           fix=fix)

    def _raised(self, hook: str, exc: Exception, seed: int | None, action: str
                ) -> PluginError:
        """The :class:`PluginError` for a hook that raised ``exc`` (named after the
        plugin whose code raised it, at the line where it did)."""
        return self.error(hook, f"raised {type(exc).__name__}: {exc}", seed=seed,
                          action=action, cause=exc)

    def raised_at(self, exc: BaseException | None, plugin: str | None = None) -> str | None:
        """``file:line`` of the innermost frame of a plugin's code (of ``plugin``'s,
        when given and found) in ``exc``'s traceback: where it raised, or called
        what raised; else ``None``."""
        tb: TracebackType | None = exc.__traceback__ if exc is not None else None
        found = own = None
        files = self._plugin_files
        while tb is not None:
            code = tb.tb_frame.f_code
            owners = files.get(code.co_filename)
            if owners:
                found = f"{short_path(code.co_filename)}:{tb.tb_lineno}"
                if plugin in owners:
                    own = found
            tb = tb.tb_next
        return own or found

    def impl_where(self, plugin: str | None, hook: str) -> str | None:
        """``file:line`` of ``plugin``'s function for ``hook`` (a wrapper's too), or of
        its class when it has none; ``None`` for the core or an unknown plugin."""
        if plugin is None or plugin == "core":
            return None
        caller = getattr(self._pm.hook, "blockyard_" + hook, None)
        for impl in caller.get_hookimpls() if caller is not None else ():
            if impl.plugin_name == plugin:
                return function_where(impl.function)
        obj = self._objects.get(plugin)
        return None if obj is None else class_where(type(obj))

    def _culprit(self, hook: _Hook, args: tuple[Any, ...], bad: Any) -> str | None:
        """Which plugin gave the answer ``bad`` to a collecting hook (asked one by
        one; only on the error path)."""
        pm = self._pm
        kwargs = dict(zip(hook.argnames, args, strict=True))
        for impl in getattr(pm.hook, "blockyard_" + hook.name).get_hookimpls():
            others = [p for p in pm.get_plugins() if pm.get_name(p) != impl.plugin_name]
            try:
                answers = pm.subset_hook_caller("blockyard_" + hook.name, others)(**kwargs)
            except Exception:
                return str(impl.plugin_name)
            if any(a is not None and not hook.check(a) for a in answers):
                return str(impl.plugin_name)
        return None

    # -- the hooks asked while a ruleset loads --------------------------------------------

    def board_size(self, ruleset: Ruleset) -> tuple[int, int] | None:
        """``blockyard_board_size``: the board's ``(rows, cols)``."""
        size = self._ask_board_size(LOADING, ruleset)
        return None if size is None else (int(size[0]), int(size[1]))

    def regions(self, ruleset: Ruleset, geometry: Geometry) -> list[Region]:
        """``blockyard_regions``: every plugin's regions, in order."""
        return [r for answer in self._ask_regions(LOADING, ruleset, geometry) for r in answer]

    def piece_families(self, ruleset: Ruleset) -> list[PieceFamily]:
        """``blockyard_piece_families``: every plugin's piece families, in order."""
        return [f for answer in self._ask_piece_families(LOADING, ruleset) for f in answer]

    def check_ruleset(self, ruleset: Ruleset) -> None:
        """``blockyard_check_ruleset``: each plugin checks its parameters."""
        self._ask_check_ruleset(LOADING, ruleset)

    def falling_rules(self, ruleset: Ruleset, action: str = LOADING) -> FallingRules | None:
        """``blockyard_falling_rules``: how stones fall (falling games)."""
        value: FallingRules | None = self._ask_falling_rules(action, ruleset)
        return value

    def time_limit(self, ruleset: Ruleset) -> float | None:
        """``blockyard_time_limit``: seconds on the game clock, or ``None``."""
        value = self._ask_time_limit(LOADING, ruleset)
        return None if value is None else float(value)

    def max_errors(self, ruleset: Ruleset) -> int | None:
        """``blockyard_max_errors``: how many errors end a game, or ``None``."""
        value = self._ask_max_errors(LOADING, ruleset)
        return None if value is None else int(value)

    def actions(self, ruleset: Ruleset) -> list[tuple[str, list[ActionSpec]]]:
        """``blockyard_actions``: each contributing plugin's action specs, as
        ``(plugin name, specs)`` pairs in pluggy's order (each plugin's asked
        under the watchdog's limit, as every hook is)."""
        pm = self._pm
        out: list[tuple[str, list[ActionSpec]]] = []
        hook = self._hooks["actions"]
        for impl in reversed(pm.hook.blockyard_actions.get_hookimpls()):
            plugin = str(impl.plugin_name)
            others = [p for p in pm.get_plugins() if pm.get_name(p) != plugin]
            caller = pm.subset_hook_caller("blockyard_actions", remove_plugins=others)
            limit = None if plugin in self._trusted else \
                self.timeout if self.timeout is not None else WATCH.limit
            try:
                if limit is None:
                    answers = caller(ruleset=ruleset)
                else:
                    WATCH.last_hook = "actions"
                    answers = run_limited(partial(_ask_ruleset, caller), ruleset, limit)
            except (PluginError, RulesetError):
                raise
            except Overtime as exc:
                assert limit is not None
                raise self._overtime("actions", exc, limit, None, LOADING,
                                     plugin=plugin) from None
            except Exception as exc:
                raise self.error("actions", f"raised {type(exc).__name__}: {exc}",
                                 plugin=plugin, action=LOADING, cause=exc) from exc
            if type(answers) is not list:
                raise self.error("actions", f"returned {describe(answers)} where the list of "
                                 "every plugin's answers was expected (a wrapper returned a "
                                 "single answer, or something else)", plugin=plugin,
                                 action=LOADING, fix=FIX_LIST)
            for answer in answers:
                if not hook.check(answer):
                    raise self.error("actions", f"returned {describe(answer)}; expected "
                                     f"{hook.expected}", plugin=plugin, action=LOADING)
                out.append((plugin, list(answer)))
        return out

    # -- the hooks asked while a game runs ------------------------------------------------

    def action(self, game: Game, spec: ActionSpec, what: str, func: Callable[..., Any],
               *args: Any) -> Any:
        """Call a function an action spec handed over (``perform``, ``available``,
        ``rescue``, ``uses_left``) with the game and ``args``, timed like a hook;
        whatever it raises but :class:`~blockyard.IllegalMove` becomes a
        :class:`~blockyard.PluginError` naming the action and its plugin, and so
        do figures ``perform`` writes out of bounds (:func:`written_problem`)."""
        owner = self._owner_of_action(spec)
        trusted = owner in self._trusted
        limit = None if trusted else self.timeout if self.timeout is not None else WATCH.limit
        checked = PURITY.on and (PURITY.bundled or not trusted)
        mark = game._pure_mark() if what != "perform" and checked else None
        figures = game._figures() if what == "perform" and checked else None
        changed = None
        where = function_where(func)
        try:
            try:
                if limit is None:
                    answer = func(game, *args)
                else:
                    WATCH.last_hook = "actions"
                    answer = run_limited(lambda a: func(*a), (game, *args), limit)
            finally:
                if mark is not None:
                    changed = game._pure_check(mark)
            if figures is not None:
                wrong = written_problem(game, figures)
                if wrong is not None:
                    raise self.error("actions", f"action {spec.name!r}: perform wrote {wrong}",
                                     plugin=owner, seed=game.seed, action=spec.name,
                                     where=where, fix=FIX_WRITTEN)
            if changed is None:
                return answer
        except (IllegalMove, PluginError):
            if changed is not None:
                raise self.error("actions", f"action {spec.name!r}: {what} changed the game: "
                                 f"{changed}", plugin=owner, seed=game.seed, action=spec.name,
                                 where=where, fix=FIX_CHANGED) from None
            raise
        except Overtime as exc:
            assert limit is not None
            raise self._overtime("actions", exc, limit, game.seed, spec.name, plugin=owner,
                                 what=f"action {spec.name!r}: {what}") from None
        except Exception as exc:
            raise self.error("actions", f"action {spec.name!r}: {what} raised "
                             f"{type(exc).__name__}: {exc}", plugin=owner,
                             seed=game.seed, action=spec.name, cause=exc) from exc
        raise self.error("actions", f"action {spec.name!r}: {what} changed the game: "
                         f"{changed} (only an action's perform may change it)",
                         plugin=owner, seed=game.seed, action=spec.name, where=where,
                         fix=FIX_CHANGED)

    def step(self, game: Game, what: str, func: Callable[..., Any], *args: Any,
             **kwargs: Any) -> Any:
        """``func(*args, **kwargs)``, one step of play of ``game`` (a placement, an
        action, a tick, a preview, a new game), with every timed hook call in it
        sharing the watchdog's limit: the hooks of one step together may run at
        most that long. Engines of rulesets with plugins from elsewhere route
        their public steps here (:func:`timed_engine`)."""
        limit = self.timeout if self.timeout is not None else WATCH.limit
        if limit is None:
            return func(*args, **kwargs)
        try:
            return run_limited(lambda a: func(*a, **kwargs), args, limit, plugin=False)
        except Overtime:  # ran out between two hooks, or late at the end of the step
            name = WATCH.last_hook or "score"
            raise self.error(
                name, f"the hook calls of one {what} together ran longer than {limit:g} s "
                f"(the last asked: blockyard_{name})", seed=game.seed, action=what,
                fix=f"make the plugin's hooks answer faster: one step of play may spend at "
                f"most {limit:g} s in them (BLOCKYARD_HOOK_TIMEOUT=S or "
                "load_ruleset(..., hook_timeout=S) for a higher limit)") from None

    def _owner_of_action(self, spec: ActionSpec) -> str | None:
        return self._ruleset.action_owner.get(spec.name)

    def game_start(self, game: Game, action: str = "start") -> None:
        """``blockyard_game_start``: every plugin sets up its state; the figures
        plugins from elsewhere write are checked (:func:`written_problem`)."""
        if not PURITY.on or (not PURITY.bundled and "game_start" in self.unchecked):
            self._ask_game_start(action, game)
            return
        figures = game._figures()
        self._ask_game_start(action, game)
        wrong = written_problem(game, figures)
        if wrong is not None:
            plugin, where = self._writer(game)
            raise self.error("game_start", f"wrote {wrong}", plugin=plugin, seed=game.seed,
                             action=action, where=where, fix=FIX_WRITTEN)

    def _writer(self, game: Game) -> tuple[str | None, str | None]:
        """Which plugin's ``blockyard_game_start`` writes figures out of bounds, and
        where its function is: each implementation asked alone, in turn, on a new
        game of the same start (only on the error path)."""
        start = game.log[0][1]
        impls = self._pm.hook.blockyard_game_start.get_hookimpls()
        fresh = type(game)(game.ruleset, game.seed, game.date)
        fresh._load_start(board=start.get("board"), tray=start.get("tray"),
                          stream=start.get("stream"))
        figures = fresh._figures()
        for impl in reversed(impls):
            if impl.plugin_name == "core":
                continue
            func = _up_to_yield(impl.function) if impl.hookwrapper or impl.wrapper \
                else impl.function
            with contextlib.suppress(Exception):
                func(fresh)
            if written_problem(fresh, figures) is not None:
                return str(impl.plugin_name), function_where(impl.function)
        plugin = self.answering("game_start")
        return plugin, self.impl_where(plugin, "game_start")

    def deal(self, game: Game, index: int, action: str = "deal") -> list[Any] | None:
        """``blockyard_deal``: batch ``index`` of pieces or stones (the engine
        checks what it holds)."""
        value: list[Any] | None = self._ask_deal(action, game, index)
        return value

    def allowed_anchors(self, game: Game, piece: Piece, action: str = "fit") -> list[int]:
        """``blockyard_allowed_anchors``: every plugin's anchor mask (to be ANDed),
        each within the board."""
        value: list[int] = self._ask_allowed_anchors(action, game, piece)
        size = game.rows * game.cols
        for mask in value:
            if mask >> size:
                raise self.error("allowed_anchors", f"returned a mask with bits beyond the "
                                 f"board's {size} cells (bit {mask.bit_length() - 1})",
                                 seed=game.seed, action=action,
                                 plugin=self._culprit(self._hooks["allowed_anchors"],
                                                      (game, piece), mask))
        return value

    def affected_cells(self, game: Game, piece: Piece, row: int, col: int,
                       action: str = "preview") -> int:
        """``blockyard_affected_cells``: the ORed masks of the cells a move would
        affect beyond its own (each within the board)."""
        value: list[int] = self._ask_affected_cells(action, game, piece, row, col)
        size = game.rows * game.cols
        out = 0
        for mask in value:
            if mask >> size:
                raise self.error("affected_cells", f"returned a mask with bits beyond the "
                                 f"board's {size} cells (bit {mask.bit_length() - 1})",
                                 seed=game.seed, action=action,
                                 plugin=self._culprit(self._hooks["affected_cells"],
                                                      (game, piece, row, col), mask))
            out |= mask
        return out

    def _clear_in_full(self, game: Game, board: Board, placed: int, piece: Piece | None,
                       row: int, col: int, action: str = "place") -> Clearing:
        """:attr:`clear` with every check made (the watchdog's limit, the purity
        check, the answer checked whole)."""
        return self._checked_clearing(
            game, board, self._ask_clear(action, game, board, placed, piece, row, col), action)

    def _checked_clearing(self, game: Game, board: Board, clearing: Clearing, action: str
                          ) -> Clearing:
        """A Clearing answer checked whole (after the type check of ``ask``)."""
        if clearing.cleared is not None or clearing.row_drops:
            self._check_clearing_masks(game, board, clearing, action)
        regions = clearing.regions
        if (regions and (type(regions) is not tuple
                         or any(type(r) is not Region for r in regions))) \
                or type(clearing.board) is not Board or clearing.board.geo is not board.geo:
            if isinstance(regions, list | tuple) and all(isinstance(r, Region) for r in regions) \
                    and isinstance(clearing.board, Board) and clearing.board.geo is board.geo:
                clearing.regions = tuple(regions)
            else:
                raise self.error("clear", "returned a Clearing whose regions are not Region "
                                 "objects or whose board is not this game's size",
                                 seed=game.seed, action=action)
        return clearing

    def _check_clearing_masks(self, game: Game, board: Board, clearing: Clearing,
                              action: str) -> None:
        """A Clearing's ``cleared`` mask on the board and its ``row_drops`` a fall of
        0 to ``rows`` for each row."""
        geo = board.geo
        cleared, drops = clearing.cleared, clearing.row_drops
        if cleared is not None and (not _is_int(cleared) or cleared < 0
                                    or cleared >> geo.size):
            raise self.error("clear", f"returned a Clearing whose cleared mask {cleared!r:.40} "
                             f"is not a mask of the board's {geo.size} cells", seed=game.seed,
                             action=action)
        if drops and (not isinstance(drops, tuple | list) or len(drops) > geo.rows
                      or not all(_is_int(d) and 0 <= d <= geo.rows for d in drops)):
            raise self.error("clear", f"returned row_drops {drops!r:.60}; expected at most "
                             f"{geo.rows} falls of 0 to {geo.rows} rows", seed=game.seed,
                             action=action)

    def accept_stone(self, game: Game, stone: Stone, row: int, col: int,
                     action: str = "land") -> bool | None:
        """``blockyard_accept_stone``: whether a landed stone may stay (falling games)."""
        value: bool | None = self._ask_accept_stone(action, game, stone, row, col)
        return value

    def _score_in_full(self, game: Game, move: MoveFacts, action: str = "place") -> Scoring:
        """:attr:`score` with every check made (the watchdog's limit, the purity
        check, the answer and its state walked whole)."""
        return self._bounded_scoring(game, self._ask_score(action, game, move), action)

    def _bounded_scoring(self, game: Game, value: Scoring, action: str) -> Scoring:
        """A Scoring answer whose points keep the score within ±:data:`MAX_SCORE`."""
        if not -MAX_SCORE <= game.score + value.points <= MAX_SCORE:
            raise self.error("score", f"returned {value.points:,} points, which would take the "
                             f"score past ±{MAX_SCORE:,}", seed=game.seed, action=action)
        return value

    def move_state(self, game: Game, result: MoveResult, action: str = "place"
                   ) -> list[dict[str, Any]]:
        """``blockyard_move_state``: every plugin's updates to its saved state."""
        value: list[dict[str, Any]] = self._ask_move_state(action, game, result)
        return value

    def end_reason(self, game: Game, stuck: bool, action: str) -> list[str]:
        """``blockyard_end_reason``: every reason given to end the game now."""
        value: list[str] = self._ask_end_reason(action, game, stuck)
        return value

    def invariants(self, game: Game, action: str = "checking invariants") -> list[str]:
        """``blockyard_invariants``: every problem any plugin finds with the position."""
        return [p for answer in self._ask_invariants(action, game) for p in answer]

    def summary_tips(self, game: Game, summary: dict[str, Any], action: str = "summary"
                     ) -> list[str]:
        """``blockyard_summary_tips``: every plugin's tips, in order."""
        return [t for answer in self._ask_summary_tips(action, game, summary) for t in answer]


def _fingerprint(obj: object) -> dict[str, str]:
    """What a plugin object holds, attribute by attribute, as short texts (its
    ``__dict__``; a plugin with ``__slots__`` only is not compared)."""
    held = getattr(obj, "__dict__", None)
    if not isinstance(held, dict):
        return {}
    out = {}
    for key, value in held.items():
        try:
            text = repr(value)
        except Exception:  # a value whose repr fails: compared by identity
            text = f"<{type(value).__name__} at {id(value):#x}>"
        out[str(key)] = text if len(text) <= 60 else f"{text[:40]}… ({len(text)} chars)"
    return out


def _assignment_of(cls: type, names: Sequence[str]) -> tuple[str | None, str | None]:
    """The hook (``blockyard_…``, else the method) and ``file:line`` of the first
    statement outside ``__init__`` in ``cls``'s source that assigns or changes
    ``self.<name>`` for one of ``names`` (only on the error path); the class's
    own line when none is found."""
    import ast
    import inspect
    import textwrap

    try:
        lines, first = inspect.getsourcelines(cls)
        path = inspect.getsourcefile(cls) or "?"
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return None, class_where(cls)
    wanted = set(names)

    def touches(node: ast.AST) -> bool:
        # self.NAME = …, self.NAME += …, self.NAME[…] = …, self.NAME.append(…)
        while isinstance(node, ast.Subscript | ast.Attribute):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self" and node.attr in wanted:
                return True
            node = node.value
        return False

    for method in ast.walk(tree):
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef) \
                or method.name == "__init__":
            continue
        for node in ast.walk(method):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                targets = [node.func.value]
            if any(touches(t) for t in targets):
                hook = method.name if method.name.startswith("blockyard_") else None
                line = first + getattr(node, "lineno", 1) - 1
                return hook, f"{short_path(path)}:{line}"
    return None, class_where(cls)


def short_path(path: str) -> str:
    """``path`` relative to the current folder when it lies inside it."""
    try:
        here = os.getcwd()
    except OSError:
        return path
    if path.startswith(here + os.sep):
        return path[len(here) + 1:]
    return path


def function_where(func: Any) -> str | None:
    """``file:line`` where ``func`` (a function or bound method) is defined."""
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None:
        return None
    return f"{short_path(code.co_filename)}:{code.co_firstlineno}"


def class_where(cls: type) -> str | None:
    """``file:line`` of ``cls``'s ``class`` statement (when its source is found)."""
    import inspect

    try:
        first = inspect.getsourcelines(cls)[1]
        path = inspect.getsourcefile(cls)
    except (OSError, TypeError):
        return None
    return None if path is None else f"{short_path(path)}:{first}"


def _trace_before(hook_name: str, hook_impls: Sequence[pluggy.HookImpl],
                  kwargs: Mapping[str, Any]) -> None:
    names = ", ".join(str(i.plugin_name) for i in hook_impls)
    shown = ", ".join(f"{k}={describe(v)}" for k, v in kwargs.items())
    print(f"blockyard: {hook_name}({shown}) → [{names}]", file=sys.stderr)


def _trace_after(outcome: pluggy.Result[Any], hook_name: str,
                 hook_impls: Sequence[pluggy.HookImpl], kwargs: Mapping[str, Any]) -> None:
    exc = outcome.exception
    told = f"raised {type(exc).__name__}: {exc}" if exc else describe(outcome.get_result())
    print(f"blockyard: {hook_name} ← {told}", file=sys.stderr)
