"""Statistics, how to play, the daily rule on the launcher and the tiered duel note,
with real input events on the virtual screen: the chart's drawn points and bars
match the records; the help page opens from the launcher, the pause menu and by
itself the first time; today's daily game is shown; a later one is practice."""

from __future__ import annotations

import datetime as dt

import blockyard
from blockyard.frontend import i18n, theme
from blockyard.frontend.i18n import format_number
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.menus import MenuView
from blockyard.frontend.pages import HelpView, StatsView
from blockyard.frontend.persistence import Settings
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView
from blockyard.records import TableResult


def play_and_record(app, ruleset, seed, moves, date=None):
    game = blockyard.new_game(ruleset, seed=seed, date=date)
    for i in range(moves):
        legal = game.legal_moves()
        if game.over or not legal:
            break
        game.place(*legal[(i * 13 + (seed or 0)) % len(legal)])
    if not game.over:
        game.act("end")
    app.records.record(game)
    return game


def entry_of(ui, ruleset_id):
    view = ui.view
    assert isinstance(view, LauncherView)
    for i, entry in enumerate(view.entries):
        if entry.resume is None and entry.ruleset_id == ruleset_id:
            while entry.rect.bottom < view.list_bottom or entry.rect.top > view.list_top:
                view.selected = i
                view._ensure_visible()
            return entry
    raise AssertionError(f"no launcher row for {ruleset_id}")


def click_rect(ui, rect):
    ui.click(rect.center_x, rect.center_y)


def test_the_stats_chart_draws_the_last_50_scores_and_the_histogram_of_the_records(ui):
    games = [play_and_record(ui.app, "eu-classic", seed, 3 + seed % 9) for seed in range(55)]
    ui.app.show_launcher()
    ui.pump(2)
    click_rect(ui, entry_of(ui, "eu-classic").stats_rect)
    view = ui.view
    assert isinstance(view, StatsView) and view.ruleset.id == "eu-classic"
    scores = [g.score for g in games][-50:]
    assert view.scores == scores
    area = view.chart_area
    top = max(scores)
    assert len(view.chart_points) == 50
    for i, (x, y) in enumerate(view.chart_points):
        assert abs(x - (area.left + i * area.width / 49)) < 1e-6
        assert abs(y - (area.bottom + scores[i] / top * area.height)) < 1e-6
    for x, y in view.chart_points[::7]:  # the marker is drawn where the point is
        assert ui.pixel(x, y) == theme.ACCENT[:3]
    counted = [g.score for g in games]
    assert sum(b.count for b in view.bins) == 55
    assert view.bins == ui.app.records.score_histogram("eu-classic", 10)
    most = max(b.count for b in view.bins)
    for b, bar in zip(view.bins, view.bars, strict=True):
        assert b.count == sum(b.low <= s <= b.high for s in counted)
        assert abs(bar.height - view.histogram_area.height * b.count / most) < 1e-6
        if bar.height > 4:
            assert ui.pixel(bar.center_x, bar.bottom + bar.height / 2) == theme.CHART[:3]
    assert view.figures["Games"] == "55"
    assert view.figures["Best"] == format_number(max(counted))
    assert view.figures["Average"] == format_number(round(sum(counted) / 55))
    assert view.figures["Lines"] == format_number(sum(g.lines_cleared for g in games))
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)


def test_a_daily_ruleset_shows_a_calendar_of_the_days_played(ui):
    days = [dt.date(2026, 10, d) for d in (3, 4, 9, 17)]
    counted = {}
    for n, day in enumerate(days):
        counted[day.isoformat()] = play_and_record(ui.app, "eu-daily", None, 4 + n, day).score
    play_and_record(ui.app, "eu-daily", None, 12, days[1])  # practice: the date's score stays
    ui.app.show_launcher()
    ui.pump(2)
    click_rect(ui, entry_of(ui, "eu-daily").stats_rect)
    view = ui.view
    assert isinstance(view, StatsView) and view.month == (2026, 10)
    played = {date: score for date, (_rect, score) in view.calendar.items() if score is not None}
    assert played == counted == dict(ui.app.records.played_days(view.ruleset))
    assert len(view.calendar) == 31
    rect, _score = view.calendar["2026-10-09"]
    assert theme.ACCENT[:3] in edge(ui, rect)  # a played day is outlined
    rect, _score = view.calendar["2026-10-10"]
    assert theme.ACCENT[:3] not in edge(ui, rect) and theme.PANEL[:3] in edge(ui, rect)
    ui.key("Right")
    assert view.month == (2026, 11) and not any(s for _r, s in view.calendar.values())


