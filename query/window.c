/* window.c: time windows over a run's traces (SPEC section 5, Time windows)
 * and the timeline.  A run's trace records (trace.sql) are read and decoded
 * once per archive and kept in memory; a window [from, to) gives each context
 * the time its records spend inside it (a record lasts until its lane's next
 * record; cut at the edges, so adjacent windows add up to their union), then
 * inclusive, exclusive and lex_aware by one pass over the run's tree image
 * (the propagation of formats.md 3.4, as the ingest writer does for the whole
 * run).  Views read those values for the run's 'trace (sec)' column through
 * q_values / q_values_many (archive.c), which call q_window_values. */
#include "cct_util.h"
#include "filter_tree.h"
#include "query_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct qtrace_cache {
  qtraces **runs;
  size_t n;
  int serial;           /* windows computed so far */
};

static void lanes_free(qtraces *t) {
  for (size_t i = 0; i < t->nlanes; i++) {
    free(t->lanes[i].source);
    free(t->lanes[i].t);
    free(t->lanes[i].ctx);
  }
  free(t->lanes);
  free(t->win.v);
  free(t);
}

static void traces_close(qarch *a) {
  if (!a->traces) return;
  for (size_t i = 0; i < a->traces->n; i++) lanes_free(a->traces->runs[i]);
  free(a->traces->runs);
  free(a->traces);
  a->traces = NULL;
}


/* The run's own tree, whose nodes the records name (a filtered run's source). */
static const cct_tree *run_tree(const qrun *r) { return r->ft ? r->ft->src : &r->tree; }

static int64_t col_opt(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, i);
}

/* Decodes chunk data (n records, see trace.sql) onto the end of lane l, whose
 * run has ncontexts contexts.  Returns CCT_OK or CCT_ECORRUPT. */
static int decode_chunk(qlane *l, const void *z, size_t zn, int64_t first, int64_t end, size_t n, int32_t ncontexts,
                        cct_err *err) {
  size_t raw = n * CCT_TRACE_RECORD_BYTES;
  unsigned char *buf = malloc(raw ? raw : 1);
  if (!buf) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  size_t got = ZSTD_decompress(buf, raw, z, zn);
  int rc = CCT_OK;
  if (ZSTD_isError(got) || got != raw) rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace records (lane %lld)", (long long)l->lane);
  int64_t t = first;
  for (size_t i = 0; !rc && i < n; i++) {
    uint32_t c;
    uint64_t dt;
    cct_trace_record_get(buf, n, i, &c, &dt);
    if (dt > (uint64_t)(end - t) || (int64_t)c >= ncontexts || (l->n && t + (int64_t)dt < l->t[l->n - 1])) {
      rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace records (lane %lld): times or contexts out of range",
                       (long long)l->lane);
      break;
    }
    t += (int64_t)dt;
    l->t[l->n] = t;
    l->ctx[l->n] = c;
    l->n++;
  }
  l->end = end;
  free(buf);
  return rc;
}

