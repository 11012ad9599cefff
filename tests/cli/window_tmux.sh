#!/bin/bash
# The time window on a real terminal (a detached tmux session on a private
# server): the prompt shows the window ('cctq[1-2.5s]> '), 'window reset' gives
# the plain prompt back, and the TUI's status line names the window.
set -euo pipefail
if ! command -v tmux >/dev/null 2>&1; then echo "skip: tmux is not installed"; exit 77; fi
t=$(mktemp -d)
sock="cctq-window-$$"
cleanup() { tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$t"; }
trap cleanup EXIT
mkdir "$t/inline"
for f in "$CCT_DATA/v4-hpcviewer-inline.meta.db"/* "$CCT_DATA/traces/v4-hpcviewer-inline.meta.db"/*; do ln -s "$f" "$t/inline/"; done
"$CCTINGEST" --quiet "$t/inline" "$t/inline.sqlite"
cat >"$t/run" <<SH
#!/bin/sh
cd "$t"
export CCTQ_HISTORY="$t/history" TERM=xterm HOME="$t" INPUTRC=/dev/null
exec "$CCTQ" inline.sqlite
SH
chmod +x "$t/run"
tmux -L "$sock" -f /dev/null new-session -d -s cctq -x 120 -y 40 "$t/run"
screen() { tmux -L "$sock" capture-pane -p -t cctq; }
keys() { tmux -L "$sock" send-keys -t cctq "$@"; }
# Waits until the screen matches the extended regex $1 (20 s: a loaded machine), else fails with $2.
wait_for() {
  i=0
  while ! screen >"$t/screen" || ! grep -Eq -- "$1" "$t/screen"; do
    i=$((i + 1))
    if [ $i -gt 400 ]; then echo "FAIL: $2"; echo "--- screen:"; cat "$t/screen"; exit 1; fi
    sleep 0.05
  done
}
wait_for '^cctq> ?$' "no first prompt"
keys 'window 1 2.5' Enter
wait_for '^cctq\[1-2\.5s\]> ?$' "the prompt does not show the window"
keys 'tui' Enter
wait_for 'window 1 s - 2\.5 s \(trace \(sec\) only\)' "the TUI's status line does not name the window"
keys q
wait_for '^cctq\[1-2\.5s\]> ?$' "no prompt after the TUI"
keys 'window reset' Enter
wait_for '^cctq> ?$' "'window reset' left the window in the prompt"
echo "window_tmux: ok"
