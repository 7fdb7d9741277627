"""Seats that never connect and players who vanish hold no table past the
abandon timeout (BLOCKYARD_SERVER_ABANDON_SECONDS), whichever process they were
on: presence is kept in the database, so one process's sweep sees the players
connected to another. Players who stay connected and never act hold none past
the idle time (BLOCKYARD_SERVER_IDLE_SECONDS). Through the real routes and
sockets of servers in this process on a fake clock: the test moves the clock,
then runs one sweep (what the server's timer does); nothing waits for time to
pass."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator

import pytest
from server_support import LocalServer, Postgres, local_server
from test_server_tables import auth, live, play, seated, until

import blockyard
from blockyard.server import db
from blockyard.server.clock import FakeClock

ABANDON_SECONDS = 120
IDLE_SECONDS = 1000
"""Longer than every abandon wait here: the idle rule ends only the seats of the idle test."""


@pytest.fixture
def timed(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> FakeClock:
    """The servers' timeouts set (the idle time :data:`IDLE_SECONDS`, or the test's
    ``idle`` parameter), and the fake clock they decide by (started at the real
    time: the store stamps some rows with it)."""
    idle = getattr(request, "param", {}).get("idle", IDLE_SECONDS)
    monkeypatch.setenv("BLOCKYARD_SERVER_ABANDON_SECONDS", str(ABANDON_SECONDS))
    monkeypatch.setenv("BLOCKYARD_SERVER_IDLE_SECONDS", str(idle))
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    return FakeClock(_dt.datetime.now(_dt.UTC))


@pytest.fixture
def quick(timed: FakeClock, tmp_path: object) -> Iterator[LocalServer]:
    """One server (SQLite) in this process on the fake clock."""
    url = f"sqlite:///{tmp_path}/db.sqlite3"
    db.migrate(url)
    with local_server(url, timed) as server:
        yield server


BEAT = ABANDON_SECONDS / 4
"""How often each server sweeps while the clock moves (its timer's beat: it notes
its connected players present at each)."""


def later(*servers: LocalServer, seconds: float = 2 * ABANDON_SECONDS) -> None:
    """``seconds`` pass on the servers' clock, each server sweeping at every
    :data:`BEAT` as its timer does. (Twice the abandon time by default: some rows
    are stamped with the real time, a few seconds past the fake clock's start.)"""
    steps = max(1, round(seconds / BEAT))
    for _ in range(steps):
        servers[0].clock.advance(seconds / steps)
        for server in servers:
            server.run(server.hub.sweep.once())


def test_a_seat_that_never_connects_is_ended(quick: LocalServer) -> None:
    table_id, owner, _, joined = seated(quick, prefix="nc")
    assert joined == {"seat": 1}
    with live(quick, table_id, owner) as stays:
        assert until(stays, "table")["status"] == "playing"
        # seat 1 joined over HTTP and never opened the live connection
        later(quick)
        assert until(stays, "move") == {"type": "move", "seat": 1, "action": ["end"],
                                        "score": 0, "over": True}
        game = blockyard.new_game("eu-classic", seed=table_seed(quick, table_id))
        play(stays, game, [], 0)  # the connected player plays on


def test_an_abandoned_seat_is_ended(quick: LocalServer) -> None:
    table_id, owner, other, _ = seated(quick, prefix="ab")
    with live(quick, table_id, owner) as stays:
        with live(quick, table_id, other) as goes:
            until(goes, "table")
        until(stays, "table")
        # the other player's connection is gone: after the timeout the seat ends
        quick.wait_gone(table_id, left=1)
        later(quick)
        assert until(stays, "move") == {"type": "move", "seat": 1, "action": ["end"],
                                        "score": 0, "over": True}


SHORT_IDLE = 60
"""The idle time of the idle test: under a Sudoku Bloxx round's 360 s, which would
end the round first."""


@pytest.mark.parametrize("timed", [{"idle": SHORT_IDLE}], indirect=True)
@pytest.mark.parametrize("ruleset", ["eu-classic", "sudoku-bloxx"])
def test_connected_players_who_never_act_hold_no_duel(quick: LocalServer, ruleset: str
                                                      ) -> None:
    table_id, owner, other, _ = seated(quick, ruleset, "id")
    with live(quick, table_id, owner) as one, live(quick, table_id, other) as two:
        until(one, "table")
        until(two, "table")
        # both connected, neither acts: the server ends both seats after the idle time
        later(quick, seconds=2 * SHORT_IDLE)
        ends = sorted((m["seat"], m["action"]) for m in (until(one, "move"),
                                                         until(one, "move")))
        assert ends == [(0, ["end"]), (1, ["end"])]
        assert until(two, "result")["scores"] == [0, 0]


def table_seed(server: LocalServer, table_id: int) -> int:
    return int(server.client.get(f"/api/tables/{table_id}").json()["seed"])


def test_a_waiting_tables_absent_seat_is_freed(quick: LocalServer) -> None:
    owner_name, owner = quick.account("wt")
    _, other = quick.account("wt")
    table = quick.client.post("/api/tables", json={"ruleset_id": "eu-classic", "seats": 3},
                              headers=auth(owner)).json()
    with live(quick, table["id"], owner) as stays:
        assert until(stays, "table")["seats"] == [owner_name, None, None]
        assert quick.client.post(f"/api/tables/{table['id']}/join",
                                 headers=auth(other)).json() == {"seat": 1}
        taken = until(stays, "table")
        assert taken["seats"][1] is not None
        # the joined player never connects: the seat is freed, the table waits on
        later(quick)
        freed = until(stays, "table")
        assert freed["seats"] == [owner_name, None, None] and freed["status"] == "waiting"
    assert quick.client.post(f"/api/tables/{table['id']}/join",
                             headers=auth(other)).json() == {"seat": 1}


def test_a_waiting_table_whose_creator_never_comes_is_closed(quick: LocalServer) -> None:
    _, owner = quick.account("cl")
    _, other = quick.account("cl")
    table = quick.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                              headers=auth(owner)).json()
    with live(quick, table["id"]) as spectator:  # a spectator holds no seat
        assert until(spectator, "table")["status"] == "waiting"
        later(quick)
        closed = until(spectator, "table")
        assert closed["seats"] == [None, None] and closed["status"] == "finished"
    stored = quick.client.get(f"/api/tables/{table['id']}").json()
    assert stored["status"] == "finished" and stored["results"] == []
    assert table["id"] not in [t["id"] for t in quick.client.get("/api/tables").json()
                               ["tables"]]
    join = quick.client.post(f"/api/tables/{table['id']}/join", headers=auth(other))
    assert join.status_code == 409


