"""Regenerate the screenshots of the window in every language on a virtual screen:
docs/languages/launcher-<code>.png and docs/languages/game-<code>.png.

Usage: python scripts/language_screenshots.py   (needs Xvfb, like the frontend tests)

The game is Nepal Blocks' today's game (a daily: its date is shown) part-played,
with a score in the thousands and a streak, so numbers, dates and the rule
file's own texts show in each language.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "languages"


def main() -> None:
    if not os.environ.get("DISPLAY"):
        from blockyard.frontend.virtual_display import start_virtual_display

        start_virtual_display()
    os.environ["BLOCKYARD_HOME"] = tempfile.mkdtemp(prefix="blockyard-shot-")
    import arcade

    import blockyard
    from blockyard.frontend.app import BlockyardApp, BlockyardWindow
    from blockyard.frontend.i18n import LANGUAGES

    OUT.mkdir(parents=True, exist_ok=True)
    window = BlockyardWindow(720, 960, "Blockyard")
    app = BlockyardApp(window)

    def shoot(name: str) -> None:
        view = window.current_view
        for _ in range(3):
            window.dispatch_events()
            view.on_draw()
            window.flip()
        view.on_draw()
        arcade.get_image(0, 0, window.width, window.height).save(OUT / name)
        print(f"wrote {OUT / name}", file=sys.stderr)

    for code in LANGUAGES:
        app.set_language(code)
        app.show_launcher()
        shoot(f"launcher-{code}.png")
        board = "\n".join([
            "........", "........", "...##...", "..###...", "#.####.#",
            "##.###.#", "######..", "#####..#"])
        game = blockyard.new_game("nepal-today", board=board,
                                  tray=["#/#/#", "##/#.", "###/###/###"])
        game.score, game.combo = 12480, 3
        app.playing = None
        app.show_game(game)
        view = window.current_view
        view.refresh()
        view.say(view.message or "")
        view.on_key_press(arcade.key.KEY_2, 0)  # a piece selected: its ghost is shown
        shoot(f"game-{code}.png")
    window.close()


if __name__ == "__main__":
    main()
