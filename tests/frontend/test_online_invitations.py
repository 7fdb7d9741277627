"""Players online, invitations and the launcher's badge on a real window (real
input on Xvfb, pixels read back) against a real ``blockyard serve`` on
loopback: a player invites another by name (typed, or picked from the players
online), the invited player's window shows the badge and the invitation as it
arrives, declines or accepts it, and both are at the table."""

from __future__ import annotations

import pytest
from online_support import (
    LANGUAGES,
    SIZES,
    account,
    check_buttons,
    check_text,
    choose_rules,
    free_port,
    pump_until,
    sign_in_window,
    until,
)

from blockyard.frontend import i18n, theme
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView, ruleset_title
from blockyard.frontend.online.table_view import LiveDuelView, WaitingView
from blockyard.online import Client, Invitation


def as_player(ui, server, client: Client) -> None:
    """The window signed in as ``client``'s player."""
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), client.name,
                                  client.token)
    ui.app.online.save()


def online_row(launcher: LauncherView):
    return next(e for e in launcher.entries if e.family == "online")


def rgb(colour) -> tuple[int, int, int]:
    return tuple(colour[:3])


def test_an_invitation_typed_by_name_shows_with_the_badge_and_is_accepted(ui, server):
    bob = account(server, "bob")
    bob.players_online()  # Bob is online
    alice = sign_in_window(ui, server, "alice")
    # Alice's window, keyboard only: N, the rules, ↓ to the invitations, Bob's name
    ui.app.show("lobby")
    lobby = ui.view
    pump_until(ui, lambda: lobby.pending is None and bob.name in lobby.players)
    ui.key("n")
    form = ui.view
    assert isinstance(form, NewTableView)
    choose_rules(ui, form)
    ui.key("Down", "Down", "Down", "Down")
    ui.type(bob.name)
    assert form.invited() == [bob.name]
    # ↓ to the players online: Bob's is ticked; Space takes him out, Space again in
    chip = form.pick_buttons[form.players.index(bob.name)]
    assert chip.label == "✓ " + bob.name
    ui.key("Down", *["Right"] * form.players.index(bob.name), "space")
    assert form.invited() == [] and chip.label == bob.name
    ui.key("space")
    assert form.invited() == [bob.name] and chip.label == "✓ " + bob.name
    ui.key("Up")  # back on the invitations' row: Enter opens the table
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, WaitingView))
    table_id = int(ui.view.session.code.split("-")[0])
    ui.view.session.close()
    [invitation] = bob.invitations()
    assert (invitation.table, invitation.sender, invitation.seats) == (
        table_id, alice.name, (alice.name, None))
    # Bob's window: the launcher's badge says one invitation, in the badge's colour
    as_player(ui, server, bob)
    ui.app.show_launcher()
    launcher = ui.view
    pump_until(ui, lambda: launcher.invitations == 1)
    row = online_row(launcher)
    assert row.badge_rect.width > 0
    assert any(t.text == "1" for t in row.texts)
    assert any("1 invitation waiting" in t.text for t in row.texts)
    badge = row.badge_rect
    assert ui.pixel(badge.left + 2, badge.bottom + 2) == rgb(theme.BAD)
    assert ui.pixel(badge.left - 3, badge.center_y) != rgb(theme.BAD)
    # keyboard: to the online row, Enter: the lobby shows the invitation
    ui.key("Home", *["Down"] * launcher.entries.index(row))
    assert launcher.selected == launcher.entries.index(row)
    ui.key("Return")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.invite_rows and lobby.pending is None)
    rect, text, accept, _decline = lobby.invite_rows[0]
    assert text.text == f"{alice.name} invites you: {ruleset_title('eu-classic')} (1/2)"
    assert ui.pixel(rect.left + 2, rect.center_y) == rgb(theme.GO)
    assert lobby.selected == 0  # the first focus: Accept, drawn focused
    ui.move(lobby.title.x, lobby.title.y)
    # the focus: the accent ring on the button, which keeps its colour
    assert ui.pixel(accept.rect.left + 1, accept.rect.center_y) == rgb(theme.ACCENT)
    assert ui.pixel(accept.rect.left + 8, accept.rect.bottom + 8) == rgb(theme.GO)
    with alice.live(table_id) as alice_live:
        assert until(alice_live, "table")["status"] == "waiting"
        ui.key("Return")
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        duel = ui.view
        assert duel.table.me == 1 and duel.table.seats == [alice.name, bob.name]
        state = until(alice_live, "table")
        assert (state["seats"], state["status"]) == ([alice.name, bob.name], "playing")
        duel.table.close()
    assert bob.invitations() == []


