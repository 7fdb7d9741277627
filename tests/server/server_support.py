"""Helpers of the server tests (fixtures in conftest.py): a ``blockyard serve``
subprocess on a free loopback port, a throwaway PostgreSQL, finished games."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa

import blockyard
from blockyard.online import tls_context

START_SECONDS = 180.0
"""A bound on a server's start (a deadline on the condition, never a measured time):
a start costs about 1.5 s of CPU, and a loaded machine may give a test's session a
few percent of a core (with ``--workers 2`` three processes start)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@dataclass
class Postgres:
    """A throwaway PostgreSQL cluster in a temporary folder, one for the whole run:
    each parallel worker makes its own databases in it (named after the worker)."""

    folder: Path
    port: int
    as_user: list[str]
    databases: int = 0

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def new_database(self) -> str:
        import psycopg

        self.databases += 1
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        name = f"blockyard_{worker}_{self.databases}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")  # a name made here, not input
        return self.url(name)


@dataclass
class Server:
    """A running ``blockyard serve`` process."""

    url: str
    database: str
    process: subprocess.Popen[bytes]
    log: Path
    home: Path
    client: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        # the process's one TLS context: reading the authorities for a client of
        # its own costs tens of milliseconds of CPU per server started
        self.client = httpx.Client(base_url=self.url, timeout=60, verify=tls_context())

    def account(self, prefix: str = "p") -> tuple[str, str]:
        """A new account's name and a session token."""
        name = f"{prefix}{uuid.uuid4().hex[:10]}"
        password = "correct horse"
        assert self.client.post("/api/accounts", json={"name": name,
                                                       "password": password}).status_code == 201
        answer = self.client.post("/api/sessions", json={"name": name, "password": password})
        assert answer.status_code == 200, answer.text
        return name, answer.json()["token"]

    def stop(self) -> None:
        self.client.close()
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)


CHEAP_HASHING = Path(__file__).with_name("serve_with_cheap_hashing.py")


def start_server(database: str, home: Path, *extra: str,
                 env: dict[str, str] | None = None, real_hashing: bool = False) -> Server:
    """A ``blockyard serve`` on ``database``, once it answers ``/api/health``: on a
    port the OS gave out as free (asked again if another process took it meanwhile,
    a parallel worker's server say). Its password hashes are argon2 at its smallest
    cost (serve_with_cheap_hashing.py) unless ``real_hashing``."""
    for _attempt in range(5):
        server = _start_server_once(database, home, extra, env, real_hashing)
        if server is not None:
            return server
    raise AssertionError("no free port for the server after 5 attempts")


def _start_server_once(database: str, home: Path, extra: tuple[str, ...],
                       env: dict[str, str] | None, real_hashing: bool) -> Server | None:
    port = free_port()
    log = home / f"server-{port}.log"
    environment = {**os.environ, "BLOCKYARD_HOME": str(home),
                   "BLOCKYARD_SERVER_LIMITS": "create=1000,sign_in_address=1000",
                   "BLOCKYARD_SERVER_VERIFIERS": "1", **(env or {})}
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [sys.executable, *(["-m", "blockyard"] if real_hashing else [str(CHEAP_HASHING)]),
             "serve", "--port", str(port),
             "--database", database, *extra], stdout=out, stderr=subprocess.STDOUT,
            env=environment)
    server = Server(f"http://127.0.0.1:{port}", database, process, log, home)
    deadline = time.monotonic() + START_SECONDS
    while True:
        if process.poll() is not None:
            server.stop()
            said = log.read_text(errors="replace")
            if "address already in use" in said.lower():
                return None
            raise AssertionError(f"the server stopped: {said[-2000:]}")
        # asked only once this process says it listens on the port (uvicorn's line):
        # never another process's server that got the same port
        bound = f"running on http://127.0.0.1:{port} " in log.read_text(errors="replace")
        try:
            if bound and server.client.get("/api/health", timeout=2).status_code == 200:
                return server
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise AssertionError(f"the server did not start: {log.read_text()[-2000:]}")
        time.sleep(0.1)  # polling interval of the wait above (bounded by its deadline)


@contextmanager
def engine_of(url: str) -> Iterator[sa.Engine]:
    """An engine on the store at ``url``, disposed of afterwards."""
    from blockyard.server import db

    made = db.make_engine(url)
    try:
        yield made
    finally:
        made.dispose()


@contextmanager
def two_processes(database: str, home: Path, env: dict[str, str] | None = None
                  ) -> Iterator[tuple[Server, Server]]:
    """Two ``blockyard serve`` processes on one (PostgreSQL) database, as a
    scaled-out server runs (the first migrates it), stopped afterwards."""
    first = start_server(database, home, env=env)
    try:
        second = start_server(database, home, env=env)
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


MINE = ('[ruleset]\nextends = "eu-classic"\nid = "mine"\nname = "Mine"\n'
        "[plugins.line-scoring]\nperfect_clear = {points}\n")
"""The rule file ``mine``: eu-classic with a perfect clear paying ``points``."""


def write_mine(home: Path, points: int) -> Path:
    """The rule file ``mine`` in the config folder of the BLOCKYARD_HOME ``home``."""
    folder = home / "config" / "rulesets"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "mine.toml"
    path.write_text(MINE.format(points=points), encoding="utf-8")
    return path


