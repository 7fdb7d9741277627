"""The bomb mod of MODDING.md's worked example, played headless: the facts a
scoring rule gets (the clearing's ``cleared`` mask), pieces named by family and
shape (``bomb:#`` vs ``dot:#``), and old logs that still load."""

from __future__ import annotations

import json

import pytest

import blockyard
from blockyard import hookimpl
from blockyard.params import Params
from blockyard.pieces import Piece, parse_piece_name
from blockyard.results import Clearing, Scoring, TrayFacts

RULES = """
[ruleset]
id = "bombs"
name = "Bombs"
family = "test"
description = "a one-cell bomb beside a one-cell dot"
[board]
rows = 6
cols = 6
[pieces.dot]
shapes = ["#"]
[pieces.square]
shapes = ["##/##"]
[pieces.bomb]
shapes = ["#"]
weight = 0.5
look = { mark = "burst", outline = true }
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
[plugins.end-when-stuck]
[plugins.bomb]
[plugins.blast-scoring]
"""


class BombPlugin:
    """A placed bomb empties the 3×3 square around it (a new-style wrapper of
    the clearing hook)."""

    def __init__(self, params: Params) -> None:
        self.family = params.string("family", "bomb")

    def blast(self, game, row, col):
        mask = 0
        for r in range(row - 1, row + 2):
            for c in range(col - 1, col + 2):
                if 0 <= r < game.rows and 0 <= c < game.cols:
                    mask |= 1 << (r * game.cols + c)
        return mask

    @hookimpl
    def blockyard_affected_cells(self, game, piece, row, col):
        return self.blast(game, row, col) if piece.family == self.family else None

    @hookimpl(wrapper=True)
    def blockyard_clear(self, game, board, placed, piece, row, col):
        clearing = yield
        if piece is None or piece.family != self.family:
            return clearing
        blast = self.blast(game, row, col)
        cleared = clearing.cleared
        if cleared is None:
            cleared = 0
            for region in clearing.regions:
                cleared |= region.mask
        return Clearing(clearing.regions, clearing.board.empty(blast), clearing.row_drops,
                        cleared=(cleared | blast) & board.bits)


