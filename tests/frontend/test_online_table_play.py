"""The live table's screens as a play-test found them, on a real window (real
input on Xvfb) against a real ``blockyard serve`` on loopback: a rematch asked of
the other players, the table's own menu (under which the opponents' band is
dimmed too), the board watched full-size named in the header, the place at the
table instead of a local record, invited and free seats on the waiting screen."""

from __future__ import annotations

from online_support import (
    account,
    play_until_scored,
    pump_until,
    sign_in_window,
    start_duel,
    until,
)

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.online.lobby_view import LobbyView
from blockyard.frontend.online.table_view import LiveDuelView, WaitingView, left_words
from blockyard.frontend.pages import HelpView


def finish_round(ui, view, bob_live) -> None:
    """Both games end: the result panel shows."""
    bob_live.act(["end"])
    view.send(["end"])
    pump_until(ui, lambda: view.shown_result is not None)


def next_round(live, round_: int):
    """The ``table`` message of round ``round_`` (the ones before it skipped)."""
    for _ in range(100):
        message = until(live, "table")
        if message["round"] == round_:
            return message
    raise AssertionError(f"no round {round_}")


def labels(buttons) -> list[str]:
    return [button.label for button in buttons]


def near(colour, expected, slack: int = 12) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(colour, expected[:3], strict=False))


def test_a_rematch_the_opponent_asked_for_is_a_question_play_by_mouse(ui, server):
    _me, view, bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        finish_round(ui, view, bob_live)
        assert view.panel.title.text in ("Draw", f"{bob.name} wins", f"{_me.name} wins")
        bob_live.rematch()
        dealt = next_round(bob_live, 2)
        assert dealt["rematch_by"] == 1 and dealt["round"] == 2
        pump_until(ui, lambda: view.asked_by is not None)
        ui.pump(3)
        assert ui.view is view  # not pulled into the new round
        assert view.panel.title.text == f"{bob.name} asks for a rematch"
        assert labels(view.panel.buttons) == ["Play", "Leave table"]
        assert view.panel.note.text == "Enter: play · Esc: leave the table"
        # the question is on screen: the Play button's green under the panel's title
        play = view.play_button.rect
        assert near(ui.pixel(play.left + 4, play.center_y), theme.GO)
        # the asker plays on meanwhile: the band follows their new round
        theirs = blockyard.new_game("eu-classic", seed=dealt["seed"])
        action = ["place", *theirs.legal_moves()[0]]
        theirs.apply(action)
        bob_live.act(action)
        pump_until(ui, lambda: len(view.table.games[1].log) == 2)
        assert ui.view is view and view.asked_by == bob.name
        ui.click(play.center_x, play.center_y)
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView) and ui.view is not view)
        new = ui.view
        assert new.table.round == 2 and new.game.seed == dealt["seed"]
        assert len(new.game.log) == 1 and new.asked_by is None and new.shown_result is None
        # the new round is played: a move by keyboard goes through
        ui.key("1", "Return")
        pump_until(ui, lambda: len(new.game.log) == 2)
        moves = [until(bob_live, "move") for _ in range(2)]  # bob's own, then the window's
        assert [m["seat"] for m in moves] == [1, 0] and moves[1]["action"] == new.game.log[1]


def test_leaving_a_rematch_the_opponent_asked_for_by_keyboard_frees_the_seat(ui, server):
    me, view, bob, bob_live, table_id, _seed = start_duel(ui, server)
    with bob_live:
        finish_round(ui, view, bob_live)
        bob_live.rematch()
        next_round(bob_live, 2)
        pump_until(ui, lambda: view.asked_by is not None)
        ui.key("Escape")  # Leave table
        pump_until(ui, lambda: isinstance(ui.view, LobbyView))
        freed = next_round(bob_live, 3)
        assert freed["status"] == "waiting" and freed["seats"] == [None, bob.name]
    stored = bob.table(table_id)
    assert [r["round"] for r in stored["results"]] == [1]  # no lost round for leaving
    assert me.name not in stored["seats"]


