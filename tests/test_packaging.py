"""Blockyard installs like an application: the wheel and sdist carry everything
needed at run time, the wheel works from a fresh virtual environment outside the
checkout, and the standalone (PyInstaller one-folder) program works without
Python installed.

Slow but bounded: one sdist + wheel build, one virtual environment with one
install, one standalone build; each program is started a fixed number of times.
The windows open on a virtual screen (Xvfb) of their own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

import blockyard
from blockyard.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "blockyard-diagonals"
# the checkout folders that become packages (pyproject's package-dir)
PACKAGE_DIRS = {"core": "blockyard", "plugins": "blockyard/plugins",
                "frontend": "blockyard/frontend", "rulesets": "blockyard/rulesets"}
RULE_FILES = sorted(p.name for p in (ROOT / "rulesets").glob("*.toml"))


def _run(cmd: list[str | Path], *, cwd: Path, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, (f"{cmd} failed ({done.returncode}):\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def _clean_env(home: Path, display: str | None = None) -> dict[str, str]:
    """The environment of a player's shell: nothing pointing into the checkout or
    its virtual environment."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "DISPLAY")
           and not k.startswith("PYTEST")}
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and p != venv_bin)
    env["BLOCKYARD_HOME"] = str(home)
    if display is not None:
        env["DISPLAY"] = display
    return env


def _data_files_in_checkout() -> list[str]:
    """Every non-Python file in the package folders, as its path inside the wheel
    (but the npm packages ``npm ci`` installs to build the web page, which are
    not the page: pyproject's exclude-package-data keeps them out)."""
    found = []
    for folder, package in PACKAGE_DIRS.items():
        for path in (ROOT / folder).rglob("*"):
            if (path.is_file() and path.suffix not in (".py", ".pyc")
                    and "__pycache__" not in path.parts and "node_modules" not in path.parts):
                found.append(f"{package}/{path.relative_to(ROOT / folder).as_posix()}")
    return sorted(found)


def assert_real_frame(path: Path, size: tuple[int, int]) -> Image.Image:
    """The screenshot is a drawn frame: the window's size, mostly background but
    with a real share of drawn pixels in many colours (text, cells, pieces). The
    sparest frame drawn here, the first game's "How to play" page (text only), is
    9.5 % drawn in Liberation Sans (fonts-liberation) and more in the wider DejaVu
    Sans; a frame not drawn is one colour."""
    image = Image.open(path).convert("RGB")
    assert image.size == size
    counts = Counter(image.getdata())
    background, count = counts.most_common(1)[0]
    drawn = 1 - count / (size[0] * size[1])
    assert 0.05 < drawn < 0.95, f"only {drawn:.1%} of the pixels differ from {background}"
    assert len(counts) > 50, f"only {len(counts)} colours: not a drawn frame"
    return image


# -- fixtures ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def display():
    """A virtual screen of this module's own; DISPLAY is given to the programs
    started here, the test process's environment is left as it was."""
    from blockyard.frontend.virtual_display import start_virtual_display

    saved = {k: os.environ.get(k) for k in ("DISPLAY", "ARCADE_HEADLESS")}
    server = start_virtual_display()
    name = os.environ["DISPLAY"]
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    yield name
    server.terminate()
    server.wait(timeout=10)


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """``python -m build`` of the checkout: the sdist, then the wheel built from it."""
    out = tmp_path_factory.mktemp("dist")
    done = _run([sys.executable, "-m", "build", "--outdir", out, ROOT], cwd=ROOT)
    (out / "build.log").write_text(done.stdout + done.stderr, encoding="utf-8")
    wheels = list(out.glob("blockyard-*.whl"))
    sdists = list(out.glob("blockyard-*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


@pytest.fixture(scope="module")
def version(dists) -> str:
    """The version the build gave the sdist and the wheel: the one setuptools-scm
    computes for the checkout (pyproject.toml's ``[tool.setuptools_scm]``)."""
    done = _run([sys.executable, "-m", "setuptools_scm"], cwd=ROOT)
    computed = done.stdout.strip().splitlines()[-1]
    assert dists["wheel"].name == f"blockyard-{computed}-py3-none-any.whl"
    assert dists["sdist"].name == f"blockyard-{computed}.tar.gz"
    return computed


@pytest.fixture(scope="module")
def venv(tmp_path_factory, dists) -> Path:
    """A fresh virtual environment outside the checkout with the wheel installed
    (not editable) together with its dependencies, as ``pip install`` does."""
    place = tmp_path_factory.mktemp("player")
    assert ROOT not in place.parents
    _run([sys.executable, "-m", "venv", place / "venv"], cwd=place)
    python = place / "venv" / "bin" / "python"
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          dists["wheel"]], cwd=place, env=_clean_env(place / "home"))
    return place / "venv"


