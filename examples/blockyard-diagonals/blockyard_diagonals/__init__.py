"""``diagonals``: the board's two long diagonals are regions too.

A full diagonal clears together with full rows and columns (``line-clearing``
empties every completed region) and counts as one more line for scoring. The
plugin only contributes regions; clearing and scoring stay with the plugins the
rule file already names. On a board that is not square there are no long
diagonals, which the plugin reports when the ruleset loads.
"""

from __future__ import annotations

from importlib.resources import files

from blockyard import RulesetError, hookimpl
from blockyard.geometry import Region


class Diagonals:
    name = "diagonals"

    def __init__(self, params):
        self.which = params.string("which", "both", choices=("both", "main", "anti"))
        self.where = params.path

    @hookimpl
    def blockyard_check_ruleset(self, ruleset):
        if ruleset.rows != ruleset.cols:
            raise RulesetError(f"long diagonals need a square board, not {ruleset.rows}×"
                               f"{ruleset.cols}", path=self.where, key="plugins.diagonals")

    @hookimpl
    def blockyard_regions(self, ruleset, geometry):
        n = geometry.rows
        regions = []
        if self.which in ("both", "main"):
            regions.append(Region("diag", 0, sum(1 << (i * n + i) for i in range(n))))
        if self.which in ("both", "anti"):
            regions.append(Region("diag", 1, sum(1 << (i * n + n - 1 - i) for i in range(n))))
        return regions


@hookimpl
def blockyard_register_plugins(register):
    register(Diagonals.name, Diagonals)


@hookimpl
def blockyard_register_rulesets(register):
    register(files("blockyard_diagonals.rulesets"))