/* q_traces_get without the archive's name in its damage messages. */
static int load_traces(qarch *a, const qrun *r, qtraces **out, cct_err *err) {
  *out = NULL;
  int trc = q_run_tree(a, r, err); /* records name nodes of the tree */
  if (trc) return trc;
  if (!a->traces && !(a->traces = calloc(1, sizeof *a->traces))) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  a->traces_free = traces_close;
  struct qtrace_cache *tc = a->traces;
  for (size_t i = 0; i < tc->n; i++)
    if (tc->runs[i]->run == r->run) return *out = tc->runs[i]->nlanes ? tc->runs[i] : NULL, CCT_OK;
  qtraces *t = calloc(1, sizeof *t);
  qtraces **grown = t ? realloc(tc->runs, (tc->n + 1) * sizeof *grown) : NULL;
  if (!grown) return free(t), cct_err_set(err, CCT_ENOMEM, "out of memory");
  tc->runs = grown;
  t->run = r->run;
  sqlite3_stmt *st = NULL;
  int rc = cct_schema_prepare_named(a->db, cct_sql_trace_query, "has_tables", &st, err);
  int has = 0;
  if (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW) has = sqlite3_column_int(st, 0), rc = CCT_OK;
  sqlite3_finalize(st);
  st = NULL;
  if (!rc && has) rc = cct_schema_prepare_named(a->db, cct_sql_trace_query, "span", &st, err);
  if (!rc && st) {
    sqlite3_bind_int(st, 1, r->run);
    if ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
      t->t0 = sqlite3_column_int64(st, 0);
      t->span = sqlite3_column_int64(st, 1);
      t->records = sqlite3_column_int64(st, 2);
      t->strays = sqlite3_column_int64(st, 3);
      int64_t nl = sqlite3_column_int64(st, 4);
      rc = CCT_OK;
      if (nl < 0 || nl > 1 << 24 || t->span < 0) rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace span of run %d", r->run);
      else if (nl && !(t->lanes = calloc((size_t)nl, sizeof *t->lanes))) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      else t->nlanes = (size_t)nl;
    }
    sqlite3_finalize(st);
    st = NULL;
  }
  if (!rc && t->nlanes) rc = cct_schema_prepare_named(a->db, cct_sql_trace_query, "lanes", &st, err);
  size_t k = 0;
  if (!rc && st) {
    sqlite3_bind_int(st, 1, r->run);
    while (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW) {
      rc = CCT_OK;
      int64_t nrec = sqlite3_column_int64(st, 9);
      if (k == t->nlanes || nrec < 1 || nrec > t->records) {
        rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace lanes of run %d", r->run);
        break;
      }
      qlane *l = &t->lanes[k++];
      l->lane = sqlite3_column_int64(st, 0);
      l->profile = col_opt(st, 1), l->node = col_opt(st, 2), l->rank = col_opt(st, 3), l->thread = col_opt(st, 4);
      l->core = col_opt(st, 5), l->gpucontext = col_opt(st, 6), l->gpustream = col_opt(st, 7);
      l->source = q_strdup((const char *)sqlite3_column_text(st, 8));
      l->t = malloc((size_t)nrec * sizeof *l->t);
      l->ctx = malloc((size_t)nrec * sizeof *l->ctx);
      if (!l->t || !l->ctx) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      l->cap = (size_t)nrec;
    }
    sqlite3_finalize(st);
    st = NULL;
    if (!rc && k != t->nlanes) rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace lanes of run %d", r->run);
  }
  if (!rc && t->nlanes) rc = cct_schema_prepare_named(a->db, cct_sql_trace_query, "chunks", &st, err);
  if (!rc && st) {
    sqlite3_bind_int(st, 1, r->run);
    size_t li = 0;
    while (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW) {
      rc = CCT_OK;
      int64_t lane = sqlite3_column_int64(st, 0), first = sqlite3_column_int64(st, 2), end = sqlite3_column_int64(st, 3),
              n = sqlite3_column_int64(st, 4);
      while (li < t->nlanes && t->lanes[li].lane != lane) li++;
      qlane *l = li < t->nlanes ? &t->lanes[li] : NULL;
      if (!l || n < 1 || (uint64_t)n > l->cap - l->n || first < 0 || end < first || end > t->span ||
          (l->n && first < l->end)) {
        rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace records of run %d", r->run);
        break;
      }
      rc = decode_chunk(l, sqlite3_column_blob(st, 5), (size_t)sqlite3_column_bytes(st, 5), first, end, (size_t)n,
                        run_tree(r)->n, err);
    }
    sqlite3_finalize(st);
    for (size_t i = 0; !rc && i < t->nlanes; i++) /* every record of every lane */
      if (t->lanes[i].n != t->lanes[i].cap) rc = cct_err_set(err, CCT_ECORRUPT, "damaged trace records of run %d", r->run);
  }
  if (rc) {
    lanes_free(t);
    return rc;
  }
  tc->runs[tc->n++] = t;
  *out = t->nlanes ? t : NULL;
  return CCT_OK;
}

/* Loads the traces of run r (cached); *out NULL when it has none.  Damage is an
 * error naming the archive (README "Reliability": every error names its file). */
int q_traces_get(qarch *a, const qrun *r, qtraces **out, cct_err *err) {
  cct_err e = CCT_ERR_INIT;
  int rc = load_traces(a, r, out, &e);
  if (!rc) return CCT_OK;
  const char *file = sqlite3_db_filename(a->db, "main");
  if (rc == CCT_ECORRUPT && e.msg[0] != '\'') /* (the tree's errors name it already) */
    return cct_err_set(err, rc, "'%s': %s", file && *file ? file : "the archive", e.msg);
  return cct_err_set(err, rc, "%s", e.msg);
}

