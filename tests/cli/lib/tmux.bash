# tmux.bash: a private tmux server for the tests that drive cctq on a real
# terminal (shell_tmux.sh, shell_pager_tmux.sh, tui_tmux.sh, short_names.sh),
# sourced after 'set -euo pipefail' and t=$(mktemp -d).  Skips the test (77)
# without tmux.  The server's socket lives in $t; at exit the server is killed
# and $t removed (kept with KEEP=1).  For the session named $session (default
# cctq):
#   tmux_start W H CMD     a new server with a W x H session running CMD
#   screen                 the screen as text (capture-pane trims trailing blanks)
#   keys ARGS...           tmux send-keys ARGS
#   wait_for RE WHAT       waits up to 10 s for a screen line matching the
#                          extended regex RE, else fails with WHAT and the screen
#   wait_line N RE WHAT    the same for screen line N
command -v tmux >/dev/null 2>&1 || { echo "skip: tmux is not installed"; exit 77; }
sock="cctq-$$"
session=${session:-cctq}
export TMUX_TMPDIR="$t"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$t"' EXIT
tmux_start() {
  if tmux -L "$sock" kill-server 2>/dev/null; then sleep 0.2; fi # the old server gone first
  tmux -L "$sock" -f /dev/null new-session -d -s "$session" -x "$1" -y "$2" "$3"
}
screen() { tmux -L "$sock" capture-pane -p -t "$session" 2>/dev/null || true; }
keys() { tmux -L "$sock" send-keys -t "$session" "$@"; }
wait_line() {
  local i=0
  while ! screen | sed -n "${1}p" | grep -Eq -- "$2"; do
    i=$((i + 1))
    if [ $i -gt 200 ]; then echo "FAIL: $3"; echo "--- screen:"; screen; exit 1; fi
    sleep 0.05
  done
}
wait_for() { wait_line '' "$1" "$2"; }
