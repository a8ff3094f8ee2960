#!/usr/bin/env bash
# Runs every test: installs what is missing (libgit2, git, and the servers the exchange tests
# start on 127.0.0.1: lighttpd + git http-backend, sshd), builds, and runs the Swift Testing
# suites, the bounded soak test included. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test-servers
swift build --build-tests
swift test --skip-build "$@"
