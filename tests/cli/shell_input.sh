#!/bin/bash
# Shell input (issue 13 item 14): after an unterminated quote, input read line
# by line is scanned once, not re-split at every line (200,000 lines took
# minutes when each line re-split the whole buffer; now well under the 30 s
# allowed); '-f DIR' is refused with a message instead of running nothing.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/a.sqlite"
{ echo "center 'unterminated"; awk 'BEGIN { for (i = 0; i < 200000; i++) print "flat 1" }'; } >"$t/long"
if timeout 30 "$CCTQ" -f "$t/long" "$t/a.sqlite" >/dev/null 2>"$t/err"; then echo "FAIL unterminated quote: exit 0"; exit 1; fi
grep -q "^cctq: error: unterminated single quote in 'center 'unterminated" "$t/err" ||
  { echo "FAIL unterminated quote (timed out or no message):"; head -c 300 "$t/err"; exit 1; }
echo "ok 200,000 lines after an unterminated quote: one pass"
# the same input through stdin ('-f -')
timeout 30 "$CCTQ" -f - "$t/a.sqlite" <"$t/long" >/dev/null 2>"$t/err" || true
grep -q "^cctq: error: unterminated single quote" "$t/err" || { echo "FAIL -f - after an unterminated quote"; exit 1; }

# -f DIR
if "$CCTQ" -f "$t" "$t/a.sqlite" >"$t/out" 2>"$t/err"; then echo "FAIL -f DIR: exit 0"; exit 1; fi
[ "$(cat "$t/err")" = "cctq: error: cannot read script '$t': Is a directory" ] || { echo "FAIL -f DIR:"; cat "$t/err"; exit 1; }
[ ! -s "$t/out" ] || { echo "FAIL -f DIR: output"; exit 1; }
echo "ok -f DIR: $(cat "$t/err")"
