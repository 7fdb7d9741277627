"""Quick phrases at a live table (SQLite and PostgreSQL), through the real routes
and sockets of a server in this process on a fake clock: a seated player says
one of the fixed phrases (ids, no free text), delivered to the table's other
connections; a spectator may not speak; at most ``phrases`` a minute per
account (over it refused, kind ``too-many``); a player mutes another (stored:
``PUT``/``DELETE``/``GET /api/me/mutes``) and no longer hears their phrases."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
from server_support import LocalServer, local_server
from test_server_tables import auth, live, until
from websockets.sync.client import ClientConnection

from blockyard.server.clock import FakeClock

PHRASES_A_MINUTE = 3


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS",
                       f"create=1000,sign_in_address=1000,phrases={PHRASES_A_MINUTE}")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        yield server


def say(socket: ClientConnection, phrase: Any) -> None:
    socket.send(json.dumps({"type": "say", "phrase": phrase}))


def duel(server: LocalServer) -> tuple[int, tuple[str, str], tuple[str, str]]:
    """A playing table: its id, and each player's name and token."""
    one, two = server.account("ph"), server.account("ph")
    table_id = server.client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                                  headers=auth(one[1])).json()["id"]
    assert server.client.post(f"/api/tables/{table_id}/join",
                              headers=auth(two[1])).status_code == 200
    return table_id, one, two


def test_a_phrase_reaches_the_others_not_the_speaker_and_spectators_may_not_speak(
        local: LocalServer) -> None:
    table_id, (ann, a), (_bob, b) = duel(local)
    with live(local, table_id, a) as one, live(local, table_id, b) as two, \
            live(local, table_id) as spectator:
        for socket in (one, two, spectator):
            until(socket, "table")
        say(one, "good-luck")
        expected = {"type": "said", "seat": 0, "name": ann, "phrase": "good-luck"}
        assert until(two, "said") == expected
        assert until(spectator, "said") == expected
        say(spectator, "thanks")
        assert until(spectator, "refused")["kind"] == "spectator"
        say(one, "you are slow")  # no free text
        assert until(one, "refused")["kind"] == "malformed"
        say(one, "well-played")
        assert until(two, "said")["phrase"] == "well-played"
        # the speaker's own connections are not told it: the next thing it gets
        # after its phrases is the answer to a later message
        one.send(json.dumps({"type": "presence", "state": "nonsense"}))
        assert until(one, "refused")["kind"] == "malformed"
        one.send(json.dumps({"type": "rematch"}))
        skipped = []
        while (message := json.loads(one.recv(timeout=30)))["type"] != "refused":
            skipped.append(message["type"])
        assert "said" not in skipped


def test_phrases_are_limited_per_account_per_minute(local: LocalServer) -> None:
    table_id, (_ann, a), (_bob, b) = duel(local)
    with live(local, table_id, a) as one, live(local, table_id, b) as two:
        until(one, "table")
        until(two, "table")
        for _ in range(PHRASES_A_MINUTE):
            say(two, "rematch")
            until(one, "said")
        say(two, "rematch")
        refusal = until(two, "refused")
        assert refusal["kind"] == "too-many" and "a minute" in refusal["reason"]
        local.clock.advance(61)  # a minute later: again
        say(two, "rematch")
        until(one, "said")
        with live(local, table_id, b) as again:  # another window of the speaker
            until(again, "table")
            for _ in range(PHRASES_A_MINUTE - 1):
                say(again, "thanks")
                until(one, "said")
            say(two, "thanks")
            assert until(two, "refused")["kind"] == "too-many"  # across connections


def test_a_muted_player_is_not_heard_until_unmuted(local: LocalServer) -> None:
    table_id, (ann, a), (bob, b) = duel(local)
    assert local.client.put(f"/api/me/mutes/{ann}", headers=auth(b)).status_code == 204
    assert local.client.put(f"/api/me/mutes/{ann}", headers=auth(b)).status_code == 204
    assert local.client.get("/api/me/mutes", headers=auth(b)).json() == {"mutes": [ann]}
    assert local.client.put(f"/api/me/mutes/{bob}", headers=auth(b)).status_code == 422
    assert local.client.put("/api/me/mutes/nobody-here", headers=auth(b)).status_code == 404
    assert local.client.put(f"/api/me/mutes/{ann}").status_code == 401
    with live(local, table_id, a) as one, live(local, table_id, b) as two, \
            live(local, table_id) as spectator:
        for socket in (one, two, spectator):
            until(socket, "table")
        say(one, "good-luck")
        # the spectator hears it: whom to tell was decided (ann's phrase reaches the
        # server in its own time, and is told as the mutes are when it is announced)
        assert until(spectator, "said")["phrase"] == "good-luck"
        say(two, "thanks")  # bob still speaks to ann
        assert until(one, "said")["phrase"] == "thanks"
        assert local.client.delete(f"/api/me/mutes/{ann}", headers=auth(b)).status_code == 204
        say(one, "well-played")
        # the first phrase never came: the next one bob hears is after the unmute
        assert until(two, "said")["phrase"] == "well-played"
    assert local.client.get("/api/me/mutes", headers=auth(b)).json() == {"mutes": []}
