"""Ratings of live tables in the store (SQLite and PostgreSQL): a rated round's
result and its seats' new ratings are stored in one transaction, a friendly
table rates nobody, the rated leaderboard pages best first with provisional
ratings marked, a player's page lists their ratings; migration 0010 keeps the
tables of before friendly. Then over HTTP and the live channel: a rated duel
says its seats' ratings in the table message and their changes in the result."""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from server_support import Server, old_database
from test_server_table_races import race
from test_server_tables import auth, live, new_table, play, until

import blockyard
from blockyard import ratings
from blockyard.ratings import Rating
from blockyard.server import accounts, db, ratingstore, tablestore
from blockyard.server.accounts import Account

pytestmark = pytest.mark.usefixtures("cheap_passwords")


def players(engine: sa.Engine, *names: str) -> list[Account]:
    return [accounts.create_account(engine, name, f"password-{name}") for name in names]


def playing(engine: sa.Engine, seated: list[Account], rated: bool,
            ruleset: str = "eu-classic") -> tablestore.Table:
    table = tablestore.create_table(engine, seated[0], ruleset, len(seated), False, [],
                                    None, rated)
    for account in seated[1:]:
        table = tablestore.join_table(engine, table.id, account, None)
    assert table.status == "playing"
    return table


T0 = _dt.datetime(2026, 12, 2, 12, 0, tzinfo=_dt.UTC)


def day(n: int) -> _dt.datetime:
    """Noon of the ``n``-th day after T0: rounds a day apart (one pair's rated
    rounds are at most 3 in any 24 hours)."""
    return T0 + _dt.timedelta(days=n)


def played(engine: sa.Engine, table: tablestore.Table, actions: int = 2) -> tablestore.Table:
    """Every seat makes ``actions`` placements of its own (a round is rated only
    when each seat made at least 2), stored as the referee stores them."""
    for seat in range(table.seats):
        for n in range(1, actions + 1):
            tablestore.add_action(engine, table, seat, n, ["place", 0, 0, 2 * n], n, False)
    return table


def finish(engine: sa.Engine, table: tablestore.Table, scores: list[int],
           moment: _dt.datetime | None = None) -> tablestore.Finished | None:
    """Play the round (2 actions a seat), then store its result."""
    return tablestore.finish_round(engine, played(engine, table), scores, moment=moment)


def stored_rating(engine: sa.Engine, account: Account, ruleset: str = "eu-classic"
                  ) -> Rating | None:
    r = db.ratings
    with engine.connect() as conn:
        row = conn.execute(sa.select(r).where(r.c.account_id == account.id,
                                              r.c.ruleset_id == ruleset)).first()
    return None if row is None else Rating(row.mu, row.sigma, row.games)


def test_a_rated_round_rates_its_seats_with_its_result(engine: sa.Engine) -> None:
    ann, ben, cy = players(engine, "ann", "ben", "cyd")
    table = playing(engine, [ann, ben, cy], rated=True)
    assert table.rated
    assert table.ratings == (Rating(), Rating(), Rating())  # newcomers until rated
    done = finish(engine, table, [30, 50, 10])
    assert done is not None
    expected = ratings.rate([Rating()] * 3, [30, 50, 10])
    for who, rating in zip((ann, ben, cy), expected, strict=True):
        found = stored_rating(engine, who)
        assert found is not None and found.games == 1
        assert (found.mu, found.sigma) == (pytest.approx(rating.mu),
                                           pytest.approx(rating.sigma))
    assert done.ratings == ratings.changes([Rating()] * 3, expected)
    stored = tablestore.results(engine, table.id)
    assert stored[0]["ratings"] == done.ratings
    again = tablestore.load_table(engine, table.id)
    assert [r.games for r in again.ratings if r is not None] == [1, 1, 1]
    assert again.message()["ratings"] == [r.shown() for r in expected]
    # the account's own change is in its table results
    listed = tablestore.account_results(engine, "ben", 10)
    assert listed is not None and listed[0]["rating"] == done.ratings[1]
    # a rematch is rated too, from the ratings the first round left
    tablestore.rematch(engine, again, None, 0)
    second = tablestore.load_table(engine, table.id)
    finished = finish(engine, second, [5, 5, 9])
    assert finished is not None and finished.ratings is not None
    after = stored_rating(engine, cy)
    assert after is not None and after.games == 2
    assert after.mu == pytest.approx(ratings.rate(list(expected), [5, 5, 9])[2].mu)


