"""Records, statistics and history (docs/rules.md §3.4, §4.5, §5.4): groups, per-date
bests, the first-game-of-the-day rule, capped combos, several writers at once,
migration from records.toml, corrupt databases."""

from __future__ import annotations

import datetime as dt
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

import blockyard
from blockyard import records, recordsdb
from blockyard.records import HistogramBin, RecordStore

DAY = dt.date(2026, 2, 2)


def finished(ruleset: str, score: int, *, combo: int = 2, **kwargs) -> blockyard.Game:
    game = blockyard.new_game(ruleset, seed=kwargs.pop("seed", 1), **kwargs)
    game.score = score
    game.lines_cleared = score // 100
    game.best_combo = combo
    game.end_round()
    return game


def rules(ruleset_id: str) -> blockyard.Ruleset:
    return blockyard.load_ruleset(ruleset_id)


@pytest.fixture
def store(tmp_path):
    with RecordStore(tmp_path) as opened:
        yield opened


# -- records by group and by date ---------------------------------------------------------

def test_classic_and_hardcore_share_the_eu_record(store):
    first = store.record(finished("eu-classic", 500))
    assert (first.record_before, first.record_after, first.new_record) == (None, 500, True)
    second = store.record(finished("eu-hardcore", 300))
    assert (second.record_before, second.record_after, second.new_record) == (500, 500, False)
    third = store.record(finished("eu-hardcore", 900))
    assert (third.record_before, third.record_after, third.new_record) == (500, 900, True)
    assert store.best(rules("eu-classic")) == 900
    assert store.best(rules("eu-hardcore")) == 900


def test_timed_keeps_its_own_best_and_does_not_count_for_eu(store):
    store.record(finished("eu-classic", 500))
    timed = store.record(finished("eu-timed", 2000))
    assert timed.record_before is None and timed.record_after == 2000
    assert store.best(rules("eu-classic")) == 500
    assert store.best(rules("eu-timed")) == 2000


def test_daily_keeps_the_score_of_each_date(store):
    daily = rules("eu-daily")
    store.record(finished("eu-daily", 400, date=DAY))
    other = store.record(finished("eu-daily", 100, date=DAY + dt.timedelta(days=1)))
    assert (other.record_before, other.record_after, other.practice) == (None, 100, False)
    assert store.best(daily, DAY) == 400
    assert store.best(daily, "2026-02-03") == 100
    assert store.best(daily, "2026-02-04") is None
    assert store.best(daily) is None  # a per-date record needs a date
    assert store.played_days(daily) == [("2026-02-02", 400), ("2026-02-03", 100)]
    assert store.best(rules("eu-classic")) is None


def test_zen_keeps_no_best_but_counts_games_and_lines(store):
    summary = store.record(finished("eu-zen", 0))
    assert summary.record_before is None and summary.record_after is None
    assert not summary.new_record and not summary.practice
    assert store.stats("eu-zen").games == 1
    assert store.best(rules("eu-zen")) is None


# -- the daily rule: only the first finished game of a date counts ------------------------

def test_a_second_daily_game_of_the_same_date_is_practice_and_changes_no_record(store):
    daily = rules("eu-daily")
    assert store.played_today(daily, DAY) is None
    first = store.record(finished("eu-daily", 400, date=DAY))
    assert (first.practice, first.record_before, first.record_after, first.new_record) == \
        (False, None, 400, True)
    assert store.played_today(daily, DAY) == 400
    again = store.record(finished("eu-daily", 900, combo=5, date=DAY))  # better, yet practice
    assert (again.practice, again.record_before, again.record_after, again.new_record) == \
        (True, 400, 400, False)
    assert again.points == 900
    assert store.best(daily, DAY) == 400
    assert store.played_today(daily, DAY) == 400
    assert store.played_days(daily) == [("2026-02-02", 400)]
    history = store.history("eu-daily")
    assert [(g.score, g.practice, g.game_date) for g in history] == \
        [(900, True, "2026-02-02"), (400, False, "2026-02-02")]
    stats = store.statistics(daily)
    assert (stats.games, stats.practice_games, stats.best, stats.average, stats.best_combo) == \
        (2, 1, 400, 400.0, 2)
    assert store.last_scores("eu-daily") == [400]
    assert store.last_scores("eu-daily", practice=True) == [400, 900]
    # the next date counts again
    next_day = store.record(finished("eu-daily", 50, date=DAY + dt.timedelta(days=1)))
    assert (next_day.practice, next_day.record_before, next_day.record_after) == \
        (False, None, 50)


