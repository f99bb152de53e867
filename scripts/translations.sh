#!/usr/bin/env bash
# Refresh the translation sources from the code, then compile them for the app:
#   bash scripts/translations.sh          # after changing visible text
# Translate the new entries of resources/translations/*.ts with pyside6-linguist (or any
# .ts editor), then run this again to compile the .qm files the app loads.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
sources=(dupfinder/app/*.py dupfinder/gui/*.py)
for ts in resources/translations/*.ts; do
    "$bin/pyside6-lupdate" "${sources[@]}" -ts "$ts" -no-obsolete -locations none
    "$bin/pyside6-lrelease" "$ts" -qm "${ts%.ts}.qm"
done