def test_a_friendly_table_rates_nobody_and_says_so(engine: sa.Engine) -> None:
    ann, ben = players(engine, "ann", "ben")
    table = playing(engine, [ann, ben], rated=False)
    done = finish(engine, table, [30, 10])
    assert done is not None and done.ratings is None
    assert stored_rating(engine, ann) is None and stored_rating(engine, ben) is None
    assert tablestore.results(engine, table.id)[0]["ratings"] is None
    assert tablestore.load_table(engine, table.id).message()["rated"] is False


def test_the_ratings_and_the_result_are_one_transaction(engine: sa.Engine) -> None:
    """A failure after the ratings are written (here: making the announcement)
    leaves neither the result nor the ratings: the round is still playing."""
    ann, ben = players(engine, "ann", "ben")
    table = played(engine, playing(engine, [ann, ben], rated=True))

    def fails(stored: tablestore.Finished) -> list[dict[str, Any]]:
        assert stored.ratings is not None  # computed in the transaction, then it fails
        raise RuntimeError("the announcement failed")

    with pytest.raises(RuntimeError, match="announcement"):
        tablestore.finish_round(engine, table, [30, 10], fails)
    assert stored_rating(engine, ann) is None
    assert tablestore.results(engine, table.id) == []
    assert tablestore.load_table(engine, table.id).status == "playing"
    # stored once the round does finish, whoever finishes it first
    assert tablestore.finish_round(engine, table, [30, 10]) is not None
    assert tablestore.finish_round(engine, table, [30, 10]) is None
    rated = stored_rating(engine, ann)
    assert rated is not None and rated.games == 1


def test_rounds_finishing_at_once_with_a_player_in_common_rate_them_one_after_the_other(
        engine: sa.Engine) -> None:
    """Two tables with ann at both finish at the same moment, five times: each
    result reads ann's rating holding it, so neither update is lost."""
    ann, ben, cyd = players(engine, "ann", "ben", "cyd")
    tries = 5
    for n in range(tries):  # a day apart: each pair plays 1 rated round a day
        one = played(engine, playing(engine, [ann, ben], True))
        two = played(engine, playing(engine, [cyd, ann], True))
        race(lambda: tablestore.finish_round(engine, one, [10, 0],  # noqa: B023
                                             moment=day(n)),  # noqa: B023
             lambda: tablestore.finish_round(engine, two, [0, 10],  # noqa: B023
                                             moment=day(n)))  # noqa: B023
    found = [stored_rating(engine, who) for who in (ann, ben, cyd)]
    # every round counted once for everyone: a lost update would count one less
    assert [r.games if r else 0 for r in found] == [2 * tries, tries, tries]


def test_ratings_are_per_ruleset(engine: sa.Engine) -> None:
    ann, ben = players(engine, "ann", "ben")
    finish(engine, playing(engine, [ann, ben], True), [9, 1])
    other = playing(engine, [ann, ben], True, "sudoku-bloxx")
    assert other.ratings == (Rating(), Rating())  # eu-classic's rating says nothing here
    finish(engine, other, [1, 9])
    classic, bloxx = stored_rating(engine, ann), stored_rating(engine, ann, "sudoku-bloxx")
    assert classic is not None and bloxx is not None
    assert classic.mu > 25 > bloxx.mu


