# Sourced by scripts/test.sh and scripts/sanitizers.sh: the tests' temporary folders (their
# stores, remotes and servers' files, and what git and the child processes write) go to a folder
# of their own in /dev/shm when it has room, through TMPDIR, removed when the script exits.
#
# The suite creates and deletes hundreds of thousands of files: on ext4, finding an inode for
# each new one among those just freed (recently_deleted, find_inode_bit) took about 14% of the
# suite's CPU, and the debug suite ran in 130-133 s in /dev/shm against 164-167 s in /tmp.
# 8 GiB free at least: the gigabyte asset tests hold 3-4 GB for a minute each. Otherwise, or
# when TMPDIR is set already, nothing changes. Sets and exports TMPDIR; sets tests_tmpdir to
# the folder to remove (empty when none was made). The caller's EXIT trap removes it; INT and
# TERM exit through that trap. A folder left by a run that was killed (its script's process is
# gone) is removed by the next run: memory is not freed until it is.
tests_tmpdir=""
for stale in /dev/shm/forkstore-tests.*; do
  owner="${stale#/dev/shm/forkstore-tests.}"
  owner="${owner%%.*}"
  if [ -O "$stale" ] && [ -n "$owner" ] && ! kill -0 "$owner" 2>/dev/null; then rm -rf "$stale"; fi
done
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then
  free_kb="$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')"
  if [ "${free_kb:-0}" -ge $((8 * 1024 * 1024)) ]; then
    tests_tmpdir="$(mktemp -d "/dev/shm/forkstore-tests.$$.XXXXXX")"
    # Open to everyone, as /tmp is: tests run commands as another user (a store's reader).
    chmod 1777 "$tests_tmpdir"
    export TMPDIR="$tests_tmpdir"
  fi
fi
trap 'exit 130' INT
trap 'exit 143' TERM
