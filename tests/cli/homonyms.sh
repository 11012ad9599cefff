#!/bin/bash
# homonyms.sh: functions that share a name but not an identity (SPEC section 5: name,
# module, file and line of the definition) stay separate rows and are told apart in the
# label of every row that prints a label (issue 25 item 6: a generated run's bottom-up
# showed three sibling 'helper' rows, from three files).  For each view below, the json
# rows give each row's identity (read by Python, not by cctq's own label code) and the
# tree's labels, in the same pre-order, must never print two identities the same.
# gauss has __write_nocancel in libpthread and libc (same file 'interp.c', no line: the
# module tells them apart) and MPI_Finalize in libmonitor (mpi_final_c.c:30) and libmpich
# ('~unknown-file~': the module, not that placeholder); LAMMPS' vgot(int) is two inline
# definitions in my_page.h (lines 73 and 74).
set -euo pipefail
: "${CCTINGEST:?}" "${CCTQ:?}" "${CCT_DATA:?}"
command -v python3 >/dev/null || { echo "homonyms: SKIP: python3 not found"; exit 77; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
check() { # check SAMPLE COMMANDS EXPECTED-LABEL...
  local d=$1 cmds=$2; shift 2
  "$CCTINGEST" --quiet "$CCT_DATA/$d" "$t/$d.sqlite" 2>/dev/null || [ -f "$t/$d.sqlite" ]
  "$CCTQ" "$t/$d.sqlite" -c "mode json; $cmds" >"$t/json"
  "$CCTQ" "$t/$d.sqlite" -c "mode tree; $cmds" >"$t/tree"
  python3 - "$t/json" "$t/tree" "$d: $cmds" "$@" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))["rows"]
lines = [l for l in open(sys.argv[2]).read().splitlines() if re.match(r"\s*\[\d+\]", l)]
what, want = sys.argv[3], sys.argv[4:]
if len(lines) != len(rows):
    print("FAIL", what, len(lines), "tree rows,", len(rows), "json rows"); sys.exit(1)
def label(line, row):
    # the label is the text after the row's name starts; the json name is its prefix
    i = line.find(row["name"])
    if i < 0: print("FAIL", what, "no name", row["name"], "in", line); sys.exit(1)
    return line[i:]
seen = {}
for line, row in zip(lines, rows):
    if row["kind"] != "function": continue
    ident = (row["name"], row["file"], row["line"], row["module"], row["inlined"], row["callsite"])
    lab = label(line, row)
    if lab in seen and seen[lab] != ident:
        print("FAIL", what, "label", repr(lab), "prints", seen[lab], "and", ident); sys.exit(1)
    seen[lab] = ident
for w in want:
    if w not in seen:
        print("FAIL", what, "no row labelled", repr(w), "; labels:", sorted(l for l in seen if w.split(" (")[0] in l)); sys.exit(1)
print("ok", what, len(seen), "function labels, each one identity")
PY
}
check classic-hpcviewer-gauss "flat 0" "__write_nocancel (libpthread-2.5.so)" "__write_nocancel (libc-2.5.so)" \
  "MPI_Finalize (mpi_final_c.c:30)" "MPI_Finalize (libmpich.so.1.0)" "PMPI_Comm_rank (pmpi.c:291)"
check classic-hpcviewer-gauss "center PMPI_Comm_rank; topdown 3"
check v4-hpcviewer-lmp-openmp "flat 0" "LAMMPS_NS::MyPage<int>::vgot(int) (my_page.h:73)" \
  "LAMMPS_NS::MyPage<int>::vgot(int) (my_page.h:74)"
check v4-hpcviewer-lmp-openmp "granularity line; topdown 8"
check classic-callflow-lulesh "flat 0"
check classic-callflow-lulesh "topdown 6"

# Folded lines name frames by the same labels: flame-graph tools add up lines of the same
# path, so two rows of different identities must never print the same path (gauss'
# 'Partial Call Paths' calls ~unknown-proc~ in libc and in libpthread; bare names merged them).
folded_distinct() { # folded_distinct SAMPLE COMMANDS
  "$CCTQ" "$t/$1.sqlite" -c "mode folded; $2" >"$t/folded"
  [ -s "$t/folded" ] || { echo "FAIL $1: $2: no folded lines"; exit 1; }
  sed 's/ [-0-9.e+]*$//' "$t/folded" | sort | uniq -d >"$t/dups"
  [ ! -s "$t/dups" ] || { echo "FAIL $1: $2: folded paths printed twice:"; cat "$t/dups"; exit 1; }
  echo "ok $1: $2: $(wc -l <"$t/folded") folded lines, each path once"
}
folded_distinct classic-hpcviewer-gauss "hotpath off; topdown 4"
grep -q '^<program>;Partial Call Paths;~unknown-proc~ (libmlx4-rdmav2.so);~unknown-proc~ (libpthread-2.5.so) ' "$t/folded" ||
  { echo "FAIL gauss: no folded line ends in ~unknown-proc~ (libpthread-2.5.so)"; exit 1; }
folded_distinct v4-hpcviewer-lmp-openmp "hotpath off; topdown 6"
folded_distinct classic-callflow-lulesh "topdown 6"