class BlastScoring:
    """Ten points per cell a move empties, read from the facts' ``cleared`` mask."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield
        if not isinstance(move, TrayFacts):
            return scoring
        return Scoring(len(move.cleared_cells) * 10, scoring.combo, scoring.state)


@pytest.fixture
def bombs(rule_file, register_plugin):
    register_plugin("bomb", BombPlugin)
    register_plugin("blast-scoring", BlastScoring)
    return blockyard.load_ruleset(rule_file(RULES))


BOARD = """
......
.##...
.#.#..
.###..
......
......
"""


def test_the_scoring_facts_carry_the_clearings_cleared_mask(bombs):
    game = blockyard.new_game(bombs, seed=1, board=BOARD, tray=["bomb:#", "dot:#"])
    preview = game.preview(0, 2, 2)
    assert preview.cleared_cells == {(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 1),
                                     (3, 2), (3, 3)}
    assert preview.points == 80  # 8 cells emptied (the bomb's own cell included)
    result = game.place(0, 2, 2)
    assert result.points == 80 and game.board_text().count("#") == 0


def test_a_plain_dot_of_the_same_shape_is_not_a_bomb(bombs):
    game = blockyard.new_game(bombs, seed=1, board=BOARD, tray=["bomb:#", "dot:#"])
    assert [p.family for p in game.tray[:2]] == ["bomb", "dot"]
    assert game.tray[0] != game.tray[1]
    result = game.place(1, 2, 2)
    assert result.points == 0 and result.cleared_cells == frozenset()
    assert game.board_text().count("#") == 8


def test_facts_built_by_hand_fall_back_to_the_regions_cells():
    geo = blockyard.load_ruleset("eu-classic").geometry
    row0 = geo.row_regions()[0]
    dot = Piece(frozenset({(0, 0)}), id="dot", family="dot")
    facts = TrayFacts(dot, 1, (row0,), 1, False, 0, {}, 0, 0, 1, geo)
    assert facts.cleared_mask == row0.mask and len(facts.cleared_cells) == 10
    assert facts.region_kinds == ("row",)
    assert TrayFacts(dot, 1, (row0,), 1, False, 0, {}, 0, 0, 1, geo, cleared=1
                     ).cleared_cells == {(0, 0)}


def test_the_log_names_the_family_and_replays_restores_the_same_pieces(bombs):
    game = blockyard.new_game(bombs, seed=3, tray=["dot:#", "bomb:#", "##/##"])
    assert game.log[0][1]["tray"] == ["dot:#", "#", "##\n##"]  # plain art: the last family
    game.place(1, 0, 0)
    copy = blockyard.replay(json.loads(json.dumps(game.log)))
    assert copy.snapshot() == game.snapshot()
    again = blockyard.restore(json.loads(json.dumps(game.snapshot())))
    assert [p and p.family for p in again.tray] == ["dot", None, "square"]


def test_plain_art_keeps_its_old_meaning_so_old_logs_still_load(bombs):
    game = blockyard.new_game(bombs, seed=3, tray=["#"])
    assert game.tray[0].family == "bomb"  # the family declared last, as before
    assert blockyard.replay(game.log).snapshot() == game.snapshot()


def test_a_piece_object_chooses_its_family(bombs):
    dot = next(p for p in bombs.pieces if p.family == "dot")
    game = blockyard.new_game(bombs, seed=3, tray=[dot])
    assert game.tray[0].family == "dot" and game.tray[0].name == "dot:#"


@pytest.mark.parametrize("item, words", [
    ("spark:#", "no family 'spark'"),
    ("dot:##", "no family 'dot'"),
    (":#", "family before ':'"),
    ("d t:#", "family before ':'"),
])
def test_an_unknown_or_malformed_family_is_refused_naming_the_slot(bombs, item, words):
    with pytest.raises(ValueError, match="tray slot 0") as info:
        blockyard.new_game(bombs, seed=3, tray=[item])
    assert words in str(info.value)


def test_piece_names_read_back():
    assert parse_piece_name("l:#./#./##") == ("l", frozenset({(0, 0), (1, 0), (2, 0), (2, 1)}))
    assert parse_piece_name("##\n##")[0] is None
    piece = Piece(frozenset({(0, 0), (1, 0), (2, 0), (2, 1)}), id="l", family="l")
    assert piece.name == "l:#./#./##"


def test_headless_play_with_bombs_conforms(bombs):
    from blockyard.testing import check_ruleset

    report = check_ruleset(bombs, games=2, max_actions=40)
    assert report.ok, report.text()


def _modding_block(after: str, index: int = 0) -> str:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "MODDING.md").read_text(encoding="utf-8")
    section = text.split(after, 1)[1]
    return section.split("```python\n")[index + 1].split("```", 1)[0]


def test_modding_shows_how_to_build_every_value_a_hook_returns():
    from blockyard.geometry import Board

    ruleset = blockyard.load_ruleset("eu-classic")
    board = Board(ruleset.geometry, 0b111)
    names = {"board": board, "mask": 0b11, "blast": 0b100, "regions": (),
             "drops": (), "bomb_piece": Piece(frozenset({(0, 0)}), id="bomb", family="bomb"),
             "points": 10, "combo": 1}
    exec(_modding_block("### Building the values hooks return"), names)
    for name in ("ActionSpec", "Region", "PieceFamily", "Clearing", "Scoring", "TrayFacts",
                 "LandingFacts", "FallingRules", "Stone"):
        assert name in names


def test_modding_facts_example_runs():
    exec(_modding_block("### Building the values hooks return", 1), {})


def test_a_family_has_a_look_from_the_rule_file(bombs, tmp_path):
    from blockyard.pieces import PieceLook

    bomb = bombs.families[2]
    assert bomb.name == "bomb" and bomb.look == PieceLook("burst", True)
    assert bombs.looks == {3: PieceLook("burst", True)}
    resolved = tmp_path / "resolved.toml"
    resolved.write_text(bombs.to_toml(), encoding="utf-8")
    assert blockyard.load_ruleset(resolved).looks == bombs.looks


@pytest.mark.parametrize("look, key, words", [
    ('{ mark = "skull" }', "pieces.bomb.look.mark", "expected one of"),
    ('{ outline = "yes" }', "pieces.bomb.look.outline", "expected"),
    ('{ colour = "red" }', "pieces.bomb.look.colour", "unknown"),
    ('"burst"', "pieces.bomb.look", "expected a table"),
])
def test_a_bad_look_names_the_key(rule_file, register_plugin, look, key, words):
    register_plugin("bomb", BombPlugin)
    register_plugin("blast-scoring", BlastScoring)
    text = RULES.replace('look = { mark = "burst", outline = true }', f"look = {look}")
    with pytest.raises(blockyard.RulesetError) as info:
        blockyard.load_ruleset(rule_file(text))
    assert key in str(info.value) and words in str(info.value)


def test_the_preview_knows_the_blast_area_empty_cells_included(bombs):
    game = blockyard.new_game(bombs, seed=1, board=BOARD, tray=["bomb:#", "dot:#"])
    before = game.snapshot()
    assert game.affected_cells(0, 0, 0) == {(0, 1), (1, 0), (1, 1)}
    assert game.affected_cells(0, 2, 2) == {(r, c) for r in (1, 2, 3) for c in (1, 2, 3)} \
        - {(2, 2)}
    assert game.affected_cells(1, 2, 2) == frozenset()  # a dot affects nothing more
    with pytest.raises(blockyard.IllegalMove):
        game.affected_cells(0, 1, 1)  # a filled cell
    assert game.snapshot() == before


def test_an_affected_cells_answer_off_the_board_is_a_plugin_error(rule_file, register_plugin):
    class Wild(BombPlugin):
        @hookimpl
        def blockyard_affected_cells(self, game, piece, row, col):
            return 1 << 99

    register_plugin("bomb", Wild)
    register_plugin("blast-scoring", BlastScoring)
    game = blockyard.new_game(blockyard.load_ruleset(rule_file(RULES)), seed=1,
                              tray=["bomb:#"])
    with pytest.raises(blockyard.PluginError, match=r"plugin .bomb.*affected_cells"):
        game.affected_cells(0, 0, 0)


def _walkthrough() -> str:
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "MODDING.md").read_text(encoding="utf-8")
    return text.split("## 6. Walk-through: a bomb piece, end to end", 1)[1].split(
        "### Another kind of bomb", 1)[0]


def test_the_bomb_piece_of_modding_md_works_as_written(register_plugin):
    """MODDING.md's walk-through "a bomb piece, end to end": its plugin, rule file
    (in the player's rulesets folder) and test, run as a modder would copy them."""
    from blockyard.paths import user_rulesets_dir
    from blockyard.testing import assert_conforms

    section = _walkthrough()
    plugin_code = section.split("```python\n")[1].split("```", 1)[0]
    rule_text = section.split("```toml\n")[1].split("```", 1)[0]
    test_code = section.split("```python\n")[2].split("```", 1)[0]
    module: dict[str, object] = {}
    exec(plugin_code, module)
    assert "blockyard_register_rulesets" in module  # the package's rule files are found
    register_plugin("bomb-blast", module["BombBlast"])
    folder = user_rulesets_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "woodoku-bomb.toml").write_text(rule_text, encoding="utf-8")
    ruleset = blockyard.load_ruleset("woodoku-bomb")
    assert ruleset.looks[len(ruleset.families)].mark == "burst"
    tests: dict[str, object] = {}
    exec(test_code, tests)
    tests["test_a_bomb_empties_the_square_around_it_and_a_dot_does_not"]()
    tests["test_the_ruleset_conforms"](lambda rid: assert_conforms(rid, games=2,
                                                                   max_actions=40))


