#!/usr/bin/env bash
# Many replicas through one remote (issue 25), run by hand: REPLICAS replicas (default 200),
# each a process with a store of its own, make EDITS edits each (default 20), syncing after
# every SYNC_EVERY (default 10) through one smart-HTTP remote (lighttpd + git http-backend),
# CONCURRENCY processes at a time (default 8), then sync again until every replica holds the
# remote's tree. Prints the time to convergence, the syncs and push retries, and the remote's
# size, pack count and loose objects; exits 1 when an edit was lost, a replica failed or never
# converged, or `git fsck --strict` finds fault with the remote. SECONDS (default 3600) bounds
# the run. Release build; CONFIGURATION=debug uses the debug one.
#
# The cost grows faster than the replicas: a late replica fetches every commit it lacks, and
# each carries the whole Tally, which grows with every edit. On 2 shared cores, debug build:
# 50 x 20 edits converge in 95-150 s; 200 x 5 in 468 s; 200 x 20 had 98 replicas done after
# 6 min (3,603 edits) and was stopped.
#
#   bash scripts/replica-benchmark.sh [REPLICAS [EDITS [SYNC_EVERY [CONCURRENCY [SECONDS]]]]]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test-servers
configuration="${CONFIGURATION:-release}"
swift build -c "$configuration" --product forkstore-stress-writer >&2
exec "$(swift build -c "$configuration" --show-bin-path)/forkstore-stress-writer" swarm "${@:-200}"