def test_the_window_that_asks_for_the_rematch_enters_it_at_once(ui, server):
    _me, view, _bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        finish_round(ui, view, bob_live)
        assert view.panel.note.text == "R: rematch · Esc: leave the table"
        ui.key("r")
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView) and ui.view is not view)
        assert ui.view.table.round == 2 and ui.view.asked_by is None
        assert next_round(bob_live, 2)["rematch_by"] == 0


def test_a_falling_tables_rematch_question_shows_the_rounds_clock(ui, server):
    me = sign_in_window(ui, server)
    bob = account(server, "bob")
    table = me.create_table("sudoku-bloxx")
    bob.join(table.id)
    with bob.live(table.id) as bob_live:
        until(bob_live, "table")
        ui.app.show("table", table_id=table.id)
        pump_until(ui, lambda: not isinstance(ui.view, WaitingView))
        view = ui.view
        bob_live.act(["tick", 1_000_000])
        bob_live.act(["end"])
        view.game.apply(["end"])  # the window's own game ends: its log is sent as ever
        pump_until(ui, lambda: view.shown_result is not None)
        bob_live.rematch()
        pump_until(ui, lambda: view.asked_by is not None and view.table.clock is not None)
        assert ui.view is view
        assert view.panel.note.text.startswith("The new round's clock is running: 0:0")
        assert view.panel.note.text.endswith("Enter: play · Esc: leave the table")
        ui.key("Return")  # at once: a key meant for before never answers the question
        ui.pump(3)
        assert ui.view is view
        ui.pump(45)  # the question has been on screen long enough to be read
        ui.key("Return")
        pump_until(ui, lambda: ui.view is not view)
        entered = ui.view
        assert entered.table.round == 2 and entered.plays
        assert entered.controls_section.help_text.text == (
            "Keys: ←/→ move   ↓ soft drop   Space hard drop   Esc menu")  # nothing pauses
        assert entered.owner_text.text.startswith("Place ")  # the place, not a record


def test_the_live_tables_menu_leave_asks_first_and_the_band_is_dimmed(ui, server):
    _me, view, bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        # bob's seat is shown reconnecting (dimmed) until his connection is known here
        pump_until(ui, lambda: view.table.seat_presence(1) == "present")
        ui.pump(2)
        board = view.band_rects[0]
        x, y = board.left + 4, board.bottom + 4  # in an empty cell of the opponent's board
        before = ui.pixel(x, y)
        assert near(before, theme.EMPTY_CELL)
        ui.key("Escape")
        pump_until(ui, lambda: view.paused)
        menu = view.dialog.pause
        assert menu.title.text == "Live table"
        # the quick phrases' keys listed for a seated player
        # (each key kept with its phrase on one line: no-break spaces between them)
        assert menu.note.text.replace("\u00a0", " ") == (
            "Nothing is paused: the others play on.\n"
            "Quick phrases: F1 Good luck!  F2 Well played!  F3 Rematch?  F4 Thanks!\n"
            "M: mute or unmute who spoke last")
        assert labels(menu.buttons) == ["Resume", "Leave table", f"Mute {bob.name}",
                                        "How to play", "Settings"]
        dimmed = ui.pixel(x, y)  # the opponents' board is under the menu's overlay
        assert sum(dimmed) < sum(before) - 20
        # How to play comes back to this very screen, the table still there
        help_button = menu.buttons[3]
        ui.click(help_button.rect.center_x, help_button.rect.center_y)
        pump_until(ui, lambda: isinstance(ui.view, HelpView))
        ui.key("Escape")
        pump_until(ui, lambda: ui.view is view)
        # mouse: Leave table asks first; Esc goes back to the menu
        ui.key("Escape")
        pump_until(ui, lambda: view.paused)
        leave = menu.buttons[1]
        ui.click(leave.rect.center_x, leave.rect.center_y)
        pump_until(ui, lambda: menu.confirming)
        assert menu.title.text == "Leave the table?"
        assert labels(menu.buttons) == ["Stay at the table", "Leave table"]
        assert menu.index == 0  # the safe answer first
        ui.key("Escape")
        pump_until(ui, lambda: not menu.confirming)
        assert view.paused and labels(menu.buttons)[0] == "Resume"
        # keyboard: ↓ Leave table, Enter, ↓ Leave table, Enter: the game ends, gone
        ui.key("Down", "Return")
        pump_until(ui, lambda: menu.confirming)
        ui.key("Down", "Return")
        pump_until(ui, lambda: isinstance(ui.view, LobbyView))
        move = until(bob_live, "move")
        assert move["seat"] == 0 and move["action"] == ["end"]


