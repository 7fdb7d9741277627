"""Rules that compose: actions from plugins, regions from data, Woodoku as a rule
file, and faults contained (docs/api.md §5, docs/rules.md §9.2)."""

from __future__ import annotations

import json

import pytest

import blockyard
from blockyard import ActionSpec, IllegalMove, PluginError, Region, hookimpl
from blockyard.params import Params
from blockyard.results import Clearing, Scoring


def board(*rows: str) -> str:
    return "\n".join(rows)


# -- Woodoku: rows, columns and 3×3 blocks from the rule file alone ------------------------

EMPTY9 = "\n".join(["." * 9] * 9)


def woodoku(board_text: str, tray: list[str | None]) -> blockyard.Game:
    return blockyard.new_game("woodoku", seed=1, board=board_text, tray=tray)


def test_9_2_woodoku_uses_only_general_plugins():
    ruleset = blockyard.load_ruleset("woodoku")
    assert (ruleset.rows, ruleset.cols) == (9, 9)
    assert {name for name, _ in ruleset.plugin_objects} <= {
        "line-clearing", "weighted-dealing", "line-scoring", "tips"}
    kinds = [r.kind for r in ruleset.regions]
    assert kinds.count("row") == 9 and kinds.count("col") == 9 and kinds.count("block") == 9
    block4 = next(r for r in ruleset.regions if r.key == ("block", 4))
    assert block4.cells == {(r, c) for r in range(3, 6) for c in range(3, 6)}
    assert len(ruleset.pieces) == len(blockyard.load_ruleset("eu-classic").pieces)


def test_9_2_completing_only_block_0_with_one_cell_scores_19():
    start = board("###......", "###......", "##.......", *["." * 9] * 6)
    game = woodoku(start, ["#", None, None])
    result = game.place(0, 2, 2)
    assert result.regions == (("block", 0),) and result.points == 1 + 18
    assert result.regions[0].cells == {(r, c) for r in range(3) for c in range(3)}
    assert result.cleared_cells == result.regions[0].cells
    assert game.board_text() == EMPTY9


def test_9_2_a_row_and_a_block_with_one_cell_score_37_then_the_streak_doubles():
    start = board("##.######", "###......", "###......", ".........", "########.",
                  *["." * 9] * 4)
    game = woodoku(start, ["#", "#", "#"])
    first = game.place(0, 0, 2)
    assert sorted(first.regions) == [("block", 0), ("row", 0)]
    assert first.points == 1 + 36 and first.combo == 1
    assert (0, 8) in first.cleared_cells and (2, 2) in first.cleared_cells
    second = game.place(1, 4, 8)
    assert second.regions == (("row", 4),)
    assert second.points == 1 + 18 * 1 * 2 and second.combo == 2


def test_9_2_over_when_nothing_fits_and_no_continue():
    ruleset = blockyard.load_ruleset("woodoku")
    assert "continue" not in ruleset.action_specs
    full = "\n".join(["#.#.#.#.#", ".#.#.#.#."] * 4 + ["#.#.#.#.#"])
    game = woodoku(full, ["##", None, None])
    assert game.over_reason == "stuck"
    assert [a.name for a in game.actions()] == []


def test_woodoku_plays_to_the_end_and_conforms():
    report = blockyard.testing.check_ruleset("woodoku", games=3)
    assert report.ok, report.text()


# -- actions -------------------------------------------------------------------------------

def test_actions_list_what_plugins_contribute_and_act_is_logged_and_replayed():
    game = blockyard.new_game("tiered", seed=4)
    names = {a.name: a for a in game.actions()}
    assert names["swap"].label == "Swap" and names["swap"].key == "s"
    assert names["swap"].rescue and names["swap"].uses_left == 1
    assert names["swap"].plugin == "swaps" and names["end"].plugin == "core"
    game.act("swap")
    assert game.log[-1] == ["swap"] and game.swaps_left == 0
    assert "swap" not in {a.name for a in game.actions()}
    assert blockyard.replay(game.log).snapshot() == game.snapshot()
    with pytest.raises(IllegalMove, match="no swap left"):
        game.act("swap")
    with pytest.raises(IllegalMove, match="no action 'fly'"):
        game.act("fly")


