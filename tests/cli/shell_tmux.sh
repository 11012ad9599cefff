#!/bin/bash
# cctq shell on a real terminal: a detached tmux session (private server,
# fixed 120x40 size) runs cctq; keys are sent and the screen is read back with
# capture-pane (which trims trailing blanks, hence ' ?' in the patterns).  Checked: Tab completes a command ('topd' -> 'topdown'), a
# function name ('MPI_Fi' -> 'MPI_Finalize'), a source file ('cpi' ->
# './src/cpi.c') and a metric; Up recalls the previous line; Ctrl-C on a
# half-typed line prints ^C, gives a fresh prompt and the shell keeps working;
# the center row is bold on a terminal; history lands in $CCTQ_HISTORY; a time window shows
# in the prompt ('cctq[1-2.5s]> ') and in the TUI's status line.
set -euo pipefail
t=$(mktemp -d)
source "$CCT_SRC/tests/cli/lib/tmux.bash"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-cpi" "$t/cpi.sqlite"
mkdir "$t/inline" # a traced run, for the time window in the prompt
for f in "$CCT_DATA/v4-hpcviewer-inline.meta.db"/* "$CCT_DATA/traces/v4-hpcviewer-inline.meta.db"/*; do ln -s "$f" "$t/inline/"; done
"$CCTINGEST" --quiet "$t/inline" "$t/inline.sqlite"
cat >"$t/run" <<SH
#!/bin/sh
cd "$t"
export CCTQ_HISTORY="$t/history" TERM=xterm HOME="$t" INPUTRC=/dev/null
unset NO_COLOR
exec "$CCTQ" cpi.sqlite
SH
chmod +x "$t/run"
tmux_start 120 40 "$t/run"
clear_screen() { keys C-l; sleep 0.1; }

wait_for '^cctq> ?$' "no first prompt"
# Command name completion.
keys 'topd' Tab
wait_for '^cctq> topdown ?$' "'topd<Tab>' did not complete to 'topdown '"
keys '2' Enter
wait_for '^ *\[3\] ' "topdown 2 printed no rows"
# Function name completion, then a view with the center row in bold.
clear_screen
keys 'center MPI_Fi' Tab
wait_for '^cctq> center MPI_Finalize ?$' "'center MPI_Fi<Tab>' did not complete"
keys Enter 'bottomup 1' Enter
wait_for '\* .*MPI_Finalize$' "bottomup after the completed center"
tmux -L "$sock" capture-pane -e -p -t cctq | grep -q "$(printf '\033\\[1m')" || { echo "FAIL: center row not bold"; exit 1; }
# File name completion for 'source'.
clear_screen
keys 'source cpi' Tab
wait_for '^cctq> source \./src/cpi\.c ?$' "'source cpi<Tab>' did not complete to the file"
keys C-u
# Metric completion.
keys 'metric CPU' Tab
wait_for "^cctq> metric 'CPUTIME \(usec\)' ?\$" "'metric CPU<Tab>' did not complete (quoted)"
keys Enter
# History: Up recalls the last line.
clear_screen
keys Up
wait_for "^cctq> metric 'CPUTIME \(usec\)'\$" "Up did not recall the last command"
keys C-u
# Ctrl-C on a half-typed line: the line is dropped, the shell lives on.
clear_screen
keys 'topdown 12 and more'
wait_for '^cctq> topdown 12 and more$' "typing"
keys C-c
wait_for '\^C$' "no ^C after Ctrl-C"
wait_for '^cctq> ?$' "no fresh prompt after Ctrl-C"
keys 'mode' Enter
wait_for '^tree$' "the shell did not run a command after Ctrl-C"
# A time window shows in the prompt and in the TUI's status line; 'window reset' ends it.
clear_screen
keys 'open inline.sqlite' Enter 'window 1 2.5' Enter
wait_for '^cctq\[1-2\.5s\]> ?$' "the prompt does not show the window"
keys 'tui' Enter
wait_for 'window 1 s - 2\.5 s \(trace \(sec\) only\)' "the TUI's status line does not name the window"
keys q
wait_for '^cctq\[1-2\.5s\]> ?$' "no prompt after the TUI"
keys 'window reset' Enter
wait_for '^cctq> ?$' "'window reset' left the window in the prompt"
keys 'quit' Enter
i=0
while tmux -L "$sock" has-session -t cctq 2>/dev/null; do
  i=$((i + 1)); [ $i -gt 100 ] && { echo "FAIL: quit did not end the shell"; exit 1; }; sleep 0.05
done
grep -qx 'topdown 2' "$t/history" && grep -qx 'center MPI_Finalize' "$t/history" ||
  { echo "FAIL: history file"; cat "$t/history"; exit 1; }
grep -q 'topdown 12 and more' "$t/history" && { echo "FAIL: a cancelled line went to the history"; exit 1; }
echo ok
