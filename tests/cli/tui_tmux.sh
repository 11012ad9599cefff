#!/bin/bash
# cctq --tui on a real terminal: a detached tmux session (private server) runs
# the TUI on real samples; keys go in with send-keys, the screen comes back
# with capture-pane.  Every pane is checked by tests/cli/tui_check.py against
# the shell's JSON output of the same view ('cctq -c "mode json; center X;
# topdown 30"'), so the TUI's numbers are the shell's:
#   - start (120x40): flat, tree and source panes, the status line, no center;
#   - 'c' on a flat row (found with '/'), on a tree row and on a source line
#     (lulesh without source text, cpi with it) each re-center every pane;
#   - 'b' / 't' toggle bottom-up / top-down; 'r' resets; 'u' undoes; '/' that
#     finds nothing says so;
#   - resized to 80x24 (source hidden until 's') and 250x70 the panes still check;
#   - 'q' leaves the alternate screen with the terminal modes restored;
#   - 'tui' in the shell returns to the prompt, the TUI's center kept;
#   - NO_COLOR: no colour escapes; without it the center rows are coloured.
set -euo pipefail
t=$(mktemp -d)
session=tui
source "$CCT_SRC/tests/cli/lib/tmux.bash"
"$CCTINGEST" --quiet "$CCT_DATA/classic-callflow-lulesh" "$t/lulesh.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/handmade-src" "$t/cpi.sqlite"
check="python3 $CCT_SRC/tests/cli/tui_check.py"

# run ARGS...: the program under test in the session, then the terminal modes.
cat >"$t/run" <<SH
#!/bin/sh
cd "$t"
export TERM=xterm-256color LANG=C.UTF-8 HOME="$t" CCTQ_HISTORY="$t/history" INPUTRC=/dev/null
unset NO_COLOR
[ -n "\${TUI_NO_COLOR:-}" ] && export NO_COLOR=1
stty -g >"$t/stty.before"
"$CCTQ" "\$@"
echo "exit status \$?"
stty -g >"$t/stty.after"
echo EXITED
sleep 600
SH
chmod +x "$t/run"

start() { # start W H ARGS... (TUI_NO_COLOR=1 start ...: with NO_COLOR)
  w=$1 h=$2
  shift 2
  tmux_start "$w" "$h" "TUI_NO_COLOR=${TUI_NO_COLOR:-} $t/run $*"
}
# The column of the timeline's cursor caret, on the axis line under the strips ("0 s   ^   4.691 s").
caret() { screen | awk '/^ +0 s .*\^/ { print index($0, "^"); exit }'; }
# The shell's JSON of 'CMDS' on archive $1 into $t/view.json.
shell_json() { "$CCTQ" -c "mode json; $2" "$t/$1" >"$t/view.json"; }
# pane KIND ARCHIVE CMDS: the pane on screen matches the shell's view; the screen and the
# view are kept and checked at the end (check_panes) by one tui_check.py for them all.
panes=0
: >"$t/panes"
pane() {
  panes=$((panes + 1))
  shell_json "$2" "$3"
  mv "$t/view.json" "$t/view.$panes.json"
  screen >"$t/screen.$panes.txt"
  printf '%s %s %s %s\n' "$1" "$t/screen.$panes.txt" "$t/view.$panes.json" "'$3' on $2" >>"$t/panes"
}
check_panes() { $check batch "$t/panes" || exit 1; }
# every_pane ARCHIVE CENTER-CMDS: flat, tree (top-down) and source panes of the center.
every_pane() {
  pane flat "$1" "$2 flat 200"
  pane tree "$1" "$2 topdown 30"
  f=$(screen | sed -n 's/.*excl.*% [> ] Source \([^ ]*\).*/\1/p')
  case $f in
  '' | *...*) ;; # no file shown, or its name shortened
  *) pane source "$1" "$2 source '$f'" ;;
  esac
}
# quit_ok WHAT: 'q' ends the program with status 0 (a sanitizer report would not).
quit_ok() {
  keys q
  wait_for '^EXITED$' "'q' did not end $1"
  screen | grep -q '^exit status 0$' || { echo "FAIL: $1 did not exit 0"; screen; exit 1; }
}
status() { screen | grep -E '\| run [0-9]+$' || true; }
# An item of the status line as the shell takes it: 'center ITEM (N occurrence...'.
status_item() { status | sed -n 's/^ center \(.*\) (\([0-9]*\) occurrences*)  *CPUTIME.*/\1/p'; }

