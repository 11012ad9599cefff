#!/bin/bash
# inlined_note.sh: a function whose code is inlined (issue 25 item 7).  On hpcviewer's
# classic inline sample 'center f._omp_fn.0' has exclusive 0 (SPEC section 3: a frame's
# exclusive is its own code; the loops are in the '<inline>' frames inside it) where
# hpcviewer's classic exclusive, which adds the inlined frames directly inside a procedure
# frame, shows 1.13e11.  Topdown and bottomup say so: a note in tree and table, the
# field 'inlined_exclusive' on the top row in csv and json.  Its value is worked out here
# from experiment.xml with Python: the 'cycles:Sum (E)' of every Pr (inlined frame) reached
# from a PF of f._omp_fn.0 through its loops and statements only.  A function with its
# own exclusive above its inlined frames' (gauss 'main', the v4 inline sample's
# f._omp_fn.0) gets neither.
set -euo pipefail
: "${CCTINGEST:?}" "${CCTQ:?}" "${CCT_DATA:?}"
command -v python3 >/dev/null || { echo "inlined_note: SKIP: python3 not found"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
db="$CCT_DATA/classic-hpcviewer-inline.xml.db"
"$CCTINGEST" --quiet "$db" "$t/a.sqlite"
want=$(python3 - "$db/experiment.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
proc = {p.get("i"): p.get("n") for p in root.iter("Procedure")}
excl = next(m.get("i") for m in root.iter("Metric") if m.get("n") == "cycles:Sum (E)")
def e(el): return sum(float(m.get("v")) for m in el.findall("M") if m.get("n") == excl)
def inlined_below(el):  # Pr frames reached through loops and statements only
    s = 0.0
    for c in el:
        if c.tag == "Pr" and c.get("a") == "1": s += e(c)
        elif c.tag in ("L", "S"): s += inlined_below(c)
    return s
print(repr(sum(inlined_below(pf) for pf in root.iter("PF") if proc.get(pf.get("n")) == "f._omp_fn.0")))
PY
)
for v in topdown bottomup; do
  for m in tree table; do
    "$CCTQ" "$t/a.sqlite" -c "center f._omp_fn.0; mode $m; $v 2" >"$t/out"
    # a whole number of cycles as the views print it (it read '1.13e+11' beside rows of 113384800000)
    grep -q "^note: f._omp_fn.0's exclusive leaves out $(printf %.0f "$want") cycles in the frames inlined into it" "$t/out" ||
      { echo "FAIL $v $m: no note"; cat "$t/out"; exit 1; }
  done
  "$CCTQ" "$t/a.sqlite" -c "center f._omp_fn.0; mode json; $v 2" >"$t/json"
  "$CCTQ" "$t/a.sqlite" -c "center f._omp_fn.0; mode csv; $v 2" >"$t/csv"
  python3 - "$t/json" "$t/csv" "$want" "$v" <<'PY'
import csv, json, sys
j, c, want, view = json.load(open(sys.argv[1])), list(csv.DictReader(open(sys.argv[2]))), float(sys.argv[3]), sys.argv[4]
top = j["rows"][0]
def close(a, b): return abs(a - b) <= 1e-5 * abs(b)
if top["values"]["cycles"]["exclusive"] != 0: sys.exit("FAIL %s: top exclusive %r" % (view, top["values"]["cycles"]))
if not close(top["inlined_exclusive"], want): sys.exit("FAIL %s json: %r, want %r" % (view, top["inlined_exclusive"], want))
if not close(float(c[0]["inlined_exclusive"]), want): sys.exit("FAIL %s csv: %r, want %r" % (view, c[0]["inlined_exclusive"], want))
if any(r["inlined_exclusive"] is not None for r in j["rows"][1:]) or any(r["inlined_exclusive"] for r in c[1:]):
    sys.exit("FAIL %s: a row below the top carries inlined_exclusive" % view)
print("ok", view, "inlined_exclusive", top["inlined_exclusive"], "from experiment.xml", want)
PY
done
# no note and no field where the function's own exclusive is the larger
for d in classic-hpcviewer-gauss:main v4-hpcviewer-inline.meta.db:f._omp_fn.0; do
  "$CCTINGEST" --quiet "$CCT_DATA/${d%%:*}" "$t/${d%%:*}.sqlite"
  for m in tree csv json; do
    "$CCTQ" "$t/${d%%:*}.sqlite" -c "center ${d#*:}; mode $m; topdown 2" >"$t/out"
    if grep -q "inlined_exclusive\|frames inlined into it" "$t/out"; then echo "FAIL $d $m: an inlined note"; exit 1; fi
  done
  echo "ok $d: no inlined note"
done
