"""``blockyard serve`` serves the web page at ``/`` and ``/play/{ruleset_id}``
beside ``/api`` (docs/web.md): the launcher lists the server's
rulesets and a game played with the keys is the engine's, in Chromium."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))

from server_support import Server
from web_support import (
    READY_MS,
    board_cells,
    browser,
    engine_cells,
    new_page,
    tray_pieces,
    wait_for_ghost,
    wait_for_score,
)

import blockyard

__all__ = ["browser", "new_page"]  # the browser's fixtures (tests/web/web_support.py)


def test_the_page_is_served_beside_the_api(server: Server) -> None:
    answer = server.client.get("/")
    assert answer.status_code == 200
    assert '<base href="/">' in answer.text
    assert 'data-testid="board"' in answer.text
    assert server.client.get("/play/eu-classic").text == answer.text
    assert server.client.get("/worker.mjs").headers["content-type"].startswith("text/javascript")
    assert server.client.get("/pyodide/pyodide.asm.wasm").headers["content-type"] == \
        "application/wasm"
    assert server.client.get("/pyodide/nothing.js").status_code == 404
    assert server.client.get("/api/health").json()["ok"] is True
    paths = server.client.get("/api/openapi.json").json()["paths"]
    assert all(path.startswith("/api/") for path in paths)


def test_the_launcher_opens_a_game_played_with_the_keys(server: Server, new_page: Any) -> None:
    page = new_page(360, 640)
    page.goto(server.url + "/")
    page.wait_for_selector("[data-testid=ruleset]", timeout=READY_MS)
    listed = page.eval_on_selector_all("[data-testid=ruleset]",
                                       "rs => rs.map(r => r.dataset.rulesetId)")
    assert sorted(listed) == sorted(info.id for info in blockyard.list_rulesets())
    # the rules of a ruleset, as its rule file's how-to-play page says them
    rules = page.locator("[data-ruleset-id=sudoku-bloxx] + [data-testid=rules]")
    rules.locator("summary").click()
    page_text = blockyard.load_ruleset("sudoku-bloxx").help.page_in("en")
    assert rules.locator(".text").inner_text().split("\n")[0] == page_text.split("\n")[0]
    page.click("[data-testid=ruleset][data-ruleset-id=eu-classic]")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)
    assert page.evaluate("location.pathname") == "/play/eu-classic"
    page.goto(server.url + "/play/eu-classic?seed=9")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)
    game = blockyard.new_game("eu-classic", seed=9)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    slot = 0
    piece = game.tray[slot]
    assert piece is not None
    # keys: 1 chooses the first slot, its ghost in the middle of the board; arrows move it
    page.keyboard.press("1")
    row = (game.rows - piece.height) // 2
    col = (game.cols - piece.width) // 2
    wait_for_ghost(page, row, col, fits=game.can_place(slot, row, col))
    for _ in range(row):
        page.keyboard.press("ArrowUp")
    for _ in range(col):
        page.keyboard.press("ArrowLeft")
    wait_for_ghost(page, 0, 0, fits=True)
    page.keyboard.press("Enter")
    game.place(slot, 0, 0)
    wait_for_score(page, game.score)
    page.wait_for_selector("[data-testid=ghost]", state="detached", timeout=READY_MS)
    assert board_cells(page) == engine_cells(game)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    # Esc drops a chosen piece: its ghost goes
    page.keyboard.press("2")
    page.wait_for_selector("[data-testid=ghost]", timeout=READY_MS)
    page.keyboard.press("Escape")
    page.wait_for_selector("[data-testid=ghost]", state="detached", timeout=READY_MS)