def edge(ui, rect):
    image = ui.screenshot()
    y = ui.window.height - 1 - round(rect.center_y)
    return {image.getpixel((x, y))[:3] for x in range(round(rect.left) - 2,
                                                       round(rect.left) + 4)}


def end_round(ui):
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, SummaryView)
    return ui.view


def test_stats_from_the_game_over_screen_and_back(ui):
    game = ui.app.start_game("eu-classic", seed=2)
    summary = end_round(ui)
    click_rect(ui, summary.stats.rect)
    view = ui.view
    assert isinstance(view, StatsView) and view.scores == [game.score]
    ui.key("Escape")
    assert isinstance(ui.view, SummaryView) and ui.view.game is game


def test_how_to_play_from_the_launcher(ui):
    ui.app.show_launcher()
    ui.pump(2)
    click_rect(ui, entry_of(ui, "sudoku-bloxx").help_rect)
    view = ui.view
    assert isinstance(view, HelpView)
    assert view.body.text == blockyard.load_ruleset("sudoku-bloxx").help.page
    assert "Golden digits" in view.body.text and view.title.text.endswith("Sudoku Bloxx")
    ui.key("Down", "Down")
    assert view.scroll > 0 or view.most_scroll == 0
    click_rect(ui, view.done_button.rect)
    assert isinstance(ui.view, LauncherView)
    ui.view.selected = ui.view.entries.index(entry_of(ui, "tiered"))
    ui.key("h")
    assert isinstance(ui.view, HelpView) and "Swaps" in ui.view.body.text


def test_how_to_play_from_the_pause_menu_returns_to_the_game(ui):
    game = ui.app.start_game("tiered", seed=1)
    ui.key("1", "Return")
    ui.key("Escape", "Down", "Down", "Down", "Return")  # pause → How to play
    view = ui.view
    assert isinstance(view, HelpView) and view.ruleset.id == "tiered"
    assert view.body.text == game.ruleset.help.page
    ui.key("Return")
    assert isinstance(ui.view, TrayGameView) and ui.view.game is game and game.moves == 1


def test_how_to_play_shows_itself_once_the_first_time_a_ruleset_is_played(ui, window):
    ui.app.settings.help_seen = []
    ui.app.show_launcher()
    ui.pump(2)
    click_rect(ui, entry_of(ui, "woodoku").rect)
    view = ui.view
    assert isinstance(view, HelpView) and view.ruleset.id == "woodoku"
    assert "woodoku" in Settings.load().help_seen
    ui.key("Return")
    game = ui.view.game
    assert isinstance(ui.view, TrayGameView) and game.ruleset.id == "woodoku"
    ui.app.abandon(ui.app.playing)
    ui.app.show_launcher()
    ui.pump(2)
    click_rect(ui, entry_of(ui, "woodoku").rect)
    assert isinstance(ui.view, TrayGameView) and ui.view.game is not game


def test_the_launcher_shows_todays_daily_game_and_a_later_one_is_practice(ui):
    ui.app.show_launcher()
    ui.pump(2)
    assert "not played yet" in entry_of(ui, "eu-daily").texts[2].text
    game = ui.app.start_game("eu-daily")
    assert not ui.view.practice
    end_round(ui)
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)
    assert f"played: {format_number(game.score)} points" in entry_of(ui, "eu-daily").texts[2].text
    click_rect(ui, entry_of(ui, "eu-daily").rect)
    view = ui.view
    assert isinstance(view, TrayGameView) and view.practice
    assert view.best_text.text == f"Practice — today's game counted {format_number(game.score)}"


