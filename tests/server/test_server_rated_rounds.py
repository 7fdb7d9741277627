"""Rated rounds a stranger cannot farm (docs/online.md, "Ratings and Play now"),
each attack scripted from outside over HTTP and the live channels, on
SQLite and PostgreSQL: two accounts farming through the rated tables they open
(at most 3 rounds a day between one pair move ratings; the table says a later
one is friendly before it starts), a round a seat left before making 2 actions
(aborted: nobody rated), leaving while ahead (the leaver loses), farming through
Play now (a seated player cannot enter the pool again; a paired table nobody
played rates nobody) and the pool flood (entries rate limited per account)."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import LocalServer, Server, local_server
from test_server_pairing import feed, until_paired
from test_server_tables import auth, live, new_table, play, until
from test_server_timeouts import later
from websockets.sync.client import ClientConnection

import blockyard
from blockyard.server.clock import FakeClock
from blockyard.server.tablestore import PAIR_HOURS, PAIR_ROUNDS


def account_games(server: Server | LocalServer, name: str) -> int:
    """The rated rounds behind the player's eu-classic rating (their page)."""
    page = server.client.get(f"/api/accounts/{name}")
    assert page.status_code == 200, page.text
    found = [r["games"] for r in page.json()["ratings"] if r["ruleset_id"] == "eu-classic"]
    return found[0] if found else 0


def placements(socket: ClientConnection, other: ClientConnection, game: blockyard.Game,
               seat: int, count: int) -> None:
    for _ in range(count):
        play(socket, game, [other], seat)


def rated_duel(server: Server, owner: str, other: str) -> int:
    """A rated table opened by ``owner``'s account and joined by ``other``'s."""
    table = new_table(server, owner, rated=True)
    joined = server.client.post(f"/api/tables/{table['id']}/join", headers=auth(other))
    assert joined.status_code == 200, joined.text
    return int(table["id"])


def test_two_accounts_farming_their_own_tables_move_ratings_three_rounds_a_day(
        server: Server) -> None:
    """A player and their second account open rated tables and play short rounds
    against each other: the first 3 rounds of the day are rated; from the fourth
    the table message says it is friendly before the round starts (which pair,
    and the limit), its result rates nobody, and the ratings stay as 3 rounds
    left them."""
    main, main_token = server.account("fm")
    second, second_token = server.account("fs")
    results = []
    for round_ in range(PAIR_ROUNDS + 2):
        table_id = rated_duel(server, main_token, second_token)
        with live(server, table_id, main_token) as a, live(server, table_id, second_token) as b:
            table = until(a, "table")
            until(b, "table")
            assert table["status"] == "playing"
            if round_ < PAIR_ROUNDS:
                assert table["rated"] is True and table["pair_limit"] is None
            else:  # said before anyone acts
                assert table["rated"] is False
                assert table["pair_limit"] == {"rounds": PAIR_ROUNDS, "hours": PAIR_HOURS,
                                               "pairs": [[0, 1]]}
            for seat, (socket, watcher) in enumerate(((a, b), (b, a))):
                placements(socket, watcher, blockyard.new_game("eu-classic",
                                                               seed=table["seed"]), seat, 2)
            for socket in (a, b):
                socket.send(json.dumps({"type": "act", "action": ["end"]}))
            results.append(until(a, "result"))
    assert [r["ratings"] is not None for r in results] == [True] * PAIR_ROUNDS + [False] * 2
    assert not any(r["aborted"] for r in results)
    assert account_games(server, main) == PAIR_ROUNDS
    assert account_games(server, second) == PAIR_ROUNDS


def test_a_round_a_seat_left_before_two_actions_is_aborted(server: Server) -> None:
    """The farmer's second account leaves at once, with no move: the round is
    aborted (the result says so) and nobody's rating moves."""
    main, main_token = server.account("ab")
    second, second_token = server.account("ab")
    table_id = rated_duel(server, main_token, second_token)
    with live(server, table_id, main_token) as a, live(server, table_id, second_token) as b:
        table = until(a, "table")
        until(b, "table")
        placements(a, b, blockyard.new_game("eu-classic", seed=table["seed"]), 0, 3)
        b.send(json.dumps({"type": "leave"}))
        until(a, "move", lambda m: m["seat"] == 1 and m["action"] == ["end"])
        a.send(json.dumps({"type": "act", "action": ["end"]}))
        result = until(a, "result")
    assert result["aborted"] is True and result["ratings"] is None
    assert result["left"] == [1] and result["winner"] == 0
    assert account_games(server, main) == 0 and account_games(server, second) == 0
    stored = server.client.get(f"/api/tables/{table_id}").json()["results"][-1]
    assert stored["aborted"] is True and stored["ratings"] is None


