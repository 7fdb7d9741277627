"""Records and statistics (docs/rules.md §3.4, §4.5, §5.4): groups, per-date bests, zen,
atomic writes and corrupt files."""

from __future__ import annotations

import datetime as dt
import os
import tomllib

import pytest

import blockyard
from blockyard import records
from blockyard.records import RecordStore

EMPTY = ".........."


def finished(ruleset: str, score: int, **kwargs) -> blockyard.Game:
    game = blockyard.new_game(ruleset, seed=kwargs.pop("seed", 1), **kwargs)
    game.score = score
    game.lines_cleared = score // 100
    game.best_combo = 2
    game.end_round()
    return game


def test_classic_and_hardcore_share_the_eu_record(tmp_path):
    store = RecordStore(tmp_path)
    first = store.record(finished("eu-classic", 500))
    assert (first.record_before, first.record_after, first.new_record) == (None, 500, True)
    second = store.record(finished("eu-hardcore", 300))
    assert (second.record_before, second.record_after, second.new_record) == (500, 500, False)
    third = store.record(finished("eu-hardcore", 900))
    assert (third.record_before, third.record_after, third.new_record) == (500, 900, True)
    assert store.best(blockyard.load_ruleset("eu-classic")) == 900


def test_timed_keeps_its_own_best_and_does_not_count_for_eu(tmp_path):
    store = RecordStore(tmp_path)
    store.record(finished("eu-classic", 500))
    timed = store.record(finished("eu-timed", 2000))
    assert timed.record_before is None and timed.record_after == 2000
    assert store.best(blockyard.load_ruleset("eu-classic")) == 500
    assert store.best(blockyard.load_ruleset("eu-timed")) == 2000


def test_daily_keeps_a_best_per_date(tmp_path):
    store = RecordStore(tmp_path)
    day = dt.date(2026, 2, 2)
    store.record(finished("eu-daily", 400, date=day))
    again = store.record(finished("eu-daily", 300, date=day))
    assert (again.record_before, again.record_after) == (400, 400)
    other = store.record(finished("eu-daily", 100, date=day + dt.timedelta(days=1)))
    assert (other.record_before, other.record_after) == (None, 100)
    assert store.data["daily"]["eu-daily"] == {"2026-02-02": 400, "2026-02-03": 100}
    assert store.best(blockyard.load_ruleset("eu-classic")) is None


def test_zen_keeps_no_best_but_counts_games_and_lines(tmp_path):
    store = RecordStore(tmp_path)
    summary = store.record(finished("eu-zen", 0))
    assert summary.record_before is None and summary.record_after is None
    assert not summary.new_record
    assert store.stats("eu-zen").games == 1
    assert store.best(blockyard.load_ruleset("eu-zen")) is None


def test_statistics_per_ruleset(tmp_path):
    store = RecordStore(tmp_path)
    store.record(finished("nepal-new", 700))
    store.record(finished("nepal-new", 200))
    store.record(finished("nepal-today", 100))
    stats = store.stats("nepal-new")
    assert (stats.games, stats.lines, stats.best_combo) == (2, 9, 2)
    assert store.stats("nepal-today").games == 1
    assert store.best(blockyard.load_ruleset("nepal-new")) == 700
    assert store.best(blockyard.load_ruleset("nepal-today")) == 100


def test_records_survive_a_new_store_and_are_plain_toml(tmp_path):
    RecordStore(tmp_path).record(finished("tiered", 1234))
    data = tomllib.loads((tmp_path / "records.toml").read_text())
    assert data["best"]["tiered"] == 1234
    assert RecordStore(tmp_path).best(blockyard.load_ruleset("tiered")) == 1234


def test_the_default_folder_is_the_data_folder(isolated_home):
    RecordStore().record(finished("tiered", 10))
    assert (isolated_home / "data" / "records.toml").exists()


def test_a_crash_while_writing_leaves_the_old_file(tmp_path, monkeypatch):
    store = RecordStore(tmp_path)
    store.record(finished("tiered", 100))
    before = (tmp_path / "records.toml").read_text()

    def crash(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(records.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        store.record(finished("tiered", 5000))
    monkeypatch.undo()
    assert (tmp_path / "records.toml").read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["records.toml"]  # no temporary file left


@pytest.mark.parametrize("content", ["best = [1, 2", 'best = { tiered = "lots" }', "\xff\xfe"])
def test_a_corrupt_file_is_moved_aside_and_play_goes_on(tmp_path, content):
    (tmp_path / "records.toml").write_bytes(content.encode("latin-1"))
    with pytest.warns(UserWarning, match="moved to"):
        store = RecordStore(tmp_path)
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == content.encode("latin-1")
    summary = store.record(finished("tiered", 50))
    assert summary.record_after == 50
    assert RecordStore(tmp_path).best(blockyard.load_ruleset("tiered")) == 50


def test_write_atomically_replaces_the_file(tmp_path):
    path = tmp_path / "sub" / "x.toml"
    records.write_atomically(path, "a = 1\n")
    records.write_atomically(path, "a = 2\n")
    assert path.read_text() == "a = 2\n"
    assert os.listdir(path.parent) == ["x.toml"]
