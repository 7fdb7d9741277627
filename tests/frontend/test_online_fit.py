"""The online screens in every language at the three reference sizes: every
button's label fits it, nothing leaves the window."""

from __future__ import annotations

import pytest
from online_support import LANGUAGES, SIZES, QuietLive, check_buttons, check_text, free_port

import blockyard
from blockyard import online
from blockyard.frontend import i18n
from blockyard.frontend.online.account import OnlineAccount
from blockyard.frontend.online.errors import kind_text, mismatch_text
from blockyard.frontend.online.leaderboard_view import LeaderboardView, SubmitView
from blockyard.frontend.online.lobby_view import LobbyView, NewTableView
from blockyard.frontend.online.playnow_view import PlayNowView
from blockyard.frontend.online.ratings_view import RatedBoardView
from blockyard.frontend.online.table_view import (
    LiveDuelView,
    LiveFallingView,
    WaitingView,
    differs_text,
    divergence_text,
    live_view,
)
from blockyard.online import (
    Entry,
    Leaderboard,
    PlayerRating,
    RatedEntry,
    RatingBoard,
    Submission,
    TableInfo,
)
from blockyard.provenance import Mismatch
from blockyard.tablesession import TableSession


def check_panel(panel, width, height, code):
    """The result panel: inside the window, every row, the title, the note and the
    buttons inside the panel, nothing cut, and no more than its content's height."""
    r = panel.rect
    assert r.left >= 0 and r.right <= width and r.bottom >= 0 and r.top <= height, code
    for text in [panel.title, panel.note, *[t for row in panel.rows for t in row],
                 *panel.changes]:
        left = text.x - (text.content_width / 2 if text.anchor_x == "center" else
                         text.content_width if text.anchor_x == "right" else 0)
        assert r.left - 1 <= left and left + text.content_width <= r.right + 1, (code,
                                                                                  text.text)
        assert r.bottom <= text.y <= r.top, (code, text.text)
        # at whole pixels: at a half pixel the glyphs' top row was lost (the play-test)
        assert float(text.x).is_integer() and float(text.y).is_integer(), (code, text.text)
    check_buttons(panel.buttons, width, height, code)
    for button in panel.buttons:
        assert r.left <= button.rect.left and button.rect.right <= r.right + 1, code
        assert r.bottom <= button.rect.bottom and button.rect.top <= r.top, code
    lowest_row = min(row[1].y - row[1].content_height / 2 for row in panel.rows)
    assert lowest_row > max(b.rect.top for b in panel.buttons), code
    # sized to its content: no tall empty space (title, rows, note, buttons, margins)
    content = panel.title.content_height + sum(row[1].content_height + 12
                                               for row in panel.rows) \
        + panel.note.content_height + max(b.rect.height for b in panel.buttons)
    assert r.height <= content + 120, (code, r.height, content)


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_online_screens_fit(ui, size, code):
    ui.resize(*size)
    width, height = size
    account = OnlineAccount(f"127.0.0.1:{free_port()}", "someone_with_a_long_name", "t")
    tables = [TableInfo(1, "eu-classic", ("someone_with_a_long_name", None), "waiting"),
              TableInfo(2, "eu-zen", ("a", "b", "c", None), "playing")]
    i18n.set_language(code)
    lobby = LobbyView(account, lambda *a: None, lambda: None, lambda: None)
    ui.window.show_view(lobby)
    lobby.tables = tables
    lobby._layout()
    lobby.say("No open tables: start one with New table.")
    check_buttons(lobby.buttons, width, height, code)
    for rect, texts in lobby.rows:
        assert rect.left >= 0 and rect.right <= width
        for text in texts:
            check_text(text, width, code)
    check_text(lobby.title, width, code)
    check_text(lobby.hint, width, code)
    assert lobby.rows[-1][0].bottom >= lobby.buttons[0].rect.top
    form = NewTableView(account, lambda *a: None, lambda: None)
    ui.window.show_view(form)
    check_buttons([form.create_button, form.cancel_button], width, height, code)
    for text in form.texts:
        check_text(text, width, code)
    assert form.rows[-1].bottom >= form.create_button.rect.top
    table = TableSession(QuietLive(), "someone_with_a_long_name", "12-abcdef")
    table.take({"type": "table", "id": 12, "ruleset_id": "eu-classic", "seed": 5,
                 "seats": ["someone_with_a_long_name", None, None],
                 "invited": ["another_long_name_here"],
                 "status": "waiting", "round": 1})
    waiting = WaitingView(table, lambda: None, lambda: None)
    ui.window.show_view(waiting)
    check_buttons(waiting.buttons, width, height, code)
    check_text(waiting.title, width, code)
    check_text(waiting.rules, width, code)
    check_text(waiting.hint, width, code)
    assert waiting.rules.text  # which game the table plays
    assert waiting.hint.y >= 0 and waiting.hint.y + waiting.hint.content_height \
        <= min(b.rect.bottom for b in waiting.buttons if b.visible)
    assert waiting.rules.y - waiting.rules.content_height / 2 \
        >= waiting.body.y - 1  # above the seats
    assert waiting.body.content_width <= width and waiting.body.font_size >= 15
    assert len(waiting.body.text.splitlines()) == 4  # the code and three seats
    table.take({"type": "table", "id": 12, "ruleset_id": "eu-classic", "seed": 5,
                 "seats": ["someone_with_a_long_name", "another_long_name_here"],
                 "status": "waiting", "round": 1})
    duel = LiveDuelView(ui.app.session(), table, lambda: None)
    ui.window.show_view(duel)
    table.take({"type": "connection", "state": "lost", "reason": "x"})
    table.take({"type": "result", "scores": [10, 20], "winner": 1})
    duel._sync_table()
    duel.place_sections(width, height)
    ui.pump(1)
    check_buttons([duel.rematch_button, duel.leave_button], width, height, code)
    check_text(duel.banner, width, code)
    for label in duel.band_texts:
        check_text(label, width, code)
    for rect in duel.band_rects:  # the opponents' boards stay below the tray
        assert rect.bottom >= 0 and rect.top <= duel.reserve_bottom
    check_panel(duel.panel, width, height, code)
    # the table's menu, and its question before leaving
    menu = duel.dialog.pause
    menu.show()
    for buttons in (menu.main, menu.confirm):
        menu.buttons = buttons
        menu._place()
        check_buttons(buttons, width, height, code)
        check_text(menu.title, width, code)
        assert menu.note.content_width <= width
        assert menu.note.y - menu.note.content_height >= buttons[0].rect.top - 1
        assert menu.title.y - menu.title.content_height / 2 >= menu.note.y - 1
        # the note stands on the card, and the card in the window
        card, note = menu.card, menu.note
        assert card.left <= note.x - note.content_width / 2
        assert note.x + note.content_width / 2 <= card.right
        assert card.top >= note.y and card.left >= 0 and card.right <= width
        assert card.top <= height and card.bottom >= 0  # the whole card in the window
        if buttons is menu.main:
            # a long name is cut on the mute button, which stays readable
            assert menu.mute_button.label and menu.mute_button.text.font_size >= 11, code
            shot(ui, f"table-menu-{code}-{width}x{height}")
    menu.close()
    # a rematch another player asked for: the question in the same panel
    duel.asked_by = "another_long_name_here"
    duel._fill_panel()
    check_panel(duel.panel, width, height, code)
    assert [b.label for b in duel.panel.buttons] == [duel.play_button.label,
                                                      duel.leave_button.label]
    # an opponent's board watched full-size, and a live Sudoku Bloxx table
    watched = LiveDuelView(ui.app.session(), table, lambda: None, shown=1)
    ui.window.show_view(watched)
    watched.place_sections(width, height)
    ui.pump(1)
    assert watched.layout.board.left >= 0 and watched.layout.board.right <= width
    assert watched.layout.board.bottom >= watched.reserve_bottom
    check_text(watched.message_line.text, width, code)
    falling_table = TableSession(QuietLive(), "someone_with_a_long_name", "")
    falling_table.take({"type": "table", "id": 13, "ruleset_id": "sudoku-bloxx",
                         "seed": 5, "seats": ["someone_with_a_long_name",
                                              "another_long_name_here", "third_one"],
                         "status": "playing", "round": 1})
    falling = live_view(ui.app.session(), falling_table, lambda: None)
    assert isinstance(falling, LiveFallingView)
    ui.window.show_view(falling)
    falling.place_sections(width, height)
    ui.pump(1)
    assert falling.board.left >= 0 and falling.board.right <= width
    assert falling.board.bottom >= falling.reserve_bottom
    for label in falling.band_texts:
        check_text(label, width, code)
    check_text(falling.owner_text, width, code)
    watched_falling = live_view(ui.app.session(), falling_table, lambda: None, shown=1)
    ui.window.show_view(watched_falling)
    assert watched_falling.owner_text.text.startswith(
        watched_falling.caption())  # whose board, above its score
    check_text(watched_falling.owner_text, width, code)
    assert watched_falling.owner_text.font_size >= 11
    # above the score's digits (their ink: a line box of some fonts is much taller)
    score = watched_falling.score_text
    assert watched_falling.owner_text.y - watched_falling.owner_text.content_height / 2 \
        >= score.y + score.font_size * 0.5
    ui.window.show_view(falling)
    for rect in falling.band_rects:
        assert rect.left >= 0 and rect.right <= width and rect.top <= falling.reserve_bottom
    falling_table.take({"type": "result", "scores": [10, 20, 5], "winner": 1})
    falling._sync_table()
    falling.place_sections(width, height)
    check_buttons([falling.rematch_button, falling.leave_button], width, height, code)
    check_panel(falling.panel, width, height, code)
    falling_table.clock = (12.0, 0.0)  # the new round's clock in the question
    falling.asked_by = "another_long_name_here"
    falling._fill_panel()
    check_panel(falling.panel, width, height, code)
    assert len(falling.panel.note.text.splitlines()) >= 2
    boards = LeaderboardView(account, "eu-daily", ["eu-daily", "eu-classic"],
                             lambda *a: None, lambda: None)
    ui.window.show_view(boards)
    entries = tuple(Entry(i + 1, f"player_number_{i:03d}", 100000 - i, i)
                    for i in range(40))
    boards.board = Leaderboard("eu-daily", "2026-12-01", entries)
    boards.lines = [*entries[:20], None, *entries[28:33]]
    boards._layout()
    check_buttons([boards.watch_button, boards.back_button], width, height, code)
    check_text(boards.title, width, code)
    check_text(boards.subtitle, width, code)
    check_text(boards.hint, width, code)
    for rect, texts in boards.rows:
        assert rect.bottom >= boards.watch_button.rect.top
        for text in texts:
            check_text(text, width, code)
    game = blockyard.new_game("eu-daily", seed=1)
    game.end_round()
    submit = SubmitView(account, game, lambda *a: None, lambda: None)
    ui.window.show_view(submit)
    submit.pending = None
    submit.message = ""
    # practice; and a counted game with its rank (three lines); and sent twice
    for counted, rank in ((False, None), (True, 12345)):
        submit.submission = Submission(1, "eu-daily", 12345, counted)
        submit.rank = rank
        submit._layout()
        check_buttons(submit.buttons, width, height, code)
        check_text(submit.title, width, code)
        assert submit.body.content_width <= width
        assert submit.body.y - submit.body.content_height >= submit.buttons[0].rect.top
    submit.submission = None
    submit.say(kind_text(online.SUBMITTED_ALREADY), bad=True)
    assert submit.body.content_width <= width
    assert submit.body.y - submit.body.content_height >= submit.buttons[0].rect.top
    i18n.set_language("en")


