"""The online screens: Settings → Online (the server and the account), the lobby
(tables, invitations, players online, friends) and its New table form, Friends
(following players), a live table (waiting for the seats, the duel, the result)
and the server's leaderboards; the launcher's notices (:mod:`.notices`).

The window-free parts of online play live in core: the HTTP and live-channel
client (:mod:`blockyard.online`), the channels' messages
(:mod:`blockyard.protocol`) and a table as a client follows it
(:mod:`blockyard.tablesession`). These screens word what those hold in the
player's language, draw it and take the player's input.

The app opens them by name (:mod:`blockyard.frontend.screens`): this package
registers them in :func:`register_screens`, each by the dotted path of its
opener, so nothing is imported before a screen is asked for.
"""

from __future__ import annotations

from collections.abc import Callable

from ..screens import Screen

SCREENS = (
    Screen("online-settings", "blockyard.frontend.online.settings_view:open_online_settings",
           "Settings → Online: the server's address, creating an account, signing in"),
    Screen("lobby", "blockyard.frontend.online.lobby_view:open_lobby",
           "the server's tables, invitations and players online"),
    Screen("friends", "blockyard.frontend.online.friends_view:open_friends",
           "the players followed: following one by name, unfollowing, who is online"),
    Screen("play-now", "blockyard.frontend.online.playnow_view:open_play_now",
           "Play now: waiting in the server's pool for an opponent, then their table"),
    Screen("rated-leaderboard", "blockyard.frontend.online.ratings_view:open_rated_leaderboard",
           "a ruleset's rated leaderboard on the server"),
    Screen("table", "blockyard.frontend.online.table_view:open_table",
           "a live table: waiting for its seats, the duel, the result"),
    Screen("reopened-table", "blockyard.frontend.online.table_view:open_remembered_table",
           "the table a window closed mid-round was playing at (nothing when none)"),
    Screen("leaderboard", "blockyard.frontend.online.leaderboard_view:open_leaderboard",
           "a ruleset's leaderboard on the server"),
    Screen("submit", "blockyard.frontend.online.leaderboard_view:open_submit",
           "sending a finished game to the server, then its score and rank"),
)
"""The screens of online play, as the app opens them."""


def register_screens(register: Callable[[Screen], None]) -> None:
    """Register the online screens (:data:`SCREENS`)."""
    for screen in SCREENS:
        register(screen)


__all__ = ["SCREENS", "register_screens"]
