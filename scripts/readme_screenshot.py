"""Regenerate docs/screenshot.png (the README's picture) on a virtual screen.

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
    cell = view.layout.cell
    x = view.layout.board.left + 7.5 * cell
    y = view.layout.board.top - 6 * cell - 0.8 * cell - 3 * cell
    view.on_mouse_drag(x, y, 1, 1, arcade.MOUSE_BUTTON_LEFT, 0)
    for _ in range(3):
        window.dispatch_events()
        view.on_draw()
        window.flip()
    view.on_draw()
    out = ROOT / "docs" / "screenshot.png"
    arcade.get_image(0, 0, 720, 960).save(out)
    print(f"wrote {out} (preview: {view.preview})", file=sys.stderr)
    window.close()


if __name__ == "__main__":
    main()
