"""A language chosen in the settings of a live table, on a real window (real input
on Xvfb) against a real ``blockyard serve``: back at the table every word of its
screen — the Menu button, the result panel's buttons, the table's menu — is in
the new language, as a local game's screen is; the table and its game go on."""

from __future__ import annotations

from online_support import QuietLive, falling_table, pump_until, start_duel

from blockyard.frontend.online.table_view import LiveDuelView
from blockyard.frontend.pages import SettingsView


def test_a_language_chosen_at_a_live_table_reaches_every_word_of_its_screen(
        ui, server, english):
    _me, view, _bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        ui.key("Escape")  # the table's menu, then its Settings by the pointer
        pump_until(ui, lambda: view.dialog.pause.open)
        settings = next(b for b in view.dialog.pause.main if b.label == "Settings")
        ui.click(settings.rect.center_x, settings.rect.center_y)
        pump_until(ui, lambda: isinstance(ui.view, SettingsView))
        ui.app.set_language("de")  # what the settings' language row does
        ui.key("Escape")  # back to the table
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        table = ui.view
        assert table is not view and table.table is view.table  # the same table, anew
        assert table.game is view.game
        assert table.menu_button.label == "Menü"
        assert table.rematch_button.label == "Revanche"
        ui.key("Escape")
        pump_until(ui, lambda: table.dialog.pause.open)
        labels = [b.label for b in table.dialog.pause.main]
        assert labels[:2] == ["Weiter", "Tisch verlassen"] and "Einstellungen" in labels
        ui.key("Escape")  # and back to settings and out with no change: the same screen
        pump_until(ui, lambda: not table.dialog.pause.open)
        table.show_settings()
        pump_until(ui, lambda: isinstance(ui.view, SettingsView))
        ui.key("Escape")
        pump_until(ui, lambda: ui.view is table)


class Recording(QuietLive):
    """A live table that sends nothing and keeps the actions the window sends."""

    def __init__(self):
        self.acted = []

    def act(self, action):
        self.acted.append(list(action))
        return True


def test_a_falling_tables_screen_made_anew_sends_what_was_played_first(ui, english):
    # a Sudoku Bloxx table (a channel the test feeds): the screen made again after a
    # change of language sends the ticks played since the last send before it goes
    from blockyard.frontend.online.table_view import LiveFallingView

    channel = Recording()
    table, view = falling_table(ui, channel)
    ui.pump(30)  # the round's clock runs: ticks played here
    unsent = view.unsent()
    assert unsent and unsent[0][0] == "tick"
    ui.app.set_language("es")
    again = view.anew()
    assert isinstance(again, LiveFallingView) and again.table is table
    assert channel.acted[-len(unsent):] == unsent
    assert again.menu_button.label == "Menú"
