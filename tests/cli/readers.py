"""readers.py: independent readers of what cctq writes, shared by the tests
that check it against the inputs: a profile_value blob of the archive (the
zstd command and struct, not cctq's code: check_classic.py, check_prof2.py)
and the last JSON object of a cctq output (diff.sh)."""
import json
import struct
import subprocess


def blob_values(blob):
    """{context: (inclusive, exclusive)} of a profile_value blob: zstd of n (u32),
    n contexts (u32), n inclusive and n exclusive values (f64), little-endian."""
    raw = subprocess.run(["zstd", "-dc"], input=blob, stdout=subprocess.PIPE, check=True).stdout
    n = struct.unpack_from("<I", raw, 0)[0]
    ctx = struct.unpack_from(f"<{n}I", raw, 4)
    inc = struct.unpack_from(f"<{n}d", raw, 4 + 4 * n)
    exc = struct.unpack_from(f"<{n}d", raw, 4 + 12 * n)
    return {c: (i, e) for c, i, e in zip(ctx, inc, exc)}


def last_object(path):
    """The last of the JSON objects in file path (a view's, then a diff's): each must parse whole."""
    text, objs, i = open(path).read(), [], 0
    while i < len(text):
        o, i = json.JSONDecoder().raw_decode(text, i)
        objs.append(o)
        while i < len(text) and text[i].isspace():
            i += 1
    return objs[-1]
