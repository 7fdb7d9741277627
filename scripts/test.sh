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
.venv/bin/python scripts/typecheck.py
exec .venv/bin/python -m pytest -n "${BLOCKYARD_TEST_WORKERS:-auto}" "$@"
