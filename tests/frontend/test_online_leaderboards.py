"""A daily game submitted from its summary shows its rank; the leaderboard
shows it and its replay plays in the viewer (real input on Xvfb, a real
``blockyard serve`` on loopback)."""

from __future__ import annotations

from online_support import pump_until, serve, sign_in_window, submit_a_daily_game

from blockyard import online
from blockyard.frontend import i18n
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.errors import kind_text
from blockyard.frontend.online.leaderboard_view import LeaderboardView, SubmitView, shown_entries
from blockyard.frontend.replay_view import ReplayView
from blockyard.frontend.summary_view import SummaryView
from blockyard.online import Entry, Leaderboard


def test_submit_a_daily_game_see_its_rank_and_watch_it(ui, server):
    client, name, game, submitting = submit_a_daily_game(ui, server, "day")
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
    pump_until(ui, lambda: isinstance(ui.view, SummaryView))
    assert not ui.view.submit.visible


def test_top_twenty_then_the_lines_around_you():
    entries = tuple(Entry(i + 1, f"p{i}", 1000 - i, i) for i in range(40))
    board = Leaderboard("eu-daily", "2026-12-01", entries)
    assert shown_entries(board, "p3") == list(entries[:20])
    assert shown_entries(board, "nobody") == list(entries[:20])
    assert shown_entries(board, "p30") == [*entries[:20], None, *entries[28:33]]
    assert shown_entries(board, "p21") == [*entries[:20], None, *entries[20:24]]


def test_a_game_submitted_twice_is_said_and_submit_is_not_offered_again(ui, tmp_path, english):
    # a server of its own: the module's has today's game with the same one move already
    # (test_submit_a_daily_game_see_its_rank_and_watch_it), which is this test's point
    server = serve(tmp_path)
    try:
        submitted_twice(ui, server)
    finally:
        server.stop()


def submitted_twice(ui, server) -> None:
    _client, _name, game, submitting = submit_a_daily_game(ui, server, "twice")
    assert submitting.submission is not None and submitting.submission.counted
    # whether it counts, as docs/play-online.md says
    assert "It counts: your first finished game of the day." in submitting.body.text
    assert f"Your rank: {submitting.rank}" in submitting.body.text
    ui.key("Escape")  # back to the summary: no Submit now, U does nothing
    again = ui.view
    assert isinstance(again, SummaryView) and not again.submit.visible
    ui.key("u")
    assert ui.view is again
    # the same game in another summary (as after a restart): the server has it
    ui.app.show_summary(game.clone(), again.summary)
    other = ui.view
    assert isinstance(other, SummaryView) and other.submit.visible
    ui.click(other.submit.rect.center_x, other.submit.rect.center_y)
    resent = ui.view
    assert isinstance(resent, SubmitView)
    pump_until(ui, lambda: resent.pending is None)
    assert resent.submission is None and resent.message_bad
    assert resent.message == kind_text(online.SUBMITTED_ALREADY)
    assert resent.body.text == "This game was submitted already. Its rank is on the leaderboard."
    ui.key("Escape")
    assert isinstance(ui.view, SummaryView) and not ui.view.submit.visible
    # its sentence in the other languages
    for language in ("de", "es", "ne"):
        i18n.set_language(language)
        assert kind_text(online.SUBMITTED_ALREADY) != resent.message
        assert kind_text(online.WRONG_CODE) != "No table has this code. Check it and try again."


def test_a_later_daily_game_is_practice(ui, server, english):
    sign_in_window(ui, server, "prac")
    for counted, piece in ((True, "2"), (False, "3")):  # two games, not the other test's
        ui.app.start_game("eu-daily")
        ui.key(piece, "Return", "e", "e")
        ui.pump(50)
        assert isinstance(ui.view, SummaryView)
        ui.key("u")
        submitting = ui.view
        assert isinstance(submitting, SubmitView)
        pump_until(ui, lambda view=submitting: view.pending is None)
        assert submitting.submission is not None and submitting.submission.counted is counted
        words = "It counts: your first finished game of the day."
        practice = "Practice: only the first game of the day counts."
        assert (words in submitting.body.text) is counted
        assert (practice in submitting.body.text) is not counted
