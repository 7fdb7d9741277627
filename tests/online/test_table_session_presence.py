"""Who is there and quick phrases at a table as a client follows it, without a
window (blockyard.tablesession): each seat's presence and whom the table waits
for from the ``table`` and ``seats`` messages, the result's seats that left, the
phrases heard (kept for the window, a muted player's dropped), and ``say``,
``window`` and a mute going out."""

from __future__ import annotations

from typing import Any

from blockyard.tablesession import Heard, TableSession

RULES = "eu-classic"


class FakeChannel:
    """A table's live channel: what the test queues is polled; what the session
    sends is kept."""

    def __init__(self, connected: bool = True) -> None:
        self.table_id = 7
        self.queued: list[dict[str, Any]] = []
        self.said: list[str] = []
        self.windows: list[str] = []
        self.refused_actions = 0
        self.connected = connected

    def poll(self) -> list[dict[str, Any]]:
        out, self.queued = self.queued, []
        return out

    def act(self, action: Any) -> bool:
        return self.connected

    def leave(self) -> bool:
        return self.connected

    def rematch(self) -> bool:
        return self.connected

    def say(self, phrase: str) -> bool:
        if self.connected:
            self.said.append(phrase)
        return self.connected

    def window(self, state: str) -> bool:
        if self.connected:
            self.windows.append(state)
        return self.connected

    def close(self) -> None:
        pass


def table_message(seats: list[str | None], **more: Any) -> dict[str, Any]:
    return {"type": "table", "protocol": 3, "id": 7, "ruleset_id": RULES, "seed": 3,
            "seats": seats, "status": "playing", "round": 1, "rematch_by": None,
            "invited": [], **more}


def session(name: str = "ann", **kwargs: Any) -> tuple[TableSession, FakeChannel]:
    channel = FakeChannel()
    return TableSession(channel, name, "7-ABCDEFGH", "127.0.0.1:8765", **kwargs), channel


def test_the_table_message_says_who_is_there_and_whom_the_table_waits_for():
    table, channel = session()
    assert table.presence == [] and table.waiting_for == []
    channel.queued.append(table_message(["ann", "bob", "cy"],
                                        presence=["present", "away", "reconnecting"],
                                        waiting_for=[0, 1, 2]))
    table.update()
    assert table.presence == ["present", "away", "reconnecting"]
    assert [table.seat_presence(s) for s in (0, 1, 2, 3, -1)] == [
        "present", "away", "reconnecting", None, None]
    assert table.waiting_for == [0, 1, 2]
    assert table.waiting_names() == ["bob", "cy"]  # never this player's own name


def test_a_seats_message_changes_who_is_there_and_one_who_left_is_said_once():
    table, _channel = session()
    table.take(table_message(["ann", "bob"], presence=["present", "present"],
                             waiting_for=[0, 1]))
    table.take({"type": "seats", "presence": ["present", "left"], "waiting_for": [0]})
    assert table.presence == ["present", "left"] and table.waiting_for == [0]
    assert table.left == "bob"  # the window says "bob left the table."
    assert table.waiting_names() == []
    table.left = None
    table.take({"type": "seats", "presence": ["present", "left"], "waiting_for": [0]})
    assert table.left is None  # still left: not news


def test_presence_and_waiting_for_that_make_no_sense_are_not_taken():
    table, _channel = session()
    table.take(table_message(["ann", None], presence=["present", None], waiting_for=[0]))
    # an unknown state, too many entries, seats out of range or not numbers
    table.take({"type": "seats", "presence": ["dancing", "away", "left"],
                "waiting_for": [0, 5, -1, True, "1", 1]})
    assert table.presence == [None, "away"]
    assert table.waiting_for == [0, 1]
    table.take({"type": "seats", "presence": "away", "waiting_for": None})
    assert table.presence == [None, "away"] and table.waiting_for == [0, 1]
    # this player is never the one who "left the table"
    table.take({"type": "seats", "presence": ["left", "away"], "waiting_for": []})
    assert table.left is None


def test_the_results_seats_that_left_until_the_next_round():
    table, _channel = session()
    table.take(table_message(["ann", "bob", "cy"]))
    table.take({"type": "result", "scores": [3, 9, 1], "winner": 1, "ratings": None,
                "left": [2, 7, "0", 2]})
    assert table.left_seats == [2]
    table.take(table_message(["ann", "bob", "cy"], round=2))
    assert table.left_seats == []
    table.take({"type": "result", "scores": [3, 9, 1], "winner": 1})  # before "left"
    assert table.left_seats == []