# ---- where it cannot start: one error line, exit 1 (2 for --tui without an archive).
rc=0; "$CCTQ" --tui "$t/lulesh.sqlite" </dev/null >"$t/out" 2>"$t/err" || rc=$?
[ $rc = 1 ] && grep -qx 'cctq: error: tui needs a terminal' "$t/err" ||
  { echo "FAIL: --tui without a terminal (status $rc)"; cat "$t/err"; exit 1; }
rc=0; "$CCTQ" --tui >"$t/out" 2>"$t/err" || rc=$?
[ $rc = 2 ] && grep -q '^cctq: error: --tui needs an ARCHIVE' "$t/err" ||
  { echo "FAIL: --tui without an archive (status $rc)"; cat "$t/err"; exit 1; }

# ---- lulesh: no stored source copies; the flat and tree centers.
start 120 40 --tui lulesh.sqlite
wait_for 'Top-down of the program' "no tree pane at start"
wait_for '^ no center \(program root\) +CPUTIME \(usec\) \| function \| top-down \| run 1$' "no status line"
screen | grep -q 'Flat functions' || { echo "FAIL: no flat pane"; screen; exit 1; }
screen | grep -Eq ' Source( |$)' || { echo "FAIL: no source pane on a 40-line terminal"; screen; exit 1; }
[ "$(tmux -L "$sock" display -p -t tui '#{alternate_on}')" = 1 ] || { echo "FAIL: not on the alternate screen"; exit 1; }
every_pane lulesh.sqlite ""

# 'c' on a flat row (found by '/').
keys / '^LagrangeNodal' Enter
keys c
wait_for 'Top-down of LagrangeNodal\(Domain&\)' "'c' on the flat row did not re-center the tree"
wait_for '^ center LagrangeNodal\(Domain&\) \(1 occurrence\) ' "status line after 'c' on the flat row"
every_pane lulesh.sqlite "center 'LagrangeNodal(Domain&)';"

# 'c' on a tree row.
keys Tab / '^CalcForceForNodes' Enter
keys c
wait_for 'Top-down of CalcForceForNodes\(Domain&\)' "'c' on the tree row did not re-center"
every_pane lulesh.sqlite "center 'CalcForceForNodes(Domain&)';"

# 'b' / 't'.
keys b
wait_for 'Bottom-up of CalcForceForNodes\(Domain&\)' "'b' did not show the bottom-up view"
pane tree lulesh.sqlite "center 'CalcForceForNodes(Domain&)'; bottomup 30"
keys t
wait_for 'Top-down of CalcForceForNodes\(Domain&\)' "'t' did not show the top-down view again"
pane tree lulesh.sqlite "center 'CalcForceForNodes(Domain&)'; topdown 30"

# '/' that finds nothing.
keys / 'no_such_function_zz' Enter
wait_for 'not found in the tree pane' "a search that finds nothing"

# 'c' on a source line: 's' on a callee row, then 'c' on the line shown.
keys Down s
wait_for '> Source .*/lulesh\.cc' "'s' did not focus the source of the row"
keys c
wait_for '^ center lulesh\.cc:[0-9]+ \([0-9]+ occurrences?\) ' "'c' on a source line"
item=$(status_item)
every_pane lulesh.sqlite "center $item;"

# 'r' and 'u'.
keys r
wait_for '^ no center \(program root\) ' "'r' did not reset the center"
wait_for 'Top-down of the program' "'r' did not reset the tree"
every_pane lulesh.sqlite ""
keys u
wait_for "^ center $item \\(" "'u' did not restore the center"
keys u
wait_for 'Top-down of CalcForceForNodes\(Domain&\)' "a second 'u' did not restore the tree row's center"
every_pane lulesh.sqlite "center 'CalcForceForNodes(Domain&)';"

