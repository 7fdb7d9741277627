"""Measure every figure docs/bots.md states and write them into it.

    .venv/bin/python scripts/docs_figures.py [--write] [--skip-table]

One script for all of them: the greedy-against-search table (scripts/bots_table.py,
run here with its own settings), the longer eu-classic runs and what the text says
of them, the Sudoku Bloxx note (from the table's row), the ``simulate --compare``
example with its run time, and the cluster paragraph's moves, speed, core-hours
and JSON size. The measured values are kept in docs/bots-figures.json; every
figure block of the page (between ``<!-- figures:NAME:begin -->`` and
``<!-- figures:NAME:end -->``) is rendered from them by :func:`render`, so
tests/test_docs_figures.py can check that each stated figure equals the
generated one (and recompute the deterministic ones: scores, moves, the compare
report). Timings are processor time of this machine (not wall-clock time), so
other work running beside the script does not inflate them.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import blockyard
from blockyard import lab
from blockyard.bots import get_bot
from blockyard.files import write_atomically

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "bots.md"
DATA = ROOT / "docs" / "bots-figures.json"
BLOCKS = ("sudoku-note", "long-runs", "compare", "cluster")

# the settings of each measurement (the rendered text names them)
LONG_SEEDS = 10
LONG_SEARCH_MOVES = 1000
COMPARE = ("eu-classic", "eu-hardcore")
COMPARE_GAMES = 100
COMPARE_WORKERS = 2
JSON_GAMES = 200
CLUSTER_GAMES = 1_000_000
CLUSTER_CORES = 64


def _bots_table() -> Any:
    spec = importlib.util.spec_from_file_location("bots_table", ROOT / "scripts" / "bots_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- measuring ---------------------------------------------------------------------------


def play(bot: str, ruleset: str, seeds: int, max_moves: int | None) -> dict[str, Any]:
    """Scores and moves per seed, and the seconds of CPU time the bot spent (this
    process's: other work on the machine does not inflate it)."""
    scores, moves, spent = [], [], 0.0
    for seed in range(seeds):
        game = blockyard.new_game(ruleset, seed=seed)
        player = get_bot(bot)
        start = time.process_time()
        moves.append(player.play(game, max_moves=max_moves))
        spent += time.process_time() - start
        scores.append(game.score)
    return {"scores": scores, "moves": moves, "seconds": spent}


def compare_output(games: int, workers: int) -> str:
    """The text of ``blockyard simulate --compare`` for the documented example."""
    return lab.compare(*COMPARE, games=games, workers=workers).text()


def measure() -> dict[str, Any]:
    data: dict[str, Any] = {"long": {"greedy": play("greedy", "eu-classic", LONG_SEEDS, None),
                                     "search": play("search", "eu-classic", LONG_SEEDS,
                                                    LONG_SEARCH_MOVES)}}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "blockyard", "simulate", "--compare",
                           *COMPARE, "--games", str(COMPARE_GAMES), "--workers",
                           str(COMPARE_WORKERS), "--quiet"], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command and its workers
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    data["compare"] = {"output": done.stdout.rstrip("\n"), "cpu_seconds": cpu}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.json"
        report = lab.simulate("eu-classic", games=JSON_GAMES, workers=1)
        lab.write_json(report.to_json(), path)
        data["json_bytes_per_game"] = path.stat().st_size / JSON_GAMES
    return data


# -- rendering ---------------------------------------------------------------------------


def _n(value: float) -> str:
    return f"{value:,.0f}"


def table_rows(doc: str) -> dict[str, list[str]]:
    """The cells of each row of the bots table in ``doc``, by ruleset."""
    table = _bots_table()
    inside = doc.split(table.BEGIN, 1)[1].split(table.END, 1)[0]
    return {cells[0]: cells for cells in
            ([c.strip() for c in line.strip().strip("|").split("|")]
             for line in inside.splitlines() if line.startswith("| ") and line not in table.HEADER)}


def _ms(run: dict[str, Any]) -> float:
    return 1000 * run["seconds"] / max(sum(run["moves"]), 1)


