"""Settings → Online on a real window (real input on Xvfb) against a real
``blockyard serve`` on loopback: the address, creating an account, signing in
and out, refusals; the token file readable only by the player."""

from __future__ import annotations

import os
import stat
import tomllib
import uuid

import httpx
import pytest
from online_support import (
    LANGUAGES,
    SIZES,
    free_port,
    pump_until,
    resize,
)

from blockyard import online
from blockyard.frontend import i18n
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.errors import kind_text
from blockyard.frontend.online.settings_view import OnlineSettingsView
from blockyard.frontend.pages import SettingsView


def open_online(ui) -> OnlineSettingsView:
    """Settings, then its last row (Online play) with the keyboard."""
    ui.app.show_settings()
    ui.pump(2)
    assert isinstance(ui.view, SettingsView)
    ui.key("Up", "Return")  # ↑ from the first row wraps to the last one
    assert isinstance(ui.view, OnlineSettingsView)
    return ui.view


def saved() -> dict:
    path = OnlineAccount.path()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    return tomllib.loads(path.read_text())


def table_status(server, token: str) -> int:
    return httpx.post(f"{server.url}/api/tables", json={"ruleset_id": "eu-classic"},
                      headers={"Authorization": f"Bearer {token}"}, timeout=30).status_code


def test_address_account_sign_out_and_in_with_keyboard_and_mouse(ui, server):
    view = open_online(ui)
    assert view.status.text == "Offline: no server is set."
    address = server.url.removeprefix("http://")
    # keyboard only: the address, Enter saves it and asks the server
    ui.type(address)
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    assert view.message.startswith("The server answers (Blockyard ")
    assert saved() == {"server": address, "name": "", "token": ""}
    assert view.status.text == f"Server {address}: not signed in."
    # the name (Enter on the address moved on to it), the password, then Create account
    name = f"win{uuid.uuid4().hex[:8]}"
    assert view.focused_field is view.name
    ui.type(name)
    ui.key("Tab")
    ui.type("correct horse")
    assert view.password.text.text != "correct horse"  # shown as dots
    ui.key("Tab", "Tab", "Return")  # past Save address to Create account
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Account created and signed in."
    assert ui.app.online.signed_in and ui.app.online.name == name
    token = saved()["token"]
    assert token == ui.app.online.token and "correct horse" not in OnlineAccount.path().read_text()
    assert table_status(server, token) == 201
    assert view.status.text == f"Signed in as {name} on {address}."
    # mouse only: Sign out revokes the token on the server
    button = view.sign_out_button
    ui.click(button.rect.center_x, button.rect.center_y)
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Signed out."
    assert saved() == {"server": address, "name": "", "token": ""}
    assert table_status(server, token) == 401
    # a wrong password: said in the player's words (not the server's), nothing changes
    for field, text in ((view.name, name), (view.password, "not the password")):
        ui.click(field.rect.center_x, field.rect.center_y)
        ui.type(text)
    ui.click(view.sign_in_button.rect.center_x, view.sign_in_button.rect.center_y)
    pump_until(ui, lambda: view.pending is None)
    assert view.message_bad and view.message == kind_text(online.WRONG_LOGIN)
    assert "HTTP" not in view.message and not ui.app.online.signed_in
    # the right one, with the mouse
    ui.click(view.password.rect.center_x, view.password.rect.center_y)
    for _ in range(len("not the password")):
        ui.key("BackSpace")
    ui.type("correct horse")
    ui.click(view.sign_in_button.rect.center_x, view.sign_in_button.rect.center_y)
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Signed in." and ui.app.online.signed_in
    assert table_status(server, saved()["token"]) == 201
    assert view.password.value == ""  # never kept
    # a restarted window finds the account signed in
    assert OnlineAccount.load() == ui.app.online
    ui.key("Escape")
    assert isinstance(ui.view, SettingsView)


