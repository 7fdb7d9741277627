"""Fuzzing the inputs that come from strangers (Hypothesis).

Mutated rule files, snapshots, logs, replay files and challenge codes go
through the public loaders; every outcome is counted:

- *refused*: a documented exception with a message (``RulesetError`` for rule
  files and embedded rule text, ``DataError`` — ``ReplayError`` for replay
  files — for snapshots, logs and codes);
- *accepted*: then the game is played a little with random, often wrong,
  arguments: each action either works or raises ``IllegalMove`` and leaves
  ``snapshot()`` exactly as it was, and the game's own snapshot restores again;
- anything else fails: an exception other than the documented ones (*raw*), a
  hang, running out of memory, or an input that should have been refused but
  was accepted (*accepted-invalid*: an impossible snapshot restored, a plugin's
  out-of-range or game-changing answer taken).

Besides the loaders, the suite feeds the engine impossible snapshots of the
right types (every one differs from what its log produces), plugins whose
answers are out of range or change the game, hooks that loop or sleep (with
the hook watchdog and a short limit; a few cases), and broken plugin packages.

Every run is bounded by count (``max_examples``), and each example by time (a
timer that interrupts it: 10 s of the process's CPU time, so that a loaded
machine does not make a slow example a hang, or 2 minutes of wall time for one
that hangs without computing) and memory (the address space may grow by at most
1 GiB while fuzzing). Hypothesis is derandomised, so a run is reproducible.
The figures are printed at the end of the test run.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import random
import re
import signal
import time
import types
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import blockyard
from blockyard import DataError, IllegalMove, PluginError, RulesetError, hookimpl
from blockyard.challenge import ALPHABET, Challenge, decode, encode, encode_old
from blockyard.pieces import piece_json
from blockyard.replays import ReplayError, load_replay, replay_data

RULESETS = Path(blockyard.__file__).resolve().parent.parent / "rulesets"
EXAMPLE_SECONDS = 10
"""An example's bound in CPU seconds (of this process: ``ITIMER_PROF``)."""
EXAMPLE_WALL_SECONDS = 120
"""An example's bound in wall seconds, for a hang that does not compute (a sleep, a
wait): far beyond the CPU bound, so that only a stall reaches it on a loaded machine."""
MEMORY_GROWTH = 1 << 30

FIGURES: dict[str, Counter[str]] = {}

pytestmark = pytest.mark.slow  # each fuzzer runs for tens of seconds (the slow tier)


SCALE = float(os.environ.get("BLOCKYARD_FUZZ_SCALE", "1"))
"""Multiplies every run's count (a longer run by hand: BLOCKYARD_FUZZ_SCALE=10)."""


def fuzz_settings(examples: int) -> settings:
    return settings(max_examples=max(1, round(examples * SCALE)), deadline=None,
                    derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much,
                                           HealthCheck.function_scoped_fixture])


