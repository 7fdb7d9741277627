"""The ``blockyard`` command line."""

from __future__ import annotations

import argparse
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .completion import SHELLS, autocomplete, complete_rulesets, shell_code
from .errors import DataError, PluginError, RulesetError

if TYPE_CHECKING:
    from .discovery import RulesetInfo


def _cmd_list(args: argparse.Namespace) -> int:
    from .discovery import list_rulesets

    infos = list_rulesets()
    if args.json:
        return _print_json(_rulesets_json(infos), status=0 if infos else 1)
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
    from . import paths
    from .registry import registry

    for package in registry().broken:
        print(f"plugin package {package.package} is disabled, its rule files are not listed: "
              f"{package.reason}")
    print(f"your own rule files go in: {paths.user_rulesets_dir()}")
    return 0


def _print_json(document: object, *, status: int = 0) -> int:
    """Print ``document`` as one JSON document (``--json``) and answer ``status``."""
    import json

    print(json.dumps(document, indent=2, ensure_ascii=False))
    return status


def _disabled_packages() -> list[dict[str, str | None]]:
    """The plugin packages that are disabled, and why (``--json``)."""
    from .registry import package_version, registry

    return [{"package": broken.package, "version": package_version(broken.package),
             "entry_point": broken.entry_point, "reason": broken.reason}
            for broken in registry().broken]


def _rulesets_json(infos: list[RulesetInfo]) -> dict[str, object]:
    """``blockyard list --json``: every ruleset found, where it comes from and why it
    cannot be loaded (``error``, ``null`` when it can), the disabled plugin packages
    and the folder of the user's own rule files."""
    from . import paths

    return {"rulesets": [{"id": info.id, "name": info.name, "family": info.family,
                          "description": info.description, "source": info.source,
                          "path": info.path, "error": info.error} for info in infos],
            "disabled_packages": _disabled_packages(),
            "user_rulesets_dir": str(paths.user_rulesets_dir())}


def _cmd_show(args: argparse.Namespace) -> int:
    from .discovery import load_ruleset

    print(load_ruleset(args.ruleset).to_toml(), end="")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .discovery import load_ruleset
    from .testing import check_ruleset

    ruleset = load_ruleset(args.ruleset)  # a RulesetError is reported by main()
    plugins = [name for name, _ in ruleset.plugin_objects]
    if not args.json:
        print(f"{ruleset.path}: rule file valid ({ruleset.id}, {ruleset.family}, "
              f"{ruleset.rows}×{ruleset.cols}, plugins: {', '.join(plugins)})")
    report = check_ruleset(ruleset, games=args.games, max_actions=args.actions, seed=args.seed,
                           hook_seconds=args.hook_seconds)
    status = 0 if report.ok else 1
    if args.json:
        return _print_json({
            "ruleset": ruleset.id, "path": str(ruleset.path), "family": ruleset.family,
            "plugins": plugins, "ok": report.ok, "games": report.games,
            "actions": report.actions, "checks": dict(sorted(report.checks.items())),
            "warnings": report.warnings, "failures": report.failures}, status=status)
    print(report.text())
    return status


