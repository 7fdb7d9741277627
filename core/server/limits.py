"""Rate limits: so many attempts per key (an address, a name, an account) in a
sliding window.

The limits of the HTTP calls are counted in the database (:class:`SharedRateLimit`),
so every server process behind one database — ``--workers N``, or several hosts —
counts the same attempts: a client gains nothing by reaching another process.
Sign-in: :data:`~blockyard.server.settings.LIMITS` ``sign_in_address`` per client address and
``sign_in_name`` per account name; new accounts: ``create`` per address; game
submissions: ``submit`` per account; guesses of a private table's code (joining or
watching it with a code, neither seated nor invited): ``code_account`` per account
and ``code_address`` per address; entries into Play now's pool: ``pairing`` per
account. ``BLOCKYARD_SERVER_LIMITS`` changes the counts
per minute, e.g. ``sign_in_name=5,submit=60`` (:mod:`blockyard.server.settings`).
The messages of the live connections are counted per account (an address when not signed in), across
its connections and reconnects, by the process that holds them (:class:`RateLimit`).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from . import db
from .clock import Clock, SystemClock

MAX_KEYS = 100_000
SLICES = 6
"""A shared limit counts its window in this many slices of time: an attempt is
counted for the window's last slices (50 to 60 seconds of a one-minute window)."""
PRUNE_EVERY = 200
"""A process clears the counts of slices out of every window once per this many
attempts it counts."""


class RateLimit:
    """At most ``count`` hits per key in any ``seconds``."""

    def __init__(self, count: int, seconds: float, clock: Clock | None = None) -> None:
        self.count = count
        self.seconds = seconds
        self.clock = clock or SystemClock()
        # a list per key (a deque's first block is 0.6 kB: one per live connection's
        # account at the messages limit); its old hits are cut off in one slice
        self._hits: OrderedDict[str, list[float]] = OrderedDict()
        self._lock = threading.Lock()

    def hit(self, key: str) -> bool:
        """Count a hit on ``key``; ``False`` when the key is over its limit (the
        refused hit is not counted)."""
        moment = self.clock.seconds()
        with self._lock:
            hits = self._hits.get(key)
            if hits is None:
                hits = self._hits[key] = []
                while len(self._hits) > MAX_KEYS:
                    self._hits.popitem(last=False)
            self._hits.move_to_end(key)
            old = bisect.bisect_right(hits, moment - self.seconds)
            if old:
                del hits[:old]
            if len(hits) >= self.count:
                return False
            hits.append(moment)
            return True


def upsert(conn: Connection, table: sa.Table, values: dict[str, object],
           keys: list[str], changes: dict[str, object]) -> None:
    """Insert ``values`` into ``table``, or apply ``changes`` to the row with the
    same ``keys`` (one statement on SQLite and PostgreSQL alike)."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        conn.execute(pg_insert(table).values(values)
                     .on_conflict_do_update(index_elements=keys, set_=changes))
    else:
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        conn.execute(sqlite_insert(table).values(values)
                     .on_conflict_do_update(index_elements=keys, set_=changes))


class SharedRateLimit:
    """At most ``count`` hits per key in any ``seconds``, counted in the database
    shared by every server process (table ``rate_counts``).

    Each hit adds one to its key's count of the current slice of time (``seconds``
    / :data:`SLICES`) and reads the sum of the window's slices, in one transaction
    that holds the slice's row: processes counting the same key at the same moment
    take turns, so together they never let more than ``count`` through. A refused
    hit is taken back (not counted). At most :data:`SLICES` rows per key; slices
    out of the window are deleted every :data:`PRUNE_EVERY` hits. Keys are kept only
    as SHA-256 digests."""

    def __init__(self, engine: Engine, name: str, count: int, seconds: float = 60.0,
                 clock: Callable[[], float] | None = None) -> None:
        if not 1 <= len(name) <= 32:
            raise ValueError(f"rate limit name: expected 1 to 32 characters, "
                             f"found {name!r:.40}")
        if count < 1 or not seconds > 0:
            raise ValueError(f"rate limit {name}: expected a count of 1 or more "
                             "and a positive window")
        self.engine = engine
        self.name = name
        self.count = count
        self.seconds = seconds
        self.slice_seconds = seconds / SLICES
        # wall seconds (shared by every process); the system's unless told
        self._clock = clock or (lambda: SystemClock().now().timestamp())
        self._counter = itertools.count(1)

    def hit(self, key: str) -> bool:
        """Count a hit on ``key``; ``False`` when the key is at its limit (the
        refused hit is not counted). Blocking: one short transaction."""
        current = int(self._clock() // self.slice_seconds)
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
        table = db.rate_counts
        mine = sa.and_(table.c.name == self.name, table.c.key == digest)
        with self.engine.begin() as conn:
            upsert(conn, table, {"name": self.name, "key": digest, "slice": current,
                                 "hits": 1},
                   ["name", "key", "slice"], {"hits": table.c.hits + 1})
            total = conn.execute(sa.select(sa.func.coalesce(sa.func.sum(table.c.hits), 0))
                                 .where(mine, table.c.slice > current - SLICES,
                                        table.c.slice <= current)).scalar_one()
            allowed = int(total) <= self.count
            if not allowed:
                conn.execute(sa.update(table).where(mine, table.c.slice == current)
                             .values(hits=table.c.hits - 1))
        if next(self._counter) % PRUNE_EVERY == 0:
            self.prune(current)
        return allowed

    def prune(self, current: int | None = None) -> int:
        """Delete this limit's counts of slices out of the window; how many rows."""
        if current is None:
            current = int(self._clock() // self.slice_seconds)
        table = db.rate_counts
        with self.engine.begin() as conn:
            done = conn.execute(sa.delete(table).where(table.c.name == self.name,
                                                       table.c.slice <= current - SLICES))
        return int(done.rowcount or 0)

    async def allow(self, key: str) -> bool:
        """:meth:`hit` from the event loop (in a worker thread)."""
        from starlette.concurrency import run_in_threadpool

        return await run_in_threadpool(self.hit, key)
