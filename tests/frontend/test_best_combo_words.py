"""The best combo is said alike by the game's summary and the statistics page: a
combo is what the ruleset shows as one (eu: the second clearing move in a row on,
"combo x2"; tiered: factor 2 on), so a game whose best was a single clearing move
says "—" on both, and a double clear "×2" on both (screens on Xvfb)."""

from __future__ import annotations

import pytest

import blockyard
from blockyard.frontend.pages import StatsView
from blockyard.frontend.summary_view import SummaryView


def dealt_game_with_best_combo(factor: int) -> blockyard.Game:
    """A game of eu-classic from its own deal (a chosen start is practice, and a
    practice game's combo stays out of the statistics) whose best combo counter is
    ``factor``: the first of a fixed list of seeds and move choices that makes it."""
    for seed in range(500):
        game = blockyard.new_game("eu-classic", seed=seed)
        for i in range(20):
            legal = game.legal_moves()
            if game.over or not legal:
                break
            game.place(*legal[(i * 13 + seed) % len(legal)])
        if game.best_combo == factor and not game.over:
            return game
    raise AssertionError(f"no game with a best combo of {factor}")


def summary_and_stats(ui, factor: int):
    """A dealt eu-classic game whose best combo is ``factor``, finished through the
    window: its summary's best-combo line, then the statistics' figure (T)."""
    game = dealt_game_with_best_combo(factor)
    ui.app.show_game(game)
    ui.pump(2)
    game.act("end")
    ui.app.finish_game(game)
    ui.pump(2)
    summary = ui.view
    assert isinstance(summary, SummaryView) and not summary.summary.practice
    line = next(t.text for t in summary.texts if t.text.startswith("Best combo"))
    ui.key("t")
    stats = ui.view
    assert isinstance(stats, StatsView)
    return summary.summary.best_combo, line, stats.figures["Best combo"]


@pytest.mark.parametrize(("factor", "said"), [(1, "—"), (2, "×2")])
def test_summary_and_statistics_say_the_same_best_combo(ui, factor, said):
    stored, line, figure = summary_and_stats(ui, factor)
    assert stored == factor  # the records keep the displayed factor as they did
    assert line == f"Best combo: {said}"
    assert figure == said