class Hang(BaseException):
    """An example ran longer than EXAMPLE_SECONDS (a BaseException, so that no
    ``except Exception`` in the code under test can swallow it)."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        spent = "CPU" if signum == signal.SIGPROF else "wall"
        limit = seconds if signum == signal.SIGPROF else EXAMPLE_WALL_SECONDS
        raise Hang(f"an example ran longer than {limit} s of {spent} time")

    old_prof = signal.signal(signal.SIGPROF, expire)
    old_alarm = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, EXAMPLE_WALL_SECONDS))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, old_prof)
        signal.signal(signal.SIGALRM, old_alarm)


@pytest.fixture(scope="module", autouse=True)
def bounded_memory() -> Iterator[None]:
    """Let the address space grow by at most MEMORY_GROWTH while fuzzing (Linux)."""
    try:
        import resource

        status = Path("/proc/self/status").read_text()
        size = int(re.search(r"VmSize:\s+(\d+) kB", status).group(1)) * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = size + MEMORY_GROWTH
        if hard != resource.RLIM_INFINITY and limit > hard:
            limit = hard
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ImportError, OSError, AttributeError, ValueError):
        soft = None
    yield
    if soft is not None:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def figure_lines() -> list[str]:
    """The fuzz figures, for the end of the test run (tests/conftest.py)."""
    if not FIGURES:
        return []
    lines = ["fuzz figures (inputs tried / refused with a documented error / accepted / "
             "accepted although invalid / raw exceptions / hangs):"]
    for kind, counts in FIGURES.items():
        extra = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())
                          if k not in ("tried", "refused", "accepted", "accepted-invalid",
                                       "raw", "hang"))
        lines.append(f"  {kind:<17} {counts['tried']:>6} tried  {counts['refused']:>6} refused"
                     f"  {counts['accepted']:>6} accepted  {counts['accepted-invalid']} "
                     f"accepted-invalid  {counts['raw']} raw  {counts['hang']} hang"
                     + (f"  ({extra})" if extra else ""))
    return lines


class AcceptedInvalid(AssertionError):
    """An input that should have been refused was accepted."""


def outcome(kind: str, run: Callable[[], Any], refused: tuple[type[BaseException], ...],
            alarm: bool = True) -> Any:
    """Run one input; count it; fail on anything but success or a documented refusal.
    ``run`` raises :class:`AcceptedInvalid` for an invalid input it saw accepted.
    ``alarm=False``: no timer of this suite (the hook watchdog's own runs), a
    run longer than EXAMPLE_WALL_SECONDS then counted as a hang afterwards."""
    counts = FIGURES.setdefault(kind, Counter())
    counts["tried"] += 1
    started = time.monotonic()
    try:
        with time_limit(EXAMPLE_SECONDS) if alarm else contextlib.nullcontext():
            value = run()
    except refused as exc:
        assert str(exc).strip(), f"{type(exc).__name__} without a message"
        counts["refused"] += 1
        return None
    except Hang:
        counts["hang"] += 1
        raise
    except AcceptedInvalid:
        counts["accepted-invalid"] += 1
        raise
    except BaseException:
        counts["raw"] += 1
        raise
    finally:
        if not alarm and time.monotonic() - started > EXAMPLE_WALL_SECONDS:
            counts["hang"] += 1
            raise Hang(f"an example ran longer than {EXAMPLE_WALL_SECONDS} s")
    counts["accepted"] += 1
    return value


# ---------------------------------------------------------------------------
# playing an accepted game with random, often wrong, arguments
# ---------------------------------------------------------------------------

WRONG = [None, True, 1.0, -1, 3, 99, 10**100, "0", [0], float("nan")]


def _arg(rnd: random.Random, good: list[Any]) -> Any:
    return rnd.choice(good) if rnd.random() < 0.7 else rnd.choice(WRONG)


def random_action(game: blockyard.Game, rnd: random.Random) -> tuple[str, Callable[[], Any]]:
    roll = rnd.random()
    names = [a.name for a in game.actions()] + ["end", "swap", "rotate", "nothing"]
    if roll < 0.15:
        name = rnd.choice(names)
        args = [_arg(rnd, [0, 1, 2]) for _ in range(rnd.choice((0, 0, 1, 2)))]
        return f"act{(name, *args)!r}", lambda: game.act(name, *args)
    if roll < 0.25:
        seconds = _arg(rnd, [0, 0.05, 0.5, 3.0])
        return f"tick({seconds!r})", lambda: game.tick(seconds)
    if game.kind == "tray":
        moves = game.legal_moves()
        if moves and rnd.random() < 0.6:
            move = rnd.choice(moves)
            return f"place{move}", lambda: game.place(*move)
        args = [_arg(rnd, list(range(game.cols))) for _ in range(3)]
        return f"place{tuple(args)!r}", lambda: game.place(*args)
    if roll < 0.5:
        dx = _arg(rnd, [-1, 1])
        return f"move({dx!r})", lambda: game.move(dx)
    if roll < 0.6:
        on = _arg(rnd, [True, False])
        return f"soft_drop({on!r})", lambda: game.soft_drop(on)
    return "hard_drop()", game.hard_drop


def exercise(game: blockyard.Game, rnd: random.Random, kind: str, steps: int = 8) -> None:
    """Play ``steps`` random actions: each works or is refused with IllegalMove
    leaving the game exactly as it was; the game's snapshot restores again."""
    counts = FIGURES[kind]
    for _ in range(steps):
        before = game.snapshot()
        text, action = random_action(game, rnd)
        try:
            action()
        except IllegalMove as exc:
            counts["actions refused"] += 1
            assert game.snapshot() == before, f"{text} was refused ({exc}) but changed the game"
        else:
            counts["actions done"] += 1
    snap = game.snapshot()
    assert blockyard.restore(copy.deepcopy(snap)).snapshot() == snap


# ---------------------------------------------------------------------------
# mutating JSON-like data
# ---------------------------------------------------------------------------

def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


NASTY = st.one_of(
    st.none(), st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2, 8, 9, 10, 31, 32, 64, 255, 256, 2**31, 2**63, -(2**63) - 1,
                     10**100, 86_400_000_001]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["", "tray", "falling", "start", "tick", "place", "move", "hard", "soft",
                     "swap", "rotate", "end", "\x00", "é" * 5, "2024-02-30", "2024-01-01",
                     "stuck", "blockyard-snapshot/1", "eu-classic", "../x.toml"]),
    st.lists(st.integers(-3, 300), max_size=6),
    st.lists(st.lists(st.integers(-1, 12), min_size=2, max_size=2), min_size=1, max_size=4),
    st.dictionaries(st.text(max_size=6), st.integers(-5, 5), max_size=3),
    st.sampled_from([40, 3000]).map(nested),  # fresh objects: mutations change them
    st.just(200_000).map(lambda n: [None] * n),
)