# '+' and '-' on a flat row; 'g' toggles the granularity; 'f' the flat kind.
hg="'CalcHourglassControlForElems(Domain&, double*, double)'"
keys Tab Tab / '^CalcHourglassControlForElems' Enter +
wait_for "^ center CalcForceForNodes\\(Domain&\\) \\+ 'CalcHourglass.*\\(2 occurrences\\) " "'+' did not add to the center"
wait_for "\\* . CalcForceForNodes\\(.*\\) \\+ 'CalcHourglass" "the top row is not titled by the center's two items"
every_pane lulesh.sqlite "center 'CalcForceForNodes(Domain&)'; center + $hg;"
tmux -L "$sock" resize-window -t tui -x 160 -y 40
wait_for ' \| function \| top-down \| run 1$' "the status line at 160 columns"
keys g
wait_for ' \| line \| top-down \| run 1$' "'g' did not switch to line granularity"
every_pane lulesh.sqlite "granularity line; center 'CalcForceForNodes(Domain&)'; center + $hg;"
keys g / '^CalcHourglassControlForElems' Enter -
wait_for '^ center CalcForceForNodes\(Domain&\) \(1 occurrence\) .* \| function \|' "'g' then '-'"
every_pane lulesh.sqlite "center 'CalcForceForNodes(Domain&)';"
keys f
wait_for '> Flat loops' "'f' did not show the flat loops"
pane flat lulesh.sqlite "center 'CalcForceForNodes(Domain&)'; flat loops 200"
# 'e' writes the picture; a name without .svg or .html is refused.
keys e "$t/center.svg" Enter
wait_for "^wrote $t/center.svg" "'e' did not write the picture"
head -c 200 "$t/center.svg" | grep -q '<svg' || { echo "FAIL: center.svg is not an SVG"; exit 1; }
keys e "$t/center.txt" Enter
wait_for "name a FILE ending in .svg or .html" "'e' with another extension"
[ ! -e "$t/center.txt" ] || { echo "FAIL: 'e' wrote center.txt"; exit 1; }

quit_ok "cctq --tui"
[ "$(tmux -L "$sock" display -p -t tui '#{alternate_on}')" = 0 ] || { echo "FAIL: still on the alternate screen"; exit 1; }
cmp -s "$t/stty.before" "$t/stty.after" || { echo "FAIL: terminal modes not restored"; exit 1; }

# ---- resizing: 80x24 stacks flat and tree, the source hidden until asked.
start 120 40 --tui lulesh.sqlite
wait_for 'Top-down of the program' "no tree pane at start"
tmux -L "$sock" resize-window -t tui -x 80 -y 24
[ "$(screen | wc -l)" -eq 24 ] || { echo "FAIL: the screen is not 24 lines"; exit 1; }
wait_line 23 '\| run 1$' "no status line on line 23 at 80x24"
screen | grep -Eq ' Source( |$)' && { echo "FAIL: source pane shown at 80x24 before 's'"; screen; exit 1; }
screen | python3 -c 'import sys; sys.exit(any(len(l) > 80 for l in sys.stdin.read().split("\n")))' || { echo "FAIL: a line wider than 80 columns"; exit 1; }
pane flat lulesh.sqlite "flat 200"
pane tree lulesh.sqlite "topdown 30"
keys Tab Down Down Down s
wait_for '> Source ' "'s' did not show the source pane at 80x24"
pane flat lulesh.sqlite "flat 200"
pane tree lulesh.sqlite "topdown 30"
# 250x70: three panes, more rows.
tmux -L "$sock" resize-window -t tui -x 250 -y 70
wait_line 69 '\| run 1$' "no status line on line 69 at 250x70"
pane flat lulesh.sqlite "flat 200"
pane tree lulesh.sqlite "topdown 30"
quit_ok "cctq --tui after resizing"

# ---- cpi with its source text: '-c' sets the center first, 'c' on a source line.
start 120 40 --tui -c "'center main'" cpi.sqlite
wait_for 'Top-down of main' "--tui after -c 'center main'"
wait_for '> *19 .*main\(int argc' "the source pane does not show main's line marked"
every_pane cpi.sqlite "center main;"
keys Tab Tab / 'MPI_Finalize\(\)' Enter
keys c
wait_for '^ center cpi\.c:62 \(1 occurrence\) ' "'c' on source line 62"
wait_for 'Top-down of cpi\.c:62' "the tree of the line center"
every_pane cpi.sqlite "center cpi.c:62;"
quit_ok "cctq --tui on cpi"

