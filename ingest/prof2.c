/* prof2.c: reader of "prof2" databases, written by HPCToolkit develop builds
 * from October 2021 to August 2022 (formats doc §2): experiment.xml version
 * 4.0 holds the tree (walked by classic.c through cct_xml_hooks) but no
 * values; the big-endian sparse profile.db holds them, profile 0 being the
 * summary.  cct.db is not read (its value blocks are zero-filled in real
 * files) nor is trace.db.
 *
 * profile.db: magic "HPCPROF-profdb__", version 1.0, u32 nProfiles, u16
 * nSections, {u64 size, u64 offset} of the profile infos and of the id
 * tuples.  Profile info (52 bytes): u64 idTuple, metadata, spare, spare, u64
 * nValues, u32 nCtxs, u64 offset of the value block.  Value block: nValues x
 * {f64 value, u16 metric}, nCtxs x {u32 ctx, u64 first value}, then the
 * marker "end!" and u64 nValues.  Id tuple: u16 n, n x {u16 kind, u64
 * physical, u64 logical}.  Footer: the u64 "PROFDBft" in the writer's order.
 *
 * The summary profile uses the ids of the hidden "PARTIAL" metrics, which the
 * visible ones name in their formula (<MetricFormula t="view" frm="$512"/>);
 * thread profiles use the MetricDB ids.  Exclusive values are in the
 * function scope (a loop includes its nested loops; lex_aware came later). */
#include "cct_util.h"
#include "classic_int.h"
#include "ingest_int.h"

#include <errno.h>
#include <fcntl.h>
#include <libxml/xmlreader.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  P2_HEADER = 56,   /* magic, version, counts, two section pointers */
  P2_INFO = 52,     /* one profile info */
  P2_VALUE = 10,    /* {f64 value, u16 metric} */
  P2_IDX = 12,      /* {u32 ctx, u64 first} */
  P2_END = 12,      /* "end!", u64 nValues */
  P2_ID = 18,       /* {u16 kind, u64 physical, u64 logical} */
  P2_FOOTER = 8
};

/* One value block, checked against the file. */
typedef struct p2_block {
  uint64_t nvalues, off; /* values at off, indices after them */
  uint32_t nctxs;
  uint64_t tuple; /* id tuple offset */
} p2_block;

/* A metric id of the file and where its values go. */
typedef struct p2_col {
  uint32_t id;
  int metric; /* writer metric index */
  int which;  /* CCT_INCLUSIVE or CCT_EXCLUSIVE */
} p2_col;

