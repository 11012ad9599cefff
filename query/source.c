/* source.c: the source view (a file's stored text with per-line exclusive and
 * inclusive figures from scope_total 'line', the center's own lines marked and
 * the center's share of each line beside the whole-program figure) and
 * the stats view (the distribution of the center's inclusive value over
 * profiles, from the zstd-compressed per-profile vectors of profile_value). */
#include "cct_util.h"
#include "query_int.h"
#include "filter_tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "profile_value blobs are little-endian and read with memcpy: port decode_profile"
#endif

/* Largest source text / profile vector we decompress (guards corrupt sizes). */
#define MAX_BLOB ((unsigned long long)1 << 31)

/* Decompresses a zstd frame; returns malloc'd bytes (NUL-terminated, size in *n) or NULL. */
static char *unzstd(const void *z, size_t zn, size_t *n) {
  unsigned long long size = ZSTD_getFrameContentSize(z, zn);
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > MAX_BLOB) return NULL;
  char *buf = malloc((size_t)size + 1);
  if (!buf) return NULL;
  size_t got = ZSTD_decompress(buf, (size_t)size, z, zn);
  if (ZSTD_isError(got) || got != size) {
    free(buf);
    return NULL;
  }
  buf[size] = 0;
  *n = (size_t)size;
  return buf;
}

/* Per-line figures of one file: lines ascending with values per view column. */
typedef struct lfig {
  long long line;
  double incl[CCT_VIEW_MAX_METRICS], excl[CCT_VIEW_MAX_METRICS];
} lfig;

static int by_line(const void *a, const void *b) {
  const lfig *x = a, *y = b;
  return (x->line > y->line) - (x->line < y->line);
}

/* Reads the per-line figures of file fid for the view columns. */
static int line_figures(const qv *q, int64_t fid, const size_t *vcols, size_t nm, lfig **out, size_t *nout,
                        cct_err *err) {
  lfig *v = NULL;
  size_t n = 0, cap = 0;
  for (size_t m = 0; m < nm; m++) {
    sqlite3_stmt *st = q_stmt(q, ST_LINE_COSTS, err);
    if (!st) {
      free(v);
      return CCT_ESQL;
    }
    sqlite3_bind_int64(st, 2, fid);
    sqlite3_bind_int64(st, 3, q->r->cols[vcols[m]].id);
    int rc;
    while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
      long long line = sqlite3_column_int64(st, 0);
      size_t i = 0;
      while (i < n && v[i].line != line) i++; /* files have few lines with cost per metric */
      if (i == n) {
        if (CCT_GROW(v, n + 1, cap)) {
          sqlite3_reset(st);
          free(v);
          return cct_err_set(err, CCT_ENOMEM, "out of memory");
        }
        memset(&v[n], 0, sizeof v[n]);
        v[n++].line = line;
      }
      v[i].incl[m] = sqlite3_column_double(st, 1);
      v[i].excl[m] = sqlite3_column_double(st, 2);
    }
    sqlite3_reset(st);
    if (rc) {
      free(v);
      return rc;
    }
  }
  if (n) qsort(v, n, sizeof *v, by_line);
  *out = v;
  *nout = n;
  return CCT_OK;
}

/* Sets *mark when line of file fid is marked '>': MARK_OWN for the center's own
 * lines (its loops and lines, the definition of its functions), MARK_CALL for the
 * call sites leading into it (bits).  Returns CCT_OK or an error. */
enum { MARK_OWN = 1, MARK_CALL = 2 };
static int is_marked(const qv *q, int64_t fid, long long line, int *mark, cct_err *err) {
  *mark = 0;
  for (size_t i = 0; i < q->c->nO && !(*mark & MARK_OWN); i++) {
    const qctx *o = &q->c->O[i];
    if ((o->kind == CCT_KIND_LINE || o->kind == CCT_KIND_LOOP) && o->file == fid && o->line == line) *mark |= MARK_OWN;
    if (o->frame == o->pre && o->kind != CCT_KIND_ROOT) {
      if (o->call_file == fid && o->call_line == line) *mark |= MARK_CALL;
      const fninfo *f = NULL;
      int rc = q_function(q, o->function, &f, err);
      if (rc) return rc;
      if (f && f->file_id == fid && f->line == line) *mark |= MARK_OWN;
    }
  }
  return CCT_OK;
}