def test_the_rated_leaderboard_pages_best_first_with_provisional_marked(
        engine: sa.Engine) -> None:
    names = ["ann", "ben", "cyd", "dee", "eve"]
    seated = players(engine, *names)
    # ann beats everyone ten times (no longer provisional); the others once each
    for n in range(ratings.PROVISIONAL_GAMES):  # one a day: each of them rated
        finish(engine, playing(engine, [seated[0], seated[4]], True), [10, 0], day(n))
    for better, worse in ((1, 2), (2, 3)):
        finish(engine, playing(engine, [seated[better], seated[worse]], True), [10, 0])
    playing(engine, [seated[1], seated[3]], True)  # never finished: rates nobody
    total, page = ratingstore.leaderboard(engine, "eu-classic", 100, 0)
    assert total == 5
    assert [e["name"] for e in page] == sorted(names, key=lambda n: -next(
        e["rating"] for e in page if e["name"] == n))
    assert page[0]["name"] == "ann" and page[0]["provisional"] is False
    assert page[0]["games"] == ratings.PROVISIONAL_GAMES
    assert [e["rank"] for e in page] == [1, 2, 3, 4, 5]
    assert all(e["provisional"] == (e["games"] < ratings.PROVISIONAL_GAMES) for e in page)
    assert [e["provisional"] for e in page].count(False) == 2  # ann and eve
    assert set(page[0]) == {"rank", "name", "rating", "mu", "sigma", "games", "provisional"}
    total, second = ratingstore.leaderboard(engine, "eu-classic", 2, 2)
    assert total == 5 and second == page[2:4]
    assert ratingstore.leaderboard(engine, "eu-classic", 2, 10) == (5, [])
    assert ratingstore.leaderboard(engine, "sudoku-bloxx", 10, 0) == (0, [])
    mine = ratingstore.account_ratings(engine, "ANN")
    assert mine == {"name": "ann", "ratings": [
        {"ruleset_id": "eu-classic", **{k: v for k, v in page[0].items()
                                        if k not in ("rank", "name")}}]}
    assert ratingstore.account_ratings(engine, "nobody") is None


