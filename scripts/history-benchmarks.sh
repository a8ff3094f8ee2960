#!/usr/bin/env bash
# History horizon benchmark (release build), printed as a table: the disk a store of RECORDS
# records takes after EDITS one-record edits, before and after compaction to KEEP commits,
# beside a store that holds the records once and `git gc --prune=now` of the same repository;
# the time compaction and the pack that frees the old history take, and the peak extra disk.
# Default: --records 100000 --edits 1000000 --keep 10000 (several minutes, about 1 GB of disk
# at the peak). .ci/run says what CI runs, in the
# debug build (CONFIGURATION=debug; scripts/build-benchmarks.sh).
# At the full size on a quiet 2-core machine: compaction 9.0 s (target <= 10 s); finding the
# lineage's root from packed headers 7.7 s, where libgit2's commit lookups took 13.4 s and
# `git rev-list --first-parent` 11.0 s; the freeing pack 95 s.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(bash scripts/build-benchmarks.sh forkstore-history-benchmarks)"
exec "$bin/forkstore-history-benchmarks" "$@"
