"""What a game screen needs of the player's session: settings, records, sounds,
the challenge or duel being played, and the few ways to leave or report.

Views receive a :class:`Session` instead of the whole app, so what a screen may
touch is written down in one place (the app builds one per screen shown:
:meth:`~blockyard.frontend.app.BlockyardApp.session`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import arcade

    import blockyard
    from blockyard.online import PlayerFeed
    from blockyard.records import RecordStore

    from .online.account import FeedKeeper, OnlineAccount
    from .persistence import SavedGame, Settings
    from .sound import SoundPlayer

Back = Callable[[], None]


@dataclass
class Session:
    """The player's session as a game screen, the replay viewer or the summary sees it.

    ``challenge`` is the score to beat of the game on screen (a challenge code),
    ``duel`` the duel being played (``duel.Duel``) or None; ``last_replay`` the
    replay file of the game that just finished; ``watching`` names the game a
    spectator screen shows when it is not the player's own (a leaderboard's
    line: its player and score), said where the player's best would be;
    ``now`` is the clock the daily screens read. The callables are the app's:
    ``after_action(game)`` saves the game on screen, ``finish_game(game)`` records
    a finished game and shows what comes next, ``count_hint(game)`` counts a hint
    used, ``count_time(game, seconds)`` adds to the play time of a game without a
    clock (recorded as its duration), ``change_setting(name, value)`` saves and
    applies a setting, ``show_online``
    opens Settings → Online, ``submit_game(game, back)`` sends a finished game
    to the server (only when signed in), the
    ``show_*`` ones switch screens (``back`` returns from them)."""

    settings: Settings
    records: RecordStore
    sounds: SoundPlayer
    show_launcher: Back
    show_game: Callable[[blockyard.Game], None]
    show_help: Callable[[str | blockyard.Ruleset, Back], None]
    show_settings: Callable[[Back], None]
    show_stats: Callable[[str | blockyard.Ruleset, Back], None]
    show_summary: Callable[[blockyard.Game, Any], None]
    confirm_restart: Callable[[blockyard.Game, arcade.View], None]
    start_game: Callable[[str | blockyard.Ruleset], Any]
    after_action: Callable[[blockyard.Game], None]
    finish_game: Callable[[blockyard.Game], None]
    count_hint: Callable[[blockyard.Game], None]
    watch_replay: Callable[..., str | None]
    change_setting: Callable[[str, Any], None]
    show_online: Callable[[Back], None] | None = None  # Settings → Online
    submit_game: Callable[[blockyard.Game, Back], None] | None = None  # when signed in
    count_time: Callable[[blockyard.Game, float], None] | None = None
    challenge: int | None = None
    duel: Any = None
    last_replay: Path | None = None
    watching: str = ""
    now: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))

    @property
    def reduced_motion(self) -> bool:
        """Whether effects should not move (a setting)."""
        return bool(self.settings.reduced_motion)


class Launcher(Protocol):
    """What the launcher uses: the app's menu of everything a player can start.

    The launcher is the one screen that starts games, duels, challenges, replays
    and the other screens, so it is given the app, typed as just this."""

    settings: Settings
    records: RecordStore
    online: OnlineAccount
    now: Callable[[], dt.datetime]
    """The clock the daily rows read (an aware moment)."""
    saves: dict[str, SavedGame]
    notices: list[str]
    feeds: FeedKeeper
    """The player's own live connection, and the launcher's notices dismissed."""

    def show_launcher(self) -> None: ...
    def show_settings(self, back: Back | None = None) -> None: ...
    def show_help(self, ruleset: str | blockyard.Ruleset, back: Back | None = None
                  ) -> None: ...
    def show_stats(self, ruleset: str | blockyard.Ruleset, back: Back | None = None
                   ) -> None: ...
    def show_replays(self, ruleset_id: str) -> None: ...
    def resume(self, saved: SavedGame) -> None: ...
    def confirm_new_game(self, ruleset_id: str, back: Back, seed: int | None = None,
                         challenge: int | None = None) -> None: ...
    def prompt_challenge(self) -> None: ...
    def start_duel(self, ruleset_id: str) -> None: ...
    def set_language(self, code: str) -> None: ...
    def show(self, name: str, /, **arguments: Any) -> bool: ...
    def player_feed(self) -> PlayerFeed | None: ...
    def confirm_quit(self, view: arcade.View) -> None: ...


class Host(Protocol):
    """What a screen's opener (:mod:`.screens`) may use of the app: the window,
    the player's settings and records, the online account and its live
    connection, a :class:`Session` for the screens that take one, and the ways
    to open another screen by name or the launcher, and to watch a replay."""

    window: arcade.Window
    settings: Settings
    records: RecordStore
    online: OnlineAccount
    feeds: FeedKeeper
    """The player's own live connection, and the launcher's notices dismissed."""
    now: Callable[[], dt.datetime]
    """The clock the daily screens read (an aware moment)."""

    def session(self) -> Session: ...
    def player_feed(self) -> PlayerFeed | None: ...
    def show(self, name: str, /, **arguments: Any) -> bool: ...
    def show_launcher(self) -> None: ...
    def watch_replay(self, replay: Any, back: Back | None = None,
                     title: str = "") -> str | None: ...


__all__ = ["Host", "Launcher", "Session"]
