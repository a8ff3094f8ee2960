#!/usr/bin/env bash
# Fuzzes every parser of outside bytes with libFuzzer (issue 23): builds Fuzz/ (one binary,
# forkstore-fuzz, with -sanitize=fuzzer,address) and runs each target for N seconds on a core of
# its own, as many targets at once as there are cores, from a fresh copy of its seed corpus
# (Fuzz/Corpus/<target>/) in a scratch folder under .build-fuzz/runs/. Prints a table: target,
# executions, exec/s, crashes. Exits non-zero if any target crashed, printing where the crash
# input is kept; replay one with
#   FORKSTORE_FUZZ_TARGET=<target> .build-fuzz/debug/forkstore-fuzz <crash file>
# or, in a plain build, swift run forkstore-fuzz <target> <crash file>.
#
#   scripts/fuzz.sh [--seconds N] [target...]   (default: 10 s, every target)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

seconds=10
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seconds=*) seconds="${1#*=}"; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

# Its own scratch path: the sanitizer flags rebuild every module, which must not disturb .build.
# FORKSTORE_FUZZ makes Fuzz/ a libFuzzer harness (a plain build makes it a replay tool). No
# DWARF: function names suffice for the stacks, the link is faster, and gold's DWARF reader
# dies (internal error in format_file_lineno) when it has a link error to report.
scratch=.build-fuzz
flags=(--product forkstore-fuzz --scratch-path "$scratch" -debug-info-format none
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFORKSTORE_FUZZ)
swift build "${flags[@]}" 2>&1 | grep -v "Cannot export local symbol '__asan" >&2
binary="$(swift build "${flags[@]}" --show-bin-path)/forkstore-fuzz"

if [ ${#targets[@]} -eq 0 ]; then
  # Every target, in FuzzTarget.all's order.
  while IFS= read -r name; do targets+=("$name"); done < <(FORKSTORE_FUZZ_TARGET=list "$binary")
fi

run="$scratch/runs/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$run"

# One target's run; its table row goes to $dir/row, and a crash's report to $dir/crashed.
fuzz_one() {
  local target="$1" dir="$run/$1" status=0
  mkdir -p "$dir/corpus" "$dir/artifacts"
  [ -d "Fuzz/Corpus/$target" ] && cp Fuzz/Corpus/"$target"/* "$dir/corpus/" 2>/dev/null || true
  # Swift's own crash backtracer would race AddressSanitizer's report of the same crash.
  SWIFT_BACKTRACE=enable=no FORKSTORE_FUZZ_TARGET="$target" ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" \
    "$binary" "$dir/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/" > "$dir/log" 2>&1 || status=$?
  local executions rate crashes
  executions="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)"
  rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)"
  crashes="$(find "$dir/artifacts" -type f | wc -l | tr -d ' ')"
  if [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ]; then crashes="?"; fi
  printf '%-20s %12s %10s %8s\n' "$target" "${executions:--}" "${rate:--}" "$crashes" > "$dir/row"
  if [ "$crashes" != 0 ]; then
    {
      echo "!! $target crashed (exit $status); input kept:"
      find "$dir/artifacts" -type f
      grep -m 5 -E 'property failed|Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|==ERROR' "$dir/log" || tail -20 "$dir/log"
    } > "$dir/crashed"
  fi
}

# Each target is one process on one core, so a target per core halves CI's fuzz step on two
# cores and leaves each target the same time.
cores="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)"
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n || true; done
  echo "== $target: $seconds s (log: $run/$target/log)" >&2
  fuzz_one "$target" &
done
wait

printf '%-20s %12s %10s %8s\n' target executions exec/s crashes > "$run/table"
failed=0
for target in "${targets[@]}"; do
  cat "$run/$target/row" >> "$run/table" 2>/dev/null || printf '%-20s %12s %10s %8s\n' "$target" - - "?" >> "$run/table"
  if [ -f "$run/$target/crashed" ] || [ ! -f "$run/$target/row" ]; then
    failed=1
    cat "$run/$target/crashed" >&2 2>/dev/null || echo "!! $target did not finish" >&2
  fi
done
cat "$run/table"
echo "(runs in $run)"
exit $failed
