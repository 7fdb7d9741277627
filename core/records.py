"""Records, statistics and the history of finished games, shared by the frontend
and the command line.

Every finished game is kept as one row of history in an SQLite database,
``records.db`` in the data folder (or a folder given explicitly — tests never
touch the player's): when it finished, its ruleset and record group, seed, date
(daily rulesets), score, lines, moves, best combo, duration, hints used, why it
ended, its replay file, and whether it was *practice*. Records are derived from
that history by query, so several windows or processes can record games into
one folder at the same time without losing any: each finished game is one
transaction (WAL journal, writers wait for each other).

Records (best scores) are kept per *record group* (``[records] group``;
eu-classic and eu-hardcore share ``eu``), per date for ``kind = "per-date"``
rulesets (eu-daily), and not at all for ``kind = "none"`` (zen).

Daily rulesets (``seed = "daily"``: eu-daily, nepal-today): only the first
finished game of a date counts for the records; a later game of the same date
(and record group) is practice: it is kept in the history, flagged, counts as a
game played, and changes no record, best combo or score statistic.

Best combo is stored as the factor the ruleset displays: the combo counter capped
at ``[display] combo_cap`` (tiered shows ×5 for a counter of 6).

An old ``records.toml`` is imported on first start (its bests, per-date bests,
games, lines and best combos) and kept as ``records.toml.migrated-<time>``. A
database that is corrupt is moved aside (``records.db.corrupt-<time>``, never
replacing an earlier copy) with a warning, and a new one is started.

A database that is healthy but cannot be written is never moved aside: in a
read-only data folder it is opened read-only (the records are shown,
:attr:`RecordStore.read_only` is true and :attr:`RecordStore.problem` says that new
records cannot be saved); on a full disk (or any other write error) a finished game
is kept in memory (:attr:`RecordStore.unsaved`), counted in what the store
answers, and written by the next :meth:`RecordStore.record` or
:meth:`RecordStore.retry`. Rows with impossible values (``score = 'lots'``, a
``lines`` of 2**63, …) are skipped by every query and named in one warning
(:attr:`RecordStore.skipped`), the rest shown.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import os
import sqlite3
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import paths
from .files import (
    read_toml_or_set_aside,
    remove_stray_temporaries,
    set_aside,
    write_atomically,
)
from .results import Summary

FILE_NAME = "records.db"
LEGACY_FILE_NAME = "records.toml"
SCHEMA_VERSION = 1
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
"""
_TABLES = {"games", "imported_stats", "imported_best", "imported_daily", "meta"}

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