NEWCOMER = {"rating": 0.0, "mu": 25.0, "sigma": 25 / 3, "games": 0, "provisional": True}
LONG = "someone_with_a_long_name"
OTHER = "another_long_name_here"


def shot(ui, name: str) -> None:
    """Keep the window's picture in $BLOCKYARD_SHOTS (a folder), when it is set."""
    import os

    folder = os.environ.get("BLOCKYARD_SHOTS")
    if folder:
        ui.pump(1)
        ui.screenshot().save(os.path.join(folder, f"{name}.png"))


@pytest.mark.parametrize("code", LANGUAGES)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_play_now_and_ratings_fit(ui, size, code):
    ui.resize(*size)
    width, height = size
    tag = f"{code}-{width}x{height}"
    account = OnlineAccount(f"127.0.0.1:{free_port()}", LONG, "t")
    rating = PlayerRating(-1234.5, 25.0, 8.3, 3, True)
    i18n.set_language(code)
    # the lobby: Play now's button with the rules, the tables rated or friendly
    lobby = LobbyView(account, lambda *a: None, lambda: None, lambda: None,
                      leaderboards=lambda: None, play_now=lambda _rid: None,
                      rated_board=lambda _rid: None)
    ui.window.show_view(lobby)
    lobby.tables = [TableInfo(1, "eu-classic", (LONG, OTHER), "playing", True,
                              (rating, rating)),
                    TableInfo(2, "eu-zen", ("a", None), "waiting", False, (rating, None))]
    lobby._layout()
    assert lobby.play_button.visible and lobby.rated_button.visible
    check_buttons(lobby.buttons, width, height, code)
    for _rect, texts in lobby.rows:
        for text in texts:
            check_text(text, width, code)
    check_text(lobby.hint, width, code)
    assert lobby.rows[-1][0].bottom >= max(b.rect.top for b in lobby.buttons if b.visible)
    shot(ui, f"lobby-{tag}")
    # the New table form with its Ratings row
    form = NewTableView(account, lambda *a: None, lambda: None)
    form.rated = True
    ui.window.show_view(form)
    form._layout()
    check_buttons([form.create_button, form.cancel_button], width, height, code)
    for text in form.texts:
        check_text(text, width, code)
    assert form.rows[-1].bottom >= form.create_button.rect.top
    shot(ui, f"form-{tag}")
    # Play now's waiting screen (no server: it says so in its message line)
    waiting = PlayNowView(account, "eu-classic", "Classic", lambda *a: None, lambda: None)
    ui.window.show_view(waiting)
    waiting.waiting, waiting.waited = True, 75.0
    waiting.say("The server could not be reached: check the address.")
    waiting._layout()
    check_buttons([waiting.leave_button], width, height, code)
    for text in (waiting.title, waiting.rules_text, waiting.body, waiting.hint):
        check_text(text, width, code)
    assert waiting.body.y - waiting.body.content_height > waiting.message_text.y
    assert waiting.hint.y + waiting.hint.content_height <= waiting.leave_button.rect.bottom
    shot(ui, f"playnow-{tag}")
    # the rated leaderboard
    board = RatedBoardView(account, "eu-classic", ["eu-classic", "eu-zen"], lambda: None)
    ui.window.show_view(board)
    board.pending = None
    board.board = RatingBoard("eu-classic", 40, 0, tuple(
        RatedEntry(i + 1, LONG if i == 3 else f"player{i}",
                   PlayerRating(30.5 - i, 35.0, 1.5, 120 - i, i > 15)) for i in range(20)), 10)
    board._layout()
    check_buttons([board.back_button], width, height, code)
    for text in (board.title, board.subtitle, board.note, board.hint):
        check_text(text, width, code)
    for rect, texts in board.rows:
        assert rect.left >= 0 and rect.right <= width and rect.bottom > board.back_button.rect.top
        for text in texts:
            check_text(text, width, code)
        _rank, name, shown, games = texts
        assert name.x + name.content_width <= shown.x - shown.content_width + 1, (code, name.text)
        assert shown.x <= games.x - games.content_width, (code, shown.text)
    shot(ui, f"rated-{tag}")
    # a rated table: the seats' ratings in the band, the result with both changes
    table = TableSession(QuietLive(), LONG, "")
    table.take({"type": "table", "id": 12, "ruleset_id": "eu-classic", "seed": 5,
                "seats": [LONG, OTHER], "status": "playing", "round": 1, "rated": True,
                "ratings": [NEWCOMER, NEWCOMER]})
    duel = LiveDuelView(ui.app.session(), table, lambda: None)
    ui.window.show_view(duel)
    table.take({"type": "result", "scores": [10, 20], "winner": 1,
                "ratings": [{"before": 0.0, "after": -1234.5, "change": -1234.5,
                             "provisional": True},
                            {"before": 0.0, "after": 1234.5, "change": 1234.5,
                             "provisional": True}]})
    duel._sync_table()
    duel.place_sections(width, height)
    ui.pump(1)
    assert len(duel.panel.changes) == 2
    for label in duel.band_texts:
        check_text(label, width, code)
    check_panel(duel.panel, width, height, code)
    shot(ui, f"result-{tag}")
    i18n.set_language("en")


