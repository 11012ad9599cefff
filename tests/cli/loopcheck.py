#!/usr/bin/env python3
"""loopcheck.py: at line granularity a loop row's exclusive is the database's own
exclusive of the loop contexts it merges (issue 25 item 2), for the formats with
an experiment.xml, read here independently of cctq's code (v4: v4read.py
loopcheck).  Classic: the loop's t="exclusive" value ('NAME:Sum (E)', hpcprof's
lex-aware exclusive: a loop without its nested loops), 0 where the <L> has none;
prof2: the summary profile's exclusive value in profile.db (prof2 stores no
lex-aware scope), 0 where none.

  loopcheck.py DB_DIR metrics        names of up to 3 metrics with a value on some loop first
  loopcheck.py DB_DIR METRIC < CSV   checks cctq's 'granularity line; mode csv; topdown N'
                                     of the whole program: per loop header (file, line) the
                                     rows' exclusive values are the contexts' (sorted lists when
                                     as many rows as contexts, else sums; no row where all are 0:
                                     rows of zero cost are left out); exits 1 on a difference
  loopcheck.py DB_DIR ingested ARCHIVE
                                     the same for each of those metrics, the csv from $CCTQ
                                     on ARCHIVE (one process for the whole check)"""
import csv, os, subprocess, sys
import xml.etree.ElementTree as ET


def compare_loops(want, rows, metric, what="exclusive"):
    """Compares want {(file, line): [database values]} with the loop rows of a cctq csv
    (an iterable of lines); prints the differences and a summary line, returns how many
    loop headers differ.  Also used by v4read.py loopcheck."""
    have = {}
    for row in csv.DictReader(rows):
        if row["kind"] == "loop":
            have.setdefault((row["file"], int(row["line"] or 0)), []).append(float(row[metric + " exclusive"]))
    close = lambda a, b: abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12
    bad = 0
    for key in sorted(set(want) | set(have)):
        w, h = sorted(want.get(key, [])), sorted(have.get(key, []))
        # no row: rows of zero cost are left out, so every context's value must be 0
        ok = all(map(close, w, h)) if len(w) == len(h) else close(sum(w), sum(h)) if h else not any(w)
        if not ok:
            bad += 1
            print(f"loop {key[0]}:{key[1]}: rows {h[:8]}, database {what} {w[:8]}")
    print(f"{sum(map(len, want.values()))} loop contexts, {sum(map(len, have.values()))} loop rows, {bad} differ")
    return bad


def cctq_loop_rows(archive, metric):
    """The csv that 'cctq ARCHIVE -c "metric METRIC; granularity line; mode csv; topdown 10000"' prints
    ($CCTQ): every loop row of the archive's last run at line granularity, for compare_loops."""
    return subprocess.run([os.environ["CCTQ"], archive, "-c", "metric '%s'; granularity line; mode csv; topdown 10000" % metric],
                          check=True, capture_output=True, text=True).stdout


def main():
    db_dir = sys.argv[1]
    xml = os.path.join(db_dir, "experiment.xml")
    prof2 = os.path.exists(os.path.join(db_dir, "profile.db"))
    files, excl_id, loops = {}, {}, []  # File i -> path; base metric -> id of its exclusive; (i, file, line, {id: v})
    pending = None
    stack = []
    for ev, el in ET.iterparse(xml, events=("start", "end")):
        if ev == "start":
            if el.tag == "File":
                files[el.get("i")] = el.get("n")
            elif el.tag == "Metric":
                pending = el.get("n")
                if not prof2 and el.get("t") == "exclusive" and pending.endswith(":Sum (E)"):
                    excl_id[pending[:-len(":Sum (E)")]] = el.get("i")
            elif el.tag == "MetricFormula" and prof2 and el.get("t") == "view" and pending and pending.endswith(":Sum (E)"):
                excl_id[pending[:-len(":Sum (E)")]] = el.get("frm")[1:]
            elif el.tag == "L":  # a loop without f is in its procedure's file (DTD 2.0)
                f = files.get(el.get("f"), "") if el.get("f") else stack[-1][1] if stack else ""
                stack.append((el.get("i"), f, int(el.get("l") or 0), {}))
            elif el.tag == "M" and stack and not prof2 and stack[-1][0] is not None:
                stack[-1][3][el.get("n")] = float(el.get("v"))
            elif el.tag in ("PF", "Pr", "C", "S"):
                f = files.get(el.get("f"), "") if el.get("f") else stack[-1][1] if stack else ""
                stack.append((None, f, None, None))
        else:
            if el.tag == "L":
                loops.append(stack.pop())
            elif el.tag in ("PF", "Pr", "C", "S"):
                stack.pop()
            el.clear()
    if prof2:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from prof2read import read_profiles
        summary = read_profiles(db_dir)[0][0][1]
        loops = [(i, f, l, {str(m): v for m, v in summary.get(int(i), {}).items()}) for i, f, l, _ in loops if int(i) > 0]


    def value(loop, metric):
        return loop[3].get(excl_id[metric], 0.0) if metric in excl_id else 0.0


    def want_of(metric):
        want = {}
        for x in loops:
            want.setdefault((x[1] or "", x[2]), []).append(value(x, metric))
        return want

    names = sorted(excl_id, key=lambda m: (not any(value(x, m) for x in loops), list(excl_id).index(m)))[:3]
    if sys.argv[2] == "metrics":
        print("\n".join(names))
        return
    if sys.argv[2] == "ingested":  # ARCHIVE: the metrics' loop rows by $CCTQ, each as 'METRIC' below
        bad = 0
        for metric in names:
            bad += compare_loops(want_of(metric), cctq_loop_rows(sys.argv[3], metric).splitlines(True), metric) > 0
        return 1 if bad else 0
    metric = sys.argv[2]
    return 1 if compare_loops(want_of(metric), sys.stdin, metric) else 0


if __name__ == "__main__":
    sys.exit(main())
