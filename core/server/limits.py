"""Rate limits: so many attempts per key (an address, a name, an account) in a
sliding window.

The counts live in each server process's memory (behind several processes each
keeps its own, so the limit is per process; a reverse proxy can add a global
one). Sign-in: :data:`SIGN_IN_ADDRESS` per client address and
:data:`SIGN_IN_NAME` per account name; new accounts: :data:`CREATE` per address;
game submissions: :data:`SUBMIT` per account. ``BLOCKYARD_SERVER_LIMITS`` changes
the counts per minute, e.g. ``sign_in_name=5,submit=60`` (:func:`configured`).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict, deque

LIMITS_ENV = "BLOCKYARD_SERVER_LIMITS"
DEFAULTS = {"sign_in_address": 30, "sign_in_name": 10, "create": 10, "submit": 30,
            "messages": 600}
"""Attempts per minute: sign-ins per client address and per account name, new
accounts per address, game submissions per account, messages per live
connection (over it the connection is closed)."""
MAX_KEYS = 100_000


def configured() -> dict[str, int]:
    """The counts per minute: :data:`DEFAULTS` with those of ``BLOCKYARD_SERVER_LIMITS``
    (``name=count`` pairs separated by commas); ``ValueError`` naming a bad one."""
    counts = dict(DEFAULTS)
    text = os.environ.get(LIMITS_ENV, "").strip()
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in counts or not value.strip().isdigit() \
                or not 1 <= int(value) <= 1_000_000:
            raise ValueError(f"{LIMITS_ENV}: {part[:40]!r}: expected NAME=COUNT (1 to "
                             f"1000000) with NAME one of {', '.join(DEFAULTS)}")
        counts[name] = int(value)
    return counts


class RateLimit:
    """At most ``count`` hits per key in any ``seconds``."""

    def __init__(self, count: int, seconds: float) -> None:
        self.count = count
        self.seconds = seconds
        self._hits: OrderedDict[str, deque[float]] = OrderedDict()
        self._lock = threading.Lock()

    def hit(self, key: str) -> bool:
        """Count a hit on ``key``; ``False`` when the key is over its limit (the
        refused hit is not counted)."""
        moment = time.monotonic()
        with self._lock:
            hits = self._hits.get(key)
            if hits is None:
                hits = self._hits[key] = deque()
                while len(self._hits) > MAX_KEYS:
                    self._hits.popitem(last=False)
            self._hits.move_to_end(key)
            while hits and hits[0] <= moment - self.seconds:
                hits.popleft()
            if len(hits) >= self.count:
                return False
            hits.append(moment)
            return True
