"""What a replay was played with (blockyard.provenance): the plugin versions it
records, and a difference of code or rules named as what it is — the plugin
with both versions, the rule key with both values — never "altered"."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

import blockyard
from blockyard import provenance
from blockyard.provenance import Mismatch, PluginVersion, Provenance
from blockyard.replays import Replay, ReplayError, load_replay, replay_data
from blockyard.version import release


def played(ruleset: str = "quad-mono", seed: int = 3) -> blockyard.Game:
    game = blockyard.new_game(ruleset, seed=seed)
    for _ in range(5):
        game.place(*game.legal_moves()[0])
    game.end_round()
    return game


def test_a_replay_records_the_plugin_distributions_that_answered_its_rules(
        plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.1.0")
    own = {"name": "blockyard", "version": blockyard.__version__}
    assert replay_data(played())["plugins"] == [own, {"name": "quad-mono", "version": "0.1.0"}]
    assert replay_data(played("eu-classic"))["plugins"] == [own]


def test_a_replay_of_another_plugin_version_is_said_as_such_never_altered(
        plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.1.0", points=3)
    game = played()
    data = replay_data(game)
    plugin_at_version("0.2.0", points=4)  # plays the same log for other points
    with pytest.raises(ReplayError) as caught:
        Replay(None, data).check()
    text = str(caught.value)
    assert text.startswith("replay: played with quad-mono 0.1.0; this installation has "
                           "0.2.0 (plugin 'quad-mono' of package quad-mono); here its log "
                           "plays score ")
    assert f"not {game.score}" in text and "altered" not in text
    # a server refuses another version before it replays anything
    with pytest.raises(ReplayError, match=r"^replay: played with quad-mono 0\.1\.0; this "
                                          r"server has 0\.2\.0 \(plugin 'quad-mono' of "
                                          r"package quad-mono\); "):
        Replay(None, data).check(here="this server", exact_code=True)


def test_another_version_that_plays_the_same_is_shown_but_refused_by_a_referee(
        plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.1.0", points=3)
    data = replay_data(played())
    plugin_at_version("0.1.1", points=3)  # a release that plays the same
    assert Replay(None, data).check().score == data["score"]
    with pytest.raises(ReplayError, match=re.escape("played with quad-mono 0.1.0; this server "
                                                    "has 0.1.1")):
        Replay(None, data).check(here="this server", exact_code=True)


def another_build_of_this_release() -> str:
    """A development build of another commit of the running Blockyard's release."""
    numbers = release(blockyard.__version__)
    assert numbers is not None
    return ".".join(str(n) for n in numbers[1:]) + ".dev1+gdeadbee"


def test_a_replay_of_another_build_of_this_release_is_checked_as_before() -> None:
    # every commit has a version of its own; a server and a player of different
    # commits of one release still check each other's games, by their logs
    data = replay_data(played("eu-classic"))
    other = another_build_of_this_release()
    assert other != blockyard.__version__
    data["engine"] = other
    data["plugins"] = [{"name": "blockyard", "version": other}]
    assert Replay(None, data).check(here="this server", exact_code=True).score == data["score"]
    data["plugins"] = [{"name": "blockyard", "version": "99.0.0"}]  # another release
    with pytest.raises(ReplayError, match="^" + re.escape(
            f"replay: played with blockyard 99.0.0; this server has {blockyard.__version__}")):
        Replay(None, data).check(here="this server", exact_code=True)


def test_only_blockyard_itself_is_compared_by_release() -> None:
    rules = blockyard.load_ruleset("eu-classic").to_toml()
    ours = (PluginVersion("blockyard", "0.1.dev5+g1a2b3c4"),
            PluginVersion("quad-mono", "0.2.dev5+g1a2b3c4"))
    theirs = (PluginVersion("blockyard", "0.1.0"), PluginVersion("quad-mono", "0.2.0"))
    assert provenance.mismatch(Provenance(ours, "a", rules), Provenance(theirs, "a", rules)) \
        == Mismatch("plugin", "quad-mono", "0.2.dev5+g1a2b3c4", "0.2.0")
    assert provenance.mismatch(Provenance(ours[:1], "a"), Provenance(theirs[:1], "a")) is None
    assert provenance.mismatch(Provenance(ours[:1], "a"),
                               Provenance((PluginVersion("blockyard", "0.2.0"),), "a")) == \
        Mismatch("plugin", "blockyard", "0.1.dev5+g1a2b3c4", "0.2.0")


def test_a_replay_written_before_replays_recorded_plugins_still_loads(
        tmp_path: Path, plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.1.0")
    data = replay_data(played())
    del data["plugins"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data))
    loaded = load_replay(path)
    assert loaded.plugins is None
    assert loaded.check(exact_code=True).score == data["score"]


@pytest.mark.parametrize("plugins, where", [
    ("quad-mono", "plugins"), ([{"name": "quad-mono"}], "plugins[0].version"),
    ([{"name": "", "version": "1"}], "plugins[0].name"), ([5], "plugins[0]"),
    ([{"name": "x", "version": "1"}] * 65, "plugins")])
def test_a_malformed_plugin_list_is_refused_naming_the_entry(plugins: object,
                                                            where: str) -> None:
    data = replay_data(played("eu-classic"))
    data["plugins"] = plugins
    with pytest.raises(ReplayError, match="^" + re.escape(f"replay: {where}")):
        Replay(None, data).check()


