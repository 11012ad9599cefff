#!/bin/bash
# gendb.sh: synthetic databases from scripts/gen-db are ingested faithfully.
# gen-db writes a small classic database (and a v4 one) with recursion, loops and
# inlining, plus a JSON side file of facts it computed itself; the archive must
# agree: contexts by kind, root inclusive per metric, per-function flat totals
# (outermost rule), per-profile root values, and for every context
# sum over profiles == summary.  No timing is involved.
# Env: CCTINGEST (program), CCT_SRC (repo root), CCT_DATA (tests/data).
set -euo pipefail
: "${CCTINGEST:?}" "${CCT_SRC:?}"
command -v python3 >/dev/null || { echo "gendb: SKIP: python3 not found"; exit 77; }
command -v zstd >/dev/null || { echo "gendb: SKIP: zstd not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
gen="$CCT_SRC/scripts/gen-db"

check() { # check FORMAT DB FACTS ARCHIVE
  python3 - "$@" <<'EOF'
import json, sqlite3, struct, subprocess, sys
fmt, db, facts_path, arc = sys.argv[1:5]
facts = json.load(open(facts_path))
con = sqlite3.connect(arc)
q = lambda sql, *a: con.execute(sql, a).fetchall()
# %g in experiment.xml keeps 6 digits; v4 values are exact doubles
tol = 1e-5 if fmt == "classic" else 1e-12
errors = []
def close(a, b):
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
def expect(what, got, want, approx=False):
    ok = close(got, want) if approx else got == want
    if not ok:
        errors.append("%s: archive has %r, generator says %r" % (what, got, want))

(run,), = q("SELECT max(run) FROM runs")
kinds = dict(q("SELECT kind, count(*) FROM contexts WHERE run = ? GROUP BY kind", run))
for k, n in facts["contexts_by_kind"].items():
    expect("contexts of kind %s" % k, kinds.get(k, 0), n)
(nprof,), = q("SELECT profiles FROM runs WHERE run = ?", run)
expect("profiles", nprof, facts["profiles"])
(root,), = q("SELECT id FROM contexts WHERE run = ? AND parent IS NULL", run)
mid = dict(q("SELECT name, metric FROM metrics WHERE run = ?", run))
for m, v in facts["root_inclusive"].items():
    if m not in mid:
        errors.append("metric %r missing" % m)
        continue
    got = q("SELECT inclusive FROM context_values WHERE run = ? AND id = ? AND metric = ?", run, root, mid[m])
    expect("root inclusive of %s" % m, got[0][0] if got else 0.0, v, True)
# flat rows of chosen functions (name + file tell same-named functions apart)
for f in facts["functions"]:
    for m in facts["metrics"]:
        rows = q("""SELECT fl.inclusive, fl.exclusive FROM flat fl
                    JOIN functions fn ON fn.run = fl.run AND fn.function = fl.function
                    WHERE fl.run = ? AND fl.metric = ? AND fn.name = ? AND fn.file IS ?""",
                 run, mid[m], f["name"], f["file"])
        inc = sum(r[0] for r in rows)
        exc = sum(r[1] for r in rows)
        expect("flat inclusive of %s (%s)" % (f["name"], m), inc, f["inclusive"][m], True)
        expect("flat exclusive of %s (%s)" % (f["name"], m), exc, f["exclusive"][m], True)
    n = q("""SELECT count(*) FROM contexts c JOIN functions fn ON fn.run = c.run AND fn.name = c.name
             WHERE c.run = ? AND c.kind = 'function' AND fn.name = ? AND fn.file IS ?
             AND c.id IN (SELECT id FROM context c2 WHERE c2.run = ? AND c2.function = fn.function)""",
          run, f["name"], f["file"], run)[0][0]
    expect("occurrences of %s" % f["name"], n, f["occurrences"])
# per-profile values: blob = zstd(u32 n; u32 ctx[n]; f64 incl[n]; f64 excl[n])
summary = {}
for m in facts["metrics"]:
    summary[m] = dict(q("SELECT id, inclusive FROM context_values WHERE run = ? AND metric = ?", run, mid[m]))
    acc = {}
    blobs = q("SELECT profile, data FROM profile_value WHERE run = ? AND metric = ? ORDER BY profile", run, mid[m])
    expect("profile blobs of %s" % m, len(blobs), facts["profiles"])
    for p, data in blobs:
        raw = subprocess.run(["zstd", "-d", "-c", "-q"], input=data, stdout=subprocess.PIPE, check=True).stdout
        (n,) = struct.unpack_from("<I", raw)
        ctx = struct.unpack_from("<%dI" % n, raw, 4)
        inc = struct.unpack_from("<%dd" % n, raw, 4 + 4 * n)
        d = dict(zip(ctx, inc))
        expect("profile %d root inclusive of %s" % (p, m), d.get(root, 0.0),
               facts["profile_root_inclusive"][p - 1][m])
        for c, v in d.items():
            acc[c] = acc.get(c, 0.0) + v
    bad = [c for c in set(acc) | set(summary[m]) if not close(acc.get(c, 0.0), summary[m].get(c, 0.0))]
    if bad:
        c = sorted(bad)[0]
        errors.append("%s: sum over profiles != summary at %d contexts (e.g. ctx %d: %r vs %r)"
                      % (m, len(bad), c, acc.get(c, 0.0), summary[m].get(c, 0.0)))
if errors:
    print("gendb %s: %d mismatches" % (fmt, len(errors)))
    for e in errors[:30]:
        print("  " + e)
    sys.exit(1)
print("gendb %s: ok (%d contexts, %d profiles, %d functions checked)"
      % (fmt, sum(kinds.values()), nprof, len(facts["functions"])))
EOF
}

# classic: experiment.xml + 3 metric-db files
python3 "$gen" -q --format classic --nodes 2000 --profiles 3 --recursion 0.1 --loops 0.2 --inlined 0.2 \
  --seed 7 --facts "$tmp/classic.json" "$tmp/classic"
"$CCTINGEST" --quiet "$tmp/classic" "$tmp/classic.sqlite"
check classic "$tmp/classic" "$tmp/classic.json" "$tmp/classic.sqlite"

# v4: meta.db + profile.db + cct.db, with elided instruction contexts
python3 "$gen" -q --format v4 --nodes 2000 --profiles 3 --recursion 0.1 --loops 0.2 --inlined 0.2 \
  --elided 0.3 --seed 7 --facts "$tmp/v4.json" "$tmp/v4"
python3 "$gen" --inspect --verify "$tmp/v4" >"$tmp/v4.inspect" || { cat "$tmp/v4.inspect"; exit 1; }
"$CCTINGEST" --quiet "$tmp/v4" "$tmp/v4.sqlite"
check v4 "$tmp/v4" "$tmp/v4.json" "$tmp/v4.sqlite"
