"""A live table as a client follows it, without a window (blockyard.tablesession):
the table's messages in, the seats, games, scores, result and connection out;
reconnection (a lost connection, the same round again, a table to reopen)."""

from __future__ import annotations

import os
import stat
import threading
from typing import Any

import pytest

import blockyard
from blockyard import paths
from blockyard.online import PlayerRating, RatingChange
from blockyard.provenance import Mismatch
from blockyard.tablesession import (
    REOPEN_FILE,
    Divergence,
    Refused,
    SeatHolder,
    TableSession,
    forget_table,
    remember_table,
    remembered_table,
)

RULES = "eu-classic"
SEED = 3


class FakeChannel:
    """A table's live channel: what the test queues is polled; what the session
    sends is kept."""

    def __init__(self, table_id: int = 7) -> None:
        self.table_id = table_id
        self.queued: list[dict[str, Any]] = []
        self.sent: list[list[Any]] = []
        self.left = self.closed = False
        self.rematches = 0

    def poll(self) -> list[dict[str, Any]]:
        out, self.queued = self.queued, []
        return out

    def act(self, action: Any) -> bool:
        self.sent.append(list(action))
        return True

    def leave(self) -> bool:
        self.left = True
        return True

    def rematch(self) -> bool:
        self.rematches += 1
        return True

    def close(self) -> None:
        self.closed = True


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def table_message(seats: list[str | None], *, round_: int = 1, status: str = "playing",
                  seed: int = SEED, **more: Any) -> dict[str, Any]:
    return {"type": "table", "protocol": 1, "id": 7, "ruleset_id": RULES, "seed": seed,
            "seats": seats, "status": status, "round": round_, "rematch_by": None,
            "invited": [], **more}


def first_move(game: blockyard.Game) -> list[Any]:
    return ["place", *game.legal_moves()[0]]


def session(name: str = "ann", **kwargs: Any) -> tuple[TableSession, FakeChannel]:
    channel = FakeChannel()
    return TableSession(channel, name, "7-ABCDEFGH", "127.0.0.1:8765", **kwargs), channel


def test_a_table_message_seats_the_players_and_deals_a_game_per_seat():
    table, channel = session()
    assert table.connection == "connecting" and table.me is None and table.games == []
    channel.queued.append(table_message(["ann", "bob"]))
    assert table.update() is True and table.update() is False  # nothing new the second time
    assert table.connection == "open" and table.status == "playing"
    assert table.seats == ["ann", "bob"] and table.me == 0 and table.table_id == 7
    assert table.ruleset_id == RULES and table.seed == SEED and table.round == 1
    fresh = blockyard.new_game(RULES, seed=SEED)
    assert [g.log for g in table.games] == [fresh.log, fresh.log]
    assert table.scores == [0, 0] and table.over == [False, False]
    assert table.result is None and table.unplayable == ""


def test_a_spectator_has_no_seat():
    table, _channel = session("carl")
    table.take(table_message(["ann", "bob"]))
    assert table.me is None and len(table.games) == 2


def test_an_opponents_move_is_mirrored_with_the_servers_score():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    game = blockyard.new_game(RULES, seed=SEED)
    move = first_move(game)
    game.apply(move)
    table.refusal = Refused("illegal", "left over")
    table.take({"type": "move", "seat": 1, "action": move, "score": game.score, "over": False})
    assert table.games[1].grid.bits == game.grid.bits and table.games[1].score == game.score
    assert table.scores == [0, game.score] and table.over == [False, False]
    assert table.refusal is None  # a move accepted: the last refusal is old news
    assert table.divergence is None


def test_the_players_own_move_goes_to_the_screen_that_plays_it():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    got: list[list[Any]] = []
    table.my_move = got.append
    move = first_move(table.games[0])
    table.take({"type": "move", "seat": 0, "action": move, "score": 0, "over": False})
    assert got == [move]
    assert table.games[0].moves == 0  # the screen applies it (with its effects), not this


def test_a_move_that_cannot_be_mirrored_keeps_the_servers_score_and_says_whose():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    table.take({"type": "move", "seat": 1, "action": ["place", 0, 99, 99], "score": 77,
                "over": True})
    assert table.scores == [0, 77] and table.over == [False, True]
    assert isinstance(table.divergence, Divergence) and table.divergence.seat == 1
    assert "refused here" in table.divergence.how
    first = table.divergence
    table.take({"type": "move", "seat": 1, "action": ["place", 0, 98, 98], "score": 80,
                "over": True})
    assert table.divergence is first  # kept once per round


def test_a_score_other_than_the_servers_is_a_divergence():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    move = first_move(table.games[1])
    table.take({"type": "move", "seat": 1, "action": move, "score": 123456, "over": False})
    assert table.divergence is not None and "the server's is 123456" in table.divergence.how
    assert table.scores[1] == 123456


