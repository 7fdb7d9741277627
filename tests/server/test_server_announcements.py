"""The typed announcements between server processes (blockyard.server.announcements):
every kind is made by its own function, has a handler in a running server and a
test here; each is delivered to the handlers of its kind alone, in the order
they subscribed, every handler called even when one fails; on PostgreSQL each
goes out through the one notify helper at its transaction's commit, never for a
transaction rolled back; and no other module of core/server writes a
``{"kind": …}`` dict or ``pg_notify``. In process: SQLite, and PostgreSQL for
the helper."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any, NotRequired, get_origin, get_type_hints

import psycopg
import pytest
import sqlalchemy as sa

from blockyard.server import announcements, db
from blockyard.server.announcements import CHANNEL, KINDS, MAX_PAYLOAD, Subscribers
from blockyard.server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "core" / "server"

EXAMPLES: dict[str, Any] = {
    "table": announcements.table_changed(7, round=2, status="finished"),
    "moves": announcements.moves(7, round=2, seat=1, n=3),
    "result": announcements.result(7, [12, 9], 0, None, [1], False),
    "said": announcements.said(7, 1, 42, "ann", "gg"),
    "signed-out": announcements.signed_out("ab" * 32),
    "presence": announcements.presence(7),
    "paired": announcements.paired(7, "eu-classic", (4, 5)),
    "opened": announcements.opened(7, "eu-classic", 4, "ann"),
    "follows": announcements.follows([4]),
    "invites": announcements.invites([5, 4, 5]),
    "resync": announcements.resync(),
}
"""One announcement of each kind, made by its function."""


def test_every_kind_has_a_handler_and_a_test(tmp_path: Path) -> None:
    from blockyard.server.app import create_app

    names = [kind.name for kind in KINDS]
    assert len(set(names)) == len(names)
    # a test: each kind is made and delivered by the tests below
    assert set(EXAMPLES) == set(names)
    # a handler: a server process subscribes to every kind
    url = f"sqlite:///{tmp_path / 'announcements.sqlite3'}"
    db.migrate(url)
    app = create_app(Settings(database=url, verifiers=1))
    try:
        assert app.state.hub.events.subscribers.kinds() == set(names)
    finally:
        app.state.server.close()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_kind_is_made_as_its_type_says_and_fits_a_payload(name: str) -> None:
    event = EXAMPLES[name]
    [kind] = [kind for kind in KINDS if kind.name == name]
    assert event["kind"] == kind.name
    shape = {cls for cls in vars(announcements).values() if isinstance(cls, type)
             and getattr(cls, "__annotations__", {}).get("kind") is not None
             and get_type_hints(cls)["kind"].__args__ == (name,)}
    [typed] = shape  # one TypedDict per kind
    hints = get_type_hints(typed, include_extras=True)
    required = {key for key, hint in hints.items() if get_origin(hint) is not NotRequired}
    assert required <= set(event) <= set(hints)
    text = announcements.payload(event)
    assert len(text) <= MAX_PAYLOAD and json.loads(text) == event


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_kind_goes_to_its_own_handlers_in_the_order_they_subscribed(name: str) -> None:
    subscribers = Subscribers()
    heard: list[tuple[str, str, Any]] = []
    for kind in KINDS:
        for who in ("first", "second"):
            async def handler(event: Any, who: str = who, kind: str = kind.name) -> None:
                heard.append((who, kind, event))
            subscribers.subscribe(kind, handler)
    asyncio.run(subscribers.deliver(EXAMPLES[name]))
    assert heard == [("first", name, EXAMPLES[name]), ("second", name, EXAMPLES[name])]


def test_an_unknown_kind_reaches_no_handler() -> None:
    subscribers = Subscribers()
    heard: list[Any] = []

    async def handler(event: Any) -> None:
        heard.append(event)

    for kind in KINDS:
        subscribers.subscribe(kind, handler)
    asyncio.run(subscribers.deliver({"kind": "spilled", "table": 1}))
    asyncio.run(subscribers.deliver({"table": 1}))
    assert heard == []


def test_every_handler_is_called_and_the_first_failure_raised() -> None:
    subscribers = Subscribers()
    called: list[str] = []

    async def broken(event: Any) -> None:
        called.append("broken")
        raise KeyError("a fault of the first handler's")

    async def fine(event: Any) -> None:
        called.append("fine")

    subscribers.subscribe(announcements.TABLE, broken)
    subscribers.subscribe(announcements.TABLE, fine)
    with pytest.raises(KeyError, match="first handler"):
        asyncio.run(subscribers.deliver(announcements.table_changed(1)))
    assert called == ["broken", "fine"]


def test_sqlite_delivers_a_published_announcement_to_this_process(tmp_path: Path) -> None:
    from blockyard.server.events import Events

    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    engine = db.make_engine(url)
    heard: list[Any] = []

    async def handler(event: Any) -> None:
        heard.append(event)

    async def publish() -> None:
        events = Events(engine)
        events.subscribe(announcements.SAID, handler)
        await events.publish(EXAMPLES["said"])
        await events.publish(EXAMPLES["table"])  # no handler of that kind here
        await events.stop()

    try:
        asyncio.run(publish())
    finally:
        engine.dispose()
    assert heard == [EXAMPLES["said"]]


def test_notify_announces_at_the_commit_only(postgres: Any) -> None:
    engine = db.make_engine(postgres.new_database())
    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    listener = psycopg.connect(url, autocommit=True)
    try:
        listener.execute(f"LISTEN {CHANNEL}")
        with pytest.raises(RuntimeError), engine.begin() as conn:
            announcements.notify(conn, [announcements.table_changed(1)])
            raise RuntimeError("rolled back")
        with engine.begin() as conn:
            announcements.notify(conn, [announcements.table_changed(2),
                                        EXAMPLES["presence"]])
        heard = [json.loads(notice.payload)
                 for notice in listener.notifies(timeout=30, stop_after=2)]
        assert heard == [announcements.table_changed(2), EXAMPLES["presence"]]
    finally:
        listener.close()
        engine.dispose()


def test_notify_on_sqlite_sends_nothing_and_fails_nothing(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'quiet.sqlite3'}")
    try:
        with engine.begin() as conn:
            announcements.notify(conn, [announcements.table_changed(1)])
            assert conn.execute(sa.text("SELECT 1")).scalar() == 1
    finally:
        engine.dispose()


KIND_LITERAL = re.compile(r"""\{\s*["']kind["']\s*:""")
RAW_NOTIFY = re.compile(r"""pg_notify\((?!\s*(['"])[^'"]*\1\s*\))""")
"""``pg_notify(`` but for the helper's call on one SQL expression
(``pg_notify('g.payload')``)."""


def test_no_other_module_of_the_server_writes_an_announcement_or_pg_notify() -> None:
    found = []
    for path in sorted(SERVER.rglob("*.py")):
        if path.name == "announcements.py" or "migrations" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        if KIND_LITERAL.search(text):
            found.append(f"{path.relative_to(ROOT)}: a {{'kind': …}} dict")
        if RAW_NOTIFY.search(text):
            found.append(f"{path.relative_to(ROOT)}: pg_notify written here")
    assert not found, found
