"""Hot-seat duels for every ruleset (docs/rules.md §7.6): two players, the same seed, one
after the other on this machine; then a result table from which each player can
watch the other's game, start a new duel or leave."""

from __future__ import annotations

import textwrap
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import blockyard
from blockyard import rng

from .menus import MenuView, PromptView

if TYPE_CHECKING:
    from .app import BlockyardApp


@dataclass
class DuelResult:
    name: str
    score: int
    lines: int
    moves: int
    over_reason: str | None
    replay: Path


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


def setup(app: BlockyardApp, ruleset_id: str) -> None:
    """Ask for the two names, then start the duel."""
    ruleset = blockyard.load_ruleset(ruleset_id)
    names = app.settings.options.get("duel names", "Player 1|Player 2").split("|")

    def done(values: list[str]) -> str | None:
        cleaned = [v.strip() for v in values]
        if not all(cleaned):
            return "Both players need a name."
        if cleaned[0] == cleaned[1]:
            return "The two names must differ."
        app.settings.options["duel names"] = "|".join(cleaned)
        app.settings.save()
        start(app, ruleset_id, cleaned)
        return None

    app.window.show_view(PromptView(app, f"Duel: {ruleset.name}",
                                    [("Player 1", names[0]), ("Player 2", names[-1])],
                                    done, app.show_launcher,
                                    hint="Both play the same pieces, one after the other. "
                                         "Tab: next name, Enter: go on"))


def start(app: BlockyardApp, ruleset_id: str, names: list[str]) -> None:
    app.duel = Duel(ruleset_id, rng.random_seed(), names)
    show_turn(app)


def duel_note(ruleset: blockyard.Ruleset, width: int = 62) -> list[str]:
    """The rule file's note for duels (``[help] duel``: tiered sets are equal only
    while the players' score tiers are), as lines of at most ``width`` characters."""
    return textwrap.wrap(ruleset.help.get("duel"), width)


def show_turn(app: BlockyardApp) -> None:
    duel = app.duel
    assert duel is not None
    ruleset = blockyard.load_ruleset(duel.ruleset_id)
    lines = [ruleset.name, *duel_note(ruleset)]
    if duel.results:
        last = duel.results[-1]
        lines.append(f"{last.name} scored {last.score}.")
        lines.append(f"Now {duel.player} plays the same pieces.")
    else:
        lines.append(f"{duel.player} plays first; hand over when the game is over.")
    app.window.show_view(MenuView(
        app, f"{duel.player}'s turn", lines,
        [(f"Start — {duel.player}", lambda: app.start_game(duel.ruleset_id, duel.seed)),
         ("Leave the duel", leave(app))], leave(app)))


def leave(app: BlockyardApp):
    def go() -> None:
        app.duel = None
        app.show_launcher()
    return go


def record_result(app: BlockyardApp, game: blockyard.Game, replay: Path) -> None:
    duel = app.duel
    assert duel is not None
    duel.results.append(DuelResult(duel.player, game.score, game.lines_cleared, game.moves,
                                   game.over_reason, replay))
    if duel.finished:
        show_result(app)
    else:
        show_turn(app)


def show_result(app: BlockyardApp) -> None:
    duel = app.duel
    assert duel is not None
    ruleset = blockyard.load_ruleset(duel.ruleset_id)
    ranked = sorted(duel.results, key=lambda r: -r.score)
    if len(ranked) > 1 and ranked[0].score == ranked[1].score:
        verdict = "A draw!"
    else:
        verdict = f"{ranked[0].name} wins!"
    lines = [ruleset.name, verdict, *duel_note(ruleset), ""]
    lines += [f"{r.name}:  {r.score} points  ·  {r.lines} lines  ·  {r.moves} moves"
              for r in duel.results]

    def watch(result: DuelResult):
        return lambda: app.watch_replay(result.replay, back=lambda: show_result(app),
                                        title=f"{result.name}'s game")

    choices = [(f"Watch {r.name}'s game", watch(r)) for r in duel.results]
    choices.append(("New duel", lambda: start(app, duel.ruleset_id, duel.names)))
    choices.append(("Leave", leave(app)))
    app.window.show_view(MenuView(app, "Duel result", lines, choices, leave(app)))