def test_a_player_online_is_picked_and_invitations_arrive_in_the_open_lobby(ui, server):
    bob = account(server, "bob")
    bob.players_online()  # Bob is online
    alice = sign_in_window(ui, server, "alice")
    # Alice's window, mouse only: the lobby names Bob online; New table; Bob picked
    ui.app.show("lobby")
    lobby = ui.view
    pump_until(ui, lambda: bob.name in lobby.players and lobby.pending is None)
    assert bob.name in lobby.online_text.text
    ui.click(lobby.new_button.rect.center_x, lobby.new_button.rect.center_y)
    form = ui.view
    assert isinstance(form, NewTableView) and bob.name in form.players
    form.ruleset = [rid for rid, _name in form.rulesets].index("eu-classic")
    chip = form.pick_buttons[form.players.index(bob.name)]
    ui.click(chip.rect.center_x, chip.rect.center_y)
    assert form.invited() == [bob.name] and chip.label == "✓ " + bob.name
    ui.move(form.title.x, form.title.y)  # the mouse away: the chip's own colour shows
    assert ui.pixel(chip.rect.left + 4, chip.rect.bottom + 5) == rgb(theme.GO)
    edge = [ui.pixel(chip.rect.left + dx, chip.rect.center_y) for dx in (-2, -1, 0, 1)]
    assert rgb(theme.ACCENT) in edge  # the keyboard's focus is on the chip clicked
    ui.click(chip.rect.center_x, chip.rect.center_y)  # picked again: taken out
    assert form.invited() == [] and chip.label == bob.name
    ui.click(chip.rect.center_x, chip.rect.center_y)
    ui.click(form.create_button.rect.center_x, form.create_button.rect.center_y)
    pump_until(ui, lambda: isinstance(ui.view, WaitingView))
    first = int(ui.view.session.code.split("-")[0])
    ui.view.session.close()
    # Bob's window, mouse only: declined
    as_player(ui, server, bob)
    ui.app.show("lobby")
    lobby = ui.view
    pump_until(ui, lambda: len(lobby.invite_rows) == 1 and lobby.pending is None)
    decline = lobby.invite_rows[0][3]
    ui.click(decline.rect.center_x, decline.rect.center_y)
    pump_until(ui, lambda: not lobby.invite_rows and lobby.pending is None)
    assert bob.invitations() == []
    # a new invitation arrives while the lobby is open, with no input: accepted
    second = alice.create_table("eu-classic", private=True, invite=[bob.name])
    assert second.id != first
    pump_until(ui, lambda: len(lobby.invite_rows) == 1)
    assert not lobby.animating()  # idle while waiting: no frame drawn for nothing
    accept = lobby.invite_rows[0][2]
    ui.click(accept.rect.center_x, accept.rect.center_y)
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    assert ui.view.table.seats == [alice.name, bob.name]
    ui.view.table.close()


class StillFeed:
    """A player's feed that holds fixed lists (layout only)."""

    def __init__(self, invitations, players):
        self.invitations, self.players = invitations, players
        self.version, self.state = 1, "connected"

    def close(self, wait=True):
        pass


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_players_online_invitations_and_badge_fit(ui, size, code):
    ui.resize(*size)
    width, height = size
    name = "someone_with_a_long_name"
    account = OnlineAccount(f"127.0.0.1:{free_port()}", name, "t")
    long_names = [f"player_number_{i:03d}_long" for i in range(12)]
    invitations = [Invitation(10 + i, "eu-classic", long_names[i], (long_names[i], None, None),
                              True, None) for i in range(5)]
    feed = StillFeed(invitations, [name, *long_names])
    i18n.set_language(code)
    lobby = LobbyView(account, lambda *a: None, lambda: None, lambda: None, feed=feed)
    ui.window.show_view(lobby)
    assert len(lobby.invite_rows) == 3 and name not in lobby.players
    check_text(lobby.online_text, width, code)
    assert lobby.online_text.text
    for rect, text, accept, decline in lobby.invite_rows:
        assert rect.left >= 0 and rect.right <= width and rect.top <= lobby.status.y
        check_buttons([accept, decline], width, height, code)
        assert text.x + text.content_width <= accept.rect.left + 1, (code, text.text)
    if lobby.rows:
        assert lobby.rows[0][0].top <= lobby.invite_rows[-1][0].bottom
    form = NewTableView(account, lambda *a: None, lambda: None, players=lobby.players)
    ui.window.show_view(form)
    assert len(form.pick_buttons) == 6
    check_buttons([*form.pick_buttons, form.create_button, form.cancel_button], width,
                  height, code)
    check_text(form.pick_label, width, code)
    check_text(form.hint, width, code)
    assert min(b.rect.bottom for b in form.pick_buttons) >= form.create_button.rect.top
    assert max(b.rect.top for b in form.pick_buttons) <= form.rows[-1].bottom
    i18n.set_language("en")
    # the launcher's badge: inside the online row, beside its title
    ui.app.online = account
    ui.app.feeds.current, ui.app.feeds.key = feed, (account.server, account.token)
    i18n.set_language(code)
    launcher = LauncherView(ui.app)
    ui.window.show_view(launcher)
    ui.pump(1)
    row = online_row(launcher)
    badge = row.badge_rect
    assert launcher.invitations == 5 and badge.width > 0
    assert row.rect.left <= badge.left and badge.right <= row.rect.right <= width
    assert row.rect.bottom <= badge.bottom and badge.top <= row.rect.top
    title = row.texts[0]
    assert title.x + title.content_width <= badge.left, code
    i18n.set_language("en")
    ui.app.feeds.current, ui.app.feeds.key = None, None


def test_the_open_lobby_fetches_the_tables_again_on_its_own(ui, server):
    # found playing: a table opened elsewhere showed only after F5
    from blockyard.frontend.online.lobby_view import REFRESH_SECONDS

    sign_in_window(ui, server, "lurker")
    ui.app.show("lobby")
    lobby = ui.view
    pump_until(ui, lambda: lobby.pending is None)
    lobby.say("a message the player reads")
    dora = account(server, "dora")
    opened = dora.create_table("eu-classic")
    assert opened.id not in [t.id for t in lobby.tables]
    ui.pump(3, dt=REFRESH_SECONDS / 2)  # the lobby's clock passes the refresh time
    pump_until(ui, lambda: opened.id in [t.id for t in lobby.tables])
    assert lobby.message == "a message the player reads"  # a quiet refresh says nothing
