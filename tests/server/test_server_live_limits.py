"""The limits of the live connections and of table-code guesses, through the real
routes and sockets of a server in this process on a fake clock (SQLite and
PostgreSQL): the messages of the live channels are counted per account across
reconnects, and guesses of a private table's code are limited per account and
per address (a 429 with a sentence; a live watch closed with 4429). The minute
passes when the test moves the clock."""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Iterator

import pytest
from server_support import LocalServer, local_server
from test_server_sign_out import close_code
from test_server_social import me_live
from test_server_tables import auth, live, new_table, until
from websockets.sync.client import ClientConnection

from blockyard.server.clock import FakeClock
from blockyard.server.tables import CODE_GUESSES

MESSAGES = 20
CODE_ACCOUNT = 3
CODE_ADDRESS = 5


@pytest.fixture
def local(database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalServer]:
    """A server in this process on a fake clock with small limits: 20 messages a
    minute, 3 code guesses per account and 5 per address."""
    monkeypatch.setenv("BLOCKYARD_SERVER_LIMITS",
                       f"create=1000,sign_in_address=1000,messages={MESSAGES},"
                       f"code_account={CODE_ACCOUNT},code_address={CODE_ADDRESS}")
    with local_server(database, FakeClock(_dt.datetime.now(_dt.UTC))) as server:
        yield server


def send_junk(socket: ClientConnection, count: int) -> list[str]:
    """Send ``count`` messages of no known type; the reasons they were refused."""
    for _ in range(count):
        socket.send(json.dumps({"type": "dance"}))
    return [until(socket, "refused")["reason"] for _ in range(count)]


def test_the_message_limit_counts_across_reconnects(local: LocalServer) -> None:
    _, token = local.account("ml")
    table = new_table(local, token)
    with live(local, table["id"], token) as socket:
        until(socket, "table")
        reasons = send_junk(socket, MESSAGES + 1)
        assert all("expected act" in r for r in reasons[:MESSAGES])
        assert "too many messages" in reasons[MESSAGES]
    # reopened at once: the same account's budget, not a fresh one
    with live(local, table["id"], token) as socket:
        until(socket, "table")
        socket.send(json.dumps({"type": "dance"}))
        refused = until(socket, "refused")
        assert refused["kind"] == "too-many" and "too many messages" in refused["reason"]
    # the personal channel counts its own messages per account the same way
    with me_live(local, token) as feed:
        until(feed, "online")
        for _ in range(MESSAGES):
            feed.send(json.dumps({"type": "refresh"}))
        feed.send(json.dumps({"type": "refresh"}))
        assert "too many messages" in until(feed, "refused")["reason"]
    with me_live(local, token) as feed:
        until(feed, "online")
        feed.send(json.dumps({"type": "refresh"}))
        assert "too many messages" in until(feed, "refused")["reason"]
    local.clock.advance(61)  # a minute on: the budget is whole again
    with live(local, table["id"], token) as socket:
        until(socket, "table")
        assert all("expected act" in r for r in send_junk(socket, MESSAGES))


def test_code_guesses_are_limited_per_account_and_per_address(local: LocalServer) -> None:
    _, owner = local.account("cg")
    _, first = local.account("cg")
    _, second = local.account("cg")
    table = new_table(local, owner, private=True, seats=3)
    join = f"/api/tables/{table['id']}/join"
    for _ in range(CODE_ACCOUNT):
        answer = local.client.post(join, headers=auth(first), json={"code": "WRONGCOD"})
        assert answer.status_code == 403
    # over the account's limit: refused with a sentence, even with the right code
    for code in ("WRONGCOD", table["code"]):
        answer = local.client.post(join, headers=auth(first), json={"code": code})
        assert answer.status_code == 429 and answer.json()["error"] == CODE_GUESSES
    # another account from the same address: the address's limit (5) comes first
    for _ in range(CODE_ADDRESS - CODE_ACCOUNT):
        answer = local.client.post(join, headers=auth(second), json={"code": "WRONGCOD"})
        assert answer.status_code == 403
    answer = local.client.post(join, headers=auth(second), json={"code": table["code"]})
    assert answer.status_code == 429 and answer.json()["error"] == CODE_GUESSES
    # watching with a guessed code counts too: the table shown briefly, the socket closed
    answer = local.client.get(f"/api/tables/{table['id']}", params={"code": table["code"]})
    assert answer.status_code == 429 and answer.json()["error"] == CODE_GUESSES
    with live(local, table["id"], code=table["code"]) as socket:
        code, seen = close_code(socket)
        assert code == 4429 and seen == [{"type": "refused", "kind": "too-many",
                                          "reason": CODE_GUESSES}]
    # the owner (seated) sends no guess: never limited
    shown = local.client.get(f"/api/tables/{table['id']}", headers=auth(owner))
    assert shown.status_code == 200 and "seed" in shown.json()
    local.clock.advance(61)  # a minute on: guesses are taken again
    answer = local.client.post(join, headers=auth(first), json={"code": table["code"]})
    assert answer.status_code == 200 and answer.json() == {"seat": 1}
    with live(local, table["id"], code=table["code"]) as socket:
        assert until(socket, "table")["id"] == table["id"]
