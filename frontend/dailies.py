"""What the window says of a daily ruleset besides its game: the player's rank
of N on the server's leaderboard with its top percentage, the streak of days
played (from the window's own records) and the countdown to the next daily
game, at midnight in the rule file's time zone (``[ruleset] timezone``, the
engine's :func:`blockyard.game.next_daily`) on the clock the window is given.

The view decides none of these numbers: the rank and the count come from the
server, the days played from the records, the next game's moment from the
engine's date rule.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import TYPE_CHECKING, Any

from blockyard.game import next_daily, today_in

from .i18n import _, format_number, localise_digits, ngettext

if TYPE_CHECKING:
    from blockyard.records import RecordStore


def seconds_to_next(ruleset: Any, now: dt.datetime) -> int:
    """Whole seconds from ``now`` until the next daily game of ``ruleset`` (its
    time zone's next midnight), rounded up: 0 only at that moment."""
    left = (next_daily(ruleset.timezone, now) - now).total_seconds()
    return max(0, math.ceil(left))


def countdown(ruleset: Any, now: dt.datetime) -> str:
    """"Next daily game in h:mm:ss" for a daily ruleset ("" for another)."""
    if not ruleset.is_daily:
        return ""
    left = seconds_to_next(ruleset, now)
    hours, rest = divmod(left, 3600)
    time = localise_digits(f"{hours}:{rest // 60:02d}:{rest % 60:02d}")
    return _("Next daily game in {time}").format(time=time)


def streak(records: RecordStore, ruleset: Any, now: dt.datetime) -> int:
    """The days in a row the player has played ``ruleset`` up to today in its time
    zone (0 for a ruleset that is not daily)."""
    if not ruleset.is_daily:
        return 0
    return records.day_streak(ruleset, today_in(ruleset.timezone, now))


def streak_text(days: int) -> str:
    """"Streak: 3 days in a row"."""
    return ngettext("Streak: {n} day in a row", "Streak: {n} days in a row", days).format(
        n=format_number(days))


def top_percent(rank: int, total: int) -> int:
    """The top percentage a rank is in: ``rank`` of ``total`` players, rounded
    up to a whole percent (rank 1 of 200 is the top 1 %, rank 3 of 17 the top
    18 %)."""
    if not 1 <= rank <= total:
        raise ValueError(f"rank: expected 1 to {total}, got {rank}")
    return max(1, math.ceil(100 * rank / total))


def rank_text(rank: int, total: int | None) -> str:
    """"Your rank: 3 of 17 (top 18%)", or "Your rank: 3" when the server did not
    say how many players there are."""
    if total is None or not 1 <= rank <= total:
        return _("Your rank: {rank}").format(rank=format_number(rank))
    return _("Your rank: {rank} of {total} (top {percent}%)").format(
        rank=format_number(rank), total=format_number(total),
        percent=format_number(top_percent(rank, total)))


def short_rank_text(rank: int, total: int | None) -> str:
    """The launcher row's "rank 3 of 17" ("rank 3" without a count)."""
    if total is None or not 1 <= rank <= total:
        return _("rank {rank}").format(rank=format_number(rank))
    return _("rank {rank} of {total}").format(rank=format_number(rank),
                                              total=format_number(total))


__all__ = ["countdown", "rank_text", "seconds_to_next", "short_rank_text", "streak",
           "streak_text", "top_percent"]
