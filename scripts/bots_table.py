"""Write the greedy-against-search table of docs/bots.md.

    .venv/bin/python scripts/bots_table.py [--games 4] [--max-moves 300] [--write]
                                           [--ruleset ID ...]

For every bundled ruleset, plays seeds 0…games−1 with greedy and with search
(each game stopped after --max-moves moves) in this process, and prints a
Markdown table: mean and median score, moves per game, ms per move (of this
process's CPU time, so other work on the machine does not inflate it). With
--write it replaces the table between the markers in docs/bots.md. With
--ruleset (repeatable) only those rulesets are played, and --write replaces
only their rows, keeping the others (same --games and --max-moves as the
table's first line, or the script refuses).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import blockyard
from blockyard.bots import get_bot
from blockyard.files import write_atomically

BEGIN = "<!-- bots-table:begin -->"
END = "<!-- bots-table:end -->"
DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"


def measure(bot: str, ruleset: str, games: int, max_moves: int) -> tuple[float, float, float,
                                                                          float, int]:
    scores, moves, spent, capped = [], 0, 0.0, 0
    for seed in range(games):
        game = blockyard.new_game(ruleset, seed=seed)
        player = get_bot(bot)
        start = time.process_time()  # this process's CPU time: not slowed by other work
        moves += player.play(game, max_moves=max_moves)
        spent += time.process_time() - start
        scores.append(game.score)
        capped += not game.over
    return (statistics.fmean(scores), statistics.median(scores), moves / games,
            1000 * spent / max(moves, 1), capped)


HEADER = ["| ruleset | greedy mean | greedy median | greedy moves | greedy ms/move "
          "| search mean | search median | search moves | search ms/move | search ÷ greedy |",
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]


def bundled() -> list[str]:
    return sorted(info.id for info in blockyard.list_rulesets()
                  if info.source == "bundled" and info.error is None)


def table(games: int, max_moves: int, rulesets: list[str] | None = None) -> str:
    rows = list(HEADER)
    for ruleset in rulesets or bundled():
        g = measure("greedy", ruleset, games, max_moves)
        s = measure("search", ruleset, games, max_moves)
        ratio = f"{s[0] / g[0]:.1f}×" if g[0] else "—"
        capped = f" ({s[4]} of {games} stopped)" if s[4] else ""
        rows.append(f"| {ruleset} | {g[0]:.0f} | {g[1]:.0f} | {g[2]:.0f} | {g[3]:.1f} "
                    f"| {s[0]:.0f} | {s[1]:.0f} | {s[2]:.0f}{capped} | {s[3]:.1f} | {ratio} |")
        print(rows[-1], file=sys.stderr, flush=True)
    return "\n".join(rows)


def merge(old: str, new: str, intro: str) -> str:
    """The table ``old`` (text between the markers) with the rows of ``new``
    replacing those of the same rulesets, in ruleset order."""
    lines = old.strip().splitlines()
    if not lines or lines[0] != intro:
        raise ValueError(f"the table in {DOC.name} was made with other settings "
                         f"({lines[0] if lines else 'no first line'!r}); run without --ruleset")

    def rows(text: str) -> dict[str, str]:
        return {line.split("|")[1].strip(): line for line in text.splitlines()
                if line.startswith("| ") and line not in HEADER}

    merged = {**rows(old), **rows(new)}
    return "\n".join([intro, "", *HEADER, *(merged[r] for r in sorted(merged))])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--max-moves", type=int, default=300)
    parser.add_argument("--write", action="store_true", help="update docs/bots.md")
    parser.add_argument("--ruleset", action="append", choices=bundled(),
                        help="only this bundled ruleset (repeatable)")
    args = parser.parse_args(argv)
    intro = (f"Seeds 0–{args.games - 1}, every game stopped after {args.max_moves} moves "
             f"(Sudoku Bloxx: stones), one second of game clock per move.")
    text = f"{intro}\n\n" + table(args.games, args.max_moves, args.ruleset)
    print(text)
    if args.write:
        doc = DOC.read_text(encoding="utf-8")
        if BEGIN not in doc or END not in doc:
            print(f"{DOC}: the markers {BEGIN} … {END} are missing", file=sys.stderr)
            return 1
        head, rest = doc.split(BEGIN, 1)
        old, tail = rest.split(END, 1)
        if args.ruleset:
            try:
                text = merge(old, text, intro)
            except ValueError as exc:
                print(f"{DOC}: {exc}", file=sys.stderr)
                return 1
        write_atomically(DOC, f"{head}{BEGIN}\n{text}\n{END}{tail}")
        print(f"wrote {DOC}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
