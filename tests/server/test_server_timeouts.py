"""Seats that never connect and players who vanish hold no table past the
abandon timeout (BLOCKYARD_SERVER_ABANDON_SECONDS), whichever process they were
on: presence is kept in the database, so one process's sweep sees the players
connected to another. Players who stay connected and never act hold none past
the idle time (BLOCKYARD_SERVER_IDLE_SECONDS). (Every rule of time is tested on
a fake clock in test_server_table_referee.py and test_server_table_clock.py;
these run a real server's timer.)"""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator

import pytest
from server_support import Postgres, Server, start_server, two_processes
from test_server_tables import auth, live, play, until

import blockyard

ABANDON_SECONDS = 5
"""The abandon timeout of these servers: also the time a test has to set up what it
keeps (create a table, join it, open the connections of the seats that stay) before
those seats could be ended too, so a loaded machine gets a few seconds for it (a
bound on the set-up, not a measured time; 1 s was missed at a load of 30)."""
TIMEOUT = {"BLOCKYARD_SERVER_ABANDON_SECONDS": str(ABANDON_SECONDS)}


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server (SQLite) whose abandon timeout is :data:`ABANDON_SECONDS`."""
    home = tmp_path_factory.mktemp("timeouts")
    server = start_server(f"sqlite:///{home / 'db.sqlite3'}", home, env=TIMEOUT)
    try:
        yield server
    finally:
        server.stop()


def test_a_seat_that_never_connects_is_ended(quick: Server) -> None:
    _, owner = quick.account("nc")
    _, other = quick.account("nc")
    table = quick.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                              headers=auth(owner)).json()
    assert quick.client.post(f"/api/tables/{table['id']}/join",
                             headers=auth(other)).json() == {"seat": 1}
    with live(quick, table["id"], owner) as stays:
        assert until(stays, "table")["status"] == "playing"
        # seat 1 joined over HTTP and never opened the live connection
        assert until(stays, "move") == {"type": "move", "seat": 1, "action": ["end"],
                                        "score": 0, "over": True}
        game = blockyard.new_game("eu-classic", seed=table_seed(quick, table["id"]))
        play(stays, game, [], 0)  # the connected player plays on


@pytest.mark.parametrize("ruleset", ["eu-classic", "sudoku-bloxx"])
def test_connected_players_who_never_act_hold_no_duel(
        tmp_path_factory: pytest.TempPathFactory, ruleset: str) -> None:
    home = tmp_path_factory.mktemp("idle")
    server = start_server(f"sqlite:///{home / 'db.sqlite3'}", home,
                          env={"BLOCKYARD_SERVER_IDLE_SECONDS": "1"})
    try:
        _, owner = server.account("id")
        _, other = server.account("id")
        table = server.client.post("/api/tables", json={"ruleset_id": ruleset},
                                   headers=auth(owner)).json()
        server.client.post(f"/api/tables/{table['id']}/join", headers=auth(other))
        with live(server, table["id"], owner) as one, live(server, table["id"], other) as two:
            until(one, "table")
            until(two, "table")
            # both connected, neither acts: the server ends both seats (its timer)
            ends = sorted((m["seat"], m["action"]) for m in (until(one, "move"),
                                                             until(one, "move")))
            assert ends == [(0, ["end"]), (1, ["end"])]
            assert until(two, "result")["scores"] == [0, 0]
    finally:
        server.stop()


def table_seed(server: Server, table_id: int) -> int:
    return int(server.client.get(f"/api/tables/{table_id}").json()["seed"])


def test_a_waiting_tables_absent_seat_is_freed(quick: Server) -> None:
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
        freed = until(stays, "table")
        assert freed["seats"] == [owner_name, None, None] and freed["status"] == "waiting"
    assert quick.client.post(f"/api/tables/{table['id']}/join",
                             headers=auth(other)).json() == {"seat": 1}


def test_a_waiting_table_whose_creator_never_comes_is_closed(quick: Server) -> None:
    _, owner = quick.account("cl")
    _, other = quick.account("cl")
    table = quick.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                              headers=auth(owner)).json()
    with live(quick, table["id"]) as spectator:  # a spectator holds no seat
        assert until(spectator, "table")["status"] == "waiting"
        closed = until(spectator, "table")
        assert closed["seats"] == [None, None] and closed["status"] == "finished"
    stored = quick.client.get(f"/api/tables/{table['id']}").json()
    assert stored["status"] == "finished" and stored["results"] == []
    assert table["id"] not in [t["id"] for t in quick.client.get("/api/tables").json()
                               ["tables"]]
    join = quick.client.post(f"/api/tables/{table['id']}/join", headers=auth(other))
    assert join.status_code == 409


@pytest.fixture
def two_quick(postgres: Postgres, tmp_path_factory: pytest.TempPathFactory
              ) -> Iterator[tuple[Server, Server]]:
    with two_processes(postgres.new_database(), tmp_path_factory.mktemp("timeouts2"),
                       env=TIMEOUT) as pair:
        yield pair


def test_presence_is_shared_between_processes(two_quick: tuple[Server, Server]) -> None:
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
            # several timeouts pass: each process sees the other's player present,
            # so neither seat is ended (the next moves are the ones played); time
            # passing is the behaviour here (nothing may happen), not a wait for one
            time.sleep(ABANDON_SECONDS * 2.5)
            play(a, games[0], [b], 0)
            play(b, games[1], [a], 1)
        # bob's process loses him: a process ends his seat after the timeout
        assert until(a, "move") == {"type": "move", "seat": 1, "action": ["end"],
                                    "score": games[1].score, "over": True}
        two.process.send_signal(signal.SIGKILL)
        two.process.wait(timeout=30)
        play(a, games[0], [], 0)  # alice, on the living process, plays on
        a.send(json.dumps({"type": "act", "action": ["end"]}))
        assert until(a, "result")["scores"] == [games[0].score, games[1].score]


def test_a_player_away_from_a_rematch_they_did_not_ask_for_declines_it(quick: Server
                                                                       ) -> None:
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
        message = until(stays, "table")
        while message["round"] != 3:  # seat 1 is away: the rematch is declined
            message = until(stays, "table")
        assert message["status"] == "waiting" and message["seats"] == [owner_name, None]
    results = quick.client.get(f"/api/tables/{table['id']}").json()["results"]
    assert [r["round"] for r in results] == [1]
