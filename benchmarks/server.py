"""Server benchmark, loopback only, bounded in count and time: verified
submissions and live-duel round trips of ``blockyard serve``.

Prints:

- ``verify``: replays verified per CPU-second, in this process: the work a
  verifying process does for ``POST /api/games``
  (``blockyard.server.verify.verify_replay``; no hook watchdog there, each
  verification's own budget bounds it) on eu-classic games of about ``--moves``
  placements (target 500 per core), beside the same games replayed by hand with
  the headless API (``blockyard.replay`` of the log) and their ratio (target
  0.9), beside the same games checked by hand (``Replay.check()``: the header
  and the final digest compared too), and beside the floor under both
  (``new_game`` of the same seed, then ``apply`` of every action, nothing
  checked); ``--profile`` shows where the time goes
  (``benchmarks/verify_cost.py``: the same comparison in instructions);
- ``submit``: ``--games`` submissions over real HTTP to a ``blockyard serve``
  started here on 127.0.0.1 with an SQLite file in a temporary folder,
  ``--clients`` at a time after a warm-up (the whole path: HTTP, the token, the
  shared rate limit, the verifying pool, the database), and the time of one
  submission alone;
- ``beside``: on that server, the time of a normal submission alone and sent
  at the same moment as four legal 490,000-entry logs (arcadeforge-rotate, one
  piece turned 490,000 times: each refused before it is replayed), each sent
  by a client process of its own, and sent once four such logs are in the
  server waiting for verification (``/metrics``), ``--rounds`` times (target:
  within 100 ms of alone);
- ``duels``: ``--duels`` tables of two players each (``2 × duels`` WebSocket
  clients at once, on that SQLite server) playing ``--turns`` placements of the
  bundled first-legal-move bot per player as fast as the server answers, then
  ending; the round trip of each action (sent → its own ``move`` message back),
  p50 and p99, and the games lost;
- ``killed``: two server processes on one throwaway PostgreSQL (started here in
  a temporary folder, like the tests do), ``--kill-duels`` duels with seat 0 on
  the first process and seat 1 on the second; once half the actions are in, the
  first process is ``kill -9``'d: its clients reconnect to the second, check
  that every move they had accepted is still there, and play on. A game is lost
  when an accepted move is missing or its stored result is not what was played
  (target: 0);
- ``many``: the same two processes, ``2 × --many`` clients (default 1,000)
  acting every ``--think`` seconds on average (a human pace; default 2 s), for
  at most ``--seconds``;
- ``floor``: Blockyard beside a floor of its own on the same stack
  (``benchmarks/floor.py``: a minimal Starlette + uvicorn app that parses the
  JSON, checks it against in-memory state, stores one row and NOTIFYs it, sends
  the move to the seats; psycopg 3 async), the floor once with one transaction
  per action and once with group commit, then the group-commit floor checking
  each action on the engine too (``floor + rules``: the rules' own cost), each
  system as two processes on its
  own database of one throwaway PostgreSQL (synchronous commit), back to back,
  driven by the same duel client (seat 0 on one process, seat 1 on the other).
  Per system: the growth of a process's memory per idle WebSocket (``--idle``
  of them with permessage-deflate offered by the client, then as many without);
  for each of ``--saturate`` client counts, actions per second as fast as
  answered (the clients connect first, then act together), and the CPU per
  action of the server processes, of PostgreSQL and of this client; then
  ``--pace`` clients acting every ``--think`` seconds on average: p50 and p99
  of the round trip. ``--rounds`` repeats the three. Printed side by side with
  Blockyard/group-commit floor, Blockyard/floor + rules, floor + rules/group-commit
  floor (what judging every action on the engine costs a floor alone) and the targets (≥ 0.8×
  the actions/s, ≤ 1.25× the server CPU per action, p99 ≤ 50 ms, ≤ 40 kB per idle WebSocket), the
  load average before and after, and PostgreSQL's settings. The sizes the targets are set at:
  ``--only floor --saturate 200,1000 --pace 1000 --idle 1000``; ``--systems``
picks some of the four (``Blockyard,floor + rules``: the two the ratios of the
rules' cost compare).

Players, sessions and tables of the duel runs are written straight into the
database before the clients start (set-up, not measured). ``--profile`` also
samples the server processes (and their verifying processes) with py-spy when
it is installed (``pip install py-spy``): the busy time by package and inside
the server's own steps. ``--only RUN`` (repeatable) picks runs. Every loop is
bounded by count, each network wait by 60 seconds, and no action starts after
``--seconds``.

Run:  python benchmarks/server.py [--games 200] [--clients 8] [--duels 20]
          [--turns 15] [--moves 40] [--kill-duels 50] [--many 500] [--think 2]
          [--seconds 60] [--saturate 20,40] [--pace 40] [--idle 40] [--rounds 1]
          [--pool 10] [--systems NAMES] [--profile]
          [--only verify|submit|duels|kill|many|floor]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import datetime
import glob
import json
import os
import pstats
import pwd
import random
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
import websockets

import blockyard
from blockyard.replays import Replay, replay_data
from blockyard.server.verify import verify_replay

sys.path.insert(0, str(Path(__file__).parent))  # its sibling benchmarks, however it is run
from verify_cost import played  # the same games in both verification benchmarks

TARGET_VERIFY = 500
TARGET_VERIFY_RATIO = 0.9
TARGET_P99_MS = 50.0
WAIT = 60.0


def by_hand(data: dict[str, Any]) -> int:
    """The same replay by hand with the headless API: ``blockyard.replay`` of the
    file's log (what a player's script does to rebuild a game from a file)."""
    return int(blockyard.replay(data["log"]).score)


def checked(data: dict[str, Any]) -> int:
    """The same replay checked by hand with the headless API:
    ``Replay.check()`` (the log rebuilt, then the header and the final digest
    compared with the game it plays)."""
    return int(Replay(None, data).check().score)


def lean(data: dict[str, Any]) -> int:
    """The floor under that: a new game of the same seed, then ``apply`` of every
    logged action, nothing checked."""
    game = blockyard.new_game(data["ruleset_id"], seed=data["seed"])
    apply = game.apply
    for action in data["log"][1:]:
        apply(action)
    return int(game.score)


def verify_rate(replays: list[dict[str, Any]], profile: bool,
                work: Callable[[dict[str, Any]], object] | None = None) -> float:
    """Replays done per CPU-second of this process (``work``: by default
    :func:`verify_replay`, as a verifying process runs it)."""
    def run(data: dict[str, Any]) -> object:
        return verify_replay(data, "bench") if work is None else work(data)

    run(replays[0])  # warm-up: the rules loaded and the code specialised
    profiler = cProfile.Profile() if profile else None
    start = time.process_time()
    if profiler:
        profiler.enable()
    for data in replays:
        run(data)
    if profiler:
        profiler.disable()
    rate = len(replays) / (time.process_time() - start)
    if profiler:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(18)
    return rate


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(folder: Path, database: str | None = None,
                 profile: Path | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """``blockyard serve`` on a free loopback port (sampled by py-spy, writing to
    ``profile`` when it stops, if given)."""
    port = free_port()
    env = {**os.environ, "BLOCKYARD_HOME": str(folder),
           "BLOCKYARD_SERVER_LIMITS": "create=1000000,sign_in_address=1000000,"
                                      "submit=1000000,sign_in_name=1000000,"
                                      "messages=1000000"}
    database = database or f"sqlite:///{folder / 'bench.sqlite3'}"
    return launch([sys.executable, "-m", "blockyard", "serve", "--port", str(port),
                   "--database", database], env, port, profile)


def launch(command: list[str], env: dict[str, str], port: int, profile: Path | None = None
           ) -> tuple[subprocess.Popen[bytes], str]:
    """Start a server process listening on 127.0.0.1:``port``; wait until its
    ``/api/health`` answers."""
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL,
        stderr=None if os.environ.get("BENCH_DEBUG") else subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(url + "/api/health", timeout=2).status_code == 200:
                if profile is not None:
                    sample(process.pid, profile)
                return process, url
        except httpx.TransportError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    """Stop a server the gentle way (SIGINT: a profiled one writes its profile)."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=WAIT)


