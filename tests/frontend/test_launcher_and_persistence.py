"""The launcher, saved settings and the game in progress across restarts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from window_process import relaunch, start_process, wait_for

import blockyard
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.menus import MenuView
from blockyard.frontend.pages import StatsView
from blockyard.frontend.persistence import SavedGame, Settings, save_game, saves_dir
from blockyard.frontend.tray_view import TrayGameView
from blockyard.replays import replays_dir


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


def test_esc_on_the_launcher_asks_before_quitting(ui, monkeypatch):
    quits: list[bool] = []
    monkeypatch.setattr(ui.app, "quit", lambda: quits.append(True))
    view = launcher(ui)
    ui.key("Escape")
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Quit Blockyard?"
    ui.key("Escape")  # Esc again: back to the launcher, nothing closed
    assert ui.view is view and quits == []
    ui.key("Escape", "Down", "Return")  # "Back"
    assert ui.view is view and quits == []
    ui.key("Escape", "Return")  # Enter takes "Quit"
    assert quits == [True]


def test_the_quit_question_wraps_its_words_to_the_window(ui):
    """With a game in progress the question explains that it is kept: the words
    wrap inside the window in every language and at the smallest sizes."""
    ui.app.start_game("eu-classic", seed=3)
    ui.key("1", "Return")
    ui.app.show_launcher()
    ui.pump(2)
    try:
        for language, size in (("en", (480, 640)), ("de", (720, 960)), ("es", (480, 640))):
            ui.app.set_language(language)
            ui.resize(*size)
            ui.key("Escape")
            question = ui.view
            assert isinstance(question, MenuView) and len(question.lines) == 1
            line = question.lines[0]
            assert line.left >= 0 and line.right <= size[0], (language, size)
            assert line.bottom > question.buttons[0].rect.top  # above the buttons
            ui.key("Escape")
    finally:
        ui.app.set_language("en")
        ui.resize(720, 960)


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


def test_rulesets_that_share_a_best_score_say_so(ui):
    """eu-hardcore keeps its best score with eu-classic (their rule files' records
    group): each row says whose best it shares where the window is wide enough for
    the note, and the statistics page says so at any width; a ruleset of its own
    group does not."""
    game = blockyard.new_game("eu-hardcore", seed=1)
    game.score = 730
    game.end_round()
    ui.app.records.record(game)
    classic = blockyard.load_ruleset("eu-classic").name
    hardcore = blockyard.load_ruleset("eu-hardcore").name
    view = launcher(ui)
    ui.resize(1280, 720)
    try:
        note = {e.ruleset_id: e.texts[2].text for e in view.entries if e.resume is None}
        assert "best 730" in note["eu-classic"] and "best 730" in note["eu-hardcore"]
        assert f"best 730  ·  shared with {hardcore}" in note["eu-classic"]
        assert f"best 730  ·  shared with {classic}" in note["eu-hardcore"]
        assert "shared" not in note["eu-timed"] and "shared" not in note["tiered"]
    finally:
        ui.resize(720, 960)
    view = launcher(ui)
    entry = next(e for e in view.entries if e.ruleset_id == "eu-classic" and e.resume is None)
    while entry.rect.bottom < view.list_bottom or entry.rect.top > view.list_top:
        view.selected = view.entries.index(entry)
        view._ensure_visible()
        ui.pump(2)
    ui.click(entry.stats_rect.center_x, entry.stats_rect.center_y)
    stats = ui.view
    assert isinstance(stats, StatsView) and stats.ruleset.id == "eu-classic"
    assert stats.figures["Best"] == "730"
    assert any(t.text == f"The best score is shared with {hardcore}." for t in stats.texts)
    texts = [t.text for t in stats.texts]  # no games of its own: no chart headings
    assert "No finished games yet." in texts and not any("last" in t for t in texts)
    assert "Scores by range" not in texts
    ui.app.show_stats(blockyard.load_ruleset("eu-hardcore"))
    ui.pump(2)
    texts = [t.text for t in ui.view.texts]
    assert "Score of the last game" in texts and "Scores by range" in texts
    assert f"The best score is shared with {classic}." in texts


def test_a_game_in_progress_resumes_after_a_restart(ui, window):
    game = ui.app.start_game("eu-classic", seed=5)
    view = ui.view
    ui.key("1", "Return")
    assert game.moves == 1
    saved = json.loads((saves_dir() / "eu-classic.json").read_text())
    assert saved["snapshot"]["score"] == game.score and saved["snapshot"]["moves"] == 1
    relaunch(ui, window)
    first = ui.view.entries[0]
    assert first.resume is not None and first.title == "Resume: Block Puzzle — Classic"
    ui.key("Return")
    resumed = ui.view
    assert isinstance(resumed, TrayGameView) and resumed is not view
    assert resumed.game.snapshot() == game.snapshot()


def test_back_to_the_launcher_offers_resume_at_once_and_other_rulesets_keep_it(ui):
    game = ui.app.start_game("eu-classic", seed=5)
    ui.key("1", "Return")
    ui.key("Escape", "Down", "Down", "Return")  # pause → back to launcher
    view = ui.view
    assert isinstance(view, LauncherView)
    assert view.entries[0].resume is not None and view.entries[0].resume.game is game
    tiered = next(i for i, e in enumerate(view.entries) if e.ruleset_id == "tiered")
    view.choose(tiered)
    ui.pump(2)
    assert ui.view.game.ruleset.id == "tiered"
    ui.key("1", "Return")  # a game is saved from its first move on
    assert (saves_dir() / "eu-classic.json").exists() and (saves_dir() / "tiered.json").exists()
    ui.key("Escape", "Down", "Down", "Return")
    assert [e.resume.game.ruleset.id for e in ui.view.entries if e.resume] == \
        ["tiered", "eu-classic"]


def test_restart_asks_and_records_the_abandoned_game(ui):
    game = ui.app.start_game("eu-classic", seed=5)
    ui.key("1", "Return")
    ui.key("Escape", "Down", "Return")  # pause → restart: asks first
    assert isinstance(ui.view, MenuView) and "Restart" in ui.view.title.text
    ui.key("Escape")  # keep playing
    assert ui.view.game is game and not game.over
    assert ui.app.records.stats("eu-classic").games == 0
    ui.key("Escape", "Down", "Return", "Up", "Return")  # restart, chosen and confirmed
    assert ui.view.game is not game and game.over_reason == "ended"
    assert ui.app.records.stats("eu-classic").games == 1
    assert not list((saves_dir()).glob("eu-classic.json"))  # saved from its first move
    ui.key("1", "Return")
    assert list((saves_dir()).glob("eu-classic.json"))


def test_a_new_game_over_a_saved_one_asks_first(ui):
    game = ui.app.start_game("tiered", seed=5)
    ui.key("1", "Return")
    ui.app.show_launcher()
    ui.pump(2)
    view = ui.view
    index = next(i for i, e in enumerate(view.entries)
                 if e.resume is None and e.ruleset_id == "tiered")
    view.choose(index)
    ui.pump(2)
    assert isinstance(ui.view, MenuView)
    labels = [b.label for b in ui.view.buttons]
    assert labels == ["Resume that game", "End it and start a new game", "Back"]
    ui.key("Down", "Return")
    assert ui.view.game is not game and game.over
    assert ui.app.records.stats("tiered").games == 1


STUCK_BOARD = "\n".join(["#.#.#.#.#.", ".#.#.#.#.#"] * 5)


def test_closing_the_window_at_the_continue_prompt_loses_nothing(ui, window, isolated_home):
    # a saved eu game one move from being stuck: the long piece fits nowhere
    game = blockyard.new_game("eu-classic", seed=3, board=STUCK_BOARD,
                              tray=["#", "#####", None])
    assert not game.over
    save_game(SavedGame("eu-classic", game))
    process = start_process(isolated_home)
    try:
        wid = process.shown(ui.wid)
        process.keys(wid, "Return", "1", "Return")  # resume, select the piece, place it
        path = saves_dir() / "eu-classic.json"

        def stuck() -> bool:
            return json.loads(path.read_text())["snapshot"]["over_reason"] == "stuck"
        wait_for(stuck)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    relaunch(ui, window)
    entry = ui.view.entries[0]
    assert entry.resume is not None
    assert any("finished, can be continued" in t.text for t in entry.texts)
    ui.key("Return")
    view = ui.view
    assert isinstance(view, TrayGameView) and view.prompting
    assert view.dialog.overlay_text.text == "No piece fits"
    assert "Empty up to 4 of the fullest rows" in view.dialog.overlay_help.text
    ui.key("Escape")  # pauses; the continue stays offered
    assert view.paused and view.prompting
    ui.key("Escape")
    ui.pump(40)  # the prompt ignores input for its first 0.6 s
    button = view.dialog.buttons["continue"].rect
    ui.click(button.center_x, button.center_y)
    assert not view.game.over and view.game.log[-1] == ["continue"]
    assert json.loads((saves_dir() / "eu-classic.json").read_text())["snapshot"][
        "over_reason"] is None


def test_back_to_the_launcher_then_killed_resumes_in_a_new_process(ui, window, isolated_home):
    process = start_process(isolated_home, ruleset="tiered", seed=4)
    try:
        wid = process.shown(ui.wid)
        # Return: past the how-to-play page shown the first time a ruleset is played
        process.keys(wid, "Return", "1", "Return", "Escape", "Down", "Down", "Return")
        wait_for(lambda: (saves_dir() / "tiered.json").exists() and json.loads(
            (saves_dir() / "tiered.json").read_text())["snapshot"]["moves"] == 1)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    relaunch(ui, window)
    entry = ui.view.entries[0]
    assert entry.resume is not None and entry.resume.game.moves == 1
    assert entry.resume.game.seed == 4


@pytest.mark.parametrize("content", [b"\x00\xff random bytes \x13", None],
                         ids=["random-bytes", "a-folder"])
def test_an_unreadable_save_is_moved_aside_with_a_message(ui, window, content):
    path = saves_dir() / "eu-classic.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    relaunch(ui, window)
    assert not any(e.resume for e in ui.view.entries)
    assert any("saved game file could not be used" in n for n in ui.view.notices)
    assert ui.view.notice_text.text and any(".corrupt-" in p.name
                                             for p in saves_dir().iterdir())
    game = ui.app.start_game("eu-classic", seed=1)
    game.place(*game.legal_moves()[0])  # saved from its first move on
    ui.app.after_action(game)
    assert path.is_file()


@pytest.mark.parametrize("content", ["width = inf\nheight = 700\nlast_ruleset = 'tiered'\n",
                                     "width = 100000000\nlast_ruleset = 'tiered'\n",
                                     "width = [", None],
                         ids=["inf", "huge", "broken", "a-folder"])
def test_unreadable_settings_are_moved_aside_and_the_good_values_kept(ui, window, content):
    path = Settings.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    notices: list[str] = []
    with pytest.warns(UserWarning, match="moved to"):
        settings = Settings.load(notices)
    assert settings.width == 720 and notices
    if content and "tiered" in content:
        assert settings.last_ruleset == "tiered"
    if content and content.startswith("width = inf"):
        assert settings.height == 700
    assert any(".corrupt-" in p.name for p in path.parent.iterdir())
    assert path.is_file() or not path.exists()


def test_a_bad_replay_file_is_moved_aside_and_the_others_listed(ui):
    game = blockyard.new_game("tiered", seed=1)
    game.end_round()
    ui.app.finish_game(game)
    folder = replays_dir("tiered")
    (folder / "99999999-bad.json").write_text("{not json")
    ui.app.show_replays("tiered")
    ui.pump(2)
    view = ui.view
    labels = [b.label for b in view.buttons]
    assert len(labels) == 2 and labels[-1] == "Back"
    assert any("replay file could not be used" in line.text for line in view.lines)
    back = view.buttons[-1].rect
    ui.click(back.center_x, back.center_y)
    assert isinstance(ui.view, LauncherView)


def test_settings_remember_the_last_ruleset_and_the_window_size(ui):
    ui.app.start_game("tiered", seed=2)
    ui.app.remember_size(800, 900)
    settings = Settings.load()
    assert settings.last_ruleset == "tiered" and (settings.width, settings.height) == (800, 900)
    view = launcher(ui)
    assert view.entries[view.selected].ruleset_id == "tiered"


# -- issue 22, reproducer 9: a full disk, a read-only folder, impossible records -----------

def _failing_writes(monkeypatch, code):
    import errno as _errno

    from blockyard.frontend import persistence

    def refuse(path, text):
        raise OSError(code, os.strerror(code), str(path))

    monkeypatch.setattr(persistence, "write_atomically", refuse)
    return _errno


@pytest.mark.parametrize(("code", "kind"), [("ENOSPC", "DiskFullError"),
                                            ("EROFS", "ReadOnlyError"),
                                            ("EIO", "SaveError")])
def test_save_game_raises_only_its_documented_oserror_subclasses(monkeypatch, isolated_home,
                                                                 code, kind):
    import errno

    from blockyard.frontend import persistence

    _failing_writes(monkeypatch, getattr(errno, code))
    game = blockyard.new_game("tiered", seed=1)
    with pytest.raises(persistence.SaveError) as caught:
        save_game(game)
    assert type(caught.value).__name__ == kind and isinstance(caught.value, OSError)
    assert caught.value.errno == getattr(errno, code)


def test_a_full_disk_is_said_in_the_window_the_game_goes_on_and_saving_is_retried(
        ui, monkeypatch):
    import errno

    game = ui.app.start_game("tiered", seed=4)
    view = ui.view
    _failing_writes(monkeypatch, errno.ENOSPC)
    ui.key("1", "Return")
    assert game.moves == 1 and ui.view is view
    assert view.message == ("The disk is full: the game is kept in memory and saved again "
                            "after your next move.")
    # no earlier save (an untouched game is not saved): none half-written either
    assert not (saves_dir() / "tiered.json").exists()
    monkeypatch.undo()  # space again: the next move saves
    slot = next(i for i, piece in enumerate(game.tray) if piece is not None)
    ui.key(str(slot + 1), "Return")
    assert game.moves == 2 and view.message == "The game is saved again."
    assert json.loads((saves_dir() / "tiered.json").read_text())["snapshot"]["moves"] == 2
    ui.app.show_launcher()
    ui.pump(2)
    assert ui.view.notices == ["The disk is full: the game is kept in memory and saved "
                               "again after your next move."]


def test_a_full_disk_message_is_translated(ui, monkeypatch):
    import errno

    ui.app.set_language("de")
    try:
        game = ui.app.start_game("tiered", seed=4)
        _failing_writes(monkeypatch, errno.EROFS)
        ui.key("1", "Return")
        assert game.moves == 1
        assert ui.view.message.startswith("Der Datenordner")
    finally:
        ui.app.set_language("en")


def test_a_read_only_data_folder_shows_the_records_and_says_new_ones_cannot_be_saved(
        ui, window, monkeypatch):
    from blockyard import recordsdb

    game = blockyard.new_game("tiered", seed=1)
    game.score = 120
    game.end_round()
    ui.app.records.record(game)
    ui.app.records.close()
    real = recordsdb._sqlite_connect
    monkeypatch.setattr(recordsdb, "_sqlite_connect",  # as SQLite opens a read-only file
                        lambda target, read_only: real(target, target != ":memory:"))
    relaunch(ui, window)
    view = ui.view
    assert view.notices == ["Your records are shown, but new ones cannot be saved: the data "
                            "folder cannot be written."]
    assert ui.app.records.best(blockyard.load_ruleset("tiered")) == 120
    assert not any(".corrupt-" in p.name for p in paths_in_data())
    played = blockyard.new_game("tiered", seed=2)
    played.end_round()
    ui.app.start_game("tiered", seed=2)
    ui.app.finish_game(ui.app.current_game or played)
    assert ui.app.records.unsaved == 1
    assert ("The records cannot be written now: this game's record is kept in memory and "
            "saved when it can be.") in ui.app.notices


def test_records_with_impossible_values_are_left_out_with_a_message(ui, window):
    import sqlite3

    from blockyard import paths

    game = blockyard.new_game("tiered", seed=1)
    game.score = 80
    game.end_round()
    ui.app.records.record(game)
    ui.app.records.close()
    with sqlite3.connect(paths.data_dir() / "records.db") as conn:
        conn.execute("UPDATE games SET lines = 'lots'")
        conn.execute("INSERT INTO games (finished, ruleset, record_group, record_kind, seed, "
                     "score, lines, moves, best_combo) SELECT finished, ruleset, record_group, "
                     "record_kind, seed, 70, 1, 1, 1 FROM games")
    conn.close()
    relaunch(ui, window)  # once a raw ValueError at every start
    assert ui.view.notices == ["1 finished game in your records holds impossible values and "
                               "is left out."]
    assert ui.app.records.best(blockyard.load_ruleset("tiered")) == 70


def paths_in_data():
    from blockyard import paths

    return list(paths.data_dir().iterdir())


# -- issue 22, reproducer 8: blockyard play FILE.toml, the first time and with --watch -----

TINY_MOD = """[ruleset]
extends = "eu-classic"
id = "tiny-mod"
name = "Tiny mod"

