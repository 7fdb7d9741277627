"""What the referee accepts (docs/online.md, "Verified games"):
only the rules' own deal counts, one game is one record however it is spelt,
and a log longer than a real game needs is refused before it is replayed.

Each forgery found by the stranger's test is sent exactly, on SQLite and on
PostgreSQL: a chosen board and tray, a chosen stone stream, a daily game on a
seed of its own choosing, and another player's game with its empty board
written out."""

from __future__ import annotations

import concurrent.futures
import copy
import json
import logging
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from game_support import LONG_PIECES, NEARLY_FULL, played_out
from server_support import Server, finished_game, old_database

import blockyard
from blockyard.replays import replay_data
from blockyard.server import db, games


def submit(server: Server, token: str, data: dict[str, Any]) -> httpx.Response:
    return server.client.post("/api/games", json=data,
                              headers={"Authorization": f"Bearer {token}"})


def board_names(server: Server, ruleset: str, date: str | None = None) -> list[tuple[str, int]]:
    query = f"/api/leaderboards/{ruleset}?limit=100" + (f"&date={date}" if date else "")
    answer = server.client.get(query)
    assert answer.status_code == 200, answer.text
    return [(row["name"], row["score"]) for row in answer.json()["entries"]]


def test_a_chosen_board_and_tray_is_refused_and_never_ranked(server: Server) -> None:
    name, token = server.account("forger")
    forged = played_out(blockyard.new_game("eu-classic", seed=3, board=NEARLY_FULL,
                                           tray=LONG_PIECES))
    assert forged.score > 1000  # what the forgery was after
    answer = submit(server, token, replay_data(forged, name))
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert "chosen board and tray" in error and "rules' own deal" in error
    # the same seed's own deal, played the same way, counts
    honest = played_out(blockyard.new_game("eu-classic", seed=3))
    answer = submit(server, token, replay_data(honest, name))
    assert answer.status_code == 201 and answer.json()["counted"] is True
    assert (name, forged.score) not in board_names(server, "eu-classic")
    assert (name, honest.score) in board_names(server, "eu-classic")


def test_a_chosen_stone_stream_is_refused(server: Server) -> None:
    name, token = server.account("golden")
    game = blockyard.new_game("sudoku-bloxx", seed=3, stream=" ".join(["S"] * 40))
    for _ in range(6):
        if not game.over:
            game.hard_drop()
    game.end_round()
    answer = submit(server, token, replay_data(game, name))
    assert answer.status_code == 422
    assert "chosen stone stream" in answer.json()["error"]


def test_a_daily_game_counts_only_on_its_dates_own_seed(server: Server) -> None:
    name, token = server.account("daily")
    today = blockyard.game.today_in(blockyard.load_ruleset("eu-daily").timezone)
    own = blockyard.rng.daily_seed("eu-daily", today)
    chosen = played_out(blockyard.new_game("eu-daily", seed=own + 1, date=today))
    answer = submit(server, token, replay_data(chosen, name))
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert f"seed {own + 1}" in error and f"seed {own}" in error and today.isoformat() in error
    honest = played_out(blockyard.new_game("eu-daily", date=today))
    assert honest.seed == own
    answer = submit(server, token, replay_data(honest, name))
    assert answer.status_code == 201 and answer.json()["counted"] is True
    assert board_names(server, "eu-daily", today.isoformat()).count((name, honest.score)) == 1


def test_one_game_is_one_record_however_it_is_spelt(server: Server) -> None:
    alice, alice_token = server.account("alice")
    mallory, mallory_token = server.account("mallory")
    game = finished_game("eu-classic", seed=11, moves=12)
    original = replay_data(game, alice)
    assert submit(server, alice_token, original).status_code == 201
    public = server.client.get(f"/api/accounts/{alice}/games").json()["games"][0]
    stored = server.client.get(f"/api/games/{public['id']}").json()
    # another account's public game with its empty board written out as text
    spelt = json.loads(json.dumps(stored))
    spelt["log"][0][1]["board"] = "\n".join(["." * 10] * 10)
    spelt["player"] = mallory
    answer = submit(server, mallory_token, spelt)
    assert answer.status_code == 409, answer.text
    # the same game again from its own player, its keys in another order and with
    # a start key the engine does not know
    again = json.loads(json.dumps(original, sort_keys=True))
    again["log"][0][1]["note"] = "once more"
    assert submit(server, alice_token, again).status_code == 409
    ranked = [row for row in board_names(server, "eu-classic") if row[1] == game.score]
    assert (mallory, game.score) not in ranked


def test_the_stored_replay_is_written_in_the_canonical_form(server: Server) -> None:
    name, token = server.account("canon")
    game = finished_game("eu-classic", seed=12, moves=10)
    data = json.loads(json.dumps(replay_data(game, name)))
    # the dealt tray named piece by piece: the rules' own deal, spelt another way
    dealt = blockyard.new_game("eu-classic", seed=12).tray
    data["log"][0][1]["tray"] = [piece.name for piece in dealt]
    answer = submit(server, token, data)
    assert answer.status_code == 201
    stored = server.client.get(f"/api/games/{answer.json()['id']}").json()
    assert stored["log"] == game.log
    assert stored["chosen_start"] is None


def rotations(count: int) -> dict[str, Any]:
    """A legal arcadeforge-rotate log of a real game with ``count`` turns of the
    first piece before its first placement (a multiple of 4: the same game)."""
    game = finished_game("arcadeforge-rotate", seed=5, moves=8)
    data = replay_data(game, "spinner")
    data["log"] = [data["log"][0], *(["rotate", 0] for _ in range(count)), *data["log"][1:]]
    return data


