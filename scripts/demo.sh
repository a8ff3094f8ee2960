#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the sample CLI's demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build --product forknotes >&2
exec swift run --skip-build forknotes demo "$@"