def sample(pid: int, out: Path) -> None:
    """Sample the server process ``pid`` and its verifying processes (every thread:
    the engine and the database run in worker threads) with py-spy until it
    stops, into ``out``."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        print("  (--profile of the server needs py-spy: pip install py-spy)")
        return
    subprocess.Popen([spy, "record", "--pid", str(pid), "--format", "raw", "--rate", "250",
                      "--nonblocking", "--subprocesses", "--output", str(out)],
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def print_profile(files: list[Path], lines: int = 16) -> None:
    """Where the servers' time went (py-spy samples of busy threads): by the
    package running, and the time spent inside the server's own steps."""
    deadline = time.monotonic() + 10
    while not all(f.exists() for f in files) and time.monotonic() < deadline:
        time.sleep(0.2)  # py-spy writes once the process is gone
    own: dict[str, int] = {}
    inside: dict[str, int] = {}
    total = 0
    for path in files:
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            stack, _, count_text = line.rpartition(" ")
            if not count_text.isdigit():
                continue
            count = int(count_text)
            frames = [f for f in stack.split(";")
                      if f.strip() and not f.startswith(("process ", "thread "))]
            if not frames:
                continue  # a process or thread with no Python frame: idle
            leaf = frames[-1]
            idle = ("select (selectors", "poll (", "wait (threading", "_worker (concurrent",
                    "get (queue")
            if not package_of(leaf) or any(mark in leaf for mark in idle):
                continue  # an idle thread (no Python frame, or waiting)
            total += count
            own[package_of(leaf)] = own.get(package_of(leaf), 0) + count
            for step in {frame.split(" (")[0] for frame in frames
                         if "core/server/" in frame or "core/game.py" in frame}:
                inside[step] = inside.get(step, 0) + count
    if not total:
        print("  (no server samples)")
        return
    print(f"  server busy time by package running ({total} samples):")
    for name, count in sorted(own.items(), key=lambda item: -item[1])[:lines]:
        print(f"    {count / total * 100:5.1f} %  {name}")
    print("  busy time inside the server's steps (inclusive):")
    for name, count in sorted(inside.items(), key=lambda item: -item[1])[:lines]:
        print(f"    {count / total * 100:5.1f} %  {name}")


def package_of(frame: str) -> str:
    """The package (or the standard module) of a py-spy frame ``function (file:line)``."""
    path = frame.rpartition(" (")[2].rstrip(")").rpartition(":")[0] or frame
    path = path.replace("\\", "/").split("site-packages/")[-1]
    for mark, name in (("core/server/", "blockyard.server"), ("core/", "blockyard engine"),
                       ("plugins/", "blockyard.plugins")):
        if path.startswith(mark) or f"/{mark}" in path:
            return name
    return path.split("/", 1)[0].removesuffix(".py")


async def account(client: httpx.AsyncClient) -> tuple[str, str]:
    name = "b" + uuid.uuid4().hex[:12]
    await client.post("/api/accounts", json={"name": name, "password": "benchmark!"})
    answer = await client.post("/api/sessions", json={"name": name, "password": "benchmark!"})
    return name, answer.json()["token"]


