"""The benchmarks' references do the work they stand for: the lean loop of
``benchmarks/engine.py`` (the practical limit of Python) deals, clears and scores
every eu-classic game exactly as the engine does; the floor of
``benchmarks/floor.py`` speaks the live channel (docs/online.md) to the same duel client
as ``blockyard serve`` across two processes, and ``benchmarks/server.py --only
floor`` prints the three systems side by side."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import json
import random
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import blockyard

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
ENGINE_BENCHMARK = BENCHMARKS / "engine.py"
WAIT = 30.0


def load_benchmark(path=ENGINE_BENCHMARK, name="engine_benchmark"):
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_the_lean_loop_plays_the_same_games_as_blockyard():
    bench = load_benchmark()
    ruleset = blockyard.load_ruleset("eu-classic")
    rnd = random.Random(5)
    moves = 0
    for seed in range(40):
        ours = blockyard.new_game(ruleset, seed=seed)
        lean = bench.LeanBitboardGame(ruleset, seed)
        while True:
            legal = ours.legal_moves()
            assert lean.legal_moves() == legal, (seed, ours.moves)
            if not legal:
                break
            move = legal[rnd.randrange(len(legal))]
            ours.place(*move)
            lean.place(*move)
            moves += 1
            assert (lean.board, lean.score, lean.sets) == \
                (ours.grid.bits, ours.score, ours.set_index), (seed, ours.moves)
    assert moves > 400  # full games, deals and clears included


def test_the_replay_by_hand_beside_restore_builds_the_same_game():
    # restore's reference does the same work but the checks: the same game
    bench = load_benchmark()
    ruleset = blockyard.load_ruleset("eu-classic")
    game = bench.game_of_moves(ruleset, bench.RESTORE_MOVES)
    again = bench.replay_by_hand(ruleset, game)
    assert again.snapshot() == game.snapshot() == blockyard.restore(game.snapshot()).snapshot()
    assert game.moves == bench.RESTORE_MOVES


# -- the live tables' floor -----------------------------------------------------------------


@pytest.fixture(scope="module")
def floor_cluster():
    """``benchmarks/server.py`` as a module and a throwaway PostgreSQL of its own."""
    bench = load_benchmark(BENCHMARKS / "server.py", "server_benchmark")
    with bench.throwaway_postgres() as url:
        yield bench, url


@contextlib.asynccontextmanager
async def live_channel(base, table_id, token):
    """A table's live channel on the floor at ``base`` (``ws://…``), its ``hello``
    with ``token`` sent first (live protocol 4: no credential in the address)."""
    import websockets

    async with websockets.connect(f"{base}/api/tables/{table_id}/live") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        yield ws


async def next_message(ws, kind, seat=None):
    """The next message of type ``kind`` (of ``seat``, if given; others skipped),
    within :data:`WAIT`."""
    while True:
        message = json.loads(await asyncio.wait_for(ws.recv(), WAIT))
        if message["type"] == kind and seat in (None, message.get("seat")):
            return message


@pytest.mark.server
@pytest.mark.postgresql
@pytest.mark.parametrize("group_commit", [False, True], ids=["per-action", "group-commit"])
def test_the_floor_speaks_the_live_channel_across_two_processes(floor_cluster, group_commit):
    import psycopg
    import websockets

    bench, url = floor_cluster
    name = f"floor_{int(group_commit)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    database = url.rsplit("/", 1)[0] + f"/{name}"
    floor = bench.floor_module()
    (table_id, first, second, seed), = floor.prepare(database, 1)
    started = [bench.start_floor(database, group_commit, 2) for _ in range(2)]
    try:
        a, b = (u.replace("http://", "ws://") for _, u in started)

        async def play():
            async with live_channel(a, table_id, first) as zero, \
                    live_channel(b, table_id, second) as one:
                for ws in (zero, one):
                    table = await next_message(ws, "table")
                    assert (table["id"], table["seed"], table["status"]) == \
                        (table_id, seed, "playing")
                    await ws.send(json.dumps({"type": "probe"}))
                    assert (await next_message(ws, "refused"))["kind"] == "malformed"
                # seat 0's move reaches seat 1 on the other process
                await zero.send(json.dumps({"type": "act", "action": ["place", 0, 3, 4]}))
                move = {"type": "move", "seat": 0, "action": ["place", 0, 3, 4], "score": 1,
                        "over": False}
                assert await next_message(zero, "move") == move
                assert await next_message(one, "move") == move
                for bad, kind in ((["jump"], "illegal"), (["place", 0, 3], "illegal")):
                    await zero.send(json.dumps({"type": "act", "action": bad}))
                    assert (await next_message(zero, "refused"))["kind"] == kind
                await zero.send("not json")
                assert (await next_message(zero, "refused"))["kind"] == "malformed"
                for seat, ws, actions in ((1, one, [["place", 1, 0, 0], ["end"]]),
                                          (0, zero, [["place", 2, 5, 5], ["end"]])):
                    for action in actions:
                        await ws.send(json.dumps({"type": "act", "action": action}))
                        assert (await next_message(ws, "move", seat))["action"] == action
                for ws in (zero, one):
                    result = await next_message(ws, "result")
                    assert (result["scores"], result["winner"]) == ([2, 1], 0)
                await one.send(json.dumps({"type": "act", "action": ["place", 0, 0, 0]}))
                assert (await next_message(one, "refused"))["kind"] == "not-now"
            # a reconnection (to the other process) has the whole round, then the result
            async with live_channel(b, table_id, first) as again:
                seen = [json.loads(await asyncio.wait_for(again.recv(), WAIT))
                        for _ in range(7)]
                assert [m["type"] for m in seen] == ["table", *["move"] * 5, "result"]
                assert [m["action"] for m in seen if m.get("seat") == 0] == [
                    ["place", 0, 3, 4], ["place", 2, 5, 5], ["end"]]
                assert [m["action"] for m in seen if m.get("seat") == 1] == [
                    ["place", 1, 0, 0], ["end"]]
            async with live_channel(a, table_id, "not-a-token") as stranger:
                assert (await next_message(stranger, "refused"))["kind"] == "signed-out"
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await asyncio.wait_for(stranger.recv(), WAIT)
                assert closed.value.rcvd.code == 4401

        asyncio.run(play())
        answer = httpx.get(f"{started[1][1]}/api/tables/{table_id}", timeout=WAIT).json()
        assert answer["status"] == "finished"
        assert answer["results"] == [{"scores": [2, 1], "winner": 0}]
    finally:
        for process, _ in started:
            bench.stop_server(process)


@pytest.mark.server
@pytest.mark.postgresql
def test_the_floor_with_rules_plays_each_action_on_the_engine(floor_cluster):
    """``floor.py --rules``: an action the rules refuse is refused, an accepted one
    scores as the engine scores it, and the other process follows the seat's game
    (the next move, sent there, is judged on the game as played so far)."""
    import psycopg

    import blockyard

    bench, url = floor_cluster
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE floor_rules")
    database = url.rsplit("/", 1)[0] + "/floor_rules"
    (table_id, first, _second, seed), = bench.floor_module().prepare(database, 1)
    started = [bench.start_floor(database, True, 2, rules=True) for _ in range(2)]
    game = blockyard.new_game("eu-classic", seed=seed)
    try:
        a, b = (u.replace("http://", "ws://") for _, u in started)

        async def play():
            async with live_channel(a, table_id, first) as zero:
                await next_message(zero, "table")
                await zero.send(json.dumps({"type": "act", "action": ["place", 0, 60, 60]}))
                assert (await next_message(zero, "refused"))["kind"] == "illegal"
                game.place(*game.legal_moves()[0])
                await zero.send(json.dumps({"type": "act", "action": game.log[-1]}))
                move = await next_message(zero, "move")
                assert (move["score"], move["over"]) == (game.score, False)
            async with live_channel(b, table_id, first) as again:  # the other process
                await next_message(again, "table")
                assert (await next_message(again, "move"))["action"] == game.log[-1]
                game.place(*game.legal_moves()[-1])
                await again.send(json.dumps({"type": "act", "action": game.log[-1]}))
                move = await next_message(again, "move")
                assert (move["action"], move["score"]) == (game.log[-1], game.score)

        asyncio.run(play())
    finally:
        for process, _ in started:
            bench.stop_server(process)


@pytest.mark.server
@pytest.mark.postgresql
@pytest.mark.slow
def test_the_floor_run_prints_blockyard_and_both_floors_side_by_side():
    # tiny sizes: a smoke run of the whole comparison (its own PostgreSQL, two
    # processes of each system); the figures themselves are not judged here
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "server.py"), "--only", "floor", "--saturate", "4",
         "--pace", "4", "--idle", "4", "--turns", "2", "--think", "0.05", "--seconds", "30"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    header = next(line for line in lines if "Blockyard/group" in line)
    assert header.split()[:4] == ["Blockyard", "floor", "group-commit", "floor"]
    for label in ("actions/s at saturation, 4 clients", "server CPU ms per action, 4",
                  "PostgreSQL CPU ms per action, 4", "p99 ms, 4 clients at 0.05 s pace",
                  "memory per idle WebSocket, kB (deflate)"):
        assert any(label in line for line in lines), label
    assert "floor + rules" in header and "/ with rules" in header
    lost = next(line for line in lines if "games lost" in line)
    assert lost.split()[2:6] == ["0", "0", "0", "0"], lost
    assert "synchronous_commit on" in done.stdout


def test_the_verification_cost_runs_each_of_its_parts_on_real_games(monkeypatch):
    """``benchmarks/verify_cost.py`` counts what it names: each mode does its
    work on finished games (the verification accepts them, the checks by hand
    rebuild the same game), without valgrind here."""
    from blockyard import replay
    from blockyard.server import verify

    bench = load_benchmark(BENCHMARKS / "verify_cost.py", "verify_cost_benchmark")
    games = bench._games(3, 12)
    assert all(replay(g["log"]).over for g in games)
    verified = []
    real = verify.verify_replay
    monkeypatch.setattr(verify, "verify_replay",
                        lambda data, player: verified.append(real(data, player)))
    bench._inner("verify", 1, 1, 12)
    assert [v.score for v in verified] == [g["score"] for g in bench._games(3, 12)]
    for mode in (*bench.REFERENCES, *bench.PARTS):
        bench._inner(mode, 1, 1, 12)
