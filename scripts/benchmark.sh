#!/usr/bin/env bash
# Builds in release mode and runs the benchmarks (package-benchmark), printing a table per
# benchmark. Each benchmark is bounded in time and iterations. Extra arguments go to
# `swift package benchmark`, e.g. --filter "Text.*".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cd Benchmarks
# The root package's build folder: the benchmark package compiles ForkStore, swift-crypto and
# the rest with the very commands the root's release build uses, so each is compiled once for
# both (CI builds the record, sync, asset and history tables there too). Its own folder cost CI
# a second release build of all of them, about 5 minutes of its 40.
swift package --scratch-path ../.build --disable-sandbox benchmark --no-progress "$@"
