"""Verifying submitted games: the log replayed on the server's own engine.

A submitted replay (``POST /api/games``) counts only when the rules dealt it and
its log plays it (docs/online.md, "What the referee accepts"). In a verifying
process, :func:`verify_replay`, cheapest check first:

1. the file's shape (:func:`blockyard.replays.check_replay_data`, done in the
   server process before anything is queued);
2. the rules: a ruleset this server serves, its rule text the one the game was
   played with (the SHA-256 digest) and the rule text the file carries matching
   the digest recorded with it;
3. the work: no more log entries than a real game of the ruleset can need
   (:func:`blockyard.gamecheck.check_work`), counted before anything is replayed;
4. the start: the rules' own deal of its seed (and for a daily ruleset, of its
   date) — never a submitted ``board``, ``tray`` or ``stream``
   (:func:`blockyard.gamecheck.dealt_game`);
5. the log replayed from that deal, entry by entry, and the file's header
   (``seed``, ``date``, ``score``, ``over_reason``) and final-state digest compared
   with the game it plays; the game must be over.

Only what the replay gives is kept: the stored replay is written anew from the
rebuilt game, in the canonical form whose digest is the game's identity
(:func:`blockyard.gamecheck.game_identity`, the duplicate check's key).

Big bodies wait only for big bodies: a body over :data:`BIG_BODY` bytes (a
log of tens of thousands of entries; a real game's is a few kilobytes) is
parsed and verified in a lane of its own, one process running at a lower
scheduling priority (``nice``), so that a flood of long logs (each taking a
second or more only to parse) never holds the pool a normal submission is
verified in, nor the CPU it needs; that one is answered as if alone.

The pool (pebble's :class:`~pebble.ProcessPool`): each verification has its own
budget of :data:`VERIFY_SECONDS`, counted from when a verifying process starts
it (never the time it waited in the queue); one over budget is refused alone and
only its process is replaced, so every other submission in flight is answered as
if it were alone. The budget is what bounds a hanging or looping plugin hook
here, so the per-hook watchdog is off in these processes (it would cost every
hook call a timer).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pebble

from .. import provenance, validate, watchdog
from ..discovery import known_ids, load_ruleset
from ..errors import DataError, IllegalMove, PluginError, RulesetError
from ..gamecheck import (
    NotCounted,
    WorkMeter,
    actions_json,
    check_length,
    check_work,
    dealt_game,
    game_identity,
)
from ..replays import (
    HEADER_FIELDS,
    ReplayError,
    check_replay_data,
    differs_sentence,
    reaches,
    replay_json,
    state_digest,
    text_digest,
)
from ..version import __version__
from . import metrics

HOOK_SECONDS = 2.0
"""The hook watchdog's limit in the server process (the live tables' games)."""
BIG_BODY = 1 << 20
"""A submitted body longer than this (bytes) is verified in the big bodies' own
lane (:class:`Verifier`): a real game's replay is a few kilobytes, its largest
verifiable log (200,000 actions) a few megabytes."""
BIG_LANE_PROCESSES = 1
"""The verifying processes of the big bodies' lane (each server process)."""
BIG_LANE_NICENESS = 10
"""How much lower the big bodies' lane runs in the system's scheduling (``nice``):
its CPU goes to the server and the other verifying processes first."""
VERIFY_SECONDS = 30.0
"""The longest one verification may take, counted from its own start in a
verifying process (then it is refused)."""


class Refused(ValueError):
    """A submitted game that is not stored; the message says why."""


@dataclass(frozen=True)
class Verified:
    """What the server's engine made of a submitted replay."""

    ruleset_id: str
    ruleset_digest: str
    daily: bool
    date: str | None
    seed: int
    score: int
    moves: int
    identity: str
    """The game's identity (:func:`blockyard.gamecheck.game_identity`)."""
    replay: str
    """The replay JSON to store, written from the rebuilt game."""


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def verify_replay(data: Any, player: str, *, shape_checked: bool = False) -> Verified:
    """Replay ``data`` (a replay file's parsed JSON) on this engine: the
    :class:`Verified` facts, or :class:`Refused` naming what is wrong.
    ``shape_checked``: ``data`` is what :func:`check_replay_data` returned."""
    try:
        return _verify(data if shape_checked else check_replay_data(data), player)
    except (NotCounted, ReplayError) as exc:
        raise Refused(str(exc)) from None
    except (DataError, RulesetError, PluginError) as exc:
        raise Refused(f"the game cannot be replayed: {exc}") from None


