#!/usr/bin/env bash
# Asset transfer benchmarks (release build), printed as a table: time and peak memory of
# uploading and downloading the same files through one giftless (a real Git LFS server on
# 127.0.0.1) with ForkStore (the stress writer's asset-push / asset-fetch, a process each),
# `git lfs push` / `git lfs fetch`, and curl (PUT / GET of the batch answer's hrefs, one
# process, --parallel), in rounds whose tool order rotates, with ratios.
# Default: --workloads 1x1G,100x10M,1000x100K --rounds 3 (about 3 GB of disk at a time, and
# 20-30 minutes). .ci/run says what CI runs, in the
# debug build (CONFIGURATION=debug; scripts/build-benchmarks.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test-servers
bin="$(bash scripts/build-benchmarks.sh forkstore-stress-writer forkstore-asset-benchmarks)"
exec "$bin/forkstore-asset-benchmarks" "$@"
