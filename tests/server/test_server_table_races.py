"""Leaves, joins, rematches and the abandon sweep at the same moment: each is
decided in one transaction that sees the table as it is now, so no order of
them leaves a playing table with a free seat, a seat taken at a closed table, or
a table playing before every seat is taken. Run on SQLite and PostgreSQL; the
races are reproduced by calling the store in a set order with a table read
before the other call (as a concurrent request would have read it), and by a
bounded number of threaded tries."""

from __future__ import annotations

import asyncio
import datetime as _dt
import threading
from collections.abc import Callable
from functools import partial

import pytest
import sqlalchemy as sa

from blockyard.server import accounts, presence, tablestore
from blockyard.server.accounts import Account
from blockyard.server.tablestore import Table, TableError

pytestmark = pytest.mark.usefixtures("cheap_passwords")  # dozens of accounts made here


def players(engine: sa.Engine, count: int) -> list[Account]:
    return [accounts.create_account(engine, f"racer{n}", f"password{n}")
            for n in range(count)]


def finished_duel(engine: sa.Engine, ann: Account, ben: Account) -> Table:
    table = tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    table = tablestore.join_table(engine, table.id, ben, None)
    assert table.status == "playing"
    assert tablestore.finish_round(engine, table, [10, 5])
    table = tablestore.load_table(engine, table.id)
    assert table.status == "finished"
    return table


def race(*calls: Callable[[], object]) -> None:
    """Run ``calls`` in threads started together; a ``TableError`` (a refusal) is
    an answer, any other exception fails the test."""
    start = threading.Barrier(len(calls))
    errors: list[BaseException] = []

    def run(call: Callable[[], object]) -> None:
        try:
            start.wait(10)
            call()
        except TableError:
            pass
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors, errors


def consistent(table: Table) -> None:
    """A playing table has every seat taken; a closed one has nobody."""
    if table.status == "playing":
        assert None not in table.player_ids, table
    if table.status == "waiting":
        assert any(holder is not None for holder in table.player_ids), table


def test_a_leave_after_a_rematch_dealt_declines_the_round(engine: sa.Engine) -> None:
    ann, ben = players(engine, 2)
    finished = finished_duel(engine, ann, ben)
    dealt = tablestore.rematch(engine, finished, None, 0)
    assert (dealt.status, dealt.round) == ("playing", 2)
    # ben's leave read the table when it was finished: decided on the table as now
    outcome, table, seat = tablestore.leave_table(engine, finished.id, ben, None)
    assert (outcome, seat) == ("declined", 1)
    assert (table.status, table.round, table.players) == ("waiting", 3, ("racer0", None))
    assert table.rematch_by is None
    # the old path with the stale table leaves a playing table's seat held
    ann2, ben2 = accounts.create_account(engine, "racer8", "password8"), \
        accounts.create_account(engine, "racer9", "password9")
    finished = finished_duel(engine, ann2, ben2)
    tablestore.rematch(engine, finished, None, 0)
    table = tablestore.free_seat(engine, finished, 1)
    assert (table.status, table.players) == ("playing", ("racer8", "racer9"))


def test_a_rematch_after_a_leave_waits_for_a_player(engine: sa.Engine) -> None:
    ann, ben = players(engine, 2)
    finished = finished_duel(engine, ann, ben)  # the rematch read it full
    outcome, table, _ = tablestore.leave_table(engine, finished.id, ben, None)
    assert (outcome, table.status, table.players) == ("freed", "finished", ("racer0", None))
    table = tablestore.rematch(engine, finished, None, 0)
    assert (table.status, table.round, table.players) == ("waiting", 2, ("racer0", None))
    assert table.started is None


def test_a_leave_of_a_round_the_seat_asked_for_ends_its_game(engine: sa.Engine) -> None:
    ann, ben = players(engine, 2)
    finished = finished_duel(engine, ann, ben)
    tablestore.rematch(engine, finished, None, 1)  # ben asked for it
    outcome, table, seat = tablestore.leave_table(engine, finished.id, ben, None)
    assert (outcome, seat, table.status, table.round) == ("end", 1, "playing", 2)
    assert tablestore.leave_table(engine, finished.id, accounts.create_account(
        engine, "nobody", "password0"), None)[0] == "none"
    with pytest.raises(TableError) as refused:
        tablestore.leave_table(engine, 2**31 - 1, ben, None)
    assert refused.value.status == 404


def test_leaves_and_rematches_in_threads_never_leave_a_free_seat_playing(
        engine: sa.Engine) -> None:
    for attempt in range(6):
        ann = accounts.create_account(engine, f"ann{attempt}", "password1")
        ben = accounts.create_account(engine, f"ben{attempt}", "password2")
        finished = finished_duel(engine, ann, ben)
        race(partial(tablestore.rematch, engine, finished, None, 0),
             partial(tablestore.leave_table, engine, finished.id, ben, None))
        table = tablestore.load_table(engine, finished.id)
        consistent(table)
        assert table.players == ("ann" + str(attempt), None)