def test_todays_nepal_game_counts_once_per_kathmandu_date(store):
    today = rules("nepal-today")
    store.record(finished("nepal-today", 300, date=DAY))
    practice = store.record(finished("nepal-today", 800, date=DAY))
    assert (practice.practice, practice.record_before, practice.record_after) == \
        (True, 300, 300)
    assert store.best(today) == 300
    assert store.played_today(today, DAY) == 300
    tomorrow = store.record(finished("nepal-today", 800, date=DAY + dt.timedelta(days=1)))
    assert (tomorrow.practice, tomorrow.new_record, tomorrow.record_after) == (False, True, 800)
    assert store.best(today) == 800
    # nepal-new is not daily: every game counts
    store.record(finished("nepal-new", 10))
    assert not store.record(finished("nepal-new", 20)).practice
    assert store.played_today(rules("nepal-new"), DAY) is None


def test_played_today_defaults_to_today_in_the_rulesets_time_zone(store):
    from blockyard.game import today_in

    today = rules("nepal-today")
    assert store.played_today(today) is None
    store.record(finished("nepal-today", 70))
    assert store.played_today(today) == 70
    assert store.played_today(today, today_in("Asia/Kathmandu")) == 70


def test_the_streak_counts_days_played_in_a_row_up_to_today(store):
    daily = rules("nepal-today")
    day = dt.date(2026, 3, 10)
    assert store.day_streak(daily, day) == 0
    for back in (5, 2, 1):  # three days ago missed: the streak began two days ago
        store.record(finished("nepal-today", 10, date=day - dt.timedelta(days=back)))
    store.record(finished("nepal-today", 20, date=day - dt.timedelta(days=1)))  # practice
    # today not played yet: yesterday's streak still lives
    assert store.day_streak(daily, day) == 2
    store.record(finished("nepal-today", 30, date=day))
    assert store.day_streak(daily, day) == 3
    # a whole day without a game: the streak is over
    assert store.day_streak(daily, day + dt.timedelta(days=2)) == 0
    assert store.day_streak(rules("nepal-new"), day) == 0


# -- best combo is the displayed factor ----------------------------------------------------

@pytest.mark.parametrize(("ruleset", "counter", "stored"),
                         [("tiered", 6, 5), ("eu-classic", 9, 5), ("tiered", 3, 3),
                          ("nepal-new", 7, 7)])
def test_best_combo_is_kept_as_the_capped_factor(store, ruleset, counter, stored):
    summary = store.record(finished(ruleset, 100, combo=counter))
    assert summary.best_combo == stored
    assert store.stats(ruleset).best_combo == stored
    assert store.history(ruleset)[0].best_combo == stored
    assert records.displayed_combo(rules(ruleset), counter) == stored


# -- statistics and history ----------------------------------------------------------------

def test_statistics_per_ruleset(store):
    store.record(finished("nepal-new", 700))
    store.record(finished("nepal-new", 200))
    store.record(finished("nepal-today", 100))
    stats = store.stats("nepal-new")
    assert (stats.games, stats.lines, stats.best_combo) == (2, 9, 2)
    assert store.stats("nepal-today").games == 1
    assert store.best(rules("nepal-new")) == 700
    assert store.best(rules("nepal-today")) == 100
    full = store.statistics("nepal-new")
    assert full == records.RulesetStatistics("nepal-new", 2, 0, 700, 450.0, 9, 2)
    assert store.statistics("never-played") == \
        records.RulesetStatistics("never-played", 0, 0, None, None, 0, 0)


