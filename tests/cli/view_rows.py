"""view_rows.py: a view printed twice by cctq, as text (tree or table) and as
csv, paired row by row for the tests that check what the text shows against
the data (labels.sh, short_names.sh).  printed(ARCHIVE, VIEW, WHAT) runs
'$CCTQ ARCHIVE -c "TEXT_PREFIX VIEW"' and '-c "mode csv; VIEW"' and returns
[(text line, csv row dict)]; it fails (exit 1, naming WHAT) when cctq fails
or the two do not have as many rows."""
import csv
import io
import os
import re
import subprocess
import sys


def fail(what, message):
    print("FAIL:", what, message)
    sys.exit(1)


def run(what, archive, commands):
    p = subprocess.run([os.environ["CCTQ"], archive, "-c", commands], capture_output=True, text=True)
    if p.returncode != 0:
        fail(what, "cctq -c %r: exit %d: %s" % (commands, p.returncode, p.stderr.strip()))
    return p.stdout


def printed(archive, view, what, text_prefix=""):
    text = run(what, archive, text_prefix + view)
    data = list(csv.DictReader(io.StringIO(run(what, archive, "mode csv; " + view), newline="")))
    lines = [l for l in text.split("\n") if re.match(r"^ *\[\d+\]", l)]
    if len(lines) != len(data):
        fail(what, "%d rows, csv %d" % (len(lines), len(data)))
    return list(zip(lines, data))
