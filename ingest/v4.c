/* v4.c: reader of HPCToolkit v4 databases (meta.db + profile.db, hpcprof
 * 2022.10 and later; docs/hpctoolkit-formats.md section 3).
 *
 * meta.db is mapped whole and validated completely (every pointer, size and
 * stored struct stride) before anything reaches the writer; profile.db is
 * mapped too, but profiles are decoded one at a time into buffers that are
 * reused, so memory does not grow with the number of profiles.  All fields
 * are read as little-endian bytes; nothing is ever read through a struct.
 *
 * Mapping to the writer (ingest_int.h): modules, files and functions use the
 * offset of their meta.db record as id; entry points and unknown functions
 * get synthetic functions with ids above any file offset.  Each metric's
 * summary statistics distinct by (formula, combine) become writer metric
 * columns; the summary profile (profile 0, statMetricId) gives the values of
 * the tree, the other profiles (propMetricId) the per-profile values of each
 * metric's 'sum' column.  Context ids with values but no meta.db node (elided
 * instruction contexts) are counted and dropped. */
#include "cct_ingest.h" /* struct cct_ingest_stats, used by ingest_int.h */
#include "cct_util.h"
#include "ingest_int.h"
#include "v4_int.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- little-endian reads ------------------------------------------------ */

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | ((uint64_t)le32(p + 4) << 32); }

