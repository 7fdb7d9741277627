"""The frontend's entry point and controller: one window, one view per screen.

:class:`BlockyardApp` owns the settings, the records and the saved game, and
switches views (launcher → game → summary). :func:`run` opens the window.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import arcade
from PIL import Image

import blockyard
from blockyard.records import RecordStore
from blockyard.replays import Replay, ReplayError, load_replay, save_replay

from .persistence import (
    Settings,
    clear_saved_game,
    load_saved_game,
    remove_stray_files,
    save_game,
)


class BlockyardApp:
    """Switches between the screens of one window and keeps the player's files."""

    def __init__(self, window: arcade.Window) -> None:
        self.window = window
        remove_stray_files()
        self.settings = Settings.load()
        self.records = RecordStore()
        self.saved_game: blockyard.Game | None = load_saved_game()
        self.duel = None  # a duel.Duel while one is played
        self.challenge_score: int | None = None  # the score to beat of the current game
        self.last_replay: Path | None = None
        self.current_game: blockyard.Game | None = None

    # -- screens ---------------------------------------------------------------------------

    def show_launcher(self) -> None:
        """The launcher; leaving a duel or a challenge leads here."""
        from .launcher import LauncherView

        self.duel = None
        self.challenge_score = None
        self.window.show_view(LauncherView(self))

    def restart(self, game: blockyard.Game) -> None:
        """Start the ruleset again: the same deal in a duel or a challenge, else a new one."""
        same_deal = self.duel is not None or self.challenge_score is not None
        self.start_game(game.ruleset.id, game.seed if same_deal else None,
                        challenge=self.challenge_score)

    def start_game(self, ruleset: str, seed: int | None = None, *,
                   replace_saved: bool = True, challenge: int | None = None) -> blockyard.Game:
        """Start a new game of ``ruleset`` (id or path) and show it; ``challenge``
        is a score to beat shown in the HUD."""
        game = blockyard.new_game(ruleset, seed=seed)
        self.challenge_score = challenge
        if replace_saved:
            self.saved_game = None
        self.settings.last_ruleset = game.ruleset.id
        self.settings.save()
        self.after_action(game)
        self.show_game(game)
        return game

    def resume(self, game: blockyard.Game) -> None:
        self.saved_game = None
        self.challenge_score = None
        self.show_game(game)

    def start_challenge(self, code: str) -> str | None:
        """Start the game of a challenge code; returns an error message, or None."""
        from blockyard.challenge import decode

        try:
            challenge = decode(code)
        except ValueError as exc:
            return str(exc)
        self.duel = None
        self.start_game(challenge.ruleset_id, challenge.seed, challenge=challenge.score)
        return None

    def prompt_challenge(self) -> None:
        from .menus import PromptView

        self.window.show_view(PromptView(
            self, "Enter a challenge code", [("Code", "")],
            lambda values: self.start_challenge(values[0]), self.show_launcher,
            hint="The code a friend read out or sent you, e.g. 0BQ8-WM00-0007-V2C"))

    def finish_game(self, game: blockyard.Game) -> None:
        """A game is over: count it, keep its replay, forget the save, show what's next."""
        player = self.duel.player if self.duel is not None else ""
        self.last_replay = save_replay(game, player=player)
        summary = self.records.record(game, replay=self.last_replay)
        clear_saved_game()
        if self.duel is not None:
            from . import duel

            duel.record_result(self, game, self.last_replay)
        else:
            self.show_summary(game, summary)

    def watch_replay(self, replay: Replay | Path | str, back=None, title: str = "") -> str | None:
        """Open the replay viewer; returns an error message instead when the replay
        cannot be shown faithfully."""
        from .replay_view import ReplayView

        try:
            loaded = replay if isinstance(replay, Replay) else load_replay(replay)
            loaded.check()
        except ReplayError as exc:
            return str(exc)
        self.window.show_view(ReplayView(self, loaded, back or self.show_launcher, title))
        return None

    def show_replays(self, ruleset_id: str) -> None:
        """The replays kept for a ruleset, newest first."""
        from blockyard.replays import list_replays

        from .menus import MenuView

        files = list_replays(ruleset_id)
        choices = []
        for path in files[:10]:
            data = load_replay(path).data
            who = f"{data['player']}: " if data.get("player") else ""
            label = f"{data['finished'][:16].replace('T', ' ')}  {who}{data['score']} points"
            choices.append((label, self._watch_from_list(path, ruleset_id)))
        ruleset = blockyard.load_ruleset(ruleset_id)
        lines = [f"{len(files)} kept (the last 20)"] if files else ["No finished games yet."]
        self.window.show_view(MenuView(self, f"Replays: {ruleset.name}", lines, choices,
                                       self.show_launcher))

    def _watch_from_list(self, path: Path, ruleset_id: str):
        def watch() -> None:
            error = self.watch_replay(path, back=lambda: self.show_replays(ruleset_id))
            if error:
                from .menus import MenuView

                self.window.show_view(MenuView(self, "Cannot show this replay", [error],
                                               [("Back", lambda: self.show_replays(ruleset_id))],
                                               lambda: self.show_replays(ruleset_id)))
        return watch

    def start_duel(self, ruleset_id: str) -> None:
        from . import duel

        duel.setup(self, ruleset_id)

    def watch_rule_file(self, path: str) -> None:
        """Reload the rule file at ``path`` whenever it changes, keeping the game
        on screen when the new rules allow it (a new game otherwise)."""
        from pathlib import Path

        from blockyard.game import carry_over

        file = Path(path)

        def stamp() -> tuple[int, int] | None:
            try:
                st = file.stat()
            except OSError:
                return None
            return (st.st_mtime_ns, st.st_size)

        seen = [stamp()]

        def check(delta_time: float) -> None:
            now = stamp()
            if now == seen[0] or now is None:
                return
            seen[0] = now
            try:
                ruleset = blockyard.load_ruleset(file)
            except (blockyard.RulesetError, blockyard.PluginError) as exc:
                print(f"blockyard: {exc} (keeping the current rules)", file=sys.stderr)
                return
            game = self.current_game
            if game is None or game.over:
                self.start_game(str(file))
                return
            game = carry_over(game, ruleset)
            print(f"blockyard: reloaded {file.name}", file=sys.stderr)
            self.show_game(game)

        arcade.schedule(check, 0.5)

    def show_game(self, game: blockyard.Game) -> None:
        self.current_game = game
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


