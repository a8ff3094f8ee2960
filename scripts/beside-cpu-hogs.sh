#!/usr/bin/env bash
# Runs a command beside two CPU hogs (`yes > /dev/null`, twice), as on a machine doing other
# things (issue 25): a test that waits for a cooperative thread, or a timeout queued behind
# other work, shows up here. The hogs are killed when the command ends, whatever its outcome;
# the command is stopped after --limit seconds (default 1200) and then fails.
#
#   bash scripts/beside-cpu-hogs.sh [--limit SECONDS] COMMAND [ARGUMENTS...]
#   bash scripts/beside-cpu-hogs.sh --timing-suites    # the timing-sensitive suites, built first
set -euo pipefail
cd "$(dirname "$0")/.."

limit=1200
if [ "${1:-}" = "--limit" ]; then
  limit="$2"
  shift 2
fi
if [ "${1:-}" = "--timing-suites" ]; then
  # Built before the hogs start (the test command's own build is then done at once), so the
  # limit bounds the tests alone.
  swift build --build-tests
  set -- bash scripts/test.sh --filter 'LoadTests|TimeoutTests|SchedulingTests|LiveResultsTests|SyncLockTests'
fi
if [ "$#" -eq 0 ]; then
  echo "usage: $0 [--limit SECONDS] COMMAND [ARGUMENTS...] | --timing-suites" >&2
  exit 2
fi

hogs=()
stop_hogs() { for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_hogs EXIT
for _ in 1 2; do
  yes > /dev/null &
  hogs+=("$!")
done

echo "beside two CPU hogs (${hogs[*]}), at most ${limit} s: $*" >&2
started=$SECONDS
status=0
timeout --kill-after=30 "$limit" "$@" || status=$?
echo "finished with status ${status} after $((SECONDS - started)) s beside two CPU hogs" >&2
if [ "$status" -eq 124 ]; then echo "stopped at the ${limit} s limit" >&2; fi
exit "$status"
