"""Submissions are fair under big bodies (docs/online.md, "Nobody crowds the
others out"): a normal ``POST /api/games`` sent while four 490,000-entry logs wait to be checked
is answered as if it were alone, the long ones refused (422, by their length,
before anything is replayed) in a lane of their own; a body over the limit is
refused from its ``Content-Length`` before it is read, and a streamed one cut
off at the limit. Checked by what is answered and in which order, never by a
time. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
from server_support import Server, finished_game
from test_server_dealt_games import rotations

from blockyard.replays import MAX_REPLAY_BYTES, replay_data

WAIT = 120.0  # seconds: a bound on what must happen, never a measured time
ENTRIES = 490_000


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def long_log(entries: int = ENTRIES) -> bytes:
    """A legal arcadeforge-rotate replay whose first piece is turned ``entries``
    times before its first placement, as a body."""
    return json.dumps(rotations(entries)).encode()


def queued(server: Server) -> float:
    """The submissions waiting for or in a verifying process (``/metrics``)."""
    text = server.client.get("/metrics").text
    found = re.search(r"^blockyard_verifications_queued(?:\{[^}]*\})? (\S+)$", text,
                      re.MULTILINE)
    assert found is not None, text[:2000]
    return float(found.group(1))


def test_a_normal_submission_is_not_held_by_four_long_logs(server: Server) -> None:
    _, token = server.account("fair")
    first, normal = (replay_data(finished_game("eu-classic", seed=seed))
                     for seed in (11, 12))
    # the verifying process is started by one submission first (its time alone)
    warm = server.client.post("/api/games", json=first, headers=auth(token))
    assert warm.status_code == 201, warm.text
    body = long_log()
    assert len(body) < MAX_REPLAY_BYTES  # read whole: refused by its length after
    answers: list[httpx.Response] = []
    lock = threading.Lock()

    def send_long() -> None:
        with httpx.Client(base_url=server.url, timeout=WAIT) as client:
            answer = client.post("/api/games", content=body,
                                 headers={**auth(token), "Content-Type": "application/json"})
        with lock:
            answers.append(answer)

    senders = [threading.Thread(target=send_long) for _ in range(4)]
    for sender in senders:
        sender.start()
    deadline = time.monotonic() + WAIT
    # all four in (or waiting for) a verifying process (or, on a machine fast
    # enough to refuse one before the last arrives, one of them answered already)
    while queued(server) < 4 and not answers:
        assert time.monotonic() < deadline, "the long logs never reached verification"
        time.sleep(0.05)  # polling interval of the wait above (bounded by its deadline)
    answer = server.client.post("/api/games", json=normal, headers=auth(token))
    with lock:
        answered_before = len(answers)
    assert answer.status_code == 201, answer.text
    assert answer.json()["score"] == normal["score"]
    # answered while long logs were still waiting: not queued behind the four
    assert answered_before < 4
    for sender in senders:
        sender.join(WAIT)
    assert [a.status_code for a in answers] == [422] * 4
    for refused in answers:
        assert "verified up to" in refused.json()["error"], refused.text


def raw_request(server: Server, head: bytes, body: bytes = b"") -> bytes:
    """Send ``head`` (and ``body``) on a socket of its own; the answer's bytes."""
    parts = urlsplit(server.url)
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80),
                                  timeout=WAIT) as conn:
        conn.sendall(head + body)
        answer = b""
        while b"\r\n\r\n" not in answer or not re.search(rb"\}\s*$", answer):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_body_over_the_limit_is_refused_before_it_is_read(server: Server) -> None:
    _, token = server.account("big")
    # the headers alone: the answer comes without a byte of the body sent
    head = (f"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}"
            f"\r\nContent-Type: application/json\r\nContent-Length: {MAX_REPLAY_BYTES + 1}"
            "\r\n\r\n").encode()
    answer = raw_request(server, head)
    assert answer.startswith(b"HTTP/1.1 422"), answer[:200]
    assert f"larger than {MAX_REPLAY_BYTES} bytes".encode() in answer


def test_a_streamed_body_is_cut_off_at_the_limit(server: Server) -> None:
    _, token = server.account("stream")

    def chunks() -> Any:  # no Content-Length: sent in chunks, past the limit
        piece = b" " * (1 << 20)
        for _ in range(MAX_REPLAY_BYTES // len(piece) + 4):
            yield piece

    answer = server.client.post("/api/games", content=chunks(),
                                headers={**auth(token), "Content-Type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert f"larger than {MAX_REPLAY_BYTES} bytes" in answer.json()["error"]
