"""Every Gymnasium id the documents show on its own works in a fresh interpreter:
it carries the ``blockyard.gym:`` prefix (which makes Gymnasium import the module
that registers the environments), and each one shown is made for real."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
ID = re.compile(r"(?<![\w.:/])(?:blockyard\.gym:)?blockyard/[a-z0-9-]+-v0")
CALL = re.compile(r"gymnasium\.make(?:_vec)?\(\"([^\"]+)\"")


def _ids() -> list[tuple[str, str]]:
    found = []
    for path in DOCUMENTS:
        for match in ID.finditer(path.read_text(encoding="utf-8")):
            found.append((path.name, match.group(0)))
    return found


def test_every_id_standing_alone_has_the_module_prefix():
    found = _ids()
    assert any(name == "gym.md" for name, _ in found)
    bare = [(name, found_id) for name, found_id in found
            if not found_id.startswith("blockyard.gym:")]
    assert bare == []


def test_the_ids_in_calls_work_in_a_fresh_interpreter():
    calls = sorted({m.group(1) for path in DOCUMENTS
                    for m in CALL.finditer(path.read_text(encoding="utf-8"))})
    assert calls
    shown = sorted(set(calls) | {found_id for _, found_id in _ids()})
    code = ("import gymnasium, sys\n"
            "for env_id in sys.argv[1:]:\n"
            "    gymnasium.make_vec(env_id, num_envs=2).close()\n"
            "    gymnasium.make(env_id).close()\n")
    result = subprocess.run([sys.executable, "-c", code, *shown], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