def render(name: str, data: dict[str, Any], doc: str) -> str:
    """The text of the figure block ``name`` from the measured ``data`` (and, for
    the Sudoku note, the table already in ``doc``)."""
    if name == "sudoku-note":
        row = table_rows(doc)["sudoku-bloxx"]
        greedy_moves, greedy_ms, search_moves, search_ms, ratio = row[3], row[4], row[7], \
            row[8], row[9]
        return (f"Sudoku Bloxx games end long before the clock for both bots ({greedy_moves} and "
                f"{search_moves} stones of the 360 its six minutes allow at a second per "
                f"stone); there search gains least ({ratio} greedy's mean) and spends "
                f"{search_ms} ms per stone to greedy's {greedy_ms}.")
    if name == "long-runs":
        g, s = data["long"]["greedy"], data["long"]["search"]
        stopped = sum(m >= LONG_SEARCH_MOVES for m in s["moves"])
        better = sum(b > a for a, b in zip(g["scores"], s["scores"], strict=True))
        ratio = statistics.fmean(s["scores"]) / statistics.fmean(g["scores"])
        lowest, best = min(s["scores"]), max(g["scores"])
        seeds = len(g["scores"])
        every = ("on every seed" if better == seeds else f"on {better} of {seeds} seeds")
        return "\n".join([
            f"Longer runs on eu-classic, seeds 0–{seeds - 1}, the same seeds for both bots:",
            "",
            "| bot | mean | median | moves per game | ms per move |",
            "|---|---:|---:|---:|---:|",
            f"| greedy | {_n(statistics.fmean(g['scores']))} | {_n(statistics.median(g['scores']))}"
            f" | {_n(statistics.fmean(g['moves']))} | {_ms(g):.2f} |",
            f"| search (games stopped at {_n(LONG_SEARCH_MOVES)} moves; {stopped} of {seeds} "
            f"reached it) | {_n(statistics.fmean(s['scores']))} | "
            f"{_n(statistics.median(s['scores']))} | {_n(statistics.fmean(s['moves']))} | "
            f"{_ms(s):.1f} |",
            "",
            f"Search scores about {ratio:.0f} times greedy's mean and more than greedy {every} "
            f"(its lowest game, {_n(lowest)} points, is {lowest / best:.1f} times greedy's "
            f"best). Greedy's speed is that of evaluating every candidate through the "
            f"engine's preview (about {_n(1000 / _ms(g))} moves per second on this machine)."])
    if name == "compare":
        out = data["compare"]["output"]
        means = re.search(r"^moves mean\s+([\d.]+)\s+([\d.]+)$", out, re.M)
        diff = re.search(r"^  moves\s+([-+\d.]+)\s+\[([-+\d.]+), ([-+\d.]+)\]$", out, re.M)
        assert means is not None and diff is not None, out
        classic, shift = float(means[1]), float(diff[1])
        low, high = float(diff[2]), float(diff[3])
        sign = "shorter" if shift < 0 else "longer"
        answer = "Yes" if shift < 0 and high < 0 else "No"
        return "\n".join([
            f"With `--games {COMPARE_GAMES} --workers {COMPARE_WORKERS}` (processor time "
            f"{data['compare']['cpu_seconds']:.0f} s in all, about half that on a two-core "
            f"machine to itself):",
            "",
            "```",
            out,
            "```",
            "",
            f"{answer}: with greedy, hardcore games are {abs(shift):.0f} moves (about "
            f"{abs(shift) / classic:.0%} of a classic game) {sign}, and the interval "
            f"[{low:+.1f}, {high:+.1f}] {'leaves out' if low * high > 0 else 'takes in'} 0."])
    if name == "cluster":
        out = data["compare"]["output"]
        means = re.search(r"^moves mean\s+([\d.]+)", out, re.M)
        assert means is not None, out
        moves = float(means[1]) * CLUSTER_GAMES
        rate = 1000 / _ms(data["long"]["greedy"])
        hours = moves / rate / 3600
        games_rate = rate / float(means[1])
        size = data["json_bytes_per_game"] * CLUSTER_GAMES / 1e6
        return (f"A million greedy games of eu-classic are about {moves / 1e6:.0f} million "
                f"moves: at the speed measured above (about {_n(rate)} greedy moves, some "
                f"{_n(games_rate)} games, per second per core) that is roughly {hours:.1f} "
                f"core-hours, so about {hours * 60 / CLUSTER_CORES:.0f} minutes on "
                f"{CLUSTER_CORES} cores. `--json` of a million games is about {size:,.0f} MB; "
                f"leave it out when the summary is enough.")
    raise ValueError(f"no figure block {name!r}")


def blocks(doc: str) -> dict[str, str]:
    """The text inside each figure block of ``doc``."""
    found = {}
    for name in BLOCKS:
        begin, end = f"<!-- figures:{name}:begin -->", f"<!-- figures:{name}:end -->"
        if begin not in doc or end not in doc:
            raise ValueError(f"{DOC.name}: the markers {begin} … {end} are missing")
        found[name] = doc.split(begin, 1)[1].split(end, 1)[0].strip("\n")
    return found


def rewrite(doc: str, data: dict[str, Any]) -> str:
    for name in BLOCKS:
        begin, end = f"<!-- figures:{name}:begin -->", f"<!-- figures:{name}:end -->"
        head, rest = doc.split(begin, 1)
        tail = rest.split(end, 1)[1]
        doc = f"{head}{begin}\n{render(name, data, doc)}\n{end}{tail}"
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true",
                        help="update docs/bots.md and docs/bots-figures.json")
    parser.add_argument("--skip-table", action="store_true",
                        help="keep the bots table (scripts/bots_table.py) as it is")
    args = parser.parse_args(argv)
    if not args.skip_table:
        status = _bots_table().main(["--write"] if args.write else [])
        if status:
            return int(status)
    data = measure()
    doc = rewrite(DOC.read_text(encoding="utf-8"), data)
    for name, text in blocks(doc).items():
        print(f"[{name}]\n{text}\n")
    if args.write:
        write_atomically(DATA, json.dumps(data, indent=1) + "\n")
        write_atomically(DOC, doc)
        print(f"wrote {DOC} and {DATA}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
