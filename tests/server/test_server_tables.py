"""Live tables over real HTTP and WebSockets, against SQLite and PostgreSQL: a
full duel with a spectator, refused actions, reconnection, private tables,
rematch."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from server_support import LocalServer, Server
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

import blockyard
from blockyard import protocol

WAIT = 30.0  # seconds: a bound on a message that must come, never a measured time


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def live(server: Server, table_id: int, token: str | None = None,
         code: str | None = None) -> ClientConnection:
    """A table's live channel, its ``hello`` sent (live protocol 4: the token and
    the code in the first message, never in the address)."""
    url = server.url.replace("http://", "ws://") + f"/api/tables/{table_id}/live"
    socket = connect(url, open_timeout=WAIT).__enter__()  # closed by the caller's with
    socket.send(json.dumps(protocol.hello(token, code)))
    return socket


def receive(socket: ClientConnection) -> dict[str, Any]:
    message = json.loads(socket.recv(timeout=WAIT))
    assert isinstance(message, dict)
    return message


def until(socket: ClientConnection, kind: str,
          holds: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any]:
    """The next message of type ``kind`` (for which ``holds`` is true, when given:
    a state the table passes through on the way is skipped; the ones before it too)."""
    for _ in range(1000):
        message = receive(socket)
        if message["type"] == kind and (holds is None or holds(message)):
            return message
    raise AssertionError(f"no {kind} message")


def new_table(server: Server, token: str, **body: Any) -> dict[str, Any]:
    answer = server.client.post("/api/tables", json={"ruleset_id": "eu-classic", **body},
                                headers=auth(token))
    assert answer.status_code == 201, answer.text
    return answer.json()


def seated(server: Server | LocalServer, ruleset: str = "eu-classic", prefix: str = "p"
           ) -> tuple[int, str, str, dict[str, Any]]:
    """A table of ``ruleset`` opened by one new account and joined over HTTP by
    another: its id, both tokens, and the join's answer."""
    _, owner = server.account(prefix)
    _, other = server.account(prefix)
    table = server.client.post("/api/tables", json={"ruleset_id": ruleset},
                               headers=auth(owner)).json()
    joined = server.client.post(f"/api/tables/{table['id']}/join", headers=auth(other))
    return table["id"], owner, other, joined.json()


def play(socket: ClientConnection, game: blockyard.Game, watchers: list[ClientConnection],
         seat: int) -> dict[str, Any]:
    """Play the first legal move of ``game`` through ``socket``; every watcher
    sees the same move message."""
    action = ["place", *game.legal_moves()[0]]
    game.apply(action)
    socket.send(json.dumps({"type": "act", "action": action}))
    seen = [until(w, "move") for w in [socket, *watchers]]
    assert all(m == seen[0] for m in seen)
    assert seen[0] == {"type": "move", "seat": seat, "action": action, "score": game.score,
                       "over": game.over}
    return seen[0]


