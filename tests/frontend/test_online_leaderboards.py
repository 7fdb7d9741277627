"""A daily game submitted from its summary shows its rank; the leaderboard
shows it and its replay plays in the viewer (real input on Xvfb, a real
``blockyard serve`` on loopback)."""

from __future__ import annotations

import uuid

import pytest
from online_support import pump_until, serve

from blockyard.frontend.leaderboard_view import LeaderboardView, SubmitView, shown_entries
from blockyard.frontend.online_account import OnlineAccount
from blockyard.frontend.replay_view import ReplayView
from blockyard.frontend.summary_view import SummaryView
from blockyard.online import Client, Entry, Leaderboard


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = serve(tmp_path_factory.mktemp("boardserver"))
    yield running
    running.stop()


def test_submit_a_daily_game_see_its_rank_and_watch_it(ui, server):
    client = Client(server.url)
    name = client.create_account(f"day{uuid.uuid4().hex[:8]}", "correct horse")
    token = client.sign_in(name, "correct horse")
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), name, token)
    game = ui.app.start_game("eu-daily")
    ui.key("1", "Return", "e", "e")  # one move, then end the round (confirmed)
    ui.pump(50)
    summary = ui.view
    assert isinstance(summary, SummaryView) and summary.submit.visible
    ui.key("u")
    submitting = ui.view
    assert isinstance(submitting, SubmitView)
    pump_until(ui, lambda: submitting.pending is None)
    assert submitting.submission is not None and submitting.submission.counted
    assert submitting.submission.score == game.score
    board = client.leaderboard("eu-daily", game.date)
    mine = next(e for e in board.entries if e.name == name)
    assert submitting.rank == mine.rank
    assert f"Your rank: {mine.rank}" in submitting.body.text
    # the leaderboard (mouse), our line chosen, its replay in the viewer (keyboard)
    button = submitting.board_button
    ui.click(button.rect.center_x, button.rect.center_y)
    boards = ui.view
    assert isinstance(boards, LeaderboardView) and boards.ruleset_id == "eu-daily"
    pump_until(ui, lambda: boards.pending is None and boards.board is not None)
    names = [e.name if e else None for e in boards.lines]
    assert name in names
    for _ in range(names.index(name)):
        ui.key("Down")
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, ReplayView))
    viewer = ui.view
    assert viewer.replay.log == game.log
    # a signed-out window offers no Submit
    ui.app.online = OnlineAccount()
    ui.app.start_game("eu-daily")
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, SummaryView) and not ui.view.submit.visible


def test_top_twenty_then_the_lines_around_you():
    entries = tuple(Entry(i + 1, f"p{i}", 1000 - i, i) for i in range(40))
    board = Leaderboard("eu-daily", "2026-12-01", entries)
    assert shown_entries(board, "p3") == list(entries[:20])
    assert shown_entries(board, "nobody") == list(entries[:20])
    assert shown_entries(board, "p30") == [*entries[:20], None, *entries[28:33]]
    assert shown_entries(board, "p21") == [*entries[:20], None, *entries[20:24]]
