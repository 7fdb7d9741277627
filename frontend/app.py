"""The frontend's entry point and controller: one window, one view per screen.

:class:`BlockyardApp` owns the settings, the records and the saved game, and
switches views (launcher → game → summary). :func:`run` opens the window.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import arcade
from PIL import Image

import blockyard
import blockyard.game  # drift and carry_over are called through it (a test replaces one)
from blockyard.challenge import LENGTHS, CodeError, decode
from blockyard.records import RecordStore
from blockyard.replays import Replay, ReplayError, load_replay, save_replay

from . import duel, i18n, theme
from .game_screen import GameScreen
from .i18n import _, format_number, ngettext
from .menus import MenuView, PromptView
from .online.account import FeedKeeper, OnlineAccount
from .persistence import (
    DiskFullError,
    ReadOnlyError,
    SavedGame,
    SaveError,
    SaveFault,
    Settings,
    forget_game,
    load_saved_games,
    notices_from_warnings,
    player_notice,
    remove_stray_files,
    save_error,
    save_game,
    save_key,
)
from .plugin_fault import one_line, use_window_watchdog
from .rulewords import ruleset_name
from .screens import game_view, open_screen
from .session import Session
from .sound import SoundPlayer

if TYPE_CHECKING:
    from blockyard.online import PlayerFeed

    from .duel import Duel


def save_problem_text(exc: SaveError) -> str:
    """What the window says when something could not be saved."""
    if isinstance(exc, DiskFullError):
        return _("The disk is full: the game is kept in memory and saved again after your "
                 "next move.")
    if isinstance(exc, ReadOnlyError):
        return _("The data folder cannot be written: the game is kept in memory only.")
    return _("The game could not be saved ({reason}).").format(reason=exc)


def code_problem_text(exc: ValueError) -> str:
    """What the window says about a challenge code that cannot be read, in the
    player's language; points at the likely wrong character when the code's check
    characters allow it (see :class:`blockyard.challenge.CodeError`)."""
    if not isinstance(exc, CodeError):
        return str(exc)
    lengths = sorted(LENGTHS)
    if exc.reason == "empty":
        return _("Type or paste the code first.")
    if exc.reason == "character":
        return _("Character {position} cannot be in a code: “{character}”. Codes have "
                 "digits and letters only.").format(position=format_number(exc.position or 0),
                                                   character=exc.character)
    if exc.reason in ("length", "too-long"):
        return _("The code has {count} characters, but a code has {short} or {long} "
                 "(dashes do not count).").format(count=format_number(exc.length),
                                                  short=format_number(lengths[0]),
                                                  long=format_number(lengths[-1]))
    if exc.reason == "mistyped" and exc.position is not None:
        return _("The code is mistyped: character {position} (“{character}”) is probably "
                 "“{suggestion}”.").format(position=format_number(exc.position),
                                           character=exc.character,
                                           suggestion=exc.suggestion)
    if exc.reason == "mistyped":
        return _("The code is mistyped. Check it character by character.")
    if exc.reason == "version":
        return _("The code is from another version of Blockyard.")
    if exc.reason == "not-installed":
        return _("The code is for rules that are not installed here (a plugin's, "
                 "perhaps).")
    return _("This is not a challenge code.")


def fault_label(ruleset: blockyard.Ruleset) -> str:
    """A ruleset as the plugin fault screen names it: its name, and its id when
    that differs."""
    name = ruleset_name(ruleset)
    return name if name == ruleset.id else f"{name} ({ruleset.id})"


def untouched(saved: SavedGame) -> bool:
    """Whether a game in progress was opened but never played (nothing in its log
    but the start — no move, action or clock tick —, not over, an empty board): it
    is not saved, and not offered to resume; a duel's next turn, saved with the
    first player's result at the hand-over, is kept."""
    game = saved.game
    if game.moves or game.over or len(game.log) > 1 or (
            saved.duel is not None and saved.duel.get("results")):
        return False
    board: tuple[tuple[object, ...], ...] = getattr(game, "board", ())
    return not any(any(row) for row in board)  # not a starting position