def test_a_full_duel_with_a_spectator_refusals_and_reconnection(server: Server) -> None:
    alice, alice_token = server.account("alice")
    bob, bob_token = server.account("bob")
    _, carol_token = server.account("carol")
    table = new_table(server, alice_token)
    listed = server.client.get("/api/tables").json()["tables"]
    mine = [t for t in listed if t["id"] == table["id"]]
    newcomer = {"rating": 0.0, "mu": 25.0, "sigma": 8.3333, "games": 0, "provisional": True}
    assert mine == [{"id": table["id"], "ruleset_id": "eu-classic", "seats": [alice, None],
                     "status": "waiting", "rated": False, "ratings": [newcomer, None]}]
    assert server.client.post(f"/api/tables/{table['id']}/join").status_code == 401
    joined = server.client.post(f"/api/tables/{table['id']}/join", headers=auth(bob_token))
    assert (joined.status_code, joined.json()) == (200, {"seat": 1})
    _, dave_token = server.account("dave")
    full = server.client.post(f"/api/tables/{table['id']}/join", headers=auth(dave_token))
    assert full.status_code == 409 and "full" in full.json()["error"]

    with live(server, table["id"], alice_token) as a, live(server, table["id"], bob_token) as b, \
            live(server, table["id"], carol_token) as spectator:
        states = [until(s, "table") for s in (a, b, spectator)]
        # the same table for everyone (who is there as each one found it on connecting)
        assert all({**s, "presence": None} == {**states[0], "presence": None}
                   for s in states)
        state = states[0]
        assert state["seats"] == [alice, bob] and state["status"] == "playing"
        assert state["ruleset_id"] == "eu-classic" and state["id"] == table["id"]
        seed = state["seed"]
        games = [blockyard.new_game("eu-classic", seed=seed) for _ in range(2)]
        # every seat plays the same deal, in any order
        play(a, games[0], [b, spectator], 0)
        play(b, games[1], [a, spectator], 1)
        play(a, games[0], [b, spectator], 0)
        # refused: an illegal move, a malformed one, a spectator's; only to the sender
        # (each with a kind a client can say in its player's language)
        b.send(json.dumps({"type": "act", "action": ["place", 0, 99, 99]}))
        refusal = until(b, "refused")
        assert refusal["reason"] and refusal["kind"] == "illegal"
        b.send(json.dumps({"type": "act", "action": "place"}))
        refusal = until(b, "refused")
        assert "action" in refusal["reason"] and refusal["kind"] == "illegal"
        b.send("not json")
        refusal = until(b, "refused")
        assert refusal["reason"] and refusal["kind"] == "malformed"
        spectator.send(json.dumps({"type": "act", "action": ["place", 0, 0, 0]}))
        refusal = until(spectator, "refused")
        assert "spectators" in refusal["reason"] and refusal["kind"] == "spectator"
        spectator.send(json.dumps({"type": "dance"}))
        refusal = until(spectator, "refused")
        assert refusal["reason"] and refusal["kind"] == "malformed"
        # bob's connection drops; he comes back and gets every move so far
        b.close()
        play(a, games[0], [spectator], 0)
        with live(server, table["id"], bob_token) as b2:
            assert until(b2, "table")["status"] == "playing"
            # (who is there may change meanwhile: a seats message skipped)
            history = [until(b2, "move") for _ in range(4)]
            assert [(m["type"], m["seat"]) for m in history] == [
                ("move", 0), ("move", 1), ("move", 0), ("move", 0)]
            assert history[-1]["score"] == games[0].score
            play(b2, games[1], [a, spectator], 1)
            # alice ends her game and watches bob finish his
            games[0].apply(["end"])
            a.send(json.dumps({"type": "act", "action": ["end"]}))
            for socket in (a, b2, spectator):
                assert until(socket, "move") == {"type": "move", "seat": 0,
                                                 "action": ["end"], "score": games[0].score,
                                                 "over": True}
            a.send(json.dumps({"type": "act", "action": ["place", 0, 0, 0]}))
            assert "over" in until(a, "refused")["reason"]
            play(b2, games[1], [a, spectator], 1)
            games[1].apply(["end"])
            b2.send(json.dumps({"type": "act", "action": ["end"]}))
            scores = [games[0].score, games[1].score]
            best = max(scores)
            winner = scores.index(best) if scores.count(best) == 1 else None
            for socket in (a, b2, spectator):
                assert until(socket, "table")["status"] == "finished"
                assert until(socket, "result") == {"type": "result", "scores": scores,
                                                   "winner": winner, "ratings": None,
                                                   "left": [], "aborted": False}
            stored = server.client.get(f"/api/tables/{table['id']}").json()
            assert stored["results"] == [{"round": 1, "seats": [alice, bob], "scores": scores,
                                          "winner": winner, "ratings": None, "left": [],
                                          "aborted": False}]
            # a rematch: a new deal at the same table
            spectator.send(json.dumps({"type": "rematch"}))
            assert until(spectator, "refused")["reason"]
            a.send(json.dumps({"type": "rematch"}))
            again = [until(s, "table") for s in (a, b2, spectator)]
            assert again[0]["status"] == "playing" and again[0]["round"] == 2
            assert again[0]["rematch_by"] == 0  # who asked: the others' windows say so
            assert all(s == again[0] for s in again)
            fresh = blockyard.new_game("eu-classic", seed=again[0]["seed"])
            play(b2, fresh, [a, spectator], 1)
    # the tokens (sent in the hello, never in an address) are not logged
    log = server.log.read_text()
    assert "/live?" not in log
    assert alice_token not in log and bob_token not in log and carol_token not in log


