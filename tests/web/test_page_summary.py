"""The page's actions and summary (docs/web.md): the ruleset's actions
(tiered's swap, everyone's end), the summary with the pieces left and the tip, in
the player's language, all as the engine and the window's catalogues say."""

from __future__ import annotations

from typing import Any

from web_support import READY_MS, tray_pieces, wait_for_score

import blockyard
from blockyard.frontend import i18n, webbridge


def test_swap_then_end_show_the_engines_summary_in_german(site_url: str,
                                                          new_page: Any) -> None:
    page = new_page(360, 640)
    page.goto(f"{site_url}play/tiered?seed=3")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)
    page.select_option("#language", "de")
    page.wait_for_function("document.documentElement.lang === 'de'", timeout=READY_MS)
    game = blockyard.new_game("tiered", seed=3)
    i18n.set_language("de")
    labels = {a.name: webbridge.game_view(game)["actions"][i]["label"]
              for i, a in enumerate(game.actions())}
    page.wait_for_selector(f"[data-testid=action][data-action=swap]:has-text('{labels['swap']}')",
                           timeout=READY_MS)
    page.click("[data-testid=action][data-action=swap]")
    game.act("swap")
    page.wait_for_function(
        "pieces => [...document.querySelectorAll('[data-testid=tray-slot]')]"
        ".map(s => s.dataset.piece).join() === pieces",
        arg=",".join(p.id if p else "" for p in game.tray), timeout=READY_MS)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    page.click("[data-testid=action][data-action=end]")
    game.act("end")
    summary = page.wait_for_selector("[data-testid=summary]", timeout=READY_MS)
    expected = webbridge.summary_view(game)
    assert summary.get_attribute("data-score") == str(game.score)
    text = summary.inner_text()
    for line in [*expected["texts"], expected["failed_heading"], expected["tip"]]:
        assert line and line in text
    assert expected["tip"].startswith("Tipp: ")
    assert page.locator("[data-testid=failed] .mini").count() == len(game.summary().failed_pieces)
    page.click("[data-testid=play-again]")
    page.wait_for_selector("[data-testid=summary]", state="detached", timeout=READY_MS)
    wait_for_score(page, 0)


def test_an_action_aimed_at_a_slot_takes_the_slot_clicked_next(site_url: str,
                                                              new_page: Any) -> None:
    page = new_page(1280, 800)
    page.goto(f"{site_url}play/arcadeforge-rotate?seed=4")
    page.wait_for_selector("[data-testid=board] [data-testid=cell]", timeout=READY_MS)
    game = blockyard.new_game("arcadeforge-rotate", seed=4)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    page.click("[data-testid=action][data-action=rotate]")
    page.click("[data-testid=tray-slot][data-slot='1']")
    game.act("rotate", 1)
    page.wait_for_function(
        "piece => document.querySelector(\"[data-testid=tray-slot][data-slot='1']\")"
        ".dataset.piece === piece", arg=game.tray[1].id if game.tray[1] else "",
        timeout=READY_MS)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
    # with the keys: 3 chooses the slot, R (the action's key) turns it
    page.keyboard.press("3")
    page.wait_for_selector("[data-testid=ghost]", timeout=READY_MS)
    page.keyboard.press("r")
    game.act("rotate", 2)
    page.wait_for_function(
        "piece => document.querySelector(\"[data-testid=tray-slot][data-slot='2']\")"
        ".dataset.piece === piece", arg=game.tray[2].id if game.tray[2] else "",
        timeout=READY_MS)
    assert tray_pieces(page) == [p.id if p else "" for p in game.tray]