/* Adds to v[3 * node] the ns each record of lane l spends in [from, to). */
static void lane_points(const qlane *l, int64_t from, int64_t to, double *v) {
  if (!l->n || l->t[0] >= to || l->end <= from) return;
  size_t lo = 0, hi = l->n; /* the last record at or before from */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->t[mid] <= from) lo = mid;
    else hi = mid;
  }
  for (size_t i = lo; i < l->n && l->t[i] < to; i++) {
    int64_t a = l->t[i], b = i + 1 < l->n ? l->t[i + 1] : l->end;
    if (a < from) a = from;
    if (b > to) b = to;
    if (b > a && l->ctx[i]) v[3 * (size_t)l->ctx[i]] += (double)(b - a);
  }
}

/* Point values (v[3 i], ns) into inclusive, exclusive and lex_aware seconds
 * over the tree: children after their parent in pre order, so one backward pass. */
static void window_propagate(const cct_tree *tr, double *v) {
  for (int32_t i = 0; i < tr->n; i++) v[3 * i] *= 1e-9, v[3 * i + 1] = v[3 * i + 2] = v[3 * i];
  for (int32_t i = tr->n - 1; i >= 0; i--) {
    double *x = v + 3 * i;
    if (tr->kind[i] != CCT_KIND_LOOP) x[2] = x[1];
    int32_t p = tr->parent[i];
    if (p < 0) continue;
    double *y = v + 3 * p;
    y[0] += x[0];
    if (tr->relation[i] != CCT_REL_LEXICAL || tr->frame[i] == i) continue;
    y[1] += x[1];
    if (tr->kind[i] != CCT_KIND_LOOP) y[2] += x[1];
  }
}

/* The window's values over src (the run's own tree, which the records name), from
 * [from, to) of the lanes of t (all, or lane only when not NULL), into *out: over
 * q's tree, carried through its filters when it has them (filter_tree.c's log, as
 * every other metric's values).  Returns CCT_OK or CCT_ENOMEM. */
static int window_values(const qv *q, const qtraces *t, const qlane *lane, int64_t from, int64_t to, double **out,
                         cct_err *err) {
  const cct_tree *src = run_tree(q->r);
  double *v = calloc((size_t)src->n * 3, sizeof *v), *f = NULL;
  *out = NULL;
  if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t k = 0; k < t->nlanes; k++)
    if (!lane || lane == &t->lanes[k]) lane_points(&t->lanes[k], from, to, v);
  window_propagate(src, v);
  if (!q->r->ft) return *out = v, CCT_OK;
  f = malloc((size_t)q->r->tree.n * 3 * sizeof *f);
  int rc = f ? qf_values(q->r->ft, v, 3, f, err) : cct_err_set(err, CCT_ENOMEM, "out of memory");
  free(v);
  if (rc) free(f);
  else *out = f;
  return rc;
}

int q_window_bind(qv *q, const cct_window *w, cct_err *err) {
  q->win = NULL;
  if (!w) return CCT_OK;
  qtraces *t = NULL;
  int rc = q_traces_get(q->a, q->r, &t, err);
  if (rc) return rc;
  if (!t) return cct_err_set(err, CCT_ENOTFOUND, "run %d has no traces: no window", q->r->run);
  size_t col = q_trace_column(q->r);
  if (col >= q->r->ncols) return cct_err_set(err, CCT_ENOTFOUND, "run %d has no metric '%s'", q->r->run, CCT_TRACE_METRIC);
  if (!(w->from >= 0) || !(w->to >= w->from)) return cct_err_set(err, CCT_EUSAGE, "bad window %g..%g", w->from, w->to);
  int64_t from = (int64_t)llround(w->from * 1e9), to = w->to * 1e9 > 9e18 ? INT64_MAX : (int64_t)llround(w->to * 1e9);
  if (!t->win.v || t->win.from != from || t->win.to != to || t->win.tree != q->tree) {
    double *v = NULL;
    if ((rc = window_values(q, t, NULL, from, to, &v, err))) return rc;
    free(t->win.v);
    t->win = (qwin){v, q->r->tree.n, q->r->tree.base, col, from, to, ++q->a->traces->serial, q->tree};
  }
  q->win = &t->win;
  return CCT_OK;
}