def _children(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return list(node)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def mutate_once(data: st.DataObject, root: Any) -> Any:
    """Change one place of ``root`` (a JSON-like tree, changed in place when it
    is a container): replace, delete or add a value, or tweak a number or a string."""
    if not isinstance(root, dict | list):
        return data.draw(NASTY)
    node = root
    for _ in range(12):
        keys = _children(node)
        if not keys:
            break
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, dict | list) and _children(child) and data.draw(st.booleans()):
            node = child
            continue
        op = data.draw(st.sampled_from(["replace", "replace", "tweak", "delete", "add"]))
        if op == "replace":
            node[key] = data.draw(NASTY)
        elif op == "tweak":
            if type(child) is int:
                node[key] = child + data.draw(st.sampled_from([-1, 1, -(child * 2) - 1, 1000,
                                                               2**40]))
            elif isinstance(child, str) and child:
                i = data.draw(st.integers(0, len(child) - 1))
                node[key] = child[:i] + data.draw(st.characters()) + child[i + 1:]
            else:
                node[key] = data.draw(NASTY)
        elif op == "delete":
            del node[key]
        elif isinstance(node, dict):
            node[data.draw(st.text(max_size=8))] = data.draw(NASTY)
        else:
            node.insert(key, data.draw(NASTY))
        return root
    return root


def mutate(data: st.DataObject, value: Any, most: int = 3) -> Any:
    value = copy.deepcopy(value)
    for _ in range(data.draw(st.integers(1, most))):
        value = mutate_once(data, value)
    return value


# ---------------------------------------------------------------------------
# genuine inputs to start from
# ---------------------------------------------------------------------------

def _played(ruleset: str, seed: int, steps: int) -> blockyard.Game:
    rnd = random.Random(seed)
    game = blockyard.new_game(ruleset, seed=seed)
    for _ in range(steps):
        if game.over:
            break
        if game.kind == "tray":
            if rnd.random() < 0.2 and game.has_action("swap") and game.swaps_left:
                game.swap()
            elif rnd.random() < 0.2 and game.has_action("rotate"):
                game.rotate(next(i for i, p in enumerate(game.tray) if p is not None))
            else:
                game.place(*rnd.choice(game.legal_moves()))
            if game.time_left is not None:
                game.tick(1.5)
        else:
            rnd.choice([lambda: game.move(-1), lambda: game.move(1), game.hard_drop,
                        lambda: game.tick(0.9), lambda: game.soft_drop(not game.soft)])()
    return game


GAMES_SPEC = [("eu-classic", 1, 12), ("tiered", 2, 15), ("arcadeforge-rotate", 3, 10),
              ("eu-timed", 4, 8), ("eu-zen", 5, 10), ("nepal-today", 6, 8),
              ("tiered-gravity", 7, 10), ("woodoku", 8, 10), ("sudoku-bloxx", 9, 30)]
_games: list[blockyard.Game] = []


def games() -> list[blockyard.Game]:
    if not _games:
        _games.extend(_played(*spec) for spec in GAMES_SPEC)
    return _games


_replays: list[dict[str, Any]] = []


def replays() -> list[dict[str, Any]]:
    """Genuine replay contents, made once (they carry the time they were made)."""
    if not _replays:
        _replays.extend(replay_data(game) for game in games())
    return _replays


# ---------------------------------------------------------------------------
# the fuzz runs
# ---------------------------------------------------------------------------

RULE_FILES = sorted(RULESETS.glob("*.toml"))
TOML_VALUES = ["nan", "inf", "-inf", "1e308", "-1", "0", "1000000000000", "1e-300",
               "99999999999999999999", '"x"', '""', "[]", "{}", "true", '"{n:>999999}"',
               '"{x}"', '"/dev/zero"', '"../x.toml"', "[[[[[[1]]]]]]", "-0.0", "32", "33",
               "100000000"]
