"""What a second play-test of the online screens found, on a real window (real
input on Xvfb) against a real ``blockyard serve`` on loopback: a mistyped table
code is said as one and stays in its field to be corrected; a game submitted
twice is said as such, its summary offers no Submit again, and the submit
screen says whether the game counts; Enter on the server's address moves on to
the account name."""

from __future__ import annotations

import uuid

import pytest
from online_support import pump_until, serve
from test_online_duel import account, sign_in_window

from blockyard import online
from blockyard.frontend import i18n
from blockyard.frontend.leaderboard_view import SubmitView
from blockyard.frontend.lobby_view import LobbyView
from blockyard.frontend.menus import PromptView
from blockyard.frontend.online_account import OnlineAccount
from blockyard.frontend.online_errors import kind_text
from blockyard.frontend.online_view import OnlineSettingsView
from blockyard.frontend.summary_view import SummaryView
from blockyard.online import Client, OnlineError


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = serve(tmp_path_factory.mktemp("secondplaytest"))
    yield running
    running.stop()


@pytest.fixture
def english():
    yield
    i18n.set_language("en")


# -- 1. a mistyped table code ----------------------------------------------------------------


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


def test_a_wrong_table_code_is_said_and_kept_to_be_corrected(ui, server, english):
    me = sign_in_window(ui, server)
    private = account(server, "pri").create_table("eu-classic", seats=2, private=True)
    ui.app.show_lobby()
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
    pump_until(ui, lambda: me.name in me.table(private.id)["seats"])
    assert me.table(private.id)["seats"][1] == me.name


# -- 2. a game submitted twice ---------------------------------------------------------------


def test_a_game_submitted_twice_is_said_and_submit_is_not_offered_again(ui, server, english):
    client = Client(server.url)
    name = client.create_account(f"twice{uuid.uuid4().hex[:8]}", "correct horse")
    token = client.sign_in(name, "correct horse")
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), name, token)
    game = ui.app.start_game("eu-daily")
    ui.key("1", "Return", "e", "e")  # one move, then end the round (confirmed)
    ui.pump(50)
    summary = ui.view
    assert isinstance(summary, SummaryView) and summary.submit.visible
    ui.key("u")
    submitting = ui.view
    assert isinstance(submitting, SubmitView)
    pump_until(ui, lambda: submitting.pending is None)
    assert submitting.submission is not None and submitting.submission.counted
    # whether it counts, as docs/play-online.md says
    assert "It counts: your first finished game of the day." in submitting.body.text
    assert f"Your rank: {submitting.rank}" in submitting.body.text
    ui.key("Escape")  # back to the summary: no Submit now, U does nothing
    again = ui.view
    assert isinstance(again, SummaryView) and not again.submit.visible
    ui.key("u")
    assert ui.view is again
    # the same game in another summary (as after a restart): the server has it
    ui.app.show_summary(game.clone(), again.summary)
    other = ui.view
    assert isinstance(other, SummaryView) and other.submit.visible
    ui.click(other.submit.rect.center_x, other.submit.rect.center_y)
    resent = ui.view
    assert isinstance(resent, SubmitView)
    pump_until(ui, lambda: resent.pending is None)
    assert resent.submission is None and resent.message_bad
    assert resent.message == kind_text(online.SUBMITTED_ALREADY)
    assert resent.body.text == "This game was submitted already. Its rank is on the leaderboard."
    ui.key("Escape")
    assert isinstance(ui.view, SummaryView) and not ui.view.submit.visible
    # its sentence in the other languages
    for language in ("de", "es", "ne"):
        i18n.set_language(language)
        assert kind_text(online.SUBMITTED_ALREADY) != resent.message
        assert kind_text(online.WRONG_CODE) != "No table has this code. Check it and try again."


def test_a_later_daily_game_is_practice(ui, server, english):
    sign_in_window(ui, server, "prac")
    for counted, piece in ((True, "2"), (False, "3")):  # two games, not the other test's
        ui.app.start_game("eu-daily")
        ui.key(piece, "Return", "e", "e")
        ui.pump(50)
        assert isinstance(ui.view, SummaryView)
        ui.key("u")
        submitting = ui.view
        assert isinstance(submitting, SubmitView)
        pump_until(ui, lambda view=submitting: view.pending is None)
        assert submitting.submission is not None and submitting.submission.counted is counted
        words = "It counts: your first finished game of the day."
        practice = "Practice: only the first game of the day counts."
        assert (words in submitting.body.text) is counted
        assert (practice in submitting.body.text) is not counted


# -- 3. Enter on the server's address ---------------------------------------------------------


def test_enter_on_the_address_moves_on_to_the_account_name(ui, server, english):
    ui.app.show_online()
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
