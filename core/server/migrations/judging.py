"""How a migration judges a stored game: its identity and whether it may count.

Shared by the revisions that (re)compute ``games.identity`` (0007, 0008). The
identity is computed by the engine this server runs
(:mod:`blockyard.gamecheck`): a stored game's start can only be judged by the
rules that deal it, and its identity is of the game its log plays (each stored
game is replayed once). A game whose ruleset is not served here with the rules it
was played with gets the identity of its log as stored.
"""

from __future__ import annotations

from typing import Any

UNJUDGED = "unjudged"
"""The problem :func:`judge` names for a game it could not replay here."""


def judge(replay: dict[str, Any], rulesets: dict[str, Any]) -> tuple[str, str | None]:
    """A stored game's identity and why it cannot count (``None``: it can;
    :data:`UNJUDGED`: it could not be replayed with its own rules here).
    ``rulesets``: the rulesets loaded so far, by id (filled in as it goes)."""
    from blockyard.discovery import load_ruleset
    from blockyard.errors import DataError, IllegalMove, PluginError, RulesetError
    from blockyard.gamecheck import NotCounted, dealt_game, game_identity, identity_of

    rid = str(replay["ruleset_id"])
    digest = str(replay["ruleset_digest"])
    entries = replay["log"]
    start = entries[0][1]
    if rid not in rulesets:
        try:
            rulesets[rid] = load_ruleset(rid)
        except (RulesetError, PluginError):
            rulesets[rid] = None
    ruleset = rulesets[rid]
    if ruleset is None or ruleset.digest != digest:
        return identity_of(digest, start, entries[1:]), UNJUDGED
    try:
        game = dealt_game(ruleset, start)
    except NotCounted as exc:
        return identity_of(digest, start, entries[1:]), str(exc)
    try:  # the identity is of the game played: its moves and where they led
        for action in entries[1:]:
            game.apply(action)
    except (DataError, IllegalMove, PluginError, ValueError, TypeError):
        return identity_of(digest, start, entries[1:]), UNJUDGED
    return game_identity(game), None
