"""Friends on a real window (real input on Xvfb, pixels read back) against a real
``blockyard serve`` on loopback: a player follows another by name in Friends
(F in the lobby), sees them online there and on the lobby's line of friends,
pushed live; the followed player's new public table is fetched at once, listed
first, marked, and joined from the keyboard; a refused name is said; unfollowing
by mouse empties the list. The launcher shows an invitation or a followed
player's new table as a notice, opened with one key or click and dismissable;
and a second window in a process of its own opens a table its player follows
in this window's launcher, which opens it."""

from __future__ import annotations

from online_support import account, close, pump_until, sign_in_window
from window_process import start_process

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.friends_view import FriendsView
from blockyard.frontend.online.lobby_view import LobbyView, ruleset_title
from blockyard.frontend.online.table_view import LiveDuelView, WaitingView
from blockyard.frontend.persistence import Settings


def open_lobby(ui) -> LobbyView:
    ui.app.show("lobby")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None)
    return lobby


def launcher_with_feed(ui) -> LauncherView:
    """The launcher, once its player's own connection is open and has said who of
    the players followed is online (so that what is pushed next reaches it)."""
    ui.app.show_launcher()
    launcher = ui.view
    assert isinstance(launcher, LauncherView) and launcher.feed is not None
    pump_until(ui, lambda: launcher.feed.state == "connected"
               and launcher.feed.friends is not None)
    return launcher


def test_a_player_followed_by_name_is_online_and_their_new_table_is_joined(ui, server):
    bob = account(server, "bob")
    bob.players_online()  # Bob is online
    alice = sign_in_window(ui, server, "alice")
    lobby = open_lobby(ui)
    pump_until(ui, lambda: lobby.feed is not None and lobby.feed.friends is not None)
    assert lobby.friends_text.text == "No friends online."
    # keyboard: F opens Friends; a name that is no account is refused in words
    ui.key("f")
    friends = ui.view
    assert isinstance(friends, FriendsView)
    pump_until(ui, lambda: friends.loaded and friends.pending is None)
    assert friends.follows == [] and "You follow nobody yet" in friends.message
    ui.type("nobody_by_that_name")
    ui.key("Return")
    pump_until(ui, lambda: friends.pending is None)
    assert friends.message == "No player is named nobody_by_that_name."
    assert friends.message_bad
    assert close(ui.pixel(*_bad_pixel(ui, friends)), theme.BAD, 40)
    # the field corrected: Bob followed, said online (the feed's friends, pushed)
    ui.key(*["BackSpace"] * len("nobody_by_that_name"))
    ui.type(bob.name)
    ui.key("Return")
    pump_until(ui, lambda: friends.pending is None and friends.follows
               and friends.rows_online == [True])
    assert [f.name for f in alice.follows()] == [bob.name]
    assert friends.message == f"You follow {bob.name}."
    rect, texts = friends.rows[0]
    assert [t.text for t in texts] == [bob.name, "online"]
    assert close(ui.pixel(rect.left + 2, rect.center_y), theme.GO)
    # back in the lobby: the line of friends names him
    ui.key("Escape")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None and bob.name in lobby.friends_text.text)
    assert lobby.friends_text.text == f"Friends online: {bob.name}"
    # Bob opens a public table: listed first at once (no refresh asked), starred
    dora = account(server, "dora")
    dora.create_table("eu-classic")  # a table of someone not followed, listed too
    pump_until(ui, lambda: lobby.pending is None and lobby.tables)
    opened = bob.create_table("eu-classic")
    pump_until(ui, lambda: lobby.pending is None and lobby.tables
               and lobby.tables[0].id == opened.id and opened.id in lobby.opened)
    ui.pump(2)
    rect, texts = lobby.rows[0]
    assert texts[0].text == "★ " + ruleset_title("eu-classic")
    assert texts[1].text.startswith(bob.name)  # his seat, first
    ui.move(lobby.title.x, lobby.title.y)
    ui.pump(2)
    assert lobby.selected == 0  # the first focus: the row, drawn chosen (the accent)
    assert close(ui.pixel(rect.left + 2, rect.center_y), theme.ACCENT)
    ui.key("Down")  # the focus on the next row: Bob's is marked green
    ui.pump(2)
    assert close(ui.pixel(rect.left + 2, rect.center_y), theme.GO)
    # keyboard: back up to the table's row; Enter sits at it, and the duel starts
    ui.key("Up")
    assert lobby.selected == 0
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, (WaitingView, LiveDuelView)))
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    duel = ui.view
    assert duel.table.seats == [bob.name, alice.name] and duel.table.me == 1
    duel.table.close()
    # the launcher has no notice of the table the player already went to
    ui.app.show_launcher()
    ui.pump(2)
    assert opened.id in [o.table for o in ui.view.feed.opened]
    assert ui.view.live_notice is None
    # Friends again, by mouse: Unfollow empties the list
    lobby = open_lobby(ui)
    ui.click(lobby.friends_button.rect.center_x, lobby.friends_button.rect.center_y)
    friends = ui.view
    assert isinstance(friends, FriendsView)
    pump_until(ui, lambda: friends.loaded and friends.pending is None and friends.rows)
    unfollow = friends.unfollow_buttons[0]
    ui.click(unfollow.rect.center_x, unfollow.rect.center_y)
    pump_until(ui, lambda: friends.pending is None and not friends.follows)
    assert alice.follows() == []
    assert friends.message == f"You no longer follow {bob.name}."


