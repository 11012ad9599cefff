"""view_rows.py: a view printed twice, as text (tree or table) in DIR/text and
as csv in DIR/csv, paired row by row for the tests that check what the text
shows against the data (labels.sh, short_names.sh).  rows(DIR, WHAT) returns
[(text line, csv row dict)] and fails (exit 1, naming WHAT) when the two do
not have as many rows."""
import csv
import re
import sys


def fail(what, message):
    print("FAIL:", what, message)
    sys.exit(1)


def rows(d, what):
    data = list(csv.DictReader(open(d + "/csv", newline="")))
    lines = [l.rstrip("\n") for l in open(d + "/text") if re.match(r"^ *\[\d+\]", l)]
    if len(lines) != len(data):
        fail(what, "%d rows, csv %d" % (len(lines), len(data)))
    return list(zip(lines, data))
