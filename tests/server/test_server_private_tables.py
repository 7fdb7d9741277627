"""A private table is private (docs/online.md, "Nobody crowds the others out"):
its seats' names, scores and rounds are shown only to its seats, its invited players and
whoever holds its code. Walked from outside as a stranger would: table ids are
sequential, so every id around it is asked, without a token and with a
stranger's; the lobby and the players' public pages are read too. On SQLite and
PostgreSQL."""

from __future__ import annotations

from typing import Any

from server_support import Server, engine_of

from blockyard.server import tablestore


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def opened(server: Server, token: str, **body: Any) -> dict[str, Any]:
    answer = server.client.post("/api/tables", json={"ruleset_id": "eu-classic", **body},
                                headers=auth(token))
    assert answer.status_code == 201, answer.text
    found = answer.json()
    assert isinstance(found, dict)
    return found


def finished(server: Server, table_id: int, scores: list[int]) -> None:
    """The table's first round over with ``scores``, stored as the referee stores
    a result."""
    with engine_of(server.database) as engine:
        table = tablestore.load_table(engine, table_id)
        assert table.status == "playing"
        assert tablestore.finish_round(engine, table, scores)


def test_a_stranger_walking_the_ids_learns_nothing_of_a_private_table(server: Server
                                                                        ) -> None:
    owner, owner_token = server.account("owner")
    guest, guest_token = server.account("guest")
    invited, invited_token = server.account("invited")
    _, stranger_token = server.account("stranger")
    before = opened(server, owner_token)  # a public table of the owner's, id - 1
    private = opened(server, owner_token, private=True, invite=[invited])
    joined = server.client.post(f"/api/tables/{private['id']}/join",
                                json={"code": private["code"]}, headers=auth(guest_token))
    assert joined.status_code == 200, joined.text
    finished(server, private["id"], [4321, 1234])
    public = server.client.post(f"/api/tables/{before['id']}/join",
                                headers=auth(guest_token))
    assert public.status_code == 200
    finished(server, before["id"], [7, 5])
    after = opened(server, owner_token)  # and a public one after it
    # the lobby: never a private table
    lobby = server.client.get("/api/tables").json()["tables"]
    assert private["id"] not in [t["id"] for t in lobby]
    assert after["id"] in [t["id"] for t in lobby]
    # every id around it, as a stranger: a private table is as no table at all
    missing = after["id"] + 1000
    nothing = server.client.get(f"/api/tables/{missing}")
    assert nothing.status_code == 404
    for headers in ({}, auth(stranger_token)):
        for table_id in range(before["id"], after["id"] + 1):
            answer = server.client.get(f"/api/tables/{table_id}", headers=headers)
            if table_id == private["id"]:
                assert answer.status_code == 404, answer.text
                assert answer.json()["error"] == f"no table {table_id}"
                assert owner not in answer.text and guest not in answer.text
                assert "4321" not in answer.text
            else:
                assert answer.status_code == 200, answer.text
        wrong = server.client.get(f"/api/tables/{private['id']}?code=AAAAAAAA",
                                  headers=headers)
        assert wrong.status_code == 404
    # its seats, its invited player and the code's holder see it whole
    for headers, query in ((auth(owner_token), ""), (auth(guest_token), ""),
                           (auth(invited_token), ""), ({}, f"?code={private['code']}")):
        answer = server.client.get(f"/api/tables/{private['id']}{query}", headers=headers)
        assert answer.status_code == 200, answer.text
        shown = answer.json()
        assert shown["seats"] == [owner, guest]
        assert [r["scores"] for r in shown["results"]] == [[4321, 1234]]
    # the players' public pages: the public round, never the private one
    for name in (owner, guest):
        page = server.client.get(f"/api/accounts/{name}/tables")
        assert page.status_code == 200
        rounds = page.json()["tables"]
        assert [r["table_id"] for r in rounds] == [before["id"]], rounds
        assert "4321" not in page.text
