"""The friends' screens and the launcher's notices fit, in every language, at the
reference sizes (small portrait, the default, wide): the lobby's line of friends
and a followed player's starred table; the lobby's table rows with long names
of many seats never below 9 points (they fell to 7: now the seats go over the
status and what still does not fit ends in an ellipsis); the launcher's notice
bar, its words and buttons inside it, above the list; Friends with many players
followed. Pictures kept in $BLOCKYARD_SHOTS when it is set."""

from __future__ import annotations

import os

import pytest
from online_support import LANGUAGES, SIZES, check_buttons, check_text, free_port

from blockyard.frontend import i18n
from blockyard.frontend.launcher import MIN_FONT, LauncherView
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.friends_view import FriendsView
from blockyard.frontend.online.lobby_view import ROW_FONT, LobbyView
from blockyard.online import Friend, Invitation, Opened, PlayerRating, TableInfo

LONG = "someone_with_a_long_name"
SEATS = tuple(f"player_number_{i}_long" for i in range(7))


class StillFeed:
    """A player's own feed holding fixed lists (layout only)."""

    def __init__(self, invitations=(), players=(), friends=None, opened=()):
        self.invitations, self.players = list(invitations), list(players)
        self.friends, self.opened = friends, list(opened)
        self.version, self.state = 1, "connected"

    def close(self, wait=True):
        pass


def shot(ui, name: str) -> None:
    folder = os.environ.get("BLOCKYARD_SHOTS")
    if folder:
        ui.pump(1)
        ui.screenshot().save(os.path.join(folder, f"{name}.png"))


