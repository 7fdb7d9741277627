#!/usr/bin/env bash
# Install everything the test suite needs into .venv and run it (lint + pytest).
# Usage: bash scripts/test.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh test
.venv/bin/ruff check .
.venv/bin/python scripts/typecheck.py
exec .venv/bin/python -m pytest "$@"
