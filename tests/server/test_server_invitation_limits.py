"""Strangers cannot fill a player's invitations (docs/online.md, "Nobody crowds
the others out"): the pending invitations are bounded per inviter
(``BLOCKYARD_SERVER_PENDING_INVITES``, 32 by default) as well as per invited
player, and the 50 a player may hold from players they do not follow never
crowd out one from a player they follow. Scripted from outside as a flood of
strangers would be, on SQLite and PostgreSQL."""

from __future__ import annotations

from server_support import Server

from blockyard.server import settings, social, tablestore


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def invite(server: Server, token: str, names: list[str]) -> tuple[int, dict[str, object]]:
    answer = server.client.post("/api/tables", json={"ruleset_id": "eu-classic",
                                                     "seats": 8, "invite": names},
                                headers=auth(token))
    return answer.status_code, answer.json()


def test_strangers_cannot_crowd_out_a_friends_invitation(server: Server) -> None:
    victim, victim_token = server.account("victim")
    friend, friend_token = server.account("friend")
    assert server.client.put(f"/api/me/follows/{friend}",
                             headers=auth(victim_token)).status_code == 204
    strangers = [server.account("stranger")[1]
                 for _ in range(social.MAX_PENDING // social.MAX_PENDING_FROM_ONE + 1)]
    sent = refused = 0
    for token in strangers:
        for _ in range(social.MAX_PENDING_FROM_ONE):
            status, body = invite(server, token, [victim])
            if status == 201:
                sent += 1
            else:
                assert status == 429, body
                assert f"{social.MAX_PENDING} pending" in str(body["error"]), body
                refused += 1
    assert (sent, refused) == (social.MAX_PENDING, len(strangers) * 3 - social.MAX_PENDING)
    # the list is full of strangers' invitations: a friend's is taken all the same
    status, body = invite(server, friend_token, [victim])
    assert status == 201, body
    listed = server.client.get("/api/me/invitations", headers=auth(victim_token)).json()
    assert body["id"] in [i["table"] for i in listed["invitations"]]
    assert len(listed["invitations"]) == social.MAX_PENDING + 1


def test_one_inviter_has_a_bounded_number_of_pending_invitations(server: Server) -> None:
    _, token = server.account("host")
    most = settings.PENDING_INVITES
    assert most == tablestore.MAX_INVITES  # one table's whole list
    names = [server.account("guest")[0] for _ in range(most + 1)]
    status, body = invite(server, token, names[:most])
    assert status == 201, body
    status, body = invite(server, token, names[most:])
    assert status == 429, body
    assert f"{most} pending invitations" in str(body["error"]), body
    # a table without invitations is still opened (one more seat of the host's)
    status, body = invite(server, token, [])
    assert status == 201, body
