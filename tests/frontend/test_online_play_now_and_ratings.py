"""Play now and the ratings on a real window (real input on Xvfb, pixels read
back) against a real ``blockyard serve`` on loopback: the lobby's Play now (P)
waits in the pool and Esc leaves it; two players who press Play now land at one
rated table (this window and one in a process of its own, driven by xdotool),
whose seats show their ratings; the result panel shows both rating
changes as the server computed them, and another player sees them on the rated
leaderboard. The New table form opens a rated table when asked, and the lobby
lists it as rated."""

from __future__ import annotations

from online_support import account, close, pump_until, ringed, sign_in_window, until
from window_process import start_process

import blockyard
from blockyard.frontend import theme
from blockyard.frontend.launcher import LauncherView
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView, ruleset_title
from blockyard.frontend.online.playnow_view import PlayNowView
from blockyard.frontend.online.ratings_view import RatedBoardView
from blockyard.frontend.online.ratingwords import change_text, named_rating
from blockyard.frontend.online.table_view import LiveDuelView, WaitingView
from blockyard.frontend.persistence import Settings
from blockyard.online import Client


def open_lobby(ui) -> LobbyView:
    ui.app.show("lobby")
    lobby = ui.view
    assert isinstance(lobby, LobbyView)
    pump_until(ui, lambda: lobby.pending is None)
    return lobby


def choose_play_rules(ui, lobby: LobbyView, ruleset_id: str = "eu-classic") -> None:
    """→ in the lobby until Play now's button names ``ruleset_id``'s rules."""
    for _ in range(len(lobby.rulesets)):
        if lobby.play_ruleset[0] == ruleset_id:
            break
        ui.key("Right")
    assert lobby.play_ruleset[0] == ruleset_id
    assert lobby.play_ruleset[1] in lobby.play_button.label


def in_pool(server, me: Client) -> bool:
    return Client(server.url, me.token).pairing() is not None


def test_play_now_waits_in_the_pool_and_esc_leaves_it(ui, server):
    me = sign_in_window(ui, server, "ann")
    lobby = open_lobby(ui)
    choose_play_rules(ui, lobby)
    ui.pump(1)
    button = lobby.play_button
    assert button.visible and close(ui.pixel(button.rect.center_x, button.rect.bottom + 4),
                                    theme.GO, slack=40)
    ui.key("p")
    waiting = ui.view
    assert isinstance(waiting, PlayNowView)
    pump_until(ui, lambda: waiting.waiting)
    assert in_pool(server, me)
    assert waiting.body.text.startswith("Looking for an opponent of a close rating…")
    assert waiting.rules_text.text == lobby.play_ruleset[1]
    # the seconds waited, on the frames' own time (three frames of one second each)
    waited = waiting.waited
    ui.pump(3, dt=1.0)
    assert waiting.body.text.splitlines()[1] == f"Waiting {int(waited + 3)} s"
    ui.key("Tab")
    ui.pump(1)
    assert ringed(ui, waiting.leave_button)  # Stop looking, drawn focused
    ui.key("Escape")  # leaves the pool: back in the lobby
    pump_until(ui, lambda: isinstance(ui.view, LobbyView))
    pump_until(ui, lambda: not in_pool(server, me))
    # by the pointer: Play now's button enters, Stop looking leaves
    lobby = ui.view
    ui.click(lobby.play_button.rect.center_x, lobby.play_button.rect.center_y)
    waiting = ui.view
    assert isinstance(waiting, PlayNowView)
    pump_until(ui, lambda: waiting.waiting)
    r = waiting.leave_button.rect
    ui.click(r.center_x, r.center_y)
    pump_until(ui, lambda: isinstance(ui.view, LobbyView))
    pump_until(ui, lambda: not in_pool(server, me))


