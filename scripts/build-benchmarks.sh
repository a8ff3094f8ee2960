#!/usr/bin/env bash
# Builds the benchmark scripts' products in .build and prints the folder that holds them:
#
#   bin="$(bash scripts/build-benchmarks.sh PRODUCT...)"
#
# In release mode, unless CONFIGURATION=debug: then in the debug build the tests use (CI's
# check that every benchmark still builds and runs, without a release build of its own; the
# figures of a debug build are not measurements, and a note on standard error says so).
#
# Release with --disable-sandbox because scripts/benchmark.sh builds package-benchmark's suites
# in this same folder through its plugin, which needs the flag, and SwiftPM passes it on to
# every compile: with it here too, the commands are the same and every module is compiled once
# for all the benchmarks (without it, CI compiled each Swift module twice). Nothing here runs a
# plugin.
set -euo pipefail
cd "$(dirname "$0")/.."
configuration="${CONFIGURATION:-release}"
case "$configuration" in
  release) flags=(-c release --disable-sandbox) ;;
  debug)
    flags=(-c debug)
    echo "benchmarks: a debug build, run to check that the benchmark works; its figures are not measurements" >&2
    ;;
  *) echo "CONFIGURATION must be release or debug, not '$configuration'" >&2; exit 2 ;;
esac
for product in "$@"; do
  swift build "${flags[@]}" --product "$product" >&2
done
swift build "${flags[@]}" --show-bin-path