def _verify(data: dict[str, Any], player: str) -> Verified:
    rid = data["ruleset_id"]
    log = data["log"]
    start = log[0][1]
    try:
        ruleset = load_ruleset(rid)  # an id: check_replay_data admits no path
    except (RulesetError, PluginError) as exc:
        raise Refused(f"the ruleset {rid!r} is not served here or cannot be loaded: "
                      f"{_needed(data, start) or exc}") from None
    # the served rule text compared as text (cheap); hashed only when it differs
    same_text = start["ruleset"] == ruleset.to_toml()
    if (data["ruleset_digest"] != ruleset.digest) if same_text else \
            (text_digest(start["ruleset"]) != data["ruleset_digest"]):
        raise Refused("the rules in this replay do not match the hash recorded with them; "
                      "the file was altered")
    # other plugin versions or other rule numbers: named as what they are
    recorded = data.get("plugins")
    if not (same_text and recorded == provenance.served_plugins_json(ruleset)):  # or the same
        served = provenance.of_ruleset(ruleset)
        played = provenance.Provenance(
            None if recorded is None else provenance.read_plugins(recorded),
            data["ruleset_digest"], start["ruleset"])
        differs = provenance.mismatch(played, served)
        if differs is not None:
            raise Refused(differs_sentence(rid, differs, "this server"))
    if not same_text:  # pragma: no cover - a digest differs whenever the text does
        raise Refused(f"the rules of {rid!r} differ from this server's")
    check_work(ruleset, log)
    game = dealt_game(ruleset, start)
    mode = game.mode
    apply = game.apply
    meter = WorkMeter(ruleset)
    bound = meter.bound  # asked again only when passed: one comparison an entry
    check_entry = validate.check_entry
    for index, action in enumerate(log[1:], start=1):
        check_entry(action, index, mode)
        try:
            apply(action)
        except IllegalMove as exc:
            raise Refused(f"the game cannot be replayed: log[{index}] {action!r:.60}: "
                          f"{exc}") from None
        if index > bound:
            bound = meter.check(index, game)
    for key in HEADER_FIELDS:
        if key not in data:  # an optional field the file does not claim
            continue
        claimed, played = data[key], getattr(game, key)
        if claimed != played or type(claimed) is not type(played):
            why = "the file was altered" if "plugins" in data else (
                "the file was altered, or the game was played with other plugin versions "
                "(the file does not record them)")
            raise Refused(f"{key}: the file says {_shown(claimed)} but its log plays "
                          f"{_shown(played)}; {why}")
    final = state_digest(game)
    if final != data["final_digest"] and not reaches(game, data["final_digest"], final):
        raise Refused(f"this replay was recorded by Blockyard "
                      f"{str(data.get('engine'))[:40]}; this engine ({__version__}) plays "
                      "it differently")
    if not game.over:
        raise Refused("the game is not over: only finished games are accepted")
    actions = actions_json(game.log[1:])
    stored = replay_json(game, player, final_digest=final, actions=actions, dealt=True)
    return Verified(
        ruleset_id=ruleset.id, ruleset_digest=ruleset.digest, daily=ruleset.is_daily,
        date=game.date, seed=int(game.seed), score=int(game.score), moves=len(game.log) - 1,
        identity=game_identity(game, actions), replay=stored)


