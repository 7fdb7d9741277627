"""Hooks exercised through small plugins, one test (at least) per hook that no
other test names: what each hook's documentation (core/hookspecs.py) promises.
tests/test_hook_meta.py checks that every hook has such a test."""

from __future__ import annotations

import types
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

import blockyard
from blockyard import IllegalMove, PluginError, RulesetError, hookimpl, registry
from blockyard.discovery import clear_caches
from blockyard.params import Params
from blockyard.stones import Stone

TRAY = """
[ruleset]
id = "answers"
name = "Answers"
family = "test"
description = "hook answers"
[board]
rows = 5
cols = 5
[pieces.dot]
shapes = ["#"]
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
"""


@pytest.fixture
def package_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[registry.Registry]:
    """The process registry loaded afresh, for a test to add a package's module
    to (as its entry point would); the real registry is back afterwards."""
    fresh = registry._load()
    monkeypatch.setattr(registry, "_registry", fresh)
    clear_caches()
    yield fresh
    monkeypatch.undo()
    clear_caches()


# -- blockyard_register_plugins and blockyard_register_rulesets ----------------------------

class Tagger:
    """Adds ``points`` to every move's score through the game's state."""

    def __init__(self, params: Params) -> None:
        self.points = params.integer("points", minimum=0)


def test_register_plugins_names_a_factory_rule_files_can_use(package_registry, rule_file):
    made: list[Params] = []

    def factory(params: Params) -> Tagger:
        made.append(params)
        return Tagger(params)

    package = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_plugins(register):
        register("tagger", factory)

    package.blockyard_register_plugins = blockyard_register_plugins
    package_registry.add_module(package, "tagging-package")
    assert package_registry.get("tagger").source == "tagging-package"
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.tagger]\npoints = 3\n"))
    # the factory received the plugin's own table and built the plugin object
    assert [p.prefix for p in made] == ["plugins.tagger"]
    assert dict(ruleset.plugin_objects)["tagger"].points == 3
    # a parameter the factory never read is refused, naming it
    with pytest.raises(RulesetError, match=r"plugins\.tagger\.colour"):
        blockyard.load_ruleset(rule_file(TRAY + "[plugins.tagger]\npoints = 3\ncolour = 1\n",
                                         "other.toml"))


def test_register_rulesets_contributes_a_folder_and_a_single_file(package_registry,
                                                                  tmp_path: Path):
    folder = tmp_path / "package-rules"
    folder.mkdir()
    (folder / "pkg-big.toml").write_text(
        '[ruleset]\nextends = "eu-classic"\nid = "pkg-big"\nname = "Big"\n'
        "[board]\nrows = 12\ncols = 12\n", encoding="utf-8")
    single = tmp_path / "pkg-small.toml"
    single.write_text('[ruleset]\nextends = "eu-classic"\nid = "pkg-small"\nname = "Small"\n'
                      "[board]\nrows = 8\ncols = 8\n", encoding="utf-8")
    package = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_rulesets(register):
        register(folder)
        register(single)

    package.blockyard_register_rulesets = blockyard_register_rulesets
    package_registry.add_module(package, "rules-package")
    infos = {info.id: info for info in blockyard.list_rulesets()}
    assert infos["pkg-big"].source == infos["pkg-small"].source == "plugin rules-package"
    assert infos["pkg-big"].path == str(folder / "pkg-big.toml")
    assert (blockyard.load_ruleset("pkg-big").rows, blockyard.load_ruleset("pkg-small").cols) \
        == (12, 8)


# -- blockyard_check_ruleset ---------------------------------------------------------------

class NeedsBigBoard:
    """Checks its ``min_rows`` against the board of the whole file."""

    checked: ClassVar[list[str]] = []

    def __init__(self, params: Params) -> None:
        self.min_rows = params.integer("min_rows", minimum=1)
        self.where = params.path

    @hookimpl
    def blockyard_check_ruleset(self, ruleset):
        NeedsBigBoard.checked.append(ruleset.id)
        if ruleset.rows < self.min_rows:
            raise RulesetError(f"needs at least {self.min_rows} rows, the board has "
                               f"{ruleset.rows}", path=self.where, key="plugins.needs-big")