def _cmd_plugins(args: argparse.Namespace) -> int:
    from .answers import ANSWER_BOUNDS
    from .docgen import plugin_catalogue

    if args.json:
        return _print_json({"plugins": [{
            "name": plugin.name, "package": plugin.source, "version": plugin.version,
            "summary": plugin.summary,
            "parameters": [{"name": p.name, "type": p.type_text(), "default": p.default_text(),
                            "required": p.required, "meaning": p.meaning}
                           for p in plugin.parameters],
            "hooks": [{"name": hook, "wrapper": hook in plugin.wrappers,
                       "answers": ANSWER_BOUNDS.get(hook.removeprefix("blockyard_"))}
                      for hook in plugin.hooks]} for plugin in plugin_catalogue()],
            "disabled_packages": _disabled_packages()})
    for plugin in plugin_catalogue():
        package = plugin.source if plugin.version is None else \
            f"{plugin.source} {plugin.version}"
        print(f"{plugin.name}  [{package}]")
        if plugin.summary:
            print(f"    {plugin.summary}")
        for p in plugin.parameters:
            meaning = f" — {p.meaning}" if p.meaning else ""
            default = p.default_text()
            given = default if default in ("required", "optional") else f"default {default}"
            print(f"    {p.name}: {p.type_text()}; {given}{meaning}")
        if not plugin.parameters:
            print("    (no parameters)")
        print("    hooks:" if plugin.hooks else "    hooks: none")
        for hook in plugin.hooks:
            bound = ANSWER_BOUNDS.get(hook.removeprefix("blockyard_"))
            kind = " (wrapper: sees the other plugins' answer and may replace it)" \
                if hook in plugin.wrappers else ""
            answer = "" if bound is None else \
                (" — answers nothing" if bound == "nothing" else f" — answers {bound}")
            print(f"      {hook}{kind}{answer}")
    from .registry import package_version, registry

    broken = registry().broken
    if broken:
        print("disabled plugin packages (none of their plugins, bots or rule files is "
              "loaded):")
    for disabled in broken:
        version = package_version(disabled.package)
        name = disabled.package if version is None else f"{disabled.package} {version}"
        print(f"  {name}  [entry point {disabled.entry_point}]")
        print(f"    {disabled.reason}")
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
    print(f"next: pip install -e \"{target}[test]\"   then: blockyard check {n['ruleset']}")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    from .frontend_entry import run_frontend

    ruleset = getattr(args, "ruleset", None)
    if getattr(args, "watch", False) and (ruleset is None or not (
            ruleset.endswith(".toml") or "/" in ruleset)):
        print("blockyard play: --watch needs the path of a rule file (e.g. my-rules.toml)",
              file=sys.stderr)
        return 2
    if getattr(args, "ruleset", None) is None and getattr(args, "challenge", None) is None \
            and getattr(args, "func", None) is _cmd_play and hasattr(args, "challenge"):
        print("blockyard play: give a RULESET or --challenge CODE", file=sys.stderr)
        return 2
    tray = getattr(args, "tray", None)
    if tray is not None:
        problem = _tray_problem(ruleset, getattr(args, "challenge", None), tray)
        if problem is not None:
            print(f"blockyard play: --tray: {problem}", file=sys.stderr)
            return 2
    return run_frontend(ruleset=getattr(args, "ruleset", None), seed=getattr(args, "seed", None),
                        challenge=getattr(args, "challenge", None),
                        watch=bool(getattr(args, "watch", False)),
                        screenshot=args.screenshot, quit_after=args.quit_after, tray=tray)


def _game_seed(text: str) -> int:
    """``--seed`` of ``play``: a whole number a snapshot can carry (from -2**63 to
    2**63 - 1), or argparse's error (status 2) before a window opens."""
    from .validate import MAX_SEED

    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text[:40]!r}"
                                         ) from None
    if not -MAX_SEED <= seed < MAX_SEED:
        raise argparse.ArgumentTypeError(f"expected a whole number from -2**63 to 2**63 - 1 "
                                         f"(what a saved game holds), found {text[:40]}")
    return seed


