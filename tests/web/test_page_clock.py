"""The clock of a timed ruleset in the page: the page tells the engine the time
played (the bridge's tick) and shows the clock the engine keeps; the board and
tray stay the engine's."""

from __future__ import annotations

from typing import Any

from web_support import READY_MS, board_cells, engine_cells, tray_pieces

import blockyard
from blockyard.frontend import rulewords


def test_the_clock_of_a_timed_ruleset_runs(site_url: str, new_page: Any) -> None:
    page = new_page(360, 640)
    page.goto(f"{site_url}play/eu-timed?seed=5")
    page.wait_for_selector("[data-testid=clock]:not([hidden])", timeout=READY_MS)
    game = blockyard.new_game("eu-timed", seed=5)
    assert game.time_left is not None
    full = rulewords.clock(game.time_left)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    assert board_cells(page) == engine_cells(game)
    # waits on the page's state, not on a time: the clock goes down from the full time
    page.wait_for_function(
        "full => { const t = document.querySelector('[data-testid=clock]').textContent;"
        " return /^\\d+:\\d\\d$/.test(t) && t !== full; }", arg=full, timeout=READY_MS)
    shown = page.text_content("[data-testid=clock]")
    assert shown is not None
    minutes, seconds = shown.split(":")
    assert 0 < int(minutes) * 60 + int(seconds) < game.time_left