/* What the center holds of one line of the file: its own code, and its share. */
typedef struct cline {
  long long line;
  int own;                          /* a loop or line of the center's own code is here */
  double share[CCT_VIEW_MAX_METRICS]; /* inclusive of the line inside O* (outermost per line) */
} cline;

static int by_cline(const void *a, const void *b) {
  const cline *x = a, *y = b;
  return (x->line > y->line) - (x->line < y->line);
}

/* The center's lines of file fid, sorted by line: one sweep over the file's loop
 * and line contexts in pre order beside O (sorted by pre) with the stack of the
 * members of O around the context.  A context is the center's own code when the
 * innermost member around it is its frame (a function occurrence) or a loop or
 * line of the same frame; it is in the share when any member is around it
 * (the outermost one is in O*), counting only the outermost context of each
 * line (recursion).  Returns CCT_OK or an error. */
static int center_lines(const qv *q, int64_t fid, const size_t *vcols, size_t nm, cline **out, size_t *nout,
                        cct_err *err) {
  *out = NULL;
  *nout = 0;
  if (!q->c->nO) return CCT_OK;
  typedef struct fctx {
    int64_t pre, last, line;
    int kind, own, in;
  } fctx;
  fctx *c = NULL;
  size_t n = 0, cap = 0, *stk = malloc(q->c->nO * sizeof *stk), top = 0, oi = 0;
  if (!stk) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  sqlite3_stmt *st = q_stmt(q, ST_FILE_CONTEXTS, err);
  int rc = st ? CCT_OK : CCT_ESQL;
  if (st) sqlite3_bind_int64(st, 2, fid);
  while (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW) {
    rc = CCT_OK;
    fctx x = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
              sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3), sqlite3_column_int(st, 4),
              0, 0};
    int64_t frame = sqlite3_column_int64(st, 2);
    while (oi < q->c->nO && q->c->O[oi].pre <= x.pre) {
      while (top && q->c->O[stk[top - 1]].last < q->c->O[oi].pre) top--;
      stk[top++] = oi++;
    }
    while (top && q->c->O[stk[top - 1]].last < x.pre) top--;
    if (!top) continue;
    const qctx *o = &q->c->O[stk[top - 1]];
    x.own = o->frame == o->pre ? o->pre == frame : o->frame == frame;
    x.in = 1;
    if (CCT_GROW(c, n + 1, cap)) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    c[n++] = x;
  }
  if (st) sqlite3_reset(st);
  free(stk);
  /* values of the line contexts, per view metric */
  int64_t *pres = malloc((n + 1) * sizeof *pres);
  double *vals = malloc((n + 1) * 3 * (nm ? nm : 1) * sizeof *vals);
  if (!rc && (!pres || !vals)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) pres[i] = c[i].pre;
  if (!rc) rc = q_values_many(q, pres, n, vcols, nm, NULL, 0, vals, 3 * nm, err);
  free(pres);
  cline *l = NULL;
  size_t nl = 0;
  qmap at = {0}; /* line -> (index in l, last pre of its counted context) */
  qmap lastof = {0};
  if (!rc && n && !(l = calloc(n, sizeof *l))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t i = 0; !rc && i < n; i++) {
    int added = 0;
    int64_t *k = qmap_put(&at, c[i].line, 0, 0, 0, 0, (int64_t)nl, &added);
    int64_t *lp = qmap_put(&lastof, c[i].line, 0, 0, 0, 0, -1, &added);
    if (!k || !lp) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    if (*k == (int64_t)nl) l[nl++].line = c[i].line;
    cline *x = &l[*k];
    x->own |= c[i].own;
    if (c[i].kind == CCT_KIND_LINE && c[i].pre > *lp) { /* outermost context of this line */
      *lp = c[i].last;
      for (size_t m = 0; m < nm; m++) x->share[m] += vals[3 * (nm * i + m)];
    }
  }
  qmap_free(&at);
  qmap_free(&lastof);
  free(vals);
  free(c);
  if (rc) {
    free(l);
    return rc;
  }
  if (nl) qsort(l, nl, sizeof *l, by_cline);
  *out = l;
  *nout = nl;
  return CCT_OK;
}

