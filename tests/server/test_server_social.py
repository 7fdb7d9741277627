"""Players online and invitations over real HTTP and WebSockets, against SQLite
and PostgreSQL (and across two server processes on one PostgreSQL): who is
online, invitations pushed as they arrive, accepted (a seat) and declined,
floods refused; the bounds (a minute's invitations, lapsed invitations, the
presence window) checked on the store with explicit moments."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from server_support import Server, engine_of, local_server
from test_server_tables import WAIT, auth, live, new_table, receive, until
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from blockyard import protocol
from blockyard.server import accounts, db, settings, social, sockets
from blockyard.server.clock import FakeClock


def me_live(server: Server, token: str) -> ClientConnection:
    """A player's own live channel, its ``hello`` (with ``token``) sent."""
    url = server.url.replace("http://", "ws://") + "/api/me/live"
    socket = connect(url, open_timeout=WAIT).__enter__()  # closed by the caller's with
    socket.send(json.dumps(protocol.hello(token)))
    return socket


def online(server: Server, token: str) -> list[str]:
    answer = server.client.get("/api/players/online", headers=auth(token))
    assert answer.status_code == 200, answer.text
    assert answer.json()["seconds"] == settings.PRESENCE_SECONDS
    players = answer.json()["players"]
    assert isinstance(players, list)
    return players


def invitations(server: Server, token: str) -> list[dict[str, Any]]:
    answer = server.client.get("/api/me/invitations", headers=auth(token))
    assert answer.status_code == 200, answer.text
    found = answer.json()["invitations"]
    assert isinstance(found, list)
    return found


def pushed(socket: ClientConnection) -> list[dict[str, Any]]:
    """The next pushed list of invitations (online lists before it skipped)."""
    found = until(socket, "invitations")["invitations"]
    assert isinstance(found, list)
    return found


def test_players_online(server: Server) -> None:
    alice, alice_token = server.account("alice")
    bob, bob_token = server.account("bob")  # signed in, no authenticated call yet
    assert server.client.get("/api/players/online").status_code == 401
    assert alice in online(server, alice_token)  # the call itself counts
    assert bob not in online(server, alice_token)
    invitations(server, bob_token)  # any authenticated call
    assert bob in online(server, alice_token)
    players = online(server, alice_token)
    assert players == sorted(players, key=str.lower)
    carol, carol_token = server.account("carol")
    with me_live(server, carol_token) as feed:  # a live connection counts too
        assert until(feed, "invitations") == {"type": "invitations", "invitations": []}
        listed = until(feed, "online")["players"]
        assert {alice, bob, carol} <= set(listed)
        assert carol in online(server, alice_token)
    # a table's live connection counts at once (here a spectator's, its only call)
    dave, dave_token = server.account("dave")
    table = new_table(server, alice_token)
    with live(server, table["id"], dave_token) as socket:
        until(socket, "table")
        assert dave in online(server, alice_token)
    paths = server.client.get("/api/openapi.json").json()["paths"]
    for path in ("/api/players/online", "/api/me/invitations",
                 "/api/me/invitations/{table_id}/accept",
                 "/api/me/invitations/{table_id}/decline"):
        assert path in paths
    for bad in ("0", "201", "many"):
        answer = server.client.get(f"/api/players/online?limit={bad}",
                                   headers=auth(alice_token))
        assert answer.status_code == 422 and "limit" in answer.json()["error"]


