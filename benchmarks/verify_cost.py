"""What a verification costs beside a replay by hand, in instructions: the same
eu-classic games verified as a verifying process does for ``POST /api/games``
(``blockyard.server.verify.verify_replay``, no hook watchdog), rebuilt by hand
with the headless API (``blockyard.replay`` of the log) and checked by hand
(``blockyard.replays.Replay.check()``: the header and the final digest too),
and with ``--parts`` each part a verification adds.

Counted by valgrind's callgrind (``apt install valgrind``), which counts the
instructions a process runs whatever else the machine does: figures that a busy
machine does not move, where CPU-seconds (``benchmarks/server.py --only
verify``) swing by a tenth. Each figure is one process run on ``--games`` games
minus the same run on none (start-up and set-up cancel out), divided by the
number of games; ``PYTHONHASHSEED=0`` so that both runs are the same program.

Usage: python benchmarks/verify_cost.py [--games 20] [--moves 40] [--parts]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from typing import Any

REFERENCES = ("verify", "hand", "check")
PARTS = ("digest", "identity", "actions", "stored", "shape", "work")
TARGET = 0.9


def played(seed: int, moves: int) -> dict[str, Any]:
    """The replay data of an eu-classic game of ``seed``: up to ``moves`` first legal
    placements, then the round ended (the games both verification benchmarks use)."""
    import blockyard
    from blockyard.replays import replay_data

    game = blockyard.new_game("eu-classic", seed=seed)
    for _ in range(moves):
        if game.over:
            break
        game.place(*game.legal_moves()[0])
    if not game.over:
        game.end_round()
    return replay_data(game)


def _games(count: int, moves: int) -> list[dict[str, Any]]:
    return [played(seed, moves) for seed in range(count)]


def _inner(mode: str, games: int, count: int, moves: int) -> None:
    """Run ``mode`` on ``count`` of ``2 + games`` games after a warm-up on two
    (in valgrind; every game made and rebuilt, however many are run)."""
    from blockyard import replay, watchdog

    watchdog.set_default(None)  # as in a verifying process
    from blockyard.discovery import load_ruleset
    from blockyard.gamecheck import actions_json, check_work, dealt_game, game_identity
    from blockyard.replays import Replay, check_replay_data, replay_json, state_digest
    from blockyard.server.verify import verify_replay

    data = _games(2 + games, moves)
    ruleset = load_ruleset("eu-classic")
    games = []
    for d in data:  # the rebuilt games the parts work on (set-up: in both runs)
        game = dealt_game(ruleset, d["log"][0][1])
        for action in d["log"][1:]:
            game.apply(action)
        games.append(game)
    texts = [actions_json(g.log[1:]) for g in games]
    work: dict[str, Callable[[int], object]] = {
        "verify": lambda i: verify_replay(data[i], "bench"),
        "hand": lambda i: replay(data[i]["log"]),
        "check": lambda i: Replay(None, data[i]).check(),
        "digest": lambda i: state_digest(games[i]),
        "identity": lambda i: game_identity(games[i], texts[i]),
        "actions": lambda i: actions_json(games[i].log[1:]),
        "stored": lambda i: replay_json(games[i], "bench", final_digest="0" * 64,
                                        actions=texts[i], dealt=True),
        "shape": lambda i: check_replay_data(data[i]),
        "work": lambda i: check_work(ruleset, data[i]["log"]),
    }
    run = work[mode]
    run(0)
    run(1)
    for i in range(2, 2 + count):
        run(i)


def _count(mode: str, games: int, count: int, moves: int) -> int:
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, "--inner", mode, "--run", str(count), "--games", str(games),
         "--moves", str(moves)],
        env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"valgrind printed no count for {mode}:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_game(mode: str, games: int, moves: int) -> float:
    """Instructions per game of ``mode`` (a run on ``games`` games minus the same
    process running it on none)."""
    return (_count(mode, games, games, moves) - _count(mode, games, 0, moves)) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--parts", action="store_true", help="each part a verification adds")
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    parser.add_argument("--run", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        _inner(args.inner, args.games, args.run, args.moves)
        return
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (apt install valgrind): it counts the "
                         "instructions this benchmark compares")
    modes = REFERENCES + (PARTS if args.parts else ())
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        counts = dict(zip(modes, pool.map(lambda m: per_game(m, args.games, args.moves),
                                          modes), strict=True))
    verify, hand, check = (counts[m] for m in REFERENCES)
    print(f"eu-classic games of up to {args.moves} placements, {args.games} games; "
          "instructions per game (callgrind)")
    print(f"verified (verify_replay)          {verify / 1e6:6.2f} M")
    print(f"by hand: blockyard.replay(log)    {hand / 1e6:6.2f} M   verified/by hand "
          f"{hand / verify:.2f} (target {TARGET})")
    print(f"by hand: Replay.check()           {check / 1e6:6.2f} M   verified/checked "
          f"{check / verify:.2f}")
    for part in PARTS if args.parts else ():
        print(f"  part: {part:10}                {counts[part] / 1e6:6.2f} M   "
              f"{counts[part] / hand:5.1%} of a replay by hand")


if __name__ == "__main__":
    main()
