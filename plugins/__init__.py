"""Bundled rule plugins.

One module per mechanic, each plugin named as rule files name it:

- :mod:`.clearing` — ``line-clearing`` (rows and columns; ``gravity`` option)
- :mod:`.dealing` — ``weighted-dealing`` (family weights, score tiers, fit guarantees)
- :mod:`.scoring` — ``line-scoring`` (cells, line points, combos, perfect clears)
- :mod:`.endings` — ``clock``, ``end-when-stuck`` (a no-op kept for old rule files)
- :mod:`.rescues` — ``continue``, ``zen-refill``, ``swaps``
- :mod:`.rotation` — ``rotation``
- :mod:`.tips` — ``tips`` (the end-of-round summary's tip)
- :mod:`.falling` — ``falling-stones`` (how stones fall in falling games)
- :mod:`.sudoku` — ``sudoku-stones``, ``sudoku-rules`` (Sudoku Bloxx)

:mod:`.bundled` registers them through the ``blockyard`` entry point, exactly as
a third-party package would.
"""
