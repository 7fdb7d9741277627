"""Who is there and quick phrases at a live table, on a real window (real input on
Xvfb) against a real ``blockyard serve``; the opponent is a second player driving
the server through blockyard.online: a player who leaves mid-round is shown
"left" on their board and in the result, a tray duel finished here names whom
it waits for, a phrase said is heard in the window's own language (and sent by
F1–F4), too many are refused politely, M mutes, and the window's focus is told
to the table; the presence marks fit at the reference sizes in every language,
and a falling game's live screen does the same (a channel the test feeds)."""

from __future__ import annotations

import pytest
from online_support import (
    LANGUAGES,
    SIZES,
    QuietLive,
    close,
    falling_table,
    one_move_each,
    pump_until,
    resize,
    start_duel,
    until,
)

from blockyard.frontend import theme
from blockyard.frontend.online.table_view import (
    LiveDuelView,
    presence_words,
)
from blockyard.tablesession import TableSession


def mark_shown(ui, view, seat_index: int = 0) -> bool:
    """Whether the presence mark's panel is drawn on the opponent's small board
    (a pixel of it left of the mark's text)."""
    mark = view.band_marks[seat_index]
    x = mark.x - mark.content_width / 2 - 3
    return close(ui.pixel(x, mark.y), theme.PANEL)


def test_a_player_who_leaves_mid_round_is_shown_left_on_their_board_and_in_the_result(
        ui, server):
    _me, view, bob, bob_live, _table_id, seed = start_duel(ui, server)
    with bob_live:
        one_move_each(ui, view, bob_live, seed)
        assert view.table.seat_presence(1) == "present"
        assert view.band_marks[0].text == "" and not mark_shown(ui, view)
        bob_live.leave()  # mid-round: the server ends bob's game for him
        pump_until(ui, lambda: view.band_marks[0].text == "left")
        ui.pump(2)
        assert mark_shown(ui, view)
        assert view.band_marks[0].font_size >= 9
        # his game is over, but he did not finish it: no finished mark beside his name
        assert view.table.over[1] and not view.band_texts[0].text.endswith("✓")
        assert view.message == f"{bob.name} left the table."
        # the window ends its own game by keyboard (E, confirmed): the result
        ui.key("e", "e")
        pump_until(ui, lambda: view.shown_result is not None)
        assert view.table.left_seats == [1]
        rows = {row[1].text.removeprefix("★ "): row[0].text for row in view.panel.rows}
        assert rows[bob.name] == "left"
        assert rows[view.table.name] in ("1.", "2.")


def test_a_tray_duel_finished_here_says_whom_it_waits_for(ui, server):
    _me, view, bob, bob_live, _table_id, seed = start_duel(ui, server)
    with bob_live:
        one_move_each(ui, view, bob_live, seed)
        assert view.message_line.resting == ""
        ui.key("e", "e")  # the window's game ends; bob plays on
        pump_until(ui, lambda: view.table.over[0] and view.table.waiting_for == [1])
        waiting = f"Waiting for {bob.name}…"
        assert view.message_line.resting == waiting
        # shown once the game-over hint has faded, and it stays (it does not expire)
        pump_until(ui, lambda: view.message == waiting)
        ui.pump(200)
        assert view.message == waiting and view.message_line.text.font_size >= 9
        assert close(view.message_line.text.color, theme.MUTED)
        bob_live.act(["end"])  # bob finishes: nobody to wait for, the result
        pump_until(ui, lambda: view.shown_result is not None)
        assert view.message_line.resting == "" and view.message != waiting


def test_a_phrase_is_heard_in_the_windows_language_said_by_f_keys_limited_and_muted(
        ui, server, english):
    ui.app.set_language("de")  # this window's player reads German
    me, view, bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        # bob's window is English; he says "well-played": this one says it in German
        assert bob_live.say("well-played")
        pump_until(ui, lambda: view.message == f"{bob.name}: Gut gespielt!")
        # F1 says "good-luck": bob hears the phrase's id and who said it
        ui.key("F1")
        said = until(bob_live, "said")
        assert (said["seat"], said["name"], said["phrase"]) == (0, me.name, "good-luck")
        assert view.message == "Du: Viel Glück!"
        # six a minute: the seventh is refused, said politely in German
        for key in ("F2", "F3", "F4", "F1", "F2"):
            ui.key(key)
            until(bob_live, "said")
        ui.key("F3")
        pump_until(ui, lambda: view.message.startswith("Das sind viele Kurzsätze"))
        # M mutes who spoke last: kept on the server with the account
        ui.key("m")
        pump_until(ui, lambda: view.muting is None)
        assert me.mutes() == [bob.name]
        assert view.message.startswith(f"{bob.name} ist stummgeschaltet")
        # bob's phrases are not delivered any more: his move arrives, his phrase does not
        assert bob_live.say("thanks")
        bob_live.act(["end"])
        pump_until(ui, lambda: view.table.over[1])
        ui.pump(5)
        assert "Danke" not in view.message and view.table.take_heard() == []
        # M again hears him again: the mute dropped on the server, his next phrase shown
        ui.key("m")
        pump_until(ui, lambda: view.muting is None)
        assert me.mutes() == [] and view.table.muted == set()
        assert bob_live.say("rematch")
        pump_until(ui, lambda: view.message == f"{bob.name}: Revanche?")


