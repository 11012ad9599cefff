/* trace.c: reads the traces of a database (trace.h) into the archive.  Every
 * format is, per profile, an array of fixed-size records {u64 time, u32
 * context id[, u32 more]} somewhere in a file: v4 trace.db (little-endian, ns),
 * prof2 trace.db (big-endian, ns), classic *.hpctrace and the copies of them
 * that hpcviewer's experiment.mt concatenates (big-endian; version 01.00 in
 * microseconds, 01.01 in ns).  The files are read twice, in blocks, never
 * whole: before the tree to sum each context's traced time (the metric
 * 'trace'), at commit to store the records by the contexts' pre numbers. */
#include "cct_kinds.h"
#include "cct_util.h"
#include "trace.h"
#include "classic_int.h"
#include "idmap.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

/* One profile's trace: where its records are and what the first pass found. */
typedef struct tstream {
  size_t file;               /* index in cct_traces.paths */
  uint64_t off, n;           /* first record's offset, record count */
  unsigned recsz;            /* bytes per record (12, or 16 for classic data-centric traces) */
  int big;                   /* big-endian */
  int64_t scale;             /* ns per time unit */
  int bykey;                 /* v4, prof2: bound to profile 'profile.db#sub'; classic: by identity */
  unsigned sub;              /* v4, prof2: profile index; experiment.mt: embedded file number; 0 = none */
  cct_profile_id id;         /* classic: from the file name; else filled by binding */
  int64_t profile;           /* writer's profile number, 0 = none */
  int64_t first, last, busy; /* ns: first and last record, time on a context */
} tstream;

struct cct_traces {
  char **paths;
  size_t npaths;
  tstream *s;
  size_t ns, scap;
  cct_idmap ids;             /* (trace id, 0) -> index in ns_at / off */
  int64_t *ns_at, *off;      /* per id: traced ns; pre offset, -1 until entered */
  size_t nids, nscap, offcap;
  int64_t t0, t1;            /* first and last record of the run (absolute ns) */
  long long records, strays; /* strays: counted by cct_traces_store */
};

static uint64_t rd64(const unsigned char *p, int big) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)p[big ? 7 - i : i] << (8 * i);
  return v;
}
static uint32_t rd32(const unsigned char *p, int big) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v |= (uint32_t)p[big ? 3 - i : i] << (8 * i);
  return v;
}
static unsigned rd16(const unsigned char *p, int big) { return big ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0]; }

void cct_traces_free(cct_traces *t) {
  if (!t) return;
  for (size_t i = 0; i < t->npaths; i++) free(t->paths[i]);
  free(t->paths);
  free(t->s);
  free(t->ns_at);
  free(t->off);
  cct_idmap_release(&t->ids);
  free(t);
}

static int nomem(cct_err *err) { return cct_err_set(err, CCT_ENOMEM, "out of memory reading the traces"); }

/* Adds path to t->paths; returns its index, or -1 when out of memory. */
static long add_path(cct_traces *t, const char *path) {
  char **p = cct_reallocarray(t->paths, (t->npaths + 1), sizeof *p);
  if (!p) return -1;
  t->paths = p;
  if (!(p[t->npaths] = strdup(path))) return -1;
  return (long)t->npaths++;
}

static tstream *add_stream(cct_traces *t, size_t file, uint64_t off, uint64_t n, unsigned recsz, int big,
                           int64_t scale) {
  if (CCT_GROW(t->s, t->ns + 1, t->scap)) return NULL;
  tstream *s = &t->s[t->ns++];
  memset(s, 0, sizeof *s);
  s->file = file, s->off = off, s->n = n, s->recsz = recsz, s->big = big, s->scale = scale;
  s->id.node = s->id.rank = s->id.thread = s->id.core = s->id.gpucontext = s->id.gpustream = -1;
  return s;
}

/* Reads n bytes at off of f into buf; 0, or -1 when the file is shorter. */
static int read_at(FILE *f, uint64_t off, void *buf, size_t n) {
  return fseeko(f, (off_t)off, SEEK_SET) || fread(buf, 1, n, f) != n ? -1 : 0;
}

