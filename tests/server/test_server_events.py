"""The announcements between server processes (blockyard.server.events): those made
on their own go out on the process's own connection, those made meanwhile together
and in order; the first one after the database ended that connection (a restart)
still goes out; an announcement whose handling finds the database away is logged
as one line, not a traceback. On PostgreSQL (LISTEN/NOTIFY), in process."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from blockyard.server import announcements, db
from blockyard.server.events import CHANNEL, Events


@pytest.fixture
def engine(request: pytest.FixtureRequest) -> Any:
    made = db.make_engine(request.getfixturevalue("postgres").new_database())
    yield made
    made.dispose()


def listening(engine: sa.Engine) -> psycopg.Connection[Any]:
    """A connection listening on the announcements' channel."""
    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    listener = psycopg.connect(url, autocommit=True)
    listener.execute(f"LISTEN {CHANNEL}")
    return listener


def heard(listener: psycopg.Connection[Any], count: int) -> list[dict[str, Any]]:
    return [json.loads(notice.payload)
            for notice in listener.notifies(timeout=30, stop_after=count)]


def test_announcements_made_together_go_out_together_in_the_order_made(engine: Any) -> None:
    listener = listening(engine)
    try:
        async def announce() -> None:
            events = Events(engine)
            try:
                await asyncio.gather(*(events.publish(announcements.table_changed(n))
                                       for n in range(20)))
            finally:
                await events.stop()

        asyncio.run(announce())
        assert [event["table"] for event in heard(listener, 20)] == list(range(20))
    finally:
        listener.close()


def test_the_first_announcement_after_the_database_ended_the_connection_goes_out(
        engine: Any) -> None:
    # a restart ends every connection; the process's own connection does not know
    # until it is used: the announcement must not fail (its change is stored)
    listener = listening(engine)
    try:
        async def announce() -> None:
            events = Events(engine)
            try:
                await events.publish(announcements.table_changed(1))
                with engine.connect() as conn:  # the database ends the kept connection
                    ended = conn.execute(sa.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                        "AND query LIKE '%pg_notify%'")).scalars().all()
                assert ended == [True]
                await events.publish(announcements.table_changed(2))
            finally:
                await events.stop()

        asyncio.run(announce())
        assert [event["table"] for event in heard(listener, 2)] == [1, 2]
    finally:
        listener.close()


def test_an_announcement_handled_while_the_database_is_away_is_one_warning(
        engine: Any, caplog: pytest.LogCaptureFixture) -> None:
    async def away(event: dict[str, Any]) -> None:
        raise psycopg.OperationalError("the connection was ended")

    async def broken(event: dict[str, Any]) -> None:
        raise KeyError("a fault of the server's")

    async def deliver() -> None:
        events = Events(engine)
        events.subscribe(announcements.RESYNC, away)
        events.subscribe(announcements.MOVES, broken)
        await events._deliver(announcements.resync())
        await events._deliver(announcements.moves(1))

    with caplog.at_level(logging.WARNING, logger="blockyard.server"):
        asyncio.run(deliver())
    outage, fault = caplog.records
    assert outage.levelno == logging.WARNING and outage.exc_info is None
    assert "resync" in outage.getMessage() and "unavailable" in outage.getMessage()
    assert fault.levelno == logging.ERROR and fault.exc_info is not None