def save_frame(window: arcade.Window, path: str | os.PathLike[str]) -> None:
    """Draw the current view now and save the frame to ``path`` (image type from its
    suffix), written atomically."""
    path = Path(path)
    view = window.current_view
    if view is not None:
        view.on_draw()
    else:
        window.on_draw()
    image = arcade.get_image(0, 0, window.width, window.height)
    temp = path.with_name(f".{path.name}.tmp")
    image.save(temp, format=Image.registered_extensions()[path.suffix.lower()])
    os.replace(temp, path)


def run(ruleset: str | None = None, seed: int | None = None, challenge: str | None = None,
        replay: str | None = None, watch: bool = False,
        screenshot: str | os.PathLike[str] | None = None, quit_after: float | None = None) -> int:
    """Open the window on the launcher, straight into a game of ``ruleset`` or of a
    ``challenge`` code, or on the viewer of a ``replay`` file. With ``quit_after``
    the window closes itself after that many seconds, first saving its last frame
    to ``screenshot`` when given (smoke tests of installed builds)."""
    if challenge is not None:
        from blockyard.challenge import decode

        try:
            decode(challenge)
        except ValueError as exc:
            print(f"blockyard: {exc}")
            return 2
    if replay is not None:
        try:
            load_replay(replay).check()
        except ReplayError as exc:
            print(f"blockyard: {exc}")
            return 2
    if ruleset is not None:
        try:
            blockyard.load_ruleset(ruleset)
        except (blockyard.RulesetError, blockyard.PluginError) as exc:
            print(f"blockyard: {exc}")
            return 2
    settings = Settings.load()
    try:
        window = BlockyardWindow(settings.width, settings.height, "Blockyard", resizable=True)
    except Exception as exc:  # pyglet's NoSuchDisplayException, no OpenGL, …
        print(f"blockyard: cannot open the game window ({type(exc).__name__}: {exc}). "
              "It needs a display (DISPLAY on Linux) with OpenGL 3.3; without one, use "
              "the headless API or 'blockyard list', 'show' and 'check'.")
        return 2
    window.set_minimum_size(360, 360)
    app = BlockyardApp(window)
    window.app = app
    if challenge is not None:
        app.start_challenge(challenge)
    elif replay is not None:
        app.watch_replay(replay)
    elif ruleset is not None:
        try:
            app.start_game(ruleset, seed)
        except (blockyard.RulesetError, blockyard.PluginError) as exc:
            window.close()
            print(f"blockyard: {exc}")
            return 2
        if watch:
            app.watch_rule_file(ruleset)
    else:
        app.show_launcher()
    if quit_after is not None:
        def finish(_delta: float) -> None:
            if screenshot is not None:
                save_frame(window, screenshot)
            window.close()

        arcade.schedule_once(finish, quit_after)
    arcade.run()
    return 0


__all__ = ["BlockyardApp", "clear_saved_game", "run"]
