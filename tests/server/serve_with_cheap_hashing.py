"""``blockyard serve`` for the tests whose matter is not the password hash:
``python tests/server/serve_with_cheap_hashing.py serve ...`` runs the command
line as ``python -m blockyard`` does, with argon2 at its smallest cost (still a
real hash, verified as any other). Each account a test makes costs the server
two hashes (its creation, its sign-in), about 0.4 s of CPU at the real cost:
hundreds of them are made by tests that check tables, games and live
connections. The tests of signing up and in (test_server_http.py) run the
server at the real cost (``start_server(..., real_hashing=True)``).

The hasher is replaced before Blockyard's accounts module makes its own, at
this file's import: also in the processes ``--workers`` starts (multiprocessing
imports the main file again in each)."""

from __future__ import annotations

import sys

import argon2


class CheapHasher(argon2.PasswordHasher):
    """argon2 at its smallest cost, whatever the arguments."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)


argon2.PasswordHasher = CheapHasher  # type: ignore[misc]

if __name__ == "__main__":
    from blockyard.cli import main

    raise SystemExit(main(sys.argv[1:]))
