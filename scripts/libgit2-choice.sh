# Sourced by scripts/test.sh and scripts/sanitizers.sh: the libgit2 to build and test against,
# chosen by LIBGIT2. Unset (or "system"): the system's, Debian 12's 1.5.1. "1.8": Debian 12's
# bookworm-backports' 1.8.4, installed beside it by scripts/libgit2-1.8.sh.
#
# Sets libgit2_flags (swift build's extra flags: the rpath to 1.8) and libgit2_suffix (for the
# scratch path). A build against 1.8 has its own folder because ForkStore compiles against each
# version's headers (Sources/CLibGit2/shim.h), and clang's module cache in a shared folder would
# keep the other version's. Exports FORKSTORE_EXPECT_LIBGIT2 for the suite's own check
# (LibgitVersionTests). check_loaded_libgit2 BIN_PATH fails unless the test binary there loads
# the chosen libgit2 and no other.
libgit2_flags=()
libgit2_suffix=""
case "${LIBGIT2:-}" in
  "" | system) ;;
  1.8)
    eval "$(bash scripts/libgit2-1.8.sh)"
    libgit2_flags=(-Xlinker -rpath -Xlinker "$LIBGIT2_18_LIBDIR")
    libgit2_suffix="-libgit2-1.8"
    export FORKSTORE_EXPECT_LIBGIT2=1.8
    ;;
  *)
    echo "LIBGIT2 is '${LIBGIT2}': leave it unset for the system's libgit2, or set it to 1.8." >&2
    exit 2
    ;;
esac

check_loaded_libgit2() {
  [ "${LIBGIT2:-system}" = 1.8 ] || return 0
  local tests loaded
  tests="$(find "$1" -maxdepth 1 -name '*PackageTests.xctest' | head -1)"
  loaded="$(env -u LD_LIBRARY_PATH ldd "$tests" | awk '/libgit2/ { print $3 }')"
  if [ "$loaded" != "$LIBGIT2_18_LIBDIR/libgit2.so.1.8" ]; then
    echo "The tests would load libgit2 from '${loaded}', not $LIBGIT2_18_LIBDIR/libgit2.so.1.8." >&2
    exit 1
  fi
  echo "libgit2: $loaded" >&2
}
