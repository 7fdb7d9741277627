"""The web page's engine: JSON requests in, JSON views of a game out.

The web page (``frontend/web/``, docs/web.md) runs Blockyard's own engine in the
browser through Pyodide, in a Web Worker. The worker passes every message of the
page to :func:`handle` and posts its answer back; the page draws what the answer
says and decides no rule of its own: which cells a piece would take, whether it
fits, the lines it would clear and the points it would score come from
:meth:`Game.preview <blockyard.TrayGame.preview>`, and every word from the rule
file or the window's catalogues (:mod:`blockyard.frontend.i18n`).

A request is a JSON object with ``op`` and the operation's fields; the answer is
``{"ok": true, ...}`` or ``{"ok": false, "error": "<what was wrong>"}``, the
game then left exactly as it was. A snapshot travels as JSON text, never as a
JavaScript object: its integers (the board's bits) may pass 2**53, which a
JavaScript number cannot hold:

========== ================================== =====================================
``op``     fields                             answer
========== ================================== =====================================
rulesets   ``language``                       ``rulesets``: every ruleset found,
                                              ``playable`` those the page plays
new        ``ruleset``, ``seed`` (int or       ``game``: the view of a new game
           null), ``language``
preview    ``slot``, ``row``, ``col``          ``preview``: what placing would do
place      ``slot``, ``row``, ``col``          ``game`` after it, ``move``
act        ``name``, ``args`` (list of int)    ``game`` after it
tick       ``seconds`` (the time played        ``game`` after it (its clock: timed
           since the last tick)                rulesets; falling stones fall)
move       ``dx`` (-1 or 1)                    ``game`` (falling games: the stone moved)
soft_drop  ``on`` (bool)                       ``game`` (falling games: fast falling)
hard_drop                                     ``game`` (falling games: the stone landed)
view       ``language``                       ``game`` (e.g. in another language)
snapshot                                      ``snapshot``: ``Game.snapshot()`` as
                                              JSON text
restore    ``snapshot`` (JSON text),           ``game``: the restored game's view
           ``language``
========== ================================== =====================================

Only this module, the core and the bundled plugins run in the page: it imports
nothing of the window (Arcade, pyglet) nor the server.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

import blockyard
from blockyard.falling import FallingGame
from blockyard.stones import Stone
from blockyard.tray import TrayGame
from blockyard.version import __version__

from . import i18n, rulewords

#: The operations :func:`handle` answers.
OPS = ("rulesets", "new", "preview", "place", "act", "tick", "move", "soft_drop", "hard_drop",
       "view", "snapshot", "restore")

FALLING_OPS = ("move", "soft_drop", "hard_drop")
"""The operations of falling games (Sudoku Bloxx) only."""

TRAY_OPS = ("preview", "place")
"""The operations of tray games only."""


class RulesetView(TypedDict):
    """A ruleset as the launcher lists it, in the requested language; ``rules`` its
    how-to-play page (the rule file's ``[help] text``, ``""`` when it has none)."""

    id: str
    name: str
    family: str
    description: str
    rules: str
    mode: str
    playable: bool
    error: str | None


class PieceView(TypedDict):
    """A tray slot: its piece's id, colour index and cells, or ``None`` fields."""

    slot: int
    piece: str
    colour: int
    cells: list[list[int]]
    fits: bool


class ActionView(TypedDict):
    """A ruleset action available now (swap, rotate, continue, ...)."""

    name: str
    label: str
    help: str
    key: str
    target: str
    uses_left: int | None
    rescue: bool


class SummaryView(TypedDict):
    """The end of a game as the window's summary says it: ``texts`` (why it ended,
    the points, the lines, the best combo), the pieces left in the tray under
    ``failed_heading``, and the tip."""

    score: int
    texts: list[str]
    failed_heading: str
    failed: list[PieceView]
    tip: str


class ScreenView(TypedDict):
    """What the screen of every game shows, in the requested language: its
    ruleset, seed and build, the board's size, the score, the clock, the end and
    the ruleset's actions (:class:`GameView` and :class:`FallingView` add their
    own)."""

    kind: str
    ruleset: str
    name: str
    seed: int
    version: str
    rows: int
    cols: int
    shaded: list[list[int]]
    score: int
    moves: int
    time_left: float | None
    clock_text: str
    over: bool
    over_reason: str | None
    over_words: str
    actions: list[ActionView]
    summary: SummaryView | None
    words: dict[str, str]


class GameView(ScreenView):
    """Everything the game screen of a tray game shows, in the requested language."""

    board: list[list[int]]
    tray: list[PieceView]
    score_text: str
    combo: int
    combo_text: str
    best_combo: int
    lines: int


class PreviewView(TypedDict):
    """What placing ``slot``'s piece at ``(row, col)`` would do (``Game.preview``)."""

    slot: int
    row: int
    col: int
    fits: bool
    cells: list[list[int]]
    cleared: list[list[int]]
    lines: int
    points: int
    points_text: str


class BridgeError(ValueError):
    """A request the bridge cannot answer: its message says what was wrong."""


#: The page's own words, in the window's catalogues (the same texts as the window's).
WORDS = {
    "play_again": i18n.N_("Play again"),
    "change": i18n.N_("Change ruleset"),
    "back": i18n.N_("Back"),
    "language": i18n.N_("Language"),
    "theme": i18n.N_("Theme"),
    "dark": i18n.N_("Dark"),
    "light": i18n.N_("Light"),
    "high-contrast": i18n.N_("High contrast"),
    "how_to_play": i18n.N_("How to play"),
}


def words() -> dict[str, str]:
    """The page's own words (:data:`WORDS`) in the current language."""
    return {key: i18n._(text) for key, text in WORDS.items()}


class Bridge:
    """One page's engine: the game being played and the language it is shown in."""

    def __init__(self) -> None:
        self.game: TrayGame | FallingGame | None = None

    def handle(self, request: str) -> str:
        """Answer one JSON request (see the module's table) with a JSON answer."""
        try:
            message = json.loads(request)
        except ValueError as exc:
            return json.dumps({"ok": False, "error": f"the request is not JSON: {exc}"})
        try:
            if not isinstance(message, dict):
                raise BridgeError("a request is a JSON object with an 'op'")
            answer = self.answer(message)
        except (BridgeError, blockyard.IllegalMove, blockyard.RulesetError,
                blockyard.DataError, blockyard.PluginError) as exc:
            return json.dumps({"ok": False, "error": str(exc)})
        return json.dumps({"ok": True, **answer})

    def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        """The answer's fields for a request already parsed."""
        op = message.get("op")
        if op not in OPS:
            raise BridgeError(f"unknown op {op!r}; the ops are {', '.join(OPS)}")
        _set_language(message.get("language", i18n.language()))
        if op == "rulesets":
            return {"rulesets": list_rulesets(), "words": words(), "version": __version__}
        if op == "new":
            self.game = new_page_game(message.get("ruleset"), message.get("seed"))
            return {"game": any_view(self.game)}
        if op == "restore":
            text = message.get("snapshot")
            if not isinstance(text, str):
                raise BridgeError("restore needs a 'snapshot': the JSON text of a snapshot")
            try:
                snap = json.loads(text)
            except ValueError as exc:
                raise BridgeError(f"the snapshot is not JSON: {exc}") from None
            if not isinstance(snap, dict):
                raise BridgeError("the snapshot is not a JSON object")
            restored = blockyard.restore(snap)
            if not isinstance(restored, TrayGame | FallingGame):
                raise BridgeError(f"ruleset {restored.ruleset.id!r} plays {restored.kind!r}, "
                                  "which the page does not play")
            self.game = restored
            return {"game": any_view(restored)}
        game = self.game
        if game is None:
            raise BridgeError(f"no game to {op}: start one with op 'new'")
        if op == "view":
            return {"game": any_view(game)}
        if op == "snapshot":
            return {"snapshot": json.dumps(game.snapshot())}
        if op == "tick":
            seconds = message.get("seconds")
            if isinstance(seconds, bool) or not isinstance(seconds, int | float):
                raise BridgeError(f"'seconds' must be a number, not {seconds!r}")
            game.tick(seconds)
            return {"game": any_view(game)}
        if isinstance(game, FallingGame):
            return {"game": falling_answer(game, op, message)}
        if op in FALLING_OPS:
            raise BridgeError(f"{op} is for falling games; ruleset {game.ruleset.id!r} "
                              "plays a tray")
        if op == "preview":
            slot, row, col = _ints(message, "slot", "row", "col")
            return {"preview": preview_view(game, slot, row, col)}
        if op == "place":
            slot, row, col = _ints(message, "slot", "row", "col")
            result = game.place(slot, row, col)
            return {"game": game_view(game),
                    "move": {"points": result.points, "lines": result.lines,
                             "combo": result.combo,
                             "cleared": _cells(result.cleared_cells)}}
        name = message.get("name")
        args = message.get("args", [])
        if not isinstance(name, str):
            raise BridgeError("act needs the action's 'name'")
        if not isinstance(args, list) or not all(type(a) is int for a in args):
            raise BridgeError("act's 'args' is a list of integers")
        game.act(name, *args)
        return {"game": game_view(game)}


def _set_language(code: Any) -> None:
    if not isinstance(code, str) or i18n.supported(code) is None:
        raise BridgeError(f"no such language {code!r}; the languages are "
                          + ", ".join(sorted(i18n.LANGUAGES)))
    if i18n.supported(code) != i18n.language():
        i18n.set_language(code)


def _ints(message: dict[str, Any], *names: str) -> tuple[int, ...]:
    values = []
    for name in names:
        value = message.get(name)
        if type(value) is not int:
            raise BridgeError(f"{name!r} must be an integer, not {value!r}")
        values.append(value)
    return tuple(values)


def _cells(cells: frozenset[tuple[int, int]] | set[tuple[int, int]]) -> list[list[int]]:
    return [[r, c] for r, c in sorted(cells)]


def list_rulesets() -> list[RulesetView]:
    """Every ruleset found, in the current language; ``playable`` says whether the
    page plays it (tray games), ``error`` why a file cannot be loaded."""
    views: list[RulesetView] = []
    for info in blockyard.list_rulesets():
        if info.error is not None:
            views.append(RulesetView(id=info.id, name=info.name or info.id, family=info.family,
                                     description=info.description, rules="", mode="",
                                     playable=False, error=info.error))
            continue
        try:
            ruleset = blockyard.load_ruleset(info.path)
        except (blockyard.RulesetError, blockyard.PluginError) as exc:
            views.append(RulesetView(id=info.id, name=info.name or info.id, family=info.family,
                                     description=info.description, rules="", mode="",
                                     playable=False, error=str(exc)))
            continue
        mode = ruleset.mode_record
        views.append(RulesetView(id=ruleset.id, name=rulewords.ruleset_name(ruleset),
                                 family=ruleset.family,
                                 description=rulewords.ruleset_description(ruleset),
                                 rules=ruleset.help.page_in(i18n.language()),
                                 mode=mode.name, playable=plays_in_page(ruleset),
                                 error=None))
    return views


def plays_in_page(ruleset: blockyard.Ruleset) -> bool:
    """Whether the page plays ``ruleset``: tray games (timed ones included: the page
    sends the time played with ``tick``) and falling games (Sudoku Bloxx)."""
    return issubclass(ruleset.mode_record.engine, TrayGame | FallingGame)


def new_page_game(ruleset: Any, seed: Any) -> TrayGame | FallingGame:
    """A new game of ``ruleset`` (an id), on ``seed`` (``None``: a random one, or
    the date's for a daily ruleset)."""
    if not isinstance(ruleset, str) or not ruleset:
        raise BridgeError(f"'ruleset' must be a ruleset id, not {ruleset!r}")
    if seed is not None and type(seed) is not int:
        raise BridgeError(f"'seed' must be an integer or null, not {seed!r}")
    known = {info.id for info in blockyard.list_rulesets()}
    if ruleset not in known:
        raise BridgeError(f"no ruleset {ruleset!r}")
    rules = blockyard.load_ruleset(ruleset)
    if not plays_in_page(rules):
        raise BridgeError(f"ruleset {ruleset!r} plays {rules.mode_record.name!r}, which the "
                          "page does not play")
    game = blockyard.new_game(rules, seed=seed)
    if not isinstance(game, TrayGame | FallingGame):  # a mode's engine of another kind
        raise BridgeError(f"ruleset {ruleset!r} plays {game.kind!r}, which the page "
                          "does not play")
    return game


def _piece_view(slot: int, piece: blockyard.Piece | None, fits: bool) -> PieceView:
    if piece is None:
        return PieceView(slot=slot, piece="", colour=0, cells=[], fits=False)
    return PieceView(slot=slot, piece=piece.id, colour=piece.colour,
                     cells=_cells(piece.cells), fits=fits)


def _shaded(game: blockyard.Game) -> list[list[int]]:
    """The cells shown shaded, ``[row, col]`` each (:func:`rulewords.shaded_cells`)."""
    return [[r, c] for r, c in sorted(rulewords.shaded_cells(game.ruleset))]


def game_view(game: TrayGame) -> GameView:
    """The screen of ``game`` in the current language."""
    masks = game.fit_masks() if not game.over else ()
    tray = [_piece_view(slot, piece, bool(masks) and bool(masks[slot]))
            for slot, piece in enumerate(game.tray)]
    actions = [ActionView(name=a.name, label=rulewords.action_label(a.label, a.uses_left),
                          help=rulewords.engine_text(a.help), key=a.key or "",
                          target=a.target, uses_left=a.uses_left, rescue=a.rescue)
               for a in game.actions()]
    shown = rulewords.display(game.ruleset)
    summary = summary_view(game) if game.over else None
    return GameView(
        kind="tray", ruleset=game.ruleset.id, name=rulewords.game_title(game), seed=game.seed,
        version=__version__, rows=game.rows, cols=game.cols, shaded=_shaded(game),
        board=[list(row) for row in game.board], tray=tray,
        score=game.score, score_text=i18n.format_number(game.score),
        combo=game.combo, combo_text=i18n.localise_digits(shown.combo_text(game.combo)),
        best_combo=game.best_combo, lines=game.lines_cleared,
        moves=game.moves, time_left=game.time_left,
        clock_text="" if game.time_left is None else rulewords.clock(game.time_left),
        over=game.over, over_reason=game.over_reason,
        over_words=rulewords.over_words(game), actions=actions, summary=summary,
        words=words())


def summary_view(game: TrayGame) -> SummaryView:
    """The summary of a game that is over, in the words of the window's summary."""
    facts = game.summary()
    shown = rulewords.display(game.ruleset)
    texts = [rulewords.over_words(game) or i18n._("Game over")]
    if shown.score:
        texts.append(i18n.ngettext("{n} point", "{n} points", facts.points).format(
            n=i18n.format_number(facts.points)))
    texts.append(rulewords.area_count(game.mode, facts.lines_cleared))
    if shown.score:
        texts.append(i18n._("Best combo: {combo}").format(
            combo=rulewords.best_combo_text(shown, facts.best_combo)))
    heading = ""
    if facts.failed_pieces:
        heading = i18n._("Did not fit:") if facts.over_reason == "stuck" \
            else i18n._("Left in the tray:")
    tip = i18n._("Tip: {tip}").format(tip=rulewords.engine_text(facts.tip)) if facts.tip \
        else ""
    return SummaryView(
        score=facts.points, texts=texts, failed_heading=heading,
        failed=[_piece_view(i, p, False) for i, p in enumerate(facts.failed_pieces)],
        tip=tip)


def preview_view(game: TrayGame, slot: int, row: int, col: int) -> PreviewView:
    """Where ``slot``'s piece would go at ``(row, col)``: its cells, whether it fits,
    and when it does the cells it would clear and its points (``Game.preview``)."""
    if not 0 <= slot < len(game.tray):
        raise BridgeError(f"no tray slot {slot}; the slots are 0 to {len(game.tray) - 1}")
    piece = game.tray[slot]
    if piece is None:
        raise BridgeError(f"tray slot {slot} is empty")
    cells = [[row + r, col + c] for r, c in sorted(piece.cells)]
    if game.over or not game.can_place(slot, row, col):
        return PreviewView(slot=slot, row=row, col=col, fits=False, cells=cells, cleared=[],
                           lines=0, points=0, points_text="")
    result = game.preview(slot, row, col)
    glow = set(result.cleared_cells)
    for region in result.regions:
        glow |= set(region.cells)
    return PreviewView(slot=slot, row=row, col=col, fits=True, cells=cells,
                       cleared=_cells(glow), lines=result.lines, points=result.points,
                       points_text=rulewords.signed(result.points))


#: The page's one bridge (the worker's :func:`handle`).
_BRIDGE = Bridge()


def handle(request: str) -> str:
    """Answer one JSON request of the page (the worker calls this)."""
    return _BRIDGE.handle(request)


class StoneView(TypedDict):
    """A stone: ``text`` as the board text writes it (a digit, ``S``, ``J``), golden."""

    text: str
    golden: bool


class FallingView(ScreenView):
    """Everything the screen of a falling game (Sudoku Bloxx) shows."""

    board: list[list[StoneView | None]]
    current: dict[str, Any] | None
    landing_row: int | None
    upcoming: list[StoneView]
    errors: int
    errors_text: str



def _stone(stone: Stone) -> StoneView:
    return StoneView(text=stone.char, golden=stone.golden)


def falling_view(game: FallingGame) -> FallingView:
    """The screen of a falling game in the current language."""
    current = game.current
    falling = None if current is None else {"row": current.row, "col": current.col,
                                            "stone": _stone(current.stone)}
    limit = game.errors_allowed
    errors = i18n.format_number(game.errors) if limit is None else \
        f"{i18n.format_number(game.errors)}/{i18n.format_number(limit)}"
    summary: SummaryView | None = None
    if game.over:
        texts = [rulewords.over_words(game) or i18n._("Game over"),
                 i18n.ngettext("{n} point", "{n} points", game.score).format(
                     n=i18n.format_number(game.score)),
                 rulewords.area_count(game.mode, game.lines_cleared)]
        summary = SummaryView(score=game.score, texts=texts, failed_heading="", failed=[],
                              tip="")
    actions = [ActionView(name=a.name, label=rulewords.action_label(a.label, a.uses_left),
                          help=rulewords.engine_text(a.help), key=a.key or "",
                          target=a.target, uses_left=a.uses_left, rescue=a.rescue)
               for a in game.actions()]
    return FallingView(
        kind="falling", ruleset=game.ruleset.id, name=rulewords.game_title(game),
        seed=game.seed, version=__version__, rows=game.rows, cols=game.cols,
        shaded=_shaded(game),
        board=[[None if cell is None else _stone(cell) for cell in row] for row in game.board],
        current=falling,
        landing_row=None if current is None else game.landing_row(),
        upcoming=[_stone(stone) for stone in game.upcoming], score=game.score,
        errors=game.errors, errors_text=errors, time_left=game.time_left,
        clock_text="" if game.time_left is None else rulewords.clock(game.time_left),
        moves=game.moves, over=game.over, over_reason=game.over_reason,
        over_words=rulewords.over_words(game), actions=actions, summary=summary,
        words=words())


def any_view(game: TrayGame | FallingGame) -> GameView | FallingView:
    """The screen of ``game``, whichever kind it is."""
    return falling_view(game) if isinstance(game, FallingGame) else game_view(game)


def falling_answer(game: FallingGame, op: str, message: dict[str, Any]) -> FallingView:
    """Perform ``op`` (move, soft_drop, hard_drop, act) on a falling game."""
    if op in TRAY_OPS:
        raise BridgeError(f"{op} is for tray games; ruleset {game.ruleset.id!r} drops stones")
    if op == "move":
        dx = message.get("dx")
        if dx not in (-1, 1) or isinstance(dx, bool):
            raise BridgeError(f"'dx' must be -1 or 1, not {dx!r}")
        game.move(dx)
    elif op == "soft_drop":
        on = message.get("on")
        if not isinstance(on, bool):
            raise BridgeError(f"'on' must be true or false, not {on!r}")
        game.soft_drop(on)
    elif op == "hard_drop":
        game.hard_drop()
    else:  # act
        name = message.get("name")
        args = message.get("args", [])
        if not isinstance(name, str):
            raise BridgeError("act needs the action's 'name'")
        if not isinstance(args, list) or not all(type(a) is int for a in args):
            raise BridgeError("act's 'args' is a list of integers")
        game.act(name, *args)
    return falling_view(game)