typedef struct prof2 {
  cct_writer *w;
  cct_err *err;
  char *xml_path, *path; /* experiment.xml, profile.db */
  const uint8_t *p;      /* profile.db, mapped */
  size_t n;
  p2_block *blocks; /* [nprof], 0 = summary */
  uint32_t nprof;
  char **keys; /* per writer metric: "base\tstat" */
  int nmetrics;
  p2_col *sum_cols, *prof_cols; /* summary ids, thread profile ids */
  size_t nsum, nprof_cols;
  char *pending;       /* name of the Metric whose MetricFormula may follow */
  int pending_which;   /* its CCT_INCLUSIVE / CCT_EXCLUSIVE */
  uint32_t *ctx;       /* per-metric scratch for one profile: ctx ids */
  double *incl, *excl; /* and values, nmetrics x nctxs of the block */
  size_t scratch;
} prof2;

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }
static double bef64(const uint8_t *p) {
  uint64_t u = be64(p);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* 1 when [off, off + count * size) lies inside the first n bytes. */
static int fits(size_t n, uint64_t off, uint64_t count, uint64_t size) {
  return off <= n && (size == 0 || count <= ((uint64_t)n - off) / size);
}

static int corrupt(prof2 *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int corrupt(prof2 *r, const char *fmt, ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cct_err_set(r->err, CCT_ECORRUPT, "'%s': %s", r->path, msg);
}

static int nomem(prof2 *r) { return cct_err_set(r->err, CCT_ENOMEM, "out of memory reading '%s'", r->path); }

/* ---- profile.db ------------------------------------------------------------ */

static int map_profile(prof2 *r) {
  int fd = cct_open_regular(r->path, r->err);
  if (fd < 0) return CCT_EIO;
  struct stat sb;
  int rc = CCT_OK;
  if (fstat(fd, &sb)) rc = cct_err_set(r->err, CCT_EIO, "cannot read '%s': %s", r->path, strerror(errno));
  else if (!S_ISREG(sb.st_mode)) rc = cct_err_set(r->err, CCT_EIO, "'%s' is not a regular file", r->path);
  else if (sb.st_size < P2_HEADER + P2_FOOTER)
    rc = corrupt(r, "truncated (%lld bytes, a profile.db has at least %d)", (long long)sb.st_size,
                 P2_HEADER + P2_FOOTER);
  else {
    void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) rc = cct_err_set(r->err, CCT_EIO, "cannot read '%s': %s", r->path, strerror(errno));
    else {
      r->p = m;
      r->n = (size_t)sb.st_size;
    }
  }
  close(fd);
  return rc;
}

/* Checks the value block of profile k and records it. */
static int read_block(prof2 *r, uint32_t k, const uint8_t *info) {
  p2_block *b = &r->blocks[k];
  b->tuple = be64(info);
  b->nvalues = be64(info + 32);
  b->nctxs = be32(info + 40);
  b->off = be64(info + 44);
  size_t end = r->n - P2_FOOTER;
  if (!fits(end, b->off, b->nvalues, P2_VALUE) ||
      !fits(end, b->off + b->nvalues * P2_VALUE, b->nctxs, P2_IDX) ||
      !fits(end, b->off + b->nvalues * P2_VALUE + (uint64_t)b->nctxs * P2_IDX, 1, P2_END))
    return corrupt(r, "truncated: the values of profile %u (%llu values, %u contexts at offset %llu) end past the end "
                      "of the file",
                   k, (unsigned long long)b->nvalues, b->nctxs, (unsigned long long)b->off);
  const uint8_t *idx = r->p + b->off + b->nvalues * P2_VALUE, *mark = idx + (uint64_t)b->nctxs * P2_IDX;
  if (memcmp(mark, "end!", 4) || be64(mark + 4) != b->nvalues)
    return corrupt(r, "the values of profile %u do not end with the marker 'end!' and their count", k);
  for (uint32_t i = 0; i < b->nctxs; i++) {
    const uint8_t *q = idx + (uint64_t)i * P2_IDX;
    uint64_t first = be64(q + 4);
    if (i && be32(q) <= be32(q - P2_IDX))
      return corrupt(r, "profile %u: context ids out of order (%u after %u)", k, be32(q), be32(q - P2_IDX));
    if (first > b->nvalues || (i ? first < be64(q - P2_IDX + 4) : first != 0))
      return corrupt(r, "profile %u: bad start %llu of the values of context %u", k, (unsigned long long)first,
                     be32(q));
  }
  return CCT_OK;
}

static int read_header(prof2 *r) {
  const uint8_t *p = r->p;
  if (memcmp(p, "HPCPROF-profdb__", 16))
    return cct_err_set(r->err, CCT_EFORMAT, "'%s': not a prof2 profile.db (bad magic)", r->path);
  if (p[16] != 1)
    return cct_err_set(r->err, CCT_EFORMAT, "'%s': prof2 profile.db version %u.%u; this build reads 1.x", r->path,
                       p[16], p[17]);
  if (memcmp(p + r->n - P2_FOOTER, "tfBDFORP", 8) && memcmp(p + r->n - P2_FOOTER, "PROFDBft", 8))
    return corrupt(r, "no footer 'tfBDFORP' (truncated?)");
  r->nprof = be32(p + 18);
  unsigned nsec = be16(p + 22);
  uint64_t isz = be64(p + 24), ioff = be64(p + 32), tsz = be64(p + 40), toff = be64(p + 48);
  if (nsec < 2) return corrupt(r, "%u sections, a profile.db has 2", nsec);
  if (!fits(r->n - P2_FOOTER, ioff, 1, isz) || !fits(r->n - P2_FOOTER, toff, 1, tsz))
    return corrupt(r, "truncated: a section ends past the end of the file");
  if (r->nprof == 0) return corrupt(r, "no summary profile");
  if (isz / P2_INFO < r->nprof)
    return corrupt(r, "%u profiles do not fit in the profile info section (%llu bytes)", r->nprof,
                   (unsigned long long)isz);
  if (!(r->blocks = calloc(r->nprof, sizeof *r->blocks))) return nomem(r);
  for (uint32_t k = 0; k < r->nprof; k++) {
    int rc = read_block(r, k, p + ioff + (uint64_t)k * P2_INFO);
    if (rc) return rc;
  }
  return CCT_OK;
}

/* The identity of profile k from its id tuple. */
static int identity(prof2 *r, uint32_t k, cct_profile_id *id) {
  id->node = id->rank = id->thread = id->core = id->gpucontext = id->gpustream = -1;
  uint64_t t = r->blocks[k].tuple;
  if (t == 0) return CCT_OK; /* no identity recorded */
  if (!fits(r->n - P2_FOOTER, t, 1, 2) || !fits(r->n - P2_FOOTER, t + 2, be16(r->p + t), P2_ID))
    return corrupt(r, "the id tuple of profile %u lies past the end of the file", k);
  for (unsigned i = 0, nids = be16(r->p + t); i < nids; i++) {
    const uint8_t *q = r->p + t + 2 + (uint64_t)i * P2_ID;
    int64_t physical = (int64_t)be64(q + 2), logical = (int64_t)be64(q + 10);
    switch (be16(q) & 0x3fff) { /* the top 2 bits say which of the two ids is valid */
    case 1: id->node = physical; break;
    case 2: id->rank = logical; break;
    case 3: id->thread = logical; break;
    case 5: id->gpucontext = logical; break;
    case 6: id->gpustream = logical; break;
    case 7: id->core = logical; break;
    default: break; /* 0 summary, 4 GPU device */
    }
  }
  return CCT_OK;
}

/* Context i of block b: its id and the range [*first, *end) of its values. */
static void block_ctx(const prof2 *r, const p2_block *b, uint32_t i, uint32_t *ctx, uint64_t *first, uint64_t *end) {
  const uint8_t *q = r->p + b->off + b->nvalues * P2_VALUE + (uint64_t)i * P2_IDX;
  *ctx = be32(q);
  *first = be64(q + 4);
  *end = i + 1 < b->nctxs ? be64(q + P2_IDX + 4) : b->nvalues;
}

static const p2_col *find_col(const p2_col *c, size_t n, uint32_t id) {
  for (size_t i = 0; i < n; i++)
    if (c[i].id == id) return &c[i];
  return NULL;
}

/* ---- experiment.xml hooks -------------------------------------------------- */

/* The writer metric (base, stat), declared on first use; -1 with err set. */
static int metric_for(prof2 *r, const char *base, const char *stat) {
  char key[600];
  snprintf(key, sizeof key, "%s\t%s", base, stat);
  for (int m = 0; m < r->nmetrics; m++)
    if (!strcmp(r->keys[m], key)) return m;
  char **k = cct_reallocarray(r->keys, (size_t)(r->nmetrics + 1), sizeof *k);
  if (!k) return nomem(r), -1;
  r->keys = k;
  if (!(k[r->nmetrics] = strdup(key))) return nomem(r), -1;
  int m = cct_writer_metric(r->w, base, stat, NULL, 0, r->err);
  if (m < 0) return -1;
  r->nmetrics++;
  return m;
}

static int add_col(prof2 *r, p2_col **cols, size_t *n, uint32_t id, int metric, int which) {
  if (find_col(*cols, *n, id)) return CCT_OK;
  p2_col *g = cct_reallocarray(*cols, (*n + 1), sizeof *g);
  if (!g) return nomem(r);
  *cols = g;
  g[(*n)++] = (p2_col){id, metric, which};
  return CCT_OK;
}

static char *attr(void *xr, const char *name) {
  return (char *)xmlTextReaderGetAttribute((xmlTextReaderPtr)xr, (const xmlChar *)name);
}

static int xml_fail(prof2 *r, void *xr, int code, const char *what, const char *name) {
  return cct_err_set(r->err, code, "'%s' line %d: %s%s%s%s", r->xml_path,
                     xmlTextReaderGetParserLineNumber((xmlTextReaderPtr)xr), what, name ? " '" : "", name ? name : "",
                     name ? "'" : "");
}

/* Metric: remembered until its MetricFormula; MetricFormula t="view"
 * frm="$N": the visible metric's summary values are those of id N;
 * MetricDB: an id of the thread profiles. */
static int on_header(void *arg, const char *tag, void *xr) {
  prof2 *r = arg;
  char *n = attr(xr, "n"), *t = attr(xr, "t"), *i = attr(xr, "i"), *frm = attr(xr, "frm");
  int rc = CCT_OK;
  char base[512], stat[64];
  int which;
  if (!strcmp(tag, "Metric")) {
    free(r->pending);
    r->pending = NULL;
    if (!n) rc = xml_fail(r, xr, CCT_ECORRUPT, "Metric without a name", NULL);
    else if (!strstr(n, ":PARTIAL:") && !(r->pending = strdup(n))) rc = nomem(r);
    r->pending_which = t && !strcmp(t, "exclusive") ? CCT_EXCLUSIVE : CCT_INCLUSIVE;
  } else if (!strcmp(tag, "MetricFormula") && r->pending && t && !strcmp(t, "view")) {
    char *end = NULL;
    unsigned long id = frm && frm[0] == '$' ? strtoul(frm + 1, &end, 10) : 0;
    if (!end || end == frm + 1 || *end || id > 0xffff)
      rc = cct_err_set(r->err, CCT_EFORMAT,
                       "'%s' line %d: metric '%s' is the formula '%s'; cctq reads only stored values ('$N')",
                       r->xml_path, xmlTextReaderGetParserLineNumber((xmlTextReaderPtr)xr), r->pending,
                       frm ? frm : "");
    else {
      cct_classic_split_metric(r->pending, base, sizeof base, stat, sizeof stat, &which);
      int m = metric_for(r, base, stat);
      rc = m < 0 ? r->err->code : add_col(r, &r->sum_cols, &r->nsum, (uint32_t)id, m, r->pending_which);
    }
    free(r->pending);
    r->pending = NULL;
  } else if (!strcmp(tag, "MetricDB")) {
    char *end = NULL;
    unsigned long id = i ? strtoul(i, &end, 10) : 0;
    if (!n || !end || end == i || *end || id > 0xffff)
      rc = xml_fail(r, xr, CCT_ECORRUPT, "MetricDB without a name or a metric id", NULL);
    else {
      cct_classic_split_metric(n, base, sizeof base, stat, sizeof stat, &which);
      int m = metric_for(r, base, "sum");
      rc = m < 0 ? r->err->code
                 : add_col(r, &r->prof_cols, &r->nprof_cols, (uint32_t)id, m,
                           which == CCT_EXCLUSIVE_LEX ? CCT_EXCLUSIVE : CCT_INCLUSIVE);
    }
  }
  xmlFree(n);
  xmlFree(t);
  xmlFree(i);
  xmlFree(frm);
  return rc;
}

/* The summary values of context id (binary search in the summary block). */
static int on_context(void *arg, int64_t id) {
  prof2 *r = arg;
  const p2_block *b = &r->blocks[0];
  uint32_t lo = 0, hi = b->nctxs;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2, ctx;
    uint64_t first, end;
    block_ctx(r, b, mid, &ctx, &first, &end);
    if (ctx < id) {
      lo = mid + 1;
      continue;
    }
    if (ctx > id) {
      hi = mid;
      continue;
    }
    for (uint64_t j = first; j < end; j++) {
      const uint8_t *v = r->p + b->off + j * P2_VALUE;
      double x = bef64(v);
      const p2_col *c = find_col(r->sum_cols, r->nsum, be16(v + 8));
      if (!c || x == 0) continue;
      if (!isfinite(x)) return corrupt(r, "summary value of context %u is not a finite number", ctx);
      if (cct_writer_value(r->w, c->metric, c->which, x))
        return cct_err_set(r->err, cct_writer_err(r->w)->code, "%s", cct_writer_err(r->w)->msg);
    }
    break;
  }
  return CCT_OK;
}