def test_an_invitation_is_pushed_declined_then_accepted(server: Server) -> None:
    alice, alice_token = server.account("alice")
    bob, bob_token = server.account("bob")
    with me_live(server, bob_token) as feed:
        assert pushed(feed) == []
        table = new_table(server, alice_token, private=True, invite=[bob.upper()])
        arrived = pushed(feed)
        assert len(arrived) == 1
        created = arrived[0].pop("created")
        assert dt.datetime.fromisoformat(created).tzinfo is not None
        assert arrived == [{"table": table["id"], "ruleset_id": "eu-classic", "from": alice,
                            "seats": [alice, None], "private": True}]
        listed = invitations(server, bob_token)
        assert [i["table"] for i in listed] == [table["id"]] and listed[0]["from"] == alice
        assert invitations(server, alice_token) == []  # the creator is not invited
        # declining takes it off the list (pushed too); a second answer finds none
        path = f"/api/me/invitations/{table['id']}"
        answer = server.client.post(f"{path}/decline", headers=auth(bob_token))
        assert answer.status_code == 204
        assert pushed(feed) == [] and invitations(server, bob_token) == []
        again = server.client.post(f"{path}/accept", headers=auth(bob_token))
        assert again.status_code == 404 and "no pending invitation" in again.json()["error"]
        assert server.client.post(f"{path}/decline", headers=auth(bob_token)).status_code == 404
        # a new invitation, accepted: Bob sits at the private table, which starts
        second = new_table(server, alice_token, private=True, invite=[bob])
        assert [i["table"] for i in pushed(feed)] == [second["id"]]
        with live(server, second["id"], alice_token) as table_socket:
            assert until(table_socket, "table")["status"] == "waiting"
            path = f"/api/me/invitations/{second['id']}"
            assert server.client.post(f"{path}/accept").status_code == 401
            answer = server.client.post(f"{path}/accept", headers=auth(bob_token))
            assert (answer.status_code, answer.json()) == (200, {"table": second["id"],
                                                                 "seat": 1})
            state = until(table_socket, "table")
            assert (state["seats"], state["status"]) == ([alice, bob], "playing")
        assert pushed(feed) == []
        again = server.client.post(f"{path}/accept", headers=auth(bob_token))
        assert again.status_code == 404
    # a table never invited to, and one that does not exist
    third = new_table(server, alice_token)
    for table_id in (third["id"], 10**9):
        answer = server.client.post(f"/api/me/invitations/{table_id}/accept",
                                    headers=auth(bob_token))
        assert answer.status_code == 404
    answer = server.client.post("/api/me/invitations/x/accept", headers=auth(bob_token))
    assert answer.status_code == 422


def test_an_invitation_lapses_when_its_table_fills(server: Server) -> None:
    _alice, alice_token = server.account("alice")
    bob, bob_token = server.account("bob")
    carol, carol_token = server.account("carol")
    with me_live(server, carol_token) as feed:
        assert pushed(feed) == []
        table = new_table(server, alice_token, invite=[bob, carol])
        assert [i["table"] for i in pushed(feed)] == [table["id"]]
        joined = server.client.post(f"/api/tables/{table['id']}/join", headers=auth(bob_token))
        assert joined.json() == {"seat": 1}
        assert pushed(feed) == []  # the table is full: Carol's invitation is gone
    assert invitations(server, carol_token) == []
    answer = server.client.post(f"/api/me/invitations/{table['id']}/accept",
                                headers=auth(carol_token))
    assert answer.status_code == 404


