"""The lobby and a live duel on a real window (real input on Xvfb) against a
real ``blockyard serve`` on loopback; the opponent is a second player driving
the server through blockyard.online."""

from __future__ import annotations

from online_support import account, choose_rules, pump_until, sign_in_window, start_duel, until

import blockyard
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView
from blockyard.frontend.online.table_view import LiveDuelView, WaitingView
from blockyard.online import Client


def test_no_online_entry_without_a_server(ui):
    ui.app.show_launcher()
    ui.pump(2)
    assert isinstance(ui.view, LauncherView)
    assert all(entry.family != "online" for entry in ui.view.entries)


def test_new_table_then_a_duel_to_its_result(ui, server):
    me = sign_in_window(ui, server)
    ui.app.show_launcher()
    ui.pump(2)
    launcher = ui.view
    assert isinstance(launcher, LauncherView)
    row = next(e for e in launcher.entries if e.family == "online")
    ui.click(row.rect.center_x, row.rect.center_y)
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None)
    assert not lobby.animating()  # idle: the window draws no frame until something changes
    # keyboard: N opens the form; → until eu-classic; seats stay 2; Enter opens
    ui.key("n")
    form = ui.view
    assert isinstance(form, NewTableView)
    choose_rules(ui, form)
    assert form.rulesets[form.ruleset][0] == "eu-classic" and form.seats == 2
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, WaitingView))
    waiting = ui.view
    table_id, _code = waiting.session.code.split("-")
    listed = [t for t in Client(server.url).tables() if t.id == int(table_id)]
    assert listed and listed[0].seats == (me.name, None)
    ui.key("ctrl+c")
    assert ui.window.get_clipboard_text() == waiting.session.code
    # the opponent sits down: the duel opens on both sides
    bob = account(server, "bob")
    assert bob.join(int(table_id)) == 1
    with bob.live(int(table_id)) as bob_live:
        state = until(bob_live, "table")
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        view = ui.view
        assert view.table.me == 0 and view.table.seats == [me.name, bob.name]
        mine = blockyard.new_game("eu-classic", seed=state["seed"])
        theirs = blockyard.new_game("eu-classic", seed=state["seed"])
        assert view.game.log == mine.log
        ui.pump(3)
        assert not view.animating()  # waiting for the opponent: no frame is drawn
        # the window's move by keyboard: applied once the server accepted it
        ui.key("1", "Return")
        pump_until(ui, lambda: len(view.game.log) == 2)
        move = until(bob_live, "move")
        assert move["seat"] == 0 and move["action"] == view.game.log[-1]
        mine.apply(move["action"])
        assert view.game.score == mine.score == move["score"]
        # the opponent's moves show on the small board with the score
        for _ in range(2):
            action = ["place", *theirs.legal_moves()[0]]
            theirs.apply(action)
            assert bob_live.act(action)
        pump_until(ui, lambda: len(view.table.games[1].log) == 3)
        assert view.table.games[1].grid.bits == theirs.grid.bits
        assert view.table.scores[1] == theirs.score
        assert view.band_texts[0].text == f"{bob.name} (0.0?): {theirs.score}"  # a newcomer
        # a refused action changes nothing and says why
        log = list(view.game.log)
        view.send(["place", 0, 99, 99])
        pump_until(ui, lambda: view.message == "The server did not accept that move.")
        assert view.game.log == log
        # both end their games: the result table
        bob_live.act(["end"])
        view.send(["end"])
        pump_until(ui, lambda: view.table.result is not None)
        mine.apply(["end"])
        theirs.apply(["end"])
        assert view.table.result["scores"] == [mine.score, theirs.score]
        rows = [tuple(t.text for t in row) for row in view.panel.rows]
        scores = {me.name: mine.score, bob.name: theirs.score}
        assert sorted(rows, key=lambda r: r[1].removeprefix("★ ")) == sorted(
            [(f"{1 + sum(v > s for v in scores.values())}.",
              ("★ " if s > min(scores.values()) else "") + name, str(s))
             for name, s in scores.items()], key=lambda r: r[1].removeprefix("★ "))
        ui.key("Escape")  # leaves the table: back in the lobby
        assert isinstance(ui.view, LobbyView)


