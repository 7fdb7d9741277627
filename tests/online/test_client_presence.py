"""blockyard.online's who is there, quick phrases, mutes and follows against a
real ``blockyard serve``: each seat's presence read from the live messages, the
window's away and active, a phrase said and heard (not once muted), and the
followed players online and the tables they open on the player's own feed."""

from __future__ import annotations

from typing import Any

import pytest
from server_support import Server
from test_client import WAIT, signed_in, until

from blockyard.online import NOT_FOUND, Friend, LiveTable, OnlineError, Opened


def there(live: LiveTable, **match: Any) -> dict[str, Any]:
    """The next ``seats`` or ``table`` message with these fields (a connection
    opening after the others finds them there in its ``table`` message)."""
    for _ in range(1000):
        message = live.wait(WAIT)
        assert message is not None, f"no seats message with {match}"
        if message["type"] in ("seats", "table") \
                and all(message.get(k) == v for k, v in match.items()):
            return message
    raise AssertionError(f"no seats message with {match}")


def test_who_is_there_and_quick_phrases_through_the_client(server: Server) -> None:
    alice, _ = signed_in(server, "cpa")
    bob, bob_name = signed_in(server, "cpb")
    table = alice.create_table("eu-classic")
    assert bob.join(table.id) == 1
    with alice.live(table.id) as a, bob.live(table.id) as b:
        until(b, "table", status="playing")
        there(a, presence=["present", "present"])
        assert a.presence == ["present", "present"] and a.waiting_for == [0, 1]
        assert b.window("away")
        there(a, presence=["present", "away"])
        assert b.window("active")
        there(a, presence=["present", "present"])
        with pytest.raises(ValueError):
            b.window("asleep")
        with pytest.raises(ValueError):
            b.say("free text")
        assert b.say("good-luck")
        assert until(a, "said") == {"type": "said", "seat": 1, "name": bob_name,
                                    "phrase": "good-luck"}
        alice.mute(bob_name)
        assert alice.mutes() == [bob_name]
        assert b.say("rematch") and a.say("thanks")
        until(b, "said", phrase="thanks")
        alice.unmute(bob_name)
        assert alice.mutes() == []
        assert b.say("well-played")
        # the phrase said while muted never arrived: the next one is after the unmute
        assert until(a, "said")["phrase"] == "well-played"
        assert a.act(["end"])
        there(b, waiting_for=[1])
        assert b.leave()
        assert until(a, "result")["left"] == [1]
        assert a.presence == ["present", "left"]
    with pytest.raises(OnlineError) as nobody:
        alice.mute("nobody-here-x")
    assert nobody.value.kind == NOT_FOUND


def test_friends_through_the_client(server: Server) -> None:
    alice, _ = signed_in(server, "cfa")
    bob, bob_name = signed_in(server, "cfb")
    assert bob.follows() == []  # a call: bob is online
    with alice.feed() as feed:
        assert feed.wait_for(lambda f: f.friends == [], WAIT)
        alice.follow(bob_name)
        assert alice.follows() == [Friend(bob_name, True)]
        assert feed.wait_for(lambda f: f.friends == [bob_name], WAIT)
        table = bob.create_table("eu-classic")
        assert feed.wait_for(lambda f: f.opened == [Opened(table.id, "eu-classic",
                                                           bob_name)], WAIT)
        alice.unfollow(bob_name)
        assert alice.follows() == []
        assert feed.wait_for(lambda f: f.friends == [], WAIT)
    with pytest.raises(OnlineError) as nobody:
        alice.follow("nobody-here-x")
    assert nobody.value.kind == NOT_FOUND