TOML_LINES = ["extends = \"/dev/zero\"", "extends = \"eu-classic\"", "upcoming = 100000000",
              "max_attempts = 1000000000000", "combo_label = \"{n:>1000000000}\"",
              "rows = 0", "cols = 1000", "mode = \"falling\"", "[plugins.clock]",
              "seconds = nan", "[plugins.swaps]", "[display]", "given = \"5\"",
              "[pieces.big]", "shapes = [\"##########\\n##########\"]", "weight = inf",
              "[board]", "[[x]]", "a = [" + "[" * 40 + "]" * 40 + "]", "\x00", "é = 1"]
NUMBER = re.compile(r"(?<=[=\[,] )-?\d[\d_.eE+-]*|\"[^\"\n]*\"|true|false")


@st.composite
def mutated_rule_text(draw: st.DrawFn) -> str:
    path = draw(st.sampled_from(RULE_FILES))
    lines = path.read_text(encoding="utf-8").splitlines()
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["value", "value", "value", "delete", "insert", "char",
                                   "duplicate"]))
        i = draw(st.integers(0, len(lines) - 1))
        if op == "value":
            spots = list(NUMBER.finditer(lines[i]))
            if spots:
                m = draw(st.sampled_from(spots))
                lines[i] = lines[i][:m.start()] + draw(st.sampled_from(TOML_VALUES)) + \
                    lines[i][m.end():]
        elif op == "delete":
            del lines[i]
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(TOML_LINES)))
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif lines[i]:
            j = draw(st.integers(0, len(lines[i]) - 1))
            lines[i] = lines[i][:j] + draw(st.characters()) + lines[i][j + 1:]
        if not lines:
            lines = [""]
    return "\n".join(lines) + "\n"


@fuzz_settings(250)
@given(text=mutated_rule_text(), seed=st.integers(0, 2**32))
def test_fuzz_rule_files(tmp_path_factory, text, seed):
    rnd = random.Random(seed)
    folder = tmp_path_factory.mktemp("rules")
    path = folder / "mutated.toml"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))

    def run() -> Any:
        ruleset = blockyard.load_ruleset(path)
        game = blockyard.new_game(ruleset, seed=rnd.randrange(1000))
        exercise(game, rnd, "rule files", steps=5)
        return ruleset

    outcome("rule files", run, (RulesetError, PluginError))


@fuzz_settings(600)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_fuzz_snapshots(data, seed):
    rnd = random.Random(seed)
    base = data.draw(st.sampled_from(games())).snapshot()
    snap = mutate(data, base)

    def run() -> Any:
        game = blockyard.restore(snap)
        exercise(game, rnd, "snapshots")
        return game

    outcome("snapshots", run, (DataError, RulesetError))


@fuzz_settings(400)
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_fuzz_logs(data, seed):
    rnd = random.Random(seed)
    base = data.draw(st.sampled_from(games())).log
    log = mutate(data, base)

    def run() -> Any:
        game = blockyard.replay(log)
        exercise(game, rnd, "logs")
        return game

    outcome("logs", run, (DataError, RulesetError))


@fuzz_settings(200)
@given(data=st.data(), raw=st.booleans())
def test_fuzz_replay_files(tmp_path_factory, data, raw):
    content = data.draw(st.sampled_from(replays()))
    if raw:
        text = json.dumps(content)
        for _ in range(data.draw(st.integers(1, 4))):
            i = data.draw(st.integers(0, len(text) - 1))
            text = text[:i] + data.draw(st.sampled_from(list('{}[]",:0-9e.\\ aZ\x00é'))) + \
                text[i + 1:]
        blob = text.encode("utf-8", "surrogatepass")
    else:
        try:
            blob = json.dumps(mutate(data, content), allow_nan=True).encode()
        except RecursionError:  # too deep for json itself: hand the loader a deep file
            blob = b"[" * 100_000 + b"]" * 100_000
    path = tmp_path_factory.mktemp("replays") / "fuzzed.json"
    path.write_bytes(blob)

    def run() -> Any:
        replay = load_replay(path)
        replay.check()
        return replay

    outcome("replay files", run, (ReplayError,))


IDS = [info.id for info in blockyard.list_rulesets()]
CODE_CASES = [(rid, seed, score) for rid in IDS[:6] for seed, score in
              ((0, None), (31337, 2500), (2**32 - 1, 2**28 - 1))]


