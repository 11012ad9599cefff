#!/bin/bash
# cctq shell, json and csv modes on real samples (classic and v4): every
# command's json output is one valid JSON object with exactly the keys of SPEC
# section 6 (views: view, run, center, granularity, rows [+ note; + hotpath for
# topdown]; rows: handle, depth, path, kind, name, inlined, file, line, module,
# callsite, center, values [+ mark, text for source; values + center for source
# with a center; + contexts for flat and bottomup; + hot for topdown]); rows are in pre-order (depth grows by at most one,
# path has depth + 1 names and ends with the row's name); csv parses with
# Python's csv module into as many records as the json has rows, every record
# as wide as the header.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cat >"$t/check.py" <<'PY'
import csv, io, json, sys

def check(mode, text):
  if mode == "json":
      obj = json.loads(text)  # exactly one object: json.loads refuses trailing data
      assert isinstance(obj, dict), obj
      if obj["view"] in ("topdown", "bottomup", "flat", "source"):
          keys = {"view", "run", "center", "granularity", "rows"}
          assert keys <= set(obj) <= keys | {"note", "zero_rows"} | ({"hotpath"} if obj["view"] == "topdown" else set()), sorted(obj)
          assert "zero_rows" not in obj or obj["view"] != "source" and obj["zero_rows"] >= 0, sorted(obj)
          assert obj["view"] != "topdown" or obj["hotpath"] == 0.5, obj.get("hotpath")  # the default
          assert obj["granularity"] in ("function", "line")
          rowkeys = {"handle", "depth", "path", "kind", "name", "inlined", "file", "line", "module",
                     "callsite", "center", "values"}
          if obj["view"] == "source":
              rowkeys |= {"mark", "text"}
          prev = -1
          for r in obj["rows"]:
              assert set(r) - {"contexts", "hot"} == rowkeys, sorted(r)
              assert "contexts" not in r or (obj["view"] in ("flat", "bottomup") and (r["contexts"] is None or r["contexts"] > 0)), r
              assert obj["view"] == "bottomup" and r["contexts"] > 0 or obj["view"] != "bottomup", r  # caller paths
              assert (obj["view"] == "topdown") == ("hot" in r), r
              assert "hot" not in r or r["hot"] in (True, False) and (r["hot"] or r["depth"] > 0), r
              assert r["depth"] <= prev + 1, r
              prev = r["depth"]
              assert len(r["path"]) == r["depth"] + 1 and r["path"][-1] == r["name"], r
              for v in r["values"].values():  # source with a center: its share of the line too
                  assert set(v) == {"inclusive", "exclusive"} | ({"center"} if obj["view"] == "source" and obj["center"] else set()), v
      return (len(obj.get("rows", obj.get("profiles", obj.get("items", [])))))
  else:
      rows = list(csv.reader(io.StringIO(text, newline="")))
      assert rows, "no header"
      assert all(len(r) == len(rows[0]) for r in rows), "ragged csv"
      return len(rows) - 1

# argv: MARK, then PREFIX...: PREFIX.json and PREFIX.csv are the outputs of one session per
# mode that ran the commands of PREFIX.cmds (one a line) in turn, each followed by the
# text in the file MARK ('help quit'), which splits them into each command's output.
mark = open(sys.argv[1]).read()
bad = 0
for prefix in sys.argv[2:]:
  cmds = open(prefix + ".cmds").read().split("\n")[:-1]
  outs = {m: open(prefix + "." + m).read().split(mark) for m in ("json", "csv")}
  for m, o in outs.items():
    if len(o) != len(cmds) + 1 or o[-1] != "":
      bad = 1
      print("FAIL %s: the %s session printed %d outputs for %d commands" % (prefix, m, len(o) - 1, len(cmds)))
  if bad:
    continue
  for i, cmd in enumerate(cmds):
    try:
      j = check("json", outs["json"][i])
      c = check("csv", outs["csv"][i])
      assert j == c, "json has %d rows, csv %d" % (j, c)
    except Exception as e:
      bad = 1
      print("FAIL %s: %s: %r" % (open(prefix + ".sample").read().strip(), cmd, e))
sys.exit(bad)
PY
n=0
names=
for sample in classic-hatchet-cpi classic-callflow-lulesh v4-hatchet-cpi v4-hpcviewer-loop-fork-cycles; do
  rm -f "$t/a.sqlite"
  "$CCTINGEST" --quiet "$CCT_DATA/$sample" "$t/a.sqlite"
  # A center present in each sample: the function with the largest inclusive below the root.
  fn=$("$CCTQ" "$t/a.sqlite" -c "mode csv; flat functions 0" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if not r["name"].startswith("<")]
print(rows[0]["name"] if rows else "main")')
  # One session per mode runs every command, each after a fresh 'open' (no setting of
  # the one before kept) and followed by 'help quit', a fixed text that marks where the
  # command's output ends (a process per command was most of this test's time under ASan).
  p="$t/s$n"
  echo "$sample" >"$p.sample"
  : >"$p.cmds"
  for cmd in "topdown 3" "bottomup 3" "flat 10" "flat files" "flat modules" "flat lines" "flat loops" "flat tree 0" \
             "source" "stats" "runs" "metrics" "center" "granularity line; topdown 4" "threshold 1%; topdown 9" \
             "sql SELECT * FROM contexts LIMIT 20"; do
    echo "$cmd" >>"$p.cmds"
    n=$((n + 1))
  done
  for mode in json csv; do
    script=
    while IFS= read -r cmd; do script+="open '$t/a.sqlite'; center '$fn'; mode $mode; $cmd; help quit; "; done <"$p.cmds"
    "$CCTQ" "$t/a.sqlite" -c "$script" >"$p.$mode" 2>"$t/err" || { echo "FAIL $sample, mode $mode: exit $?"; cat "$t/err"; exit 1; }
  done
  names="$names $p"
done
"$CCTQ" -c "help quit" >"$t/mark"
python3 "$t/check.py" "$t/mark" $names || exit 1
# JSON string escaping: a quote, a backslash and a control character survive the round trip.
"$CCTQ" "$t/a.sqlite" -c "mode json; sql SELECT 'a\"b\\c' || char(1, 10) AS s" |
  python3 -c 'import json, sys; assert json.load(sys.stdin)["rows"][0]["s"] == "a\"b\\c\x01\n"'
echo "ok: $n commands"
