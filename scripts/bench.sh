#!/usr/bin/env bash
# Installs dupfinder with the peer libraries and runs every benchmark side by side.
# Usage: scripts/bench.sh [--quick] [--only NAME ...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh gui,heif,test,bench
exec .venv/bin/python -m bench.run_all "$@"