# ---- 'tui' in the shell: back at the prompt, the TUI's center kept.
start 100 30 cpi.sqlite
wait_for '^cctq> ?$' "no shell prompt"
keys 'center main' Enter 'tui' Enter
wait_for 'Top-down of main' "'tui' did not start the TUI on the shell's center"
keys Tab / '^PMPI_Finalize' Enter c
wait_for 'Top-down of PMPI_Finalize' "'c' in the TUI from the shell"
keys q
wait_for '^cctq> ?$' "'q' did not return to the shell prompt"
keys 'center' Enter
wait_for '^PMPI_Finalize  \(1 occurrence\)$' "the shell does not have the TUI's center"
keys 'quit' Enter
wait_for '^EXITED$' "the shell did not quit"
screen | grep -q '^exit status 0$' || { echo "FAIL: the shell did not exit 0"; screen; exit 1; }

# ---- colours: center rows in colour, none with NO_COLOR.
start 100 30 --tui -c "'center main'" cpi.sqlite
wait_for 'Top-down of main' "TUI with colours"
tmux -L "$sock" capture-pane -e -p -t tui | grep -q "$(printf '\033\\[')[0-9;]*35m" ||
  { echo "FAIL: no coloured center row"; exit 1; }
quit_ok "the TUI"
TUI_NO_COLOR=1 start 100 30 --tui -c "'center main'" cpi.sqlite
wait_for 'Top-down of main' "TUI with NO_COLOR"
tmux -L "$sock" capture-pane -e -p -t tui | grep -q "$(printf '\033\\[')[0-9;]*3[0-7]m" &&
  { echo "FAIL: colours despite NO_COLOR"; exit 1; }

# ---- mouse (SGR reports, as xterm sends them): a click selects, a double click centers.
start 120 40 --tui lulesh.sqlite
wait_for 'Top-down of the program' "TUI for the mouse"
click() { tmux -L "$sock" send-keys -t tui -l "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$1" "$2" "$1" "$2")"; }
click 40 6 # screen line 6: the flat pane's 5th row, LagrangeNodal(Domain&)
sleep 0.4
keys c
wait_for '^ center LagrangeNodal\(Domain&\) \(1 occurrence\) ' "a click did not select the flat row"
click 40 8
click 40 8 # the 7th row: CalcForceForNodes(Domain&)
wait_for '^ center CalcForceForNodes\(Domain&\) \(1 occurrence\) ' "a double click did not center the flat row"
every_pane lulesh.sqlite "center 'CalcForceForNodes(Domain&)';"
quit_ok "the TUI"

# ---- 'm' chooses the metric (a v4 database with cycles and instructions).
"$CCTINGEST" --quiet "$CCT_DATA/v4-hpctoolkit-small_v4.0" "$t/small.sqlite"
start 120 40 --tui small.sqlite
wait_for ' cycles \| function \| top-down \| run 1$' "TUI on the v4 database"
keys m
wait_for 'Metric \(Enter chooses' "'m' did not show the metrics"
keys Down Enter
wait_for ' instructions \| function \| top-down \| run 1$' "'m' did not choose the second metric"
every_pane small.sqlite "metric instructions;"
quit_ok "the TUI"

# ---- a terminal that cannot move the cursor: refused, nothing drawn.
cat >"$t/dumb" <<SH
#!/bin/sh
TERM=dumb "$CCTQ" --tui "$t/lulesh.sqlite"
echo "exit status \$?"
sleep 600
SH
chmod +x "$t/dumb"
tmux_start 100 30 "$t/dumb"
wait_for '^exit status 1$' "TERM=dumb did not fail"
screen | grep -q "^cctq: error: the terminal (TERM 'dumb') cannot move the cursor" ||
  { echo "FAIL: TERM=dumb message"; screen; exit 1; }

# ---- hostile names (as tests/cli/shell_escape.sh): shown escaped, never sent raw.
cp "$t/cpi.sqlite" "$t/evil.sqlite"
sqlite3 "$t/evil.sqlite" "UPDATE function SET name = 'MPI_' || char(27) || '[2J' || char(27) || ']0;pwn' || char(7)
  || 'Fin' || char(155) || 'alize' || char(10) || 'X' WHERE name = 'MPI_Finalize';"
