#!/usr/bin/env bash
# Builds products in release mode, in .build, for the benchmark scripts:
#
#   bash scripts/build-release.sh PRODUCT...
#
# --disable-sandbox because scripts/benchmark.sh builds package-benchmark's suites in this same
# folder through its plugin, which needs the flag, and SwiftPM passes it on to every compile:
# with it here too, the commands are the same and every module is compiled once for all the
# benchmarks (without it, CI compiled each Swift module twice). Nothing here runs a plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
for product in "$@"; do
  swift build -c release --disable-sandbox --product "$product" >&2
done
