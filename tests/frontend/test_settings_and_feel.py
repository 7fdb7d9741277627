"""Settings, sound effects and the feel of a move, with real input events on the
virtual screen: every setting changes the next frame's pixels and survives a
restart; each event triggers its sound (pyglet's silent driver, the player's
log); effects start, and stay off under reduced motion."""

from __future__ import annotations

import signal
import subprocess
import time
import tomllib

import pytest
from window_process import DEADLINE, process_window, relaunch, start_process

import blockyard
from blockyard.frontend import colourvision, theme
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.pages import SettingsView, setting_options
from blockyard.frontend.persistence import Settings
from blockyard.frontend.sound import SOUNDS, pitch, synthesise
from blockyard.frontend.sudoku_view import SudokuView
from blockyard.frontend.summary_view import SummaryView
from blockyard.frontend.tray_view import TrayGameView

ROW = {option.name: i for i, option in enumerate(setting_options())}


def open_settings_from_launcher(ui):
    ui.app.show_launcher()
    ui.pump(2)
    button = ui.view.settings_button.rect
    ui.click(button.center_x, button.center_y)
    assert isinstance(ui.view, SettingsView)


def change(ui, name, presses=1):
    """Select a settings row with ↓ and change it with → (real keys)."""
    view = ui.view
    ui.key(*["Up"] * (view.selected - 0))  # back to the first row
    ui.key(*["Down"] * ROW[name])
    for _ in range(presses):
        ui.key("Right")


def drop_at(ui, slot, row, col):
    """Drag the piece of ``slot`` so that its top-left cell lands on (row, col)."""
    view = ui.view
    piece = view.game.tray[slot]
    x, y = view.input.drag_point(piece, row, col)
    start = view.layout.slots[slot]
    ui.drag([(start.center_x, start.center_y), (start.center_x, start.center_y + 30),
             ((start.center_x + x) / 2, (start.center_y + y) / 2), (x, y)])


def sounds(ui):
    return [name for name, _speed in ui.app.sounds.log]


# -- the settings screen ---------------------------------------------------------------------

def test_theme_changes_the_next_frame_and_survives_a_restart(ui, window):
    open_settings_from_launcher(ui)
    assert ui.pixel(3, 3) == theme.THEMES["dark"]["BACKGROUND"][:3]
    change(ui, "theme")
    assert ui.pixel(3, 3) == theme.THEMES["light"]["BACKGROUND"][:3]
    change(ui, "theme")
    assert ui.pixel(3, 3) == theme.THEMES["high-contrast"]["BACKGROUND"][:3]
    saved = tomllib.loads(Settings.path().read_text(encoding="utf-8"))
    assert saved["theme"] == "high-contrast"
    ui.key("Escape")
    assert isinstance(ui.view, LauncherView)
    assert ui.pixel(3, 3) == theme.THEMES["high-contrast"]["BACKGROUND"][:3]
    theme.apply()  # as a new process starts
    relaunch(ui, window)
    assert ui.app.settings.theme == "high-contrast"
    assert ui.pixel(3, 3) == theme.THEMES["high-contrast"]["BACKGROUND"][:3]


def test_every_setting_is_saved_and_read_back(ui, window):
    open_settings_from_launcher(ui)
    change(ui, "sound")
    change(ui, "volume")           # 0.7 → 0.8
    change(ui, "reduced_motion")
    change(ui, "palette")
    change(ui, "patterns")
    loaded = Settings.load()
    assert (loaded.sound, loaded.volume, loaded.reduced_motion, loaded.palette,
            loaded.patterns) == (False, pytest.approx(0.8), True, "colour-blind", True)
    relaunch(ui, window)
    assert ui.app.settings.palette == "colour-blind" and theme.patterns_on
    assert theme.PALETTES["colour-blind"] == theme.PALETTE


