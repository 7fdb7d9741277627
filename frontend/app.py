"""The frontend's entry point and controller: one window, one view per screen.

:class:`BlockyardApp` owns the settings, the records and the saved game, and
switches views (launcher → game → summary). :func:`run` opens the window.
"""

from __future__ import annotations

import arcade

import blockyard
from blockyard.records import RecordStore

from .persistence import Settings, clear_saved_game, load_saved_game, save_game


class BlockyardApp:
    """Switches between the screens of one window and keeps the player's files."""

    def __init__(self, window: arcade.Window) -> None:
        self.window = window
        self.settings = Settings.load()
        self.records = RecordStore()
        self.saved_game: blockyard.Game | None = load_saved_game()

    # -- screens ---------------------------------------------------------------------------

    def show_launcher(self) -> None:
        from .launcher import LauncherView

        self.window.show_view(LauncherView(self))

    def start_game(self, ruleset: str, seed: int | None = None, *,
                   replace_saved: bool = True) -> blockyard.Game:
        """Start a new game of ``ruleset`` (id or path) and show it."""
        game = blockyard.new_game(ruleset, seed=seed)
        if replace_saved:
            self.saved_game = None
        self.settings.last_ruleset = game.ruleset.id
        self.settings.save()
        self.after_action(game)
        self.show_game(game)
        return game

    def resume(self, game: blockyard.Game) -> None:
        self.saved_game = None
        self.show_game(game)

    def show_game(self, game: blockyard.Game) -> None:
        if game.kind == "falling":
            from .sudoku_view import SudokuView

            self.window.show_view(SudokuView(self, game))
        else:
            from .tray_view import TrayGameView

            self.window.show_view(TrayGameView(self, game))

    def show_summary(self, game: blockyard.Game, summary: blockyard.results.Summary) -> None:
        from .summary_view import SummaryView

        self.window.show_view(SummaryView(self, game, summary))

    # -- persistence -----------------------------------------------------------------------

    def after_action(self, game: blockyard.Game) -> None:
        """Save the game in progress after every action (forgotten once over)."""
        save_game(game)

    def remember_size(self, width: int, height: int) -> None:
        self.settings.width, self.settings.height = width, height
        self.settings.save()

    def quit(self) -> None:
        self.remember_size(self.window.width, self.window.height)
        self.window.close()


class BlockyardWindow(arcade.Window):
    """The game window; remembers its size when closed.

    No multisampling: everything drawn is axis-aligned tiles and text, and MSAA
    triples the cost of every frame on software renderers."""

    app: BlockyardApp | None = None

    def __init__(self, width: int, height: int, title: str, **kwargs: object) -> None:
        kwargs.setdefault("antialiasing", False)
        super().__init__(width, height, title, **kwargs)

    def on_close(self) -> None:
        if self.app is not None:
            self.app.remember_size(self.width, self.height)
        super().on_close()


def run(ruleset: str | None = None, seed: int | None = None) -> int:
    """Open the window on the launcher, or straight into a game of ``ruleset``."""
    settings = Settings.load()
    window = BlockyardWindow(settings.width, settings.height, "Blockyard", resizable=True)
    window.set_minimum_size(360, 360)
    app = BlockyardApp(window)
    window.app = app
    if ruleset is not None:
        try:
            app.start_game(ruleset, seed)
        except blockyard.RulesetError as exc:
            window.close()
            print(f"blockyard: {exc}")
            return 2
    else:
        app.show_launcher()
    arcade.run()
    return 0


__all__ = ["BlockyardApp", "clear_saved_game", "run"]
