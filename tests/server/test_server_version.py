"""The server build's version where a server says or stores it, on SQLite and
PostgreSQL: ``/api/health``, each stored game (``games.server_version``, filled
on insert; migration 0009 gives the games stored before it the version their
stored replay names) and a player's listed games; and a game played on another
build of the server's release (another commit) counts as before, while one of
another release is refused naming both versions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from server_support import Server, engine_of, finished_game, old_database

import blockyard
from blockyard.replays import replay_data
from blockyard.server import db
from blockyard.version import release

MOMENT = "2026-11-30 12:00:00.000000"  # as SQLAlchemy writes it in SQLite


def submit(server: Server, token: str, data: dict[str, Any]) -> httpx.Response:
    return server.client.post("/api/games", content=json.dumps(data),
                              headers={"Authorization": f"Bearer {token}"})


def another_build_of_this_release() -> str:
    """A development build of another commit of the running Blockyard's release."""
    numbers = release(blockyard.__version__)
    assert numbers is not None
    return ".".join(str(n) for n in numbers[1:]) + ".dev1+gdeadbee"


def test_the_server_says_its_version_and_stores_it_with_each_game(server: Server) -> None:
    health = server.client.get("/api/health")
    assert health.status_code == 200 and health.json()["version"] == blockyard.__version__
    name, token = server.account("stored")
    game = finished_game("eu-classic", seed=31, moves=8)
    answer = submit(server, token, replay_data(game, name))
    assert answer.status_code == 201, answer.text
    game_id = answer.json()["id"]
    with engine_of(server.database) as engine, engine.connect() as conn:
        row = conn.execute(sa.select(db.games.c.server_version)
                           .where(db.games.c.id == game_id)).one()
    assert row.server_version == blockyard.__version__
    listed = server.client.get(f"/api/accounts/{name}/games").json()["games"]
    assert [(g["id"], g["server_version"]) for g in listed] == [
        (game_id, blockyard.__version__)]
    # the stored replay is the server's own rebuild: its header names the server too
    stored = server.client.get(f"/api/games/{game_id}").json()
    assert stored["engine"] == blockyard.__version__
    assert {"name": "blockyard", "version": blockyard.__version__} in stored["plugins"]


def test_a_game_played_on_another_build_of_this_release_counts(server: Server) -> None:
    name, token = server.account("commit")
    data = replay_data(finished_game("eu-classic", seed=32, moves=8), name)
    other = another_build_of_this_release()
    data["engine"] = other
    data["plugins"] = [{"name": "blockyard", "version": other}]
    answer = submit(server, token, data)
    assert answer.status_code == 201, answer.text
    data = replay_data(finished_game("eu-classic", seed=33, moves=8), name)
    data["plugins"] = [{"name": "blockyard", "version": "99.0.0"}]
    answer = submit(server, token, data)
    assert answer.status_code == 422
    assert (f"played with blockyard 99.0.0; this server has {blockyard.__version__}"
            in answer.json()["error"])


def store_old_games(engine: sa.Engine, replays: list[str]) -> None:
    """Each replay text stored as a server before migration 0009 stored a game
    (one account each); the engine is disposed of."""
    try:
        with engine.begin() as conn:
            for key, text in enumerate(replays, 1):
                conn.execute(sa.text(
                    "INSERT INTO accounts (id, name, name_key, password_hash, created) "
                    "VALUES (:i, :n, :n, 'x', :t)"), {"i": key, "n": f"old{key}", "t": MOMENT})
                conn.execute(sa.text(
                    "INSERT INTO games (id, account_id, ruleset_id, ruleset_digest, daily, "
                    "date, seed, score, moves, counted, log_digest, identity, replay, "
                    "submitted) VALUES (:i, :i, 'eu-classic', 'd', false, NULL, 1, 10, 1, "
                    "true, :l, :l, :r, :t)"),
                    {"i": key, "l": f"{key:064x}", "r": text, "t": MOMENT})
    finally:
        engine.dispose()


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_migration_gives_stored_games_the_version_their_replay_names(
        database: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    empty = None if database == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0008", empty)
    honest = replay_data(finished_game("eu-classic", seed=34, moves=8), "old1")
    honest["engine"] = "0.1.0"  # what every server said before versions told builds apart
    nameless = {k: v for k, v in honest.items() if k != "engine"}
    store_old_games(engine, [json.dumps(honest), json.dumps(nameless),
                             json.dumps({**honest, "engine": 5}),
                             json.dumps({**honest, "engine": "x" * 65}), "not json"])
    db.migrate(url)
    with engine_of(url) as migrated, migrated.connect() as conn:
        rows = conn.execute(sa.select(db.games.c.id, db.games.c.server_version)
                            .order_by(db.games.c.id)).all()
        indexes = {ix["name"] for ix in sa.inspect(conn).get_indexes("games")}
    assert [tuple(row) for row in rows] == [
        (1, "0.1.0"), (2, None), (3, None), (4, None), (5, None)]
    assert {"ix_games_board", "uq_games_daily_first"} <= indexes


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_migration_downgrades_to_0008_and_up_again(
        database: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    from alembic import command
    from alembic.config import Config

    empty = None if database == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0009", empty)
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0008")
        with engine.connect() as conn:
            columns = {c["name"] for c in sa.inspect(conn).get_columns("games")}
            indexes = {ix["name"] for ix in sa.inspect(conn).get_indexes("games")}
        assert "server_version" not in columns and "identity" in columns
        assert {"ix_games_board", "uq_games_daily_first"} <= indexes
        if database == "sqlite":  # the table made anew: its partial index kept whole
            with engine.connect() as conn:
                made = conn.execute(sa.text("SELECT sql FROM sqlite_master WHERE name = "
                                            "'uq_games_daily_first'")).scalar_one()
            assert "daily AND counted" in made
    finally:
        engine.dispose()
    db.migrate(url)
    with engine_of(url) as again, again.connect() as conn:
        assert "server_version" in {c["name"] for c in sa.inspect(conn).get_columns("games")}
