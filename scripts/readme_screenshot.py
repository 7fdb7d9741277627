"""Regenerate the README's pictures on a virtual screen: docs/screenshot.png (a
game), docs/statistics.png (the statistics of a daily ruleset after a month of
bot games) and docs/colour-blind.png (a game with the colour-blind palette and
patterns).

Usage: python scripts/readme_screenshot.py   (needs Xvfb, like the frontend tests)
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()
    os.environ["BLOCKYARD_HOME"] = tempfile.mkdtemp(prefix="blockyard-shot-")
    import arcade

    import blockyard
    from blockyard.frontend.app import BlockyardApp, BlockyardWindow

    window = BlockyardWindow(720, 960, "Blockyard")
    app = BlockyardApp(window)
    board = "\n".join([
        "..........", "..........", "....##....", "...###....", "#.####..##",
        "##.###.###", "#######.##", "#######.##", "#######...", "#####....#"])
    game = blockyard.new_game("eu-classic", seed=7, board=board,
                              tray=["#/#/#", "##/#.", "###/###/###"])
    game.score, game.combo = 1240, 2
    app.show_game(game)
    view = window.current_view
    view.refresh()
    slot = view.layout.slots[0]
    view.on_mouse_press(slot.center_x, slot.center_y, arcade.MOUSE_BUTTON_LEFT, 0)
    # the I3 dropped on column 7 from row 6 completes rows 6 and 7
    x, y = view.input.drag_point(game.tray[0], 6, 7)
    view.on_mouse_drag(x, y, 1, 1, arcade.MOUSE_BUTTON_LEFT, 0)
    for _ in range(3):
        window.dispatch_events()
        view.on_draw()
        window.flip()
    view.on_draw()
    out = ROOT / "docs" / "screenshot.png"
    arcade.get_image(0, 0, 720, 960).save(out)
    print(f"wrote {out} (preview: {view.input.preview})", file=sys.stderr)
    statistics(window, app)
    colour_blind(window, app)
    window.close()


def draw(window) -> None:
    view = window.current_view
    for _ in range(3):
        window.dispatch_events()
        view.on_draw()
        window.flip()
    view.on_draw()


def statistics(window, app) -> None:
    """A month of daily games played by the greedy bot (one practice game among
    them), then the statistics screen."""
    import datetime as dt

    import arcade

    import blockyard
    from blockyard.bots import GreedyBot

    bot = GreedyBot()
    start = dt.date(2026, 10, 1)
    for day in range(40):
        if day % 4 == 3:
            continue  # some days not played
        date = start + dt.timedelta(days=day)
        for _ in range(2 if day == 10 else 1):
            game = blockyard.new_game("eu-daily", date=date)
            bot.play(game, max_moves=6 + (day * 7) % 23)
            if not game.over:
                game.act("end")
            app.records.record(game)
    app.show_stats("eu-daily")
    draw(window)
    out = ROOT / "docs" / "statistics.png"
    arcade.get_image(0, 0, window.width, window.height).save(out)
    print(f"wrote {out}", file=sys.stderr)


def colour_blind(window, app) -> None:
    """A mid-game board of eu-classic with the colour-blind palette and patterns."""
    import arcade

    import blockyard

    app.settings.palette, app.settings.patterns = "colour-blind", True
    app.apply_settings()
    game = blockyard.new_game("eu-classic", seed=21)
    moves = 0
    while moves < 14 and not game.over:
        legal = game.legal_moves()
        game.place(*legal[(moves * 7) % len(legal)])
        moves += 1
    app.show_game(game)
    draw(window)
    out = ROOT / "docs" / "colour-blind.png"
    arcade.get_image(0, 0, window.width, window.height).save(out)
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
