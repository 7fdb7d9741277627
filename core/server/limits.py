"""Rate limits: so many attempts per key (an address, a name, an account) in a
sliding window.

The counts live in each server process's memory (behind several processes each
keeps its own, so the limit is per process; a reverse proxy can add a global
one). Sign-in and account creation: :data:`SIGN_IN` per address and per name;
game submissions: :data:`SUBMIT` per account.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque

SIGN_IN = (10, 60.0)
"""At most 10 sign-in attempts a minute per client address and per name."""
SUBMIT = (30, 60.0)
"""At most 30 game submissions a minute per account."""
CREATE = (5, 60.0)
"""At most 5 new accounts a minute per client address."""
MAX_KEYS = 100_000


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
