"""The modding kit: ``blockyard check``, ``blockyard new-plugin``, third-party
plugins and rulesets, and MODDING.md kept in step with the hooks."""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import blockyard
from blockyard import hookspecs
from blockyard.cli import main
from blockyard.scaffold import names
from blockyard.testing import check_ruleset

ROOT = Path(__file__).resolve().parents[1]
MODDING = (ROOT / "MODDING.md").read_text(encoding="utf-8")


# -- blockyard check ---------------------------------------------------------------------

def test_check_a_bundled_ruleset_passes(capsys):
    assert main(["check", "tiered", "--games", "3"]) == 0
    out = capsys.readouterr().out
    assert "rule file valid (tiered" in out and "all checks passed" in out
    assert "ok  determinism" in out


def test_check_a_broken_rule_file_names_the_file_and_the_key(capsys, rule_file):
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "broken"\nname = "Broken"\n'
                     "[plugins.line-scoring]\nmultipliers = [1, \"two\"]\n")
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "plugins.line-scoring.multipliers[1]" in err


def test_check_fails_with_status_1_when_the_kit_finds_a_problem(capsys, rule_file,
                                                                register_plugin):
    from blockyard.results import Scoring

    class Drifting:
        def __init__(self, params):
            self.n = 0

        @blockyard.hookimpl
        def blockyard_score(self, game, move):
            self.n += 1
            return Scoring(self.n, 0)

    register_plugin("drifting", Drifting)
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "drift"\nname = "Drift"\n'
                     "[plugins]\nline-scoring = false\ndrifting = true\n")
    assert main(["check", str(path), "--games", "2"]) == 1
    assert "FAIL" in capsys.readouterr().out


# -- new-plugin ------------------------------------------------------------------------------

def test_new_plugin_refuses_bad_names_and_existing_folders(tmp_path, capsys):
    assert main(["new-plugin", "Bad Name", "--into", str(tmp_path / "x")]) == 2
    assert "lower-case" in capsys.readouterr().err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file").write_text("x")
    assert main(["new-plugin", "ok-name", "--into", str(tmp_path / "full")]) == 2
    assert names("blockyard-bomb")["module"] == "blockyard_bomb"


def test_a_new_plugin_installs_is_discovered_passes_check_and_its_tests(tmp_path):
    package = tmp_path / "bomb-pieces"
    assert main(["new-plugin", "bomb-pieces", "--into", str(package)]) == 0
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--target", str(site), str(package)],
                   check=True, capture_output=True)
    env = {**os.environ, "PYTHONPATH": str(site)}

    def blockyard_cli(*args):
        return subprocess.run([sys.executable, "-m", "blockyard", *args], env=env,
                              capture_output=True, text=True)

    listed = blockyard_cli("list")
    assert "bomb-pieces-classic" in listed.stdout
    assert "[plugin blockyard-bomb-pieces:" in listed.stdout
    checked = blockyard_cli("check", "bomb-pieces-classic", "--games", "3")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "all checks passed" in checked.stdout
    tests = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(package / "tests")], env=env, capture_output=True, text=True,
                           cwd=package)
    assert tests.returncode == 0, tests.stdout
    assert "2 passed" in tests.stdout
    disabled = subprocess.run([sys.executable, "-m", "blockyard", "list"],
                              env={**env, "BLOCKYARD_DISABLE_PLUGINS": "1"},
                              capture_output=True, text=True)
    assert "bomb-pieces-classic" not in disabled.stdout and "eu-classic" in disabled.stdout


def test_new_plugin_writes_a_new_style_wrapper(tmp_path):
    """The generated plugin adjusts the scoring answer with a pluggy new-style
    wrapper (``wrapper=True``: the answer comes from ``yield`` and is returned),
    never the old ``hookwrapper=True`` outcome protocol."""
    from blockyard.scaffold import render

    module = render("bomb-pieces")["blockyard_bomb_pieces/__init__.py"]
    assert "@hookimpl(wrapper=True)\n    def blockyard_score(self, game, move):\n" \
        "        scoring = yield" in module
    assert "hookwrapper" not in module and "get_result" not in module
    assert "force_result" not in module
    namespace: dict[str, object] = {}
    exec(compile(module, "generated", "exec"), namespace)  # the generated code runs
    plugin = namespace["BombPieces"]
    from blockyard.docgen import is_wrapper

    assert is_wrapper(plugin.blockyard_score)