def test_migration_0010_keeps_the_tables_of_before_friendly(tmp_path: Path) -> None:
    url, engine = old_database(tmp_path, "0009")
    try:
        with engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO accounts (name, name_key, password_hash, created) "
                "VALUES ('ann', 'ann', 'x', '2026-12-01 12:00:00.000000')"))
            conn.execute(sa.text(
                "INSERT INTO tables (id, code, ruleset_id, seats, private, status, round, "
                "seed, creator_id, created) VALUES (4, 'ABCDEFGH', 'eu-classic', 2, 0, "
                "'waiting', 1, 5, 1, '2026-12-01 12:00:00.000000')"))
            conn.execute(sa.text("INSERT INTO table_seats VALUES (4, 0, 1)"))
    finally:
        engine.dispose()
    assert db.migrate(url) == db.Migrated("0009", db.head_revision())
    engine = db.make_engine(url)
    try:
        table = tablestore.load_table(engine, 4)
        assert table.rated is False and table.ratings == (Rating(), None)
        with engine.connect() as conn:
            for name in ("ratings", "pairing"):
                assert sa.inspect(conn).has_table(name)
    finally:
        engine.dispose()


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_migration_0010_downgrades_to_0009_and_up_again(
        kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    from alembic import command
    from alembic.config import Config

    empty = None if kind == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0010", empty)
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0009")
        with engine.connect() as conn:
            found = sa.inspect(conn)
            assert not found.has_table("ratings") and not found.has_table("pairing")
            assert "rated" not in {c["name"] for c in found.get_columns("tables")}
    finally:
        engine.dispose()
    assert db.migrate(url) == db.Migrated("0009", db.head_revision())


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_migration_0013_counts_the_rated_results_of_before_and_downgrades(
        kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """A result stored before 0013 with its ratings counts as a rated round of
    its pair (the limit of 3 a day sees it); one without is friendly; 0013 goes
    down to 0012 with those rows in place, and up again."""
    from alembic import command
    from alembic.config import Config

    empty = None if kind == "sqlite" else request.getfixturevalue("postgres").new_database()
    url, engine = old_database(tmp_path, "0012", empty)
    moment = _dt.datetime.now(_dt.UTC) - _dt.timedelta(hours=1)
    rated = json.dumps({"seats": ["ann", "ben"], "scores": [3, 1], "winner": 0,
                        "ratings": [{"before": 0.0, "after": 1.0, "change": 1.0,
                                     "provisional": True}] * 2})
    friendly = json.dumps({"seats": ["ann", "ben"], "scores": [3, 1], "winner": 0,
                           "ratings": None})
    try:
        with engine.begin() as conn:
            for n, name in ((1, "ann"), (2, "ben")):
                conn.execute(sa.text(
                    "INSERT INTO accounts (id, name, name_key, password_hash, created) "
                    "VALUES (:n, :name, :name, 'x', :at)"), {"n": n, "name": name,
                                                             "at": moment})
            for table_id, result in ((1, rated), (2, rated), (3, rated), (4, friendly)):
                conn.execute(sa.text(
                    "INSERT INTO tables (id, code, ruleset_id, seats, private, status, "
                    "round, seed, creator_id, created, rated) VALUES (:t, 'ABCDEFGH', "
                    "'eu-classic', 2, false, 'finished', 1, 5, 1, :at, true)"),
                    {"t": table_id, "at": moment})
                conn.execute(sa.text("INSERT INTO table_results VALUES (:t, 1, :r, :at)"),
                             {"t": table_id, "r": result, "at": moment})
                for seat in (0, 1):
                    conn.execute(sa.text("INSERT INTO table_result_seats VALUES "
                                         "(:t, 1, :s, :a)"),
                                 {"t": table_id, "s": seat, "a": seat + 1})
    finally:
        engine.dispose()
    assert db.migrate(url) == db.Migrated("0012", db.head_revision())
    engine = db.make_engine(url)
    config = Config()
    config.set_main_option("script_location", str(Path(db.__file__).parent / "migrations"))
    try:
        with engine.connect() as conn:
            flags = conn.execute(sa.select(db.table_results.c.table_id,
                                           db.table_results.c.rated)
                                 .order_by(db.table_results.c.table_id)).all()
            assert [bool(f.rated) for f in flags] == [True, True, True, False]
            assert tablestore.pairs_at_limit(conn, [1, 2], _dt.datetime.now(_dt.UTC)) \
                == [(0, 1)]
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0012")
        with engine.connect() as conn:
            found = sa.inspect(conn)
            assert "rated" not in {c["name"] for c in found.get_columns("table_results")}
            assert "friendly_pairs" not in {c["name"] for c in found.get_columns("tables")}
    finally:
        engine.dispose()
    assert db.migrate(url) == db.Migrated("0012", db.head_revision())


def test_the_schema_the_migrations_make_is_the_one_described(database: str) -> None:
    """The new tables, column and indexes as :data:`blockyard.server.db.METADATA`
    describes them (Alembic's comparison of the migrated database with it)."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = db.make_engine(database)
    try:
        with engine.connect() as conn:
            diffs = compare_metadata(MigrationContext.configure(conn), db.METADATA)
    finally:
        engine.dispose()
    mine = [d for d in diffs if any(word in repr(d) for word in ("ratings", "pairing",
                                                                 "'rated'", "friendly_pairs",
                                                                 "ix_table_results_rated"))]
    assert mine == []


# -- over HTTP and the live channel -----------------------------------------------------


def finish_duel(server: Server, table_id: int, tokens: list[str]
                ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Each seat places two pieces (a round with fewer is aborted), then both end
    their game; the finished table's message and the result message each seat got."""
    with live(server, table_id, tokens[0]) as a, live(server, table_id, tokens[1]) as b:
        first = until(a, "table")
        until(b, "table")
        assert first["status"] == "playing"
        for seat, (socket, other) in enumerate(((a, b), (b, a))):
            game = blockyard.new_game(first["ruleset_id"], seed=first["seed"])
            for _ in range(2):
                play(socket, game, [other], seat)
        a.send(json.dumps({"type": "act", "action": ["end"]}))
        until(b, "move")
        b.send(json.dumps({"type": "act", "action": ["end"]}))
        finished = until(a, "table", lambda m: m["status"] == "finished")
        return finished, [until(a, "result"), until(b, "result")]


def test_a_rated_duel_says_the_ratings_and_their_changes(server: Server) -> None:
    alice, alice_token = server.account("ra")
    bob, bob_token = server.account("rb")
    table = new_table(server, alice_token, rated=True)
    listed = [t for t in server.client.get("/api/tables").json()["tables"]
              if t["id"] == table["id"]]
    assert listed[0]["rated"] is True and listed[0]["ratings"][1] is None
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(bob_token)).json() == {"seat": 1}
    shown = server.client.get(f"/api/tables/{table['id']}").json()
    assert shown["rated"] is True
    assert shown["ratings"] == [Rating().shown(), Rating().shown()]
    finished, results = finish_duel(server, table["id"], [alice_token, bob_token])
    assert results[0] == results[1]
    # the finished table's message says the ratings the round left
    assert [r["games"] for r in finished["ratings"]] == [1, 1]
    changes = results[0]["ratings"]
    assert isinstance(changes, list) and len(changes) == 2
    assert {"before", "after", "change", "provisional"} == set(changes[0])
    assert changes[0]["before"] == 0.0 and changes[0]["provisional"] is True
    stored = server.client.get(f"/api/tables/{table['id']}").json()
    assert stored["results"][0]["ratings"] == changes
    assert [r["games"] for r in stored["ratings"]] == [1, 1]
    # a reconnection to the finished table gets the same result
    with live(server, table["id"], bob_token) as again:
        assert until(again, "result")["ratings"] == changes
    page = server.client.get(f"/api/accounts/{alice.upper()}").json()
    assert page["name"] == alice
    assert [(r["ruleset_id"], r["games"], r["provisional"]) for r in page["ratings"]] == [
        ("eu-classic", 1, True)]
    board = server.client.get("/api/ratings/eu-classic", params={"limit": 100}).json()
    assert board["provisional_games"] == ratings.PROVISIONAL_GAMES
    names = [e["name"] for e in board["entries"]]
    assert alice in names and bob in names
    assert board["total"] >= 2 and board["offset"] == 0 and board["limit"] == 100


def test_a_table_is_friendly_unless_asked_rated(server: Server) -> None:
    _, owner = server.account("fr")
    _, other = server.account("fr")
    table = new_table(server, owner)
    server.client.post(f"/api/tables/{table['id']}/join", headers=auth(other))
    assert server.client.get(f"/api/tables/{table['id']}").json()["rated"] is False
    finished, results = finish_duel(server, table["id"], [owner, other])
    assert results[0]["ratings"] is None
    assert [r["games"] for r in finished["ratings"]] == [0, 0]


@pytest.mark.parametrize("path, status, said", [
    ("/api/ratings/no-such-rules", 404, "does not serve"),
    ("/api/ratings/Bad%20Id", 422, "ruleset id"),
    ("/api/ratings/eu-classic?limit=0", 422, "limit"),
    ("/api/ratings/eu-classic?limit=101", 422, "limit"),
    ("/api/ratings/eu-classic?offset=-1", 422, "offset"),
    ("/api/accounts/nobody-here-x", 404, "nobody-here-x"),
    ("/api/accounts/a!", 422, "name"),
])
def test_the_rating_calls_refuse_bad_input_with_a_sentence(server: Server, path: str,
                                                           status: int, said: str) -> None:
    answer = server.client.get(path)
    assert answer.status_code == status, answer.text
    assert said in answer.json()["error"]


def test_rated_must_be_a_boolean(server: Server) -> None:
    _, token = server.account("rt")
    answer = server.client.post("/api/tables", json={"ruleset_id": "eu-classic",
                                                     "rated": "yes"}, headers=auth(token))
    assert answer.status_code == 422 and "rated" in answer.json()["error"]


def test_a_pairs_rounds_finished_at_once_rate_three_whatever_their_moments(
        engine: sa.Engine) -> None:
    # docs/online.md, "one pair, three rated rounds a day": two tables of one pair
    # finishing at once on two processes; the one whose moment is earlier waited for
    # the other's locks and stores its result second. It still counts the other's.
    ann, ben = players(engine, "ann", "ben")
    for n in range(2):
        assert finish(engine, playing(engine, [ann, ben], rated=True), [9, 1],
                      day(0) + _dt.timedelta(hours=n)) is not None
    later_one = playing(engine, [ann, ben], rated=True)
    earlier_one = playing(engine, [ann, ben], rated=True)
    assert later_one.rated and earlier_one.rated  # neither reached the limit when dealt
    third = finish(engine, later_one, [9, 1], day(0) + _dt.timedelta(hours=5, seconds=1))
    fourth = finish(engine, earlier_one, [9, 1], day(0) + _dt.timedelta(hours=5))
    assert third is not None and third.ratings is not None
    assert fourth is not None and fourth.ratings is None  # friendly: the pair's fourth
    rating = stored_rating(engine, ann)
    assert rating is not None and rating.games == 3