def test_the_board_watched_is_named_and_the_header_shows_the_place(ui, server):
    _me, view, bob, bob_live, _table_id, seed = start_duel(ui, server)
    with bob_live:
        assert view.best_text.text == "Place 1 of 2 · rating 0.0?"  # not the local record
        theirs = play_until_scored(ui, view, bob_live, seed)
        assert view.best_text.text == "Place 2 of 2 · rating 0.0?"
        view.send(["end"])
        pump_until(ui, lambda: view.may_watch())
        ui.key("Right")
        pump_until(ui, lambda: ui.view is not view)
        watching = ui.view
        assert watching.shown == 1
        assert watching.title_text.text == f"Watching {bob.name}"
        assert watching.title_text.color == theme.ACCENT
        assert watching.score_text.text == str(theirs.score)
        assert watching.best_text.text == "Place 1 of 2 · rating 0.0?"
        assert watching.message == (f"Watching {bob.name}: ←/→ or Tab for another board, "
                                    "Esc for yours.")
        ui.key("Tab")  # the next board: the player's own again
        pump_until(ui, lambda: ui.view is not watching)
        assert ui.view.shown == 0 and ui.view.title_text.text != f"Watching {bob.name}"


def test_the_waiting_screen_names_invited_and_free_seats_readably(ui, server):
    me = sign_in_window(ui, server)
    bob = account(server, "bob")
    table = me.create_table("eu-classic", seats=3, invite=[bob.name])
    size = (ui.window.width, ui.window.height)
    ui.app.show("lobby")  # the lobby's list says a free seat in words too
    ui.resize(480, 640)  # (a view shown first: the test's first in a worker too)
    try:
        lobby = ui.view
        pump_until(ui, lambda: lobby.pending is None and lobby.rows)
        row = [t.id for t in lobby.tables].index(table.id)
        # (at 480x640 the seats on one line, the table's state under them)
        assert lobby.rows[row][1][1].text.replace("\n", " · ") == \
            f"{me.name} (0.0?), free seat, free seat · waiting · friendly"
        ui.app.show("table", table_id=table.id)
        waiting = ui.view
        assert isinstance(waiting, WaitingView)
        pump_until(ui, lambda: waiting.session.seats)
        assert waiting.body.text.splitlines() == [
            "Friendly table: not rated.", f"Seat 1: {me.name} (0.0?)",
            f"Seat 2: invited: {bob.name}", "Seat 3: free seat"]
        assert waiting.body.font_size >= 15
        assert all(b.text.font_size >= 14 for b in waiting.buttons if b.visible)
        # bob declines: his seat is a free one again
        bob.decline_invitation(table.id)
        pump_until(ui, lambda: "invited" not in waiting.body.text)
        assert waiting.body.text.splitlines()[2] == "Seat 2: free seat"
        ui.key("Escape")
    finally:
        ui.resize(*size)


def test_a_player_who_leaves_after_the_result_keeps_their_name_in_it(ui, server):
    # found playing: the result said "free seat wins" once the winner had left
    _me, view, bob, bob_live, _table_id, seed = start_duel(ui, server)
    with bob_live:
        play_until_scored(ui, view, bob_live, seed)
        finish_round(ui, view, bob_live)
        assert view.panel.title.text == f"{bob.name} wins"
        bob_live.leave()
        pump_until(ui, lambda: view.table.seats[1] is None)
        ui.pump(3)
        view._fill_panel()
        assert view.panel.title.text == f"{bob.name} wins"
        assert [row[1].text for row in view.panel.rows] == [f"★ {bob.name}", _me.name]
        assert view.band_texts[0].text.startswith(f"{bob.name}: ")
        # and the player is told
        assert view.table.left == bob.name
        assert left_words(view.table) == f"{bob.name} left the table."
        assert view.message == f"{bob.name} left the table."


