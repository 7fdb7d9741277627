#!/usr/bin/env bash
# Install everything the test suite needs into .venv and run it (lint, types, then
# every test tier in parallel on the machine's cores: pytest-xdist, one virtual
# screen per worker, one throwaway PostgreSQL cluster for the run).
# Usage: bash scripts/test.sh [pytest arguments]   (e.g. -m "not window and not server")
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh test
.venv/bin/ruff check .
.venv/bin/python scripts/typecheck.py
exec .venv/bin/python -m pytest -n "${BLOCKYARD_TEST_WORKERS:-auto}" "$@"
