#!/bin/bash
# A line that only inlined code covers (issue 27 item 11): 'center line
# lulesh.cc:1150' on LULESH finds no line context there, since hpcprof made line
# 1150 a nameless '<inline>' frame (Pr n="" l="1150") around the inlined
# CalcVolumeForceForElems(Domain&).  SPEC section 4 has FILE:LINE name line
# contexts only, so the item is still refused, but the error says exactly what
# to type: the frame's '#ID' and the inlined function's name (it said 'function
# <inline> is defined at lulesh.cc:1150 (center <inline>)', which centers on
# all 354 of LULESH's inlined frames).  The ids and the name are read from the
# XML here; then both suggested items are tried.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
xml="$CCT_DATA/classic-callflow-lulesh/experiment.xml"
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$t/a.sqlite"
read -r id name <<<"$(python3 - "$xml" <<'PY'
import re, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
procs = {p.get("i"): p.get("n") for p in root.iter("Procedure")}
files = {f.get("i"): f.get("n") for f in root.iter("File")}
hits = [e for e in root.iter("Pr") if e.get("l") == "1150" and procs[e.get("n")] in ("", "<inline>")
        and files[e.get("f")].endswith("/lulesh.cc")]
assert len(hits) == 1, hits
inner = [c for c in hits[0] if c.tag == "Pr"]
print(hits[0].get("i"), procs[inner[0].get("n")])
PY
)"
[ "$id" = 116 ] && [ "$name" = "CalcVolumeForceForElems(Domain&)" ] || fail "the XML's frame at 1150: '$id' '$name'"
for item in "line lulesh.cc:1150" "lulesh.cc:1150"; do
  if "$CCTQ" "$t/a.sqlite" -c "center $item" 2>"$t/err"; then fail "center $item was taken"; fi
  grep -qF "lulesh.cc:1150 holds no line of its own: $name is inlined there, in frame #$id (center #$id for that call, or center $name for every call of it)" "$t/err" ||
    { cat "$t/err"; fail "center $item: the message does not say what to type"; }
  grep -q "center <inline>" "$t/err" && fail "center $item still suggests 'center <inline>'"
done
"$CCTQ" "$t/a.sqlite" -c "center #$id; center; center $name; center" >"$t/ok" || fail "the suggested items fail"
grep -qx "#$id  (1 occurrence)" "$t/ok" || { cat "$t/ok"; fail "center #$id"; }
grep -q "^$name  (" "$t/ok" || { cat "$t/ok"; fail "center $name"; }
echo "ok: line 1150 of LULESH says 'center #$id' or 'center $name'"