def test_a_log_longer_than_a_real_game_needs_is_refused_before_replaying(
        server: Server) -> None:
    name, token = server.account("long")
    # 208 entries a move (16, and 64 turns of each of the 3 tray pieces) and the 8 moves
    answer = submit(server, token, rotations(2000))
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert "2009 actions for 8 moves" in error and "needs at most 1880" in error
    # a Sudoku Bloxx game whose stone steps left and right in no game time
    game = finished_game("sudoku-bloxx", seed=5, moves=3)
    data = replay_data(game, name)
    data["log"] = [data["log"][0], *(["move", (-1) ** i] for i in range(2000)),
                   *data["log"][1:]]
    answer = submit(server, token, data)
    assert answer.status_code == 422 and "a real game of 'sudoku-bloxx' needs at most" in \
        answer.json()["error"]


def test_four_huge_logs_beside_a_normal_game_harm_only_themselves(server: Server) -> None:
    name, token = server.account("beside")
    huge = json.dumps(rotations(490_000)).encode()  # 5.9 MB, under the 8 MiB limit
    normal = replay_data(finished_game("eu-classic", seed=13, moves=10), name)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def send(body: bytes) -> httpx.Response:
        with httpx.Client(base_url=server.url, timeout=120) as client:
            return client.post("/api/games", content=body, headers=headers)

    with concurrent.futures.ThreadPoolExecutor(5) as pool:
        big = [pool.submit(send, huge) for _ in range(4)]
        small = pool.submit(send, json.dumps(normal).encode())
        answers = [future.result() for future in big]
        stored = small.result()
    assert stored.status_code == 201, stored.text
    for answer in answers:
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"] == ("the log has 490009 actions; a game of "
                                          "'arcadeforge-rotate' is verified up to 200000")
    log = server.log.read_text()
    assert "Traceback" not in log and " 500 " not in log


MOMENT = "2026-11-30 12:00:00.000000"  # as SQLAlchemy writes it in SQLite


def store_games(engine: sa.Engine, rows: list[tuple[int, str, dict[str, Any]]],
                identities: dict[int, str] | None = None) -> None:
    """Each ``(id, player, replay)`` stored as an older server stored it, counted
    (``identities``: the ``games.identity`` of each game, from revision 0007 on);
    the engine is disposed of."""
    extra = ", identity" if identities is not None else ""
    try:
        with engine.begin() as conn:
            for key, name, data in rows:
                conn.execute(sa.text(
                    "INSERT INTO accounts (id, name, name_key, password_hash, created) "
                    "VALUES (:i, :n, :n, 'x', :t)"), {"i": key, "n": name, "t": MOMENT})
                conn.execute(sa.text(
                    "INSERT INTO games (id, account_id, ruleset_id, ruleset_digest, daily, "
                    f"date, seed, score, moves, counted, log_digest, replay, submitted{extra}) "
                    "VALUES (:i, :i, 'eu-classic', :d, false, NULL, :s, :score, 1, true, :l, "
                    f":r, :t{', :identity' if extra else ''})"),
                    {"i": key, "d": data["ruleset_digest"], "s": data["seed"],
                     "score": data["score"], "l": f"{key:064x}", "r": json.dumps(data),
                     "t": MOMENT, "identity": (identities or {}).get(key)})
    finally:
        engine.dispose()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_migration_keeps_one_record_per_game_and_uncounts_forgeries(
        database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture,
        request: pytest.FixtureRequest) -> None:
    empty = None if database == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0006", empty)
    honest = finished_game("eu-classic", seed=21, moves=10)
    copy_of_it = replay_data(honest, "bob")
    copy_of_it["log"] = copy.deepcopy(copy_of_it["log"])
    copy_of_it["log"][0][1]["board"] = "\n".join(["." * 10] * 10)
    forged = played_out(blockyard.new_game("eu-classic", seed=3, board=NEARLY_FULL,
                                           tray=LONG_PIECES))
    rows = [(1, "ann", replay_data(honest, "ann")), (2, "bob", copy_of_it),
            (3, "eve", replay_data(forged, "eve"))]
    store_games(engine, rows)
    with caplog.at_level(logging.INFO, logger="alembic"):
        db.migrate(url)
    said = caplog.text
    assert "game 2 is a copy of game 1" in said
    assert "game 3 is not the rules' own deal (this game starts from a chosen board and " \
        "tray" in said
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(sa.text(
                "SELECT id, counted, identity FROM games ORDER BY id")).all()
        identity = blockyard.gamecheck.game_identity(honest)
        assert [(row.id, bool(row.counted)) for row in stored] == [
            (1, True), (2, False), (3, False)]  # nothing deleted
        assert stored[0].identity == identity and stored[1].identity is None
        assert games.leaderboard(engine, "eu-classic", False, None, 10) == [
            {"rank": 1, "name": "ann", "score": honest.score, "game_id": 1}]
    finally:
        engine.dispose()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_identities_of_stored_games_are_computed_anew_in_their_second_format(
        database: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    empty = None if database == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0007", empty)
    honest = finished_game("eu-classic", seed=22, moves=10)
    other = finished_game("eu-classic", seed=23, moves=10)
    rows = [(1, "ann", replay_data(honest, "ann")), (2, "bob", replay_data(other, "bob"))]
    store_games(engine, rows, {1: "1" * 64, 2: "2" * 64})  # as revision 0007 wrote them
    db.migrate(url)
    engine = db.make_engine(url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(sa.text(
                "SELECT id, counted, identity FROM games ORDER BY id")).all()
        assert [(row.id, bool(row.counted), row.identity) for row in stored] == [
            (1, True, blockyard.gamecheck.game_identity(honest)),
            (2, True, blockyard.gamecheck.game_identity(other))]
    finally:
        engine.dispose()