@fuzz_settings(3000)
@given(data=st.data())
def test_fuzz_challenge_codes(data):
    rid, seed, score = data.draw(st.sampled_from(CODE_CASES))
    original = data.draw(st.sampled_from([encode, encode_old]))(rid, seed, score)
    plain = original.replace("-", "")
    op = data.draw(st.sampled_from(["substitute", "substitute", "delete", "insert", "swap",
                                    "text", "long"]))
    changed = list(plain)
    if op == "substitute":
        for _ in range(data.draw(st.integers(1, 4))):
            i = data.draw(st.integers(0, len(changed) - 1))
            changed[i] = data.draw(st.sampled_from(ALPHABET + "OILUu!-é "))
    elif op == "delete":
        del changed[data.draw(st.integers(0, len(changed) - 1))]
    elif op == "insert":
        changed.insert(data.draw(st.integers(0, len(changed))),
                       data.draw(st.sampled_from(ALPHABET)))
    elif op == "swap":
        i = data.draw(st.integers(0, len(changed) - 2))
        changed[i], changed[i + 1] = changed[i + 1], changed[i]
    elif op == "text":
        changed = list(data.draw(st.text(max_size=40)))
    code = "".join(changed) if op != "long" else \
        plain * data.draw(st.sampled_from([10, 1000, 100_000]))  # never a list of its letters

    decoded = outcome("codes", lambda: decode(code, IDS), (DataError,))
    if decoded is None:
        return
    same_format = len(code) == len(plain) and original == encode(rid, seed, score)
    distance = sum(a != b for a, b in zip(code.upper().replace("O", "0").replace("I", "1")
                                          .replace("L", "1"), plain, strict=False))
    if same_format and distance <= 4 and len(code) == len(plain):
        assert decoded == Challenge(rid, seed, score), (original, code)
        FIGURES["codes"]["typos read as the same code"] += 1


# ---------------------------------------------------------------------------
# impossible snapshots of the right types: every one differs from its log
# ---------------------------------------------------------------------------

STATE_INTS = ("score", "moves", "combo", "best_combo", "lines_cleared", "set_index",
              "elapsed_us", "errors", "batch_index", "cur_row", "cur_col", "fall_us",
              "cur_code")


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _leaves(v, (*path, k))]
    return [path] if type(node) in (int, bool) else []


@st.composite
def impossible_change(draw: st.DrawFn, snap: dict[str, Any]) -> str:
    """Change ``snap`` (in place) to another well-typed value; what was changed."""
    kinds = ["int", "over", "cell", "state"]
    if snap["kind"] == "tray":
        kinds.append("tray")
    else:
        kinds.append("soft")
    kind = draw(st.sampled_from(kinds))
    if kind == "int":
        name = draw(st.sampled_from([n for n in STATE_INTS if n in snap]))
        snap[name] = max(0, snap[name] + draw(st.sampled_from([-3, -1, 1, 2, 7, 100, 10**6])))
        return name
    if kind == "over":
        snap["over_reason"] = draw(st.sampled_from([None, "stuck", "time", "ended", "errors",
                                                    "complete"]))
        return "over_reason"
    if kind == "cell":
        cell = draw(st.integers(0, len(snap["cells"]) - 1))
        if snap["bits"] >> cell & 1:
            snap["bits"] &= ~(1 << cell)
            snap["cells"][cell] = 0
        else:
            snap["bits"] |= 1 << cell
            snap["cells"][cell] = 1
        return "cell"
    if kind == "state":
        leaves = _leaves(snap["state"])
        if not leaves:
            snap["state"]["x"] = 1
            return "state"
        *path, last = draw(st.sampled_from(leaves))
        target = snap["state"]
        for key in path:
            target = target[key]
        value = target[last]
        target[last] = (not value) if type(value) is bool else value + draw(
            st.sampled_from([-1, 1, 5, 999]))
        return "state"
    if kind == "soft":
        snap["soft"] = not snap["soft"]
        return "soft"
    ruleset = blockyard.load_ruleset(snap["log"][0][1]["id"])
    slot = draw(st.integers(0, len(snap["tray"]) - 1))
    snap["tray"][slot] = piece_json(draw(st.sampled_from(ruleset.pieces)))
    return "tray"