static double lef64(const uint8_t *p) {
  uint64_t u = le64(p);
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* 1 when [off, off + len) lies inside a buffer of n bytes (overflow-safe). */
static int in_range(size_t n, uint64_t off, uint64_t len) { return off <= n && len <= (uint64_t)n - off; }

/* 1 when count records of stride bytes at off lie inside n bytes. */
static int array_in_range(size_t n, uint64_t off, uint64_t count, uint64_t stride) {
  if (stride && count > UINT64_MAX / stride) return 0;
  return in_range(n, off, count * stride);
}

/* ---- exposed decoders (v4_int.h) ---------------------------------------- */

static const char *const meta_sections[] = {"general", "id names", "metrics", "context tree",
                                            "strings", "modules",  "files",   "functions"};
static const char *const prof_sections[] = {"profile info", "id tuples"};

/* Checks the common header, section table and footer of a v4 file (contract
 * in v4_int.h).  Returns CCT_OK, CCT_EFORMAT or CCT_ECORRUPT with err set. */
int cct_v4_check_header(const uint8_t *p, size_t n, const char *fmt, unsigned nsec, const char *path, cct_err *err) {
  int is_meta = strcmp(fmt, "meta") == 0;
  if (n >= 16 && memcmp(p, "HPCPROF-profdb__", 16) == 0)
    return cct_err_set(err, CCT_EFORMAT,
                       "'%s': prof2 profile.db (big-endian, 2021-2022 develop builds) is not supported yet", path);
  if (n < 16 || memcmp(p, "HPCTOOLKIT", 10) != 0)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': not an HPCToolkit v4 file (bad magic)", path);
  if (memcmp(p + 10, fmt, 4) != 0) {
    char id[5];
    for (int i = 0; i < 4; i++) id[i] = p[10 + i] >= 0x20 && p[10 + i] < 0x7f ? (char)p[10 + i] : '?';
    id[4] = 0;
    return cct_err_set(err, CCT_ECORRUPT, "'%s': wrong format id '%s', expected '%s'", path, id, fmt);
  }
  if (p[14] != 4)
    return cct_err_set(err, CCT_EFORMAT, "'%s': unsupported version %u.%u; this build reads 4.x", path, p[14], p[15]);
  uint64_t hdr = 0x10 + 16 * (uint64_t)nsec;
  if (n < hdr + 8) return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: file ends inside the header", path);
  for (unsigned i = 0; i < nsec; i++) {
    uint64_t sz = le64(p + 0x10 + 16 * i), ptr = le64(p + 0x18 + 16 * i);
    const char *name = is_meta ? (i < 8 ? meta_sections[i] : "extra") : (i < 2 ? prof_sections[i] : "extra");
    if (!in_range(n - 8, ptr, sz))
      return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: %s section ends past end of file", path, name);
  }
  const char *footer = is_meta ? "_meta.db" : "_prof.db";
  if (memcmp(p + n - 8, footer, 8) != 0)
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated or damaged: footer '%s' missing", path, footer);
  return CCT_OK;
}

/* Decodes the flex words of a context record (v4_int.h).  Returns 0, or -1
 * when nwords is too small for the fields flags announces. */
int cct_v4_decode_flex(uint8_t flags, const uint8_t *flex, unsigned nwords, cct_v4_flex *out) {
  unsigned w = 0;
  memset(out, 0, sizeof *out);
  unsigned need = ((flags & 1) ? 1 : 0) + ((flags & 2) ? 2 : 0) + ((flags & 4) ? 2 : 0);
  if (need > nwords) return -1;
  if (flags & 1) {
    out->has_function = 1;
    out->function = le64(flex + 8 * w++);
  }
  if (flags & 2) {
    out->has_srcloc = 1;
    out->file = le64(flex + 8 * w++);
    out->line = le32(flex + 8 * w++);
  }
  if (flags & 4) {
    out->has_point = 1;
    out->module = le64(flex + 8 * w++);
    out->offset = le64(flex + 8 * w++);
  }
  return 0;
}

/* Reads and checks the value block at off (v4_int.h).  Returns CCT_OK or
 * CCT_ECORRUPT with err set. */
int cct_v4_decode_block(const uint8_t *p, size_t n, uint64_t off, cct_v4_block *b, const char *path, const char *what,
                        cct_err *err) {
  if (!in_range(n, off, 32))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: value block of %s ends past end of file", path, what);
  b->nvalues = le64(p + off);
  b->pvalues = le64(p + off + 8);
  b->nctxs = le32(p + off + 16);
  b->pidx = le64(p + off + 24);
  if (!array_in_range(n, b->pvalues, b->nvalues, 10))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: values of %s end past end of file", path, what);
  if (!array_in_range(n, b->pidx, b->nctxs, 12))
    return cct_err_set(err, CCT_ECORRUPT, "'%s': truncated: context index of %s ends past end of file", path, what);
  uint64_t prev_start = 0;
  uint32_t prev_ctx = 0;
  for (uint32_t i = 0; i < b->nctxs; i++) {
    const uint8_t *q = p + b->pidx + 12 * (uint64_t)i;
    uint32_t ctx = le32(q);
    uint64_t start = le64(q + 4);
    if (i > 0 && ctx <= prev_ctx)
      return cct_err_set(err, CCT_ECORRUPT, "'%s': context ids of %s not ascending (%u after %u)", path, what, ctx,
                         prev_ctx);
    if (start < prev_start || start > b->nvalues)
      return cct_err_set(err, CCT_ECORRUPT, "'%s': bad value index %llu of context %u in %s", path,
                         (unsigned long long)start, ctx, what);
    prev_ctx = ctx;
    prev_start = start;
  }
  return CCT_OK;
}

/* Entry i of a checked block: ctx id and value range [*first, *end). */
void cct_v4_block_ctx(const uint8_t *p, const cct_v4_block *b, uint32_t i, uint32_t *ctx, uint64_t *first,
                      uint64_t *end) {
  const uint8_t *q = p + b->pidx + 12 * (uint64_t)i;
  *ctx = le32(q);
  *first = le64(q + 4);
  *end = i + 1 < b->nctxs ? le64(q + 16) : b->nvalues;
}

/* Value j of a checked block: metric id and value. */
void cct_v4_block_value(const uint8_t *p, const cct_v4_block *b, uint64_t j, uint16_t *metric, double *v) {
  const uint8_t *q = p + b->pvalues + 10 * j;
  *metric = le16(q);
  *v = lef64(q + 2);
}

/* ---- reader state -------------------------------------------------------- */

enum { SC_OTHER = 0, SC_POINT, SC_EXEC, SC_FUNC, SC_LEX };
enum { K_OTHER = 0, K_NODE, K_RANK, K_THREAD, K_CORE, K_GPUCONTEXT, K_GPUSTREAM };

#define V4_SYNTH ((int64_t)1 << 62)               /* synthetic function ids: entry i is V4_SYNTH + i */
#define V4_UNKNOWN_FN (V4_SYNTH + ((int64_t)1 << 20)) /* "<unknown function>" */
#define V4_MAX_DEPTH 10000
#define V4_MAX_STATS 1024 /* distinct summary statistics per metric */

typedef struct v4_file {
  const uint8_t *p;
  size_t n;
  void *map; /* NULL when p is not mapped (empty file) */
  char *path;
} v4_file;

typedef struct v4_col {
  int widx;   /* writer metric index */
  int is_sum; /* the ($$, sum) column: receives per-profile values */
  int has_lex;
  uint32_t metric;  /* index of the metric record */
  const char *name; /* base metric name */
  const char *formula;
  unsigned combine;
  size_t n, cap; /* per-profile buffers (reused from profile to profile) */
  uint32_t *ctx;
  double *incl, *excl;
} v4_col;

typedef struct v4_frame {
  uint64_t cur, end;
  uint32_t owner;    /* the context whose children these are */
  double incl, kids; /* pass 2: inclusive of the owner and of its children so far (pairing check) */
} v4_frame;

/* What a metric id of meta.db stands for, as a statMetricId (summary values) and as a
 * propMetricId (per-profile values): two id spaces, one table.  All 0 for an id meta.db
 * does not declare.  The table holds the ids up to the largest meta.db declares (a
 * few hundred), grown as they are met: not 65536 entries per read. */
typedef struct v4_stat {
  uint32_t summary; /* statMetricId: 0, or 1 + col * 3 + which */
  uint32_t prop;    /* propMetricId: the same, sum columns only */
  uint32_t execof;  /* statMetricId of a ($$, sum) point/function/lex_aware statistic of a metric
                     * that has a ($$, sum) execution one: 1 + that one's id; else 0 */
  uint8_t declared; /* statMetricId: 1 when meta.db declares it, 2 for ($$, sum) execution ones */
} v4_stat;

typedef struct v4 {
  const char *db_dir;
  cct_writer *w;
  cct_err *err;
  v4_file meta, prof;
  /* meta.db sections */
  uint64_t names_p;
  unsigned nkinds;
  int kind_code[256];
  uint64_t met_p, scope_p;
  uint32_t met_n;
  unsigned met_sz, psi_sz, ss_sz, scope_n, scope_sz;
  uint64_t mod_p, file_p, fn_p;
  uint32_t mod_n, file_n, fn_n;
  unsigned mod_sz, file_sz, fn_sz;
  uint64_t ctx_lo, ctx_hi, ep_p;
  unsigned ep_n, ep_sz;
  /* metrics */
  v4_col *cols;
  size_t ncols, capcols;
  v4_stat *stat;     /* by statMetricId (and propMetricId), up to the largest meta.db declares */
  size_t nstat;      /* entries of stat: ids >= nstat are declared nowhere (all fields 0) */
  int chk;           /* 1: some statMetricId is a ($$, sum) execution column */
  int chk_off;       /* a negative value was met: the pairing check does not apply */
  /* tree */
  uint32_t *ids; /* sorted ctx ids of the tree, root 0 included */
  size_t nids, capids;
  int need_unknown;
  v4_frame *stack;
  /* profile.db */
  uint64_t pi_p;
  uint32_t pi_n;
  unsigned pi_sz;
  cct_v4_block sum;
} v4;

static int corrupt(v4 *r, const v4_file *f, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int corrupt(v4 *r, const v4_file *f, const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  for (char *c = buf; *c; c++) /* names quoted from the file stay on one line */
    if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
  return cct_err_set(r->err, CCT_ECORRUPT, "'%s': %s", f->path, buf);
}

static int nomem(v4 *r) { return cct_err_set(r->err, CCT_ENOMEM, "out of memory reading '%s'", r->meta.path); }

/* A writer call failed with rc: make sure err holds the writer's message. */
static int writer_fail(v4 *r, int rc) {
  cct_err *we = cct_writer_err(r->w);
  if (r->err && r->err->code == 0) {
    if (we && we->code)
      cct_err_set(r->err, we->code, "%s", we->msg);
    else
      cct_err_set(r->err, rc, "archive writer failed (%s)", cct_errstr(rc));
  }
  return rc;
}

#define WCALL(expr)                      \
  do {                                   \
    int rc_ = (expr);                    \
    if (rc_ != 0) return writer_fail(r, rc_); \
  } while (0)

static char *join_path(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  while (a > 1 && dir[a - 1] == '/') a--;
  char *s = malloc(a + b + 2);
  if (!s) return NULL;
  memcpy(s, dir, a);
  s[a] = '/';
  memcpy(s + a + 1, name, b + 1);
  return s;
}

static int map_file(v4 *r, v4_file *f) {
  int fd = cct_open_regular(f->path, r->err);
  if (fd < 0) return CCT_EIO;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return cct_err_set(r->err, CCT_EIO, "cannot read '%s': %s", f->path, strerror(e));
  }
  static const uint8_t empty[1] = {0};
  f->p = empty;
  f->n = 0;
  f->map = NULL;
  if (st.st_size > 0) {
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      int e = errno;
      close(fd);
      return cct_err_set(r->err, CCT_EIO, "cannot map '%s': %s", f->path, strerror(e));
    }
    f->map = m;
    f->p = m;
    f->n = (size_t)st.st_size;
  }
  close(fd);
  return CCT_OK;
}

static void unmap_file(v4_file *f) {
  if (f->map) munmap(f->map, f->n);
  f->map = NULL;
  free(f->path);
  f->path = NULL;
}

/* The NUL-terminated string at off of f; what names it for messages. */
static int str_at(v4 *r, const v4_file *f, uint64_t off, const char *what, const char **out) {
  if (off >= f->n) return corrupt(r, f, "%s string at 0x%llx lies past end of file", what, (unsigned long long)off);
  const void *z = memchr(f->p + off, 0, f->n - off);
  if (!z) return corrupt(r, f, "%s string at 0x%llx runs past end of file", what, (unsigned long long)off);
  *out = (const char *)f->p + off;
  return CCT_OK;
}

