"""blockyard.online against a real ``blockyard serve`` subprocess on loopback."""

from __future__ import annotations

import ssl
import uuid
from typing import Any

import pytest
from server_support import Server, finished_game, free_port

import blockyard
from blockyard.online import (
    Client,
    Invitation,
    LiveTable,
    NewTable,
    OnlineError,
    parse_table_code,
    run_in_background,
    server_url,
    table_code,
    tls_context,
)

WAIT = 30.0  # a bound on a message that must come, never a measured time


def fresh_name(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def signed_in(server: Server, prefix: str = "p") -> tuple[Client, str]:
    client = Client(server.url)
    name = client.create_account(fresh_name(prefix), "correct horse")
    client.sign_in(name, "correct horse")
    return client, name


def until(live: LiveTable, kind: str, **match: Any) -> dict[str, Any]:
    for _ in range(1000):
        message = live.wait(WAIT)
        assert message is not None, f"no {kind} message"
        if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
            return message
    raise AssertionError(f"no {kind} message")


def test_server_url_reads_what_players_type() -> None:
    assert server_url("localhost:8765") == "http://localhost:8765"
    assert server_url(" https://play.example.org/ ") == "https://play.example.org"
    for bad, words in [("", "no server address"), ("ftp://x", "http"),
                       ("http://", "no host"), ("x:99999", "bad port"),
                       ("x:8765/api", "only the host")]:
        with pytest.raises(ValueError, match=words):
            server_url(bad)


def test_every_client_verifies_tls_with_the_processs_one_context() -> None:
    context = tls_context()
    assert context is tls_context()  # the authorities are read once per process
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    with Client("https://blockyard.example") as one, Client("127.0.0.1:9") as two:
        for client in (one, two):  # what its HTTPS connections are made with (httpcore)
            assert client._http._transport._pool._ssl_context is context


def test_table_codes_round_trip() -> None:
    assert table_code(NewTable(12, "ab3d")) == "12-ab3d"
    assert parse_table_code(" 12-ab3d ") == (12, "ab3d")
    assert parse_table_code("7") == (7, None)
    for bad in ("", "x-1", "-ab", "١٢-ab"):
        with pytest.raises(ValueError, match="not a table code"):
            parse_table_code(bad)


def test_accounts_sessions_and_the_servers_errors(server: Server) -> None:
    client = Client(server.url)
    assert client.health()
    name = fresh_name("acc")
    assert client.create_account(name, "correct horse") == name
    with pytest.raises(OnlineError) as taken:
        client.create_account(name, "correct horse")
    assert taken.value.status == 409 and taken.value.message.startswith("creating the account: ")
    with pytest.raises(OnlineError) as short:
        client.create_account(fresh_name("s"), "short")
    assert short.value.status == 422 and "password" in short.value.message
    with pytest.raises(OnlineError) as wrong:
        client.sign_in(name, "not the password")
    assert wrong.value.status == 401 and client.token is None
    with pytest.raises(OnlineError, match="sign in first"):
        client.create_table("eu-classic")
    token = client.sign_in(name, "correct horse")
    assert token and client.token == token
    client.sign_out()
    assert client.token is None
    # the old token no longer acts
    stale = Client(server.url, token)
    with pytest.raises(OnlineError) as revoked:
        stale.create_table("eu-classic")
    assert revoked.value.status == 401


def test_an_unreachable_server_is_a_readable_error() -> None:
    port = free_port()  # nobody listens there
    client = Client(f"127.0.0.1:{port}", timeout=5)
    with pytest.raises(OnlineError) as refused:
        client.health()
    assert refused.value.status is None
    assert refused.value.message.startswith(f"cannot reach the server at http://127.0.0.1:{port}")
    pending = run_in_background(client.health)
    assert pending.wait(WAIT) and pending.done
    assert pending.result is None and pending.error and "cannot reach" in pending.error


def test_submitting_a_game_and_the_leaderboard(server: Server) -> None:
    client, name = signed_in(server, "sub")
    game = finished_game("eu-classic", seed=11, moves=5)
    stored = client.submit_game(game)
    assert (stored.ruleset_id, stored.score, stored.counted) == ("eu-classic", game.score, True)
    board = client.leaderboard("eu-classic", limit=100)
    mine = [e for e in board.entries if e.name == name]
    assert len(mine) == 1 and mine[0].score == game.score and mine[0].game_id == stored.id
    assert [e.rank for e in board.entries] == list(range(1, len(board.entries) + 1))
    replay = client.game(stored.id)
    assert replay.log == game.log and replay.check().score == game.score
    with pytest.raises(OnlineError) as twice:
        client.submit_game(game)
    assert twice.value.status == 409
    unfinished = blockyard.new_game("eu-classic", seed=2)
    with pytest.raises(OnlineError) as not_over:
        client.submit_game(unfinished)
    assert not_over.value.status == 422


def test_tables_join_and_a_live_duel_with_reconnection(server: Server) -> None:
    alice, alice_name = signed_in(server, "alice")
    bob, bob_name = signed_in(server, "bob")
    table = alice.create_table("eu-classic", seats=2)
    listed = [t for t in Client(server.url).tables() if t.id == table.id]
    assert len(listed) == 1 and listed[0].seats == (alice_name, None)
    assert listed[0].free_seats == 1 and listed[0].status == "waiting"
    assert bob.join(table.id) == 1
    with alice.live(table.id) as a, bob.live(table.id) as b:
        state = until(a, "table", status="playing")
        assert state["seats"] == [alice_name, bob_name]
        until(b, "table", status="playing")
        games = [blockyard.new_game("eu-classic", seed=state["seed"]) for _ in range(2)]

        def move(live: LiveTable, seat: int) -> None:
            action = ["place", *games[seat].legal_moves()[0]]
            games[seat].apply(action)
            assert live.act(action)
            for socket in (a, b):
                seen = until(socket, "move")
                assert seen == {"type": "move", "seat": seat, "action": action,
                                "score": games[seat].score, "over": games[seat].over}

        move(a, 0)
        move(b, 1)
        move(a, 0)
        # a refused action reaches only its sender and changes nothing
        assert b.act(["place", 0, 99, 99])
        assert until(b, "refused")["reason"]
        # bob's connection drops under him: reported, connected again, no move twice
        with b._lock:
            b._socket.close()
        assert until(b, "connection")["state"] == "lost"
        assert until(b, "connection")["state"] == "back"
        assert until(b, "table")["status"] == "playing"
        move(a, 0)
        move(b, 1)
        assert a.poll() == [] and b.poll() == []
        for seat, live in ((0, a), (1, b)):
            games[seat].apply(["end"])
            assert live.act(["end"])
        result = until(a, "result")
        assert result["scores"] == [games[0].score, games[1].score]
        assert until(b, "result") == result
    assert not a.connected and not b.connected


def test_a_refused_live_connection_is_closed_not_retried(server: Server) -> None:
    alice, _ = signed_in(server, "priv")
    table = alice.create_table("eu-classic", private=True)
    with Client(server.url).live(table.id) as stranger:
        message = until(stranger, "connection")
        assert message["state"] == "closed" and message["reason"]
        assert not stranger.connected


def test_players_online_and_invitations_pushed_to_the_feed(server: Server) -> None:
    alice, alice_name = signed_in(server, "host")
    bob, bob_name = signed_in(server, "guest")
    with pytest.raises(OnlineError) as no_token:
        Client(server.url).players_online()
    assert "sign in first" in no_token.value.message
    with bob.feed() as feed:
        # the list the connection is sent once its player is noted online: the server's
        # heartbeat may push the list it read a moment before to the new connection first
        assert feed.wait_for(lambda f: f.invitations == [] and bob_name in (f.players or []),
                             WAIT)
        assert feed.state == "connected"
        assert {alice_name, bob_name} <= set(alice.players_online())
        table = alice.create_table("eu-classic", private=True, invite=[bob_name])
        assert feed.wait_for(lambda f: bool(f.invitations), WAIT)
        assert feed.invitations is not None
        invitation = feed.invitations[0]
        assert invitation == Invitation(table.id, "eu-classic", alice_name, (alice_name, None),
                                        True, invitation.created)
        assert bob.invitations() == feed.invitations
        version = feed.version
        assert feed.refresh()
        assert feed.wait_for(lambda f: f.version > version, WAIT)
        bob.decline_invitation(table.id)
        assert feed.wait_for(lambda f: f.invitations == [], WAIT)
        with pytest.raises(OnlineError) as gone:
            bob.accept_invitation(table.id)
        assert gone.value.status == 404 and "no pending invitation" in gone.value.message
        second = alice.create_table("eu-classic", invite=[bob_name])
        assert feed.wait_for(lambda f: [i.table for i in f.invitations or []] == [second.id],
                             WAIT)
        assert bob.accept_invitation(second.id) == 1
        assert feed.wait_for(lambda f: f.invitations == [], WAIT)
        assert alice.table(second.id)["seats"] == [alice_name, bob_name]
    assert feed.state == "closed"


def test_a_feed_with_a_revoked_token_is_closed_not_retried(server: Server) -> None:
    client, _name = signed_in(server, "gone")
    token = client.token
    client.sign_out()
    with Client(server.url, token).feed() as feed:
        assert feed.wait_for(lambda f: f.state == "closed", WAIT)
        assert "token is not valid" in feed.reason


def test_every_refusal_has_its_kind(server: Server) -> None:
    """What went wrong is a kind (one of ERROR_KINDS) the window says in the
    player's language, whatever the server's English text."""
    from blockyard import online

    client = Client(server.url)
    name = client.create_account(fresh_name("kind"), "correct horse")

    def kind_of(call: Any) -> str:
        with pytest.raises(OnlineError) as caught:
            call()
        return caught.value.kind

    assert kind_of(lambda: client.create_account(name, "correct horse")) == online.NAME_TAKEN
    assert kind_of(lambda: client.create_account("a b", "correct horse")) == online.BAD_NAME
    assert kind_of(lambda: client.create_account(fresh_name("k"), "short")) \
        == online.BAD_PASSWORD
    assert kind_of(lambda: client.sign_in(name, "not the password")) == online.WRONG_LOGIN
    assert kind_of(lambda: client.create_table("eu-classic")) == online.SIGNED_OUT
    assert kind_of(lambda: Client(server.url, "not-a-token").create_table("eu-classic")) \
        == online.SIGNED_OUT
    owner, _owner = signed_in(server, "own")
    second, _second = signed_in(server, "sec")
    third, _third = signed_in(server, "thi")
    public = owner.create_table("eu-classic", seats=2)
    second.join(public.id)
    assert kind_of(lambda: third.join(public.id)) == online.TABLE_FULL
    private = owner.create_table("eu-classic", seats=2, private=True)
    assert kind_of(lambda: third.join(private.id)) == online.PRIVATE_TABLE
    assert kind_of(lambda: third.join(10**9)) == online.NOT_FOUND
    unfinished = blockyard.new_game("eu-classic", seed=2)
    assert kind_of(lambda: owner.submit_game(unfinished)) == online.GAME_REFUSED
    assert kind_of(lambda: client.leaderboard("no-such-rules")) == online.NOT_SERVED
    assert kind_of(lambda: owner.create_table("no-such-rules")) == online.NOT_SERVED
    port = free_port()  # nobody listens there
    assert kind_of(Client(f"127.0.0.1:{port}", timeout=5).health) == online.UNREACHABLE
    # a background call keeps the error itself, not only its text
    pending = run_in_background(lambda: client.sign_in(name, "not the password"))
    assert pending.wait(WAIT) and pending.failure is not None
    assert pending.failure.kind == online.WRONG_LOGIN and pending.error == pending.failure.message


@pytest.mark.parametrize(("status", "body", "kind"), [
    (429, {"error": "too many sign-in attempts; try again in a minute"}, "rate-limited"),
    (404, {"error": "Not Found"}, "too-old"),  # a server without this call
    (405, {"error": "Method Not Allowed"}, "too-old"),
    (404, {"error": "no table 7"}, "not-found"),
    (500, {"error": "internal server error"}, "server-error"),
    (502, None, "not-blockyard"),  # a proxy's page, not a Blockyard answer
    (200, None, "not-blockyard"),
    (200, {"ok": False}, "not-blockyard"),
])
def test_answers_that_are_not_refusals_of_the_player_have_kinds(
        status: int, body: Any, kind: str) -> None:
    import httpx

    from blockyard.online import ERROR_KINDS

    def answer(request: httpx.Request) -> httpx.Response:
        if body is None:
            return httpx.Response(status, text="<html>hello</html>")
        return httpx.Response(status, json=body)

    client = Client("127.0.0.1:9", transport=httpx.MockTransport(answer))
    with pytest.raises(OnlineError) as caught:
        client.health()
    assert caught.value.kind == kind and kind in ERROR_KINDS


def test_no_answer_in_time_is_a_timeout() -> None:
    import httpx

    from blockyard import online

    def answer(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("no answer", request=request)

    client = Client("127.0.0.1:9", transport=httpx.MockTransport(answer))
    with pytest.raises(OnlineError) as caught:
        client.tables()
    assert caught.value.kind == online.TIMEOUT and caught.value.status is None


def test_the_account_rules_are_the_servers(server: Server) -> None:
    """The numbers the window says and checks are those the server judges by."""
    from blockyard import accountrules, online

    client = Client(server.url)
    longest = "n" + uuid.uuid4().hex[:accountrules.NAME_MAX - 1]
    assert accountrules.name_problem(longest) is None
    assert accountrules.name_problem(longest + "x") is not None
    assert accountrules.name_problem("ab") is not None and accountrules.name_problem("a-_") is None
    assert accountrules.name_problem("Zoë") is not None  # ASCII letters only
    assert accountrules.name_problem("bob\n") is not None  # nothing after the name
    assert client.create_account(longest, "x" * accountrules.PASSWORD_MIN) == longest
    with pytest.raises(OnlineError) as too_long:
        client.create_account(longest + "x", "x" * accountrules.PASSWORD_MIN)
    assert too_long.value.kind == online.BAD_NAME
    short = "x" * (accountrules.PASSWORD_MIN - 1)
    assert accountrules.password_problem(short) is not None
    with pytest.raises(OnlineError) as too_short:
        client.create_account(fresh_name("r"), short)
    assert too_short.value.kind == online.BAD_PASSWORD


def test_a_fourth_table_is_said_as_seats_held_not_as_a_rate_limit(server: Server) -> None:
    from blockyard import online

    client, _ = signed_in(server, "seats")
    for _ in range(3):
        client.create_table("eu-classic")
    with pytest.raises(OnlineError) as caught:
        client.create_table("eu-classic")
    assert caught.value.kind == online.SEATS_HELD and caught.value.status == 429
    other, _ = signed_in(server, "host")
    table = other.create_table("eu-classic")
    with pytest.raises(OnlineError) as joining:
        client.join(table.id)
    assert joining.value.kind == online.SEATS_HELD
