"""What a play-test of the online screens found, on a real window (real input on
Xvfb) against a real ``blockyard serve`` on loopback: the connection banner
hides nothing at a live table, one button at a time looks chosen, every online
error is a translated sentence (by its kind, never the server's text), the
account rules are said before typing and checked before sending, Settings'
online row fits, and the statistics count online rounds."""

from __future__ import annotations

import http.server
import threading
import uuid

import httpx
import pytest
from online_support import free_port, pump_until, serve
from test_online_duel import account, sign_in_window

import blockyard
from blockyard import accountrules, online
from blockyard.frontend import i18n, theme
from blockyard.frontend.lobby_view import LobbyView, NewTableView
from blockyard.frontend.online_account import OnlineAccount
from blockyard.frontend.online_errors import SENTENCES, kind_text
from blockyard.frontend.online_table import LiveDuelView, banner_height
from blockyard.frontend.online_view import OnlineSettingsView
from blockyard.frontend.pages import SettingsView, StatsView
from blockyard.frontend.widgets import FOCUS_RING
from blockyard.records import TableResult

SIZES = [(480, 640), (720, 960), (1280, 720)]
LANGUAGES = ("en", "de", "es", "ne")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = serve(tmp_path_factory.mktemp("fixesserver"))
    yield running
    running.stop()


@pytest.fixture
def english():
    yield
    i18n.set_language("en")


def open_online(ui) -> OnlineSettingsView:
    ui.app.show_online()
    ui.pump(2)
    assert isinstance(ui.view, OnlineSettingsView)
    return ui.view


def resize(ui, width: int, height: int) -> None:
    """Resize the window and wait (a bounded number of frames) until X has done it,
    then lay the screen out at that size."""
    ui.resize(width, height)
    for _ in range(100):
        if (ui.window.width, ui.window.height) == (width, height):
            break
        ui.window.set_size(width, height)
        ui.sync()
        ui.pump(1)
    assert (ui.window.width, ui.window.height) == (width, height)
    ui.view.on_resize(width, height)
    ui.pump(1)


def close(a: tuple[int, int, int], b: tuple[int, ...], slack: int = 6) -> bool:
    return all(abs(x - y) <= slack for x, y in zip(a, b[:3], strict=False))


def ringed(ui, button) -> bool:
    """Whether the focus ring is drawn on ``button`` (its left edge, read back)."""
    r = button.rect
    return close(ui.pixel(r.left + FOCUS_RING / 2, r.center_y), theme.ACCENT)


def lit(ui, button) -> bool:
    """Whether ``button`` is drawn chosen: lighter (the hover/focus fill) or ringed."""
    r = button.rect
    return ringed(ui, button) or close(ui.pixel(r.left + FOCUS_RING + 2, r.bottom + 6),
                                       theme.PANEL_HOVER)


# -- 1. the connection banner ---------------------------------------------------------------


def test_the_connection_banner_hides_no_control(ui, tmp_path, english):
    """The play-test's screenshot 42: the banner drawn over the title and the Menu
    button. Now the live table is laid out below it: Menu stays visible and
    clickable, at every size and in every language."""
    own = serve(tmp_path)  # stopped in the middle: the connection is lost for good
    try:
        me = sign_in_window(ui, own)
        bob = account(own, "bob")
        table = me.create_table("eu-classic", seats=2)
        bob.join(table.id)
        ui.app.open_table(table.id, "", 0)
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView) and ui.view.table.games)
        view = ui.view
        top_before = view.menu_button.rect.top
        assert view.banner.text == ""
        own.stop()
        pump_until(ui, lambda: view.banner.text == "Connection lost: connecting again…")
        ui.pump(2)
        for code in LANGUAGES:
            i18n.set_language(code)
            view.banner.text = ""
            view._sync_table()  # the banner in this language, the screen laid out anew
            assert view.banner.text == i18n._("Connection lost: connecting again…")
            for width, height in SIZES:
                resize(ui, width, height)
                band = banner_height(view.banner, width)
                assert band > 0
                free = height - band  # everything of the screen stays below this line
                for button in view.hud_buttons:
                    assert button.rect.top <= free + 0.5, (code, width, button.label)
                title = view.title_text
                assert title.y <= free + 0.5 and title.y - title.content_height >= 0, code
                assert view.score_text.y + view.score_text.content_height / 2 <= free + 1
                assert view.layout.board.top <= free
                # read back: the banner's colour above the line, the Menu button below it
                menu = view.menu_button.rect
                assert close(ui.pixel(width / 2, height - 3), theme.BAD)
                assert not close(ui.pixel(menu.center_x, menu.bottom + 5), theme.BAD)
        i18n.set_language("en")
        view.banner.text = ""
        view._sync_table()
        resize(ui, 720, 960)
        assert view.menu_button.rect.top < top_before  # pushed down below the banner
        # the Menu button works under a lost connection, with the mouse
        menu = view.menu_button.rect
        ui.click(menu.center_x, menu.center_y)
        assert view.paused
    finally:
        own.stop()