def test_last_scores_are_chronological_and_the_histogram_covers_every_score(store):
    for score in (5, 0, 99, 40, 41, 100, 12):
        store.record(finished("tiered", score))
    assert store.last_scores("tiered", 3) == [41, 100, 12]
    assert store.last_scores("tiered", 50) == [5, 0, 99, 40, 41, 100, 12]
    assert store.last_scores("tiered", 0) == []
    # width ceil(101 / 4) = 26: 0-25, 26-51, 52-77, 78-100
    assert store.score_histogram("tiered", 4) == [
        HistogramBin(0, 25, 3), HistogramBin(26, 51, 2), HistogramBin(52, 77, 0),
        HistogramBin(78, 100, 2)]
    assert store.score_histogram("tiered", 1000) == [
        HistogramBin(i, i, [5, 0, 99, 40, 41, 100, 12].count(i)) for i in range(101)]
    assert store.score_histogram("eu-zen") == []
    assert store.average_score("tiered") == pytest.approx(297 / 7)
    assert store.total_lines("tiered") == 1
    with pytest.raises(ValueError, match="bins"):
        store.score_histogram("tiered", 0)


def test_every_finished_game_is_kept_with_its_details(store, tmp_path):
    before = dt.datetime.now().astimezone().replace(microsecond=0)
    timed = blockyard.new_game("eu-timed", seed=42)
    timed.tick(3.5)
    timed.score, timed.best_combo = 120, 7
    timed.end_round()
    replay = tmp_path / "replay.json"
    store.record(timed, replay=replay, hints=2)
    store.record(finished("eu-daily", 30, date=DAY, seed=9))
    store.record(finished("eu-daily", 31, date=DAY, seed=9), duration=61.0)
    newest, daily, first = store.history()
    assert first.ruleset == "eu-timed" and first.record_group == "eu-timed"
    assert (first.seed, first.game_date, first.score, first.moves, first.best_combo) == \
        (42, None, 120, 0, 5)
    assert (first.duration, first.hints, first.over_reason, first.replay, first.practice) == \
        (3.5, 2, "ended", str(replay), False)
    finished_at = dt.datetime.fromisoformat(first.finished)
    assert finished_at.tzinfo is not None
    assert before <= finished_at <= dt.datetime.now().astimezone()
    assert (daily.ruleset, daily.record_kind, daily.game_date, daily.duration, daily.hints,
            daily.replay, daily.practice) == ("eu-daily", "per-date", "2026-02-02", None, 0,
                                              None, False)
    assert (newest.duration, newest.practice) == (61.0, True)
    assert [g.score for g in store.history("eu-daily", limit=1)] == [31]


def test_falling_games_record_their_clock_as_duration(store):
    game = blockyard.new_game("sudoku-bloxx", seed=3)
    game.tick(2.0)
    game.end_round()
    store.record(game)
    assert store.history()[0].duration == pytest.approx(game.elapsed_us / 1_000_000)
    assert store.history()[0].duration > 0


def test_a_failure_inside_the_transaction_records_nothing(store):
    store.record(finished("tiered", 10))

    class Broken:
        def __init__(self, game):
            self._game = game

        def __getattr__(self, name):
            if name == "moves":
                raise RuntimeError("no moves")
            return getattr(self._game, name)

    with pytest.raises(RuntimeError, match="no moves"):
        store.record(Broken(finished("tiered", 5000)))
    assert store.stats("tiered").games == 1 and store.best(rules("tiered")) == 10
    store.record(finished("tiered", 20))  # the store still works
    assert store.stats("tiered").games == 2


# -- several writers -----------------------------------------------------------------------

