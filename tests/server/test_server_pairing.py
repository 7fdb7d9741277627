"""Play now (``POST``, ``GET`` and ``DELETE /api/pairing``): players of close
ratings paired, the allowed gap widening with the time waited on the server's
clock (a fake one here, moved by the test), both seated at a new rated table
and told on their own live channel; the pool in the database (SQLite and
PostgreSQL), shared by two server processes; clear errors for a player in the
pool twice, a signed-out token and an unknown ruleset."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from server_support import LocalServer, Server, engine_of, local_server
from test_server_tables import WAIT, auth
from websockets.sync.client import ClientConnection, connect

from blockyard import protocol
from blockyard.server import accounts, db, pairing, tablestore
from blockyard.server.clock import FakeClock
from blockyard.server.pairing import BASE_GAP, WIDEN_PER_SECOND, Waiting, allowed_gap, match

T0 = _dt.datetime(2026, 12, 2, 12, 0, tzinfo=_dt.UTC)


def waiting(account_id: int, mu: float, after: float = 0.0, ruleset: str = "eu-classic"
            ) -> Waiting:
    return Waiting(account_id, ruleset, mu, T0 + _dt.timedelta(seconds=after))


def at(seconds: float) -> _dt.datetime:
    return T0 + _dt.timedelta(seconds=seconds)


# -- the matching, a pure function of the pool and the moment ------------------------------


def test_the_allowed_gap_widens_with_the_time_waited() -> None:
    assert allowed_gap(0) == BASE_GAP
    assert allowed_gap(10) == BASE_GAP + 10 * WIDEN_PER_SECOND
    assert allowed_gap(-5) == BASE_GAP  # a clock that stepped back widens nothing


def test_close_players_are_paired_at_once_and_far_ones_once_the_gap_has_widened() -> None:
    close = [waiting(1, 25.0), waiting(2, 26.5)]
    assert match(close, at(0)) == [(close[0], close[1])]
    far = [waiting(1, 25.0), waiting(2, 31.0)]  # 6 apart: 2 + 0.25 s ≥ 6 from 16 s on
    assert match(far, at(0)) == []
    assert match(far, at(15.9)) == []
    assert match(far, at(16)) == [(far[0], far[1])]


def test_the_longest_waiter_is_paired_first_with_the_closest_rating() -> None:
    pool = [waiting(3, 30.0, after=5), waiting(1, 25.0), waiting(2, 40.0, after=1),
            waiting(4, 26.0, after=9)]
    # the first in (25) with the closest (26, not 30); 30 and 40 are 10 apart
    assert match(pool, at(10)) == [(pool[1], pool[3])]
    # the longer waiter of the two (40, in at 1 s) decides: 2 + 0.25 × 32 = 10 at 33 s
    rest = [pool[0], pool[2]]
    assert match(rest, at(32.9)) == []
    assert match(rest, at(33)) == [(pool[2], pool[0])]


def test_players_of_different_rulesets_are_never_paired() -> None:
    pool = [waiting(1, 25.0), waiting(2, 25.0, ruleset="sudoku-bloxx")]
    assert match(pool, at(3600)) == []


# -- the pool in the database ----------------------------------------------------------------


@pytest.mark.usefixtures("cheap_passwords")
def test_the_pool_seats_a_pair_at_a_new_rated_table(engine: sa.Engine) -> None:
    ann, ben, cyd = (accounts.create_account(engine, n, f"password-{n}")
                     for n in ("ann", "ben", "cyd"))
    first = pairing.enter(engine, ann.id, "eu-classic", at(0))
    assert first == Waiting(ann.id, "eu-classic", 25.0, at(0))
    with pytest.raises(pairing.PairingError, match="already waiting for a game of "
                                                   "'eu-classic'") as twice:
        pairing.enter(engine, ann.id, "sudoku-bloxx", at(1))
    assert twice.value.status == 409
    pairing.enter(engine, ben.id, "eu-classic", at(2))
    pairing.enter(engine, cyd.id, "sudoku-bloxx", at(3))
    assert pairing.status(engine, ann.id, at(10)) == {
        "ruleset_id": "eu-classic", "since": "2026-12-02T12:00:00+00:00", "waited": 10.0,
        "gap": allowed_gap(10), "table": None, "seat": None}
    # only players online are paired: last seen 100 s ago, not within 60 s (but
    # within the lapse time: still in the pool)
    with engine.begin() as conn:
        conn.execute(sa.update(db.accounts).values(last_seen=at(-100)))
    assert pairing.pair(engine, at(10), at(10 - 60), lambda _: None) == []
    assert pairing.status(engine, ann.id, at(10)) is not None
    with engine.begin() as conn:
        conn.execute(sa.update(db.accounts).values(last_seen=at(9)))
    seated = pairing.pair(engine, at(10), at(10 - 60), lambda _: None)
    assert [(p.ruleset_id, p.account_ids) for p in seated] == [("eu-classic",
                                                                (ann.id, ben.id))]
    table = tablestore.load_table(engine, seated[0].table_id)
    assert (table.status, table.rated, table.private, table.seats) == ("playing", True,
                                                                       False, 2)
    assert table.players == ("ann", "ben") and table.started == at(10)
    assert pairing.status(engine, ben.id, at(11)) == {
        "ruleset_id": "eu-classic", "since": "2026-12-02T12:00:02+00:00", "waited": None,
        "gap": None, "table": table.id, "seat": 1}
    assert pairing.paired_table(engine, ann.id) == (table.id, "eu-classic", 0)
    assert pairing.pair(engine, at(12), at(12 - 60), lambda _: None) == []  # cyd alone
    assert not pairing.leave(engine, ann.id)  # paired: no longer waiting
    # seated at the table Play now dealt: not in the pool again until it is over
    with pytest.raises(pairing.PairingError, match=f"you are seated at table {table.id}"
                       ) as seated_twice:
        pairing.enter(engine, ann.id, "eu-classic", at(20))
    assert seated_twice.value.status == 409
    assert pairing.pair(engine, at(20), at(20 - 60), lambda _: None) == []
    # entering again after the paired round is over starts a new wait
    assert tablestore.finish_round(engine, table, [5, 9])
    pairing.enter(engine, ann.id, "eu-classic", at(20))
    assert pairing.status(engine, ann.id, at(20))["table"] is None  # type: ignore[index]
    assert pairing.leave(engine, ann.id)
    assert pairing.status(engine, ann.id, at(20)) is None
    # a player away for the lapse time leaves the pool
    assert pairing.pair(engine, at(9 + pairing.LAPSE_SECONDS + 1), at(100), lambda _: None) \
        == []
    assert pairing.status(engine, cyd.id, at(200)) is None


# -- through the routes, on a fake clock -------------------------------------------------------


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """A server in this process deciding by a fake clock (started at the real time:
    the store stamps some rows with it)."""
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        yield server


def feed(server: Server | LocalServer, token: str) -> ClientConnection:
    url = server.url.replace("http://", "ws://") + "/api/me/live"
    socket = connect(url, open_timeout=WAIT).__enter__()  # closed by the caller's with
    socket.send(json.dumps(protocol.hello(token)))
    return socket


def until_paired(socket: ClientConnection) -> dict[str, Any]:
    for _ in range(1000):
        message = json.loads(socket.recv(timeout=WAIT))
        if message["type"] == "paired":
            return dict(message)
    raise AssertionError("no paired message")


def set_mu(database: str, name: str, mu: float) -> None:
    with engine_of(database) as engine, engine.begin() as conn:
        account_id = conn.execute(sa.select(db.accounts.c.id).where(
            db.accounts.c.name_key == name.lower())).scalar_one()
        conn.execute(sa.insert(db.ratings).values(
            account_id=account_id, ruleset_id="eu-classic", mu=mu, sigma=4.0, games=12,
            value=mu - 12, updated=_dt.datetime.now(_dt.UTC)))


def test_the_gap_widens_on_the_servers_clock_until_the_pair_is_seated(
        local: LocalServer) -> None:
    strong, strong_token = local.account("pn")
    _, weak_token = local.account("pn")
    set_mu(local.database, strong, 31.0)  # 6 above a newcomer's 25
    with feed(local, strong_token) as one, feed(local, weak_token) as two:
        for token in (strong_token, weak_token):
            answer = local.client.post("/api/pairing", json={"ruleset_id": "eu-classic"},
                                       headers=auth(token))
            assert answer.status_code == 201, answer.text
            assert answer.json()["table"] is None and answer.json()["gap"] == BASE_GAP

        def state(token: str) -> dict[str, Any]:
            found = local.client.get("/api/pairing", headers=auth(token))
            assert found.status_code == 200, found.text
            return dict(found.json())

        local.clock.advance(15)  # the gap: 2 + 15 × 0.25 = 5.75 < 6
        local.run(local.app.state.social.pair_now())
        assert state(strong_token)["table"] is None
        assert state(strong_token)["gap"] == 5.75 and state(strong_token)["waited"] == 15
        local.clock.advance(1)  # 6.0: within it
        local.run(local.app.state.social.pair_now())
        told = [until_paired(one), until_paired(two)]
        table_id = told[0]["table"]
        assert told == [{"type": "paired", "table": table_id, "ruleset_id": "eu-classic",
                         "seat": 0},
                        {"type": "paired", "table": table_id, "ruleset_id": "eu-classic",
                         "seat": 1}]
        assert state(weak_token)["table"] == table_id and state(weak_token)["seat"] == 1
    shown = local.client.get(f"/api/tables/{table_id}").json()
    assert shown["rated"] is True and shown["status"] == "playing"
    assert shown["ratings"][0]["mu"] == 31.0
    # a window connecting afterwards is told too
    with feed(local, weak_token) as again:
        assert until_paired(again)["table"] == table_id


def test_play_now_refuses_with_clear_errors(local: LocalServer) -> None:
    _, token = local.account("pe")
    body = {"ruleset_id": "eu-classic"}
    assert local.client.post("/api/pairing", json=body).status_code == 401
    unknown = local.client.post("/api/pairing", json={"ruleset_id": "no-such-rules"},
                                headers=auth(token))
    assert unknown.status_code == 422 and "does not serve" in unknown.json()["error"]
    extra = local.client.post("/api/pairing", json={**body, "seats": 3}, headers=auth(token))
    assert extra.status_code == 422
    gone = local.client.delete("/api/pairing", headers=auth(token))
    assert gone.status_code == 404 and "not waiting" in gone.json()["error"]
    assert local.client.get("/api/pairing", headers=auth(token)).status_code == 404
    assert local.client.post("/api/pairing", json=body, headers=auth(token)).status_code == 201
    twice = local.client.post("/api/pairing", json=body, headers=auth(token))
    assert twice.status_code == 409 and "already waiting" in twice.json()["error"]
    assert local.client.delete("/api/pairing", headers=auth(token)).status_code == 204
    assert local.client.post("/api/pairing", json=body, headers=auth(token)).status_code == 201
    assert local.client.delete("/api/sessions", headers=auth(token)).status_code == 204
    signed_out = local.client.post("/api/pairing", json=body, headers=auth(token))
    assert signed_out.status_code == 401 and "sign in" in signed_out.json()["error"]
    assert local.client.delete("/api/pairing", headers=auth(token)).status_code == 401


# -- two server processes on one PostgreSQL --------------------------------------------------


def test_two_processes_pair_from_one_pool(two_servers: tuple[Server, Server]) -> None:
    first, second = two_servers
    _, alice = first.account("tp")
    _, bob = second.account("tp")
    with feed(first, alice) as one, feed(second, bob) as two:
        body = {"ruleset_id": "eu-classic"}
        assert first.client.post("/api/pairing", json=body,
                                 headers=auth(alice)).status_code == 201
        assert second.client.post("/api/pairing", json=body,
                                  headers=auth(bob)).status_code == 201
        told = [until_paired(one), until_paired(two)]
    assert told[0]["table"] == told[1]["table"]
    assert sorted(m["seat"] for m in told) == [0, 1]
    for server in (first, second):
        shown = server.client.get(f"/api/tables/{told[0]['table']}").json()
        assert shown["rated"] is True and shown["status"] == "playing"
