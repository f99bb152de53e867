#!/usr/bin/env bash
# Installs everything and runs the whole test suite (lint, types, tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh gui,heif,test,distributed
echo "== ruff" && .venv/bin/ruff check . && .venv/bin/ruff format --check .
echo "== mypy" && .venv/bin/mypy
# one worker per core (pytest-xdist); the bundle tests share one worker (their xdist_group),
# as the second installs what the first builds
echo "== pytest" && exec .venv/bin/python -m pytest -n auto --dist loadgroup "$@"