def serve_with_plugin(home: Path, site: Path, perfect_clear: int = 2000) -> Server:
    """A server on an SQLite file in ``home`` with the plugin distribution
    installed in the folder ``site`` (the conftest's ``quad_mono_site``) and the
    rule file ``mine`` paying ``perfect_clear``."""
    write_mine(home, perfect_clear)
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    return start_server(f"sqlite:///{home / 'server.sqlite3'}", home,
                        env={"PYTHONPATH": path})


def finished_game(ruleset: str, seed: int | None = 3, moves: int = 6, **kwargs: Any
                  ) -> blockyard.Game:
    """A game played ``moves`` placements (the first legal one each time), then
    ended: a finished game with a real score."""
    game = blockyard.new_game(ruleset, seed=seed, **kwargs)
    for _ in range(moves):
        if game.over:
            break
        if game.kind == "tray":
            game.place(*game.legal_moves()[0])
        else:
            game.hard_drop()
    if not game.over:
        game.end_round()
    assert game.over
    return game


def hang_for_player_hang(data: Any, player: str) -> Any:
    """A verifying process's check (``Verifier(check=…)``) that never ends for the
    player ``"hang"`` (a plugin hook stuck in a loop, say) and verifies the rest."""
    from blockyard.server import verify

    if player == "hang":
        import threading

        threading.Event().wait()  # never set: this check only ends when its process does
    try:
        return verify.verify_replay(data, player)
    except verify.Refused as exc:
        return str(exc)


def old_database(tmp_path: Path, revision: str, url: str | None = None) -> tuple[str, Any]:
    """A database migrated only up to ``revision`` (as an older server left it):
    its URL and an engine on it (to be disposed of). ``url``: an empty database
    (default: an SQLite file in ``tmp_path``)."""
    from alembic import command
    from alembic.config import Config

    from blockyard.server import db

    url = url or f"sqlite:///{tmp_path / 'old.sqlite3'}"
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    engine = db.make_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
    return url, engine


@dataclass
class LocalServer:
    """A server in this process (uvicorn in a thread, on a free loopback port)
    deciding by a clock the test holds (a :class:`~blockyard.server.clock.FakeClock`):
    the rules of time tested through the real routes and sockets, the clock moved
    by the test. ``run(coroutine)`` runs a coroutine on the server's event loop
    (a sweep, say) and returns its result."""

    url: str
    database: str
    clock: Any
    app: Any
    loop: Any
    client: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx.Client(base_url=self.url, timeout=60)

    account = Server.account

    @property
    def hub(self) -> Any:
        return self.app.state.hub

    def run(self, coroutine: Any) -> Any:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=60)

    def wait_gone(self, table_id: int, left: int = 0) -> None:
        """Wait (with a deadline) until the server holds no connection to the table
        but ``left`` (a socket the test closed is closed for the server too: its
        away time counts from the fake clock's time at that moment)."""
        deadline = time.monotonic() + 60
        while len(self.hub.room.at(table_id)) > left:
            assert time.monotonic() < deadline, "the server still holds a connection"
            time.sleep(0.02)  # polling interval of the wait above (bounded by its deadline)


@contextmanager
def local_server(database: str, clock: Any) -> Iterator[LocalServer]:
    """A :class:`LocalServer` on the migrated ``database``, stopped afterwards (the
    environment as the test set it: the server reads its timeouts on start). Its
    accounts hash their passwords with argon2 at its smallest cost, as the
    subprocess servers' do (serve_with_cheap_hashing.py): these tests' matter is
    time and tables, not the hash."""
    from argon2 import PasswordHasher

    from blockyard.server import accounts
    from blockyard.server.app import create_app

    real_hasher = accounts._HASHER
    accounts._HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    try:
        yield from _local_server(database, clock, create_app)
    finally:
        accounts._HASHER = real_hasher


def _local_server(database: str, clock: Any, create_app: Any) -> Iterator[LocalServer]:
    import asyncio
    import threading

    import uvicorn

    from blockyard.server.speedups import LeanWebSocketProtocol

    app = create_app(database, verifiers=1, clock=clock)
    started: dict[str, Any] = {}

    class Uvicorn(uvicorn.Server):
        async def serve(self, sockets: Any = None) -> None:
            started["loop"] = asyncio.get_running_loop()
            await super().serve(sockets)

    for _attempt in range(5):
        port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=port, ws=LeanWebSocketProtocol,
                                log_level="warning", timeout_graceful_shutdown=5)
        runner = Uvicorn(config)
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        deadline = time.monotonic() + START_SECONDS
        while not runner.started and thread.is_alive():
            assert time.monotonic() < deadline, "the in-process server did not start"
            time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
        if runner.started:
            break
        thread.join(timeout=20)  # the port was taken meanwhile: another one
    else:
        raise AssertionError("no free port for the in-process server after 5 attempts")
    server = LocalServer(f"http://127.0.0.1:{port}", database, clock, app, started["loop"])
    try:
        yield server
    finally:
        server.client.close()
        runner.should_exit = True
        thread.join(timeout=30)


class Transport:
    """A transport that keeps what is written and which protocol it was handed to
    (the connection's bytes come from the test): a uvicorn protocol driven in
    process."""

    def __init__(self) -> None:
        self.protocol: object = None
        self.written = b""
        self.closed = False

    def get_extra_info(self, name: str, default: object = None) -> object:
        return {"sockname": ("127.0.0.1", 8765), "peername": ("127.0.0.1", 50000)
                }.get(name, default)

    def set_protocol(self, protocol: object) -> None:
        self.protocol = protocol

    def write(self, data: bytes) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass
