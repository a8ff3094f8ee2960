#!/usr/bin/env bash
# Record collection benchmarks (release build), printed as a table: one-record commit and
# read, a batch of 100, a 10-versus-10 merge, open, read all, peak memory, bytes per record,
# a raw-libgit2 baseline for the one-record commit, and a one-record edit through forknotes.
# Default sizes: 1000,10000,100000. .ci/run says what CI runs, in the
# debug build (CONFIGURATION=debug; scripts/build-benchmarks.sh). A last table lists
# N notes with forknotes list --json beside git cat-file --batch of the same blobs.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bin="$(bash scripts/build-benchmarks.sh forknotes forkstore-record-benchmarks)"
exec "$bin/forkstore-record-benchmarks" "$@"