def test_the_tiered_duel_screen_says_sets_are_equal_only_while_tiers_are(ui):
    note = blockyard.load_ruleset("tiered").help.get("duel")
    ui.app.start_duel("tiered")
    ui.key("Return", "Return")  # the suggested names
    view = ui.view
    assert isinstance(view, MenuView)
    shown = " ".join(line.text for line in view.lines)
    assert note in shown and "equal only while" in shown
    ui.key("Escape")
    ui.app.start_duel("eu-classic")
    ui.key("Return", "Return")
    assert "tier" not in " ".join(line.text for line in ui.view.lines)


def test_an_untimed_tray_game_records_the_time_it_was_played_and_the_statistics_show_it(ui):
    """Issue 25, item 12: a tray game without a clock is recorded with a duration,
    the time it was on screen and running (saved with it, so a resumed game goes
    on counting; a long frame counts one second), and the statistics page shows
    the ruleset's play time; a timed game keeps its own clock's."""
    import json

    from blockyard.frontend.persistence import load_saved_games

    game = ui.app.start_game("eu-classic", seed=3)
    ui.pump(3)
    ui.pump(120, dt=0.5)  # a minute on screen
    ui.pump(2, dt=30.0)   # the machine asleep twice: a second each
    ui.key("1", "Return")  # a real move: saved with its play time so far
    assert game.moves == 1
    saved = json.loads(ui.app.playing.path.read_text(encoding="utf-8"))
    assert 62.0 <= saved["played"] < 62.5
    ui.app.show_launcher()  # leave it, and come back to the saved game
    ui.pump(2)
    resumed = next(s for s in load_saved_games() if s.key == "eu-classic")
    assert resumed.played == saved["played"]
    ui.app.resume(resumed)
    ui.pump(3)
    ui.pump(60, dt=1.0)   # another minute
    ui.key("e", "e")      # end the round (confirmed)
    for _ in range(200):
        if isinstance(ui.view, SummaryView):
            break
        ui.pump(1)
    assert isinstance(ui.view, SummaryView)
    record = ui.app.records.history("eu-classic")[0]  # the newest
    assert record.duration is not None and 122.0 <= record.duration < 122.5
    timed = blockyard.new_game("eu-timed", seed=1)
    timed.tick(42.0)
    timed.end_game("ended")
    ui.app.records.record(timed)
    assert ui.app.records.history("eu-timed")[0].duration == 42.0
    ui.app.show_stats("eu-classic", ui.app.show_launcher)
    ui.pump(2)
    assert isinstance(ui.view, StatsView)
    assert ui.view.figures["Play time"] == "2:02"
    assert ui.app.records.statistics("eu-classic").play_time == record.duration
    ui.app.show_stats("tiered", ui.app.show_launcher)  # no games: no time
    ui.pump(2)
    assert ui.view.figures["Play time"] == "—"


def test_statistics_count_rounds_not_tables(ui, english):
    records = ui.app.records
    for rnd, winner in ((1, 0), (2, 1), (3, 0)):  # one table, a rematch, another one
        records.record_table(TableResult("127.0.0.1:1", 7, rnd, "eu-classic", ("me", "you"),
                                         (10, 5), winner, 0))
    records.record_table(TableResult("127.0.0.1:1", 8, 1, "eu-classic", ("me", "you"),
                                     (1, 9), 1, 0))
    ui.app.show_stats("eu-classic")
    ui.pump(1)
    stats = ui.view
    assert isinstance(stats, StatsView)
    assert any("4 online rounds, 2 won" in t.text for t in stats.texts)
    i18n.set_language("de")
    stats.rebuild()
    ui.pump(1)
    assert any("4 Online-Runden, 2 gewonnen" in t.text for t in ui.view.texts)
