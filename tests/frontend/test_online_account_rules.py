"""The account rules (name and password) on the online page of a real window
(real input on Xvfb): said above their fields in every language at every size,
checked before anything is sent, the same numbers a real ``blockyard serve``
judges by; a saved account with the longest name loads.
"""

from __future__ import annotations

import uuid

import httpx
import pytest
from online_support import LANGUAGES, SIZES, open_online, pump_until, resize

import blockyard
from blockyard import accountrules, online
from blockyard.frontend import i18n
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.errors import kind_text


def test_the_sign_up_form_says_and_checks_the_rules(ui, server, english):
    view = open_online(ui)
    assert view.name.label.text == (f"Account name: {accountrules.NAME_MIN}–"
                                    f"{accountrules.NAME_MAX} letters, digits, _ or -")
    assert view.password.label.text == f"Password: {accountrules.PASSWORD_MIN} characters or more"
    ui.type(server.url.removeprefix("http://"))
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    name = f"rule{uuid.uuid4().hex[:8]}"
    assert view.focused_field is view.name  # Enter on the address moved on to the name
    ui.type(name)
    ui.key("Tab")
    ui.type("x" * (accountrules.PASSWORD_MIN - 1))
    ui.key("Tab", "Tab", "Return")  # Create account
    # refused here, before anything is sent: no call runs, the password field is chosen
    assert view.pending is None and view.message_bad
    assert view.message == kind_text(online.BAD_PASSWORD) and view.focused_field is view.password
    ui.type("x")  # now 8 characters: the server takes it
    name_field = view.name.rect
    ui.click(name_field.center_x, name_field.center_y)
    ui.type(" !")  # a name with a space and '!'
    ui.click(view.create_button.rect.center_x, view.create_button.rect.center_y)
    assert view.pending is None and view.message == kind_text(online.BAD_NAME)
    assert view.focused_field is view.name
    # nothing reached the server: the name is still free
    assert httpx.post(f"{server.url}/api/sessions",
                      json={"name": name, "password": "x" * accountrules.PASSWORD_MIN},
                      timeout=30).status_code == 401
    ui.key("BackSpace", "BackSpace")
    ui.click(view.create_button.rect.center_x, view.create_button.rect.center_y)
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Account created and signed in." and ui.app.online.name == name


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_rules_fit_above_their_fields(ui, english, code):
    i18n.set_language(code)
    view = open_online(ui)
    for width, height in SIZES:
        resize(ui, width, height)
        for field in view.fields:
            label = field.label
            assert label.content_width <= field.rect.width + 1, (code, width, label.text)
            assert label.font_size >= 8.0
        assert view.back_button.rect.bottom >= view.hint.y + view.hint.content_height - 1


def test_an_account_saved_with_a_long_name_still_loads(isolated_home):
    longest = "n" * accountrules.NAME_MAX
    OnlineAccount("127.0.0.1:1", longest, "t").save()
    assert OnlineAccount.load().name == longest
    assert blockyard  # the package imports with the rules module