/* 1 when ptr is the start of record of an array of count records. */
static int is_record(uint64_t ptr, uint64_t base, uint64_t count, unsigned stride) {
  if (ptr < base || stride == 0) return 0;
  uint64_t d = ptr - base;
  return d % stride == 0 && d / stride < count;
}

/* The section i of meta.db: size and pointer, both validated by the header check. */
static void section(const v4 *r, unsigned i, uint64_t *sz, uint64_t *ptr) {
  *sz = le64(r->meta.p + 0x10 + 16 * i);
  *ptr = le64(r->meta.p + 0x18 + 16 * i);
}

/* ---- meta.db: id names, metrics, modules, files, functions --------------- */

static int read_idnames(v4 *r) {
  const v4_file *f = &r->meta;
  uint64_t sz, p;
  section(r, 1, &sz, &p);
  if (sz < 9) return corrupt(r, f, "id names section too small (%llu bytes)", (unsigned long long)sz);
  r->names_p = le64(f->p + p);
  r->nkinds = f->p[p + 8];
  if (!array_in_range(f->n, r->names_p, r->nkinds, 8)) return corrupt(r, f, "truncated: id names end past end of file");
  static const char *const names[] = {"NODE", "RANK", "THREAD", "CORE", "GPUCONTEXT", "GPUSTREAM"};
  for (unsigned k = 0; k < r->nkinds; k++) {
    const char *s = NULL;
    int rc = str_at(r, f, le64(f->p + r->names_p + 8 * k), "id name", &s);
    if (rc) return rc;
    r->kind_code[k] = K_OTHER;
    for (int j = 0; j < 6; j++)
      if (strcmp(s, names[j]) == 0) r->kind_code[k] = K_NODE + j;
  }
  return CCT_OK;
}

static int scope_class(v4 *r, uint64_t pscope, int *cls) {
  const v4_file *f = &r->meta;
  if (!is_record(pscope, r->scope_p, r->scope_n, r->scope_sz))
    return corrupt(r, f, "metric scope pointer 0x%llx is not a scope record", (unsigned long long)pscope);
  const char *name = NULL;
  int rc = str_at(r, f, le64(f->p + pscope), "scope name", &name);
  if (rc) return rc;
  *cls = strcmp(name, "execution") == 0   ? SC_EXEC
         : strcmp(name, "function") == 0  ? SC_FUNC
         : strcmp(name, "lex_aware") == 0 ? SC_LEX
         : strcmp(name, "point") == 0     ? SC_POINT
                                          : SC_OTHER;
  return CCT_OK;
}

static const char *stat_name(const char *formula, unsigned combine, char *buf, size_t len) {
  static const char *const comb[] = {"sum", "min", "max"};
  if (strcmp(formula, "$$") == 0 && combine <= 2) return comb[combine];
  if (strcmp(formula, "($$^2)") == 0 && combine == 0) return "sumsq";
  if (strcmp(formula, "1") == 0 && combine == 0) return "count";
  if (combine <= 2)
    snprintf(buf, len, "%s:%s", formula, comb[combine]);
  else
    snprintf(buf, len, "%s:combine%u", formula, combine);
  return buf;
}

/* Validates the metrics section and builds the columns and id maps (no
 * writer calls; declare_metrics does those). */
/* The entry of id in r->stat, all 0 when meta.db declares no such id. */
static const v4_stat *stat_of(const v4 *r, uint16_t id) {
  static const v4_stat none;
  return id < r->nstat ? &r->stat[id] : &none;
}

/* The entry of id in r->stat, the table grown (zero-filled) to hold it; NULL when
 * out of memory.  Valid until the next call. */
static v4_stat *stat_at(v4 *r, uint16_t id) {
  if (id >= r->nstat) {
    size_t n = r->nstat ? r->nstat : 64;
    while (n <= id) n *= 2;
    v4_stat *ns = cct_reallocarray(r->stat, n, sizeof *ns);
    if (!ns) return NULL;
    memset(ns + r->nstat, 0, (n - r->nstat) * sizeof *ns);
    r->stat = ns;
    r->nstat = n;
  }
  return &r->stat[id];
}

