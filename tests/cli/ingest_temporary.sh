#!/bin/bash
# The temporary file of a new archive (issue 13, item 13).
# * Durability: the temporary is fsync'ed after its last write and before its
#   rename to OUT, and OUT's directory after it (strace; skipped without it).
# * kill -9 of a new-archive ingest of a real sample, stopped in the middle
#   (its stderr is a full pipe, so its first CCTINGEST_TRACE line, written
#   once the tree is stored, blocks it before the commit), leaves OUT.tmpPID;
#   the next ingest on OUT (new archive or append) succeeds and removes it,
#   while the temporary of an ingest still running is kept, and so is one
#   whose process is gone but whose lock someone holds (a live ingest in
#   another PID namespace).
set -euo pipefail
t=$(mktemp -d)
pids=""
trap 'for p in $pids; do kill -9 $p 2>/dev/null || true; done; rm -rf "$t"' EXIT
command -v python3 >/dev/null || { echo "ingest_temporary: SKIP: python3 not found"; exit 77; }
t=$(cd "$t" && pwd -P) # strace -y prints resolved paths
s1="$CCT_DATA/classic-hpcviewer-gauss" s2="$CCT_DATA/classic-callflow-lulesh"
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" # LeakSanitizer cannot run under strace, nor in a killed process

# Durability: the last write to the temporary < fsync(temporary) <
# rename(temporary, OUT) < fsync(directory of OUT).
if command -v strace >/dev/null; then
  strace -f -y -qq -o "$t/strace" -e trace=fsync,fdatasync,rename,renameat,renameat2,write,pwrite64,pwritev,pwritev2 \
    "$CCTINGEST" --quiet "$s2" "$t/d.sqlite"
  python3 - "$t" <<'EOF' || fails=$((fails + 1))
import re, sys
t = sys.argv[1]
calls = [l.split(None, 1)[1] for l in open(t + "/strace") if "resumed" not in l]
tmp = re.escape(t) + r"/d\.sqlite\.tmp[0-9]+"
def where(pattern, after=-1):
    return [i for i, c in enumerate(calls) if i > after and re.match(pattern, c)]
writes = where(r'p?writev?2?(64)?\([0-9]+<%s>,' % tmp)
ren = where(r'rename(at2?)?\(.*"%s", .*"%s/d\.sqlite"(, 0|, RENAME_NOREPLACE)?\)\s*= 0' % (tmp, re.escape(t)))
last = writes[-1] if writes else None
syn = where(r'f(data)?sync\([0-9]+<%s>\)\s*= 0' % tmp, last if last is not None else -1)
dsyn = where(r'f(data)?sync\([0-9]+<%s>\)\s*= 0' % re.escape(t), ren[0] if ren else len(calls))
if last is None or not ren or not syn or syn[0] > ren[0] or not dsyn:
    print("FAIL durability: last write to the temporary at %s, rename at %s, file syncs after that write at %s, "
          "directory syncs after the rename at %s; the last calls:" % (last, ren, syn, dsyn))
    print("".join(calls[-12:]))
    sys.exit(1)
print("ok durability: the temporary is synced after its last write and before its rename, the directory after it")
EOF
else
  echo "ingest_temporary: SKIP durability part: strace not found"
fi

# stopped_ingest DB OUT: starts a new-archive ingest of DB into OUT that stops
# once its tree is stored (its stderr is a full pipe); sets $pid once OUT.tmp$pid exists.
mkfifo "$t/pipe"
exec 3<>"$t/pipe"
python3 -c '
import os
os.set_blocking(3, False)
try:
    while True: os.write(3, b"x" * 4096)
except BlockingIOError:
    pass
os.set_blocking(3, True)'
stopped_ingest() {
  CCTINGEST_TRACE=1 "$CCTINGEST" --quiet "$1" "$2" 2>&3 & pid=$!
  pids="$pids $pid"
  i=0; while [ ! -s "$2.tmp$pid" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
  sleep 0.5
  kill -0 "$pid" 2>/dev/null || fail "stopped ingest: it ended"
  [ -s "$2.tmp$pid" ] || fail "stopped ingest: no $2.tmp$pid"
}
runs() { sqlite3 "$1" 'SELECT count(*) FROM runs; PRAGMA integrity_check;' | tr '\n' ' '; }

# kill_then_ingest PID OUT WHAT RUNS: kill -9s the stopped ingest PID into OUT,
# ingests $s1 into OUT (WHAT: append or new archive), expects RUNS runs and no OUT.tmp* left.
kill_then_ingest() {
  kill -9 "$1"; wait "$1" 2>/dev/null || true
  [ -s "$2.tmp$1" ] || fail "$3: kill -9 left no temporary (the test proves nothing)"
  "$CCTINGEST" --quiet "$s1" "$2" || fail "$3 after kill -9"
  [ "$(runs "$2")" = "$4 ok " ] || fail "$3 after kill -9: $(runs "$2")"
  left=$(ls "$2".tmp* 2>/dev/null || true)
  [ -z "$left" ] || fail "$3 after kill -9 left: $left"
}

# A running ingest's temporary is kept by another ingest on the same OUT;
# once that ingest is killed, its temporary is a leftover: the next append removes it.
stopped_ingest "$s1" "$t/a.sqlite"; a=$pid
"$CCTINGEST" --quiet "$s2" "$t/a.sqlite" || fail "ingest beside a running one"
[ -f "$t/a.sqlite.tmp$a" ] || fail "the temporary of the running ingest $a was removed"
kill_then_ingest "$a" "$t/a.sqlite" append 2
echo "ok kill -9 then append: the running ingest's temporary was kept, the killed one's removed"

# The same for a new archive: kill -9, then a new-archive ingest on the same OUT.
stopped_ingest "$s1" "$t/b.sqlite"
kill_then_ingest "$pid" "$t/b.sqlite" "new archive" 1
echo "ok kill -9 then new archive: no temporary left"

# A temporary whose PID does not exist here but whose lock is held is kept;
# an unlocked one of a gone PID (and its -wal) is removed; other names are kept.
gone=$(($(cat /proc/sys/kernel/pid_max) + 1))
: >"$t/c.sqlite.tmp$gone"; : >"$t/c.sqlite.tmp$((gone + 1))"; : >"$t/c.sqlite.tmp$((gone + 1))-wal"
: >"$t/c.sqlite.tmpx"; : >"$t/c.sqlite.tmp$gone.bak"
sh -c 'exec 9>"$1"; flock -x 9; exec sleep 60' sh "$t/c.sqlite.tmp$gone" >/dev/null 2>&1 & holder=$!; pids="$pids $holder"
i=0; while flock -n "$t/c.sqlite.tmp$gone" true && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
"$CCTINGEST" --quiet "$s2" "$t/c.sqlite" || fail "ingest beside fake temporaries"
left=$(LC_ALL=C ls "$t" | grep '^c\.sqlite\.tmp' | tr '\n' ' ')
[ "$left" = "c.sqlite.tmp$gone c.sqlite.tmp$gone.bak c.sqlite.tmpx " ] || fail "fake temporaries: left '$left'"
echo "ok locked temporary kept, unlocked leftovers removed: $left"

[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
