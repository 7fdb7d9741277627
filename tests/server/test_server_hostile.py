"""What an adversarial client sends the server, over real HTTP and WebSockets
(SQLite and PostgreSQL): ids out of the database's range, binary frames, bodies
cut off mid-way, strangers asking for a private table. Each is answered as
docs/online.md says (a JSON error, a ``refused`` message), never a 500 or a
traceback in the log."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from server_support import Server
from starlette.types import Message
from test_server_tables import WAIT, auth, live, new_table, receive, until
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from blockyard import protocol

HUGE = ("2147483648", "9223372036854775808", "99999999999999999999999", "0")


def no_traceback(server: Server) -> None:
    text = server.log.read_text(errors="replace")
    assert "Traceback" not in text and "internal error" not in text, text[-3000:]


@pytest.mark.parametrize("huge", HUGE)
def test_ids_out_of_range_are_refused_as_json(server: Server, huge: str) -> None:
    _, token = server.account("hugeid")
    client = server.client
    for method, path in (("GET", f"/api/tables/{huge}"), ("GET", f"/api/games/{huge}"),
                         ("POST", f"/api/tables/{huge}/join"),
                         ("POST", f"/api/me/invitations/{huge}/accept"),
                         ("POST", f"/api/me/invitations/{huge}/decline")):
        answer = client.request(method, path, headers=auth(token))
        assert answer.status_code == 422, (path, answer.text)
        assert "expected an id from 1 to 2147483647" in answer.json()["error"], path
    with live(server, int(huge), token) as socket:
        refusal = receive(socket)
        assert refusal["type"] == "refused" and refusal["kind"] == "not-found"
        with pytest.raises(ConnectionClosed) as closed:
            socket.recv(timeout=WAIT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    no_traceback(server)


NOT_IDS = ("abc", "1.5", "%20", "9" * 5000)


@pytest.mark.parametrize("bad", ["0", "-3", *NOT_IDS])
@pytest.mark.parametrize("path", ["/api/tables/{}/join", "/api/me/invitations/{}/accept",
                                  "/api/me/invitations/{}/decline"])
def test_a_bad_table_id_is_refused_before_the_token_is_asked_for(
        server: Server, bad: str, path: str) -> None:
    # the same 422 naming table_id for any id no table can have, a number out of
    # range or not a number, with or without a token (never 401 for one, 422 for
    # the other)
    _, token = server.account("badidnotoken")
    for headers in ({}, auth(token), auth("not-a-token")):
        answer = server.client.post(path.format(bad), headers=headers, content=b"{")
        assert answer.status_code == 422, (path, bad, headers, answer.text)
        assert answer.json()["error"].startswith(
            "table_id: expected an id from 1 to 2147483647"), answer.text
    no_traceback(server)


@pytest.mark.parametrize("bad", NOT_IDS)
def test_a_live_table_id_that_is_not_a_number_is_refused_as_not_found(
        server: Server, bad: str) -> None:
    # as one out of range: a refused message (kind not-found), then 4404, whether
    # the token is valid or not
    _, token = server.account("notanid")
    base = server.url.replace("http://", "ws://") + f"/api/tables/{bad}/live"
    for given in (None, token, "not-a-token"):
        with connect(base, open_timeout=WAIT) as socket:
            socket.send(json.dumps(protocol.hello(given)))
            refusal = receive(socket)
            assert (refusal["type"], refusal["kind"]) == ("refused", "not-found"), refusal
            assert "table_id: expected an id from 1 to 2147483647" in refusal["reason"]
            with pytest.raises(ConnectionClosed) as closed:
                socket.recv(timeout=WAIT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    no_traceback(server)


def test_the_largest_id_is_looked_up(server: Server) -> None:
    _, token = server.account("maxid")
    answer = server.client.get("/api/tables/2147483647")
    assert (answer.status_code, answer.json()["error"]) == (404, "no table 2147483647")
    answer = server.client.post("/api/tables/2147483647/join", headers=auth(token))
    assert answer.status_code == 404
    no_traceback(server)


def test_a_binary_frame_is_refused_as_malformed_and_the_connection_carries_on(
        server: Server) -> None:
    alice, token = server.account("binary")
    table = new_table(server, token)
    with live(server, table["id"], token) as socket:
        assert until(socket, "table")["seats"] == [alice, None]
        socket.send(b"\x00\x01binary")
        refusal = until(socket, "refused")
        assert refusal["kind"] == "malformed" and "binary" in refusal["reason"]
        socket.send(json.dumps({"type": "dance"}))
        refusal = until(socket, "refused")
        assert (refusal["kind"], refusal["reason"]) == (
            "malformed", "type: expected act, leave, rematch, presence or say")
    url = server.url.replace("http://", "ws://") + "/api/me/live"
    with connect(url, open_timeout=WAIT) as feed:
        feed.send(json.dumps(protocol.hello(token)))
        feed.send(b"\xff")
        refusal = until(feed, "refused")
        assert refusal["kind"] == "malformed" and "binary" in refusal["reason"]
        feed.send(json.dumps({"type": "refresh"}))
        assert receive(feed)["type"] != "refused"
    no_traceback(server)


def test_a_client_gone_mid_body_is_no_error(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    from blockyard.server import db
    from blockyard.server.app import create_app

    url = f"sqlite:///{tmp_path / 'gone.sqlite3'}"
    db.migrate(url)
    app = create_app(url, verifiers=1)
    incoming: list[Message] = [
        {"type": "http.request", "body": b'{"name": "gone", "pass', "more_body": True},
        {"type": "http.disconnect"}]
    sent: list[Message] = []

    async def receive() -> Message:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/api/accounts",
             "raw_path": b"/api/accounts", "root_path": "", "query_string": b"",
             "headers": [(b"content-type", b"application/json"),
                         (b"content-length", b"60")],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000)}
    caplog.set_level(logging.DEBUG)
    try:
        asyncio.run(app(scope, receive, send))
    finally:
        app.state.server.close()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert [r.getMessage() for r in caplog.records if r.name == "blockyard.server"] == [
        "client disconnected before its body was read: POST /api/accounts"]
    assert sent[0]["status"] == 400


def test_a_private_table_is_no_table_to_strangers(server: Server) -> None:
    owner_name, owner = server.account("priv")
    guest, guest_token = server.account("privguest")
    _, stranger = server.account("privstranger")
    table = new_table(server, owner, private=True, invite=[guest])
    path = f"/api/tables/{table['id']}"
    for seen in (server.client.get(path), server.client.get(path, headers=auth(stranger)),
                 server.client.get(path, params={"code": "WRONGCOD"})):
        assert seen.status_code == 404  # as an id no table has: it says nothing
        assert seen.json()["error"] == f"no table {table['id']}"
        assert owner_name not in seen.text
    for seen in (server.client.get(path, headers=auth(owner)),
                 server.client.get(path, headers=auth(guest_token)),
                 server.client.get(path, params={"code": table["code"].lower()})):
        full = seen.json()
        assert seen.status_code == 200 and full["invited"] == [guest]
        assert isinstance(full["seed"], int) and full["results"] == []
        assert full["ruleset_id"] == "eu-classic" and full["round"] == 1
    public = new_table(server, owner)
    assert "seed" in server.client.get(f"/api/tables/{public['id']}").json()


def test_an_act_without_an_action_is_malformed(server: Server) -> None:
    alice, token = server.account("noaction")
    table = new_table(server, token)
    with live(server, table["id"], token) as socket:
        assert until(socket, "table")["seats"] == [alice, None]
        socket.send(json.dumps({"type": "act"}))
        refusal = until(socket, "refused")
        assert refusal["kind"] == "malformed" and refusal["reason"].startswith(
            "action: missing")
