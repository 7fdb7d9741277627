"""What the window says of rated rounds (docs/online.md "Ratings"), on a real
window (real input on Xvfb) against a real ``blockyard serve`` on loopback: at a
rated table Play now dealt, leaving asks first and says the round is lost; a
round the opponent left before acting is shown aborted, not rated; and a round
with a player this one has played the day's rated rounds with says before it
starts that it is friendly, naming them and the server's limit."""

from __future__ import annotations

from online_support import account, pump_until, sign_in_window, until

import blockyard
from blockyard.frontend.online.lobby_view import LobbyView
from blockyard.frontend.online.table_view import LiveDuelView
from blockyard.online import Client, LiveTable


def play_now_duel(ui, bob: Client) -> LiveDuelView:
    """The window presses P in its lobby and ``bob`` enters the pool: the duel
    of the rated table they are seated at."""
    ui.app.show("lobby")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None)
    for _ in range(len(lobby.rulesets)):
        if lobby.play_ruleset[0] == "eu-classic":
            break
        ui.key("Right")
    ui.key("p")
    bob.play_now("eu-classic")
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    view = ui.view
    assert isinstance(view, LiveDuelView)
    return view


def rated_round(me: Client, bob: Client) -> None:
    """One rated round between the two accounts, played by their clients: two
    placements each, then both end."""
    table = me.create_table("eu-classic", rated=True)
    bob.join(table.id)
    with me.live(table.id) as mine, bob.live(table.id) as theirs:
        seed = until(mine, "table")["seed"]
        until(theirs, "table")
        for live in (mine, theirs):
            game = blockyard.new_game("eu-classic", seed=seed)
            for _ in range(2):
                action = ["place", *game.legal_moves()[0]]
                game.apply(action)
                assert live.act(action)
            assert live.act(["end"])
        result = until(mine, "result")
    assert result["ratings"] is not None


def test_leaving_a_rated_round_is_said_and_an_aborted_round_says_it_rated_nobody(
        ui, server):
    bob = account(server, "bob")
    sign_in_window(ui, server, "ann")
    view = play_now_duel(ui, bob)
    pump_until(ui, lambda: view.table.rated)
    bob_live: LiveTable = bob.live(view.table.table_id)
    with bob_live:
        until(bob_live, "table")
        # the menu's Leave table asks first, saying the rated round is lost
        ui.key("Escape")
        pump_until(ui, lambda: view.paused)
        menu = view.dialog.pause
        leave = menu.buttons[1]
        ui.click(leave.rect.center_x, leave.rect.center_y)
        pump_until(ui, lambda: menu.confirming)
        assert menu.note.text.splitlines()[0] == "Leaving now loses this rated round."
        ui.key("Return")  # the safe answer: stay
        pump_until(ui, lambda: not menu.confirming)
        ui.key("Escape")
        pump_until(ui, lambda: not view.paused)
        # bob leaves before acting: the round is aborted, and the panel says so
        bob_live.leave()
        ui.key("1", "Return")
        pump_until(ui, lambda: len(view.game.log) == 2)
        view.send(["end"])
        pump_until(ui, lambda: view.shown_result is not None)
        ui.pump(2)
    assert view.table.aborted and view.table.changes is None
    assert view.panel.note.text.splitlines()[0] == "Aborted: not rated."
    assert view.panel.changes == []  # no rating column
    # bob, who left, is ranked below the window's seat and marked left
    assert view.panel.rows[1][0].text == "left" and view.panel.rows[0][0].text == "1."


def test_a_round_past_the_days_rated_rounds_with_a_player_says_it_is_friendly(ui, server):
    bob = account(server, "bob")
    me = sign_in_window(ui, server, "ann")
    for _ in range(3):  # the server's limit: 3 rated rounds a day with one player
        rated_round(me, bob)
    view = play_now_duel(ui, bob)
    pump_until(ui, lambda: view.table.pair_limit is not None)
    assert not view.table.rated and view.table.status == "playing"
    said = f"Friendly: you have played 3 rated rounds with {bob.name} today."
    pump_until(ui, lambda: view.message_line.resting == said)
    ui.pump(2)
    assert view.message == said  # shown from the round's start, before anyone acts
    assert len(view.game.log) == 1