static int read_metrics(v4 *r) {
  const v4_file *f = &r->meta;
  uint64_t sz, p;
  section(r, 2, &sz, &p);
  if (sz < 0x1b) return corrupt(r, f, "metrics section too small (%llu bytes)", (unsigned long long)sz);
  r->met_p = le64(f->p + p);
  r->met_n = le32(f->p + p + 8);
  r->met_sz = f->p[p + 0x0c];
  r->psi_sz = f->p[p + 0x0d];
  r->ss_sz = f->p[p + 0x0e];
  r->scope_p = le64(f->p + p + 0x10);
  r->scope_n = le16(f->p + p + 0x18);
  r->scope_sz = f->p[p + 0x1a];
  if (r->met_sz == 24 || (r->psi_sz == 24 && r->ss_sz == 16))
    return cct_err_set(r->err, CCT_EFORMAT,
                       "'%s': pre-release v4 layout (May 2022 develop build) is not supported; re-run hpcprof >= 2022.10",
                       f->path);
  if (r->met_sz < 32 || r->psi_sz < 16 || r->ss_sz < 24 || r->scope_sz < 16)
    return corrupt(r, f, "metric struct sizes too small (szMetric %u, szScopeInst %u, szSummary %u, szScope %u)",
                   r->met_sz, r->psi_sz, r->ss_sz, r->scope_sz);
  if (!array_in_range(f->n, r->met_p, r->met_n, r->met_sz))
    return corrupt(r, f, "truncated: metric descriptions end past end of file");
  if (!array_in_range(f->n, r->scope_p, r->scope_n, r->scope_sz))
    return corrupt(r, f, "truncated: propagation scopes end past end of file");
  for (uint32_t m = 0; m < r->met_n; m++) {
    const uint8_t *md = f->p + r->met_p + (uint64_t)m * r->met_sz;
    const char *name = NULL;
    int rc = str_at(r, f, le64(md), "metric name", &name);
    if (rc) return rc;
    uint64_t pi = le64(md + 8), ps = le64(md + 16);
    unsigned ni = le16(md + 0x18), ns = le16(md + 0x1a);
    if (!array_in_range(f->n, pi, ni, r->psi_sz))
      return corrupt(r, f, "truncated: scope instances of metric '%s' end past end of file", name);
    if (!array_in_range(f->n, ps, ns, r->ss_sz))
      return corrupt(r, f, "truncated: summaries of metric '%s' end past end of file", name);
    size_t first = r->ncols, sumcol = SIZE_MAX;
    uint32_t exec_id = 0; /* 1 + the ($$, sum) execution id of this metric */
    for (unsigned j = 0; j < ns; j++) {
      const uint8_t *ss = f->p + ps + (uint64_t)j * r->ss_sz;
      int cls;
      const char *formula = NULL;
      if ((rc = scope_class(r, le64(ss), &cls))) return rc;
      if ((rc = str_at(r, f, le64(ss + 8), "summary formula", &formula))) return rc;
      unsigned combine = ss[0x10];
      uint16_t id = le16(ss + 0x12);
      v4_stat *st = stat_at(r, id);
      if (!st) return nomem(r);
      if (!st->declared) st->declared = 1;
      if (combine == 0 && strcmp(formula, "$$") == 0 && cls == SC_EXEC) exec_id = 1u + id;
      if (cls == SC_POINT || cls == SC_OTHER) continue;
      size_t c;
      for (c = first; c < r->ncols; c++)
        if (r->cols[c].combine == combine && strcmp(r->cols[c].formula, formula) == 0) break;
      if (c == r->ncols) {
        if (r->ncols - first >= V4_MAX_STATS)
          return corrupt(r, f, "metric '%s' has more than %d summary statistics", name, V4_MAX_STATS);
        if (r->ncols >= (1u << 28)) return corrupt(r, f, "too many metric columns");
        if (r->ncols == r->capcols) {
          size_t cap = r->capcols ? 2 * r->capcols : 16;
          v4_col *nc = cct_reallocarray(r->cols, cap, sizeof *nc);
          if (!nc) return nomem(r);
          r->cols = nc;
          r->capcols = cap;
        }
        memset(&r->cols[c], 0, sizeof r->cols[c]);
        r->cols[c].metric = m;
        r->cols[c].name = name;
        r->cols[c].formula = formula;
        r->cols[c].combine = combine;
        r->cols[c].widx = -1;
        r->ncols++;
      }
      int which = cls == SC_EXEC ? CCT_INCLUSIVE : cls == SC_FUNC ? CCT_EXCLUSIVE : CCT_EXCLUSIVE_LEX;
      if (cls == SC_LEX) r->cols[c].has_lex = 1;
      if (st->summary == 0) st->summary = 1 + (uint32_t)c * 3 + (uint32_t)which;
      if (combine == 0 && strcmp(formula, "$$") == 0) sumcol = c;
      if (combine == 0 && strcmp(formula, "$$") == 0 && cls == SC_EXEC) r->chk = 1, st->declared = 2;
    }
    if (sumcol != SIZE_MAX) r->cols[sumcol].is_sum = 1;
    for (unsigned j = 0; exec_id && j < ns; j++) {
      const uint8_t *ss = f->p + ps + (uint64_t)j * r->ss_sz;
      int cls;
      const char *formula = NULL;
      if ((rc = scope_class(r, le64(ss), &cls))) return rc;
      if ((rc = str_at(r, f, le64(ss + 8), "summary formula", &formula))) return rc;
      if (ss[0x10] == 0 && strcmp(formula, "$$") == 0 && (cls == SC_POINT || cls == SC_FUNC || cls == SC_LEX)) {
        v4_stat *st = stat_at(r, le16(ss + 0x12));
        if (!st) return nomem(r);
        st->execof = exec_id;
      }
    }
    for (unsigned j = 0; j < ni; j++) {
      const uint8_t *psi = f->p + pi + (uint64_t)j * r->psi_sz;
      int cls;
      if ((rc = scope_class(r, le64(psi), &cls))) return rc;
      uint16_t id = le16(psi + 8);
      if (sumcol == SIZE_MAX || (cls != SC_EXEC && cls != SC_FUNC)) continue;
      v4_stat *st = stat_at(r, id);
      if (!st) return nomem(r);
      if (st->prop == 0) st->prop = 1 + (uint32_t)sumcol * 3 + (cls == SC_EXEC ? CCT_INCLUSIVE : CCT_EXCLUSIVE);
    }
  }
  return CCT_OK;
}

/* Reads the {pArray, n u32, sz u16} header of section i and checks the array. */
static int read_table(v4 *r, unsigned i, const char *what, unsigned minsz, uint64_t *arr, uint32_t *n, unsigned *stride) {
  const v4_file *f = &r->meta;
  uint64_t sz, p;
  section(r, i, &sz, &p);
  if (sz < 0x0e) return corrupt(r, f, "%s section too small (%llu bytes)", what, (unsigned long long)sz);
  *arr = le64(f->p + p);
  *n = le32(f->p + p + 8);
  *stride = le16(f->p + p + 0x0c);
  if (*stride < minsz) return corrupt(r, f, "%s record size %u too small (at least %u)", what, *stride, minsz);
  if (!array_in_range(f->n, *arr, *n, *stride)) return corrupt(r, f, "truncated: %s end past end of file", what);
  return CCT_OK;
}

/* Validates modules, files and functions; with emit, declares them. */
static int read_tables(v4 *r, int emit) {
  const v4_file *f = &r->meta;
  int rc;
  if ((rc = read_table(r, 5, "modules", 16, &r->mod_p, &r->mod_n, &r->mod_sz))) return rc;
  if ((rc = read_table(r, 6, "files", 16, &r->file_p, &r->file_n, &r->file_sz))) return rc;
  if ((rc = read_table(r, 7, "functions", 40, &r->fn_p, &r->fn_n, &r->fn_sz))) return rc;
  for (uint32_t i = 0; i < r->mod_n; i++) {
    uint64_t off = r->mod_p + (uint64_t)i * r->mod_sz;
    uint64_t pp = le64(f->p + off + 8);
    const char *path = "";
    if (pp && (rc = str_at(r, f, pp, "module path", &path))) return rc;
    if (emit) WCALL(cct_writer_module(r->w, (int64_t)off, path));
  }
  for (uint32_t i = 0; i < r->file_n; i++) {
    uint64_t off = r->file_p + (uint64_t)i * r->file_sz;
    uint32_t flags = le32(f->p + off);
    uint64_t pp = le64(f->p + off + 8);
    const char *path = "";
    if (pp && (rc = str_at(r, f, pp, "file path", &path))) return rc;
    if (!emit) continue;
    /* flag bit 0: a copy of the file is in the database, at path */
    if ((rc = cct_writer_file(r->w, (int64_t)off, path, (flags & 1) ? path : NULL))) return writer_fail(r, rc);
  }
  for (uint32_t i = 0; i < r->fn_n; i++) {
    uint64_t off = r->fn_p + (uint64_t)i * r->fn_sz;
    const uint8_t *q = f->p + off;
    uint64_t pn = le64(q), pm = le64(q + 8), pf = le64(q + 0x18);
    uint32_t line = le32(q + 0x20);
    const char *name = "<unknown function>";
    if (pn && (rc = str_at(r, f, pn, "function name", &name))) return rc;
    if (pm && !is_record(pm, r->mod_p, r->mod_n, r->mod_sz))
      return corrupt(r, f, "function '%s' refers to 0x%llx, not a module record", name, (unsigned long long)pm);
    if (pf && !is_record(pf, r->file_p, r->file_n, r->file_sz))
      return corrupt(r, f, "function '%s' refers to 0x%llx, not a file record", name, (unsigned long long)pf);
    if (emit)
      WCALL(cct_writer_function(r->w, (int64_t)off, name, pm ? (int64_t)pm : CCT_NONE, pf ? (int64_t)pf : CCT_NONE,
                                line ? (int64_t)line : CCT_NONE));
  }
  return CCT_OK;
}

