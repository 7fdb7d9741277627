"""Table results per account (``GET /api/accounts/{name}/tables``, the
``table_result_seats`` migration filled in from older databases), a live
Sudoku Bloxx table played to its result with the ticks as the log writes them,
and an eu table played by the same rules as offline (its continue after the end)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from server_support import Server, old_database
from test_server_tables import auth, live, new_table, receive, until

import blockyard
from blockyard.server import db


def test_a_sudoku_bloxx_table_plays_to_its_result_tick_by_tick(server: Server) -> None:
    alice, alice_token = server.account("sbalice")
    bob, bob_token = server.account("sbbob")
    table = new_table(server, alice_token, ruleset_id="sudoku-bloxx")
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(bob_token)).status_code == 200
    with live(server, table["id"], alice_token) as a, live(server, table["id"], bob_token) as b:
        seed = until(a, "table")["seed"]
        # a realtime game's table: the seconds since the round started, after the table
        assert 0 <= receive(a)["elapsed"] < 120
        until(b, "table")
        games = [blockyard.new_game("sudoku-bloxx", seed=seed) for _ in range(2)]
        # consecutive ticks (one log entry on each side: the game merges them), moves
        # and hard drops, as a window sends them while its game runs
        # (seconds of game clock ahead of the wall clock: never refused as slow)
        script = [["tick", 2_000_000], ["tick", 1_000_000], ["move", 1], ["tick", 500_000],
                  ["hard"], ["tick", 2_000_000], ["tick", 2_000_000], ["hard"], ["end"]]
        for seat, socket in enumerate((a, b)):
            for action in script[:-1] if seat else script:
                games[seat].apply(action)
                socket.send(json.dumps({"type": "act", "action": action}))
                move = until(socket, "move")
                while move["seat"] != seat:
                    move = until(socket, "move")
                assert move == {"type": "move", "seat": seat, "action": action,
                                "score": games[seat].score, "over": games[seat].over}
        assert games[0].moves >= 2 and games[0].log[-2:] == [["hard"], ["end"]]
        assert ["tick", 4_000_000] in games[0].log  # two ticks, one entry
        games[1].apply(["end"])
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        scores = [games[0].score, games[1].score]
        winner = scores.index(max(scores)) if scores.count(max(scores)) == 1 else None
        assert until(b, "result") == {"type": "result", "scores": scores, "winner": winner,
                                      "ratings": None, "left": [],  # a friendly table
                                      "aborted": False}
    # a reconnection rebuilds the same games from the stored actions
    with live(server, table["id"], bob_token) as again:
        until(again, "table")
        replayed = [blockyard.new_game("sudoku-bloxx", seed=seed) for _ in range(2)]
        for _ in range(2 * len(script)):
            move = until(again, "move")
            replayed[move["seat"]].apply(move["action"])
        assert [g.log for g in replayed] == [g.log for g in games]
    # the result on both accounts, with each one's seat
    for name, seat in ((alice, 0), (bob, 1)):
        answer = server.client.get(f"/api/accounts/{name}/tables")
        assert answer.status_code == 200
        body = answer.json()
        assert body["name"] == name and len(body["tables"]) == 1
        entry = body["tables"][0]
        finished = dt.datetime.fromisoformat(entry.pop("date"))
        assert finished.tzinfo is not None
        assert entry == {"table_id": table["id"], "round": 1, "ruleset_id": "sudoku-bloxx",
                         "seats": [alice, bob], "scores": scores, "winner": winner,
                         "seat": seat, "rating": None}  # a friendly table


def act_and_see(socket: Any, seat: int, action: list[Any], game: blockyard.Game) -> None:
    """Send the seat's ``action`` (applied to ``game``, its mirror): the server
    accepts it with the score and end the mirror has."""
    socket.send(json.dumps({"type": "act", "action": action}))
    move = until(socket, "move")
    while move["seat"] != seat:
        move = until(socket, "move")
    assert move == {"type": "move", "seat": seat, "action": action, "score": game.score,
                    "over": game.over}


def play_until_over(socket: Any, seat: int, game: blockyard.Game) -> None:
    """Play ``game``'s first legal placement at the seat until the game is over,
    each seen accepted (:func:`act_and_see`)."""
    while not game.over:
        action = ["place", *game.legal_moves()[0]]
        game.apply(action)
        act_and_see(socket, seat, action, game)


def duel_table(server: Server, prefix: str) -> tuple[dict[str, Any], str, str]:
    """A new eu-classic duel of two new accounts, both seated: the table and the
    two tokens."""
    _, alice_token = server.account(f"{prefix}alice")
    _, bob_token = server.account(f"{prefix}bob")
    table = new_table(server, alice_token)
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(bob_token)).status_code == 200
    return table, alice_token, bob_token


def test_eus_continue_is_offered_at_a_table_as_offline(server: Server) -> None:
    # the same game as offline: stuck, the player may continue (once) or end it,
    # and the seat counts as finished only then
    table, alice_token, bob_token = duel_table(server, "cn")
    with live(server, table["id"], alice_token) as a, live(server, table["id"], bob_token) as b:
        seed = until(a, "table")["seed"]
        until(b, "table")
        game = blockyard.new_game("eu-classic", seed=seed)
        play_until_over(a, 0, game)
        assert game.over_reason == "stuck" and [x.name for x in game.actions()] == ["continue"]
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        until(b, "move")
        game.apply(["continue"])  # refused on a table before: "your game is over"
        act_and_see(a, 0, ["continue"], game)
        play_until_over(a, 0, game)
        assert not [x.name for x in game.actions()]  # the one continue is used: finished
        assert until(a, "result") == {"type": "result", "scores": [game.score, 0],
                                      "winner": 0 if game.score else None,
                                      "ratings": None, "left": [], "aborted": False}


def test_a_stuck_seat_is_finished_when_its_player_ends_it(server: Server) -> None:
    table, alice_token, bob_token = duel_table(server, "en")
    with live(server, table["id"], alice_token) as a, live(server, table["id"], bob_token) as b:
        seed = until(a, "table")["seed"]
        until(b, "table")
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        until(a, "move")
        game = blockyard.new_game("eu-classic", seed=seed)
        play_until_over(a, 0, game)
        # stuck with a continue left: no result yet; the player ends the seat
        a.send(json.dumps({"type": "act", "action": ["end"]}))
        move = until(a, "move")
        assert move == {"type": "move", "seat": 0, "action": ["end"], "score": game.score,
                        "over": True}
        assert until(a, "result")["scores"] == [game.score, 0]
        a.send(json.dumps({"type": "act", "action": ["continue"]}))
        assert until(a, "refused")["kind"] == "not-now"  # the round is over


def test_account_tables_newest_first_and_its_errors(server: Server) -> None:
    alice, alice_token = server.account("tralice")
    _, bob_token = server.account("trbob")
    ids = []
    for _ in range(2):
        table = new_table(server, alice_token)
        server.client.post(f"/api/tables/{table['id']}/join", headers=auth(bob_token))
        with live(server, table["id"], alice_token) as a, \
                live(server, table["id"], bob_token) as b:
            until(a, "table")
            a.send(json.dumps({"type": "act", "action": ["end"]}))
            b.send(json.dumps({"type": "act", "action": ["end"]}))
            assert until(a, "result")["winner"] is None
        ids.append(table["id"])
    found = server.client.get(f"/api/accounts/{alice.upper()}/tables").json()["tables"]
    assert [t["table_id"] for t in found] == ids[::-1]
    assert [t["scores"] for t in found] == [[0, 0], [0, 0]]
    one = server.client.get(f"/api/accounts/{alice}/tables?limit=1").json()["tables"]
    assert [t["table_id"] for t in one] == [ids[1]]
    newcomer, _ = server.account("trnew")
    fresh = server.client.get(f"/api/accounts/{newcomer}/tables")
    assert (fresh.status_code, fresh.json()) == (200, {"name": newcomer, "tables": []})
    missing = server.client.get("/api/accounts/nobody-here-x/tables")
    assert missing.status_code == 404 and "nobody-here-x" in missing.json()["error"]
    for bad in ("/api/accounts/a!/tables", f"/api/accounts/{alice}/tables?limit=0",
                f"/api/accounts/{alice}/tables?limit=1001"):
        answer = server.client.get(bad)
        assert answer.status_code == 422, bad
        assert answer.json()["error"]


def test_the_migration_fills_in_the_rounds_finished_before(tmp_path: Path) -> None:
    url, engine = old_database(tmp_path, "0002")
    try:
        moment = "2026-11-30 12:00:00.000000"  # as SQLAlchemy writes it in SQLite
        with engine.begin() as conn:
            for key in ("ann", "ben"):
                conn.execute(sa.text(
                    "INSERT INTO accounts (name, name_key, password_hash, created) "
                    "VALUES (:n, :n, 'x', :t)"), {"n": key, "t": moment})
            conn.execute(sa.text(
                "INSERT INTO tables (id, code, ruleset_id, seats, private, status, round, "
                "seed, creator_id, created) VALUES (7, 'ABCDEFGH', 'eu-classic', 2, 0, "
                "'finished', 1, 5, 1, :t)"), {"t": moment})
            for seat in (0, 1):
                conn.execute(sa.text("INSERT INTO table_seats VALUES (7, :s, :a)"),
                             {"s": seat, "a": seat + 1})
            conn.execute(sa.text("INSERT INTO table_results VALUES (7, 1, :r, :t)"), {
                "r": json.dumps({"seats": ["ann", "ben"], "scores": [30, 12], "winner": 0}),
                "t": moment})
    finally:
        engine.dispose()
    db.migrate(url)
    from blockyard.server import tablestore

    engine = db.make_engine(url)
    try:
        assert tablestore.account_results(engine, "ben", 10) == [{
            "table_id": 7, "round": 1, "ruleset_id": "eu-classic",
            "date": "2026-11-30T12:00:00+00:00", "seats": ["ann", "ben"], "scores": [30, 12],
            "winner": 0, "seat": 1, "rating": None}]  # not rated: before ratings existed
        assert tablestore.account_results(engine, "nobody", 10) is None
    finally:
        engine.dispose()


def test_the_migration_closes_waiting_tables_left_with_nobody(tmp_path: Path) -> None:
    # a server before 0006 left a waiting table listed when its last player left
    url, engine = old_database(tmp_path, "0005")
    try:
        moment = "2026-11-30 12:00:00.000000"
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO accounts (name, name_key, password_hash, created) "
                "VALUES ('ann', 'ann', 'x', :t)"), {"t": moment})
            for table_id, code in ((8, "EMPTYTBL"), (9, "ANNWAITS")):
                conn.execute(sa.text(
                    "INSERT INTO tables (id, code, ruleset_id, seats, private, status, round, "
                    "seed, creator_id, created) VALUES (:i, :c, 'eu-classic', 2, 0, "
                    "'waiting', 1, 5, 1, :t)"), {"i": table_id, "c": code, "t": moment})
            conn.execute(sa.text("INSERT INTO table_seats VALUES (9, 0, 1)"))
    finally:
        engine.dispose()
    db.migrate(url)
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            status = dict(conn.execute(sa.text("SELECT id, status FROM tables")).all())
        assert status == {8: "finished", 9: "waiting"}
    finally:
        engine.dispose()
