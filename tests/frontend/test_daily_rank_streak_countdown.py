"""A daily game's screens as players know them from the apps (issue 51): the
result says the rank of N and the top percentage (the server's leaderboard
``total``), the streak of days played (the window's own records) and counts
down to the next daily game at midnight in the rule file's time zone, on the
clock the window is given; Submit is a wide button above Play again, not in a
corner; the launcher's daily row shows today's rank once the server said it;
a leaderboard's replay names its player and score (real input on Xvfb, a real
``blockyard serve`` on loopback)."""

from __future__ import annotations

import datetime as dt
import math

from online_support import account, pump_until, sign_in_window
from server_support import finished_game

from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.online.leaderboard_view import LeaderboardView, SubmitView
from blockyard.frontend.replay_view import ReplayView
from blockyard.frontend.summary_view import SummaryView
from blockyard.game import today_in


def expected_countdown(now: dt.datetime) -> str:
    """The countdown eu-daily (time zone "local") shows at ``now``, worked out here
    from the date rule of docs/rules.md §3.4: a new puzzle at local midnight."""
    midnight = dt.datetime.combine(today_in("local", now) + dt.timedelta(days=1), dt.time())
    left = math.ceil((midnight.astimezone() - now).total_seconds())
    return f"Next daily game in {left // 3600}:{left % 3600 // 60:02d}:{left % 60:02d}"


def changed(before, after, box) -> bool:
    """Whether any pixel inside ``box`` (left, bottom, right, top in window
    coordinates) differs between two screenshots."""
    height = before.height
    left, bottom, right, top = (round(v) for v in box)
    crop = (max(0, left), max(0, height - top), min(before.width, right),
            min(height, height - bottom))
    return before.crop(crop).tobytes() != after.crop(crop).tobytes()


def test_a_daily_result_says_rank_of_n_streak_and_countdown(ui, server, english):
    frozen = dt.datetime.now(dt.UTC).replace(microsecond=0)
    clock = [frozen]
    ui.app.now = lambda: clock[0]
    today = today_in("local", frozen)
    # three other players' games of today: two better, one worse than one move
    for prefix, moves in (("ann", 9), ("ben", 6), ("cid", 0)):
        other = account(server, prefix)
        game = finished_game("eu-daily", seed=None, moves=moves, date=today)
        assert other.submit_game(game).counted
    # the two days before today played in this window: today's game makes three
    for back in (1, 2):
        ui.app.records.record(finished_game("eu-daily", seed=None, moves=1,
                                            date=today - dt.timedelta(days=back)))
    client = sign_in_window(ui, server, "day")
    ui.app.start_game("eu-daily")
    ui.key("1", "Return", "e", "e")  # one move, then end the round (confirmed)
    pump_until(ui, lambda: isinstance(ui.view, SummaryView))
    summary = ui.view
    words = [t.text for t in summary.texts]
    assert "Streak: 3 days in a row" in words
    assert summary.countdown is not None and summary.countdown.text == expected_countdown(frozen)
    # Submit where the eye goes: wide, centred, right above Play again (not in a corner)
    submit, again = summary.submit.rect, summary.again.rect
    assert summary.submit.visible
    assert abs(submit.center_x - ui.window.width / 2) < 2
    assert submit.width >= again.width and again.top < submit.bottom < again.top + 40
    assert summary.code_text.y > submit.top
    ui.click(submit.center_x, submit.center_y)
    submitting = ui.view
    assert isinstance(submitting, SubmitView)
    pump_until(ui, lambda: submitting.pending is None)
    assert submitting.submission is not None and submitting.submission.counted
    board = client.leaderboard("eu-daily", today.isoformat(), 100)
    total = board.total
    assert total is not None and total == len(board.entries) >= 4
    rank = next(e.rank for e in board.entries if e.name == client.name)
    assert 3 <= rank < total  # behind ann and ben, before cid
    top = math.ceil(100 * rank / total)
    assert f"Your rank: {rank} of {total} (top {top}%)" in submitting.body.text
    assert "Streak: 3 days in a row" in submitting.body.text
    assert submitting.countdown_text.text == expected_countdown(frozen)
    # the countdown runs on the clock given: a minute later, a minute less, drawn
    countdown = submitting.countdown_text
    box = (countdown.x - countdown.content_width / 2 - 4, countdown.y - countdown.content_height,
           countdown.x + countdown.content_width / 2 + 4, countdown.y)
    assert box[1] > submitting.board_button.rect.top  # above the buttons, not under them
    before = ui.screenshot()
    clock[0] = frozen + dt.timedelta(seconds=61)
    ui.pump(2)
    assert countdown.text == expected_countdown(clock[0]) != expected_countdown(frozen)
    assert changed(before, ui.screenshot(), box)
    # back to the launcher: the daily row shows today's rank
    ui.key("Escape")
    pump_until(ui, lambda: isinstance(ui.view, SummaryView))
    ui.key("Escape")
    pump_until(ui, lambda: isinstance(ui.view, LauncherView))
    row = next(e for e in ui.view.entries if e.options[e.choice][1] == "eu-daily")
    assert any(f"rank {rank} of {total}" in t.text for t in row.texts)


def test_a_leaderboard_replay_names_its_player_and_score(ui, server, english):
    today = today_in("local")
    carol = account(server, "carol")
    game = finished_game("eu-daily", seed=None, moves=7, date=today)
    assert carol.submit_game(game).counted
    # the watcher's own game of today, with another score than carol's
    ui.app.records.record(finished_game("eu-daily", seed=None, moves=2, date=today))
    sign_in_window(ui, server, "watcher")
    ui.app.show("leaderboard", ruleset_id="eu-daily")
    boards = ui.view
    assert isinstance(boards, LeaderboardView)
    pump_until(ui, lambda: boards.pending is None and boards.board is not None)
    names = [e.name if e else None for e in boards.lines]
    for _ in range(names.index(carol.name)):
        ui.key("Down")
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, ReplayView))
    viewer = ui.view
    title = f"{carol.name}'s game: {game.score} points"
    assert viewer.label == title
    # the game's header says whose game it is, not the watcher's best
    assert viewer.inner.best_text.text == title
    assert "Best" not in viewer.inner.best_text.text
