"""What a server serves, and games played with other code or other rule numbers:
`blockyard serve` with the test plugin distribution quad-mono at 0.2.0 and a rule
file of its own, against a player whose quad-mono is 0.1.0 or whose rule file
is one number off. The refusal names the plugin and both versions, or the rule
key and both values, never "altered"."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from server_support import Server, finished_game, serve_with_plugin, write_mine

import blockyard
from blockyard.replays import replay_data


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory,
           quad_mono_site: Callable[..., Path]) -> Iterator[Server]:
    """A server with quad-mono 0.2.0 (4 points a cell) and the rule file ``mine``
    (a perfect clear pays 2000)."""
    running = serve_with_plugin(tmp_path_factory.mktemp("versionhome"),
                                quad_mono_site("0.2.0", points=4), perfect_clear=2000)
    try:
        yield running
    finally:
        running.stop()


def submit(server: Server, data: object) -> httpx.Response:
    _name, token = server.account()
    return server.client.post("/api/games", content=json.dumps(data),
                              headers={"Authorization": f"Bearer {token}"})


def test_the_server_lists_each_served_ruleset_with_its_digest_and_plugins(
        served: Server, plugin_at_version: Callable[..., Path], isolated_home: Path) -> None:
    plugin_at_version("0.2.0", points=4)  # what the server has: the same digests here
    write_mine(isolated_home, 2000)
    answer = served.client.get("/api/rulesets")
    assert answer.status_code == 200
    listed = {r["id"]: r for r in answer.json()["rulesets"]}
    assert {"eu-classic", "quad-mono", "mine", "sudoku-bloxx"} <= set(listed)
    for row in listed.values():
        assert set(row) == {"id", "name", "family", "digest", "plugins"}
    own = {"name": "blockyard", "version": blockyard.__version__}
    for rid in ("eu-classic", "quad-mono", "mine"):
        ruleset = blockyard.load_ruleset(rid)
        assert listed[rid]["digest"] == ruleset.digest
        assert (listed[rid]["name"], listed[rid]["family"]) == (ruleset.name, ruleset.family)
    assert listed["eu-classic"]["plugins"] == [own]
    assert listed["mine"]["plugins"] == [own]
    assert listed["quad-mono"]["plugins"] == [own, {"name": "quad-mono", "version": "0.2.0"}]
    one = served.client.get("/api/rulesets/quad-mono")
    assert one.status_code == 200
    assert one.json() == {**listed["quad-mono"],
                          "rules": blockyard.load_ruleset("quad-mono").to_toml()}
    assert served.client.get("/api/rulesets/nothing-here").status_code == 404
    assert served.client.get("/api/rulesets/..%2Fetc").status_code in (404, 422)
    assert served.client.get("/api/rulesets/" + "x" * 65).status_code == 422


def test_a_game_played_with_another_plugin_version_is_refused_naming_both_versions(
        served: Server, plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.1.0", points=3)
    game = finished_game("quad-mono")
    data = replay_data(game)
    assert {"name": "quad-mono", "version": "0.1.0"} in data["plugins"]
    answer = submit(served, data)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert "played with quad-mono 0.1.0; this server has 0.2.0" in error
    assert "altered" not in error
    # the same game played with the server's version counts, with the server's score
    plugin_at_version("0.2.0", points=4)
    game = finished_game("quad-mono")
    answer = submit(served, replay_data(game))
    assert answer.status_code == 201, answer.text
    assert answer.json()["score"] == game.score


def test_a_game_whose_plugin_the_server_lacks_is_refused_naming_its_package_and_version(
        server: Server, plugin_at_version: Callable[..., Path]) -> None:
    """A server without quad-mono (the plain ``server``, on SQLite and PostgreSQL)
    says which plugin package and version the game needs, not only that the
    ruleset is unknown."""
    plugin_at_version("0.1.0", points=3)
    data = replay_data(finished_game("quad-mono"))
    answer = submit(server, data)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error == ("the ruleset 'quad-mono' is not served here or cannot be loaded: the "
                     "game needs the plugin package quad-mono 0.1.0 (plugin 'quad-mono'), "
                     "and this server does not have it")
    del data["plugins"]  # a replay that records none: the ruleset's own error is said
    answer = submit(server, data)
    assert answer.status_code == 422
    assert "unknown ruleset 'quad-mono'" in answer.json()["error"]


def test_another_plugin_version_is_named_with_its_plugin_and_package(
        served: Server, plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.1.0", points=3)
    answer = submit(served, replay_data(finished_game("quad-mono", seed=5)))
    assert answer.status_code == 422
    assert answer.json()["error"].endswith(
        "played with quad-mono 0.1.0; this server has 0.2.0 (plugin 'quad-mono' of package "
        "quad-mono)")


def test_a_replay_without_plugin_versions_is_still_judged_by_its_log(
        served: Server, plugin_at_version: Callable[..., Path]) -> None:
    # replays written before they recorded their plugins: the log decides
    plugin_at_version("0.2.0", points=4)
    data = replay_data(finished_game("quad-mono", seed=8))
    del data["plugins"]
    answer = submit(served, data)
    assert answer.status_code == 201, answer.text
    plugin_at_version("0.1.0", points=3)
    data = replay_data(finished_game("quad-mono", seed=9))
    del data["plugins"]
    answer = submit(served, data)
    assert answer.status_code == 422  # the header's score is not what the log plays there
    assert "score" in answer.json()["error"]
    assert "or the game was played with other plugin versions" in answer.json()["error"]


def test_a_rule_number_off_is_refused_naming_the_key_and_both_values(
        served: Server, isolated_home: Path) -> None:
    write_mine(isolated_home, 2004)
    answer = submit(served, replay_data(finished_game("mine")))
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert ("the rules of 'mine' differ: played with plugins.line-scoring.perfect_clear = "
            "2004; this server has 2000") in error
    assert "altered" not in error and "changed" not in error
