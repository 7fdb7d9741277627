"""One button looks chosen at a time, on a real window (real input on Xvfb):
focus and pointer share one selection on the online page (against a real
``blockyard serve``), the lobby, the New table form, the pause menu and
Settings.
"""

from __future__ import annotations

from online_support import close, lit, open_online, pump_until, ringed, sign_in_window

from blockyard.frontend import theme
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView
from blockyard.frontend.pages import SettingsView


def test_focus_and_pointer_choose_one_button_at_a_time(ui, server):
    view = open_online(ui)
    address = server.url.removeprefix("http://")
    ui.type(address)
    ui.key("Tab", "Tab", "Tab")  # past the name and the password: Save address
    assert view.focused_button is view.save_button
    ui.pump(1)
    assert ringed(ui, view.save_button)
    # the pointer on another button moves the focus there: one button looks chosen
    back = view.back_button.rect
    ui.move(back.center_x, back.center_y)
    assert view.focused_button is view.back_button
    assert [b for b in view.buttons if lit(ui, b)] == [view.back_button]
    assert not any(b.hover for b in view.buttons)
    # a key moves the focus on (Sign out cannot be pressed: skipped); the button
    # under the pointer no longer looks chosen
    ui.key("Up")
    assert view.focused_button is view.sign_in_button, view.focused_button.label
    assert [b for b in view.buttons if lit(ui, b)] == [view.sign_in_button]
    assert ringed(ui, view.sign_in_button) and not ringed(ui, view.back_button)
    ui.key("shift+Tab")  # back one (X11 gives Shift+Tab as ISO_Left_Tab)
    assert view.focused_button is view.create_button
    ui.key("Tab")
    assert view.focused_button is view.sign_in_button
    # typing in a field: the pointer does not take the focus (typing goes on there)
    field = view.name.rect
    ui.click(field.center_x, field.center_y)
    create = view.create_button.rect
    ui.move(create.center_x, create.center_y)
    assert view.focused_field is view.name
    ui.type("abc")
    assert view.name.value == "abc"
    assert not any(ringed(ui, b) for b in view.buttons)  # a hovered button is not ringed
    ui.click(create.center_x, create.center_y)  # a click still presses it: no password
    assert view.message == "Type the account name and the password."
    assert view.focused_field is view.password


def test_the_lobby_and_the_pause_menu_choose_one_thing_at_a_time(ui, server):
    me = sign_in_window(ui, server)
    table = me.create_table("eu-classic", seats=2)
    ui.app.show("lobby")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None and lobby.rows)
    row = lobby.rows[[t.id for t in lobby.tables].index(table.id)][0]
    ui.move(row.center_x, row.center_y)
    assert lobby.focused_item is None  # a table's row is chosen
    assert not any(lit(ui, b) for b in lobby.buttons if b.visible)
    refresh = lobby.refresh_button.rect
    ui.move(refresh.center_x, refresh.center_y)
    assert lobby.focused_item is lobby.refresh_button
    assert [b for b in lobby.buttons if b.visible and lit(ui, b)] == [lobby.refresh_button]
    assert not close(ui.pixel(row.left + 2, row.center_y), theme.ACCENT)  # no row chosen
    ui.key("Down")  # the keyboard takes it from there
    assert lobby.focused_item is not lobby.refresh_button
    assert sum(lit(ui, b) for b in lobby.buttons if b.visible) <= 1
    # the New table form: the pointer on Cancel moves the one selection there
    ui.key("n")
    form = ui.view
    assert isinstance(form, NewTableView)
    cancel = form.cancel_button.rect
    ui.move(cancel.center_x, cancel.center_y)
    assert form.focused_button is form.cancel_button and ringed(ui, form.cancel_button)
    assert not ringed(ui, form.create_button)
    ui.key("Down")  # from Cancel round to the first row
    assert form.selected == 0 and form.focused_button is None
    assert not ringed(ui, form.cancel_button)
    ui.key("Escape")
    # the pause menu: the pointer and the keys move the same one choice
    view, _game = ui.show_game("eu-classic")
    ui.key("Escape")
    assert view.paused
    pause = view.dialog.pause
    second = pause.buttons[1].rect
    ui.move(second.center_x, second.center_y)
    assert pause.index == 1
    assert [b for b in pause.buttons if ringed(ui, b)] == [pause.buttons[1]]
    ui.key("Down")
    assert pause.index == 2
    assert [b for b in pause.buttons if ringed(ui, b)] == [pause.buttons[2]]
    assert not lit(ui, pause.buttons[1])


def test_settings_rows_and_back_are_one_selection(ui):
    ui.app.show_settings()
    ui.pump(2)
    view = ui.view
    assert isinstance(view, SettingsView)
    back = view.back_button.rect
    ui.move(back.center_x, back.center_y)
    assert view.selected == len(view.options) and ringed(ui, view.back_button)
    first = view.rows[0]
    assert not close(ui.pixel(first.left + 2, first.center_y), theme.ACCENT)  # no row chosen
    ui.key("Down")  # the keyboard goes on from the top row
    assert view.selected == 0 and not ringed(ui, view.back_button)
    ui.move(back.center_x, back.center_y + 1)
    ui.key("Return")  # Enter on Back goes back
    assert not isinstance(ui.view, SettingsView)
