"""Copies and claimed work a stranger's attack sent (docs/online.md, "Verified
games"), on SQLite and on PostgreSQL.

A game of a ruleset that is not daily is dealt by its seed alone: a ``date``
written into a copy of a public game (``GET /api/games/{id}``) changes nothing of
the deal or the play, only the label (a date leaderboard's) — not the rules' own
deal. Work is judged by what was played: placements that cannot be played and a
tick past the time limit buy no entries. Actions that leave a game as it was make
no other game (a copy padded with four turns of a piece is a 409)."""

from __future__ import annotations

import datetime as _dt
import json
from typing import Any

import httpx
from server_support import Server, finished_game

import blockyard
from blockyard.replays import replay_data, state_digest


def submit(server: Server, token: str, data: dict[str, Any]) -> httpx.Response:
    return server.client.post("/api/games", json=data,
                              headers={"Authorization": f"Bearer {token}"})


def test_a_copied_game_with_a_date_written_in_is_the_same_game(server: Server) -> None:
    alice, alice_token = server.account("alice")
    mallory, mallory_token = server.account("mallory")
    game = finished_game("eu-classic", seed=31, moves=12)
    answer = submit(server, alice_token, replay_data(game, alice))
    assert answer.status_code == 201, answer.text
    stored = server.client.get(f"/api/games/{answer.json()['id']}").json()
    # the date of a game that is not daily deals nothing: the same game
    dated = blockyard.new_game("eu-classic", seed=31, date=_dt.date(2001, 2, 3))
    assert dated.tray == blockyard.new_game("eu-classic", seed=31).tray
    copied = json.loads(json.dumps(stored))
    copied["log"][0][1]["date"] = "2001-02-03"
    rebuilt = blockyard.replay(copied["log"])
    assert rebuilt.score == game.score and rebuilt.log[1:] == game.log[1:]
    copied.update(player=mallory, date=rebuilt.date, final_digest=state_digest(rebuilt))
    answer = submit(server, mallory_token, copied)
    assert answer.status_code == 422, answer.text
    assert "names a date (2001-02-03), but 'eu-classic' is not a daily ruleset" in \
        answer.json()["error"]
    board = server.client.get("/api/leaderboards/eu-classic?limit=100").json()["entries"]
    assert (mallory, game.score) not in [(row["name"], row["score"]) for row in board]


def test_a_copy_padded_with_actions_that_change_nothing_is_the_same_game(
        server: Server) -> None:
    alice, alice_token = server.account("alice")
    mallory, mallory_token = server.account("mallory")
    game = finished_game("arcadeforge-rotate", seed=33, moves=10)
    assert submit(server, alice_token, replay_data(game, alice)).status_code == 201
    padded = blockyard.new_game("arcadeforge-rotate", seed=33)
    for _ in range(4):
        padded.act("rotate", 0)
    for action in game.log[1:]:
        padded.apply(action)
    assert padded.score == game.score and padded.log != game.log
    answer = submit(server, mallory_token, replay_data(padded, mallory))
    assert answer.status_code == 409, answer.text


def test_turns_before_the_first_move_are_refused_whatever_follows(server: Server) -> None:
    """3,000 turns of one piece before the first placement is more work than a
    real game needs (16 entries before its first move), refused before replay:
    the placements written after them (of which only the first can be played,
    slot 0 being empty after it) must not buy the turns a replay."""
    name, token = server.account("spinner")
    start = blockyard.new_game("arcadeforge-rotate", seed=5)
    data = json.loads(json.dumps(replay_data(start, name)))
    data["log"] = [data["log"][0], *(["rotate", 0] for _ in range(3_000)),
                   *(["place", 0, 0, 0] for _ in range(200))]
    answer = submit(server, token, data)
    assert answer.status_code == 422
    assert "a real game of 'arcadeforge-rotate' needs at most" in answer.json()["error"], \
        answer.text


def test_a_clock_beyond_the_time_limit_buys_no_work(server: Server) -> None:
    """Sudoku Bloxx's clock stops at its time limit (360 s): one tick of a day
    claims no more game clock than that, so 30,000 steps of one stone in the air
    (no drop) is more than a real game needs, refused before replay."""
    name, token = server.account("stepper")
    ruleset = blockyard.load_ruleset("sudoku-bloxx")
    assert ruleset.time_limit is not None and ruleset.time_limit < 400
    game = blockyard.new_game("sudoku-bloxx", seed=5)
    for i in range(30_000):
        game.move((-1) ** i)
    game.tick(86_400)
    assert game.over and len(game.log) == 30_002
    answer = submit(server, token, replay_data(game, name))
    assert answer.status_code == 422, answer.text
    assert "a real game of 'sudoku-bloxx' needs at most" in answer.json()["error"]
