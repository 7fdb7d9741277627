"""The referee of a live table, in this process on a fake clock: every rule of a
table (docs/rules.md §7.6 online, docs/online.md), those of time included,
judged by :class:`blockyard.server.referee.Referee` with no server, no database
and no sleep: the clock moves when the test says."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import subprocess
import sys
from typing import Any

import pytest

import blockyard
from blockyard.server.clock import FakeClock
from blockyard.server.referee import (
    REFUSAL_KINDS,
    Move,
    Outages,
    Referee,
    Refusal,
    Timing,
)
from blockyard.server.tablestore import Table

SEED = 3
TIMING = Timing(idle_seconds=300.0, abandon_seconds=120.0, clock_tolerance=5.0)


def table(clock: FakeClock, ruleset: str = "eu-classic", *, status: str = "playing",
          seats: int = 2, **changes: Any) -> Table:
    """A table of ``ruleset`` whose round started now on ``clock``, seat ``n``
    held by the account ``100 + n``."""
    made = Table(id=1, code="ABCDEFGH", ruleset_id=ruleset, seats=seats, private=False,
                 status=status, round=1, seed=SEED, date=None,
                 started=clock.now() if status == "playing" else None,
                 players=tuple(f"p{n}" for n in range(seats)),
                 player_ids=tuple(100 + n for n in range(seats)), invited=frozenset())
    return dataclasses.replace(made, **changes)


def accepted(verdict: Move | Refusal) -> Move:
    assert isinstance(verdict, Move), verdict
    return verdict


def refusal(verdict: Move | Refusal, kind: str) -> str:
    assert isinstance(verdict, Refusal), verdict
    assert verdict.kind == kind and kind in REFUSAL_KINDS, verdict
    return verdict.reason


def first_move(game: blockyard.Game) -> list[Any]:
    slot, row, col = game.legal_moves()[0]
    return ["place", slot, row, col]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


# -- who may act, and what -----------------------------------------------------------------


def test_only_a_seated_player_of_a_playing_table_acts_on_their_own_seat(clock: FakeClock
                                                                        ) -> None:
    referee = Referee(table(clock), timing=TIMING)
    mirror = blockyard.new_game("eu-classic", seed=SEED)
    action = first_move(mirror)
    assert "spectator" in refusal(referee.act(None, action, clock.now()), "spectator")
    move = accepted(referee.act(referee.seat_of(101), action, clock.now()))
    mirror.apply(action)
    assert (move.seat, move.n, move.action, move.score, move.over) == \
        (1, 1, action, mirror.score, False)
    assert move.at == clock.now()
    assert referee.seat_of(100) == 0 and referee.seat_of(999) is None
    assert len(referee.games[0].log) == 1  # the other seat's game is untouched
    waiting = Referee(table(clock, status="waiting"), timing=TIMING)
    refusal(waiting.act(0, action, clock.now()), "not-now")


def test_a_refused_action_says_why_and_changes_nothing(clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    before = referee.games[0].snapshot()
    assert refusal(referee.act(0, "place", clock.now()), "illegal").startswith("action:")
    refusal(referee.act(0, ["place", 0, 99, 99], clock.now()), "illegal")
    refusal(referee.act(0, ["continue"], clock.now()), "illegal")  # not over: not offered
    assert referee.games[0].snapshot() == before and referee.counts == [0, 0]


def test_a_seats_game_is_the_rules_own_deal_and_held_to_a_real_games_work(clock: FakeClock
                                                                         ) -> None:
    referee = Referee(table(clock, "sudoku-bloxx"), timing=TIMING)
    assert referee.games[0].snapshot() == blockyard.new_game("sudoku-bloxx",
                                                             seed=SEED).snapshot()
    # steps left and right that change nothing, far more than a real game needs
    reasons = []
    for step in range(200):
        verdict = referee.act(0, ["move", -1 if step % 2 else 1], clock.now())
        if isinstance(verdict, Refusal):
            reasons.append(refusal(verdict, "illegal"))
            break
    assert reasons and "a real game of 'sudoku-bloxx' needs at most" in reasons[0]
    assert referee.counts[0] < 200


def test_a_daily_rulesets_table_deals_its_own_seed_on_its_date(clock: FakeClock) -> None:
    # a table's deal is its seed (every seat the same), not the date's daily seed
    referee = Referee(table(clock, "eu-daily", date="2026-12-01", seed=12345),
                      timing=TIMING)
    dealt = blockyard.new_game("eu-daily", seed=12345, date=_dt.date(2026, 12, 1))
    assert referee.games[1].snapshot() == dealt.snapshot()
    accepted(referee.act(1, first_move(dealt), clock.now()))


# -- the end, as offline ---------------------------------------------------------------------


def stuck(referee: Referee, seat: int, clock: FakeClock) -> blockyard.Game:
    """Play the seat's game (and a mirror of it) until nothing fits."""
    mirror = blockyard.new_game("eu-classic", seed=SEED)
    while not mirror.over:
        action = first_move(mirror)
        mirror.apply(action)
        accepted(referee.act(seat, action, clock.now()))
    assert mirror.over_reason == "stuck"
    return mirror