def test_phrases_heard_are_kept_for_the_window_in_order_then_forgotten():
    table, channel = session()
    channel.queued += [table_message(["ann", "bob", "cy"]),
                       {"type": "said", "seat": 1, "name": "bob", "phrase": "good-luck"},
                       {"type": "said", "seat": 2, "name": "cy", "phrase": "thanks"},
                       # a phrase this client has no words for, and broken ones
                       {"type": "said", "seat": 1, "name": "bob", "phrase": "gg-ez"},
                       {"type": "said", "seat": 9, "name": "bob", "phrase": "thanks"},
                       {"type": "said", "seat": 1, "name": None, "phrase": "thanks"}]
    assert table.update() is True
    assert table.take_heard() == [Heard(1, "bob", "good-luck"), Heard(2, "cy", "thanks")]
    assert table.take_heard() == []
    for _ in range(50):  # never taken: the oldest go
        table.take({"type": "said", "seat": 1, "name": "bob", "phrase": "rematch"})
    assert len(table.take_heard()) == 20


def test_saying_a_phrase_and_the_windows_focus_go_through_the_channel():
    table, channel = session()
    table.take(table_message(["ann", "bob"]))
    assert table.say("well-played") is True and channel.said == ["well-played"]
    assert table.window("away") is True and table.window("active") is True
    assert channel.windows == ["away", "active"]
    channel.connected = False
    assert table.say("thanks") is False and table.window("away") is False
    watcher, watched = session("carl")
    watcher.take(table_message(["ann", "bob"]))
    assert watcher.say("thanks") is False and watched.said == []  # spectators do not speak


def test_too_many_phrases_are_refused_without_undoing_a_move():
    table, _channel = session()
    table.take(table_message(["ann", "bob"]))
    undone: list[bool] = []
    table.my_refusal = lambda: undone.append(True)
    table.take({"type": "refused", "kind": "too-many",
                "reason": "at most 6 quick phrases a minute; wait a moment"})
    assert table.refusal is not None and table.refusal.kind == "too-many"
    assert undone == []  # a falling game does not rebuild itself for a phrase
    table.take({"type": "refused", "kind": "illegal", "reason": "no"})
    assert undone == [True]


def test_muting_drops_the_players_phrases_here_and_asks_the_server():
    asked: list[str] = []

    def mute(name: str) -> None:
        asked.append(name)

    table, _channel = session(mute=mute)
    table.take(table_message(["ann", "bob", "cy"]))
    table.take({"type": "said", "seat": 1, "name": "bob", "phrase": "good-luck"})
    table.take({"type": "said", "seat": 2, "name": "cy", "phrase": "thanks"})
    pending = table.mute("bob")
    assert pending is not None and pending.wait(10) and pending.failure is None
    assert asked == ["bob"] and table.muted == {"bob"}
    # one heard before, and one the server sent before it knew: not shown
    table.take({"type": "said", "seat": 1, "name": "bob", "phrase": "rematch"})
    assert table.take_heard() == [Heard(2, "cy", "thanks")]
    alone, _ = session()  # no account to mute with: muted here only
    assert alone.mute("bob") is None and alone.muted == {"bob"}


def test_the_accounts_mutes_are_known_at_the_start_and_a_player_is_heard_again():
    asked: list[str] = []
    table, _channel = session(mute=asked.append, unmute=lambda name: asked.append("-" + name),
                              mutes=lambda: ["cy"])
    assert table.muting is not None and table.muting.wait(10)
    table.update()  # the account's mutes, as the server said them: cy muted already
    assert table.muted == {"cy"}
    table.take(table_message(["ann", "bob", "cy"]))
    table.take({"type": "said", "seat": 2, "name": "cy", "phrase": "thanks"})
    assert table.take_heard() == []
    pending = table.unmute("cy")
    assert pending is not None and pending.wait(10) and pending.failure is None
    assert asked == ["-cy"] and table.muted == set()
    table.take({"type": "said", "seat": 2, "name": "cy", "phrase": "thanks"})
    assert table.take_heard() == [Heard(2, "cy", "thanks")]
    alone, _ = session()  # no account: heard again here only
    alone.mute("cy")
    assert alone.unmute("cy") is None and alone.muted == set()


def test_a_game_over_is_finished_only_once_the_table_waits_for_it_no_more():
    # eu's continue: a seat's game over but offered an action after the end is still
    # waited for; the window marks it finished only when the server says so
    table, _channel = session()
    table.take(table_message(["ann", "bob"], presence=["present", "present"],
                             waiting_for=[0, 1]))
    table.over = [False, True]
    assert not table.finished(1) and not table.finished(0)
    table.take({"type": "seats", "presence": ["present", "present"], "waiting_for": [0]})
    assert table.finished(1) and not table.finished(0)
    old, _ = session()  # a server that says nothing of who is there: over is finished
    old.take(table_message(["ann", "bob"]))
    old.over = [False, True]
    assert old.finished(1)