def test_two_players_press_play_now_and_a_rated_result_shows_on_the_leaderboard(ui, server):
    bob = account(server, "bob")
    me = sign_in_window(ui, server, "ann")
    lobby = open_lobby(ui)
    choose_play_rules(ui, lobby)
    ui.key("p")
    waiting = ui.view
    assert isinstance(waiting, PlayNowView)
    pump_until(ui, lambda: waiting.waiting)
    bob.play_now("eu-classic")  # the second player: paired at once (close ratings)
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView | WaitingView))
    pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
    view = ui.view
    state = bob.pairing()
    assert state is not None and state.table == view.table.table_id
    table = Client(server.url).table(view.table.table_id)
    assert table["rated"] is True and sorted(table["seats"]) == sorted([me.name, bob.name])
    mine = view.table.me
    assert mine is not None and view.table.seats[mine] == me.name
    theirs = 1 - mine
    # each seat's rating beside its name: a newcomer's, provisional, as the server said
    pump_until(ui, lambda: view.band_texts and view.table.ratings)
    rating = view.table.seat_rating(theirs)
    assert rating is not None and rating.provisional and rating.games == 0
    assert rating.rating == table["ratings"][theirs]["rating"]
    assert view.band_texts[0].text.startswith(named_rating(bob.name, rating) + ":")
    assert "(0.0?)" in view.band_texts[0].text
    assert "rating 0.0?" in view.standing()
    # both play (two placements each at least: a round with fewer is aborted) and
    # end their rounds (the window by its keys): the result with both changes
    bob_live = bob.live(view.table.table_id)
    bobs = blockyard.new_game("eu-classic", seed=until(bob_live, "table")["seed"])
    for _ in range(2):
        action = ["place", *bobs.legal_moves()[0]]
        bobs.apply(action)
        bob_live.act(action)
    bob_live.act(["end"])
    ui.key("1", "Return")  # the window's first piece by its keys
    pump_until(ui, lambda: len(view.game.log) == 2)
    for placed in range(2):  # one more than bob's, so that the scores differ
        view.send(["place", *view.game.legal_moves()[0]])
        pump_until(ui, lambda n=placed: len(view.game.log) == n + 3)
    view.send(["end"])
    pump_until(ui, lambda: view.table.result is not None and view.panel.changes)
    ui.pump(2)
    result = view.table.result
    changes = view.table.changes
    assert changes is not None and len(changes) == 2
    assert [c["change"] for c in result["ratings"]] == [c.change for c in changes]
    assert changes[0].change != 0 and changes[1].change != 0
    order = sorted(range(2), key=lambda i: (-result["scores"][i], i))
    assert [t.text for t in view.panel.changes] == [change_text(changes[s]) for s in order]
    winner_change = view.panel.changes[0].text
    assert winner_change.startswith("+") and view.panel.changes[1].text.startswith("−")
    # the panel drawn with its fourth column: the changes' text inside the panel
    panel = view.panel.rect
    for text in view.panel.changes:
        assert panel.left <= text.x - text.content_width and text.x <= panel.right
    assert close(ui.pixel(panel.left + 3, panel.top - 3), theme.PANEL)
    bob_live.close()
    ui.key("Escape")  # leaves the table: back in the lobby
    pump_until(ui, lambda: isinstance(ui.view, LobbyView))
    # a third player's window: the rated leaderboard (R in the lobby) lists both
    carol = account(server, "carol")
    ui.app.online = OnlineAccount(server.url.removeprefix("http://"), carol.name, carol.token)
    lobby = open_lobby(ui)
    choose_play_rules(ui, lobby)
    ui.key("r")
    board = ui.view
    assert isinstance(board, RatedBoardView)
    pump_until(ui, lambda: board.pending is None and board.board is not None)
    ui.pump(2)
    entries = {e.name: e.rating for e in board.board.entries}
    seat_of = {name: i for i, name in enumerate(table["seats"])}
    for name in (me.name, bob.name):
        assert abs(entries[name].rating - changes[seat_of[name]].after) < 1e-9
        assert entries[name].games == 1 and entries[name].provisional
    names = [texts[1].text for _rect, texts in board.rows]
    assert me.name in names and bob.name in names
    first = board.rows[0][0]
    assert close(ui.pixel(first.left + 2, first.center_y), theme.PANEL)
    ui.key("Escape")
    assert isinstance(ui.view, LobbyView)