def test_the_window_going_to_the_background_shows_the_player_away(ui, server):
    _me, view, _bob, bob_live, _table_id, _seed = start_duel(ui, server)
    with bob_live:
        # the window's focus events as pyglet gives them (Xvfb runs no window manager
        # to move the focus to another window)
        ui.window.dispatch_event("on_deactivate")
        ui.pump(1)  # (queued by pyglet: dispatched with the window's events)
        for _ in range(100):
            seats = until(bob_live, "seats")
            if seats["presence"][0] == "away":
                break
        assert seats["presence"][0] == "away"
        ui.window.dispatch_event("on_activate")
        ui.pump(1)
        for _ in range(100):
            seats = until(bob_live, "seats")
            if seats["presence"][0] == "present":
                break
        assert seats["presence"][0] == "present"
        # and this window shows bob's own presence as the server says it
        pump_until(ui, lambda: view.table.presence == ["present", "present"])


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_presence_marks_fit_their_boards_in_every_language(ui, english, size, tmp_path):
    ui.app.show_launcher()
    ui.pump(1)
    resize(ui, *size)
    width, _height = size
    for code in LANGUAGES:
        ui.app.set_language(code)
        # a full table of eight at the wide size (its band's names need it too:
        # test_online_opponents_band.py), four everywhere
        counts = (2, 4, 8) if width >= 1280 else (2, 4)
        for seats in (["me", *[f"player_number_{i}" for i in range(1, n)]] for n in counts):
            table = TableSession(QuietLive(), "me", "")
            states = ["present", "reconnecting", "away", "left"] * 2
            table.take({"type": "table", "id": 12, "ruleset_id": "eu-classic", "seed": 5,
                        "seats": seats, "status": "playing", "round": 1,
                        "presence": states[:len(seats)]})
            view = LiveDuelView(ui.app.session(), table, lambda: None)
            ui.window.show_view(view)
            view.place_sections(*size)
            ui.pump(1)
            slot = width / len(view.band_rects)
            for seat, (rect, mark) in enumerate(zip(view.band_rects, view.band_marks,
                                                    strict=True), start=1):
                assert mark.text == presence_words(states[seat]), (code, seat)
                if not mark.text:
                    continue
                assert mark.font_size >= 9, (code, size, mark.text)
                # on its board's slot, never over the next one, inside the band
                assert abs(mark.x - rect.center_x) <= 1 and abs(mark.y - rect.center_y) <= 1
                assert mark.content_width <= slot - 8 + 1, (code, size, mark.text)
                assert mark.y + mark.content_height / 2 <= view.reserve_bottom
            if len(seats) == 2 and code == "de":  # a picture to look at (pytest's tmp folder)
                ui.screenshot().save(tmp_path / f"marks-{code}-{width}.png")


class FedLive(QuietLive):
    """A live table the test feeds (what it queues is polled) and that keeps the
    phrases and focus changes the window sends."""

    def __init__(self):
        self.queued = []
        self.said = []
        self.windows = []

    def poll(self):
        out, self.queued = self.queued, []
        return out

    def act(self, action):
        return True

    def say(self, phrase):
        self.said.append(phrase)
        return True

    def window(self, state):
        self.windows.append(state)
        return True


def test_a_falling_table_marks_who_is_there_and_hears_and_says_phrases(ui, english):
    ui.app.set_language("es")
    ui.app.show_launcher()
    ui.pump(1)
    channel = FedLive()
    table, view = falling_table(ui, channel)
    ui.pump(2)
    assert view.band_marks[0].text == ""
    channel.queued += [{"type": "seats", "presence": ["present", "away"],
                        "waiting_for": [0, 1]},
                       {"type": "said", "seat": 1, "name": "you", "phrase": "thanks"}]
    pump_until(ui, lambda: view.band_marks[0].text == "ausente")
    ui.pump(2)
    assert mark_shown(ui, view) and view.band_marks[0].font_size >= 9
    assert view.message == "you: ¡Gracias!"
    ui.key("F4")  # the falling game's own keys are not these
    pump_until(ui, lambda: channel.said == ["thanks"])
    assert view.message == "Tú: ¡Gracias!"
    ui.key("m")
    pump_until(ui, lambda: table.muted == {"you"})
