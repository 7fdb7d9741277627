"""The balance lab: play many games with a bot and measure how a ruleset plays.

::

    from blockyard import lab
    report = lab.simulate("eu-classic", bot="greedy", games=1000, workers=2)
    print(report.text())

Game ``i`` plays seed ``seed + i``, so two runs with the same seeds play the
same deals, and the report is identical whatever the worker count or
executor: the games run in local processes (``workers=N``), or on any
:class:`concurrent.futures.Executor` — a Dask distributed client's
``client.get_executor()`` runs them on a cluster. The rule file travels as
text, so the workers need Blockyard but not the file.

One module because one report flows through it: playing the games (locally or
on a cluster), summarising them, comparing two rulesets, and writing the
report's text, JSON and charts.
"""

from __future__ import annotations

import json
import math
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from .bots import DEFAULT_SECONDS_PER_MOVE, get_bot
from .discovery import load_ruleset, load_ruleset_text
from .game import Game
from .ruleset import Ruleset

DEFAULT_MAX_MOVES = 5000
"""Moves after which :func:`simulate` stops a game (rulesets that never end,
such as eu-zen, and bots that never lose); such games have ``over_reason``
``None``."""

ProgressCallback = Callable[[int, int], None]

DEFAULT_WORKER_TIMEOUT = 30.0
"""Seconds :func:`simulate` waits while ``workers_alive()`` says no worker is
left before it gives up (:class:`NoWorkersError`)."""