async def submit_rate(url: str, replays: list[dict[str, Any]], clients: int
                      ) -> tuple[float, float]:
    """Verified submissions per second with ``clients`` at a time, and the median
    time of one submission alone."""
    async with httpx.AsyncClient(base_url=url, timeout=WAIT) as client:
        _, token = await account(client)
        headers = {"Authorization": f"Bearer {token}"}
        # warm-up (not timed): the verifying processes start and load the rules
        warm = [played(10_000 + n, 4) for n in range(8)]
        await asyncio.gather(*(client.post("/api/games", content=json.dumps(d),
                                           headers=headers) for d in warm))
        single = []
        for data in replays[:10]:
            sent = time.perf_counter()
            answer = await client.post("/api/games", content=json.dumps(data),
                                       headers=headers)
            single.append(time.perf_counter() - sent)
            assert answer.status_code == 201, answer.text
        queue = list(replays[10:])
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
    return (len(replays) - 10) / elapsed, statistics.median(single)


def rotations(count: int) -> dict[str, Any]:
    """A legal arcadeforge-rotate replay of a real game with ``count`` turns of the
    first piece before its first placement (a multiple of 4: the same game)."""
    game = blockyard.new_game("arcadeforge-rotate", seed=5)
    for _ in range(8):
        if game.over:
            break
        game.place(*game.legal_moves()[0])
    if not game.over:
        game.end_round()
    data = replay_data(game)
    data["log"] = [data["log"][0], *(["rotate", 0] for _ in range(count)), *data["log"][1:]]
    return data


SEND_WHEN_TOLD = """
import sys, httpx
url, token, path = sys.argv[1:4]
body = open(path, "rb").read()
with httpx.Client(timeout=600) as client:
    print("ready", flush=True)
    sys.stdin.readline()
    answer = client.post(url + "/api/games", content=body,
                         headers={"Authorization": "Bearer " + token,
                                  "Content-Type": "application/json"})
    print(answer.status_code, flush=True)
"""
"""A client process of its own for each long log: this one's loop and CPU are not
the ones that send them (one process sending 30 MB from its own event loop
delayed its own normal submission by 100-200 ms, none of it the server's)."""


def queued(client: httpx.Client) -> float:
    """The submissions waiting for or in a verifying process (``/metrics``)."""
    for line in client.get("/metrics").text.splitlines():
        if line.startswith("blockyard_verifications_queued"):
            return float(line.split()[-1])
    raise SystemExit("no blockyard_verifications_queued in /metrics")


