"""The screens of the player's own installation that the app opens by name
(:mod:`.screens`): the launcher, the settings, a ruleset's how-to-play page and
statistics, the list of the replays kept for a ruleset, the replay viewer, a
finished game's summary and the screen of a rule plugin's fault.

Each opener builds its screen from what the app lends it (:class:`.session.Host`);
:func:`register_screens` registers them, as :mod:`.online` registers the online
screens.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import blockyard
from blockyard.replays import KEEP as REPLAYS_KEPT
from blockyard.replays import Replay, ReplayError, list_replays, load_replay
from blockyard.results import Summary

from .i18n import _, format_date, format_number, localise_digits, ngettext
from .launcher import LauncherView
from .menus import MenuView
from .pages import HelpView, SettingsView, StatsView
from .persistence import move_aside
from .plugin_fault import PluginFaultView
from .replay_view import ReplayView
from .rulewords import ruleset_name
from .screens import Screen
from .summary_view import SummaryView

if TYPE_CHECKING:
    from .session import Back, Host, Launcher

SHOWN_REPLAYS = 8
"""The replays the list offers (the newest)."""

SCREENS = (
    Screen("launcher", "blockyard.frontend.local_screens:open_launcher",
           "every ruleset by family, the games in progress, the online row"),
    Screen("summary", "blockyard.frontend.local_screens:open_summary",
           "a finished game's points, record, lines and what comes next"),
    Screen("replay", "blockyard.frontend.local_screens:open_replay",
           "the replay viewer: a finished game played again"),
    Screen("plugin-fault", "blockyard.frontend.local_screens:open_plugin_fault",
           "a rule plugin failed: which plugin, hook and ruleset, and what was kept"),
    Screen("settings", "blockyard.frontend.local_screens:open_settings",
           "the settings: language, theme, sound, the window, online play"),
    Screen("help", "blockyard.frontend.local_screens:open_help",
           "how to play a ruleset, from its rule file's [help]"),
    Screen("stats", "blockyard.frontend.local_screens:open_stats",
           "a ruleset's statistics from the player's records"),
    Screen("replays", "blockyard.frontend.local_screens:open_replays",
           "the replays kept for a ruleset, newest first"),
)
"""The screens of this module, as the app opens them."""


def register_screens(register: Callable[[Screen], None]) -> None:
    """Register the screens of :data:`SCREENS`."""
    for screen in SCREENS:
        register(screen)


def open_launcher(host: Launcher) -> LauncherView:
    """The launcher (it is given the app: it starts everything, see
    :class:`.session.Launcher`)."""
    return LauncherView(host)


def open_summary(host: Host, game: blockyard.Game, summary: Summary) -> SummaryView:
    """The summary of ``game``, just recorded (``summary``: what the records said)."""
    return SummaryView(host.session(), game, summary)


def open_replay(host: Host, replay: Replay, back: Back | None = None,
                title: str = "") -> ReplayView:
    """The replay viewer on ``replay`` (checked by the caller); ``back`` (the launcher
    by default) leaves it, ``title`` names it (a leaderboard's line)."""
    return ReplayView(host.session(), replay, back or host.show_launcher, title)


def open_plugin_fault(host: Host, error: blockyard.PluginError, ruleset: str,
                      saved: str | None, back: Back | None = None) -> PluginFaultView:
    """The screen of a rule plugin's fault: the plugin, the hook, ``ruleset`` as it
    is named, and ``saved`` (what happened to the game, or ``None``)."""
    return PluginFaultView(error, ruleset, saved, back or host.show_launcher)


def open_settings(host: Host, back: Back | None = None) -> SettingsView:
    """The settings screen; ``back`` (the launcher by default) leaves it."""
    return SettingsView(host.session(), back or host.show_launcher)


def open_help(host: Host, ruleset: str | blockyard.Ruleset,
              back: Back | None = None) -> HelpView:
    """The how-to-play page of a ruleset (an installed id, or the loaded ruleset of
    a game: a rule file given by path has no id to find it by), from its rule
    file's ``[help]``."""
    return HelpView(blockyard.load_ruleset(ruleset), back or host.show_launcher)


def open_stats(host: Host, ruleset: str | blockyard.Ruleset,
               back: Back | None = None) -> StatsView:
    """The statistics screen of a ruleset (an id or a loaded ruleset), from the
    records store."""
    return StatsView(host.session(), blockyard.load_ruleset(ruleset),
                     back or host.show_launcher)


def replay_time(finished: str) -> str:
    """When a replay's game finished (ISO time), as a date and time of the language."""
    try:
        when = dt.datetime.fromisoformat(finished)
    except ValueError:
        return finished[:16].replace("T", " ")
    return f"{format_date(when.date(), 'short')} {localise_digits(when.strftime('%H:%M'))}"


def _short(exc: BaseException) -> str:
    text = str(exc).split(": ", 1)[-1] if isinstance(exc, ReplayError) else str(exc)
    return text[:100] or type(exc).__name__


def open_replays(host: Host, ruleset_id: str) -> MenuView:
    """The replays kept for a ruleset, newest first (the newest
    :data:`SHOWN_REPLAYS`); a file that cannot be read is moved aside and said."""
    files = list_replays(ruleset_id)
    choices: list[tuple[str, Callable[[], None]]] = []
    problems: list[str] = []
    for path in files:
        if len(choices) == SHOWN_REPLAYS:
            break
        try:
            loaded = load_replay(path)
            data = loaded.data
            who = f"{data['player']}: " if data.get("player") else ""
            when = f"{replay_time(str(data['finished']))}  {who}"
        except (ReplayError, KeyError, TypeError, ValueError) as exc:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                problems.append(move_aside(path, "replay", _short(exc)))
            continue
        try:  # the log is the referee: the rebuilt game's score, never the file's
            label = when + _("{points} points").format(
                points=format_number(loaded.check().score))
        except ReplayError:  # kept (the rules may come back); choosing it says why
            label = when + _("cannot be shown")
        choices.append((label, _watch_from_list(host, path, ruleset_id)))
    choices.append((_("Back"), host.show_launcher))
    ruleset = blockyard.load_ruleset(ruleset_id)
    kept = len(files) - len(problems)
    lines = ([ngettext("{n} replay (the newest {keep} are kept)",
                       "{n} replays (the newest {keep} are kept)", kept).format(
                  n=format_number(kept), keep=format_number(REPLAYS_KEPT))] if kept > 0
             else [_("No finished games yet.")])
    return MenuView(_("Replays: {name}").format(name=ruleset_name(ruleset)), lines + problems,
                    choices, host.show_launcher)


def _watch_from_list(host: Host, path: Path, ruleset_id: str) -> Callable[[], None]:
    def back() -> None:
        host.show("replays", ruleset_id=ruleset_id)

    def watch() -> None:
        error = host.watch_replay(path, back=back)
        if error:
            host.window.show_view(MenuView(_("Cannot show this replay"), [error],
                                           [(_("Back"), back)], back))
    return watch


__all__ = ["SCREENS", "SHOWN_REPLAYS", "open_help", "open_launcher", "open_plugin_fault",
           "open_replay", "open_replays", "open_settings", "open_stats", "open_summary",
           "register_screens", "replay_time"]
