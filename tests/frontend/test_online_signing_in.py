"""After signing in: the Sign in button no longer looks chosen (it stayed
highlighted — green, ringed — as if there were still something to do), and the
launcher's online row says who is signed in where (it gave the server only)."""

from __future__ import annotations

import pytest
from online_support import account, close, lit, open_online, pump_until, ringed

from blockyard.frontend import theme
from blockyard.frontend.launcher import LauncherView


def online_row(launcher: LauncherView):
    return next(e for e in launcher.entries if e.family == "online")


def row_words(ui, launcher: LauncherView) -> str:
    """The online row's line under its title, checked to be drawn inside the row."""
    row = online_row(launcher)
    line = next(t for t in row.texts if t.text == row.description)
    assert row.rect.left <= line.x and line.x + line.content_width <= row.rect.right
    assert line.font_size >= 9
    return row.description


def test_signing_in_with_the_mouse_leaves_nothing_lit_but_back_and_the_launcher_says_who(
        ui, server, english):
    bob = account(server, "bob")
    address = server.url.removeprefix("http://")
    view = open_online(ui)  # from the launcher: Esc goes back there
    ui.type(address)
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    ui.key("Escape")
    launcher = ui.view
    assert isinstance(launcher, LauncherView)
    assert row_words(ui, launcher) == f"Server {address}: not signed in."
    view = open_online(ui)
    for field, text in ((view.name, bob.name), (view.password, "correct horse")):
        ui.click(field.rect.center_x, field.rect.center_y)
        ui.type(text)
    sign_in = view.sign_in_button
    assert sign_in.enabled
    ui.click(sign_in.rect.center_x, sign_in.rect.center_y)  # the pointer stays on it
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Signed in." and ui.app.online.signed_in
    ui.pump(1)
    # done: Sign in (and Create account) cannot be pressed again, and do not look it
    assert not sign_in.enabled and not view.create_button.enabled
    r = sign_in.rect
    assert close(ui.pixel(r.left + 8, r.bottom + 8), theme.DISABLED)
    assert not close(ui.pixel(r.left + 8, r.bottom + 8), theme.GO)
    assert not ringed(ui, sign_in)
    # the one thing chosen is Back, the way on
    assert view.focused_button is view.back_button
    assert [b for b in view.buttons if lit(ui, b)] == [view.back_button]
    ui.key("Return")
    launcher = ui.view
    assert isinstance(launcher, LauncherView)
    assert row_words(ui, launcher) == f"Signed in as {bob.name} on {address}."


def test_enter_on_the_password_when_signed_in_says_to_sign_out_first(ui, server, english):
    bob = account(server, "bob")
    view = open_online(ui)
    ui.type(server.url.removeprefix("http://"))
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    ui.type(bob.name)
    ui.key("Tab")
    ui.type("correct horse")
    ui.key("Return")  # Enter on the password signs in
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Signed in." and view.focused_button is view.back_button
    ui.key("Up", "Up", "Up")  # Back → Sign out → (Sign in, Create: off) → the password
    assert view.focused_field is view.password
    ui.type("x")
    ui.key("Return")
    assert view.pending is None  # nothing sent
    assert view.message == "You are signed in. Sign out first to use another account."
    assert view.focused_button is view.sign_out_button


@pytest.mark.parametrize("code", ["de", "es", "ne"])
def test_the_online_row_says_who_in_every_language(ui, english, code):
    from online_support import free_port

    from blockyard.frontend import i18n
    from blockyard.frontend.online.account import OnlineAccount

    address = f"127.0.0.1:{free_port()}"
    ui.app.online = OnlineAccount(address, "someone_with_a_long_name", "t")
    i18n.set_language(code)
    ui.app.show_launcher()
    ui.pump(1)
    words = row_words(ui, ui.view)
    assert "someone_with_a_long_name" in words and address in words
    assert words != "Signed in as someone_with_a_long_name on " + address + "."  # translated
