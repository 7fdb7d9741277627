"""Server benchmark, loopback only, bounded in count and time: verified
submissions and live-duel round trips of ``blockyard serve``.

Prints:

- ``verify``: replays verified per CPU-second, in this process: the work a
  verifying process does for ``POST /api/games``
  (``blockyard.server.verify.verify_replay``; no hook watchdog there, each
  verification's own budget bounds it) on eu-classic games of about ``--moves``
  placements (target 500 per core), beside the same games replayed by hand with
  the headless API (``blockyard.replay`` of the log) and their ratio (target
  0.9), and beside the floor under both (``new_game`` of the same seed, then
  ``apply`` of every action, nothing checked); ``--profile`` shows where the
  time goes;
- ``submit``: ``--games`` submissions over real HTTP to a ``blockyard serve``
  started here on 127.0.0.1 with an SQLite file in a temporary folder,
  ``--clients`` at a time after a warm-up (the whole path: HTTP, the token, the
  shared rate limit, the verifying pool, the database), and the time of one
  submission alone;
- ``beside``: on that server, the time of a normal submission alone and sent
  at the same moment as four legal 490,000-entry logs (arcadeforge-rotate, one
  piece turned 490,000 times: each refused before it is replayed);
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
  at most ``--seconds``.

Players, sessions and tables of the duel runs are written straight into the
database before the clients start (set-up, not measured). ``--profile`` also
samples the server processes (and their verifying processes) with py-spy when
it is installed (``pip install py-spy``): the busy time by package and inside
the server's own steps. ``--only RUN`` (repeatable) picks runs. Every loop is
bounded by count, each network wait by 60 seconds, and no action starts after
``--seconds``.

Run:  python benchmarks/server.py [--games 200] [--clients 8] [--duels 20]
          [--turns 15] [--moves 40] [--kill-duels 50] [--many 500] [--think 2]
          [--seconds 60] [--profile] [--only verify|submit|duels|kill|many]
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
from blockyard.replays import replay_data
from blockyard.server.verify import verify_replay

TARGET_VERIFY = 500
TARGET_VERIFY_RATIO = 0.9
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


def by_hand(data: dict[str, Any]) -> int:
    """The same replay by hand with the headless API: ``blockyard.replay`` of the
    file's log (what a player's script does to rebuild a game from a file)."""
    return int(blockyard.replay(data["log"]).score)


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
    """``blockyard serve`` on a free loopback port (under cProfile, writing to
    ``profile`` when it stops, if given)."""
    port = free_port()
    env = {**os.environ, "BLOCKYARD_HOME": str(folder),
           "BLOCKYARD_SERVER_LIMITS": "create=1000000,sign_in_address=1000000,"
                                      "submit=1000000,sign_in_name=1000000,"
                                      "messages=1000000"}
    database = database or f"sqlite:///{folder / 'bench.sqlite3'}"
    process = subprocess.Popen(
        [sys.executable, "-m", "blockyard", "serve", "--port", str(port), "--database",
         database], env=env, stdout=subprocess.DEVNULL,
        stderr=None if os.environ.get("BENCH_DEBUG") else subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
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


async def beside_huge(url: str, replays: list[dict[str, Any]], huge: int = 4,
                      entries: int = 490_000) -> tuple[float, float, list[int]]:
    """The time of a normal submission alone (median of five) and beside ``huge``
    submissions of ``entries``-entry logs sent at the same moment, and the
    statuses of those."""
    async with httpx.AsyncClient(base_url=url, timeout=WAIT) as client:
        _, token = await account(client)
        headers = {"Authorization": f"Bearer {token}"}
        big = json.dumps(rotations(entries))

        async def timed(data: dict[str, Any]) -> float:
            sent = time.perf_counter()
            answer = await client.post("/api/games", content=json.dumps(data),
                                       headers=headers)
            assert answer.status_code == 201, answer.text
            return time.perf_counter() - sent

        alone = statistics.median([await timed(data) for data in replays[:5]])
        others = [client.post("/api/games", content=big, headers=headers)
                  for _ in range(huge)]
        *answers, beside = await asyncio.gather(*others, timed(replays[5]))
    return alone, beside, [answer.status_code for answer in answers]


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


async def play_seat(player: Player, times: list[float], think: float, deadline: float,
                    rng: random.Random) -> None:
    """Play the seat's actions (waiting ``think`` seconds on average between
    them), then end its game; reconnect to the next address when the connection
    is lost, checking that every accepted move is still there."""
    pause = [think * (0.5 + rng.random()) for _ in player.actions]
    while True:
        url = player.urls[min(player.reconnects, len(player.urls) - 1)]
        try:
            await play_connection(player, url, times, pause, deadline)
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
                          pause: list[float], deadline: float) -> None:
    ws_url = url.replace("http://", "ws://")
    async with websockets.connect(f"{ws_url}/api/tables/{player.table_id}/live"
                                  f"?token={player.token}", open_timeout=WAIT,
                                  max_queue=None) as ws:
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
        while True:
            done = len(player.confirmed)
            if done and player.confirmed[-1]["over"]:
                return
            if done < len(player.actions) and time.monotonic() < deadline:
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
                   kill: Callable[[], None] | None = None) -> DuelReport:
    """Every duel played by two clients, seat 0 on ``urls[0]``, seat 1 on the last
    (each falls back on the other); ``kill`` is called once half the actions are
    in. Bounded: no action starts after ``seconds``."""
    rng = random.Random(23)
    players = []
    for table_id, first, second, seed in tables:
        actions = bot_actions(seed, turns)
        players.append(Player(table_id, 0, first, actions, [urls[0], urls[-1]]))
        players.append(Player(table_id, 1, second, actions, [urls[-1], urls[0]]))
    times: list[float] = []
    start = time.monotonic()
    deadline = start + seconds
    tasks = [asyncio.create_task(play_seat(p, times, think, deadline, rng))
             for p in players]
    if kill is not None:
        expected = sum(len(p.actions) for p in players)
        while len(times) < expected // 2 and not all(t.done() for t in tasks):
            await asyncio.sleep(0.05)
        kill()
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - start
    results: dict[int, dict[str, Any]] = {}
    async with httpx.AsyncClient(base_url=urls[-1], timeout=WAIT) as client:
        for table_id in sorted({p.table_id for p in players}):
            done = (await client.get(f"/api/tables/{table_id}")).json()["results"]
            if done:
                results[table_id] = done[-1]
    return DuelReport(times, players, results, elapsed)


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
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--only", choices=["verify", "submit", "beside", "duels", "kill",
                                           "many"],
                        action="append")
    args = parser.parse_args()
    runs = set(args.only or ["verify", "submit", "beside", "duels", "kill", "many"])
    replays = [played(seed, args.moves) for seed in range(args.games)]
    moves = statistics.mean(len(r["log"]) - 1 for r in replays)
    if "verify" in runs:
        # best of three rounds each, alternated, so that a busy moment of the
        # machine does not fall on one side only
        from blockyard import watchdog

        # as in a verifying process: no hook watchdog (each check's budget bounds
        # it), and none for the replays by hand either, so that like meets like
        watchdog.set_default(None)
        hand = floor = verified = 0.0
        for _ in range(3):
            hand = max(hand, verify_rate(replays, False, by_hand))
            floor = max(floor, verify_rate(replays, False, lean))
            verified = max(verified, verify_rate(replays, args.profile and not verified))
        print(f"verify   {verified:8.0f} replays per CPU-second verified (games of "
              f"{moves:.0f} actions; target {TARGET_VERIFY} per core)")
        print(f"         {hand:8.0f} replays per CPU-second by hand with the headless API "
              f"(blockyard.replay of the log): verified/by hand {verified / hand:.2f} "
              f"(target {TARGET_VERIFY_RATIO})")
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
                if "beside" in runs:
                    alone, beside, statuses = asyncio.run(beside_huge(url, replays))
                    print(f"beside   a normal submission alone {alone * 1000:.0f} ms; sent "
                          f"with four 490,000-entry logs at once {beside * 1000:.0f} ms "
                          f"(target: within 2,000 ms of alone); the four answered "
                          f"{', '.join(map(str, statuses))}")
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
        if runs & {"kill", "many"}:
            with throwaway_postgres() as postgres:
                for run in ("kill", "many"):
                    if run in runs:
                        two_processes(run, postgres, folder, args)


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
