"""Rule files: loading, extends, validation messages, to_toml round trips."""

from __future__ import annotations

import textwrap

import pytest

import blockyard
from blockyard import RulesetError, hookimpl
from blockyard.discovery import load_ruleset_text
from blockyard.params import Params

BUNDLED = [info.id for info in blockyard.list_rulesets()]

MINIMAL = """
[ruleset]
id = "mini"
name = "Mini"
family = "test"
description = "a 5×5 test ruleset"

[board]
rows = 5
cols = 5

[pieces.dot]
weight = 1
shapes = ["#"]

[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.end-when-stuck]
"""


def write(rule_file, text: str):
    return rule_file(textwrap.dedent(text))


def error_of(rule_file, text: str) -> str:
    path = write(rule_file, text)
    with pytest.raises(RulesetError) as info:
        blockyard.load_ruleset(path)
    message = str(info.value)
    assert str(path) in message  # every error names the file
    return message


def test_a_minimal_rule_file_loads_and_plays(rule_file):
    ruleset = blockyard.load_ruleset(write(rule_file, MINIMAL))
    assert (ruleset.id, ruleset.family, ruleset.rows, ruleset.cols) == ("mini", "test", 5, 5)
    game = blockyard.new_game(ruleset, seed=1)
    assert game.tray[0].art == "#"


@pytest.mark.parametrize("ruleset_id", BUNDLED)
def test_to_toml_loads_back_to_an_equal_ruleset(ruleset_id, tmp_path):
    ruleset = blockyard.load_ruleset(ruleset_id)
    text = ruleset.to_toml()
    assert "extends" not in text
    assert load_ruleset_text(text) == ruleset
    path = tmp_path / "copy.toml"
    path.write_text(text)
    again = blockyard.load_ruleset(path)
    assert again == ruleset
    assert again.to_toml() == text


def test_extends_states_only_what_differs():
    classic = blockyard.load_ruleset("eu-classic").data
    hardcore = blockyard.load_ruleset("eu-hardcore").data
    assert hardcore["plugins"] == classic["plugins"]
    assert hardcore["board"] == classic["board"]
    assert [f["shapes"] for f in hardcore["pieces"].values()] == \
        [f["shapes"] for f in classic["pieces"].values()]
    assert hardcore["pieces"]["dot"]["weight"] == 0.25
    assert hardcore["ruleset"]["family"] == "eu"


def test_extends_a_relative_path_and_drops_plugins_with_false(rule_file, tmp_path):
    write(rule_file, MINIMAL)
    child = tmp_path / "child.toml"
    child.write_text('[ruleset]\nextends = "rules.toml"\nid = "child"\nname = "Child"\n'
                     "[plugins]\nend-when-stuck = false\n[board]\nrows = 6\n")
    ruleset = blockyard.load_ruleset(child)
    assert (ruleset.rows, ruleset.cols) == (6, 5)
    assert [name for name, _ in ruleset.plugin_objects] == ["weighted-dealing", "line-clearing"]


def test_toml_syntax_error_names_the_line(rule_file):
    message = error_of(rule_file, MINIMAL.replace("rows = 5", "rows = = 5"))
    assert "TOML syntax error" in message and "line 9" in message  # rows = = 5


@pytest.mark.parametrize("change, key, expected, found", [
    (("rows = 5", 'rows = "ten"'), "board.rows", "expected an integer", "string 'ten'"),
    (("rows = 5", "rows = 0"), "board.rows", "at least 1", "found 0"),
    (("cols = 5", "cols = 99"), "board.cols", "at most 32", "found 99"),
    (('id = "mini"', 'id = "Mini Rules"'), "ruleset.id", "lower-case", "'Mini Rules'"),
    (('name = "Mini"', "name = 3"), "ruleset.name", "expected a string", "integer 3"),
    (("weight = 1", 'weight = "heavy"'), "pieces.dot.weight", "expected a number",
     "string 'heavy'"),
    (("weight = 1", "weight = -1"), "pieces.dot.weight", "at least 0", "found -1"),
    (('shapes = ["#"]', 'shapes = ["#x"]'), "pieces.dot.shapes[0]", "'#'", "'x'"),
    (('shapes = ["#"]', "shapes = []"), "pieces.dot.shapes", "non-empty array", "[]"),
    (('shapes = ["#"]', 'shapes = ["######"]'), "pieces.dot", "does not fit", "5×5"),
    (("[plugins.line-clearing]", "[plugins.line-clearing]\ngravity = 1"),
     "plugins.line-clearing.gravity", "true or false", "integer 1"),
    (("[plugins.line-clearing]", "[plugins.line-clearing]\ngravty = true"),
     "plugins.line-clearing.gravty", "unknown key", ""),
    (("[plugins.end-when-stuck]", "[plugins.end-when-stuk]"), "plugins.end-when-stuk",
     "unknown plugin 'end-when-stuk'", "end-when-stuck"),
    (("[plugins.weighted-dealing]", '[plugins.weighted-dealing]\nguarantee = "always"'),
     "plugins.weighted-dealing.guarantee", "expected one of", "'always'"),
    (('description = "a 5×5 test ruleset"', ""), "ruleset.description", "missing", ""),
    (("[board]", "[bord]"), "bord", "unknown table", ""),
])
def test_a_bad_file_names_the_file_the_key_what_was_expected_and_found(
        rule_file, change, key, expected, found):
    message = error_of(rule_file, MINIMAL.replace(*change))
    assert f": {key}: " in message
    assert expected in message
    assert found in message