def test_check_ruleset_is_asked_once_per_load_and_may_refuse_the_file(rule_file,
                                                                     register_plugin):
    register_plugin("needs-big", NeedsBigBoard)
    NeedsBigBoard.checked.clear()
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.needs-big]\nmin_rows = 5\n"))
    assert ruleset.rows == 5 and NeedsBigBoard.checked == ["answers"]
    path = rule_file(TRAY + "[plugins.needs-big]\nmin_rows = 6\n", "small.toml")
    with pytest.raises(RulesetError, match=r"plugins\.needs-big.*needs at least 6 rows") \
            as caught:
        blockyard.load_ruleset(path)
    assert str(path) in str(caught.value)


# -- blockyard_time_limit ------------------------------------------------------------------

class Clock90:
    def __init__(self, params: Params) -> None:
        self.seconds = params.number("seconds")

    @hookimpl
    def blockyard_time_limit(self, ruleset):
        return self.seconds


def test_time_limit_puts_a_clock_on_the_game_that_ends_it_as_time(rule_file, register_plugin):
    register_plugin("clock-90", Clock90)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.clock-90]\nseconds = 1.5\n"))
    assert ruleset.time_limit == 1.5
    assert blockyard.load_ruleset(rule_file(TRAY, "untimed.toml")).time_limit is None
    game = blockyard.new_game(ruleset, seed=1, tray=["#", "#", "#"])
    game.tick(1.0)
    assert game.over_reason is None
    game.place(0, 0, 0)
    game.tick(0.5)
    assert game.over_reason == "time"
    with pytest.raises(IllegalMove):
        game.place(1, 4, 4)
    bad = rule_file(TRAY + "[plugins.clock-90]\nseconds = -1\n", "negative.toml")
    with pytest.raises(PluginError, match=r"plugin 'clock-90', hook blockyard_time_limit.*"
                                          r"more than 0.*found -1"):
        blockyard.load_ruleset(bad)


# -- blockyard_max_errors ------------------------------------------------------------------

class ErrorLimit:
    def __init__(self, params: Params) -> None:
        self.limit = params.integer("limit")

    @hookimpl
    def blockyard_max_errors(self, ruleset):
        return self.limit


def test_max_errors_is_read_once_at_load_and_bounded(rule_file, register_plugin):
    register_plugin("error-limit", ErrorLimit)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.error-limit]\nlimit = 4\n"))
    assert ruleset.errors_allowed == 4
    assert blockyard.load_ruleset(rule_file(TRAY, "no-limit.toml")).errors_allowed is None
    for limit in (0, 10**6 + 1):
        bad = rule_file(TRAY + f"[plugins.error-limit]\nlimit = {limit}\n", f"bad{limit}.toml")
        with pytest.raises(PluginError, match=r"plugin 'error-limit', hook "
                                              r"blockyard_max_errors.*from 1 to 1,000,000"):
            blockyard.load_ruleset(bad)


# -- blockyard_end_reason ------------------------------------------------------------------

class ThreeMoves:
    """Ends the game after three moves; records the ``stuck`` flags it is given."""

    seen: ClassVar[list[tuple[int, bool]]] = []

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        ThreeMoves.seen.append((game.moves, stuck))
        return "three-moves" if game.moves >= 3 else None