def test_two_stores_on_one_folder_lose_nothing(tmp_path):
    first, second = RecordStore(tmp_path), RecordStore(tmp_path)
    for score in (10, 20, 30, 40, 50):
        first.record(finished("tiered", score))
    second.record(finished("tiered", 5))
    assert first.stats("tiered").games == second.stats("tiered").games == 6
    assert first.best(rules("tiered")) == second.best(rules("tiered")) == 50
    # the second store sees the first one's record before its own game
    assert second.record(finished("tiered", 60)).record_before == 50
    first.close()
    second.close()
    with RecordStore(tmp_path) as third:
        assert third.stats("tiered").games == 7


WRITER = textwrap.dedent("""
    import os, sys, time
    import blockyard
    from blockyard.records import RecordStore

    folder, go, name, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    store = RecordStore(folder)
    games = []
    for i in range(count):
        game = blockyard.new_game(name, seed=i)
        game.score = i
        game.end_round()
        games.append(game)
    print("ready", flush=True)
    while not os.path.exists(go):  # the start signal (the test ends this process if it hangs)
        time.sleep(0.005)  # the polling interval of that wait
    for game in games:
        store.record(game)
    store.close()
    print("done", flush=True)
""")


def run_writers(tmp_path, names, count):
    """Two processes record ``count`` games each into one folder, starting together."""
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    folder, go = tmp_path / "data", tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(script), str(folder), str(go), name,
                               str(count)], stdout=subprocess.PIPE, text=True)
             for name in names]
    try:
        for proc in procs:
            assert proc.stdout.readline() == "ready\n"
        go.touch()  # both start recording at the same moment
        for proc in procs:
            out, _ = proc.communicate(timeout=120)
            assert proc.returncode == 0 and out == "done\n"
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return RecordStore(folder)


def test_two_processes_recording_at_the_same_time_lose_nothing(tmp_path):
    count = 40
    with run_writers(tmp_path, ("tiered", "eu-classic"), count) as store:
        assert store.stats("tiered").games == count
        assert store.stats("eu-classic").games == count
        assert len(store.history()) == 2 * count
        assert store.best(rules("tiered")) == store.best(rules("eu-classic")) == count - 1
        assert sorted(store.last_scores("tiered", 100)) == list(range(count))


def test_two_processes_finishing_daily_games_at_once_count_only_one(tmp_path):
    count = 20
    with run_writers(tmp_path, ("eu-daily", "eu-daily"), count) as store:
        stats = store.statistics("eu-daily")
        assert (stats.games, stats.practice_games) == (2 * count, 2 * count - 1)
        days = store.played_days(rules("eu-daily"))
        assert len(days) == 1
        counted = [g for g in store.history("eu-daily") if not g.practice]
        assert len(counted) == 1 and days[0] == (counted[0].game_date, counted[0].score)


# -- migration from records.toml -----------------------------------------------------------

LEGACY = """\
[best]
eu = 900
tiered = 1234

[daily.eu-daily]
2026-02-02 = 400
2026-02-03 = 100

[stats.eu-classic]
games = 7
lines = 55
best_combo = 9

[stats.tiered]
games = 3
lines = 12
best_combo = 4

[stats.my-own-ruleset]
games = 2
lines = 1
best_combo = 8
"""


def test_an_old_records_toml_is_imported_once_and_kept_as_a_backup(tmp_path):
    (tmp_path / "records.toml").write_text(LEGACY)
    store = RecordStore(tmp_path)
    assert not (tmp_path / "records.toml").exists()
    backups = [p.name for p in tmp_path.iterdir() if p.name.startswith("records.toml.")]
    assert len(backups) == 1 and backups[0].startswith("records.toml.migrated-")
    assert (tmp_path / backups[0]).read_text() == LEGACY
    assert store.best(rules("eu-classic")) == store.best(rules("eu-hardcore")) == 900
    assert store.best(rules("tiered")) == 1234
    daily = rules("eu-daily")
    assert store.best(daily, "2026-02-02") == 400 and store.best(daily, "2026-02-03") == 100
    assert store.played_days(daily) == [("2026-02-02", 400), ("2026-02-03", 100)]
    assert store.played_today(daily, "2026-02-02") == 400
    assert store.stats("eu-classic") == records.Stats(7, 55, 5)  # capped to what eu shows
    assert store.stats("tiered") == records.Stats(3, 12, 4)
    assert store.stats("my-own-ruleset") == records.Stats(2, 1, 8)  # not installed: as it was
    # new games add to the imported figures
    summary = store.record(finished("eu-classic", 950))
    assert (summary.record_before, summary.record_after, summary.new_record) == (900, 950, True)
    assert store.stats("eu-classic") == records.Stats(8, 64, 5)
    practice = store.record(finished("eu-daily", 999, date=DAY))
    assert practice.practice and practice.record_after == 400
    store.close()
    # a later start does not import again, even if a records.toml turns up
    (tmp_path / "records.toml").write_text(LEGACY)
    with RecordStore(tmp_path) as again:
        assert again.stats("eu-classic") == records.Stats(8, 64, 5)
    assert not (tmp_path / "records.toml").exists()