def test_eus_continue_is_offered_at_a_table_as_offline(clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    mirror = stuck(referee, 0, clock)
    assert [a.name for a in mirror.actions() if a.after_end] == ["continue"]
    assert referee.games[0].over and not referee.finished(0)
    assert referee.result() is None
    move = accepted(referee.act(0, ["continue"], clock.now()))
    mirror.apply(["continue"])
    assert (move.score, move.over) == (mirror.score, mirror.over)
    assert referee.games[0].snapshot() == mirror.snapshot()


def test_a_seat_is_finished_when_no_action_after_the_end_is_left_or_its_player_ends_it(
        clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    mirror = stuck(referee, 0, clock)
    before = referee.games[0].snapshot()
    end = accepted(referee.act(0, ["end"], clock.now()))  # the player declines to go on
    assert (end.action, end.score, end.over) == (["end"], mirror.score, True)
    assert referee.finished(0) and referee.games[0].snapshot() == before
    assert "game is over" in refusal(referee.act(0, ["continue"], clock.now()), "game-over")
    accepted(referee.act(1, ["end"], clock.now()))
    result = referee.result()
    assert result is not None and result.scores == [mirror.score, 0]
    assert result.winner == (0 if mirror.score else None)


def test_the_result_ranks_by_score_and_a_tie_has_no_winner(clock: FakeClock) -> None:
    referee = Referee(table(clock, seats=3), timing=TIMING)
    for seat in range(3):
        accepted(referee.act(seat, ["end"], clock.now()))
    result = referee.result()
    assert result is not None and (result.scores, result.winner) == ([0, 0, 0], None)
    assert result.message() == {"type": "result", "scores": [0, 0, 0], "winner": None,
                                "ratings": None, "left": [], "aborted": False}


def test_a_referee_built_from_the_stored_moves_is_the_one_that_accepted_them(
        clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    stuck(referee, 0, clock)
    moves = []
    built = Referee(table(clock), timing=TIMING)
    mirror = blockyard.new_game("eu-classic", seed=SEED)
    while not mirror.over:
        action = first_move(mirror)
        mirror.apply(action)
        moves.append(Move(0, len(moves) + 1, action, mirror.score, mirror.over,
                          clock.now()))
    again = Referee(table(clock), moves, timing=TIMING)
    assert again.games[0].snapshot() == referee.games[0].snapshot()
    assert again.counts == referee.counts and not again.finished(0)
    assert not built.learn(Move(0, 2, moves[1].action, 0, False))  # move 1 missing
    with pytest.raises(ValueError, match="does not follow"):
        Referee(table(clock), moves[1:], timing=TIMING)


def test_a_seat_only_watched_here_is_not_played_again_and_ends_as_where_it_was_played(
        clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> None:
    # seat 1 plays on one process's referee; the other's learns its moves
    there, here = Referee(table(clock), timing=TIMING), Referee(table(clock), timing=TIMING)
    played: list[Any] = []
    kind = type(there.games[1])  # eu-classic's game class (its own apply)
    real_apply = kind.apply
    monkeypatch.setattr(kind, "apply",
                        lambda game, action: (played.append(action), real_apply(game, action)))
    moves = []
    for _ in range(8):
        moves.append(accepted(there.act(1, first_move(there.games[1]), clock.now())))
    moves.append(accepted(there.act(1, ["end"], clock.now())))
    played.clear()
    for move in moves:
        assert here.learn(move)
    assert played == []  # only watched here: its moves are not played again
    assert here.counts == [0, 9] and here.finished(1) and not here.finished(0)
    assert here.acted[1] == clock.now()
    ours = accepted(here.act(0, ["end"], clock.now()))  # seat 0 acts here
    assert (ours.n, ours.over) == (1, True) and played == [["end"]]
    result, expected = here.result(), there.games[1].score
    assert result is not None and result.scores == [0, expected] and result.winner == 1
    # asked for, the watched seat's game is the one played where it was accepted
    assert here.games[1].snapshot() == there.games[1].snapshot()
    assert played[1:] == [move.action for move in moves]  # played now, its end too

# -- time ----------------------------------------------------------------------------------


def test_a_seat_whose_player_never_acts_is_ended_after_the_idle_time(clock: FakeClock
                                                                     ) -> None:
    referee = Referee(table(clock), timing=TIMING)
    assert referee.next_due() == clock.now() + _dt.timedelta(seconds=300)
    clock.advance(299.9)
    assert referee.due(clock.now()) == []
    clock.advance(0.1)
    ends = referee.due(clock.now())
    assert [(m.seat, m.action, m.over) for m in ends] == [(0, ["end"], True),
                                                        (1, ["end"], True)]
    assert referee.games[0].over_reason == "ended" and referee.result() is not None
    assert referee.next_due() is None and referee.due(clock.now()) == []


def test_each_action_starts_the_idle_time_again(clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    clock.advance(200)
    accepted(referee.act(0, first_move(referee.games[0]), clock.now()))
    clock.advance(100)
    ends = referee.due(clock.now())
    assert [(m.seat, m.action) for m in ends] == [(1, ["end"])]  # seat 0 acted 100 s ago
    assert referee.next_due() == clock.now() + _dt.timedelta(seconds=200)
    clock.advance(200)
    assert [(m.seat, m.action) for m in referee.due(clock.now())] == [(0, ["end"])]


def test_the_next_moment_due_follows_every_move_and_the_table_as_given(clock: FakeClock
                                                                        ) -> None:
    # asked at every action, it is worked out again only when a move or the table
    # changed what it depends on
    playing = table(clock)
    referee = Referee(playing, timing=TIMING)
    started = clock.now()
    assert referee.next_due() == started + _dt.timedelta(seconds=300)
    clock.advance(100)
    accepted(referee.act(0, first_move(referee.games[0]), clock.now()))
    assert referee.next_due() == started + _dt.timedelta(seconds=300)  # seat 1's idle
    back = clock.now()  # the database came back now: no one is idle before 300 s on
    assert referee.next_due(back) == back + _dt.timedelta(seconds=300)
    referee.learn(Move(1, 1, ["end"], 0, True, clock.now()))  # seat 1 ended elsewhere
    assert referee.next_due() == clock.now() + _dt.timedelta(seconds=300)  # seat 0's
    referee.table = dataclasses.replace(playing, status="finished")
    assert referee.next_due() is None


def test_no_one_is_idle_for_the_time_the_database_was_away(clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    clock.advance(250)
    back = clock.now()  # the database came back after an outage: idle counts from here
    assert referee.next_due(back) == back + _dt.timedelta(seconds=300)
    clock.advance(299)
    assert referee.due(clock.now(), back) == []
    clock.advance(1)
    assert len(referee.due(clock.now(), back)) == 2


def test_a_stuck_seat_that_neither_continues_nor_ends_is_ended_after_the_idle_time(
        clock: FakeClock) -> None:
    referee = Referee(table(clock), timing=TIMING)
    stuck(referee, 0, clock)
    accepted(referee.act(1, ["end"], clock.now()))
    clock.advance(300)
    assert [(m.seat, m.action) for m in referee.due(clock.now())] == [(0, ["end"])]
    assert referee.finished(0) and referee.result() is not None


def test_a_falling_games_ticks_are_its_clock_not_its_players_acts(clock: FakeClock) -> None:
    timing = dataclasses.replace(TIMING, idle_seconds=30.0)
    referee = Referee(table(clock, "sudoku-bloxx"), timing=timing)
    for _ in range(30):
        clock.advance(1)
        accepted(referee.act(0, ["tick", 1_000_000], clock.now()))
        accepted(referee.act(1, ["tick", 1_000_000], clock.now()))
    accepted(referee.act(1, ["hard"], clock.now()))
    ends = referee.due(clock.now())
    assert [(m.seat, m.action) for m in ends] == [(0, ["end"])]


def test_a_falling_round_ends_on_the_tables_clock_at_its_time_limit(clock: FakeClock
                                                                    ) -> None:
    timing = dataclasses.replace(TIMING, idle_seconds=1000.0)
    referee = Referee(table(clock, "sudoku-bloxx"), timing=timing)
    ends_at = clock.now() + _dt.timedelta(seconds=360)
    assert referee.next_due() == ends_at
    mirror = blockyard.new_game("sudoku-bloxx", seed=SEED)
    clock.advance(2)  # seat 0 ticks along and drops a stone; seat 1 sends nothing
    for action in (["tick", 2_000_000], ["hard"]):
        accepted(referee.act(0, action, clock.now()))
        mirror.apply(action)
    clock.advance(357.999)
    assert referee.due(clock.now()) == []
    clock.advance(0.001)
    ends = referee.due(clock.now())
    # each game ticked to its limit, as the player's own clock would have: the
    # stones fall on until the game ends (for time, or earlier by its own rules)
    mirror.apply(["tick", 358_000_000])
    other = blockyard.new_game("sudoku-bloxx", seed=SEED)
    other.apply(["tick", 360_000_000])
    assert [(m.seat, m.action, m.over) for m in ends] == [
        (0, ["tick", 358_000_000], True), (1, ["tick", 360_000_000], True)]
    assert referee.games[0].snapshot() == mirror.snapshot()
    assert referee.games[1].snapshot() == other.snapshot()
    assert all(game.over for game in referee.games)
    result = referee.result()
    assert result is not None and result.scores == [mirror.score, other.score]
    assert "game is over" in refusal(referee.act(0, ["hard"], clock.now()), "game-over")


def test_a_falling_game_whose_clock_runs_slow_is_refused_until_it_ticks(clock: FakeClock
                                                                        ) -> None:
    referee = Referee(table(clock, "sudoku-bloxx"), timing=TIMING)
    clock.advance(5)
    accepted(referee.act(0, ["move", -1], clock.now()))  # 5 s behind: allowed
    clock.advance(0.5)
    reason = refusal(referee.act(0, ["hard"], clock.now()), "clock")
    assert "5.5 s behind" in reason and "at most 5 s" in reason
    assert referee.clock_behind(0, clock.now()) == pytest.approx(5.5)
    accepted(referee.act(0, ["tick", 3_000_000], clock.now()))  # ticks always count
    accepted(referee.act(0, ["hard"], clock.now()))  # 2.5 s behind


def test_end_is_accepted_however_far_behind_the_players_clock_is(clock: FakeClock) -> None:
    referee = Referee(table(clock, "sudoku-bloxx"), timing=TIMING)
    clock.advance(60)
    refusal(referee.act(0, ["hard"], clock.now()), "clock")
    end = accepted(referee.act(0, ["end"], clock.now()))
    assert end.over and referee.games[0].over_reason == "ended" and referee.finished(0)


def test_the_clock_message_is_the_time_since_the_round_started(clock: FakeClock) -> None:
    falling = Referee(table(clock, "sudoku-bloxx"), timing=TIMING)
    tray = Referee(table(clock), timing=TIMING)
    clock.advance(12.5)
    assert falling.elapsed(clock.now()) == 12.5
    assert tray.elapsed(clock.now()) is None  # a tray game keeps no clock of the table's
    assert Referee(table(clock, "sudoku-bloxx", status="finished"),
                   timing=TIMING).elapsed(clock.now()) is None


def test_the_database_away_never_counts_against_a_player(clock: FakeClock) -> None:
    outages = Outages()
    last_seen = clock.now()
    clock.advance(100)
    assert outages.abandon_cutoff(clock.now(), 120) == clock.now() - _dt.timedelta(
        seconds=120)
    outages.failed(clock.now())  # 160 s away: nobody's away time counts meanwhile
    for _ in range(16):
        clock.advance(10)
        assert outages.abandon_cutoff(clock.now(), 120) is None
        outages.failed(clock.now())
    outages.answered(clock.now())
    back = clock.now()
    # the player, away since before the outage, gets the whole abandon time from
    # the moment the database answers again
    clock.advance(119.9)
    assert outages.abandon_cutoff(clock.now(), 120) is None
    clock.advance(0.1)
    cutoff = outages.abandon_cutoff(clock.now(), 120)
    assert cutoff == back and last_seen < cutoff


def test_a_rematch_is_asked_for_by_a_seated_player_of_a_finished_table(clock: FakeClock
                                                                       ) -> None:
    assert "only a player" in refusal(
        Referee(table(clock, status="finished"), timing=TIMING).rematch(None), "spectator")
    refusal(Referee(table(clock), timing=TIMING).rematch(0), "not-now")
    assert Referee(table(clock, status="finished"), timing=TIMING).rematch(1) is None


def test_the_fake_clock_moves_only_forward_and_when_told() -> None:
    clock = FakeClock()
    start, seconds = clock.now(), clock.seconds()
    clock.advance(2.5)
    assert clock.now() - start == _dt.timedelta(seconds=2.5)
    assert clock.seconds() - seconds == 2.5
    with pytest.raises(ValueError, match="0 or more"):
        clock.advance(-1)
    with pytest.raises(ValueError, match="time-zone aware"):
        FakeClock(_dt.datetime(2026, 1, 1))


def test_the_referee_imports_no_web_framework_and_no_database() -> None:
    code = ("import sys, blockyard.server.referee\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'fastapi', 'starlette', 'sqlalchemy', 'websockets', 'uvicorn', 'psycopg'})\n"
            "print(','.join(bad))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, check=True)
    assert found.stdout.strip() == ""
