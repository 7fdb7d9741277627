"""The server's settings: one object read from the environment, every variable
with its documented default, a bad value refused naming its variable, and the
application deciding by the object it is given."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any

import pytest

from blockyard.server import db, settings
from blockyard.server.referee import Timing
from blockyard.server.settings import Settings

VARIABLES = {
    settings.VERIFIERS_ENV: ("3", "verifiers", 3),
    settings.CONNECTIONS_ENV: ("12", "connections", 12),
    settings.PRESENCE_ENV: ("7.5", "presence_seconds", 7.5),
    settings.HEADER_ENV: ("2", "header_seconds", 2.0),
    settings.BODY_ENV: ("30", "body_seconds", 30.0),
    settings.AWAY_ENV: ("20", "away_seconds", 20.0),
    settings.HELLO_ENV: ("4", "hello_seconds", 4.0),
    settings.PENDING_INVITES_ENV: ("5", "pending_invites", 5),
    settings.LEAN_ENV: ("off", "lean", False),
}
TIMING = {
    settings.IDLE_ENV: ("40", "idle_seconds", 40.0),
    settings.ABANDON_ENV: ("0", "abandon_seconds", 0.0),
    settings.CLOCK_ENV: ("1.5", "clock_tolerance", 1.5),
}
BAD = {
    settings.VERIFIERS_ENV: ["0", "two", "-1", "1000", "²", "١٢", "9" * 5000],
    settings.CONNECTIONS_ENV: ["0", "many", "300"],
    settings.LIMITS_ENV: ["submit", "submit=0", "nonsense=5", "submit=1e3", "submit=²",
                          "submit=١٢", "submit=" + "9" * 5000],
    settings.PRESENCE_ENV: ["2", "-1", "soon", "90000"],
    settings.IDLE_ENV: ["-1", "1e9", "nan"],
    settings.ABANDON_ENV: ["x"],
    settings.CLOCK_ENV: ["-0.5"],
    settings.HEADER_ENV: ["0.5", "0"],
    settings.BODY_ENV: ["100000"],
    settings.AWAY_ENV: ["0.5", "later"],
    settings.HELLO_ENV: ["0", "0.5", "soon"],
    settings.PENDING_INVITES_ENV: ["0", "many", "300", "-3"],
    settings.LEAN_ENV: ["fast", "2"],
}


def test_an_empty_environment_gives_the_documented_defaults() -> None:
    found = Settings.from_env({}, database="sqlite:///x.sqlite3")
    assert found == Settings(database="sqlite:///x.sqlite3")
    assert found.verifiers is None
    assert found.connections == 40
    assert dict(found.limits) == {"sign_in_address": 30, "sign_in_name": 10, "create": 10,
                                  "submit": 30, "code_account": 10, "code_address": 30,
                                  "messages": 600, "phrases": 6, "pairing": 10}
    assert found.presence_seconds == 60.0 and found.away_seconds == 60.0
    assert found.timing == Timing(idle_seconds=300.0, abandon_seconds=120.0,
                                  clock_tolerance=5.0)
    assert (found.header_seconds, found.body_seconds) == (10.0, 60.0)
    assert found.pending_invites == 32
    assert found.lean is True


def test_the_database_comes_from_the_argument_then_the_variable_then_the_default() -> None:
    env = {settings.DATABASE_ENV: "sqlite:///from-env.sqlite3"}
    assert Settings.from_env(env).database == "sqlite:///from-env.sqlite3"
    assert Settings.from_env(env, database="sqlite:///given.sqlite3").database \
        == "sqlite:///given.sqlite3"
    assert Settings.from_env({}).database == db.default_url()


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_each_variable_is_read(name: str) -> None:
    text, field, value = VARIABLES[name]
    assert getattr(Settings.from_env({name: f" {text} "}, database=""), field) == value


@pytest.mark.parametrize("name", sorted(TIMING))
def test_each_table_time_is_read(name: str) -> None:
    text, field, value = TIMING[name]
    assert getattr(Settings.from_env({name: text}, database="").timing, field) == value


def test_the_limits_are_read_by_name() -> None:
    found = Settings.from_env({settings.LIMITS_ENV: "submit=60, messages=5"}, database="")
    assert found.limits["submit"] == 60 and found.limits["messages"] == 5
    assert found.limits["create"] == 10


@pytest.mark.parametrize("name,value", [(n, v) for n, values in sorted(BAD.items())
                                        for v in values])
def test_a_bad_value_is_refused_naming_its_variable(name: str, value: str) -> None:
    with pytest.raises(ValueError, match=name):
        Settings.from_env({name: value}, database="")


def test_the_application_decides_by_the_settings_it_is_given(tmp_path: Path) -> None:
    from blockyard.server.app import create_app

    url = f"sqlite:///{tmp_path / 'settings.sqlite3'}"
    db.migrate(url)
    given = Settings(database=url, verifiers=1, presence_seconds=9.0,
                     limits={**settings.LIMITS, "messages": 7},
                     timing=Timing(idle_seconds=11.0, abandon_seconds=12.0,
                                   clock_tolerance=13.0))
    app = create_app(given)
    try:
        server = app.state.server
        assert server.settings is given and server.database == url
        assert app.state.hub.timing == given.timing
        assert server.online.seconds == 9.0
        assert server.messages_per_minute == 7
        assert server.verifier.processes == 1
    finally:
        app.state.server.close()


def test_a_database_url_takes_the_other_settings_from_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from blockyard.server.app import create_app

    url = f"sqlite:///{tmp_path / 'env.sqlite3'}"
    db.migrate(url)
    monkeypatch.setenv(settings.IDLE_ENV, "21")
    app = create_app(url, verifiers=2)
    try:
        assert app.state.hub.timing.idle_seconds == 21.0
        assert app.state.server.settings.verifiers == 2
    finally:
        app.state.server.close()


def test_the_postgresql_pool_opens_no_connection_beyond_its_size(postgres: Any) -> None:
    """A burst past the pool's size waits for a connection given back instead of
    opening one more (which would be closed again when given back, a PostgreSQL
    process forked and set up for every burst)."""
    engine = db.make_engine(postgres.new_database(), connections=2)
    try:
        held = [engine.connect(), engine.connect()]
        made = {id(conn.connection.dbapi_connection) for conn in held}
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            third = pool.submit(engine.connect)
            assert not concurrent.futures.wait([third], timeout=0.2).done  # waits
            held.pop().close()  # one given back: the third gets it
            conn = third.result(timeout=30)
            assert id(conn.connection.dbapi_connection) in made
            conn.close()
        held.pop().close()
        assert engine.pool.checkedin() == 2  # both kept open for the next burst
    finally:
        engine.dispose()
