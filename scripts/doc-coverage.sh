#!/usr/bin/env bash
# Fails when a public symbol of a library product (types, members, enum cases, initializers,
# protocol requirements) has no doc comment, listing each one with its file and line
# (scripts/doc-coverage.swift says what is not counted: what the compiler synthesizes, and
# implementations documented by the requirement they implement). scripts/docs.sh runs it on
# the symbol graphs it has dumped; alone, it builds and dumps them first:
#   bash scripts/doc-coverage.sh [symbol graph folder]
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=${1:-}
if [ -z "$graphs" ]; then
  bash scripts/setup.sh
  # dump-symbol-graph covers every module, test modules included, so build them first.
  swift build --build-tests >&2
  swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols >&2
  graphs=$(swift build --show-bin-path)/../symbolgraph
fi
package=$(mktemp)
trap 'rm -f "$package"' EXIT
swift package dump-package >"$package"
swift scripts/doc-coverage.swift "$package" "$graphs"