def test_a_dropped_connection_and_a_reopened_window_keep_every_move(ui, server):
    me, view, bob, bob_live, table_id, seed = start_duel(ui, server)
    try:
        theirs = blockyard.new_game("eu-classic", seed=seed)
        ui.key("1", "Return")
        pump_until(ui, lambda: len(view.game.log) == 2)
        # the connection drops under the window: a banner, then back on its own
        live = view.table.live
        with live._lock:
            live._socket.close()
        pump_until(ui, lambda: view.banner.text == "Connection lost: connecting again…")
        pump_until(ui, lambda: view.banner.text == "")
        action = ["place", *theirs.legal_moves()[0]]
        theirs.apply(action)
        bob_live.act(action)
        pump_until(ui, lambda: len(view.table.games[1].log) == 2)
        assert len(view.game.log) == 2  # the window's own move not applied twice
        ui.key("2", "Return")  # the first piece is placed: the second one
        pump_until(ui, lambda: len(view.game.log) == 3)
        mine_log = list(view.game.log)
        # the window is closed mid-duel (the seat stays): reopened, the lobby lists
        # the table with the player's seat, and choosing it shows every move
        view.table.close()
        ui.app.show_launcher()
        ui.pump(2)
        ui.app.show("lobby")
        lobby = ui.view
        pump_until(ui, lambda: lobby.pending is None and lobby.rows)
        index = [t.id for t in lobby.tables].index(table_id)
        assert lobby.tables[index].seats == (me.name, bob.name)
        rect = lobby.rows[index][0]
        ui.click(rect.center_x, rect.center_y)
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView)
                   and len(ui.view.game.log) == len(mine_log)
                   and len(ui.view.table.games[1].log) == 2)
        again = ui.view
        assert again.game.log == mine_log and again.table.games[1].log == theirs.log
        assert again.table.scores[1] == theirs.score
    finally:
        bob_live.close()


def test_a_full_table_is_watched(ui, server):
    _me, view, bob, bob_live, table_id, seed = start_duel(ui, server)
    try:
        ui.key("1", "Return")
        pump_until(ui, lambda: len(view.game.log) == 2)
        view.table.close()
        # a third player's window: the table is full, so it is watched
        sign_in_window(ui, server, "carol")
        ui.app.show("lobby")
        lobby = ui.view
        pump_until(ui, lambda: lobby.pending is None and lobby.rows)
        index = [t.id for t in lobby.tables].index(table_id)
        ui.key(*["Down"] * index, "Return")
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView)
                   and len(ui.view.table.games[0].log) == 2)
        watching = ui.view
        assert watching.table.me is None and watching.spectator
        theirs = blockyard.new_game("eu-classic", seed=seed)
        action = ["place", *theirs.legal_moves()[0]]
        theirs.apply(action)
        bob_live.act(action)
        pump_until(ui, lambda: len(watching.table.games[1].log) == 2)
        assert watching.band_texts[0].text == f"{bob.name} (0.0?): {theirs.score}"
        log = list(watching.game.log)
        ui.key("1", "Return")  # a spectator's keys send nothing
        ui.pump(5)
        assert watching.game.log == log
    finally:
        bob_live.close()


def test_a_rematch_after_the_opponent_left_waits_for_a_player(ui, server):
    # nobody is dealt against a player who has gone: the waiting screen, then the
    # duel again once someone takes the free seat
    me, view, bob, bob_live, table_id, _seed = start_duel(ui, server)
    with bob_live:
        bob_live.act(["end"])
        view.send(["end"])
        pump_until(ui, lambda: view.table.result is not None)
        bob_live.leave()
        pump_until(ui, lambda: view.table.seats[1] is None)
    ui.key("r")  # the rematch
    pump_until(ui, lambda: isinstance(ui.view, WaitingView))
    assert ui.view.session.status == "waiting"
    assert bob.join(table_id) == 1
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView) and ui.view is not view)
    assert ui.view.table.seats == [me.name, bob.name] and ui.view.table.status == "playing"
