"""Duels, challenge codes and replays from the launcher, with real input events."""

from __future__ import annotations

import subprocess
import sys

import blockyard
from blockyard.challenge import decode, encode
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.menus import MenuView, PromptView
from blockyard.frontend.replay_view import ReplayView
from blockyard.frontend.sudoku_view import SudokuView
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView
from blockyard.replays import list_replays


def launcher_on(ui, ruleset_id):
    ui.app.show_launcher()
    ui.pump(2)
    view = ui.view
    assert isinstance(view, LauncherView)
    view.selected = next(i for i, e in enumerate(view.entries) if e.ruleset_id == ruleset_id)
    return view


def clear_field(ui, view):
    for _ in range(len(view.values[view.focus])):
        ui.key("BackSpace")


def test_a_duel_gives_both_players_the_same_pieces(ui):
    launcher_on(ui, "tiered")
    ui.key("d")
    prompt = ui.view
    assert isinstance(prompt, PromptView)
    clear_field(ui, prompt)
    ui.type("Ana")
    ui.key("Tab")
    clear_field(ui, prompt)
    ui.type("Bo")
    ui.key("Return")
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Ana's turn"
    ui.key("Return")
    first = ui.view
    assert isinstance(first, TrayGameView)
    trays = [first.game.tray]
    ui.key("1", "Return", "2", "Return")
    ui.key("e", "e")
    ui.pump(50)
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Bo's turn"
    assert any("Ana scored" in t.text for t in ui.view.lines)
    ui.key("Return")
    second = ui.view
    assert isinstance(second, TrayGameView) and second.game is not first.game
    trays.append(second.game.tray)
    assert trays[0] == trays[1] and second.game.seed == first.game.seed
    ui.key("e", "e")
    ui.pump(50)
    result = ui.view
    assert isinstance(result, MenuView) and result.title.text == "Duel result"
    lines = [t.text for t in result.lines]
    assert any(line.startswith("Ana:") for line in lines)
    assert any(line.startswith("Bo:") for line in lines)
    labels = [b.label for b in result.buttons]
    assert labels == ["Watch Ana's game", "Watch Bo's game", "New duel", "Leave"]
    ui.key("Return")  # watch Ana's game
    assert isinstance(ui.view, ReplayView)
    assert ui.view.replay.player == "Ana"
    ui.key("Escape")
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Duel result"
    ui.key("Down", "Down", "Return")  # new duel: the same players, results cleared
    assert ui.view.title.text == "Ana's turn"
    assert ui.app.duel.names == ["Ana", "Bo"] and ui.app.duel.results == []
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView) and ui.app.duel is None


def test_the_summary_offers_a_challenge_code_for_the_same_deal(ui):
    game = ui.app.start_game("nepal-new", seed=777)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    summary = ui.view
    assert isinstance(summary, SummaryView)
    code = summary.code
    assert summary.code_text.text == f"Challenge a friend: {code}"
    assert decode(code) == decode(encode("nepal-new", 777, game.score))


def test_a_challenge_code_from_the_launcher(ui):
    launcher_on(ui, "eu-classic")
    ui.key("c")
    prompt = ui.view
    assert isinstance(prompt, PromptView)
    code = encode("arcadeforge", 4242, 350)
    typo = code[:-1] + ("0" if code[-1] != "0" else "1")
    ui.type(typo)
    ui.key("Return")
    assert ui.view is prompt
    plain = code.replace("-", "")
    assert prompt.error_text.text == (
        f"The code is mistyped: character {len(plain)} (“{typo[-1]}”) is probably "
        f"“{code[-1]}”.")
    clear_field(ui, prompt)
    ui.type(code.lower())
    ui.key("Return")
    view = ui.view
    assert isinstance(view, TrayGameView)
    assert view.game.ruleset.id == "arcadeforge" and view.game.seed == 4242
    assert view.best_text.text == "To beat 350"
    assert view.game.tray == blockyard.new_game("arcadeforge", seed=4242).tray


