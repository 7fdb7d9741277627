"""Game modes are registered records (``blockyard.modes``), contributed through
the ``blockyard_register_modes`` hook like any other registration; no module
switches on the mode's name, and the engine ↔ mode import cycle is gone."""

from __future__ import annotations

import ast
import dataclasses
import re
import tomllib
import types
from pathlib import Path

import pytest
import tomli_w

import blockyard
from blockyard import registry
from blockyard.bots import get_bot
from blockyard.discovery import clear_caches, load_ruleset_text
from blockyard.errors import PluginError, RulesetError
from blockyard.falling import FallingGame
from blockyard.hookspecs import hookimpl
from blockyard.modes import AreaWords, ModeChecks
from blockyard.plugins.modes import FALLING, TRAY
from blockyard.registry import get_mode, registered_modes
from blockyard.results import LandingFacts, MoveFacts, TrayFacts
from blockyard.stones import Stone
from blockyard.testing import check_ruleset
from blockyard.tray import TrayGame

ROOT = Path(__file__).resolve().parents[1]


class LongTrayGame(TrayGame):
    """A third party's engine: a tray game whose clock starts at one minute."""


LONG_TRAY = dataclasses.replace(TRAY, name="long-tray", engine=LongTrayGame,
                                area_words=AreaWords("Rows", "{n} row gone", "{n} rows gone"))


def _package(*modes: object) -> types.SimpleNamespace:
    """An entry-point module of a third-party package contributing ``modes``."""
    module = types.SimpleNamespace()

    @hookimpl
    def blockyard_register_modes(register):
        for mode in modes:
            register(mode)

    module.blockyard_register_modes = blockyard_register_modes
    return module


@pytest.fixture
def fresh_registry():
    """The process registry, loaded again afterwards (forgetting what a test added)."""
    yield registry.registry()
    registry.reload()
    clear_caches()


def _rules(base: str, **ruleset: str) -> str:
    data = tomllib.loads(blockyard.load_ruleset(base).to_toml())
    data["ruleset"].update(ruleset)
    return tomli_w.dumps(data)


def test_the_bundled_modes_are_registered_through_the_hook():
    reg = registry.registry()
    assert reg.modes["tray"] is TRAY and reg.modes["falling"] is FALLING
    assert reg.mode_sources["tray"] == reg.mode_sources["falling"] == registry.BUNDLED_DIST
    assert registered_modes() == {"tray": TRAY, "falling": FALLING}
    assert TRAY.engine is TrayGame and FALLING.engine is FallingGame
    assert blockyard.new_game("eu-classic", seed=1).mode is TRAY
    game = blockyard.new_game("sudoku-bloxx", seed=1)
    assert game.mode is FALLING and game.kind == "falling"
    assert blockyard.load_ruleset("sudoku-bloxx").mode_record is FALLING


def test_blockyard_register_modes_a_third_party_mode_loads_and_plays(fresh_registry):
    fresh_registry.add_module(_package(LONG_TRAY), "long-tray-package")
    assert get_mode("long-tray") is LONG_TRAY
    assert fresh_registry.mode_sources["long-tray"] == "long-tray-package"
    ruleset = load_ruleset_text(_rules("eu-classic", id="eu-long", mode="long-tray"))
    assert ruleset.mode == "long-tray" and ruleset.mode_record is LONG_TRAY
    game = blockyard.new_game(ruleset, seed=7)
    assert type(game) is LongTrayGame and game.kind == "long-tray"
    get_bot("greedy").play(game, max_moves=12)
    assert game.moves == 12 and game.score > 0
    snap = game.snapshot()
    assert snap["kind"] == "long-tray"
    restored = blockyard.restore(snap)
    assert type(restored) is LongTrayGame and restored.snapshot() == snap
    assert blockyard.replay(game.log).snapshot() == snap
    report = check_ruleset(ruleset, games=2, max_actions=40)
    assert report.ok, report.failures
    assert report.checks["end rule"] > 0  # the tray mode's checks ran for it


def test_the_modding_guide_registers_its_mode_example(fresh_registry):
    guide = (ROOT / "MODDING.md").read_text(encoding="utf-8")
    section = guide[guide.index("### Game modes"):guide.index("## 3. Checking your work")]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    namespace: dict[str, object] = {"__name__": "my_package"}
    exec(compile(code.group(1), "MODDING.md", "exec"), namespace)
    fresh_registry.add_module(types.SimpleNamespace(**namespace), "my-package")
    ruleset = load_ruleset_text(_rules("eu-classic", id="eu-long", mode="long-tray"))
    game = blockyard.new_game(ruleset, seed=1)
    assert type(game).__name__ == "LongTrayGame" and game.kind == "long-tray"
    assert game.mode.area_words == AreaWords("Rows", "{n} row gone", "{n} rows gone")