/* ---- profiles ----------------------------------------------------------------- */

/* Profile k: its values of every metric, for the contexts of the tree. */
static int read_profile(prof2 *r, uint32_t k) {
  const p2_block *b = &r->blocks[k];
  char source[32];
  snprintf(source, sizeof source, "profile.db#%u", k);
  cct_profile_id id;
  int rc = identity(r, k, &id);
  if (rc) return rc;
  id.source = source;
  size_t nm = (size_t)r->nmetrics, need = nm * b->nctxs + 1;
  if (need > r->scratch) {
    free(r->ctx);
    free(r->incl);
    free(r->excl);
    r->ctx = malloc(need * sizeof *r->ctx);
    r->incl = malloc(need * sizeof *r->incl);
    r->excl = malloc(need * sizeof *r->excl);
    r->scratch = r->ctx && r->incl && r->excl ? need : 0;
    if (!r->scratch) return nomem(r);
  }
  size_t *count = calloc(nm + 1, sizeof *count);
  if (!count) return nomem(r);
  for (uint32_t i = 0; !rc && i < b->nctxs; i++) {
    uint32_t ctx;
    uint64_t first, end;
    block_ctx(r, b, i, &ctx, &first, &end);
    if (!cct_writer_has_context(r->w, ctx)) continue; /* elided */
    for (uint64_t j = first; j < end; j++) {
      const uint8_t *v = r->p + b->off + j * P2_VALUE;
      double x = bef64(v);
      const p2_col *c = find_col(r->prof_cols, r->nprof_cols, be16(v + 8));
      if (!c || x == 0) continue;
      if (!isfinite(x)) {
        rc = corrupt(r, "value of context %u in profile %u is not a finite number", ctx, k);
        break;
      }
      size_t base = (size_t)c->metric * b->nctxs, n = count[c->metric];
      if (!n || r->ctx[base + n - 1] != ctx) {
        r->ctx[base + n] = ctx;
        r->incl[base + n] = r->excl[base + n] = 0;
        count[c->metric] = ++n;
      }
      (c->which == CCT_INCLUSIVE ? r->incl : r->excl)[base + n - 1] = x;
    }
  }
  if (!rc && (rc = cct_writer_profile(r->w, &id)) == CCT_OK)
    for (size_t m = 0; !rc && m < nm; m++) {
      size_t base = m * b->nctxs;
      rc = cct_writer_profile_values(r->w, (int)m, count[m], r->ctx + base, r->incl + base, r->excl + base);
    }
  if (rc && !r->err->code) cct_err_set(r->err, rc, "%s", cct_writer_err(r->w)->msg);
  free(count);
  return rc;
}

