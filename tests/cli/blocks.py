#!/usr/bin/env python3
"""blocks.py: runs checked blocks of cctq commands (as jq's tests/jq.test).

Usage: blocks.py CCTQ ARCHIVE FILE.blocks

A blocks file is a list of blocks separated by blank lines; '#' lines are
comments (they say how each expected value was worked out).  A block is a
first line naming what to run and what is expected of it, then the expected
lines:

  $ COMMANDS     stdout is exactly the lines that follow; stderr empty; exit 0
  ~ COMMANDS     each line that follows is a line of stdout, in this order
                 (other lines may come between); stderr empty; exit 0
  ! COMMANDS     stderr is exactly the lines that follow but the last, which
                 is 'exit N': the exit status

COMMANDS run as 'cctq ARCHIVE -c COMMANDS' (ARCHIVE by its file name); a
first word 'cctq' gives the whole command line instead ('cctq missing.sqlite
-c help', split as by a shell).  Everything runs in ARCHIVE's directory with COLUMNS=100 (no
terminal: nothing is cut).  An expected line 'sql: QUERY' stands for the lines
that plain sqlite3 prints for QUERY on ARCHIVE (fields joined with '|'; run
through Python's sqlite3 module, the same SQLite): values
worked out from the public SQL views rather than copied from cctq's output.
A line starting with '\\' is taken without it (for a line that starts with
'#', '$', '~', '!', 'sql:' or is blank).  Trailing blanks do not count.
A block without expected lines, or a query without rows, is an error: every
block must be able to fail.  Prints one line per failing block and exits 1
when any failed."""
import os
import shlex
import sqlite3
import subprocess
import sys


def parse(path):
    """Blocks as (line number, kind, command, expected lines)."""
    blocks, cur = [], None
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if cur is None:
                if not line.strip() or line.startswith("#"):
                    continue
                if line[:2] not in ("$ ", "~ ", "! "):
                    sys.exit(f"{path}:{no}: a block starts with '$ ', '~ ' or '! ', not {line!r}")
                cur = (no, line[0], line[2:], [])
                blocks.append(cur)
            elif not line.strip():
                cur = None
            elif not line.startswith("#"):
                cur[3].append(line)
    return blocks


_db = {}


def sql_lines(archive, query):
    """The lines plain sqlite3 prints for query on archive (list mode: fields joined
    with '|', NULL empty), through Python's sqlite3 module (the same SQLite library,
    one read-only connection per archive instead of a sqlite3 process per line)."""
    con = _db.get(archive)
    if con is None:
        con = _db[archive] = sqlite3.connect(f"file:{archive}?mode=ro", uri=True)
    def text(v):
        if v is None:
            return ""
        if isinstance(v, float):  # SQLite's own conversion, as sqlite3 prints a REAL
            return con.execute("SELECT CAST(? AS TEXT)", (v,)).fetchone()[0]
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        return str(v)
    try:
        rows = con.execute(query).fetchall()
    except sqlite3.Error as e:
        raise ValueError(f"sqlite3 failed on {query!r}: {e}")
    lines = "\n".join("|".join(text(v) for v in row) for row in rows).splitlines()
    if not lines:
        raise ValueError(f"query without rows: {query!r}")
    return lines


def expand(archive, lines):
    """The expected lines with 'sql:' lines replaced by their rows."""
    res = []
    for line in lines:
        if line.startswith("sql:"):
            res.extend(sql_lines(archive, line[4:].strip()))
        elif line.startswith("\\"):
            res.append(line[1:])
        else:
            res.append(line)
    return [x.rstrip() for x in res]


def run(cctq, archive, command):
    if command.startswith("cctq "):
        argv = [cctq] + shlex.split(command)[1:]
    else:
        argv = [cctq, os.path.basename(archive), "-c", command]
    env = dict(os.environ, COLUMNS="100")
    p = subprocess.run(argv, capture_output=True, text=True, cwd=os.path.dirname(archive) or ".", env=env)
    return p.returncode, p.stdout.splitlines(), p.stderr.splitlines()


def check(cctq, archive, kind, command, expected):
    """None when the block holds, else what is wrong."""
    if not expected:
        return "no expected lines"
    try:
        want = expand(archive, expected)
    except ValueError as e:
        return str(e)
    rc, out, err = run(cctq, archive, command)
    out = [x.rstrip() for x in out]
    err = [x.rstrip() for x in err]
    if kind == "!":
        if not want[-1].startswith("exit "):
            return "the last line of a '!' block is 'exit N'"
        status = int(want[-1][5:])
        if err != want[:-1]:
            return "stderr differs:\n" + diff(want[:-1], err)
        if rc != status:
            return f"exit status {rc}, expected {status}"
        return None
    if rc != 0 or err:
        return f"exit status {rc}, stderr: " + "\n".join(err)
    if kind == "$":
        return None if out == want else "output differs:\n" + diff(want, out)
    at = 0
    for w in want:
        while at < len(out) and out[at] != w:
            at += 1
        if at == len(out):
            return f"no line {w!r} (in this order) in the output:\n" + "\n".join(out)
        at += 1
    return None


def diff(want, got):
    import difflib
    return "\n".join(difflib.unified_diff(want, got, "expected", "got", lineterm=""))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    cctq, archive, path = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    failed = 0
    blocks = parse(path)
    for no, kind, command, expected in blocks:
        why = check(cctq, archive, kind, command, expected)
        if why:
            failed += 1
            print(f"FAIL {os.path.basename(path)}:{no}: {kind} {command}\n{why}\n")
    print(f"{os.path.basename(path)}: {len(blocks) - failed} of {len(blocks)} blocks hold")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
