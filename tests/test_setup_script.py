"""scripts/setup.sh does what the README says of it: it installs libfribidi0 (Nepali
shaping) where it is missing, for players as well as for the tests. Run with
stand-in programs (ldconfig finding nothing, apt-get and the venv's pip logged),
so nothing is installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _stub(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.mark.parametrize("found", [False, True], ids=["missing", "present"])
def test_setup_installs_libfribidi_for_players_where_missing(tmp_path, found):
    log = tmp_path / "log"
    stubs = tmp_path / "bin"
    stubs.mkdir()
    listing = "libfribidi.so.0 (libc6,x86-64) => /lib/libfribidi.so.0" if found else ""
    _stub(stubs, "ldconfig", f"echo '{listing}'")
    _stub(stubs, "apt-get", f'echo "apt-get $*" >> {log}')
    _stub(stubs, "id", "echo 0")
    work = tmp_path / "checkout"
    (work / ".venv" / "bin").mkdir(parents=True)
    _stub(work / ".venv" / "bin", "python", f'echo "python $*" >> {log}')
    env = {**os.environ, "PATH": f"{stubs}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", f"source {ROOT / 'scripts' / 'setup.sh'}"], cwd=work,
                   env=env, check=True, capture_output=True, text=True)
    lines = log.read_text().splitlines()
    assert any(line.startswith("python -m pip install") for line in lines)
    installs = [line for line in lines if line.startswith("apt-get") and "install" in line]
    if found:
        assert installs == []
    else:
        assert installs == ["apt-get install -y -qq libfribidi0"]


def test_the_readme_says_what_the_script_does():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`scripts/setup.sh` installs it where missing" in " ".join(readme.split())
