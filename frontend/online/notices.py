"""The notices of the launcher: what the signed-in player's own live connection
(:class:`~blockyard.online.PlayerFeed`) brought that asks for the player, shown
outside the lobby too: a pending invitation, and a public table a followed
player opened. Each is opened with one key or click (the lobby takes the seat
and opens the table) or dismissed; a notice dismissed stays dismissed while
the connection it came on is the app's (:attr:`FeedKeeper.dismissed`).

This module holds the window-free part: which notices there are, newest
first, and their words; the launcher draws them and takes the input.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..i18n import _
from ..rulewords import ruleset_name

INVITATION = "invitation"
"""A notice's kind: a pending invitation to a table."""
OPENED = "opened"
"""A notice's kind: a followed player opened a public table."""


@dataclass(frozen=True)
class Notice:
    """One thing to tell the player: ``kind`` (:data:`INVITATION` or
    :data:`OPENED`), the ``table``, its ``ruleset_id`` and the player who
    invited or opened it (``name``)."""

    kind: str
    table: int
    ruleset_id: str
    name: str

    @property
    def key(self) -> tuple[str, int]:
        """What a dismissal remembers."""
        return (self.kind, self.table)


def feed_notices(feed: Any, dismissed: Collection[tuple[str, int]] = ()) -> list[Notice]:
    """The notices ``feed`` (a :class:`~blockyard.online.PlayerFeed`) holds, not
    ``dismissed``: the invitations first (in the feed's order), then the tables
    followed players opened, newest first (one the player is invited to as well
    is told once, as the invitation). None once the connection closed for good
    (signed out elsewhere)."""
    if feed is None or getattr(feed, "state", "") == "closed":
        return []
    found: list[Notice] = []
    for invitation in getattr(feed, "invitations", None) or []:
        found.append(Notice(INVITATION, invitation.table, invitation.ruleset_id,
                            invitation.sender))
    invited = {notice.table for notice in found}
    for opened in reversed(getattr(feed, "opened", None) or []):
        if opened.table not in invited:
            invited.add(opened.table)
            found.append(Notice(OPENED, opened.table, opened.ruleset_id, opened.name))
    return [notice for notice in found if notice.key not in dismissed]


def rules_title(ruleset_id: str) -> str:
    """A ruleset's name in the language, or its id when it is not installed here."""
    import blockyard

    try:
        return ruleset_name(blockyard.load_ruleset(ruleset_id))
    except Exception:  # nothing a plugin does may stop the screen
        return ruleset_id


def notice_words(notice: Notice) -> str:
    """What a notice says, in the player's language."""
    rules = rules_title(notice.ruleset_id)
    if notice.kind == INVITATION:
        return _("{name} invites you to a table: {rules}").format(name=notice.name,
                                                                  rules=rules)
    return _("{name} opened a table: {rules}").format(name=notice.name, rules=rules)


__all__ = ["INVITATION", "OPENED", "Notice", "feed_notices", "notice_words", "rules_title"]
