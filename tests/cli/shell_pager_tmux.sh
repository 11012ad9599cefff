#!/bin/bash
# cctq on a real terminal (tmux, as shell_tmux.sh), issue 12 items 3, 7, 8:
# - the pager: on a terminal a command's output goes through $PAGER (here a
#   shell command appending to a file, so the test can read what it got);
#   'pager off' prints directly; off a terminal the pager is never started;
# - history: each line is in $CCTQ_HISTORY as soon as it is entered (read
#   before quitting, then after a kill -9 of the shell);
# - widths: a centered bottomup on v4-hpcviewer-lmp-openmp in an 80- and a
#   200-column terminal: no line wider than the terminal (but where deep
#   connectors leave a name its minimum), every connector kept, at 200
#   columns every name whole (as csv gives it), at 80 long ones cut with '...'.
set -euo pipefail
t=$(mktemp -d)
source "$CCT_SRC/tests/cli/lib/tmux.bash"
fail() { echo "FAIL: $*"; echo "--- screen:"; screen; exit 1; }
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpcviewer-lmp-openmp" "$t/l.sqlite"
center="center 'LAMMPS_NS::PairLJCutOMP::eval<0, 0, 1>(int, int, LAMMPS_NS::ThrData*)'"
cat >"$t/run" <<SH
#!/bin/sh
cd "$t"
export CCTQ_HISTORY="$t/history" TERM=xterm HOME="$t" INPUTRC=/dev/null PAGER="\${PAGER_CMD:-cat >>$t/paged}"
unset COLUMNS
exec "$CCTQ" l.sqlite
SH
chmod +x "$t/run"
tmux_start 120 40 "$t/run"
wait_for '^cctq> ?$' "no first prompt"
keys 'flat 3' Enter
wait_for '^cctq> ?$' "no prompt after flat 3"
sleep 0.2
grep -q 'gomp_thread_start' "$t/paged" 2>/dev/null || fail "flat 3 did not go through the pager"
grep -qx 'flat 3' "$t/history" || fail "history: 'flat 3' not written when entered"
keys 'pager off' Enter 'flat 2' Enter
wait_for '^\[2\] .*gomp_thread_start' "flat 2 with the pager off not on the screen"
[ "$(grep -c 'application thread' "$t/paged")" = 1 ] || fail "pager off: flat 2 went to the pager"
grep -qx 'flat 2' "$t/history" || fail "history: 'flat 2' not written when entered"
# A killed shell keeps its history.
keys 'topdown 1' Enter
wait_for '^cctq> ?$' "no prompt after topdown 1"
tmux -L "$sock" kill-server
grep -qx 'topdown 1' "$t/history" || { cat "$t/history"; echo "FAIL: history lost on kill"; exit 1; }
# Off a terminal no pager.
rm -f "$t/paged"
(cd "$t" && PAGER="cat >>$t/paged" "$CCTQ" l.sqlite -c "flat 3" >/dev/null)
[ ! -e "$t/paged" ] || { echo "FAIL: pager started off a terminal"; exit 1; }
# Widths at 80 and 200 columns.
"$CCTQ" "$t/l.sqlite" -c "$center; mode csv; bottomup 4" >"$t/csv"
for w in 80 200; do
  tmux_start $w 40 "PAGER_CMD=cat $t/run"
  wait_for '^cctq> ?$' "no first prompt at $w columns"
  keys "$center; bottomup 4" Enter
  wait_for '^\[7\] ' "no bottomup at $w columns"
  screen >"$t/screen$w"
  tmux -L "$sock" kill-server
  python3 - "$t" $w <<'PY' || { cat "$t/screen$w"; exit 1; }
import csv, re, sys
t, w = sys.argv[1], int(sys.argv[2])
def fail(m): print("FAIL: %d columns: %s" % (w, m)); sys.exit(1)
rows = list(csv.DictReader(open(t + "/csv", newline="")))
lines = [l.rstrip("\n") for l in open(t + "/screen%d" % w) if re.match(r"^\[\d+\]", l)]
if len(lines) != len(rows): fail("%d rows, csv %d" % (len(lines), len(rows)))
cut = 0
for l, r in zip(lines, rows):
    d = int(r["depth"])
    m = re.match(r"^\[\d+\](?:  +\S+ +\S+%){2} [ *](?: +\d+ )? (.*)$", l)  # (bottomup: the contexts column)
    if not m: fail("cannot read %r" % l)
    conn, label = m.group(1)[:3 * d], m.group(1)[3 * d:]
    if d and not re.fullmatch(r"(?:[| ]  )*[|`]- ", conn): fail("connectors lost: %r" % l)
    if len(l) > w and len(label) > 12: fail("wider than the terminal: %r" % l)
    if label == r["name"]: continue
    if "..." not in label: fail("name neither whole nor cut with '...': %r" % label)
    cut += 1
if w == 200 and cut: fail("%d names cut" % cut)
if w == 80 and not cut: fail("no name cut")
print("ok %d columns: %d of %d names cut" % (w, cut, len(rows)))
PY
done
echo ok