/* Picks the file for the source view ('@N': a row of last).  Returns CCT_OK with *fid set. */
static int source_file(const qv *q, const char *file, const cct_view *last, int64_t *fid, cct_err *err) {
  *fid = 0;
  if (file && file[0] == '@') {
    char *end = NULL;
    long long h = strtoll(file + 1, &end, 10);
    size_t nlast = last && q_view_facts(last) ? last->nrows : 0;
    if (!file[1] || *end || h < 1 || (size_t)h > nlast)
      return cct_err_set(err, CCT_ENOTFOUND, "no row %s in the last view", file);
    const lastrow *r = &q_view_facts(last)[h - 1];
    *fid = r->file;
    if (*fid <= 0 && r->kind == CCT_ROW_CENTER && q->c->nO) file = NULL;
    else if (*fid <= 0) return cct_err_set(err, CCT_ENOTFOUND, "row %s has no source file", file);
    else return CCT_OK;
  }
  if (!file) {
    if (!q->c->nO) return cct_err_set(err, CCT_EUSAGE, "no center: use 'source FILE' or set a center");
    const qctx *o = &q->c->O[0];
    if (o->frame == o->pre) {
      /* a function's own file when its definition line is known, else the file of its call site */
      const fninfo *f = NULL;
      int rc = q_function(q, o->function, &f, err);
      if (rc) return rc;
      *fid = f && f->line > 0 ? f->file_id : o->call_file > 0 ? o->call_file : f ? f->file_id : 0;
    } else {
      *fid = o->file;
    }
    if (*fid <= 0) return cct_err_set(err, CCT_ENOTFOUND, "the center has no source file; use 'source FILE'");
    return CCT_OK;
  }
  sqlite3_stmt *st = q_stmt(q, ST_FILES, err);
  if (!st) return CCT_ESQL;
  int64_t first = 0;
  int rc;
  while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
    const char *p = (const char *)sqlite3_column_text(st, 1);
    if (p && q_suffix_match(p, file)) {
      first = sqlite3_column_int64(st, 0);
      rc = CCT_OK;
      break;
    }
  }
  sqlite3_reset(st);
  if (rc) return rc;
  if (!first) return cct_err_set(err, CCT_ENOTFOUND, "no file '%s' in run %d", file, q->shown_run);
  *fid = first;
  return CCT_OK;
}

