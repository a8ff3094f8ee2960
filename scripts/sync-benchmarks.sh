#!/usr/bin/env bash
# Sync benchmarks (release build), printed as a table: push-sync, pull-sync and no-op sync of
# one new record between two replicas through a remote over a path, git daemon, smart HTTP
# (lighttpd) over http and https, and ssh (sshd), beside raw libgit2 push/fetch and the git
# command line. Default: --sizes 100,10000,100000 --rounds 21 --transports path,git,http,https,ssh.
# Then the first-sync table: a new replica's first sync beside `git clone --bare` (time, peak
# memory) for N records, N commits of small data, and the same behind a checkpoint
# (--tables rounds,first; --repeats 3). .ci/run says what CI runs, in the
# debug build (CONFIGURATION=debug; scripts/build-benchmarks.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bin="$(bash scripts/build-benchmarks.sh forkstore-sync-benchmarks)"
exec "$bin/forkstore-sync-benchmarks" "$@"
