"""A pytest plugin for rule-plugin authors: the ``blockyard_conformance`` fixture.

Installed with Blockyard (entry point ``pytest11``), so in a plugin package's
tests one line is enough::

    def test_my_ruleset_conforms(blockyard_conformance):
        blockyard_conformance("my-ruleset")

The fixture runs :func:`blockyard.testing.assert_conforms` and fails the test
with the kit's readable report.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .testing import Report, assert_conforms


@pytest.fixture
def blockyard_conformance() -> Callable[..., Report]:
    """Check a ruleset (id, path or Ruleset) with the conformance kit."""

    def check(ruleset: Any, **kwargs: Any) -> Report:
        return assert_conforms(ruleset, **kwargs)

    return check