def test_a_snapshot_of_another_mode_is_refused(fresh_registry):
    fresh_registry.add_module(_package(LONG_TRAY), "long-tray-package")
    snap = blockyard.new_game("eu-classic", seed=3).snapshot()
    snap["ruleset"] = _rules("eu-classic", id="eu-long", mode="long-tray")
    with pytest.raises(blockyard.DataError, match="snapshot of a 'tray' game, but ruleset "
                       "'eu-long' plays 'long-tray'"):
        blockyard.restore(snap)


def test_an_unknown_mode_names_the_registered_ones():
    text = _rules("eu-classic", id="eu-odd", mode="sideways")
    with pytest.raises(RulesetError, match=re.escape(
            "unknown mode 'sideways'; the registered modes are 'falling', 'tray'")) as info:
        load_ruleset_text(text)
    assert "ruleset.mode" in str(info.value)


def test_a_taken_mode_name_is_reported_and_skipped(fresh_registry, capsys):
    impostor = dataclasses.replace(TRAY, engine=LongTrayGame)
    fresh_registry.add_module(_package(impostor), "impostor")
    assert "blockyard: mode name 'tray' of 'impostor' is taken (by Blockyard); skipped" \
        in capsys.readouterr().err
    assert fresh_registry.modes["tray"] is TRAY
    fresh_registry.add_module(_package(LONG_TRAY), "first")
    other = dataclasses.replace(LONG_TRAY, engine=TrayGame)
    fresh_registry.add_module(_package(other), "second")
    assert "mode name 'long-tray' of 'second' is taken (by 'first'); skipped" \
        in capsys.readouterr().err
    assert fresh_registry.modes["long-tray"] is LONG_TRAY
    assert any("'second'" in p for p in fresh_registry.problems)


def test_only_mode_records_can_be_registered(fresh_registry):
    with pytest.raises(PluginError, match=re.escape(
            "plugin package 'junk': registered a mode that is not a blockyard.modes.Mode")):
        fresh_registry.add_module(_package("tray"), "junk")


@pytest.mark.parametrize(("change", "message"), [
    ({"name": "Tray"}, "Mode.name: expected a lower-case letter"),
    ({"name": ""}, "Mode.name"),
    ({"engine": object}, "engine: expected a subclass of blockyard.Game"),
    ({"view": "tray_view.TrayGameView"}, "view: expected a dotted path"),
    ({"checks": None}, "checks: expected a ModeChecks"),
    ({"area_words": ("Lines",)}, "area_words: expected an AreaWords"),
    ({"bot_steps": "steps"}, "bot_steps: expected a function"),
    ({"move_actions": frozenset()}, "move_actions: expected a frozenset"),
    ({"move_actions": frozenset({"drop"})}, "move_actions .* are not all engine actions"),
    ({"engine_actions": {"place": -1}}, "engine_actions: expected a table"),
    ({"snapshot_fields": ["tray"]}, "snapshot_fields: expected a tuple"),
])
def test_a_malformed_mode_names_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(TRAY, **change)


def test_area_words_need_texts_with_a_count():
    with pytest.raises(ValueError, match=r"AreaWords.many: the text needs a \{n\} field"):
        AreaWords("Lines", "{n} line", "lines")
    with pytest.raises(ValueError, match=r"AreaWords\.heading: expected a text"):
        AreaWords(" ", "{n} line", "{n} lines")
    assert isinstance(TRAY.checks, ModeChecks)


def test_get_mode_lists_the_registered_modes():
    with pytest.raises(KeyError, match=r"unknown mode 'nope' \(registered modes: "
                       r"falling, tray\)"):
        get_mode("nope")


def test_the_modes_decide_what_differs():
    assert TRAY.has_tray and not FALLING.has_tray
    assert FALLING.realtime and not TRAY.realtime
    assert FALLING.given_board and not TRAY.given_board
    assert TRAY.snapshot_fields == ("tray",) and FALLING.snapshot_fields == ()
    assert TRAY.move_actions == {"place"} and FALLING.move_actions == {"hard"}
    assert TRAY.view == "blockyard.frontend.tray_view:TrayGameView"
    assert FALLING.view == "blockyard.frontend.sudoku_view:SudokuView"
    assert (TRAY.area_words.heading, FALLING.area_words.heading) == ("Lines", "Areas")


