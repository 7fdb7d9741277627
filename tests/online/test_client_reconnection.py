"""A live connection whose server stops: closed with code 1012 ("service
restart"), said as the server restarting, and connected again after waits drawn
between half and the whole of each step, so that the players one restart dropped
do not all come back at the same moment."""

from __future__ import annotations

from pathlib import Path

from server_support import start_server
from test_client import WAIT, signed_in, until

from blockyard import online
from blockyard.online import RECONNECT_DELAYS, reconnect_delay


def test_each_wait_is_between_half_and_the_whole_of_its_step() -> None:
    for attempt, step in enumerate(RECONNECT_DELAYS):
        assert reconnect_delay(attempt, draw=lambda: 0.0) == step / 2
        assert reconnect_delay(attempt, draw=lambda: 0.999) < step
        assert reconnect_delay(attempt, draw=lambda: 0.5) == step * 0.75
    # the last step for every attempt after it
    assert reconnect_delay(50, draw=lambda: 0.0) == RECONNECT_DELAYS[-1] / 2
    # two players dropped together: their waits differ
    waits = {round(reconnect_delay(0), 6) for _ in range(20)}
    assert len(waits) > 10
    assert all(RECONNECT_DELAYS[0] / 2 <= w <= RECONNECT_DELAYS[0] for w in waits)


def test_a_stopping_server_says_it_is_restarting(tmp_path: Path) -> None:
    server = start_server(f"sqlite:///{tmp_path / 'server.sqlite3'}", tmp_path)
    try:
        alice, _ = signed_in(server, "alice")
        table = alice.create_table("eu-classic", seats=2)
        feed = alice.feed()
        with alice.live(table.id) as live:
            until(live, "table")
            assert feed.wait_for(lambda f: f.state == "connected", WAIT)
            server.stop()  # SIGTERM: uvicorn closes every live connection with 1012
            lost = until(live, "connection")
            assert lost["state"] == "lost" and lost["kind"] == online.RESTARTING
            assert "restarting" in lost["reason"] and "1012" in lost["reason"]
            assert feed.wait_for(lambda f: f.state == "lost", WAIT)
            assert feed.lost_kind == online.RESTARTING
        feed.close()
    finally:
        server.stop()