def test_a_watched_board_keeps_the_menu_button_for_the_mouse(ui, server):
    # found playing: a spectator (or a finished player watching) had no way out
    # by mouse
    _me, view, _bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        view.send(["end"])
        pump_until(ui, lambda: view.may_watch())
        ui.key("Right")
        pump_until(ui, lambda: ui.view is not view)
        watching = ui.view
        assert watching.spectator and watching.menu_button.visible
        assert watching.menu_button in watching.hud_buttons
        menu = watching.menu_button.rect
        ui.click(menu.center_x, menu.center_y)
        pump_until(ui, lambda: watching.dialog.pause.open)
        assert "Leave table" in labels(watching.dialog.pause.buttons)


def play_until_stuck(ui, view) -> None:
    """The window's game placed (first legal move each time) until nothing fits."""
    while not view.game.over:
        before = len(view.game.log)
        view.send(["place", *view.game.legal_moves()[0]])
        pump_until(ui, lambda before=before: len(view.game.log) > before)
    assert view.game.over_reason == "stuck"


def test_at_a_table_eus_continue_is_offered_and_finish_ends_the_seat(ui, server):
    # the same rules as offline: stuck, the prompt offers Continue (C) and Finish
    # (F); the server accepts the continue, and Finish ends the seat there too
    _me, view, _bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        bob_live.act(["end"])
        play_until_stuck(ui, view)
        pump_until(ui, lambda: view.dialog.prompting and view.dialog.ready)
        ui.key("c")
        pump_until(ui, lambda: view.game.log[-1] == ["continue"])
        # eu's continue empties at most four of the fullest rows: on
        # some deals no tray piece fits even then, and the game stays over
        if not view.game.over:
            assert view.table.result is None
            play_until_stuck(ui, view)
        assert not view.dialog.prompting  # the one continue is used: the seat is done
        pump_until(ui, lambda: view.table.result is not None)
        assert view.table.result["scores"] == [view.game.score, 0]


def test_finishing_at_the_continue_prompt_of_a_table_ends_the_seat(ui, server):
    _me, view, _bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        bob_live.act(["end"])
        play_until_stuck(ui, view)
        pump_until(ui, lambda: view.dialog.prompting and view.dialog.ready)
        snapshot = view.game.snapshot()
        ui.key("f")
        pump_until(ui, lambda: view.table.result is not None)
        assert view.table.result["scores"] == [view.game.score, 0]
        assert view.game.snapshot() == snapshot and view.table.divergence is None
        ended = until(bob_live, "move")
        while ended["seat"] != 0 or ended["action"] != ["end"]:
            ended = until(bob_live, "move")
        assert ended["over"] is True


def test_a_table_under_way_opens_without_an_empty_waiting_screen(ui, server):
    # found playing (issue 51): after Play now paired, an empty "Waiting for
    # players" screen flashed for half a second before the duel
    _me, view, _bob, bob_live, table_id, _seed = start_duel(ui, server)
    try:
        view.table.close()
        ui.app.show("table", table_id=table_id)  # as Play now opens its table
        opening = ui.view
        assert isinstance(opening, WaitingView)
        image = ui.screenshot()  # its first frame, before the server's table message
        assert opening.title.text == "Connecting…" and opening.body.text == ""
        # nothing drawn where the seats would be listed
        body_top = round(ui.window.height - opening.body.y)
        band = image.convert("RGB").crop((0, body_top, ui.window.width, body_top + 80))
        assert set(band.getdata()) == {tuple(theme.BACKGROUND[:3])}
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        ui.view.table.close()
    finally:
        bob_live.close()
