#!/usr/bin/env bash
# Install everything the test suite needs into .venv and run it (lint, types, then
# every test tier in parallel on the machine's cores: pytest-xdist, one virtual
# screen per worker, one throwaway PostgreSQL cluster for the run).
# Usage: bash scripts/test.sh [pytest arguments]   (e.g. -m "not window and not server")
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh test
# The suite starts a Python process for every server, window process and command-line
# test besides its workers: with bytecode caching switched off in the environment each
# compiles the project from source again (and pytest rewrites every test module
# again in each worker). Cached as Python does by default (__pycache__, ignored by git).
unset PYTHONDONTWRITEBYTECODE
.venv/bin/ruff check .
# The type check (one process, about half a minute from a fresh clone) runs beside
# the tests, which leave a core free much of the time (a server test waits for its
# server, a window test for its window process); its verdict is printed and counted
# after theirs.
typecheck_log=$(mktemp)
trap 'rm -f "$typecheck_log"' EXIT
.venv/bin/python scripts/typecheck.py >"$typecheck_log" 2>&1 &
typecheck=$!
# Two workers more than the cores: a server or online test spends much of its time
# waiting for its server process (and the server for it), so one worker per core
# leaves the cores idle part of the run.
workers=${BLOCKYARD_TEST_WORKERS:-$(( $(nproc) + 2 ))}
status=0
.venv/bin/python -m pytest -n "$workers" "$@" || status=$?
typed=0
wait "$typecheck" || typed=$?
echo "type check (scripts/typecheck.py):"
cat "$typecheck_log"
if [ "$status" = 0 ] && [ "$typed" != 0 ]; then
    status=$typed
fi
exit "$status"
