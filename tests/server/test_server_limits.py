"""Rate limits counted in the database: exact counts in a sliding window, the
same for every server process (two engines on one database; two `blockyard
serve` processes on one PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from server_support import Server, engine_of

from blockyard.server import db, limits


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def engines(database: str) -> Iterator[tuple[sa.Engine, sa.Engine]]:
    """Two engines on one store, as two server processes have."""
    with engine_of(database) as first, engine_of(database) as second:
        yield first, second


def test_a_shared_limit_counts_every_process(engines: tuple[sa.Engine, sa.Engine]) -> None:
    clock = Clock()
    one = limits.SharedRateLimit(engines[0], "submit", 5, 60.0, clock=clock)
    two = limits.SharedRateLimit(engines[1], "submit", 5, 60.0, clock=clock)
    assert [(one if n % 2 else two).hit("account:1") for n in range(5)] == [True] * 5
    assert one.hit("account:1") is False and two.hit("account:1") is False
    assert two.hit("account:2") is True  # another key has its own count
    other = limits.SharedRateLimit(engines[0], "create", 5, 60.0, clock=clock)
    assert other.hit("account:1") is True  # another limit too
    clock.now += 30  # within the window: still refused (refusals were not counted)
    assert one.hit("account:1") is False
    clock.now += 31  # the first hits left the window
    assert [two.hit("account:1") for _ in range(5)] == [True] * 5
    assert one.hit("account:1") is False


def test_refused_hits_are_not_counted(engines: tuple[sa.Engine, sa.Engine]) -> None:
    clock = Clock()
    limit = limits.SharedRateLimit(engines[0], "sign_in_name", 2, 60.0, clock=clock)
    assert [limit.hit("ann") for _ in range(6)] == [True, True, False, False, False, False]
    with engines[0].connect() as conn:
        hits = conn.execute(sa.select(sa.func.sum(db.rate_counts.c.hits))).scalar_one()
    assert hits == 2


def test_old_slices_are_pruned_and_keys_not_kept_readable(
        engines: tuple[sa.Engine, sa.Engine]) -> None:
    clock = Clock()
    limit = limits.SharedRateLimit(engines[0], "create", 3, 60.0, clock=clock)
    for _ in range(3):
        limit.hit("203.0.113.9")
        clock.now += 20
    assert limit.prune() == 1  # the slice of 60 seconds ago
    with engines[0].connect() as conn:
        rows = conn.execute(sa.select(db.rate_counts)).all()
    assert len(rows) == 2 and all("203.0.113.9" not in row.key for row in rows)


def test_bad_limits_are_refused(engines: tuple[sa.Engine, sa.Engine]) -> None:
    with pytest.raises(ValueError, match="count of 1 or more"):
        limits.SharedRateLimit(engines[0], "submit", 0)
    with pytest.raises(ValueError, match="rate limit name"):
        limits.SharedRateLimit(engines[0], "x" * 40, 3)


def test_two_processes_share_the_sign_in_limit(two_servers: tuple[Server, Server]) -> None:
    one, two = two_servers
    name, _ = one.account("lim")  # its sign-in is the first of the 10 per name
    statuses = [(one if n % 2 else two).client.post(
        "/api/sessions", json={"name": name, "password": f"wrong {n}"}).status_code
        for n in range(9)]
    assert statuses == [401] * 9
    for server in (one, two):  # per process, each would have let 10 through
        blocked = server.client.post("/api/sessions",
                                     json={"name": name, "password": "correct horse"})
        assert blocked.status_code == 429 and "too many" in blocked.json()["error"]
