#!/usr/bin/env bash
# History horizon benchmark (release build), printed as a table: the disk a store of RECORDS
# records takes after EDITS one-record edits, before and after compaction to KEEP commits,
# beside a store that holds the records once and `git gc --prune=now` of the same repository;
# the time compaction and the pack that frees the old history take, and the peak extra disk.
# Default: --records 100000 --edits 1000000 --keep 10000 (several minutes, about 1 GB of disk
# at the peak). CI runs: --records 2000 --edits 20000 --keep 500.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product forkstore-history-benchmarks >&2
exec .build/release/forkstore-history-benchmarks "$@"
