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

The results of online tables (duels) the window played or watched are kept too
(:meth:`RecordStore.record_table`, :meth:`RecordStore.table_results`): the
server, table and round, ruleset, the seats' names and scores, the winner and
the player's own seat. A file written before they existed (schema 1) gains the
table when it is next opened for writing; its games stay as they are.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import sqlite3
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .files import (
    read_toml_or_set_aside,
    set_aside,
    write_atomically,
)
from .gamecheck import chosen_position
from .recordsdb import (
    _GAME_COLUMNS,
    _MAX,
    _TABLE_RESULT_COLUMNS,
    FILE_NAME,
    RecordsFile,
    _environment_error,
    _now_text,
    _scalar,
    _try_load,
    displayed_combo,
)
from .results import Summary


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
    the best displayed combo factor of counted games; ``play_time``: seconds
    played, the sum of the games' ``duration`` (practice included; games without
    one add nothing)."""

    ruleset_id: str
    games: int
    practice_games: int
    best: int | None
    average: float | None
    total_lines: int
    best_combo: int
    play_time: float = 0.0


@dataclass(frozen=True, slots=True)
class HistogramBin:
    """Counted games whose score lies in ``low .. high`` (both inclusive)."""

    low: int
    high: int
    count: int


@dataclass(frozen=True, slots=True)
class TableResult:
    """The result of one round at an online table, as the window keeps it.

    ``server``: the server's address; ``table_id`` and ``round``: the round
    there (a rematch is the next round); ``seats``: the name in each seat
    (``None``: free); ``scores``: each seat's score; ``winner``: the winning
    seat, ``None`` on a tie; ``seat``: the player's own seat, ``None`` when
    they watched; ``finished``: local date and time with its UTC offset (ISO
    8601, seconds; set when recorded)."""

    server: str
    table_id: int
    round: int
    ruleset: str
    seats: tuple[str | None, ...]
    scores: tuple[int, ...]
    winner: int | None
    seat: int | None
    finished: str = ""

    def check(self) -> None:
        """``ValueError`` naming the first field that cannot be kept."""
        if not isinstance(self.server, str) or not 1 <= len(self.server) <= 300:
            raise ValueError(f"table result: server: expected 1 to 300 characters, found "
                             f"{self.server!r:.40}")
        for name in ("table_id", "round"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) \
                    or not 0 <= value <= _MAX:
                raise ValueError(f"table result: {name}: expected a count, found {value!r:.40}")
        if not isinstance(self.ruleset, str) or not 1 <= len(self.ruleset) <= 64:
            raise ValueError(f"table result: ruleset: expected 1 to 64 characters, found "
                             f"{self.ruleset!r:.40}")
        if not 1 <= len(self.seats) <= 64 or len(self.scores) != len(self.seats):
            raise ValueError(f"table result: expected a score for each of 1 to 64 seats, "
                             f"found {len(self.seats)} seats and {len(self.scores)} scores")
        if not all(name is None or (isinstance(name, str) and len(name) <= 64)
                   for name in self.seats):
            raise ValueError("table result: seats: expected names of at most 64 characters")
        if not all(isinstance(v, int) and not isinstance(v, bool) and -_MAX <= v <= _MAX
                   for v in self.scores):
            raise ValueError(f"table result: scores: expected whole numbers of at most "
                             f"{_MAX}, found {list(self.scores)!r:.60}")
        for name in ("winner", "seat"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or not 0 <= value < len(self.seats)):
                raise ValueError(f"table result: {name}: expected a seat from 0 to "
                                 f"{len(self.seats) - 1} or None, found {value!r:.40}")


def _table_result(row: tuple[Any, ...]) -> TableResult | None:
    values = dict(zip(_TABLE_RESULT_COLUMNS, row, strict=True))
    try:
        seats, scores = json.loads(values["seats"]), json.loads(values["scores"])
        result = TableResult(values["server"], values["table_id"], values["round"],
                             values["ruleset"], tuple(seats), tuple(scores), values["winner"],
                             values["seat"], values["finished"])
        result.check()
    except (ValueError, TypeError, RecursionError):
        return None  # a row with impossible values: skipped
    return result


def _ruleset_id(ruleset: Any) -> str:
    return ruleset if isinstance(ruleset, str) else ruleset.id


def _date_text(date: _dt.date | str | None) -> str | None:
    if date is None or isinstance(date, str):
        return date
    return date.isoformat()


class RecordStore(RecordsFile):
    """The history of finished games and the records derived from it, kept in
    ``folder/records.db`` (the data folder by default).

    Open one per window or process; any number may share a folder. Call
    :meth:`close` (or use ``with``) when done."""

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
        play_time = float(self._one("SELECT total(duration) FROM ok_games WHERE ruleset = ?",
                                    (rid,)))
        return RulesetStatistics(rid, games, practice, best, average, lines, combo, play_time)

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

    def day_streak(self, ruleset: Any, today: _dt.date) -> int:
        """For a daily ruleset: how many days in a row the player has played, up to
        ``today`` (the date in the ruleset's time zone): counted back from today
        when today's game is played, else from the day before (a streak lives
        until a whole day passes without a game). 0 for other rulesets."""
        if not ruleset.is_daily:
            return 0
        days = {day for day, _score in self.played_days(ruleset)}
        day = today if today.isoformat() in days else today - _dt.timedelta(days=1)
        streak = 0
        while day.isoformat() in days:
            streak += 1
            day -= _dt.timedelta(days=1)
        return streak

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

    def table_results(self, ruleset_id: str | None = None, limit: int | None = None
                      ) -> list[TableResult]:
        """The online tables' results kept, newest first (of one ruleset, or all;
        at most ``limit``); rows with impossible values are skipped."""
        sql = f"SELECT {', '.join(_TABLE_RESULT_COLUMNS)} FROM ok_table_results"
        args: list[Any] = []
        if ruleset_id is not None:
            sql += " WHERE ruleset = ?"
            args.append(ruleset_id)
        sql += " ORDER BY finished DESC, id DESC"
        found = [r for r in map(_table_result, self._conn.execute(sql, args)) if r is not None]
        return found if limit is None else found[:max(0, limit)]

    # -- recording -----------------------------------------------------------------------

    def record_table(self, result: TableResult) -> bool:
        """Keep an online table's result (``finished`` is set to now); ``False``
        when that round of that table on that server is kept already (a window
        that reconnected or reopened records it once). A value that cannot be
        kept is a ``ValueError`` naming it, and nothing is written. When the
        file cannot be written the result is kept in memory, like a finished
        game (:attr:`unsaved`)."""
        result.check()
        row = (_now_text(), result.server, result.table_id, result.round, result.ruleset,
               json.dumps(list(result.seats)), json.dumps(list(result.scores)),
               result.winner, result.seat)
        known = self._one("SELECT count(*) FROM ok_table_results WHERE server = ? AND "
                          "table_id = ? AND round = ?",
                          (result.server, result.table_id, result.round))
        if known:
            return False
        columns = ", ".join(_TABLE_RESULT_COLUMNS[1:])
        if self.read_only:
            self._reopen_writable()
        if not self.read_only and self.retry():
            try:
                cursor = self._conn.execute(
                    f"INSERT OR IGNORE INTO main.table_results ({columns}) VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
                return cursor.rowcount == 1
            except sqlite3.DatabaseError as exc:
                if not _environment_error(exc):
                    raise
                self._write_failed(exc)
        self._conn.execute(f"INSERT OR IGNORE INTO temp.pending_table_results ({columns}) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
        return True

    def record(self, game: Any, *, replay: Path | str | None = None,
               duration: float | None = None, hints: int = 0) -> Summary:
        """Keep a finished game in the history and return its summary, with the
        record before and after, ``practice`` set for a later daily game of a date
        already played, and the best combo as the displayed (capped) factor.

        ``duration``: seconds played, when the caller knows them (the window
        passes the time a game without a clock was on screen and running);
        otherwise the game clock of timed games and of games of a realtime mode,
        such as falling games; ``hints``: hints used; ``replay``: the replay file kept
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
            # a game from a chosen start (blockyard.gamecheck) is practice: never counted
            practice = chosen_position(game) is not None
            practice = practice or bool(
                ruleset.is_daily and date is not None
                and self._counted_day_score(conn, ruleset.record_group, date) is not None)
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


__all__ = ["FILE_NAME", "GameRecord", "HistogramBin", "RecordStore", "RulesetStatistics",
           "Stats", "TableResult", "displayed_combo", "read_toml_or_set_aside", "set_aside",
           "write_atomically"]