def test_the_small_board_follows_the_game(ui):
    game = blockyard.new_game("eu-classic", seed=3)
    table = TableSession(QuietLive(), "me", "")
    table.take({"type": "table", "id": 1, "ruleset_id": "eu-classic", "seed": 3,
                 "seats": ["me", "you"], "status": "playing", "round": 1})
    move = ["place", *game.legal_moves()[0]]
    game.apply(move)
    table.take({"type": "move", "seat": 1, "action": move, "score": game.score,
                 "over": False})
    assert table.games[1].grid.bits == game.grid.bits and table.scores == [0, game.score]
    assert table.games[0].log == blockyard.new_game("eu-classic", seed=3).log
    # a move the window cannot apply still shows the server's score
    table.take({"type": "move", "seat": 1, "action": ["place", 0, 99, 99], "score": 77,
                 "over": True})
    assert table.scores[1] == 77 and table.over == [False, True]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_a_difference_with_the_servers_game_fits_the_banner(ui, size):
    """The longest banner a table says: its game here gone another way than the
    server's, and this installation's plugin version against the server's."""
    ui.resize(*size)
    width, height = size
    for code in LANGUAGES:
        i18n.set_language(code)
        table = TableSession(QuietLive(), "someone_with_a_long_name", "12-abcdef")
        table.take({"type": "table", "id": 12, "ruleset_id": "eu-classic", "seed": 5,
                     "seats": ["someone_with_a_long_name", "another_long_name_here"],
                     "status": "playing", "round": 1})
        duel = LiveDuelView(ui.app.session(), table, lambda: None)
        ui.window.show_view(duel)
        table.take({"type": "move", "seat": 1, "action": ["place", 0, 99, 99], "score": 7,
                     "over": False})  # the server accepted what this window cannot play
        table.differs = Mismatch("plugin", "blockyard-diagonals-extended", "10.20.30",
                                 "10.20.31")
        assert table.divergence is not None and table.divergence.seat == 1
        assert "another_long_name_here" in divergence_text(table)
        assert differs_text(table) == mismatch_text(table.differs, game=False)
        duel._sync_table()
        ui.pump(1)
        assert duel.banner.text == f"{divergence_text(table)} {differs_text(table)}"
        check_text(duel.banner, width, code)
        room = duel.banner_room(width)
        assert 0 < room < height / 3, (code, room)
        # the board and the HUD are laid out below the banner, the band above the bottom
        assert duel.layout.board.top <= height - room + 1, code
        assert duel.layout.board.bottom >= duel.reserve_bottom - 1, code