def _tray_problem(ruleset_name: str | None, challenge: str | None,
                  tray: Sequence[str]) -> str | None:
    """Why ``play --tray`` cannot start a game of ``ruleset_name`` with ``tray``
    (``None`` when it can): no ruleset or a challenge as well, a game without a
    tray, more pieces than slots, or a piece the ruleset does not have. A rule
    file that does not load raises its ``RulesetError``."""
    from .discovery import load_ruleset
    from .game import new_game
    from .pieces import parse_piece_name

    if challenge is not None or ruleset_name is None:
        return "starts a game of a RULESET, not of a challenge code"
    ruleset = load_ruleset(ruleset_name)
    if not ruleset.mode_record.has_tray:
        return f"ruleset {ruleset.id!r} has no tray ({ruleset.mode_record.name} game)"
    if len(tray) > ruleset.tray_slots:
        return (f"{len(tray)} pieces given, but ruleset {ruleset.id!r} has "
                f"{ruleset.tray_slots} tray slots ([tray] slots)")
    names = {p.name for p in ruleset.pieces}
    shapes = {p.cells for p in ruleset.pieces}
    for index, item in enumerate(tray, start=1):
        try:
            family, cells = parse_piece_name(item)
        except ValueError as exc:
            return f"piece {index}: {exc}"
        if (family is None and cells not in shapes) or (family is not None and not any(
                p.family == family and p.cells == cells for p in ruleset.pieces)):
            shown = ", ".join(sorted(names))
            return (f"piece {index} {item!r}: ruleset {ruleset.id!r} has no such piece; its "
                    f"pieces are {shown[:600]}{'…' if len(shown) > 600 else ''}")
    try:
        new_game(ruleset, seed=0, tray=list(tray))
    except ValueError as exc:  # anything else the engine refuses, said as it says it
        return str(exc)
    return None


def _cmd_replay(args: argparse.Namespace) -> int:
    from .frontend_entry import run_frontend
    from .replays import ReplayError, load_replay

    try:
        load_replay(args.file).check()  # before any window is opened
    except ReplayError as exc:
        print(f"blockyard: {exc}")  # on standard output, as the game window reports it
        return 2
    return run_frontend(replay=str(args.file), screenshot=args.screenshot,
                        quit_after=args.quit_after)


_WINDOW_COMMANDS = (_cmd_play, _cmd_replay)


def _screenshot_problem(path: Path) -> str | None:
    """Why a screenshot cannot be written to ``path`` (None when it can)."""
    if not path.suffix:
        return "needs a file name ending in an image type, e.g. .png"
    if not path.parent.is_dir():
        return f"the folder {path.parent} does not exist"
    try:
        from PIL import Image
    except ImportError:  # the window reports the missing frontend itself
        return None
    if path.suffix.lower() not in Image.registered_extensions():
        return f"unknown image type {path.suffix!r} (use .png, .jpg, .bmp …)"
    return None


def _bot_params(pairs: list[str]) -> dict[str, object]:
    """``NAME=VALUE`` pairs; values are read as JSON where they parse (8, 1.5, true)."""
    import json

    out: dict[str, object] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"--bot-param: expected NAME=VALUE, found {pair!r}")
        try:
            out[name] = json.loads(value)
        except ValueError:
            out[name] = value
    return out


def install_hint(extra: str, *packages: str) -> str:
    """How to add an optional extra to this installation: ``pipx inject`` of
    ``packages`` for a pipx install (its own venv under ``pipx/venvs``), each
    quoted for the shell where it needs it (``'psycopg[binary]>=3.1'``), ``pip
    install`` otherwise (the installed Blockyard's extra: pip takes Blockyard as
    installed and adds the extra's packages)."""
    if "pipx" in Path(sys.prefix).parts and "venvs" in Path(sys.prefix).parts:
        # without the installation's list of the extra's packages, the extra itself
        wanted = packages or (f"blockyard[{extra}]",)
        return f"pipx inject blockyard {' '.join(shlex.quote(p) for p in wanted)}"
    return f"pip install 'blockyard[{extra}]'"


def extra_requirements(extra: str) -> tuple[str, ...]:
    """The requirements of Blockyard's optional ``extra`` as the installed
    distribution lists them (``fastapi>=0.110`` for ``server``), in its order;
    empty when the installation has no metadata or no such extra."""
    import importlib.metadata

    try:
        listed = importlib.metadata.requires("blockyard") or []
    except importlib.metadata.PackageNotFoundError:
        return ()
    found = []
    for line in listed:
        requirement, _, marker = line.partition(";")
        if re.fullmatch(r"\s*extra\s*==\s*(['\"])" + re.escape(extra) + r"\1\s*", marker):
            found.append(requirement.replace(" ", ""))
    return tuple(found)