def test_a_replay_reproduces_a_finished_sudoku_game_exactly(ui):
    game = ui.app.start_game("sudoku-bloxx", seed=31)
    view = ui.view
    assert isinstance(view, SudokuView)
    ui.key("Left", "space", "Right", "Right", "space")
    ui.pump(40, dt=0.05)
    ui.key("Right", "Down")
    ui.key_down("Down")
    ui.pump(10, dt=0.05)
    ui.key_up("Down")
    ui.key("space", "Escape")
    ui.key("Down", "Down", "Return")  # pause → back to the launcher: the game stays saved
    ui.app.resume(game)
    ui.pump(20, dt=0.05)
    game.end_round()
    ui.pump(60, dt=0.05)
    summary = ui.view
    assert isinstance(summary, SummaryView)
    final = game.snapshot()
    ui.key("w")
    replay = ui.view
    assert isinstance(replay, ReplayView)
    ui.key("4")
    for _ in range(400):
        if replay.finished:
            break
        ui.pump(1, dt=0.1)
    assert replay.finished
    assert replay.game.snapshot() == final
    assert replay.game.board_text() == game.board_text()
    ui.key("Escape")
    assert isinstance(ui.view, SummaryView)


def test_replay_controls_pause_step_and_speed(ui):
    game = ui.app.start_game("eu-classic", seed=9)
    for _ in range(4):
        slot = next(i for i, piece in enumerate(game.tray) if piece is not None)
        ui.key(str(slot + 1), "Return")
    ui.key("e", "e")
    ui.pump(50)
    ui.key("w")
    replay = ui.view
    ui.key("space")
    assert not replay.playing
    ui.pump(30)
    assert replay.index == 0
    ui.key("Right")
    assert replay.index == 1 and replay.game.moves == 1
    ui.key("2")
    assert replay.speed == 2 and "×2" in replay.status.text
    ui.key("space")
    ui.pump(200, dt=0.05)
    assert replay.finished and replay.game.snapshot() == game.snapshot()


def test_a_replay_whose_rule_file_changed_is_refused_with_a_message(ui, isolated_home):
    folder = isolated_home / "config" / "rulesets"
    folder.mkdir(parents=True)
    rules = folder / "mine.toml"
    rules.write_text('[ruleset]\nextends = "eu-classic"\nid = "mine"\nname = "Mine"\n')
    ui.app.start_game("mine", seed=3)
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert len(list_replays("mine")) == 1
    rules.write_text('[ruleset]\nextends = "eu-classic"\nid = "mine"\nname = "Mine"\n'
                     "[plugins.line-scoring]\nperfect_clear = 1\n")
    launcher_on(ui, "mine")
    ui.key("r")
    menu = ui.view
    assert isinstance(menu, MenuView) and menu.title.text == "Replays: Mine"
    ui.key("Return")
    refused = ui.view
    assert isinstance(refused, MenuView) and refused.title.text == "Cannot show this replay"
    # the rule that changed, with both values
    assert ("the rules of 'mine' differ: played with plugins.line-scoring.perfect_clear = "
            "2000; this installation has 1") in " ".join(refused.lines[0].text.split())