@pytest.fixture
def two_quick(postgres: Postgres, timed: FakeClock) -> Iterator[tuple[LocalServer, LocalServer]]:
    """Two servers in this process on one PostgreSQL database and one fake clock:
    two processes of one deployment, as far as presence goes (it is kept in the
    database)."""
    url = postgres.new_database()
    db.migrate(url)
    with local_server(url, timed) as one, local_server(url, timed) as two:
        yield one, two


def test_presence_is_shared_between_processes(two_quick: tuple[LocalServer, LocalServer]
                                              ) -> None:
    one, two = two_quick
    _, alice = one.account("pa")
    _, bob = two.account("pb")
    table = one.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                            headers=auth(alice)).json()
    two.client.post(f"/api/tables/{table['id']}/join", headers=auth(bob))
    with live(one, table["id"], alice) as a:
        with live(two, table["id"], bob) as b:
            seed = until(a, "table")["seed"]
            until(b, "table")
            games = [blockyard.new_game("eu-classic", seed=seed) for _ in range(2)]
            # several timeouts pass, each process sweeping: each sees the other's
            # player present, so neither seat is ended (the next moves are the ones
            # played)
            later(one, two, seconds=3 * ABANDON_SECONDS)
            play(a, games[0], [b], 0)
            play(b, games[1], [a], 1)
        # bob's process loses him: a process ends his seat after the timeout
        two.wait_gone(table["id"])
        later(one, two)
        assert until(a, "move") == {"type": "move", "seat": 1, "action": ["end"],
                                    "score": games[1].score, "over": True}
        play(a, games[0], [], 0)  # alice, on her process, plays on
        a.send(json.dumps({"type": "act", "action": ["end"]}))
        assert until(a, "result")["scores"] == [games[0].score, games[1].score]


def test_a_player_away_from_a_rematch_they_did_not_ask_for_declines_it(
        quick: LocalServer) -> None:
    # the window asks its player before entering another player's rematch: a player
    # who never answers (the window closed) frees the seat, no round is lost for them
    owner_name, owner = quick.account("ra")
    _, other = quick.account("ra")
    table = quick.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                              headers=auth(owner)).json()
    assert quick.client.post(f"/api/tables/{table['id']}/join",
                             headers=auth(other)).json() == {"seat": 1}
    with live(quick, table["id"], owner) as stays:
        with live(quick, table["id"], other) as goes:
            until(goes, "table")
            until(stays, "table")
            stays.send(json.dumps({"type": "act", "action": ["end"]}))
            goes.send(json.dumps({"type": "act", "action": ["end"]}))
            until(goes, "result")
            until(stays, "result")
            stays.send(json.dumps({"type": "rematch"}))
            message = until(goes, "table")
            while message["round"] != 2:
                message = until(goes, "table")
        quick.wait_gone(table["id"], left=1)
        later(quick)
        message = until(stays, "table")
        while message["round"] != 3:  # seat 1 is away: the rematch is declined
            message = until(stays, "table")
        assert message["status"] == "waiting" and message["seats"] == [owner_name, None]
    results = quick.client.get(f"/api/tables/{table['id']}").json()["results"]
    assert [r["round"] for r in results] == [1]
