"""Blockyard's version is the repository's (setuptools-scm, pyproject.toml): two
builds of different commits say different versions, each naming its commit; a
tree with changes not committed says so; a tree without git metadata builds as
the fallback; and the installed version is the one every place reads
(``blockyard.version``). Builds of one release count as the same Blockyard when
a replay's code is compared (:func:`blockyard.version.same_release`)."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import blockyard
from blockyard.version import release, same_release

ROOT = Path(__file__).resolve().parents[1]
DEV_BUILD = re.compile(r"(?P<release>\d+(?:\.\d+)*)\.dev(?P<distance>\d+)"
                       r"\+g(?P<commit>[0-9a-f]{7,40})(?P<dirty>\.d\d{8})?")
"""A development build's version: ``0.1.dev597+ga62b116ce`` (``.dYYYYMMDD`` after
it for a tree with changes not committed)."""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=Blockyard test",
                           "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false",
                           *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"git {args} failed: {done.stderr}"
    return done.stdout.strip()


def scm_version(tree: Path) -> str:
    """The version setuptools-scm gives a build of ``tree`` (as ``python -m build``
    and ``pip install`` get it), with the tree's own pyproject.toml."""
    done = subprocess.run([sys.executable, "-m", "setuptools_scm"], cwd=tree,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A clone of this repository whose last commit holds the checkout's
    pyproject.toml (its version settings as they are now, committed or not)."""
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout (an unpacked sdist): no commits to compare")
    place = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", str(ROOT), str(place))
    shutil.copyfile(ROOT / "pyproject.toml", place / "pyproject.toml")
    git(place, "commit", "--quiet", "--allow-empty", "-am", "the checkout's pyproject.toml")
    return place


def test_two_builds_of_different_commits_say_different_versions_naming_their_commits(
        clone: Path) -> None:
    first = scm_version(clone)
    first_commit = git(clone, "rev-parse", "HEAD")
    git(clone, "commit", "--quiet", "--allow-empty", "-m", "one commit more")
    second = scm_version(clone)
    second_commit = git(clone, "rev-parse", "HEAD")
    assert first != second
    one, two = DEV_BUILD.fullmatch(first), DEV_BUILD.fullmatch(second)
    assert one is not None and two is not None, (first, second)
    assert first_commit.startswith(one["commit"]) and second_commit.startswith(two["commit"])
    assert int(two["distance"]) == int(one["distance"]) + 1
    assert one["dirty"] is None and two["dirty"] is None
    # no release is tagged: builds of release 0.1, as the 0.1.0 every build said before
    assert one["release"] == two["release"] == "0.1"
    assert same_release(first, second) and same_release(first, "0.1.0")


def test_a_tree_with_changes_not_committed_says_so(clone: Path) -> None:
    committed = scm_version(clone)
    readme = clone / "README.md"
    readme.write_text(readme.read_text(encoding="utf-8") + "\nchanged\n", encoding="utf-8")
    changed = scm_version(clone)
    match = DEV_BUILD.fullmatch(changed)
    assert match is not None and match["dirty"] is not None, changed
    assert changed.startswith(committed + ".d")


def test_a_tree_without_git_metadata_builds_as_the_fallback(tmp_path: Path) -> None:
    tree = tmp_path / "copy"  # a copy of the folder without .git (an archive of it)
    tree.mkdir()
    shutil.copyfile(ROOT / "pyproject.toml", tree / "pyproject.toml")
    fallback = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools_scm"]["fallback_version"]
    assert fallback == "0.1.dev0"  # as core/version.py's docstring explains it
    assert scm_version(tree) == fallback
    assert DEV_BUILD.fullmatch(fallback) is None  # no commit named: none is known


def test_the_installed_version_is_the_repository_s() -> None:
    """The version every place reads is the installed distribution's (``blockyard
    --version``: tests/test_cli.py); installed from this checkout
    (scripts/setup.sh), it names one of its commits (or is a tag's)."""
    version = blockyard.__version__
    assert version == importlib.metadata.version("blockyard")
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout: the version is the sdist's")
    match = DEV_BUILD.fullmatch(version)
    if match is None:
        assert version in git(ROOT, "tag", "--list").split(), f"{version}: neither a " \
            "development build naming its commit nor a tag of this repository"
    else:
        assert git(ROOT, "cat-file", "-t", match["commit"]) == "commit"


@pytest.mark.parametrize("version, expected", [
    ("0.1.0", (0, 0, 1)), ("0.1", (0, 0, 1)), ("0.1.dev597+ga62b116ce", (0, 0, 1)),
    ("0.1.dev600+g1a2b3c4.d20261202", (0, 0, 1)), ("0.1.1.dev3+g1a2b3c4", (0, 0, 1, 1)),
    ("2!1.0.0", (2, 1)), ("v1.2.0rc1", (0, 1, 2)), ("0+unknown", (0, 0)),
    ("unknown", None), ("", None)])
def test_the_release_of_a_version(version: str, expected: tuple[int, ...] | None) -> None:
    assert release(version) == expected


def test_builds_of_one_release_are_the_same_release_others_are_not() -> None:
    assert same_release("0.1.0", "0.1.dev597+ga62b116ce")
    assert same_release("0.1.dev597+ga62b116ce", "0.1.dev600+g1a2b3c4.d20261202")
    assert not same_release("0.1.0", "0.1.1.dev3+g1a2b3c4")
    assert not same_release("0.1.0", "0.2.0")
    assert same_release("unknown", "unknown") and not same_release("unknown", "other")