double q_root_total(const qv *q, size_t col) {
  double v[3];
  if (q_window_values(q, col, q->r->tree.base, v)) return v[0];
  return q_run_total(q, col);
}

char *cct_window_text(const cct_window *w) {
  char b[160];
  cct_c_numeric loc = cct_c_numeric_begin(); /* the host's LC_NUMERIC does not change the text */
  snprintf(b, sizeof b, "window %.6g s - %.6g s (%s only)", w->from, w->to, CCT_TRACE_METRIC);
  cct_c_numeric_end(loc);
  return q_strdup(b);
}

char *q_window_text(const qv *q) {
  return cct_window_text(&(cct_window){(double)q->win->from * 1e-9, (double)q->win->to * 1e-9});
}


/* Marks in[i] = 1 for the nodes inside the outermost occurrences of q's center
 * (every node without a center), 0 for the root (idle records).  Returns a
 * malloc'd array of the tree's size, NULL when out of memory. */
unsigned char *q_center_marks(const qv *q) {
  const cct_tree *tr = &q->r->tree;
  unsigned char *in = calloc((size_t)tr->n, 1);
  if (!in) return NULL;
  if (!q->c->nitems) memset(in, 1, (size_t)tr->n);
  for (size_t i = 0; i < q->c->nO; i++) {
    if (!q->c->outer[i]) continue;
    int64_t a = q->c->O[i].pre - tr->base, b = q->c->O[i].last - tr->base;
    for (int64_t j = a < 0 ? 0 : a; j <= b && j < tr->n; j++) in[j] = 1;
  }
  in[0] = 0;
  return in;
}

/* Seconds of lane l's records inside [from, to), on a marked node (*on) and on any (*any). */
void q_lane_time(const qlane *l, const unsigned char *in, int64_t from, int64_t to, double *on, double *any) {
  *on = *any = 0;
  for (size_t i = 0; i < l->n; i++) {
    int64_t a = l->t[i], b = i + 1 < l->n ? l->t[i + 1] : l->end;
    if (a < from) a = from;
    if (b > to) b = to;
    if (b <= a || !l->ctx[i]) continue;
    *any += (double)(b - a) * 1e-9;
    if (in[l->ctx[i]]) *on += (double)(b - a) * 1e-9;
  }
}

/* q_window_stats of a filtered run: each lane's values carried through the filters. */
static int filtered_stats(const qv *q, const qtraces *t, const qmap *index, struct cct_stats_profile *p,
                          double *program, cct_err *err) {
  int64_t from = q->win ? q->win->from : 0, to = q->win ? q->win->to : INT64_MAX;
  int rc = CCT_OK;
  for (size_t k = 0; !rc && k < t->nlanes; k++) {
    const int64_t *slot = t->lanes[k].profile > 0 ? qmap_get(index, t->lanes[k].profile, 0, 0, 0, 0) : NULL;
    double *v = NULL;
    if (!slot || (rc = window_values(q, t, &t->lanes[k], from, to, &v, err))) continue;
    double on = q->c->nitems ? 0 : v[0]; /* the center's outermost occurrences, else the root */
    for (size_t i = 0; i < q->c->nO; i++) {
      int64_t x = q->c->O[i].pre - q->r->tree.base;
      if (q->c->outer[i] && x >= 0 && x < q->r->tree.n) on += v[3 * x];
    }
    p[*slot].value = on;
    *program += v[0];
    free(v);
  }
  return rc;
}

int q_window_stats(const qv *q, const qmap *index, struct cct_stats_profile *p, double *program, cct_err *err) {
  qtraces *t = NULL;
  int rc = q_traces_get(q->a, q->r, &t, err);
  if (rc || !t) return rc;
  if (q->r->ft) return filtered_stats(q, t, index, p, program, err);
  unsigned char *in = q_center_marks(q);
  if (!in) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  for (size_t k = 0; k < t->nlanes; k++) {
    const int64_t *slot = t->lanes[k].profile > 0 ? qmap_get(index, t->lanes[k].profile, 0, 0, 0, 0) : NULL;
    if (!slot) continue; /* a trace without a profile (gauss: ranks 2 and 3) */
    double on, any;
    q_lane_time(&t->lanes[k], in, q->win ? q->win->from : 0, q->win ? q->win->to : INT64_MAX, &on, &any);
    p[*slot].value = on;
    *program += any;
  }
  free(in);
  return CCT_OK;
}

