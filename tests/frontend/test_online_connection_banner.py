"""The connection banner of a live table on a real window (real input on Xvfb)
against a real ``blockyard serve`` on loopback: it hides no control at any size
or language (a tray duel, a falling game), and a refused connection is said in
words.
"""

from __future__ import annotations

import pytest
from online_support import (
    LANGUAGES,
    SIZES,
    QuietLive,
    account,
    close,
    pump_until,
    resize,
    serve,
    sign_in_window,
)

from blockyard import online
from blockyard.frontend import i18n, theme
from blockyard.frontend.online.errors import kind_text
from blockyard.frontend.online.table_view import LiveDuelView, banner_height


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
        ui.app.show("table", table_id=table.id)
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView) and ui.view.table.games)
        view = ui.view
        top_before = view.menu_button.rect.top
        assert view.banner.text == ""
        own.stop()  # closed as a server stops (1012): said as restarting
        pump_until(ui, lambda: view.banner.text == "The server is restarting: connecting "
                                                   "again…")
        ui.pump(2)
        for code in LANGUAGES:
            i18n.set_language(code)
            view.banner.text = ""
            view._sync_table()  # the banner in this language, the screen laid out anew
            assert view.banner.text == kind_text(online.RESTARTING)
            assert view.banner.text != "The server is restarting: connecting again…" \
                or code == "en"
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
    ui.app.show("table", table_id=private.id)
    view = ui.view
    table = getattr(view, "session", None) or getattr(view, "table", None)
    pump_until(ui, lambda: table.connection == "closed")
    assert table.closed_kind == online.PRIVATE_TABLE
    from blockyard.frontend.online.table_view import connection_banner

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


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_banner_hides_nothing_on_a_live_sudoku_bloxx_table(ui, english, code):
    """The falling game's live screen is laid out below the banner too."""
    from blockyard.frontend.online.table_view import LiveFallingView, live_view
    from blockyard.tablesession import TableSession

    ui.app.show_launcher()
    ui.pump(1)
    # watched (no seat): its stones do not fall while the test takes its time
    table = TableSession(QuietLive(), "watcher", "")
    table.take({"type": "table", "id": 13, "ruleset_id": "sudoku-bloxx", "seed": 5,
                 "seats": ["me", "you"], "status": "playing", "round": 1})
    view = live_view(ui.app.session(), table, lambda: None)
    assert isinstance(view, LiveFallingView)
    ui.window.show_view(view)
    table.take({"type": "connection", "state": "lost", "reason": "x", "kind": "unreachable"})
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