int q_source(const qv *q, const char *file, const cct_view *last, cct_view **out, cct_err *err) {
  if (q->r->ft) {
    *out = NULL;
    return cct_err_set(err, CCT_EUSAGE, "'source' is not computed under filters yet ('filter reset' first)");
  }
  *out = NULL;
  int64_t fid = 0;
  int rc = source_file(q, file, last, &fid, err);
  if (rc) return rc;
  const char *path = NULL;
  if ((rc = q_path(q, 0, fid, &path, err))) return rc;
  size_t vcols[CCT_VIEW_MAX_METRICS], nm = q_view_columns(q, vcols);
  lfig *figs = NULL;
  size_t nfigs = 0;
  char *text = NULL;
  size_t tn = 0;
  if ((rc = line_figures(q, fid, vcols, nm, &figs, &nfigs, err))) return rc;
  cline *cl = NULL;
  size_t ncl = 0, ci = 0;
  if ((rc = center_lines(q, fid, vcols, nm, &cl, &ncl, err))) {
    free(figs);
    return rc;
  }
  sqlite3_stmt *st = q_stmt(q, ST_SOURCE, err);
  if (!st) {
    free(figs);
    free(cl);
    return CCT_ESQL;
  }
  sqlite3_bind_int64(st, 2, fid);
  rc = cct_step(st, err);
  if (rc == CCT_STEP_ROW && sqlite3_column_type(st, 1) == SQLITE_BLOB) {
    text = unzstd(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), &tn);
    if (!text) rc = cct_err_set(err, CCT_ECORRUPT, "the stored copy of %s is corrupt", path ? path : "the file");
    else rc = CCT_OK;
  } else if (rc == CCT_STEP_ROW) {
    rc = CCT_OK;
  }
  sqlite3_reset(st);
  if (!rc && q->percent == CCT_PERCENT_CENTER) rc = q_center_need(q, vcols, nm, err); /* shares of the center */
  if (rc) {
    free(text);
    free(figs);
    free(cl);
    return rc;
  }
  cct_view *v = q_view_new(q, "source", vcols, nm);
  /* Line count: the text's lines, else the lines with figures. */
  size_t nlines = 0;
  if (text) {
    for (size_t i = 0; i < tn; i++) nlines += text[i] == '\n';
    if (tn && text[tn - 1] != '\n') nlines++;
  } else {
    size_t k = 0; /* only lines with a number: line -1 holds costs without a line */
    for (size_t i = 0; i < nfigs; i++)
      if (figs[i].line > 0) figs[k++] = figs[i];
    nfigs = nlines = k;
  }
  lastrow *facts = calloc(nlines + 1, sizeof *facts);
  if (v) v->rows = calloc(nlines + 1, sizeof *v->rows);
  if (!v || !facts || !v->rows) {
    free(figs);
    free(cl);
    free(text);
    free(facts);
    cct_view_free(v);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  char note[600];
  if (!text) {
    /* where cctingest looked: hpcprof copies sources into DB/src (classic './src/...', v4 src/ + the path) */
    const char *db = NULL, *rel = path ? path : "";
    sqlite3_stmt *rs = q_stmt(q, ST_RUN_EXISTS, err);
    if (rs && sqlite3_step(rs) == SQLITE_ROW) db = (const char *)sqlite3_column_text(rs, 1);
    if (!strncmp(rel, "./", 2)) rel += 2;
    int src = !strncmp(rel, "src/", 4);
    snprintf(note, sizeof note,
             "no stored copy of %s: cctingest looked for %s/%s%s%s (hpcprof copies sources into the database's "
             "src/ directory); per-line figures only",
             path ? path : "the file", db ? db : "the database", src ? "" : "src", src || rel[0] == '/' ? "" : "/", rel);
    if (rs) sqlite3_reset(rs);
    v->note = strdup(note);
  }
  const char *p = text;
  size_t fi = 0;
  for (size_t i = 0; i < nlines && !rc; i++) {
    cct_row *r = &v->rows[v->nrows];
    r->occurrences = -1;
    long long line = text ? (long long)i + 1 : figs[i].line;
    if (text) {
      const char *eol = memchr(p, '\n', (size_t)(text + tn - p));
      size_t len = eol ? (size_t)(eol - p) : (size_t)(text + tn - p);
      r->text = strndup(p, len);
      p = eol ? eol + 1 : text + tn;
    }
    while (fi < nfigs && figs[fi].line < line) fi++;
    const lfig *f = fi < nfigs && figs[fi].line == line ? &figs[fi] : NULL;
    char label[600];
    snprintf(label, sizeof label, "%s:%lld", path ? cct_basename(path) : "?", line);
    r->handle = (int)v->nrows + 1;
    r->kind = CCT_ROW_LINE;
    r->name = strdup(label);
    r->file = q_strdup(path);
    r->line = line;
    r->parent = -1;
    r->inclusive = calloc(nm + 1, sizeof(double));
    r->exclusive = calloc(nm + 1, sizeof(double));
    int mark = 0;
    rc = is_marked(q, fid, line, &mark, err);
    while (ci < ncl && cl[ci].line < line) ci++;
    const cline *c = ci < ncl && cl[ci].line == line ? &cl[ci] : NULL;
    if (c && c->own) mark |= MARK_OWN;
    if (q->c->nitems && !(r->share = calloc(nm + 1, sizeof(double)))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    int in = 0; /* a call site leading into the center, and nothing of it: outside it, no share ('-', csv empty) */
    for (size_t m = 0; c && m < nm; m++) in |= c->share[m] != 0;
    for (size_t m = 0; r->share && m < nm; m++) r->share[m] = mark == MARK_CALL && !in ? NAN : c ? c->share[m] : 0;
    r->mark = mark ? '>' : 0;
    r->center = r->mark != 0;
    facts[v->nrows] = (lastrow){CCT_ROW_LINE, NULL, 0, fid, 0, 0, line};
    v->nrows++;
    if (rc) break;
    if (!r->name || !r->inclusive || !r->exclusive || (text && !r->text)) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    for (size_t m = 0; f && m < nm; m++) {
      r->inclusive[m] = f->incl[m];
      r->exclusive[m] = f->excl[m];
    }
  }
  for (size_t i = 0; i < v->nrows; i++) facts[i].name = cct_unconst(v->rows[i].name); /* not owned */
  v->priv = facts;
  free(figs);
  free(cl);
  free(text);
  if (rc) {
    cct_view_free(v);
    return rc;
  }
  *out = v;
  return CCT_OK;
}

/* ---- stats ---- */

typedef struct pvec {
  uint32_t n;
  const unsigned char *ctx, *incl;
} pvec;

/* Parses a decompressed profile vector; 0 on success. */
static int decode_profile(const char *buf, size_t size, pvec *v) {
  if (size < 4) return -1;
  memcpy(&v->n, buf, 4);
  if ((size - 4) / 20 < v->n || 4 + (size_t)v->n * 20 != size) return -1;
  v->ctx = (const unsigned char *)buf + 4;
  v->incl = v->ctx + (size_t)v->n * 4;
  return 0;
}

/* A context id of a run's tree and its node. */
typedef struct idnode {
  int64_t id;
  int32_t node;
} idnode;

static int by_id(const void *a, const void *b) {
  int64_t x = ((const idnode *)a)->id, y = ((const idnode *)b)->id;
  return (x > y) - (x < y);
}

/* Profile v carried through the filters of run q->r (qrun.ft): the inclusive of the
 * nodes nodes[0..n) of the filtered tree added up into *sum, the root's into *root.
 * byid: the run's tree's nodes by id; layer, out: room for 2 values per node of the
 * run's and of the filtered tree. */
static int filtered_profile(const qv *q, const pvec *v, const idnode *byid, double *layer, double *out,
                            const int32_t *nodes, size_t n, double *sum, double *root, cct_err *err) {
  const qf_tree *f = q->r->ft;
  memset(layer, 0, (size_t)f->nsrc * 2 * sizeof *layer);
  for (uint32_t k = 0; k < v->n; k++) {
    uint32_t c;
    memcpy(&c, v->ctx + 4 * (size_t)k, 4);
    idnode key = {c, 0}, *x = bsearch(&key, byid, (size_t)f->nsrc, sizeof *byid, by_id);
    if (!x) continue; /* elided contexts: their cost is in their ancestors' */
    memcpy(&layer[2 * (size_t)x->node], v->incl + 8 * (size_t)k, 8);
    memcpy(&layer[2 * (size_t)x->node + 1], v->incl + 8 * ((size_t)v->n + k), 8);
  }
  int rc = qf_values(f, layer, 2, out, err);
  if (rc) return rc;
  *sum = 0;
  for (size_t i = 0; i < n; i++) *sum += out[2 * (size_t)nodes[i]];
  *root = out[0];
  return CCT_OK;
}

/* Inclusive value of ctx in v (binary search), 0 when absent. */
static double pvec_incl(const pvec *v, uint32_t ctx) {
  size_t lo = 0, hi = v->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    uint32_t c;
    memcpy(&c, v->ctx + 4 * mid, 4);
    if (c == ctx) {
      double d;
      memcpy(&d, v->incl + 8 * mid, 8);
      return d;
    }
    if (c < ctx) lo = mid + 1;
    else hi = mid;
  }
  return 0;
}

