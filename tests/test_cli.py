"""The command line: ``blockyard list`` and ``blockyard show``."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from rule_texts import TRAY_LOOKS

import blockyard
from blockyard.cli import main


def test_list_shows_every_ruleset_grouped_by_family_with_its_source(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "eu:" in out
    for rid in ("eu-classic", "eu-hardcore", "eu-daily", "eu-zen", "eu-timed"):
        assert rid in out
    assert "[bundled:" in out


def test_list_json_is_one_document_of_every_ruleset(capsys):
    import json

    assert main(["list", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    listed = {entry["id"]: entry for entry in document["rulesets"]}
    found = {info.id for info in blockyard.list_rulesets()}
    assert set(listed) == found and {"eu-classic", "sudoku-bloxx"} <= found
    classic = listed["eu-classic"]
    assert (classic["family"], classic["source"], classic["error"]) == ("eu", "bundled", None)
    assert classic["name"] == blockyard.load_ruleset("eu-classic").name
    assert document["disabled_packages"] == []
    assert document["user_rulesets_dir"]


def test_plugins_json_names_packages_parameters_and_hooks(capsys, register_plugin):
    import json

    register_plugin("wrapping", _Wrapping)
    assert main(["plugins", "--json"]) == 0
    plugins = {p["name"]: p for p in json.loads(capsys.readouterr().out)["plugins"]}
    assert (plugins["line-clearing"]["package"], plugins["line-clearing"]["version"]) == (
        "blockyard", blockyard.__version__)
    wrapping = plugins["wrapping"]
    assert wrapping["parameters"] == []
    hooks = {hook["name"]: hook for hook in wrapping["hooks"]}
    assert hooks["blockyard_clear"]["wrapper"] and not hooks["blockyard_invariants"]["wrapper"]
    assert hooks["blockyard_invariants"]["answers"].startswith("a list of at most 32 strings")


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


def test_without_a_display_the_window_command_says_what_is_missing(isolated_home):
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run([sys.executable, "-m", "blockyard"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert "cannot open the game window" in done.stdout and "headless API" in done.stdout


def test_play_an_unknown_ruleset_fails_before_opening_a_window():
    done = subprocess.run([sys.executable, "-m", "blockyard", "play", "eu-clasic"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "unknown ruleset 'eu-clasic'" in done.stdout
    done = subprocess.run([sys.executable, "-m", "blockyard", "play"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "give a RULESET or --challenge CODE" in done.stderr


def test_version_prints_blockyards_version(capsys):
    import importlib.metadata

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"blockyard {blockyard.__version__}\n"
    assert blockyard.__version__ == importlib.metadata.version("blockyard")


COMPLETE = r"""
source <(blockyard completion bash)
complete_line() {
    COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
    read -ra COMP_WORDS <<< "$1"
    [[ "$1" == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _python_argcomplete blockyard
    echo "${COMPREPLY[*]}"
}
"""


def test_bash_completes_commands_options_ruleset_ids_and_rule_files(tmp_path):
    """Issue 25, item 19: ``blockyard completion bash`` is shell code that, sourced
    in a real bash, completes subcommands, a subcommand's options, installed ruleset
    ids and rule files, by running the installed command."""
    (tmp_path / "my-rules.toml").write_text("", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    lines = ["blockyard pl", "blockyard play eu-c", "blockyard simulate --wo",
             "blockyard show ./my", "blockyard completion ", "blockyard check tier"]
    script = COMPLETE + "".join(f"complete_line {line!r}\n" for line in lines)
    env = {**os.environ, "PATH": f"{os.path.dirname(sys.executable)}{os.pathsep}"
                                 f"{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    from blockyard.discovery import list_rulesets

    tiered = " ".join(sorted(i.id for i in list_rulesets() if i.id.startswith("tier")))
    assert tiered.startswith("tiered ")  # more than one: listed, not completed
    assert [line.strip() for line in done.stdout.splitlines()] == [
        "plugins play", "eu-classic", "--workers --worker-timeout", "./my-rules.toml",
        "-h --help bash zsh fish", tiered]


def test_completion_code_for_each_shell_and_a_clear_refusal(capsys):
    from blockyard.completion import shell_code

    for shell in ("bash", "zsh", "fish"):
        assert main(["completion", shell]) == 0
        assert "blockyard" in capsys.readouterr().out
    with pytest.raises(SystemExit) as done:
        main(["completion", "tcsh"])
    assert done.value.code == 2
    err = capsys.readouterr().err  # (argparse quotes the choices from Python 3.12.8 on)
    assert "argument shell: invalid choice: 'tcsh' (choose from " in err
    assert all(shell in err.splitlines()[-1] for shell in ("bash", "zsh", "fish"))
    with pytest.raises(ValueError, match="no completion for the shell 'csh': choose one of "
                                         "bash, zsh, fish"):
        shell_code("csh")


class _Wrapping:
    """A plugin wrapping two hooks (new and old style) and answering one plainly."""

    def __init__(self, params):
        pass

    @blockyard.hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        return (yield)

    @blockyard.hookimpl(hookwrapper=True)
    def blockyard_clear(self, game, board, placed, piece, row, col):
        yield

    @blockyard.hookimpl
    def blockyard_invariants(self, game):
        return []


def test_plugins_shows_package_versions_and_marks_wrappers(capsys, register_plugin):
    register_plugin("wrapping", _Wrapping)
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert f"line-clearing  [blockyard {blockyard.__version__}]\n" in out
    block = out.split("wrapping  [runtime]\n", 1)[1].split("\n", 6)
    assert block[:6] == [
        "    A plugin wrapping two hooks (new and old style) and answering one plainly.",
        "    (no parameters)",
        "    hooks:",
        "      blockyard_clear (wrapper: sees the other plugins' answer and may replace it)"
        " — answers Clearing whose regions are Region objects, whose board is the game's "
        "size, whose cleared mask is on the board (0 ≤ mask < 2**(rows × cols)) and whose "
        "row_drops give each of at most rows rows a fall of 0 to rows",
        "      blockyard_invariants — answers a list of at most 32 strings of at most 300 "
        "characters",
        "      blockyard_score (wrapper: sees the other plugins' answer and may replace it)"
        " — answers Scoring with integer points within ±1,000,000,000, a combo from 0 to "
        "1,000,000 and a state of JSON values within the bounds of MODDING.md"]
    assert "(wrapper" not in out.split("wrapping  [runtime]", 1)[0]  # no bundled wrappers


def test_plugins_shows_the_bounds_of_every_bounded_answer(capsys):
    """Each hook a bundled plugin answers is listed with the bounds the facade
    checks: the Clearing's masks and falls, the regions on the board, the deal's
    size, the clock's limit."""
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    clearing = out.split("line-clearing  [", 1)[1].split("\nline-scoring", 1)[0]
    assert ("      blockyard_clear — answers Clearing whose regions are Region objects, whose "
            "board is the game's size, whose cleared mask is on the board (0 ≤ mask < "
            "2**(rows × cols)) and whose row_drops give each of at most rows rows a fall of "
            "0 to rows\n") in clearing
    assert ("      blockyard_regions — answers a list of Region, each with at least one cell "
            "and every cell on the board") in clearing
    assert "      blockyard_time_limit — answers a number of seconds from 0.000001 (a " \
        "microsecond, the clock's step) to 86,400\n" in out
    assert ("      blockyard_deal — answers a list of at most 64 pieces or stones (a tray "
            "deal: exactly the tray's slots of Piece objects, each fitting the board)\n") in out
    for line in out.splitlines():  # every listed hook says what it answers
        if line.startswith("      blockyard_"):
            assert " — answers " in line, line


def test_plugins_says_required_without_a_default(capsys):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "default required" not in out and "default optional" not in out
    assert "    seconds: number, 0.001 to 86400; required — seconds on the game clock\n" in out
    assert "    line_points: array of integers, at least 0; optional — " in out




@pytest.fixture
def window_calls(monkeypatch):
    """``blockyard play`` without a window: the arguments the window would get."""
    import blockyard.frontend_entry

    calls: list[dict[str, object]] = []
    monkeypatch.setattr(blockyard.frontend_entry, "run_frontend",
                        lambda **kwargs: calls.append(kwargs) or 0)
    return calls


def test_play_tray_hands_the_pieces_to_the_window(rule_file, window_calls):
    path = str(rule_file(TRAY_LOOKS))
    assert main(["play", path, "--seed", "4", "--tray", "bomb:#", "dot:#"]) == 0
    assert window_calls[0]["tray"] == ["bomb:#", "dot:#"] and window_calls[0]["seed"] == 4
    assert window_calls[0]["ruleset"] == path
    game = blockyard.new_game(path, seed=4, tray=window_calls[0]["tray"])
    assert [p and p.name for p in game.tray] == ["bomb:#", "dot:#", None]
    assert main(["play", path, "--tray", "##/##"]) == 0  # art alone: the piece of that shape
    assert window_calls[1]["tray"] == ["##/##"]
    assert main(["play", path]) == 0 and window_calls[2]["tray"] is None


@pytest.mark.parametrize("tray, words", [
    (["spark:#"], "piece 1 'spark:#': ruleset 'tray-looks' has no such piece; its pieces are "
                  "bomb:#, dot:#, square:##/##"),
    (["dot:#", "dot:##"], "piece 2 'dot:##': ruleset 'tray-looks' has no such piece"),
    (["#.#"], "piece 1 '#.#': ruleset 'tray-looks' has no such piece"),
    (["dot:#"] * 4, "4 pieces given, but ruleset 'tray-looks' has 3 tray slots ([tray] slots)"),
    ([":#"], "piece 1: piece ':#': the family before ':' must be a name"),
    (["x:"], "piece 1: "),
])
def test_play_tray_names_what_is_wrong_before_any_window(rule_file, window_calls, capsys,
                                                         tray, words):
    path = str(rule_file(TRAY_LOOKS))
    assert main(["play", path, "--tray", *tray]) == 2
    err = capsys.readouterr().err
    assert err.startswith("blockyard play: --tray: ") and words in err, err
    assert window_calls == []


def test_play_tray_needs_a_tray_game_and_no_challenge(window_calls, capsys):
    assert main(["play", "sudoku-bloxx", "--tray", "#"]) == 2
    assert "ruleset 'sudoku-bloxx' has no tray (falling game)" in capsys.readouterr().err
    assert main(["play", "--challenge", "0BQ8-WM00-0007-V2C", "--tray", "#"]) == 2
    assert "starts a game of a RULESET, not of a challenge code" in capsys.readouterr().err
    assert window_calls == []


def server_extra() -> list[str]:
    """The server extra's requirements as pyproject.toml lists them."""
    import tomllib

    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"][
        "optional-dependencies"]["server"]


@pytest.mark.parametrize("prefix, hint", [
    ("/home/ann/blockyard-venv", "pip install 'blockyard[server]'"),
    ("/home/ann/.local/share/pipx/venvs/blockyard",
     # as the installed metadata writes them (a specifier's parts in its own order)
     "pipx inject blockyard " + " ".join(shlex.quote(str(Requirement(r)))
                                         for r in server_extra()))])
def test_serve_without_the_server_extra_says_how_to_add_it_to_this_install(
        monkeypatch, capsys, prefix, hint):
    monkeypatch.setitem(sys.modules, "fastapi", None)  # import fastapi fails
    monkeypatch.setattr(sys, "prefix", prefix)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"blockyard serve needs the server extra ({hint}): "), err
    assert "fastapi" in err.removeprefix(f"blockyard serve needs the server extra ({hint})")
    monkeypatch.setitem(sys.modules, "alembic", None)
    assert main(["serve-db", "status"]) == 2
    assert capsys.readouterr().err.startswith(
        f"blockyard serve-db needs the server extra ({hint}): ")


def test_a_pipx_install_without_its_extras_list_is_told_to_inject_the_extra(monkeypatch):
    from blockyard.cli import install_hint

    monkeypatch.setattr(sys, "prefix", "/home/ann/.local/share/pipx/venvs/blockyard")
    assert install_hint("server") == "pipx inject blockyard 'blockyard[server]'"
