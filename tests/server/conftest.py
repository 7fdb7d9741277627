"""Real servers for the server tests: ``blockyard serve`` as a subprocess on a
free loopback port, on an SQLite file and on a throwaway PostgreSQL that these
fixtures start themselves in a temporary folder (``initdb`` and ``pg_ctl`` from
the PATH or Debian's /usr/lib/postgresql/VERSION/bin; scripts/setup.sh installs
Debian's ``postgresql`` package when missing). Nothing relies on a database
server already running."""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from server_support import (
    Postgres,
    Server,
    engine_of,
    free_port,
    postgres_bin,
    start_server,
    two_processes,
)

POSTGRES_INFO = "postgres.json"  # tests/conftest.py stops the cluster it describes


def _start_postgres() -> dict[str, Any]:
    """Start a throwaway cluster; what stops it (tests/conftest.py, at the end of
    the run: ``stop_postgres``) and starts it again (``start``) as a dictionary."""
    initdb, pg_ctl = postgres_bin("initdb"), postgres_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.fail("PostgreSQL's initdb and pg_ctl are missing: run "
                    "`source scripts/setup.sh test` (it installs Debian's postgresql)")
    # directly in the temporary folder: PostgreSQL's own user must reach it
    folder = Path(tempfile.mkdtemp(prefix="blockyard-postgres-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root: as its own user
        runuser = shutil.which("runuser")
        if runuser is None:
            pytest.fail("running as root without runuser: cannot start PostgreSQL")
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("running as root without a 'postgres' user (Debian's postgresql "
                        "package makes it): cannot start PostgreSQL")
        as_user = [runuser, "-u", "postgres", "--"]
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    data, sockets = folder / "data", folder / "sockets"
    subprocess.run([*as_user, "mkdir", str(sockets)], check=True, timeout=30)
    subprocess.run([*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust",
                    "-E", "UTF8", "--no-sync"], check=True, capture_output=True,
                   timeout=120)
    for _attempt in range(5):  # a port the OS gave out may be taken again meanwhile
        port = free_port()
        options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c max_connections=300")
        start = [*as_user, pg_ctl, "-D", str(data), "-o", options, "-l",
                 str(folder / "log.txt"), "-w", "-t", "120", "start"]
        started = subprocess.run(start, capture_output=True, timeout=180)
        if started.returncode == 0:
            break
    else:
        log = (folder / "log.txt").read_text(errors="replace")[-2000:]
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"PostgreSQL did not start: {log}")
    return {"folder": str(folder), "port": port, "as_user": as_user, "start": start,
            "stop": [*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"]}


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Postgres:
    """The run's one PostgreSQL cluster: started by the first worker that needs it
    (under a lock in the run's temporary folder, which the parallel workers share),
    stopped when the run ends (tests/conftest.py)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the workers' folders are in the run's
    with open(shared / "postgres.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        info_path = shared / POSTGRES_INFO
        if info_path.exists():
            info = json.loads(info_path.read_text())
        else:
            info = _start_postgres()
            info_path.write_text(json.dumps(info))
    return Postgres(Path(info["folder"]), int(info["port"]), list(info["as_user"]))


@pytest.fixture
def own_postgres() -> Iterator[dict[str, Any]]:
    """A PostgreSQL cluster of this test's own, to stop and start again (its
    ``url``, ``stop`` and ``start`` commands), removed afterwards."""
    info = _start_postgres()
    info["url"] = f"postgresql://postgres@127.0.0.1:{info['port']}/postgres"
    try:
        yield info
    finally:
        subprocess.run(info["stop"], capture_output=True, timeout=60)
        shutil.rmtree(info["folder"], ignore_errors=True)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("serverhome")
    if request.param == "sqlite":
        database = f"sqlite:///{home / 'server.sqlite3'}"
    else:
        database = request.getfixturevalue("postgres").new_database()
    # the password hash at its real cost where the module says signing in is its matter
    running = start_server(database, home,
                           real_hashing=getattr(request.module, "REAL_HASHING", False))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated, empty store: an SQLite file, then a new database on the run's
    PostgreSQL cluster (each test that asks for it runs on both)."""
    from blockyard.server import db

    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres").new_database()
    db.migrate(url)
    return url


@pytest.fixture
def engine(database: str) -> Iterator[sa.Engine]:
    """An engine on :func:`database` (SQLite, then PostgreSQL)."""
    with engine_of(database) as made:
        yield made


@pytest.fixture
def cheap_passwords(monkeypatch: pytest.MonkeyPatch) -> None:
    """Accounts made in this process hash their passwords with argon2 at its
    smallest cost (still a real hash, verified as any other): for the store tests
    that make dozens of accounts to test something else (a sign-in's cost is the
    server tests' matter, at the real cost)."""
    from argon2 import PasswordHasher

    from blockyard.server import accounts

    monkeypatch.setattr(accounts, "_HASHER",
                        PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


@pytest.fixture
def two_servers(postgres: Postgres, tmp_path_factory: pytest.TempPathFactory
                ) -> Iterator[tuple[Server, Server]]:
    """Two server processes on one new PostgreSQL database."""
    with two_processes(postgres.new_database(), tmp_path_factory.mktemp("two")) as pair:
        yield pair
