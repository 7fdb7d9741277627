"""Ratings in the player's language: a seat's rating (provisional ones marked), a
rating change with its sign, a table rated or friendly. Every number is the
server's (:class:`~blockyard.online.PlayerRating`, :class:`~blockyard.online.RatingChange`)."""

from __future__ import annotations

from blockyard.online import PlayerRating, RatingChange

from ..i18n import _, format_number, format_tenths


def rating_text(rating: PlayerRating) -> str:
    """The rating shown (``mu − 3 sigma``, one decimal), marked while provisional."""
    shown = format_tenths(rating.rating)
    # a provisional rating (fewer than 10 rated rounds behind it): short, beside a name
    return _("{rating}?").format(rating=shown) if rating.provisional else shown


def named_rating(name: str, rating: PlayerRating | None) -> str:
    """A player's name with their rating beside it (the name alone without one)."""
    if rating is None:
        return name
    return _("{name} ({rating})").format(name=name, rating=rating_text(rating))


def change_text(change: RatingChange) -> str:
    """A rating change with its sign and the rating after it: ``+1.2 → 3.4``."""
    after = format_tenths(change.after)
    if change.provisional:
        after = _("{rating}?").format(rating=after)
    return _("{change} → {rating}").format(change=format_tenths(change.change, sign=True),
                                           rating=after)


def table_kind(rated: bool) -> str:
    """A table's kind as the lobby lists it."""
    return _("rated") if rated else _("friendly")


def provisional_note(games: int) -> str:
    """The line that says what the mark means (``games``: the server's count of
    rated rounds below which a rating is provisional)."""
    return _("?: provisional, fewer than {n} rated rounds").format(n=format_number(games))


__all__ = ["change_text", "named_rating", "provisional_note", "rating_text", "table_kind"]
