"""Meta-test, as datasette's test_plugin_hooks_have_tests: every hook in
core/hookspecs.py (registry, ruleset and game hooks alike) has

(a) at least one test whose name contains the hook's name WITHOUT its
    ``blockyard_`` prefix — ``test_time_limit_…`` for ``blockyard_time_limit``
    (a name with the prefix, ``test_blockyard_time_limit_…``, contains it too);
    the test must assert what the hook's documentation promises;
(b) an entry in MODDING.md's hook reference (section 4), ``### `blockyard_NAME(``.

The hooks are read from core/hookspecs.py when the test runs (every method of
its classes carrying pluggy's ``blockyard_spec`` marker), so adding or removing
a hook needs no edit here.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from blockyard import hookspecs

ROOT = Path(__file__).resolve().parents[1]
SPEC_MARKER = f"{hookspecs.PROJECT}_spec"


def hook_names() -> list[str]:
    """Every hook specified in blockyard.hookspecs, in source order."""
    names = []
    for _, cls in inspect.getmembers(hookspecs, inspect.isclass):
        if cls.__module__ != hookspecs.__name__:
            continue
        names += [name for name, func in vars(cls).items()
                  if callable(func) and hasattr(func, SPEC_MARKER)]
    return names


def collect_test_names() -> set[str]:
    """The name of every test function and method in the test suite."""
    names = set()
    for path in (ROOT / "tests").rglob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        names |= {node.name for node in ast.walk(tree)
                  if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.name.startswith("test_")}
    return names


def hook_reference() -> str:
    text = (ROOT / "MODDING.md").read_text(encoding="utf-8")
    section = re.search(r"^## 4\. Hook reference\n(.*?)^## 5\.", text, re.DOTALL | re.MULTILINE)
    assert section is not None, "MODDING.md has no section '## 4. Hook reference'"
    return section.group(1)


def test_the_hooks_are_read_from_the_specifications():
    hooks = hook_names()
    assert len(hooks) == len(set(hooks)) >= 15
    for name in ("blockyard_register_plugins", "blockyard_board_size", "blockyard_deal",
                 "blockyard_summary_tips"):
        assert name in hooks
    assert all(name.startswith("blockyard_") for name in hooks)


def test_every_hook_has_a_test_named_after_it():
    names = collect_test_names() - {"test_every_hook_has_a_test_named_after_it"}
    missing = [hook for hook in hook_names()
               if not any(hook.removeprefix("blockyard_") in name for name in names)]
    assert missing == [], f"hooks without a test named after them: {missing}"


def test_every_hook_is_in_the_modding_hook_reference():
    reference = hook_reference()
    missing = [hook for hook in hook_names() if f"### `{hook}(" not in reference]
    assert missing == [], f"hooks missing from MODDING.md's hook reference: {missing}"


def test_the_meta_test_notices_a_hook_without_a_test_or_an_entry():
    names = collect_test_names()
    assert not any("blockyard_no_such_hook".removeprefix("blockyard_") in n for n in names)
    assert "### `blockyard_no_such_hook(" not in hook_reference()
    assert "test_time_limit_puts_a_clock_on_the_game_that_ends_it_as_time" in names
