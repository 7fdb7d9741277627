"""``blockyard serve``: accounts, leaderboards verified by replay, live tables.

Needs the ``server`` extra (``pip install blockyard[server]``): FastAPI served by
uvicorn, SQLAlchemy 2 with Alembic migrations (shipped in
``blockyard.server.migrations`` and run on start), psycopg 3 for PostgreSQL and
argon2-cffi for password hashes. Modules by concern: :mod:`.app` (the
application), :mod:`.routes` (a router per concern), :mod:`.state` (what a
process holds, and the routes' ``Depends``), :mod:`.settings` (every flag and
environment variable), :mod:`.web` (errors, bodies, ids, tokens),
:mod:`.sockets` (what the live channels share), :mod:`.db` (tables, engine,
migrations), :mod:`.accounts`, :mod:`.verify` (the replay check in worker
processes), :mod:`.games` (stored games, leaderboards), :mod:`.tables` (live
tables: the hub), :mod:`.referee` (a table's rules, pure), :mod:`.social`
(players online, invitations), :mod:`.limits` (rate limits),
:mod:`.maintenance` (``blockyard serve-db``: backups, upgrades), :mod:`.speedups`
(the speed-ups around uvicorn and Starlette, behind one setting).
"""

from __future__ import annotations

import contextlib
import logging
import logging.config
import os
import sys
import tempfile
from collections.abc import Iterator

from ..version import __version__

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765

WORKER_HEALTHCHECK_SECONDS = 30
"""With several server processes, how long one may take to answer its supervisor's
ping (uvicorn's ``timeout_worker_healthcheck``; its own default, 5 s, is shorter
than a process's start on a busy 2-core machine: the supervisor then killed and
replaced children that were only starting)."""
SERVE_DEFAULTS: dict[str, object] = {
    "host": DEFAULT_HOST, "port": DEFAULT_PORT, "workers": 1,
    "worker_healthcheck_seconds": WORKER_HEALTHCHECK_SECONDS, "log_level": "info",
    "log_format": "text", "access_log": True, "metrics": True}
"""What ``blockyard serve`` takes for a flag that neither the command line nor the
configuration file (:mod:`.config`) gives."""

log = logging.getLogger("blockyard.server")


def serve(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, database: str | None = None,
          workers: int = 1, *, log_level: str = "info", log_format: str = "text",
          access_log: bool = True, metrics: bool = True,
          trusted_proxies: str | None = None,
          worker_healthcheck_seconds: int = WORKER_HEALTHCHECK_SECONDS) -> int:
    """Migrate the database and serve until stopped; the exit status. The log:
    ``log_level`` and ``log_format`` (:mod:`blockyard.server.logs`), uvicorn's
    line per request unless not ``access_log``; ``GET /metrics`` unless not
    ``metrics``. ``trusted_proxies``: the addresses whose ``X-Forwarded-For`` is
    believed (``--forwarded-allow-ips``; :func:`.settings.forwarded_allow_ips`, whose
    default is uvicorn's). ``worker_healthcheck_seconds``: with ``workers`` above
    1, how long a process may take to answer its supervisor before it is replaced."""
    import uvicorn

    from . import db, logs
    from .settings import (
        DATABASE_ENV,
        METRICS_ENV,
        VERIFIERS_ENV,
        Settings,
        forwarded_allow_ips,
    )

    try:
        config = logs.log_config(log_level, log_format)
    except ValueError as exc:
        print(f"blockyard serve: {exc}", file=sys.stderr)
        return 2
    logging.config.dictConfig(config)

    url = database or db.default_url()
    try:
        sqlite = db.is_sqlite(url)
    except ValueError as exc:
        print(f"blockyard serve: {exc}", file=sys.stderr)
        return 2
    if not 1 <= workers <= 64:
        print("blockyard serve: --workers: expected 1 to 64", file=sys.stderr)
        return 2
    if sqlite and workers > 1:
        print("blockyard serve: --workers: an SQLite database is served by one process; "
              "use PostgreSQL (--database postgresql://…) for more", file=sys.stderr)
        return 2
    if not 0 <= port <= 65535:
        print("blockyard serve: --port: expected 0 to 65535", file=sys.stderr)
        return 2
    if not 1 <= worker_healthcheck_seconds <= 3600:
        print("blockyard serve: --worker-healthcheck-seconds: expected 1 to 3600",
              file=sys.stderr)
        return 2
    try:
        proxies = forwarded_allow_ips(trusted_proxies)
    except ValueError as exc:
        print(f"blockyard serve: {exc}", file=sys.stderr)
        return 2
    from .speedups import uvicorn_options

    try:  # every setting checked before anything starts
        lean = Settings.from_env(database=url).lean
    except ValueError as exc:
        print(f"blockyard serve: {exc}", file=sys.stderr)
        return 2
    taken = _address_taken(host, port)
    if taken is not None:  # before the database is made or migrated
        print(f"blockyard serve: cannot listen on {host}:{port}: {taken}", file=sys.stderr)
        return 3
    log.info("Blockyard %s: database %s", __version__, db.shown_url(url))
    try:
        migrated = db.migrate(url)
    except Exception as exc:  # the database's own message: unreachable, refused, …
        print(f"blockyard serve: cannot open the database: {type(exc).__name__}: "
              f"{str(exc).splitlines()[0] if str(exc) else ''}"[:400], file=sys.stderr)
        return 2
    log.info("database schema %s", migrated.text())
    os.environ[DATABASE_ENV] = url
    os.environ[METRICS_ENV] = "on" if metrics else "off"
    os.environ.setdefault(VERIFIERS_ENV, str(max(1, (os.cpu_count() or 1) // workers)))
    log.info("%d server process%s, each with %s verifying process%s; /metrics %s; "
             "listening on http://%s:%d", workers, "" if workers == 1 else "es",
             os.environ[VERIFIERS_ENV], "" if os.environ[VERIFIERS_ENV] == "1" else "es",
             "on" if metrics else "off", host, port)
    log.info("X-Forwarded-For believed from %s", proxies or "no one")
    with _metrics_folder(workers):
        uvicorn.run("blockyard.server.app:create_app_from_env", factory=True, host=host,
                    port=port, workers=workers if workers > 1 else None,
                    log_config=config, log_level=log_level, access_log=access_log,
                    # the speed-ups and the connection tuning, on or off by
                    # one setting (blockyard.server.speedups)
                    **uvicorn_options(lean),
                    timeout_graceful_shutdown=5,
                    timeout_worker_healthcheck=worker_healthcheck_seconds,
                    # the client's address (the rate limits' key) from the proxy's
                    # X-Forwarded-For only when its peer is one of these
                    proxy_headers=bool(proxies), forwarded_allow_ips=proxies)
    return 0


def _address_taken(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host``:``port`` (its address in use, or
    not one of this machine's), found by binding to it as uvicorn will and letting
    go at once; ``None`` when it can. Port 0 (any free port) is always free."""
    import errno
    import socket

    if port == 0:
        return None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind((host, port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return "address already in use (another server? choose another --port)"
            return exc.strerror or str(exc)
    return None


@contextlib.contextmanager
def _metrics_folder(workers: int) -> Iterator[None]:
    """With several server processes, a folder for their figures
    (prometheus-client's multiprocess mode, :mod:`blockyard.server.metrics`),
    removed when they stop."""
    from .metrics import MULTIPROC_ENV

    if workers == 1:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="blockyard-metrics-") as folder:
        os.environ[MULTIPROC_ENV] = folder
        try:
            yield
        finally:
            del os.environ[MULTIPROC_ENV]
