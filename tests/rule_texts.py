"""Rule files several test modules play (written into a temporary folder by
each test, with the ``rule_file`` fixture or by hand)."""

TRAY_LOOKS = """
[ruleset]
id = "tray-looks"
name = "Tray looks"
family = "test"
description = "a bomb and a dot of the same shape"
[board]
rows = 6
cols = 6
[pieces.dot]
shapes = ["#"]
[pieces.square]
shapes = ["##/##"]
[pieces.bomb]
shapes = ["#"]
look = { mark = "burst", outline = true }
[plugins.weighted-dealing]
[plugins.line-clearing]
[plugins.line-scoring]
triangular_base = 10
"""
"""A tray ruleset with a dot, a square and a bomb piece of a dot's shape drawn
with its own look (burst mark, outlined)."""

HELPED = '''
[ruleset]
id = "helped"
name = "Helped"
family = "test"
description = "d"
[board]
rows = 4
cols = 4
[pieces.dot]
weight = 1
shapes = ["#"]
[plugins.weighted-dealing]
[plugins.line-clearing]
'''
"""The smallest tray ruleset, for a [help] table appended to it."""