def test_a_table_of_rules_not_installed_here_says_so(ui):
    table = TableSession(QuietLive(), "me", "3-abc")
    table.take({"type": "table", "id": 3, "ruleset_id": "not-installed-here", "seed": 1,
                 "seats": ["me", "you"], "status": "waiting", "round": 1})
    assert table.games == []
    assert table.unplayable  # why, in the loader's words
    waiting = WaitingView(table, lambda: None, lambda: None)
    ui.window.show_view(waiting)
    waiting._refresh()
    assert waiting.problem.startswith("This table's rules cannot be played here: ")
    assert table.unplayable in waiting.problem and waiting.problem in waiting.body.text


def test_a_falling_table_opens_its_live_screen(ui):
    opened = []

    def open_duel():
        opened.append(live_view(ui.app.session(), table, lambda: None))

    class Playing(QuietLive):
        def __init__(self):
            self.sent = False

        def poll(self):
            if self.sent:
                return []
            self.sent = True
            return [{"type": "table", "id": 4, "ruleset_id": "sudoku-bloxx", "seed": 1,
                     "seats": ["me", "you"], "status": "playing", "round": 1}]

    table = TableSession(Playing(), "me", "")
    waiting = WaitingView(table, open_duel, lambda: None)
    ui.window.show_view(waiting)
    ui.pump(2)
    assert len(opened) == 1 and isinstance(opened[0], LiveFallingView)
    assert opened[0].plays and opened[0].game is table.games[0]
    with pytest.raises(ValueError, match="This kind of game cannot be played at live"):
        LiveDuelView(ui.app.session(), table, lambda: None)
