"""`GET /metrics` of `blockyard serve`, in Prometheus' text format: answers by
route and status, their times, live connections, tables by status, actions
accepted and refused by kind, verifications and their refusals, group-commit
sizes, the build; the sum of every process's figures with --workers; off with
--no-metrics."""

from __future__ import annotations

import json
import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from server_support import Postgres, Server, finished_game, start_server
from test_server_tables import auth, live, new_table, until

import blockyard
from blockyard.replays import replay_data


def scraped(server: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics``, by name and labels."""
    answer = server.client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain; version=")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(answer.text)
            for sample in family.samples}


def value(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str,
          **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


CLOSE_DEADLINE = 60.0
"""Seconds the server has to see closed connections close (a deadline for a
condition, not a measure of speed)."""


def closed(server: Server, connections: float
           ) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The samples once the server has seen the table's connections close: a
    closing handshake ends on the server after the client has let go, so the
    condition is waited for (asked again until it holds, within a deadline far
    beyond any machine's speed) rather than read at once."""
    deadline = time.monotonic() + CLOSE_DEADLINE
    while True:
        samples = scraped(server)
        counted = value(samples, "blockyard_live_connections", channel="table")
        if counted == connections or time.monotonic() > deadline:
            return samples
        time.sleep(0.05)  # the polling interval of the wait, not a tolerance


def test_what_the_server_counts(server: Server) -> None:
    before = scraped(server)
    _, alice = server.account("alice")
    _, bob = server.account("bob")
    table = new_table(server, alice)
    assert server.client.post(f"/api/tables/{table['id']}/join",
                              headers=auth(bob)).status_code == 200
    assert server.client.get("/api/tables/999999").status_code == 404
    with live(server, table["id"], alice) as a, live(server, table["id"], bob) as b:
        state = until(a, "table")
        until(b, "table")  # sent after the connection is counted: both are here
        game = blockyard.new_game("eu-classic", seed=state["seed"])
        action = ["place", *game.legal_moves()[0]]
        a.send(json.dumps({"type": "act", "action": action}))
        until(a, "move")
        a.send(json.dumps({"type": "act", "action": ["place", 0, 99, 99]}))
        assert until(a, "refused")["kind"] == "illegal"
        during = scraped(server)
    after = closed(server, value(before, "blockyard_live_connections", channel="table"))

    def grew(name: str, samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = after,
             **labels: str) -> float:
        return value(samples, name, **labels) - value(before, name, **labels)

    # answers by the route's template, not the address asked for
    assert grew("blockyard_http_requests_total", route="/api/tables/{table_id}",
                method="GET", status="404") == 1
    assert grew("blockyard_http_requests_total", route="/api/accounts", method="POST",
                status="201") == 2
    assert grew("blockyard_http_request_seconds_count", route="/api/tables/{table_id}/join",
                method="POST") == 1
    assert grew("blockyard_live_connections", during, channel="table") == 2
    assert grew("blockyard_live_connections", channel="table") == 0
    assert grew("blockyard_actions_total", outcome="accepted", kind="") == 1
    assert grew("blockyard_actions_total", outcome="refused", kind="illegal") == 1
    assert value(after, "blockyard_tables", status="playing") >= 1
    assert grew("blockyard_group_commit_size_count", store="actions") >= 1
    assert grew("blockyard_group_commit_size_sum", store="actions") >= 1


def test_verifications_are_counted_with_their_refusals(server: Server) -> None:
    before = scraped(server)
    _, token = server.account("v")
    game = finished_game("eu-classic", seed=11, moves=6)
    good = replay_data(game, player="v")
    assert server.client.post("/api/games", json=good, headers=auth(token)).status_code == 201
    forged = replay_data(game, player="v")
    forged["log"][1] = ["place", 0, 99, 99]  # a move the deal never allowed
    assert server.client.post("/api/games", json=forged,
                              headers=auth(token)).status_code == 422
    after = scraped(server)
    assert value(after, "blockyard_verification_seconds_count") \
        - value(before, "blockyard_verification_seconds_count") == 2
    assert value(after, "blockyard_verifications_refused_total") \
        - value(before, "blockyard_verifications_refused_total") == 1
    assert value(after, "blockyard_verifications_queued") == 0


def test_the_build_is_a_series_of_its_own(server: Server) -> None:
    version = server.client.get("/api/health").json()["version"]
    builds = {labels: sample for (name, labels), sample in scraped(server).items()
              if name == "blockyard_build_info"}
    assert builds == {(("version", version),): 1.0}


def test_head_is_counted_as_head_under_its_route(server: Server) -> None:
    before = value(scraped(server), "blockyard_http_requests_total", route="/api/health",
                   method="HEAD", status="200")
    assert server.client.head("/api/health").status_code == 200
    after = value(scraped(server), "blockyard_http_requests_total", route="/api/health",
                  method="HEAD", status="200")
    assert after - before == 1


def test_switched_off(tmp_path: Path) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path, "--no-metrics")
    try:
        answer = server.client.get("/metrics")
        assert answer.status_code == 404 and "--no-metrics" in answer.json()["error"]
    finally:
        server.stop()


def test_several_processes_add_up(postgres: Postgres, tmp_path: Path) -> None:
    server = start_server(postgres.new_database(), tmp_path, "--workers", "2")
    try:
        before = value(scraped(server), "blockyard_http_requests_total", route="/api/health",
                       method="GET", status="200")
        for _ in range(40):  # answered by either process
            with server.client.stream("GET", "/api/health",
                                      headers={"Connection": "close"}) as answer:
                assert answer.status_code == 200
        # whichever process answers the scrape, it counts every process's answers
        for _ in range(4):
            counted = value(scraped(server), "blockyard_http_requests_total",
                            route="/api/health", method="GET", status="200")
            assert counted - before == 40
        # one build, however many processes say it
        samples = scraped(server)
        builds = [labels for name, labels in samples if name == "blockyard_build_info"]
        assert builds == [(("version", blockyard.__version__),)]
        assert value(samples, "blockyard_build_info", version=blockyard.__version__) == 1
    finally:
        server.stop()