@fuzz_settings(300)
@given(data=st.data())
def test_fuzz_impossible_snapshots(data):
    original = data.draw(st.sampled_from(games())).snapshot()
    snap = copy.deepcopy(original)
    what = data.draw(impossible_change(snap))
    if snap == original:  # drew the game's own value: nothing impossible
        return

    def run() -> Any:
        game = blockyard.restore(snap)
        raise AcceptedInvalid(f"restore accepted a snapshot whose {what} its log does not "
                              f"produce ({game!r})")

    outcome("impossible snaps", run, (DataError,))


# ---------------------------------------------------------------------------
# plugins whose answers are out of range or change the game
# ---------------------------------------------------------------------------

def _bad_answer(hook: str, kind: int, answer: Any) -> Any:
    """Answer number ``kind`` (modulo their count) of the out-of-range or wrongly
    typed answers to ``hook``; ``answer`` is the genuine one."""
    from blockyard.results import Clearing, Scoring

    options: list[Callable[[], Any]] = {
        "score": [lambda: Scoring(10**100, 0), lambda: Scoring(-(10**100), 0),
                  lambda: Scoring(1, -1), lambda: Scoring(1, 10**9),
                  lambda: Scoring(1, 0, {"fuzz": {"blob": "x" * 2_000_000}}),
                  lambda: Scoring(1, 0, {"fuzz": float("nan")}), lambda: Scoring("1", 0)],
        "clear": [lambda: Clearing(answer.regions, answer.board, cleared=1 << 10_000),
                  lambda: Clearing(answer.regions, answer.board, cleared=-1),
                  lambda: Clearing(answer.regions, answer.board, row_drops=(99,) * 50),
                  lambda: Clearing(["row"], answer.board)],
        "deal": [lambda: list(answer) * 500, lambda: ["piece"] * len(answer), lambda: []],
        "end_reason": [lambda: "x" * 2_000_000, lambda: 5, lambda: "x" * 65],
        "move_state": [lambda: {"fuzz": list(range(100_000))}, lambda: {"fuzz": float("inf")},
                       lambda: ["x"], lambda: {"fuzz": nested(50)}],
        "allowed_anchors": [lambda: 1 << 100_000, lambda: -1, lambda: 1.5, lambda: -(2**70)],
        "accept_stone": [lambda: "yes", lambda: 1],
        "summary_tips": [lambda: ["x" * 100_000], lambda: [5], lambda: ["t"] * 1000],
    }[hook]
    return options[kind % len(options)]()


def _change(game: Any, what: str) -> None:
    if what == "score":
        game.score += 777
    elif what == "state":
        game.state["fuzz"] = {"n": 1}
    elif what == "log":
        game.log.append(["tick", 5])
    elif what == "log-cleared":
        game.log.clear()
    elif what == "over":
        game.end_game("fuzzed")
    elif what == "board" and game.kind == "tray" and game.grid.bits:
        game.empty_cells(game.grid.bits)
    elif what == "tray" and game.kind == "tray" and any(game.tray):
        game.set_slot(next(i for i, p in enumerate(game.tray) if p is not None), None)
    else:
        game.moves += 1


class FuzzAnswers:
    """Answers ``hook`` with an out-of-range answer (``kind``) or changes the game
    in it (``change``), once the game has started; notes when it did."""

    def __init__(self, params: Any) -> None:
        self.hook = params.string("hook")
        self.kind = params.integer("kind")
        self.change = params.string("change")
        self.misbehaved = False

    def _act(self, game: Any, hook: str, answer: Any) -> Any:
        if hook != self.hook or game.moves < 1:
            return answer
        self.misbehaved = True
        if self.change:
            _change(game, self.change)
            return answer
        return _bad_answer(hook, self.kind, answer)

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        return self._act(game, "score", (yield))

    @hookimpl(wrapper=True)
    def blockyard_clear(self, game, board):
        return self._act(game, "clear", (yield))

    @hookimpl(wrapper=True)
    def blockyard_deal(self, game, index):
        return self._act(game, "deal", (yield))

    @hookimpl(wrapper=True)
    def blockyard_accept_stone(self, game, stone, row, col):
        return self._act(game, "accept_stone", (yield))

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        return self._act(game, "end_reason", None)

    @hookimpl
    def blockyard_move_state(self, game, result):
        return self._act(game, "move_state", None)

    @hookimpl
    def blockyard_allowed_anchors(self, game, piece):
        return self._act(game, "allowed_anchors", None)

    @hookimpl
    def blockyard_summary_tips(self, game, summary):
        return self._act(game, "summary_tips", None)


