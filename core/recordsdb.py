"""The records database file (:mod:`blockyard.records` answers from it): its
schema and the checks of every stored value, opening it (WAL, busy waits, a
corrupt file moved aside, a read-only folder opened read-only), finished games
kept in memory while it cannot be written, and importing an old
``records.toml``. :class:`RecordsFile` is the base of
:class:`~blockyard.records.RecordStore`."""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import sqlite3
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from . import paths
from .files import (
    read_toml_or_set_aside,
    remove_stray_temporaries,
    set_aside,
)

FILE_NAME = "records.db"
LEGACY_FILE_NAME = "records.toml"
SCHEMA_VERSION = 2
"""1: finished games and imported records; 2: adds ``table_results`` (online tables)."""
BUSY_TIMEOUT_SECONDS = 30.0
_SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    finished TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    record_group TEXT NOT NULL,
    record_kind TEXT NOT NULL,
    seed INTEGER NOT NULL,
    game_date TEXT,
    score INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    moves INTEGER NOT NULL,
    best_combo INTEGER NOT NULL,
    duration REAL,
    hints INTEGER NOT NULL DEFAULT 0,
    over_reason TEXT,
    replay TEXT,
    practice INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS games_by_ruleset ON games (ruleset, id);
CREATE INDEX IF NOT EXISTS games_by_group ON games (record_group, game_date);
CREATE TABLE IF NOT EXISTS imported_stats (
    ruleset TEXT PRIMARY KEY,
    games INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    best_combo INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS imported_best (
    record_group TEXT PRIMARY KEY,
    score INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS imported_daily (
    record_group TEXT NOT NULL,
    game_date TEXT NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (record_group, game_date)
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS table_results (
    id INTEGER PRIMARY KEY,
    finished TEXT NOT NULL,
    server TEXT NOT NULL,
    table_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    ruleset TEXT NOT NULL,
    seats TEXT NOT NULL,
    scores TEXT NOT NULL,
    winner INTEGER,
    seat INTEGER,
    UNIQUE (server, table_id, round)
);
"""
_TABLES_V1 = {"games", "imported_stats", "imported_best", "imported_daily", "meta"}
_TABLES = _TABLES_V1 | {"table_results"}
_TABLE_RESULT_COLUMNS = ("id", "finished", "server", "table_id", "round", "ruleset", "seats",
                         "scores", "winner", "seat")

_MAX = 10**15  # validate.MAX_COUNTER: the largest score, line or move count there can be


def _count(column: str) -> str:
    return f"(typeof({column}) = 'integer' AND {column} BETWEEN 0 AND {_MAX})"


def _text(column: str, limit: int, *, null: bool = False) -> str:
    test = f"(typeof({column}) = 'text' AND length({column}) BETWEEN 1 AND {limit})"
    return f"({column} IS NULL OR {test})" if null else test


# What a row must hold to be believed (what record() can write); the queries read
# these views, so a row with impossible values (score = 'lots', lines = 2**63 as a
# real, a negative move count) is skipped, not summed into a crash.
_GAME_CHECKS = (
    ("finished", _text("finished", 64)), ("ruleset", _text("ruleset", 64)),
    ("record_group", _text("record_group", 64)),
    ("record_kind", "record_kind IN ('best', 'per-date', 'none')"),
    ("seed", f"typeof(seed) = 'integer' AND seed BETWEEN {-(1 << 63)} AND {(1 << 63) - 1}"),
    ("game_date", "(game_date IS NULL OR (typeof(game_date) = 'text' AND "
                  "length(game_date) = 10))"),
    ("score", f"typeof(score) = 'integer' AND score BETWEEN {-_MAX} AND {_MAX}"),
    ("lines", _count("lines")), ("moves", _count("moves")),
    ("best_combo", _count("best_combo")), ("hints", _count("hints")),
    ("duration", "(duration IS NULL OR (typeof(duration) IN ('integer', 'real') AND "
                 f"duration BETWEEN 0 AND {_MAX}))"),
    ("over_reason", _text("over_reason", 64, null=True)),
    ("replay", _text("replay", 4096, null=True)),
    ("practice", "typeof(practice) = 'integer' AND practice IN (0, 1)"))
_SCORE_CHECK = f"typeof(score) = 'integer' AND score BETWEEN {-_MAX} AND {_MAX}"
# What a row must hold to be believed (what record() can write); the queries read
# views of the rows that pass, so a row with impossible values (score = 'lots',
# lines = 2**63 stored as a real, a negative move count) is skipped, not summed
# into a crash.
_VALID = {
    "games": " AND ".join(f"coalesce({check}, 0)" for _, check in _GAME_CHECKS),
    "imported_stats": " AND ".join([_text("ruleset", 64), _count("games"), _count("lines"),
                                    _count("best_combo")]),
    "imported_best": f"{_text('record_group', 64)} AND {_SCORE_CHECK}",
    "imported_daily": f"{_text('record_group', 64)} AND {_text('game_date', 10)} AND "
                      f"{_SCORE_CHECK}",
    "table_results": " AND ".join([
        _text("finished", 64), _text("server", 300), _count("table_id"), _count("round"),
        _text("ruleset", 64), _text("seats", 4096), _text("scores", 4096),
        "(winner IS NULL OR (typeof(winner) = 'integer' AND winner BETWEEN 0 AND 63))",
        "(seat IS NULL OR (typeof(seat) = 'integer' AND seat BETWEEN 0 AND 63))"]),
}
_ENVIRONMENT_ERRORS = ("SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_IOERR",
                       "SQLITE_PERM", "SQLITE_AUTH")
"""SQLite errors that say the disk or folder cannot take a write, not that the file is
broken: the database is never set aside for them."""


def _environment_error(exc: BaseException) -> bool:
    name = str(getattr(exc, "sqlite_errorname", ""))
    return name.startswith(_ENVIRONMENT_ERRORS)
_GAME_COLUMNS = ("id", "finished", "ruleset", "record_group", "record_kind", "seed",
                 "game_date", "score", "lines", "moves", "best_combo", "duration", "hints",
                 "over_reason", "replay", "practice")


def displayed_combo(ruleset: Any, combo: int) -> int:
    """The combo factor the ruleset displays for a combo counter: the counter capped
    at ``[display] combo_cap`` (0: no cap)."""
    cap = getattr(getattr(ruleset, "display", None), "combo_cap", 0) or 0
    return min(combo, cap) if cap else combo


def _now_text() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


class RecordsFile:
    """The open records database of a folder and what keeps it usable: see the
    module's description. Its queries are :class:`~blockyard.records.RecordStore`'s."""

    def __init__(self, folder: Path | str | None = None) -> None:
        self.folder = Path(folder) if folder is not None else paths.data_dir()
        self.path = self.folder / FILE_NAME
        self.in_memory = False  # True when the database could not be used at all
        self.read_only = False  # True when it can be read but not written
        self.problem: str | None = None
        """Why records are not being saved right now (English; ``None`` when they are)."""
        self.skipped: tuple[int, ...] = ()
        """Row ids of the finished games with impossible values, skipped by every query."""
        with contextlib.suppress(OSError):  # if it cannot be made, opening says why
            self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            remove_stray_temporaries(self.folder)
        self._thread = threading.get_ident()
        self._conn = self._prepare(self._open())
        if not self.in_memory and not self.read_only:
            try:
                self._migrate_toml()
            except sqlite3.DatabaseError as exc:
                if not _environment_error(exc):
                    raise
                self._write_failed(exc)

    @property
    def unsaved(self) -> int:
        """Finished games and table results kept in memory because they could not
        be written yet."""
        return int(self._conn.execute(
            "SELECT (SELECT count(*) FROM temp.pending_games) + "
            "(SELECT count(*) FROM temp.pending_table_results)").fetchone()[0])

    # -- opening -------------------------------------------------------------------------

    def _connect(self, target: str, read_only: bool = False) -> sqlite3.Connection:
        conn = _sqlite_connect(target, read_only)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            if read_only:
                problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise sqlite3.DatabaseError("; ".join(str(p) for p in problems[:3]))
                if not self._check_schema(conn, older=True):
                    raise sqlite3.DatabaseError("the database is empty")
                return conn
            if target != ":memory:":
                # where the file system cannot share WAL memory, SQLite keeps its rollback
                # journal, which is just as safe for several processes (only slower)
                _retry_busy(lambda: conn.execute("PRAGMA journal_mode = WAL"))
            conn.execute("PRAGMA synchronous = FULL")
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("; ".join(str(p) for p in problems[:3]))
            self._create_schema(conn)
            if target != ":memory:":
                # a write, so a read-only file or folder shows now, not at the first game
                # (SQLite opens a file it cannot write read-only without a word)
                conn.execute("BEGIN IMMEDIATE")
                try:
                    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES "
                                 "('last_opened', ?)", (_now_text(),))
                    conn.execute("COMMIT")
                finally:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _check_schema(conn: sqlite3.Connection, older: bool = False) -> bool:
        """Whether the schema is there (``False``: an empty database, or an older
        schema to bring up to date, unless ``older`` accepts it as it is: a file
        opened only to read); a newer or damaged one is a ``DatabaseError``."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"written by a newer Blockyard (schema {version}, "
                                        f"this one reads {SCHEMA_VERSION})")
        if version == SCHEMA_VERSION or (older and version >= 1):
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            needed = _TABLES if version == SCHEMA_VERSION else _TABLES_V1
            if not tables >= needed:
                raise sqlite3.DatabaseError(f"tables missing: {sorted(needed - tables)}")
            columns = {row[1] for row in conn.execute("PRAGMA table_info(games)")}
            if not set(_GAME_COLUMNS) <= columns:
                raise sqlite3.DatabaseError("the games table lacks columns "
                                            f"{sorted(set(_GAME_COLUMNS) - columns)}")
            return True
        return False

    @classmethod
    def _create_schema(cls, conn: sqlite3.Connection) -> None:
        if cls._check_schema(conn):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _open(self) -> sqlite3.Connection:
        reason = self._header_problem()
        if reason is None:
            try:
                return self._connect(str(self.path))
            except sqlite3.DatabaseError as exc:  # OperationalError included
                if getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED"):
                    raise  # in use by another process for too long: not a broken file
                if _environment_error(exc):  # a full disk, a read-only folder: not broken
                    return self._open_read_only(exc)
                reason = str(exc)
        try:
            with contextlib.suppress(FileNotFoundError):  # another process set it aside
                set_aside(self.path, "records", reason, companions=("-wal", "-shm"))
            return self._connect(str(self.path))
        except sqlite3.DatabaseError as exc:
            if _environment_error(exc):
                return self._open_read_only(exc)
            warnings.warn(f"records database {self.path} cannot be used ({exc}); records "
                          "of this session will not be kept", stacklevel=3)
            self.in_memory = True
            return self._connect(":memory:")
        except OSError as exc:
            warnings.warn(f"records database {self.path} cannot be used ({exc}); records "
                          "of this session will not be kept", stacklevel=3)
            self.in_memory = True
            return self._connect(":memory:")

    def _open_read_only(self, cause: sqlite3.DatabaseError) -> sqlite3.Connection:
        """The database opened for reading when it cannot be written (never set aside);
        an in-memory store when it cannot even be read."""
        if self.path.is_file():
            try:
                conn = self._connect(str(self.path), read_only=True)
            except sqlite3.DatabaseError as exc:
                cause = exc
            else:
                self.read_only = True
                self.problem = (f"records database {self.path} cannot be written ({cause}); "
                                "the records are shown but new ones cannot be saved")
                warnings.warn(self.problem, stacklevel=4)
                return conn
        warnings.warn(f"records database {self.path} cannot be used ({cause}); records "
                      "of this session will not be kept", stacklevel=4)
        self.in_memory = True
        return self._connect(":memory:")

    def _prepare(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        """The session's own tables on a connection: views of the rows that can be
        believed (the queries read them) and the games not yet written, in memory."""
        conn.execute("PRAGMA temp_store = MEMORY")
        if not self._check_schema(conn, older=True):  # an in-memory store, no schema yet
            self._create_schema(conn)
        columns = ", ".join(_GAME_COLUMNS)
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS pending_games AS SELECT * FROM "
                     "main.games WHERE 0")
        conn.execute("DROP VIEW IF EXISTS temp.ok_games")
        conn.execute(f"CREATE TEMP VIEW ok_games AS SELECT {columns} FROM main.games WHERE "
                     f"{_VALID['games']} UNION ALL SELECT {columns} FROM temp.pending_games")
        for table in ("imported_stats", "imported_best", "imported_daily"):
            conn.execute(f"DROP VIEW IF EXISTS temp.ok_{table}")
            conn.execute(f"CREATE TEMP VIEW ok_{table} AS SELECT * FROM main.{table} "
                         f"WHERE {_VALID[table]}")
        # table results kept in memory while the file cannot be written; a file of
        # schema 1 opened only to read has none of its own
        columns = ", ".join(_TABLE_RESULT_COLUMNS)
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS pending_table_results (id INTEGER "
                     "PRIMARY KEY, finished TEXT, server TEXT, table_id INTEGER, round "
                     "INTEGER, ruleset TEXT, seats TEXT, scores TEXT, winner INTEGER, "
                     "seat INTEGER, UNIQUE (server, table_id, round))")
        conn.execute("DROP VIEW IF EXISTS temp.ok_table_results")
        stored = conn.execute("SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND "
                              "name = 'table_results'").fetchone() is not None
        written = (f"SELECT {columns} FROM main.table_results WHERE "
                   f"{_VALID['table_results']} UNION ALL " if stored else "")
        conn.execute(f"CREATE TEMP VIEW ok_table_results AS {written}SELECT {columns} FROM "
                     "temp.pending_table_results")
        self._name_skipped(conn)
        return conn

    def _name_skipped(self, conn: sqlite3.Connection) -> None:
        """One warning naming the rows with impossible values (skipped by the views)."""
        tests = ", ".join(f"coalesce({check}, 0)" for _, check in _GAME_CHECKS)
        names = ", ".join(name for name, _ in _GAME_CHECKS)
        bad = [row for row in conn.execute(
            f"SELECT id, {tests}, {names} FROM main.games WHERE NOT ({_VALID['games']}) "
            "ORDER BY id")]
        imported = sum(int(conn.execute(
            f"SELECT count(*) FROM main.{table} WHERE NOT ({_VALID[table]})").fetchone()[0])
            for table in ("imported_stats", "imported_best", "imported_daily"))
        self.skipped = tuple(int(row[0]) for row in bad)
        if not bad and not imported:
            return
        n = len(_GAME_CHECKS)
        named = []
        for row in bad[:3]:
            wrong = [f"{name} = {_short_repr(row[1 + n + i])}"
                     for i, (name, _) in enumerate(_GAME_CHECKS) if not row[1 + i]]
            named.append(f"game {row[0]}: {', '.join(wrong[:3])}")
        more = f"; and {len(bad) - 3} more" if len(bad) > 3 else ""
        parts = []
        if bad:
            parts.append(f"{len(bad)} finished game{'s' if len(bad) != 1 else ''} with "
                         f"impossible values skipped ({'; '.join(named)}{more})")
        if imported:
            parts.append(f"{imported} imported record{'s' if imported != 1 else ''} with "
                         "impossible values skipped")
        warnings.warn(f"records database {self.path}: {'; '.join(parts)}", stacklevel=5)

    def _write_failed(self, exc: BaseException) -> None:
        self.problem = (f"records database {self.path} cannot be written ({exc}); finished "
                        "games are kept in memory and written when it can be")

    def _header_problem(self) -> str | None:
        """Why the file is certainly not a database (None: missing, empty or plausible)."""
        if self.path.is_dir():
            return "it is a folder"
        try:
            with open(self.path, "rb") as handle:
                head = handle.read(len(_SQLITE_HEADER))
        except FileNotFoundError:
            return None
        except OSError as exc:
            return str(exc)
        if head and head != _SQLITE_HEADER[:len(head)]:
            return "not an SQLite database"
        return None

    # -- migration from records.toml -----------------------------------------------------

    def _migrate_toml(self) -> None:
        legacy = self.folder / LEGACY_FILE_NAME
        if not legacy.exists():
            return
        data = read_toml_or_set_aside(legacy, "records")
        if not data and not legacy.exists():
            return  # it was corrupt and has been set aside
        if not _valid_legacy(data):
            set_aside(legacy, "records", "unexpected layout")
            return
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = conn.execute("SELECT 1 FROM meta WHERE key = 'migrated_toml'").fetchone()
            if done is None:
                _import_legacy(conn, data)
                conn.execute("INSERT INTO meta (key, value) VALUES ('migrated_toml', ?)",
                             (_now_text(),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = legacy.with_name(f"{legacy.name}.migrated-{stamp}")
        n = 2
        while backup.exists():
            backup = legacy.with_name(f"{legacy.name}.migrated-{stamp}-{n}")
            n += 1
        with contextlib.suppress(FileNotFoundError):  # another process renamed it first
            os.replace(legacy, backup)

    # -- writing what is kept in memory ---------------------------------------------------

    def retry(self) -> bool:
        """Write the finished games kept in memory (after a full disk, or once a
        read-only folder can be written again); ``True`` when none is left unsaved."""
        if self.in_memory or not self.unsaved:
            return not self.unsaved
        if self.read_only and not self._reopen_writable():
            return False
        conn = self._conn
        columns = ", ".join(_GAME_COLUMNS[1:])
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(f"INSERT INTO main.games ({columns}) SELECT {columns} FROM "
                         "temp.pending_games ORDER BY id")
            conn.execute("DELETE FROM temp.pending_games")
            results = ", ".join(_TABLE_RESULT_COLUMNS[1:])
            conn.execute(f"INSERT OR IGNORE INTO main.table_results ({results}) SELECT "
                         f"{results} FROM temp.pending_table_results ORDER BY id")
            conn.execute("DELETE FROM temp.pending_table_results")
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if not _environment_error(exc):
                raise
            self._write_failed(exc)
            return False
        self.problem = None
        return True

    def _reopen_writable(self) -> bool:
        """Open the database for writing again (the games kept in memory carried over)."""
        try:
            conn = self._connect(str(self.path))
        except sqlite3.DatabaseError:
            return False
        kept = self._conn.execute("SELECT * FROM temp.pending_games ORDER BY id").fetchall()
        results = self._conn.execute("SELECT * FROM temp.pending_table_results ORDER BY id"
                                     ).fetchall()
        self._conn.close()
        self._thread = threading.get_ident()
        self._conn = self._prepare(conn)
        self.read_only = False
        if kept:
            marks = ", ".join("?" * len(kept[0]))
            conn.executemany(f"INSERT INTO temp.pending_games VALUES ({marks})", kept)
        if results:
            marks = ", ".join("?" * len(results[0]))
            conn.executemany(f"INSERT INTO temp.pending_table_results VALUES ({marks})",
                             results)
        return True

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Close the database (the store cannot be used afterwards)."""
        self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        conn = getattr(self, "_conn", None)
        # sqlite3 refuses close() from another thread than the connection's; the
        # garbage collector may run this in any thread (a live table's, say): the
        # connection then closes itself when it is freed
        if conn is not None and threading.get_ident() == self._thread:
            conn.close()


def _sqlite_connect(target: str, read_only: bool) -> sqlite3.Connection:
    """A connection to ``target`` (an SQLite file, or ``:memory:``), read-only when asked."""
    if read_only:
        uri = Path(target).absolute().as_uri() + "?mode=ro"
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    return sqlite3.connect(target, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


def _scalar(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> Any:
    row = conn.execute(sql, args).fetchone()
    return None if row is None else row[0]


def _try_load(ruleset_id: str) -> Any:
    from .discovery import load_ruleset

    try:
        return load_ruleset(ruleset_id)
    except Exception:  # not installed (any more), or a broken user rule file
        return None


def _valid_legacy(data: dict[str, Any]) -> bool:
    def ints(values: Any) -> bool:
        return isinstance(values, dict) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in values.values())

    if not isinstance(data.get("best", {}), dict) or not ints(data.get("best", {})):
        return False
    daily = data.get("daily", {})
    if not isinstance(daily, dict) or not all(ints(v) for v in daily.values()):
        return False
    stats = data.get("stats", {})
    if not isinstance(stats, dict):
        return False
    for entry in stats.values():
        if not isinstance(entry, dict):
            return False
        for key in ("games", "lines", "best_combo"):
            value = entry.get(key, 0)
            if not isinstance(value, int) or isinstance(value, bool):
                return False
    return True


def _import_legacy(conn: sqlite3.Connection, data: dict[str, Any]) -> None:
    """Copy an old ``records.toml`` into the database (inside the caller's transaction).
    Best combos become the displayed factor of their ruleset when it is installed."""
    for group, score in data.get("best", {}).items():
        conn.execute("INSERT OR REPLACE INTO imported_best VALUES (?, ?)", (group, score))
    for group, per_date in data.get("daily", {}).items():
        for date, score in per_date.items():
            conn.execute("INSERT OR REPLACE INTO imported_daily VALUES (?, ?, ?)",
                         (group, date, score))
    for rid, entry in data.get("stats", {}).items():
        combo = entry.get("best_combo", 0)
        loaded = _try_load(rid)
        if loaded is not None:
            combo = displayed_combo(loaded, combo)
        conn.execute("INSERT OR REPLACE INTO imported_stats VALUES (?, ?, ?, ?)",
                     (rid, entry.get("games", 0), entry.get("lines", 0), combo))




def _retry_busy(step: Callable[[], object]) -> None:
    """Run ``step``, retrying while another process holds the database for at most
    the busy timeout: SQLite answers "database is locked" at once, without waiting,
    when two processes switch a new database to WAL at the same moment."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    pause = 0.005
    while True:
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorname", "") in ("SQLITE_BUSY", "SQLITE_LOCKED")
            if not busy or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
