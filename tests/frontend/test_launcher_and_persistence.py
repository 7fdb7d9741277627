"""The launcher, saved settings and the game in progress across restarts."""

from __future__ import annotations

import json

import blockyard
from blockyard.frontend.app import BlockyardApp
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.persistence import Settings, save_path
from blockyard.frontend.tray_view import TrayGameView


def launcher(ui):
    ui.app.show_launcher()
    ui.pump(3)
    assert isinstance(ui.view, LauncherView)
    return ui.view


def test_the_launcher_lists_every_ruleset_grouped_by_family(ui):
    view = launcher(ui)
    ids = {rid for entry in view.entries for _, rid in entry.options}
    assert ids == {info.id for info in blockyard.list_rulesets()}
    families = [entry.family for entry in view.entries]
    assert families == sorted(families, key=families.index)  # each family together
    nepal = [e for e in view.entries if e.family == "nepal"]
    assert len(nepal) == 1 and nepal[0].title == "Nepal Blocks"
    assert [label for label, _ in nepal[0].options] == ["New game", "Today's game"]
    assert nepal[0].ruleset_id == "nepal-today"  # today's game is the default
    texts = " ".join(t.text for e in view.entries for t in e.texts)
    assert "10×10" in texts and "no record yet" in texts and "0 games played" in texts


def test_choose_by_keyboard(ui):
    view = launcher(ui)
    first = view.entries[view.selected].ruleset_id
    ui.key("Down", "Up", "Return")
    assert isinstance(ui.view, TrayGameView)
    assert ui.view.game.ruleset.id == first


def test_choose_by_mouse_and_the_nepal_setting(ui):
    view = launcher(ui)
    index = next(i for i, e in enumerate(view.entries) if e.family == "nepal")
    entry = view.entries[index]
    while entry.rect.bottom < view.list_bottom:
        ui.xdo("click", "5")  # scroll down
        ui.move(entry.rect.center_x, view.window.height / 2)
        ui.xdo("click", "5")
        entry = view.entries[index]
    option = entry.option_rect
    ui.click(option.center_x, option.center_y)
    assert entry.ruleset_id == "nepal-new"
    ui.click(entry.rect.left + 30, entry.rect.center_y)
    assert isinstance(ui.view, TrayGameView)
    assert ui.view.game.ruleset.id == "nepal-new"
    assert Settings.load().options["Nepal Blocks"] == "nepal-new"


def test_records_and_games_played_show_in_the_launcher(ui):
    game = blockyard.new_game("tiered", seed=1)
    game.score = 420
    game.end_round()
    ui.app.records.record(game)
    view = launcher(ui)
    entry = next(e for e in view.entries if e.ruleset_id == "tiered")
    assert "best 420" in entry.texts[2].text and "1 game played" in entry.texts[2].text


def test_a_game_in_progress_resumes_after_a_restart(ui, window):
    game = ui.app.start_game("eu-classic", seed=5)
    view = ui.view
    ui.key("1", "Return")
    assert game.moves == 1
    saved = json.loads(save_path().read_text())
    assert saved["score"] == game.score and saved["moves"] == 1
    # a new process: a new app reading the same folders
    app = BlockyardApp(window)
    window.app = app
    ui.app = app
    app.show_launcher()
    ui.pump(3)
    first = ui.view.entries[0]
    assert first.resume is not None and first.title == "Resume: Block Puzzle — Classic"
    ui.key("Return")
    resumed = ui.view
    assert isinstance(resumed, TrayGameView) and resumed is not view
    assert resumed.game.snapshot() == game.snapshot()
    assert resumed.game.board_text() == game.board_text()


def test_a_finished_game_is_not_offered_for_resuming(ui):
    game = ui.app.start_game("eu-classic", seed=5)
    ui.key("Escape", "Down", "Return")  # pause → restart: a fresh game
    assert ui.view.game is not game
    ui.view.game.end_round()
    ui.app.after_action(ui.view.game)
    assert not save_path().exists()


def test_a_broken_save_is_moved_aside(ui, window, recwarn):
    save_path().parent.mkdir(parents=True, exist_ok=True)
    save_path().write_text("{not json")
    app = BlockyardApp(window)
    assert app.saved_game is None
    assert any(".corrupt-" in p.name for p in save_path().parent.iterdir())


def test_settings_remember_the_last_ruleset_and_the_window_size(ui):
    ui.app.start_game("tiered", seed=2)
    ui.app.remember_size(800, 900)
    settings = Settings.load()
    assert settings.last_ruleset == "tiered" and (settings.width, settings.height) == (800, 900)
    view = launcher(ui)
    assert view.entries[view.selected].ruleset_id == "tiered"