def test_rotate_is_an_action_that_takes_a_slot():
    game = blockyard.new_game("arcadeforge-rotate", seed=2, tray=["##\n#.", None, None])
    rotate = next(a for a in game.actions() if a.name == "rotate")
    assert rotate.takes_slot and rotate.key == "r"
    before = game.snapshot()
    for bad in ((), (5,), (1,), ("0",), (0, 1)):
        with pytest.raises(IllegalMove):
            game.act("rotate", *bad)
        assert game.snapshot() == before
    game.act("rotate", 0)
    assert game.tray[0].art == "##\n.#" and game.log[-1] == ["rotate", 0]


def test_eu_classic_with_a_swaps_table_is_never_stuck_while_a_swap_is_left(rule_file):
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "eu-swaps"\nname = "Swaps"\n'
                     "[plugins.swaps]\nstart = 3\nper_perfect_clear = 1\nmax = 3\n")
    ruleset = blockyard.load_ruleset(path)
    for seed in range(6):
        game = blockyard.new_game(ruleset, seed=seed)
        while not game.over:
            moves = game.legal_moves()
            if moves:
                game.place(*moves[0])
            else:
                assert game.swaps_left > 0
                game.swap()
        assert game.over_reason == "stuck" and game.swaps_left == 0
    stuck = blockyard.new_game(ruleset, seed=0, board="\n".join(["#.#.#.#.#."] * 10),
                               tray=["##", None, None])
    assert not stuck.over and stuck.swaps_left == 3
    assert any(a.name == "swap" and a.rescue for a in stuck.actions())


def test_continue_is_offered_after_the_end_and_its_state_lives_in_game_state():
    full = "\n".join(["#########."] * 9 + ["#.#.#.#.#."])
    game = blockyard.new_game("eu-classic", seed=3, board=full, tray=["###", None, None])
    assert game.over_reason == "stuck"
    assert [a.name for a in game.actions() if a.after_end] == ["continue"]
    game.act("continue")
    assert not game.over and game.state["continue"] == {"used": 1}
    assert game.continues_used == 1 and not game.can_continue


def test_zen_refill_is_an_automatic_action_never_listed():
    game = blockyard.new_game("eu-zen", seed=1)
    assert "refill" in game.ruleset.action_specs
    assert "refill" not in {a.name for a in game.actions()}
    with pytest.raises(IllegalMove):
        game.act("refill")


def test_end_round_is_the_core_action_of_every_ruleset():
    for rid in ("eu-classic", "sudoku-bloxx", "woodoku"):
        game = blockyard.new_game(rid, seed=1)
        assert "end" in {a.name for a in game.actions()}
        game.act("end")
        assert game.over_reason == "ended" and game.log[-1] == ["end"]


class Bombs:
    """A mod's own action: once per game, empty the fullest row (``blockyard_actions``)."""

    def __init__(self, params: Params) -> None:
        self.times = params.integer("times", 1)

    def used(self, game):
        return game.state.get("bombs", {}).get("used", 0)

    def perform(self, game):
        counts = game.grid.row_counts()
        row = max(range(len(counts)), key=lambda r: counts[r])
        game.empty_cells(game.grid.geo.row_masks[row])
        game.state["bombs"] = {"used": self.used(game) + 1}

    @hookimpl
    def blockyard_actions(self, ruleset):
        return [ActionSpec("bomb", "Bomb", self.perform, key="b",
                           available=lambda g: self.used(g) < self.times,
                           rescue=lambda g: self.used(g) < self.times,
                           uses_left=lambda g: self.times - self.used(g))]


def test_a_mod_adds_an_action_that_rescues_logs_and_replays(rule_file, register_plugin):
    register_plugin("bombs", Bombs)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "bombs"\nname = "Bombs"\n[plugins.bombs]\n'))
    full = "\n".join(["##########"] * 1 + ["#.#.#.#.#."] * 9)
    game = blockyard.new_game(ruleset, seed=1, board=full, tray=["##", None, None])
    assert not game.over and any(a.name == "bomb" and a.rescue for a in game.actions())
    game.act("bomb")
    assert game.legal_moves() and game.log[-1] == ["bomb"]
    assert blockyard.replay(game.log).snapshot() == game.snapshot()


# -- regions and results ------------------------------------------------------------------