static int by_value_desc(const void *a, const void *b) {
  const struct cct_stats_profile *x = a, *y = b;
  if (x->value != y->value) return x->value > y->value ? -1 : 1;
  return (x->profile > y->profile) - (x->profile < y->profile);
}

static int cmp_ll(long long a, long long b) { return (a > b) - (a < b); }

/* By rank, thread, node, GPU context, stream, id (profiles without a rank last). */
static int by_rank(const void *a, const void *b) {
  const struct cct_stats_profile *x = a, *y = b;
  int c = (x->rank < 0) - (y->rank < 0);
  if (!c) c = cmp_ll(x->rank, y->rank);
  if (!c) c = cmp_ll(x->thread, y->thread);
  if (!c) c = cmp_ll(x->node, y->node);
  if (!c) c = cmp_ll(x->gpucontext, y->gpucontext);
  if (!c) c = cmp_ll(x->gpustream, y->gpustream);
  return c ? c : (x->profile > y->profile) - (x->profile < y->profile);
}

/* By thread, rank, node, GPU context, stream, id (profiles without a thread last). */
static int by_thread(const void *a, const void *b) {
  const struct cct_stats_profile *x = a, *y = b;
  int c = (x->thread < 0) - (y->thread < 0);
  if (!c) c = cmp_ll(x->thread, y->thread);
  if (!c) c = cmp_ll(x->rank, y->rank);
  return c ? c : by_rank(a, b);
}