def test_a_refused_table_connection_is_said_in_words(ui, server, english):
    """A private table watched without its code: the banner says what happened
    and what to do, never the server's English words."""
    me = sign_in_window(ui, server)
    owner = account(server, "own")
    private = owner.create_table("eu-classic", seats=2, private=True)
    ui.app.open_table(private.id, "", None)
    view = ui.view
    table = getattr(view, "session", None) or getattr(view, "table", None)
    pump_until(ui, lambda: table.connection == "closed")
    assert table.closed_kind == online.PRIVATE_TABLE
    from blockyard.frontend.online_table import connection_banner

    assert connection_banner(table) == "Disconnected. " + kind_text(online.PRIVATE_TABLE)
    # the waiting screen is laid out below the banner, at every size
    ui.pump(2)
    assert view.banner.text == connection_banner(table)
    for width, height in SIZES:
        resize(ui, width, height)
        free = height - banner_height(view.banner, width)
        assert view.title.y + view.title.content_height / 2 <= free + 1, width
        assert close(ui.pixel(width / 2, height - 3), theme.BAD)
    i18n.set_language("de")
    assert connection_banner(table) == ("Getrennt. Dieser Tisch ist privat. Tritt mit seinem "
                                        "Code oder einer Einladung bei.")
    assert me.name


# -- 2. one selection at a time --------------------------------------------------------------


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
    ui.app.show_lobby()
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


# -- 3. errors in the player's words ---------------------------------------------------------


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
    ui.app.show_lobby()
    lobby = ui.view
    pump_until(ui, lambda: lobby.pending is None)
    # (a wrong code: tests/frontend/test_online_second_play_test.py)
    for code_text, kind in ((str(full.id), online.TABLE_FULL),):
        ui.key("j")
        ui.type(code_text)
        ui.key("Return")
        assert ui.view is lobby
        pump_until(ui, lambda: lobby.pending is None)
        assert lobby.message_text.text == kind_text(kind), code_text
        assert "HTTP" not in lobby.message_text.text
    assert me.name


# -- 4. the account rules, said and checked --------------------------------------------------


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


def test_the_rules_fit_above_their_fields(ui, english):
    for code in LANGUAGES:
        i18n.set_language(code)
        view = open_online(ui)
        for width, height in SIZES:
            resize(ui, width, height)
            for field in view.fields:
                label = field.label
                assert label.content_width <= field.rect.width + 1, (code, width, label.text)
                assert label.font_size >= 8.0
            assert view.back_button.rect.bottom >= view.hint.y + view.hint.content_height - 1


# -- 5. Settings' online row -----------------------------------------------------------------


def test_the_settings_online_row_fits(ui, english):
    for code in LANGUAGES:
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


# -- 6. online rounds in the statistics ------------------------------------------------------


def test_statistics_count_rounds_not_tables(ui, english):
    records = ui.app.records
    for rnd, winner in ((1, 0), (2, 1), (3, 0)):  # one table, a rematch, another one
        records.record_table(TableResult("127.0.0.1:1", 7, rnd, "eu-classic", ("me", "you"),
                                         (10, 5), winner, 0))
    records.record_table(TableResult("127.0.0.1:1", 8, 1, "eu-classic", ("me", "you"),
                                     (1, 9), 1, 0))
    ui.app.show_stats("eu-classic")
    ui.pump(1)
    stats = ui.view
    assert isinstance(stats, StatsView)
    assert any("4 online rounds, 2 won" in t.text for t in stats.texts)
    i18n.set_language("de")
    stats.rebuild()
    ui.pump(1)
    assert any("4 Online-Runden, 2 gewonnen" in t.text for t in ui.view.texts)


def test_an_account_saved_with_a_long_name_still_loads(isolated_home):
    longest = "n" * accountrules.NAME_MAX
    OnlineAccount("127.0.0.1:1", longest, "t").save()
    assert OnlineAccount.load().name == longest
    assert blockyard  # the package imports with the rules module


def test_the_longest_error_fits_every_online_screen(ui, english):
    """Every error sentence has room on every online screen: at every size, in
    every language, the message line stays between what is above and below it."""
    from blockyard.frontend.leaderboard_view import LeaderboardView
    from blockyard.online import Entry, Leaderboard, TableInfo

    account = OnlineAccount(f"127.0.0.1:{free_port()}", "someone", "t")
    tables = [TableInfo(i, "eu-classic", ("someone_else", None), "waiting") for i in range(1, 9)]
    ui.app.show_launcher()
    ui.pump(1)
    for code in LANGUAGES:
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


def test_the_banner_hides_nothing_on_a_live_sudoku_bloxx_table(ui, english):
    """The falling game's live screen is laid out below the banner too."""
    from test_online_fit import QuietLive

    from blockyard.frontend.online_table import LiveFallingView, TableSession, live_view

    ui.app.show_launcher()
    ui.pump(1)
    # watched (no seat): its stones do not fall while the test takes its time
    table = TableSession(QuietLive(), "watcher", "")
    table._take({"type": "table", "id": 13, "ruleset_id": "sudoku-bloxx", "seed": 5,
                 "seats": ["me", "you"], "status": "playing", "round": 1})
    view = live_view(ui.app.session(), table, lambda: None)
    assert isinstance(view, LiveFallingView)
    ui.window.show_view(view)
    table._take({"type": "connection", "state": "lost", "reason": "x", "kind": "unreachable"})
    for code in LANGUAGES:
        i18n.set_language(code)
        view.banner.text = ""
        view._sync_table()
        for width, height in SIZES:
            resize(ui, width, height)
            free = height - banner_height(view.banner, width)
            assert ui.view is view
            assert view.menu_button.rect.top <= free + 0.5, (code, width)
            assert view.board.top <= free and view.board.bottom >= view.reserve_bottom
            menu = view.menu_button.rect
            assert not close(ui.pixel(menu.center_x, menu.bottom + 5), theme.BAD)