def test_the_first_differing_rule_key_is_named_with_both_values() -> None:
    rules = blockyard.load_ruleset("eu-classic").to_toml()
    assert provenance.rule_difference(rules, rules) is None
    cases = [
        ("perfect_clear = 2000", "perfect_clear = 2004",
         Mismatch("rule", "plugins.line-scoring.perfect_clear", "2000", "2004")),
        ("    250,\n", "    260,\n",
         Mismatch("rule", "plugins.line-scoring.line_points[1]", "250", "260")),
        ("[board]\nrows = 10\n", "[board]\nrows = 10\n\"odd key\" = true\n",
         Mismatch("rule", 'board."odd key"', None, "true")),
        ("id = \"eu-classic\"", "id = \"eu-classic-2\"",
         Mismatch("rule", "ruleset.id", '"eu-classic"', '"eu-classic-2"')),
    ]
    for old, new, expected in cases:
        assert old in rules, old
        assert provenance.rule_difference(rules, rules.replace(old, new, 1)) == expected


def test_plugins_are_compared_first_then_the_rules() -> None:
    one = (PluginVersion("blockyard", "1"), PluginVersion("quad-mono", "0.1.0"))
    two = (PluginVersion("blockyard", "1"), PluginVersion("Quad_Mono", "0.2.0"))
    rules = blockyard.load_ruleset("eu-classic").to_toml()
    other = rules.replace("perfect_clear = 2000", "perfect_clear = 1")
    assert provenance.mismatch(Provenance(one, "a", rules), Provenance(two, "b", other)) == \
        Mismatch("plugin", "Quad_Mono", "0.1.0", "0.2.0")
    assert provenance.mismatch(Provenance(one, "a", rules), Provenance(one[:1], "a")) == \
        Mismatch("plugin", "quad-mono", "0.1.0", None)
    assert provenance.mismatch(Provenance(None, "a", rules), Provenance(two, "b", other)) == \
        Mismatch("rule", "plugins.line-scoring.perfect_clear", "2000", "1")
    assert provenance.mismatch(Provenance(one, "a"), Provenance(one, "b")) == \
        Mismatch("rule", "", "a", "b")
    assert provenance.mismatch(Provenance(one, "a"), Provenance(one, "a")) is None
    said = Mismatch("plugin", "quad-mono", "0.1.0", "0.2.0").sentence()
    assert said == "played with quad-mono 0.1.0; this server has 0.2.0"
    assert Mismatch("rule", "scoring.points", "314", "304").sentence() == \
        "played with scoring.points = 314; this server has 304"


DIAGONAL_RULES = """\
[ruleset]
id = "diagonals-classic"

[plugins.line-clearing]

[plugins.diagonals]
"""


def test_a_missing_plugin_package_is_named_with_its_version_and_plugins() -> None:
    """A package not installed here: its plugins are the ones the rules name that
    no installed package brings; its version the one the game was played with."""
    assert provenance.plugins_of("blockyard-diagonals", DIAGONAL_RULES) == ("diagonals",)
    assert provenance.plugins_of("blockyard", DIAGONAL_RULES) == ()  # the engine itself
    played_with = (PluginVersion("blockyard", blockyard.__version__),
                   PluginVersion("blockyard-diagonals", "0.1.0"))
    assert provenance.needed_here(played_with, DIAGONAL_RULES) == (
        "the game needs the plugin package blockyard-diagonals 0.1.0 (plugin 'diagonals'), "
        "and this server does not have it")
    assert provenance.needed_here(played_with[:1], DIAGONAL_RULES) is None
    # the engine itself is compared where the game is, never named as a package
    assert provenance.needed_here((PluginVersion("blockyard", "99.0.0"),), None) is None
    two = (PluginVersion("blockyard-diagonals", "0.1.0"), PluginVersion("quad-mono", "0.3.0"))
    assert provenance.needed_here(two, None, "this installation") == (
        "the game needs the plugin package blockyard-diagonals 0.1.0, and this installation "
        "does not have it; the plugin package quad-mono 0.3.0, and this installation does not "
        "have it")


def test_a_plugin_mismatch_names_the_plugin_and_its_package(
        plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.2.0")
    served = provenance.of_ruleset(blockyard.load_ruleset("quad-mono"))
    assert served.plugins is not None and served.rules is not None
    mine = tuple(PluginVersion(p.name, "0.1.0") if p.name == "quad-mono" else p
                 for p in served.plugins)
    found = provenance.mismatch(Provenance(mine, served.digest, served.rules), served)
    assert found == Mismatch("plugin", "quad-mono", "0.1.0", "0.2.0")
    assert found is not None and found.plugins == ("quad-mono",)
    assert found.sentence() == ("played with quad-mono 0.1.0; this server has 0.2.0 (plugin "
                                "'quad-mono' of package quad-mono)")
    two = Mismatch("plugin", "blockyard-diagonals", "0.1.0", None, ("diagonals", "anti"))
    assert two.sentence("this installation has", "the server has") == (
        "this installation has blockyard-diagonals 0.1.0; the server has no "
        "blockyard-diagonals (plugins 'diagonals', 'anti' of package blockyard-diagonals)")
