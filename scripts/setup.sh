#!/usr/bin/env bash
# Installs what ForkStore needs to build, if it is missing: libgit2 (with pkg-config), zlib (for
# the pack format), SQLite (for the query index, through GRDB), libcurl (for Git LFS transfers)
# and git. With --test-servers, also the servers the tests start on 127.0.0.1: lighttpd (for
# git http-backend, over http and, with its mod_openssl, https, and in front of giftless), sshd,
# gitolite3 (per-user access over ssh), openssl, git-lfs (Debian's Git LFS client, for interop
# tests), and the Git LFS server giftless in a Python virtual environment, .venv-giftless/ at the
# package root (pip, from PyPI, pinned by scripts/giftless-requirements.txt). Safe to run again;
# it does nothing when all is there.
set -euo pipefail

need=()
command -v git >/dev/null 2>&1 || need+=(git)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
pkg-config --exists libgit2 2>/dev/null || need+=(libgit2-dev)
pkg-config --exists sqlite3 2>/dev/null || need+=(libsqlite3-dev)
pkg-config --exists zlib 2>/dev/null || need+=(zlib1g-dev)
pkg-config --exists libcurl 2>/dev/null || need+=(libcurl4-openssl-dev)
if [ "${1:-}" = "--test-servers" ]; then
  [ -x /usr/sbin/lighttpd ] || need+=(lighttpd)
  [ -f /usr/lib/lighttpd/mod_openssl.so ] || need+=(lighttpd-mod-openssl)
  [ -x /usr/sbin/sshd ] || need+=(openssh-server)
  [ -x /usr/bin/gitolite ] || need+=(gitolite3)
  command -v ssh-keygen >/dev/null 2>&1 || need+=(openssh-client)
  command -v openssl >/dev/null 2>&1 || need+=(openssl)
  command -v git-lfs >/dev/null 2>&1 || need+=(git-lfs)
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need+=(python3-venv)
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
requirements="$root/scripts/giftless-requirements.txt"
venv="$root/.venv-giftless"
# The virtual environment is made again when the requirements change.
giftless_ready() {
  [ -x "$venv/bin/waitress-serve" ] && cmp -s "$requirements" "$venv/requirements.txt"
}
make_giftless() {
  [ "${1:-}" = "--test-servers" ] || return 0
  giftless_ready && return 0
  echo "Installing giftless into $venv (pip, from PyPI)" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
}

if [ ${#need[@]} -eq 0 ]; then
  make_giftless "${1:-}"
  exit 0
fi

if command -v apt-get >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing: ${need[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
elif command -v brew >/dev/null 2>&1; then
  brew install libgit2 pkg-config git curl
  [ "${1:-}" = "--test-servers" ] && brew install lighttpd git-lfs
else
  echo "Please install libgit2 and libcurl (with their pkg-config files) and git, then run this again." >&2
  exit 1
fi
make_giftless "${1:-}"
