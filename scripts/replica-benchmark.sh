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
# each carries the whole Tally, which grows with every edit. Release build, 2 cores shared
# with other builds (load 5-11): 50 x 20 edits converge in 53 s, 200 x 20 in 854 s (edits
# 319 s, the catch-up round 536 s). The soak's debug build takes 50 x 20 in 217-275 s.
#
#   bash scripts/replica-benchmark.sh [REPLICAS [EDITS [SYNC_EVERY [CONCURRENCY [SECONDS]]]]]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test-servers
configuration="${CONFIGURATION:-release}"
swift build -c "$configuration" --product forkstore-stress-writer >&2
exec "$(swift build -c "$configuration" --show-bin-path)/forkstore-stress-writer" swarm "${@:-200}"