@pytest.fixture(scope="module")
def beside_the_build(tmp_path_factory, dists) -> dict[str, Path]:
    """A fresh virtual environment holding what the wheel depends on but not the
    wheel, and a plugin package made by that build's own ``blockyard new-plugin``:
    the wheel is installed with its dependencies (from pip's usual sources, as the
    ``venv`` fixture does), makes the package, and is uninstalled again, so each
    test below installs a plugin package offline with Blockyard found only as the
    wheel beside it (``links``)."""
    place = tmp_path_factory.mktemp("modder")
    assert ROOT not in place.parents
    _run([sys.executable, "-m", "venv", place / "venv"], cwd=place)
    python = place / "venv" / "bin" / "python"
    env = _clean_env(place / "home")
    _run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
          dists["wheel"]], cwd=place, env=env)
    _run([place / "venv" / "bin" / "blockyard", "new-plugin", "bomb-pieces", "--into",
          place / "bomb-pieces"], cwd=place, env=env)
    _run([python, "-m", "pip", "uninstall", "--quiet", "--yes", "blockyard"], cwd=place,
         env=env)
    links = place / "links"
    links.mkdir()
    (links / dists["wheel"].name).symlink_to(dists["wheel"])
    return {"venv": place / "venv", "package": place / "bomb-pieces", "links": links,
            "home": place / "home"}


def _install_offline(where: dict[str, Path], package: Path, tmp_path: Path
                     ) -> subprocess.CompletedProcess[str]:
    """Build ``package``'s wheel into a folder holding the Blockyard wheel and
    install the package by name from that folder alone (``--no-index``, no
    ``--no-deps``, no ``--pre``): pip must find Blockyard for its dependency line
    there. Blockyard and the package are uninstalled again afterwards."""
    links = tmp_path / "links"
    shutil.copytree(where["links"], links, symlinks=True)
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", links, package], cwd=tmp_path)
    name = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8")
                        )["project"]["name"]
    python = where["venv"] / "bin" / "python"
    # pip's own configuration (other folders and indexes) left out: only `links`
    env = {k: v for k, v in _clean_env(where["home"]).items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    try:
        return subprocess.run(
            [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-index",
             "--find-links", str(links), name], cwd=tmp_path, env=env, capture_output=True,
            text=True, timeout=600)
    finally:
        subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", name,
                        "blockyard"], cwd=tmp_path, env=env, capture_output=True, timeout=600)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory) -> Path:
    """The one-folder program built once by scripts/build_standalone.sh."""
    out = tmp_path_factory.mktemp("standalone")
    done = _run(["bash", ROOT / "scripts" / "build_standalone.sh", out], cwd=ROOT)
    program = out / "blockyard" / "blockyard"
    assert program.is_file() and os.access(program, os.X_OK), done.stdout
    return program


# -- the command's window options --------------------------------------------------------


