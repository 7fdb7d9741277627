"""Meta-test (as datasette does): every hook is documented, and every hook is
exercised by the engine or a bundled plugin."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from blockyard import hookspecs

ROOT = Path(__file__).resolve().parents[1]


def all_hooks() -> dict[str, object]:
    out = {}
    for cls in (hookspecs.RegistrySpecs, *hookspecs.SPEC_CLASSES):
        for name, func in vars(cls).items():
            if name.startswith("blockyard_"):
                out[name] = func
    return out


def test_every_hook_has_a_docstring_and_type_hints():
    for name, func in all_hooks().items():
        doc = inspect.getdoc(func)
        assert doc and len(doc) > 40, f"{name} needs a real docstring"
        annotations = inspect.get_annotations(func)
        assert "return" in annotations, f"{name} needs a return annotation"


def test_every_hook_is_called_by_blockyard_and_has_a_test():
    sources = "\n".join(p.read_text() for folder in ("core", "plugins")
                        for p in (ROOT / folder).glob("*.py"))
    tests = "\n".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py")
                      if p.name != "test_hooks.py")
    for name in all_hooks():
        short = name.removeprefix("blockyard_")
        called = re.search(rf'call\(\s*"{short}"', sources) is not None \
            or f'"{name}"' in sources or f"hook.{name}" in sources
        assert called, f"{name} is never called"
        assert name in tests, f"{name} has no test that names it"
