"""The ``blockyard`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .errors import PluginError, RulesetError


def _cmd_list(args: argparse.Namespace) -> int:
    from .rulefiles import list_rulesets

    infos = list_rulesets()
    if not infos:
        print("no rulesets found")
        return 1
    width = max(len(i.id) for i in infos)
    family = None
    for info in infos:
        if info.family != family:
            family = info.family
            print(f"{family}:")
        print(f"  {info.id:<{width}}  {info.name}  [{info.source}: {info.path}]")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from .rulefiles import load_ruleset

    print(load_ruleset(args.ruleset).to_toml(), end="")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from .frontend_entry import run_frontend

    return run_frontend(ruleset=getattr(args, "ruleset", None), seed=getattr(args, "seed", None))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blockyard", description="Block-puzzle games: play, list and inspect rulesets.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("list", help="every ruleset found, with where it comes from")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("show", help="print a ruleset's resolved rule file as TOML")
    p.add_argument("ruleset", help="ruleset id or path to a .toml file")
    p.set_defaults(func=_cmd_show)
    p = sub.add_parser("play", help="open the game window straight into a game")
    p.add_argument("ruleset", help="ruleset id or path to a .toml file")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    p.set_defaults(func=_cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", _cmd_play)
    try:
        return func(args)
    except (RulesetError, PluginError) as exc:
        print(f"blockyard: {exc}", file=sys.stderr)
        return 2
