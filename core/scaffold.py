"""``blockyard new-plugin NAME``: write a ready-to-install rule-plugin package.

The package has a pyproject with the ``blockyard`` entry point, a plugin module
implementing a hook, a rule file using it (registered through the entry point
too), a passing test using the conformance kit, and a README. After
``pip install ./NAME`` its ruleset appears in ``blockyard list`` and the launcher.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9-]*$")


def names(name: str) -> dict[str, str]:
    """The names a package called ``name`` uses (distribution, module, plugin, ruleset)."""
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"plugin name {name!r}: use lower-case letters, digits and '-', "
                         "starting with a letter (e.g. 'bomb-pieces')")
    base = name.removeprefix("blockyard-")
    module = "blockyard_" + base.replace("-", "_")
    if keyword.iskeyword(module):
        raise ValueError(f"plugin name {name!r} makes the module name {module!r}, a keyword")
    return {"dist": f"blockyard-{base}", "module": module, "plugin": base,
            "ruleset": f"{base}-classic", "class": "".join(p.title() for p in base.split("-"))}


def blockyard_requirement(version: str | None = None) -> str:
    """The generated package's dependency on Blockyard: at least the running
    version (whose hooks it was written against) and below the next major
    version (``blockyard>=0.1.0,<1``; a development build's public version,
    ``blockyard>=0.1.dev597,<1`` for ``0.1.dev597+ga62b116ce``, which the build
    itself satisfies); unversioned only when the running Blockyard does not know
    its own version (a source tree: ``0+unknown``)."""
    if version is None:
        from .version import __version__

        version = __version__
    public, _, local = version.partition("+")
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?((?:\.dev\d+)?)", public)
    if match is None or local == "unknown":
        return "blockyard"
    major, minor, micro = int(match[1]), int(match[2]), int(match[3] or 0)
    if match[4]:  # a development build: its own public version (pre-releases allowed)
        return f"blockyard>={public},<{major + 1}"
    return f"blockyard>={major}.{minor}.{micro},<{major + 1}"


def render(name: str) -> dict[str, str]:
    """File path → content of the package."""
    n = names(name)
    requirement = blockyard_requirement()
    module, plugin, ruleset, cls, dist = (n["module"], n["plugin"], n["ruleset"], n["class"],
                                          n["dist"])
    return {
        "pyproject.toml": f'''[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{dist}"
version = "0.1.0"
description = "A Blockyard rule plugin: {plugin}"
requires-python = ">=3.11"
dependencies = ["{requirement}"]

[project.optional-dependencies]
# the tests' own needs: pip install -e ".[test]"
test = ["pytest"]

# Blockyard finds the plugin (and its rule files) through this entry point.
[project.entry-points.blockyard]
{plugin} = "{module}"

[tool.setuptools]
packages = ["{module}", "{module}.rulesets"]

[tool.setuptools.package-data]
"{module}.rulesets" = ["*.toml"]
''',
        f"{module}/__init__.py": f'''"""{cls}: a Blockyard rule plugin.

``{plugin}`` adds a bonus to every move that clears lines: ``bonus`` points per
cleared line on top of the scoring plugin's points. Rule files name it as
``[plugins.{plugin}]``.
"""

from __future__ import annotations

from importlib.resources import files

from blockyard import hookimpl
from blockyard.results import Scoring


class {cls}:
    """Wraps the scoring answer: line points plus ``bonus`` per cleared line."""

    name = "{plugin}"

    def __init__(self, params):
        self.bonus = params.integer("bonus", 5, minimum=0)

    @hookimpl(wrapper=True)
    def blockyard_score(self, game, move):
        scoring = yield  # the answer of the plugin that scores the move
        if scoring is not None and move.lines:
            return Scoring(scoring.points + self.bonus * move.lines, scoring.combo,
                           scoring.state)
        return scoring


@hookimpl
def blockyard_register_plugins(register):
    register({cls}.name, {cls})


@hookimpl
def blockyard_register_rulesets(register):
    register(files("{module}.rulesets"))
''',
        f"{module}/rulesets/__init__.py": '"""Rule files of this plugin (data)."""\n',
        f"{module}/rulesets/{ruleset}.toml": f'''# {ruleset}: eu-classic with the {plugin} plugin.

[ruleset]
extends = "eu-classic"
id = "{ruleset}"
name = "{cls} Classic"
family = "{plugin}"
description = "Block Puzzle Classic, and every cleared line pays a bonus."

[records]
group = "{ruleset}"

[plugins.{plugin}]
bonus = 5
''',
        "tests/test_plugin.py": f'''"""Tests of the {plugin} plugin."""

import blockyard


def test_the_ruleset_conforms(blockyard_conformance):  # the fixture comes with blockyard
    blockyard_conformance("{ruleset}")


def test_a_cleared_line_pays_the_bonus():
    board = "\\n".join(["#........."] + ["." * 10] * 8 + ["#########."])
    game = blockyard.new_game("{ruleset}", seed=1, board=board, tray=["#", None, None])
    assert game.place(0, 9, 9).points == 1 + 100 + 5
''',
        "README.md": f'''# {dist}

A rule plugin for [Blockyard](https://pypi.org/project/blockyard/): `{plugin}`
adds a bonus for every cleared line. It ships the ruleset `{ruleset}`.

Install it editable (`-e`), so that your edits take effect without
reinstalling; the `[test]` extra adds what its tests need (pytest):

    pip install -e "./{name}[test]"   # then: blockyard list, blockyard check {ruleset}
    pytest {name}/tests

It needs `{requirement}` (its `pyproject.toml` says so). Edit
`{module}/__init__.py` (the hooks) and `{module}/rulesets/` (the rule files).
The hook reference is in Blockyard's MODDING.md.
''',
    }


def write_package(name: str, folder: Path | None = None) -> Path:
    """Write the package for ``name`` into ``folder`` (default ``./NAME``)."""
    target = Path(folder) if folder is not None else Path.cwd() / name
    if target.exists() and any(target.iterdir()):
        raise FileExistsError(f"{target} exists and is not empty")
    for rel, content in render(name).items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return target
