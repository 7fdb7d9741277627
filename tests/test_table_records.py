"""Online tables' results in the records (records.db schema 2): kept once per
round, listed newest first, bad values refused, an older file (schema 1)
brought up to date with its games kept, read-only and full-disk fallbacks."""

from __future__ import annotations

import sqlite3

import pytest

import blockyard
from blockyard import recordsdb
from blockyard.records import RecordStore, TableResult


def result(table_id: int = 4, round_: int = 1, **changes) -> TableResult:
    values = {"server": "127.0.0.1:8765", "table_id": table_id, "round": round_,
              "ruleset": "eu-classic", "seats": ("ann", "ben"), "scores": (120, 80),
              "winner": 0, "seat": 1}
    values.update(changes)
    return TableResult(**values)


def test_a_table_result_is_kept_once_and_listed_newest_first(tmp_path):
    with RecordStore(tmp_path) as store:
        assert store.table_results() == []
        assert store.record_table(result()) is True
        assert store.record_table(result()) is False  # the same round again: kept once
        assert store.record_table(result(round_=2, scores=(5, 5), winner=None)) is True
        assert store.record_table(result(9, ruleset="sudoku-bloxx", seat=None)) is True
    with RecordStore(tmp_path) as again:
        kept = again.table_results()
        assert [(r.table_id, r.round) for r in kept] == [(9, 1), (4, 2), (4, 1)]
        first = kept[-1]
        assert (first.seats, first.scores, first.winner, first.seat) == (
            ("ann", "ben"), (120, 80), 0, 1)
        assert first.finished[:4].isdigit() and "T" in first.finished
        assert kept[1].winner is None and kept[0].seat is None
        assert [r.table_id for r in again.table_results("sudoku-bloxx")] == [9]
        assert len(again.table_results(limit=1)) == 1


@pytest.mark.parametrize(("changes", "named"), [
    ({"server": ""}, "server"), ({"table_id": -1}, "table_id"), ({"round": True}, "round"),
    ({"ruleset": "x" * 65}, "ruleset"), ({"scores": (1,)}, "a score for each"),
    ({"scores": (1, "lots")}, "scores"), ({"winner": 2}, "winner"), ({"seat": -1}, "seat"),
    ({"seats": (1, "ben")}, "seats")])
def test_a_result_that_cannot_be_kept_is_refused_naming_it(tmp_path, changes, named):
    with RecordStore(tmp_path) as store:
        with pytest.raises(ValueError, match=named):
            store.record_table(result(**changes))
        assert store.table_results() == [] and store.unsaved == 0


def test_an_older_file_gains_the_table_and_keeps_its_games(tmp_path):
    with RecordStore(tmp_path) as store:
        game = blockyard.new_game("tiered", seed=1)
        game.end_round()
        store.record(game)
    # as Blockyard wrote it before: schema 1, no table_results
    conn = sqlite3.connect(tmp_path / "records.db")
    conn.execute("DROP TABLE table_results")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with RecordStore(tmp_path) as store:
        assert store.stats("tiered").games == 1 and store.table_results() == []
        assert store.record_table(result()) is True
    conn = sqlite3.connect(tmp_path / "records.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == recordsdb.SCHEMA_VERSION == 2
    conn.close()
    with RecordStore(tmp_path) as store:
        assert len(store.table_results()) == 1 and store.stats("tiered").games == 1


def test_an_older_file_in_a_read_only_folder_is_shown_and_results_wait(tmp_path,
                                                                       monkeypatch):
    with RecordStore(tmp_path) as store:
        game = blockyard.new_game("tiered", seed=1)
        game.end_round()
        store.record(game)
    conn = sqlite3.connect(tmp_path / "records.db")
    conn.execute("DROP TABLE table_results")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    real = recordsdb._sqlite_connect
    monkeypatch.setattr(recordsdb, "_sqlite_connect",
                        lambda target, read_only: real(target, target != ":memory:"))
    with pytest.warns(UserWarning, match="the records are shown"):
        store = RecordStore(tmp_path)
    assert store.read_only and store.stats("tiered").games == 1
    assert store.record_table(result()) is True
    assert store.unsaved == 1 and [r.table_id for r in store.table_results()] == [4]
    assert store.record_table(result()) is False
    monkeypatch.undo()
    assert store.retry() is True and store.unsaved == 0
    store.close()
    with RecordStore(tmp_path) as again:
        assert [r.table_id for r in again.table_results()] == [4]


def test_a_row_with_impossible_values_is_skipped(tmp_path):
    with RecordStore(tmp_path) as store:
        store.record_table(result())
    conn = sqlite3.connect(tmp_path / "records.db")
    conn.execute("INSERT INTO table_results (finished, server, table_id, round, ruleset, "
                 "seats, scores, winner, seat) VALUES ('x', 's', 5, 1, 'eu-classic', "
                 "'[\"a\"]', 'not json', NULL, NULL)")
    conn.execute("INSERT INTO table_results (finished, server, table_id, round, ruleset, "
                 "seats, scores, winner, seat) VALUES ('x', 's', 6, 1, 'eu-classic', "
                 "'[\"a\"]', '[1]', 'first', NULL)")
    conn.commit()
    conn.close()
    with RecordStore(tmp_path) as store:
        assert [r.table_id for r in store.table_results()] == [4]