def open_records(notices: list[str]) -> RecordStore:
    """The player's records; what is wrong with them joins ``notices`` in the
    player's language (a file set aside: the core's own words)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store = RecordStore()
    mine = f"records database {store.path}"
    for warning in caught:
        text = str(warning.message)
        if store.read_only and text == store.problem:
            continue  # said below, translated
        if store.skipped and text.startswith(f"{mine}:"):
            continue
        notices.append(player_notice(text))
    if store.skipped:
        notices.append(ngettext(
            "{n} finished game in your records holds impossible values and is left out.",
            "{n} finished games in your records hold impossible values and are left out.",
            len(store.skipped)).format(n=format_number(len(store.skipped))))
    if store.read_only:
        notices.append(_("Your records are shown, but new ones cannot be saved: the data "
                         "folder cannot be written."))
    return store


def wall_clock() -> dt.datetime:
    """The system clock, as an aware moment in UTC."""
    return dt.datetime.now(dt.UTC)


class BlockyardApp:
    """Switches between the screens of one window and keeps the player's files.

    ``saves`` holds every game in progress by save key; ``playing`` is the one
    on screen (with its challenge score or duel). ``notices`` are messages about
    player files that had to be set aside, shown by the launcher."""

    def __init__(self, window: arcade.Window) -> None:
        self.window = window
        self.notices: list[str] = []
        with notices_from_warnings(self.notices):
            remove_stray_files()
        self.records = open_records(self.notices)
        self.save_problem = ""  # what the last failed save said (until one works again)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reported in self.notices instead
            self.settings = Settings.load(self.notices)
            # saves a rule plugin keeps from being restored: shown on the fault screen
            self.save_faults: list[SaveFault] = []
            self.saves: dict[str, SavedGame] = {
                s.key: s for s in load_saved_games(self.notices, self.save_faults)}
        for key in [k for k, s in self.saves.items() if untouched(s)]:
            del self.saves[key]  # opened and left before a move: nothing to resume
            with contextlib.suppress(OSError):
                forget_game(key)
        # one app per window follows the language: an earlier app on it stops listening
        earlier = getattr(window, "stop_following_language", None)
        if callable(earlier):
            earlier()
        i18n.set_native_digits(self.settings.native_digits)
        i18n.set_language(self.settings.language or i18n.system_language())
        # whoever changes the language (the launcher, a settings screen), the screen follows
        self._stop_listening = i18n.on_change(self._language_changed)
        window.stop_following_language = self._stop_listening
        self.sounds = SoundPlayer(self.settings)
        try:
            self.sounds.load()
        except Exception as exc:  # no audio driver, an unwritable data folder
            self.sounds.problem = f"{type(exc).__name__}: {exc}"
        self.apply_settings(rebuild=False)
        self.online = OnlineAccount.load(self.notices)  # the server and account, if any
        # the signed-in player's own live connection: invitations, players online
        self.feeds = FeedKeeper()
        self.duel: Duel | None = None  # while one is played
        self.playing: SavedGame | None = None
        # what the plugins of the game on screen held when it was last found to be
        # the game its log gives (see after_action)
        self._held_alike: tuple[blockyard.Game, dict[str, dict[str, str]]] | None = None
        self.last_replay: Path | None = None
        self.now: Callable[[], dt.datetime] = wall_clock
        """The clock the daily screens read (the date, the countdown to the next
        daily game): the system's, or one a test gives."""

    @property
    def current_game(self) -> blockyard.Game | None:
        return self.playing.game if self.playing is not None else None

    @property
    def challenge_score(self) -> int | None:
        """The score to beat of the game on screen (a challenge), or None."""
        return self.playing.challenge if self.playing is not None else None

    @property
    def saved_game(self) -> blockyard.Game | None:
        """The most recently saved game in progress."""
        latest = max(self.saves.values(), key=lambda s: s.saved_at, default=None)
        return latest.game if latest is not None else None

    # -- screens ---------------------------------------------------------------------------

    def session(self) -> Session:
        """What the game screens, the replay viewer and the summary may use of the app."""
        return Session(
            settings=self.settings, records=self.records, sounds=self.sounds,
            show_launcher=self.show_launcher, show_game=self.show_game,
            show_help=self.show_help, show_settings=self.show_settings,
            show_stats=self.show_stats, show_summary=self.show_summary,
            confirm_restart=self.confirm_restart, start_game=self.start_game,
            after_action=self.after_action, finish_game=self.finish_game,
            count_hint=self.count_hint, count_time=self.count_time,
            watch_replay=self.watch_replay,
            change_setting=self.change_setting, show_online=self._show_online,
            submit_game=self._submit if self.online.signed_in else None,
            challenge=self.challenge_score, duel=self.duel, last_replay=self.last_replay,
            now=self.now)

    def _show_online(self, back: Callable[[], None]) -> None:
        self.show("online-settings", back=back)

    def _submit(self, game: blockyard.Game, back: Callable[[], None]) -> None:
        self.show("submit", game=game, back=back)

    def count_hint(self, game: blockyard.Game) -> None:
        """Count a hint used in the game on screen (saved with it, shown in its summary)."""
        if self.playing is not None and self.playing.game is game:
            self.playing.hints += 1
            self.after_action(game)

    # a frame longer than this (the machine asleep, the window dragged) counts this long
    LONGEST_FRAME = 1.0

    def count_time(self, game: blockyard.Game, seconds: float) -> None:
        """Add ``seconds`` (one frame, at most :attr:`LONGEST_FRAME`) to the play time
        of the game on screen; saved with it and recorded as the duration of a game
        without a clock of its own."""
        if self.playing is not None and self.playing.game is game and seconds > 0:
            self.playing.played += min(float(seconds), self.LONGEST_FRAME)

    @staticmethod
    def played_time(saved: SavedGame | None, game: blockyard.Game) -> float | None:
        """The duration to record for ``game``: ``None`` (the records take the game's
        own clock) for a timed or realtime game, else the play time counted on screen."""
        if game.mode.realtime or game.time_left is not None:
            return None
        return saved.played if saved is not None and saved.game is game else None

    def show_launcher(self) -> None:
        """The launcher; leaving a game (kept saved), a duel or a challenge leads here.
        A saved game that a rule plugin kept from being restored is said first, on
        the plugin fault screen (once), which leads here again."""
        self.duel = None
        self.playing = None
        if self.save_faults:
            self.show_save_fault(self.save_faults.pop(0))
            return
        self.show("launcher")

    def show_save_fault(self, fault: SaveFault) -> None:
        """The plugin fault screen of a saved game its plugin keeps from being
        restored (:class:`.persistence.SaveFault`): its file is left as it is, and
        its game as its log gives it is offered in the launcher when it plays."""
        error = fault.error
        saved = next((s for s in self.saves.values() if s.path == fault.path), None)
        ruleset = error.ruleset or ""
        if saved is not None:
            ruleset = fault_label(saved.game.ruleset)
        line = _("Your saved game is kept: the launcher offers to resume it, replayed from "
                 "its moves.") if fault.resumable and saved is not None else \
            _("Your saved game is kept as it was; it cannot be resumed while this plugin "
              "fails.")
        print(f"blockyard: {one_line(str(error), 1000)}; the saved game {fault.path.name} "
              "is kept as it was", file=sys.stderr)
        self.show("plugin-fault", error=error, ruleset=ruleset, saved=line)

    def key_for(self, ruleset_id: str, seed: int | None, challenge: int | None) -> str:
        """The save key a new game of these would have."""
        if self.duel is not None:
            return save_key(ruleset_id, duel_turn=len(self.duel.results), seed=self.duel.seed)
        if challenge is not None:
            return save_key(ruleset_id, challenge=True, seed=seed)
        return save_key(ruleset_id)

    def restart(self, game: blockyard.Game) -> None:
        """End and record the game on screen, then start its ruleset again: the same
        deal in a duel or a challenge, a new one otherwise."""
        same_deal = self.duel is not None or self.challenge_score is not None
        challenge = self.challenge_score
        if self.playing is not None:
            self.abandon(self.playing)
        # the game's own rules: a rule file given by path is not found by its id
        self.start_game(game.ruleset, game.seed if same_deal else None, challenge=challenge)

    def confirm_restart(self, game: blockyard.Game, view: arcade.View) -> None:
        """Ask before restarting: the game on screen would end and be recorded."""
        def keep() -> None:
            self.window.show_view(view)

        lines = [_("This game ends here and is recorded with its replay.") if self.duel is None
                 else _("This turn ends here; its replay is kept (duel games are not "
                        "recorded).")]
        if not game.over:
            lines.insert(0, _("You have {points} points after {moves} moves.").format(
                points=format_number(game.score), moves=format_number(game.moves)))
        self.window.show_view(MenuView(
            _("Restart {name}?").format(name=ruleset_name(game.ruleset)), lines,
            [(_("Restart"), lambda: self.restart(game)), (_("Keep playing"), keep)], keep,
            default=1))  # Enter keeps the game: restarting throws it away

    def confirm_quit(self, view: arcade.View) -> None:
        """Ask before Esc closes the window from the launcher (Enter quits, Esc
        stays); games in progress are kept whatever the answer."""
        def stay() -> None:
            self.window.show_view(view)

        lines = [_("Games in progress are saved; the launcher offers to resume them.")] \
            if self.saves else []
        self.window.show_view(MenuView(_("Quit Blockyard?"), lines,
                                       [(_("Quit"), self.quit), (_("Back"), stay)], stay))

    def start_game(self, ruleset: str | blockyard.Ruleset, seed: int | None = None, *,
                   replace_saved: bool = True, challenge: int | None = None,
                   tray: list[str | None] | None = None) -> blockyard.Game:
        """Start a new game of ``ruleset`` (id, path or loaded ruleset) and show it; ``challenge``
        is a score to beat shown in the HUD; ``tray`` the pieces it starts with
        (``"bomb:#"``, as ``new_game(tray=...)`` takes them; the game then shows at
        once, without the first time's how-to-play page). A game in progress under
        the same save key is ended and recorded first (callers ask the player before)."""
        game = blockyard.new_game(ruleset, seed=seed, tray=tray)
        key = self.key_for(game.ruleset.id, game.seed, challenge)
        if key in self.saves:
            self.abandon(self.saves[key])
        duel = self.duel.data() if self.duel is not None else None
        self.playing = SavedGame(key, game, challenge, duel)
        self.settings.last_ruleset = game.ruleset.id
        # the how-to-play page, once, the first time a ruleset is played (not for a
        # given tray: that is a modder looking at pieces, `play --tray`)
        first_time = tray is None and bool(game.ruleset.help) \
            and game.ruleset.id not in self.settings.help_seen
        if first_time:
            self.settings.help_seen.append(game.ruleset.id)
        self.save_settings()
        self.after_action(game)
        if first_time:
            self.show_help(game.ruleset, lambda: self.show_game(game))
        else:
            self.show_game(game)
        return game

    # -- settings, how to play, statistics -----------------------------------------------------

    def apply_settings(self, *, rebuild: bool = True) -> None:
        """Make the settings take effect now: theme, palette and patterns (the view
        on screen is rebuilt, so the next frame shows them) and the window mode.
        Sound and volume are read by the sound player at each effect; reduced
        motion by the views at each effect."""
        s = self.settings
        theme.apply(s.theme, s.palette, s.patterns)
        fullscreen = s.window_mode == "fullscreen"
        if bool(self.window.fullscreen) != fullscreen:
            try:
                self.window.set_fullscreen(fullscreen)
            except Exception as exc:  # a window manager that refuses
                self.notices.append(_("The window mode could not be changed ({error}).")
                                    .format(error=exc))
        invalidate = getattr(self.window, "invalidate", None)
        if invalidate is not None:
            invalidate()
        if rebuild:
            view = self.window.current_view
            rebuild_view = getattr(view, "rebuild", None)
            if rebuild_view is not None:
                rebuild_view()

    def change_setting(self, name: str, value: object) -> None:
        """Set one setting, save the settings file (atomically) and apply it at once
        (the language and the digits through :meth:`set_language` and
        :meth:`set_native_digits`)."""
        if name == "language":
            self.set_language(str(value))
            return
        if name == "native_digits":
            self.set_native_digits(bool(value))
            return
        if not hasattr(self.settings, name):
            raise AttributeError(f"unknown setting {name!r}")
        setattr(self.settings, name, value)
        self.save_settings()
        self.apply_settings()

    def show_settings(self, back: Callable[[], None] | None = None) -> None:
        """The settings screen; ``back`` (the launcher by default) leaves it."""
        self.show("settings", back=back)

    def show(self, name: str, /, **arguments: Any) -> bool:
        """Open the screen registered as ``name`` (:mod:`.screens`: the online
        screens and the others a package registers) with ``arguments``, its
        opener's keyword arguments; whether there was one to show."""
        view = open_screen(name, self, **arguments)
        if view is None:
            return False
        self.window.show_view(view)
        return True

    def player_feed(self) -> PlayerFeed | None:
        """The signed-in player's own live connection (pending invitations, players
        online), started when a player is signed in, started again for another
        account or server, closed when signed out; ``None`` when not signed in."""
        return self.feeds.feed(self.online)

    def close_player_feed(self) -> None:
        """Close the player's own live connection (without waiting for its thread)."""
        self.feeds.close()

    def show_start(self) -> None:
        """The first screen: the table a window closed mid-duel was playing at
        (reopened with every move so far), else the launcher."""
        if not self.show("reopened-table"):
            self.show_launcher()

    def show_help(self, ruleset: str | blockyard.Ruleset,
                  back: Callable[[], None] | None = None) -> None:
        """The how-to-play page of a ruleset (an id or a loaded ruleset)."""
        self.show("help", ruleset=ruleset, back=back)

    def show_stats(self, ruleset: str | blockyard.Ruleset,
                   back: Callable[[], None] | None = None) -> None:
        """The statistics screen of a ruleset (an id or a loaded ruleset)."""
        self.show("stats", ruleset=ruleset, back=back)

    def confirm_new_game(self, ruleset_id: str | blockyard.Ruleset, back: Callable[[], None],
                         seed: int | None = None,
                         challenge: int | None = None, *,
                         tray: list[str | None] | None = None) -> None:
        """Start a game (of a ruleset id or a loaded ruleset; ``tray``: the pieces it
        starts with), asking first when it would end a game in progress: resume it,
        end it and start a new one, or back."""
        ruleset = ruleset_id
        if isinstance(ruleset_id, blockyard.Ruleset):
            ruleset_id = ruleset_id.id
        key = self.key_for(ruleset_id, seed, challenge)
        saved = self.saves.get(key)
        if saved is None:
            self.start_game(ruleset, seed, challenge=challenge, tray=tray)
            return
        game = saved.game

        def start_new() -> None:
            self.start_game(ruleset, seed, challenge=challenge, tray=tray)

        self.window.show_view(MenuView(
            _("New game of {name}?").format(name=ruleset_name(game.ruleset)),
            [_("You have a game in progress: {points} points after {moves} moves.").format(
                points=format_number(game.score), moves=format_number(game.moves)),
             _("A new game ends it here and records it.")],
            [(_("Resume that game"), lambda: self.resume(saved)),
             (_("End it and start a new game"), start_new),
             (_("Back"), back)], back))

    def resume(self, saved: SavedGame | blockyard.Game, *, hand_over: bool = True) -> None:
        """Go on with a game in progress, exactly where it was saved. A duel turn not
        yet begun shows its hand-over screen first (unless ``hand_over`` is false)."""
        if not isinstance(saved, SavedGame):
            saved = next((s for s in self.saves.values() if s.game is saved),
                         SavedGame(save_key(saved.ruleset.id), saved))
        self.duel = None
        if saved.duel is not None:
            try:
                self.duel = duel.Duel.from_data(saved.duel)
            except ValueError as exc:
                self.notices.append(_("The duel of this game could not be read ({reason}); "
                                      "it goes on as an ordinary game.").format(reason=exc))
                saved.duel = None
        if hand_over and self.duel is not None and self.duel.results \
                and saved.game.moves == 0:
            duel.show_turn(self)
            return
        self.playing = saved
        self.saves[saved.key] = saved
        self.show_game(saved.game)

    def abandon(self, saved: SavedGame) -> None:
        """End a game in progress (with the rules' action that ends the game, as the
        player's "end round", so that its log says so) and record it with its
        replay, without showing its summary."""
        game = saved.game
        if not game.over:
            ending = next((spec.name for spec in game.ruleset.action_specs.values()
                           if spec.ends_game and not spec.after_end), None)
            try:
                if ending is None:
                    raise blockyard.IllegalMove("the rules have no action that ends the game")
                game.act(ending)
            except (blockyard.IllegalMove, blockyard.PluginError):
                game.end_game("ended")
        player = ""
        if saved.duel is not None:
            names = saved.duel.get("names", [])
            turn = len(saved.duel.get("results", []))
            player = str(names[turn]) if 0 <= turn < len(names) else ""
        replay = self.keep_replay(game, player)
        if saved.duel is None:  # a duel's games stay out of the records (duel.py)
            self.records.record(game, replay=replay, duration=self.played_time(saved, game),
                                hints=saved.hints)
            self.tell_records_problem()
        self.forget(saved)

    def keep_replay(self, game: blockyard.Game, player: str) -> Path | None:
        """Save a finished game's replay; ``None`` (and a message) when it cannot be."""
        try:
            return save_replay(game, player=player)
        except OSError as exc:
            self.tell_save_problem(save_problem_text(save_error(exc)))
            return None

    def tell_records_problem(self) -> None:
        """Say so when the finished game's record could not be written."""
        if self.records.unsaved:
            self.tell_save_problem(_("The records cannot be written now: this game's record "
                                     "is kept in memory and saved when it can be."))

    def forget(self, saved: SavedGame) -> None:
        """Delete a recorded game's save."""
        try:
            forget_game(saved.key)
        except OSError as exc:
            self.tell_save_problem(save_problem_text(save_error(exc)))
        if self.saves.get(saved.key) is saved:
            del self.saves[saved.key]
        if self.playing is saved:
            self.playing = None

    def start_challenge(self, code: str) -> str | None:
        """Start the game of a challenge code; returns an error message, or None."""
        try:
            challenge = decode(code)
        except ValueError as exc:
            return code_problem_text(exc)
        self.duel = None
        self.confirm_new_game(challenge.ruleset_id, self.show_launcher, challenge.seed,
                              challenge.score)
        return None

    def prompt_challenge(self) -> None:
        self.window.show_view(PromptView(
            _("Enter a challenge code"), [(_("Code"), "")],
            lambda values: self.start_challenge(values[0]), self.show_launcher,
            hint=_("The code a friend read out or sent you, e.g. {code}").format(
                code="0BQ8-WM00-0007-V2C")))

    def finish_game(self, game: blockyard.Game) -> None:
        """A game is over: count it (not a duel's), keep its replay, forget its save,
        show what's next."""
        player = self.duel.player if self.duel is not None else ""
        self.last_replay = self.keep_replay(game, player)
        hints = self.playing.hints if self.playing is not None and \
            self.playing.game is game else 0
        summary = None
        if self.duel is None:  # a duel's games stay out of the records (duel.py)
            with warnings.catch_warnings(record=True) as caught:  # a plugin's failed tips
                warnings.simplefilter("always")
                summary = self.records.record(game, replay=self.last_replay, hints=hints,
                                              duration=self.played_time(self.playing, game))
            for warning in caught:  # one line each, not Python's warning with its source
                print(f"blockyard: {warning.message}", file=sys.stderr)
            self.tell_records_problem()
        if self.playing is not None and self.playing.game is game:
            try:
                forget_game(self.playing.key)
            except OSError as exc:
                self.tell_save_problem(save_problem_text(save_error(exc)))
            self.saves.pop(self.playing.key, None)
            self.playing.key = ""  # recorded: never saved again
        if self.duel is not None:
            duel.record_result(self, game, self.last_replay)
        elif summary is not None:
            self.show_summary(game, summary)

    def watch_replay(self, replay: Replay | Path | str,
                     back: Callable[[], None] | None = None, title: str = "") -> str | None:
        """Open the replay viewer; returns an error message instead when the replay
        cannot be shown faithfully."""
        try:
            loaded = replay if isinstance(replay, Replay) else load_replay(replay)
            loaded.check()
        except ReplayError as exc:
            return str(exc)
        self.show("replay", replay=loaded, back=back, title=title)
        return None

    def show_replays(self, ruleset_id: str) -> None:
        """The replays kept for a ruleset, newest first."""
        self.show("replays", ruleset_id=ruleset_id)

    def start_duel(self, ruleset_id: str) -> None:
        duel.setup(self, ruleset_id)

    def watch_rule_file(self, path: str) -> Callable[[float], None]:
        """Reload the rule file at ``path`` whenever it changes, keeping the game
        on screen when the new rules allow it (a new game otherwise). An edit the
        rules refuse is said in the window's message line (and on stderr) and the
        current rules stay. Returns the check, scheduled every half second."""
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
                text = _("The edit of {file} was refused; the current rules stay: "
                         "{error}").format(file=file.name, error=exc)
                if callable(getattr(self.window.current_view, "say", None)):
                    self.say(text)
                else:  # a page without a message line: the launcher says it
                    self.notices.append(text)
                return
            game = self.current_game
            try:  # the new rules' plugins play now: a fault of theirs has its screen
                if game is None or game.over:
                    self.start_game(str(file))
                    return
                game = blockyard.game.carry_over(game, ruleset)
                print(f"blockyard: reloaded {file.name}", file=sys.stderr)
                self.show_game(game)
            except blockyard.PluginError as exc:
                self.plugin_fault(exc)

        arcade.schedule(check, 0.5)
        return check

    def show_game(self, game: blockyard.Game) -> None:
        """Show the game screen of the game's mode (see :func:`.screens.game_view`)."""
        if self.playing is None or self.playing.game is not game:
            self.playing = SavedGame(self.key_for(game.ruleset.id, game.seed, None), game)
        self.window.show_view(game_view(game.kind)(self.session(), game))

    def plugin_fault(self, error: blockyard.PluginError) -> None:
        """A rule plugin failed during play (:mod:`.plugin_fault`): the engine left
        the game as it was before the failing step, so save the game on screen as it
        is (the last good move), say so in one line on standard error, and show the
        screen naming the plugin, the hook and the ruleset, which leads back to the
        launcher."""
        view_game = getattr(self.window.current_view, "game", None)
        game = self.current_game or (view_game if isinstance(view_game, blockyard.Game)
                                     else None)
        saved: str | None = None
        playing = self.playing
        if playing is not None and playing.key:
            with contextlib.suppress(blockyard.PluginError):  # this error is the one shown
                self.after_action(playing.game)
            saved = self.save_problem or _("Your game is saved at the last good move; the "
                                           "launcher offers to resume it.")
        ruleset = fault_label(game.ruleset) if game is not None else error.ruleset or ""
        after = "; the game is saved at the last good move" \
            if saved is not None and not self.save_problem else ""
        print(f"blockyard: {one_line(str(error), 1000)}{after}", file=sys.stderr)
        self.show("plugin-fault", error=error, ruleset=ruleset, saved=saved)

    def show_summary(self, game: blockyard.Game, summary: blockyard.results.Summary) -> None:
        """The summary of a finished game, just recorded."""
        self.show("summary", game=game, summary=summary)

    # -- persistence -----------------------------------------------------------------------

    def after_action(self, game: blockyard.Game) -> None:
        """Save the game on screen after every action, over or not, until it is
        recorded (closing the window at the "continue?" prompt loses nothing)."""
        playing = self.playing
        if playing is None or playing.game is not game or not playing.key:
            return
        if untouched(playing):  # an opened game is saved from its first move on
            return
        drifted = self._drifted(playing)
        playing.saved_at = time.time()
        self.saves[playing.key] = playing
        if self.records.unsaved:
            self.records.retry()  # records kept in memory on a full disk
        try:
            save_game(playing)
        except SaveError as exc:
            self.tell_save_problem(save_problem_text(exc))
        else:
            if self.save_problem:
                self.save_problem = ""
                self.say(_("The game is saved again."))
        if drifted is not None:
            raise drifted

    def _drifted(self, playing: SavedGame) -> blockyard.PluginError | None:
        """After an action: when a plugin of the game on screen from elsewhere holds
        other values on its object than when the game was last found alike (at first:
        than when its rules loaded), whether the game is still the one its log gives
        (:func:`blockyard.game.drift`). A plugin keeping state across games (a
        second game of the same rules, a preview or a hint changing what the next
        move scores) makes it another: its :class:`~blockyard.PluginError` is
        returned, and the game on screen becomes the one its log gives (the log is
        the truth; that is what is saved, and what a restore gives). Nothing is
        replayed while the plugins hold what they held (Blockyard's own: never)."""
        game = playing.game
        hooks = game.ruleset.hooks
        held = hooks.held_state()
        alike = self._held_alike
        before = alike[1] if alike is not None and alike[0] is game \
            else hooks.held_state(at_load=True)
        if held == before:
            return None
        found = blockyard.game.drift(game)
        if found is None:
            self._held_alike = (game, held)
            return None
        error, by_log = found
        if by_log is not None:
            playing.game = by_log
            if self.playing is playing:
                self._held_alike = (by_log, by_log.ruleset.hooks.held_state())
        return error

    def say(self, text: str) -> None:
        """A message in the message line of the screen on show (when it has one)."""
        say = getattr(self.window.current_view, "say", None)
        if callable(say):
            say(text)

    def tell_save_error(self, exc: SaveError) -> None:
        """Say in the window why a save failed (:func:`save_problem_text`)."""
        self.tell_save_problem(save_problem_text(exc))

    def tell_save_problem(self, text: str) -> None:
        """Say in the window why something could not be saved (in the message line now,
        and once among the launcher's notices)."""
        self.say(text)
        if text != self.save_problem and text not in self.notices:
            self.notices.append(text)
        self.save_problem = text

    def set_language(self, code: str) -> None:
        """Show the window in language ``code`` (a key of :data:`.i18n.LANGUAGES`) from now
        on: remembered in the settings, and the screen on show is built again in it
        (as after any :func:`.i18n.set_language`)."""
        chosen = i18n.supported(code)
        if chosen is None:
            i18n.set_language(code)  # says which languages there are
            return
        self.settings.language = chosen  # saved first: the rebuilt screen may read it
        i18n.set_language(chosen)
        self.save_settings()

    def set_native_digits(self, on: bool) -> None:
        """Numbers in the language's own digits (Nepali ०–९) or in 0–9, at once."""
        self.settings.native_digits = on
        i18n.set_native_digits(on)
        self.save_settings()

    def _language_changed(self, _code: str) -> None:
        if getattr(self.window, "app", self) is not self:  # an app no longer on the window
            self._stop_listening()
            return
        self.rebuild_view()

    def rebuild_view(self) -> None:
        """Build the texts of the screen on show again (after a change of language):
        a view with a ``rebuild()`` method does it itself; a game screen is made anew
        for its game."""
        view = self.window.current_view
        rebuild = getattr(view, "rebuild", None)
        if callable(rebuild):
            rebuild()
        elif isinstance(view, GameScreen) and type(view) is game_view(view.game.kind):
            self.show_game(view.game)
        self.window.invalidate()

    def save_settings(self) -> None:
        try:
            self.settings.save()
        except OSError as exc:
            self.notices.append(_("The settings could not be saved ({reason}).").format(reason=exc))

    def remember_size(self, width: int, height: int) -> None:
        if not self.window.fullscreen:  # the window's own size, not the screen's
            self.settings.width, self.settings.height = width, height
        self.save_settings()

    def quit(self) -> None:
        self.remember_size(self.window.width, self.window.height)
        self.window.close()


