"""The consistency test over every bundled ruleset, and proof that the kit fails
when a plugin breaks a guarantee."""

from __future__ import annotations

import random

import pytest

import blockyard
from blockyard import hookimpl
from blockyard.params import Params
from blockyard.results import Scoring
from blockyard.testing import check_ruleset

BUNDLED = [info.id for info in blockyard.list_rulesets()]


@pytest.mark.parametrize("ruleset_id", BUNDLED)
def test_every_bundled_ruleset_conforms(ruleset_id, blockyard_conformance):
    report = blockyard_conformance(ruleset_id, games=8, max_actions=150)
    assert report.games == 8
    assert report.checks["determinism"] == 8 and report.checks["replay"] == 8


class GlobalRandomScoring:
    """Breaks determinism: scores from the process-wide random module."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        return Scoring(random.randrange(100), 0)


class LeakyStateScoring:
    """Breaks preview: counts calls in the plugin object instead of game state."""

    def __init__(self, params: Params) -> None:
        self.calls = 0

    @hookimpl
    def blockyard_score(self, game, move):
        self.calls += 1
        return Scoring(self.calls, 0)


BROKEN = """
[ruleset]
id = "broken"
name = "Broken"
family = "test"
description = "a ruleset with a broken scoring plugin"
[board]
rows = 6
cols = 6
[pieces.dot]
shapes = ["#", "##"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.end-when-stuck]
[plugins.{plugin}]
"""


@pytest.mark.parametrize("plugin, factory, complaint", [
    ("global-random-scoring", GlobalRandomScoring, "different games"),
    ("leaky-state-scoring", LeakyStateScoring, "preview"),
])
def test_the_kit_catches_a_broken_plugin(rule_file, register_plugin, plugin, factory,
                                         complaint):
    register_plugin(plugin, factory)
    path = rule_file(BROKEN.format(plugin=plugin))
    report = check_ruleset(path, games=3, max_actions=40)
    assert not report.ok
    assert any(complaint in failure for failure in report.failures), report.text()
    with pytest.raises(AssertionError, match="FAIL"):
        from blockyard.testing import assert_conforms

        assert_conforms(path, games=3, max_actions=40)
