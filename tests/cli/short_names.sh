#!/bin/bash
# Names cut at 80 columns stay apart (issue 27 item 2).  On
# v4-hpcviewer-lmp-openmp, 'width 80; center loop pair_lj_cut_omp.cpp:96;
# bottomup 4' printed 'LAMMPS_NS::Pair..._NS::ThrData*) [...]' for both
# callers eval<0, 0, 1> and eval<1, 1, 1> (a cut in the middle kept the
# namespace and the parameter list, dropped the name and its template
# arguments).  Now the parameter lists go first, then template arguments,
# then qualifiers, and what tells two names apart stays: the two rows read
# 'eval<0, 0, 1>(...)' and '...eval<1, 1, 1>(...)'.  Over whole views at 80
# columns (topdown 12, flat 0, bottomup of the loop), two rows that print
# one label have one name in csv (down to depth 6: deeper, the connectors
# leave a name 12 to 19 columns), and no line passes 80 columns but where
# deep connectors leave a name its 12.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-lmp-openmp" "$t/l.sqlite"
"$CCTQ" "$t/l.sqlite" -c "width 80; center loop pair_lj_cut_omp.cpp:96; bottomup 4" >"$t/bu"
grep -q '^ \[2\] .* |- eval<0, 0, 1>(...) \[inlined\]$' "$t/bu" || { cat "$t/bu"; fail "row 2 is not eval<0, 0, 1>"; }
grep -q '^ \[8\] .* `- .*eval<1, 1, 1>(...) \[.*\]$' "$t/bu" || { cat "$t/bu"; fail "row 8 is not eval<1, 1, 1>"; }
PYTHONPATH="$CCT_SRC/tests/cli" python3 - "$t/l.sqlite" <<'PY'
import re, sys
from view_rows import fail, printed
for v in ("topdown 12", "flat 0", "center loop pair_lj_cut_omp.cpp:96; bottomup 6"):
    seen = {}
    for l, r in printed(sys.argv[1], v, v, "width 80; "):
        m = re.match(r"^ *\[\d+\](?:  +\S+ +\S+%){2}(?:  +\d+)? [ *] ((?:[| ]  )*(?:[|`]- )?)(.*)$", l)
        if not m: fail(v, "cannot read %r" % l)
        label = m.group(2)
        if len(l) > 80 and len(label) > 12: fail(v, "line wider than 80: %r" % l)
        key = (r["name"], r["module"])
        if int(r["depth"] or 0) > 6: continue  # deeper, connectors leave a name 12 to 19 columns: no promise
        if label in seen and seen[label][0] != r["name"]:
            fail(v, "%r prints for %r and %r" % (label, seen[label][0], r["name"]))
        seen[label] = key
PY
# The TUI cuts names the same way: at 80 columns its bottom-up pane of the
# loop shows both instances of eval apart (it cut them in the middle before).
echo "ok (the shell's part)"
source "$CCT_SRC/tests/cli/lib/tmux.bash" # skips the TUI's part without tmux
tmux_start 80 30 "TERM=xterm-256color '$CCTQ' --tui -c 'center loop pair_lj_cut_omp.cpp:96' '$t/l.sqlite'"
wait_for 'Top-down of loop' "the TUI did not start on the loop"
keys b
wait_for 'Bottom-up of loop' "'b' did not show the bottom-up pane"
keys Down Enter
wait_for 'eval<0, 0, 1>\(\.\.\.\) \[inlined\]' "TUI at 80 columns: no row 'eval<0, 0, 1>(...) [inlined]'"
wait_for 'eval<1, 1, 1>\(\.\.\.\)' "TUI at 80 columns: no row 'eval<1, 1, 1>(...)' apart from eval<0, 0, 1>"
