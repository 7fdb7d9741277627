"""Every online error is a sentence in the player's language, by its kind (never
the server's English text), on a real window (real input on Xvfb) against a
real ``blockyard serve`` on loopback: sign-in and sign-up refusals, the lobby's,
a mistyped table code (said as one, kept to be corrected), and the longest
sentence fits every online screen.
"""

from __future__ import annotations

import http.server
import threading
import uuid

import httpx
import pytest
from online_support import (
    LANGUAGES,
    SIZES,
    account,
    free_port,
    open_online,
    pump_until,
    resize,
    sign_in_window,
)

from blockyard import accountrules, online
from blockyard.frontend import i18n
from blockyard.frontend.menus import PromptView
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.errors import SENTENCES, kind_text
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView
from blockyard.frontend.online.settings_view import OnlineSettingsView
from blockyard.online import OnlineError


def test_every_error_kind_has_a_translated_sentence(english):
    assert set(SENTENCES) == set(online.ERROR_KINDS)
    for code in LANGUAGES:
        i18n.set_language(code)
        texts = {kind: kind_text(kind) for kind in online.ERROR_KINDS}
        assert len(set(texts.values())) == len(texts)  # each says its own thing
        for kind, text in texts.items():
            assert "HTTP" not in text and "{" not in text, (code, kind)
            if code != "en":
                i18n.set_language("en")
                assert kind_text(kind) != text, (code, kind)  # translated
                i18n.set_language(code)
    i18n.set_language("en")
    assert "3" in kind_text(online.BAD_NAME) and "24" in kind_text(online.BAD_NAME)
    assert str(accountrules.PASSWORD_MIN) in kind_text(online.BAD_PASSWORD)


class NotBlockyard(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<html>a printer's page</html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_errors_are_sentences_in_the_players_language(ui, server, english, caplog):
    view = open_online(ui)
    address = server.url.removeprefix("http://")
    name = f"err{uuid.uuid4().hex[:8]}"
    httpx.post(f"{server.url}/api/accounts", json={"name": name, "password": "correct horse"},
               timeout=30)
    ui.type(address)
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    # a wrong password (the mouse), in German: the sentence, the detail in the log
    i18n.set_language("de")
    view = open_online(ui)
    for field, text in ((view.name, name), (view.password, "not the password")):
        ui.click(field.rect.center_x, field.rect.center_y)
        ui.type(text)
    ui.click(view.sign_in_button.rect.center_x, view.sign_in_button.rect.center_y)
    pump_until(ui, lambda: view.pending is None)
    assert view.message_bad
    assert view.message == ("Kontoname oder Passwort ist falsch. Prüfe beides und melde dich "
                            "noch einmal an.")
    assert "HTTP 401" in caplog.text and "HTTP" not in view.message
    # the name taken (keyboard: Create account), in Spanish
    i18n.set_language("es")
    view = open_online(ui)
    ui.key("Tab")
    ui.type(name)
    ui.key("Tab")
    ui.type("correct horse")
    ui.key("Tab", "Tab", "Return")
    pump_until(ui, lambda: view.pending is None)
    assert view.message == "Este nombre de cuenta ya está ocupado. Elige otro."
    # too many attempts (the server's limit: sign-ins of one name a minute)
    i18n.set_language("en")
    for _ in range(10):
        httpx.post(f"{server.url}/api/sessions", json={"name": name, "password": "wrong one"},
                   timeout=30)
    view = open_online(ui)
    ui.key("Tab")
    ui.type(name)
    ui.key("Tab")
    ui.type("correct horse")
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    assert view.message == kind_text(online.RATE_LIMITED)
    # not a server address, in Nepali
    i18n.set_language("ne")
    view = open_online(ui)
    for _ in range(len(address)):
        ui.key("BackSpace")
    ui.type("ftp://example.org")
    ui.key("Return")
    assert view.message == kind_text(online.BAD_ADDRESS) and view.message.startswith("यो")
    assert not ui.app.online.name
    # nobody listens there
    i18n.set_language("en")
    for _ in range(len("ftp://example.org")):
        ui.key("BackSpace")
    ui.type(f"127.0.0.1:{free_port()}")
    ui.key("Return")
    pump_until(ui, lambda: view.pending is None)
    assert view.message == kind_text(online.UNREACHABLE)
    # something that answers, but not a Blockyard server
    other = http.server.ThreadingHTTPServer(("127.0.0.1", 0), NotBlockyard)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    ui.key("Up")  # back to the address (Enter moved on to the account name)
    try:
        view.server.value = f"127.0.0.1:{other.server_address[1]}"
        ui.key("Return")
        pump_until(ui, lambda: view.pending is None)
        assert view.message == kind_text(online.NOT_BLOCKYARD)
    finally:
        other.shutdown()
        other.server_close()


def test_lobby_refusals_are_sentences(ui, server, english):
    me = sign_in_window(ui, server)
    full = account(server, "own").create_table("eu-classic", seats=2)
    account(server, "sec").join(full.id)
    ui.app.show("lobby")
    lobby = ui.view
    pump_until(ui, lambda: lobby.pending is None)
    # (a wrong code: test_a_wrong_table_code_is_said_and_kept_to_be_corrected)
    for code_text, kind in ((str(full.id), online.TABLE_FULL),):
        ui.key("j")
        ui.type(code_text)
        ui.key("Return")
        assert ui.view is lobby
        pump_until(ui, lambda: lobby.pending is None)
        assert lobby.message_text.text == kind_text(kind), code_text
        assert "HTTP" not in lobby.message_text.text
    assert me.name


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_longest_error_fits_every_online_screen(ui, english, code):
    """Every error sentence has room on every online screen: at every size, in
    every language, the message line stays between what is above and below it."""
    from blockyard.frontend.online.leaderboard_view import LeaderboardView
    from blockyard.online import Entry, Leaderboard, TableInfo

    account = OnlineAccount(f"127.0.0.1:{free_port()}", "someone", "t")
    tables = [TableInfo(i, "eu-classic", ("someone_else", None), "waiting") for i in range(1, 9)]
    ui.app.show_launcher()
    ui.pump(1)
    i18n.set_language(code)
    longest = max((kind_text(kind) for kind in online.ERROR_KINDS), key=len)
    for width, height in SIZES:
        resize(ui, width, height)

        def span(text):
            return text.y - text.content_height / 2, text.y + text.content_height / 2

        form = OnlineSettingsView(account, ui.app.show_launcher)
        ui.window.show_view(form)
        form.say(longest, bad=True)
        assert form.message_text.y <= form.password.rect.bottom + 1
        assert form.message_text.y - form.message_text.content_height >= \
            form.buttons[0].rect.top - 1, (code, width)
        assert form.message_text.content_width <= width
        lobby = LobbyView(account, lambda *a: None, lambda: None, lambda: None)
        ui.window.show_view(lobby)
        lobby.pending = None
        lobby.tables = tables
        lobby._layout()
        lobby.say(longest, bad=True)
        low, high = span(lobby.message_text)
        assert low >= max(b.rect.top for b in lobby.buttons if b.visible) - 1, (code, width)
        assert high <= min(rect.bottom for rect, _t in lobby.rows) + 1, (code, width)
        new = NewTableView(account, lambda *a: None, lambda: None, players=["ann", "bob"])
        ui.window.show_view(new)
        new.say(longest, bad=True)
        low, high = span(new.message_text)
        assert low >= new.create_button.rect.top - 1, (code, width)
        assert high <= min(b.rect.bottom for b in new.pick_buttons) + 1, (code, width)
        boards = LeaderboardView(account, "eu-classic", ["eu-classic"], lambda *a: None,
                                 lambda: None)
        ui.window.show_view(boards)
        boards.pending = None
        entries = tuple(Entry(i + 1, f"p{i}", 100 - i, i) for i in range(20))
        boards.board = Leaderboard("eu-classic", None, entries)
        boards.lines = list(entries)
        boards._layout()
        boards.say(longest, bad=True)
        low, high = span(boards.message_text)
        assert low >= boards.watch_button.rect.top - 1, (code, width)
        assert high <= min(rect.bottom for rect, _t in boards.rows) + 1, (code, width)


def test_the_client_tells_a_wrong_code_from_other_refusals(server):
    me = account(server, "cli")
    private = account(server, "own").create_table("eu-classic", seats=2, private=True)
    for table_id, code in ((private.id, "WRONGXX"), (10**9, "NOPE1234")):
        with pytest.raises(OnlineError) as caught:
            me.join(table_id, code)
        assert caught.value.kind == online.WRONG_CODE and caught.value.status in (403, 404)
    # without a code it is what it was: a private table, a table not there
    with pytest.raises(OnlineError) as caught:
        me.join(private.id)
    assert caught.value.kind == online.PRIVATE_TABLE
    with pytest.raises(OnlineError) as caught:
        me.join(10**9)
    assert caught.value.kind == online.NOT_FOUND
    assert me.join(private.id, private.code) == 1


def wrong_code_prompt(ui, lobby: LobbyView, typed: str) -> PromptView:
    ui.key("j")
    ui.type(typed)
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, PromptView) and lobby.pending is None)
    prompt = ui.view
    assert isinstance(prompt, PromptView)
    return prompt