def _needed(data: dict[str, Any], start: Any) -> str | None:
    """The plugin packages and versions a replay records that this server lacks
    (:func:`blockyard.provenance.needed_here`), or ``None`` (none recorded, all
    here, or a record that cannot be read: the ruleset's own error is said)."""
    recorded = data.get("plugins")
    if recorded is None:
        return None
    try:
        played = provenance.read_plugins(recorded)
    except DataError:
        return None
    rules = start.get("ruleset") if isinstance(start, dict) else None
    return provenance.needed_here(played, rules if isinstance(rules, str) else None)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def parse_body(raw: bytes) -> Any:
    """A request body's JSON (``NaN`` and ``Infinity`` refused): ``ValueError``
    with a sentence for anything else."""
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise ValueError(f"the body is not UTF-8 text (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"the body is not JSON ({type(exc).__name__}: "
                         f"{str(exc)[:120]})") from None


def _verify_in_worker(data: Any, player: str) -> Verified | str:
    try:
        if isinstance(data, bytes):  # parsed here, not in the server's event loop
            data = parse_body(data)
            data = check_replay_data(data)
            check_length(data["ruleset_id"], data["log"])
        # otherwise Verifier.verify checked the shape before queuing it
        return verify_replay(data, player, shape_checked=True)
    except ValueError as exc:  # Refused, NotCounted, ReplayError, the body's JSON
        return str(exc)
    except Refused as exc:
        return str(exc)
    except Exception as exc:  # whatever a hostile file provokes: refused, never a 500
        return f"the game cannot be replayed ({type(exc).__name__})"


def _start_big_worker() -> None:
    with contextlib.suppress(OSError):  # a system without nice: the lane alone is kept
        os.nice(BIG_LANE_NICENESS)
    _start_worker()


def _start_worker() -> None:
    watchdog.set_default(None)  # the verification's own budget bounds every hook here
    for ruleset_id in known_ids():  # loaded before any budget runs, not by the first game
        with contextlib.suppress(RulesetError, PluginError):  # refused when a game comes
            load_ruleset(ruleset_id)


class Verifier:
    """A pool of worker processes verifying submitted games, each under its own
    budget (``budget`` seconds from its own start; :data:`VERIFY_SECONDS`), and
    the big bodies' lane beside it (:data:`BIG_LANE_PROCESSES` processes, started
    with the first body over :data:`BIG_BODY` bytes, running :data:`BIG_LANE_NICENESS`
    lower), so that long bodies wait for one another, never a normal one for them.
    ``check``: the function a worker runs on ``(data, player)`` (tests give
    another), returning :class:`Verified` or a refusal's sentence."""

    def __init__(self, processes: int | None = None, *, budget: float = VERIFY_SECONDS,
                 check: Callable[[Any, str], Verified | str] = _verify_in_worker) -> None:
        self.processes = max(1, processes or os.cpu_count() or 1)
        self.budget = budget
        self._check = check
        self._lock = threading.Lock()
        self._pool: pebble.ProcessPool | None = None
        self._big_pool: pebble.ProcessPool | None = None

    def _get_pool(self, big: bool = False) -> pebble.ProcessPool:
        with self._lock:
            if big:
                if self._big_pool is None:
                    self._big_pool = self._new_pool(BIG_LANE_PROCESSES, _start_big_worker)
                return self._big_pool
            if self._pool is None:
                self._pool = self._new_pool(self.processes, _start_worker)
            return self._pool

    @staticmethod
    def _new_pool(processes: int, start: Callable[[], None]) -> pebble.ProcessPool:
        return pebble.ProcessPool(processes, initializer=start,
                                  context=multiprocessing.get_context("spawn"))

    async def verify(self, data: Any, player: str) -> Verified:
        """Verify ``data`` in a worker process: :class:`Verified`, or
        :class:`Refused` (also for a verification over its budget, which ends
        that worker alone). ``data``: a replay file's parsed JSON, or a request
        body's bytes, which the worker parses (an 8 MiB body takes a good part
        of a second to parse: never in the server's event loop; over
        :data:`BIG_BODY` bytes, in the big bodies' lane)."""
        start = time.perf_counter()
        metrics.verifications_queued.inc()
        try:
            outcome = await self._verified(data, player)
        except Refused:
            metrics.verification_refused.inc()
            raise
        finally:
            metrics.verifications_queued.dec()
            metrics.verification_seconds.observe(time.perf_counter() - start)
        return outcome

    async def _verified(self, data: Any, player: str) -> Verified:
        if not isinstance(data, bytes):
            try:  # the shape and length first, here: only those that pass go to a worker
                data = check_replay_data(data)
                check_length(data["ruleset_id"], data["log"])
            except (ReplayError, NotCounted) as exc:
                raise Refused(str(exc)) from None
        big = isinstance(data, bytes) and len(data) > BIG_BODY
        future = self._get_pool(big).schedule(self._check, args=(data, player),
                                              timeout=self.budget)
        try:
            outcome = await asyncio.wrap_future(future)
        except TimeoutError:
            raise Refused(f"the game took too long to verify (over {self.budget:g} s)") \
                from None
        except (pebble.ProcessExpired, concurrent.futures.process.BrokenProcessPool):
            raise Refused("the game could not be replayed (its replay stopped the "
                          "verifying process)") from None
        if isinstance(outcome, str):
            raise Refused(outcome)
        return outcome

    def close(self) -> None:
        """End the worker processes."""
        with self._lock:
            pools, self._pool, self._big_pool = (self._pool, self._big_pool), None, None
        for pool in pools:
            if pool is not None:
                pool.stop()  # type: ignore[no-untyped-call]
                pool.join()
