"""A hot-seat duel's games stay out of the ruleset's records and statistics (they
are two players' games, the second played knowing the first's score): neither
the finished turns nor a turn restarted midway count, the statistics page says
no games, and both replays are kept; a game played alone afterwards counts (real
keys on Xvfb)."""

from __future__ import annotations

import blockyard
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.menus import MenuView, PromptView
from blockyard.frontend.pages import StatsView
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView
from blockyard.replays import list_replays, load_replay


def start_duel(ui, ruleset_id: str) -> None:
    ui.app.show_launcher()
    ui.pump(2)
    view = ui.view
    assert isinstance(view, LauncherView)
    view.selected = next(i for i, e in enumerate(view.entries) if e.ruleset_id == ruleset_id)
    ui.key("d")
    prompt = ui.view
    assert isinstance(prompt, PromptView)
    for i, name in enumerate(("Ana", "Bo")):
        if i:
            ui.key("Tab")
        for _ in range(len(prompt.values[prompt.focus])):
            ui.key("BackSpace")
        ui.type(name)
    ui.key("Return")
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Ana's turn"


def play_a_turn(ui) -> None:
    ui.key("Return")  # Start
    assert isinstance(ui.view, TrayGameView)
    ui.key("1", "Return", "e", "e")  # one piece, then end the round (confirmed)
    ui.pump(50)


def test_duel_games_count_in_no_statistics(ui):
    start_duel(ui, "tiered")
    ui.key("Return")
    game = ui.view
    assert isinstance(game, TrayGameView)
    ui.key("1", "Return")
    ui.app.confirm_restart(game.game, game)  # what the pause menu's Restart asks
    ui.pump(2)
    asked = ui.view
    assert isinstance(asked, MenuView)
    assert any("duel games are not recorded" in t.text for t in asked.lines)
    asked.buttons[0].action()  # Restart: Ana starts her turn again, the first try uncounted
    ui.pump(2)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Bo's turn"
    play_a_turn(ui)
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Duel result"
    ruleset = blockyard.load_ruleset("tiered")
    stats = ui.app.records.statistics(ruleset)
    assert (stats.games, stats.best, stats.total_lines, stats.play_time) == (0, None, 0, 0)
    assert ui.app.records.best(ruleset) is None
    players = [load_replay(path).player for path in list_replays("tiered")]
    assert sorted(players) == ["Ana", "Ana", "Bo"]  # every replay kept, the restarted one too
    ui.key("Escape")  # leave the duel
    ui.app.show_stats(ruleset, ui.app.show_launcher)
    ui.pump(2)
    assert isinstance(ui.view, StatsView) and ui.view.figures["Games"] == "0"
    # alone again: that game counts
    ui.app.start_game("tiered", seed=3)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, SummaryView)
    assert ui.app.records.statistics(ruleset).games == 1