def test_end_reason_ends_the_game_with_the_plugins_reason(rule_file, register_plugin):
    register_plugin("three-moves", ThreeMoves)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.three-moves]\n"))
    ThreeMoves.seen.clear()
    game = blockyard.new_game(ruleset, seed=1)
    for _ in range(3):
        assert game.over_reason is None
        game.place(*game.legal_moves()[0])
    assert game.over_reason == "three-moves"
    assert game.snapshot()["over_reason"] == "three-moves"
    # asked after every move (pieces still fit: ``stuck`` is False), ending at the third
    assert ThreeMoves.seen[-3:] == [(1, False), (2, False), (3, False)]
    with pytest.raises(IllegalMove, match="over"):
        game.place(0, 0, 0)


class StuckWords:
    """Gives a reason of its own when the game is stuck."""

    seen: ClassVar[list[bool]] = []

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        StuckWords.seen.append(stuck)
        return "no-room" if stuck else None


def test_end_reason_is_told_when_the_game_is_stuck(rule_file, register_plugin):
    register_plugin("stuck-words", StuckWords)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.stuck-words]\n"))
    StuckWords.seen.clear()
    full = "\n".join("#" * ruleset.cols for _ in range(ruleset.rows))
    game = blockyard.new_game(ruleset, seed=1, board=full)
    assert game.over_reason == "no-room"
    assert StuckWords.seen[-1] is True
    plain = blockyard.new_game(blockyard.load_ruleset(rule_file(TRAY)), seed=1, board=full)
    assert plain.over_reason == "stuck"


# -- blockyard_accept_stone ----------------------------------------------------------------

FALLING = """
[ruleset]
id = "odd-stones"
name = "Odd stones"
family = "test"
description = "only odd digits may stay"
mode = "falling"
[board]
rows = 4
cols = 3
[plugins.falling-stones]
fall_seconds = 1.0
soft_drop_seconds = 0.1
spawn_col = 1
upcoming = 1
[plugins.sudoku-stones]
symbol_chance = 0.0
golden_chance = 0.0
[plugins.odd-only]
"""


class OddOnly:
    """Odd digits may stay, even ones are errors; symbols get no answer."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_accept_stone(self, game, stone, row, col):
        if stone.digit is None:
            return None
        return stone.digit % 2 == 1


def test_accept_stone_false_makes_the_landing_an_error_and_removes_the_stone(
        rule_file, register_plugin):
    register_plugin("odd-only", OddOnly)
    ruleset = blockyard.load_ruleset(rule_file(FALLING))
    game = blockyard.new_game(ruleset, seed=1, stream="3 4 S 5")
    assert game.current.stone == Stone(3)
    landed = game.hard_drop()  # 3: odd, stays
    assert not landed.error and game.board[3][1] == Stone(3) and game.errors == 0
    landed = game.hard_drop()  # 4: even, an error; the stone is removed
    assert landed.error and (landed.row, landed.col) == (2, 1)
    assert game.board[2][1] is None and game.errors == 1
    landed = game.hard_drop()  # a symbol: no answer, so it stays
    assert not landed.error and game.board[2][1] == Stone(None, symbol=True)
    assert game.current.stone == Stone(5) and game.errors == 1


# -- blockyard_summary_tips ----------------------------------------------------------------

class CountingTips:
    """Tips from the end position: how many lines, then a fixed second tip."""

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_summary_tips(self, game, summary):
        return [f"{summary['lines_cleared']} lines, {summary['points']} points",
                "second tip"]


def test_summary_tips_the_summary_shows_the_first_tip(rule_file, register_plugin):
    register_plugin("counting-tips", CountingTips)
    ruleset = blockyard.load_ruleset(rule_file(TRAY + "[plugins.counting-tips]\n"))
    game = blockyard.new_game(ruleset, seed=1, board="####.\n" + "\n".join(["....."] * 4),
                              tray=["#", None, None])
    game.place(0, 0, 4)
    summary = game.summary()
    assert summary.tip == f"1 lines, {game.score} points"
    assert game.score == 1 + 10
    without = blockyard.load_ruleset(rule_file(TRAY, "plain.toml"))
    assert blockyard.new_game(without, seed=1).summary().tip is None
