"""`blockyard simulate` says what is wrong before playing: --plot without
matplotlib, a parameter the bot does not take, --games 0; it uses the machine's
cores unless told otherwise, and its hints fit how Blockyard was installed."""

from __future__ import annotations

import os
import sys

import pytest

from blockyard import cli, lab


@pytest.fixture
def played(monkeypatch):
    """lab.simulate replaced by a recorder: what it was asked to play."""
    calls = []

    def fake(ruleset, **options):
        calls.append((ruleset, options))
        raise SystemExit("not reached in these tests")

    monkeypatch.setattr(lab, "simulate", fake)
    return calls


def test_plot_without_matplotlib_fails_before_any_game(monkeypatch, capsys, played):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib fails
    assert cli.main(["simulate", "eu-classic", "--plot", "out.png", "--quiet"]) == 2
    assert played == []
    assert capsys.readouterr().err == ("blockyard simulate: --plot needs matplotlib: "
                                       "pip install 'blockyard[lab]'\n")


def test_the_hint_for_a_pipx_install_is_pipx_inject(monkeypatch, capsys, played):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setattr(sys, "prefix", "/home/ann/.local/share/pipx/venvs/blockyard")
    assert cli.main(["simulate", "eu-classic", "--plot", "out.png"]) == 2
    assert capsys.readouterr().err == ("blockyard simulate: --plot needs matplotlib: "
                                       "pipx inject blockyard matplotlib\n")


def test_a_parameter_the_bot_does_not_take_names_the_ones_it_does(capsys, played):
    assert cli.main(["simulate", "eu-classic", "--bot-param", "bem=3"]) == 2
    assert capsys.readouterr().err == ("blockyard simulate: the bot 'greedy' has no "
                                       "parameter 'bem'; its parameters: seed, continues\n")
    assert cli.main(["simulate", "eu-classic", "--bot", "search", "--bot-param",
                     "bem=3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockyard simulate: the bot 'search' has no parameter 'bem'; "
                          "its parameters: ") and "beam" in err
    assert played == []


def test_games_0_says_simulate_once(capsys):
    assert cli.main(["simulate", "eu-classic", "--games", "0", "--quiet"]) == 2
    assert capsys.readouterr().err == ("blockyard simulate: games: expected a whole number "
                                       ">= 1, found 0\n")


def test_the_default_workers_are_the_machines_cores(played, capsys):
    with pytest.raises(SystemExit):
        cli.main(["simulate", "eu-classic", "--quiet"])
    assert played[0][1]["workers"] == max(1, os.cpu_count() or 1)
    with pytest.raises(SystemExit):
        cli.main(["simulate", "eu-classic", "--quiet", "--workers", "1"])
    assert played[1][1]["workers"] == 1


def test_help_says_the_default_workers(capsys):
    with pytest.raises(SystemExit):
        cli.main(["simulate", "--help"])
    assert "default: the machine's cores" in " ".join(capsys.readouterr().out.split())


def test_the_dealt_sets_line_only_for_games_that_deal_sets():
    falling = lab.simulate("sudoku-bloxx", games=1, max_moves=10).text()
    tray = lab.simulate("eu-classic", games=1, max_moves=10).text()
    assert "dealt sets" not in falling
    assert "dealt sets with no fitting piece" in tray
