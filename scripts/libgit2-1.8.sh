#!/usr/bin/env bash
# Installs libgit2 1.8 (Debian 12's bookworm-backports: 1.8.4) *beside* the system's libgit2,
# under a prefix of its own (default /opt/libgit2-1.8, or $LIBGIT2_18_PREFIX), so the package
# can be built and tested against both versions. The system's apt sources, package lists and
# installed packages are left as they are: the backports list is read into a private folder
# (its own sources list and lists directory), the two packages (libgit2-1.8, libgit2-dev) are
# downloaded, not installed, and unpacked with `dpkg -x`; the .pc file's paths are rewritten
# to the prefix. libgit2-1.8's runtime libraries (mbedTLS 2.28, libssh2, http-parser, PCRE2,
# zlib, GSSAPI) are all Debian 12's own; any that is missing is installed from the system's
# sources. Safe to run again: it does nothing when the prefix holds libgit2 1.8.
#
# Prints, on standard output, the environment to build and test with it:
#   eval "$(bash scripts/libgit2-1.8.sh)"
#   swift build --scratch-path .build-libgit2-1.8 --build-tests \
#     -Xlinker -rpath -Xlinker "$LIBGIT2_18_LIBDIR"
# (scripts/test.sh does this with LIBGIT2=1.8.) Everything else goes to standard error.
set -euo pipefail

prefix="${LIBGIT2_18_PREFIX:-/opt/libgit2-1.8}"

print_environment() {
  echo "export PKG_CONFIG_PATH=\"$prefix/lib/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}\""
  echo "export LD_LIBRARY_PATH=\"$prefix/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
  echo "export LIBGIT2_18_LIBDIR=\"$prefix/lib\""
}

if [ -f "$prefix/lib/pkgconfig/libgit2.pc" ] && grep -q '^Version: 1\.8\.' "$prefix/lib/pkgconfig/libgit2.pc" \
  && [ -e "$prefix/include/git2.h" ] && ls "$prefix"/lib/libgit2.so.1.8* >/dev/null 2>&1; then
  print_environment
  exit 0
fi

command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 || {
  echo "libgit2-1.8.sh needs apt-get and dpkg (Debian 12)." >&2
  exit 1
}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# apt's download sandbox user (_apt) must be able to write the downloads.
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/root"
chmod -R a+rX "$work"
chmod a+w "$work/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm-backports main" \
  >"$work/sources.list"
private=(
  -o "Dir::Etc::SourceList=$work/sources.list"
  -o "Dir::Etc::SourceParts=/dev/null"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache"
)

echo "Reading bookworm-backports' package list into $work (the system's lists are untouched)" >&2
apt-get -qq "${private[@]}" update >&2

version="$(apt-cache "${private[@]}" show libgit2-1.8 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -1)"
case "$version" in
  1.8.*) ;;
  *)
    echo "bookworm-backports has no libgit2-1.8 (found '${version}')." >&2
    exit 1
    ;;
esac

# The runtime libraries libgit2-1.8 needs are Debian 12's own: install any that is missing.
missing=()
for dependency in $(apt-cache "${private[@]}" depends libgit2-1.8="$version" | sed -n 's/^ *Depends: \([^ ]*\).*/\1/p' | sort -u); do
  dpkg-query -W -f='${Status}' "$dependency" 2>/dev/null | grep -q "install ok installed" || missing+=("$dependency")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing libgit2 1.8's runtime dependencies from the system's sources: ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

echo "Downloading libgit2-1.8 and libgit2-dev $version" >&2
(cd "$work/debs" && apt-get -qq "${private[@]}" download "libgit2-1.8=$version" "libgit2-dev=$version" >&2)
for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/root"; done

pc="$(find "$work/root/usr/lib" -path '*/pkgconfig/libgit2.pc' | head -1)"
[ -n "$pc" ] || {
  echo "libgit2-dev $version holds no libgit2.pc" >&2
  exit 1
}
libdir="$(dirname "$(dirname "$pc")")"

$sudo mkdir -p "$prefix/lib/pkgconfig" "$prefix/include"
$sudo rm -rf "$prefix/include/git2" "$prefix/include/git2.h" "$prefix"/lib/libgit2.so*
$sudo cp -a "$work/root/usr/include/." "$prefix/include/"
$sudo cp -a "$libdir"/libgit2.so* "$prefix/lib/"
sed -e "s|^prefix=.*|prefix=\"$prefix\"|" \
  -e "s|^libdir=.*|libdir=\"$prefix/lib\"|" \
  -e "s|^includedir=.*|includedir=\"$prefix/include\"|" \
  "$pc" | $sudo tee "$prefix/lib/pkgconfig/libgit2.pc" >/dev/null

echo "libgit2 $version is in $prefix" >&2
print_environment