class NoWorkersError(RuntimeError):
    """A simulation on an executor had no worker left for ``worker_timeout``
    seconds (a Dask cluster that lost every worker would otherwise wait forever)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One simulated game: its ``seed``, final ``score``, ``moves`` (pieces
    placed or stones landed), ``lines`` (regions completed), ``over_reason``
    (``None`` when stopped at the move limit), ``failed_pieces`` (ids of the
    tray pieces that did not fit at the end), ``sets`` dealt, ``dead_sets``
    (dealt sets in which no piece fitted), ``clearing_moves`` (moves that
    completed at least one region), ``actions``: how often each action other
    than a move was taken (swap, continue, a mod's bomb…), as sorted
    ``(name, count)`` pairs, and ``pieces``: per piece family, how many of its
    pieces were dealt and how many placed, as sorted ``(family, dealt, placed)``
    triples (:func:`pieces_used`; empty for a falling game)."""

    seed: int
    score: int
    moves: int
    lines: int
    over_reason: str | None
    failed_pieces: tuple[str, ...]
    sets: int
    dead_sets: int
    clearing_moves: int
    actions: tuple[tuple[str, int], ...] = ()
    pieces: tuple[tuple[str, int, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["failed_pieces"] = list(self.failed_pieces)
        out["actions"] = dict(self.actions)
        out["pieces"] = {family: {"dealt": dealt, "placed": placed}
                         for family, dealt, placed in self.pieces}
        return out

    def used(self, action: str) -> int:
        """How often ``action`` was taken in this game."""
        return dict(self.actions).get(action, 0)


def actions_used(game: Game) -> tuple[tuple[str, int], ...]:
    """How often each action other than the mode's own (placing, steering,
    ticking) was taken in ``game``, from its log: sorted ``(name, count)``."""
    engine = game.mode.engine_actions
    counts = Counter(str(entry[0]) for entry in game.log[1:]
                     if entry and entry[0] not in engine)
    return tuple(sorted(counts.items()))


def pieces_used(game: Game) -> tuple[tuple[str, int, int], ...]:
    """How many pieces of each family were dealt and placed in ``game`` (a tray
    game; ``()`` for any other), as sorted ``(family, dealt, placed)`` triples.

    Worked out from the log, played again from its start: every piece of every
    set the tray was given counts as dealt — the start's, each new set
    (``deal_next_set``: when the tray ran empty, on a swap) and each tray a
    plugin put in (``set_tray``: a refill) — and every placed piece as placed.
    A piece turned by rotation is the same piece. A piece counts under its
    family (one without a family under its id)."""
    if not game.mode.has_tray:
        return ()
    replay: Any = Game.from_log(game.log[:1], ruleset=game.ruleset)
    dealt: Counter[str] = Counter(_family(p) for p in replay.tray if p is not None)
    placed: Counter[str] = Counter()
    replay.__class__ = _watched(type(replay))
    replay.lab_given = ()
    moves = game.mode.move_actions
    for entry in game.log[1:]:
        if entry[0] in moves:
            piece = replay.tray[entry[1]]
            if piece is not None:
                placed[_family(piece)] += 1
        replay.apply(entry)
        dealt.update(_family(p) for p in replay.lab_given)
        replay.lab_given = ()
    return tuple((name, dealt[name], placed[name]) for name in sorted(dealt | placed))


def _family(piece: Any) -> str:
    return str(piece.family or piece.id)


_WATCHED: dict[type[Any], type[Any]] = {}


def _watched(engine: type[Any]) -> type[Any]:
    """A subclass of the tray engine ``engine`` that notes, in ``lab_given``, the
    pieces each new set and each plugin's new tray gives (for :func:`pieces_used`
    only). The note is assigned, never changed in place, so a clone a plugin makes
    of the game notes its own deals, not the replay's."""

    def deal_next_set(self: Any) -> None:
        engine.deal_next_set(self)
        self.lab_given = (*self.lab_given, *(p for p in self.tray if p is not None))

    def set_tray(self: Any, pieces: Sequence[Any]) -> None:
        engine.set_tray(self, pieces)
        self.lab_given = (*self.lab_given, *(p for p in pieces if p is not None))

    watched = _WATCHED.get(engine)
    if watched is None:
        watched = _WATCHED[engine] = type(f"Watched{engine.__name__}", (engine,),
                                          {"deal_next_set": deal_next_set,
                                           "set_tray": set_tray})
    return watched


@lru_cache(maxsize=8)
def _ruleset_from_text(text: str) -> Ruleset:
    return load_ruleset_text(text, "<simulation>")


def play_game(ruleset_text: str, bot: str, seed: int, *, bot_params: dict[str, Any] | None = None,
              max_moves: int = DEFAULT_MAX_MOVES,
              seconds_per_move: float = DEFAULT_SECONDS_PER_MOVE) -> GameRecord:
    """Play one game of the rule file ``ruleset_text`` with seed ``seed``."""
    ruleset = _ruleset_from_text(ruleset_text)
    player = get_bot(bot, **(bot_params or {}))
    game: Any = Game.start(ruleset, seed=seed)
    tray = game.mode.has_tray
    sets = dead = clearing = 0
    last_set = -1
    if tray:
        last_set = game.set_index
        sets = 1
        dead = 0 if any(game.fit_masks()) else 1
    while game.moves < max_moves:
        lines_before, moves_before = game.lines_cleared, game.moves
        if player.play(game, max_moves=1, seconds_per_move=seconds_per_move) == 0:
            break
        if game.lines_cleared > lines_before and game.moves > moves_before:
            clearing += 1
        if tray and game.set_index != last_set:
            sets += game.set_index - last_set
            last_set = game.set_index
            if not any(game.fit_masks()):
                dead += 1
    summary = game.summary()
    return GameRecord(seed=seed, score=game.score, moves=game.moves, lines=game.lines_cleared,
                      over_reason=game.over_reason,
                      failed_pieces=tuple(p.id for p in summary.failed_pieces)
                      if game.over_reason == "stuck" else (),
                      sets=sets, dead_sets=dead, clearing_moves=clearing,
                      actions=actions_used(game), pieces=pieces_used(game))


def _play_chunk(ruleset_text: str, bot: str, seeds: Sequence[int], bot_params: dict[str, Any],
                max_moves: int, seconds_per_move: float) -> list[GameRecord]:
    return [play_game(ruleset_text, bot, s, bot_params=bot_params, max_moves=max_moves,
                      seconds_per_move=seconds_per_move) for s in seeds]


def _quantile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` (linear between ranks)."""
    if not values:
        return 0.0
    pos = (len(values) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def _interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and the bounds of its 95% confidence interval (normal approximation)."""
    n = len(values)
    mean = statistics.fmean(values) if values else 0.0
    half = 1.96 * statistics.stdev(values) / math.sqrt(n) if n > 1 else 0.0
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class SimulationReport:
    """The games of one simulation (``games``, in seed order) and figures about
    them (:meth:`summary`). Equal reports compare equal."""

    ruleset: str
    bot: str
    seed: int
    games: tuple[GameRecord, ...]
    bot_params: dict[str, Any] = field(default_factory=dict)
    max_moves: int = DEFAULT_MAX_MOVES

    def summary(self) -> dict[str, Any]:
        """Score mean, median, standard deviation and deciles; game length;
        lines per move; clear rate (share of moves that completed a region);
        how often each piece was in the tray when a game ended stuck (share of
        games, by piece id); how often a dealt set had no piece that fitted
        (share of sets); the end reasons; per action other than a move, how
        often it was used (``per_game``, ``share`` of games using it) and the
        mean score of the games that used it and of those that did not
        (``score_with``, ``score_without``; ``None`` when no game is in that
        group); per piece family (tray games), how many of its pieces were
        dealt and placed per game (``dealt_per_game``, ``placed_per_game``)
        and the share of the dealt ones that were placed (``placed_share``,
        ``None`` when none was dealt)."""
        games = self.games
        scores = sorted(float(g.score) for g in games)
        lengths = sorted(float(g.moves) for g in games)
        moves = sum(g.moves for g in games)
        sets = sum(g.sets for g in games)
        killers: Counter[str] = Counter()
        for g in games:
            killers.update(set(g.failed_pieces))
        n = len(games) or 1
        return {
            "games": len(games),
            "score": {
                "mean": statistics.fmean(scores) if scores else 0.0,
                "median": _quantile(scores, 0.5),
                "stdev": statistics.stdev(scores) if len(scores) > 1 else 0.0,
                "min": scores[0] if scores else 0.0,
                "max": scores[-1] if scores else 0.0,
                "deciles": [_quantile(scores, k / 10) for k in range(1, 10)],
            },
            "moves": {
                "mean": statistics.fmean(lengths) if lengths else 0.0,
                "median": _quantile(lengths, 0.5),
                "deciles": [_quantile(lengths, k / 10) for k in range(1, 10)],
            },
            "lines_per_move": sum(g.lines for g in games) / moves if moves else 0.0,
            "clear_rate": sum(g.clearing_moves for g in games) / moves if moves else 0.0,
            "killer_pieces": {piece: count / n for piece, count in
                              sorted(killers.items(), key=lambda kv: (-kv[1], kv[0]))},
            "dead_set_rate": sum(g.dead_sets for g in games) / sets if sets else 0.0,
            "over_reasons": dict(sorted(Counter(str(g.over_reason) for g in games).items())),
            "actions": action_use(games),
            "pieces": piece_use(games),
        }

    def to_json(self) -> dict[str, Any]:
        """``{"ruleset", "bot", "seed", "games": [...], "summary"}``."""
        return {"ruleset": self.ruleset, "bot": self.bot, "bot_params": self.bot_params,
                "seed": self.seed, "max_moves": self.max_moves,
                "games": [g.to_json() for g in self.games], "summary": self.summary()}

    def text(self) -> str:
        """The summary as a few readable lines."""
        s = self.summary()
        sc, mv = s["score"], s["moves"]
        last = self.seed + len(self.games) - 1
        lines = [
            f"{self.ruleset}, bot {self.bot}: {s['games']} games, seeds {self.seed}–{last}",
            f"  score   mean {sc['mean']:.1f}  median {sc['median']:.1f}  sd {sc['stdev']:.1f}"
            f"  min {sc['min']:.0f}  max {sc['max']:.0f}",
            "  score deciles  " + "  ".join(f"{d:.0f}" for d in sc["deciles"]),
            f"  length  mean {mv['mean']:.1f} moves  median {mv['median']:.1f}",
            f"  lines per move {s['lines_per_move']:.3f}   clear rate {s['clear_rate']:.1%}"
            # dealt sets only in tray games: a falling game has none to speak of
            + (f"   dealt sets with no fitting piece {s['dead_set_rate']:.2%}"
               if any(g.sets for g in self.games) else ""),
            "  ended  " + ", ".join(f"{k} {v}" for k, v in s["over_reasons"].items()),
        ]
        if s["killer_pieces"]:
            top = list(s["killer_pieces"].items())[:8]
            lines.append("  in the tray at the end  "
                         + ", ".join(f"{p} {share:.0%}" for p, share in top))
        for name, use in s["actions"].items():
            lines.append(f"  action {name}: {use['per_game']:.2f} per game, in "
                         f"{use['share']:.0%} of games; {_with_without(use)}")
        if s["pieces"]:
            lines.append("  pieces per game, dealt/placed  " + ", ".join(
                f"{name} {use['dealt_per_game']:.2f}/{use['placed_per_game']:.2f}"
                for name, use in s["pieces"].items()))
        return "\n".join(lines)


def action_use(games: Sequence[GameRecord]) -> dict[str, dict[str, float | None]]:
    """Per action other than a move (sorted by name): ``per_game`` uses,
    ``share`` of games that used it, and the mean score of the games with and
    without it (``score_with``/``score_without``, ``None`` for an empty group)."""
    names = sorted({name for g in games for name, _ in g.actions})
    n = len(games) or 1
    out: dict[str, dict[str, float | None]] = {}
    for name in names:
        used = [g for g in games if g.used(name)]
        unused = [g for g in games if not g.used(name)]
        out[name] = {
            "per_game": sum(g.used(name) for g in games) / n,
            "share": len(used) / n,
            "score_with": statistics.fmean(g.score for g in used) if used else None,
            "score_without": statistics.fmean(g.score for g in unused) if unused else None,
        }
    return out


def piece_use(games: Sequence[GameRecord]) -> dict[str, dict[str, float | None]]:
    """Per piece family (sorted by name): how many of its pieces were dealt and
    placed per game (``dealt_per_game``, ``placed_per_game``) and the share of
    the dealt ones that were placed (``placed_share``; ``None`` when none was
    dealt)."""
    dealt: Counter[str] = Counter()
    placed: Counter[str] = Counter()
    for g in games:
        for name, d, p in g.pieces:
            dealt[name] += d
            placed[name] += p
    n = len(games) or 1
    return {name: {"dealt_per_game": dealt[name] / n, "placed_per_game": placed[name] / n,
                   "placed_share": placed[name] / dealt[name] if dealt[name] else None}
            for name in sorted(dealt | placed)}


def _with_without(use: dict[str, float | None]) -> str:
    """"mean score 1234 with it, 987 without" (as far as both groups exist)."""
    parts = []
    if use["score_with"] is not None:
        parts.append(f"mean score {use['score_with']:.0f} with it")
    if use["score_without"] is not None:
        parts.append(f"{use['score_without']:.0f} without")
    return ", ".join(parts)


def simulate(ruleset: str | Ruleset | Any, *, bot: str = "greedy", games: int = 100,
             seed: int = 0, workers: int | None = None, executor: Executor | None = None,
             bot_params: dict[str, Any] | None = None, max_moves: int = DEFAULT_MAX_MOVES,
             seconds_per_move: float = DEFAULT_SECONDS_PER_MOVE,
             progress: ProgressCallback | None = None, chunk: int | None = None,
             workers_alive: Callable[[], int] | None = None,
             worker_timeout: float = DEFAULT_WORKER_TIMEOUT) -> SimulationReport:
    """Play ``games`` games of ``ruleset`` with ``bot``: game ``i`` plays seed
    ``seed + i``. ``workers``: that many local processes (``None`` or 1: this
    process); ``executor``: any ``concurrent.futures.Executor`` instead (a Dask
    client's ``get_executor()``). ``progress(done, total)`` is called as games
    finish. The report is the same whatever the workers or executor.

    ``workers_alive()``, when given with an ``executor``, says how many workers
    the executor has (for a Dask client: :func:`dask_workers`); while it says 0
    for ``worker_timeout`` seconds in a row, the games left are cancelled and
    :class:`NoWorkersError` is raised instead of waiting forever."""
    for label, value, low in (("games", games, 1), ("seed", seed, None),
                              ("max_moves", max_moves, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or \
                (low is not None and value < low):
            raise ValueError(f"simulate: {label}: expected a whole number"
                             f"{'' if low is None else f' >= {low}'}, found {value!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise ValueError(f"simulate: workers: expected a whole number >= 1, found {workers!r}")
    if isinstance(worker_timeout, bool) or not isinstance(worker_timeout, int | float) \
            or not 0 < worker_timeout < math.inf:
        raise ValueError(f"simulate: worker_timeout: expected a number of seconds > 0, found "
                         f"{worker_timeout!r}")
    rules = load_ruleset(ruleset)
    text = rules.to_toml()
    params = dict(bot_params or {})
    get_bot(bot, **params)  # a wrong name or parameter fails here, not in a worker
    seeds = list(range(seed, seed + games))
    args = (params, max_moves, seconds_per_move)
    results: dict[int, GameRecord] = {}

    def done(records: list[GameRecord]) -> None:
        for r in records:
            results[r.seed] = r
        if progress is not None:
            progress(len(results), games)

    own_pool = None
    if executor is None and workers is not None and workers > 1:
        own_pool = executor = ProcessPoolExecutor(max_workers=workers)
    try:
        if executor is None:
            for s in seeds:
                done(_play_chunk(text, bot, [s], *args))
        else:
            size = chunk or max(1, min(50, games // ((workers or 4) * 8)))
            futures: list[Future[list[GameRecord]]] = [
                executor.submit(_play_chunk, text, bot, seeds[i:i + size], *args)
                for i in range(0, games, size)]
            _collect(futures, done, workers_alive, float(worker_timeout))
    finally:
        if own_pool is not None:
            own_pool.shutdown(cancel_futures=True)
    return SimulationReport(ruleset=rules.id, bot=bot, seed=seed,
                            games=tuple(results[s] for s in seeds), bot_params=params,
                            max_moves=max_moves)


def _collect(futures: list[Future[list[GameRecord]]],
             done: Callable[[list[GameRecord]], None],
             workers_alive: Callable[[], int] | None, worker_timeout: float) -> None:
    """Hand each finished chunk to ``done``; with ``workers_alive``, give up (cancel
    the rest, :class:`NoWorkersError`) after ``worker_timeout`` s with no worker.
    A chunk cancelled with the worker that played it (a worker closed mid-run), or
    failed while no worker is left, is counted as unplayed, not raised as the
    cluster's own error."""
    import asyncio
    from concurrent.futures import FIRST_COMPLETED, CancelledError, wait

    pending = set(futures)
    lost = 0  # chunks cancelled with their worker
    poll = None if workers_alive is None else min(1.0, worker_timeout / 4)
    since: float | None = None  # when no worker was first seen, this time round
    while pending or lost:
        if pending:
            finished, pending = wait(pending, timeout=poll, return_when=FIRST_COMPLETED)
        else:
            finished = set()
            time.sleep(poll or 0.0)
        for future in finished:
            try:
                records = future.result()
            except (CancelledError, asyncio.CancelledError):
                if workers_alive is None:
                    raise
                lost += 1
                continue
            except Exception:
                # a worker closed mid-batch can fail its batch with an error of the
                # cluster's own (seen: a ValueError from Dask's unpacking); with no
                # worker left it is a lost batch, otherwise the error is the games'
                if workers_alive is None or workers_alive() > 0:
                    raise
                lost += 1
                continue
            done(records)
        if workers_alive is None or not (pending or lost):
            continue
        if workers_alive() > 0:
            since = None
            if lost and not pending:
                raise NoWorkersError(
                    f"{lost} of {len(futures)} batches of games were lost with a worker that "
                    "stopped mid-run; run the simulation again")
            continue
        now = time.monotonic()
        since = now if since is None else since
        if now - since >= worker_timeout:
            for future in pending:
                future.cancel()
            raise NoWorkersError(
                f"no worker has been left to play the games for {worker_timeout:g} s "
                f"({len(pending) + lost} of {len(futures)} batches unplayed); start workers "
                "for the scheduler, or wait longer with --worker-timeout")


def dask_workers(client: Any) -> Callable[[], int]:
    """``workers_alive`` for :func:`simulate` on a Dask distributed ``client``: the
    number of workers its scheduler knows (0 when the scheduler cannot be asked)."""
    def alive() -> int:
        try:
            return len(client.scheduler_info().get("workers", {}))
        except (OSError, RuntimeError, ValueError):
            return 0
    return alive


def scoring_of(ruleset: Ruleset) -> tuple[tuple[str, Any], ...]:
    """What decides a ruleset's points: each plugin answering or wrapping the
    scoring hook (``blockyard_score``), with its parameters from the rule file,
    in the rule file's order. Two rulesets with different ones score on
    different scales."""
    plugins = ruleset.data.get("plugins", {})
    out = []
    for name, plugin in ruleset.plugin_objects:
        method = getattr(plugin, "blockyard_score", None)
        if method is not None and hasattr(method, "blockyard_impl"):
            out.append((name, plugins.get(name, {})))
    return tuple(out)


def scoring_note(a: Ruleset, b: Ruleset) -> str | None:
    """``None`` when ``a`` and ``b`` score alike (the same scoring plugins with
    the same parameters); else a sentence saying how they differ and that raw
    scores are not comparable."""
    sa, sb = scoring_of(a), scoring_of(b)
    if sa == sb:
        return None

    def show(scoring: tuple[tuple[str, Any], ...]) -> str:
        if not scoring:
            return "no scoring plugin"
        return "; ".join(f"{name} {json.dumps(params, sort_keys=True)[:160]}"
                         for name, params in scoring)

    return (f"the two rulesets score differently ({a.id}: {show(sa)} — {b.id}: {show(sb)}), "
            "so their raw scores are not comparable: compare moves, lines per move, action "
            "use and piece use instead")


@dataclass(frozen=True)
class Comparison:
    """Two simulations of the same bot on the same seeds (:func:`compare`).
    ``scoring_note``: ``None`` when both rulesets score alike, else why their
    raw scores are not comparable (:func:`scoring_note`)."""

    a: SimulationReport
    b: SimulationReport
    scoring_note: str | None = None

    def differences(self) -> dict[str, tuple[float, float, float]]:
        """For score, game length and lines: the mean of ``b − a`` over the seeds
        with the bounds of its 95% confidence interval (paired by seed)."""
        out = {}
        for key in ("score", "moves", "lines"):
            diffs = [float(getattr(gb, key) - getattr(ga, key))
                     for ga, gb in zip(self.a.games, self.b.games, strict=True)]
            out[key] = _interval(diffs)
        return out

    def to_json(self) -> dict[str, Any]:
        diffs = self.differences()
        return {"a": self.a.to_json(), "b": self.b.to_json(),
                "differences": {k: {"mean": m, "low": lo, "high": hi}
                                for k, (m, lo, hi) in diffs.items()},
                "scores_comparable": self.scoring_note is None,
                "scoring_note": self.scoring_note}

    def text(self) -> str:
        a, b = self.a, self.b
        sa, sb = a.summary(), b.summary()
        width = max(len(a.ruleset), len(b.ruleset), 10)
        rows = [f"{'':<22}{a.ruleset:>{width}}  {b.ruleset:>{width}}"]

        def row(label: str, x: float, y: float, fmt: str) -> None:
            rows.append(f"{label:<22}{x:>{width}{fmt}}  {y:>{width}{fmt}}")

        for label, key, fmt in (("score mean", ("score", "mean"), ".1f"),
                                ("score median", ("score", "median"), ".1f"),
                                ("moves mean", ("moves", "mean"), ".1f"),
                                ("moves median", ("moves", "median"), ".1f")):
            row(label, sa[key[0]][key[1]], sb[key[0]][key[1]], fmt)
        row("lines per move", sa["lines_per_move"], sb["lines_per_move"], ".3f")
        row("clear rate", sa["clear_rate"], sb["clear_rate"], ".3f")
        row("dead-set rate", sa["dead_set_rate"], sb["dead_set_rate"], ".4f")
        ua, ub = sa["actions"], sb["actions"]
        for name in sorted(set(ua) | set(ub)):
            row(f"{name[:13]} per game", ua[name]["per_game"] if name in ua else 0.0,
                ub[name]["per_game"] if name in ub else 0.0, ".2f")
        pa, pb = sa["pieces"], sb["pieces"]
        if pa or pb:
            rows.append("pieces per game, dealt/placed:")
        for name in sorted(set(pa) | set(pb)):
            shown = [f"{p[name]['dealt_per_game']:.2f}/{p[name]['placed_per_game']:.2f}"
                     if name in p else "—" for p in (pa, pb)]
            rows.append(f"{'  ' + name[:18]:<22}{shown[0]:>{width}}  {shown[1]:>{width}}")
        last = a.seed + len(a.games) - 1
        rows.append(f"{b.ruleset} − {a.ruleset}, paired over seeds {a.seed}–{last}, "
                    f"bot {a.bot} (95% confidence interval):")
        for name, (mean, lo, hi) in self.differences().items():
            rows.append(f"  {name:<6} {mean:+.1f}  [{lo:+.1f}, {hi:+.1f}]")
        for name in sorted(set(ua) | set(ub)):
            for report, use in ((a, ua.get(name)), (b, ub.get(name))):
                if use is not None:
                    rows.append(f"  {report.ruleset}: action {name} in {use['share']:.0%} of "
                                f"games; {_with_without(use)}")
        if self.scoring_note is not None:
            rows.append(f"WARNING: {self.scoring_note}.")
        return "\n".join(rows)


def compare(a: str | Ruleset | Any, b: str | Ruleset | Any, **options: Any) -> Comparison:
    """Simulate rulesets ``a`` and ``b`` with the same bot and seeds (the options
    of :func:`simulate`)."""
    progress = options.pop("progress", None)
    games = options.get("games", 100)

    def shifted(offset: int) -> ProgressCallback | None:
        if progress is None:
            return None
        return lambda done, total: progress(offset + done, 2 * games)

    ra, rb = load_ruleset(a), load_ruleset(b)
    return Comparison(simulate(ra, progress=shifted(0), **options),
                      simulate(rb, progress=shifted(games), **options),
                      scoring_note(ra, rb))


def plot_comparison(comparison: Comparison, path: str | Path) -> Path:
    """Draw both rulesets of ``comparison`` on the same axes into one PNG file:
    the score and game-length distributions overlaid, and moves, lines per move
    and each action's uses per game side by side (needs matplotlib: ``pip
    install blockyard[lab]``). The score panel's title says when the scores are
    not comparable."""
    plt = _pyplot()
    a, b = comparison.a, comparison.b
    sa, sb = a.summary(), b.summary()
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.8))
    colours = ("#4a7bd0", "#d0664a")
    for ax, key in ((axes[0], "score"), (axes[1], "moves")):
        values = [[float(getattr(g, key)) for g in r.games] for r in (a, b)]
        low = min(min(v) for v in values if v) if any(values) else 0.0
        high = max(max(v) for v in values if v) if any(values) else 1.0
        bins = min(40, max(5, len(a.games) // 5))
        edges = [low + (high - low or 1.0) * i / bins for i in range(bins + 1)]
        for report, vals, colour in zip((a, b), values, colours, strict=True):
            ax.hist(vals, bins=edges, color=colour, alpha=0.55, label=report.ruleset)
        ax.set_ylabel("games")
        ax.legend()
    axes[0].set_title("score" + ("" if comparison.scoring_note is None
                                 else " (scored differently: not comparable)"))
    axes[0].set_xlabel("points")
    axes[1].set_title("game length")
    axes[1].set_xlabel("moves")
    names = ["lines per move"] + [f"{n} per game" for n in
                                  sorted(set(sa["actions"]) | set(sb["actions"]))]
    figures = []
    for s in (sa, sb):
        row = [s["lines_per_move"]]
        row += [s["actions"].get(n.removesuffix(" per game"), {}).get("per_game") or 0.0
                for n in names[1:]]
        figures.append(row)
    width = 0.4
    for i, (report, row, colour) in enumerate(zip((a, b), figures, colours, strict=True)):
        axes[2].barh([k + (i - 0.5) * width for k in range(len(names))], row, height=width,
                     color=colour, label=report.ruleset)
    axes[2].set_yticks(range(len(names)), names)
    axes[2].invert_yaxis()
    axes[2].set_title("lines per move and action use")
    axes[2].legend()
    fig.suptitle(f"{a.ruleset} vs {b.ruleset}, bot {a.bot}, {len(a.games)} games each "
                 f"(seeds paired)")
    fig.tight_layout()
    return _save(plt, fig, Path(path))


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise RuntimeError("--plot needs matplotlib: pip install 'blockyard[lab]'") from exc
    return plt


def _save(plt: Any, fig: Any, target: Path) -> Path:
    from .files import temporary_name

    temp = temporary_name(target)
    try:
        fig.savefig(temp, format="png", dpi=100)
        temp.replace(target)
    finally:
        plt.close(fig)
        if temp.exists():
            temp.unlink()
    return target


def plot(report: SimulationReport, path: str | Path) -> Path:
    """Draw the score and game-length histograms and the killer-piece chart
    into a PNG file (needs matplotlib: ``pip install blockyard[lab]``)."""
    plt = _pyplot()
    s = report.summary()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    bins = min(40, max(5, len(report.games) // 5))
    axes[0].hist([g.score for g in report.games], bins=bins, color="#4a7bd0")
    axes[0].set_title(f"score (mean {s['score']['mean']:.0f})")
    axes[0].set_xlabel("points")
    axes[0].set_ylabel("games")
    axes[1].hist([g.moves for g in report.games], bins=bins, color="#53a653")
    axes[1].set_title(f"game length (mean {s['moves']['mean']:.0f} moves)")
    axes[1].set_xlabel("moves")
    killers = list(s["killer_pieces"].items())[:15]
    axes[2].barh([k for k, _ in killers][::-1], [v for _, v in killers][::-1], color="#d0664a")
    axes[2].set_title("in the tray when the game ended")
    axes[2].set_xlabel("share of games")
    fig.suptitle(f"{report.ruleset}, bot {report.bot}, {len(report.games)} games")
    fig.tight_layout()
    return _save(plt, fig, Path(path))


def write_json(data: dict[str, Any], path: str | Path) -> None:
    """Write ``data`` as JSON atomically."""
    from .files import write_atomically

    write_atomically(Path(path), json.dumps(data, indent=1) + "\n")


class ProgressBar:
    """A one-line progress bar with the time left, for a terminal stream; on any
    other stream (a file, a pipe, a CI log) one plain line at each tenth of the
    games, with no carriage returns to garble it."""

    def __init__(self, stream: Any, label: str = "") -> None:
        self.stream = stream
        self.label = label
        self.start = time.monotonic()
        self.last = 0.0
        isatty = getattr(stream, "isatty", None)
        self.terminal = bool(isatty()) if callable(isatty) else False
        self.tenths = -1

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        elapsed = now - self.start
        eta = elapsed / done * (total - done) if done else 0.0
        times = f"{_clock(elapsed)} elapsed, ETA {_clock(eta)}"
        if not self.terminal:
            tenths = 10 * done // total if total else 10
            if tenths == self.tenths:
                return
            self.tenths = tenths
            self.stream.write(f"{self.label}{done}/{total} games  {times}\n")
            self.stream.flush()
            return
        if done < total and now - self.last < 0.2:
            return
        self.last = now
        width = 30
        filled = width * done // total if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r{self.label}[{bar}] {done}/{total} games  {times} ")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
