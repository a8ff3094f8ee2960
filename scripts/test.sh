#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, and runs the Swift Testing suites.
# Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --build-tests
swift test --skip-build "$@"
