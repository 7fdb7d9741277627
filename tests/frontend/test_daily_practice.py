"""Records on the game-over screen: a second finished daily game of the same
date is practice, and a record shared between rulesets says so (real keys on
Xvfb)."""

from __future__ import annotations

import blockyard
from blockyard.frontend.summary_view import PRACTICE, SummaryView


def end_round(ui):
    ui.key("1", "Return", "e", "e")  # one move, then end the round (two-click confirmation)
    ui.pump(50)
    assert isinstance(ui.view, SummaryView)
    return ui.view


def test_the_second_daily_game_of_a_date_is_shown_as_practice(ui):
    first_game = ui.app.start_game("eu-daily")
    first = end_round(ui)
    texts = [t.text for t in first.texts]
    assert not first.summary.practice and PRACTICE not in texts
    assert f"Record: — → {first_game.score}" in texts
    ui.pump(40)  # Enter counts on the summary after a pause in Enter presses
    ui.key("Return")  # play again: the same date
    second = end_round(ui)
    assert second is not first and second.summary.practice
    texts = [t.text for t in second.texts]
    assert PRACTICE in texts and "NEW RECORD!" not in texts
    assert f"Record: {first_game.score} → {first_game.score}" in texts
    assert ui.app.records.played_today(first_game.ruleset) == first_game.score
    history = ui.app.records.history("eu-daily")
    assert [g.practice for g in history] == [True, False]
    assert all(g.replay is not None and g.replay.endswith(".json") for g in history)


def test_a_shared_record_says_whose_it_also_is(ui):
    """eu-hardcore's record is eu-classic's too (one records group in their rule
    files): the summary says so under the record, inside the window; eu-timed
    keeps its own and says nothing."""
    game = ui.app.start_game("eu-hardcore", seed=2)
    summary = end_round(ui)
    texts = [t.text for t in summary.texts]
    classic = blockyard.load_ruleset("eu-classic").name
    assert f"Record: — → {game.score}" in texts
    note = next(t for t in summary.texts
                if t.text == f"The best score is shared with {classic}.")
    assert note.left >= 0 and note.right <= ui.window.width
    ui.pump(40)
    ui.app.start_game("eu-timed", seed=2)
    texts = [t.text for t in end_round(ui).texts]
    assert not any("shared" in t for t in texts)


def test_a_game_from_a_chosen_start_is_practice_and_offers_no_submit(ui):
    import dataclasses

    from blockyard.frontend.summary_view import CHOSEN_START

    ui.app.start_game("eu-classic", seed=3, tray=["#", "##", "###"])
    summary = end_round(ui)
    texts = [t.text for t in summary.texts]
    assert summary.summary.practice and CHOSEN_START in texts and PRACTICE not in texts
    assert ui.app.records.best(summary.game.ruleset, None) is None  # never a record
    # signed in, the dealt game offers Submit and the chosen start does not
    signed_in = dataclasses.replace(ui.app.session(), submit_game=lambda game, back: None)
    assert not SummaryView(signed_in, summary.game, summary.summary).submit.visible
    dealt = blockyard.new_game("eu-classic", seed=3)
    dealt.end_round()
    assert SummaryView(signed_in, dealt, ui.app.records.record(dealt)).submit.visible
