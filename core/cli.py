"""The ``blockyard`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .errors import DataError, PluginError, RulesetError


def _cmd_list(args: argparse.Namespace) -> int:
    from .discovery import list_rulesets

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
        if info.error is not None:
            print(f"  {'':<{width}}  cannot be loaded: {info.error}")
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    from .discovery import load_ruleset

    print(load_ruleset(args.ruleset).to_toml(), end="")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .discovery import load_ruleset
    from .testing import check_ruleset

    ruleset = load_ruleset(args.ruleset)  # a RulesetError is reported by main()
    print(f"{ruleset.path}: rule file valid ({ruleset.id}, {ruleset.family}, "
          f"{ruleset.rows}×{ruleset.cols}, plugins: "
          f"{', '.join(name for name, _ in ruleset.plugin_objects)})")
    report = check_ruleset(ruleset, games=args.games, max_actions=args.actions, seed=args.seed,
                           hook_seconds=args.hook_seconds)
    print(report.text())
    return 0 if report.ok else 1


def _cmd_plugins(args: argparse.Namespace) -> int:
    from .docgen import plugin_catalogue

    for plugin in plugin_catalogue():
        print(f"{plugin.name}  [{plugin.source}]")
        if plugin.summary:
            print(f"    {plugin.summary}")
        for p in plugin.parameters:
            meaning = f" — {p.meaning}" if p.meaning else ""
            print(f"    {p.name}: {p.type_text()}; default {p.default_text()}{meaning}")
        if not plugin.parameters:
            print("    (no parameters)")
        print(f"    hooks: {', '.join(plugin.hooks) or 'none'}")
    return 0


def _cmd_new_plugin(args: argparse.Namespace) -> int:
    from .scaffold import names, write_package

    try:
        target = write_package(args.name, args.into)
    except (ValueError, FileExistsError) as exc:
        print(f"blockyard: {exc}", file=sys.stderr)
        return 2
    n = names(args.name)
    print(f"wrote the plugin package {n['dist']} into {target}")
    print(f"next: pip install {target}   then: blockyard check {n['ruleset']}")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from .frontend_entry import run_frontend

    if getattr(args, "ruleset", None) is None and getattr(args, "challenge", None) is None \
            and getattr(args, "func", None) is _cmd_play and hasattr(args, "challenge"):
        print("blockyard play: give a RULESET or --challenge CODE", file=sys.stderr)
        return 2
    return run_frontend(ruleset=getattr(args, "ruleset", None), seed=getattr(args, "seed", None),
                        challenge=getattr(args, "challenge", None),
                        watch=bool(getattr(args, "watch", False)))


def _cmd_replay(args: argparse.Namespace) -> int:
    from .frontend_entry import run_frontend
    from .replays import ReplayError, load_replay

    try:
        load_replay(args.file).check()  # before any window is opened
    except ReplayError as exc:
        print(f"blockyard: {exc}")  # on standard output, as the game window reports it
        return 2
    return run_frontend(replay=str(args.file))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blockyard", description="Block-puzzle games: play, list and inspect rulesets.")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("list", help="every ruleset found, with where it comes from")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("show", help="print a ruleset's resolved rule file as TOML")
    p.add_argument("ruleset", help="ruleset id or path to a .toml file")
    p.set_defaults(func=_cmd_show)
    p = sub.add_parser("check", help="validate a rule file and run the conformance kit on it")
    p.add_argument("ruleset", help="ruleset id or path to a .toml file")
    p.add_argument("--games", type=int, default=8, help="random games to play (default 8)")
    p.add_argument("--actions", type=int, default=150, help="actions per game (default 150)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random player")
    p.add_argument("--hook-seconds", type=float, default=1.0,
                   help="report (and stop) a hook call longer than this (default 1)")
    p.set_defaults(func=_cmd_check)
    p = sub.add_parser("plugins", help="every installed rule plugin: parameters and hooks")
    p.set_defaults(func=_cmd_plugins)
    p = sub.add_parser("new-plugin", help="write a ready-to-install plugin package")
    p.add_argument("name", help="plugin name, e.g. bomb-pieces")
    p.add_argument("--into", type=Path, default=None, help="folder (default ./NAME)")
    p.set_defaults(func=_cmd_new_plugin)
    p = sub.add_parser("play", help="open the game window straight into a game")
    p.add_argument("ruleset", nargs="?", help="ruleset id or path to a .toml file")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    p.add_argument("--challenge", metavar="CODE", default=None,
                   help="play the deal of a challenge code, with its score to beat")
    p.add_argument("--watch", action="store_true",
                   help="reload the rule file (a path) whenever it changes, keeping the game "
                        "when the new rules allow it")
    p.set_defaults(func=_cmd_play)
    p = sub.add_parser("replay", help="watch a replay file")
    p.add_argument("file", type=Path, help="a replay file (.json)")
    p.set_defaults(func=_cmd_replay)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", _cmd_play)
    try:
        return func(args)
    except (RulesetError, PluginError, DataError) as exc:
        print(f"blockyard: {exc}", file=sys.stderr)
        return 2
