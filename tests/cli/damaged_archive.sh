#!/bin/bash
# Damaged archives (issue 13 item 6): one page of a real archive overwritten
# with garbage, page by page over the tables and indexes the views read.  Each
# view either reads around the page and prints exactly what it prints on the
# intact archive (exit 0), or fails with one error line naming the archive and
# SQLite's "database disk image is malformed" (and the damaged table and its first problem
# when SQLite's integrity check found it) and prints nothing (exit 1, or 2
# when the page is one that opening the archive reads): never a partial view,
# never "(no rows)".  Every command must meet the damage at least once.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
a="$t/a.sqlite"
"$CCTINGEST" --quiet "$CCT_DATA/classic-hatchet-osu-allgather" "$a"
psize=$(sqlite3 "$a" 'PRAGMA page_size')
pages=$(sqlite3 "$a" "SELECT pageno FROM dbstat WHERE name IN ('context', 'value', 'scope_total', 'function',
                      'function_by_name', 'context_by_id', 'context_frame_level', 'context_by_function')
                      ORDER BY pageno")
set -- 'flat 100' 'flat tree 30' 'topdown 30' 'center PMPI_Allgather' 'center PMPI_Allgather; bottomup 30' \
  'center main; topdown 5' 'center PMPI_Allgather; source'
n=$#
"$CCTQ" -c 'help quit' >"$t/mark"
IFS= read -r -d '' mark <"$t/mark" || true
for ((i = 1; i <= n; i++)); do
  "$CCTQ" "$a" -c "${!i}" >"$t/want" 2>&1 || { echo "FAIL intact archive: ${!i}"; cat "$t/want"; exit 1; }
  IFS= read -r -d '' want <"$t/want" || true
  seg[i]=$want$mark
  failed[i]=0
done
cp "$a" "$t/clean"
head -c "$psize" /dev/zero | tr '\0' '\377' >"$t/garbage"
# One cctq session per damaged copy runs the commands in turn, each after a fresh
# 'open' of the archive (a new SQLite connection: nothing read before is kept), and
# 'help quit' (a fixed text that reads no archive) after each, so the merged output
# (an error flushes the output before it) shows where each command's output ends.  A
# script stops at its first failing command (SPEC 6): the session's exit status is
# that command's, and the next session starts with the command after it.  So each
# command is checked as when run alone (exit 0 and the intact answer, or one error
# line and nothing else), with one process per page and per failing command instead
# of 7 per page, and the outputs compared in bash (a process start is what this test
# spent its time on, 100-170 ms each under ASan).  When the archive does not open
# (exit 2), no command ran and none would: that page needs one process.
err_re="^cctq: error: .*'$a'.*database disk image is malformed( \\(.*\\))?"$'\n''$'
sessions=0
for pg in $pages; do
  cp "$t/clean" "$a"
  dd if="$t/garbage" of="$a" bs="$psize" seek=$((pg - 1)) conv=notrunc status=none
  first=1
  while [ "$first" -le "$n" ]; do
    script=
    for ((j = first; j <= n; j++)); do
      [ "$j" = "$first" ] || script+="; open '$a'; "
      script+="${!j}; help quit"
    done
    st=0
    "$CCTQ" --bail "$a" -c "$script" >"$t/out" 2>&1 || st=$?
    sessions=$((sessions + 1))
    IFS= read -r -d '' out <"$t/out" || true
    off=0
    for ((j = first; j <= n; j++)); do
      [ "${out:off:${#seg[j]}}" = "${seg[j]}" ] || break
      off=$((off + ${#seg[j]}))
    done
    rest=${out:off}
    if [ "$j" -gt "$n" ]; then
      [ "$st" = 0 ] && [ -z "$rest" ] || { echo "FAIL page $pg: exit $st after every command's intact answer:"; echo "$rest"; exit 1; }
      break
    fi
    # command j did not print its intact answer: it failed with one error line and nothing else
    { [ "$st" = 1 ] || [ "$st" = 2 ]; } && [[ $rest =~ $err_re ]] && [ "${rest%%$'\n'*}"$'\n' = "$rest" ] ||
      { echo "FAIL page $pg, '${!j}': exit $st:"; echo "${rest:0:2000}"; exit 1; }
    failed[j]=1 # exit 1, or 2 when opening found it (the tables of names are checked then)
    first=$((j + 1))
    if [ "$st" = 2 ]; then
      # The archive did not open: cctq opens it before it runs any command, so
      # every command meets this same error.  Checked by running each alone on
      # the first such page; on the others, the commands after j are counted.
      if [ -z "${open_checked:-}" ]; then
        for ((k = first; k <= n; k++)); do
          st2=0
          "$CCTQ" --bail "$a" -c "${!k}" >"$t/out" 2>&1 || st2=$?
          sessions=$((sessions + 1))
          IFS= read -r -d '' out2 <"$t/out" || true
          [ "$st2" = 2 ] && [ "$out2" = "$rest" ] ||
            { echo "FAIL page $pg, '${!k}' alone: exit $st2, not the same failed open:"; echo "${out2:0:2000}"; exit 1; }
          failed[k]=1
        done
        open_checked=$pg
      fi
      for ((k = first; k <= n; k++)); do failed[k]=1; done
      break
    fi
  done
done
for ((i = 1; i <= n; i++)); do
  [ "${failed[i]}" = 1 ] || { echo "FAIL '${!i}' never met a damaged page (test too weak)"; exit 1; }
done
echo "ok damaged archive: $(echo "$pages" | wc -l) pages x $n commands, each an error or the intact answer ($sessions cctq sessions; the failed opens checked alone on page ${open_checked:-none})"
