"""blockyard.online's ratings and Play now against a real ``blockyard serve``: a
rated table's seats' ratings and their changes read from the live messages, the
rated leaderboard and a player's page, and two players paired by Play now, each
told on their own feed."""

from __future__ import annotations

import pytest
from server_support import Server
from test_client import WAIT, signed_in, until

import blockyard
from blockyard.online import (
    NOT_FOUND,
    NOT_SERVED,
    REFUSED,
    Client,
    OnlineError,
    Paired,
    PlayerRating,
    RatingChange,
    rating_changes,
    seat_ratings,
)

NEWCOMER = PlayerRating(0.0, 25.0, 8.3333, 0, True)


def test_a_rated_duel_read_through_the_client(server: Server) -> None:
    alice, alice_name = signed_in(server, "cra")
    bob, bob_name = signed_in(server, "crb")
    table = alice.create_table("eu-classic", rated=True)
    listed = [t for t in Client(server.url).tables() if t.id == table.id]
    assert listed[0].rated and listed[0].ratings == (NEWCOMER, None)
    assert bob.join(table.id) == 1
    with alice.live(table.id) as a, bob.live(table.id) as b:
        state = until(a, "table", status="playing")
        assert state["rated"] is True
        assert seat_ratings(state) == [NEWCOMER, NEWCOMER]
        until(b, "table", status="playing")
        for live in (a, b):  # two placements a seat: a round with fewer is aborted
            game = blockyard.new_game("eu-classic", seed=state["seed"])
            for _ in range(2):
                action = ["place", *game.legal_moves()[0]]
                game.apply(action)
                assert live.act(action)
        assert a.act(["end"]) and b.act(["end"])
        result = until(a, "result")
        changes = rating_changes(result)
        assert changes is not None and len(changes) == 2
        assert all(isinstance(c, RatingChange) and c.before == 0.0 and c.provisional
                   for c in changes)
        assert rating_changes({"type": "result", "ratings": None}) is None
    board = Client(server.url).ratings("eu-classic", limit=100)
    assert board.provisional_games == 10 and board.offset == 0
    rated = {e.name: e.rating for e in board.entries}
    assert rated[alice_name].games == 1 and rated[bob_name].provisional
    assert [e.rank for e in board.entries] == list(range(1, len(board.entries) + 1))
    page = Client(server.url).account(bob_name.upper())
    assert page.name == bob_name and page.ratings["eu-classic"] == rated[bob_name]
    with pytest.raises(OnlineError) as unknown:
        Client(server.url).ratings("no-such-rules")
    assert unknown.value.kind == NOT_SERVED
    with pytest.raises(OnlineError) as nobody:
        Client(server.url).account("nobody-here-x")
    assert nobody.value.kind == NOT_FOUND


def test_play_now_pairs_two_players_and_tells_both_feeds(server: Server) -> None:
    alice, _ = signed_in(server, "cpa")
    bob, _ = signed_in(server, "cpb")
    assert alice.pairing() is None and not alice.leave_pairing()
    with alice.feed() as one, bob.feed() as two:
        waiting = alice.play_now("eu-classic")
        assert (waiting.ruleset_id, waiting.table) == ("eu-classic", None)
        assert waiting.gap is not None and waiting.gap >= 2.0  # and widening (a real clock)
        with pytest.raises(OnlineError) as twice:
            alice.play_now("eu-classic")
        assert twice.value.kind == REFUSED and "already waiting" in twice.value.message
        bob.play_now("eu-classic")
        assert one.wait_for(lambda f: f.paired is not None, WAIT)
        assert two.wait_for(lambda f: f.paired is not None, WAIT)
        assert one.paired is not None and two.paired is not None
        table_id = one.paired.table
        assert (one.paired, two.paired) == (Paired(table_id, "eu-classic", 0),
                                            Paired(table_id, "eu-classic", 1))
    state = bob.pairing()
    assert state is not None and (state.table, state.seat) == (table_id, 1)
    assert alice.table(table_id)["rated"] is True
    # seated at that table: Play now seats a player once
    with pytest.raises(OnlineError) as seated:
        alice.play_now("eu-classic")
    assert seated.value.kind == REFUSED
    assert f"you are seated at table {table_id}" in seated.value.message
    assert alice.leave_pairing() is False and alice.pairing() is not None
