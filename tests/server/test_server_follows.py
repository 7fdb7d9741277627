"""Friends over real HTTP and WebSockets, against SQLite and PostgreSQL (and
across two server processes on one PostgreSQL, with who is there and quick
phrases): a player follows another by name (``PUT``/``DELETE``/``GET
/api/me/follows``, stored), is told on ``/api/me/live`` which followed players
are online (``friends``) and when one opens a public table (``opened``)."""

from __future__ import annotations

import json

from server_support import Server
from test_server_presence import there
from test_server_social import me_live
from test_server_tables import auth, live, new_table, until


def follows(server: Server, token: str) -> list[dict[str, object]]:
    answer = server.client.get("/api/me/follows", headers=auth(token))
    assert answer.status_code == 200, answer.text
    found = answer.json()["follows"]
    assert isinstance(found, list)
    return found


def test_following_by_name(server: Server) -> None:
    ann, ann_token = server.account("fa")
    bob, bob_token = server.account("fb")
    assert follows(server, bob_token) == []  # an authenticated call: bob is online
    assert follows(server, ann_token) == []
    assert server.client.put(f"/api/me/follows/{bob}", headers=auth(ann_token)).status_code \
        == 204
    again = server.client.put(f"/api/me/follows/{bob.upper()}", headers=auth(ann_token))
    assert again.status_code == 204  # followed already (names ignore case): no change
    # bob made a call a moment ago: online
    assert follows(server, ann_token) == [{"name": bob, "online": True}]
    myself = server.client.put(f"/api/me/follows/{ann}", headers=auth(ann_token))
    assert myself.status_code == 422 and "yourself" in myself.json()["error"]
    nobody = server.client.put("/api/me/follows/nobody-here", headers=auth(ann_token))
    assert nobody.status_code == 404
    assert server.client.put("/api/me/follows/not%20a%20name",
                             headers=auth(ann_token)).status_code == 422
    assert server.client.put(f"/api/me/follows/{bob}").status_code == 401
    assert server.client.get("/api/me/follows").status_code == 401
    assert server.client.delete(f"/api/me/follows/{bob}",
                                headers=auth(ann_token)).status_code == 204
    assert follows(server, ann_token) == []
    assert server.client.delete(f"/api/me/follows/{bob}",
                                headers=auth(ann_token)).status_code == 204  # no change
    assert server.client.delete("/api/me/follows/nobody-here",
                                headers=auth(ann_token)).status_code == 404


def test_friends_online_and_the_tables_they_open_are_pushed(server: Server) -> None:
    _, ann_token = server.account("fa")
    bob, bob_token = server.account("fb")
    _, carl_token = server.account("fc")
    assert follows(server, bob_token) == []  # an authenticated call: bob is online
    with me_live(server, ann_token) as feed:
        assert until(feed, "friends") == {"type": "friends", "online": []}
        assert server.client.put(f"/api/me/follows/{bob}",
                                 headers=auth(ann_token)).status_code == 204
        assert until(feed, "friends") == {"type": "friends", "online": [bob]}
        new_table(server, carl_token)  # not followed: not told
        new_table(server, bob_token, private=True)  # private: not told
        table = new_table(server, bob_token)
        assert until(feed, "opened") == {"type": "opened", "table": table["id"],
                                         "ruleset_id": "eu-classic", "name": bob}
        feed.send(json.dumps({"type": "refresh"}))
        assert until(feed, "friends")["online"] == [bob]


def test_who_is_there_phrases_and_friends_cross_processes(two_servers: tuple[Server, Server]
                                                          ) -> None:
    one, two = two_servers
    ann, ann_token = one.account("xa")
    bob, bob_token = two.account("xb")
    with me_live(one, ann_token) as feed:
        until(feed, "friends")
        assert two.client.put(f"/api/me/follows/{ann}",
                              headers=auth(bob_token)).status_code == 204
        assert one.client.put(f"/api/me/follows/{bob}",
                              headers=auth(ann_token)).status_code == 204
        assert until(feed, "friends")["online"] == [bob]
        table = new_table(two, bob_token)  # opened on the second process
        assert until(feed, "opened")["table"] == table["id"]
    assert one.client.post(f"/api/tables/{table['id']}/join",
                           headers=auth(ann_token)).json() == {"seat": 1}
    with live(two, table["id"], bob_token) as b:
        with live(one, table["id"], ann_token) as a:
            there(b, lambda m: m["presence"] == ["present", "present"])
            a.send(json.dumps({"type": "presence", "state": "away"}))
            there(b, lambda m: m["presence"] == ["present", "away"])
            a.send(json.dumps({"type": "say", "phrase": "good-luck"}))
            assert until(b, "said") == {"type": "said", "seat": 1, "name": ann,
                                        "phrase": "good-luck"}
            b.send(json.dumps({"type": "say", "phrase": "thanks"}))
            assert until(a, "said")["name"] == bob
        # ann's connection closed on the first process: the second one says so
        there(b, lambda m: m["presence"] == ["present", "reconnecting"])
        with live(one, table["id"], ann_token) as a:
            there(b, lambda m: m["presence"] == ["present", "present"])
            a.send(json.dumps({"type": "leave"}))
            there(b, lambda m: m["presence"] == ["present", "left"])
