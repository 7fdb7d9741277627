"""Replay files: finished games kept for watching again.

A replay is JSON: the game's log (whose first entry carries the resolved rule
file, seed and starting position), the engine version, the plugin
distributions (name and version) whose code answered the rules' hooks, the
SHA-256 of the resolved rule file and a digest of the final game state.
Opening one checks that the rule text it carries has the recorded hash, that
the ruleset's current rule file is the one the game was played with and that
running the log again gives the same final state, and says so instead of
silently showing a different game: a difference of code or rules is named as
what it is (:func:`blockyard.provenance.mismatch`: the plugin with both
versions, or the rule key with both values). The last ``KEEP`` replays per
ruleset are kept in the data folder's ``replays/``.

Replay files may come from strangers: the ``ruleset_id`` is an id, never a
path; files over 8 MiB and special files are refused unread; every problem is
a :class:`ReplayError` (a :class:`~blockyard.DataError`) with a message.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import paths, provenance, validate
from .discovery import load_ruleset
from .errors import DataError, IllegalMove, PluginError, RulesetError
from .files import write_atomically
from .game import Game, replay
from .gamecheck import actions_json, canonical_json, chosen_start, colour_bytes
from .pieces import unbounded_turn_ids
from .rulefiles import read_bytes_safely
from .ruleset import ID_PATTERN
from .version import __version__

FORMAT = "blockyard-replay/1"
KEEP = 20
MAX_REPLAY_BYTES = 8 << 20
"""Replay files larger than this are refused unread."""
HEX_DIGEST = re.compile(r"^[0-9a-f]{64}$")
HEADER_FIELDS = ("seed", "date", "score", "over_reason")
"""The header fields :meth:`Replay.check` compares with the game its log plays."""


class ReplayError(DataError):
    """A replay cannot be shown faithfully (changed rules, another engine, bad or
    altered file). The message says which."""


_DIGEST_JSON = json.JSONEncoder(sort_keys=True, check_circular=False)
"""``json.dumps(..., sort_keys=True)`` made once (a snapshot holds no cycle)."""
_COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), check_circular=False)


STATE_DIGEST_FORMAT = "blockyard-state/3"
"""The form of :func:`state_digest` that replay files record since December 2026
(older files record :func:`snapshot_state_digest` or :func:`legacy_state_digest`,
and still check)."""


def state_digest(game: Game) -> str:
    """A digest of the game's full state (what a faithful replay must reach):
    SHA-256 of the :func:`~blockyard.gamecheck.canonical_json` of
    ``[STATE_DIGEST_FORMAT, *game.digest_state()]`` (kind, seed, date, the state
    fields, the board's bits, the plugins' state, a tray game's tray), a line
    break and the cells' colours as bytes
    (:func:`~blockyard.gamecheck.colour_bytes`). Not the log, nor the rule text
    the file's ``ruleset_digest`` pins already, nor the cells' piece ids (the
    moves that fill the cells decide them, as they decide the colours). Hashed
    from the game's fields, not from a snapshot's JSON: a verification pays it
    for every submitted game."""
    digest = hashlib.sha256(canonical_json([STATE_DIGEST_FORMAT, *game.digest_state()])
                            .encode("ascii"))
    digest.update(b"\n")
    digest.update(colour_bytes(game.grid.colours))
    return digest.hexdigest()


def snapshot_state_digest(game: Game) -> str:
    """The :func:`state_digest` of replay files written in December 2026 before
    ``blockyard-state/3``: the JSON of the snapshot but the log, the rule text and
    the cells' piece ids (such files are still read)."""
    snap = game._snapshot_sharing_log()
    del snap["log"], snap["ruleset"]
    snap.pop("cell_pieces", None)
    return _digest(snap)


def legacy_state_digest(game: Game) -> str:
    """The :func:`state_digest` of replay files written before December 2026, which
    hashed the rule text too (such files are still read)."""
    snap = game._snapshot_sharing_log()
    del snap["log"]
    snap.pop("cell_pieces", None)
    return _digest(snap)


def _digest(snap: dict[str, Any]) -> str:
    return hashlib.sha256(_DIGEST_JSON.encode(snap).encode()).hexdigest()


def reaches(game: Game, final_digest: str, digest: str | None = None) -> bool:
    """Whether ``game`` is the final state a replay file's ``final_digest`` names
    (as :func:`state_digest` writes it, or as older files did; ``digest``: the
    game's :func:`state_digest`, when the caller has it already)."""
    return (final_digest == (digest or state_digest(game))
            or final_digest == snapshot_state_digest(game)
            or final_digest == legacy_state_digest(game))


def text_digest(text: str) -> str:
    """SHA-256 of rule text, as replay files record it (the same as
    :attr:`Ruleset.digest` of the ruleset the text was written from)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def check_replay_data(data: Any, where: str = "replay") -> dict[str, Any]:
    """The content of a replay file, checked field by field (``ReplayError``
    naming the field otherwise); optional text fields get their defaults."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{where}: not a Blockyard replay file")
    try:
        rid = validate.check_str(data.get("ruleset_id"), "ruleset_id", 64)
        if not ID_PATTERN.fullmatch(rid):
            raise ReplayError(f"{where}: ruleset_id: expected a ruleset id (lower-case "
                              f"letters, digits, '-', '_'), found {rid[:64]!r}")
        for key in ("ruleset_digest", "final_digest"):
            value = validate.check_str(data.get(key), key, 64)
            if not HEX_DIGEST.fullmatch(value):
                raise ReplayError(f"{where}: {key}: expected a SHA-256 in hexadecimal")
        validate.check_int(data.get("score"), "score", -validate.MAX_COUNTER,
                           validate.MAX_COUNTER)
        for key in ("player", "finished", "engine"):
            validate.check_str(data.get(key, ""), key, 200)
        if data.get("chosen_start") is not None:
            validate.check_str(data["chosen_start"], "chosen_start", 400)
        if data.get("over_reason") is not None:
            validate.check_str(data["over_reason"], "over_reason", 64)
        validate.check_date(data.get("date"), "date")
        if data.get("seed") is not None:
            validate.check_int(data["seed"], "seed", -validate.MAX_SEED, validate.MAX_SEED - 1)
        log = validate.check_log(data.get("log"))
        if data.get("plugins") is not None:  # optional: older replays do not record them
            provenance.read_plugins(data["plugins"])
    except ReplayError:
        raise
    except DataError as exc:
        raise ReplayError(f"{where}: {exc}") from None
    start = log[0][1]
    if start.get("id", rid) != rid:
        raise ReplayError(f"{where}: the game in this file is of {start['id'][:64]!r}, not "
                          f"{rid!r}")
    return {"player": "", "finished": "", "engine": "", **data}


