"""The conformance kit: random-playout consistency checks for any ruleset.

OpenSpiel-style: every ruleset, bundled or third-party, must keep the
guarantees of docs/api.md §7. :func:`check_ruleset` plays random games and checks:

- determinism: the same ruleset, seed and actions give identical snapshots;
- ``restore(snapshot)`` mid-game continues identically; ``replay(log)`` rebuilds;
- snapshots are JSON-safe;
- an illegal action raises ``IllegalMove`` and leaves the snapshot unchanged;
- ``preview`` predicts ``place`` exactly, and the score grows by the points;
- no filled cell outside the board; tray pieces fit in the board's bounds;
- the end rule: a game over because it is "stuck" really has no tray piece that
  fits; a game not over with no legal placement has a rescue left (a swap, or a
  rotation that fits);
- falling games: the stone stays on the board's columns and above its landing
  row, and the stone stream depends on the seed only;
- a plugin's ``blockyard_move_state`` updates only its own ``game.state`` entry
  (the one named after it): an update of another plugin's entry is a failure
  naming the writer, the entry and its owner;
- whatever the ruleset's plugins state as invariants (``blockyard_invariants``,
  e.g. no digit twice in a sudoku row) holds after every action;
- every game ends: a rescue (an action that is a ``rescue`` while nothing fits,
  or an ``after_end`` action once the game is over) taken
  :data:`RESCUE_REPEATS` times in a row without changing the board, the tray,
  the score or the end is a failure naming it and its plugin, and so is a game
  still kept alive only by rescues when it reaches the kit's action cap
  (``max_actions``) and :data:`CAP_GRACE` rescues more;
- and it notes (a warning, not a failure) every action of the ruleset that no
  game offered (``Game.actions()`` never listed it).

Use it from a plugin's own tests with one line (``assert_conforms("my-ruleset")``)
or through the ``blockyard_conformance`` pytest fixture, and from the command
line as ``blockyard check RULESET``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .answers import MAX_SCORE
from .discovery import load_ruleset
from .errors import IllegalMove, PluginError
from .game import new_game, nondeterminism, replay, restore
from .modes import ModeChecks
from .rulehooks import purity_check
from .ruleset import Ruleset
from .tray import TrayGame
from .watchdog import hook_timeout

RESCUE_REPEATS = 10
"""How many rescues in a row that change nothing (board, tray, score and end the
same) make a game that never ends (``check_ruleset(..., rescue_repeats=)``)."""

CAP_GRACE = 60
"""How many rescues more the kit takes when a game reaches its action cap with
no piece fitting and a rescue offered, before it calls the game never-ending."""


@dataclass
class Report:
    """What :func:`check_ruleset` found."""

    ruleset: str
    games: int = 0
    actions: int = 0
    failures: list[str] = field(default_factory=list)
    checks: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def count(self, name: str) -> None:
        self.checks[name] = self.checks.get(name, 0) + 1

    def fail(self, message: str) -> None:
        """Note a failure (the same failure again is noted once)."""
        if len(self.failures) < 50 and message not in self.failures:
            self.failures.append(message)

    def text(self) -> str:
        """A readable report."""
        lines = [f"conformance of {self.ruleset}: {self.games} games, {self.actions} actions"]
        for name, n in sorted(self.checks.items()):
            lines.append(f"  ok  {name} ({n}×)")
        for warning in self.warnings:
            lines.append(f"  WARN {warning}")
        for failure in self.failures:
            lines.append(f"  FAIL {failure}")
        lines.append("all checks passed" if self.ok else f"{len(self.failures)} failure(s)")
        return "\n".join(lines)


def _choose_falling(game: Any, rnd: random.Random) -> list[Any] | None:
    """A random legal action of a falling game (a log entry), or ``None`` if none."""
    if game.over:
        return None
    roll = rnd.random()
    if roll < 0.35:
        return ["move", rnd.choice((-1, 1))]
    if roll < 0.45:
        return ["soft", not game.soft]
    if roll < 0.7:
        return ["hard"]
    if roll > 0.998:
        return ["end"]
    return ["tick", rnd.choice((50_000, 400_000, 800_000, 2_500_000))]


def _choose_tray(game: Any, rnd: random.Random) -> list[Any] | None:
    """A random legal action of a tray game (a log entry), or ``None`` if none."""
    actions = game.actions()
    if game.over:
        after = [a for a in actions if a.after_end]
        if after and rnd.random() < 0.5:
            return [rnd.choice(after).name]
        return None
    moves = game.legal_moves()
    roll = rnd.random()
    if game.time_left is not None and roll < 0.1:
        return ["tick", rnd.choice([250_000, 1_000_000, 7_000_000])]
    others = [a for a in actions if a.name != "end"]
    if not moves:
        # stuck but not over: an available action must be a rescue
        rescues = [a for a in others if a.rescue]
        if not rescues:
            return None
        action = rnd.choice(rescues)
        return _aimed(game, action, rnd)
    if others and roll < 0.06:
        return _aimed(game, rnd.choice(others), rnd)
    if roll > 0.995 and any(a.name == "end" for a in actions):
        return ["end"]
    return ["place", *rnd.choice(moves)]


def _aimed(game: Any, action: Action, rnd: random.Random) -> list[Any] | None:
    """``[name, *target]`` for ``action`` aimed at one of the targets its plugin
    allows now (:meth:`Game.action_targets`), or ``None`` when it allows none."""
    if action.target == "none":
        return [action.name]
    targets = game.action_targets(action.name)
    return [action.name, *rnd.choice(targets)] if targets else None


def _illegal_falling(game: Any, rnd: random.Random) -> list[tuple[str, Any]]:
    tries: list[tuple[str, Any]] = [
        ("move by 2", lambda: game.move(2)), ("move by 0", lambda: game.move(0)),
        ("soft drop with a non-boolean", lambda: game.soft_drop(1)),
        ("tick a negative time", lambda: game.tick(-1))]
    if game.over:
        tries += [("move after the end", lambda: game.move(1)),
                  ("hard drop after the end", game.hard_drop),
                  ("end a finished game", game.end_round)]
    return tries


def _illegal_tray(game: Any, rnd: random.Random) -> list[tuple[str, Any]]:
    tries: list[tuple[str, Any]] = [
        ("place in slot 7", lambda: game.place(7, 0, 0)),
        ("place at a negative row", lambda: game.place(0, -1, 0)),
        ("place at a negative column", lambda: game.place(0, 0, -3)),
        ("place beyond the board", lambda: game.place(0, game.rows, 0)),
        ("place with a non-integer row", lambda: game.place(0, "1", 0)),
    ]
    for slot, piece in enumerate(game.tray):
        if piece is None:
            tries.append((f"place from empty slot {slot}", lambda s=slot: game.place(s, 0, 0)))
    filled_cells = [(r, c) for r, row in enumerate(game.board) for c, v in enumerate(row) if v]
    for slot, piece in enumerate(game.tray):
        if piece is not None and filled_cells:
            r, c = rnd.choice(filled_cells)
            dr, dc = min(piece.cells)
            if r - dr >= 0 and c - dc >= 0:
                tries.append((f"place slot {slot} over a filled cell",
                              lambda s=slot, r=r - dr, c=c - dc: game.place(s, r, c)))
    if game.swaps_left == 0:
        tries.append(("swap without swaps", game.swap))
    if not game.can_continue:
        tries.append(("continue when not offered", game.continue_game))
    if game.over:
        tries.append(("end a finished game", game.end_round))
    available = {a.name for a in game.actions()}
    tries.append(("an action no plugin contributes", lambda: game.act("no-such-action")))
    for name in game.ruleset.action_specs:
        spec = game.ruleset.action_specs[name]
        if spec.automatic:
            continue
        if name not in available:
            args = [0] * spec.arity
            tries.append((f"action {name!r} when it is not available",
                           lambda n=name, a=args: game.act(n, *a)))
        elif spec.target in ("cell", "cell+slot"):
            aim: list[int] = [next((s for s, p in enumerate(game.tray) if p is not None),
                                    0)] if spec.target == "cell+slot" else []
            tries.append((f"action {name!r} on a cell off the board",
                          lambda n=name, s=aim: game.act(n, *s, game.rows, 0)))
            tries.append((f"action {name!r} without its target", lambda n=name: game.act(n)))
            allowed = set(game.action_targets(name))
            refused = next((t for t in ((*aim, r, c) for r in range(game.rows)
                                        for c in range(game.cols)) if t not in allowed), None)
            if refused is not None:  # a cell its plugin does not allow now
                tries.append((f"action {name!r} at {refused}, which its plugin refuses",
                              lambda n=name, t=refused: game.act(n, *t)))
        elif spec.takes_slot:
            past = game.ruleset.tray_slots  # the first slot past the tray
            tries.append((f"action {name!r} on slot {past}",
                          lambda n=name, s=past: game.act(n, s)))
        else:
            tries.append((f"action {name!r} with an argument", lambda n=name: game.act(n, 1)))
    return tries


def _check_position(game: Any, report: Report, where: str) -> None:
    rows, cols = game.rows, game.cols
    board = game.board
    if len(board) != rows or any(len(row) != cols for row in board):
        report.fail(f"{where}: board is not {rows}×{cols}")
    if game.grid.bits >> (rows * cols):
        report.fail(f"{where}: filled cell outside the board")
    for problem in game.ruleset.hooks.invariants(game):
        report.fail(f"{where}: {problem}")
    report.count("plugin invariants")
    game.mode.checks.position(game, report, where)


def _check_tray(game: Any, report: Report, where: str) -> None:
    rows, cols = game.rows, game.cols
    for slot, piece in enumerate(game.tray):
        if piece is not None and (piece.height > rows or piece.width > cols):
            report.fail(f"{where}: tray slot {slot} piece {piece.id} is larger than the board")
    report.count("cells and pieces within bounds")
    if type(game.score) is not int or not -MAX_SCORE <= game.score <= MAX_SCORE:
        # (a score may go negative: a move may score down to -10^9 points)
        report.fail(f"{where}: score {game.score!r:.40} is not a whole number within "
                    f"±{MAX_SCORE:,}")
    any_fit = game.any_fits()
    if game.over_reason == "stuck" and any_fit:
        report.fail(f"{where}: over as 'stuck' although a tray piece fits")
    rescue = any(a.rescue for a in game.actions()) if not game.over else False
    if not game.over and not game.legal_moves() and not (rescue or any_fit):
        report.fail(f"{where}: not over, but nothing fits and no rescue is left")
    if game.over_reason == "stuck" and any(a.rescue for a in game.actions()
                                           if not a.after_end):
        report.fail(f"{where}: over as 'stuck' although an action is a rescue")
    report.count("end rule")


def _check_falling(game: Any, report: Report, where: str) -> None:
    current = game.current
    if game.over:
        if current is not None:
            report.fail(f"{where}: a stone is still falling after the end")
        return
    if not 0 <= current.col < game.cols or not -1 <= current.row < game.rows:
        report.fail(f"{where}: the stone is outside the board at {current.row}, {current.col}")
    elif current.row >= 0 and game.board[current.row][current.col] is not None:
        report.fail(f"{where}: the stone overlaps a filled cell")
    report.count("falling stone in bounds")


def _stones_seen(game: Any, act: Any, count: int) -> list[Any]:
    """The stones that come into play while ``act(game)`` is repeated."""
    seen = [game.current.stone]
    while len(seen) < count and not game.over:
        before = game.moves
        act(game)
        if game.moves != before and not game.over:
            seen.append(game.current.stone)
    return seen


def _check_stream_independence(ruleset: Ruleset, seed: int, report: Report) -> None:
    """Two players of one seed get the same stones whatever they do."""
    rnd = random.Random(seed)

    def steer(game: Any) -> None:
        game.move(rnd.choice((-1, 1)))
        if not game.over:
            game.hard_drop()

    def wait(game: Any) -> None:
        game.tick(game.rules.fall_seconds)

    a = _stones_seen(new_game(ruleset, seed=seed), steer, 15)
    b = _stones_seen(new_game(ruleset, seed=seed), wait, 15)
    n = min(len(a), len(b))
    if n < 2 or a[:n] != b[:n]:
        report.fail(f"{ruleset.id} seed {seed}: the stones depend on the player's actions")
    report.count("stone stream depends on the seed only")


def _rescues(game: Any, offered: list[Action]) -> list[tuple[list[Any], Action]]:
    """The rescues the game depends on now, as log entries with the action
    offering each: once it is over, its ``after_end`` actions; while it runs with
    no tray piece fitting, its actions that are a rescue now (one entry per filled
    slot for an action taking a slot). Empty otherwise."""
    if game.over:
        chosen = [a for a in offered if a.after_end]
    elif isinstance(game, TrayGame) and not game.any_fits():
        chosen = [a for a in offered if a.rescue and not a.after_end]
    else:
        return []
    filled = [s for s, p in enumerate(getattr(game, "tray", ())) if p is not None]
    out: list[tuple[list[Any], Action]] = []
    for action in chosen:
        if action.takes_slot:
            out.extend(([action.name, slot], action) for slot in filled)
        elif action.target != "none":  # a few of the targets its plugin allows
            out.extend(([action.name, *target], action)
                       for target in game.action_targets(action.name)[:8])
        else:
            out.append(([action.name], action))
    return out


def _outcome(game: Any) -> tuple[Any, ...]:
    """What a rescue must change for the game to get anywhere: board, tray,
    score and end."""
    return (game.board, getattr(game, "tray", None), game.score, game.over_reason)


def _named(actions: list[Action]) -> str:
    """``'continue' (plugin 'continue')``, for each distinct action, joined."""
    seen: dict[str, str] = {}
    for action in actions:
        seen.setdefault(action.name, action.plugin)
    return ", ".join(f"{name!r} (plugin {plugin!r})" for name, plugin in seen.items())


def _was(actions: list[Action]) -> str:
    return "was" if len({a.name for a in actions}) == 1 else "were"


def _play(ruleset: Ruleset, seed: int, rnd: random.Random, max_actions: int,
          report: Report, offered_names: set[str] | None = None,
          rescue_repeats: int = RESCUE_REPEATS) -> None:
    game = new_game(ruleset, seed=seed)
    twin = new_game(ruleset, seed=seed)
    checks = game.mode.checks
    where = f"{ruleset.id} seed {seed}"
    snapshot_at = rnd.randrange(1, max(2, max_actions // 2))
    saved: dict[str, Any] | None = None
    after_save: list[list[Any]] = []
    futile: list[Action] = []  # the rescues in a row that changed nothing
    mispredicted = False
    step = 0
    while True:
        offered = game.actions()
        if offered_names is not None:
            offered_names.update(a.name for a in offered)
        rescues = _rescues(game, offered)
        if step >= max_actions:
            if not rescues:
                break  # the cap, with the game not depending on a rescue: fine
            if step >= max_actions + CAP_GRACE:
                offering = [a for _, a in rescues]
                report.fail(
                    f"{where}: the game never ends: it reached the kit's cap of {max_actions} "
                    f"actions and {CAP_GRACE} rescues more with no piece fitting, and "
                    f"{_named(offering)} {'is' if _was(offering) == 'was' else 'are'} still "
                    "offered as a rescue")
                return
        _check_position(game, report, f"{where} step {step}")
        if step % 7 == 0:
            before = game.snapshot()
            for label, action in checks.illegal(game, rnd):
                try:
                    action()
                except IllegalMove:
                    pass
                else:
                    report.fail(f"{where} step {step}: '{label}' was accepted")
                    return
                if game.snapshot() != before:
                    report.fail(f"{where} step {step}: '{label}' changed the game")
                    return
            report.count("illegal actions refused atomically")
        if step == snapshot_at:
            saved = game.snapshot()
            try:
                json.loads(json.dumps(saved))
                report.count("snapshot is JSON-safe")
            except (TypeError, ValueError) as exc:
                report.fail(f"{where}: snapshot is not JSON-safe: {exc}")
        taken: Action | None = None
        if rescues and (futile or game.over or step >= max_actions):
            # a game that depends on rescues: take them (in turn, after one that
            # changed nothing, so that every rescue on offer is tried)
            entry, taken = rescues[len(futile) % len(rescues)] if futile \
                else rescues[rnd.randrange(len(rescues))]
            action = list(entry)
        else:
            action = checks.choose(game, rnd)
            if action is None:
                break
            taken = next((a for e, a in rescues if e == action), None)
        outcome = _outcome(game) if taken is not None else None
        if action[0] == "place" and isinstance(game, TrayGame):
            expected = game.preview(*action[1:])
            score = game.score
            result = game.place(*action[1:])
            if result != expected and not mispredicted:
                mispredicted = True  # once a game, with the cause when one is found
                report.fail(f"{where} step {step}: preview {expected} != place {result}"
                            f"{why_different(ruleset, game.log)}")
            if game.score != score + result.points:
                report.fail(f"{where} step {step}: score did not grow by the move's points")
            report.count("preview predicts place")
        else:
            game.apply(action)
        twin.apply(action)
        if saved is not None:
            after_save.append(action)
        report.actions += 1
        step += 1
        if taken is None or _outcome(game) != outcome:
            futile.clear()
            continue
        futile.append(taken)
        if len(futile) >= rescue_repeats:
            report.fail(
                f"{where} step {step}: the game never ends: {_named(futile)} {_was(futile)} taken "
                f"{len(futile)} times in a row as a rescue and changed nothing (board, "
                "tray, score and end the same)")
            return
    report.count("every game ends")
    report.games += 1
    final = game.snapshot()
    if twin.snapshot() != final:
        report.fail(f"{where}: same seed and actions gave different games"
                    f"{why_different(ruleset, game.log)}")
    else:
        report.count("determinism")
    if replay(game.log).snapshot() != final:
        report.fail(f"{where}: replay(log) did not rebuild the game"
                    f"{why_different(ruleset, game.log)}")
    report.count("replay")
    if saved is not None:
        resumed = restore(json.loads(json.dumps(saved)))
        for action in after_save:
            resumed.apply(action)
        if resumed.snapshot() != final:
            report.fail(f"{where}: restore(snapshot) did not continue identically")
        report.count("snapshot/restore")


def why_different(ruleset: Ruleset, log: list[list[Any]]) -> str:
    """Why the same seed and actions gave different games of ``ruleset``, as the
    rest of a failure's sentence (``": plugin 'x' ..."``; ``""`` when no cause is
    found; see :func:`blockyard.game.nondeterminism`)."""
    found = nondeterminism(ruleset, log)
    return "" if found is None else f": {found}"


TRAY_CHECKS = ModeChecks(_choose_tray, _illegal_tray, _check_tray)
"""The kit's checks of the ``"tray"`` mode (its :attr:`Mode.checks
<blockyard.modes.Mode.checks>`): random placements and actions, illegal ones
(out of the board, an empty slot, overlaps), pieces in bounds and the end rule."""

FALLING_CHECKS = ModeChecks(_choose_falling, _illegal_falling, _check_falling,
                            (_check_stream_independence,))
"""The kit's checks of the ``"falling"`` mode: random steering and drops,
illegal moves, the stone in bounds, and that the stones depend on the seed only."""


def stray_hook_methods(ruleset: Ruleset) -> list[str]:
    """Problems with plugin methods named like hooks but lacking ``@hookimpl``:
    pluggy ignores them silently, so the rule they hold never runs; the kit
    counts each as a failure (``blockyard check`` exits 1 naming the method)."""
    out = []
    for name, plugin in ruleset.plugin_objects:
        for attr in dir(type(plugin)):
            if attr.startswith("blockyard_") and callable(getattr(plugin, attr, None)) \
                    and not hasattr(getattr(plugin, attr), "blockyard_impl"):
                out.append(f"plugin {name!r}: method {attr} is named like a hook but lacks "
                           "@hookimpl, so it is never called")
    return out


def never_offered(ruleset: Ruleset, offered: set[str], report: Report) -> list[str]:
    """Notes for the ruleset's actions that no game of ``report`` offered (its
    automatic actions aside: the engine takes those itself, unlisted)."""
    owner = ruleset.action_owner
    return [f"action {name!r} of plugin {owner[name]!r} was never offered in "
            f"{report.games} games ({report.actions} actions): check when its "
            "available() says yes, or play more games (--games)"
            for name, spec in ruleset.action_specs.items()
            if not spec.automatic and name not in offered]


@contextmanager
def owned_entries(ruleset: Ruleset, report: Report) -> Iterator[None]:
    """Inside the ``with`` block, watch every ``blockyard_move_state`` call of
    ``ruleset``'s games and fail ``report`` (once per writer and entry) for an
    update of a ``game.state`` entry named after another plugin of the ruleset:
    each plugin keeps its state under its own name (MODDING.md), and an entry
    written by another plugin than its owner changes the owner's rule behind it.
    Each plugin's answer is asked of it alone (its hooks are pure: asking again
    changes nothing); a plugin that raises is the engine's to report."""
    hooks = ruleset.hooks
    if "move_state" not in hooks.implemented:
        yield
        return
    names = {name for name, _ in ruleset.plugin_objects}
    found: set[tuple[str, str]] = set()

    def before(*args: Any) -> None:
        pass

    def after(outcome: Any, hook_name: str, hook_impls: Any, kwargs: Any) -> None:
        if hook_name != "blockyard_move_state" or outcome.exception is not None:
            return
        for impl in hook_impls:
            writer = str(impl.plugin_name)
            if writer == "core" or impl.wrapper or impl.hookwrapper:
                continue
            try:
                answer = impl.function(*(kwargs[name] for name in impl.argnames))
            except Exception:  # the engine's call raised nothing: leave it to it
                continue
            if not isinstance(answer, dict):
                continue
            for key in answer:
                if key == writer or key not in names or (writer, key) in found:
                    continue
                found.add((writer, key))
                report.fail(str(PluginError(
                    f"updated game.state[{key!r}], the entry of plugin {key!r}: another "
                    "plugin's state changed behind its rules",
                    plugin=writer, hook="blockyard_move_state", ruleset=ruleset.id,
                    where=hooks.impl_where(writer, "move_state"),
                    fix=f"return updates of your own entry only, "
                        f"{{{writer!r}: {{...}}}}, and read another plugin's entry without "
                        "writing it")))

    with hooks.monitor(before, after):
        yield


def check_ruleset(ruleset: str | Ruleset, *, games: int = 6, max_actions: int = 150,
                  seed: int = 0, hook_seconds: float = 2.0,
                  rescue_repeats: int = RESCUE_REPEATS) -> Report:
    """Run the conformance checks on ``ruleset`` (id, path or Ruleset). A hook
    call longer than ``hook_seconds`` is stopped by the hook watchdog
    (:mod:`blockyard.watchdog`) and reported, and the kit goes on with the next
    game. A game in which ``rescue_repeats`` rescues in a row change nothing
    never ends, and is a failure; an action no game offered is a warning."""
    if isinstance(rescue_repeats, bool) or not isinstance(rescue_repeats, int) \
            or rescue_repeats < 2:
        raise ValueError(f"rescue_repeats: expected a whole number of at least 2, "
                         f"found {rescue_repeats!r:.40}")
    rs = load_ruleset(ruleset)
    report = Report(rs.id)
    for problem in stray_hook_methods(rs):
        report.fail(problem)
    rnd = random.Random(seed)
    offered: set[str] = set()
    # the kit checks the purity of every hook, Blockyard's own plugins' too
    with hook_timeout(hook_seconds), purity_check(True, bundled=True), \
            owned_entries(rs, report):
        for extra in rs.mode_record.checks.ruleset_checks:
            try:
                extra(rs, rnd.randrange(1 << 31), report)
            except Exception as exc:
                report.fail(f"{rs.id}: {type(exc).__name__}: {exc}")
        for _ in range(games):
            try:
                _play(rs, rnd.randrange(1 << 31), rnd, max_actions, report, offered,
                      rescue_repeats)
            except Exception as exc:  # a crash is a failure to report, not to hide
                report.fail(f"{rs.id}: {type(exc).__name__}: {exc}")
    report.warnings.extend(never_offered(rs, offered, report))
    return report


def assert_conforms(ruleset: str | Ruleset, **kwargs: Any) -> Report:
    """Run :func:`check_ruleset` and raise ``AssertionError`` with the report on failure."""
    report = check_ruleset(ruleset, **kwargs)
    if not report.ok:
        raise AssertionError(report.text())
    return report