def test_regions_are_objects_with_kind_index_and_cells_and_compare_as_pairs():
    region = Region("diag", 1, 0b101)
    assert region == ("diag", 1) and region.key == ("diag", 1)
    assert (region.kind, region.index, region.mask) == ("diag", 1, 0b101)
    with pytest.raises(TypeError):
        Region("row", "1", 3)
    game = blockyard.new_game("eu-classic", seed=2, board="\n".join(
        ["#########."] + ["." * 10] * 9), tray=["#", None, None])
    result = game.place(0, 0, 9)
    assert result.regions == (("row", 0),)
    assert result.regions[0].cells == {(0, c) for c in range(10)}
    assert result.cleared_cells == {(0, c) for c in range(10)}
    assert result.cleared_rows == (0,) and result.cleared_cols == ()


def test_line_clearing_blocks_parameter_and_helpful_errors(rule_file):
    bad = rule_file('[ruleset]\nextends = "eu-classic"\nid = "b"\nname = "B"\n'
                    "[plugins.line-clearing]\nblock = [2, 2]\n")
    with pytest.raises(blockyard.RulesetError) as err:
        blockyard.load_ruleset(bad)
    assert "did you mean 'blocks'?" in str(err.value)
    assert "valid keys: rows, cols, blocks, gravity" in str(err.value)
    untiled = rule_file('[ruleset]\nextends = "eu-classic"\nid = "b"\nname = "B"\n'
                        "[plugins.line-clearing]\nblocks = [3, 3]\n", "untiled.toml")
    with pytest.raises(blockyard.RulesetError, match="do not tile a 10×10 board"):
        blockyard.load_ruleset(untiled)


def test_unknown_plugins_and_ids_get_a_did_you_mean(rule_file):
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "x"\nname = "X"\n'
                     "[plugins.line-scorin]\n")
    with pytest.raises(blockyard.RulesetError, match="did you mean 'line-scoring'"):
        blockyard.load_ruleset(path)
    with pytest.raises(blockyard.RulesetError, match="did you mean 'eu-classic'"):
        blockyard.load_ruleset("eu-clasic")


# -- faults contained ----------------------------------------------------------------------

PER_MOVE_HOOKS = ("clear", "score", "move_state", "deal", "end_reason", "allowed_anchors",
                  "action")


def faulty_plugin(hook: str, fault: str):
    """A plugin that misbehaves in one per-move hook, after the game has started."""

    def misbehave(game, good):
        armed = game.state.get("armed", {}).get("on") or (fault == "endless" and game.moves)
        if not armed:
            return good
        if fault == "raises":
            raise ZeroDivisionError("boom")
        if fault == "endless":
            while True:
                pass
        return 42 if hook == "end_reason" else "wrong"

    class Faulty:
        def __init__(self, params: Params) -> None:
            pass

        @hookimpl
        def blockyard_actions(self, ruleset):
            def perform(game):
                if fault == "raises":
                    game.state["armed"] = {"on": True, "half": True}
                    raise ZeroDivisionError("boom")
            return [ActionSpec("poke", "Poke", perform)] if hook == "action" else []

        if hook == "clear":
            @hookimpl
            def blockyard_clear(self, game, board, placed):
                return misbehave(game, Clearing((), board))
        if hook == "score":
            @hookimpl
            def blockyard_score(self, game, move):
                return misbehave(game, Scoring(move.cells, 0))
        if hook == "move_state":
            @hookimpl
            def blockyard_move_state(self, game, result):
                return misbehave(game, None)
        if hook == "deal":
            @hookimpl
            def blockyard_deal(self, game, index):
                from blockyard.pieces import Piece
                dot = Piece.from_art("#", id="dot", family="dot")
                return misbehave(game, [dot, dot, dot])
        if hook == "end_reason":
            @hookimpl
            def blockyard_end_reason(self, game, stuck):
                return misbehave(game, None)
        if hook == "allowed_anchors":
            @hookimpl
            def blockyard_allowed_anchors(self, game, piece):
                return misbehave(game, None)
    return Faulty


