"""The rule facade (``ruleset.hooks``): one way to ask a plugin, as pluggy would.

Plain implementations are called directly in pluggy's order with pluggy's
first-non-``None`` rule; wrappers and monitoring go through pluggy's own caller;
a loaded ruleset is sealed; faults and wrong answers are ``PluginError``s."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

import blockyard
from blockyard import PluginError, hookimpl
from blockyard.params import Params
from blockyard.results import Clearing, Scoring, TrayFacts
from blockyard.rulehooks import SealedError, purity_check

ROOT = Path(__file__).resolve().parents[1]
TRAY_RULESETS = sorted(i.id for i in blockyard.list_rulesets()
                       if i.error is None and blockyard.load_ruleset(i.id).mode == "tray")

BASE = """
[ruleset]
id = "facade"
name = "Facade"
family = "test"
description = "A small ruleset for the rule facade's tests."

[board]
rows = 8
cols = 8

[pieces.dot]
shapes = ["#"]
[pieces.bar]
shapes = ["##"]

[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
line_points = [10]
"""


class Declines:
    """Answers the single-answer hooks with ``None``: the next implementation
    (the core's default) must answer, as pluggy would."""

    def __init__(self, params: Params) -> None:
        self.asked: list[str] = []

    @hookimpl(tryfirst=True)
    def blockyard_clear(self, game, board, placed):
        self.asked.append("clear")
        return None

    @hookimpl(tryfirst=True)
    def blockyard_score(self, game, move):
        self.asked.append("score")
        return None


def test_a_none_answer_falls_through_to_the_core_default(rule_file, register_plugin):
    """The single plugin answering clear and score returns None: the core's
    defaults answer (nothing clears, no points), as with pluggy's caller."""
    register_plugin("declines", Declines)
    text = BASE.replace("[plugins.line-clearing]\n", "").replace(
        "[plugins.line-scoring]\nline_points = [10]\n", "")
    ruleset = blockyard.load_ruleset(rule_file(text + "[plugins.declines]\n"))
    row = "#######.\n" + "........\n" * 7
    game = blockyard.new_game(ruleset, seed=3, board=row, tray=["#"])
    result = game.place(0, 0, 7)
    assert (result.points, result.lines) == (0, 0)
    assert game.board_text().splitlines()[0] == "########"  # nothing cleared it
    assert dict(ruleset.plugin_objects)["declines"].asked == ["clear", "score"]
    with ruleset.monitor(lambda *a: None, lambda *a: None):
        again = blockyard.new_game(ruleset, seed=3, board=row, tray=["#"])
        assert again.place(0, 0, 7).points == 0
    assert again.snapshot()["bits"] == game.snapshot()["bits"]


def test_a_late_registration_on_a_loaded_ruleset_is_refused():
    ruleset = blockyard.load_ruleset("eu-classic")

    class Late:
        @hookimpl
        def blockyard_score(self, game, move):
            return Scoring(10**6, 0)

    with pytest.raises(SealedError, match="sealed"):
        ruleset.register(Late(), "late")
    with pytest.raises(SealedError, match=r"\[plugins\]"):
        ruleset.hooks.register(Late())
    assert not hasattr(ruleset, "pm")
    game = blockyard.new_game(ruleset, seed=1)
    assert game.preview(*game.legal_moves()[0]).points < 10**6


class Broken:
    def __init__(self, params: Params) -> None:
        self.kind = params.string("kind")

    @hookimpl
    def blockyard_clear(self, game, board):
        if self.kind == "raise":
            raise KeyError("boom")
        if self.kind == "wrong":
            return "not a clearing"
        return Clearing(["row 0"], board)  # regions that are no Region objects


@pytest.mark.parametrize(("kind", "words"), [
    ("raise", "raised KeyError"), ("wrong", "expected Clearing"),
    ("regions", "not Region objects")])
def test_faults_and_wrong_answers_are_plugin_errors_naming_plugin_and_hook(
        rule_file, register_plugin, kind, words):
    register_plugin("broken-clear", Broken)
    text = BASE.replace("[plugins.line-clearing]\n", f'[plugins.broken-clear]\nkind = "{kind}"\n')
    game = blockyard.new_game(blockyard.load_ruleset(rule_file(text)), seed=2)
    before = game.snapshot()
    with pytest.raises(PluginError, match=words) as caught:
        game.place(*game.legal_moves()[0])
    assert caught.value.plugin == "broken-clear"
    assert caught.value.hook == "blockyard_clear"
    assert game.snapshot() == before


def test_monitoring_sees_every_call_and_stops_when_the_block_ends():
    ruleset = blockyard.load_ruleset("eu-classic")
    game = blockyard.new_game(ruleset, seed=4)
    seen: list[str] = []
    with ruleset.monitor(lambda name, impls, kw: seen.append(name), lambda *args: None):
        game.place(*game.legal_moves()[0])
    assert "blockyard_clear" in seen and "blockyard_score" in seen
    seen.clear()
    game.place(*game.legal_moves()[0])
    assert seen == []


@pytest.mark.parametrize("ruleset_id", TRAY_RULESETS)
def test_direct_calls_answer_exactly_as_pluggys_caller(ruleset_id):
    """Every move of random games: the facade's direct call and pluggy's caller
    (under monitoring) give equal clearings and scorings."""
    ruleset = blockyard.load_ruleset(ruleset_id)
    hooks = ruleset.hooks
    rnd = random.Random(ruleset_id)
    compared = 0
    for seed in range(2):
        game = blockyard.new_game(ruleset, seed=seed)
        while not game.over and game.moves < 40:
            moves = game.legal_moves()
            if not moves:
                break
            slot, row, col = rnd.choice(moves)
            piece = game.tray[slot]
            mask = game.grid.geo.piece(piece.cells).shape << (row * game.cols + col)
            board = game.grid.copy()
            board.fill(mask, piece.colour)
            direct = hooks.clear(game, board, mask, piece, row, col, "test")
            with ruleset.monitor(lambda *a: None, lambda *a: None):
                through = hooks.clear(game, board, mask, piece, row, col, "test")
            assert (direct.regions, direct.board.bits, direct.board.colours, direct.row_drops) \
                == (through.regions, through.board.bits, through.board.colours,
                    through.row_drops)
            facts = TrayFacts(piece, piece.size, direct.regions, len(direct.regions),
                              bool(direct.regions) and direct.board.bits == 0, game.combo,
                              game.state, row=row, col=col, placed_mask=mask,
                              geometry=game.grid.geo)
            scored = hooks.score(game, facts, "test")
            with ruleset.monitor(lambda *a: None, lambda *a: None):
                assert hooks.score(game, facts, "test") == scored
            game.place(slot, row, col)
            compared += 1
    assert compared > 10


def test_the_clearing_pre_test_finds_exactly_the_full_regions():
    """line-clearing's shifted-AND test says "maybe full" for every board that
    has a full region (random boards of every tray ruleset's geometry)."""
    from blockyard.plugins.clearing import full_detector

    for ruleset_id in TRAY_RULESETS:
        ruleset = blockyard.load_ruleset(ruleset_id)
        geo = ruleset.geometry
        masks = tuple(r.mask for r in ruleset.regions)
        maybe_full = full_detector(geo, masks)
        rnd = random.Random(ruleset_id)
        for _ in range(300):
            bits = rnd.getrandbits(geo.size) | rnd.getrandbits(geo.size)
            if rnd.random() < 0.5:
                bits |= rnd.choice(masks)
            full = any(bits & m == m for m in masks)
            assert not full or maybe_full(bits)


def test_the_trace_variable_prints_every_hook_call():
    code = ("import blockyard; g = blockyard.new_game('eu-classic', seed=1); "
            "g.place(*g.legal_moves()[0])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**__import__("os").environ, "BLOCKYARD_TRACE_PLUGINS": "1"},
                          timeout=120, check=True)
    assert "blockyard_clear(" in done.stderr and "blockyard_score(" in done.stderr
    assert "← Clearing" in done.stderr


def test_no_private_pluggy_name_is_used_anywhere():
    hits = []
    for folder in ("core", "plugins", "frontend"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if "pluggy._" in text or "from pluggy._" in text:
                hits.append(str(path.relative_to(ROOT)))
    assert hits == []


def test_only_the_facade_and_the_registry_use_pluggy():
    """Rule questions go through blockyard.rulehooks alone; the registry loads the
    entry points of plugin packages; hookspecs holds the markers."""
    users = sorted(str(p.relative_to(ROOT)) for folder in ("core", "plugins", "frontend")
                   for p in (ROOT / folder).rglob("*.py")
                   if "import pluggy" in p.read_text(encoding="utf-8"))
    assert users == ["core/hookspecs.py", "core/registry.py", "core/rulehooks.py"]


class OutOfBounds:
    """Answers of the right type but an impossible size, chosen by ``what``."""

    def __init__(self, params: Params) -> None:
        self.what = params.string("what")

    @hookimpl
    def blockyard_score(self, game, move):
        if self.what == "points":
            return Scoring(10**100, 0)
        if self.what == "combo":
            return Scoring(1, 10**9)
        if self.what == "score-state":
            return Scoring(1, 0, {"out-of-bounds": {"blob": "x" * 10_000_000}})
        if self.what == "state-object":
            return Scoring(1, 0, {"out-of-bounds": {"object": object()}})
        if self.what == "past-the-limit":
            return Scoring(10**9, 0)
        return None

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        return "x" * 10_000_000 if self.what == "reason" else None

    @hookimpl
    def blockyard_move_state(self, game, result):
        return {"out-of-bounds": list(range(10**5))} if self.what == "move-state" else None

    @hookimpl
    def blockyard_allowed_anchors(self, game, piece):
        return 1 << 100_000 if self.what == "anchors" else None


BOUNDS = [("points", "within ±1,000,000,000"), ("combo", "a combo from 0 to 1,000,000"),
          ("score-state", "JSON values within the bounds"),
          ("state-object", "JSON values within the bounds"),
          ("reason", "at most 64 printable characters"),
          ("move-state", "within the bounds of MODDING"),
          ("anchors", "beyond the board's 64 cells")]


@pytest.mark.parametrize(("what", "words"), BOUNDS)
def test_answers_out_of_bounds_are_plugin_errors_and_change_nothing(rule_file, register_plugin,
                                                                   what, words):
    register_plugin("out-of-bounds", OutOfBounds)
    text = BASE.replace("[plugins.line-scoring]\nline_points = [10]\n", "")
    ruleset = blockyard.load_ruleset(rule_file(
        text + f'[plugins.out-of-bounds]\nwhat = "{what}"\n'))
    if what in ("anchors", "reason"):  # asked as the game starts
        with pytest.raises(PluginError, match=words) as caught:
            blockyard.new_game(ruleset, seed=1)
    else:
        game = blockyard.new_game(ruleset, seed=1)
        before = game.snapshot()
        with pytest.raises(PluginError, match=words) as caught:
            game.place(*game.legal_moves()[0])
        assert game.snapshot() == before
    assert caught.value.plugin == "out-of-bounds"


def test_a_score_past_the_snapshot_limit_is_refused(rule_file, register_plugin):
    register_plugin("out-of-bounds", OutOfBounds)
    text = BASE.replace("[plugins.line-scoring]\nline_points = [10]\n", "")
    ruleset = blockyard.load_ruleset(rule_file(
        text + '[plugins.out-of-bounds]\nwhat = "past-the-limit"\n'))
    game = blockyard.new_game(ruleset, seed=1)
    game.score = 10**15 - 10  # as if a million moves had scored the most
    before = game.snapshot()
    with pytest.raises(PluginError, match="past ±1,000,000,000,000,000"):
        game.place(*game.legal_moves()[0])
    assert game.snapshot() == before


def test_a_bundled_scorer_s_state_is_trusted_in_play_and_walked_by_the_kit(monkeypatch,
                                                                          rule_file):
    # the shape of a Blockyard scorer's state is its code's (MODDING: bounds):
    # not walked in play, walked when the tests ask; its points are always checked
    from blockyard.plugins import scoring

    answer = Scoring(1, 0, {"line-scoring": {"blob": "x" * 2_000}})

    def scorer(self, game, move):
        return answer

    monkeypatch.setattr(scoring.LineScoring, "blockyard_score", hookimpl(scorer))
    ruleset = blockyard.load_ruleset(rule_file(  # its own: the cached one keeps the real scorer
        '[ruleset]\nextends = "eu-classic"\nid = "odd-state"\nname = "Odd state"\n'))
    assert "score" in ruleset.hooks.unchecked
    game = blockyard.new_game(ruleset, seed=1)
    with purity_check(True, bundled=True), \
            pytest.raises(PluginError, match="JSON values within the bounds"):
        game.preview(*game.legal_moves()[0])
    with purity_check(True, bundled=False):  # as in play (no watchdog limit either)
        assert game.preview(*game.legal_moves()[0]).points == 1  # trusted
    answer = Scoring(10**100, 0)
    with pytest.raises(PluginError, match="within ±1,000,000,000"):
        game.preview(*game.legal_moves()[0])


class HugeDeal:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_deal(self, game, index):
        return [game.ruleset.pieces[0]] * 1_200_000


def test_a_huge_deal_is_refused_at_once(rule_file, register_plugin):
    register_plugin("huge-deal", HugeDeal)
    text = BASE.replace("[plugins.weighted-dealing]\n", "[plugins.huge-deal]\n")
    ruleset = blockyard.load_ruleset(rule_file(text))
    with pytest.raises(PluginError, match="a list of at most 64") as caught:
        blockyard.new_game(ruleset, seed=1)
    assert caught.value.plugin == "huge-deal"
