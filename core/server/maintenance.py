"""``blockyard serve-db``: the server's database looked after from the command line.

``backup FILE`` copies a live SQLite database consistently with SQLite's online
backup (a plain ``cp`` of a file in WAL mode can miss what is still in its
``-wal`` file: the account created a moment ago), to a temporary file in FILE's
folder that is renamed to FILE once complete, mode 0600. A PostgreSQL database
is backed up with PostgreSQL's own ``pg_dump``: the command says so and prints
the line to run rather than half-doing it. ``upgrade`` migrates and says from
which revision to which; ``status`` compares the database's revision with the
newest this Blockyard ships. Each prints what went wrong on one line and
returns 2 for bad input or an unreachable database.
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from ..files import fsync_folder, temporary_name
from . import db


@dataclass(frozen=True)
class Backup:
    """A finished backup: the database copied, the copy, and what the copy holds
    (its revision, None without Blockyard tables; its number of accounts)."""

    source: Path
    target: Path
    revision: str | None
    accounts: int

    def text(self) -> str:
        """One line for the operator."""
        revision = "no Blockyard tables" if self.revision is None else \
            f"revision {self.revision}"
        plural = "" if self.accounts == 1 else "s"
        return (f"backed up {self.source} to {self.target} ({revision}, {self.accounts} "
                f"account{plural})")


def shown_url(url: str) -> str:
    """``url`` as it may be printed: its password replaced by ``***``."""
    return sa.make_url(url).render_as_string(hide_password=True)


def sqlite_path(url: str) -> Path | None:
    """The file of an SQLite ``url``; None for PostgreSQL. ``ValueError`` for a
    URL that is neither (the message names ``--database``)."""
    target = db.engine_url(url)
    if target.drivername != "sqlite":
        return None
    assert target.database is not None
    return Path(target.database)


def pg_dump_advice(url: str, target: str) -> str:
    """How to back up the PostgreSQL database at ``url`` into ``target`` with
    ``pg_dump`` (and restore it), as lines to print; the password is never
    printed (pg_dump reads it from PGPASSWORD or ~/.pgpass)."""
    parsed = sa.make_url(url)
    plain = sa.URL.create("postgresql", username=parsed.username, host=parsed.host,
                          port=parsed.port, database=parsed.database, query=parsed.query)
    uri = plain.render_as_string(hide_password=False)
    fresh = plain.set(database=f"{parsed.database or 'blockyard'}_restored")
    fresh_uri = fresh.render_as_string(hide_password=False)
    lines = ["a PostgreSQL database is backed up with PostgreSQL's own pg_dump (while the "
             "server runs: it reads one consistent snapshot):",
             f"    pg_dump --format=custom --file {shlex.quote(target)} {shlex.quote(uri)}",
             "and restored into a new, empty database (made with createdb), never over "
             "the one a server runs on:",
             f"    pg_restore --no-owner --dbname {shlex.quote(fresh_uri)} "
             f"{shlex.quote(target)}"]
    if parsed.password is not None:
        lines.append("(the password is not shown: give it to pg_dump in PGPASSWORD or "
                     "~/.pgpass)")
    lines.append("(docs/online.md, \"The database: backups and upgrades\" and "
                 "\"PostgreSQL\")")
    return "\n".join(lines)


def _backup_problem(source: Path, target: Path, force: bool) -> str | None:
    """Why ``source`` cannot be backed up to ``target`` (None when it can)."""
    if not source.is_file():
        return f"no database file at {source}"
    if target.is_dir():
        return f"{target} is a folder: give the backup's file name, e.g. " \
               f"{target / 'server-backup.sqlite3'}"
    if not target.parent.is_dir():
        return f"{target}: the folder {target.parent} does not exist"
    if target.resolve() == source.resolve() or \
            (target.exists() and os.path.samefile(target, source)):
        return f"{target} is the database itself: give another file"
    if target.exists() and not force:
        return f"{target} exists: give --force to replace it"
    return None


def backup_sqlite(source: Path, target: Path, *, force: bool = False) -> Backup:
    """Copy the SQLite database ``source`` (a server may be writing to it) to
    ``target`` with SQLite's online backup: one consistent snapshot, including
    what is still in its ``-wal`` file. The copy is written to a temporary file
    of mode 0600 in ``target``'s folder, switched out of WAL mode (one
    self-contained file), flushed to disk and renamed to ``target``, so
    ``target`` is either absent, the old file or the whole copy. ``ValueError``
    naming the problem: no such database, a missing folder, ``target`` being a
    folder or the database itself, or existing (without ``force``); a file that
    is no SQLite database."""
    problem = _backup_problem(source, target, force)
    if problem:
        raise ValueError(problem)
    tmp = temporary_name(target)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, db.FILE_MODE))
    try:
        os.chmod(tmp, db.FILE_MODE)
        try:
            # mode=rw: a missing file is an error, never created
            live = sqlite3.connect(f"{source.resolve().as_uri()}?mode=rw", uri=True,
                                   timeout=30)
        except sqlite3.Error as exc:
            raise ValueError(f"{source}: cannot open it: {exc}") from None
        try:
            copy = sqlite3.connect(tmp)
            try:
                live.backup(copy)
                copy.execute("PRAGMA journal_mode=DELETE")
                revision, accounts = _contents(copy)
            finally:
                copy.close()
        except sqlite3.DatabaseError as exc:  # not a database, locked for 30 s, …
            raise ValueError(f"{source}: cannot back it up: {exc}") from None
        finally:
            live.close()
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    finally:
        for leftover in (tmp, *(tmp.with_name(tmp.name + end)
                                for end in ("-journal", "-wal", "-shm"))):
            leftover.unlink(missing_ok=True)
    fsync_folder(target.parent)
    return Backup(source, target, revision, accounts)


def _contents(copy: sqlite3.Connection) -> tuple[str | None, int]:
    """The revision and the number of accounts of a copied database."""
    names = {row[0] for row in copy.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    revision = None
    if "alembic_version" in names:
        row = copy.execute("SELECT version_num FROM alembic_version").fetchone()
        revision = None if row is None else str(row[0])
    accounts = 0
    if "accounts" in names:
        accounts = int(copy.execute("SELECT count(*) FROM accounts").fetchone()[0])
    return revision, accounts


def loose_files(path: Path) -> list[str]:
    """The SQLite file ``path`` and its ``-wal`` and ``-shm`` files that someone
    other than their owner may read or write, each with its mode (``"FILE
    (0644)"``)."""
    found = []
    for name in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            mode = stat.S_IMODE(name.stat().st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            found.append(f"{name} ({mode:04o})")
    return found


def _loose_note(path: Path | None) -> str | None:
    """A line telling the operator how to close the database files to others."""
    if path is None:
        return None
    loose = loose_files(path)
    if not loose:
        return None
    names = " ".join(shlex.quote(entry.rsplit(" (", 1)[0]) for entry in loose)
    return (f"note: others than the owner may read {', '.join(loose)} (password and "
            f"token hashes): chmod 600 {names}")


def _error(command: str, message: str) -> int:
    print(f"blockyard serve-db {command}: {message}", file=sys.stderr)
    return 2


def _database_error(command: str, exc: Exception) -> int:
    first = str(exc).splitlines()[0] if str(exc) else ""
    return _error(command, f"cannot open the database: {type(exc).__name__}: "
                           f"{first}"[:400])


def backup_command(database: str | None, file: Path, force: bool = False) -> int:
    """``blockyard serve-db backup FILE``: the exit status (2: refused, with the
    reason on stderr; for PostgreSQL, the ``pg_dump`` line to run instead)."""
    url = database or db.default_url()
    try:
        source = sqlite_path(url)
    except ValueError as exc:
        return _error("backup", str(exc))
    if source is None:
        return _error("backup", pg_dump_advice(url, str(file)))
    try:
        done = backup_sqlite(source, file, force=force)
    except (ValueError, OSError) as exc:
        return _error("backup", str(exc))
    print(done.text())
    return 0


def upgrade_command(database: str | None, backup: Path | None = None,
                    force: bool = False) -> int:
    """``blockyard serve-db upgrade``: back up first when ``backup`` is given
    (SQLite only), list the migrations to apply, migrate and say from which
    revision to which; the exit status (2: refused or the database unreachable)."""
    url = database or db.default_url()
    try:
        path = sqlite_path(url)
    except ValueError as exc:
        return _error("upgrade", str(exc))
    if backup is not None:
        if path is None:
            return _error("upgrade", "--backup: " + pg_dump_advice(url, str(backup)))
        if not path.is_file():
            print(f"--backup: no database file at {path} yet: nothing to back up")
        else:
            try:
                print(backup_sqlite(path, backup, force=force).text())
            except (ValueError, OSError) as exc:
                return _error("upgrade", f"--backup: {exc}")
    try:
        before = _revision(url)
        steps = db.pending_revisions(before)
    except ValueError as exc:
        return _error("upgrade", str(exc))
    except Exception as exc:  # the database's own message: unreachable, refused, …
        return _database_error("upgrade", exc)
    shown = shown_url(url)
    if steps:
        at = "empty" if before is None else f"at revision {before}"
        print(f"{shown}: {at}; migrations to apply:")
        for revision, summary in steps:
            print(f"  {revision}  {summary}")
        if before is not None and backup is None:
            print("no backup taken first: --backup FILE takes one before migrating"
                  if path is not None else
                  "no backup taken first: back up with pg_dump before migrating "
                  "(blockyard serve-db backup FILE prints the command)")
    try:
        migrated = db.migrate(url)
    except ValueError as exc:
        return _error("upgrade", str(exc))
    except Exception as exc:
        return _database_error("upgrade", exc)
    print(f"{shown}: {migrated.text()}")
    note = _loose_note(path)
    if note:
        print(note)
    return 0


def _revision(url: str) -> str | None:
    """The revision of the database at ``url`` (an SQLite file must exist)."""
    engine = db.make_engine(url)
    try:
        with engine.connect() as connection:
            return db.current_revision(connection)
    finally:
        engine.dispose()


def status_command(database: str | None, *, as_json: bool = False) -> int:
    """``blockyard serve-db status``: the database's revision beside the newest
    (``as_json``: one JSON document ``{"database", "revision", "newest", "pending",
    "note"}``); the exit status: 0 up to date, 1 migrations to apply, 2 no such
    SQLite file, an unreachable database or a revision this Blockyard does not
    know."""
    url = database or db.default_url()
    try:
        path = sqlite_path(url)
    except ValueError as exc:
        return _error("status", str(exc))
    if path is not None and not path.is_file():
        return _error("status", f"no database file at {path} (blockyard serve and "
                                "blockyard serve-db upgrade create it)")
    try:
        before = _revision(url)
        steps = db.pending_revisions(before)
    except ValueError as exc:
        return _error("status", str(exc))
    except Exception as exc:
        return _database_error("status", exc)
    head = db.head_revision()
    note = _loose_note(path)
    if as_json:
        print(json.dumps({"database": shown_url(url), "revision": before, "newest": head,
                          "pending": [revision for revision, _ in steps], "note": note}))
        return 0 if not steps else 1
    print(f"database: {shown_url(url)}")
    if not steps:
        print(f"revision: {before}, the newest")
    else:
        at = "none (an empty database)" if before is None else before
        plural = "" if len(steps) == 1 else "s"
        print(f"revision: {at}; newest: {head}: {len(steps)} migration{plural} to apply "
              "(blockyard serve-db upgrade, or the next start of blockyard serve)")
    if note:
        print(note)
    return 0 if not steps else 1