def faulty_rules(hook: str) -> str:
    """A 5×5 rule file using the faulty plugin, without the bundled plugin that
    would answer the same single-answer hook."""
    text = '[ruleset]\nid = "f"\nname = "F"\nfamily = "t"\ndescription = "d"\n' \
           "[board]\nrows = 5\ncols = 5\n[pieces.dot]\nshapes = [\"#\"]\n" \
           + ("" if hook == "clear" else "[plugins.line-clearing]\n") \
           + ("" if hook == "score" else "[plugins.line-scoring]\nline_points = [10]\n")
    if hook != "deal":
        text += '[plugins.weighted-dealing]\nguarantee = "none"\n'
    return text + "[plugins.faulty]\n"


FAULTS = [(hook, fault) for hook in PER_MOVE_HOOKS for fault in ("raises", "wrong type")
          if (hook, fault) != ("action", "wrong type")]  # perform's answer is not used


@pytest.mark.parametrize(("hook", "fault"), FAULTS)
def test_a_faulty_plugin_is_named_and_the_game_is_left_exactly_as_it_was(
        hook, fault, rule_file, register_plugin):
    register_plugin("faulty", faulty_plugin(hook, fault))
    ruleset = blockyard.load_ruleset(rule_file(faulty_rules(hook)))
    game = blockyard.new_game(ruleset, seed=5)
    game.place(*game.legal_moves()[0])
    game.state["armed"] = {"on": True}
    before = json.dumps(game.snapshot(), sort_keys=True)
    log_before = [list(e) for e in game.log]
    if fault == "wrong type" and hook in ("move_state", "end_reason", "allowed_anchors",
                                          "action", "deal"):
        expected = "expected"
    else:
        expected = "boom" if fault == "raises" else "expected"
    with pytest.raises(PluginError) as err:
        if hook == "action":
            game.act("poke")
        elif hook == "deal":
            while True:  # the next deal happens when the tray is empty
                game.place(*game.legal_moves()[0])
        else:
            game.place(*game.legal_moves()[0])
    message = str(err.value)
    assert "plugin 'faulty'" in message and "ruleset 'f'" in message and "seed 5" in message
    assert expected in message
    if hook != "deal":
        assert json.dumps(game.snapshot(), sort_keys=True) == before
        assert game.log == log_before
    assert blockyard.replay(game.log).snapshot()["cells"] == game.snapshot()["cells"]


class OneRegion:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_regions(self, ruleset, geometry):
        return Region("diag", 0, 1)


def test_a_regions_hook_of_the_wrong_type_is_listed_not_fatal(isolated_home, register_plugin):
    register_plugin("one-region", OneRegion)
    folder = isolated_home / "config" / "rulesets"
    folder.mkdir(parents=True)
    (folder / "bad.toml").write_text('[ruleset]\nextends = "eu-classic"\nid = "bad"\n'
                                     'name = "Bad"\n[plugins.one-region]\n')
    infos = {i.id: i for i in blockyard.list_rulesets()}
    assert infos["eu-classic"].error is None
    assert "plugin 'one-region'" in infos["bad"].error
    assert "blockyard_regions" in infos["bad"].error and "list of Region" in infos["bad"].error
    with pytest.raises(PluginError, match="one-region"):
        blockyard.load_ruleset("bad")


def test_register_plugin_refuses_a_taken_name():
    with pytest.raises(PluginError, match="taken"):
        blockyard.register_plugin("line-clearing", OneRegion)
    with pytest.raises(PluginError):
        blockyard.unregister_plugin("never-registered")


