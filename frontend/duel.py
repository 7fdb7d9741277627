"""Hot-seat duels for every ruleset (docs/rules.md §7.6): two players, the same seed, one
after the other on this machine; then a result table from which each player can
watch the other's game, start a new duel or leave.

A duel's games are not recorded in the ruleset's records and statistics (games,
best, average, lines, combo, play time): they are two people's games under one
player's records, the second played knowing the first's score, so they would
count every duel twice and could set a record that is not the player's own. The
duel's result table is their record; each game's replay is kept as any other."""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import blockyard
from blockyard import rng

from .i18n import _, format_number, language
from .menus import MenuView, PromptView
from .persistence import SavedGame, SaveError, save_game, save_key
from .rulewords import ruleset_name

if TYPE_CHECKING:
    import arcade

    from .persistence import Settings


class DuelHost(Protocol):
    """What a duel uses of the app: the window, the settings (the names last
    typed), the games in progress, the duel being played, and the ways to start,
    resume, forget and watch games or go back to the launcher."""

    window: arcade.Window
    settings: Settings
    saves: dict[str, SavedGame]
    duel: Duel | None

    def show_launcher(self) -> None: ...
    def forget(self, saved: SavedGame) -> None: ...
    def resume(self, saved: SavedGame | blockyard.Game, *, hand_over: bool = True) -> None: ...
    def start_game(self, ruleset: str | blockyard.Ruleset, seed: int | None = None, *,
                   replace_saved: bool = True, challenge: int | None = None,
                   tray: list[str | None] | None = None) -> blockyard.Game: ...
    def tell_save_error(self, exc: SaveError) -> None: ...
    def watch_replay(self, replay: Any, back: Callable[[], None] | None = None,
                     title: str = "") -> str | None: ...


@dataclass
class DuelResult:
    name: str
    score: int
    lines: int
    moves: int
    over_reason: str | None
    replay: Path | None


@dataclass
class Duel:
    """A duel in progress: both players get ``seed``."""

    ruleset_id: str
    seed: int
    names: list[str]
    results: list[DuelResult] = field(default_factory=list)

    @property
    def player(self) -> str:
        """Whose turn it is."""
        return self.names[len(self.results)]

    @property
    def finished(self) -> bool:
        return len(self.results) == len(self.names)

    def data(self) -> dict[str, Any]:
        """The duel as JSON-safe data, saved with each turn's game in progress."""
        return {"ruleset_id": self.ruleset_id, "seed": self.seed, "names": list(self.names),
                "results": [{**asdict(r), "replay": str(r.replay)} for r in self.results]}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Duel:
        """The duel saved by :meth:`data` (``ValueError`` when it is not one)."""
        try:
            results = [DuelResult(str(r["name"]), int(r["score"]), int(r["lines"]),
                                  int(r["moves"]), r.get("over_reason"), Path(r["replay"]))
                       for r in data.get("results", [])]
            duel = cls(str(data["ruleset_id"]), int(data["seed"]),
                       [str(n) for n in data["names"]], results)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not a saved duel ({exc})") from None
        if len(duel.names) != 2 or len(results) >= len(duel.names):
            raise ValueError("not a saved duel (players and results do not match)")
        return duel


def duel_turn_text(duel: Duel) -> str:
    """What a game screen's HUD says during a duel: whose turn it is and, for the
    second player, the score of the first to beat."""
    text = _("{name}'s turn").format(name=duel.player)
    if duel.results:
        text += "  ·  " + _("To beat {points}").format(
            points=format_number(max(r.score for r in duel.results)))
    return text


def setup(app: DuelHost, ruleset_id: str) -> None:
    """Ask for the two names, then start the duel."""
    ruleset = blockyard.load_ruleset(ruleset_id)
    names = app.settings.options.get("duel names", "").split("|")
    if len(names) < 2:
        names = [_("Player 1"), _("Player 2")]

    def done(values: list[str]) -> str | None:
        cleaned = [v.strip() for v in values]
        if not all(cleaned):
            return _("Both players need a name.")
        if cleaned[0] == cleaned[1]:
            return _("The two names must differ.")
        app.settings.options["duel names"] = "|".join(cleaned)
        app.settings.save()
        start(app, ruleset_id, cleaned)
        return None

    app.window.show_view(PromptView(_("Duel: {name}").format(name=ruleset_name(ruleset)),
                                    [(_("Player 1"), names[0]), (_("Player 2"), names[-1])],
                                    done, app.show_launcher,
                                    hint=_("Both play the same pieces, one after the other. "
                                           "Tab: next name, Enter: go on")))