def test_a_player_online_is_followed_with_one_click_in_friends(ui, server):
    carol = account(server, "carol")
    carol.players_online()  # Carol is online
    alice = sign_in_window(ui, server, "alice")
    lobby = open_lobby(ui)
    pump_until(ui, lambda: carol.name in lobby.players)
    ui.key("f")
    friends = ui.view
    assert isinstance(friends, FriendsView)
    pump_until(ui, lambda: friends.loaded and friends.pending is None
               and carol.name in friends.offered)
    chip = friends.offer_buttons[friends.offered.index(carol.name)]
    assert chip.label == "+ " + carol.name
    assert not close(ui.pixel(chip.rect.left + 6, chip.rect.bottom + 4), theme.BACKGROUND)
    ui.click(chip.rect.center_x, chip.rect.center_y)
    pump_until(ui, lambda: friends.pending is None and friends.follows)
    assert [f.name for f in alice.follows()] == [carol.name]
    assert carol.name not in friends.offered  # followed: no longer offered
    assert [t.text for t in friends.rows[0][1]] == [carol.name, "online"]
    assert friends.typed == ""
    # keyboard: Dave comes online; ↓ past the field and Follow to his button, Enter
    dave = account(server, "dave")
    dave.players_online()
    pump_until(ui, lambda: dave.name in friends.offered)
    ui.click(friends.field.center_x, friends.field.center_y)  # the focus on the field
    assert friends.selected == 0
    ui.key("Down", "Down", *["Down"] * friends.offered.index(dave.name))
    assert friends.focused_button is friends.offer_buttons[friends.offered.index(dave.name)]
    ui.key("Return")
    pump_until(ui, lambda: friends.pending is None and len(friends.follows) == 2)
    assert sorted(f.name for f in alice.follows()) == sorted([carol.name, dave.name])


def _bad_pixel(ui, view) -> tuple[float, float]:
    """A pixel of the message line's glyphs, where it is drawn in the bad colour."""
    text = view.message_text
    image = ui.screenshot()
    left = int(text.x - text.content_width / 2)
    height = image.height
    best = (text.x, text.y)
    for x in range(max(0, left), min(image.width, left + int(text.content_width))):
        for dy in range(-6, 7):
            y = text.y + dy
            pixel = image.getpixel((x, height - 1 - int(y)))
            if close(pixel[:3], theme.BAD, 40):
                return (x, y)
    return best


def test_an_invitation_and_a_friends_table_are_notices_in_the_launcher(ui, server):
    bob = account(server, "bob")
    cid = account(server, "cid")
    alice = sign_in_window(ui, server, "alice")
    alice.follow(bob.name)
    launcher = launcher_with_feed(ui)
    assert launcher.live_notice is None and not launcher.live_open.visible
    # Bob opens a table: the notice shows, with no input
    first = bob.create_table("eu-classic")
    pump_until(ui, lambda: launcher.live_notice is not None)
    rules = ruleset_title("eu-classic")
    assert launcher.live_text.text == f"{bob.name} opened a table: {rules}"
    bar = launcher.live_rect
    assert close(ui.pixel(bar.left + 2, bar.center_y), theme.GO)
    assert bar.bottom > max(e.rect.top for e in launcher.entries if e.rect.top <= bar.top)
    # Cid invites Alice: the invitation comes first, "+1 more" says the other
    cid.create_table("eu-classic", private=True, invite=[alice.name])
    pump_until(ui, lambda: len(launcher.notices_waiting) == 2)
    assert launcher.live_text.text == (f"{cid.name} invites you to a table: {rules}  "
                                       "(+1 more)")
    # X dismisses the invitation (it stays pending in the lobby); Bob's table shows
    ui.key("x")
    assert launcher.live_text.text == f"{bob.name} opened a table: {rules}"
    # dismissed stays dismissed: the launcher built again (a language switch) says
    # only Bob's table
    ui.app.show_launcher()
    launcher = ui.view
    ui.pump(2)
    assert [n.table for n in launcher.notices_waiting] == [first.id]
    # the mouse: Dismiss, then nothing is shown and the list starts under the header
    dismiss = launcher.live_dismiss
    ui.click(dismiss.rect.center_x, dismiss.rect.center_y)
    assert launcher.live_notice is None and launcher.live_rect.width == 0
    # a second table of Bob's: opened by a click on Open, which takes the seat
    second = bob.create_table("eu-classic")
    pump_until(ui, lambda: launcher.live_notice is not None
               and launcher.live_notice.table == second.id)
    ui.click(launcher.live_open.rect.center_x, launcher.live_open.rect.center_y)
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    duel = ui.view
    assert duel.table.table_id == second.id and duel.table.seats == [bob.name, alice.name]
    duel.table.close()
    # the invitation dismissed in the launcher is still in the lobby
    lobby = open_lobby(ui)
    assert [i.sender for i in lobby.invitations] == [cid.name]


