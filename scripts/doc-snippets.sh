#!/usr/bin/env bash
# Copies every ```swift block of README.md and of the DocC articles into Snippets/, one file
# per block (Snippets/<Article>-<n>.swift), where `swift build` compiles each as a program of
# its own. Run it after editing a block; a test fails while the two disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p Snippets
rm -f Snippets/*.swift
for doc in README.md Sources/*/*.docc/*.md; do
  awk -v stem="$(basename "$doc" .md)" '
    /^```swift[[:space:]]*$/ { n++; file = "Snippets/" stem "-" n ".swift"; inside = 1; printf "" > file; next }
    inside && /^```[[:space:]]*$/ { inside = 0; close(file); next }
    inside { print > file }
  ' "$doc"
done
ls Snippets
