"""blockyard.online compares before it opens, joins or submits: against a real
``blockyard serve`` with the test plugin quad-mono at 0.2.0 and its own rule
file ``mine``, a player whose quad-mono is 0.1.0 or whose ``mine`` is one
number off is told which plugin and both versions, or which rule key and both
values, and nothing is sent."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from server_support import Server, finished_game, serve_with_plugin, write_mine

import blockyard
from blockyard import online
from blockyard.online import Client, OnlineError, mirror_divergence
from blockyard.provenance import Mismatch, PluginVersion, of_ruleset


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory,
           quad_mono_site: Callable[..., Path]) -> Iterator[Server]:
    running = serve_with_plugin(tmp_path_factory.mktemp("clientversions"),
                                quad_mono_site("0.2.0", points=4), perfect_clear=2000)
    try:
        yield running
    finally:
        running.stop()


def signed_in(server: Server) -> tuple[Client, str]:
    client = Client(server.url)
    name = client.create_account(f"v{uuid.uuid4().hex[:10]}", "correct horse")
    client.sign_in(name, "correct horse")
    return client, name


def refusal(call: Callable[[], object]) -> OnlineError:
    with pytest.raises(OnlineError) as caught:
        call()
    return caught.value


def stored_games(server: Server, name: str) -> list[object]:
    return list(server.client.get(f"/api/accounts/{name}/games").json()["games"])


def test_the_client_lists_what_the_server_serves(served: Server) -> None:
    listed = {r.id: r for r in Client(served.url).rulesets()}
    own = PluginVersion("blockyard", blockyard.__version__)
    assert listed["quad-mono"].plugins == (own, PluginVersion("quad-mono", "0.2.0"))
    assert listed["eu-classic"].plugins == (own,)
    assert listed["eu-classic"].digest == blockyard.load_ruleset("eu-classic").digest
    served_rules = Client(served.url).served("eu-classic")
    assert served_rules is not None
    assert served_rules.rules == blockyard.load_ruleset("eu-classic").to_toml()
    assert refusal(lambda: Client(served.url).served("nothing-here")).kind == online.NOT_SERVED


def test_a_game_of_another_plugin_version_is_refused_before_it_is_sent(
        served: Server, plugin_at_version: Callable[..., Path]) -> None:
    client, name = signed_in(served)
    plugin_at_version("0.1.0", points=3)
    error = refusal(lambda: client.submit_game(finished_game("quad-mono")))
    assert error.kind == online.PLUGIN_DIFFERS and error.game
    assert error.mismatch == Mismatch("plugin", "quad-mono", "0.1.0", "0.2.0")
    assert "played with quad-mono 0.1.0; the server has 0.2.0" in error.message
    assert stored_games(served, name) == []  # nothing was sent
    plugin_at_version("0.2.0", points=4)
    game = finished_game("quad-mono")
    assert client.submit_game(game).score == game.score


def test_opening_or_joining_a_table_with_another_plugin_version_is_refused_naming_it(
        served: Server, plugin_at_version: Callable[..., Path]) -> None:
    plugin_at_version("0.2.0", points=4)
    bob, _bob = signed_in(served)
    alice, alice_name = signed_in(served)
    table = bob.create_table("quad-mono", invite=[alice_name])
    plugin_at_version("0.1.0", points=3)
    said = "this installation has quad-mono 0.1.0; the server has 0.2.0"
    opening = refusal(lambda: alice.create_table("quad-mono"))
    assert opening.kind == online.PLUGIN_DIFFERS and not opening.game
    assert said in opening.message
    for call in (lambda: alice.join(table.id),  # the table's rules asked of the server
                 lambda: alice.join(table.id, ruleset_id="quad-mono"),
                 lambda: alice.accept_invitation(table.id)):
        error = refusal(call)
        assert error.kind == online.PLUGIN_DIFFERS and said in error.message
        assert error.mismatch == Mismatch("plugin", "quad-mono", "0.1.0", "0.2.0")
    assert bob.table(table.id)["seats"] == [_bob, None]  # no seat was taken
    plugin_at_version("0.2.0", points=4)
    assert alice.join(table.id) == 1


def test_a_rule_number_off_is_named_before_a_table_opens_or_a_game_is_sent(
        served: Server, isolated_home: Path) -> None:
    write_mine(isolated_home, 2004)
    client, name = signed_in(served)
    expected = Mismatch("rule", "plugins.line-scoring.perfect_clear", "2004", "2000")
    opening = refusal(lambda: client.create_table("mine"))
    assert (opening.kind, opening.mismatch, opening.game) == (online.RULES_DIFFER, expected,
                                                             False)
    assert ("this installation has plugins.line-scoring.perfect_clear = 2004; the server "
            "has 2000") in opening.message
    sending = refusal(lambda: client.submit_game(finished_game("mine")))
    assert (sending.kind, sending.mismatch, sending.game) == (online.RULES_DIFFER, expected,
                                                             True)
    assert "played with plugins.line-scoring.perfect_clear = 2004; the server has 2000" \
        in sending.message
    assert stored_games(served, name) == []
    write_mine(isolated_home, 2000)
    blockyard.discovery.clear_caches()
    assert client.submit_game(finished_game("mine")).ruleset_id == "mine"


def test_a_server_older_than_the_rulesets_call_is_not_compared() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"error": "Not Found"})

    client = Client("127.0.0.1:9", transport=httpx.MockTransport(answer))
    assert client.served("eu-classic") is None
    assert client.compare(of_ruleset(blockyard.load_ruleset("eu-classic")), "eu-classic") \
        is None


def test_a_mirrored_game_that_goes_another_way_than_the_servers_is_told() -> None:
    game = blockyard.new_game("eu-classic", seed=4)
    game.place(*game.legal_moves()[0])
    assert mirror_divergence(game, game.score, False) is None
    assert mirror_divergence(game, game.score + 10, False) == (
        f"the score here is {game.score}; the server's is {game.score + 10}")
    assert mirror_divergence(game, game.score, True) == (
        "the game is not over here; on the server it is over")