def test_a_ruleset_without_a_dealing_plugin_is_refused(rule_file):
    message = error_of(rule_file, MINIMAL.replace("[plugins.weighted-dealing]", ""))
    assert "no plugin deals pieces" in message


def test_tier_weights_must_name_existing_families(rule_file):
    """checked by weighted-dealing in blockyard_check_ruleset"""
    message = error_of(rule_file, MINIMAL.replace(
        "[plugins.weighted-dealing]",
        '[plugins.weighted-dealing]\ntiers = [{ from_score = 0, weights = { dott = 1 } }]'))
    assert "plugins.weighted-dealing.tiers[0].weights.dott" in message
    assert "unknown piece family 'dott'" in message


def test_extends_an_unknown_ruleset_or_in_a_loop(rule_file, tmp_path):
    message = error_of(rule_file, '[ruleset]\nextends = "no-such-rules"\n')
    assert "ruleset.extends" in message and "no-such-rules" in message
    (tmp_path / "a.toml").write_text('[ruleset]\nextends = "b.toml"\nid = "a"\n')
    (tmp_path / "b.toml").write_text('[ruleset]\nextends = "a.toml"\nid = "b"\n')
    with pytest.raises(RulesetError, match="loops back"):
        blockyard.load_ruleset(tmp_path / "a.toml")


def test_extends_a_missing_file_names_the_asking_file_and_key(tmp_path):
    child = tmp_path / "child.toml"
    child.write_text('[ruleset]\nextends = "base.toml"\nid = "child"\nname = "Child"\n')
    with pytest.raises(RulesetError) as info:
        blockyard.load_ruleset(child)
    message = str(info.value)
    assert str(child) in message and "ruleset.extends" in message
    assert "'base.toml' it extends does not exist" in message
    assert str(tmp_path / "base.toml") in message


def test_unknown_ruleset_id_and_missing_file():
    with pytest.raises(RulesetError, match=r"unknown ruleset 'eu-classik'.*eu-classic"):
        blockyard.load_ruleset("eu-classik")
    with pytest.raises(RulesetError, match="no such rule file"):
        blockyard.load_ruleset("/nonexistent/rules.toml")


class Misspelled:
    name = "misspelled"

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_scroe(self, game, move):  # a typo: no such hook
        return None


class WrongArguments:
    name = "wrong-arguments"

    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_score(self, game, moove):
        return None


class SecondScorer:
    def __init__(self, params: Params) -> None:
        pass

    @hookimpl
    def blockyard_score(self, game, move):
        return None


def test_a_misspelled_hook_fails_loudly(rule_file, register_plugin):
    register_plugin("misspelled", Misspelled)
    message = error_of(rule_file, MINIMAL + "[plugins.misspelled]\n")
    assert ": plugins.misspelled: plugin 'misspelled' implements blockyard_scroe, which is " \
           "not a Blockyard hook" in message


def test_a_hook_with_wrong_arguments_fails_loudly(rule_file, register_plugin):
    register_plugin("wrong-arguments", WrongArguments)
    message = error_of(rule_file, MINIMAL + "[plugins.wrong-arguments]\n")
    assert "plugins.wrong-arguments" in message and "moove" in message


def test_two_plugins_answering_one_single_answer_hook_conflict(rule_file, register_plugin):
    register_plugin("second-scorer", SecondScorer)
    text = MINIMAL + "[plugins.line-scoring]\ntriangular_base = 10\n[plugins.second-scorer]\n"
    message = error_of(rule_file, text)
    assert "plugins.line-scoring and plugins.second-scorer" in message
    assert "blockyard_score" in message


def test_user_rule_files_are_listed_with_their_source(isolated_home):
    folder = isolated_home / "config" / "rulesets"
    folder.mkdir(parents=True)
    (folder / "mini.toml").write_text(MINIMAL)
    (folder / "broken.toml").write_text("[ruleset\n")
    infos = {i.id: i for i in blockyard.list_rulesets()}
    assert "broken.toml" in infos["broken"].error and "TOML syntax error" in infos["broken"].error
    assert infos["mini"].source == "user" and infos["mini"].error is None
    assert infos["eu-classic"].source == "bundled"
    assert blockyard.load_ruleset("mini").rows == 5


def test_a_family_set_to_false_drops_the_one_inherited(rule_file):
    # MODDING.md: `[pieces]` `NAME = false` drops a family the base ruleset has
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "no-plus"\nname = "No plus"\n'
                     "[pieces]\nS = false\nZ = false\n")
    families = [f.name for f in blockyard.load_ruleset(path).families]
    base = [f.name for f in blockyard.load_ruleset("eu-classic").families]
    assert families == [name for name in base if name not in ("S", "Z")]
    game = blockyard.new_game(blockyard.load_ruleset(path), seed=3)
    for _ in range(30):
        if game.over:
            break
        assert all(p is None or p.family not in ("S", "Z") for p in game.tray)
        game.place(*game.legal_moves()[0])
