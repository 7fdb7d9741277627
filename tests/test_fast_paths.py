"""The hot hooks' fast paths (``blockyard_fast_path``) answer exactly as pluggy's
hook caller does, for every bundled ruleset and plugin that offers one."""

from __future__ import annotations

import random

import pytest

import blockyard
from blockyard.results import MoveFacts

TRAY_RULESETS = sorted(i.id for i in blockyard.list_rulesets()
                       if i.error is None and blockyard.load_ruleset(i.id).mode == "tray")


def same_clearing(a, b) -> bool:
    return (a.regions == b.regions and [r.mask for r in a.regions] == [r.mask for r in b.regions]
            and a.board.bits == b.board.bits and a.board.colours == b.board.colours
            and a.row_drops == b.row_drops and a.cleared == b.cleared)


def test_bundled_plugins_offer_fast_paths_for_the_hot_hooks():
    ruleset = blockyard.load_ruleset("eu-classic")
    assert set(ruleset.fast_paths) == {"clear", "score", "deal"}
    # dealing has none: its speed is in blockyard_deal itself (tests/test_dealing.py)
    assert ruleset.fast_paths["clear"] and ruleset.fast_paths["score"]
    assert ruleset.fast_paths["deal"] is None


@pytest.mark.parametrize("ruleset_id", TRAY_RULESETS)
def test_fast_paths_answer_exactly_as_the_hooks(ruleset_id):
    ruleset = blockyard.load_ruleset(ruleset_id)
    fast_clear, fast_score = ruleset.fast_paths["clear"], ruleset.fast_paths["score"]
    hook = ruleset.pm.hook
    rnd = random.Random(ruleset_id)
    compared = 0
    for seed in range(3):
        game = blockyard.new_game(ruleset, seed=seed)
        while not game.over and game.moves < 60:
            moves = game.legal_moves()
            if not moves:
                break
            slot, row, col = rnd.choice(moves)
            piece = game.tray[slot]
            mask = game.grid.geo.piece(piece.cells).shape << (row * game.cols + col)
            board = game.grid.copy()
            board.fill(mask, piece.colour)
            kwargs = dict(game=game, board=board, placed=mask, piece=piece, row=row, col=col)
            if fast_clear is not None:
                assert same_clearing(fast_clear(*kwargs.values()), hook.blockyard_clear(**kwargs))
            clearing = hook.blockyard_clear(**kwargs)
            facts = MoveFacts(piece, piece.size, clearing.regions, len(clearing.regions),
                              bool(clearing.regions) and clearing.board.bits == 0, game.combo,
                              game.state, row=row, col=col, placed_mask=mask,
                              geometry=game.grid.geo)
            if fast_score is not None:
                assert fast_score(game, facts) == hook.blockyard_score(game=game, move=facts)
            game.place(slot, row, col)
            compared += 1
    assert compared > 10


def test_hook_monitoring_sees_every_hook_call_so_fast_paths_step_aside():
    ruleset = blockyard.load_ruleset("eu-classic")
    game = blockyard.new_game(ruleset, seed=4)
    seen: list[str] = []
    undo = ruleset.pm.add_hookcall_monitoring(lambda name, impls, kw: seen.append(name),
                                              lambda *args: None)
    try:
        game.place(*game.legal_moves()[0])
    finally:
        undo()
    assert "blockyard_clear" in seen and "blockyard_score" in seen
    seen.clear()
    game.place(*game.legal_moves()[0])
    assert seen == []


@pytest.mark.parametrize("ruleset_id", TRAY_RULESETS)
def test_evaluate_answers_as_preview_for_every_candidate(ruleset_id):
    game = blockyard.new_game(ruleset_id, seed=9)
    rnd = random.Random(9)
    for _ in range(8):
        moves = game.legal_moves()
        if not moves:
            break
        before = game.snapshot()
        evaluations = game.evaluate(moves)
        assert game.snapshot() == before
        for move, ev in zip(moves, evaluations, strict=True):
            result = game.preview(*move)
            assert (ev.points, ev.lines, ev.combo, ev.perfect_clear) == (
                result.points, result.lines, result.combo, result.perfect_clear)
            probe = blockyard.restore(before)
            probe.place(*move)
            assert ev.bits == probe.grid.bits or probe.moves % 3 == 0 or probe.over
        game.place(*rnd.choice(moves))
    with pytest.raises(blockyard.IllegalMove):
        game.evaluate([(0, -1, 0)])