def test_invitation_floods_and_bad_names_are_refused(server: Server) -> None:
    _alice, alice_token = server.account("alice")
    bob, bob_token = server.account("bob")
    for name, word in (("x", "not an account name"), ("no such one", "not an account name"),
                       ("nobody" + "z" * 10, "no account named")):
        answer = server.client.post("/api/tables", headers=auth(alice_token),
                                    json={"ruleset_id": "eu-classic", "invite": [name]})
        assert answer.status_code == 422 and word in answer.json()["error"], answer.text
    answer = server.client.post("/api/tables", headers=auth(alice_token),
                                json={"ruleset_id": "eu-classic", "invite": [7]})
    assert answer.status_code == 422
    answer = server.client.post("/api/tables", headers=auth(alice_token),
                                json={"ruleset_id": "eu-classic", "invite": bob})
    assert answer.status_code == 422
    opened = [new_table(server, alice_token, invite=[bob])["id"]
              for _ in range(social.MAX_PENDING_FROM_ONE)]
    answer = server.client.post("/api/tables", headers=auth(alice_token),
                                json={"ruleset_id": "eu-classic", "invite": [bob]})
    assert answer.status_code == 429
    assert f"{bob} has {social.MAX_PENDING_FROM_ONE} pending invitations from you" \
        in answer.json()["error"]
    assert sorted(i["table"] for i in invitations(server, bob_token)) == opened
    # an answer makes room for one more
    server.client.post(f"/api/me/invitations/{opened[0]}/decline", headers=auth(bob_token))
    assert sorted(i["table"] for i in invitations(server, bob_token)) == opened[1:]
    # (alice holds the most seats one player may: she leaves the declined table)
    with live(server, opened[0], alice_token) as socket:
        until(socket, "table")
        socket.send(json.dumps({"type": "leave"}))
        with pytest.raises(ConnectionClosed):  # closed once the leave is done
            for _ in range(1000):
                receive(socket)
    new_table(server, alice_token, invite=[bob])


def test_me_live_refuses_a_bad_token_and_bad_messages(server: Server) -> None:
    with me_live(server, "nonsense") as feed:
        assert receive(feed) == {"type": "refused", "kind": "signed-out",
                                 "reason": "sign in first: the token is not valid"}
        with pytest.raises(ConnectionClosed):
            receive(feed)
        assert feed.close_code == 4401
    _, token = server.account("dora")
    with me_live(server, token) as feed:
        pushed(feed)
        feed.send("not json")
        assert until(feed, "refused")["reason"] == "expected one JSON object per message"
        feed.send(json.dumps({"type": "act", "action": ["place", 0, 0, 0]}))
        assert until(feed, "refused")["reason"] == "type: expected refresh"
        feed.send(json.dumps({"type": "refresh"}))
        assert pushed(feed) == []


# -- across two processes ------------------------------------------------------------------


def test_presence_and_invitations_cross_processes(two_servers: tuple[Server, Server]) -> None:
    one, two = two_servers
    alice, alice_token = one.account("alice")
    bob, bob_token = two.account("bob")
    assert alice in online(one, alice_token)
    assert alice in online(two, bob_token)  # seen through the database
    with me_live(two, bob_token) as feed:
        assert pushed(feed) == []
        table = new_table(one, alice_token, private=True, invite=[bob])
        assert [i["table"] for i in pushed(feed)] == [table["id"]]  # LISTEN/NOTIFY
        answer = one.client.post(f"/api/me/invitations/{table['id']}/accept",
                                 headers=auth(bob_token))
        assert answer.json() == {"table": table["id"], "seat": 1}
        assert pushed(feed) == []


# -- the store's bounds, with explicit moments ------------------------------------------------


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Any]:
    """The store's bounds on SQLite (the moments are explicit: no clock, no race)."""
    url = f"sqlite:///{tmp_path / 'social.sqlite3'}"
    db.migrate(url)
    with engine_of(url) as made:
        yield made


