"""prof2read.py: the profiles of a prof2 profile.db (big-endian, develop builds
2021-10..2022-08), read from the layout of docs/hpctoolkit-formats.md section 2,
independently of cctq's code; imported by check_prof2.py and loopcheck.py."""
import os
import struct


def read_profiles(db_dir):
    """Returns (profiles, fails): profiles is a list, profile 0 the summary, of
    (id tuple [(kind, physical, logical)], {ctx: {metric id: value}}); fails lists
    profiles without their end marker."""
    data = open(os.path.join(db_dir, "profile.db"), "rb").read()
    assert data[:16] == b"HPCPROF-profdb__" and data[16] == 1, "not a prof2 profile.db"
    nprof, = struct.unpack_from(">I", data, 18)
    info_off = struct.unpack_from(">Q", data, 32)[0]
    profiles, fails = [], []
    for k in range(nprof):
        tup, _, _, _, nvals, nctx, off = struct.unpack_from(">QQQQQIQ", data, info_off + 52 * k)
        vals = [struct.unpack_from(">dH", data, off + 10 * j) for j in range(nvals)]
        idx = [struct.unpack_from(">IQ", data, off + 10 * nvals + 12 * j) for j in range(nctx)]
        if data[off + 10 * nvals + 12 * nctx:][:4] != b"end!":
            fails.append(f"profile {k}: no end marker")
        ctxs = {}
        for j, (c, start) in enumerate(idx):
            end = idx[j + 1][1] if j + 1 < nctx else nvals
            ctxs[c] = {m: v for v, m in vals[start:end]}
        ntup, = struct.unpack_from(">H", data, tup)
        ids = [struct.unpack_from(">HQQ", data, tup + 2 + 18 * j) for j in range(ntup)]
        profiles.append((ids, ctxs))
    return profiles, fails
