"""Verifying submitted games: the log replayed on the server's own engine.

A submitted replay is checked by :meth:`blockyard.replays.Replay.check` in a
worker process (a pool, so that a slow or hostile game never holds the server's
event loop, and a crash takes only the worker): its rules must be a ruleset this
server serves, byte for byte (the SHA-256 digest), its log must replay, and its
header must be what the log plays. Every plugin hook runs under the hook
watchdog (:data:`HOOK_SECONDS`), and a whole verification under
:data:`VERIFY_SECONDS`. Only what the replay gives is kept: the stored replay
is written anew from the rebuilt game (:func:`blockyard.replays.replay_data`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import multiprocessing
import os
import threading
from dataclasses import dataclass
from typing import Any

from .. import watchdog
from ..errors import DataError, PluginError, RulesetError
from ..replays import Replay, ReplayError, check_replay_data, replay_data

HOOK_SECONDS = 2.0
"""The hook watchdog's limit in the verifying processes."""
VERIFY_SECONDS = 30.0
"""The longest one verification may take (then it is refused)."""


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
    log_digest: str
    replay: str
    """The replay JSON to store, written from the rebuilt game."""


def _start_worker() -> None:
    watchdog.set_default(HOOK_SECONDS)


def verify_replay(data: Any, player: str) -> Verified:
    """Replay ``data`` (a replay file's parsed JSON) on this engine: the
    :class:`Verified` facts, or :class:`Refused` naming what is wrong."""
    try:
        replay = Replay(None, check_replay_data(data))
        game = replay.check(here="this server", exact_code=True)
    except ReplayError as exc:
        raise Refused(str(exc)) from None
    except (DataError, RulesetError, PluginError) as exc:  # pragma: no cover - belt and braces
        raise Refused(f"the game cannot be replayed: {exc}") from None
    if not game.over:
        raise Refused("the game is not over: only finished games are accepted")
    stored = replay_data(game, player)
    log_text = json.dumps(game.log, sort_keys=True, separators=(",", ":"))
    return Verified(
        ruleset_id=game.ruleset.id, ruleset_digest=stored["ruleset_digest"],
        daily=game.ruleset.is_daily, date=game.date, seed=int(game.seed),
        score=int(game.score), moves=len(game.log) - 1,
        log_digest=hashlib.sha256(log_text.encode()).hexdigest(),
        replay=json.dumps(stored, separators=(",", ":")))


def _verify_in_worker(data: Any, player: str) -> Verified | str:
    try:
        return verify_replay(data, player)
    except Refused as exc:
        return str(exc)
    except Exception as exc:  # whatever a hostile file provokes: refused, never a 500
        return f"the game cannot be replayed ({type(exc).__name__})"


class Verifier:
    """A pool of worker processes verifying submitted games."""

    def __init__(self, processes: int | None = None) -> None:
        self.processes = max(1, processes or os.cpu_count() or 1)
        self._lock = threading.Lock()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def _get_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    self.processes, mp_context=multiprocessing.get_context("spawn"),
                    initializer=_start_worker)
            return self._pool

    def _reset(self, pool: concurrent.futures.ProcessPoolExecutor) -> None:
        """Drop a pool whose worker hangs or died (its processes are ended)."""
        with self._lock:
            if self._pool is pool:
                self._pool = None
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    async def verify(self, data: Any, player: str) -> Verified:
        """Verify ``data`` in a worker process: :class:`Verified`, or
        :class:`Refused` (also for a verification over :data:`VERIFY_SECONDS`)."""
        try:  # the shape first, here: only a well-formed replay goes to a worker
            data = check_replay_data(data)
        except ReplayError as exc:
            raise Refused(str(exc)) from None
        pool = self._get_pool()
        try:
            future = pool.submit(_verify_in_worker, data, player)
            outcome = await asyncio.wait_for(asyncio.wrap_future(future), VERIFY_SECONDS)
        except TimeoutError:
            self._reset(pool)
            raise Refused(f"the game took longer than {VERIFY_SECONDS:g} s to replay") from None
        except concurrent.futures.process.BrokenProcessPool:
            self._reset(pool)
            raise Refused("the game could not be replayed (its replay stopped the "
                          "verifying process)") from None
        if isinstance(outcome, str):
            raise Refused(outcome)
        return outcome

    def close(self) -> None:
        """End the worker processes."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