# -- the example third-party package (examples/blockyard-diagonals) ------------------------

EXAMPLE = ROOT / "examples" / "blockyard-diagonals"


@pytest.fixture(scope="module")
def example_site(tmp_path_factory):
    """The example package installed (not editable, without dependencies) into a
    folder of its own, as pip installs any plugin package: the tests below run
    Blockyard with that folder on PYTHONPATH, so they do not depend on whether
    the development environment has the example installed too."""
    site = tmp_path_factory.mktemp("example-site")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                    "--disable-pip-version-check", "--target", str(site), str(EXAMPLE)],
                   check=True, capture_output=True)
    return site


def run_with_example(site, *args, **environment):
    env = {**os.environ, "PYTHONPATH": str(site), **environment}
    env.pop("BLOCKYARD_DISABLE_PLUGINS", None)
    if "BLOCKYARD_LOAD_PLUGINS" not in environment:
        env.pop("BLOCKYARD_LOAD_PLUGINS", None)
    # run from the install folder: in the example's folder its source would be imported
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                          cwd=site)


def test_the_example_plugin_installs_like_a_third_party_package(example_site):
    listed = run_with_example(example_site, "-m", "blockyard", "list")
    assert listed.returncode == 0, listed.stderr
    rule_file = example_site / "blockyard_diagonals" / "rulesets" / "diagonals-classic.toml"
    assert f"[plugin blockyard-diagonals: {rule_file}]" in listed.stdout
    plugins = run_with_example(example_site, "-m", "blockyard", "plugins")
    assert "diagonals  [blockyard-diagonals 0.1.0]\n" in plugins.stdout
    assert "    hooks:\n      blockyard_check_ruleset — answers nothing\n" \
        "      blockyard_regions — answers a list of Region, each with at least one cell and " \
        "every cell on the board\n" in plugins.stdout
    checked = run_with_example(example_site, "-m", "blockyard", "check", "diagonals-classic",
                               "--games", "2")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "all checks passed" in checked.stdout


def test_the_load_list_chooses_whether_the_example_package_loads(example_site):
    for allowed in ("diagonals", "blockyard-diagonals", "BLOCKYARD_DIAGONALS"):
        shown = run_with_example(example_site, "-m", "blockyard", "list",
                                 BLOCKYARD_LOAD_PLUGINS=allowed)
        assert "diagonals-classic" in shown.stdout, allowed
        assert shown.stderr == "", shown.stderr
    hidden = run_with_example(example_site, "-m", "blockyard", "list",
                              BLOCKYARD_LOAD_PLUGINS="some-other-plugin")
    assert "diagonals-classic" not in hidden.stdout and "eu-classic" in hidden.stdout
    assert "BLOCKYARD_LOAD_PLUGINS names 'some-other-plugin'" in hidden.stderr


def test_the_example_plugins_own_tests_pass(example_site):
    tests = run_with_example(example_site, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             str(EXAMPLE / "tests"))
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "4 passed" in tests.stdout


def test_rule_files_never_run_code(rule_file):
    """A rule file names plugins by registered name only: a module path is no name."""
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "evil"\nname = "Evil"\n'
                     '[plugins."os:system"]\n')
    with pytest.raises(blockyard.RulesetError, match="unknown plugin 'os:system'"):
        blockyard.load_ruleset(path)


# -- MODDING.md ---------------------------------------------------------------------------

def spec_signatures() -> dict[str, str]:
    out = {}
    for cls in (hookspecs.RegistrySpecs, *hookspecs.SPEC_CLASSES):
        for name, func in vars(cls).items():
            if name.startswith("blockyard_"):
                params = [p for p in inspect.signature(func).parameters if p != "self"]
                out[name] = f"{name}({', '.join(params)})"
    return out


def test_the_hook_reference_documents_every_hook_with_its_arguments():
    documented = set(re.findall(r"^### `(blockyard_\w+\([^)]*\))`", MODDING, re.MULTILINE))
    assert documented == set(spec_signatures().values())