def test_a_corrupt_records_toml_is_set_aside_instead_of_imported(tmp_path):
    (tmp_path / "records.toml").write_text('best = { tiered = "lots" }')
    with pytest.warns(UserWarning, match="moved to"):
        store = RecordStore(tmp_path)
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()
            if p.name.startswith("records.toml")] == ["records.toml.corrupt"]
    assert store.stats("tiered").games == 0
    store.close()


# -- files ---------------------------------------------------------------------------------

def test_records_survive_a_new_store(tmp_path):
    with RecordStore(tmp_path) as store:
        store.record(finished("tiered", 1234))
    with RecordStore(tmp_path) as store:
        assert store.best(rules("tiered")) == 1234
    with sqlite3.connect(tmp_path / "records.db") as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT ruleset, score FROM games").fetchall() == [("tiered", 1234)]
    conn.close()


def test_the_default_folder_is_the_data_folder(isolated_home):
    with RecordStore() as store:
        store.record(finished("tiered", 10))
    assert (isolated_home / "data" / "records.db").exists()


@pytest.mark.parametrize("content", [b"best = [1, 2", b"\xff\xfe" * 3000,
                                     b"SQLite format 3\x00" + b"\x00" * 200])
def test_a_corrupt_database_is_moved_aside_and_play_goes_on(tmp_path, content):
    (tmp_path / "records.db").write_bytes(content)
    with pytest.warns(UserWarning, match="moved to"):
        store = RecordStore(tmp_path)
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    summary = store.record(finished("tiered", 50))
    assert summary.record_after == 50
    store.close()
    with RecordStore(tmp_path) as again:
        assert again.best(rules("tiered")) == 50


def test_a_damaged_page_of_a_real_database_is_detected(tmp_path):
    with RecordStore(tmp_path) as store:
        for score in range(300):
            store.record(finished("tiered", score))
    with sqlite3.connect(tmp_path / "records.db") as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    path = tmp_path / "records.db"
    data = bytearray(path.read_bytes())
    assert len(data) > 8192
    data[4096:8192] = b"\xa5" * 4096  # a page of garbage
    path.write_bytes(bytes(data))
    with pytest.warns(UserWarning, match="moved to"):
        store = RecordStore(tmp_path)
    assert store.stats("tiered").games == 0
    store.close()


def test_a_database_of_a_newer_version_is_kept_aside(tmp_path):
    with sqlite3.connect(tmp_path / "records.db") as conn:
        conn.execute(f"PRAGMA user_version = {recordsdb.SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.warns(UserWarning, match="newer Blockyard"):
        RecordStore(tmp_path).close()
    assert len([p for p in tmp_path.iterdir() if ".corrupt-" in p.name]) == 1


def test_two_corrupt_databases_in_the_same_second_are_both_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "strftime", lambda fmt, *args: "20260202-120000")
    kept = []
    for content in (b"first broken file", b"second broken file", b"third"):
        (tmp_path / "records.db").write_bytes(content)
        with pytest.warns(UserWarning, match="moved to"):
            RecordStore(tmp_path).close()
        kept.append(content)
    aside = sorted(p.name for p in tmp_path.iterdir() if ".corrupt-" in p.name)
    assert aside == ["records.db.corrupt-20260202-120000",
                     "records.db.corrupt-20260202-120000-2",
                     "records.db.corrupt-20260202-120000-3"]
    assert [(tmp_path / name).read_bytes() for name in aside] == kept