def test_private_tables_need_an_invitation_or_the_code(server: Server) -> None:
    _, owner = server.account("own")
    guest, guest_token = server.account("inv")
    _, stranger = server.account("str")
    table = new_table(server, owner, private=True, invite=[guest], seats=3)
    assert table["id"] not in [t["id"] for t in server.client.get("/api/tables")
                               .json()["tables"]]
    url = f"/api/tables/{table['id']}/join"
    refused = server.client.post(url, headers=auth(stranger), json={"code": "WRONGCOD"})
    assert refused.status_code == 403 and "private" in refused.json()["error"]
    with live(server, table["id"], stranger) as socket:
        assert "private" in until(socket, "refused")["reason"]
    with live(server, table["id"]) as socket:  # nobody
        assert "private" in until(socket, "refused")["reason"]
    # the table says whom it waits for: the pending invitations of unseated players
    with live(server, table["id"], owner) as socket:
        first = until(socket, "table")
        assert first["invited"] == [guest] and first["rematch_by"] is None
    shown = f"/api/tables/{table['id']}"
    assert server.client.get(shown, headers=auth(owner)).json()["invited"] == [guest]
    assert server.client.post(url, headers=auth(guest_token)).json() == {"seat": 1}
    assert server.client.get(shown, headers=auth(owner)).json()["invited"] == []
    assert server.client.post(url, headers=auth(stranger),
                              json={"code": table["code"].lower()}).json() == {"seat": 2}
    for bad in ({"ruleset_id": "no-such-rules"}, {"ruleset_id": "eu-classic", "seats": 1},
                {"ruleset_id": "eu-classic", "seats": 9},
                {"ruleset_id": "eu-classic", "invite": ["nobody-at-all"]},
                {"ruleset_id": "eu-classic", "invite": "x"}, {"ruleset_id": 5},
                {"ruleset_id": "eu-classic", "extra": 1}):
        answer = server.client.post("/api/tables", json=bad, headers=auth(owner))
        assert answer.status_code == 422, bad
        assert answer.json()["error"]
    assert server.client.post("/api/tables/99999/join",
                              headers=auth(owner)).status_code == 404


@pytest.mark.parametrize("leave_while", ["waiting", "playing"])
def test_leaving_a_table(server: Server, leave_while: str) -> None:
    _, owner = server.account("lv")
    other, other_token = server.account("lv")
    table = new_table(server, owner, seats=3 if leave_while == "waiting" else 2)
    url = f"/api/tables/{table['id']}/join"
    if leave_while == "waiting":
        assert server.client.post(url, headers=auth(other_token)).json() == {"seat": 1}
        with live(server, table["id"], owner) as watch, \
                live(server, table["id"], other_token) as socket:
            assert until(socket, "table")["seats"][1] == other
            assert until(watch, "table")["seats"][1] == other
            socket.send(json.dumps({"type": "leave"}))
            # the join's own change may still reach this connection first (on PostgreSQL
            # it travels through the database's notifications: late on a loaded machine)
            freed = until(watch, "table", lambda message: message["seats"][1] is None)
            assert freed["status"] == "waiting"
        listed = server.client.get(f"/api/tables/{table['id']}").json()
        assert listed["seats"][1] is None and listed["status"] == "waiting"
        # the seat is free again
        assert server.client.post(url, headers=auth(other_token)).json() == {"seat": 1}
        # the last player to leave a waiting table closes it: it is listed no more
        for token in (other_token, owner):
            with live(server, table["id"], token) as socket:
                until(socket, "table")
                socket.send(json.dumps({"type": "leave"}))
                with pytest.raises(ConnectionClosed):  # closed once the leave is done
                    for _ in range(100):
                        receive(socket)
        listed = server.client.get(f"/api/tables/{table['id']}").json()
        assert listed["status"] == "finished" and listed["seats"] == [None, None, None]
        assert table["id"] not in [t["id"] for t in server.client.get("/api/tables")
                                   .json()["tables"]]
    else:
        assert server.client.post(url, headers=auth(other_token)).json() == {"seat": 1}
        with live(server, table["id"], owner) as watch, \
                live(server, table["id"], other_token) as socket:
            until(socket, "table")
            until(watch, "table")
            socket.send(json.dumps({"type": "leave"}))
            assert until(watch, "move") == {"type": "move", "seat": 1, "action": ["end"],
                                            "score": 0, "over": True}


def test_a_falling_games_clock_may_not_run_slow(tmp_path_factory: pytest.TempPathFactory
                                                ) -> None:
    from server_support import start_server

    home = tmp_path_factory.mktemp("clock")
    server = start_server(f"sqlite:///{home / 'db.sqlite3'}", home,
                          env={"BLOCKYARD_SERVER_CLOCK_TOLERANCE": "0"})
    try:
        table_id, owner, other, _ = seated(server, "sudoku-bloxx", "ck")
        with live(server, table_id, owner) as socket:
            seed = until(socket, "table")["seed"]
            game = blockyard.new_game("sudoku-bloxx", seed=seed)
            # no tick yet: the game clock is behind the wall clock
            socket.send(json.dumps({"type": "act", "action": ["hard"]}))
            assert "clock" in until(socket, "refused")["reason"]
            game.apply(["tick", 30_000_000])
            socket.send(json.dumps({"type": "act", "action": ["tick", 30_000_000]}))
            assert until(socket, "move")["action"] == ["tick", 30_000_000]
            game.apply(["hard"])
            socket.send(json.dumps({"type": "act", "action": ["hard"]}))
            assert until(socket, "move") == {"type": "move", "seat": 0, "action": ["hard"],
                                             "score": game.score, "over": game.over}
            with live(server, table_id, other) as behind:
                # seat 1 has sent no tick: its clock is behind, and ending needs none
                until(behind, "table")
                behind.send(json.dumps({"type": "act", "action": ["end"]}))
                ended = until(behind, "move")
                while ended["seat"] != 1:  # seat 0's moves of the round come first
                    ended = until(behind, "move")
                assert ended == {"type": "move", "seat": 1, "action": ["end"], "score": 0,
                                 "over": True}
    finally:
        server.stop()


