"""One account cannot crowd the others out (docs/online.md, "Nobody crowds the
others out"): it holds at most 3 seats at tables that are waiting or playing, the seats of
tables it opened and Play now's table included; a fourth ``POST /api/tables``
or join is refused 429 with a sentence saying why, the table left as it was.
Scripted from outside as a spammer would (the lobby flood and the seat flood),
and at the store with creates and joins at the same moment (judged holding the
account, so two cannot both pass). On SQLite and PostgreSQL."""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable

import pytest
import sqlalchemy as sa
from server_support import Server
from test_server_ratings import finish
from test_server_ratings import players as named
from test_server_ratings import playing as rated_playing

from blockyard.server import accounts, db, pairing, tablestore
from blockyard.server.accounts import Account
from blockyard.server.tablestore import MAX_SEATS_HELD, TableError

pytestmark = pytest.mark.usefixtures("cheap_passwords")  # accounts made at the store


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def open_table(server: Server, token: str, **body: object) -> tuple[int, dict[str, object]]:
    answer = server.client.post("/api/tables", json={"ruleset_id": "eu-classic", **body},
                                headers=auth(token))
    return answer.status_code, answer.json()


def lobby_ids(server: Server) -> set[int]:
    answer = server.client.get("/api/tables")
    assert answer.status_code == 200
    return {int(t["id"]) for t in answer.json()["tables"]}


def test_a_fourth_table_is_refused_and_the_lobby_keeps_room(server: Server) -> None:
    _, token = server.account("spam")
    opened = []
    for _ in range(MAX_SEATS_HELD):
        status, body = open_table(server, token)
        assert status == 201, body
        opened.append(int(str(body["id"])))
    before = lobby_ids(server)
    for private in (False, True):  # a private table is a seat as well
        status, body = open_table(server, token, private=private)
        assert status == 429, body
        assert "3" in str(body["error"]) and "seat" in str(body["error"]), body
    assert lobby_ids(server) == before  # nothing opened
    # the spammer's tables are 3 of the lobby, whoever else opens one is listed
    _, other = server.account("real")
    status, body = open_table(server, other)
    assert status == 201
    assert int(str(body["id"])) in lobby_ids(server)
    assert set(opened) <= lobby_ids(server)


def test_a_fourth_seat_taken_by_joining_is_refused(server: Server) -> None:
    _, taker = server.account("taker")
    hosts = [server.account("host")[1] for _ in range(MAX_SEATS_HELD + 1)]
    tables = []
    for host in hosts:
        status, body = open_table(server, host)
        assert status == 201
        tables.append(int(str(body["id"])))
    for table_id in tables[:MAX_SEATS_HELD]:
        joined = server.client.post(f"/api/tables/{table_id}/join", headers=auth(taker))
        assert joined.status_code == 200, joined.text
    refused = server.client.post(f"/api/tables/{tables[-1]}/join", headers=auth(taker))
    assert refused.status_code == 429, refused.text
    assert "seat" in refused.json()["error"]
    # the last table's seat is still free for a real player, who takes it
    shown = server.client.get(f"/api/tables/{tables[-1]}").json()
    assert shown["seats"][1] is None and shown["status"] == "waiting"
    _, real = server.account("real")
    assert server.client.post(f"/api/tables/{tables[-1]}/join",
                              headers=auth(real)).json() == {"seat": 1}
    # and the taker, seated at 3 playing tables, opens none either
    status, body = open_table(server, taker)
    assert status == 429, body


def test_a_seat_the_account_holds_already_is_kept_not_counted(server: Server) -> None:
    _, token = server.account("keeper")
    ids = [int(str(open_table(server, token)[1]["id"])) for _ in range(MAX_SEATS_HELD)]
    again = server.client.post(f"/api/tables/{ids[0]}/join", headers=auth(token))
    assert again.status_code == 200 and again.json() == {"seat": 0}


# -- at the store: counted in the transaction that takes the seat ------------------------


def players(engine: sa.Engine, count: int) -> list[Account]:
    return [accounts.create_account(engine, f"crowd{n}", f"password{n}")
            for n in range(count)]


def race(calls: list[Callable[[], object]]) -> tuple[int, int]:
    """Run ``calls`` in threads started together: how many passed and how many
    were refused 429 (anything else fails the test)."""
    start = threading.Barrier(len(calls))
    outcomes: list[object] = []
    lock = threading.Lock()

    def run(call: Callable[[], object]) -> None:
        try:
            start.wait(30)
            call()
            outcome: object = "passed"
        except TableError as exc:
            outcome = exc.status
        except BaseException as exc:  # reported by the assertion below
            outcome = exc
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(outcomes) == len(calls) and all(o in ("passed", 429) for o in outcomes), \
        outcomes
    return outcomes.count("passed"), outcomes.count(429)


