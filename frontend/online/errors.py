"""What the window tells a player when something online fails: one translated
sentence per kind of failure (:data:`blockyard.online.ERROR_KINDS`), saying what
happened and what to do. Every online screen goes through :func:`online_error_text`;
none shows the server's own (English, technical) text, which goes to the log
(logger ``blockyard.online``) instead.
"""

from __future__ import annotations

import logging

from blockyard import accountrules, online
from blockyard.online import OnlineError
from blockyard.provenance import Mismatch

from ..i18n import N_, _, format_number

LOG = logging.getLogger("blockyard.online")

SENTENCES: dict[str, str] = {
    online.RESTARTING: N_("The server is restarting: connecting again…"),
    online.UNREACHABLE: N_("The server does not answer. Check its address in Settings → "
                           "Online and that it is running, then try again."),
    online.TIMEOUT: N_("The server took too long to answer. Try again in a moment."),
    online.NOT_BLOCKYARD: N_("This address is not a Blockyard server. Check the address in "
                             "Settings → Online."),
    online.TOO_OLD: N_("The server runs an older Blockyard that cannot do this. Ask the "
                       "person who runs it to update it."),
    online.WRONG_LOGIN: N_("Wrong account name or password. Check both, then sign in "
                           "again."),
    online.SIGNED_OUT: N_("You are not signed in (or the session has expired). Sign in "
                          "in Settings → Online."),
    online.NAME_TAKEN: N_("This account name is taken. Choose another one."),
    online.BAD_NAME: N_("The account name must be {least} to {most} letters, digits, _ "
                        "or -. Change it, then try again."),
    online.BAD_PASSWORD: N_("The password must be at least {least} characters long. "
                            "Choose a longer one."),
    online.RATE_LIMITED: N_("Too many attempts in a short time. Wait a minute, then try "
                            "again."),
    online.SEATS_HELD: N_("You sit at as many open tables as one player may. Finish or "
                          "leave one first."),
    online.TABLE_FULL: N_("This table is full. Watch it, choose another table or open a "
                          "new one."),
    online.PRIVATE_TABLE: N_("This table is private. Join it with its code or an "
                             "invitation."),
    online.WRONG_CODE: N_("No table has this code. Check it and try again."),
    online.NOT_FOUND: N_("This is no longer on the server (the table or game has "
                         "gone). Refresh the list."),
    online.NOT_SERVED: N_("The server does not offer these rules. Choose other rules, or ask "
                          "the person who runs it to add them."),
    online.GAME_REFUSED: N_("The server did not accept this game: its rules are not the "
                            "server's, or it is not finished."),
    online.SUBMITTED_ALREADY: N_("This game was submitted already. Its rank is on the "
                                 "leaderboard."),
    online.SERVER_ERROR: N_("The server ran into a problem. Try again later."),
    online.REFUSED: N_("The server refused this. Try again; if it happens again, tell "
                       "the person who runs the server."),
    online.BAD_ADDRESS: N_("This is not a server address. Type a host name or an IP "
                           "address, with :port when needed (192.168.1.5:8765)."),
    online.PLUGIN_DIFFERS: N_("The server plays these rules with other plugins than "
                              "yours. Install the versions it has to play them there."),
    online.RULES_DIFFER: N_("The server's rule file of these rules is not yours. Use the "
                            "server's to play them there."),
}
"""The sentence (untranslated) of each kind; ``{least}`` and ``{most}`` are the
numbers of :mod:`blockyard.accountrules`."""


def kind_text(kind: str) -> str:
    """The translated sentence of an :data:`~blockyard.online.ERROR_KINDS` entry
    (that of :data:`~blockyard.online.REFUSED` for an unknown one)."""
    sentence = SENTENCES.get(kind, SENTENCES[online.REFUSED])
    least = accountrules.PASSWORD_MIN if kind == online.BAD_PASSWORD else accountrules.NAME_MIN
    return _(sentence).format(least=format_number(least),
                              most=format_number(accountrules.NAME_MAX))


REFUSALS: dict[str, str] = {
    "spectator": N_("Only a player at the table can do that: you are watching."),
    "not-now": N_("Not now: wait for the round to start, or for every game to end."),
    "game-over": N_("Your game here is over: watch the others or ask for a rematch."),
    "illegal": N_("The server did not accept that move."),
    "clock": N_("Your clock fell behind the table's: the move was not accepted."),
    "conflict": N_("Another window of yours moved first at this table."),
    "signed-out": N_("You are not signed in (or the session has expired). Sign in in "
                     "Settings → Online."),
    "not-found": N_("This is no longer on the server (the table or game has gone). Refresh "
                    "the list."),
    "private": N_("This table is private. Join it with its code or an invitation."),
    "too-many": N_("Too many messages in a short time: wait a moment."),
    "seats-held": N_("You sit at as many open tables as one player may. Finish or leave "
                     "one first."),
    "malformed": N_("The server did not understand this window's message. Update "
                    "Blockyard."),
}
"""The sentence (untranslated) of each ``kind`` of a live table's ``refused``
message (:data:`blockyard.protocol.REFUSAL_KINDS`)."""


def refusal_text(kind: object, reason: object) -> str:
    """What to tell the player about a live table's refusal, in their language
    (the server's own ``reason`` is logged); a kind this window does not know is
    said as :data:`~blockyard.online.REFUSED`."""
    LOG.warning("online: refused by the table: %s (kind %s)", reason, kind)
    sentence = REFUSALS.get(kind) if isinstance(kind, str) else None
    return _(sentence) if sentence is not None else kind_text(online.REFUSED)


def mismatch_text(mismatch: Mismatch, game: bool) -> str:
    """A difference between the server's plugins or rules and those of a game
    (``game``) or of this installation, in the player's language: the plugin
    package with both versions and, when known, the names the rule files give
    its plugins (``Plugin: …``), or the rule key with both values (the words come
    from :func:`blockyard.provenance.mismatch`, never from the window)."""
    none = _("none")
    played = mismatch.played if mismatch.played is not None else none
    served = mismatch.served if mismatch.served is not None else none
    if mismatch.kind == "plugin":
        sentence = _("This game was played with {plugin} {played}; the server has "
                     "{served}.") if game else \
            _("You have {plugin} {played}; the server has {served}. Install the server's "
              "version to play these rules there.")
        said = sentence.format(plugin=mismatch.name, played=played, served=served)
        if mismatch.plugins:
            said += " " + _("Plugin: {plugin}").format(plugin=", ".join(mismatch.plugins))
        return said
    if not mismatch.name:
        return kind_text(online.RULES_DIFFER)
    sentence = _("This game was played with {key} = {played}; the server's rules have "
                 "{served}.") if game else \
        _("Your rules have {key} = {played}; the server's have {served}. Use the "
          "server's rule file to play them there.")
    return sentence.format(key=mismatch.name, played=played, served=served)


def online_error_text(error: OnlineError) -> str:
    """What to tell the player about ``error``, in their language; its technical
    detail is logged. A difference of plugins or rules names it
    (:func:`mismatch_text`)."""
    LOG.warning("online: %s (kind %s, status %s)", error.message, error.kind, error.status)
    if error.mismatch is not None:
        return mismatch_text(error.mismatch, error.game)
    return kind_text(error.kind)


__all__ = ["REFUSALS", "SENTENCES", "kind_text", "mismatch_text", "online_error_text",
           "refusal_text"]
