"""The window and a server whose plugin is of another version (real input on
Xvfb, a real ``blockyard serve`` with the test plugin quad-mono at 0.2.0; the
window has 0.1.0): opening a table and submitting a game are refused naming
the plugin and both versions, in the player's language; at a table reached anyway, the difference
is said on arrival, and a game mirrored here that goes another way than the
server's is said too, never followed in silence."""

from __future__ import annotations

import json

import pytest
from online_support import pump_until
from server_support import serve_with_plugin

from blockyard.frontend import i18n
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.errors import mismatch_text
from blockyard.frontend.online.leaderboard_view import SubmitView
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView
from blockyard.frontend.online.table_view import LiveDuelView, WaitingView
from blockyard.frontend.summary_view import SummaryView
from blockyard.online import LiveTable
from blockyard.provenance import Mismatch

WAIT = 30.0


@pytest.fixture(scope="module")
def server(tmp_path_factory, quad_mono_site):
    running = serve_with_plugin(tmp_path_factory.mktemp("versionserver"),
                                quad_mono_site("0.2.0", points=4))
    yield running
    running.stop()


def sign_in_window(ui, server) -> tuple[str, str]:
    name, token = server.account("win")
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), name, token)
    ui.app.online.save()
    return name, token


def until(live: LiveTable, kind: str):
    for _ in range(1000):
        message = live.wait(WAIT)
        assert message is not None, f"no {kind} message"
        if message["type"] == kind:
            return message
    raise AssertionError(kind)


def test_a_table_or_a_game_of_another_plugin_version_names_both_in_the_players_language(
        ui, server, plugin_at_version):
    plugin_at_version("0.1.0", points=3)
    name, _token = sign_in_window(ui, server)
    for code, sentence in (
            ("en", "You have quad-mono 0.1.0; the server has 0.2.0. Install the server's "
                   "version to play these rules there. Plugin: quad-mono"),
            ("de", "Du hast quad-mono 0.1.0; der Server hat 0.2.0. Installiere die Version "
                   "des Servers, um diese Regeln dort zu spielen. Plugin: quad-mono")):
        i18n.set_language(code)
        ui.app.show("lobby")
        lobby = ui.view
        assert isinstance(lobby, LobbyView)
        pump_until(ui, lambda lobby=lobby: lobby.pending is None)
        ui.key("n")
        form = ui.view
        assert isinstance(form, NewTableView)
        for _ in range(len(form.rulesets)):
            if form.rulesets[form.ruleset][0] == "quad-mono":
                break
            ui.key("Right")
        assert form.rulesets[form.ruleset][0] == "quad-mono"
        ui.key("Return")
        pump_until(ui, lambda form=form: form.pending is None)
        assert form.message == sentence and form.message_bad
        assert ui.view is form  # no table was opened
    tables = server.client.get("/api/tables").json()["tables"]
    assert not [t for t in tables if t["ruleset_id"] == "quad-mono"]
    # a finished game submitted from its summary: said, in Spanish, and not sent
    i18n.set_language("es")
    ui.app.start_game("quad-mono")
    ui.key("1", "Return", "e", "e")  # one move, then end the round (confirmed)
    ui.pump(50)
    summary = ui.view
    assert isinstance(summary, SummaryView) and summary.submit.visible
    ui.key("u")
    submitting = ui.view
    assert isinstance(submitting, SubmitView)
    pump_until(ui, lambda: submitting.pending is None)
    assert submitting.submission is None
    assert submitting.message == "Esta partida se jugó con quad-mono 0.1.0; el servidor tiene " \
        "0.2.0. Plugin: quad-mono"
    i18n.set_language("en")
    assert server.client.get(f"/api/accounts/{name}/games").json()["games"] == []


def test_a_mirrored_game_that_goes_another_way_than_the_servers_is_said(
        ui, server, plugin_at_version):
    plugin_at_version("0.1.0", points=3)  # the window's: 3 points a cell, the server's 4
    _name, token = sign_in_window(ui, server)
    # a table the window's player had joined (before their plugin changed, say)
    bob, bob_token = server.account("bob")
    created = server.client.post("/api/tables", content=json.dumps(
        {"ruleset_id": "quad-mono", "seats": 2}), headers={"Authorization": f"Bearer "
                                                           f"{bob_token}"})
    assert created.status_code == 201, created.text
    table_id = created.json()["id"]
    joined = server.client.post(f"/api/tables/{table_id}/join", content=b"{}",
                                headers={"Authorization": f"Bearer {token}"})
    assert joined.json() == {"seat": 1}
    ui.app.show("table", table_id=table_id)
    with LiveTable(server.url, table_id, bob_token) as bob_live:
        pump_until(ui, lambda: isinstance(ui.view, (WaitingView, LiveDuelView)))
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        view = ui.view
        until(bob_live, "table")
        # the table's rules compared with the server's on arrival: said at once
        differs = ("You have quad-mono 0.1.0; the server has 0.2.0. Install the server's "
                   "version to play these rules there. Plugin: quad-mono")
        pump_until(ui, lambda: view.banner.text == differs)
        mirror = view.table.games[0]
        action = ["place", *mirror.legal_moves()[0]]
        assert bob_live.act(action)
        move = until(bob_live, "move")
        pump_until(ui, lambda: len(view.table.games[0].log) == 2)
        pump_until(ui, lambda: view.banner.text != differs)
        assert view.table.games[0].score != move["score"]  # the mirror went its own way
        assert view.banner.text == (
            f"The game of {bob} here no longer follows the server's: this window plays these "
            "rules with other plugins or another rule file. The server's scores count. "
            + differs)
        assert view.table.scores[0] == move["score"]  # the server's score is what is shown
        assert view.band_texts[0].text == f"{bob} (0.0?): {move['score']}"


def test_a_plugin_difference_names_the_plugins_of_the_package_in_every_language():
    mismatch = Mismatch("plugin", "blockyard-diagonals", "0.1.0", "0.2.0", ("diagonals",))
    try:
        for code in i18n.LANGUAGES:
            i18n.set_language(code)
            for game in (True, False):
                text = mismatch_text(mismatch, game)
                assert text.endswith(" " + i18n._("Plugin: {plugin}").format(
                    plugin="diagonals")), (code, text)
                assert "blockyard-diagonals 0.1.0" in text and "0.2.0" in text, (code, text)
            unnamed = mismatch_text(Mismatch("plugin", "blockyard-diagonals", "0.1.0", "0.2.0"),
                                    False)
            assert "diagonals," not in unnamed and not unnamed.endswith("diagonals"), code
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("mismatch", [
    Mismatch("plugin", "quad-mono", "0.1.0", "0.2.0"),
    Mismatch("plugin", "quad-mono", "0.1.0", None),
    Mismatch("rule", "plugins.line-scoring.perfect_clear", "2004", "2000"),
])
def test_every_difference_is_said_in_every_language_with_its_name_and_values(mismatch):
    try:
        for game in (True, False):
            i18n.set_language("en")
            english = mismatch_text(mismatch, game)
            for code in i18n.LANGUAGES:
                i18n.set_language(code)
                text = mismatch_text(mismatch, game)
                assert mismatch.name in text and "{" not in text, (code, text)
                for value in (mismatch.played, mismatch.served):
                    assert (value or i18n._("none")) in text, (code, text)
                assert code == "en" or text != english, code  # translated
    finally:
        i18n.set_language("en")