def test_a_join_after_the_last_player_left_finds_the_table_closed(engine: sa.Engine
                                                                   ) -> None:
    ann, ben = players(engine, 2)
    table = tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    outcome, closed, _ = tablestore.leave_table(engine, table.id, ann, None)
    assert (outcome, closed.status, closed.players) == ("freed", "finished", (None, None))
    with pytest.raises(TableError) as refused:
        tablestore.join_table(engine, table.id, ben, None)
    assert refused.value.status == 409
    assert "closed" in str(refused.value) and "full" not in str(refused.value)
    assert tablestore.load_table(engine, table.id).players == (None, None)
    with pytest.raises(TableError) as missing:
        tablestore.join_table(engine, 2**31 - 1, ben, None)
    assert missing.value.status == 404


def test_a_join_and_a_leave_at_a_waiting_table(engine: sa.Engine) -> None:
    ann, ben, cat = players(engine, 3)
    table = tablestore.create_table(engine, ann, "eu-classic", 3, False, [], None)
    tablestore.join_table(engine, table.id, ben, None)
    tablestore.leave_table(engine, table.id, ben, None)
    joined = tablestore.join_table(engine, table.id, cat, None)  # two seats of three
    assert (joined.status, joined.players) == ("waiting", ("racer0", "racer2", None))
    for attempt in range(6):
        one = accounts.create_account(engine, f"one{attempt}", "password1")
        two = accounts.create_account(engine, f"two{attempt}", "password2")
        three = accounts.create_account(engine, f"three{attempt}", "password3")
        table = tablestore.create_table(engine, one, "eu-classic", 3, False, [], None)
        tablestore.join_table(engine, table.id, two, None)
        race(partial(tablestore.join_table, engine, table.id, three, None),
             partial(tablestore.leave_table, engine, table.id, two, None))
        found = tablestore.load_table(engine, table.id)
        consistent(found)
        # the join first: the table full and playing (the leave then ends two's
        # game); the leave first: three takes a seat, the table still waiting
        assert (found.status, found.players) in (
            ("playing", (f"one{attempt}", f"two{attempt}", f"three{attempt}")),
            ("waiting", (f"one{attempt}", f"three{attempt}", None)))


def test_the_sweep_freeing_a_seat_and_a_join_at_once(engine: sa.Engine) -> None:
    for attempt in range(6):
        one = accounts.create_account(engine, f"one{attempt}", "password1")
        two = accounts.create_account(engine, f"two{attempt}", "password2")
        table = tablestore.create_table(engine, one, "eu-classic", 2, False, [], None)
        cutoff = accounts.now() + _dt.timedelta(seconds=5)  # the creator is overdue
        race(partial(tablestore.join_table, engine, table.id, two, None),
             partial(presence.free_waiting, engine, table.id, 0, cutoff))
        found = tablestore.load_table(engine, table.id)
        consistent(found)
        # either the join came first (the table plays; the sweep then frees
        # nothing) or the sweep closed the table and the join was refused
        assert (found.status, found.players) in (
            ("playing", (f"one{attempt}", f"two{attempt}")), ("finished", (None, None)))


def test_a_seat_is_present_only_while_its_current_player_is_connected(
        engine: sa.Engine) -> None:
    from types import SimpleNamespace

    from blockyard.server.clock import SystemClock
    from blockyard.server.room import Watcher
    from blockyard.server.settings import Settings
    from blockyard.server.tables import Hub

    ann, ben, cat = players(engine, 3)
    hub = Hub(SimpleNamespace(engine=engine, clock=SystemClock(),  # type: ignore[arg-type]
                              settings=Settings(database=str(engine.url))))
    table = tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    # ben watches as a spectator, then takes the seat while connected
    hub.room.watchers[table.id] = {Watcher(None, ann), Watcher(None, ben),  # type: ignore[arg-type]
                              Watcher(None, None)}  # type: ignore[arg-type]
    assert asyncio.run(hub.sweep.connected_seats()) == [(table.id, 0)]
    tablestore.join_table(engine, table.id, ben, None)
    assert asyncio.run(hub.sweep.connected_seats()) == [(table.id, 0), (table.id, 1)]
    # ann leaves (through another connection) but keeps this one open; cat takes
    # her seat without connecting: seat 0 is not present for cat
    tablestore.finish_round(engine, tablestore.load_table(engine, table.id), [1, 2])
    finished = tablestore.load_table(engine, table.id)
    assert tablestore.leave_table(engine, table.id, ann, None)[0] == "freed"
    tablestore.rematch(engine, finished, None, 1)
    assert tablestore.join_table(engine, table.id, cat, None).players == ("racer2", "racer1")
    assert asyncio.run(hub.sweep.connected_seats()) == [(table.id, 1)]
