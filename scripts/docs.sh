#!/usr/bin/env bash
# Builds the DocC documentation of each public module, failing on any warning (a broken
# link, an undocumented parameter) and on any public symbol without a doc comment
# (scripts/doc-coverage.sh), and first checks that the generated async twins
# (scripts/async-twins.py) are current. Output goes to .build/docs/<Module>.doccarchive.
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Every public blocking call's async twin is generated; the generated files must be current.
python3 scripts/async-twins.py --check
# dump-symbol-graph covers every module, test modules included, so build them first.
swift build --build-tests >&2
# Extension blocks, so that what a module adds to another's types (ForkStoreQueries'
# RecordStore.query) is documented with the module that adds it.
swift package dump-symbol-graph --minimum-access-level public --emit-extension-block-symbols >&2
graphs=$(swift build --show-bin-path)/../symbolgraph
bash scripts/doc-coverage.sh "$graphs"
for module in ForkStore ForkStoreMerge ForkStoreExchange ForkStoreQueries; do
  only=".build/docs/$module-symbols"
  rm -rf "$only"
  mkdir -p "$only"
  cp "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json "$only/"
  docc convert "Sources/$module/$module.docc" \
    --additional-symbol-graph-dir "$only" \
    --fallback-display-name "$module" --fallback-bundle-identifier "dev.forkstore.$module" \
    --output-path ".build/docs/$module.doccarchive" --warnings-as-errors >/dev/null
  echo "docs: $module built without warnings"
done
