#!/usr/bin/env bash
# Builds in release mode and runs the benchmarks (package-benchmark), printing a table per
# benchmark. Each benchmark is bounded in time and iterations. Extra arguments go to
# `swift package benchmark`, e.g. --filter "Text.*".
#
# CONFIGURATION=debug (CI's check that the suite still builds and runs) builds it in the debug
# build the tests use instead, where package-benchmark's plugin does not run, and runs its
# runner directly: each benchmark's name and mean wall-clock time in nanoseconds, which in a
# debug build are not measurements. Extra arguments then go to the runner (--filter works).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd Benchmarks
if [ "${CONFIGURATION:-release}" = debug ]; then
  echo "benchmarks: a debug build, run to check that the benchmark works; its figures are not measurements" >&2
  swift build --scratch-path ../.build --product MergeBenchmarks >&2
  ../.build/debug/MergeBenchmarks "$@" 2>&1 | grep -E '^Debug results for|^#\[Mean'
else
  # The root package's build folder: the benchmark package compiles ForkStore, swift-crypto
  # and the rest with the very commands the root's release build uses, so each is compiled once
  # for both (scripts/build-benchmarks.sh builds the record, sync, asset and history tables
  # there too). Its own folder cost CI a second release build of all of them.
  swift package --scratch-path ../.build --disable-sandbox benchmark --no-progress "$@"
fi
