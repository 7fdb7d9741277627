"""The web page's engine (blockyard.frontend.webbridge): JSON requests answered from
the engine, in CPython as the page's worker answers them in Pyodide."""

from __future__ import annotations

import json
from typing import Any

import pytest

import blockyard
from blockyard.frontend import webbridge
from blockyard.version import __version__


def ask(bridge: webbridge.Bridge, **request: Any) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(bridge.handle(json.dumps(request)))
    return answer


def ok(bridge: webbridge.Bridge, **request: Any) -> dict[str, Any]:
    answer = ask(bridge, **request)
    assert answer["ok"] is True, answer
    return answer


def test_the_launcher_lists_every_ruleset_in_four_languages() -> None:
    bridge = webbridge.Bridge()
    infos = {info.id: info for info in blockyard.list_rulesets()}
    for language in ("en", "de", "es", "ne"):
        listed = ok(bridge, op="rulesets", language=language)["rulesets"]
        assert {r["id"] for r in listed} == set(infos)
        for view in listed:
            ruleset = blockyard.load_ruleset(infos[view["id"]].path)
            assert view["name"] == ruleset.name_in(language)
            assert view["description"] == ruleset.description_in(language)
            assert view["family"] == ruleset.family
            assert view["rules"] == ruleset.help.page_in(language)
            assert view["playable"] is True
    assert any(r["mode"] == "falling" for r in listed)
    german = {r["id"]: r for r in ok(bridge, op="rulesets", language="de")["rulesets"]}
    english = {r["id"]: r for r in ok(bridge, op="rulesets", language="en")["rulesets"]}
    assert any(german[i]["name"] != english[i]["name"] for i in german)
    assert german["sudoku-bloxx"]["rules"].startswith("Ziffern fallen einzeln")
    assert ok(bridge, op="rulesets", language="de")["words"]["how_to_play"] == "Spielanleitung"


def test_a_new_game_is_the_engines_game() -> None:
    bridge = webbridge.Bridge()
    view = ok(bridge, op="new", ruleset="eu-classic", seed=7, language="en")["game"]
    game = blockyard.new_game("eu-classic", seed=7)
    assert (view["rows"], view["cols"], view["seed"]) == (game.rows, game.cols, 7)
    assert view["board"] == [list(row) for row in game.board]
    assert [slot["piece"] for slot in view["tray"]] == [p.id for p in game.tray if p]
    for slot, piece in zip(view["tray"], game.tray, strict=True):
        assert piece is not None
        assert sorted(map(tuple, slot["cells"])) == sorted(piece.cells)
    assert view["score"] == 0 and view["over"] is False and view["summary"] is None
    assert view["version"] == __version__
    assert [a["name"] for a in view["actions"]] == [a.name for a in game.actions()]


def test_preview_is_game_preview_and_changes_nothing() -> None:
    board = """
        ##########
        #########.
        ..........
        ..........
        ..........
        ..........
        ..........
        ..........
        ..........
        ..........
    """
    bridge = webbridge.Bridge()
    game = blockyard.new_game("eu-classic", seed=2, board=board, tray=["#", "##", "#"])
    ok(bridge, op="restore", snapshot=json.dumps(game.snapshot()), language="en")
    before = ok(bridge, op="snapshot")["snapshot"]
    answer = ok(bridge, op="preview", slot=0, row=1, col=9)["preview"]
    expected = game.preview(0, 1, 9)
    assert answer["fits"] is True
    assert answer["points"] == expected.points > 0
    assert answer["lines"] == expected.lines == 2
    assert answer["points_text"] == f"+{expected.points:,}"
    assert {tuple(c) for c in answer["cleared"]} >= set(expected.cleared_cells)
    assert answer["cells"] == [[1, 9]]
    taken = ok(bridge, op="preview", slot=1, row=0, col=0)["preview"]
    assert taken["fits"] is False and taken["points"] == 0 and taken["cleared"] == []
    assert taken["cells"] == [[0, 0], [0, 1]]
    assert ok(bridge, op="snapshot")["snapshot"] == before