def start(app: DuelHost, ruleset_id: str, names: list[str]) -> None:
    app.duel = Duel(ruleset_id, rng.random_seed(), names)
    show_turn(app)


def duel_note(ruleset: blockyard.Ruleset, width: int = 62) -> list[str]:
    """The rule file's note for duels (``[help] duel``: tiered sets are equal only
    while the players' score tiers are) in the current language, as lines of at most
    ``width`` characters."""
    return textwrap.wrap(ruleset.help.text_in("duel", language()), width)


def next_turn(app: DuelHost) -> SavedGame:
    """The next player's game of a duel with a result already, saved at once with the
    duel (so closing the window on the hand-over screen loses nothing: the launcher
    offers to resume the duel there). The one saved before is taken when there is one."""
    duel = app.duel
    assert duel is not None and duel.results
    key = save_key(duel.ruleset_id, duel_turn=len(duel.results), seed=duel.seed)
    saved = app.saves.get(key)
    if saved is not None and saved.game.moves == 0 and saved.duel == duel.data():
        return saved
    game = blockyard.new_game(duel.ruleset_id, seed=duel.seed)
    saved = SavedGame(key, game, None, duel.data(), time.time())
    app.saves[key] = saved
    try:
        save_game(saved)
    except SaveError as exc:
        app.tell_save_error(exc)
    return saved


def show_turn(app: DuelHost) -> None:
    """Whose turn it is: the first player's, or the hand-over to the second with the
    first one's score (that turn's game is saved already: :func:`next_turn`)."""
    duel = app.duel
    assert duel is not None
    ruleset = blockyard.load_ruleset(duel.ruleset_id)
    lines = [ruleset_name(ruleset), *duel_note(ruleset)]
    pending = next_turn(app) if duel.results else None
    if duel.results:
        last = duel.results[-1]
        lines.append(_("{name} scored {points}.").format(name=last.name,
                                                         points=format_number(last.score)))
        lines.append(_("Now {name} plays the same pieces.").format(name=duel.player))
    else:
        lines.append(_("{name} plays first; hand over when the game is over.").format(
            name=duel.player))

    def begin() -> None:
        if pending is not None:
            app.resume(pending, hand_over=False)
        else:
            app.start_game(duel.ruleset_id, duel.seed)

    app.window.show_view(MenuView(
        _("{name}'s turn").format(name=duel.player), lines,
        [(_("Start — {name}").format(name=duel.player), begin),
         (_("Leave the duel"), leave(app, pending))], leave(app, pending)))


def leave(app: DuelHost, pending: SavedGame | None = None) -> Callable[[], None]:
    """Leave the duel; the next player's game, saved but never played, goes with it."""
    def go() -> None:
        if pending is not None:
            app.forget(pending)
        app.duel = None
        app.show_launcher()
    return go


def record_result(app: DuelHost, game: blockyard.Game, replay: Path | None) -> None:
    duel = app.duel
    assert duel is not None
    duel.results.append(DuelResult(duel.player, game.score, game.lines_cleared, game.moves,
                                   game.over_reason, replay))
    if duel.finished:
        show_result(app)
    else:
        show_turn(app)


def show_result(app: DuelHost) -> None:
    duel = app.duel
    assert duel is not None
    ruleset = blockyard.load_ruleset(duel.ruleset_id)
    ranked = sorted(duel.results, key=lambda r: -r.score)
    if len(ranked) > 1 and ranked[0].score == ranked[1].score:
        verdict = _("A draw!")
    else:
        verdict = _("{name} wins!").format(name=ranked[0].name)
    lines = [ruleset_name(ruleset), verdict, *duel_note(ruleset), ""]
    lines += [_("{name}:  {points} points  ·  {lines} lines  ·  {moves} moves").format(
                  name=r.name, points=format_number(r.score), lines=format_number(r.lines),
                  moves=format_number(r.moves))
              for r in duel.results]

    def watch(result: DuelResult) -> Callable[[], None]:
        def go() -> None:
            if result.replay is None:
                return
            app.watch_replay(result.replay, back=lambda: show_result(app),
                             title=_("{name}'s game").format(name=result.name))

        return go

    choices = [(_("Watch {name}'s game").format(name=r.name), watch(r)) for r in duel.results
               if r.replay is not None]  # a replay that could not be saved (a full disk)
    choices.append((_("New duel"), lambda: start(app, duel.ruleset_id, duel.names)))
    choices.append((_("Leave"), leave(app)))
    app.window.show_view(MenuView(_("Duel result"), lines, choices, leave(app)))
