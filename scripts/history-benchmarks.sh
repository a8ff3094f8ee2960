#!/usr/bin/env bash
# History horizon benchmark (release build), printed as a table: the disk a store of RECORDS
# records takes after EDITS one-record edits, before and after compaction to KEEP commits,
# beside a store that holds the records once and `git gc --prune=now` of the same repository;
# the time compaction and the pack that frees the old history take, and the peak extra disk.
# Default: --records 100000 --edits 1000000 --keep 10000 (several minutes, about 1 GB of disk
# at the peak). CI runs: --records 2000 --edits 20000 --keep 500.
# At the full size on a 2-core machine busy with other builds (the history took 810 s to write,
# 252 s when quiet): compaction 15.6 s, of which finding the lineage's root from packed headers
# 8.3 s, where libgit2's commit lookups took 15.5 s and `git rev-list --first-parent` 12.0 s;
# the freeing pack 98 s.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product forkstore-history-benchmarks >&2
exec .build/release/forkstore-history-benchmarks "$@"