def test_the_hook_reference_says_which_hooks_have_a_single_answer():
    for cls in hookspecs.SPEC_CLASSES:
        for name, func in vars(cls).items():
            if not name.startswith("blockyard_"):
                continue
            single = getattr(func, "blockyard_spec", {}).get("firstresult", False)
            section = MODDING.split(f"### `{spec_signatures()[name]}`", 1)[1].split("###", 1)[0]
            assert ("single answer" in section.lower()) == single, name


def test_the_tutorial_rule_files_load_and_conform(tmp_path):
    blocks = re.findall(r"```toml\n# file: (\S+)\n(.*?)```", MODDING, re.DOTALL)
    assert blocks, "MODDING.md has no rule files to check"
    for name, text in blocks:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
    for name, _ in blocks:
        ruleset = blockyard.load_ruleset(tmp_path / name)
        report = check_ruleset(ruleset, games=3)
        assert report.ok, report.text()


def test_the_tutorial_plugin_code_is_the_example_plugin():
    quoted = re.search(r"```python\n# file: (\S+)\n(.*?)```", MODDING, re.DOTALL)
    assert quoted is not None
    path, code = quoted.groups()
    assert (ROOT / path).read_text(encoding="utf-8") == code


def test_the_generated_references_are_in_step_with_the_code():
    from blockyard import docgen

    assert docgen.regenerate(MODDING) == MODDING, \
        "run: python -m blockyard.docgen MODDING.md"
    sections = docgen.generated_sections(MODDING)
    assert set(sections) == {"hooks", "plugins"}
    assert "| `blocks` | array of integers" in sections["plugins"]
    assert "### `blockyard_actions(ruleset)`" in sections["hooks"]


def test_plugin_parameters_come_from_the_plugins_themselves():
    from blockyard import docgen

    catalogue = {p.name: p for p in docgen.plugin_catalogue()}
    swaps = {p.name: p for p in catalogue["swaps"].parameters}
    assert set(swaps) == {"start", "per_perfect_clear", "max"}
    assert swaps["start"].type == "integer" and swaps["start"].required
    scoring = {p.name: p for p in catalogue["line-scoring"].parameters}
    assert scoring["multipliers"].default == [1] and scoring["line_points"].optional
    assert "blockyard_actions" in catalogue["swaps"].hooks


def test_check_fails_on_a_hook_method_without_hookimpl(capsys, rule_file, register_plugin):
    from blockyard.results import Scoring

    class Forgetful:
        def __init__(self, params):
            pass

        def blockyard_score(self, game, move):  # @hookimpl forgotten
            return Scoring(1000, 0)

    register_plugin("forgetful", Forgetful)
    path = rule_file('[ruleset]\nextends = "eu-classic"\nid = "forgot"\nname = "Forgot"\n'
                     "[plugins.forgetful]\n")
    assert main(["check", str(path), "--games", "1"]) == 1
    out = capsys.readouterr().out
    assert "FAIL plugin 'forgetful': method blockyard_score is named like a hook but lacks " \
           "@hookimpl" in out


def test_the_generated_package_is_installed_editable_and_depends_on_this_blockyard():
    from blockyard.scaffold import blockyard_requirement, render

    files = render("bomb-pieces")
    requirement = blockyard_requirement()
    assert f'dependencies = ["{requirement}"]' in files["pyproject.toml"]
    assert 'test = ["pytest"]' in files["pyproject.toml"]
    readme = files["README.md"]
    assert 'pip install -e "./bomb-pieces[test]"' in readme and "[test]` extra" in readme
    assert "pip install ./" not in readme
    assert blockyard_requirement("0.1.0") == "blockyard>=0.1.0,<1"
    assert blockyard_requirement("2.3") == "blockyard>=2.3.0,<3"
    assert blockyard_requirement("0+unknown") == "blockyard"
    # a development build (every commit but a tagged one): satisfied by that build
    assert blockyard_requirement("0.1.dev597+ga62b116ce.d20261202") == \
        "blockyard>=0.1.dev597,<1"
    assert blockyard_requirement("0.1.1.dev3+g1a2b3c4") == "blockyard>=0.1.1.dev3,<1"
