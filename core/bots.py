"""Bots: players that choose their moves through the public game API.

::

    from blockyard import bots
    bot = bots.get_bot("search")
    action = bot.choose(game)          # ("place", slot, row, col), ("rotate", 0), ("hard",) …
    game.apply(action)                 # or: bot.play(game) to the end

Three bots come with Blockyard (``list_bots()``):

``random``
    a legal move chosen at random.
``greedy``
    the move with the most points now (ties broken at random).
``search``
    plans the whole tray: every order of the tray pieces and, where the
    ruleset lets pieces turn, every turn, kept to the best ``beam`` positions
    after each piece, judged by the points and by a board evaluation (the
    perimeter of the empty area, closed holes, room for the largest pieces and
    how much of the next deal would fit).

Every bot plays every tray ruleset (it takes ``swap``, ``rotate`` and, after
the end, ``continue`` where the ruleset offers them) and Sudoku Bloxx (it picks
a column and drops the stone). A bot is deterministic: the same bot
parameters and the same game always give the same choice, because the only
randomness is a stream keyed by the bot's ``seed``, the game's seed and the
number of moves made. A bot never changes the game it looks at and sees only
what a player sees: the board, the tray, the falling stone and the stones
shown as upcoming — never future deals.

:meth:`Bot.steps` is the incremental form: a generator that does the work in
small steps and yields the best action found so far after each, so a game
window can spread a hint over several frames; :meth:`Bot.choose` with
``budget_ms`` stops it early (the choice is then the best found in time, which
may depend on the machine's speed; without a budget it never does).

Third-party packages add bots through the ``blockyard`` entry-point group by
implementing the ``blockyard_register_bots(register)`` hook; during a session
:func:`register_bot` does the same.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

from .botbase import (
    DEFAULT_SECONDS_PER_MOVE,
    MAX_ACTIONS_BETWEEN_MOVES,
    Bot,
    BotAction,
    GreedyBot,
    Outcome,
    RandomBot,
)
from .errors import PluginError
from .search import SearchBot

# ----------------------------------------------------------------------------------------
# The registry of bots
# ----------------------------------------------------------------------------------------

BotFactory = Callable[..., Bot]

_BUNDLED: dict[str, BotFactory] = {"random": RandomBot, "greedy": GreedyBot,
                                   "search": SearchBot}
_runtime: dict[str, BotFactory] = {}


def _all_bots() -> dict[str, BotFactory]:
    from .registry import registry

    out = dict(_BUNDLED)
    for name, entry in registry().bots.items():
        out.setdefault(name, entry.factory)
    for name, factory in _runtime.items():
        out.setdefault(name, factory)
    return out


def list_bots() -> list[str]:
    """The names of every bot: Blockyard's (``random``, ``greedy``,
    ``search``), those of installed packages and those registered with
    :func:`register_bot`, sorted."""
    return sorted(_all_bots())


def get_bot(name: str, **params: Any) -> Bot:
    """A new bot by name, built with ``params`` (``get_bot("search", beam=8)``).
    An unknown name or parameter raises ``ValueError`` naming it."""
    bots = _all_bots()
    factory = bots.get(name) if isinstance(name, str) else None
    if factory is None:
        raise ValueError(f"no bot named {name!r} (bots: {', '.join(sorted(bots))})")
    try:
        bot = factory(**params)
    except TypeError as exc:
        raise ValueError(f"bot {name!r}: {exc}") from None
    if not isinstance(bot, Bot) and not (callable(getattr(bot, "choose", None))
                                         and callable(getattr(bot, "play", None))):
        raise PluginError(f"bot {name!r}: its factory returned {bot!r:.60}, which has no "
                          "choose() and play()")
    return bot


def register_bot(name: str, factory: BotFactory) -> None:
    """Add a bot in this process only (tests, notebooks); ``factory(**params)``
    returns a :class:`Bot`. A taken name raises ``PluginError``."""
    if not isinstance(name, str) or not name or len(name) > 64:
        raise PluginError(f"register_bot: expected a bot name, found {name!r}")
    if not callable(factory):
        raise PluginError(f"register_bot: the factory of {name!r} is not callable")
    if name in _all_bots():
        raise PluginError(f"bot name {name!r} is taken")
    _runtime[name] = factory


def unregister_bot(name: str) -> None:
    """Remove a bot added with :func:`register_bot`."""
    if name not in _runtime:
        raise PluginError(f"no bot {name!r} was registered with register_bot")
    del _runtime[name]


def run_steps(steps: Generator[BotAction | None, None, None] | Iterator[BotAction | None],
              budget_ms: float) -> tuple[BotAction | None, bool]:
    """Advance a :meth:`Bot.steps` generator for about ``budget_ms`` milliseconds:
    returns ``(best so far, finished)``. A window calls it once per frame."""
    deadline = time.perf_counter() + budget_ms / 1000
    best = None
    for found in steps:
        best = found
        if time.perf_counter() >= deadline:
            return best, False
    return best, True


__all__ = ["DEFAULT_SECONDS_PER_MOVE", "MAX_ACTIONS_BETWEEN_MOVES", "Bot", "BotAction",
           "BotFactory", "GreedyBot", "Outcome", "RandomBot", "SearchBot", "get_bot",
           "list_bots", "register_bot", "run_steps", "unregister_bot"]