def beside_huge(url: str, replays: list[dict[str, Any]], folder: Path, huge: int = 4,
                entries: int = 490_000) -> tuple[float, float, float, list[int]]:
    """The time of a normal submission alone (median of five), sent at the same
    moment as ``huge`` submissions of ``entries``-entry logs (each from a client
    process of its own, :data:`SEND_WHEN_TOLD`), and sent once ``huge`` others
    are in the server waiting for verification; the statuses of the long ones."""
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        name = "b" + uuid.uuid4().hex[:12]
        client.post("/api/accounts", json={"name": name, "password": "benchmark!"})
        token = client.post("/api/sessions", json={"name": name, "password": "benchmark!"}
                            ).json()["token"]
        headers = {"Authorization": f"Bearer {token}"}
        big = folder / "long-log.json"
        big.write_text(json.dumps(rotations(entries)))

        def timed(data: dict[str, Any]) -> float:
            sent = time.perf_counter()
            answer = client.post("/api/games", content=json.dumps(data), headers=headers)
            assert answer.status_code == 201, answer.text
            return time.perf_counter() - sent

        def with_long_logs(data: dict[str, Any], waiting: bool) -> float:
            senders = [subprocess.Popen([sys.executable, "-c", SEND_WHEN_TOLD, url, token,
                                         str(big)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
                       for _ in range(huge)]
            for sender in senders:  # every one started and holding its body
                assert sender.stdout is not None and sender.stdout.readline() == "ready\n"
            for sender in senders:
                assert sender.stdin is not None
                sender.stdin.write("go\n")
                sender.stdin.flush()
            deadline = time.monotonic() + WAIT
            while waiting and queued(client) < huge and time.monotonic() < deadline:
                time.sleep(0.01)
            taken = timed(data)
            for sender in senders:
                out, _ = sender.communicate(timeout=WAIT)
                statuses.append(int(out.split()[-1]))
            return taken

        statuses: list[int] = []
        alone = statistics.median([timed(data) for data in replays[:5]])
        beside = with_long_logs(replays[5], False)
        behind = with_long_logs(replays[6], True)
    return alone, beside, behind, statuses


@dataclass
class Player:
    """One WebSocket client: a seat of a duel, with the actions it will play."""

    table_id: int
    seat: int
    token: str
    actions: list[list[Any]]
    urls: list[str]
    """Where it connects: the first, then the next when that one is gone."""
    confirmed: list[dict[str, Any]] = field(default_factory=list)
    """Its own seat's move messages, in order."""
    reconnects: int = 0
    lost: str = ""
    """Why this seat's game counts as lost ("" when it is not)."""


@dataclass
class DuelReport:
    times: list[float]
    players: list[Player]
    results: dict[int, dict[str, Any]]
    elapsed: float
    metered: list[float] = field(default_factory=list)
    """What the run's ``meter`` counted between the start and the end."""

    @property
    def actions(self) -> int:
        """Every action acknowledged (placements and the ends)."""
        return sum(len(p.confirmed) for p in self.players)

    def lost_games(self) -> list[str]:
        """Every seat game that lost an accepted move or has no right result."""
        lost = [f"table {p.table_id} seat {p.seat}: {p.lost}" for p in self.players
                if p.lost]
        for player in self.players:
            result = self.results.get(player.table_id)
            final = player.confirmed[-1]["score"] if player.confirmed else 0
            if result is None:
                lost.append(f"table {player.table_id}: no result stored")
            elif result["scores"][player.seat] != final:
                lost.append(f"table {player.table_id} seat {player.seat}: stored score "
                            f"{result['scores'][player.seat]}, played {final}")
        return sorted(set(lost))


def bench_players(database: str, duels: int) -> list[tuple[int, str, str, int]]:
    """Accounts, session tokens and playing tables written straight into the
    database (set-up, not measured: 2 × duels argon2 hashes over HTTP would take
    minutes): (table id, first token, second token, seed) per duel."""
    from blockyard.server import accounts as server_accounts
    from blockyard.server import db as server_db
    from blockyard.server import tablestore

    engine = server_db.make_engine(database)
    hashed = server_accounts._HASHER.hash("benchmark!")
    moment = server_accounts.now()
    made = []
    try:
        with engine.begin() as conn:
            def new_account() -> tuple[server_accounts.Account, str]:
                name = "b" + uuid.uuid4().hex[:12]
                key = conn.execute(sa.insert(server_db.accounts).values(
                    name=name, name_key=name, password_hash=hashed,
                    created=moment)).inserted_primary_key
                assert key is not None
                token = secrets.token_urlsafe(32)
                conn.execute(sa.insert(server_db.sessions).values(
                    account_id=key[0], token_hash=server_accounts.token_hash(token),
                    created=moment, expires=moment + datetime.timedelta(days=1),
                    revoked=False))
                return server_accounts.Account(int(key[0]), name), token

            pairs = [(new_account(), new_account()) for _ in range(duels)]
        for (first, first_token), (second, second_token) in pairs:
            table = tablestore.create_table(engine, first, "eu-classic", 2, False, [], None)
            table = tablestore.join_table(engine, table.id, second, None)
            made.append((table.id, first_token, second_token, table.seed))
    finally:
        engine.dispose()
    return made


def bot_actions(seed: int, turns: int) -> list[list[Any]]:
    """The bundled first-legal-move bot's ``turns`` placements on ``seed``."""
    game = blockyard.new_game("eu-classic", seed=seed)
    actions: list[list[Any]] = []
    for _ in range(turns):
        if game.over:
            break
        action = ["place", *game.legal_moves()[0]]
        game.apply(action)
        actions.append(action)
    return actions


@dataclass
class Start:
    """When the players of a run may act, and until when: at once, or ``together``
    once every player is connected and has had the table's history (so that the
    handshakes are not in the measured time)."""

    players: int
    seconds: float
    together: bool = False
    go: asyncio.Event = field(default_factory=asyncio.Event)
    arrived: int = 0
    deadline: float = 0.0
    """No action starts after it (``seconds`` after the start)."""
    began: float = 0.0

    def __post_init__(self) -> None:
        if not self.together:
            self.open()

    def open(self) -> None:
        if not self.go.is_set():
            self.began = time.monotonic()
            self.deadline = self.began + self.seconds
            self.go.set()

    async def ready(self) -> None:
        """A player is connected: wait for the others (``together``)."""
        if not self.go.is_set():
            self.arrived += 1
            if self.arrived >= self.players:
                self.open()
            await self.go.wait()


async def play_seat(player: Player, times: list[float], think: float, start: Start,
                    rng: random.Random) -> None:
    """Play the seat's actions (waiting ``think`` seconds on average between
    them), then end its game; reconnect to the next address when the connection
    is lost, checking that every accepted move is still there."""
    pause = [think * (0.5 + rng.random()) for _ in player.actions]
    while True:
        url = player.urls[min(player.reconnects, len(player.urls) - 1)]
        try:
            await play_connection(player, url, times, pause, start)
            return
        except (TimeoutError, OSError, websockets.ConnectionClosed) as exc:
            if os.environ.get("BENCH_DEBUG"):
                print(f"  table {player.table_id} seat {player.seat}: {exc!r}")
            player.reconnects += 1
            if player.reconnects > 3:
                player.lost = "could not reconnect"
                return
            await asyncio.sleep(0.2)


async def play_connection(player: Player, url: str, times: list[float],
                          pause: list[float], start: Start) -> None:
    ws_url = url.replace("http://", "ws://")
    async with websockets.connect(f"{ws_url}/api/tables/{player.table_id}/live",
                                  open_timeout=WAIT, max_queue=None) as ws:
        await ws.send(json.dumps({"type": "hello", "token": player.token}))
        # the table and the round's moves come first; the answer to a probe
        # marks the end of that history
        await ws.send(json.dumps({"type": "probe"}))
        history = []
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
            if message["type"] == "refused":
                break
            if message["type"] == "move" and message["seat"] == player.seat:
                history.append(message)
        if history[:len(player.confirmed)] != player.confirmed:
            player.lost = (f"{len(player.confirmed)} accepted moves, "
                           f"{len(history)} after reconnecting")
            return
        player.confirmed = history
        await start.ready()
        while True:
            done = len(player.confirmed)
            if done and player.confirmed[-1]["over"] and player.confirmed[-1]["action"] == ["end"]:
                return  # the seat is finished
            if done and player.confirmed[-1]["over"]:
                action = ["end"]  # over with a continue left (eu): the seat ends it, as offline
            elif done < len(player.actions) and time.monotonic() < start.deadline:
                await asyncio.sleep(pause[done])
                action = player.actions[done]
            else:
                action = ["end"]
            sent = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "action": action}))
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
                if message["type"] == "refused":
                    player.lost = f"refused: {message['reason']}"
                    return
                if message["type"] == "move" and message["seat"] == player.seat:
                    if action != ["end"]:
                        times.append(time.perf_counter() - sent)
                    player.confirmed.append(message)
                    break


