"""`blockyard serve` over real HTTP, against SQLite and a throwaway PostgreSQL:
accounts, sign-in, verified submissions (forged, tampered, unfinished, foreign
rules), practice dailies, leaderboards, stored replays, limits."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import subprocess
import sys

import httpx
import pytest
import sqlalchemy as sa
from server_support import Server, engine_of, finished_game

import blockyard
from blockyard import protocol
from blockyard.replays import Replay, replay_data, state_digest, text_digest

REAL_HASHING = True
"""This module's server hashes passwords at argon2's real cost (signing up and in
are its matter; the other server tests' servers hash at the smallest cost)."""


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def submit(server: Server, token: str, data: object) -> httpx.Response:
    return server.client.post("/api/games", content=json.dumps(data), headers=auth(token))


def test_health(server: Server) -> None:
    answer = server.client.get("/api/health")
    assert answer.status_code == 200
    assert answer.json() == {"ok": True, "version": blockyard.__version__,
                             "protocol": protocol.VERSION}


def test_head_is_answered_wherever_get_is(server: Server) -> None:
    for path in ("/api/health", "/api/ready", "/metrics", "/api/tables", "/api/rulesets",
                 "/api/openapi.json"):
        got = server.client.get(path)
        head = server.client.head(path)
        assert (path, head.status_code, got.status_code) == (path, 200, 200)
        assert head.content == b""
        assert head.headers["content-type"] == got.headers["content-type"]
        assert "x-request-id" in head.headers
    answer = server.client.head("/api/sessions")  # POST and DELETE only: as GET would
    assert answer.status_code == 405 and answer.content == b""


def test_accounts_names_and_passwords(server: Server) -> None:
    c = server.client
    name = "Ann_" + server.database[-1]  # one name per database: each test module's own
    answer = c.post("/api/accounts", json={"name": name, "password": "12345678"})
    assert (answer.status_code, answer.json()) == (201, {"name": name})
    taken = c.post("/api/accounts", json={"name": name.lower(), "password": "abcdefgh"})
    assert taken.status_code == 409 and "taken" in taken.json()["error"]
    # a trailing line break is no name ("$" of a pattern matches before one)
    for bad in ("ab", "x" * 25, "has space", "dot.ted", "ünï", "", "abc\n", f"{name}\n"):
        answer = c.post("/api/accounts", json={"name": bad, "password": "12345678"})
        assert answer.status_code == 422, bad
        assert answer.json()["error"].startswith("name:")
    short = c.post("/api/accounts", json={"name": "shorty", "password": "1234567"})
    assert short.status_code == 422 and short.json()["error"].startswith("password:")
    for body in (b"{", b"[]", b'{"name": "abc"}', b'{"name": 5, "password": "12345678"}',
                 b'{"name": "abc", "password": "12345678", "admin": true}', b"\xff\xfe",
                 b"[" * 100_000):
        answer = c.post("/api/accounts", content=body)
        assert answer.status_code == 422, body[:20]
        assert isinstance(answer.json()["error"], str)


def test_passwords_are_kept_as_argon2_hashes_of_the_default_cost(server: Server) -> None:
    from argon2 import PasswordHasher, extract_parameters

    from blockyard.server import db

    name, _token = server.account("hash")
    with engine_of(server.database) as engine, engine.connect() as conn:
        stored = conn.execute(sa.select(db.accounts.c.password_hash)
                              .where(db.accounts.c.name == name)).scalar_one()
    assert "correct horse" not in stored and stored.startswith("$argon2id$")
    default = PasswordHasher()
    used = extract_parameters(stored)
    assert (used.time_cost, used.memory_cost, used.parallelism) == (
        default.time_cost, default.memory_cost, default.parallelism)


def test_sign_in_wrong_password_and_sign_out(server: Server) -> None:
    c = server.client
    name, token = server.account()
    wrong = c.post("/api/sessions", json={"name": name, "password": "incorrect horse"})
    assert (wrong.status_code, wrong.json()["error"]) == (401, "wrong name or password")
    nobody = c.post("/api/sessions", json={"name": "nobody-here", "password": "whatever1"})
    assert (nobody.status_code, nobody.json()["error"]) == (401, "wrong name or password")
    # no account has a name that breaks the rules: a NUL (which PostgreSQL cannot
    # compare: it was a 500 there) or a line break is a wrong name like any other
    for odd in ("a\x00b", name + "\x00", name + "\n"):
        answer = c.post("/api/sessions", json={"name": odd, "password": "correct horse"})
        assert (answer.status_code, answer.json()["error"]) == (401, "wrong name or password")
    # the token acts until it is revoked
    game = replay_data(finished_game("eu-classic", seed=101))
    assert submit(server, token, game).status_code == 201
    assert c.delete("/api/sessions", headers=auth(token)).status_code == 204
    again = submit(server, token, replay_data(finished_game("eu-classic", seed=102)))
    assert again.status_code == 401
    # passwords are never logged
    assert "correct horse" not in server.log.read_text()
    assert "incorrect horse" not in server.log.read_text()


def test_sign_in_is_rate_limited_per_name(server: Server) -> None:
    name, _ = server.account("rate")
    statuses = [server.client.post("/api/sessions", json={"name": name, "password": "wrong"
                                                          + str(n)}).status_code
                for n in range(9)]  # the account's own sign-in was the first of 10
    assert statuses == [401] * 9
    blocked = server.client.post("/api/sessions", json={"name": name,
                                                        "password": "correct horse"})
    assert blocked.status_code == 429 and "too many" in blocked.json()["error"]


def test_a_verified_game_is_stored_with_the_servers_score(server: Server) -> None:
    name, token = server.account()
    game = finished_game("eu-classic", seed=7, moves=8)
    data = replay_data(game, player="someone else")
    answer = submit(server, token, data)
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body == {"id": body["id"], "ruleset_id": "eu-classic", "score": game.score,
                    "counted": True}
    stored = server.client.get(f"/api/games/{body['id']}")
    assert stored.status_code == 200
    replay = Replay(None, stored.json())
    rebuilt = replay.check()  # anyone can verify it
    assert rebuilt.score == game.score and replay.player == name
    assert stored.json()["log"] == game.log
    # the same game again, by anyone: refused
    assert submit(server, token, data).status_code == 409
    _, other = server.account()
    assert submit(server, other, data).status_code == 409
    assert server.client.get("/api/games/999999").status_code == 404
    assert server.client.get("/api/games/abc").status_code == 422
    # the player's records follow the account
    records = server.client.get(f"/api/accounts/{name.upper()}/games")
    assert records.status_code == 200
    assert records.json()["games"] == [{"id": body["id"], "ruleset_id": "eu-classic",
                                        "date": game.date, "score": game.score,
                                        "counted": True, "moves": len(game.log) - 1,
                                        "server_version": blockyard.__version__}]
    assert server.client.get("/api/accounts/nobody-here/games").status_code == 404
    assert server.client.get("/api/accounts/a/games").status_code == 422


def test_submissions_need_a_valid_token(server: Server) -> None:
    data = replay_data(finished_game("eu-classic", seed=8))
    assert server.client.post("/api/games", json=data).status_code == 401
    assert submit(server, "forged-token", data).status_code == 401
    answer = server.client.post("/api/games", json=data, headers={"Authorization": "Basic x"})
    assert answer.status_code == 401 and "sign in" in answer.json()["error"]


def test_forged_and_tampered_submissions_are_refused(server: Server) -> None:
    _, token = server.account()
    game = finished_game("eu-classic", seed=9, moves=8)
    data = replay_data(game)

    higher = dict(data, score=data["score"] + 1000)
    answer = submit(server, token, higher)
    assert answer.status_code == 422 and "score" in answer.json()["error"]

    tampered = copy.deepcopy(data)  # a move the deal never allowed
    tampered["log"][1] = ["place", 0, 99, 99]
    assert submit(server, token, tampered).status_code == 422

    # rules that are not the server's, with digests made to match them
    forged = copy.deepcopy(data)
    text = forged["log"][0][1]["ruleset"]
    forged["log"][0][1]["ruleset"] = text.replace("name = ", "name = 'x' #", 1)
    forged["ruleset_digest"] = text_digest(forged["log"][0][1]["ruleset"])
    answer = submit(server, token, forged)
    assert answer.status_code == 422 and "rule" in answer.json()["error"]

    unknown = dict(data, ruleset_id="no-such-rules")
    unknown["log"] = copy.deepcopy(data["log"])
    unknown["log"][0][1]["id"] = "no-such-rules"
    assert submit(server, token, unknown).status_code == 422

    running = blockyard.new_game("eu-classic", seed=10)
    running.place(*running.legal_moves()[0])
    unfinished = replay_data(running)
    answer = submit(server, token, unfinished)
    assert answer.status_code == 422 and "not over" in answer.json()["error"]

    for junk in ([], {"format": "nope"}, {"format": "blockyard-replay/1"}, "x", None):
        answer = submit(server, token, junk)
        assert answer.status_code == 422 and answer.json()["error"]
    answer = server.client.post("/api/games", content=b"[" * 200_000, headers=auth(token))
    assert answer.status_code == 422
    answer = server.client.post("/api/games", content=b"NaN", headers=auth(token))
    assert answer.status_code == 422
    too_big = server.client.post("/api/games", content=b" " * (9 << 20), headers=auth(token))
    assert too_big.status_code == 422 and "larger" in too_big.json()["error"]
    assert state_digest(game)  # the original still verifies
    assert submit(server, token, data).status_code == 201


def test_daily_first_finished_game_counts_later_ones_are_practice(server: Server) -> None:
    name, token = server.account("day")
    today = dt.datetime.now(dt.UTC).date()
    first = finished_game("eu-daily", seed=None, moves=3, date=today)
    second = finished_game("eu-daily", seed=None, moves=9, date=today)
    assert first.seed == second.seed and second.score > first.score
    one = submit(server, token, replay_data(first))
    two = submit(server, token, replay_data(second))
    assert one.status_code == two.status_code == 201
    assert one.json()["counted"] is True and two.json()["counted"] is False
    board = server.client.get("/api/leaderboards/eu-daily",
                              params={"date": today.isoformat(), "limit": 100}).json()
    mine = [e for e in board["entries"] if e["name"] == name]
    assert mine == [{"rank": mine[0]["rank"], "name": name, "score": first.score,
                     "game_id": one.json()["id"]}]
    assert board["date"] == today.isoformat()
    assert board["total"] == len(board["entries"])  # the practice game adds no one
    # a daily of long ago counts for nobody
    old = finished_game("eu-daily", seed=None, moves=3, date=dt.date(2020, 1, 1))
    late = submit(server, token, replay_data(old))
    assert late.status_code == 201 and late.json()["counted"] is False


def test_leaderboard_best_per_player_best_first(server: Server) -> None:
    rid = "eu-hardcore"
    players = [server.account("lb") for _ in range(3)]
    scores: dict[str, int] = {}
    seed = 500
    for n, (name, token) in enumerate(players):
        for moves in (2 + n, 6 + 2 * n):
            seed += 1
            game = finished_game(rid, seed=seed, moves=moves)
            assert submit(server, token, replay_data(game)).status_code == 201
            scores[name] = max(scores.get(name, 0), game.score)
    board = server.client.get(f"/api/leaderboards/{rid}", params={"limit": 100})
    assert board.status_code == 200
    body = board.json()
    assert body["ruleset_id"] == rid and body["date"] is None
    entries = [e for e in body["entries"] if e["name"] in scores]
    assert [e["name"] for e in entries] == sorted(scores, key=lambda n: -scores[n])
    assert all(e["score"] == scores[e["name"]] for e in entries)
    ranks = [e["rank"] for e in body["entries"]]
    assert ranks == list(range(1, len(ranks) + 1))
    for entry in entries:
        replay = server.client.get(f"/api/games/{entry['game_id']}").json()
        assert replay["score"] == entry["score"] and replay["player"] == entry["name"]
    one = server.client.get(f"/api/leaderboards/{rid}", params={"limit": 1}).json()
    assert len(one["entries"]) == 1
    # the whole leaderboard's count, beyond the limit too: each player once
    assert one["total"] == body["total"] == len(body["entries"]) >= len(players)
    for query in ({"limit": 0}, {"limit": 101}, {"limit": "x"}, {"date": "2024-13-01"},
                  {"date": "yesterday"}):
        answer = server.client.get(f"/api/leaderboards/{rid}", params=query)
        assert answer.status_code == 422, query
    assert server.client.get("/api/leaderboards/no-such-rules").status_code == 404
    assert server.client.get("/api/leaderboards/..%2Fetc").status_code in (404, 422)


def test_openapi_describes_the_calls(server: Server) -> None:
    paths = server.client.get("/api/openapi.json").json()["paths"]
    for path in ("/api/health", "/api/accounts", "/api/sessions", "/api/games",
                 "/api/games/{game_id}", "/api/leaderboards/{ruleset_id}"):
        assert path in paths


BAD_OPTIONS = [  # (arguments after --database, its value or None for an SQLite file,
                #  the environment, what the error names)
    (["--workers", "2"], None, {}, "PostgreSQL"),
    ([], "mysql://x/y", {}, "--database"),
    ([], "sqlite://", {}, "file"),
    ([], None, {"BLOCKYARD_SERVER_LIMITS": "submit=0"}, "BLOCKYARD_SERVER_LIMITS"),
    ([], None, {"BLOCKYARD_SERVER_LIMITS": "nonsense"}, "BLOCKYARD_SERVER_LIMITS"),
    ([], None, {"BLOCKYARD_SERVER_ABANDON_SECONDS": "soon"}, "BLOCKYARD_SERVER_ABANDON_SECONDS"),
    ([], None, {"BLOCKYARD_SERVER_CLOCK_TOLERANCE": "-1"}, "BLOCKYARD_SERVER_CLOCK_TOLERANCE"),
    ([], None, {"BLOCKYARD_SERVER_HEADER_SECONDS": "0.5"}, "BLOCKYARD_SERVER_HEADER_SECONDS"),
    ([], None, {"BLOCKYARD_SERVER_BODY_SECONDS": "later"}, "BLOCKYARD_SERVER_BODY_SECONDS"),
]


@pytest.mark.parametrize(("args", "database", "env", "named"), BAD_OPTIONS,
                         ids=[named for _a, _d, _e, named in BAD_OPTIONS])
def test_serve_refuses_bad_options(tmp_path, args: list[str], database: str | None,
                                   env: dict[str, str], named: str) -> None:
    url = database or f"sqlite:///{tmp_path / 'x.sqlite3'}"
    answer = subprocess.run([sys.executable, "-m", "blockyard", "serve", "--database", url,
                             *args], capture_output=True, text=True, timeout=60,
                            env={**os.environ, **env})
    assert answer.returncode == 2 and named in answer.stderr, answer.stderr


def test_serve_on_a_taken_port_touches_no_database(tmp_path) -> None:
    import socket

    database = tmp_path / "never.sqlite3"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        answer = subprocess.run([sys.executable, "-m", "blockyard", "serve", "--port",
                                 str(port), "--database", f"sqlite:///{database}"],
                                capture_output=True, text=True, timeout=60,
                                env={**os.environ, "BLOCKYARD_HOME": str(tmp_path)})
    assert answer.returncode == 3, answer.stderr
    assert f"cannot listen on 127.0.0.1:{port}: address already in use" in answer.stderr
    assert not database.exists()  # neither created nor migrated
