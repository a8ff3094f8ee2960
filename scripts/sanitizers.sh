#!/usr/bin/env bash
# Builds and runs the tests under a sanitizer:
#
#   bash scripts/sanitizers.sh [address|thread] [swift test filter...]
#
# address (the default) is AddressSanitizer, thread is ThreadSanitizer. Each filter becomes a
# `--filter` (a test target, suite or test name; none runs every test). The build goes to its own
# scratch path, .build-<sanitizer> (git-ignored), so it never disturbs the ordinary .build.
# SANITIZER_SKIP, a regular expression of test ids, leaves more tests out (CI's budget).
# Installs what is missing first (libgit2, git, the test servers), as scripts/test.sh does.
# Exits non-zero on any sanitizer report or test failure.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-address}"
[ $# -gt 0 ] && shift
case "$sanitizer" in
  address|thread) ;;
  *) echo "usage: $0 [address|thread] [swift test filter...]" >&2; exit 2 ;;
esac

filters=()
for f in "$@"; do filters+=(--filter "$f"); done

bash scripts/setup.sh --test-servers
# LIBGIT2=1.8 builds and runs against libgit2 1.8, in its own folder, as scripts/test.sh does.
source scripts/libgit2-choice.sh

scratch=".build-$sanitizer$libgit2_suffix"
suppressions="$PWD/scripts/sanitizers/$sanitizer.supp"

# halt_on_error=1: the first report ends the test process with a non-zero status, so `swift test`
# fails and so does this script; a report can never scroll by in a passing run.
# abort_on_error=0 keeps it an ordinary exit (no core file), exitcode=66 makes it recognisable.
#
# detect_leaks=0: LeakSanitizer would report memory that is alive until exit by design, not
# leaked by ForkStore: libgit2's global state after git_libgit2_init (the settings, the
# transports, the mwindow cache, OpenSSL's), the Swift runtime's metadata caches and
# Foundation's/Dispatch's process-wide singletons. The test processes exit without
# git_libgit2_shutdown, so every run would "leak" them. Leak checking is a job for a
# dedicated run with a suppressions list, not for this gate.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=66:detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=0:exitcode=66${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
# Tests that repeat one path many times (the quarantine bound, forknotes' separate adds, the
# index killed mid-update) take fewer rounds under a sanitizer, which makes every process
# several times slower.
export FORKSTORE_SANITIZER="$sanitizer"
if [ -f "$suppressions" ]; then
  case "$sanitizer" in
    address) export ASAN_OPTIONS="$ASAN_OPTIONS:suppressions=$suppressions" ;;
    thread) export TSAN_OPTIONS="$TSAN_OPTIONS:suppressions=$suppressions" ;;
  esac
fi

start=$SECONDS
# Only the tests and what they run (forknotes, the stress writer): the snippets, benchmarks and
# fuzz tool, 33 more executables to compile and link, are built by scripts/docs.sh.
# No DWARF, as scripts/fuzz.sh builds: a report's stack still names every function, and the
# build takes 450 s where it took 494 s with it (CI's whole-suite run).
build=(--scratch-path "$scratch" --sanitize="$sanitizer" -debug-info-format none "${libgit2_flags[@]}")
swift build --product ForkStorePackageTests "${build[@]}"
check_loaded_libgit2 "$(swift build "${build[@]}" --show-bin-path)"
built=$SECONDS
echo "sanitizers.sh: $sanitizer build took $((built - start)) s" >&2

# Left out: tests whose bounds are an ordinary build's time or memory, which scripts/test.sh and
# the run beside CPU hogs check; a sanitized build is several times slower and a sanitizer's
# shadow memory swamps a process's peak. The timing suites (as scripts/beside-cpu-hogs.sh names
# them; under AddressSanitizer on 2 busy cores the load test took 78 s, a 10 s timeout bound
# 13.6 s, and live results ran past their minute), the blocked-calls test, the deep delta
# chain's 2 s bound (3.5 s), the gigabyte asset tests, forknotes' imports within 100 MB (137 MB of
# notes peaked at 382 MB, a 100 MB line at 95 MB), a refusal within a second of an empty import,
# its bombs (refused within 2 s and 64 MB of a good sync: 6.6 s over HTTP), and 500 signed
# commits checked within 60 s (about 2 s; 64.6 s under AddressSanitizer beside the other tests).
# And the many-replicas soak, which scripts/test.sh runs at 50 replicas: the exchange suites run
# its paths (syncs racing over smart HTTP, daemon and ssh), and under AddressSanitizer 12
# replicas took 82 s of both cores; under ThreadSanitizer they ran past its 8 minutes.
skip='LoadTests|TimeoutTests|SchedulingTests|LiveResultsTests|SyncLockTests|blockedCallsHoldUpNoOtherStore'
skip+='|everyObjectOfADeepChainIsCheckedInTimeLinearInItsDepth|AssetGigabyteTests'
skip+='|aLargeFileIsImportedInBoundedMemory|aLineOverTheLimitIsSkippedAtTheLimit|whatIsNotATextFileIsRefusedAtOnce'
skip+='|aBombIsRefusedFromItsHeaders|aThousandSignedCommitsAreCheckedInBoundedTime'
skip+='|ManyReplicasTests'
if [ -n "${SANITIZER_SKIP:-}" ]; then skip+="|$SANITIZER_SKIP"; fi
# One test per core in flight: with every test started at once, the slowest waited minutes for
# a turn on the cooperative pool, and ThreadSanitizer slows down with every thread it watches at
# once. On 2 cores the whole ThreadSanitizer run took 560-615 s with four tests per core (as
# scripts/test.sh runs them), 209 s with one; AddressSanitizer's 183 s and 173 s.
cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-$cores}"
source scripts/tests-in-memory.sh
status=0
swift test --skip-build "${build[@]}" "${filters[@]}" --skip "$skip" || status=$?
echo "sanitizers.sh: $sanitizer test run took $((SECONDS - built)) s (exit $status)" >&2
exit "$status"
