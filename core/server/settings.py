"""The server's settings: one object for every flag and environment variable a
server process decides by.

``blockyard serve`` reads them once with :meth:`Settings.from_env` before it
starts anything (a bad value is refused there, naming the variable) and hands
the database and the verifying processes on to its uvicorn workers in the
environment; each worker reads the same object back
(:func:`blockyard.server.app.create_app_from_env`). Tests build one directly.

=====================================  ============================================
variable                               what it sets
=====================================  ============================================
``BLOCKYARD_SERVER_DATABASE``          the database URL (``blockyard serve`` sets it)
``BLOCKYARD_SERVER_VERIFIERS``         verifying processes per server process
``BLOCKYARD_SERVER_DB_CONNECTIONS``    PostgreSQL connections per server process
``BLOCKYARD_SERVER_LIMITS``            rate limits, ``name=count,…`` per minute
``BLOCKYARD_SERVER_PENDING_INVITES``   pending invitations one player may send
``BLOCKYARD_SERVER_PRESENCE_SECONDS``  how long a player counts as online
``BLOCKYARD_SERVER_IDLE_SECONDS``      a seat with no action this long is ended
``BLOCKYARD_SERVER_ABANDON_SECONDS``   a seat with no connection this long is ended
``BLOCKYARD_SERVER_AWAY_SECONDS``      a seat with no input this long is away
``BLOCKYARD_SERVER_CLOCK_TOLERANCE``   how far a falling game's clock may lag
``BLOCKYARD_SERVER_HEADER_SECONDS``    time a request has for its headers
``BLOCKYARD_SERVER_BODY_SECONDS``      time a request has for its body
``BLOCKYARD_SERVER_HELLO_SECONDS``     time a live connection has for its hello
``BLOCKYARD_SERVER_METRICS``           ``off``: no ``/metrics`` (``serve --no-metrics``)
``BLOCKYARD_SERVER_LEAN``              ``off``: none of the speed-ups (:mod:`.speedups`)
``FORWARDED_ALLOW_IPS``                uvicorn's: the proxies believed (``serve
                                       --forwarded-allow-ips``)
=====================================  ============================================
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from .db import POOL_SIZE, default_url
from .referee import (
    ABANDON_ENV,
    ABANDON_SECONDS,
    CLOCK_ENV,
    CLOCK_TOLERANCE,
    IDLE_ENV,
    IDLE_SECONDS,
    Timing,
)

DATABASE_ENV = "BLOCKYARD_SERVER_DATABASE"
"""The database URL handed to each server process (``blockyard serve`` sets it)."""
VERIFIERS_ENV = "BLOCKYARD_SERVER_VERIFIERS"
"""How many verifying processes each server process runs (default: its share of
the cores)."""
CONNECTIONS_ENV = "BLOCKYARD_SERVER_DB_CONNECTIONS"
"""How many PostgreSQL connections each server process's pool holds at most
(default :data:`~blockyard.server.db.POOL_SIZE`)."""
LIMITS_ENV = "BLOCKYARD_SERVER_LIMITS"
LIMITS = {"sign_in_address": 30, "sign_in_name": 10, "create": 10, "submit": 30,
          "code_account": 10, "code_address": 30, "messages": 600, "phrases": 6,
          "pairing": 10}
"""Attempts per minute: sign-ins per client address and per account name, new
accounts per address, game submissions per account, table-code guesses per account
and per address, live messages per account (an address when not signed in) on each
channel, across reconnects (over it the connection is closed), quick phrases per
account (over it a phrase is refused, kind ``too-many``), entries into Play now's
pool per account (``POST /api/pairing``; over it 429)."""
PENDING_INVITES_ENV = "BLOCKYARD_SERVER_PENDING_INVITES"
PENDING_INVITES = 32
"""The pending invitations one player may have sent (unanswered, their tables
waiting; every invited name counts): one table's whole list
(:data:`~blockyard.server.tablestore.MAX_INVITES`), so that a few strangers
cannot fill the invitation lists of many players."""
PRESENCE_ENV = "BLOCKYARD_SERVER_PRESENCE_SECONDS"
PRESENCE_SECONDS = 60.0
"""A player is online this long after their last authenticated call or live
connection."""
MIN_PRESENCE_SECONDS = 3.0
AWAY_ENV = "BLOCKYARD_SERVER_AWAY_SECONDS"
AWAY_SECONDS = 60.0
"""A connected seat of a playing table whose game is not finished is shown
``away`` once its player has neither acted nor said they are active this long."""
MIN_AWAY_SECONDS = 1.0
HEADER_ENV = "BLOCKYARD_SERVER_HEADER_SECONDS"
HEADER_SECONDS = 10.0
"""The time a request has to send its headers whole (from the connection's start,
or the end of the answer before)."""
BODY_ENV = "BLOCKYARD_SERVER_BODY_SECONDS"
BODY_SECONDS = 60.0
"""The time a request has to send its body once its headers are in (a replay of
the largest size, 8 MiB, at 140 kB/s)."""
HELLO_ENV = "BLOCKYARD_SERVER_HELLO_SECONDS"
HELLO_SECONDS = 10.0
"""The time a live connection has, once open, to send its first message, the
``hello`` with its credentials (on the server's clock; closed, code 4408, after
it)."""
METRICS_ENV = "BLOCKYARD_SERVER_METRICS"
"""``on`` (the default) or ``off``: whether ``GET /metrics`` answers."""
LEAN_ENV = "BLOCKYARD_SERVER_LEAN"
"""``on`` (the default) or ``off``: whether the server runs with its speed-ups
around uvicorn and Starlette (:mod:`blockyard.server.speedups`), or on the stack
as it comes."""
MIN_REQUEST_SECONDS = 1.0
"""The least either request deadline may be set to (a request needs some time to
arrive)."""
MAX_SECONDS = 86_400.0


@dataclass(frozen=True)
class Settings:
    """What one server process decides by, besides its clock."""

    database: str
    verifiers: int | None = None
    """Verifying processes (``None``: one per core)."""
    connections: int = POOL_SIZE
    """The database pool's connections at most (PostgreSQL; :data:`CONNECTIONS_ENV`)."""
    limits: Mapping[str, int] = field(default_factory=lambda: dict(LIMITS))
    """Counts per minute, by the names of :data:`LIMITS`."""
    pending_invites: int = PENDING_INVITES
    """Pending invitations one player may have sent (:data:`PENDING_INVITES_ENV`)."""
    presence_seconds: float = PRESENCE_SECONDS
    away_seconds: float = AWAY_SECONDS
    """No input this long: a connected seat is shown away (:data:`AWAY_ENV`)."""
    timing: Timing = field(default_factory=Timing)
    """The tables' rules of time (idle and abandoned seats, a falling game's clock)."""
    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    hello_seconds: float = HELLO_SECONDS
    """The time a live connection has for its ``hello`` (:data:`HELLO_ENV`)."""
    metrics: bool = True
    """Whether ``GET /metrics`` answers (:mod:`blockyard.server.metrics`)."""
    lean: bool = True
    """Whether the speed-ups around the stack are on (:data:`LEAN_ENV`,
    :mod:`blockyard.server.speedups`)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *,
                 database: str | None = None) -> Settings:
        """The settings of ``environ`` (this process's environment unless given),
        each variable unset taking its default; ``database`` when given, else
        :data:`DATABASE_ENV`, else the default SQLite file. ``ValueError``
        naming the variable for a value out of its range."""
        env = os.environ if environ is None else environ
        if database is None:
            database = env.get(DATABASE_ENV, "").strip() or None
        if database is None:
            database = default_url()
        presence = seconds(env, PRESENCE_ENV, PRESENCE_SECONDS, MIN_PRESENCE_SECONDS)
        header, body = request_deadlines(env)
        return cls(
            database=database,
            verifiers=_count(env, VERIFIERS_ENV),
            connections=_count(env, CONNECTIONS_ENV) or POOL_SIZE,
            limits=limits(env),
            pending_invites=_count(env, PENDING_INVITES_ENV) or PENDING_INVITES,
            presence_seconds=presence,
            away_seconds=seconds(env, AWAY_ENV, AWAY_SECONDS, MIN_AWAY_SECONDS),
            timing=Timing(idle_seconds=seconds(env, IDLE_ENV, IDLE_SECONDS),
                          abandon_seconds=seconds(env, ABANDON_ENV, ABANDON_SECONDS),
                          clock_tolerance=seconds(env, CLOCK_ENV, CLOCK_TOLERANCE)),
            header_seconds=header, body_seconds=body,
            hello_seconds=seconds(env, HELLO_ENV, HELLO_SECONDS, MIN_REQUEST_SECONDS),
            metrics=switch(env, METRICS_ENV), lean=switch(env, LEAN_ENV))


def seconds(environ: Mapping[str, str], name: str, default: float,
            least: float = 0.0) -> float:
    """Seconds (``least`` to a day) from the variable ``name`` of ``environ``,
    else ``default``; ``ValueError`` naming the variable for anything else."""
    text = environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not least <= value <= MAX_SECONDS:
        raise ValueError(f"{name}: expected seconds from {least:g} to {MAX_SECONDS:g}, "
                         f"found {text[:40]!r}")
    return value


def switch(environ: Mapping[str, str], name: str, default: bool = True) -> bool:
    """``on`` or ``off`` (also ``1``/``0``, ``true``/``false``, ``yes``/``no``)
    from the variable ``name`` of ``environ``, else ``default``; ``ValueError``
    naming the variable for anything else."""
    text = environ.get(name, "").strip().lower()
    if not text:
        return default
    if text in ("on", "1", "true", "yes"):
        return True
    if text in ("off", "0", "false", "no"):
        return False
    raise ValueError(f"{name}: expected on or off, found {text[:40]!r}")


def request_deadlines(environ: Mapping[str, str]) -> tuple[float, float]:
    """The seconds a request has for its headers, then for its body
    (:data:`HEADER_ENV`, :data:`BODY_ENV`; ``ValueError`` naming a bad one)."""
    return (seconds(environ, HEADER_ENV, HEADER_SECONDS, MIN_REQUEST_SECONDS),
            seconds(environ, BODY_ENV, BODY_SECONDS, MIN_REQUEST_SECONDS))


def limits(environ: Mapping[str, str]) -> dict[str, int]:
    """The counts per minute: :data:`LIMITS` with those of :data:`LIMITS_ENV`
    (``name=count`` pairs separated by commas); ``ValueError`` naming a bad one."""
    counts = dict(LIMITS)
    text = environ.get(LIMITS_ENV, "").strip()
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, value = part.partition("=")
        name = name.strip()
        count = _whole(value)
        if name not in counts or count is None or not 1 <= count <= 1_000_000:
            raise ValueError(f"{LIMITS_ENV}: {part[:40]!r}: expected NAME=COUNT (1 to "
                             f"1000000) with NAME one of {', '.join(LIMITS)}")
        counts[name] = count
    return counts


def _count(environ: Mapping[str, str], name: str) -> int | None:
    text = environ.get(name, "").strip()
    if not text:
        return None
    count = _whole(text)
    if count is None or not 1 <= count <= 256:
        raise ValueError(f"{name}: expected a whole number from 1 to 256, found {text[:40]!r}")
    return count


def _whole(text: str) -> int | None:
    """The whole number ``text`` writes in at most 12 ASCII digits, else ``None``
    (``str.isdigit`` also takes ``²``, which ``int`` refuses, and ``int`` refuses
    more than 4,300 digits)."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


FORWARDED_ENV = "FORWARDED_ALLOW_IPS"
"""uvicorn's own variable for the proxies it believes, read when
``--forwarded-allow-ips`` is not given."""
DEFAULT_FORWARDED_ALLOW_IPS = "127.0.0.1,::1"
"""uvicorn's default when neither the option nor :data:`FORWARDED_ENV` is set: a
proxy on this machine's loopback address."""


def forwarded_allow_ips(value: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The proxies whose ``X-Forwarded-For`` and ``X-Forwarded-Proto`` headers the
    server believes, checked: ``value`` (``--forwarded-allow-ips``), else the
    :data:`FORWARDED_ENV` variable of ``environ`` (default: this process's), else
    :data:`DEFAULT_FORWARDED_ALLOW_IPS`. A comma-separated list of IP addresses and
    networks (``10.0.0.0/8``, ``fd00::/8``), or ``*`` alone (every peer: only where
    nothing but the proxy can reach the server); an empty list believes no one.
    Returned as uvicorn takes it, entries separated by commas. A peer not listed
    is counted by its own address whatever headers it sends.

    Raises :class:`ValueError` naming the entry that is not an address or network
    (uvicorn itself would keep it as a name that no peer matches, and never
    believe that proxy)."""
    source = "--forwarded-allow-ips"
    if value is None:
        environ = os.environ if environ is None else environ
        value, source = environ.get(FORWARDED_ENV), FORWARDED_ENV
        if value is None:
            return DEFAULT_FORWARDED_ALLOW_IPS
    if not value.strip():
        return ""
    entries = [entry.strip() for entry in value.split(",")]
    if "*" in entries:
        if len(entries) > 1:
            raise ValueError(f"{source}: '*' (every peer) stands alone, not in a list: "
                             f"{value!r}")
        return "*"
    for entry in entries:
        if not entry:
            raise ValueError(f"{source}: an empty entry in {value!r}")
        try:
            if "/" in entry:
                ipaddress.ip_network(entry)
            else:
                ipaddress.ip_address(entry)
        except ValueError as exc:
            if "/" not in entry:
                named = any(c.isalpha() for c in entry) and ":" not in entry
                hint = " (a name is never matched: give the proxy's address)" if named else ""
                raise ValueError(f"{source}: {entry!r} is not an IP address{hint}") from None
            hint = " (ADDRESS/PREFIX)"
            if "host bits set" in str(exc):
                hint = f" (its host bits are set: {ipaddress.ip_network(entry, strict=False)}?)"
            raise ValueError(f"{source}: {entry!r} is not a network{hint}") from None
    return ",".join(entries)