def test_a_bad_or_unreachable_address_changes_nothing(ui, server):
    view = open_online(ui)
    ui.type("ftp://example.org")
    ui.key("Return")
    assert view.message_bad and view.message == kind_text(online.BAD_ADDRESS)
    assert not OnlineAccount.path().exists() and not ui.app.online.online
    for _ in range(len("ftp://example.org")):
        ui.key("BackSpace")
    port = free_port()  # nobody listens there
    ui.type(f"127.0.0.1:{port}")
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    assert view.message_bad and view.message == kind_text(online.UNREACHABLE)
    # emptied (back to the address: Enter moved on to the name): offline again, the
    # account forgotten
    assert view.focused_field is view.name
    ui.key("Up")
    for _ in range(len(f"127.0.0.1:{port}")):
        ui.key("BackSpace")
    ui.key("Return")
    assert view.message == "Offline: nothing is sent anywhere."
    assert saved() == {"server": "", "name": "", "token": ""}


def test_a_token_file_with_loose_permissions_is_narrowed(isolated_home):
    account = OnlineAccount("127.0.0.1:1", "someone", "secret")
    account.save()
    os.chmod(OnlineAccount.path(), 0o644)
    assert OnlineAccount.load() == account
    assert stat.S_IMODE(os.stat(OnlineAccount.path()).st_mode) == 0o600
    OnlineAccount.path().write_text('server = "ftp://x"\nname = ""\ntoken = ""\n')
    notices: list[str] = []
    with pytest.warns(UserWarning, match="online account file"):
        assert OnlineAccount.load(notices) == OnlineAccount()
    assert len(notices) == 1 and "online account" in notices[0]


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_language_fits_at_every_size(ui, size, code):
    ui.resize(*size)
    width, height = size
    i18n.set_language(code)
    view = OnlineSettingsView(ui.app.online, ui.app.show_launcher)
    ui.window.show_view(view)
    view.say(view.status_line())
    ui.pump(1)
    for button in view.buttons:
        assert button.text.content_width <= button.rect.width + 1, (code, button.label)
        assert button.rect.left >= 0 and button.rect.right <= width
        assert button.rect.bottom >= view.hint.y + view.hint.content_height - 1
    for field in view.fields:
        assert field.label.content_width <= field.rect.width + 1, (code, field.label.text)
        assert field.rect.top + field.label.content_height <= height
    assert view.title.content_width <= width
    assert view.hint.content_width <= width
    last_field = view.fields[-1].rect
    assert view.message_text.y <= last_field.bottom + 1
    assert view.message_text.y - view.message_text.content_height >= \
        view.buttons[0].rect.top - 1, code


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_settings_online_row_fits(ui, english, code):
    i18n.set_language(code)
    for width, height in SIZES:
        ui.app.show_settings()
        ui.pump(1)
        resize(ui, width, height)
        view = ui.view
        index = [o.name for o in view.options].index("online")
        rect = view.rows[index]
        label, value = view.texts[2 * index], view.texts[2 * index + 1]
        assert value.text == i18n._("Server and account") + "  ▶", code
        assert "…" not in value.text
        left = value.x - value.content_width
        assert left >= label.x + label.content_width + 4, (code, width)
        assert value.x <= rect.right and left >= rect.left
        # at the size of the other values: made smaller by a tenth at most
        other = view.texts[2 * [o.name for o in view.options].index("sound") + 1]
        assert value.font_size >= other.font_size * 0.9, (code, width)
    # the row opens the online page (the mouse)
    i18n.set_language("en")
    ui.app.show_settings()
    ui.pump(1)
    view = ui.view
    index = [o.name for o in view.options].index("online")
    ui.click(view.rows[index].center_x, view.rows[index].center_y)
    assert isinstance(ui.view, OnlineSettingsView)


def test_enter_on_the_address_moves_on_to_the_account_name(ui, server, english):
    ui.app.show("online-settings")
    ui.pump(2)
    view = ui.view
    assert isinstance(view, OnlineSettingsView)
    address = server.url.removeprefix("http://")
    name = f"ent{uuid.uuid4().hex[:8]}"
    # as the README says: the address, Enter, then an account name, a password
    ui.type(address)
    ui.key("Return")
    assert view.focused_field is view.name
    ui.type(name)
    ui.key("Return")
    ui.type("correct horse")
    pump_until(ui, lambda: view.pending is None)
    assert view.server.value == address and ui.app.online.server == address
    assert view.name.value == name and view.password.value == "correct horse"
    assert OnlineAccount.load().server == address  # saved by the Enter
    # a bad address keeps the focus where it is, to be corrected
    ui.key("Up", "Up")  # from the password
    assert view.focused_field is view.server
    ui.type("/x y")
    ui.key("Return")
    assert view.message_bad and view.focused_field is view.server