def test_leaving_while_ahead_loses_the_round(server: Server) -> None:
    """The player ahead leaves a rated round: ranked below the seat that finished
    whatever the scores, so the other wins and the leaver's rating falls."""
    _, ahead_token = server.account("la")
    _, behind_token = server.account("lb")
    table_id = rated_duel(server, ahead_token, behind_token)
    with live(server, table_id, ahead_token) as a, live(server, table_id, behind_token) as b:
        table = until(a, "table")
        until(b, "table")
        placements(a, b, blockyard.new_game("eu-classic", seed=table["seed"]), 0, 4)
        placements(b, a, blockyard.new_game("eu-classic", seed=table["seed"]), 1, 2)
        a.send(json.dumps({"type": "leave"}))
        until(b, "move", lambda m: m["seat"] == 0 and m["action"] == ["end"])
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        result = until(b, "result")
    assert result["scores"][0] > result["scores"][1]  # the leaver was ahead
    assert result["winner"] == 1 and result["left"] == [0]
    assert result["aborted"] is False
    changes = result["ratings"]
    assert changes[0]["change"] < 0 < changes[1]["change"]


# -- Play now, on the server's clock (a fake one, moved by the test) ---------------------------


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """A server in this process deciding by a fake clock (started at the real time:
    the store stamps some rows with it); Play now's limit at 4 entries a minute."""
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS",
                       "create=1000,sign_in_address=1000,pairing=4")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        yield server


def enter(server: LocalServer, token: str) -> Any:
    return server.client.post("/api/pairing", json={"ruleset_id": "eu-classic"},
                              headers=auth(token))


def test_play_now_seats_a_player_once_and_a_table_nobody_played_rates_nobody(
        local: LocalServer) -> None:
    one, one_token = local.account("pa")
    two, two_token = local.account("pb")
    with feed(local, one_token) as first, feed(local, two_token) as second:
        assert enter(local, one_token).status_code == 201
        assert enter(local, two_token).status_code == 201
        table_id = until_paired(first)["table"]
        assert until_paired(second)["table"] == table_id
        # paired and seated: entering the pool again is refused, saying where
        for token in (one_token, two_token):
            again = enter(local, token)
            assert again.status_code == 409, again.text
            assert again.json()["error"].startswith(f"you are seated at table {table_id}")
        # nobody connects to the table: both seats are abandoned, ended 0:0
        later(local)
    shown = local.client.get(f"/api/tables/{table_id}").json()
    assert shown["status"] == "finished"
    result = shown["results"][-1]
    assert result["scores"] == [0, 0]
    assert result["aborted"] is True and result["ratings"] is None
    assert account_games(local, one) == 0 and account_games(local, two) == 0
    # the round over, Play now takes them again
    assert enter(local, one_token).status_code == 201


def test_entering_play_now_is_rate_limited_per_account(local: LocalServer) -> None:
    _, flooder = local.account("fl")
    _, other = local.account("fo")
    for _ in range(4):  # pairing=4: four entries a minute (leaving between them)
        assert enter(local, flooder).status_code == 201
        assert local.client.delete("/api/pairing", headers=auth(flooder)).status_code == 204
    flood = enter(local, flooder)
    assert flood.status_code == 429 and "a minute" in flood.json()["error"]
    assert local.client.get("/api/pairing", headers=auth(flooder)).status_code == 404
    assert enter(local, other).status_code == 201  # per account: others play on
    local.clock.advance(61)
    assert enter(local, flooder).status_code == 201


IDLE = 60
"""The idle time of the idle test (seconds, the server's clock)."""


def test_a_seat_ended_idle_while_ahead_ranks_below_the_seat_that_finished(
        database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The player ahead stops acting, connected: the server ends their seat after
    the idle time, and the result ranks it below the seat that finished."""
    monkeypatch.setenv("BLOCKYARD_SERVER_IDLE_SECONDS", str(IDLE))
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS", "create=1000,sign_in_address=1000")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as local:
        _, ahead_token = local.account("ia")
        _, behind_token = local.account("ib")
        table = local.client.post("/api/tables", json={"ruleset_id": "eu-classic",
                                                       "rated": True},
                                  headers=auth(ahead_token)).json()
        assert local.client.post(f"/api/tables/{table['id']}/join",
                                 headers=auth(behind_token)).status_code == 200
        with live(local, table["id"], ahead_token) as a, \
                live(local, table["id"], behind_token) as b:
            seed = until(a, "table")["seed"]
            until(b, "table")
            placements(a, b, blockyard.new_game("eu-classic", seed=seed), 0, 3)
            placements(b, a, blockyard.new_game("eu-classic", seed=seed), 1, 2)
            b.send(json.dumps({"type": "act", "action": ["end"]}))
            until(a, "move", lambda m: m["seat"] == 1 and m["action"] == ["end"])
            later(local, seconds=2 * IDLE)  # seat 0 takes no action: ended, idle
            result = until(b, "result")
    assert result["scores"][0] > result["scores"][1]
    assert result["left"] == [0] and result["winner"] == 1
    assert result["ratings"][0]["change"] < 0 < result["ratings"][1]["change"]