def test_a_table_opened_rated_is_listed_as_rated(ui, server):
    sign_in_window(ui, server, "dan")
    lobby = open_lobby(ui)
    ui.key("n")
    form = ui.view
    assert isinstance(form, NewTableView)
    for _ in range(len(form.rulesets)):
        if form.rulesets[form.ruleset][0] == "eu-classic":
            break
        ui.key("Right")
    ui.key("Down", "Down", "Down", "Right")  # the Ratings row: Rated
    assert form.rated and "Rated" in form.texts[7].text
    ui.key("Return")
    pump_until(ui, lambda: isinstance(ui.view, WaitingView))
    waiting = ui.view
    table_id = waiting.session.table_id
    pump_until(ui, lambda: waiting.session.ratings)
    assert "Rated table: its rounds change your rating." in waiting.body.text
    assert Client(server.url).table(table_id)["rated"] is True
    waiting.session.close()
    lobby = open_lobby(ui)
    listed = next(t for t in lobby.tables if t.id == table_id)
    assert listed.rated
    row = next(texts for (_rect, texts), t in zip(lobby.rows, lobby.tables, strict=False)
           if t.id == table_id)
    assert row[1].text.endswith("rated")


def test_two_windows_press_play_now_and_land_at_one_rated_table(ui, server, tmp_path,
                                                                monkeypatch):
    """A second window in a process of its own (real keys by xdotool) and this one
    both press P in their lobbies: the server seats them at one rated table, and
    the other window's move there shows on this window's band."""


    bob = account(server, "bob")
    me = sign_in_window(ui, server, "ann")
    # the other window's home: Bob signed in, every how-to-play page seen
    monkeypatch.setenv("BLOCKYARD_HOME", str(tmp_path))
    OnlineAccount(server.url.removeprefix("http://"), bob.name, bob.token).save()
    settings = Settings()
    settings.help_seen = [info.id for info in blockyard.list_rulesets()]
    settings.save()
    monkeypatch.undo()
    ui.app.show_launcher()
    launcher = ui.view
    assert isinstance(launcher, LauncherView)
    online = next(i for i, e in enumerate(launcher.entries) if e.family == "online")
    process = start_process(tmp_path)
    try:
        wid = process.shown(ui.wid)
        # the other window: the launcher's online row opens its lobby, P enters the pool
        process.keys(wid, "Home", *["Down"] * online, "Return")
        process.keys(wid, "p")
        pump_until(ui, lambda: bob.pairing() is not None)
        # this window: P in its lobby
        lobby = open_lobby(ui)
        choose_play_rules(ui, lobby)
        ui.key("p")
        pump_until(ui, lambda: isinstance(ui.view, LiveDuelView))
        view = ui.view
        table_id = view.table.table_id
        state = bob.pairing()
        assert state is not None and state.table == table_id
        assert view.table.rated and sorted(s or "" for s in view.table.seats) == sorted(
            [me.name, bob.name])
        # the other window is at that table: its first piece placed by its keys
        theirs = 1 - view.table.me
        process.keys(wid, "1", "Return")
        pump_until(ui, lambda: len(view.table.games[theirs].log) == 2)
        assert view.band_texts[0].text.startswith(f"{bob.name} (0.0?): ")
    finally:
        process.kill()
        process.wait()


def test_play_nows_rules_are_the_lobbys_own_and_kept_after_a_round(ui, server):
    # found playing (issue 51): Play now followed the launcher's last row (it offered
    # a rated Daily Challenge duel) and the ←/→ choice was lost after a round
    sign_in_window(ui, server, "ann")
    ui.app.settings.last_ruleset = "eu-daily"  # the launcher's last row
    lobby = open_lobby(ui)
    assert lobby.play_ruleset[0] == "eu-classic"
    ui.pump(1)
    assert ruleset_title("eu-classic") in lobby.play_button.label
    ui.key("Right", "Right")
    chosen = lobby.play_ruleset
    assert chosen[0] != "eu-classic"
    # the lobby again (as after a round: the table's Esc opens a new one)
    ui.app.show_launcher()
    again = open_lobby(ui)
    assert again is not lobby and again.play_ruleset == chosen
    ui.pump(1)
    assert chosen[1] in again.play_button.label
    # and at the next start of the window
    assert Settings.load().play_ruleset == chosen[0]
