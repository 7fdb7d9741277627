"""The live channels' protocol (blockyard.protocol): each message as the "Online
play" contract writes it, what a client may send read or refused with a
sentence, and the kinds of refusals every side knows."""

from __future__ import annotations

import json
import typing

import pytest

from blockyard import protocol
from blockyard.protocol import Refusal, read_message, read_request


def test_the_server_messages_have_the_contracts_fields() -> None:
    table = protocol.table(id=3, ruleset_id="eu-classic", seed=7, seats=("ann", None),
                           status="waiting", round=1, rematch_by=None, invited=["bob"])
    assert table == {"type": "table", "protocol": protocol.VERSION, "id": 3,
                     "ruleset_id": "eu-classic", "seed": 7, "seats": ["ann", None],
                     "status": "waiting", "round": 1, "rematch_by": None,
                     "invited": ["bob"], "rated": False, "ratings": [],
                     "pair_limit": None, "presence": [None, None], "waiting_for": []}
    rating = protocol.seat_rating(rating=1.5, mu=26.0, sigma=8.1, games=2, provisional=True)
    rated = protocol.table(id=3, ruleset_id="eu-classic", seed=7, seats=("ann", None),
                           status="waiting", round=1, rematch_by=None, invited=[],
                           rated=True, ratings=[rating, None])
    assert (rated["rated"], rated["ratings"]) == (True, [
        {"rating": 1.5, "mu": 26.0, "sigma": 8.1, "games": 2, "provisional": True}, None])
    assert protocol.move(1, ("place", 0, 3, 4), 30, False) == {
        "type": "move", "seat": 1, "action": ["place", 0, 3, 4], "score": 30, "over": False}
    assert protocol.result([5, 9], 1) == {"type": "result", "scores": [5, 9], "winner": 1,
                                          "ratings": None, "left": [], "aborted": False}
    assert protocol.result([5, 9], 1, None, [1])["left"] == [1]
    assert protocol.result([5, 9], 1, None, [], True)["aborted"] is True
    limited = protocol.table(id=3, ruleset_id="eu-classic", seed=7, seats=("ann", "bob"),
                             status="playing", round=4, rematch_by=0, invited=[],
                             pair_limit=protocol.pair_limit(3, 24, [(0, 1)]))
    assert limited["pair_limit"] == {"rounds": 3, "hours": 24, "pairs": [[0, 1]]}
    change: protocol.RatingChange = {"before": 0.0, "after": 1.2, "change": 1.2,
                                     "provisional": True}
    assert protocol.result([5, 9], 1, [change, change])["ratings"] == [change, change]
    assert protocol.paired(12, "eu-classic", 1) == {"type": "paired", "table": 12,
                                                    "ruleset_id": "eu-classic", "seat": 1}
    assert read_message(protocol.paired(12, "eu-classic", 1)) is not None
    assert protocol.clock(12.34567) == {"type": "clock", "elapsed": 12.346}
    assert protocol.refused("no", "illegal") == {"type": "refused", "reason": "no",
                                                 "kind": "illegal"}
    assert protocol.online(["ann"]) == {"type": "online", "players": ["ann"]}
    assert protocol.invitations([]) == {"type": "invitations", "invitations": []}
    for message in (table, protocol.result([1], 0), protocol.online([])):
        assert json.loads(json.dumps(message)) == message  # JSON as it is


def test_the_clients_messages_have_the_contracts_fields() -> None:
    assert protocol.act(("place", 0, 3, 4)) == {"type": "act", "action": ["place", 0, 3, 4]}
    assert protocol.leave() == {"type": "leave"}
    assert protocol.rematch() == {"type": "rematch"}
    assert protocol.refresh() == {"type": "refresh"}


def test_a_refusal_has_one_of_the_known_kinds() -> None:
    assert set(typing.get_args(protocol.RefusalKind)) == set(protocol.REFUSAL_KINDS)
    with pytest.raises(ValueError, match="unknown kind"):
        protocol.refused("no", "grumpy")
    with pytest.raises(ValueError, match="unknown kind"):
        Refusal("no", "grumpy")
    assert Refusal("slow down", "too-many").message()["kind"] == "too-many"


@pytest.mark.parametrize("text, reason", [
    (None, protocol.BINARY_FRAME),
    ("not json", "expected one JSON object per message"),
    ("[" * 100_000, "expected one JSON object per message"),
    ("[1, 2]", "type: expected act, leave, rematch, presence or say"),
    ('{"type": "refresh"}', "type: expected act, leave, rematch, presence or say"),
    ('{"type": 5}', "type: expected act, leave, rematch, presence or say"),
    ('{"type": "act"}', "action: missing (expected [name, *arguments] as written in game.log)"),
])
def test_what_a_table_is_sent_is_read_or_refused_with_a_sentence(text: str | None,
                                                                 reason: str) -> None:
    refused = read_request(text, protocol.TABLE_REQUESTS)
    assert refused == Refusal(reason, "malformed")


