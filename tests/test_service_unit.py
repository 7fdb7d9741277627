"""The systemd unit of docs/online.md, "A systemd unit" (packaging/blockyard.service):
shown in the docs as it is in the repository, every user, folder and program it
names created by a documented step, its command one that ``blockyard`` accepts,
and checked by systemd's own ``systemd-analyze verify`` (no unknown key, no
missing program) and ``security`` (its hardening rated "OK") where systemd is
installed, the PostgreSQL drop-in of the docs included."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from blockyard.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "packaging" / "blockyard.service"
CONFIG = ROOT / "packaging" / "server.toml"
DOCS = ROOT / "docs" / "online.md"
EXPOSURE_AT_MOST = 20
"""``systemd-analyze security``'s exposure level (×10) the unit may not exceed: 2.0,
"OK" (1.3 with systemd 252 when the unit was written)."""


def code_blocks(markdown: str) -> list[str]:
    """The indented code blocks of a Markdown text, unindented."""
    blocks, current = [], []
    for line in [*markdown.splitlines(), "end"]:
        if line.startswith("    ") or (current and not line.strip()):
            current.append(line[4:])
            continue
        if current:
            blocks.append("\n".join(current).strip("\n") + "\n")
        current = []
    return blocks


def setting(text: str, key: str) -> list[str]:
    """Every value given to ``key`` in a unit file's text, in order."""
    return [m.group(1) for m in re.finditer(rf"^{key}=(.*)$", text, re.MULTILINE)]


def drop_in() -> str:
    """The docs' PostgreSQL drop-in."""
    found = [b for b in code_blocks(DOCS.read_text(encoding="utf-8"))
             if b.startswith("[Unit]\nAfter=postgresql.service\n")]
    assert len(found) == 1, "docs/online.md shows the PostgreSQL drop-in once"
    return found[0]


def test_the_docs_show_the_unit_as_the_repository_holds_it() -> None:
    assert UNIT.read_text(encoding="utf-8") in code_blocks(DOCS.read_text(encoding="utf-8"))


def test_every_user_folder_and_program_of_the_unit_is_made_by_a_documented_step() -> None:
    unit = UNIT.read_text(encoding="utf-8")
    steps = [line for block in code_blocks(DOCS.read_text(encoding="utf-8"))
             for line in block.splitlines() if line.startswith("sudo ")]
    (user,), (group,) = setting(unit, "User"), setting(unit, "Group")
    assert any(shlex.split(step)[1:3] == ["useradd", "--system"] and
               shlex.split(step)[-1] == user and "--user-group" in step for step in steps)
    assert group == user  # useradd --user-group makes the group of the same name
    (home,) = [value.removeprefix("BLOCKYARD_HOME=") for value in setting(unit, "Environment")
               if value.startswith("BLOCKYARD_HOME=")]
    assert f"sudo install -d -o {user} -g {group} -m 0700 {home}" in steps
    assert setting(unit, "StateDirectory") == [Path(home).name]  # /var/lib/NAME
    assert home.startswith("/var/lib/")
    program = Path(shlex.split(setting(unit, "ExecStart")[0])[0])
    venv = program.parent.parent
    assert f"sudo python3 -m venv {venv}" in steps
    assert any(step.startswith(f"sudo {venv}/bin/pip install ") and "[server]" in step
               for step in steps)
    assert f"sudo install -m 0644 packaging/{UNIT.name} /etc/systemd/system/{UNIT.name}" \
        in steps
    (config,) = [arg for arg in shlex.split(setting(unit, "ExecStart")[0])
                 if arg.startswith("/etc/")]
    assert f"sudo install -d -m 0755 {Path(config).parent}" in steps
    assert f"sudo install -m 0644 packaging/{CONFIG.name} {config}" in steps


def test_the_docs_show_the_configuration_file_as_the_repository_holds_it() -> None:
    assert CONFIG.read_text(encoding="utf-8") in code_blocks(DOCS.read_text(encoding="utf-8"))


def test_the_units_command_and_its_configuration_are_ones_blockyard_accepts() -> None:
    from blockyard.server import config

    argv = shlex.split(setting(UNIT.read_text(encoding="utf-8"), "ExecStart")[0])
    assert argv[0] == "/opt/blockyard/venv/bin/blockyard"
    args = build_parser().parse_args(argv[1:])
    assert args.command == "serve" and args.config == "/etc/blockyard/server.toml"
    config.apply(config.read(CONFIG), args, environ={})
    assert (args.host, args.port) == ("127.0.0.1", 8765)
    # the drop-in only orders the start after PostgreSQL's
    assert drop_in() == "[Unit]\nAfter=postgresql.service\n"


def _analyze() -> str:
    found = shutil.which("systemd-analyze")
    if found is None:
        pytest.fail("systemd-analyze is missing: run `source scripts/setup.sh test` (it "
                    "installs Debian's systemd package, whose checker this test runs)")
    return found


def _installed(tmp_path: Path, with_drop_in: bool = False) -> Path:
    """The unit in a folder of its own, its program the ``blockyard`` of this
    environment (verify insists that the program exists), with the docs' drop-in
    beside it if asked."""
    program = Path(sys.executable).parent / "blockyard"
    assert program.exists(), program
    folder = tmp_path / "units"
    (folder / f"{UNIT.name}.d").mkdir(parents=True)
    unit = folder / UNIT.name
    unit.write_text(UNIT.read_text(encoding="utf-8").replace(
        "/opt/blockyard/venv/bin/blockyard", str(program)), encoding="utf-8")
    if with_drop_in:
        (folder / f"{UNIT.name}.d" / "override.conf").write_text(
            drop_in().replace("/opt/blockyard/venv/bin/blockyard", str(program)),
            encoding="utf-8")
    return unit


def _verify(unit: Path) -> subprocess.CompletedProcess[str]:
    # the unit's folder first on systemd's search path, so its drop-ins are read
    env = {**os.environ, "SYSTEMD_UNIT_PATH": f"{unit.parent}:"}
    return subprocess.run([_analyze(), "verify", str(unit)], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("with_drop_in", [False, True], ids=["unit", "postgresql-drop-in"])
def test_systemd_analyze_verify_finds_nothing_to_say(tmp_path: Path,
                                                     with_drop_in: bool) -> None:
    done = _verify(_installed(tmp_path, with_drop_in))
    # an unknown key or section is only a warning (status 0): none may be printed
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_systemd_analyze_verify_would_report_a_mistake(tmp_path: Path) -> None:
    unit = _installed(tmp_path)
    unit.write_text(unit.read_text().replace("ProtectHome=yes", "ProtectHomes=yes"))
    done = _verify(unit)
    assert "Unknown key 'ProtectHomes'" in done.stderr


def test_the_hardening_is_rated_ok(tmp_path: Path) -> None:
    done = subprocess.run([_analyze(), "security", "--offline=yes",
                           f"--threshold={EXPOSURE_AT_MOST}", str(_installed(tmp_path))],
                          capture_output=True, text=True, timeout=120)
    if "--offline" in done.stderr and "unrecognized" in done.stderr:
        pytest.skip("systemd-analyze before systemd 250 has no security --offline")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "Overall exposure level for blockyard.service:" in done.stdout