@dataclass(frozen=True, slots=True)
class Stats:
    """Statistics of one ruleset: games played (practice included), lines cleared
    (practice included) and the best combo factor (practice excluded)."""

    games: int = 0
    lines: int = 0
    best_combo: int = 0


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One finished game of the history.

    ``finished``: local date and time with its UTC offset (ISO 8601, seconds);
    ``game_date``: the date of a daily game (``YYYY-MM-DD``) or ``None``;
    ``best_combo``: the displayed (capped) factor; ``duration``: seconds of game
    clock, ``None`` when unknown; ``replay``: the replay file, if one was kept;
    ``practice``: a later game of a date already played (daily rulesets)."""

    id: int
    finished: str
    ruleset: str
    record_group: str
    record_kind: str
    seed: int
    game_date: str | None
    score: int
    lines: int
    moves: int
    best_combo: int
    duration: float | None
    hints: int
    over_reason: str | None
    replay: str | None
    practice: bool


@dataclass(frozen=True, slots=True)
class RulesetStatistics:
    """What the statistics screen shows for one ruleset.

    ``games``: finished games, practice included (plus games imported from an
    old ``records.toml``); ``practice_games``: how many of them were practice;
    ``best``: the best score that counts (the group record; for per-date
    rulesets the best day; ``None`` for rulesets that keep no record or without
    a game); ``average``: mean score of the counted (non-practice) games in the
    history, ``None`` without one (imported games have no individual scores);
    ``total_lines``: lines (areas) cleared, practice included; ``best_combo``:
    the best displayed combo factor of counted games."""

    ruleset_id: str
    games: int
    practice_games: int
    best: int | None
    average: float | None
    total_lines: int
    best_combo: int


@dataclass(frozen=True, slots=True)
class HistogramBin:
    """Counted games whose score lies in ``low .. high`` (both inclusive)."""

    low: int
    high: int
    count: int


def displayed_combo(ruleset: Any, combo: int) -> int:
    """The combo factor the ruleset displays for a combo counter: the counter capped
    at ``[display] combo_cap`` (0: no cap)."""
    cap = getattr(getattr(ruleset, "display", None), "combo_cap", 0) or 0
    return min(combo, cap) if cap else combo


def _ruleset_id(ruleset: Any) -> str:
    return ruleset if isinstance(ruleset, str) else ruleset.id


def _date_text(date: _dt.date | str | None) -> str | None:
    if date is None or isinstance(date, str):
        return date
    return date.isoformat()


def _now_text() -> str:
    return _dt.datetime.now().astimezone().isoformat(timespec="seconds")


class RecordStore:
    """The history of finished games and the records derived from it, kept in
    ``folder/records.db`` (the data folder by default).

    Open one per window or process; any number may share a folder. Call
    :meth:`close` (or use ``with``) when done."""

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
        """Finished games kept in memory because they could not be written yet."""
        return int(self._conn.execute("SELECT count(*) FROM temp.pending_games").fetchone()[0])

    # -- opening -------------------------------------------------------------------------

    def _connect(self, target: str, read_only: bool = False) -> sqlite3.Connection:
        conn = _sqlite_connect(target, read_only)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
            if read_only:
                problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
                if problems != ["ok"]:
                    raise sqlite3.DatabaseError("; ".join(str(p) for p in problems[:3]))
                if not self._check_schema(conn):
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
    def _check_schema(conn: sqlite3.Connection) -> bool:
        """Whether the schema is there (``False``: an empty database); a newer or
        damaged one is a ``DatabaseError``."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise sqlite3.DatabaseError(f"written by a newer Blockyard (schema {version}, "
                                        f"this one reads {SCHEMA_VERSION})")
        if version == SCHEMA_VERSION:
            tables = {row[0] for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables >= _TABLES:
                raise sqlite3.DatabaseError(f"tables missing: {sorted(_TABLES - tables)}")
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
        if not self._check_schema(conn):  # an in-memory store whose schema is missing
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

    # -- queries -------------------------------------------------------------------------

    def _one(self, sql: str, args: tuple[Any, ...] = ()) -> Any:
        row = self._conn.execute(sql, args).fetchone()
        return None if row is None else row[0]

    def best(self, ruleset: Any, date: _dt.date | str | None = None) -> int | None:
        """The best score that counts for ``ruleset`` (on ``date`` for per-date
        rulesets; ``None`` for those without a date); ``None`` when there is none yet
        or the ruleset keeps no record."""
        return self._best(self._conn, ruleset, _date_text(date))

    @staticmethod
    def _best(conn: sqlite3.Connection, ruleset: Any, date: str | None) -> int | None:
        kind = ruleset.record_kind
        group = ruleset.record_group
        if kind == "none":
            return None
        if kind == "per-date":
            if date is None:
                return None
            row = conn.execute(
                "SELECT max(s) FROM (SELECT score AS s FROM ok_games WHERE record_group = ? AND "
                "game_date = ? AND practice = 0 AND record_kind != 'none' UNION ALL "
                "SELECT score FROM ok_imported_daily WHERE record_group = ? AND game_date = ?)",
                (group, date, group, date)).fetchone()
            return None if row[0] is None else int(row[0])
        row = conn.execute(
            "SELECT max(s) FROM (SELECT score AS s FROM ok_games WHERE record_group = ? AND "
            "practice = 0 AND record_kind != 'none' UNION ALL "
            "SELECT score FROM ok_imported_best WHERE record_group = ?)",
            (group, group)).fetchone()
        return None if row[0] is None else int(row[0])

    def played_today(self, ruleset: Any, date: _dt.date | str | None = None) -> int | None:
        """For a daily ruleset: the score of the game that counts for ``date`` (today
        in the ruleset's time zone by default), or ``None`` when that date has not been
        played yet, so a new game will count. Always ``None`` for other rulesets."""
        if not ruleset.is_daily:
            return None
        if date is None:
            from .game import today_in

            date = today_in(ruleset.timezone)
        return self._counted_day_score(self._conn, ruleset.record_group, _date_text(date))

    @staticmethod
    def _counted_day_score(conn: sqlite3.Connection, group: str, date: str | None
                           ) -> int | None:
        if date is None:
            return None
        row = conn.execute(
            "SELECT score FROM ok_games WHERE record_group = ? AND game_date = ? AND practice = 0 "
            "ORDER BY id LIMIT 1", (group, date)).fetchone()
        if row is not None:
            return int(row[0])
        value = _scalar(conn, "SELECT score FROM ok_imported_daily WHERE record_group = ? AND "
                        "game_date = ?", (group, date))
        return None if value is None else int(value)

    def stats(self, ruleset_id: str) -> Stats:
        """Games played, lines cleared and best combo of a ruleset."""
        games, _, lines, combo, _ = self._counts(ruleset_id)
        return Stats(games, lines, combo)

    def _counts(self, rid: str) -> tuple[int, int, int, int, float | None]:
        """games, practice games, lines, best combo, average counted score."""
        row = self._conn.execute(
            "SELECT count(*), coalesce(sum(practice), 0), CAST(total(lines) AS INTEGER), "
            "coalesce(max(CASE WHEN practice = 0 THEN best_combo END), 0), "
            "avg(CASE WHEN practice = 0 THEN score END) FROM ok_games WHERE ruleset = ?",
            (rid,)).fetchone()
        games, practice, lines, combo, average = row
        imported = self._conn.execute(
            "SELECT games, lines, best_combo FROM ok_imported_stats WHERE ruleset = ?",
            (rid,)).fetchone()
        if imported is not None:
            games += imported[0]
            lines += imported[1]
            combo = max(combo, imported[2])
        return games, practice, lines, combo, average

    def statistics(self, ruleset: Any) -> RulesetStatistics:
        """Everything the statistics screen shows for ``ruleset`` (a Ruleset or an id;
        with an id of a ruleset that is not installed, ``best`` is ``None``)."""
        rid = _ruleset_id(ruleset)
        games, practice, lines, combo, average = self._counts(rid)
        best: int | None = None
        loaded = ruleset if not isinstance(ruleset, str) else _try_load(ruleset)
        if loaded is not None:
            if loaded.record_kind == "per-date":
                days = self.played_days(loaded)
                best = max((score for _, score in days), default=None)
            else:
                best = self.best(loaded)
        return RulesetStatistics(rid, games, practice, best, average, lines, combo)

    def games_played(self, ruleset_id: str) -> int:
        """Finished games of a ruleset, practice and imported games included."""
        return self._counts(ruleset_id)[0]

    def average_score(self, ruleset_id: str) -> float | None:
        """Mean score of the counted games of a ruleset kept in the history."""
        return self._counts(ruleset_id)[4]

    def total_lines(self, ruleset_id: str) -> int:
        """Lines (areas) cleared in all finished games of a ruleset."""
        return self._counts(ruleset_id)[2]

    def best_combo(self, ruleset_id: str) -> int:
        """The best displayed combo factor of a ruleset's counted games."""
        return self._counts(ruleset_id)[3]

    def last_scores(self, ruleset_id: str, n: int = 10, *, practice: bool = False
                    ) -> list[int]:
        """The scores of the last ``n`` finished games of a ruleset, oldest first
        (practice games only when ``practice`` is true)."""
        if n <= 0:
            return []
        rows = self._conn.execute(
            "SELECT score FROM ok_games WHERE ruleset = ? AND (? OR practice = 0) "
            "ORDER BY id DESC LIMIT ?", (ruleset_id, practice, n)).fetchall()
        return [row[0] for row in reversed(rows)]

    def score_histogram(self, ruleset_id: str, bins: int = 10) -> list[HistogramBin]:
        """The counted games of a ruleset by score: ``bins`` bins of equal integer
        width ``ceil((highest + 1) / bins)`` from 0, the last one ending at the
        highest score (fewer bins when the scores are low); empty without games."""
        if bins < 1:
            raise ValueError(f"bins: expected at least 1, found {bins}")
        top = _scalar(self._conn, "SELECT max(score) FROM ok_games WHERE ruleset = ? AND "
                      "practice = 0", (ruleset_id,))
        if top is None:
            return []
        top = max(0, top)
        width = max(1, math.ceil((top + 1) / bins))
        count = top // width + 1
        counts = dict(self._conn.execute(
            "SELECT max(score, 0) / ? AS b, count(*) FROM ok_games WHERE ruleset = ? AND "
            "practice = 0 GROUP BY b", (width, ruleset_id)).fetchall())
        return [HistogramBin(i * width, min(top, (i + 1) * width - 1), counts.get(i, 0))
                for i in range(count)]

    def played_days(self, ruleset: Any) -> list[tuple[str, int]]:
        """For a ruleset with dated games: each date played (``YYYY-MM-DD``, oldest
        first) with the score that counts for it (the first game of that date;
        imported per-date records included)."""
        group = ruleset.record_group
        rows = self._conn.execute(
            "SELECT game_date, score FROM ok_games WHERE id IN (SELECT min(id) FROM ok_games "
            "WHERE record_group = ? AND game_date IS NOT NULL AND practice = 0 "
            "GROUP BY game_date)", (group,)).fetchall()
        days = dict(self._conn.execute(
            "SELECT game_date, score FROM ok_imported_daily WHERE record_group = ?",
            (group,)).fetchall())
        days.update(dict(rows))
        return sorted(days.items())

    def history(self, ruleset_id: str | None = None, limit: int | None = None
                ) -> list[GameRecord]:
        """Finished games, newest first (of one ruleset, or all; at most ``limit``)."""
        sql = f"SELECT {', '.join(_GAME_COLUMNS)} FROM ok_games"
        args: list[Any] = []
        if ruleset_id is not None:
            sql += " WHERE ruleset = ?"
            args.append(ruleset_id)
        sql += " ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(max(0, limit))
        out = []
        for row in self._conn.execute(sql, args):
            values = dict(zip(_GAME_COLUMNS, row, strict=True))
            values["practice"] = bool(values["practice"])
            out.append(GameRecord(**values))
        return out

    # -- recording -----------------------------------------------------------------------

    def record(self, game: Any, *, replay: Path | str | None = None,
               duration: float | None = None, hints: int = 0) -> Summary:
        """Keep a finished game in the history and return its summary, with the
        record before and after, ``practice`` set for a later daily game of a date
        already played, and the best combo as the displayed (capped) factor.

        ``duration``: seconds played, when the caller knows them (otherwise the
        game clock of timed games and of games of a realtime mode, such as
        falling games); ``hints``: hints used; ``replay``: the replay file kept
        for this game. One transaction: several stores (and
        processes) may record into one folder at the same time; when anything fails
        (the summary included), nothing is recorded. When the database cannot be
        written (a full disk, a read-only folder) the game is kept in memory instead
        (counted in every answer, :attr:`unsaved`, :attr:`problem` says why) and
        written by the next ``record`` or :meth:`retry`. A score or count beyond
        10**15 is a ``ValueError``."""
        ruleset = game.ruleset
        date = _date_text(game.date)
        combo = displayed_combo(ruleset, int(getattr(game, "best_combo", 0)))
        if duration is None and (game.mode.realtime or game.time_left is not None):
            duration = game.elapsed_us / 1_000_000
        row = (ruleset.id, ruleset.record_group, ruleset.record_kind, int(game.seed), date,
               int(game.score), int(game.lines_cleared), int(game.moves), combo,
               None if duration is None else float(duration), int(hints), game.over_reason,
               None if replay is None else str(replay))
        for value in row[5:9]:
            if not -_MAX <= value <= _MAX:
                raise ValueError(f"record: a score or count of {value} is beyond the records' "
                                 f"limit of {_MAX}")
        if self.read_only:
            self._reopen_writable()
        if not self.read_only and self.retry():
            try:
                return self._record_into("main.games", game, row, combo, hints)
            except sqlite3.DatabaseError as exc:
                if not _environment_error(exc):
                    raise
                self._write_failed(exc)
        return self._record_into("temp.pending_games", game, row, combo, hints)

    def _record_into(self, table: str, game: Any, row: tuple[Any, ...], combo: int,
                     hints: int) -> Summary:
        ruleset = game.ruleset
        date = row[4]
        conn = self._conn
        pending = table.startswith("temp.")
        conn.execute("BEGIN" if pending else "BEGIN IMMEDIATE")
        try:
            practice = bool(ruleset.is_daily and date is not None and self._counted_day_score(
                conn, ruleset.record_group, date) is not None)
            before = self._best(conn, ruleset, date)
            summary = game.summary(record_before=before)
            if pending:  # an id after every written one, so the history keeps its order
                first = self._one("SELECT coalesce(max(id), 0) + 1 FROM ok_games")
                conn.execute(f"INSERT INTO {table} (id, finished, ruleset, record_group, "
                             "record_kind, seed, game_date, score, lines, moves, best_combo, "
                             "duration, hints, over_reason, replay, practice) VALUES (?, ?, ?, "
                             "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (first, _now_text(), *row, int(practice)))
            else:
                conn.execute(f"INSERT INTO {table} (finished, ruleset, record_group, "
                             "record_kind, seed, game_date, score, lines, moves, best_combo, "
                             "duration, hints, over_reason, replay, practice) VALUES (?, ?, ?, "
                             "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (_now_text(), *row, int(practice)))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        result: Summary = replace(summary, best_combo=combo, practice=practice,
                                  hints=int(hints))
        if practice:
            result = replace(result, record_after=result.record_before, new_record=False)
        return result

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
        self._conn.close()
        self._conn = self._prepare(conn)
        self.read_only = False
        if kept:
            marks = ", ".join("?" * len(kept[0]))
            conn.executemany(f"INSERT INTO temp.pending_games VALUES ({marks})", kept)
        return True

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        """Close the database (the store cannot be used afterwards)."""
        self._conn.close()

    def __enter__(self) -> RecordStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
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


__all__ = ["FILE_NAME", "GameRecord", "HistogramBin", "RecordStore", "RulesetStatistics",
           "Stats", "displayed_combo", "read_toml_or_set_aside", "set_aside",
           "write_atomically"]


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
