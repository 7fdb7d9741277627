"""Plugins the tests make mistakes with, shared by the headless purity tests and
the window's fault-screen tests."""

from __future__ import annotations

from blockyard import hookimpl
from blockyard.params import Params


class KeepsCount:
    """Adds a point every third move it scores, counting on the plugin object: a
    second game of the same seed scores differently."""

    def __init__(self, params: Params) -> None:
        self.scored = 0

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        self.scored += 1
        scoring.points += self.scored % 3
        return scoring