def seated_at(client: online.Client, table_id: int) -> bool:
    """Whether ``client``'s player holds a seat at the table (a private table is
    no table to them until they do: 404)."""
    try:
        return client.name in client.table(table_id)["seats"]
    except OnlineError as exc:
        if exc.status == 404:
            return False
        raise


def test_a_wrong_table_code_is_said_and_kept_to_be_corrected(ui, server, english):
    me = sign_in_window(ui, server)
    private = account(server, "pri").create_table("eu-classic", seats=2, private=True)
    ui.app.show("lobby")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None)
    # a table that is not there, in German: said, the code kept in its field
    i18n.set_language("de")
    prompt = wrong_code_prompt(ui, lobby, "999999-NOPE1234")
    assert prompt.values == ["999999-NOPE1234"] and not prompt.fresh[0]
    assert prompt.error == kind_text(online.WRONG_CODE) != "No table has this code. Check it " \
        "and try again."
    assert prompt.error_text.text == prompt.error and "HTTP" not in prompt.error
    ui.key("Escape")
    assert ui.view is lobby
    # the right table, a wrong code: said in English, the typed code kept
    i18n.set_language("en")
    typed = f"{private.id}-WRONGXX"
    prompt = wrong_code_prompt(ui, lobby, typed)
    assert prompt.values == [typed]
    assert prompt.error == "No table has this code. Check it and try again."
    assert lobby.message == ""  # said once, in the field's screen
    # corrected in place (the keyboard): the table is joined
    for _ in range(len("WRONGXX")):
        ui.key("BackSpace")
    assert prompt.values == [f"{private.id}-"]
    ui.type(private.code)
    ui.key("Return")
    pump_until(ui, lambda: seated_at(me, private.id))
    assert me.table(private.id)["seats"][1] == me.name
