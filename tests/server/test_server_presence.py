"""Who is there at a live table (SQLite and PostgreSQL), through the real routes
and sockets of a server in this process on a fake clock: each seat present,
away (the window said so, or no input for the away time), reconnecting (its
connections closed, less than the abandon time ago) or left (the leave message,
or abandoned), pushed as a ``seats`` message on every change, in the ``table``
message, and in the ``result`` (a seat that left is not one that finished).
Nothing waits for time to pass: the test moves the clock, then runs one sweep
of the server (what its timer does)."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import LocalServer, local_server
from test_server_tables import auth, live, seated, until

import blockyard
from blockyard.server.clock import FakeClock

ABANDON, AWAY = 120, 30


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """A server in this process on a fake clock: abandon time 120 s, away time
    30 s, idle time 1000 s."""
    monkeypatch.setenv("BLOCKYARD_SERVER_ABANDON_SECONDS", str(ABANDON))
    monkeypatch.setenv("BLOCKYARD_SERVER_AWAY_SECONDS", str(AWAY))
    monkeypatch.setenv("BLOCKYARD_SERVER_IDLE_SECONDS", "1000")
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        yield server


def seats_are(socket: Any, presence: list[str | None]) -> dict[str, Any]:
    """The next ``seats`` or ``table`` message saying ``presence`` (those on the
    way skipped: a connection opening when the others have connected already
    finds them there in its ``table`` message, and no change follows)."""
    return there(socket, lambda m: m["presence"] == presence)


def there(socket: Any, holds: Any) -> dict[str, Any]:
    """The next ``seats`` or ``table`` message for which ``holds`` is true."""
    for _ in range(1000):
        message = json.loads(socket.recv(timeout=30))
        if message["type"] in ("seats", "table") and holds(message):
            return dict(message)
    raise AssertionError("no such seats message")


def send(socket: Any, **message: Any) -> None:
    socket.send(json.dumps(message))


def first_move(server: LocalServer, table_id: int) -> list[Any]:
    seed = server.client.get(f"/api/tables/{table_id}").json()["seed"]
    game = blockyard.new_game("eu-classic", seed=seed)
    return ["place", *game.legal_moves()[0]]


def sweep(server: LocalServer, seconds: float) -> None:
    server.clock.advance(seconds)
    server.run(server.hub.sweep.once())


def test_present_reconnecting_present_again_then_abandoned_is_left(local: LocalServer
                                                                    ) -> None:
    table_id, owner, other, _ = seated(local, "eu-classic", "pr")
    with live(local, table_id, owner) as one:
        # the other seat holds its place but has not connected yet
        assert until(one, "table")["presence"] == ["present", "reconnecting"]
        with live(local, table_id, other) as two:
            table = until(two, "table")
            assert table["presence"] == ["present", "present"]
            assert table["waiting_for"] == [0, 1]  # playing: nobody has finished
            seats_are(one, ["present", "present"])
        local.wait_gone(table_id, left=1)
        seats_are(one, ["present", "reconnecting"])
        # the same seen from the table's page
        shown = local.client.get(f"/api/tables/{table_id}").json()
        assert shown["presence"] == ["present", "reconnecting"]
        with live(local, table_id, other) as back:  # back within the abandon time
            assert until(back, "table")["presence"] == ["present", "present"]
            seats_are(one, ["present", "present"])
        local.wait_gone(table_id, left=1)
        seats_are(one, ["present", "reconnecting"])
        sweep(local, ABANDON - 1)  # seat 0 had no input for the away time either
        seats_are(one, ["away", "reconnecting"])
        sweep(local, 2)  # abandoned: its game is ended, the seat has left
        assert seats_are(one, ["away", "left"])["waiting_for"] in ([0, 1], [0])
        there(one, lambda m: m["waiting_for"] == [0])
        send(one, type="act", action=["end"])
        result = until(one, "result")
        assert result["left"] == [1]  # seat 0 finished, seat 1 left


def test_the_window_says_away_and_active_and_no_input_is_away(local: LocalServer) -> None:
    table_id, owner, other, _ = seated(local, "eu-classic", "pw")
    with live(local, table_id, owner) as one, live(local, table_id, other) as two:
        until(two, "table")
        seats_are(one, ["present", "present"])
        send(two, type="presence", state="away")
        seats_are(one, ["present", "away"])
        seats_are(two, ["present", "away"])
        send(two, type="presence", state="active")
        seats_are(one, ["present", "present"])
        # no input for the away time: away (seat 0 acts, seat 1 does nothing)
        action = first_move(local, table_id)
        local.clock.advance(AWAY - 5)
        send(one, type="act", action=action)
        until(one, "move")
        sweep(local, 10)
        seats_are(one, ["present", "away"])
        send(two, type="act", action=action)  # acting brings it back
        seats_are(one, ["present", "present"])
        # a malformed presence is refused, and a spectator has no seat to be away from
        send(two, type="presence", state="asleep")
        assert until(two, "refused")["kind"] == "malformed"
        with live(local, table_id) as spectator:
            until(spectator, "table")
            send(spectator, type="presence", state="away")
            assert until(spectator, "refused")["kind"] == "spectator"


def test_a_seat_that_leaves_is_left_not_finished_and_the_table_says_whom_it_waits_for(
        local: LocalServer) -> None:
    _, a = local.account("pl")
    _, b = local.account("pl")
    _, c = local.account("pl")
    table_id = local.client.post("/api/tables", json={"ruleset_id": "eu-classic",
                                                      "seats": 3},
                                 headers=auth(a)).json()["id"]
    for token in (b, c):
        assert local.client.post(f"/api/tables/{table_id}/join",
                                 headers=auth(token)).status_code == 200
    with live(local, table_id, a) as one, live(local, table_id, b) as two, \
            live(local, table_id, c) as three:
        until(three, "table")
        seats_are(one, ["present", "present", "present"])
        send(one, type="act", action=["end"])  # seat 0 finished: it waits for 1 and 2
        assert there(two, lambda m: m["waiting_for"] == [1, 2])["presence"] == \
            ["present", "present", "present"]
        send(two, type="leave")  # seat 1 left: its game ended for it
        seats_are(one, ["present", "left", "present"])
        there(three, lambda m: m["presence"][1] == "left" and m["waiting_for"] == [2])
        send(three, type="act", action=["end"])
        for socket in (one, three):
            result = until(socket, "result")
            assert result["left"] == [1]
    # once finished, the result met on connecting says it too
    with live(local, table_id, a) as again:
        assert until(again, "result")["left"] == [1]


def test_a_seat_that_finished_then_closed_or_left_is_not_left_in_the_result(
        local: LocalServer) -> None:
    table_id, owner, other, _ = seated(local, "eu-classic", "pf")
    with live(local, table_id, owner) as one:
        with live(local, table_id, other) as two:
            until(two, "table")
            seats_are(one, ["present", "present"])
            send(two, type="act", action=["end"])
            there(one, lambda m: m["waiting_for"] == [0])
        local.wait_gone(table_id, left=1)
        # its game is over: no reconnecting to wait for
        seats_are(one, ["present", "left"])
        with live(local, table_id, other) as two:
            until(two, "table")
            seats_are(one, ["present", "present"])
            send(two, type="leave")  # it finished first: leaving now is not leaving the round
            seats_are(one, ["present", "left"])
        send(one, type="act", action=["end"])
        assert until(one, "result")["left"] == []


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_migration_0011_keeps_the_seats_presence_and_downgrades_to_0010(
        kind: str, tmp_path: Any, request: pytest.FixtureRequest) -> None:
    from pathlib import Path

    import sqlalchemy as sa
    from alembic import command
    from alembic.config import Config
    from server_support import old_database

    from blockyard.server import db

    empty = None if kind == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0010", empty)
    moment = _dt.datetime(2026, 12, 1, 12, tzinfo=_dt.UTC)
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO accounts (id, name, name_key, password_hash, created) "
                "VALUES (1, 'ann', 'ann', 'x', :at)"), {"at": moment})
            conn.execute(sa.text(
                "INSERT INTO tables (id, code, ruleset_id, seats, private, status, round, "
                "seed, creator_id, created) VALUES (4, 'ABCDEFGH', 'eu-classic', 2, false, "
                "'waiting', 1, 5, 1, :at)"), {"at": moment})
            conn.execute(sa.text("INSERT INTO seat_presence VALUES (4, 0, :at)"),
                         {"at": moment})
    finally:
        engine.dispose()
    assert db.migrate(url) == db.Migrated("0010", db.head_revision())
    engine = db.make_engine(url)
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    try:
        with engine.connect() as conn:  # a seat of before: no connection counted, not left
            row = conn.execute(sa.select(db.seat_presence)).one()
            assert (row.links, row.away, row.active, row.left_round, row.version) == \
                (0, False, None, None, 1)  # 0012: its first state
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0010")
        with engine.connect() as conn:
            found = sa.inspect(conn)
            assert not found.has_table("follows") and not found.has_table("mutes")
            assert {c["name"] for c in found.get_columns("seat_presence")} == \
                {"table_id", "seat", "seen"}
    finally:
        engine.dispose()
    assert db.migrate(url) == db.Migrated("0010", db.head_revision())


def test_the_store_believes_a_process_s_connections_only_while_it_touches_them(
        engine: Any, cheap_passwords: None) -> None:
    """Who is there decided on the store with explicit moments: a connection
    counted by a process that then died (it never closed it) is believed for
    ``stale_seconds``, then the seat is reconnecting, then left; the window's
    word and the last activity decide away; many tables in two queries."""
    from blockyard.server import accounts, presence, tablestore

    ann = accounts.create_account(engine, "ann", "correct horse")
    bob = accounts.create_account(engine, "bob", "correct horse")
    tables = []
    for _ in range(3):
        table = tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
        tables.append(tablestore.join_table(engine, table.id, bob, None))
    start = _dt.datetime(2026, 12, 2, 12, tzinfo=_dt.UTC)
    timing = presence.ViewTiming(away_seconds=30, abandon_seconds=120, stale_seconds=16)
    first = tables[0].id
    presence.touch_each(engine, {(first, 0): start, (first, 1): start},
                        {(first, 0): 1, (first, 1): 1})

    def view(at: float) -> tuple[str | None, ...]:
        moment = start + _dt.timedelta(seconds=at)
        found = presence.seat_views(engine, tables, moment, timing)
        assert found[first] == presence.seat_view(engine, tables[0], moment, timing)
        return found[first].presence

    assert view(0) == ("present", "present")
    presence.touch_each(engine, {(first, 1): start + _dt.timedelta(seconds=10)},
                        {(first, 1): -1})  # seat 1 closed its connection at 10 s
    assert view(10) == ("present", "reconnecting")
    assert view(16) == ("present", "reconnecting")  # seat 0's process is still believed
    assert view(17) == ("reconnecting", "reconnecting")  # ... not any more: it died
    assert view(119) == ("reconnecting", "reconnecting")
    assert view(121) == ("left", "reconnecting")  # the abandon time since its last touch
    assert view(131) == ("left", "left")
    presence.touch_each(engine, {(first, 1): start + _dt.timedelta(seconds=140)},
                        {(first, 1): 1})  # back
    presence.say_window(engine, first, 1, True, start + _dt.timedelta(seconds=141))
    assert view(141)[1] == "away"
    presence.say_window(engine, first, 1, False, start + _dt.timedelta(seconds=142))
    assert view(142)[1] == "present"
    presence.touch(engine, [(first, 1)], start + _dt.timedelta(seconds=170))  # a sweep
    assert view(172)[1] == "present"
    assert view(173)[1] == "away"  # no input for the away time at a playing table
    presence.mark_left(engine, first, 1, tables[0].round)
    assert view(174)[1] == "left"
    assert presence.left_seats(engine, first, tables[0].round) == [1]
    presence.touch_each(engine, {(tables[1].id, 0): start}, {(tables[1].id, 0): 1})
    others = presence.seat_views(engine, tables, start, timing, {tables[2].id: {1}})
    # a seat never seen is not there; one connected in the asking process is
    assert [others[t.id].presence for t in tables[1:]] == [("present", "left"),
                                                          ("left", "present")]
    assert [others[t.id].waiting_for for t in tables] == [(0, 1)] * 3


def test_who_is_there_is_told_from_what_the_process_keeps_without_a_query(
        local: LocalServer) -> None:
    """Once a table's connections are open, a change of who is there (a window
    going to the background and back, a connection closing) is written once and
    told to every connection from the rows and moves the process keeps: no query
    of the presence rows, and of the moves only a connection's opening asks for
    those after the ones known."""
    import sqlalchemy as sa

    table_id, owner, other, _ = seated(local, "eu-classic", "pq")
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(" ".join(statement.split()))

    engine = local.hub.server.engine
    with live(local, table_id, owner) as one:
        with live(local, table_id, other) as two:
            until(two, "table")
            seats_are(one, ["present", "present"])
            action = first_move(local, table_id)  # (the HTTP read of the table: before)
            sa.event.listen(engine, "before_cursor_execute", seen)
            send(two, type="presence", state="away")
            seats_are(one, ["present", "away"])
            send(two, type="presence", state="active")
            seats_are(one, ["present", "present"])
            send(one, type="act", action=action)
            until(two, "move")
            with live(local, table_id, other) as again:  # a second window of seat 1
                until(again, "move")
        try:  # seat 1's last connection closed
            seats_are(one, ["present", "reconnecting"])
        finally:
            sa.event.remove(engine, "before_cursor_execute", seen)
    reads = [s for s in statements if s.upper().startswith("SELECT")]
    assert [s for s in reads if "seat_presence" in s] == []
    # the moves: only the second window's opening reads those after the ones known
    # (a move stored elsewhere may not be announced here yet): on SQLite through
    # the pool, on PostgreSQL on the store's own connection (not seen here)
    moves = [s for s in reads if "table_actions" in s]
    assert len(moves) <= 1 and all("table_actions.n >" in s for s in moves)
    assert any("UPDATE seat_presence" in s for s in statements)  # written, though


def test_presence_rows_are_announced_as_written_and_the_newest_is_kept(
        engine: Any, cheap_passwords: None) -> None:
    """Each write of a seat's presence returns the row as it is now, one version
    on; its announcement carries the same rows; a process keeps the newest
    version of each row whatever order it hears them in, and what a round's
    moves say of each seat is the same whether read or known."""
    from types import SimpleNamespace

    from blockyard.server import accounts, presence, tablestore
    from blockyard.server.seatviews import SeatViews

    ann = accounts.create_account(engine, "ann", "correct horse")
    bob = accounts.create_account(engine, "bob", "correct horse")
    table = tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    table = tablestore.join_table(engine, table.id, bob, None)
    start = _dt.datetime(2026, 12, 2, 12, tzinfo=_dt.UTC)
    first = presence.touch_each(engine, {(table.id, 0): start}, {(table.id, 0): 1})
    assert [(r.seat, r.links, r.version) for r in first] == [(0, 1, 1)]
    later = start + _dt.timedelta(seconds=5)
    second = presence.touch_each(engine, {(table.id, 0): later}, {(table.id, 0): 1})
    assert [(r.seat, r.links, r.seen, r.version) for r in second] == [(0, 2, later, 2)]
    third = presence.say_window(engine, table.id, 0, True, later)
    assert [(r.away, r.version) for r in third] == [(True, 3)]
    closed = presence.touch_each(engine, {(table.id, 1): later}, {(table.id, 1): -1})
    assert [(r.seat, r.links) for r in closed] == [(1, 0)]  # never below none
    events = presence.announcements([*third, *closed])
    assert events == [{"kind": "presence", "table": table.id, "rows": [
        [0, later.isoformat(), 2, True, later.isoformat(), None, 3],
        [1, later.isoformat(), 0, False, None, None, closed[0].version]]}]
    assert presence.announced(events[0]) == ([*third, *closed], [])
    assert presence.announced({"kind": "presence", "table": table.id,
                               "rows": [[0, "not a time", 1, False, None, None, 1]]}) is None
    assert presence.announced({"kind": "presence", "table": "4", "rows": []}) is None
    kept = SeatViews(SimpleNamespace(), presence.ViewTiming(30, 120, 16))  # type: ignore[arg-type]
    kept.rows[table.id] = {}
    kept.keep(third)
    kept.keep(first)  # an older state heard late: not kept
    assert kept.rows[table.id][0] == third[0]
    kept.forget(table.id, [0])
    assert kept.rows[table.id] == {}
    # what the moves say of each seat: read from the store, or from the moves kept
    assert table.status == "playing"
    game = blockyard.new_game("eu-classic", seed=table.seed)
    for n, action in enumerate([["place", *game.legal_moves()[0]], ["end"]], start=1):
        game.apply(action)
        tablestore.add_action(engine, table, 0, n, action, game.score, game.over)
    read = presence.read_done(engine, [table])[table.id]
    assert read[0][1:] == (game.over, True) and 1 not in read
    assert presence.done_from(tablestore.actions(engine, table.id, table.round)) == read


def test_the_player_who_asks_for_a_rematch_is_present_in_the_new_round(
        local: LocalServer) -> None:
    # the asker sat at the result longer than the away time: asking is their input,
    # so the new round does not start with them shown away
    table_id, owner, other, _ = seated(local, "eu-classic", "rm")
    with live(local, table_id, owner) as one, live(local, table_id, other) as two:
        until(two, "table")
        seats_are(one, ["present", "present"])
        for socket in (one, two):
            send(socket, type="act", action=["end"])
        until(one, "result")
        local.clock.advance(AWAY + 10)
        send(one, type="rematch")
        table = there(one, lambda m: m["type"] == "table" and m["round"] == 2)
        assert table["presence"][0] == "present"