/* Adds up the profiles of each rank and kind of s into one entry (its first
 * profile's id, no thread, the node and GPU ids they share), in rank order;
 * profiles without a rank stay as they are. */
static void rank_sums(cct_stats *s) {
  qsort(s->profiles, s->count, sizeof *s->profiles, by_rank);
  size_t n = 0;
  for (size_t i = 0; i < s->count; i++) {
    struct cct_stats_profile *p = &s->profiles[i], *g = n ? &s->profiles[n - 1] : NULL;
    if (g && p->rank >= 0 && g->rank == p->rank && g->kind == p->kind) {
      g->value += p->value;
      g->nprofiles++;
      g->thread = -1;
      if (g->node != p->node) g->node = -1;
      if (g->gpucontext != p->gpucontext) g->gpucontext = -1;
      if (g->gpustream != p->gpustream) g->gpustream = -1;
      continue;
    }
    s->profiles[n++] = *p;
  }
  s->count = n;
}

/* Fills d with the distribution of the profiles of kind (-1: all) of s; returns 0, or -1 out of memory. */
static int distribution(const cct_stats *s, int kind, cct_stats_dist *d) {
  memset(d, 0, sizeof *d);
  if (!(d->histogram = calloc(s->bins, sizeof *d->histogram))) return -1;
  for (size_t i = 0; i < s->count; i++) {
    if (kind >= 0 && s->profiles[i].kind != kind) continue;
    double x = s->profiles[i].value;
    if (!d->count || x < d->min) d->min = x;
    if (!d->count || x > d->max) d->max = x;
    d->sum += x;
    d->count++;
  }
  if (!d->count) return 0;
  d->mean = d->sum / (double)d->count;
  double var = 0, w = (d->max - d->min) / (double)s->bins;
  for (size_t i = 0; i < s->count; i++) {
    if (kind >= 0 && s->profiles[i].kind != kind) continue;
    double x = s->profiles[i].value;
    var += (x - d->mean) * (x - d->mean);
    size_t b = w > 0 ? (size_t)((x - d->min) / w) : 0;
    d->histogram[b >= s->bins ? s->bins - 1 : b]++;
  }
  d->stddev = sqrt(var / (double)d->count);
  d->imbalance = d->mean != 0 ? d->max / d->mean : 0;
  return 0;
}

