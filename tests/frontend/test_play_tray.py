"""``blockyard play RULESET --tray bomb:# dot:#``: the window starts the game
with the given tray, so a modder sees a piece's look on screen (and in a
``--screenshot``) without waiting for the deal."""

from __future__ import annotations

import os
import subprocess
import sys

from PIL import Image
from rule_texts import TRAY_LOOKS

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.app import run

RULES = TRAY_LOOKS + """[help]
text = "Drag pieces onto the board."
"""


def near(actual, expected, tolerance=10):
    return all(abs(a - e) <= tolerance for a, e in zip(actual[:3], expected[:3], strict=True))


def tinted(ink, colour):
    return tuple(round(i * c / 255) for i, c in zip(ink[:3], colour[:3], strict=True))


def slot_centres(view):
    return [(view.layout.slots[s].center_x, view.layout.slots[s].center_y) for s in (0, 1)]


def test_the_window_starts_the_game_with_the_given_tray(ui, tmp_path):
    path = tmp_path / "tray-looks.toml"
    path.write_text(RULES, encoding="utf-8")
    ruleset = blockyard.load_ruleset(path)
    ui.app.settings.help_seen = []  # a new rule file, with a how-to-play page: not shown
    # seed 3 deals a bomb and a dot, in the other order: the tray given is what shows
    assert [p.family for p in blockyard.new_game(ruleset, seed=3).tray[:2]] == ["bomb", "dot"]
    ui.app.confirm_new_game(ruleset, ui.app.show_launcher, 3, tray=["dot:#", "bomb:#"])
    ui.pump(3)
    view = ui.view
    game = view.game
    assert [p and p.name for p in game.tray] == ["dot:#", "bomb:#", None]
    assert game.seed == 3 and game.log[0][1]["tray"] == ["dot:#", "#", None]  # "#": the bomb
    bomb_ink = tinted(theme.MARK_INK, view.colour(game.tray[1].colour))
    dot_ink = tinted(theme.MARK_INK, view.colour(game.tray[0].colour))
    (dx, dy), (bx, by) = slot_centres(view)
    assert near(ui.pixel(bx, by), bomb_ink)        # the bomb's burst, on screen
    assert not near(ui.pixel(dx, dy), dot_ink, 30)  # the dot: no mark


def test_run_refuses_a_tray_the_ruleset_cannot_start_with(tmp_path, capsys, monkeypatch):
    import blockyard.frontend.app as app_module

    monkeypatch.setattr(app_module, "use_window_watchdog", lambda: 2.0)  # no process default
    path = tmp_path / "tray-looks.toml"
    path.write_text(RULES, encoding="utf-8")
    assert run(ruleset=str(path), tray=["spark:#"]) == 2
    assert "blockyard: --tray: tray slot 0: ruleset 'tray-looks' has no piece 'spark:#'" \
        in capsys.readouterr().out


def test_play_tray_with_a_screenshot_shows_the_bomb(ui, tmp_path):
    """The command itself, in its own process: its screenshot has the bomb's burst
    where this window (of the same size) draws the first tray slot."""
    path = tmp_path / "tray-looks.toml"
    path.write_text(RULES, encoding="utf-8")
    shot = tmp_path / "shot.png"
    env = {**os.environ, "BLOCKYARD_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "blockyard", "--screenshot", str(shot), "play",
                           str(path), "--seed", "3", "--tray", "dot:#", "bomb:#"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    image = Image.open(shot).convert("RGB")
    assert image.size == (ui.window.width, ui.window.height)
    view, game = ui.show_game(blockyard.load_ruleset(path), tray=["dot:#", "bomb:#"], seed=3)
    bomb_ink = tinted(theme.MARK_INK, view.colour(game.tray[1].colour))
    (dx, dy), (bx, by) = slot_centres(view)
    at = [image.getpixel((round(x), image.height - 1 - round(y))) for x, y in ((bx, by), (dx, dy))]
    assert near(at[0], bomb_ink), at  # the burst in the second slot, where the bomb was put
    assert not near(at[1], tinted(theme.MARK_INK, view.colour(game.tray[0].colour)), 30), at