static int read_all(prof2 *r, const char *db_dir) {
  int rc;
  if ((rc = map_profile(r)) || (rc = read_header(r))) return rc;
  cct_xml_hooks hooks = {r, on_header, on_context};
  if ((rc = cct_classic_read_tree(db_dir, r->w, &hooks, r->err))) return rc;
  long long elided = 0;
  for (uint32_t i = 0; i < r->blocks[0].nctxs; i++) {
    uint32_t ctx;
    uint64_t first, end;
    block_ctx(r, &r->blocks[0], i, &ctx, &first, &end);
    elided += !cct_writer_has_context(r->w, ctx);
  }
  cct_writer_note_elided(r->w, elided);
  for (uint32_t k = 1; !rc && k < r->nprof; k++) {
    rc = read_profile(r, k);
    cct_writer_progress(r->w, (long long)((double)r->n * (k + 1) / r->nprof), (long long)r->n); /* bytes */
  }
  return rc;
}

int cct_read_prof2(const char *db_dir, cct_writer *w, cct_err *err) {
  prof2 r;
  memset(&r, 0, sizeof r);
  r.w = w;
  r.err = err;
  size_t len = strlen(db_dir) + 32;
  r.xml_path = malloc(len);
  r.path = malloc(len);
  int rc;
  if (!r.xml_path || !r.path) rc = cct_err_set(err, CCT_ENOMEM, "out of memory reading '%s'", db_dir);
  else {
    snprintf(r.xml_path, len, "%s/experiment.xml", db_dir);
    snprintf(r.path, len, "%s/profile.db", db_dir);
    rc = read_all(&r, db_dir);
  }
  if (r.p) munmap(cct_unconst(r.p), r.n);
  for (int m = 0; m < r.nmetrics; m++) free(r.keys[m]);
  free(r.keys);
  free(r.blocks);
  free(r.sum_cols);
  free(r.prof_cols);
  free(r.pending);
  free(r.ctx);
  free(r.incl);
  free(r.excl);
  free(r.xml_path);
  free(r.path);
  return rc;
}