def test_a_live_connection_is_closed_after_too_many_messages(server: Server) -> None:
    _, token = server.account("spam")
    table = new_table(server, token)
    with live(server, table["id"], token) as socket:
        until(socket, "table")
        for _ in range(601):  # the limit: 600 a minute
            socket.send(json.dumps({"type": "dance"}))
        reasons = [until(socket, "refused")["reason"] for _ in range(601)]
        assert all("expected act" in r for r in reasons[:600])
        assert "too many messages" in reasons[600]


def test_a_player_who_leaves_after_the_result_frees_the_seat_for_the_rematch(
        server: Server) -> None:
    # a rematch never deals against a player who has gone: it waits for a player
    owner_name, owner = server.account("fr")
    other, other_token = server.account("fr")
    table = new_table(server, owner)
    url = f"/api/tables/{table['id']}/join"
    assert server.client.post(url, headers=auth(other_token)).json() == {"seat": 1}
    with live(server, table["id"], owner) as a, live(server, table["id"], other_token) as b:
        until(a, "table")
        until(b, "table")
        a.send(json.dumps({"type": "act", "action": ["end"]}))  # both games end
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        until(b, "result")
        a.send(json.dumps({"type": "leave"}))  # after the result: frees the seat
        freed = until(b, "table")
        while freed["seats"][0] is not None:
            freed = until(b, "table")
        assert freed["seats"] == [None, other] and freed["status"] == "finished"
        b.send(json.dumps({"type": "rematch"}))
        waiting = until(b, "table")
        assert waiting["status"] == "waiting" and waiting["seats"] == [None, other]
    listed = server.client.get(f"/api/tables/{table['id']}").json()
    assert listed["status"] == "waiting" and listed["seats"] == [None, other]
    # someone takes the free seat: the new round starts
    assert server.client.post(url, headers=auth(owner)).json() == {"seat": 0}
    listed = server.client.get(f"/api/tables/{table['id']}").json()
    assert listed["status"] == "playing" and listed["seats"] == [owner_name, other]


def test_leaving_a_rematch_one_did_not_ask_for_frees_the_seat(server: Server) -> None:
    # the rematch deals at once (its asker plays on); another player who leaves it
    # before acting declines it: their seat is freed and the round waits for a player
    owner_name, owner = server.account("rm")
    other, other_token = server.account("rm")
    table = new_table(server, owner)
    url = f"/api/tables/{table['id']}/join"
    assert server.client.post(url, headers=auth(other_token)).json() == {"seat": 1}

    def finish(a: ClientConnection, b: ClientConnection) -> None:
        a.send(json.dumps({"type": "act", "action": ["end"]}))
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        until(a, "result")
        until(b, "result")

    with live(server, table["id"], owner) as a, live(server, table["id"], other_token) as b:
        until(a, "table")
        until(b, "table")
        finish(a, b)
        a.send(json.dumps({"type": "rematch"}))
        dealt = until(b, "table")
        assert dealt["round"] == 2 and dealt["status"] == "playing"
        assert dealt["rematch_by"] == 0
        until(a, "table")
        game = blockyard.new_game("eu-classic", seed=dealt["seed"])
        play(a, game, [b], 0)  # the asker plays at once
        b.send(json.dumps({"type": "leave"}))  # declines: never acted in the round
        waiting = until(a, "table")
        assert waiting["status"] == "waiting" and waiting["seats"] == [owner_name, None]
        assert waiting["round"] == 3 and waiting["rematch_by"] is None
    stored = server.client.get(f"/api/tables/{table['id']}").json()
    assert [r["round"] for r in stored["results"]] == [1]  # no result for the declined one
    # a player who played in the rematch's round and leaves ends their game, as ever
    assert server.client.post(url, headers=auth(other_token)).json() == {"seat": 1}
    with live(server, table["id"], owner) as a, live(server, table["id"], other_token) as b:
        dealt = until(b, "table")
        assert dealt["status"] == "playing" and dealt["round"] == 3
        finish(a, b)
        a.send(json.dumps({"type": "rematch"}))
        dealt = until(b, "table")
        until(a, "table")
        assert dealt["round"] == 4 and dealt["rematch_by"] == 0
        play(b, blockyard.new_game("eu-classic", seed=dealt["seed"]), [a], 1)
        b.send(json.dumps({"type": "leave"}))
        assert until(a, "move")["action"] == ["end"]
    assert server.client.get(f"/api/tables/{table['id']}").json()["seats"] == [owner_name,
                                                                              other]