static int file_size(FILE *f, uint64_t *size) {
  struct stat sb;
  if (fstat(fileno(f), &sb)) return -1;
  *size = (uint64_t)sb.st_size;
  return 0;
}

/* v4 trace.db: header, one section (CtxTraces), the trace headers. */
static int list_v4(cct_traces *t, const char *path, FILE *f, cct_err *err) {
  unsigned char h[0x40];
  uint64_t size;
  if (file_size(f, &size) || size < 0x28 || read_at(f, 0, h, 0x20))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated (not a trace.db)", path);
  if (memcmp(h, "HPCTOOLKIT", 10) || memcmp(h + 10, "trce", 4))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': bad magic (not a v4 trace.db)", path);
  if (h[14] != 4) return cct_err_set(err, CCT_EFORMAT, "'%s': trace.db major version %u (this build reads 4)", path, h[14]);
  unsigned char foot[8];
  if (read_at(f, size - 8, foot, 8) || memcmp(foot, "trace.db", 8))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated (no 'trace.db' footer)", path);
  uint64_t secsz = rd64(h + 0x10, 0), sec = rd64(h + 0x18, 0);
  if (secsz < 0x0d || sec > size || size - sec < 0x20)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': trace section lies outside the file", path);
  if (read_at(f, sec, h, 0x20)) return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated trace section", path);
  uint64_t ptr = rd64(h, 0);
  uint32_t n = rd32(h + 8, 0);
  unsigned sz = h[0x0c];
  if (sz < 24) return cct_err_set(err, CCT_ECORRUPT, "'%s': trace header size %u too small (at least 24)", path, sz);
  if (ptr > size || (size - ptr) / sz < n)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: %u trace headers end past end of file", path, n);
  long file = add_path(t, path);
  if (file < 0) return nomem(err);
  for (uint32_t i = 0; i < n; i++) {
    if (read_at(f, ptr + (uint64_t)i * sz, h, 24)) return cct_err_set(err, CCT_EIO, "cannot read '%s'", path);
    uint32_t prof = rd32(h, 0);
    uint64_t a = rd64(h + 8, 0), b = rd64(h + 16, 0);
    if (a > b || b > size - 8 || (b - a) % 12)
      return cct_err_set(err, CCT_ECORRUPT, "'%s': the records of trace %u (profile %u) lie outside the file", path, i, prof);
    if (a == b) continue;
    tstream *s = add_stream(t, (size_t)file, a, (b - a) / 12, 12, 0, 1);
    if (!s) return nomem(err);
    s->bykey = 1, s->sub = prof;
  }
  return CCT_OK;
}

/* prof2 trace.db (big-endian): magic, version, num_traces, one section of 22-byte trace headers. */
static int list_prof2(cct_traces *t, const char *path, FILE *f, cct_err *err) {
  unsigned char h[40];
  uint64_t size;
  if (file_size(f, &size) || size < 40 || read_at(f, 0, h, 40))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated (not a trace.db)", path);
  if (memcmp(h, "HPCPROF-tracedb_", 16)) return cct_err_set(err, CCT_ECORRUPT, "'%s': bad magic (not a prof2 trace.db)", path);
  uint32_t n = rd32(h + 18, 1);
  uint64_t ptr = rd64(h + 32, 1);
  if (ptr > size || (size - ptr) / 22 < n)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: %u trace headers end past end of file", path, n);
  long file = add_path(t, path);
  if (file < 0) return nomem(err);
  for (uint32_t i = 0; i < n; i++) {
    if (read_at(f, ptr + 22ull * i, h, 22)) return cct_err_set(err, CCT_EIO, "cannot read '%s'", path);
    uint32_t prof = rd32(h, 1);
    unsigned type = rd16(h + 4, 1);
    uint64_t a = rd64(h + 6, 1), b = rd64(h + 14, 1);
    if (type != 0) continue; /* only context traces are defined */
    if (a > b || b > size || (b - a) % 12)
      return cct_err_set(err, CCT_ECORRUPT, "'%s': the records of trace %u (profile %u) lie outside the file", path, i, prof);
    if (a == b) continue;
    tstream *s = add_stream(t, (size_t)file, a, (b - a) / 12, 12, 1, 1);
    if (!s) return nomem(err);
    s->bykey = 1, s->sub = prof;
  }
  return CCT_OK;
}