async def duel_run(urls: list[str], tables: list[tuple[int, str, str, int]],
                   turns: int, think: float, seconds: float,
                   kill: Callable[[], None] | None = None, together: bool = False,
                   meter: Callable[[], list[float]] | None = None) -> DuelReport:
    """Every duel played by two clients, seat 0 on ``urls[0]``, seat 1 on the last
    (each falls back on the other); ``kill`` is called once half the actions are
    in. ``together``: nobody acts before every client is connected (at most
    :data:`WAIT` seconds), and the time (and the figures ``meter`` reads, taken
    then and at the end) counts from there. Bounded: no action starts after
    ``seconds``."""
    rng = random.Random(23)
    players = []
    for table_id, first, second, seed in tables:
        actions = bot_actions(seed, turns)
        players.append(Player(table_id, 0, first, actions, [urls[0], urls[-1]]))
        players.append(Player(table_id, 1, second, actions, [urls[-1], urls[0]]))
    times: list[float] = []
    start = Start(len(players), seconds, together)
    tasks = [asyncio.create_task(play_seat(p, times, think, start, rng))
             for p in players]
    if together:
        with contextlib.suppress(TimeoutError):  # a client that never connects
            await asyncio.wait_for(start.go.wait(), WAIT)
        start.open()
    metered = meter() if meter is not None else []
    if kill is not None:
        expected = sum(len(p.actions) for p in players)
        while len(times) < expected // 2 and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        kill()
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - start.began
    if meter is not None:
        metered = [after - before for before, after in zip(metered, meter(), strict=True)]
    results: dict[int, dict[str, Any]] = {}
    async with httpx.AsyncClient(base_url=urls[-1], timeout=WAIT) as client:
        for table_id in sorted({p.table_id for p in players}):
            done = (await client.get(f"/api/tables/{table_id}")).json()["results"]
            if done:
                results[table_id] = done[-1]
    return DuelReport(times, players, results, elapsed, metered)