def test_place_plays_the_engines_move() -> None:
    bridge = webbridge.Bridge()
    ok(bridge, op="new", ruleset="eu-classic", seed=11, language="en")
    game = blockyard.new_game("eu-classic", seed=11)
    for _ in range(6):
        slot, row, col = game.legal_moves()[0]
        result = game.place(slot, row, col)
        answer = ok(bridge, op="place", slot=slot, row=row, col=col)
        assert answer["move"]["points"] == result.points
        assert answer["game"]["score"] == game.score
        assert answer["game"]["board"] == [list(r) for r in game.board]
        assert [s["piece"] for s in answer["game"]["tray"]] == \
            [p.id if p else "" for p in game.tray]
    assert json.loads(ok(bridge, op="snapshot")["snapshot"]) == game.snapshot()


def test_a_move_that_does_not_fit_is_refused_and_changes_nothing() -> None:
    bridge = webbridge.Bridge()
    ok(bridge, op="new", ruleset="eu-classic", seed=3, language="en")
    before = ok(bridge, op="snapshot")["snapshot"]
    answer = ask(bridge, op="place", slot=0, row=99, col=0)
    assert answer["ok"] is False and answer["error"]
    for bad, named in (({"slot": "0", "row": 0, "col": 0}, "'slot'"),
                       ({"slot": 0, "row": 0.5, "col": 0}, "'row'"),
                       ({"slot": 0, "row": 0}, "'col'")):
        answer = ask(bridge, op="place", **bad)
        assert answer["ok"] is False and named in answer["error"]
    assert ask(bridge, op="preview", slot=5, row=0, col=0)["error"] == \
        "no tray slot 5; the slots are 0 to 2"
    assert ok(bridge, op="snapshot")["snapshot"] == before


@pytest.mark.parametrize("request_text, named", [
    ("not json", "not JSON"),
    ("[1, 2]", "JSON object"),
    ('{"op": "fly"}', "unknown op 'fly'"),
    ('{"op": "place", "slot": 0, "row": 0, "col": 0}', "no game to place"),
    ('{"op": "new", "ruleset": "no-such", "seed": 1}', "no ruleset 'no-such'"),
    ('{"op": "new", "ruleset": "eu-classic", "seed": "x"}', "'seed'"),
    ('{"op": "rulesets", "language": "xx"}', "no such language 'xx'"),
    ('{"op": "restore", "snapshot": {"kind": "tray"}}', "JSON text of a snapshot"),
    ('{"op": "restore", "snapshot": "{"}', "the snapshot is not JSON"),
    ('{"op": "restore", "snapshot": "{\\"kind\\": \\"tray\\"}"}', "snapshot"),
])
def test_bad_requests_say_what_was_wrong(request_text: str, named: str) -> None:
    answer = json.loads(webbridge.Bridge().handle(request_text))
    assert answer["ok"] is False
    assert named in answer["error"]


def test_actions_are_the_rulesets_and_act_performs_them() -> None:
    bridge = webbridge.Bridge()
    view = ok(bridge, op="new", ruleset="tiered", seed=5, language="en")["game"]
    game = blockyard.new_game("tiered", seed=5)
    swap = next(a for a in view["actions"] if a["name"] == "swap")
    spec = next(a for a in game.actions() if a.name == "swap")
    assert swap["label"] == f"{spec.label} ({spec.uses_left})"
    game.act("swap")
    after = ok(bridge, op="act", name="swap", args=[])["game"]
    assert [s["piece"] for s in after["tray"]] == [p.id if p else "" for p in game.tray]
    german = ok(bridge, op="view", language="de")["game"]
    assert german["words"]["play_again"] == "Nochmal"
    refused = ask(bridge, op="act", name="fly", args=[])
    assert refused["ok"] is False and "no action 'fly'" in refused["error"]
    assert ask(bridge, op="act", name="swap", args=["x"])["error"] == \
        "act's 'args' is a list of integers"