IDLE_EVENTS = frozenset({"on_update", "on_fixed_update", "on_draw", "on_refresh"})
"""Events that do not by themselves change what the window shows."""


class BlockyardWindow(arcade.Window):
    """The game window; remembers its size when closed.

    No multisampling: everything drawn is axis-aligned tiles and text, and MSAA
    triples the cost of every frame on software renderers."""

    app: BlockyardApp | None = None

    def __init__(self, width: int, height: int, title: str, **kwargs: Any) -> None:
        # kwargs: any of arcade.Window's keyword options, passed on as given
        kwargs.setdefault("antialiasing", False)
        super().__init__(width, height, title, **kwargs)
        self.stale = True
        self.frames_drawn = 0

    def invalidate(self) -> None:
        """Ask for the next frame to be drawn (something changed)."""
        self.stale = True

    def dispatch_event(self, event_type: str, *args: object) -> object:
        # input, resizing, exposing, a new view: the next frame must be drawn
        if event_type not in IDLE_EVENTS:
            self.stale = True
        try:
            return super().dispatch_event(event_type, *args)
        except blockyard.PluginError as exc:  # input, a tick, a frame: never closes the window
            if self.app is None:
                raise
            self.app.plugin_fault(exc)
            return True

    def show_view(self, new_view: arcade.View) -> None:
        self.stale = True
        super().show_view(new_view)

    def draw(self, dt: float) -> None:
        """Draw a frame only when something changed or animates: an idle window
        costs next to no CPU (the last frame stays on screen)."""
        view = self.current_view
        animating = getattr(view, "animating", None)
        if not self.stale and not (animating is not None and animating()):
            return
        self.stale = False
        self.frames_drawn += 1
        super().draw(dt)

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
        screenshot: str | os.PathLike[str] | None = None, quit_after: float | None = None,
        tray: list[str | None] | None = None) -> int:
    """Open the window on the launcher, straight into a game of ``ruleset`` (starting
    with the pieces of ``tray`` when given: ``blockyard play --tray``) or of a
    ``challenge`` code, or on the viewer of a ``replay`` file. With ``quit_after``
    the window closes itself after that many seconds, first saving its last frame
    to ``screenshot`` when given (smoke tests of installed builds). Every plugin
    hook runs under the window's time limit (:func:`.plugin_fault.use_window_watchdog`),
    checking the files given here included."""
    use_window_watchdog()  # a hook that loops ends on the plugin fault screen, never hangs
    if challenge is not None:
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
    loaded = None
    if ruleset is not None:
        try:
            loaded = blockyard.load_ruleset(ruleset)
        except (blockyard.RulesetError, blockyard.PluginError) as exc:
            print(f"blockyard: {exc}")
            return 2
        if tray is not None:
            try:  # before the window opens, as the command line checks it
                blockyard.new_game(loaded, seed=0, tray=tray)
            except ValueError as exc:
                print(f"blockyard: --tray: {exc}")
                return 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the app reports unreadable files in the window
        settings = Settings.load()
    try:
        window = BlockyardWindow(settings.width, settings.height, "Blockyard", resizable=True,
                                 fullscreen=settings.window_mode == "fullscreen")
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
    elif loaded is not None:
        try:  # a game in progress of that ruleset is never ended without asking
            app.confirm_new_game(loaded, app.show_launcher, seed, tray=tray)
        except blockyard.RulesetError as exc:
            window.close()
            print(f"blockyard: {exc}")
            return 2
        except blockyard.PluginError as exc:  # the window stays, on the plugin fault screen
            app.plugin_fault(exc)
        if watch and ruleset is not None:
            app.watch_rule_file(ruleset)
    else:
        app.show_start()
    if quit_after is not None:
        def finish(_delta: float) -> None:
            if screenshot is not None:
                save_frame(window, screenshot)
            window.close()

        arcade.schedule_once(finish, quit_after)
    arcade.run()
    return 0


__all__ = ["BlockyardApp", "BlockyardWindow", "game_view", "run"]
