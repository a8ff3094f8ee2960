# Sourced by scripts/test.sh and scripts/sanitizers.sh: the tests' temporary folders (their
# stores, remotes and servers' files, and what git and the child processes write) go to a folder
# of their own in /dev/shm when it has room, through TMPDIR, removed when the script exits.
#
# The suite creates and deletes hundreds of thousands of files: on ext4, finding an inode for
# each new one among those just freed (recently_deleted, find_inode_bit) took about 14% of the
# suite's CPU, and the debug suite ran in 130-133 s in /dev/shm against 164-167 s in /tmp.
# Only when /dev/shm and the memory available each have 8 GiB free (the gigabyte asset tests
# hold 3-4 GB for a minute each, and /dev/shm's files are memory) and /dev/shm allows
# executables (tests install git hooks); never when TMPDIR is set (TMPDIR=/tmp turns it off).
#
# Sets and exports TMPDIR, sets tests_tmpdir (empty when no folder was made) and defines
# remove_tests_tmpdir, which the EXIT trap set here calls: a caller that sets its own EXIT trap
# calls it there. INT and TERM exit through that trap. A folder left by a run that was killed
# (its script's process gone, untouched for an hour) is removed by the next run.
tests_tmpdir=""
# A read-only store's test cut short leaves folders no one may write: made writable first.
remove_test_folder() {
  chmod -R u+w "$1" 2>/dev/null || true
  rm -rf "$1" || echo "tests-in-memory.sh: could not remove $1" >&2
}
remove_tests_tmpdir() {
  [ -z "$tests_tmpdir" ] || remove_test_folder "$tests_tmpdir"
}
while IFS= read -r stale; do
  owner="${stale#/dev/shm/forkstore-tests.}"
  kill -0 "${owner%%.*}" 2>/dev/null || remove_test_folder "$stale"
done < <(find /dev/shm -maxdepth 1 -name 'forkstore-tests.*' -user "$(id -u)" -mmin +60 \
  2>/dev/null || true)
noexec='$2 == "/dev/shm" && $4 ~ /(^|,)noexec(,|$)/ { found = 1 } END { exit !found }'
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && ! awk "$noexec" /proc/mounts; then
  free_kb="$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }' || true)"
  available_kb="$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo 2>/dev/null || true)"
  room_kb=$((8 * 1024 * 1024))
  if [ "${free_kb:-0}" -ge "$room_kb" ] && [ "${available_kb:-0}" -ge "$room_kb" ]; then
    tests_tmpdir="$(mktemp -d "/dev/shm/forkstore-tests.$$.XXXXXX")"
    # Open to everyone, as /tmp is: tests run commands as another user (a store's reader).
    chmod 1777 "$tests_tmpdir"
    export TMPDIR="$tests_tmpdir"
  fi
fi
trap remove_tests_tmpdir EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
