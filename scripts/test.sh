#!/usr/bin/env bash
# Runs every test: installs what is missing (libgit2, git, and the servers the exchange tests
# start on 127.0.0.1: lighttpd + git http-backend, sshd), builds, and runs the Swift Testing
# suites, the bounded soak tests included. Exits non-zero on any failure.
#
# Against the system's libgit2 (Debian 12: 1.5.1) by default. With LIBGIT2=1.8, against
# libgit2 1.8 (Debian 12's bookworm-backports: 1.8.4), installed beside the system's by
# scripts/libgit2-1.8.sh and built in .build-libgit2-1.8, with an rpath to it; the run checks
# that the test binary loads that libgit2 and no other.
#
# The many-replicas soak (ManyReplicasTests: 50 replica processes, 8 at a time, through one
# smart-HTTP remote; 2-5 minutes of both cores) runs on its own after the other tests, so its
# processes never crowd the timing tests, and only against the system's libgit2: CI runs this
# script for both, and the other exchange suites cover 1.8 over the same transport. The
# gigabyte asset tests (AssetGigabyteTests: a 1 GiB attachment between two replica processes
# through a path remote, and through giftless, each process within 64 MB; 3-4 GB of disk, or of
# /dev/shm, for a minute each) run alone after it, on the same terms. Arguments go to `swift
# test`; with arguments there is one run, which they choose. The tests' temporary folders are in
# /dev/shm when it has room (scripts/tests-in-memory.sh; TMPDIR=/tmp keeps them on disk).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test-servers

source scripts/libgit2-choice.sh
build=("${libgit2_flags[@]}")
soak=yes
# Everything against the system's libgit2. Against 1.8, only the tests and what they run
# (forknotes, the stress writer): the snippets, benchmarks and fuzz tool do not change with it.
if [ "${LIBGIT2:-system}" = 1.8 ]; then
  build+=(--scratch-path ".build$libgit2_suffix")
  soak=no
  swift build "${build[@]}" --product ForkStorePackageTests
else
  swift build "${build[@]}" --build-tests
fi
check_loaded_libgit2 "$(swift build "${build[@]}" --show-bin-path)"

# Swift Testing starts every test at once, on Swift's cooperative pool (a thread per core): a
# test awaiting a timeout or a sync resumes behind every test body queued before it, and each
# runs until it next awaits. At most four tests per core in flight keeps that queue short, so
# the timing tests hold on a busy machine (issue 25: beside two CPU hogs, syncs with 500 ms
# timeouts were seen offline after 4.7-11 s without the cap, 0.56-0.63 s with it). Swift
# Testing's own setting, still named experimental; an explicit value is kept.
cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$((4 * cores))}"
source scripts/tests-in-memory.sh
if [ "$#" -gt 0 ]; then
  swift test "${build[@]}" --skip-build "$@"  # under set -e, a failure's status is the script's
  exit 0
fi
# Each run's output is kept, and a failing run's failures are printed again at the end: CI
# shows only the last lines of a run, and the failure is otherwise thousands of lines up.
log="$(mktemp -t forkstore-tests.XXXXXX)"
trap 'rm -f "$log"; remove_tests_tmpdir' EXIT
status=0
run() {
  local code=0
  swift test "${build[@]}" --skip-build "$@" 2>&1 | tee "$log" || code=$?
  if [ "$code" -ne 0 ]; then
    status=$code
    echo "--- what failed in: swift test $* (libgit2 ${LIBGIT2:-system}) ---"
    grep -a -A 2 -e '^✘ ' -e '^Fatal error' -e '^error: ' "$log" | head -n 80 || true
  fi
}
run --skip 'ManyReplicasTests|AssetGigabyteTests'
if [ "$soak" = yes ]; then
  run --filter ManyReplicasTests
  run --filter AssetGigabyteTests
fi
exit "$status"