def test_window_mode_full_screen_opens_the_next_window_full_screen(ui, isolated_home):
    # pyglet recreates the X window to go full screen, which the shared test window must
    # not do: the setting is checked on a window of its own, in a process of its own
    open_settings_from_launcher(ui)
    view = ui.view
    assert view.value_word(view.options[ROW["window_mode"]]) == "Window"
    settings = Settings.load()
    settings.window_mode = "fullscreen"
    settings.save()
    process = start_process(isolated_home)
    screen = subprocess.run(["xdotool", "getdisplaygeometry"], capture_output=True,
                            text=True, check=True).stdout.split()
    full = f"Geometry: {screen[0]}x{screen[1]}"
    try:
        # pyglet may replace its X window on the way to full screen: look the window up
        # again on every try, until it is full screen (a wait on that, with the window
        # process's deadline: a count of tries was a bound in wall seconds)
        geometries: list[str] = []
        deadline = time.monotonic() + DEADLINE
        while not geometries or full not in geometries[-1]:
            assert time.monotonic() < deadline, geometries[-3:]
            if geometries:
                time.sleep(0.25)  # the polling interval of this wait (a window lookup each)
            wid = process_window(ui.wid)
            geometries.append(subprocess.run(["xdotool", "getwindowgeometry", wid],
                                             capture_output=True, text=True).stdout)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize("value, problem", [("volume = 3", "volume"),
                                            ('theme = "pink"', "theme"),
                                            ("sound = 1", "sound")])
def test_bad_setting_values_are_set_aside_with_a_message(isolated_home, value, problem):
    path = Settings.path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'{value}\nlast_ruleset = "tiered"\n', encoding="utf-8")
    notices: list[str] = []
    with pytest.warns(UserWarning, match="settings file"):
        loaded = Settings.load(notices)
    assert loaded.last_ruleset == "tiered" and problem in notices[0]
    assert loaded == Settings(last_ruleset="tiered")


def test_palette_and_patterns_change_the_board_at_once_from_the_pause_menu(ui):
    game = blockyard.new_game("eu-classic", seed=1, tray=["#", "##", "###"])
    ui.app.show_game(game)
    ui.pump(2)
    drop_at(ui, 0, 4, 4)
    assert game.board[4][4]
    index = game.board[4][4]
    x, y = ui.view.layout.cell_center(4, 4)
    assert ui.pixel(x, y) == theme.PALETTES["standard"][(index - 1) % 12][:3]
    ui.key("Escape", "Down", "Down", "Down", "Down", "Return")  # pause → Settings
    assert isinstance(ui.view, SettingsView)
    change(ui, "palette")
    ui.key("Escape")  # back to the game
    view = ui.view
    assert isinstance(view, TrayGameView) and view.game is game
    expected = theme.PALETTES["colour-blind"][(index - 1) % 8][:3]
    assert ui.pixel(x, y) == expected
    plain = cell_pixels(ui, x, y)
    ui.key("Escape", "Down", "Down", "Down", "Down", "Return")
    change(ui, "patterns")
    ui.key("Escape")
    patterned = cell_pixels(ui, x, y)
    dark = [p for p in patterned if sum(p) < sum(expected) * 0.5]
    assert len(dark) > 30 and not [p for p in plain if sum(p) < sum(expected) * 0.5]


def cell_pixels(ui, x, y):
    image = ui.screenshot()
    half = ui.view.layout.cell * 0.3
    top = ui.window.height - 1
    return [image.getpixel((round(x + dx), round(top - y + dy)))[:3]
            for dx in range(-int(half), int(half)) for dy in range(-int(half), int(half))]


# -- colour vision ---------------------------------------------------------------------------

THRESHOLD = 20.0  # CIE76 ΔE: clearly another colour at a glance


@pytest.mark.parametrize("vision", ["normal", "protanopia", "deuteranopia", "tritanopia"])
def test_the_colour_blind_palette_stays_apart_under_each_colour_vision(vision):
    palette = theme.PALETTES["colour-blind"]
    assert colourvision.smallest_difference(palette, vision) >= THRESHOLD
    for colours in theme.THEMES.values():  # and apart from every theme's empty cells
        for empty in (colours["EMPTY_CELL"], colours["BLOCK_SHADE"]):
            assert min(colourvision.delta_e(c, empty, vision) for c in palette) >= 10