class Endless:
    """A plugin whose score hook never returns, and a method that looks like a hook."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_game_start(self, game):
        game.state["endless"] = {}

    @hookimpl
    def blockyard_move_state(self, game, result):
        if game.moves >= 2:
            while True:
                pass
        return None

    def blockyard_summary_tips(self, game, summary):  # no @hookimpl: never called
        return ["never"]


def test_check_reports_an_endless_hook_and_a_method_without_hookimpl(rule_file, register_plugin):
    register_plugin("endless", Endless)
    ruleset = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "endless"\nname = "E"\n[plugins.endless]\n'))
    report = blockyard.testing.check_ruleset(ruleset, games=2, max_actions=10, hook_seconds=0.2)
    assert not report.ok
    assert any("blockyard_move_state ran longer than 0.2 s" in f and "plugin 'endless'" in f
               for f in report.failures), report.text()
    assert report.games == 2 or len(report.failures) >= 2  # it went on after the first
    assert any("blockyard_summary_tips" in f and "@hookimpl" in f for f in report.failures)
    assert "FAIL plugin 'endless': method blockyard_summary_tips" in report.text()


def test_cli_plugins_lists_parameters_and_hooks(capsys):
    from blockyard.cli import main

    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert f"line-clearing  [blockyard {blockyard.__version__}]" in out
    assert "blocks: array of integers" in out
    assert "    hooks:\n      blockyard_check_ruleset — answers nothing\n" in out


def test_carry_over_keeps_a_game_when_the_new_rules_allow_it(rule_file):
    from blockyard.game import carry_over

    game = blockyard.new_game("eu-classic", seed=3)
    for _ in range(4):
        game.place(*game.legal_moves()[0])
    richer = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "rich"\nname = "Rich"\n'
        "[plugins.line-scoring]\nperfect_clear = 5000\n"))
    kept = carry_over(game, richer)
    assert kept.ruleset == richer and kept.moves == 4 and kept.board == game.board
    smaller = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "eu-classic"\nid = "small"\nname = "Small"\n[board]\nrows = 6\n'
        "cols = 6\n", "small.toml"))
    fresh = carry_over(game, smaller)
    assert fresh.moves == 0 and fresh.seed == game.seed and fresh.rows == 6


# -- what a new modder trips over -------------------------------------------------------------

def test_a_variant_needs_its_own_id_and_keeps_its_own_best(rule_file):
    with pytest.raises(blockyard.RulesetError, match=r"ruleset.id: missing; a rule file that "
                                                      r"extends another needs an id"):
        blockyard.load_ruleset(rule_file('[ruleset]\nextends = "woodoku"\nname = "W"\n'))
    variant = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "woodoku"\nid = "w2"\nname = "W2"\n', "w2.toml"))
    assert variant.record_group == "w2"
    shared = blockyard.load_ruleset(rule_file(
        '[ruleset]\nextends = "woodoku"\nid = "w3"\nname = "W3"\n[records]\ngroup = "woodoku"\n',
        "w3.toml"))
    assert shared.record_group == "woodoku"
    assert blockyard.load_ruleset("eu-hardcore").record_group == "eu"


def test_a_misspelled_ruleset_key_is_named_before_anything_else(rule_file):
    with pytest.raises(blockyard.RulesetError, match=r"ruleset.extend: unknown key \(did you "
                                                      r"mean 'extends'\?\)"):
        blockyard.load_ruleset(rule_file('[ruleset]\nextend = "woodoku"\nid = "x"\n'))


class WrongArgument:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_actions(self, rules):
        return []


def test_a_hook_with_a_wrong_argument_lists_the_arguments_it_may_take(rule_file,
                                                                     register_plugin):
    register_plugin("wrong-arg", WrongArgument)
    with pytest.raises(blockyard.RulesetError, match=r"blockyard_actions takes 'rules', which "
                                                      r"the hook does not pass; it may take any "
                                                      r"of: ruleset"):
        blockyard.load_ruleset(rule_file(
            '[ruleset]\nextends = "eu-classic"\nid = "x"\nname = "X"\n[plugins.wrong-arg]\n'))


def test_cli_list_says_where_own_rule_files_go_and_watch_needs_a_path(capsys, isolated_home):
    from blockyard.cli import main

    assert main(["list"]) == 0
    assert f"your own rule files go in: {isolated_home / 'config' / 'rulesets'}" in \
        capsys.readouterr().out
    assert main(["play", "woodoku", "--watch"]) == 2
    assert "--watch needs the path of a rule file" in capsys.readouterr().err


@pytest.mark.parametrize("hook", [h for h in PER_MOVE_HOOKS if h != "action"])
def test_check_stops_and_reports_an_endless_loop_in_any_per_move_hook(hook, rule_file,
                                                                      register_plugin):
    register_plugin("faulty", faulty_plugin(hook, "endless"))
    ruleset = blockyard.load_ruleset(rule_file(faulty_rules(hook)))
    report = blockyard.testing.check_ruleset(ruleset, games=2, max_actions=6, hook_seconds=0.2)
    assert any(f"blockyard_{hook} ran longer than 0.2 s" in f and "plugin 'faulty'" in f
               for f in report.failures), report.text()