def test_given_stones_belong_to_modes_that_allow_them():
    data = tomllib.loads(blockyard.load_ruleset("eu-classic").to_toml())
    data["ruleset"]["id"] = "eu-given"
    data["board"]["given"] = "." * 10
    with pytest.raises(RulesetError, match="given stones are for falling games"):
        load_ruleset_text(tomli_w.dumps(data))


def _imports_outside_type_checking(path: Path) -> set[str]:
    """The modules ``path`` imports, at module or function level, except under
    ``if TYPE_CHECKING:``."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) \
                and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def test_the_engine_does_not_import_the_modes_that_build_on_it():
    imported = _imports_outside_type_checking(ROOT / "core" / "game.py")
    assert not imported & {".tray", ".falling", "blockyard.tray", "blockyard.falling"}
    assert not imported & {".modes", "blockyard.modes"}  # the record comes from the ruleset


def test_no_module_switches_on_a_mode_name():
    switch = re.compile(r"""(kind|mode)\s*(==|!=)\s*["'](tray|falling)["']|"""
                        r"""["'](tray|falling)["']\s*(==|!=)\s*\w*(kind|mode)\b""")
    found = [f"{path.relative_to(ROOT)}:{n}"
             for folder in ("core", "plugins", "frontend")
             for path in sorted((ROOT / folder).glob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), start=1)
             if switch.search(line)]
    assert found == []
    for name in ("GAME_CLASSES", "GAME_VIEWS", "KIND_CHECKS", "ENGINE_ACTIONS"):
        assert not any(name in path.read_text() for folder in ("core", "plugins", "frontend")
                       for path in (ROOT / folder).glob("*.py")), name


# -- what the scoring hook is told --------------------------------------------------------

def test_tray_facts_and_landing_facts_are_both_move_facts():
    eu = blockyard.load_ruleset("eu-classic")
    geo = eu.geometry
    piece = eu.pieces[0]
    tray = TrayFacts(piece=piece, cells=piece.size, regions=(), lines=0, perfect_clear=False,
                     combo=2, state={}, row=1, col=2, placed_mask=geo.piece(piece.cells).shape
                     << (1 * geo.cols + 2), geometry=geo)
    assert tray.placed_cells == {(1 + r, 2 + c) for r, c in piece.cells}
    stone = Stone(5)
    landed = LandingFacts(stone=stone, cell=(4, 3), dropped=2, error=False, discarded=False,
                          regions=(), state={})
    assert (landed.cells, landed.lines, landed.row, landed.col, landed.combo,
            landed.perfect_clear, landed.placed_cells) == (1, 0, 4, 3, 0, False,
                                                           frozenset({(4, 3)}))
    refused = dataclasses.replace(landed, error=True)
    assert (refused.cells, refused.row, refused.placed_cells) == (0, 4, frozenset({(4, 3)}))
    thrown = dataclasses.replace(landed, cell=None, discarded=True)
    assert (thrown.cells, thrown.row, thrown.col, thrown.placed_cells) == (
        0, None, None, frozenset())
    assert isinstance(tray, MoveFacts) and isinstance(landed, MoveFacts)


def test_each_mode_hands_the_scoring_hook_its_own_facts(monkeypatch):
    from blockyard.plugins.scoring import LineScoring
    from blockyard.plugins.sudoku import SudokuRules

    seen: list[object] = []

    def spy(cls):
        original = cls.blockyard_score

        @hookimpl
        def score(self, game, move):
            seen.append(move)
            return original(self, game, move)
        monkeypatch.setattr(cls, "blockyard_score", score)

    spy(LineScoring)
    spy(SudokuRules)
    clear_caches()  # rulesets loaded before bound the original methods
    try:
        game = blockyard.new_game("eu-classic", seed=2, tray=["##", None, None])
        game.place(0, 0, 0)
        assert seen and all(type(m) is TrayFacts for m in seen)
        assert (seen[-1].row, seen[-1].col, seen[-1].cells) == (0, 0, 2)
        assert seen[-1].placed_cells == {(0, 0), (0, 1)}
        seen.clear()
        falling = blockyard.new_game("sudoku-bloxx", seed=2)
        stone = falling.current.stone
        falling.hard_drop()
        assert seen and all(type(m) is LandingFacts for m in seen)
        assert seen[-1].stone == stone and seen[-1].cell is not None
    finally:
        monkeypatch.undo()
        clear_caches()
