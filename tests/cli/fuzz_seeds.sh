#!/bin/bash
# The archive fuzz target's seeds (tests/fuzz/corpus/archive/seed-*) must be
# archives this build opens: after a schema change, re-ingest them (the
# README's Testing section says how), or the fuzzer would only test refusals.
set -euo pipefail
for s in "$CCT_SRC"/tests/fuzz/corpus/archive/seed-*.sqlite; do
  "$CCTQ" -c 'flat 1' "$s" >/dev/null || { echo "FAIL: seed '$s' does not open; regenerate it"; exit 1; }
done
echo "ok archive fuzz seeds open"