[help]
text = "Place the pieces; full rows and columns clear."
"""


def test_a_new_rule_file_plays_the_first_time_with_its_how_to_page(ui, tmp_path):
    rules = tmp_path / "my-rules.toml"
    rules.write_text(TINY_MOD)
    ui.app.settings.help_seen = []
    game = ui.app.start_game(str(rules), seed=3)  # was "unknown ruleset 'tiny-mod'"
    from blockyard.frontend.pages import HelpView

    page = ui.view
    assert isinstance(page, HelpView) and page.ruleset is game.ruleset
    assert "tiny-mod" in ui.app.settings.help_seen
    ui.key("Escape")
    assert isinstance(ui.view, TrayGameView) and ui.view.game is game
    ui.view.show_help()  # the page again, from the pause menu of the game
    assert isinstance(ui.view, HelpView)
    ui.key("Escape")
    game.end_round()
    ui.app.finish_game(game)
    ui.app.restart(game)  # play again: the file's rules, not an id to look up
    assert isinstance(ui.view, TrayGameView) and ui.view.game.ruleset.id == "tiny-mod"


def test_watch_says_a_refused_edit_in_the_window_and_keeps_the_rules(ui, tmp_path):
    rules = tmp_path / "my-rules.toml"
    rules.write_text(TINY_MOD)
    ui.app.settings.help_seen.append("tiny-mod")
    game = ui.app.start_game(str(rules), seed=3)
    import arcade

    check = ui.app.watch_rule_file(str(rules))
    try:
        view = ui.view
        rules.write_text(TINY_MOD.replace('extends = "eu-classic"', 'extends = "eu-clasic"'))
        check(0.5)
        ui.pump(2)
        assert ui.view is view and view.game is game
        assert view.message.startswith("The edit of my-rules.toml was refused; the current "
                                       "rules stay: ")
        assert "eu-clasic" in view.message
        rules.write_text(TINY_MOD.replace("Tiny mod", "Tiny mod 2"))
        check(0.5)
        ui.pump(2)
        assert ui.view.game.ruleset.name == "Tiny mod 2"
    finally:
        arcade.unschedule(check)


def test_blockyard_play_a_new_rule_file_opens_the_window_the_first_time(tmp_path):
    rules = tmp_path / "my-rules.toml"
    rules.write_text(TINY_MOD)
    env = {**os.environ, "BLOCKYARD_HOME": str(tmp_path / "home")}
    for watch in ([], ["--watch"]):
        done = subprocess.run([sys.executable, "-m", "blockyard", "--quit-after", "1", "play",
                               str(rules), *watch], capture_output=True, text=True, env=env,
                              timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "unknown ruleset" not in done.stdout + done.stderr


@pytest.mark.parametrize("answer", ["resume", "new"])
def test_play_ruleset_asks_before_ending_a_game_in_progress(ui, window, isolated_home, answer):
    # `blockyard play tiered` with a tiered game in progress: asked as the launcher asks
    game = blockyard.new_game("tiered", seed=5)
    game.place(*game.legal_moves()[0])
    save_game(SavedGame("tiered", game))
    path = saves_dir() / "tiered.json"
    process = start_process(isolated_home, ruleset="tiered")
    try:
        wid = process.shown(ui.wid)
        # not ended while the question is on screen
        assert json.loads(path.read_text())["snapshot"]["moves"] == 1
        assert not list(replays_dir().glob("*"))
        if answer == "resume":  # the first choice: resume that game, then place a piece
            process.keys(wid, "Return", "2", "Return")
            wait_for(lambda: json.loads(path.read_text())["snapshot"]["moves"] == 2)
        else:  # end it and start a new one: recorded with its replay
            process.keys(wid, "Down", "Return")
            wait_for(lambda: len(list(replays_dir().glob("*"))) == 1)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    relaunch(ui, window)
    if answer == "resume":
        assert ui.app.records.stats("tiered").games == 0
    else:
        assert ui.app.records.stats("tiered").games == 1


def test_an_opened_untouched_game_is_not_saved_nor_offered(ui, window):
    game = ui.app.start_game("eu-classic", seed=5)
    assert game.moves == 0 and not (saves_dir() / "eu-classic.json").exists()
    ui.key("Escape", "Down", "Down", "Return")  # pause → back to the launcher
    assert isinstance(ui.view, LauncherView)
    assert not any(e.resume for e in ui.view.entries)
    # a save of an untouched game left by an earlier version: dropped at the start
    save_game(SavedGame("tiered", blockyard.new_game("tiered", seed=2)))
    relaunch(ui, window)
    assert not any(e.resume for e in ui.view.entries)
    assert not (saves_dir() / "tiered.json").exists()


def test_the_launcher_scrolls_by_rows_and_pages(ui):
    ui.resize(720, 600)
    view = launcher(ui)
    step = view.row_step()
    assert step >= 40
    row = view.entries[0]
    middle = (row.rect.center_x, (view.list_top + view.list_bottom) / 2)
    ui.move(*middle)
    top = view.entries[0].rect.top
    ui.xdo("click", "5")  # one real wheel notch down: one row
    assert view.entries[0].rect.top == pytest.approx(top + step)
    ui.xdo("click", "4")
    assert view.entries[0].rect.top == pytest.approx(top)
    last = len(view.entries) - 1
    ui.key("End")
    assert view.selected == last
    assert view.entries[last].rect.bottom >= view.list_bottom - 1
    ui.key("Home")
    assert view.selected == 0 and view.scroll == 0
    ui.key("Next")  # Page Down: a screenful of rows
    page = view.rows_per_page()
    assert page >= 2 and view.selected == min(last, page)
    ui.key("Prior")
    assert view.selected == 0


def test_going_round_the_launcher_list_is_said(ui):
    view = launcher(ui)
    ui.key("End", "Down")
    assert view.selected == 0
    assert view.round_note.text == "↓ went round to the first row"
    image = ui.screenshot()
    assert image.getbbox() is not None
    ui.key("Up")
    assert view.selected == len(view.entries) - 1
    assert view.round_note.text == "↑ went round to the last row"
    ui.key("Up")
    assert view.round_note.text == ""