def test_the_standard_palette_would_fail_that_check():
    smallest = min(colourvision.smallest_difference(theme.PALETTES["standard"], v)
                   for v in ("protanopia", "deuteranopia", "tritanopia"))
    assert smallest < THRESHOLD / 2


def test_simulation_matches_known_values():
    # pure red and green collapse for a protanope and a deuteranope, not for a tritanope
    red, green = (255, 0, 0), (0, 255, 0)
    assert colourvision.delta_e(red, green) > 80
    assert colourvision.delta_e(red, green, "tritanopia") > 80
    assert colourvision.delta_e((200, 0, 0), (120, 120, 0), "deuteranopia") < 20
    assert colourvision.simulate((255, 255, 255), "protanopia") == pytest.approx(
        (1.0, 1.0, 1.0), abs=0.01)


def test_every_colour_has_its_own_pattern():
    textures = {theme.cell_texture(p).image.tobytes() for p in theme.PATTERNS}
    assert len(textures) == len(theme.PATTERNS) == len(theme.PALETTES["colour-blind"])


# -- sounds ----------------------------------------------------------------------------------

def test_sounds_are_made_once_as_wav_data():
    import io
    import wave

    for name in SOUNDS:
        data = synthesise(name)
        with wave.open(io.BytesIO(data)) as wav:
            assert wav.getnchannels() == 1 and wav.getsampwidth() == 2
            assert 0.03 < wav.getnframes() / wav.getframerate() < 1.0
        assert synthesise(name) == data  # deterministic
    assert pitch(1) == 1.0 and pitch(2) > 1.0 and pitch(3) > pitch(2)


CLEAR_TWICE = "\n".join(["#########.", "#########."] + ["." * 10] * 8)


def test_pick_up_place_clear_with_rising_pitch_and_perfect_clear(ui):
    game = blockyard.new_game("eu-classic", seed=1, board=CLEAR_TWICE, tray=["#", "#", "#"])
    ui.app.show_game(game)
    ui.pump(2)
    log = ui.app.sounds.log
    drop_at(ui, 0, 0, 9)
    assert sounds(ui) == ["pickup", "place", "clear"]
    assert "particles" in ui.view.effects and ui.view.animating()
    drop_at(ui, 1, 1, 9)
    assert sounds(ui)[3:] == ["pickup", "place", "clear", "perfect"]
    first, second = [speed for name, speed in log if name == "clear"]
    assert first == 1.0 and second == pytest.approx(pitch(2)) and second > first
    assert ui.view.effects == ["particles", "particles", "combo", "perfect"]
    assert ui.view.board_section.big_combo_text.text == "Combo x2"
    ui.pump(90)  # the effects end: the window stops drawing
    assert not ui.view.animating()


def test_an_invalid_drop_buzzes_and_shakes_the_board(ui):
    game = blockyard.new_game("eu-classic", seed=1, board=CLEAR_TWICE, tray=["##", "#", "#"])
    ui.app.show_game(game)
    ui.pump(2)
    drop_at(ui, 0, 0, 3)  # on filled cells
    assert sounds(ui) == ["pickup", "invalid"] and game.moves == 0
    assert ui.view.effects == ["shake"]
    ui.pump(1, dt=0.05)
    assert theme.BAD[:3] in left_of_board(ui)  # the red edge, shaken
    ui.pump(30)
    assert not ui.view.animating() and theme.BAD[:3] not in left_of_board(ui)


def left_of_board(ui):
    image = ui.screenshot()
    board = ui.view.layout.board
    y = ui.window.height - 1 - round(board.center_y)
    return {image.getpixel((x, y))[:3] for x in range(round(board.left) - 24,
                                                       round(board.left))}


def test_reduced_motion_keeps_sounds_and_drops_every_effect(ui):
    open_settings_from_launcher(ui)
    change(ui, "reduced_motion")
    game = blockyard.new_game("eu-classic", seed=1, board=CLEAR_TWICE, tray=["##", "#", "#"])
    ui.app.show_game(game)
    ui.pump(2)
    drop_at(ui, 0, 0, 3)
    drop_at(ui, 1, 0, 9)
    drop_at(ui, 2, 1, 9)
    assert sounds(ui)[-9:] == ["pickup", "invalid", "pickup", "place", "clear", "pickup",
                               "place", "clear", "perfect"]
    assert ui.view.effects == []
    ui.pump(2)
    assert not ui.view.animating() or ui.view.board_section.perfect_age < 1.2 \
        or ui.view.board_section.labels


