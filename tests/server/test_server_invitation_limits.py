"""Strangers cannot fill a player's invitations (docs/online.md, "Nobody crowds
the others out"): the pending invitations are bounded per inviter
(``BLOCKYARD_SERVER_PENDING_INVITES``, 32 by default) as well as per invited
player, and the 50 a player may hold from players they do not follow never
crowd out one from a player they follow. Scripted from outside as a flood of
strangers would be, on SQLite and PostgreSQL."""

from __future__ import annotations

import functools

import pytest
import sqlalchemy as sa
from server_support import Server
from test_server_ratings import players
from test_server_table_races import race

from blockyard.server import db, settings, social, tablestore


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


@pytest.mark.usefixtures("cheap_passwords")  # accounts made at the store
def test_invitations_sent_at_once_are_counted_one_after_the_other(
        engine: sa.Engine) -> None:
    # docs/online.md, "Nobody crowds the others out": pending invitations are bounded
    # per inviter, also when three tables with 16 invitations each open at once
    host, *guests = players(engine, "host", *(f"guest{n:02d}" for n in range(48)))
    opened: list[int] = []

    def open_table(names: list[str]) -> None:
        admit = functools.partial(social.invites_allowed, inviter=host, names=names,
                                  most_sent=32)
        try:
            opened.append(tablestore.create_table(engine, host, "eu-classic", 2, True, names,
                                                  None, admit=admit).id)
        except social.InviteRefused as refused:
            assert refused.status == 429

    race(*(functools.partial(open_table, [g.name for g in guests[16 * n:16 * (n + 1)]])
           for n in range(3)))
    assert len(opened) == 2  # 32 invitations, the most one player may have pending
    with engine.connect() as conn:
        pending = conn.execute(sa.select(sa.func.count()).select_from(db.table_invites)
                               .where(db.table_invites.c.inviter_id == host.id)).scalar_one()
    assert pending == 32