def percentiles(times: list[float]) -> tuple[float, float]:
    ms = sorted(t * 1000 for t in times)
    if not ms:
        return float("nan"), float("nan")
    return ms[len(ms) // 2], ms[min(len(ms) - 1, int(len(ms) * 0.99))]


def print_duels(label: str, report: DuelReport, clients: int) -> None:
    p50, p99 = percentiles(report.times)
    print(f"{label} {len(report.times)} actions by {clients} clients in "
          f"{report.elapsed:.1f} s ({len(report.times) / report.elapsed:.0f}/s): round "
          f"trip p50 {p50:.1f} ms, p99 {p99:.1f} ms (target p99 ≤ {TARGET_P99_MS:g} ms "
          f"at 1,000 clients)")
    lost = report.lost_games()
    reconnected = sum(1 for p in report.players if p.reconnects)
    print(f"         games lost: {len(lost)}; clients that reconnected: {reconnected}")
    for line in lost[:10]:
        print(f"           {line}")


# -- a throwaway PostgreSQL and server processes ------------------------------------------


def postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@contextlib.contextmanager
def throwaway_postgres() -> Iterator[str]:
    """A PostgreSQL cluster in a temporary folder on a loopback port: its URL."""
    initdb, pg_ctl = postgres_bin("initdb"), postgres_bin("pg_ctl")
    if not initdb or not pg_ctl:
        raise SystemExit("PostgreSQL's initdb and pg_ctl are missing (Debian: apt-get "
                         "install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="blockyard-bench-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        as_user = ["runuser", "-u", "postgres", "--"]
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    data, sockets = folder / "data", folder / "sockets"
    subprocess.run([*as_user, "mkdir", str(sockets)], check=True, timeout=30)
    subprocess.run([*as_user, initdb, "-D", str(data), "-U", "postgres", "--auth=trust",
                    "-E", "UTF8", "--no-sync"], check=True, capture_output=True, timeout=120)
    port = free_port()
    options = (f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 "
               "-c max_connections=300")
    subprocess.run([*as_user, pg_ctl, "-D", str(data), "-o", options, "-l",
                    str(folder / "log.txt"), "-w", "-t", "60", "start"], check=True,
                   capture_output=True, timeout=120)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


# -- the floor: the same work on a minimal app, side by side ---------------------------


FLOOR = Path(__file__).resolve().with_name("floor.py")
SYSTEMS = ("Blockyard", "floor", "group-commit floor", "floor + rules")
"""``floor + rules``: the group-commit floor checking each action on the engine as
well (``benchmarks/floor.py --rules``), so that the rules' own cost is told from
the stack's."""
TARGET_RATE_RATIO = 0.8
TARGET_CPU_RATIO = 1.25
TARGET_SOCKET_KB = 40.0


def floor_module() -> Any:
    """``benchmarks/floor.py`` as a module (its :func:`prepare` writes the tables)."""
    import importlib.util

    name = "blockyard_floor_benchmark"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, FLOOR)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before it runs: its dataclasses look it up
        spec.loader.exec_module(module)
    return sys.modules[name]


def start_floor(database: str, group_commit: bool, pool: int, rules: bool = False
                ) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    command = [sys.executable, str(FLOOR), "--database", database, "--port", str(port),
               "--pool", str(pool), *(["--group-commit"] if group_commit else []),
               *(["--rules"] if rules else [])]
    return launch(command, dict(os.environ), port)


def processes() -> dict[int, tuple[int, float]]:
    """Every process of the machine: pid → (parent pid, CPU seconds: its own and
    those of its children it has reaped)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        fields = text.rpartition(")")[2].split()
        # after the name: state, ppid, …; utime, stime, cutime, cstime are 14–17 of stat
        found[int(entry)] = (int(fields[1]), sum(int(f) for f in fields[11:15]) / tick)
    return found


def cpu_seconds(roots: list[int]) -> float:
    """CPU seconds used so far by the processes ``roots`` and all their descendants
    (the ones already gone are in their parents' counts)."""
    table = processes()
    children: dict[int, list[int]] = {}
    for pid, (parent, _) in table.items():
        children.setdefault(parent, []).append(pid)
    total, todo, seen = 0.0, list(roots), set()
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in table:
            continue
        seen.add(pid)
        total += table[pid][1]
        todo.extend(children.get(pid, ()))
    return total


def resident_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise SystemExit(f"no VmRSS for process {pid}")


def postmaster(url: str) -> tuple[int, str]:
    """The PostgreSQL server's main process and a line of its settings that matter
    here (version, synchronous commit, fsync)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        settings = dict(conn.execute(
            "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', "
            "'synchronous_commit', 'fsync', 'data_directory')").fetchall())
    pid = int(Path(settings["data_directory"], "postmaster.pid").read_text().split()[0])
    return pid, (f"PostgreSQL {settings['server_version']}, synchronous_commit "
                 f"{settings['synchronous_commit']}, fsync {settings['fsync']}")


async def idle_sockets(url: str, pid: int, seats: list[tuple[int, str]], warm: int
                       ) -> tuple[float, float, str]:
    """The growth of the server process ``pid``'s resident memory per idle live
    connection (bytes), each connection having had the table's history: for the
    first half of ``seats`` with the client offering permessage-deflate
    (websockets' default), then for the other half with the client offering no
    extension, all open at once; and the extensions the server agreed to the first
    (permessage-deflate or none). ``warm`` connections are opened and closed first
    (the code that serves them loaded), not counted."""
    ws_url = url.replace("http://", "ws://")
    gate = asyncio.Semaphore(50)

    async def open_one(table_id: int, token: str, deflate: bool = True) -> Any:
        async with gate:
            ws = await websockets.connect(f"{ws_url}/api/tables/{table_id}/live",
                                          open_timeout=WAIT, max_queue=None,
                                          compression="deflate" if deflate else None)
            await ws.send(json.dumps({"type": "hello", "token": token}))
            await ws.send(json.dumps({"type": "probe"}))
            while json.loads(await asyncio.wait_for(ws.recv(), WAIT))["type"] != "refused":
                pass
            return ws

    for ws in await asyncio.gather(*(open_one(*seat) for seat in seats[:warm])):
        await ws.close()
    half = (len(seats) - warm) // 2
    before = resident_kb(pid)
    kept = await asyncio.gather(*(open_one(*seat) for seat in seats[warm:warm + half]))
    middle = resident_kb(pid)
    plain = await asyncio.gather(*(open_one(*seat, deflate=False)
                                   for seat in seats[warm + half:warm + 2 * half]))
    after = resident_kb(pid)
    agreed = kept[0].response.headers.get("Sec-WebSocket-Extensions") if kept else None
    await asyncio.gather(*(ws.close() for ws in [*kept, *plain]))
    return ((middle - before) * 1024 / max(1, half), (after - middle) * 1024 / max(1, half),
            agreed or "none")


def system_figures(system: str, database: str, postgres_pid: int, folder: Path,
                   args: argparse.Namespace, sizes: list[int], notes: dict[str, str],
                   profiles: list[Path]) -> dict[str, float]:
    """One system's figures: two processes on ``database``, the idle sockets, the
    runs as fast as answered at each of ``sizes`` clients, then ``--pace`` clients
    at the ``--think`` pace."""
    floor = floor_module()

    def tables(duels: int) -> list[tuple[int, str, str, int]]:
        if system == "Blockyard":
            return bench_players(database, duels)
        return list(floor.prepare(database, duels))

    if system == "Blockyard":
        started = [start_server(folder, database, profiles[n] if profiles else None)
                   for n in range(2)]
    else:
        started = [start_floor(database, system != "floor", args.pool,
                               rules=system == "floor + rules") for _ in range(2)]
    pids = [process.pid for process, _ in started]
    urls = [url for _, url in started]

    def meter() -> list[float]:
        return [cpu_seconds(pids), cpu_seconds([postgres_pid]), time.process_time()]

    figures: dict[str, float] = {}
    losses: list[str] = []
    try:
        warm = 10
        made = tables(args.idle + warm // 2)
        seats = [(t, token) for t, first, second, _ in made for token in (first, second)]
        deflated, plain, agreed = asyncio.run(idle_sockets(urls[0], pids[0], seats, warm))
        figures["memory"], figures["memory plain"] = deflated / 1000, plain / 1000
        notes[system] = agreed
        for clients in sizes:
            report = asyncio.run(duel_run(urls, tables(clients // 2), args.turns, 0.0,
                                          args.seconds, together=True, meter=meter))
            server, database_cpu, client = report.metered
            actions = max(1, report.actions)
            figures[f"rate {clients}"] = report.actions / report.elapsed
            figures[f"server {clients}"] = server / actions * 1000
            figures[f"postgres {clients}"] = database_cpu / actions * 1000
            figures[f"client {clients}"] = client / actions * 1000
            losses += report.lost_games()
        report = asyncio.run(duel_run(urls, tables(args.pace // 2), args.turns, args.think,
                                      args.seconds, together=True))
        figures["p50"], figures["p99"] = percentiles(report.times)
        figures["pace rate"] = report.actions / report.elapsed
        losses += report.lost_games()
        figures["lost"] = len(losses)
        for line in losses[:5]:
            print(f"         {system} lost: {line}")
    finally:
        for process, _ in started:
            stop_server(process)
    return figures


def floor_run(postgres: str, folder: Path, args: argparse.Namespace) -> None:
    """Blockyard, the floor and the group-commit floor back to back (each round),
    each as two processes on its own database of one PostgreSQL; a table of their
    figures and Blockyard's against the group-commit floor's."""
    import psycopg

    try:
        sizes = sorted({int(n) for n in args.saturate.split(",")})
    except ValueError:
        raise SystemExit("--saturate: expected client counts separated by commas, "
                         "e.g. 200,1000") from None
    if any(n < 2 for n in sizes) or args.pace < 2 or args.idle < 2 or args.rounds < 1:
        raise SystemExit("--saturate, --pace and --idle: at least 2 clients; --rounds: "
                         "at least 1")
    base = postgres.rsplit("/", 1)[0]
    databases = {}
    with psycopg.connect(postgres, autocommit=True) as conn:
        for n, system in enumerate(args.systems):
            conn.execute(f"CREATE DATABASE bench_floor_{n}")  # a name made here
            databases[system] = f"{base}/bench_floor_{n}"
    from blockyard.server import db as server_db

    if "Blockyard" in databases:
        server_db.migrate(databases["Blockyard"])
    postgres_pid, settings = postmaster(postgres)
    load = os.getloadavg()
    notes: dict[str, str] = {}
    profiles = [folder / f"floor-{n}.prof" for n in range(2)] if args.profile else []
    rounds: list[dict[str, dict[str, float]]] = []
    for number in range(args.rounds):
        rounds.append({system: system_figures(system, databases[system], postgres_pid,
                                              folder, args, sizes, notes,
                                              profiles if number == 0 else [])
                       for system in args.systems})
    after = os.getloadavg()
    print(f"floor    {settings}; two processes per system; {os.cpu_count()} cores; "
          f"load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} before, "
          f"{after[0]:.1f} / {after[1]:.1f} / {after[2]:.1f} after")
    print("         the clients connect first, then act together; actions are every one "
          "acknowledged (placements and ends)")
    rows: list[tuple[str, str, str]] = []
    for clients in sizes:
        rows += [(f"actions/s at saturation, {clients:,} clients", f"rate {clients}",
                  f"≥ {TARGET_RATE_RATIO}×"),
                 (f"  server CPU ms per action, {clients:,}", f"server {clients}",
                  f"≤ {TARGET_CPU_RATIO}×"),
                 (f"  PostgreSQL CPU ms per action, {clients:,}", f"postgres {clients}", ""),
                 (f"  client CPU ms per action, {clients:,}", f"client {clients}", "")]
    rows += [(f"p50 ms, {args.pace:,} clients at {args.think:g} s pace", "p50", ""),
             (f"p99 ms, {args.pace:,} clients at {args.think:g} s pace", "p99",
              f"≤ {TARGET_P99_MS:g} ms"),
             ("  actions/s at that pace", "pace rate", ""),
             ("memory per idle WebSocket, kB (deflate)", "memory",
              f"≤ {TARGET_SOCKET_KB:g} kB"),
             ("  the same, the client offering no extension", "memory plain",
              f"≤ {TARGET_SOCKET_KB:g} kB"),
             ("games lost", "lost", "0")]
    width = 44
    print(f"         {'':{width}}" + "".join(f"{name:>22}" for name in args.systems)
          + f"{'Blockyard/group':>17}{'/ with rules':>14}{'rules/group':>13}  target")
    for label, key, target in rows:
        cells = []
        for system in args.systems:
            values = [r[system][key] for r in rounds]
            cells.append(" / ".join(f"{v:.0f}" if abs(v) >= 10 or key == "lost"
                                    else f"{v:.2f}" for v in values))
        ratios = []
        for system, against in (("Blockyard", "group-commit floor"),
                                ("Blockyard", "floor + rules"),
                                ("floor + rules", "group-commit floor")):
            if system not in args.systems or against not in args.systems:
                ratios.append("-")
                continue
            ours = statistics.median(r[system][key] for r in rounds)
            floor = statistics.median(r[against][key] for r in rounds)
            ratios.append(f"{ours / floor:.2f}" if floor else "-")
        print(f"         {label:{width}}" + "".join(f"{c:>22}" for c in cells)
              + f"{ratios[0]:>17}{ratios[1]:>14}{ratios[2]:>13}  {target}")
    print("         the extensions each server agreed when the client offered "
          "permessage-deflate (websockets' default): "
          + "; ".join(f"{system}: {notes.get(system, '?')}" for system in args.systems))
    if profiles:
        print("         Blockyard's two processes, sampled in the first round:")
        print_profile(profiles)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duels", type=int, default=20)
    parser.add_argument("--turns", type=int, default=15)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--kill-duels", type=int, default=50)
    parser.add_argument("--many", type=int, default=500)
    parser.add_argument("--think", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--saturate", default="20,40",
                        help="floor: client counts acting as fast as answered (the "
                             "targets' sizes: 200,1000)")
    parser.add_argument("--pace", type=int, default=40,
                        help="floor: clients at the --think pace (the targets' size: 1000)")
    parser.add_argument("--idle", type=int, default=40,
                        help="floor: idle WebSockets measured with deflate, and as many "
                             "without (the targets' size: 1000)")
    parser.add_argument("--rounds", type=int, default=1,
                        help="floor: rounds of the three systems back to back; beside: "
                             "rounds of the measure on one server")
    parser.add_argument("--pool", type=int, default=10,
                        help="floor: the floors' connections per process")
    parser.add_argument("--systems", default=",".join(SYSTEMS),
                        help="floor: the systems run, separated by commas (default all: "
                             + ", ".join(SYSTEMS) + "); the ratios need Blockyard and the "
                             "floor they are against")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--only", choices=["verify", "submit", "beside", "duels", "kill",
                                           "many", "floor"],
                        action="append")
    args = parser.parse_args()
    chosen = [name.strip() for name in args.systems.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SYSTEMS]
    if unknown or not chosen:
        parser.error(f"--systems: expected some of {', '.join(SYSTEMS)}, not "
                     f"{', '.join(unknown) or 'nothing'}")
    args.systems = [name for name in SYSTEMS if name in chosen]
    runs = set(args.only or ["verify", "submit", "beside", "duels", "kill", "many", "floor"])
    replays = [played(seed, args.moves) for seed in range(args.games)]
    moves = statistics.mean(len(r["log"]) - 1 for r in replays)
    if "verify" in runs:
        # best of three rounds each, alternated, so that a busy moment of the
        # machine does not fall on one side only
        from blockyard import watchdog

        # as in a verifying process: no hook watchdog (each check's budget bounds
        # it), and none for the replays by hand either, so that like meets like
        watchdog.set_default(None)
        hand = check = floor = verified = 0.0
        for _ in range(3):
            hand = max(hand, verify_rate(replays, False, by_hand))
            check = max(check, verify_rate(replays, False, checked))
            floor = max(floor, verify_rate(replays, False, lean))
            verified = max(verified, verify_rate(replays, args.profile and not verified))
        print(f"verify   {verified:8.0f} replays per CPU-second verified (games of "
              f"{moves:.0f} actions; target {TARGET_VERIFY} per core)")
        print(f"         {hand:8.0f} replays per CPU-second by hand with the headless API "
              f"(blockyard.replay of the log): verified/by hand {verified / hand:.2f} "
              f"(target {TARGET_VERIFY_RATIO})")
        print(f"         {check:8.0f} replays per CPU-second checked by hand (Replay.check(): "
              f"the header and final digest too): verified/checked {verified / check:.2f}")
        print(f"         {floor:8.0f} replays per CPU-second as new_game + apply, nothing "
              f"checked: verified/that {verified / floor:.2f}")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if runs & {"submit", "beside", "duels"}:
            profile = folder / "one.prof" if args.profile else None
            process, url = start_server(folder, profile=profile)
            try:
                if "submit" in runs:
                    rate, latency = asyncio.run(submit_rate(url, replays, args.clients))
                    print(f"submit   {rate:8.0f} verified submissions/s over HTTP "
                          f"({args.clients} clients, {os.cpu_count()} cores, SQLite); one "
                          f"at a time: {latency * 1000:.1f} ms each")
                for n in range(args.rounds if "beside" in runs else 0):
                    # other games each round: the same game twice would be a copy (409)
                    alone, beside, behind, statuses = beside_huge(
                        url, replays[7 * n:7 * n + 7], folder)
                    print(f"beside   a normal submission alone {alone * 1000:.0f} ms; sent "
                          f"with four 490,000-entry logs at once {beside * 1000:.0f} ms, "
                          f"once they wait for verification {behind * 1000:.0f} ms "
                          f"(target: within 100 ms of alone); the long ones answered "
                          f"{', '.join(sorted(set(map(str, statuses))))}")
                if "duels" in runs:
                    tables = bench_players(f"sqlite:///{folder / 'bench.sqlite3'}",
                                           args.duels)
                    report = asyncio.run(duel_run([url], tables, args.turns, 0.0,
                                                  args.seconds))
                    print_duels("duels   ", report, 2 * args.duels)
            finally:
                stop_server(process)
            if profile:
                print_profile([profile])
        if runs & {"kill", "many", "floor"}:
            with throwaway_postgres() as postgres:
                for run in ("kill", "many"):
                    if run in runs:
                        two_processes(run, postgres, folder, args)
                if "floor" in runs:
                    floor_run(postgres, folder, args)


def two_processes(run: str, postgres: str, folder: Path, args: argparse.Namespace) -> None:
    """Two server processes on one PostgreSQL: ``kill`` (one of them is ``kill
    -9``'d once half the actions are in) or ``many`` (``2 × --many`` clients
    acting every ``--think`` seconds on average)."""
    import psycopg

    database = postgres.rsplit("/", 1)[0] + f"/bench_{run}"
    with psycopg.connect(postgres, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE bench_{run}")  # a name made here, not input
    from blockyard.server import db as server_db

    server_db.migrate(database)
    duels = args.kill_duels if run == "kill" else args.many
    tables = bench_players(database, duels)
    profiles = [folder / f"{run}-{n}.prof" for n in range(2)] if args.profile else []
    started = [start_server(folder, database, profiles[n] if profiles else None)
               for n in range(2)]
    try:
        urls = [url for _, url in started]
        if run == "kill":
            victim = started[0][0]
            report = asyncio.run(duel_run(urls, tables, args.turns, 0.05, args.seconds,
                                          kill=lambda: victim.send_signal(signal.SIGKILL)))
            print_duels("killed  ", report, 2 * duels)
        else:
            report = asyncio.run(duel_run(urls, tables, args.turns, args.think,
                                          args.seconds))
            print_duels("many    ", report, 2 * duels)
    finally:
        for process, _ in started:
            stop_server(process)
    if profiles and run == "many":
        print_profile(profiles)


if __name__ == "__main__":
    main()