@pytest.mark.usefixtures("cheap_passwords")
def test_the_store_bounds_invitations_and_presence(engine: Any) -> None:
    from blockyard.server import tablestore

    alice = accounts.create_account(engine, "alice", "correct horse")
    names = [accounts.create_account(engine, f"guest{i:03d}", "correct horse").name
             for i in range(social.INVITES_PER_MINUTE + 1)]
    moment = accounts.now()
    assert social.check_invites(engine, alice, [names[0].upper(), "alice"], moment) \
        == [2]  # the inviter left out, names in any case
    with pytest.raises(social.InviteRefused) as refused:
        social.check_invites(engine, alice, names, moment)
    assert refused.value.status == 429 and "a minute" in str(refused.value)
    tablestore.create_table(engine, alice, "eu-classic", 8, False, names[:30], None)
    with pytest.raises(social.InviteRefused):
        social.check_invites(engine, alice, names[30:], moment)  # 30 + 31 over 60
    later = moment + dt.timedelta(minutes=2)
    # a minute later the rate allows them; the 30 still pending count as sent
    with pytest.raises(social.InviteRefused) as refused:
        social.check_invites(engine, alice, names[30:], later)
    assert refused.value.status == 429 and "30 pending" in str(refused.value)
    assert len(social.check_invites(engine, alice, names[30:], later, most_sent=61)) == 31
    guest = accounts.Account(2, names[0])
    assert [i["table"] for i in social.pending_invitations(engine, guest.id, moment)] == [1]
    lapsed = moment + dt.timedelta(hours=social.INVITE_HOURS, minutes=1)
    assert social.pending_invitations(engine, guest.id, lapsed) == []
    # presence: seen now, gone once the window has passed
    presence = social.Presence(engine, 60.0)
    presence.seen(alice.id)
    assert social.online_players(engine, moment - dt.timedelta(seconds=1)) == ["alice"]
    assert social.online_players(engine, accounts.now() + dt.timedelta(seconds=1)) == []
    assert presence.online() == ["alice"]


@pytest.mark.parametrize("value", ["soon", "1", "-5"])
def test_serve_refuses_a_bad_presence_window(tmp_path: Path, value: str) -> None:
    sqlite = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    answer = subprocess.run([sys.executable, "-m", "blockyard", "serve", "--database",
                             sqlite], capture_output=True, text=True, timeout=60,
                            env={**os.environ, settings.PRESENCE_ENV: value})
    assert answer.returncode == 2 and settings.PRESENCE_ENV in answer.stderr, answer.stderr


def away_while(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> dict[str, bool]:
    """``module.name`` (a database call) fails as the database away while the
    returned switch's ``"now"`` is true."""
    real = getattr(module, name)
    away = {"now": False}

    def failing(*args: Any) -> Any:
        if away["now"]:
            raise sa.exc.OperationalError(name, {}, Exception("the database is away"))
        return real(*args)

    monkeypatch.setattr(module, name, failing)
    return away


def test_me_live_with_the_database_away_is_closed_1013(
        database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
        ) -> None:
    # as a table's live channel: the database away is no one's fault; the
    # connection is closed 1013 "try again", never an error of the server
    away = away_while(monkeypatch, accounts, "account_for")
    with local_server(database, FakeClock(dt.datetime.now(dt.UTC))) as server:
        _, token = server.account("away")
        away["now"] = True
        with me_live(server, token) as feed, pytest.raises(ConnectionClosed):
            feed.recv(timeout=WAIT)
        assert feed.close_code == 1013 and feed.close_reason == sockets.DATABASE_AWAY
        away["now"] = False
        with me_live(server, token) as feed:  # back: the channel opens again
            assert until(feed, "online")["type"] == "online"
    assert not [r for r in caplog.records if r.exc_info], caplog.text


def test_me_live_is_closed_1013_when_the_database_goes_away_after_it_opened(
        database: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
        ) -> None:
    # a refresh while the database is away: closed 1013 "try again" (it was an
    # unhandled exception and a close 1000, which a client takes for a normal end)
    from blockyard.server import social

    away = away_while(monkeypatch, social, "pending_invitations")
    with local_server(database, FakeClock(dt.datetime.now(dt.UTC))) as server:
        _, token = server.account("gone")
        with me_live(server, token) as feed:
            until(feed, "online")
            away["now"] = True
            feed.send(json.dumps({"type": "refresh"}))
            with pytest.raises(ConnectionClosed):
                while True:
                    feed.recv(timeout=WAIT)
            assert feed.close_code == 1013 and feed.close_reason == sockets.DATABASE_AWAY
    assert not [r for r in caplog.records if r.exc_info], caplog.text
