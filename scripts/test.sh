#!/usr/bin/env bash
# Installs everything and runs the whole test suite (lint, types, tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh gui,heif,test,distributed
echo "== ruff" && .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy" && .venv/bin/mypy
echo "== pytest" && exec .venv/bin/python -m pytest "$@"
