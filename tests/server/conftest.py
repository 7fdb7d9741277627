"""Real servers for the server tests: ``blockyard serve`` as a subprocess on a
free loopback port, on an SQLite file and on a throwaway PostgreSQL that these
fixtures start themselves in a temporary folder (``initdb`` and ``pg_ctl`` from
the PATH or Debian's /usr/lib/postgresql/VERSION/bin; scripts/setup.sh installs
Debian's ``postgresql`` package when missing). Nothing relies on a database
server already running."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_support import Postgres, Server, free_port, postgres_bin, start_server


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
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
    port = free_port()
    options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off "
               "-c max_connections=200")
    subprocess.run([*as_user, pg_ctl, "-D", str(data), "-o", options, "-l",
                    str(folder / "log.txt"), "-w", "-t", "60", "start"], check=True,
                   capture_output=True, timeout=120)
    try:
        yield Postgres(folder, port, as_user)
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Server]:
    home = tmp_path_factory.mktemp("serverhome")
    if request.param == "sqlite":
        database = f"sqlite:///{home / 'server.sqlite3'}"
    else:
        database = request.getfixturevalue("postgres").new_database()
    running = start_server(database, home)
    try:
        yield running
    finally:
        running.stop()