@pytest.mark.parametrize("message", [
    {"type": "move", "seat": 5, "action": ["place", 0, 0, 0], "score": 1, "over": False},
    {"type": "move", "seat": True, "action": ["place", 0, 0, 0], "score": 1, "over": False},
    {"type": "move", "seat": 1, "action": "place", "score": 1, "over": False},
    {"type": "nonsense"},
    {"no": "type"},
])
def test_messages_that_say_nothing_understood_change_nothing(message):
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    before = (list(table.scores), [g.log[:] for g in table.games], table.status)
    table.take(message)
    assert (table.scores, [g.log for g in table.games], table.status) == before


def test_a_refusal_is_kept_as_its_kind_and_reason_and_told_to_the_screen():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    told: list[bool] = []
    table.my_refusal = lambda: told.append(True)
    table.take({"type": "refused", "kind": "illegal", "reason": "the piece does not fit"})
    assert table.refusal == Refused("illegal", "the piece does not fit") and told == [True]
    table.take({"type": "refused", "kind": "from-a-later-server", "reason": "x"})
    assert table.refusal.kind == "from-a-later-server"  # the window words what it knows


def test_the_result_finishes_the_table_and_is_kept_for_the_records():
    table, _channel = session()
    assert table.table_result() is None
    table.take(table_message(["ann", "bob"]))
    assert table.table_result() is None  # no result yet
    table.take({"type": "result", "scores": [10, 20], "winner": 1, "seats": ["ann", "bob"]})
    assert table.status == "finished"
    found = table.table_result()
    assert found is not None
    assert (found.server, found.table_id, found.round, found.ruleset) == \
        ("127.0.0.1:8765", 7, 1, RULES)
    assert found.seats == ("ann", "bob") and found.scores == (10, 20)
    assert found.winner == 1 and found.seat == 0
    table.take({"type": "result", "scores": [10], "winner": 0})  # not one score a seat
    assert table.table_result() is None


NEWCOMER = {"rating": 0.0, "mu": 25.0, "sigma": 25 / 3, "games": 0, "provisional": True}


def test_a_rated_table_keeps_each_seats_rating_and_the_results_changes():
    table, _channel = session()
    table.take(table_message(["ann", None], rated=True, ratings=[NEWCOMER, None]))
    assert table.rated is True
    assert table.seat_rating(0) == PlayerRating(0.0, 25.0, 25 / 3, 0, True)
    assert table.seat_rating(1) is None and table.seat_rating(5) is None
    table.take({"type": "result", "scores": [10, 20], "winner": 1,
                "ratings": [{"before": 0.0, "after": -0.5, "change": -0.5, "provisional": True},
                            {"before": 0.0, "after": 1.5, "change": 1.5, "provisional": True}]})
    assert table.changes == [RatingChange(0.0, -0.5, -0.5, True),
                             RatingChange(0.0, 1.5, 1.5, True)]
    # the next round (a rematch) has no changes until its own result
    table.take(table_message(["ann", "bob"], round_=2, rated=True,
                             ratings=[NEWCOMER, NEWCOMER]))
    assert table.changes is None and table.seat_rating(1) is not None


def test_a_friendly_table_or_a_server_before_ratings_has_no_ratings():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))  # a server before ratings: no fields
    assert table.rated is False and table.ratings == [] and table.seat_rating(0) is None
    table.take({"type": "result", "scores": [10, 20], "winner": 1, "ratings": None})
    assert table.changes is None  # friendly
    table.take(table_message(["ann", "bob"], round_=2, ratings="nonsense"))  # malformed
    assert table.ratings == []
    table.take({"type": "result", "scores": [1, 2], "winner": 1, "ratings": [{"x": 1}]})
    assert table.changes is None and table.status == "finished"


def test_the_round_clock_runs_on_the_injected_clock():
    clock = FakeClock()
    table, _channel = session(clock=clock)
    table.take(table_message(["ann", "bob"]))
    assert table.round_elapsed() is None  # not a realtime table (no clock message)
    table.take({"type": "clock", "elapsed": 12.5})
    assert table.round_elapsed() == 12.5
    clock.now += 3
    assert table.round_elapsed() == 15.5
    for bad in (-1, 86_401, True, "5"):
        table.take({"type": "clock", "elapsed": bad})
        assert table.clock == (12.5, 1000.0)
    table.take(table_message(["ann", "bob"], round_=2))
    assert table.round_elapsed() is None  # a new round: its clock comes anew


def test_a_lost_connection_comes_back_with_the_round_and_its_moves_kept():
    """The client's channel reconnects by itself and drops the moves it had
    already given: the same round's table message changes the seats, not the
    games."""
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    move = first_move(table.games[1])
    table.take({"type": "move", "seat": 1, "action": move, "score": 0, "over": False})
    game = table.games[1]
    table.take({"type": "connection", "state": "lost", "reason": "reset", "kind": "restarting"})
    assert table.connection == "lost" and table.lost_kind == "restarting"
    table.take({"type": "connection", "state": "back", "reason": ""})
    assert table.connection == "open"
    table.take(table_message(["ann", "bob"]))  # the server's table, on reconnecting
    assert table.games[1] is game and game.moves == 1