def test_the_walkthroughs_commands_are_the_commands_blockyard_takes():
    """Every `blockyard …` line of the walk-through parses with the real command
    line (the look's --tray and --screenshot, the balance check's --compare)."""
    import shlex

    from blockyard.cli import build_parser

    lines = [line.strip().split("  #")[0] for line in _walkthrough().splitlines()
             if line.startswith("    blockyard ")]
    commands = {shlex.split(line)[1 if not line.split()[1].startswith("-") else 3]
                for line in lines}
    assert {"new-plugin", "list", "plugins", "check", "play", "simulate"} <= commands
    for line in lines:
        args = build_parser().parse_args(shlex.split(line)[1:])
        if getattr(args, "tray", None):
            assert args.tray == ["bomb:#", "dot:#"] and args.ruleset == "woodoku-bomb"
    assert any("--screenshot bomb.png play woodoku-bomb --tray" in line for line in lines)


def test_simulate_reports_how_often_the_bomb_was_dealt_and_placed(rule_file, register_plugin):
    from blockyard import lab
    from blockyard.cli import main

    register_plugin("bomb", BombPlugin)
    register_plugin("blast-scoring", BlastScoring)
    path = rule_file(RULES)
    report = lab.simulate(str(path), bot="greedy", games=4, seed=0, max_moves=200)
    bomb = report.summary()["pieces"]["bomb"]
    dealt = sum(d for g in report.games for f, d, _ in g.pieces if f == "bomb")
    placed = sum(p for g in report.games for f, _, p in g.pieces if f == "bomb")
    assert dealt > 0 and bomb["dealt_per_game"] == pytest.approx(dealt / 4)
    assert bomb["placed_per_game"] == pytest.approx(placed / 4)
    assert {"bomb", "dot", "square"} >= report.summary()["pieces"].keys()
    out = path.parent / "bombs.json"
    assert main(["simulate", str(path), "--games", "2", "--quiet", "--workers", "1",
                 "--max-moves", "100", "--json", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert "bomb" in data["summary"]["pieces"]
    assert set(data["games"][0]["pieces"]["bomb"]) == {"dealt", "placed"}


def test_the_docs_say_how_to_see_and_screenshot_a_look():
    """README's modding commands and MODDING's checking section show `play --tray`
    and `--screenshot`, in forms the command line takes."""
    import shlex
    from pathlib import Path

    from blockyard.cli import build_parser

    root = Path(__file__).resolve().parents[1]
    readme = root.joinpath("README.md").read_text(encoding="utf-8").split("## Modding", 1)[1]
    shots = [line.strip().split("  #")[0].removeprefix(".venv/bin/")
             for line in readme.splitlines() if "--screenshot" in line and "--tray" in line]
    assert shots, "README's modding section shows no screenshot of a look"
    for line in shots:
        args = build_parser().parse_args(shlex.split(line)[1:])
        assert args.screenshot is not None and args.tray == ["bomb:#", "dot:#"]
    checking = root.joinpath("MODDING.md").read_text(encoding="utf-8").split(
        "## 3. Checking your work", 1)[1].split("## 4.", 1)[0]
    assert "`blockyard\n--screenshot look.png play my-rules.toml --tray bomb:#`" in checking
    args = build_parser().parse_args(
        ["--screenshot", "look.png", "play", "my-rules.toml", "--tray", "bomb:#"])
    assert args.tray == ["bomb:#"]