def test_sound_off_plays_nothing(ui):
    open_settings_from_launcher(ui)
    change(ui, "sound")
    ui.app.sounds.log.clear()
    game = blockyard.new_game("eu-classic", seed=1, board=CLEAR_TWICE, tray=["#", "#", "#"])
    ui.app.show_game(game)
    drop_at(ui, 0, 0, 9)
    assert game.moves == 1 and ui.app.sounds.log == []


def test_swap_game_over_and_new_record(ui):
    ui.app.start_game("tiered", seed=3)
    ui.key("s", "s")
    assert sounds(ui)[-1] == "swap"
    stuck = "\n".join(["#.#.#.#.#", ".#.#.#.#."] * 4 + ["#.#.#.#.#"])
    game = blockyard.new_game("woodoku", seed=3, board=stuck, tray=["#", "#####", None])
    ui.app.show_game(game)
    ui.pump(2)
    drop_at(ui, 0, 0, 1)
    assert game.over and sounds(ui)[-2:] == ["place", "game_over"]
    ui.pump(60)
    # a game from a chosen start is practice: no record, no record sound
    assert isinstance(ui.view, SummaryView) and ui.view.summary.practice
    assert not ui.view.summary.new_record and sounds(ui)[-1] != "record"
    ui.app.start_game("woodoku", seed=3)  # the rules' own deal: its first game is a record
    ui.key("1", "Return", "e", "e")
    ui.pump(60)
    assert isinstance(ui.view, SummaryView) and ui.view.summary.new_record
    assert sounds(ui)[-1] == "record"


def test_sudoku_place_error_and_discard(ui):
    game = blockyard.new_game("sudoku-bloxx", seed=1, stream="5 5 6")
    ui.app.show_game(game)
    ui.pump(2)
    assert isinstance(ui.view, SudokuView)
    ui.key("space")
    assert sounds(ui)[-1] == "place"
    ui.key("space")
    assert sounds(ui)[-1] == "error" and game.errors == 1
    full = "\n".join("...." + "123456789"[r] + "...." for r in range(9))
    game = blockyard.new_game("sudoku-bloxx", seed=1, stream="5 6", board=full)
    ui.app.show_game(game)
    ui.pump(2)
    while game.current.col < 4:
        ui.key("Right")
    ui.key("space")
    assert sounds(ui)[-1] == "discard" and game.last_landing.discarded


def test_sudoku_completed_row_sweeps_and_sounds_and_not_under_reduced_motion(ui):
    row = "\n".join(["........."] * 8 + ["12345678."])
    for reduced in (False, True):
        ui.app.settings.reduced_motion = reduced
        game = blockyard.new_game("sudoku-bloxx", seed=1, stream="9", board=row)
        ui.app.show_game(game)
        ui.pump(2)
        while game.current.col < 8:
            ui.key("Right")
        ui.key("space")
        view = ui.view
        assert game.last_landing.completed == [("row", 8)]
        assert sounds(ui)[-2:] == ["place", "clear"]
        assert view.effects == ([] if reduced else ["sweep"])
        if not reduced:
            assert len(view.board_section.sweep) == 9 and view.animating()


def test_nepali_digits_can_be_switched_off_in_the_settings(ui, window):
    from blockyard.frontend import i18n

    open_settings_from_launcher(ui)
    ui.app.set_language("ne")
    ui.pump(2)
    assert i18n.localise_digits("1234") == "१२३४"
    if not isinstance(ui.view, SettingsView):
        open_settings_from_launcher(ui)
    change(ui, "native_digits")  # On → Off
    assert Settings.load().native_digits is False
    assert i18n.localise_digits("1234") == "1234"
    relaunch(ui, window)
    assert ui.app.settings.native_digits is False
    ui.app.set_language("en")