int q_stats(const qv *q, size_t bins, int order, cct_stats **out, cct_err *err) {
  *out = NULL;
  if (!q->r->ncols) return cct_err_set(err, CCT_ENOTFOUND, "run %d has no metrics", q->shown_run);
  int auto_bins = !bins; /* then at most one bin per profile (or rank sum): 10 bins of 4 profiles were 6 empty */
  if (!bins) bins = 10;
  cct_stats *s = calloc(1, sizeof *s);
  if (!s) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  s->metric = q_strdup(q->r->cols[q->disp].name);
  s->bins = bins;
  s->histogram = calloc(bins, sizeof *s->histogram);
  /* The outermost occurrences (the root without a center). */
  size_t no = 0;
  uint32_t *ids = malloc((q->c->nO + 1) * sizeof *ids);
  if (!ids || !s->histogram) {
    free(ids);
    cct_stats_free(s);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  if (!q->c->nitems) ids[no++] = (uint32_t)q->r->root.id;
  for (size_t i = 0; i < q->c->nO; i++)
    if (q->c->outer[i]) ids[no++] = (uint32_t)q->c->O[i].id;
  int rc = CCT_OK;
  /* a filtered run: each profile's values carried through the filters, over the nodes */
  const qf_tree *ft = q->r->ft;
  int32_t *nodes = NULL;
  idnode *byid = NULL;
  double *layer = NULL, *fout = NULL;
  if (ft) {
    nodes = malloc((q->c->nO + 1) * sizeof *nodes);
    byid = malloc((size_t)ft->nsrc * sizeof *byid);
    layer = malloc((size_t)ft->nsrc * 2 * sizeof *layer);
    fout = malloc((size_t)q->r->tree.n * 2 * sizeof *fout);
    if (!nodes || !byid || !layer || !fout) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    size_t k = 0;
    if (!rc && !q->c->nitems) nodes[k++] = 0;
    for (size_t i = 0; !rc && i < q->c->nO; i++)
      if (q->c->outer[i] && q->c->O[i].pre - q->r->tree.base >= 0 && q->c->O[i].pre - q->r->tree.base < q->r->tree.n)
        nodes[k++] = (int32_t)(q->c->O[i].pre - q->r->tree.base);
    no = k;
    for (int32_t i = 0; !rc && i < ft->nsrc; i++) byid[i] = (idnode){ft->src->id[i], i};
    if (!rc) qsort(byid, (size_t)ft->nsrc, sizeof *byid, by_id);
  }
  sqlite3_stmt *st = q_stmt(q, ST_PROFILES, err);
  size_t cap = 0;
  qmap index = {0};
  int step = CCT_STEP_DONE;
  while (st && !rc && (step = cct_step(st, err)) == CCT_STEP_ROW) {
    if (CCT_GROW(s->profiles, s->count + 1, cap)) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    struct cct_stats_profile *p = &s->profiles[s->count];
    p->profile = sqlite3_column_int(st, 0);
    long long *f[] = {&p->node, &p->rank, &p->thread, &p->gpucontext, &p->gpustream};
    for (int k = 0; k < 5; k++)
      *f[k] = sqlite3_column_type(st, k + 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, k + 1);
    /* GPU streams: v4 GPUCONTEXT / GPUSTREAM identities, classic thread numbers >= 500 */
    p->kind = p->gpucontext >= 0 || p->gpustream >= 0 || p->thread >= 500 ? CCT_PROFILE_GPU : CCT_PROFILE_CPU;
    p->value = 0;
    p->nprofiles = 1;
    int added;
    if (!qmap_put(&index, p->profile, 0, 0, 0, 0, (int64_t)s->count, &added))
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    s->count++;
  }
  if (st) sqlite3_reset(st);
  if (!st) rc = CCT_ESQL;
  if (!rc) rc = step;
  int windowed = q->disp == q_trace_column(q->r); /* the trace metric: from the records (and the window) */
  if (!rc && windowed) rc = q_window_stats(q, &index, s->profiles, &s->program_sum, err);
  st = NULL;
  if (!rc && !windowed && !(st = q_stmt(q, ST_PROFILE_VALUES, err))) rc = CCT_ESQL;
  if (!rc && st) sqlite3_bind_int64(st, 2, q->r->cols[q->disp].id);
  while (!rc && st && (step = cct_step(st, err)) == CCT_STEP_ROW) {
    int64_t *slot = qmap_get(&index, sqlite3_column_int64(st, 0), 0, 0, 0, 0);
    if (!slot) continue;
    size_t n = 0;
    char *buf = unzstd(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), &n);
    pvec v;
    if (!buf || decode_profile(buf, n, &v)) {
      free(buf);
      const char *file = sqlite3_db_filename(q->a->db, "main");
      rc = cct_err_set(err, CCT_ECORRUPT, "'%s': per-profile values of profile %lld are corrupt",
                       file && *file ? file : "the archive", (long long)sqlite3_column_int64(st, 0));
      break;
    }
    double sum = 0, root = 0;
    if (ft) {
      rc = filtered_profile(q, &v, byid, layer, fout, nodes, no, &sum, &root, err);
    } else {
      for (size_t i = 0; i < no; i++) sum += pvec_incl(&v, ids[i]);
      root = pvec_incl(&v, (uint32_t)q->r->root.id);
    }
    s->profiles[*slot].value = sum;
    s->program_sum += root;
    free(buf);
    if (rc) break;
  }
  free(nodes);
  free(byid);
  free(layer);
  free(fout);
  if (!rc && st) rc = step;
  if (st) sqlite3_reset(st);
  qmap_free(&index);
  free(ids);
  if (rc) {
    cct_stats_free(s);
    return rc;
  }
  if (order == CCT_STATS_RANK_SUMS) rank_sums(s);
  if (auto_bins && s->count < s->bins) s->bins = s->count ? s->count : 1;
  /* the distribution over all profiles, then per kind */
  cct_stats_dist all;
  rc = distribution(s, -1, &all);
  for (int k = 0; !rc && k < 2; k++) rc = distribution(s, k, &s->kinds[k]);
  if (!rc) {
    free(s->histogram);
    s->histogram = all.histogram;
    s->sum = all.sum, s->min = all.min, s->max = all.max, s->mean = all.mean;
    s->stddev = all.stddev, s->imbalance = all.imbalance;
  } else {
    free(all.histogram);
  }
  if (s->count)
    qsort(s->profiles, s->count, sizeof *s->profiles,
          order == CCT_STATS_BY_RANK || order == CCT_STATS_RANK_SUMS ? by_rank
          : order == CCT_STATS_BY_THREAD                             ? by_thread
                                                                     : by_value_desc);
  /* what the figures do not say by themselves */
  s->program_total = q->r->root_incl ? q_root_total(q, q->disp) : 0;
  char note[300] = "";
  size_t nprof = 0; /* profiles (ranks add up theirs) */
  for (size_t i = 0; i < s->count; i++) nprof += (size_t)s->profiles[i].nprofiles;
  if (!s->count)
    snprintf(note, sizeof note, "run %d has no per-profile data (the database holds summary values only)", q->shown_run);
  else if (fabs(s->program_sum - s->program_total) > 1e-3 * fabs(s->program_total)) {
    cct_c_numeric loc = cct_c_numeric_begin(); /* the host's LC_NUMERIC does not change the text */
    snprintf(note, sizeof note,
             "the %zu profiles add up to %.4g of the program's %.4g (%.1f%%): the per-profile data covers only part "
             "of the run",
             nprof, s->program_sum, s->program_total,
             s->program_total ? 100.0 * s->program_sum / s->program_total : 0.0);
    cct_c_numeric_end(loc);
  }
  if (!rc && *note && !(s->note = strdup(note))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (rc) {
    cct_stats_free(s);
    return rc == -1 ? cct_err_set(err, CCT_ENOMEM, "out of memory") : rc;
  }
  *out = s;
  return CCT_OK;
}

void cct_stats_free(cct_stats *s) {
  if (!s) return;
  free(cct_unconst(s->metric));
  free(cct_unconst(s->note));
  free(s->profiles);
  free(s->histogram);
  for (int k = 0; k < 2; k++) free(s->kinds[k].histogram);
  free(s);
}
