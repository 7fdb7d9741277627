"""Two `blockyard serve` processes on one PostgreSQL: the players of one duel on
different processes see each other's moves (LISTEN/NOTIFY), and a process
killed mid-duel (SIGKILL) loses no accepted move: its player carries on through
the other process."""

from __future__ import annotations

import json
import signal

import pytest
from server_support import Postgres, Server, start_server
from test_server_tables import auth, live, play, until

import blockyard
from blockyard import protocol


def test_a_duel_across_two_processes_survives_a_killed_process(
        two_servers: tuple[Server, Server]) -> None:
    one, two = two_servers
    alice, alice_token = one.account("alice")
    bob, bob_token = two.account("bob")  # the accounts are shared
    _, carol_token = two.account("carol")
    table = one.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                            headers=auth(alice_token)).json()
    assert table["id"] in [t["id"] for t in two.client.get("/api/tables").json()["tables"]]
    assert two.client.post(f"/api/tables/{table['id']}/join",
                           headers=auth(bob_token)).json() == {"seat": 1}
    with live(one, table["id"], alice_token) as a, live(two, table["id"], bob_token) as b, \
            live(two, table["id"], carol_token) as spectator:
        states = [until(s, "table") for s in (a, b, spectator)]
        # the same table for everyone (who is there as each one found it on connecting)
        assert states[0]["status"] == "playing" and all(
            {**s, "presence": None} == {**states[0], "presence": None} for s in states)
        games = [blockyard.new_game("eu-classic", seed=states[0]["seed"]) for _ in range(2)]
        accepted = []
        for _ in range(2):
            accepted.append(play(a, games[0], [b, spectator], 0))
            accepted.append(play(b, games[1], [a, spectator], 1))
        accepted.append(play(a, games[0], [b, spectator], 0))
        one.process.send_signal(signal.SIGKILL)  # mid-duel
        one.process.wait(timeout=30)
        with live(two, table["id"], alice_token) as a2:
            assert until(a2, "table")["status"] == "playing"
            # (who is there may change meanwhile: a seats message skipped)
            history = [until(a2, "move") for _ in range(len(accepted))]
            assert history == accepted  # every accepted move is still there
            accepted.append(play(a2, games[0], [b, spectator], 0))
            for socket, game, seat, others in ((a2, games[0], 0, [b, spectator]),
                                               (b, games[1], 1, [a2, spectator])):
                game.apply(["end"])
                socket.send(json.dumps({"type": "act", "action": ["end"]}))
                for watcher in [socket, *others]:
                    assert until(watcher, "move") == {"type": "move", "seat": seat,
                                                      "action": ["end"],
                                                      "score": game.score, "over": True}
            scores = [games[0].score, games[1].score]
            best = max(scores)
            winner = scores.index(best) if scores.count(best) == 1 else None
            for socket in (a2, b, spectator):
                assert until(socket, "result") == {"type": "result", "scores": scores,
                                                   "winner": winner, "ratings": None,
                                                   "left": [], "aborted": False}
    stored = two.client.get(f"/api/tables/{table['id']}").json()
    assert stored["status"] == "finished"
    assert stored["results"] == [{"round": 1, "seats": [alice, bob], "scores": scores,
                                  "winner": winner, "ratings": None, "left": [],
                                  "aborted": False}]


def test_workers_share_one_postgresql(postgres: Postgres,
                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    server = start_server(postgres.new_database(), tmp_path_factory.mktemp("workers"),
                          "--workers", "2")
    try:
        _, token = server.account("w")
        opened = [server.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                                     headers=auth(token)) for _ in range(4)]
        # the seats one account holds are counted in the database, whichever
        # worker answers: three tables, the fourth refused
        assert [answer.status_code for answer in opened] == [201, 201, 201, 429]
        tables = [answer.json()["id"] for answer in opened[:3]]
        listed = {t["id"] for t in server.client.get("/api/tables").json()["tables"]}
        assert set(tables) <= listed
        assert server.client.get("/api/health").json() == {
            "ok": True, "version": blockyard.__version__, "protocol": protocol.VERSION}
    finally:
        server.stop()
