"""What the window does when a rule plugin fails during play.

A :class:`blockyard.PluginError` — a plugin hook that raised, answered out of
bounds, changed the game or ran longer than the hook watchdog allows — may come
from any step of play: a move (or its preview), an action, a tick, dealing, the
summary. The engine then leaves the game exactly as it was before that step.
The window catches it wherever it came from (:class:`~.app.BlockyardWindow`
passes it to :meth:`~.app.BlockyardApp.plugin_fault`): it saves that game (the
last good move), writes one line on standard error, and shows
:class:`PluginFaultView`, which names the plugin, the hook and the ruleset and
leads back to the launcher (its button, Enter or Esc). The window never closes
and never freezes on a plugin's fault.

The window always plays under the hook watchdog (:mod:`blockyard.watchdog`):
:func:`use_window_watchdog` sets :data:`WINDOW_HOOK_SECONDS` (the watchdog's
default, the same as headless) unless ``BLOCKYARD_HOOK_TIMEOUT`` set a limit or
switched it ``off``, so a hook that loops or sleeps ends on the same screen.
"""

from __future__ import annotations

from collections.abc import Callable

import blockyard
from blockyard import watchdog

from .i18n import _
from .menus import MenuView

WINDOW_HOOK_SECONDS = watchdog.DEFAULT_SECONDS
"""The longest a plugin hook may run in the window (seconds), unless the
environment's ``BLOCKYARD_HOOK_TIMEOUT`` says otherwise: the watchdog's default,
the same headless."""

PROBLEM_CHARS = 300
"""The plugin's own words about what went wrong are cut to this many characters."""


def use_window_watchdog() -> float:
    """Have every hook call of this process time-limited, as the window needs:
    :data:`WINDOW_HOOK_SECONDS`, unless a limit is already set (by
    ``BLOCKYARD_HOOK_TIMEOUT`` or :func:`blockyard.watchdog.set_default`).
    Returns the limit in force."""
    limit = watchdog.default_limit()
    if limit is None:
        watchdog.set_default(WINDOW_HOOK_SECONDS)
        limit = WINDOW_HOOK_SECONDS
    return limit


def one_line(text: str, limit: int = PROBLEM_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters (with "…" when cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def fault_lines(error: blockyard.PluginError, ruleset: str, saved: str | None) -> list[str]:
    """The lines of :class:`PluginFaultView`: the plugin, the hook, the ruleset
    (``ruleset``, as the player reads it), the file and line in the plugin's
    code (:attr:`~blockyard.PluginError.where`), what the plugin did wrong (its
    own words, on one line), what to do about it (:attr:`~blockyard.PluginError.fix`,
    when the engine says), and ``saved`` (what became of the game on screen;
    ``None`` when no game was being played)."""
    unknown = "—"
    where = getattr(error, "where", None)
    fix = getattr(error, "fix", None)
    lines = [_("Plugin: {plugin}").format(plugin=error.plugin or unknown),
             _("Hook: {hook}").format(hook=error.hook or unknown),
             _("Ruleset: {ruleset}").format(ruleset=ruleset or unknown),
             _("In the plugin's code: {place}").format(place=one_line(where, 120)
                                                      if isinstance(where, str) else unknown),
             one_line(error.problem if isinstance(error.problem, str) else str(error))]
    if isinstance(fix, str) and fix:
        lines.append(_("To fix: {fix}").format(fix=one_line(fix)))
    if saved is not None:
        lines.append(saved)
    return lines


class PluginFaultView(MenuView):
    """The screen of a plugin's fault during play: what failed, that the game is
    saved at the last good move, and one way on: back to the launcher (the
    button, Enter or Esc). Enter and Space wait a moment first (a key pressed
    for the move that failed never dismisses it unread)."""

    def __init__(self, error: blockyard.PluginError, ruleset: str, saved: str | None,
                 back: Callable[[], None]) -> None:
        self.error = error
        super().__init__(_("A rule plugin failed"), fault_lines(error, ruleset, saved),
                         [(_("Back to launcher"), back)], back, guarded=True)


__all__ = ["PROBLEM_CHARS", "WINDOW_HOOK_SECONDS", "PluginFaultView", "fault_lines",
           "one_line", "use_window_watchdog"]