def held(engine: sa.Engine, account: Account) -> int:
    with engine.connect() as conn:
        return tablestore.seats_held(conn, account.id)


def test_creates_at_the_same_moment_cannot_both_pass(engine: sa.Engine) -> None:
    (ann,) = players(engine, 1)
    for _ in range(MAX_SEATS_HELD - 1):
        tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    passed, refused = race([lambda: tablestore.create_table(
        engine, ann, "eu-classic", 2, False, [], None) for _ in range(6)])
    assert (passed, refused) == (1, 5)
    assert held(engine, ann) == MAX_SEATS_HELD


def test_joins_and_creates_at_the_same_moment_cannot_pass_the_limit(engine: sa.Engine
                                                                     ) -> None:
    ann, *hosts = players(engine, 5)
    tables = [tablestore.create_table(engine, host, "eu-classic", 2, False, [], None)
              for host in hosts]
    tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    calls: list[Callable[[], object]] = [
        lambda t=t: tablestore.join_table(engine, t.id, ann, None) for t in tables]
    calls.append(lambda: tablestore.create_table(engine, ann, "eu-classic", 2, False, [],
                                                 None))
    passed, refused = race(calls)
    assert (passed, refused) == (MAX_SEATS_HELD - 1, len(calls) - MAX_SEATS_HELD + 1)
    assert held(engine, ann) == MAX_SEATS_HELD


def test_finished_tables_free_their_seats_for_the_limit(engine: sa.Engine) -> None:
    ann, ben = players(engine, 2)
    tables = [tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
              for _ in range(MAX_SEATS_HELD)]
    with pytest.raises(TableError) as refused:
        tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    assert refused.value.status == 429
    playing = tablestore.join_table(engine, tables[0].id, ben, None)
    assert tablestore.finish_round(engine, playing, [3, 1])
    # the finished table's seat (still held, for a rematch) no longer counts
    tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    assert held(engine, ann) == MAX_SEATS_HELD


def test_play_nows_table_counts(engine: sa.Engine) -> None:
    ann, ben = players(engine, 2)
    moment = _dt.datetime.now(_dt.UTC)
    with engine.begin() as conn:
        conn.execute(sa.update(db.accounts).values(last_seen=moment))
    for player in (ann, ben):
        pairing.enter(engine, player.id, "eu-classic", moment)
    assert len(pairing.pair(engine, moment, moment - _dt.timedelta(minutes=1),
                            lambda _: None)) == 1
    assert held(engine, ann) == 1
    for _ in range(MAX_SEATS_HELD - 1):
        tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    with pytest.raises(TableError) as refused:
        tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    assert refused.value.status == 429


def test_asking_for_a_rematch_takes_a_seat_again(engine: sa.Engine) -> None:
    ann, ben = players(engine, 2)
    table = tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    table = tablestore.join_table(engine, table.id, ben, None)
    assert tablestore.finish_round(engine, table, [3, 1])
    finished = tablestore.load_table(engine, table.id)
    for _ in range(MAX_SEATS_HELD):  # the finished table's seat does not count
        tablestore.create_table(engine, ann, "eu-classic", 2, False, [], None)
    with pytest.raises(TableError) as refused:
        tablestore.rematch(engine, finished, None, seat=0)
    assert refused.value.status == 429 and "3" in str(refused.value)
    assert tablestore.load_table(engine, table.id).status == "finished"  # nothing done
    assert held(engine, ann) == MAX_SEATS_HELD
    # ben, who holds no other seat, asks for it: the round would seat ann again too
    with pytest.raises(TableError) as refused:
        tablestore.rematch(engine, finished, None, seat=1)
    assert refused.value.status == 429 and str(refused.value).startswith(
        f"{ann.name} holds a seat at 3 other tables")
    assert held(engine, ann) == MAX_SEATS_HELD


def test_a_rematch_seats_nobody_over_the_limit_of_seats(engine: sa.Engine) -> None:
    # docs/online.md, "Nobody crowds the others out": an old opponent's rematch deals
    # the other seat again, so it counts that player's seats as well
    vic, pat = named(engine, "vic", "pat")
    old = rated_playing(engine, [vic, pat], rated=False)
    assert finish(engine, old, [1, 2]) is not None
    old = tablestore.load_table(engine, old.id)
    for _ in range(tablestore.MAX_SEATS_HELD):
        tablestore.create_table(engine, vic, "eu-classic", 2, False, [], None)
    with pytest.raises(tablestore.TableError) as refused:
        tablestore.rematch(engine, old, None, seat=1)  # pat asks
    assert refused.value.status == 429 and str(refused.value).startswith("vic holds a seat at")
    assert tablestore.load_table(engine, old.id).status == "finished"  # nothing dealt
    with engine.connect() as conn:
        assert tablestore.seats_held(conn, vic.id) == tablestore.MAX_SEATS_HELD
