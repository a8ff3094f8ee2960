#!/usr/bin/env bash
# History horizon benchmark (release build), printed as a table: the disk a store of RECORDS
# records takes after EDITS one-record edits, before and after compaction to KEEP commits,
# beside a store that holds the records once and `git gc --prune=now` of the same repository;
# the time compaction and the pack that frees the old history take, and the peak extra disk.
# Default: --records 100000 --edits 1000000 --keep 10000 (several minutes, about 1 GB of disk
# at the peak). CI runs: --records 2000 --edits 20000 --keep 500.
# Known limit: at the full size the pack that frees the dropped history did not finish in 20
# minutes on a loaded 2-core machine: libgit2's git_packbuilder_insert_walk reads every reachable
# object whole, through fast-import's long delta chains. 10,000 records after 100,000 edits
# (keep 1,000) takes 21 s there; compaction itself 1.5 s.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product forkstore-history-benchmarks >&2
exec .build/release/forkstore-history-benchmarks "$@"
