#!/usr/bin/env bash
# Install Blockyard into .venv and start the game.
# Usage: bash scripts/play.sh [blockyard arguments, e.g. play eu-classic]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
exec .venv/bin/blockyard "$@"