def _check_bot_params(name: str, params: dict[str, object]) -> None:
    """Refuse parameters the bot does not take, naming the ones it does."""
    import inspect

    from .bots import get_bot

    if not params:
        return
    bot = get_bot(name)  # an unknown name: ValueError naming the bots
    try:
        signature = inspect.signature(type(bot).__init__)
    except (TypeError, ValueError):
        return
    accepted = [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        return
    unknown = [key for key in params if key not in accepted]
    if unknown:
        raise ValueError(f"the bot {name!r} has no parameter {unknown[0]!r}; its parameters: "
                         f"{', '.join(accepted) or 'none'}")


def default_workers() -> int:
    """Local worker processes when ``--workers`` is not given: the machine's cores."""
    import os

    return max(1, os.cpu_count() or 1)


def _cmd_simulate(args: argparse.Namespace) -> int:
    from . import lab

    try:
        params = _bot_params(args.bot_param or [])
        if args.compare is None and args.ruleset is None:
            print("blockyard simulate: give a RULESET or --compare A B", file=sys.stderr)
            return 2
        _check_bot_params(args.bot, params)
        if args.plot is not None:  # checked before the games, not after them
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                print("blockyard simulate: --plot needs matplotlib: "
                      f"{install_hint('lab', 'matplotlib')}", file=sys.stderr)
                return 2
        if args.workers is None and not args.scheduler:
            args.workers = default_workers()
        executor = None
        client = None
        if args.scheduler:
            try:
                from distributed import Client
            except ImportError:
                print("blockyard simulate: --scheduler needs Dask distributed: "
                      f"{install_hint('cluster', 'dask[distributed]')}", file=sys.stderr)
                return 2
            client = Client(args.scheduler)  # type: ignore[no-untyped-call]
            executor = client.get_executor()  # type: ignore[no-untyped-call]
        options = dict(bot=args.bot, games=args.games, seed=args.seed, workers=args.workers,
                       executor=executor, bot_params=params, max_moves=args.max_moves,
                       seconds_per_move=args.seconds_per_move,
                       worker_timeout=args.worker_timeout,
                       workers_alive=None if client is None else lab.dask_workers(client))
        bar = None if args.quiet else lab.ProgressBar(sys.stderr)
        try:
            if args.compare is not None:
                result: lab.Comparison | lab.SimulationReport = lab.compare(
                    args.compare[0], args.compare[1], progress=bar, **options)
            else:
                result = lab.simulate(args.ruleset, progress=bar, **options)
        finally:
            if client is not None:
                client.close()  # type: ignore[no-untyped-call]
        print(result.text())
        if args.json is not None:
            lab.write_json(result.to_json(), args.json)
            print(f"wrote {args.json}")
        if args.plot is not None:
            if isinstance(result, lab.Comparison):
                lab.plot_comparison(result, args.plot)  # both rulesets on the same axes
            else:
                lab.plot(result, args.plot)
            print(f"wrote {args.plot}")
    except (ValueError, RuntimeError, OSError) as exc:
        if isinstance(exc, RulesetError | PluginError):
            raise
        message = str(exc).removeprefix("simulate: ")
        print(f"blockyard simulate: {message}", file=sys.stderr)
        return 2
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    try:
        import fastapi  # noqa: F401  (the server extra, asked for before anything starts)
        import openskill  # noqa: F401  (the live tables' ratings)
        import sqlalchemy  # noqa: F401
        import uvicorn  # noqa: F401

        from .server import SERVE_DEFAULTS, config, serve
    except ImportError as exc:
        hint = install_hint("server", *extra_requirements("server"))
        print(f"blockyard serve needs the server extra ({hint}): {exc}", file=sys.stderr)
        return 2
    import os

    path = args.config or os.environ.get(config.CONFIG_ENV) or None
    if path is not None:
        try:
            config.apply(config.read(Path(path)), args)
        except config.ConfigError as exc:
            print(f"blockyard serve: {exc}", file=sys.stderr)
            return 2
    for name, default in SERVE_DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    return serve(args.host, args.port, args.database, args.workers, log_level=args.log_level,
                 log_format=args.log_format, access_log=args.access_log,
                 metrics=args.metrics,
                 trusted_proxies=args.forwarded_allow_ips,
                 worker_healthcheck_seconds=args.worker_healthcheck_seconds)


def _cmd_serve_db(args: argparse.Namespace) -> int:
    try:
        import alembic  # noqa: F401  (the server extra)
        import sqlalchemy  # noqa: F401

        from .server import maintenance
    except ImportError as exc:
        hint = install_hint("server", *extra_requirements("server"))
        print(f"blockyard serve-db needs the server extra ({hint}): {exc}", file=sys.stderr)
        return 2
    if args.action == "backup":
        return maintenance.backup_command(args.database, args.file, force=args.force)
    if args.action == "upgrade":
        return maintenance.upgrade_command(args.database, args.backup, force=args.force)
    return maintenance.status_command(args.database, as_json=args.json)


def _cmd_web(args: argparse.Namespace) -> int:
    from .website import WebBuildError, build

    try:
        report = build(args.folder)
    except WebBuildError as exc:
        print(f"blockyard web build: {exc}", file=sys.stderr)
        return 2
    print(f"wrote the web page into {report.folder}: {report.files} files, "
          f"{report.bytes / 2**20:.1f} MiB (Pyodide {report.pyodide_version}, "
          f"Blockyard's Python {report.archive_bytes / 2**20:.1f} MiB)")
    return 0


def _cmd_completion(args: argparse.Namespace) -> int:
    print(shell_code(args.shell))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="blockyard", description="Block-puzzle games: play, list and inspect rulesets.")
    # for smoke tests of an installed or frozen build, and for measuring start time
    parser.add_argument("--quit-after", type=float, default=None, metavar="SECONDS",
                        help="close the window SECONDS after it opens (window commands only)")
    parser.add_argument("--screenshot", type=Path, default=None, metavar="FILE",
                        help="save the last frame to FILE (e.g. shot.png) when the window "
                        "closes; with --quit-after (default 2 seconds)")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"blockyard {__version__}",
                        help="print Blockyard's version and exit")
    sub = parser.add_subparsers(dest="command")
    p = sub.add_parser("list", help="every ruleset found, with where it comes from")
    p.add_argument("--json", action="store_true", help="print it as one JSON document")
    p.set_defaults(func=_cmd_list)
    p = sub.add_parser("show", help="print a ruleset's resolved rule file as TOML")
    complete_rulesets(p.add_argument("ruleset", help="ruleset id or path to a .toml file"))
    p.set_defaults(func=_cmd_show)
    p = sub.add_parser("check", help="validate a rule file and run the conformance kit on it")
    complete_rulesets(p.add_argument("ruleset", help="ruleset id or path to a .toml file"))
    p.add_argument("--games", type=int, default=8, help="random games to play (default 8)")
    p.add_argument("--actions", type=int, default=150, help="actions per game (default 150)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random player")
    p.add_argument("--hook-seconds", type=float, default=2.0,
                   help="report (and stop) a hook call longer than this (default 2)")
    p.add_argument("--json", action="store_true",
                   help="print the report as one JSON document (exit status as without)")
    p.set_defaults(func=_cmd_check)
    p = sub.add_parser("plugins", help="every installed rule plugin: its package and version, "
                                        "parameters and hooks (wrappers marked)")
    p.add_argument("--json", action="store_true", help="print it as one JSON document")
    p.set_defaults(func=_cmd_plugins)
    p = sub.add_parser("new-plugin", help="write a ready-to-install plugin package")
    p.add_argument("name", help="plugin name, e.g. bomb-pieces")
    p.add_argument("--into", type=Path, default=None, help="folder (default ./NAME)")
    p.set_defaults(func=_cmd_new_plugin)
    p = sub.add_parser("play", help="open the game window straight into a game")
    complete_rulesets(p.add_argument("ruleset", nargs="?",
                                     help="ruleset id or path to a .toml file"))
    p.add_argument("--seed", type=_game_seed, default=None,
                   help="game seed, from -2**63 to 2**63 - 1 (default: random)")
    p.add_argument("--challenge", metavar="CODE", default=None,
                   help="play the deal of a challenge code, with its score to beat")
    p.add_argument("--watch", action="store_true",
                   help="reload the rule file (a path) whenever it changes, keeping the game "
                        "when the new rules allow it")
    p.add_argument("--tray", nargs="+", metavar="PIECE", default=None,
                   help="start with these pieces in the tray, each FAMILY:ART or ART with "
                        "rows joined by / (e.g. --tray bomb:# dot:# 'l:#./#./##'); at most "
                        "the ruleset's tray slots, the rest empty; give the RULESET first")
    p.set_defaults(func=_cmd_play)
    p = sub.add_parser("replay", help="watch a replay file")
    p.add_argument("file", type=Path, help="a replay file (.json)")
    p.set_defaults(func=_cmd_replay)
    p = sub.add_parser("simulate", help="play many games with a bot and report how the "
                                         "ruleset plays")
    complete_rulesets(p.add_argument("ruleset", nargs="?",
                                     help="ruleset id or path to a .toml file"))
    p.add_argument("--bot", default="greedy", help="random, greedy, search or an installed "
                                                   "bot (default greedy)")
    p.add_argument("--bot-param", action="append", metavar="NAME=VALUE",
                   help="a parameter of the bot, e.g. beam=8 (repeatable)")
    p.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first game (default 0)")
    p.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: the machine's cores, "
                        f"{default_workers()} here; the report is the same whatever the "
                        "number)")
    p.add_argument("--scheduler", metavar="ADDRESS", default=None,
                   help="run the games on a Dask distributed cluster (tcp://host:8786)")
    p.add_argument("--worker-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="with --scheduler: give up when the cluster has had no worker for "
                        "this long (default 30)")
    p.add_argument("--max-moves", type=int, default=5000,
                   help="stop a game after this many moves (default 5000)")
    p.add_argument("--seconds-per-move", type=float, default=1.0,
                   help="game-clock seconds each move takes the bot (timed rulesets; "
                        "default 1)")
    p.add_argument("--json", type=Path, default=None, metavar="FILE",
                   help="write every game and the summary as JSON")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.png",
                   help="draw score and length histograms and the killer-piece chart "
                   "(with --compare: one figure, both rulesets on the same axes)")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), default=None,
                   help="simulate two rulesets on the same seeds and show the differences")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_simulate)
    p = sub.add_parser("serve", help="run the online server: accounts, verified "
                                      "leaderboards, live tables")
    # no defaults here: a flag left out takes the configuration file's value, else
    # blockyard.server.SERVE_DEFAULTS (the help says them)
    p.add_argument("--config", metavar="FILE", default=None,
                   help="a TOML file with a key for every flag and server variable "
                        "(default: the file BLOCKYARD_SERVER_CONFIG names, if any); "
                        "flags and variables override it")
    p.add_argument("--host", default=None, help="address to listen on "
                                                "(default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8765)")
    p.add_argument("--database", metavar="URL", default=None,
                   help="sqlite:///FILE or postgresql://USER@HOST/NAME (default: an SQLite "
                        "file in Blockyard's data folder); a password belongs in "
                        "PGPASSWORD or ~/.pgpass, not here (a command line is visible "
                        "to every user of the machine)")
    p.add_argument("--workers", type=int, default=None,
                   help="server processes (PostgreSQL only; default 1)")
    p.add_argument("--worker-healthcheck-seconds", type=int, default=None, metavar="SECONDS",
                   help="with --workers above 1: how long a server process may take to "
                        "answer its supervisor before it is replaced (default 30)")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   default=None, help="the least level logged (default info)")
    p.add_argument("--log-format", choices=("text", "json"), default=None,
                   help="a line of text per record (default), or a JSON object per "
                        "line for a log collector")
    p.add_argument("--access-log", action=argparse.BooleanOptionalAction, default=None,
                   help="a line per request (default: on)")
    p.add_argument("--metrics", action=argparse.BooleanOptionalAction, default=None,
                   help="GET /metrics in Prometheus' text format (default: on)")
    p.add_argument("--forwarded-allow-ips", metavar="LIST", default=None,
                   help="addresses and networks of the reverse proxies whose "
                        "X-Forwarded-For is believed, comma-separated; '*' for "
                        "every peer, '' for none "
                        "(default: uvicorn's FORWARDED_ALLOW_IPS variable, else "
                        "127.0.0.1,::1)")
    p.set_defaults(func=_cmd_serve)
    p = sub.add_parser("serve-db", help="the online server's database: back it up, "
                                         "migrate it, show its revision")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    database_help = ("sqlite:///FILE or postgresql://USER@HOST/NAME, as given to blockyard "
                     "serve (default: the SQLite file in Blockyard's data folder)")
    q = actions.add_parser("backup", help="copy a (running) server's SQLite database "
                                          "consistently to FILE, mode 0600; for PostgreSQL, "
                                          "print the pg_dump command")
    q.add_argument("file", type=Path, metavar="FILE", help="the copy to write (its folder "
                                                            "must exist)")
    q.add_argument("--database", metavar="URL", default=None, help=database_help)
    q.add_argument("--force", action="store_true", help="replace FILE if it exists")
    q = actions.add_parser("upgrade", help="migrate the database to this Blockyard's newest "
                                           "revision, say from which to which, and exit "
                                           "(back up first: --backup FILE)")
    q.add_argument("--database", metavar="URL", default=None, help=database_help)
    q.add_argument("--backup", type=Path, metavar="FILE", default=None,
                   help="SQLite: back the database up to FILE before migrating")
    q.add_argument("--force", action="store_true", help="with --backup: replace FILE if it "
                                                        "exists")
    q = actions.add_parser("status", help="the database's revision and the newest; exit "
                                          "status 0 up to date, 1 migrations to apply")
    q.add_argument("--database", metavar="URL", default=None, help=database_help)
    q.add_argument("--json", action="store_true",
                   help="print it as one JSON document (exit status as without)")
    p.set_defaults(func=_cmd_serve_db)
    p = sub.add_parser("web", help="the web page: the game in a browser (docs/web.md)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    q = actions.add_parser("build", help="write the web page as a static site into FOLDER "
                                         "(any web server serves it; no CDN needed)")
    q.add_argument("folder", type=Path, metavar="FOLDER", help="the folder to write (made "
                                                                "when missing)")
    p.set_defaults(func=_cmd_web)
    p = sub.add_parser("completion", help="print the shell code that completes blockyard's "
                                           "commands, options and ruleset ids")
    p.add_argument("shell", choices=SHELLS,
                   help="the shell: bash (eval \"$(blockyard completion bash)\" in ~/.bashrc), "
                        "zsh or fish")
    p.set_defaults(func=_cmd_completion)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    if argv is None:
        autocomplete(parser)  # the shell's completion asks: answered, then exits
    args = parser.parse_args(argv)
    func = getattr(args, "func", _cmd_play)
    if func not in _WINDOW_COMMANDS and (args.screenshot is not None
                                         or args.quit_after is not None):
        print(f"blockyard {args.command}: --screenshot and --quit-after apply only to the "
              "window (play, replay, or no command)", file=sys.stderr)
        return 2
    if args.quit_after is not None and args.quit_after < 0:
        print("blockyard: --quit-after needs a number of seconds >= 0", file=sys.stderr)
        return 2
    if args.screenshot is not None:
        problem = _screenshot_problem(args.screenshot)
        if problem:
            print(f"blockyard: --screenshot {args.screenshot}: {problem}", file=sys.stderr)
            return 2
        if args.quit_after is None:
            args.quit_after = 2.0
    try:
        status: int = func(args)
        return status
    except (RulesetError, PluginError, DataError) as exc:
        print(f"blockyard: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head & co.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
