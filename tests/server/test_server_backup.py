"""``blockyard serve-db backup``: a consistent copy of a running server's SQLite
database (the account created last included, which a plain copy of a file in WAL
mode can miss), mode 0600, written atomically; bad input refused with status 2
and a line naming the problem; PostgreSQL pointed to ``pg_dump``, whose printed
lines back up and restore. And the server's own files: a database it creates is
0600 (its ``-wal`` and ``-shm`` too), in a folder of mode 0700."""

from __future__ import annotations

import os
import shlex
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from server_support import Postgres, Server, postgres_bin, start_server

from blockyard.cli import main
from blockyard.server import db


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def serve_db(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    """``blockyard serve-db ARGS`` as an operator runs it: another process."""
    return subprocess.run([sys.executable, "-m", "blockyard", "serve-db", *args],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "BLOCKYARD_HOME": str(home)})


@pytest.fixture(scope="module")
def sqlite_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server on an SQLite file it creates itself, in a folder it creates too,
    under the usual umask 022 (which would give 0644 files and 0755 folders)."""
    home = tmp_path_factory.mktemp("backuphome")
    old = os.umask(0o022)
    try:
        running = start_server(f"sqlite:///{home / 'data' / 'server.sqlite3'}", home)
    finally:
        os.umask(old)
    try:
        yield running
    finally:
        running.stop()


def test_the_database_the_server_creates_is_its_owners_only(sqlite_server: Server) -> None:
    folder = sqlite_server.home / "data"
    sqlite_server.account()  # something written: the -wal file holds it
    files = {path.name: mode_of(path) for path in folder.iterdir()
             if path.name.startswith("server.sqlite3")}
    assert files == {"server.sqlite3": 0o600, "server.sqlite3-wal": 0o600,
                     "server.sqlite3-shm": 0o600}
    assert mode_of(folder) == 0o700


def test_a_backup_of_the_running_server_holds_the_account_created_last(
        sqlite_server: Server, tmp_path: Path) -> None:
    first, _ = sqlite_server.account("first")
    last, token = sqlite_server.account("last")
    target = tmp_path / "backup.sqlite3"
    done = serve_db("backup", str(target), "--database", sqlite_server.database,
                    home=sqlite_server.home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"backed up {sqlite_server.home / 'data' / 'server.sqlite3'}"
                                  f" to {target} (revision {db.head_revision()}, ")
    assert mode_of(target) == 0o600
    # one self-contained file: no -wal beside it, and none made when it is read
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.sqlite3"]
    copy = sqlite3.connect(f"{target.as_uri()}?mode=ro", uri=True)
    try:
        names = {row[0] for row in copy.execute("SELECT name FROM accounts")}
        assert copy.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        copy.close()
    assert {first, last} <= names
    # the server went on as before
    assert sqlite_server.client.get("/api/me/invitations", headers={
        "Authorization": f"Bearer {token}"}).status_code == 200


def test_a_backup_is_served_again_as_the_database(sqlite_server: Server,
                                                  tmp_path: Path) -> None:
    name, _ = sqlite_server.account("kept")
    target = tmp_path / "restored.sqlite3"
    assert main(["serve-db", "backup", str(target), "--database",
                 sqlite_server.database]) == 0
    restored = start_server(f"sqlite:///{target}", tmp_path)
    try:
        answer = restored.client.post("/api/sessions", json={"name": name,
                                                             "password": "correct horse"})
        assert answer.status_code == 200, answer.text
    finally:
        restored.stop()


def test_force_replaces_an_existing_backup(sqlite_server: Server, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "backup.sqlite3"
    target.write_text("an older backup")
    os.chmod(target, 0o644)
    argv = ["serve-db", "backup", str(target), "--database", sqlite_server.database]
    assert main(argv) == 2
    assert capsys.readouterr().err == (f"blockyard serve-db backup: {target} exists: give "
                                       "--force to replace it\n")
    assert target.read_text() == "an older backup"
    assert main([*argv, "--force"]) == 0
    assert target.read_bytes().startswith(b"SQLite format 3\0")
    assert mode_of(target) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.sqlite3"]


def test_bad_backups_are_refused_with_status_2_naming_the_problem(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "server.sqlite3"
    url = f"sqlite:///{source}"
    prefix = "blockyard serve-db backup: "

    def refused(*argv: str) -> str:
        assert main(["serve-db", "backup", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.startswith(prefix)
        return captured.err.removeprefix(prefix).rstrip("\n")

    assert refused(str(tmp_path / "copy.sqlite3"), "--database", url) == \
        f"no database file at {source}"
    assert not source.exists()  # looked at, never created
    db.migrate(url)
    assert refused(str(tmp_path / "missing" / "copy.sqlite3"), "--database", url) == \
        f"{tmp_path / 'missing' / 'copy.sqlite3'}: the folder {tmp_path / 'missing'} does " \
        "not exist"
    assert refused(str(source), "--database", url) == \
        f"{source} is the database itself: give another file"
    other_name = tmp_path / "same.sqlite3"
    os.link(source, other_name)  # another name of the same file
    assert refused(str(other_name), "--database", url, "--force") == \
        f"{other_name} is the database itself: give another file"
    assert refused(str(tmp_path), "--database", url) == \
        f"{tmp_path} is a folder: give the backup's file name, e.g. " \
        f"{tmp_path / 'server-backup.sqlite3'}"
    assert refused("copy.sqlite3", "--database", "mysql://db/blockyard") == \
        "--database: expected sqlite:///FILE or postgresql://…, found 'mysql'"
    text = tmp_path / "notes.txt"
    text.write_text("not a database, but long enough to have a header " * 4)
    assert refused(str(tmp_path / "copy.sqlite3"), "--database", f"sqlite:///{text}") == \
        f"{text}: cannot back it up: file is not a database"
    # nothing left behind by the refusals
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "same.sqlite3",
                                                         "server.sqlite3"]


def test_the_default_database_is_the_one_serve_uses(
        isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db.migrate(db.default_url())
    assert main(["serve-db", "backup", str(tmp_path / "copy.sqlite3")]) == 0
    assert capsys.readouterr().out.startswith(
        f"backed up {isolated_home / 'data' / 'server.sqlite3'} to ")


def test_postgresql_is_pointed_to_pg_dump_whose_lines_back_up_and_restore(
        postgres: Postgres, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = postgres.new_database()
    db.migrate(url)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO accounts (name, name_key, password_hash, created) "
                     "VALUES ('ann', 'ann', 'x', now())")
    dump = tmp_path / "blockyard.dump"
    assert main(["serve-db", "backup", str(dump), "--database", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockyard serve-db backup: a PostgreSQL database is backed up "
                          "with PostgreSQL's own pg_dump")
    assert not dump.exists()
    commands = [shlex.split(line) for line in err.splitlines()
                if line.startswith(("    pg_dump ", "    pg_restore "))]
    assert [command[0] for command in commands] == ["pg_dump", "pg_restore"]
    dumped = subprocess.run([postgres_bin("pg_dump"), *commands[0][1:]],
                            capture_output=True, text=True, timeout=120)
    assert dumped.returncode == 0, dumped.stderr
    restored_url = postgres.new_database()
    # a new database beside the one given, never the one a server runs on
    suggested = url.replace("postgresql://postgres@", "postgresql://postgres@") + "_restored"
    assert suggested in commands[1] and url not in commands[1]
    restore = [restored_url if part == suggested else part for part in commands[1][1:]]
    assert restore != commands[1][1:]
    restored = subprocess.run([postgres_bin("pg_restore"), *restore],
                              capture_output=True, text=True, timeout=120)
    assert restored.returncode == 0, restored.stderr
    with psycopg.connect(restored_url) as conn:
        assert conn.execute("SELECT name FROM accounts").fetchall() == [("ann",)]


def test_a_postgresql_password_is_never_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve-db", "backup", "out.dump", "--database",
                 "postgresql://blockyard:s3cret@db.example.org:5433/blockyard"]) == 2
    err = capsys.readouterr().err
    assert "s3cret" not in err
    assert "    pg_dump --format=custom --file out.dump " \
           "postgresql://blockyard@db.example.org:5433/blockyard\n" in err
    assert "PGPASSWORD" in err
