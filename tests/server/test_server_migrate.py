"""Migrations that say what they did: ``db.migrate`` returns the revisions before
and after; ``blockyard serve-db upgrade`` prints them (from none on a new
database, from an older revision on an old one, "already at" on an up-to-date
one), backs up first with ``--backup``, and refuses a revision it does not know;
``blockyard serve-db status`` compares the revision with the newest. An existing
file's mode is left as it is, with a note when others may read it."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
import sqlalchemy as sa
from server_support import Postgres, old_database

from blockyard.cli import main
from blockyard.server import db

HEAD = db.head_revision()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["serve-db", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_migrate_returns_the_revisions_before_and_after(database: str) -> None:
    # the fixture migrated it: nothing more to do, on SQLite and PostgreSQL
    again = db.migrate(database)
    assert again == db.Migrated(HEAD, HEAD)
    assert not again.changed
    assert again.text() == f"already at {HEAD}, the newest revision"


def test_migrate_on_an_empty_postgresql_database_says_from_none(postgres: Postgres) -> None:
    done = db.migrate(postgres.new_database())
    assert done == db.Migrated(None, HEAD)
    assert done.changed
    assert done.text() == f"migrated from none (an empty database) to {HEAD}"


def test_upgrade_of_a_new_file_creates_it_from_none_to_the_newest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "data" / "server.sqlite3"
    url = f"sqlite:///{path}"
    status, out, err = run(capsys, "upgrade", "--database", url)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{url}: empty; migrations to apply:"
    assert [line.split()[0] for line in lines[1:-1]] == \
        [revision for revision, _ in db.pending_revisions(None)]
    assert lines[1].startswith("  0001  Accounts, sessions and verified games.")
    assert lines[-1] == f"{url}: migrated from none (an empty database) to {HEAD}"
    assert "backup" not in out  # nothing there to lose
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    status, out, err = run(capsys, "upgrade", "--database", url)
    assert (status, out, err) == (0, f"{url}: already at {HEAD}, the newest revision\n", "")
    status, out, err = run(capsys, "status", "--database", url)
    assert (status, out, err) == (0, f"database: {url}\nrevision: {HEAD}, the newest\n", "")


def test_upgrade_of_an_old_database_says_from_which_revision_to_which(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, engine = old_database(tmp_path, "0005")
    engine.dispose()
    status, out, err = run(capsys, "status", "--database", url)
    later = [revision for revision, _ in db.pending_revisions("0005")]
    assert later[0] == "0006" and later[-1] == HEAD
    assert (status, err) == (1, "")
    assert out == (f"database: {url}\nrevision: 0005; newest: {HEAD}: {len(later)} "
                   "migrations to apply (blockyard serve-db upgrade, or the next start of "
                   "blockyard serve)\n")
    status, out, err = run(capsys, "status", "--database", url, "--json")
    assert (status, err) == (1, "")
    assert json.loads(out) == {"database": url, "revision": "0005", "newest": HEAD,
                               "pending": later, "note": None}
    status, out, err = run(capsys, "upgrade", "--database", url)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{url}: at revision 0005; migrations to apply:"
    assert [line.split()[0] for line in lines[1:1 + len(later)]] == later
    assert lines[1 + len(later):] == [
        "no backup taken first: --backup FILE takes one before migrating",
        f"{url}: migrated from 0005 to {HEAD}"]
    assert run(capsys, "status", "--database", url)[0] == 0
    status, out, _ = run(capsys, "status", "--database", url, "--json")
    assert status == 0 and json.loads(out)["pending"] == []


def test_upgrade_with_backup_copies_the_database_as_it_was_before(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url, engine = old_database(tmp_path, "0006")
    engine.dispose()
    copy = tmp_path / "before-upgrade.sqlite3"
    status, out, err = run(capsys, "upgrade", "--database", url, "--backup", str(copy))
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == (f"backed up {tmp_path / 'old.sqlite3'} to {copy} "
                                   "(revision 0006, 0 accounts)")
    assert "no backup taken" not in out
    assert out.splitlines()[-1] == f"{url}: migrated from 0006 to {HEAD}"
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    with sqlite3.connect(copy) as kept:
        assert kept.execute("SELECT version_num FROM alembic_version").fetchone() == ("0006",)
    # a backup that cannot be made stops the upgrade before it migrates
    (tmp_path / "again").mkdir()
    url, engine = old_database(tmp_path / "again", "0006")
    engine.dispose()
    status, out, err = run(capsys, "upgrade", "--database", url, "--backup", str(copy))
    assert (status, out) == (2, "")
    assert err == (f"blockyard serve-db upgrade: --backup: {copy} exists: give --force to "
                   "replace it\n")
    assert run(capsys, "status", "--database", url)[0] == 1  # still at 0006
    # a database not made yet: nothing to back up, said so, then made
    new = tmp_path / "new.sqlite3"
    status, out, err = run(capsys, "upgrade", "--database", f"sqlite:///{new}", "--backup",
                           str(tmp_path / "unused.sqlite3"))
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == f"--backup: no database file at {new} yet: nothing to back up"
    assert not (tmp_path / "unused.sqlite3").exists()


def test_upgrade_and_status_refuse_a_revision_they_do_not_know(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite:///{tmp_path / 'newer.sqlite3'}"
    db.migrate(url)
    engine = db.make_engine(url)
    try:
        with engine.begin() as conn:  # as a newer Blockyard would leave it
            conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    finally:
        engine.dispose()
    expected = (": the database is at revision '9999', which this Blockyard does not know "
                f"(its newest is {HEAD}): was it migrated by a newer Blockyard?\n")
    for action in ("upgrade", "status"):
        assert run(capsys, action, "--database", url) == \
            (2, "", f"blockyard serve-db {action}{expected}")
    with pytest.raises(ValueError, match="revision '9999'"):
        db.migrate(url)


def test_status_of_a_missing_file_says_so_and_creates_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "typo.sqlite3"
    assert run(capsys, "status", "--database", f"sqlite:///{path}") == (
        2, "", f"blockyard serve-db status: no database file at {path} (blockyard serve and "
               "blockyard serve-db upgrade create it)\n")
    assert not path.exists()
    assert run(capsys, "status", "--database", "sqlite://") == (
        2, "", "blockyard serve-db status: --database: an SQLite database needs a file "
               "(sqlite:///PATH)\n")


def test_an_unreachable_postgresql_is_reported_with_status_2(
        capsys: pytest.CaptureFixture[str]) -> None:
    from server_support import free_port

    url = f"postgresql://nobody@127.0.0.1:{free_port()}/nothing"
    for action in ("status", "upgrade"):
        status, out, err = run(capsys, action, "--database", url)
        assert (status, out) == (2, "")
        assert err.startswith(f"blockyard serve-db {action}: cannot open the database: "
                              "OperationalError: ")


def test_upgrade_backup_on_postgresql_points_to_pg_dump_and_migrates_nothing(
        postgres: Postgres, capsys: pytest.CaptureFixture[str]) -> None:
    url = postgres.new_database()
    status, out, err = run(capsys, "upgrade", "--database", url, "--backup", "x.dump")
    assert (status, out) == (2, "")
    assert err.startswith("blockyard serve-db upgrade: --backup: a PostgreSQL database is "
                          "backed up with PostgreSQL's own pg_dump")
    assert "    pg_dump --format=custom --file x.dump " in err
    assert run(capsys, "status", "--database", url)[0] == 1  # still empty


def test_an_existing_files_mode_is_left_alone_with_a_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "shared.sqlite3"
    sqlite3.connect(path).close()
    os.chmod(path, 0o640)  # the operator's choice: a group that may read it
    url = f"sqlite:///{path}"
    status, out, _ = run(capsys, "upgrade", "--database", url)
    assert status == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    note = (f"note: others than the owner may read {path} (0640) (password and token "
            f"hashes): chmod 600 {path}")
    assert out.splitlines()[-1] == note
    status, out, _ = run(capsys, "status", "--database", url)
    assert (status, out.splitlines()[-1]) == (0, note)
