"""Player words and numbers read from the rules, never written into a view.

Why a game ended, the labels of actions with their uses left, what the game's
mode calls the areas a move completes (``Mode.area_words``), and the numbers a
falling game shows (points for a discard, errors allowed) come from the game and
its ruleset: the ``[display]`` table (``texts``), the actions plugins contribute
(``label``, ``help``, ``uses_left``) and the game's own answers
(``FallingGame.errors_allowed``, ``FallingGame.discard_points()``), never from
the rule file's plugin parameters.

In the player's language: the rule file's ``[display.i18n.<language>]`` texts
(:func:`display`, :func:`ruleset_name`), and the bundled plugins' own English
words (action labels and help, tips) through the frontend's catalogue
(:func:`engine_text`); a third-party plugin's words are shown as it gives them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

import blockyard
from blockyard.display import Display
from blockyard.modes import Mode

from .i18n import N_, Nn_, _, format_date, format_number, language, localise_digits, ngettext

OVER_WORDS = {"stuck": N_("No piece fits"), "time": N_("Time is up"),
              "ended": N_("Round ended"), "complete": N_("Board complete!")}

#: The words of the core and the bundled plugins (action labels and help, default
#: tips), so that :func:`engine_text` finds them in the catalogue.
ENGINE_TEXTS = (
    N_("End round"), N_("End the game now and count the score."),
    N_("Swap"), N_("Discard the three pieces in the tray and get a new set."),
    N_("Rotate"), N_("Turn a piece in the tray a quarter turn clockwise."),
    N_("Continue"), N_("New pieces"), N_("When nothing fits, the tray is refilled by itself."),
    N_("A swap was still available: a swap deals three new pieces."),
    N_("Keep a 3×3 corner free for the big pieces."),
    N_("Avoid one-cell holes: no piece but the single block fills them."),
    N_("Clear lines early and keep the middle open."),
)


#: The bundled modes' words for what a move completes (``Mode.area_words``), so
#: that :func:`engine_text` and :func:`area_count` find them in the catalogue.
MODE_TEXTS = (
    N_("Lines"), N_("Areas"),
    Nn_("{n} line cleared", "{n} lines cleared"),
    Nn_("{n} area completed", "{n} areas completed"),
)


def area_count(mode: Mode, n: int) -> str:
    """How many areas a game completed, in the words of its mode
    (:attr:`Mode.area_words <blockyard.modes.Mode.area_words>`), in the player's
    language when the catalogue has them: "3 lines cleared"."""
    words = mode.area_words
    return ngettext(words.one, words.many, n).format(n=format_number(n))


def shaded_cells(ruleset: blockyard.Ruleset) -> frozenset[tuple[int, int]]:
    """The empty cells shown shaded: every other region of kind ``block`` (woodoku's
    3×3 blocks, Sudoku Bloxx's), so the blocks that clear can be seen; none on a
    board without blocks. The window's board and the web page's read the same."""
    shaded: set[tuple[int, int]] = set()
    for region in ruleset.regions:
        if region.kind != "block" or not region.cells:
            continue
        top = min(r for r, _ in region.cells)
        left = min(c for _, c in region.cells)
        height = max(r for r, _ in region.cells) - top + 1
        width = max(c for _, c in region.cells) - left + 1
        if (top // height + left // width) % 2:
            shaded.update(region.cells)
    return frozenset(shaded)


def engine_text(text: str) -> str:
    """A word of the engine or a plugin in the player's language, when the catalogue
    has it (the bundled plugins' words); otherwise as given."""
    return _(text) if text else text


def display(ruleset: blockyard.Ruleset) -> Display:
    """The ruleset's ``[display]`` hints with its texts in the player's language."""
    return ruleset.display.in_language(language())


def best_combo_text(shown: Display, factor: int) -> str:
    """A game's or a ruleset's best combo as the summary and the statistics say it:
    the factor alone ("×3"), or "—" when no move made a combo the ruleset shows
    (below its ``combo_from``: a single clearing move is no combo; a ruleset with
    no combo words has none)."""
    if not shown.combo_text(factor):
        return "—"
    return _("×{n}").format(n=format_number(factor))


def ruleset_name(ruleset: blockyard.Ruleset) -> str:
    """The ruleset's name in the player's language (its own name when not translated)."""
    return ruleset.name_in(language())


def best_shared_with(ruleset: blockyard.Ruleset,
                     installed: Iterable[blockyard.Ruleset] | None = None) -> list[str]:
    """The names of the other rulesets whose best score is also ``ruleset``'s: those
    of ``installed`` (default: every ruleset installed) that keep a best score in
    the same records group of their rule files (eu-hardcore shares eu-classic's)."""
    if ruleset.record_kind != "best":
        return []
    if installed is None:
        installed = []
        for info in blockyard.list_rulesets():
            if info.error is not None:
                continue
            try:
                installed.append(blockyard.load_ruleset(info.path))
            except Exception:  # nothing a plugin does may stop a page; it shares nothing
                continue
    return [ruleset_name(other) for other in installed
            if other.id != ruleset.id and other.record_kind == "best"
            and other.record_group == ruleset.record_group]


def ruleset_description(ruleset: blockyard.Ruleset) -> str:
    """The ruleset's description in the player's language."""
    return ruleset.description_in(language())


def signed(points: int) -> str:
    """Points with their sign, a true minus for negatives (``−100``, ``+10``), in the
    language's digits and separators."""
    return f"−{format_number(-points)}" if points < 0 else f"+{format_number(points)}"


def over_words(game: blockyard.Game, reason: str | None = None) -> str:
    """Why the game ended, in the player's words (the rule file's
    ``[display.texts]`` first)."""
    reason = reason if reason is not None else game.over_reason
    if reason is None:
        return ""
    own = display(game.ruleset).text(reason)
    if own:
        return own
    if reason == "errors":
        limit = game.ruleset.errors_allowed
        if limit is None:
            return _("Too many errors")
        return ngettext("{n} error", "{n} errors", limit).format(n=format_number(limit))
    return _(OVER_WORDS[reason]) if reason in OVER_WORDS else _("Game over")


def action_label(label: str, uses_left: int | None) -> str:
    """A button label (translated when it is a bundled plugin's) with the uses left:
    ``Swap (2)``."""
    label = engine_text(label)
    return label if uses_left is None else f"{label} ({format_number(uses_left)})"


def key_name(key: str | None) -> str:
    """A key as printed on a keyboard (``s`` → ``S``), or ``""``."""
    return key.upper() if key else ""


def clock(seconds_left: float) -> str:
    """A clock's time left as ``m:ss``, in the language's digits."""
    left = int(seconds_left)
    return localise_digits(f"{left // 60}:{left % 60:02d}")


def play_time(seconds: float) -> str:
    """Time played as ``h:mm:ss`` (``m:ss`` under an hour), in the language's digits."""
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    if hours:
        return localise_digits(f"{hours}:{rest // 60:02d}:{rest % 60:02d}")
    return localise_digits(f"{rest // 60}:{rest % 60:02d}")


def game_title(game: blockyard.Game) -> str:
    """The ruleset's name, with the date of a daily game written in the language
    (``Nepal Blocks — Today's Game · 30 Nov 2026``)."""
    name = ruleset_name(game.ruleset)
    if not game.date:
        return name
    try:
        day = dt.date.fromisoformat(str(game.date))
    except ValueError:
        return name
    return f"{name}  ·  {format_date(day)}"


def today_text(ruleset: blockyard.Ruleset, now: dt.datetime | None = None) -> str:
    """Today's date where the daily ruleset's day is counted (its time zone) at the
    moment ``now`` (the system clock's when ``None``), written in the language; ""
    for a ruleset that is not daily."""
    if not ruleset.is_daily:
        return ""
    from blockyard.game import today_in

    return format_date(today_in(ruleset.timezone, now))