@dataclass
class Replay:
    """A loaded replay file."""

    path: Path | None
    data: dict[str, Any]
    _game: Game | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def ruleset_id(self) -> str:
        return str(self.data["ruleset_id"])

    @property
    def log(self) -> list[list[Any]]:
        return list(self.data["log"])

    @property
    def player(self) -> str:
        return str(self.data.get("player", ""))

    @property
    def score(self) -> int:
        """The score the file claims (checked against the log by :meth:`check`;
        show :attr:`game`'s score)."""
        return int(self.data["score"])

    def _where(self) -> str:
        return str(self.path) if self.path is not None else "replay"

    @property
    def plugins(self) -> tuple[provenance.PluginVersion, ...] | None:
        """The plugin distributions the game was played with, as the file records
        them (``None``: a replay written before replays recorded them)."""
        value = self.data.get("plugins")
        return None if value is None else provenance.read_plugins(value)

    def played_with(self) -> provenance.Provenance:
        """What the game was played with, as the file says: its plugins, the
        rules' digest and the rule text its log carries."""
        return provenance.Provenance(self.plugins, str(self.data["ruleset_digest"]),
                                     str(self.data["log"][0][1]["ruleset"]))

    def check(self, *, here: str = "this installation", exact_code: bool = False) -> Game:
        """The finished game, rebuilt from the log: :class:`ReplayError` unless the
        game can be shown exactly as played and the file's header is what its log
        plays.

        In this order, cheapest first: the file's fields; the rule text it carries
        hashed and compared with the hash recorded with it; the ruleset id (an id,
        never a path) looked up among the installed rulesets and compared with what
        the game was played with (:func:`blockyard.provenance.mismatch`): other
        rules are refused naming the first differing rule key with both values, and
        with ``exact_code`` (a server's referee) other plugin versions are refused
        naming the plugin and both versions (``here`` names this side in the
        sentence: "played with quad-mono 0.1.0; this server has 0.2.0"). Then the
        log is run again and every header field (``seed``, ``date``, ``score``,
        ``over_reason``) compared with the rebuilt game, then the final state with
        the recorded digest: a difference is the other plugin version when there is
        one, otherwise it names the field (the file was altered) or the engine (a
        file of an earlier engine, which gave a turned piece a longer id, is checked
        as that engine played it).
        The log is the referee: show the returned game's figures (also
        :attr:`game` afterwards), never the header's."""
        where = self._where()
        self.data = check_replay_data(self.data, where)
        rid = self.ruleset_id
        text = self.data["log"][0][1]["ruleset"]
        if text_digest(text) != self.data["ruleset_digest"]:
            raise ReplayError(f"{where}: the rules in this replay do not match the hash "
                              "recorded with them; the file was altered")
        try:
            current = load_ruleset(rid)  # an id: ID_PATTERN admits no path
        except (RulesetError, PluginError) as exc:
            raise ReplayError(f"the ruleset {rid!r} of this replay is not installed here or "
                              f"cannot be loaded: {exc}") from None
        differs = provenance.mismatch(self.played_with(), provenance.of_ruleset(current))
        if differs is not None and (exact_code or current.digest != self.data["ruleset_digest"]):
            raise ReplayError(f"{where}: {differs_sentence(rid, differs, here)}; the replay "
                              "would show a different game")
        rebuilt = self.rebuild()
        for key in HEADER_FIELDS:
            if key not in self.data:  # an optional field the file does not claim
                continue
            claimed, played = self.data.get(key), getattr(rebuilt, key)
            if claimed != played or type(claimed) is not type(played):
                if differs is not None:
                    raise ReplayError(f"{where}: {differs_sentence(rid, differs, here)}; here "
                                      f"its log plays {key} {_shown(played)}, not "
                                      f"{_shown(claimed)}")
                why = "the file was altered" if "plugins" in self.data else (
                    "the file was altered, or the game was played with other plugin versions "
                    "(the file does not record them)")
                raise ReplayError(f"{where}: {key}: the file says {_shown(claimed)} but its "
                                  f"log plays {_shown(played)}; {why}")
        digest = self.data["final_digest"]
        if not reaches(rebuilt, digest) \
                and not self._recorded_with_longer_turn_ids(rebuilt, digest):
            if differs is not None:
                raise ReplayError(f"{where}: {differs_sentence(rid, differs, here)}; here its "
                                  "log plays a different game")
            raise ReplayError(f"this replay was recorded by Blockyard "
                              f"{str(self.data.get('engine'))[:40]}; this engine "
                              f"({__version__}) plays it differently")
        self._game = rebuilt
        return rebuilt

    def _recorded_with_longer_turn_ids(self, rebuilt: Game, digest: str) -> bool:
        """Whether the recorded final state is the rebuilt game's as engines before
        this one wrote it, whose turned pieces' ids had a mark for every turn ever
        made (:func:`blockyard.pieces.unbounded_turn_ids`): the log played again
        with such ids reaches the digest. Asked only of a tray game whose log has
        an action of a plugin (a turn is one), so that nothing else is replayed
        twice."""
        mode = rebuilt.mode
        if not mode.has_tray or all(entry[0] in mode.engine_actions for entry in self.log[1:]):
            return False
        with unbounded_turn_ids():
            played = self._replay(self.log)
        return reaches(played, digest)

    @property
    def game(self) -> Game:
        """The finished game as :meth:`check` rebuilt it (checked first if it was
        not yet): the figures to show for this replay."""
        if self._game is None:
            return self.check()
        return self._game

    def rebuild(self) -> Game:
        """The finished game, rebuilt by running the log again."""
        return self._replay(self.log)

    def start(self) -> Game:
        """The game as it started (for the viewer to step through)."""
        return self._replay(self.log[:1])

    def _replay(self, log: list[list[Any]]) -> Game:
        try:
            return replay(log)
        except (DataError, RulesetError, PluginError, IllegalMove) as exc:
            raise ReplayError(f"{self._where()}: the game cannot be replayed: {exc}") from None


