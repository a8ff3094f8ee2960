#!/usr/bin/env bash
# Builds in release mode and runs the benchmarks (package-benchmark), printing a table per
# benchmark. Each benchmark is bounded in time and iterations. Extra arguments go to
# `swift package benchmark`, e.g. --filter "Text.*".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd Benchmarks
swift package --disable-sandbox benchmark --no-progress "$@"