def inside(text, rect, code) -> None:
    """``text`` drawn within ``rect`` (its anchors read)."""
    left = text.x - (text.content_width / 2 if text.anchor_x == "center" else
                     text.content_width if text.anchor_x == "right" else 0)
    assert rect.left - 1 <= left and left + text.content_width <= rect.right + 1, (code,
                                                                                  text.text)
    bottom = text.y - (text.content_height / 2 if text.anchor_y == "center" else
                       text.content_height if text.anchor_y == "top" else 0)
    assert rect.bottom - 2 <= bottom and bottom + text.content_height <= rect.top + 2, (
        code, text.text)


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_friends_in_the_lobby_and_long_table_rows_fit(ui, size, code, english):
    ui.resize(*size)
    width, height = size
    tag = f"{code}-{width}x{height}"
    account = OnlineAccount(f"127.0.0.1:{free_port()}", LONG, "t")
    friends = [f"friend_number_{i}_long" for i in range(9)]
    feed = StillFeed(players=[LONG, *friends], friends=friends,
                     opened=[Opened(7, "eu-classic", friends[0])])
    i18n.set_language(code)
    lobby = LobbyView(account, lambda *a: None, lambda: None, lambda: None, feed=feed,
                      friends=lambda: None, leaderboards=lambda: None,
                      play_now=lambda _rid: None, rated_board=lambda _rid: None)
    ui.window.show_view(lobby)
    rating = PlayerRating(-1234.5, 25.0, 8.3, 3, True)
    lobby.tables = [TableInfo(3, "eu-zen", (LONG, *SEATS), "playing", True, (rating,) * 8),
                    TableInfo(7, "eu-classic", (friends[0], None, None, None), "waiting"),
                    TableInfo(9, "eu-classic", ("a", None), "waiting")]
    lobby._order_tables()
    lobby._layout()
    assert [t.id for t in lobby.tables] == [7, 3, 9]  # the friend's table first
    check_buttons(lobby.buttons, width, height, code)
    assert lobby.friends_button.visible
    check_text(lobby.friends_text, width, code)
    assert lobby.friends_text.text.startswith(i18n._("Friends online: {names}").split("{")[0])
    assert lobby.friends_text.font_size >= 8.0
    assert lobby.friends_text.y < lobby.online_text.y
    assert len(lobby.rows) == 3
    for rect, texts in lobby.rows:
        assert rect.left >= 0 and rect.right <= width
        assert rect.top < lobby.friends_text.y - lobby.friends_text.content_height / 2
        for text in texts:
            inside(text, rect, code)
            # readable: never below 9 points (the long seats fell to 7)
            assert text.font_size >= ROW_FONT - 0.01, (code, text.text, text.font_size)
        left, *right = texts
        assert left.x + left.content_width <= min(t.x - t.content_width for t in right), code
    star = lobby.rows[0][1][0].text
    assert star.startswith("★ ")
    seats = lobby.rows[1][1][1].text
    assert "…" in seats or seats.count(",") == 7, seats  # shortened, not shrunk
    assert lobby.rows[-1][0].bottom >= max(b.rect.top for b in lobby.buttons if b.visible)
    check_text(lobby.hint, width, code)
    shot(ui, f"friends-lobby-{tag}")


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_launchers_notice_fits(ui, size, code, english):
    ui.resize(*size)
    width, height = size
    tag = f"{code}-{width}x{height}"
    account = OnlineAccount(f"127.0.0.1:{free_port()}", LONG, "t")
    feed = StillFeed(invitations=[Invitation(4, "eu-classic", "an_inviter_with_a_long_name",
                                             (LONG, None), True, None)],
                     opened=[Opened(5, "eu-zen", "friend_with_a_long_name")], friends=[])
    ui.app.online = account
    ui.app.feeds.current, ui.app.feeds.key = feed, (account.server, account.token)
    try:
        i18n.set_language(code)
        launcher = LauncherView(ui.app)
        ui.window.show_view(launcher)
        ui.pump(1)
        assert [n.table for n in launcher.notices_waiting] == [4, 5]
        bar = launcher.live_rect
        assert bar.left >= 0 and bar.right <= width and bar.top <= height
        assert bar.top <= launcher.title.y  # under the title
        assert launcher.list_top <= bar.bottom
        inside(launcher.live_text, bar, code)
        assert launcher.live_text.font_size >= MIN_FONT - 0.01
        assert "…" not in launcher.live_text.text  # the whole sentence shows
        check_buttons([launcher.live_open, launcher.live_dismiss], width, height, code)
        for button in (launcher.live_open, launcher.live_dismiss):
            r = button.rect
            assert bar.left <= r.left and r.right <= bar.right
            assert bar.bottom <= r.bottom and r.top <= bar.top
        text = launcher.live_text
        assert not (text.y - text.content_height / 2 < launcher.live_open.rect.top
                    and text.x + text.content_width > launcher.live_open.rect.left), code
        online = next(e for e in launcher.entries if e.family == "online")
        assert online.rect.top <= bar.bottom or online.rect.bottom > height
        shot(ui, f"launcher-notice-{tag}")
    finally:
        ui.app.feeds.current, ui.app.feeds.key = None, None


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_friends_fits(ui, size, code, english):
    ui.resize(*size)
    width, height = size
    tag = f"{code}-{width}x{height}"
    account = OnlineAccount(f"127.0.0.1:{free_port()}", LONG, "t")
    names = [f"followed_player_{i:02d}_long" for i in range(12)]
    online = [LONG, names[0], "an_online_player_with_a_long_name", "b", "c", "d"]
    feed = StillFeed(friends=names[:3], players=online)
    i18n.set_language(code)
    view = FriendsView(account, lambda: None, feed=feed, open_table=lambda _id, _code: None,
                       ruleset_id="eu-classic")
    ui.window.show_view(view)
    view.follows = [Friend(name, False) for name in names]
    view.loaded = True
    view.typed = "a_name_typed_in_the_field_long"
    view.say(i18n._("You no longer follow {name}.").format(name=names[0]))
    view._layout()
    check_buttons([view.follow_button, view.back_button, *view.unfollow_buttons,
                   *view.challenge_buttons, *view.offer_buttons], width, height, code)
    # the rules a Challenge opens its table for, between the offers and the rows
    check_text(view.rules_text, width, code)
    assert view.rows[0][0].top < view.rules_text.y < view.offer_buttons[0].rect.bottom, code
    # the players online not followed (not oneself, not one followed): three offered
    assert [b.label.removesuffix("…") for b in view.offer_buttons][1:] == ["+ b", "+ c"]
    assert view.offer_buttons[0].label.startswith("+ an_online")
    for chip in view.offer_buttons:
        assert chip.text.font_size >= 9.0 - 0.01, (code, chip.label)
        assert chip.rect.bottom > view.rows[0][0].top, code
        assert chip.rect.top < view.offer_label.y, code
    check_text(view.offer_label, width, code)
    check_text(view.title, width, code)
    check_text(view.hint, width, code)
    check_text(view.field_label, width, code)
    inside(view.field_text, view.field, code)
    assert view.rows and view.rows_online[:3] == [True, True, True]  # online first
    # the ones that did not fit are counted
    assert bool(view.more_text.text) == (len(view.rows) < len(names)), code
    assert len(view.challenge_buttons) == len(view.unfollow_buttons)
    for (rect, texts), button, dare in zip(view.rows, view.unfollow_buttons,
                                           view.challenge_buttons, strict=False):
        assert rect.left < dare.rect.left and dare.rect.right <= button.rect.left, code
        assert rect.bottom > view.back_button.rect.top
        for text in texts:
            inside(text, rect, code)
            assert text.font_size >= 9.0 - 0.01
        name, state = texts
        assert name.x + name.content_width <= state.x - state.content_width, code
        assert state.x <= dare.rect.left, code
    lowest = view.rows[-1][0].bottom
    message_top = view.message_text.y + view.message_text.content_height / 2
    assert message_top < lowest
    if view.more_text.text:  # between the last row and the message, touching neither
        more = view.more_text
        assert message_top < more.y - more.content_height / 2, code
        assert more.y + more.content_height / 2 <= lowest + 1, code
    shot(ui, f"friends-{tag}")