def replay_data(game: Game, player: str = "", *, final_digest: str | None = None,
                dealt: bool = False) -> dict[str, Any]:
    """The JSON content of a replay of ``game`` (``final_digest``: its
    :func:`state_digest`, when the caller has it already; ``dealt``: the caller
    checked that ``game`` is the rules' own deal). ``chosen_start``: why
    the game is not the rules' own deal (a starting position or another seed
    than a daily date's; :func:`blockyard.gamecheck.chosen_start`), or ``None``:
    a game from a chosen start is kept and watched like any other, and never
    counted."""
    return {"format": FORMAT, "engine": __version__, "ruleset_id": game.ruleset.id,
            "ruleset_digest": _rules_digest(game),
            **_own_fields(game, player, final_digest, dealt),
            "plugins": provenance.plugins_json(provenance.ruleset_plugins(game.ruleset)),
            "log": game.log}


def _rules_digest(game: Game) -> str:
    """The digest of the rule text ``game``'s log carries."""
    text = game.log[0][1]["ruleset"]
    return game.ruleset.digest if text == game.ruleset.to_toml() else text_digest(text)


def _own_fields(game: Game, player: str, final_digest: str | None,
                dealt: bool) -> dict[str, Any]:
    """The header fields of :func:`replay_data` that are the game's own (between
    its rules' and its plugins')."""
    return {"seed": game.seed, "date": game.date, "player": player, "score": game.score,
            "over_reason": game.over_reason,
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "chosen_start": None if dealt else chosen_start(game),
            "final_digest": final_digest or state_digest(game)}