start 150 30 --tui evil.sqlite
wait_for 'Top-down of the program' "TUI on hostile names"
screen | grep -qF 'MPI_\x1b[2J\x1b]0;pwn\x07Fin\u009balize\nX' ||
  { echo "FAIL: the hostile name is not shown escaped"; screen; exit 1; }
quit_ok "the TUI"
# ---- the timeline pane ('T') on the traced inline.meta.db (8 threads), at 80 and 200 columns: each
# lane's strip is the shell's 'timeline' at the same number of columns; the line under the axis names
# the call stack the selected lane sampled at the cursor, as the raw trace.db says (tui_check.py
# timeline); 'c' centers on its innermost frame; two marks (space) make the window; 'w' resets it.
mkdir "$t/inline"
ln -s "$CCT_DATA"/v4-hpcviewer-inline.meta.db/* "$CCT_DATA"/traces/v4-hpcviewer-inline.meta.db/* "$t/inline/"
"$CCTINGEST" --quiet "$t/inline" "$t/inline.sqlite"
for w in 80 200; do
  start "$w" 40 --tui -c "'center gomp_team_barrier_wait_end'" inline.sqlite
  wait_for 'Top-down of gomp_team_barrier_wait_end' "TUI on inline.sqlite at $w columns"
  keys T
  wait_for 'Timeline of gomp_team_barrier_wait_end: 8 lanes' "'T' did not show the timeline at $w columns"
  # the cursor starts in the middle: 20 columns right, on the lane first (the caret under the
  # strips must have moved before the screen is read: a slow TUI, as under ASan, lags the keys)
  from=$(caret)
  keys -N 20 l
  i=0
  until [ "$(caret)" = $((from + 20)) ]; do
    i=$((i + 1))
    if [ $i -gt 200 ]; then echo "FAIL: 20 'l' did not move the timeline's caret from column $from"; screen; exit 1; fi
    sleep 0.05
  done
  screen >"$t/screen.txt"
  "$CCTQ" -c "width $((w + 2)); center gomp_team_barrier_wait_end; timeline 0" "$t/inline.sqlite" >"$t/timeline.txt"
  $check timeline "$t/screen.txt" "$t/timeline.txt" "$t/inline" "$t/inline.sqlite" >"$t/frame" ||
    { echo "FAIL: the timeline pane at $w columns"; cat "$t/screen.txt"; exit 1; }
  id=$(cat "$t/frame")
  keys c
  wait_for "^ center #$id \(1 occurrence\)" "'c' in the timeline did not center on #$id at $w columns"
  # titled by what the frame is, from the public 'contexts' view (it read 'Timeline of #ID')
  # (at 80 columns the title is cut in the middle: its first 20 characters, then '(#ID)')
  name=$(python3 -c 'import re, sqlite3, sys; n = sqlite3.connect(sys.argv[1]).execute(
    "SELECT name FROM contexts WHERE run = 1 AND id = ?", (int(sys.argv[2]),)).fetchone()[0]
print(re.escape(n) + " " if int(sys.argv[3]) > 100 else re.escape(n[:20]) + ".*")' "$t/inline.sqlite" "$id" "$w")
  wait_for "Timeline of $name\\(#$id\\)" "the timeline did not follow the new center, named by its function"
  # marks 5 columns apart: the window is from the first's start to the second's end
  keys -N 10 h
  keys Space
  wait_for 'mark at [0-9.]+ s' "space did not mark a time"
  keys -N 5 l
  keys Space
  wait_for "window [0-9.e-]+ s - [0-9.e-]+ s: the panes show 'trace \(sec\)'" "two marks did not set the window"
  screen >"$t/screen.txt"
  $check timeline-window "$t/screen.txt" "$t/inline" || { echo "FAIL: the window of two marks at $w columns"; cat "$t/screen.txt"; exit 1; }
  keys w
  wait_for '^the whole run' "'w' did not reset the window"
  screen | grep -q 'Timeline of .*, window ' && { echo "FAIL: 'w' left the window in the title"; screen; exit 1; }
  quit_ok "the TUI with the timeline"
done
check_panes
echo "ok ($panes panes checked)"