static int declare_column(v4 *r, v4_col *col) {
  char buf[160];
  int idx = cct_writer_metric(r->w, col->name, stat_name(col->formula, col->combine, buf, sizeof buf), NULL,
                              col->has_lex, r->err);
  if (idx < 0) return writer_fail(r, r->err && r->err->code ? r->err->code : CCT_ESQL);
  col->widx = idx;
  return CCT_OK;
}

/* Declares the columns metric by metric, each metric's 'sum' first. */
static int declare_metrics(v4 *r) {
  int rc;
  for (size_t first = 0, last; first < r->ncols; first = last) {
    for (last = first; last < r->ncols && r->cols[last].metric == r->cols[first].metric; last++)
      if (r->cols[last].is_sum && (rc = declare_column(r, &r->cols[last]))) return rc;
    for (size_t c = first; c < last; c++)
      if (!r->cols[c].is_sum && (rc = declare_column(r, &r->cols[c]))) return rc;
  }
  return CCT_OK;
}

/* ---- context tree -------------------------------------------------------- */

static const char *entry_name(unsigned code) {
  return code == 1 ? "main thread" : code == 2 ? "application thread" : "unknown entry";
}

static int push_id(v4 *r, uint32_t id) {
  if (r->nids == r->capids) {
    size_t cap = r->capids ? 2 * r->capids : 256;
    uint32_t *n = cct_reallocarray(r->ids, cap, sizeof *n);
    if (!n) return nomem(r);
    r->ids = n;
    r->capids = cap;
  }
  r->ids[r->nids++] = id;
  return CCT_OK;
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Index in the summary block of ctx, or -1. */
static int64_t summary_find(const v4 *r, uint32_t ctx) {
  uint32_t lo = 0, hi = r->sum.nctxs;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    uint32_t c = le32(r->prof.p + r->sum.pidx + 12 * (uint64_t)mid);
    if (c == ctx) return mid;
    if (c < ctx)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* Gives the writer the summary values of ctx (the innermost open context). */
static int emit_values(v4 *r, uint32_t ctx) {
  /* A metric with a lex_aware scope whose value hpcprof did not store for
   * ctx has lex_aware 0 there (sparse storage of a zero, as for an outer loop
   * whose cost is all in its nested loops), not the function-scope value the
   * writer assumes for a scope the database lacks altogether. */
  for (size_t c = 0; c < r->ncols; c++)
    if (r->cols[c].has_lex) WCALL(cct_writer_value(r->w, r->cols[c].widx, CCT_EXCLUSIVE_LEX, 0));
  int64_t i = summary_find(r, ctx);
  if (i < 0) return CCT_OK;
  uint32_t id;
  uint64_t first, end;
  cct_v4_block_ctx(r->prof.p, &r->sum, (uint32_t)i, &id, &first, &end);
  for (uint64_t j = first; j < end; j++) {
    uint16_t m;
    double v;
    cct_v4_block_value(r->prof.p, &r->sum, j, &m, &v);
    uint32_t code = stat_of(r, m)->summary;
    if (!code) continue;
    if (!isfinite(v)) return corrupt(r, &r->prof, "summary value of context %u is not a finite number", ctx);
    code--;
    const v4_col *c = &r->cols[code / 3];
    WCALL(cct_writer_value(r->w, c->widx, (int)(code % 3), v));
  }
  return CCT_OK;
}

/* The sum of ctx's summary inclusive values over every ($$, sum) metric (0 when it has none). */
static double check_value(v4 *r, uint32_t ctx) {
  int64_t i = r->chk ? summary_find(r, ctx) : -1;
  if (i < 0) return 0;
  uint32_t id;
  uint64_t first, end;
  double sum = 0;
  cct_v4_block_ctx(r->prof.p, &r->sum, (uint32_t)i, &id, &first, &end);
  for (uint64_t j = first; j < end; j++) {
    uint16_t m;
    double v;
    cct_v4_block_value(r->prof.p, &r->sum, j, &m, &v);
    if (stat_of(r, m)->declared != 2) continue;
    if (v < 0) r->chk_off = 1;
    sum += v;
  }
  return sum;
}

/* profile.db belongs to meta.db: an inclusive (execution, sum) value is never
 * less than the sum of its children's, elided children or not.  Values from
 * another database's profile.db break that almost everywhere.  Returns CCT_OK
 * or CCT_ECORRUPT. */
static int fits(v4 *r, uint32_t ctx, double incl, double kids) {
  if (!r->chk || r->chk_off || kids <= incl + 1e-6 * (incl > 0 ? incl : 0) + 1e-300) return CCT_OK;
  return cct_err_set(r->err, CCT_ECORRUPT,
                     "'%s' does not belong to '%s': the values of context %u's children add up to %g, more than its "
                     "own inclusive %g (profile.db from another database?)",
                     r->prof.path, r->meta.path, ctx, kids, incl);
}

/* 1 when the children array [p, end) has a call or inlined-call child. */
static int has_call_child(const v4 *r, uint64_t p, uint64_t end) {
  const uint8_t *b = r->meta.p;
  while (end - p >= 0x20) {
    if (b[p + 0x15] == CCT_REL_CALL || b[p + 0x15] == CCT_REL_INLINED) return 1;
    p += 0x20 + 8 * (uint64_t)b[p + 0x17];
    if (p > end) break;
  }
  return 0;
}

/* Checks a children array and, if non-empty, pushes it on the stack. */
static int push_children(v4 *r, size_t *sp, uint64_t sz, uint64_t p, uint32_t owner) {
  if (sz == 0) return CCT_OK;
  if (p < r->ctx_lo || !in_range(r->ctx_hi, p, sz))
    return corrupt(r, &r->meta, "children of context %u lie outside the context tree section", owner);
  if (*sp >= V4_MAX_DEPTH) return corrupt(r, &r->meta, "context tree deeper than %d levels", V4_MAX_DEPTH);
  r->stack[*sp].cur = p;
  r->stack[*sp].end = p + sz;
  r->stack[*sp].owner = owner;
  r->stack[*sp].incl = r->stack[*sp].kids = 0;
  (*sp)++;
  return 0;
}

/* Walks the tree in pre-order.  Pass 1 (emit 0) validates it and collects the
 * ids; pass 2 (emit 1) gives it to the writer. */
static int walk(v4 *r, int emit) {
  const v4_file *f = &r->meta;
  const uint8_t *b = f->p;
  uint64_t visited = 0, limit = (r->ctx_hi - r->ctx_lo) / 0x20 + r->ep_n + 1;
  size_t sp = 0;
  int rc;
  double root_incl = emit ? check_value(r, 0) : 0, root_kids = 0;
  if (!r->stack && !(r->stack = malloc(V4_MAX_DEPTH * sizeof *r->stack))) return nomem(r);
  if (emit) {
    cct_context root = {0, CCT_KIND_ROOT, CCT_REL_LEXICAL, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, 0, 0};
    WCALL(cct_writer_enter(r->w, &root));
    if ((rc = emit_values(r, 0))) return rc;
  } else if ((rc = push_id(r, 0))) {
    return rc;
  }
  for (unsigned e = 0; e < r->ep_n; e++) {
    const uint8_t *q = b + r->ep_p + (uint64_t)e * r->ep_sz;
    uint64_t szc = le64(q), pc = le64(q + 8);
    uint32_t id = le32(q + 0x10);
    if (id == 0) return corrupt(r, f, "entry point %u has context id 0 (reserved for the root)", e);
    if (!emit) {
      const char *s;
      uint64_t pn = le64(q + 0x18);
      if (pn && (rc = str_at(r, f, pn, "entry point name", &s))) return rc;
      if ((rc = push_id(r, id))) return rc;
    } else {
      cct_context c = {id, CCT_KIND_FUNCTION, CCT_REL_CALL, V4_SYNTH + e, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, 0, 0};
      WCALL(cct_writer_enter(r->w, &c));
      if ((rc = emit_values(r, id))) return rc;
    }
    if (++visited > limit) return corrupt(r, f, "context tree has more nodes than its section can hold (pointer loop)");
    double incl = emit ? check_value(r, id) : 0;
    root_kids += incl;
    if ((rc = push_children(r, &sp, szc, pc, id))) return rc;
    if (szc) r->stack[sp - 1].incl = incl;
    if (szc == 0 && emit) WCALL(cct_writer_exit(r->w));
    while (sp > 0) {
      v4_frame *t = &r->stack[sp - 1];
      if (t->cur >= t->end) {
        sp--;
        if (emit && (rc = fits(r, t->owner, t->incl, t->kids))) return rc;
        if (emit) WCALL(cct_writer_exit(r->w));
        continue;
      }
      uint64_t p = t->cur;
      if (t->end - p < 0x20)
        return corrupt(r, f, "context record at 0x%llx runs past the end of its children array", (unsigned long long)p);
      const uint8_t *x = b + p;
      uint64_t cszc = le64(x), cpc = le64(x + 8);
      uint32_t cid = le32(x + 0x10);
      uint8_t flags = x[0x14], rel = x[0x15], lt = x[0x16], nflex = x[0x17];
      uint64_t rsz = 0x20 + 8 * (uint64_t)nflex;
      if (t->end - p < rsz)
        return corrupt(r, f, "context record at 0x%llx runs past the end of its children array", (unsigned long long)p);
      t->cur = p + rsz;
      if (++visited > limit)
        return corrupt(r, f, "context tree has more nodes than its section can hold (pointer loop)");
      cct_v4_flex fx;
      if (cct_v4_decode_flex(flags, x + 0x20, nflex, &fx) != 0)
        return corrupt(r, f, "context %u: flags 0x%x need more than its %u flex words", cid, flags, nflex);
      if (!emit) {
        if (cid == 0) return corrupt(r, f, "context at 0x%llx has id 0 (reserved for the root)", (unsigned long long)p);
        if (rel > 2) return corrupt(r, f, "context %u: unknown relation %u", cid, rel);
        if (lt > 3) return corrupt(r, f, "context %u: unknown lexical type %u", cid, lt);
        if (fx.has_function && !is_record(fx.function, r->fn_p, r->fn_n, r->fn_sz))
          return corrupt(r, f, "context %u refers to 0x%llx, not a function record", cid, (unsigned long long)fx.function);
        if (fx.has_srcloc && fx.file && !is_record(fx.file, r->file_p, r->file_n, r->file_sz))
          return corrupt(r, f, "context %u refers to 0x%llx, not a file record", cid, (unsigned long long)fx.file);
        if (fx.has_point && fx.module && !is_record(fx.module, r->mod_p, r->mod_n, r->mod_sz))
          return corrupt(r, f, "context %u refers to 0x%llx, not a module record", cid, (unsigned long long)fx.module);
        if (lt == 0 && !fx.has_function) r->need_unknown = 1;
        if ((rc = push_id(r, cid))) return rc;
      } else {
        cct_context c = {cid, CCT_KIND_FUNCTION, rel, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, CCT_NONE, 0, 0};
        c.kind = lt == 0 ? CCT_KIND_FUNCTION : lt == 1 ? CCT_KIND_LOOP : lt == 2 ? CCT_KIND_LINE : CCT_KIND_INSTRUCTION;
        if (lt == 0) c.function = fx.has_function ? (int64_t)fx.function : V4_UNKNOWN_FN;
        if (fx.has_srcloc) {
          if (fx.file) c.file = (int64_t)fx.file;
          if (fx.line) c.line = fx.line;
        }
        if ((lt == 3 || lt == 1) && fx.has_point) { /* an instruction's address, a loop's (HPCToolkit >= 2023.08) */
          if (fx.module) c.module = (int64_t)fx.module;
          c.offset = (int64_t)fx.offset;
        }
        if (lt == 2 && cszc > 0) c.callsite = has_call_child(r, cpc, cpc + cszc);
        WCALL(cct_writer_enter(r->w, &c));
        if ((rc = emit_values(r, cid))) return rc;
      }
      double cincl = emit ? check_value(r, cid) : 0;
      t->kids += cincl;
      if ((rc = push_children(r, &sp, cszc, cpc, cid))) return rc;
      if (cszc) r->stack[sp - 1].incl = cincl;
      if (cszc == 0 && emit) WCALL(cct_writer_exit(r->w));
    }
  }
  /* the root is the sum of the entry points, exactly (none is ever elided) */
  if (emit && r->chk && !r->chk_off && fabs(root_kids - root_incl) > 1e-6 * fabs(root_incl))
    return cct_err_set(r->err, CCT_ECORRUPT,
                       "'%s' does not belong to '%s': meta.db's entry points add up to %g in it, its program total "
                       "is %g (profile.db from another database?)",
                       r->prof.path, r->meta.path, root_kids, root_incl);
  if (emit) WCALL(cct_writer_exit(r->w));
  return CCT_OK;
}

static int read_tree(v4 *r) {
  const v4_file *f = &r->meta;
  uint64_t sz, p;
  section(r, 3, &sz, &p);
  if (sz < 0x0b) return corrupt(r, f, "context tree section too small (%llu bytes)", (unsigned long long)sz);
  r->ctx_lo = p;
  r->ctx_hi = p + sz;
  r->ep_p = le64(f->p + p);
  r->ep_n = le16(f->p + p + 8);
  r->ep_sz = f->p[p + 0x0a];
  if (r->ep_sz < 32) return corrupt(r, f, "entry point record size %u too small (at least 32)", r->ep_sz);
  if (!array_in_range(f->n, r->ep_p, r->ep_n, r->ep_sz))
    return corrupt(r, f, "truncated: entry points end past end of file");
  int rc = walk(r, 0);
  if (rc) return rc;
  qsort(r->ids, r->nids, sizeof *r->ids, cmp_u32);
  for (size_t i = 1; i < r->nids; i++)
    if (r->ids[i] == r->ids[i - 1]) return corrupt(r, f, "duplicate context id %u", r->ids[i]);
  return CCT_OK;
}

static int declare_synthetic(v4 *r) {
  const v4_file *f = &r->meta;
  for (unsigned e = 0; e < r->ep_n; e++) {
    const uint8_t *q = f->p + r->ep_p + (uint64_t)e * r->ep_sz;
    uint64_t pn = le64(q + 0x18);
    const char *name = pn ? (const char *)f->p + pn : entry_name(le16(q + 0x14)); /* validated by walk */
    WCALL(cct_writer_function(r->w, V4_SYNTH + e, name, CCT_NONE, CCT_NONE, CCT_NONE));
  }
  if (r->need_unknown) WCALL(cct_writer_function(r->w, V4_UNKNOWN_FN, "<unknown function>", CCT_NONE, CCT_NONE, CCT_NONE));
  return CCT_OK;
}

/* ---- profile.db ------------------------------------------------------------ */

static int read_profile_header(v4 *r) {
  v4_file *f = &r->prof;
  int rc = cct_v4_check_header(f->p, f->n, "prof", 2, f->path, r->err);
  if (rc) return rc;
  uint64_t sz = le64(f->p + 0x10), p = le64(f->p + 0x18);
  if (sz < 0x0d) return corrupt(r, f, "profile info section too small (%llu bytes)", (unsigned long long)sz);
  r->pi_p = le64(f->p + p);
  r->pi_n = le32(f->p + p + 8);
  r->pi_sz = f->p[p + 0x0c];
  if (r->pi_sz == 40)
    return cct_err_set(r->err, CCT_EFORMAT,
                       "'%s': pre-release v4 layout (May 2022 develop build) is not supported; re-run hpcprof >= 2022.10",
                       f->path);
  if (r->pi_sz < 48) return corrupt(r, f, "profile record size %u too small (at least 48)", r->pi_sz);
  if (!array_in_range(f->n, r->pi_p, r->pi_n, r->pi_sz)) return corrupt(r, f, "truncated: profiles end past end of file");
  if (r->pi_n == 0) return corrupt(r, f, "no summary profile");
  return cct_v4_decode_block(f->p, f->n, r->pi_p, &r->sum, f->path, "the summary profile", r->err);
}

/* 1 when ctx is in the tree (sorted ids). */
static int in_tree(const v4 *r, uint32_t ctx) {
  size_t lo = 0, hi = r->nids;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (r->ids[mid] == ctx) return 1;
    if (r->ids[mid] < ctx)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

static long long count_elided(const v4 *r) {
  long long n = 0;
  for (uint32_t i = 0; i < r->sum.nctxs; i++)
    if (!in_tree(r, le32(r->prof.p + r->sum.pidx + 12 * (uint64_t)i))) n++;
  return n;
}

static int profile_identity(v4 *r, uint32_t k, uint64_t ptuple, cct_profile_id *id) {
  const v4_file *f = &r->prof;
  id->node = id->rank = id->thread = id->core = id->gpucontext = id->gpustream = -1;
  if (ptuple == 0) return CCT_OK;
  if (!in_range(f->n, ptuple, 8)) return corrupt(r, f, "id tuple of profile %u lies past end of file", k);
  unsigned nids = le16(f->p + ptuple);
  if (!array_in_range(f->n, ptuple + 8, nids, 16)) return corrupt(r, f, "truncated: id tuple of profile %u", k);
  for (unsigned i = 0; i < nids; i++) {
    const uint8_t *q = f->p + ptuple + 8 + 16 * (uint64_t)i;
    unsigned kind = q[0];
    if (kind >= r->nkinds)
      return corrupt(r, f, "id tuple of profile %u has kind %u, meta.db names only %u", k, kind, r->nkinds);
    int64_t logical = le32(q + 4), physical = (int64_t)le64(q + 8);
    switch (r->kind_code[kind]) {
    case K_NODE: id->node = physical; break;
    case K_RANK: id->rank = logical; break;
    case K_THREAD: id->thread = logical; break;
    case K_CORE: id->core = logical; break;
    case K_GPUCONTEXT: id->gpucontext = logical; break;
    case K_GPUSTREAM: id->gpustream = logical; break;
    default: break;
    }
  }
  return CCT_OK;
}

static int col_append(v4 *r, v4_col *c, uint32_t ctx, int which, double v) {
  if (c->n == 0 || c->ctx[c->n - 1] != ctx) {
    if (c->n == c->cap) {
      size_t cap = c->cap ? 2 * c->cap : 256;
      uint32_t *nc = cct_reallocarray(c->ctx, cap, sizeof *nc);
      if (!nc) return nomem(r);
      c->ctx = nc;
      double *ni = cct_reallocarray(c->incl, cap, sizeof *ni);
      if (!ni) return nomem(r);
      c->incl = ni;
      double *ne = cct_reallocarray(c->excl, cap, sizeof *ne);
      if (!ne) return nomem(r);
      c->excl = ne;
      c->cap = cap;
    }
    c->ctx[c->n] = ctx;
    c->incl[c->n] = 0;
    c->excl[c->n] = 0;
    c->n++;
  }
  if (which == CCT_INCLUSIVE)
    c->incl[c->n - 1] = v;
  else
    c->excl[c->n - 1] = v;
  return CCT_OK;
}

static int read_profiles(v4 *r) {
  const v4_file *f = &r->prof;
  long long total = (long long)(r->meta.n + f->n);
  int rc;
  for (uint32_t k = 1; k < r->pi_n; k++) {
    const uint8_t *q = f->p + r->pi_p + (uint64_t)k * r->pi_sz;
    uint64_t ptuple = le64(q + 0x20);
    uint32_t flags = le32(q + 0x28);
    if (flags & 1) continue; /* another summary */
    char what[48], source[48];
    snprintf(what, sizeof what, "profile %u", k);
    snprintf(source, sizeof source, "profile.db#%u", k);
    cct_v4_block blk;
    if ((rc = cct_v4_decode_block(f->p, f->n, r->pi_p + (uint64_t)k * r->pi_sz, &blk, f->path, what, r->err)))
      return rc;
    cct_profile_id id;
    if ((rc = profile_identity(r, k, ptuple, &id))) return rc;
    id.source = source;
    WCALL(cct_writer_profile(r->w, &id));
    for (size_t c = 0; c < r->ncols; c++) r->cols[c].n = 0;
    size_t t = 0; /* merge with the sorted tree ids */
    for (uint32_t i = 0; i < blk.nctxs; i++) {
      uint32_t ctx;
      uint64_t first, end;
      cct_v4_block_ctx(f->p, &blk, i, &ctx, &first, &end);
      while (t < r->nids && r->ids[t] < ctx) t++;
      if (t == r->nids || r->ids[t] != ctx) continue;
      for (uint64_t j = first; j < end; j++) {
        uint16_t m;
        double v;
        cct_v4_block_value(f->p, &blk, j, &m, &v);
        uint32_t code = stat_of(r, m)->prop;
        if (!code || v == 0) continue;
        if (!isfinite(v)) return corrupt(r, f, "value of context %u in profile %u is not a finite number", ctx, k);
        code--;
        if ((rc = col_append(r, &r->cols[code / 3], ctx, (int)(code % 3), v))) return rc;
      }
    }
    for (size_t c = 0; c < r->ncols; c++) {
      v4_col *col = &r->cols[c];
      if (!col->is_sum) continue;
      WCALL(cct_writer_profile_values(r->w, col->widx, col->n, col->ctx, col->incl, col->excl));
    }
    cct_writer_progress(r->w, (long long)r->meta.n + (long long)((double)f->n * (k + 1) / r->pi_n), total);
    /* Drop the pages read for this profile, so that resident memory stays at
     * one profile's block however many profiles there are. */
    if (f->map) madvise(f->map, f->n, MADV_DONTNEED);
  }
  cct_writer_progress(r->w, total, total);
  return CCT_OK;
}

/* profile.db belongs to meta.db, as far as the files can tell (they carry no
 * common identifier).  Only evidence that cannot occur in a real pair counts
 * (sparse values can: hpcprof stores no value for a context without cost, and
 * hpcviewer's derived-metrics database has values for 40 of its 226 contexts):
 * the summary uses only the statistic ids meta.db declares; its context ids
 * stay within what meta.db and its elided instruction contexts can number;
 * and in every context a metric's point, function and lex_aware sums are at
 * most its execution sum (each is part of it), which a profile.db written for
 * other metric ids breaks.  With fits() during the walk, this refuses a
 * profile.db from another database.  Returns CCT_OK or CCT_ECORRUPT. */
static int check_pairing(v4 *r) {
  const char *why = "(profile.db from another database?)";
  for (uint64_t j = 0; j < r->sum.nvalues; j++) {
    uint16_t m;
    double v;
    cct_v4_block_value(r->prof.p, &r->sum, j, &m, &v);
    if (!stat_of(r, m)->declared)
      return cct_err_set(r->err, CCT_ECORRUPT, "'%s' does not belong to '%s': its summary has values of metric id %u, "
                         "which meta.db does not declare %s", r->prof.path, r->meta.path, m, why);
  }
  /* hpcprof numbers all contexts, elided ones included, densely from 0 */
  uint32_t top = r->sum.nctxs ? le32(r->prof.p + r->sum.pidx + 12 * (uint64_t)(r->sum.nctxs - 1)) : 0;
  uint32_t meta_top = r->nids ? r->ids[r->nids - 1] : 0;
  if ((uint64_t)top > 2 * (uint64_t)meta_top + 16)
    return cct_err_set(r->err, CCT_ECORRUPT, "'%s' does not belong to '%s': it has values for context %u, meta.db's "
                       "contexts end at %u %s", r->prof.path, r->meta.path, top, meta_top, why);
  double *val = calloc(r->nstat ? r->nstat : 1, sizeof *val); /* one context's values by statistic id */
  if (!val) return nomem(r);
  int rc = CCT_OK;
  for (uint32_t i = 0; i < r->sum.nctxs && !rc; i++) {
    uint32_t ctx;
    uint64_t first, end;
    uint16_t m;
    double v;
    cct_v4_block_ctx(r->prof.p, &r->sum, i, &ctx, &first, &end);
    for (uint64_t j = first; j < end; j++) {
      cct_v4_block_value(r->prof.p, &r->sum, j, &m, &v);
      if (m < r->nstat) val[m] = v; /* always: every id is declared (above) */
    }
    for (uint64_t j = first; j < end && !rc; j++) {
      cct_v4_block_value(r->prof.p, &r->sum, j, &m, &v);
      uint32_t execof = stat_of(r, m)->execof; /* 1 + an id below nstat, or 0 */
      double e = execof ? val[execof - 1] : 0;
      if (execof && v > 0 && v > e + 1e-9 * e + 1e-300)
        rc = cct_err_set(r->err, CCT_ECORRUPT, "'%s' does not belong to '%s': context %u has %g for statistic %u "
                         "but only %g for its execution (inclusive) statistic %u %s",
                         r->prof.path, r->meta.path, ctx, v, m, e, execof - 1, why);
    }
    for (uint64_t j = first; j < end; j++) {
      cct_v4_block_value(r->prof.p, &r->sum, j, &m, &v);
      if (m < r->nstat) val[m] = 0;
    }
  }
  free(val);
  return rc;
}

/* ---- entry point ------------------------------------------------------------ */

static int read_all(v4 *r) {
  int rc;
  if ((rc = map_file(r, &r->meta))) return rc;
  if ((rc = cct_v4_check_header(r->meta.p, r->meta.n, "meta", 8, r->meta.path, r->err))) return rc;
  if ((rc = read_metrics(r))) return rc;
  if ((rc = read_idnames(r))) return rc;
  if ((rc = read_tables(r, 0))) return rc;
  if ((rc = read_tree(r))) return rc;
  if ((rc = map_file(r, &r->prof))) return rc;
  if ((rc = read_profile_header(r))) return rc;
  if ((rc = check_pairing(r))) return rc;
  cct_writer_progress(r->w, (long long)r->meta.n, (long long)(r->meta.n + r->prof.n));
  /* everything below talks to the writer */
  if ((rc = read_tables(r, 1))) return rc;
  if ((rc = declare_synthetic(r))) return rc;
  if ((rc = declare_metrics(r))) return rc;
  if ((rc = walk(r, 1))) return rc;
  cct_writer_note_elided(r->w, count_elided(r));
  return read_profiles(r);
}

/* Reads the v4 database in db_dir (meta.db and profile.db) into w: modules,
 * files, functions, metric columns, the context tree with its summary values,
 * then the profiles.  Returns CCT_OK; CCT_EIO for a missing or unreadable
 * file; CCT_ECORRUPT for damaged input; CCT_EFORMAT for another version, the
 * May 2022 pre-release layout or a prof2 profile.db; CCT_ENOMEM; or the code
 * of a failed writer call.  err names the file at fault. */
int cct_read_v4(const char *db_dir, cct_writer *w, cct_err *err) {
  v4 r;
  memset(&r, 0, sizeof r);
  r.db_dir = db_dir;
  r.w = w;
  r.err = err;
  r.meta.path = join_path(db_dir, "meta.db");
  r.prof.path = join_path(db_dir, "profile.db");
  int rc;
  if (!r.meta.path || !r.prof.path)
    rc = cct_err_set(err, CCT_ENOMEM, "out of memory reading '%s'", db_dir);
  else
    rc = read_all(&r);
  if (rc && err && err->code == 0) cct_err_set(err, rc, "'%s': %s", db_dir, cct_errstr(rc));
  for (size_t c = 0; c < r.ncols; c++) {
    free(r.cols[c].ctx);
    free(r.cols[c].incl);
    free(r.cols[c].excl);
  }
  free(r.cols);
  free(r.stat);
  free(r.ids);
  free(r.stack);
  unmap_file(&r.meta);
  unmap_file(&r.prof);
  return rc;
}