def test_an_invitation_noticed_in_the_launcher_is_accepted_with_one_key(ui, server):
    cid = account(server, "cid")
    alice = sign_in_window(ui, server, "alice")
    launcher = launcher_with_feed(ui)
    table = cid.create_table("eu-classic", private=True, invite=[alice.name])
    pump_until(ui, lambda: launcher.live_notice is not None)
    ui.key("o")
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    duel = ui.view
    assert duel.table.table_id == table.id and duel.table.seats == [cid.name, alice.name]
    duel.table.close()
    assert cid.table(table.id)["seats"] == [cid.name, alice.name]


def test_a_friends_table_opened_in_another_window_is_opened_from_this_launcher(
        ui, server, tmp_path, monkeypatch):
    """A second window in a process of its own (real keys by xdotool): its player
    opens a public table from its lobby; this window's player follows them, and
    this window's launcher shows the notice, whose O takes the seat."""
    bob = account(server, "bob")
    me = sign_in_window(ui, server, "ann")
    me.follow(bob.name)
    # the other window's home: Bob signed in, every how-to-play page seen
    monkeypatch.setenv("BLOCKYARD_HOME", str(tmp_path))
    OnlineAccount(server.url.removeprefix("http://"), bob.name, bob.token).save()
    settings = Settings()
    settings.help_seen = [info.id for info in blockyard.list_rulesets()]
    settings.save()
    monkeypatch.undo()
    launcher = launcher_with_feed(ui)
    online = next(i for i, e in enumerate(launcher.entries) if e.family == "online")
    process = start_process(tmp_path)
    try:
        wid = process.shown(ui.wid)
        # the other window: its launcher's online row opens the lobby; N, Enter opens a table
        process.keys(wid, "Home", *["Down"] * online, "Return")
        process.keys(wid, "n")
        process.keys(wid, "Return")
        pump_until(ui, lambda: launcher.live_notice is not None)
        notice = launcher.live_notice
        assert notice.name == bob.name and notice.kind == "opened"
        assert launcher.live_text.text.startswith(f"{bob.name} opened a table: ")
        bar = launcher.live_rect
        assert close(ui.pixel(bar.left + 2, bar.center_y), theme.GO)
        # this window: O opens it, seated beside Bob
        ui.key("o")
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        duel = ui.view
        assert duel.table.table_id == notice.table
        assert duel.table.seats == [bob.name, me.name] and duel.table.me == 1
        assert bob.table(notice.table)["status"] == "playing"
        duel.table.close()
    finally:
        process.kill()
        process.wait()


def test_a_friend_is_challenged_from_the_friends_list_in_one_step(ui, server):
    bob = account(server, "bob")
    alice = sign_in_window(ui, server, "alice")
    alice.follow(bob.name)
    ui.app.settings.last_ruleset = "eu-daily"  # the launcher's last row: where it starts
    open_lobby(ui)
    ui.key("f")
    friends = ui.view
    assert isinstance(friends, FriendsView)
    pump_until(ui, lambda: friends.loaded and friends.pending is None and friends.rows)
    daily = ruleset_title("eu-daily")
    assert friends.rules_text.text == f"Challenge in: ◀  {daily}  ▶"
    # the rules: ▶ (a click on the line's right half) the next, ◀ back, ▶ again
    rules = [name for _rid, name in friends.rulesets]
    following = rules[(rules.index(daily) + 1) % len(rules)]
    line = friends.rules_rect
    ui.click(line.right - 10, line.center_y)
    assert friends.rules_text.text == f"Challenge in: ◀  {following}  ▶"
    ui.click(line.left + 10, line.center_y)
    assert friends.rules_text.text == f"Challenge in: ◀  {daily}  ▶"
    ui.click(line.right - 10, line.center_y)
    chosen = friends.rulesets[friends.ruleset][0]
    # Challenge beside Bob: a private friendly table of two, Bob invited, Alice seated
    dare = friends.challenge_buttons[0]
    assert dare.label == "Challenge" and dare.rect.right <= friends.unfollow_buttons[0].rect.left
    ui.click(dare.rect.center_x, dare.rect.center_y)
    pump_until(ui, lambda: isinstance(ui.view, (WaitingView, LiveDuelView)))
    waiting = ui.view
    table_id = int(waiting.session.code.split("-")[0])
    [invitation] = [i for i in bob.invitations() if i.table == table_id]
    assert invitation.sender == alice.name and invitation.private
    assert invitation.ruleset_id == chosen and invitation.seats == (alice.name, None)
    # Bob accepts: the duel begins in the window, a friendly one (the table says)
    bob.accept_invitation(table_id, chosen)
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    assert ui.view.table.seats == [alice.name, bob.name] and ui.view.table.rated is False
    ui.view.table.close()
