#!/bin/bash
# cctq 'diff': one view of two runs merged by path of names.
#
# 1. Two generated v4 runs of one tree (scripts/gen-db, same seed, 1 and 2
#    profiles): run 2's summary values are run 1's plus profile 1's, so every
#    change is known.  The program total's change must be gen-db's own
#    profile_root_inclusive[1] (from its --facts file), malloc's change the
#    difference of gen-db's outermost-rule totals for malloc, and every flat
#    row's change the difference of the runs' rows in the public 'flat' view
#    (sqlite3).  Same tree: no row is added or removed, at either granularity.
# 2. The cpi application in both formats (classic: usec, MPICH; v4: sec,
#    Open MPI): values are compared with the public views (run 2's seconds
#    converted to usec), rows only in one run are 'added' / 'removed' (checked
#    against the functions of each run), '<program root>' matches 'main thread'.
# Also: runs, diff by title, 'sort', json validity, tree signs, errors.
set -euo pipefail
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
command -v python3 >/dev/null || { echo "diff: SKIP: python3 not found"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------- generated
gen="$CCT_SRC/scripts/gen-db"
python3 "$gen" --format v4 --nodes 3000 --profiles 1 --seed 5 --facts "$t/f1.json" -q "$t/g1"
python3 "$gen" --format v4 --nodes 3000 --profiles 2 --seed 5 --facts "$t/f2.json" -q "$t/g2"
g="$t/gen.sqlite"
"$CCTINGEST" --quiet --title one "$t/g1" "$g"
"$CCTINGEST" --quiet --title two "$t/g2" "$g"
"$CCTQ" "$g" -c 'mode csv; runs' | tr -d '\r' | cut -d, -f1,3 >"$t/runs"
[ "$(tr '\n' ' ' <"$t/runs")" = "run,title 1,one 2,two " ] || { cat "$t/runs"; fail "runs"; }

"$CCTQ" "$g" -c 'run 1; mode json; topdown 2; diff 2' >"$t/g_top.json"
"$CCTQ" "$g" -c 'run 1; mode json; center malloc; topdown 2; diff two' >"$t/g_malloc.json"
"$CCTQ" "$g" -c 'run 1; mode json; center malloc; granularity line; bottomup 3; diff 2' >"$t/g_line.json"
"$CCTQ" "$g" -c 'run 1; mode json; flat 8; diff 2 sort' >"$t/g_flat.json"
"$CCTQ" "$g" -c 'mode json; center malloc; topdown 1; diff 1' >"$t/g_back.json"
# diff compares the view shown (its metric, filters, sort), not the session's settings since
"$CCTQ" "$g" -c 'run 1; mode json; topdown 1; metric instructions; diff 2' >"$t/g_shown_metric.json"
"$CCTQ" "$g" -c 'run 1; mode json; filter drop malloc; flat 4 by exclusive; filter reset; diff 2' >"$t/g_shown_flat.json"
PYTHONPATH="$CCT_SRC/tests/cli" python3 - "$t" "$g" <<'PY'
import json, sqlite3, sys
from readers import last_object  # the view's object, then the diff's: each must parse whole
t, arc = sys.argv[1:3]
f1, f2 = (json.load(open("%s/f%d.json" % (t, k))) for k in (1, 2))
con = sqlite3.connect(arc)
def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
def load(name):
    d = last_object("%s/%s.json" % (t, name))
    assert d["view"] == "diff", d
    assert d["rows"], name
    return d
metric = None
def vals(r):
    return r["values"][metric]
top = load("g_top")
metric = top["metrics"][0]["name"]
assert (top["of"], top["base_run"], top["run"]) == ("topdown", 1, 2), top
# every row of the same tree is in both runs, with change = other - base
for d in [top, load("g_malloc"), load("g_line"), load("g_flat")]:
    for r in d["rows"]:
        assert r["status"] == "both", r
        v = vals(r)
        assert close(v["change"], v["other_inclusive"] - v["inclusive"]), r
        assert close(v["exclusive_change"], v["other_exclusive"] - v["exclusive"]), r
# the program total changes by profile 1's total (gen-db's facts)
want = f2["profile_root_inclusive"][1][metric]
got = vals(top["rows"][0])["change"]
assert close(got, want), ("program change", got, want)
root = lambda run: con.execute("SELECT v.inclusive FROM contexts c JOIN context_values v USING (run, id) "
                               "JOIN metrics m ON m.run = v.run AND m.metric = v.metric "
                               "WHERE c.run = ? AND c.parent IS NULL AND m.name = ?", (run, metric)).fetchone()[0]
assert close(vals(top["rows"][0])["inclusive"], root(1)) and close(vals(top["rows"][0])["other_inclusive"], root(2))
# malloc (centered, both granularities): gen-db's outermost-rule totals
fm = lambda f: [x for x in f["functions"] if x["name"] == "malloc"][0]["inclusive"][metric]
for name in ("g_malloc", "g_line"):
    r = load(name)["rows"][0]
    assert close(vals(r)["change"], fm(f2) - fm(f1)), (name, vals(r), fm(f1), fm(f2))
# flat sorted by |change|: the public 'flat' view of each run
flat = lambda run, fn: con.execute("SELECT x.inclusive, x.exclusive FROM flat x JOIN functions f USING (run, function) "
                                   "JOIN metrics m ON m.run = x.run AND m.metric = x.metric "
                                   "WHERE x.run = ? AND f.name = ? AND m.name = ?", (run, fn, metric)).fetchall()
rows = load("g_flat")["rows"]
assert len(rows) == 8, len(rows)
changes = [abs(vals(r)["change"]) for r in rows]
assert changes == sorted(changes, reverse=True), changes
for r in rows:
    a, b = flat(1, r["name"]), flat(2, r["name"])
    if len(a) != 1 or len(b) != 1:
        continue  # two functions of one name: the flat view sums per function
    assert close(vals(r)["change"], b[0][0] - a[0][0]), (r["name"], vals(r), a, b)
    assert close(vals(r)["exclusive_change"], b[0][1] - a[0][1]), (r["name"], vals(r), a, b)
# from run 2 against run 1 the change is negated
back = load("g_back")
assert (back["base_run"], back["run"]) == (2, 1)
assert close(vals(back["rows"][0])["change"], fm(f1) - fm(f2))
# the view shown: its metric ('cycles', the run's first) after 'metric instructions'
shown = load("g_shown_metric")
assert shown["metrics"][0]["name"] == metric == "cycles", shown["metrics"][0]
assert close(vals(shown["rows"][0])["inclusive"], root(1)) and close(vals(shown["rows"][0])["other_inclusive"], root(2))
# its filter after 'filter reset', its sort key: the larger exclusive of the two runs, descending
shown = load("g_shown_flat")
assert shown["filters"] == ["drop malloc"] and shown["sort"] == "exclusive", (shown["filters"], shown["sort"])
rows = shown["rows"]
assert len(rows) == 4 and "malloc" not in [r["name"] for r in rows], [r["name"] for r in rows]
keys = [max(vals(r)["exclusive"], vals(r)["other_exclusive"]) for r in rows]
assert keys == sorted(keys, reverse=True), keys
print("ok generated: program +%g, malloc +%g, flat sorted by change; the view shown" % (want, fm(f2) - fm(f1)))
PY

# ---------------------------------------------------------------- cpi x2
a="$t/cpi.sqlite"
"$CCTINGEST" --quiet --title classic "$CCT_DATA/classic-hatchet-cpi" "$a"
"$CCTINGEST" --quiet --title v4 "$CCT_DATA/v4-hatchet-cpi" "$a"
"$CCTQ" "$a" -c 'run 1; mode json; center main; topdown 4; diff 2' >"$t/c_func.json"
"$CCTQ" "$a" -c 'run 1; mode json; center main; granularity line; topdown 3; diff v4' >"$t/c_line.json"
"$CCTQ" "$a" -c 'run 1; mode json; center MPI_Finalize; bottomup 3; diff 2' >"$t/c_bu.json"
"$CCTQ" "$a" -c 'run 1; mode json; topdown 3; diff 2' >"$t/c_root.json"
PYTHONPATH="$CCT_SRC/tests/cli" python3 - "$t" "$a" <<'PY'
import json, sqlite3, sys
from readers import last_object
t, arc = sys.argv[1:3]
con = sqlite3.connect(arc)
def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
def flat(run, fn):
    (v,), = con.execute("SELECT x.inclusive FROM flat x JOIN functions f USING (run, function) "
                        "WHERE x.run = ? AND f.name = ?", (run, fn)).fetchall()
    return v
names = lambda run: {n for (n,) in con.execute("SELECT name FROM functions WHERE run = ?", (run,))}
n1, n2 = names(1), names(2)
M = "CPUTIME (usec)"
seen = set()
for name in ("c_func", "c_line", "c_bu", "c_root"):
    d = last_object("%s/%s.json" % (t, name))
    m = d["metrics"][0]
    assert (m["name"], m["other_name"], m["unit"], m["other_unit"], m["scale"]) == \
           (M, "CPUTIME (sec)", "usec", "sec", 1e6), m
    for r in d["rows"]:
        v = r["values"][M]
        seen.add(r["status"])
        if r["status"] == "removed":
            assert v["other_inclusive"] is None and r["other_handle"] is None and r["handle"], r
            assert close(v["change"], -v["inclusive"]), r
        elif r["status"] == "added":
            assert v["inclusive"] is None and r["handle"] is None and r["other_handle"], r
            assert close(v["change"], v["other_inclusive"]), r
        else:
            assert close(v["change"], v["other_inclusive"] - v["inclusive"]), r
        # a function missing from one run entirely can only be added / removed
        # (the placeholder roots match each other: '<program root>' is 'main thread')
        if r["kind"] == "function" and r["callsite"] is None and r["name"] != "<program root>":
            if r["name"] not in n2: assert r["status"] == "removed", r
            if r["name"] not in n1: assert r["status"] == "added", r
    if name in ("c_func", "c_line"):  # center main: the runs' flat rows of main, sec -> usec
        v = d["rows"][0]["values"][M]
        assert d["rows"][0]["status"] == "both"
        assert close(v["inclusive"], flat(1, "main")) and close(v["other_inclusive"], flat(2, "main") * 1e6), v
        st = {tuple(r["path"]): r["status"] for r in d["rows"]}
        assert st[("main", "MPI_Init")] == "removed", st
        assert st[("main", "PMPI_Reduce [libmpi.so.40.30.1]")] == "added", st
    if name == "c_bu":  # callers: main, then <program root> matching 'main thread'
        paths = [(r["path"], r["status"]) for r in d["rows"]]
        assert paths == [(["MPI_Finalize"], "both"), (["MPI_Finalize", "main"], "both"),
                         (["MPI_Finalize", "main", "<program root>"], "both")], paths
        for r in d["rows"]:
            v = r["values"][M]
            assert close(v["inclusive"], flat(1, "MPI_Finalize")), v
            assert close(v["other_inclusive"], flat(2, "MPI_Finalize") * 1e6), v
    if name == "c_root":  # no center: each run's program total
        v = d["rows"][0]["values"][M]
        tot = lambda run: con.execute("SELECT sum(v.inclusive) FROM contexts c JOIN context_values v USING (run, id) "
                                      "WHERE c.run = ? AND c.parent IS NULL", (run,)).fetchone()[0]
        assert close(v["inclusive"], tot(1)) and close(v["other_inclusive"], tot(2) * 1e6), (v, tot(1), tot(2))
        assert d["rows"][1]["path"] == ["<program>", "<program root>"] and d["rows"][1]["status"] == "both"
assert seen == {"both", "added", "removed"}, seen
print("ok cpi classic vs v4: values, units, added / removed")
PY

# Tree mode (not a terminal: no escapes): signs and status words; table and csv parse.
COLUMNS=120 "$CCTQ" "$a" -c 'run 1; center main; hotpath off; topdown 2; diff 2' >"$t/tree"
grep -q "^diff topdown 2: run 1 'classic' -> run 2 'v4', CPUTIME (usec)$" "$t/tree" || { cat "$t/tree"; fail "tree title"; }
grep -q '^\[1\]  *3998240 100.0%  *281820  86.5%  *-3716420 ' "$t/tree" || { cat "$t/tree"; fail "tree top row"; }
grep -q ' +117133 .*PMPI_Reduce \[libmpi.so.40.30.1\] (added)$' "$t/tree" || { cat "$t/tree"; fail "tree added"; }
grep -q 'MPI_Init (removed)$' "$t/tree" || { cat "$t/tree"; fail "tree removed"; }
if grep -q "$(printf '\033')" "$t/tree"; then fail "escapes in non-terminal output"; fi
# The columns shown with the view, not the session's since (tree and table show the view's).
"$CCTQ" "$g" -c 'run 1; columns add instructions; topdown 1; columns reset; diff 2' >"$t/cols"
sed -n '/^diff topdown 1:/,$p' "$t/cols" >"$t/cols_diff"
grep -q 'instructions inclusive' "$t/cols_diff" || { cat "$t/cols_diff"; fail "diff lost the view's column"; }
"$CCTQ" "$g" -c 'run 1; topdown 1; columns add instructions; diff 2' >"$t/cols"
sed -n '/^diff topdown 1:/,$p' "$t/cols" >"$t/cols_diff"
[ -s "$t/cols_diff" ] || fail "no diff printed"
if grep -q 'instructions' "$t/cols_diff"; then cat "$t/cols_diff"; fail "diff shows a column the view did not"; fi
"$CCTQ" "$a" -c 'run 1; center main; hotpath off; topdown 2; mode csv; diff 2; mode table; diff 2 sort; mode folded; diff 2' >"$t/modes"
grep -q '^handle,other_handle,depth,status,path,' "$t/modes" || fail "csv header"
grep -q '^main;MPI_Finalize;PMPI_Finalize 3998240 0$' "$t/modes" || { cat "$t/modes"; fail "folded two columns"; }

# Errors: exit 1, one line naming the word.
if "$CCTQ" "$a" -c 'diff 9' 2>"$t/err"; then fail "diff 9: exit 0"; fi
grep -q "^cctq: error: no run '9' in the archive" "$t/err" || { cat "$t/err"; fail "diff 9 message"; }
if "$CCTQ" "$a" -c 'diff 1 bogus' 2>"$t/err"; then fail "diff bogus: exit 0"; fi
grep -q "^cctq: error: unknown option 'bogus' for 'diff'" "$t/err" || { cat "$t/err"; fail "diff bogus message"; }
if "$CCTQ" "$a" -c 'center main; source; diff 1' >/dev/null 2>"$t/err"; then fail "diff after source: exit 0"; fi
grep -q "^cctq: error: 'diff' compares topdown, bottomup and flat views" "$t/err" || { cat "$t/err"; fail "source"; }
"$CCTQ" "$a" -c 'help diff' | grep -q '"other_inclusive": c' || fail "help diff documents json"
echo "ok diff"
