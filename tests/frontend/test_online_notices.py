"""The launcher's notices as :mod:`blockyard.frontend.online.notices` reads them off
the player's own connection, without a window: invitations first, then the
tables followed players opened, newest first; one table told once; the ones
dismissed left out; none once the connection closed for good; their words."""

from __future__ import annotations

from blockyard.frontend.online.account import FeedKeeper, OnlineAccount
from blockyard.frontend.online.notices import (
    INVITATION,
    OPENED,
    Notice,
    feed_notices,
    notice_words,
    rules_title,
)
from blockyard.online import Invitation, Opened


class Feed:
    def __init__(self, invitations=None, opened=(), state="connected"):
        self.invitations, self.opened, self.state = invitations, list(opened), state


def invitation(table: int, sender: str) -> Invitation:
    return Invitation(table, "eu-classic", sender, (sender, None), True, None)


def test_invitations_first_then_the_newest_table_opened():
    feed = Feed([invitation(3, "cid")], [Opened(5, "eu-zen", "bob"),
                                         Opened(6, "eu-classic", "dan")])
    assert feed_notices(feed) == [Notice(INVITATION, 3, "eu-classic", "cid"),
                                  Notice(OPENED, 6, "eu-classic", "dan"),
                                  Notice(OPENED, 5, "eu-zen", "bob")]


def test_a_table_invited_to_and_opened_is_told_once_as_the_invitation():
    feed = Feed([invitation(3, "bob")], [Opened(3, "eu-classic", "bob"),
                                         Opened(4, "eu-classic", "bob"),
                                         Opened(4, "eu-classic", "bob")])
    assert [(n.kind, n.table) for n in feed_notices(feed)] == [(INVITATION, 3), (OPENED, 4)]


def test_dismissed_ones_are_left_out_and_a_closed_feed_has_none():
    feed = Feed([invitation(3, "cid")], [Opened(5, "eu-zen", "bob")])
    assert feed_notices(feed, {(INVITATION, 3)}) == [Notice(OPENED, 5, "eu-zen", "bob")]
    assert feed_notices(feed, {(OPENED, 3)}) != []  # a kind and a table: not the table alone
    assert feed_notices(Feed([invitation(3, "cid")], state="closed")) == []
    assert feed_notices(None) == []
    assert feed_notices(Feed()) == []  # nothing pushed yet


def test_the_words_name_the_player_and_the_rules():
    rules = rules_title("eu-classic")
    assert notice_words(Notice(INVITATION, 3, "eu-classic", "cid")) == \
        f"cid invites you to a table: {rules}"
    assert notice_words(Notice(OPENED, 5, "no-such-rules", "bob")) == \
        "bob opened a table: no-such-rules"  # not installed here: its id


def test_the_dismissed_notices_go_with_the_connection():
    keeper = FeedKeeper()
    keeper.key = ("127.0.0.1:1", "a token")  # a connection of a signed-in player's was kept
    keeper.dismissed.add((OPENED, 5))
    signed_out = OnlineAccount("127.0.0.1:1", "", "")
    assert keeper.feed(signed_out) is None
    assert keeper.dismissed == set()  # signed out (or another account): afresh