def test_command_line_challenge_and_replay_errors():
    bad = subprocess.run([sys.executable, "-m", "blockyard", "play", "--challenge", "ZZZZ"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "challenge code has 4 characters" in bad.stdout
    missing = subprocess.run([sys.executable, "-m", "blockyard", "replay", "/no/such.json"],
                             capture_output=True, text=True)
    assert missing.returncode == 2 and "not a readable replay file" in missing.stdout


def test_the_replay_list_shows_the_rebuilt_games_score_never_the_files_claim(ui):
    # issue 22, reproducer 2: the launcher's replay list printed the file's score
    import json

    from blockyard.replays import replays_dir

    game = blockyard.new_game("tiered", seed=5)
    for _ in range(3):
        game.place(*game.legal_moves()[0])
    game.end_round()
    ui.app.finish_game(game)
    honest, = list_replays("tiered")
    data = json.loads(honest.read_text())
    data["score"] = 987654
    (replays_dir("tiered") / "00000000-altered.json").write_text(json.dumps(data))
    ui.app.show_replays("tiered")
    ui.pump(2)
    labels = [b.label for b in ui.view.buttons]
    assert len(labels) == 3 and labels[-1] == "Back"
    assert labels[0].endswith(f"{game.score} points") and game.score != 987654
    assert labels[1].endswith("cannot be shown") and "987" not in labels[1]
    ui.key("Down", "Return")
    refused = ui.view
    assert isinstance(refused, MenuView) and refused.title.text == "Cannot show this replay"
    assert "score: the file says 987654 but its log plays" in refused.lines[0].text


def test_closing_the_window_on_the_hand_over_screen_keeps_the_duel(ui, window):
    from blockyard.frontend.app import BlockyardApp

    launcher_on(ui, "tiered")
    ui.key("d")
    prompt = ui.view
    clear_field(ui, prompt)
    ui.type("Ann")
    ui.key("Tab")
    clear_field(ui, prompt)
    ui.type("Bob")
    ui.key("Return", "Return")  # names given, Ann starts
    ann = ui.view.game
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Bob's turn"
    # the window is closed here: a new app reads the same folders, as a new process would
    app = BlockyardApp(window)
    window.app = ui.app = app
    app.show_launcher()
    ui.pump(3)
    entry = ui.view.entries[0]
    assert entry.resume is not None
    assert entry.title == "Resume: Tiered Blocks — duel, Bob's turn"
    ui.key("Return")  # resume: the hand-over screen again, with Ann's score
    assert isinstance(ui.view, MenuView) and ui.view.title.text == "Bob's turn"
    assert any(t.text == f"Ann scored {ann.score}." for t in ui.view.lines)
    ui.key("Return")
    bob = ui.view
    assert isinstance(bob, TrayGameView) and bob.game.seed == ann.seed
    assert bob.game.tray == blockyard.new_game("tiered", seed=ann.seed).tray
    ui.key("e", "e")
    ui.pump(50)
    result = ui.view
    assert isinstance(result, MenuView) and result.title.text == "Duel result"
    lines = [t.text for t in result.lines]
    assert any(line.startswith(f"Ann:  {ann.score} points") for line in lines)
    assert any(line.startswith("Bob:") for line in lines)
    app.show_launcher()
    ui.pump(2)
    assert not any(e.resume for e in ui.view.entries)  # the duel is over: nothing left


def test_leaving_a_duel_at_the_hand_over_leaves_no_game_to_resume(ui):
    launcher_on(ui, "tiered")
    ui.key("d", "Return", "Return")
    ui.key("1", "Return", "e", "e")
    ui.pump(50)
    assert isinstance(ui.view, MenuView) and ui.view.title.text.endswith("'s turn")
    ui.key("Escape")  # leave the duel
    assert isinstance(ui.view, LauncherView) and ui.app.duel is None
    assert not any(e.resume for e in ui.view.entries)


def ink_in(ui, text):
    """How many pixels of the screen differ from the background inside ``text``'s box."""
    image = ui.screenshot().convert("RGB")
    left = round(text.x - text.content_width / 2)
    top = image.height - 1 - round(text.y + text.content_height / 2)
    box = image.crop((left, top, left + round(text.content_width),
                      top + round(text.content_height)))
    background = image.getpixel((0, image.height // 2))
    return sum(1 for p in box.getdata() if p != background)


def test_a_duel_turn_says_whose_turn_it_is_in_the_hud(ui):
    launcher_on(ui, "tiered")
    ui.key("d")
    prompt = ui.view
    clear_field(ui, prompt)
    ui.type("Ann")
    ui.key("Tab")
    clear_field(ui, prompt)
    ui.type("Bob")
    ui.key("Return", "Return")
    view = ui.view
    assert isinstance(view, TrayGameView) and view.best_text.text == "Ann's turn"
    assert ink_in(ui, view.best_text) > 20
    ui.key("1", "Return")
    score = view.game.score
    ui.key("e", "e")
    ui.pump(50)
    ui.key("Return")
    view = ui.view
    assert view.best_text.text == f"Bob's turn  ·  To beat {score}"
    assert ink_in(ui, view.best_text) > 20


def test_a_sudoku_duel_turn_says_whose_turn_it_is(ui):
    from blockyard.frontend import duel

    ui.app.duel = duel.Duel("sudoku-bloxx", 7, ["Ann", "Bob"])
    ui.app.start_game("sudoku-bloxx", 7)
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SudokuView)
    assert view.clock_text.text.endswith("   ·   Ann's turn")