def test_the_table_and_player_requests_are_read() -> None:
    assert read_request('{"type": "act", "action": ["place", 0, 1, 2]}',
                        protocol.TABLE_REQUESTS) == {"type": "act", "action": ["place", 0, 1, 2]}
    assert read_request('{"type": "leave"}', protocol.TABLE_REQUESTS) == {"type": "leave"}
    assert read_request('{"type": "rematch", "later": 1}', protocol.TABLE_REQUESTS) == \
        {"type": "rematch", "later": 1}  # a later version's field is left alone
    assert read_request('{"type": "refresh"}', protocol.PLAYER_REQUESTS) == {"type": "refresh"}
    assert read_request('{"type": "act", "action": []}', protocol.PLAYER_REQUESTS) == \
        Refusal("type: expected refresh", "malformed")


def test_a_client_reads_only_the_servers_message_kinds() -> None:
    for kind in protocol.SERVER_MESSAGES:
        assert read_message({"type": kind}) == {"type": kind}
    for other in ({"type": "connection"}, {"type": "gossip"}, {}, [], "table", None,
                  {"type": ["table"]}):
        assert read_message(other) is None


def test_who_is_there_phrases_and_friends_have_the_contracts_fields() -> None:
    table = protocol.table(id=3, ruleset_id="eu-classic", seed=7, seats=("ann", "bob"),
                           status="playing", round=1, rematch_by=None, invited=[],
                           presence=["present", "reconnecting"], waiting_for=[1])
    assert (table["presence"], table["waiting_for"]) == (["present", "reconnecting"], [1])
    assert protocol.seats(["away", None], [0]) == {"type": "seats", "presence": ["away", None],
                                                  "waiting_for": [0]}
    with pytest.raises(ValueError, match="unknown state"):
        protocol.seats(["asleep"], [])
    assert protocol.said(1, "bob", "good-luck") == {"type": "said", "seat": 1, "name": "bob",
                                                    "phrase": "good-luck"}
    with pytest.raises(ValueError, match="unknown phrase"):
        protocol.said(1, "bob", "you stink")
    assert protocol.friends(["ann"]) == {"type": "friends", "online": ["ann"]}
    assert protocol.opened(4, "eu-classic", "ann") == {"type": "opened", "table": 4,
                                                       "ruleset_id": "eu-classic",
                                                       "name": "ann"}
    assert protocol.presence("away") == {"type": "presence", "state": "away"}
    assert protocol.say("thanks") == {"type": "say", "phrase": "thanks"}
    with pytest.raises(ValueError):
        protocol.say("hello there")
    with pytest.raises(ValueError):
        protocol.presence("asleep")
    assert set(protocol.PHRASES) == {"good-luck", "well-played", "rematch", "thanks"}
    assert set(typing.get_args(protocol.Phrase)) == set(protocol.PHRASES)
    assert set(typing.get_args(protocol.SeatPresence)) == set(protocol.PRESENCE_STATES)


@pytest.mark.parametrize("text, reason", [
    ('{"type": "presence"}', "state: expected away or active"),
    ('{"type": "presence", "state": "asleep"}', "state: expected away or active"),
    ('{"type": "say", "phrase": "free text"}',
     "phrase: expected good-luck, well-played, rematch or thanks"),
    ('{"type": "say", "phrase": ["thanks"]}',
     "phrase: expected good-luck, well-played, rematch or thanks"),
])
def test_a_presence_or_phrase_that_is_not_one_of_the_known_is_refused(text: str,
                                                                        reason: str) -> None:
    assert read_request(text, protocol.TABLE_REQUESTS) == Refusal(reason, "malformed")
    assert read_request('{"type": "say", "phrase": "thanks"}', protocol.TABLE_REQUESTS) == \
        {"type": "say", "phrase": "thanks"}


def test_a_hello_carries_the_credentials_and_is_read_back() -> None:
    assert protocol.VERSION == 4
    assert protocol.hello() == {"type": "hello"}
    secret, code = "s3cr3t-t0k3n", "QWERTYUI"
    assert protocol.hello(secret, code) == {"type": "hello", "token": secret, "code": code}
    read = protocol.read_hello(json.dumps(protocol.hello(secret, code)))
    assert read == protocol.Hello(secret, code)
    assert secret not in repr(read) and code not in repr(read)  # never in a log line
    # none, null and empty are all "none"
    for text in ('{"type": "hello"}', '{"type": "hello", "token": null, "code": ""}'):
        assert protocol.read_hello(text) == protocol.Hello(None, None)


@pytest.mark.parametrize(("text", "says"), [
    (None, "binary"),
    ("[]", "hello"),
    ('{"type": "act", "action": ["end"]}', "hello"),
    ('{"type": "hello", "token": 5}', "token: expected text or null"),
    ('{"type": "hello", "code": ["A"]}', "code: expected text or null"),
    ('{"type": "hello", "token": "' + "t" * 201 + '"}', "token: expected at most 200"),
    ('{"type": "hello", "code": "' + "C" * 33 + '"}', "code: expected at most 32"),
])
def test_a_first_message_that_is_no_hello_is_refused_with_a_sentence(text: str | None,
                                                                      says: str) -> None:
    refusal = protocol.read_hello(text)
    assert isinstance(refusal, Refusal) and refusal.kind == "malformed"
    assert says in refusal.reason