def test_a_database_that_cannot_be_set_aside_still_lets_play_go_on(tmp_path, monkeypatch):
    (tmp_path / "records.db").mkdir()  # not a database, and in the way
    (tmp_path / "records.toml").write_text(LEGACY)

    def refuse(*args, **kwargs):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(recordsdb, "set_aside", refuse)
    with pytest.warns(UserWarning, match="will not be kept"):
        store = RecordStore(tmp_path)
    assert store.in_memory
    assert store.record(finished("tiered", 5)).record_after == 5
    assert store.stats("tiered").games == 1
    store.close()
    assert (tmp_path / "records.db").is_dir()
    # the old records are not imported into a database that will not be kept
    assert (tmp_path / "records.toml").read_text() == LEGACY


# -- issue 22, reproducer 9: player files ------------------------------------------------

def _plant(path, **values):
    """A row written behind the store's back (as a hand-edited or damaged file has)."""
    row = {"finished": "2026-02-02T12:00:00+00:00", "ruleset": "tiered",
           "record_group": "tiered", "record_kind": "best", "seed": 1, "game_date": None,
           "score": 10, "lines": 1, "moves": 3, "best_combo": 1, "duration": None,
           "hints": 0, "over_reason": "stuck", "replay": None, "practice": 0, **values}
    with sqlite3.connect(path) as conn:
        conn.execute(f"INSERT INTO games ({', '.join(row)}) VALUES "
                     f"({', '.join('?' * len(row))})", tuple(row.values()))
    conn.close()


def test_rows_with_impossible_values_are_skipped_and_named_the_rest_shown(tmp_path):
    with RecordStore(tmp_path) as first:
        first.record(finished("tiered", 300))
    db = tmp_path / "records.db"
    _plant(db, score="lots")
    _plant(db, lines=float(2**63))
    _plant(db, moves=-4, score=999)
    _plant(db, practice=7)
    with pytest.warns(UserWarning) as caught:
        store = RecordStore(tmp_path)
    message, = [str(w.message) for w in caught]
    assert message == (f"records database {db}: 4 finished games with impossible values "
                       "skipped (game 2: score = 'lots'; game 3: lines = 9.223372036854776e+18;"
                       " game 4: moves = -4; and 1 more)")
    assert store.skipped == (2, 3, 4, 5)
    stats = store.statistics(rules("tiered"))
    assert (stats.games, stats.best, stats.total_lines) == (1, 300, 3)
    assert store.last_scores("tiered") == [300]
    assert [g.score for g in store.history()] == [300]
    assert store.score_histogram("tiered", 1) == [HistogramBin(0, 300, 1)]
    assert store.record(finished("tiered", 50)).record_before == 300
    store.close()
    assert not any(".corrupt-" in p.name for p in tmp_path.iterdir())


def _refuse_writes(monkeypatch):
    """A read-only data folder: every read-write open of the database is opened
    read-only instead, so each write fails as SQLite fails on a read-only file."""
    real = recordsdb._sqlite_connect
    monkeypatch.setattr(recordsdb, "_sqlite_connect",
                        lambda target, read_only: real(target, target != ":memory:"))