@pytest.mark.parametrize("argv, message", [
    (["--screenshot", "shot.png", "list"], "apply only to the window"),
    (["--quit-after", "1", "show", "eu-classic"], "apply only to the window"),
    (["--quit-after", "-1"], "--quit-after needs a number of seconds >= 0"),
    (["--screenshot", "shot"], "needs a file name ending in an image type"),
    (["--screenshot", "shot.nope", "play", "eu-classic"], "unknown image type '.nope'"),
    (["--screenshot", "no/such/folder/shot.png"], "the folder no/such/folder does not exist"),
])
def test_window_options_are_checked_before_any_window_opens(argv, message, capsys, tmp_path,
                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err


# -- sdist and wheel ---------------------------------------------------------------------


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_the_build_gives_no_package_would_be_ignored_notice(dists):
    """Issue 25, item 16: every data-only folder is a package setuptools is told
    about (pyproject's ``packages``), so the build prints none of its boxed
    notices."""
    log = (dists["wheel"].parent / "build.log").read_text(encoding="utf-8")
    assert "Successfully built" in log
    named = [line.strip() for line in log.splitlines() if "as an importable package" in line]
    assert "Package would be ignored" not in log, named


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_the_readme_builds_with_the_python_its_set_up_gives(dists, version):
    """The README's build command is the one this test ran, with the quick start's
    .venv (its test extra brings ``build``; the play set-up is told to add it)."""
    import tomllib

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "    .venv/bin/python -m build\n" in readme
    assert ".venv/bin/pip install build" in readme
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    assert any(req.startswith("build") for req in extras["test"])
    assert Path(sys.executable).parent.name == "bin"
    # the wheel is the one the README names (a glob: its name carries the version)
    assert dists["wheel"].match("blockyard-*-py3-none-any.whl")
    assert "pipx install dist/blockyard-*-py3-none-any.whl" in readme


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_sdist_carries_the_rule_files_and_the_project(dists):
    with tarfile.open(dists["sdist"]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for rule_file in RULE_FILES:
        assert f"rulesets/{rule_file}" in names
    for path in ("pyproject.toml", "MANIFEST.in", "README.md", "MODDING.md",
                 "docs/screenshot.png", "tests/frontend/conftest.py",
                 "scripts/build_standalone.sh", "packaging/blockyard.spec",
                 "examples/blockyard-diagonals/pyproject.toml"):
        assert path in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_wheel_carries_every_data_file_and_the_entry_points(dists, version):
    assert RULE_FILES  # the bundled rule files exist in the checkout
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"blockyard-{version}.dist-info/entry_points.txt").decode()
    for rule_file in RULE_FILES:
        assert f"blockyard/rulesets/{rule_file}" in names
    missing = [f for f in _data_files_in_checkout() if f not in names]
    assert not missing, f"data files left out of the wheel (add a package-data pattern): {missing}"
    assert "[blockyard]\nblockyard = blockyard.plugins.bundled" in entry_points
    assert "[console_scripts]\nblockyard = blockyard.cli:main" in entry_points
    assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "core/"))]


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_installed_wheel_runs_from_any_folder(venv, version, tmp_path):
    env = _clean_env(tmp_path / "home")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    said = _run([venv / "bin" / "blockyard", "--version"], cwd=elsewhere, env=env)
    assert said.stdout == f"blockyard {version}\n"
    where = _run([venv / "bin" / "python", "-c", "import blockyard; print(blockyard.__file__)"],
                 cwd=elsewhere, env=env).stdout.strip()
    assert Path(where) == venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" \
        / "site-packages" / "blockyard" / "__init__.py"
    assert ROOT not in Path(where).parents

    listed = _run([venv / "bin" / "blockyard", "list"], cwd=elsewhere, env=env)
    assert listed.stderr == ""
    for rule_file in RULE_FILES:
        rid = rule_file.removesuffix(".toml")
        path = Path(where).parent / "rulesets" / rule_file
        assert f"  {rid} " in listed.stdout and f"[bundled: {path}]" in listed.stdout

    checked = _run([venv / "bin" / "blockyard", "check", "eu-classic"], cwd=elsewhere, env=env)
    assert checked.stdout.rstrip().endswith("all checks passed")
    assert "rule file valid (eu-classic, eu, 10×10" in checked.stdout


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_a_new_plugin_package_installs_beside_the_build_that_made_it(beside_the_build, version,
                                                                      tmp_path):
    """MODDING.md, "Publishing and versioning a plugin": the package ``blockyard
    new-plugin`` writes depends on the build that made it in a line pip accepts
    for that build (a development build, which sorts before its release)."""
    package = beside_the_build["package"]
    line = re.search(r'dependencies = \["([^"]*)"\]',
                     (package / "pyproject.toml").read_text(encoding="utf-8"))
    assert line is not None and line[1].startswith("blockyard>=") and line[1].endswith(",<1")
    from packaging.requirements import Requirement

    from blockyard.version import release

    numbers = release(version)
    assert numbers is not None
    specifier = Requirement(line[1]).specifier
    # the build itself, and the release it is a build of (a real one satisfies it too)
    assert specifier.contains(version) and ".".join(map(str, numbers[1:])) in specifier
    done = _install_offline(beside_the_build, package, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"Successfully installed blockyard-{version} blockyard-bomb-pieces-0.1.0" \
        in done.stdout


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_a_package_with_moddings_dependency_line_installs_beside_the_build(beside_the_build,
                                                                            version, tmp_path):
    """The line MODDING.md tells a modder to write, as the example package writes
    it, installs beside this build without ``--no-deps`` or ``--pre`` and is one
    a release satisfies too."""
    from packaging.requirements import Requirement

    modding = (ROOT / "MODDING.md").read_text(encoding="utf-8")
    publishing = modding[modding.index("### Publishing and versioning a plugin"):]
    line = re.search(r'dependencies = \["([^"]*)"\]', publishing)
    assert line is not None
    assert f'dependencies = ["{line[1]}"]' in (EXAMPLE / "pyproject.toml").read_text("utf-8")
    specifier = Requirement(line[1]).specifier
    assert specifier.contains(version) and "0.1.0" in specifier and "0.9.3" in specifier
    assert "1.0.0" not in specifier
    example = tmp_path / "example"  # built from a copy: the checkout's folder stays as it is
    shutil.copytree(EXAMPLE, example, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    done = _install_offline(beside_the_build, example, tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"Successfully installed blockyard-{version} blockyard-diagonals-0.1.0" in done.stdout


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_a_line_naming_only_the_release_admits_no_build(beside_the_build, tmp_path):
    """Why the line names a development build: ``blockyard>=0.1,<1`` (the line
    MODDING.md gave before) excludes every build, ``0.1.dev…`` sorting before 0.1."""
    package = tmp_path / "old-line"
    shutil.copytree(beside_the_build["package"], package)
    project = package / "pyproject.toml"
    text = project.read_text(encoding="utf-8")
    project.write_text(re.sub(r'dependencies = \["[^"]*"\]', 'dependencies = ["blockyard>=0.1,<1"]',
                              text), encoding="utf-8")
    done = _install_offline(beside_the_build, package, tmp_path)
    assert done.returncode != 0
    assert "blockyard<1,>=0.1" in done.stderr and "No matching distribution" in done.stderr


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_installed_wheel_opens_the_game_window(venv, display, tmp_path):
    shot = tmp_path / "shot.png"
    _run([venv / "bin" / "blockyard", "--quit-after", "0.5", "--screenshot", shot,
          "play", "eu-classic", "--seed", "1"], cwd=tmp_path,
         env=_clean_env(tmp_path / "home", display), timeout=120)
    assert_real_frame(shot, (720, 960))
    # the same frame as the development install draws (a sliver of tolerance, so
    # that a future time-based animation cannot make this test flaky)
    reference = tmp_path / "reference.png"
    _run([sys.executable, "-m", "blockyard", "--quit-after", "0.5", "--screenshot", reference,
          "play", "eu-classic", "--seed", "1"], cwd=tmp_path,
         env=_clean_env(tmp_path / "home2", display) | {"PATH": os.environ["PATH"]},
         timeout=120)
    pixels = list(Image.open(shot).convert("RGB").getdata())
    expected = list(Image.open(reference).convert("RGB").getdata())
    differing = sum(a != b for a, b in zip(pixels, expected, strict=True))
    assert differing <= len(pixels) // 100, f"{differing} pixels differ from the development run"


# -- the standalone program --------------------------------------------------------------


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_standalone_program_lists_and_checks_without_the_checkout(standalone, version,
                                                                   tmp_path):
    env = _clean_env(tmp_path / "home")
    said = _run([standalone, "--version"], cwd=tmp_path, env=env)
    assert said.stdout == f"blockyard {version}\n"  # the build's own version
    own = tmp_path / "home" / "config" / "rulesets" / "my-mode.toml"
    own.parent.mkdir(parents=True)
    own.write_text('[ruleset]\nextends = "eu-classic"\nid = "my-mode"\nname = "My Mode"\n'
                   'description = "a player\'s own mode"\n\n[board]\nrows = 8\ncols = 8\n',
                   encoding="utf-8")
    bundle = standalone.parent
    # the package metadata travels along: entry points as in an installed copy
    entry_points = bundle / "_internal" / f"blockyard-{version}.dist-info" / "entry_points.txt"
    assert "[blockyard]\nblockyard = blockyard.plugins.bundled" in entry_points.read_text()
    listed = _run([standalone, "list"], cwd=tmp_path, env=env)
    assert listed.stderr == ""  # the entry-point metadata loads: no plugin warning
    assert "  my-mode " in listed.stdout and str(own) in listed.stdout
    for rule_file in RULE_FILES:
        rid = rule_file.removesuffix(".toml")
        path = bundle / "_internal" / "blockyard" / "rulesets" / rule_file
        assert f"  {rid} " in listed.stdout and f"[bundled: {path}]" in listed.stdout
    assert str(ROOT) not in listed.stdout
    checked = _run([standalone, "check", "eu-classic"], cwd=tmp_path, env=env)
    assert checked.stdout.rstrip().endswith("all checks passed")
    checked = _run([standalone, "check", "my-mode"], cwd=tmp_path, env=env)
    assert "rule file valid (my-mode, eu, 8×8" in checked.stdout
    shown = _run([standalone, "show", "eu-hardcore"], cwd=tmp_path, env=env)
    assert shown.stdout == blockyard.load_ruleset("eu-hardcore").to_toml()


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_standalone_program_opens_the_launcher_and_a_game(standalone, display, tmp_path):
    env = _clean_env(tmp_path / "home", display)
    launcher = tmp_path / "launcher.png"
    done = _run([standalone, "--quit-after", "0.5", "--screenshot", launcher], cwd=tmp_path,
                env=env, timeout=120)
    assert "ERROR" not in done.stdout + done.stderr  # e.g. Arcade missing its VERSION file
    assert_real_frame(launcher, (720, 960))
    game = tmp_path / "game.png"
    _run([standalone, "--quit-after", "0.5", "--screenshot", game, "play", "sudoku-bloxx",
          "--seed", "3"], cwd=tmp_path, env=env, timeout=120)
    image = assert_real_frame(game, (720, 960))
    assert list(image.getdata()) != list(Image.open(launcher).convert("RGB").getdata())


def _stated_sizes() -> tuple[int, int, int]:
    """The standalone folder's MiB, file count and .tar.gz MiB that docs/standalone.md
    states (the README states the same two sizes)."""
    import re

    doc = (ROOT / "docs" / "standalone.md").read_text(encoding="utf-8")
    folder = re.search(r"^\| the folder `blockyard/` \| (\d+) MiB, (\d+) files \|$", doc, re.M)
    packed = re.search(r"^\| the folder as `\.tar\.gz` \| (\d+) MiB \|$", doc, re.M)
    assert folder is not None and packed is not None
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"({folder[1]} MiB; {packed[1]} MiB as `.tar.gz`)" in readme
    return int(folder[1]), int(folder[2]), int(packed[1])


@pytest.mark.slow  # builds the wheel or the standalone program (once per module)
def test_standalone_bundles_only_what_the_window_uses_and_its_size_is_the_documented_one(
        standalone, tmp_path):
    """Issue 25, item 15: Babel's data of the window's four languages (and the
    locales they inherit from) and no other; none of the extras the building .venv
    holds; the folder's size, file count and packed size within 10% of the
    figures docs/standalone.md and the README state."""
    folder = standalone.parent
    internal = folder / "_internal"
    locales = sorted(p.name for p in (internal / "babel" / "locale-data").iterdir())
    assert locales == sorted(f"{name}.dat" for name in (
        "root", "en", "en_001", "en_GB", "de", "de_DE", "es", "es_ES", "ne", "ne_NP"))
    for extra in ("numpy", "matplotlib", "gymnasium", "sqlalchemy", "fastapi", "distributed"):
        assert not (internal / extra).exists(), extra
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    mib = sum(p.stat().st_size for p in files) / 2**20
    packed = tmp_path / "blockyard.tar.gz"
    with tarfile.open(packed, "w:gz", compresslevel=6) as archive:  # gzip's own default
        archive.add(folder, arcname="blockyard")
    packed_mib = packed.stat().st_size / 2**20
    stated_mib, stated_files, stated_packed = _stated_sizes()
    assert abs(mib - stated_mib) <= 0.1 * stated_mib, (mib, stated_mib)
    assert abs(len(files) - stated_files) <= 0.1 * stated_files, (len(files), stated_files)
    assert abs(packed_mib - stated_packed) <= 0.1 * stated_packed, (packed_mib, stated_packed)
    env = _clean_env(tmp_path / "home")
    done = subprocess.run([standalone, "serve"], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=120)
    assert done.returncode == 2 and "needs the server extra" in done.stderr
    assert "Traceback" not in done.stderr