_FIXED: dict[tuple[str, str, tuple[provenance.PluginVersion, ...]], tuple[str, str, str]] = {}
"""Per rules digest, ruleset id and plugin versions: the JSON of what every replay
of them writes alike (the header's first fields, the plugins, the rule text)."""


def replay_json(game: Game, player: str = "", *, final_digest: str | None = None,
                actions: str | None = None, dealt: bool = False) -> str:
    """:func:`replay_data` as compact JSON text, the same keys in the same order,
    written in parts: what every replay of the same rules and plugins writes
    alike (above all the rule text's JSON, most of a replay's bytes) is encoded
    once, then only the game's own fields, its start and its actions (the server
    writes one for every game it verifies). ``actions``: the
    :func:`blockyard.gamecheck.actions_json` of ``game.log[1:]``, when the caller
    has it already."""
    ruleset = game.ruleset
    log = game.log
    start = log[0][1]
    digest = _rules_digest(game)
    plugins = provenance.ruleset_plugins(ruleset)
    key = (digest, ruleset.id, plugins)
    fixed = _FIXED.get(key)
    if fixed is None:
        if len(_FIXED) >= 64:
            _FIXED.clear()
        fixed = _FIXED[key] = (
            _COMPACT_JSON.encode({"format": FORMAT, "engine": __version__,
                                  "ruleset_id": ruleset.id, "ruleset_digest": digest})[1:-1],
            _COMPACT_JSON.encode(provenance.plugins_json(plugins)),
            _COMPACT_JSON.encode(start["ruleset"]))
    prefix, plugins_text, rules = fixed
    own = _COMPACT_JSON.encode(_own_fields(game, player, final_digest, dealt))
    first = next(iter(start))
    rest_of_start = _COMPACT_JSON.encode({k: v for k, v in start.items() if k != "ruleset"})
    if first != "ruleset" or rest_of_start == "{}":  # pragma: no cover - the engine's own
        return _COMPACT_JSON.encode(replay_data(game, player, final_digest=final_digest,
                                                dealt=dealt))  # start always has its rules first
    moves = actions if actions is not None else actions_json(log[1:])
    after = "" if moves == "[]" else "," + moves[1:-1]
    return (f'{{{prefix},{own[1:-1]},"plugins":{plugins_text},"log":[["start",{{"ruleset":'
            f'{rules},{rest_of_start[1:]}]{after}]}}')


def replays_dir(ruleset_id: str | None = None) -> Path:
    base = paths.data_dir() / "replays"
    return base / ruleset_id if ruleset_id else base


def save_replay(game: Game, player: str = "", folder: Path | None = None) -> Path:
    """Keep a finished game as a replay file; only the last ``KEEP`` per ruleset stay."""
    folder = folder or replays_dir(game.ruleset.id)
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    path = folder / f"{stamp}-{game.seed}.json"
    write_atomically(path, json.dumps(replay_data(game, player)))
    for old in sorted(folder.glob("*.json"))[:-KEEP]:
        old.unlink(missing_ok=True)
    return path


def load_replay(path: Path | str) -> Replay:
    """Read a replay file (``ReplayError`` for anything that is not one: a file
    over 8 MiB or a special file is refused unread)."""
    path = Path(path)
    try:
        raw = read_bytes_safely(path, "replay file", MAX_REPLAY_BYTES)
    except OSError as exc:
        raise ReplayError(f"{path}: not a readable replay file: cannot read the file: "
                          f"{exc.strerror or exc}") from None
    except ValueError as exc:
        raise ReplayError(f"{path}: not a readable replay file: refused: {exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except (ValueError, RecursionError) as exc:
        raise ReplayError(f"{path}: not a readable replay file "
                          f"({type(exc).__name__}: {str(exc)[:200]})") from None
    return Replay(path, check_replay_data(data, str(path)))


def differs_sentence(ruleset_id: str, differs: provenance.Mismatch, here: str) -> str:
    """A code or rule difference as a replay's refusal says it."""
    said = differs.sentence("played with", f"{here} has")
    return said if differs.kind == "plugin" else f"the rules of {ruleset_id!r} differ: {said}"


def _shown(value: Any) -> str:
    """A header value for a message, cut short (a stranger's file may hold anything)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def list_replays(ruleset_id: str | None = None) -> list[Path]:
    """Replay files, newest first."""
    base = replays_dir(ruleset_id)
    return sorted(base.rglob("*.json"), key=lambda p: p.name, reverse=True)