def test_a_read_only_folder_shows_the_records_and_says_new_ones_cannot_be_saved(
        tmp_path, monkeypatch):
    with RecordStore(tmp_path) as first:
        first.record(finished("tiered", 300))
    healthy = (tmp_path / "records.db").read_bytes()
    _refuse_writes(monkeypatch)
    with pytest.warns(UserWarning, match="cannot be written .*the records are shown but new "
                                         "ones cannot be saved"):
        store = RecordStore(tmp_path)
    assert store.read_only and not store.in_memory
    assert store.best(rules("tiered")) == 300 and store.stats("tiered").games == 1
    summary = store.record(finished("tiered", 400))  # kept in memory, counted
    assert summary.record_before == 300 and summary.new_record
    assert store.unsaved == 1 and store.best(rules("tiered")) == 400
    assert "new ones cannot be saved" in store.problem
    assert store.retry() is False and store.unsaved == 1
    monkeypatch.undo()  # the folder can be written again
    assert store.retry() is True and store.unsaved == 0 and store.problem is None
    assert not store.read_only
    store.close()
    assert not any(".corrupt-" in p.name for p in tmp_path.iterdir())
    assert (tmp_path / "records.db").read_bytes() != healthy
    with RecordStore(tmp_path) as again:
        assert [g.score for g in again.history()] == [400, 300]


def test_a_full_disk_keeps_the_game_in_memory_says_so_and_retries(tmp_path):
    store = RecordStore(tmp_path)
    store.record(finished("tiered", 300))
    conn = store._conn
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
    summary = store.record(finished("tiered", 500), replay="r" * 4000)
    assert summary.record_before == 300 and summary.record_after == 500
    assert store.unsaved == 1 and "cannot be written (database or disk is full)" in store.problem
    assert store.best(rules("tiered")) == 500
    assert store.record(finished("tiered", 20, seed=2)).record_before == 500
    assert store.unsaved == 2 and store.retry() is False
    assert [g.score for g in store.history()] == [20, 500, 300]
    conn.execute("PRAGMA max_page_count = 1073741823")  # space again
    assert store.retry() is True and store.unsaved == 0 and store.problem is None
    store.close()
    assert not any(".corrupt-" in p.name for p in tmp_path.iterdir())
    with RecordStore(tmp_path) as again:
        assert [g.score for g in again.history()] == [20, 500, 300]


@pytest.mark.parametrize("name", ["SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR_WRITE",
                                  "SQLITE_CANTOPEN"])
def test_a_healthy_database_that_cannot_be_opened_for_writing_is_never_set_aside(
        tmp_path, monkeypatch, name):
    with RecordStore(tmp_path) as first:
        first.record(finished("tiered", 300))
    real = recordsdb._sqlite_connect

    def connect(target, read_only):
        if not read_only and target != ":memory:":
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorname = name
            raise error
        return real(target, read_only)

    monkeypatch.setattr(recordsdb, "_sqlite_connect", connect)
    with pytest.warns(UserWarning, match="the records are shown"):
        store = RecordStore(tmp_path)
    assert store.read_only and store.best(rules("tiered")) == 300
    store.close()
    assert not any(".corrupt-" in p.name for p in tmp_path.iterdir())
    monkeypatch.undo()
    with RecordStore(tmp_path) as again:  # the same database, untouched
        assert again.best(rules("tiered")) == 300 and again.stats("tiered").games == 1


def test_statistics_sum_the_recorded_durations_as_play_time(store):
    """Issue 25, item 12: the statistics' play time is the sum of the games'
    durations (a game recorded without one adds nothing)."""
    for seconds in (61.5, None, 30.25):
        game = blockyard.new_game("eu-classic", seed=1)
        game.end_game("ended")
        store.record(game, duration=seconds)
    assert [g.duration for g in store.history("eu-classic")] == [30.25, None, 61.5]  # newest first
    assert store.statistics("eu-classic").play_time == 91.75
    assert store.statistics("never-played").play_time == 0.0


def test_a_store_freed_in_another_thread_closes_quietly(tmp_path, monkeypatch):
    # the garbage collector may free a store in any thread (a live table's
    # connection thread, say): no "Exception ignored" from sqlite's thread check
    import gc
    import threading

    raised = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: raised.append(info.exc_value))
    holder = [RecordStore(tmp_path)]
    holder[0].statistics("eu-classic")

    def free() -> None:
        holder.clear()
        gc.collect()

    thread = threading.Thread(target=free)
    thread.start()
    thread.join(10)
    assert raised == []