ANSWER_HOOKS = ["score", "clear", "deal", "end_reason", "move_state", "allowed_anchors",
                "summary_tips", "accept_stone"]
CHANGES = ["", "", "score", "state", "log", "log-cleared", "over", "board", "tray", "moves"]


@pytest.fixture(scope="module")
def fuzz_plugin() -> Iterator[None]:
    blockyard.register_plugin("fuzz-answers", FuzzAnswers)
    yield
    blockyard.unregister_plugin("fuzz-answers")


def _step(game: Any, hook: str) -> Any:
    if hook == "summary_tips":
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return game.summary()  # a fault of the tips is a warning
    if game.kind == "tray":
        return game.place(*game.legal_moves()[0]) if game.legal_moves() else game.end_round()
    return game.hard_drop()


@fuzz_settings(160)
@given(hook=st.sampled_from(ANSWER_HOOKS), kind=st.integers(0, 6),
       change=st.sampled_from(CHANGES), seed=st.integers(0, 1000))
def test_fuzz_plugin_answers(tmp_path_factory, fuzz_plugin, hook, kind, change, seed):
    base = "sudoku-bloxx" if hook == "accept_stone" else "eu-classic"
    path = tmp_path_factory.mktemp("answers") / "answers.toml"
    path.write_text(f'[ruleset]\nextends = "{base}"\nid = "fuzz-answers"\nname = "F"\n'
                    f'[plugins.fuzz-answers]\nhook = "{hook}"\nkind = {kind}\n'
                    f'change = "{change}"\n', encoding="utf-8")
    ruleset = blockyard.load_ruleset(path)
    plugin = dict(ruleset.plugin_objects)["fuzz-answers"]

    def run() -> Any:
        game = blockyard.new_game(ruleset, seed=seed)
        for _ in range(5):  # the plugin misbehaves from the second move on
            if game.over:
                return game
            before = game.snapshot()
            plugin.misbehaved = False
            try:
                _step(game, hook)
            except (PluginError, UserWarning):
                assert game.snapshot() == before, "refused, but the game changed"
                raise
            if plugin.misbehaved:
                raise AcceptedInvalid(f"{hook} ({change or kind}) was taken")
        return game

    outcome("plugin answers", run, (PluginError, UserWarning))


# ---------------------------------------------------------------------------
# hooks that loop or sleep, under the watchdog (a few cases: each waits)
# ---------------------------------------------------------------------------

class FuzzStalls:
    """Loops or sleeps in ``hook`` from the second move on."""

    def __init__(self, params: Any) -> None:
        self.hook = params.string("hook")
        self.how = params.string("how")

    def _stall(self, game: Any, hook: str) -> None:
        if hook == self.hook and game.moves >= 1:
            if self.how == "sleep":
                # the stall under test, not a wait (past the bound: a hang if not stopped)
                time.sleep(EXAMPLE_WALL_SECONDS * 3)
            else:
                while True:
                    pass

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        self._stall(game, "score")
        return (yield)

    @hookimpl(wrapper=True)
    def blockyard_clear(self, game, board):
        self._stall(game, "clear")
        return (yield)

    @hookimpl
    def blockyard_end_reason(self, game, stuck):
        self._stall(game, "end_reason")

    @hookimpl
    def blockyard_move_state(self, game, result):
        self._stall(game, "move_state")


@pytest.fixture(scope="module")
def stalls_plugin() -> Iterator[None]:
    blockyard.register_plugin("fuzz-stalls", FuzzStalls)
    yield
    blockyard.unregister_plugin("fuzz-stalls")


@fuzz_settings(6)
@given(hook=st.sampled_from(["score", "clear", "end_reason", "move_state"]),
       how=st.sampled_from(["loop", "sleep"]), base=st.sampled_from(["eu-classic",
                                                                     "sudoku-bloxx"]))
def test_fuzz_stalling_hooks(tmp_path_factory, stalls_plugin, hook, how, base):
    path = tmp_path_factory.mktemp("stalls") / "stalls.toml"
    path.write_text(f'[ruleset]\nextends = "{base}"\nid = "fuzz-stalls"\nname = "S"\n'
                    f'[plugins.fuzz-stalls]\nhook = "{hook}"\nhow = "{how}"\n',
                    encoding="utf-8")
    ruleset = blockyard.load_ruleset(path, hook_timeout=0.1)

    def run() -> Any:
        game = blockyard.new_game(ruleset, seed=1)
        for _ in range(4):  # the hook stalls from the second move on
            before = game.snapshot()
            try:
                _step(game, "score")
            except PluginError:
                assert game.snapshot() == before, "stopped, but the game changed"
                raise
        if hook != "move_state" or base == "eu-classic":
            raise AcceptedInvalid(f"{hook} stalled ({how}) and was not stopped")
        return game

    outcome("stalling hooks", run, (PluginError,), alarm=False)