def test_the_summary_names_the_pieces_that_did_not_fit_and_a_tip() -> None:
    board = "\n".join(["#.#.#.#.#."] * 10)
    game = blockyard.new_game("eu-hardcore", seed=4, board=board,
                              tray=["##\n##", "###", "#####"])
    bridge = webbridge.Bridge()
    view = ok(bridge, op="restore", snapshot=json.dumps(game.snapshot()), language="en")["game"]
    assert view["over"] is True
    summary = game.summary()
    assert view["summary"]["score"] == summary.points
    assert [p["piece"] for p in view["summary"]["failed"]] == \
        [p.id for p in summary.failed_pieces]
    assert summary.tip
    assert view["summary"]["tip"] == f"Tip: {summary.tip}"
    assert view["summary"]["failed_heading"] == "Did not fit:"
    assert view["summary"]["texts"][:2] == ["No piece fits", f"{summary.points} points"]
    german = ok(bridge, op="view", language="de")["game"]["summary"]
    assert german["failed_heading"] == "Passte nicht:"


def test_the_bridge_imports_nothing_of_the_window_or_the_server() -> None:
    import subprocess
    import sys

    code = ("import sys, blockyard.frontend.webbridge as b; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('arcade', 'pyglet', 'PIL', 'fastapi', 'sqlalchemy', 'httpx', 'websockets') "
            "or m.startswith('blockyard.server')))")
    # pyglet is the window's: the browser has none, so the test runs as there
    shown = subprocess.run([sys.executable, "-c", "import sys; sys.platform = 'emscripten'; "
                            + code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_a_snapshot_travels_as_text_whole() -> None:
    """The board's bits pass 2**53 on a 10x10 board: JSON text keeps them whole."""
    game = blockyard.new_game("eu-classic", seed=8)
    while game.moves < 3:
        game.place(*game.legal_moves()[-1])
    bridge = webbridge.Bridge()
    view = ok(bridge, op="restore", snapshot=json.dumps(game.snapshot()), language="en")["game"]
    assert view["score"] == game.score and view["moves"] == 3
    text = ok(bridge, op="snapshot")["snapshot"]
    assert isinstance(text, str) and json.loads(text) == game.snapshot()


def test_tick_runs_the_clock_of_a_timed_ruleset_as_the_engine() -> None:
    bridge = webbridge.Bridge()
    view = ok(bridge, op="new", ruleset="eu-timed", seed=4, language="en")["game"]
    game = blockyard.new_game("eu-timed", seed=4)
    assert game.time_left is not None
    assert view["time_left"] == game.time_left
    assert view["clock_text"] == f"{int(game.time_left) // 60}:{int(game.time_left) % 60:02d}"
    before = ok(bridge, op="snapshot")["snapshot"]
    for bad, said in (("1", "'seconds' must be a number"), (True, "'seconds' must be a number"),
                      (-1, "tick: expected a number of seconds")):
        answer = ask(bridge, op="tick", seconds=bad)
        assert answer["ok"] is False and said in answer["error"]
    assert ok(bridge, op="snapshot")["snapshot"] == before
    view = ok(bridge, op="tick", seconds=1.5)["game"]
    game.tick(1.5)
    assert view["time_left"] == game.time_left
    view = ok(bridge, op="tick", seconds=game.time_left)["game"]
    game.tick(game.time_left)
    assert view["over"] is True and view["over_reason"] == game.over_reason == "time"
    assert view["summary"]["texts"][0] == "Time is up"
    assert json.loads(ok(bridge, op="snapshot")["snapshot"]) == game.snapshot()
    untimed = ok(bridge, op="new", ruleset="eu-classic", seed=1)["game"]
    assert untimed["time_left"] is None and untimed["clock_text"] == ""


def stones(game: blockyard.FallingGame) -> list[list[str]]:
    return [["" if cell is None else cell.char for cell in row] for row in game.board]


def test_a_falling_game_is_the_engines() -> None:
    bridge = webbridge.Bridge()
    view = ok(bridge, op="new", ruleset="sudoku-bloxx", seed=6, language="en")["game"]
    game = blockyard.new_game("sudoku-bloxx", seed=6)
    assert isinstance(game, blockyard.FallingGame) and game.current is not None
    assert view["kind"] == "falling" and (view["rows"], view["cols"]) == (9, 9)
    assert view["current"]["col"] == game.current.col
    assert view["current"]["stone"]["text"] == game.current.stone.char
    assert [s["text"] for s in view["upcoming"]] == [s.char for s in game.upcoming]
    for request, play in ((("move", {"dx": -1}), lambda: game.move(-1)),
                          (("move", {"dx": -1}), lambda: game.move(-1)),
                          (("hard_drop", {}), game.hard_drop),
                          (("move", {"dx": 1}), lambda: game.move(1)),
                          (("soft_drop", {"on": True}), lambda: game.soft_drop(True)),
                          (("tick", {"seconds": 0.5}), lambda: game.tick(0.5)),
                          (("hard_drop", {}), game.hard_drop)):
        op, fields = request
        view = ok(bridge, op=op, **fields)["game"]
        play()
        assert [["" if c is None else c["text"] for c in row] for row in view["board"]] == \
            stones(game)
        assert view["score"] == game.score and view["errors"] == game.errors
    assert json.loads(ok(bridge, op="snapshot")["snapshot"]) == game.snapshot()
    before = ok(bridge, op="snapshot")["snapshot"]
    for bad, said in (({"op": "move", "dx": 2}, "'dx' must be -1 or 1"),
                      ({"op": "move", "dx": True}, "'dx' must be -1 or 1"),
                      ({"op": "soft_drop", "on": 1}, "'on' must be true or false"),
                      ({"op": "place", "slot": 0, "row": 0, "col": 0}, "for tray games"),
                      ({"op": "preview", "slot": 0, "row": 0, "col": 0}, "for tray games")):
        answer = ask(bridge, **bad)
        assert answer["ok"] is False and said in answer["error"]
    assert ok(bridge, op="snapshot")["snapshot"] == before
    tray = webbridge.Bridge()
    ok(tray, op="new", ruleset="eu-classic", seed=1, language="en")
    assert "for falling games" in ask(tray, op="hard_drop")["error"]


def test_a_falling_game_ends_with_its_summary() -> None:
    bridge = webbridge.Bridge()
    ok(bridge, op="new", ruleset="sudoku-bloxx", seed=2, language="en")
    game = blockyard.new_game("sudoku-bloxx", seed=2)
    assert isinstance(game, blockyard.FallingGame)
    view = ok(bridge, op="act", name="end", args=[])["game"]
    game.act("end")
    assert view["over"] is True and view["over_reason"] == game.over_reason
    assert view["summary"]["score"] == game.score
    assert view["summary"]["texts"][1] == f"{game.score} points"


def test_the_shaded_cells_are_every_other_block_of_the_rules_as_in_the_window() -> None:
    # the page shades what the ruleset's "block" regions say, never a board size:
    # tiered-gravity is 9×9 without blocks; woodoku and Sudoku Bloxx have 3×3 ones
    from blockyard.frontend.rulewords import shaded_cells

    bridge = webbridge.Bridge()
    for ruleset, shaded in (("tiered-gravity", 0), ("woodoku", 36), ("sudoku-bloxx", 36),
                            ("eu-classic", 0)):
        view = ok(bridge, op="new", ruleset=ruleset, seed=1, language="en")["game"]
        cells = {tuple(cell) for cell in view["shaded"]}
        assert cells == shaded_cells(blockyard.load_ruleset(ruleset)), ruleset
        assert len(cells) == shaded, ruleset
    woodoku = {tuple(cell) for cell in
               ok(bridge, op="new", ruleset="woodoku", seed=1, language="en")["game"]["shaded"]}
    assert (0, 3) in woodoku and (0, 0) not in woodoku and (4, 4) not in woodoku