/* One classic hpctrace file of size bytes at off of f (named label). */
static int add_hpctrace(cct_traces *t, size_t file, FILE *f, uint64_t off, uint64_t size, const char *name,
                        const char *label, cct_err *err) {
  unsigned char h[32];
  if (size < 24 || read_at(f, off, h, 24)) return cct_err_set(err, CCT_ECORRUPT, "%s: truncated trace header", label);
  if (memcmp(h, "HPCRUN-trace______", 18)) return cct_err_set(err, CCT_ECORRUPT, "%s: bad magic (not an hpctrace file)", label);
  int v101 = !memcmp(h + 18, "01.01", 5);
  if (!v101 && memcmp(h + 18, "01.00", 5))
    return cct_err_set(err, CCT_EFORMAT, "%s: hpctrace version '%.5s' (this build reads 01.00 and 01.01)", label, h + 18);
  if (h[23] != 'b') return cct_err_set(err, CCT_EFORMAT, "%s: a little-endian hpctrace file", label);
  unsigned hdr = v101 ? 32 : 24, recsz = 12;
  if (v101) {
    if (size < 32 || read_at(f, off, h, 32)) return cct_err_set(err, CCT_ECORRUPT, "%s: truncated trace header", label);
    if (rd64(h + 24, 1) & 1) recsz = 16; /* data-centric: a metric id follows */
  }
  if ((size - hdr) % recsz)
    return cct_err_set(err, CCT_ECORRUPT, "%s: truncated: %llu bytes of records, not a whole number of %u-byte records", label,
                       (unsigned long long)(size - hdr), recsz);
  if (size == hdr) return CCT_OK;
  tstream *s = add_stream(t, file, off + hdr, (size - hdr) / recsz, recsz, 1, v101 ? 1 : 1000);
  if (!s) return nomem(err);
  cct_classic_profile_id(name, &s->id);
  return CCT_OK;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Classic: the *.hpctrace files of db_dir (by name), else hpcviewer's experiment.mt. */
static int list_classic(cct_traces *t, const char *db_dir, cct_err *err) {
  DIR *d = opendir(db_dir);
  if (!d) return cct_err_set(err, CCT_EIO, "cannot open '%s': %s", db_dir, strerror(errno));
  char **names = NULL;
  size_t n = 0, cap = 0;
  int rc = CCT_OK;
  for (struct dirent *e; !rc && (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len <= 9 || strcmp(e->d_name + len - 9, ".hpctrace")) continue;
    if (CCT_GROW(names, n + 1, cap) || !(names[n] = strdup(e->d_name))) rc = nomem(err);
    else n++;
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, cmp_str);
  char path[4096], label[4200];
  for (size_t i = 0; !rc && i < n; i++) {
    snprintf(path, sizeof path, "%s/%s", db_dir, names[i]);
    snprintf(label, sizeof label, "'%s'", path);
    FILE *f = cct_fopen_regular(path, err);
    uint64_t size = 0;
    long file = f ? add_path(t, path) : -1;
    if (!f) rc = err->code;
    else if (file < 0) rc = nomem(err);
    else if (file_size(f, &size)) rc = cct_err_set(err, CCT_EIO, "cannot read '%s'", path);
    else rc = add_hpctrace(t, (size_t)file, f, 0, size, names[i], label, err);
    if (f) fclose(f);
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  if (rc || n) return rc;
  snprintf(path, sizeof path, "%s/experiment.mt", db_dir);
  struct stat sb;
  if (lstat(path, &sb)) return CCT_OK;
  FILE *f = cct_fopen_regular(path, err);
  if (!f) return err->code;
  cct_mdb_entry *e = NULL;
  uint32_t ne = 0;
  long file = add_path(t, path);
  rc = file < 0 ? nomem(err) : cct_mdb_read_index(f, path, &e, &ne, err);
  for (uint32_t k = 0; !rc && k < ne; k++) {
    snprintf(label, sizeof label, "'%s' embedded file %u of %u", path, k + 1, ne);
    char name[64];
    snprintf(name, sizeof name, "x-%06d-%03d-0-0-0.hpctrace", e[k].proc, e[k].thread);
    size_t before = t->ns;
    rc = add_hpctrace(t, (size_t)file, f, e[k].offset, e[k].size, name, label, err);
    if (!rc && t->ns > before) {
      t->s[t->ns - 1].sub = k + 1;
      t->s[t->ns - 1].id.node = -1; /* as the merged metric file's profiles */
    }
  }
  free(e);
  fclose(f);
  return rc;
}

/* The index of trace id (created with 0 ns), or -1 when out of memory. */
static long id_index(cct_traces *t, uint32_t id) {
  int added = 0;
  int64_t *v = cct_idmap_put(&t->ids, id, 0, (int64_t)t->nids, &added);
  if (!v) return -1;
  if (added) {
    if (CCT_GROW(t->ns_at, t->nids + 1, t->nscap) || CCT_GROW(t->off, t->nids + 1, t->offcap)) return -1;
    t->ns_at[t->nids] = 0;
    t->off[t->nids] = -1;
    t->nids++;
  }
  return (long)*v;
}

/* Calls fn(arg, i, time_ns, ctx) for each record i of stream s, in blocks;
 * checks the order of times.  Returns CCT_OK or an error naming the file. */
typedef int (*record_fn)(void *arg, const tstream *s, uint64_t i, int64_t t, uint32_t ctx, cct_err *err);
static int each_record(const cct_traces *t, const tstream *s, record_fn fn, void *arg, cct_err *err) {
  enum { BLOCK = 4096 };
  const char *path = t->paths[s->file];
  FILE *f = cct_fopen_regular(path, err);
  if (!f) return err->code;
  unsigned char *buf = malloc((size_t)BLOCK * s->recsz);
  int rc = buf ? CCT_OK : nomem(err);
  int64_t prev = INT64_MIN;
  char what[48] = "its trace";
  if (s->sub) snprintf(what, sizeof what, "%s %u", s->bykey ? "profile" : "embedded file", s->sub);
  for (uint64_t i = 0; !rc && i < s->n; i += BLOCK) {
    size_t m = s->n - i < BLOCK ? (size_t)(s->n - i) : BLOCK;
    if (read_at(f, s->off + i * s->recsz, buf, m * s->recsz)) {
      rc = cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: records end past end of file", path);
      break;
    }
    for (size_t j = 0; !rc && j < m; j++) {
      const unsigned char *p = buf + j * s->recsz;
      uint64_t raw = rd64(p, s->big);
      if (raw > (uint64_t)INT64_MAX / (uint64_t)s->scale) {
        rc = cct_err_set(err, CCT_ECORRUPT, "'%s': record %llu of %s has time %llu, out of range", path,
                         (unsigned long long)(i + j), what, (unsigned long long)raw);
        break;
      }
      int64_t tm = (int64_t)raw * s->scale;
      if (tm < prev) {
        rc = cct_err_set(err, CCT_ECORRUPT, "'%s': record %llu of %s is earlier than the one before it (%lld < %lld ns): "
                         "times out of order", path, (unsigned long long)(i + j), what,
                         (long long)tm, (long long)prev);
        break;
      }
      prev = tm;
      rc = fn(arg, s, i + j, tm, rd32(p + 8, s->big), err);
    }
  }
  free(buf);
  fclose(f);
  return rc;
}

/* First pass: per record, the time since the previous one goes to the previous context. */
typedef struct scan_state {
  cct_traces *t;
  tstream *s;
  int64_t prev_t;
  long prev;     /* index of the previous record's id, -1 idle */
} scan_state;

static int scan_record(void *arg, const tstream *s, uint64_t i, int64_t tm, uint32_t ctx, cct_err *err) {
  scan_state *st = arg;
  (void)s;
  if (i == 0) st->s->first = tm;
  else if (st->prev >= 0) {
    st->t->ns_at[st->prev] += tm - st->prev_t;
    st->s->busy += tm - st->prev_t;
  }
  st->prev_t = tm;
  st->s->last = tm;
  st->prev = ctx ? id_index(st->t, ctx) : -1;
  if (ctx && st->prev < 0) return nomem(err);
  return CCT_OK;
}

int cct_traces_scan(const char *db_dir, const char *format, cct_traces **out, cct_err *err) {
  *out = NULL;
  cct_traces *t = calloc(1, sizeof *t);
  if (!t) return nomem(err);
  char path[4096];
  struct stat sb;
  int rc = CCT_OK;
  if (!strcmp(format, "v4") || !strcmp(format, "prof2")) {
    snprintf(path, sizeof path, "%s/trace.db", db_dir);
    if (!lstat(path, &sb)) {
      FILE *f = cct_fopen_regular(path, err);
      if (!f) rc = err->code;
      else rc = format[0] == 'v' ? list_v4(t, path, f, err) : list_prof2(t, path, f, err);
      if (f) fclose(f);
    }
  } else {
    rc = list_classic(t, db_dir, err);
  }
  t->t0 = INT64_MAX;
  t->t1 = INT64_MIN;
  for (size_t i = 0; !rc && i < t->ns; i++) {
    scan_state st = {t, &t->s[i], 0, -1};
    rc = each_record(t, &t->s[i], scan_record, &st, err);
    if (t->s[i].first < t->t0) t->t0 = t->s[i].first;
    if (t->s[i].last > t->t1) t->t1 = t->s[i].last;
    t->records += (long long)t->s[i].n;
  }
  if (rc || !t->records) {
    cct_traces_free(t);
    return rc;
  }
  *out = t;
  return CCT_OK;
}

double cct_traces_enter(cct_traces *t, int64_t id, int64_t off) {
  if (id <= 0 || id > UINT32_MAX) return 0;
  int64_t *v = cct_idmap_get(&t->ids, id, 0);
  if (!v) return 0;
  t->off[*v] = off;
  return (double)t->ns_at[*v] * 1e-9;
}

void cct_traces_bind(cct_traces *t, const cct_profile_id *id, int64_t profile) {
  for (size_t i = 0; i < t->ns; i++) {
    tstream *s = &t->s[i];
    if (s->profile) continue;
    char key[32];
    snprintf(key, sizeof key, "profile.db#%u", s->sub);
    int same = s->bykey ? id->source && !strcmp(key, id->source)
                         : s->id.rank == id->rank && s->id.thread == id->thread && s->id.node == id->node &&
                               (s->id.rank >= 0 || s->id.thread >= 0);
    if (!same) continue;
    const char *keep = s->id.source;
    s->id = *id;
    s->id.source = keep;
    s->profile = profile;
  }
}

/* Second pass: records into chunks of CCT_TRACE_CHUNK. */
typedef struct store_state {
  cct_traces *t;
  const cct_trace_sink *sink;
  int64_t lane;
  uint32_t *ctx;
  uint64_t *dt;
  uint32_t n;
  int64_t seq, first, prev;
  long long strays;
  int64_t stray_ns, last;    /* time on strays (not busy); the lane's previous record */
  int stray;                 /* the previous record was a stray */
} store_state;

static int flush_chunk(store_state *st, int64_t end, cct_err *err) {
  if (!st->n) return CCT_OK;
  size_t raw = (size_t)st->n * CCT_TRACE_RECORD_BYTES, cap = ZSTD_compressBound(raw);
  unsigned char *buf = malloc(raw), *z = malloc(cap);
  if (!buf || !z) {
    free(buf);
    free(z);
    return nomem(err);
  }
  for (uint32_t i = 0; i < st->n; i++) cct_trace_record_put(buf, st->n, i, st->ctx[i], st->dt[i]);
  size_t zn = ZSTD_compress(z, cap, buf, raw, 3);
  free(buf);
  if (ZSTD_isError(zn)) {
    free(z);
    return cct_err_set(err, CCT_ENOMEM, "zstd: %s", ZSTD_getErrorName(zn));
  }
  const cct_trace_sink *k = st->sink;
  int rc = k->chunk(k->arg, st->lane, st->seq++, st->first - st->t->t0, end - st->t->t0, st->n, z, zn);
  st->n = 0;
  if (rc) cct_err_set(err, rc, "%s", k->message(k->arg));
  return rc;
}

static int store_record(void *arg, const tstream *s, uint64_t i, int64_t tm, uint32_t ctx, cct_err *err) {
  store_state *st = arg;
  (void)s;
  (void)i;
  if (st->n == CCT_TRACE_CHUNK) {
    int rc = flush_chunk(st, tm, err);
    if (rc) return rc;
  }
  uint32_t off = 0;
  if (st->stray) st->stray_ns += tm - st->last; /* the previous record lasted until this one */
  st->stray = 0;
  st->last = tm;
  if (ctx) {
    int64_t *v = cct_idmap_get(&st->t->ids, ctx, 0);
    int64_t o = v ? st->t->off[*v] : -1;
    if (o <= 0 || o > UINT32_MAX) st->strays++, st->stray = 1; /* not in the tree (or the root): idle */
    else off = (uint32_t)o;
  }
  if (!st->n) st->first = st->prev = tm;
  st->ctx[st->n] = off;
  st->dt[st->n] = (uint64_t)(tm - st->prev);
  st->prev = tm;
  st->n++;
  return CCT_OK;
}

int cct_traces_store(cct_traces *t, const cct_trace_sink *sink, cct_err *err) {
  store_state st = {t, sink, 0, malloc(CCT_TRACE_CHUNK * sizeof(uint32_t)), malloc(CCT_TRACE_CHUNK * sizeof(uint64_t)),
                    0, 0, 0, 0, 0, 0, 0, 0};
  int rc = st.ctx && st.dt ? CCT_OK : nomem(err);
  long long strays = 0;
  for (size_t i = 0; !rc && i < t->ns; i++) {
    tstream *s = &t->s[i];
    st.lane = (int64_t)i + 1;
    st.n = 0, st.seq = 0, st.strays = 0, st.stray_ns = 0, st.stray = 0;
    rc = each_record(t, s, store_record, &st, err);
    if (!rc) rc = flush_chunk(&st, s->last, err);
    if (!rc && 2 * (uint64_t)st.strays > s->n)
      rc = cct_err_set(err, CCT_ECORRUPT, "'%s': %lld of the %llu records of %s%u name contexts that are not in the tree "
                       "(a trace of another database?)", t->paths[s->file], st.strays, (unsigned long long)s->n,
                       s->bykey ? "profile " : "trace ", s->bykey ? s->sub : (unsigned)i + 1);
    if (!rc) {
      char source[4200];
      const char *base = strrchr(t->paths[s->file], '/');
      if (s->sub) snprintf(source, sizeof source, "%s#%u", base ? base + 1 : t->paths[s->file], s->sub);
      else snprintf(source, sizeof source, "%s", base ? base + 1 : t->paths[s->file]);
      cct_profile_id id = s->id;
      id.source = source;
      rc = sink->lane(sink->arg, st.lane, s->profile, &id, (long long)s->n, st.strays, s->first - t->t0,
                      s->last - t->t0, s->busy - st.stray_ns);
      if (rc) cct_err_set(err, rc, "%s", sink->message(sink->arg));
    }
    strays += st.strays;
  }
  if (!rc) {
    rc = sink->run(sink->arg, t->t0, t->t1 - t->t0, t->records, strays, (long long)t->ns);
    if (rc) cct_err_set(err, rc, "%s", sink->message(sink->arg));
  }
  t->strays = strays;
  free(st.ctx);
  free(st.dt);
  return rc;
}

void cct_traces_counts(const cct_traces *t, long long *records, long long *strays) {
  *records = t ? t->records : 0;
  *strays = t ? t->strays : 0;
}

int cct_traces_digest(const cct_traces *t, uint64_t *h, long long *bytes, cct_err *err) {
  for (size_t i = 0; t && i < t->npaths; i++) {
    int rc = cct_digest_file(t->paths[i], h, bytes, err);
    if (rc) return rc;
  }
  return CCT_OK;
}
