"""The command line: ``blockyard list`` and ``blockyard show``."""

from __future__ import annotations

import subprocess
import sys

import blockyard
from blockyard.cli import main


def test_list_shows_every_ruleset_grouped_by_family_with_its_source(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "eu:" in out
    for rid in ("eu-classic", "eu-hardcore", "eu-daily", "eu-zen", "eu-timed"):
        assert rid in out
    assert "[bundled:" in out


def test_show_prints_the_resolved_rule_file(capsys):
    assert main(["show", "eu-hardcore"]) == 0
    out = capsys.readouterr().out
    assert out == blockyard.load_ruleset("eu-hardcore").to_toml()
    assert "extends" not in out and 'id = "eu-hardcore"' in out and "[pieces.big-T]" in out


def test_show_reports_a_bad_ruleset_on_stderr_with_status_2(capsys, rule_file):
    path = rule_file('[ruleset]\nid = "x"\n[board]\nrows = "a"\n')
    assert main(["show", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "ruleset.name" in err


def test_python_m_blockyard_runs_the_cli():
    done = subprocess.run([sys.executable, "-m", "blockyard", "show", "eu-classic"],
                          capture_output=True, text=True, check=True)
    assert done.stdout.startswith("[ruleset]\nid = \"eu-classic\"")