# ---------------------------------------------------------------------------
# broken plugin packages
# ---------------------------------------------------------------------------

class Disabled(Exception):
    """A package was disabled and named (its reason is the message): refused."""


def _package(behaviour: str, name: Any) -> Any:
    module = types.SimpleNamespace()

    class Plugin:
        def __init__(self, params: Any) -> None:
            pass

    if behaviour == "import-raises":
        raise ImportError("fuzzed import failure")
    if behaviour == "import-exits":
        raise SystemExit(3)
    if behaviour == "misspelled":
        module.blockyard_register_plugin = hookimpl(lambda register: None)
        return module

    def register_plugins(register):
        if behaviour == "raises":
            raise RuntimeError("fuzzed registration failure")
        if behaviour == "junk-factory":
            register(name, 123)
        else:
            register(name, Plugin)
        if behaviour == "twice":  # the same name for another factory
            register(name, type("Other", (Plugin,), {}))

    def register_rulesets(register):
        if behaviour == "junk-folder":
            register(name)

    module.blockyard_register_plugins = hookimpl(register_plugins)
    module.blockyard_register_rulesets = hookimpl(register_rulesets)
    return module


@fuzz_settings(60)
@given(behaviour=st.sampled_from(["import-raises", "import-exits", "misspelled", "raises",
                                  "junk-factory", "twice", "junk-folder", "fine"]),
       name=st.one_of(st.sampled_from(["line-clearing", "weighted-dealing", "continue",
                                       "fuzz-pkg-plugin", "", " ", "x" * 65]),
                      st.integers(), st.none(), st.text(max_size=8)))
def test_fuzz_broken_packages(behaviour, name):
    import importlib.metadata

    from blockyard import registry
    from blockyard.discovery import clear_caches

    real = importlib.metadata.entry_points
    fake = types.SimpleNamespace(name="fuzzed", value="fuzzed_module", group="blockyard",
                                 dist=types.SimpleNamespace(name="fuzzed-pkg"),
                                 load=lambda: _package(behaviour, name))

    def run() -> Any:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(registry, "_reported", set())
            patch.setattr(registry, "report", lambda message: None)
            patch.setattr(importlib.metadata, "entry_points", lambda group: [
                fake, *(ep for ep in real(group=group) if ep.value == registry.BUNDLED_MODULE)])
            try:
                reg = registry.reload()
                # every bundled ruleset still loads and plays
                game = blockyard.new_game(blockyard.load_ruleset("eu-classic"), seed=1)
                game.place(*game.legal_moves()[0])
                assert "eu-classic" in {info.id for info in blockyard.list_rulesets()}
                disabled = [b.package for b in reg.broken]
            finally:
                patch.undo()
                registry.reload()
                clear_caches()
        should_fail = behaviour not in ("fine", "junk-folder") or not isinstance(name, str) \
            or not name.strip() \
            or len(name) > 64 or name in ("line-clearing", "weighted-dealing", "continue")
        if should_fail and "fuzzed-pkg" not in disabled:
            raise AcceptedInvalid(f"a package that {behaviour} ({name!r:.40}) was not disabled")
        if not should_fail and disabled:
            raise AssertionError(f"a fine package was disabled: {reg.broken}")
        if disabled:
            raise Disabled(reg.broken[0].reason)
        return reg

    outcome("packages", run, (Disabled,))


def test_fuzz_figures_show_no_other_outcome():
    """Runs after the fuzz tests of this module (file order): every kind was
    tried, and nothing ended other than accepted or refused: no raw exception,
    no hang, no invalid input accepted."""
    for kind in ("rule files", "snapshots", "logs", "replay files", "codes",
                 "impossible snaps", "plugin answers", "stalling hooks", "packages"):
        counts = FIGURES.get(kind)
        if counts is None:  # run alone (-k): nothing to check
            continue
        assert counts["raw"] == counts["hang"] == counts["accepted-invalid"] == 0, (kind, counts)
        assert counts["tried"] == counts["refused"] + counts["accepted"], (kind, counts)
        assert counts["refused"] > 0, kind
