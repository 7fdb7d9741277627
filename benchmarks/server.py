"""Server benchmark, loopback only, bounded in count: verified submissions and
live-duel round trips of ``blockyard serve``.

Prints:

- ``verify``: replays verified per second on one core, in this process: the
  work a verifying worker does for ``POST /api/games``
  (``blockyard.server.verify.verify_replay``) on eu-classic games of about
  ``--moves`` placements (target 500 per second per core); ``--profile`` shows
  where that time goes;
- ``submit``: ``--games`` submissions over real HTTP to a ``blockyard serve``
  started here on 127.0.0.1 with an SQLite file in a temporary folder,
  ``--clients`` at a time (the whole path: HTTP, the token, the verifying pool,
  the database);
- ``duels``: ``--duels`` tables of two players each (``2 × duels`` WebSocket
  clients at once) playing ``--turns`` placements per player as fast as the
  server answers; the round trip of each action (sent → its own ``move``
  message back), p50 and p99 (target: p99 ≤ 50 ms for 1,000 clients).

Every loop is bounded by count, and each network wait by 60 seconds.

Run:  python benchmarks/server.py [--games 200] [--clients 8] [--duels 20]
                                  [--turns 15] [--moves 40] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import pstats
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import websockets

import blockyard
from blockyard.replays import replay_data
from blockyard.server.verify import verify_replay

TARGET_VERIFY = 500
TARGET_P99_MS = 50.0
WAIT = 60.0


def played(seed: int, moves: int) -> dict[str, Any]:
    game = blockyard.new_game("eu-classic", seed=seed)
    for _ in range(moves):
        if game.over:
            break
        game.place(*game.legal_moves()[0])
    if not game.over:
        game.end_round()
    return replay_data(game)


def verify_rate(replays: list[dict[str, Any]], profile: bool) -> float:
    verify_replay(replays[0], "warm-up")
    profiler = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if profiler:
        profiler.enable()
    for data in replays:
        verify_replay(data, "bench")
    if profiler:
        profiler.disable()
    rate = len(replays) / (time.perf_counter() - start)
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)
    return rate


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "BLOCKYARD_HOME": str(folder),
           "BLOCKYARD_SERVER_LIMITS": "create=1000000,sign_in_address=1000000,"
                                      "submit=1000000,sign_in_name=1000000"}
    process = subprocess.Popen(
        [sys.executable, "-m", "blockyard", "serve", "--port", str(port), "--database",
         f"sqlite:///{folder / 'bench.sqlite3'}"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/api/health", timeout=2).status_code == 200:
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


async def account(client: httpx.AsyncClient) -> tuple[str, str]:
    name = "b" + uuid.uuid4().hex[:12]
    await client.post("/api/accounts", json={"name": name, "password": "benchmark!"})
    answer = await client.post("/api/sessions", json={"name": name, "password": "benchmark!"})
    return name, answer.json()["token"]


async def submit_rate(url: str, replays: list[dict[str, Any]], clients: int) -> float:
    async with httpx.AsyncClient(base_url=url, timeout=WAIT) as client:
        _, token = await account(client)
        headers = {"Authorization": f"Bearer {token}"}
        queue = list(replays)
        failures = 0

        async def worker() -> None:
            nonlocal failures
            while queue:
                data = queue.pop()
                answer = await client.post("/api/games", content=json.dumps(data),
                                           headers=headers)
                failures += answer.status_code != 201
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        elapsed = time.perf_counter() - start
    if failures:
        print(f"  {failures} submissions were refused")
    return len(replays) / elapsed


async def duel_round_trips(url: str, duels: int, turns: int) -> list[float]:
    ws_url = url.replace("http://", "ws://")
    times: list[float] = []
    async with httpx.AsyncClient(base_url=url, timeout=WAIT) as client:
        tables = []
        for _ in range(duels):
            _, first = await account(client)
            _, second = await account(client)
            table = (await client.post("/api/tables", json={"ruleset_id": "eu-classic"},
                                       headers={"Authorization": f"Bearer {first}"})).json()
            await client.post(f"/api/tables/{table['id']}/join",
                              headers={"Authorization": f"Bearer {second}"})
            tables.append((table["id"], first, second))

    async def player(table_id: int, token: str, seat: int) -> None:
        async with websockets.connect(f"{ws_url}/api/tables/{table_id}/live?token={token}",
                                      open_timeout=WAIT) as ws:
            seed = None
            while seed is None:
                message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
                if message["type"] == "table":
                    seed = message["seed"]
            game = blockyard.new_game("eu-classic", seed=seed)
            for _ in range(turns):
                if game.over:
                    break
                action = ["place", *game.legal_moves()[0]]
                game.apply(action)
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "act", "action": action}))
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
                    if message["type"] == "refused":
                        raise SystemExit(f"refused: {message['reason']}")
                    if message["type"] == "move" and message["seat"] == seat:
                        times.append(time.perf_counter() - sent)
                        break

    await asyncio.gather(*(player(t, token, seat) for t, first, second in tables
                           for seat, token in ((0, first), (1, second))))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duels", type=int, default=20)
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    replays = [played(seed, args.moves) for seed in range(args.games)]
    moves = statistics.mean(len(r["log"]) - 1 for r in replays)
    rate = verify_rate(replays, args.profile)
    print(f"verify   {rate:8.0f} replays/s on one core (games of {moves:.0f} actions; "
          f"target {TARGET_VERIFY})")
    with tempfile.TemporaryDirectory() as folder:
        process, url = start_server(Path(folder))
        try:
            rate = asyncio.run(submit_rate(url, replays, args.clients))
            print(f"submit   {rate:8.0f} verified submissions/s over HTTP "
                  f"({args.clients} clients, {os.cpu_count()} cores, SQLite)")
            times = asyncio.run(duel_round_trips(url, args.duels, args.turns))
            ms = sorted(t * 1000 for t in times)
            p50, p99 = ms[len(ms) // 2], ms[min(len(ms) - 1, int(len(ms) * 0.99))]
            print(f"duels    {len(ms)} actions by {2 * args.duels} clients: round trip "
                  f"p50 {p50:.1f} ms, p99 {p99:.1f} ms (target p99 ≤ {TARGET_P99_MS:g} ms "
                  f"at 1,000 clients)")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