def test_a_connection_closed_for_good_says_why():
    table, _channel = session()
    table.take({"type": "connection", "state": "closed", "reason": "private table",
                "kind": "private-table"})
    assert table.connection == "closed"
    assert (table.closed_reason, table.closed_kind) == ("private table", "private-table")
    table.take({"type": "connection", "state": "sideways"})  # not a state: kept as it was
    assert table.connection == "closed"


def test_a_rematch_deals_a_new_round_and_says_who_asked():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    table.take({"type": "move", "seat": 1, "action": ["place", 0, 99, 99], "score": 7,
                "over": True})
    table.take({"type": "result", "scores": [0, 7], "winner": 1})
    old = table.games
    table.take(table_message(["ann", "bob"], round_=2, seed=9, rematch_by=1))
    assert table.round == 2 and table.seed == 9 and table.games is not old
    assert table.result is None and table.divergence is None and table.rematch_by == 1
    assert table.scores == [0, 0]
    table.take(table_message(["ann", "bob"], round_=3, rematch_by=7))  # no such seat
    assert table.rematch_by is None


def test_who_left_is_kept_until_a_seat_is_taken_and_keeps_their_name_in_the_round():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    table.take(table_message(["ann", None]))
    assert table.left == "bob"
    assert table.player_name(1) == "bob"  # who played the seat this round
    assert table.player_name(5) is None
    table.take(table_message(["ann", "cid"]))
    assert table.left is None and table.player_name(1) == "cid"
    table.take(table_message([None, "cid"]))  # the player themself: not news to them
    assert table.left is None


def test_the_seats_say_who_is_invited():
    table, _channel = session()
    table.take(table_message(["ann", None, None], status="waiting",
                             invited=["bob", "cid", "dan", 5, "x" * 99]))
    assert table.invited == ["bob", "cid", "dan", "x" * 40]
    assert table.seat_holders() == [SeatHolder("player", "ann"), SeatHolder("invited", "bob"),
                                    SeatHolder("invited", "cid")]
    assert table.invited_beyond_seats() == ["dan", "x" * 40]
    table.take(table_message(["ann", None], status="waiting"))
    assert table.seat_holders() == [SeatHolder("player", "ann"), SeatHolder("free")]
    table.take(table_message(["ann", None], status="waiting", invited=[f"p{i}" for i in
                                                                       range(50)]))
    assert len(table.invited) == 32


def test_rules_not_installed_here_are_unplayable_with_the_reason():
    table, _channel = session()
    table.take({**table_message(["ann", "bob"]), "ruleset_id": "not-installed-here"})
    assert table.games == [] and "not-installed-here" in table.unplayable
    assert "\n" not in table.unplayable and len(table.unplayable) <= 200


def test_the_places_by_score_share_a_tie():
    table, _channel = session()
    table.take(table_message(["ann", "bob", "cid"]))
    table.scores = [10, 30, 10]
    assert [table.rank(seat) for seat in range(3)] == [2, 1, 2]
    assert table.rank(3) == 0


def test_the_rules_are_compared_once_per_ruleset_in_the_background():
    asked: list[str] = []
    differs = Mismatch("plugin", "blockyard-diagonals", "1.0", "2.0")
    release = threading.Event()

    def check(here: Any, ruleset_id: str) -> Mismatch | None:
        asked.append(ruleset_id)
        release.wait(30)
        return differs

    table, channel = session(check=check)
    channel.queued.append(table_message(["ann", "bob"]))
    assert table.update() is True
    assert table.checking is not None and table.differs is None  # still comparing
    assert table.update() is False
    release.set()
    assert table.checking.wait(30)
    assert table.update() is True and table.differs == differs and table.checking is None
    table.take(table_message(["ann", "bob"], round_=2))
    assert asked == [RULES] and table.checking is None  # the same rules: not again


def test_leaving_frees_the_seat_closes_and_forgets_the_table(isolated_home):
    table, channel = session()
    table.take(table_message(["ann", "bob"]))
    assert remember_table(table)
    table.leave()
    assert channel.left and channel.closed
    assert remembered_table("127.0.0.1:8765", "ann") is None


def test_the_remembered_table_belongs_to_one_server_and_account(isolated_home):
    table, _channel = session()
    assert remember_table(table)
    path = paths.config_dir() / REOPEN_FILE
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # a private table's code
    assert remembered_table("127.0.0.1:8765", "ann") == "7-ABCDEFGH"
    assert remembered_table("127.0.0.1:8765", "ben") is None  # another account's
    assert remembered_table("example.org", "ann") is None  # another server's
    assert path.exists()
    public = TableSession(FakeChannel(), "ann", "", "127.0.0.1:8765")
    assert remember_table(public) and remembered_table("127.0.0.1:8765", "ann") == "7"
    forget_table()
    assert remembered_table("127.0.0.1:8765", "ann") is None
    forget_table()  # nothing to forget: no error
    for damaged in ("not toml [", 'server = "127.0.0.1:8765"\nname = "ann"\ntable = "x-1"\n'):
        path.write_text(damaged, encoding="utf-8")
        assert remembered_table("127.0.0.1:8765", "ann") is None
        assert not path.exists()  # dropped
