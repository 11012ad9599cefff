/* archive.c: the archive layer of the cct_query library: opening an archive
 * read-only, the statement cache over schema/query.sql, read transactions,
 * loading runs (metric columns, root, program totals, the default metric) and
 * small cached look-ups keyed by (id, run): functions, paths, values, caller frames.  Everything above it (centers, views, the session)
 * calls down into this file, never the other way. */
#include "query_int.h"
#include "filter_tree.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- small helpers ---- */

char *q_strdup(const char *s) { return s ? strdup(s) : NULL; }

int q_suffix_match(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  if (!k || k > n || strcmp(path + n - k, suffix)) return 0;
  return k == n || path[n - k - 1] == '/' || suffix[0] == '/';
}

/* ---- statements ---- */

static const char *const stmt_names[ST_COUNT] = {
    [ST_ROOT] = "root", [ST_CTX] = "ctx", [ST_VALUE] = "value", [ST_FUNCTION_INFO] = "function_info",
    [ST_FILE_PATH] = "file_path", [ST_MODULE_PATH] = "module_path", [ST_FUNCTIONS_BY_NAME] = "functions_by_name",
    [ST_FUNCTIONS_BY_GLOB] = "functions_by_glob", [ST_FUNCTION_NAMES] = "function_names",
    [ST_FUNCTIONS_BY_FILE] = "functions_by_file", [ST_FUNCTIONS_BY_MODULE] = "functions_by_module",
    [ST_FUNCTIONS_BY_CLASS] = "functions_by_class", [ST_FUNCTIONS_BY_NAMESPACE] = "functions_by_namespace",
    [ST_FILES] = "files", [ST_MODULES] = "modules",
    [ST_CONTEXTS_AT] = "contexts_at", [ST_INSTRUCTIONS_AT] = "instructions_at",
    [ST_LINE_COSTS] = "line_costs", [ST_FLAT] = "flat", [ST_FLAT_ONE] = "flat_one",
    [ST_SOURCE] = "source", [ST_PROFILES] = "profiles", [ST_PROFILE_VALUES] = "profile_values",
    [ST_COMPLETE_FUNCTIONS] = "complete_functions", [ST_COMPLETE_METRICS] = "complete_metrics",
    [ST_RUN_EXISTS] = "run_exists", [ST_COLUMNS] = "columns", [ST_RUNS] = "runs", [ST_BEGIN] = "begin", [ST_COMMIT] = "commit",
    [ST_VALUES] = "values", [ST_LOOP_COSTS] = "loop_costs", [ST_FUNCTIONS_AT] = "functions_at",
    [ST_FILE_CONTEXTS] = "file_contexts", [ST_OCC_FUNCTION] = "occ_function", [ST_COLUMN_VALUES] = "column_values"};

/* Runs the check statement NAME (query.sql: the first problem, no row when intact): 0, or
 * an error naming the archive. */
static int check_pages(qarch *a, const char *name, cct_err *err) {
  sqlite3_stmt *st = NULL;
  int rc = cct_schema_prepare_named(a->db, cct_sql_query, name, &st, err);
  if (rc) return rc;
  rc = cct_step(st, err);
  if (rc == CCT_STEP_ROW) { /* "TABLE: *** in database main ***\nFIRST PROBLEM\n...": TABLE: FIRST PROBLEM */
    const char *file = sqlite3_db_filename(a->db, "main"), *why = (const char *)sqlite3_column_text(st, 0);
    const char *colon = why ? strchr(why, ':') : NULL, *more = why ? strstr(why, "***\n") : NULL;
    const char *first = more ? more + 4 : colon ? colon + 2 : "";
    rc = cct_err_set(err, CCT_ECORRUPT, "'%s': database disk image is malformed (%.*s: %.*s)",
                     file && *file ? file : "the archive", colon ? (int)(colon - why) : 0, why ? why : "",
                     (int)strcspn(first, "\n"), first);
  } else if (rc == CCT_STEP_DONE) {
    rc = CCT_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

sqlite3_stmt *q_arch_stmt(qarch *a, int i, int run, cct_err *err) {
  if (!a->totals_checked && (i == ST_FLAT || i == ST_FLAT_ONE || i == ST_LINE_COSTS || i == ST_LOOP_COSTS)) {
    if (check_pages(a, "check_totals", err)) return NULL;
    a->totals_checked = 1;
  }
  if (!a->st[i] && cct_schema_prepare_named(a->db, cct_sql_query, stmt_names[i], &a->st[i], err)) return NULL;
  sqlite3_stmt *st = a->st[i];
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_int64(st, 1, run);
  return st;
}

sqlite3_stmt *q_stmt(const qv *q, int i, cct_err *err) { return q_arch_stmt(q->a, i, q->r->run, err); }

void q_begin(qarch *q) {
  if (q->txn++) return;
  q->txn_own = sqlite3_get_autocommit(q->db); /* not when the caller has a transaction open */
  sqlite3_stmt *st = q->txn_own ? q_arch_stmt(q, ST_BEGIN, 0, NULL) : NULL;
  if (st) cct_step(st, NULL); /* a failed BEGIN leaves autocommit: each statement then reads on its own */
  if (st) sqlite3_reset(st);
}

void q_end(qarch *q) {
  if (q->txn <= 0 || --q->txn || !q->txn_own) return;
  q->txn_own = 0;
  sqlite3_stmt *st = q_arch_stmt(q, ST_COMMIT, 0, NULL);
  if (st && !sqlite3_get_autocommit(q->db)) {
    cct_step(st, NULL); /* ending a read transaction: nothing to lose */
    sqlite3_reset(st);
  }
}

void q_read_ctx(sqlite3_stmt *st, qctx *c) { /* the statements give -1 and 0 for NULL (ifnull) */
  c->id = sqlite3_column_int64(st, 0);
  c->pre = sqlite3_column_int64(st, 1);
  c->last = sqlite3_column_int64(st, 2);
  c->frame = sqlite3_column_int64(st, 3);
  c->fdepth = sqlite3_column_int(st, 4);
  c->ldepth = sqlite3_column_int(st, 5);
  c->kind = sqlite3_column_int(st, 6);
  c->relation = sqlite3_column_int(st, 7);
  c->callsite = sqlite3_column_int(st, 8);
  c->function = sqlite3_column_int64(st, 9);   /* NULL reads as 0 */
  c->fparent = sqlite3_column_int64(st, 10);
  c->file = sqlite3_column_int64(st, 11);      /* NULL reads as 0 */
  c->line = sqlite3_column_int64(st, 12);
  c->call_file = sqlite3_column_int64(st, 13); /* NULL reads as 0 */
  c->call_line = sqlite3_column_int64(st, 14);
  c->module = sqlite3_column_int64(st, 15);    /* NULL reads as 0 */
  c->offset = sqlite3_column_int64(st, 16);
  c->nframes = sqlite3_column_int64(st, 17);
  for (int k = 0; k < 3; k++) c->pv[k] = sqlite3_column_double(st, 18 + k);
}

int q_load_ctx(const qv *q, int64_t id, qctx *c, cct_err *err) {
  sqlite3_stmt *st = q_stmt(q, ST_CTX, err);
  if (!st) return err ? err->code : CCT_ESQL;
  sqlite3_bind_int64(st, 2, id);
  int rc = cct_step(st, err);
  if (rc == CCT_STEP_ROW) q_read_ctx(st, c);
  sqlite3_reset(st);
  return rc == CCT_STEP_ROW ? CCT_OK : rc == CCT_STEP_DONE ? CCT_ENOTFOUND : rc;
}

/* Column c of the row at st into *out: CCT_OK, or CCT_ECORRUPT naming the
 * archive when the stored value is not a finite number (a hand-edited archive:
 * inf reached the pictures' coordinates). */
static int finite_col(sqlite3_stmt *st, int c, double *out, cct_err *err) {
  *out = sqlite3_column_double(st, c);
  if (isfinite(*out)) return CCT_OK;
  const char *file = sqlite3_db_filename(sqlite3_db_handle(st), "main");
  *out = 0;
  return cct_err_set(err, CCT_ECORRUPT, "'%s': a stored metric value is %s (the archive is damaged)",
                     file && *file ? file : "the archive", isnan(sqlite3_column_double(st, c)) ? "NaN" : "infinite");
}

/* Column col of filtered run q->r: 3 values per node of its tree, the run's own values
 * carried through the filters' log (read once, one rowid range, kept in qrun.colv). */
static int filtered_column(const qv *q, size_t col, const double **out, cct_err *err) {
  qrun *r = cct_unconst(q->r); /* colv is a cache behind the const run */
  *out = r->colv[col];
  if (*out) return CCT_OK;
  const qf_tree *f = r->ft;
  const cct_tree *t = &r->tree;
  double *v = cct_big_alloc((size_t)t->n * 3 * sizeof *v, 0), *in = NULL;
  if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int rc = CCT_OK;
  if (col == r->primary) { /* the filtered tree carries it */
    for (int32_t i = 0; i < t->n; i++) v[3 * (size_t)i] = t->incl[i], v[3 * (size_t)i + 1] = t->excl[i], v[3 * (size_t)i + 2] = t->lex[i];
  } else {
    in = cct_big_alloc((size_t)f->nsrc * 3 * sizeof *in, 1);
    sqlite3_stmt *st = in ? q_stmt(q, ST_COLUMN_VALUES, err) : NULL;
    if (!in) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    else if (!st) rc = CCT_ESQL;
    if (!rc) {
      sqlite3_bind_int64(st, 2, r->cols[col].id);
      sqlite3_bind_int64(st, 3, t->base);
      sqlite3_bind_int64(st, 4, t->base + f->nsrc - 1);
      while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
        int64_t i = sqlite3_column_int64(st, 0) - t->base;
        if (i < 0 || i >= f->nsrc) continue;
        for (int c = 0; c < 3 && rc == CCT_STEP_ROW; c++)
          if (finite_col(st, 1 + c, &in[3 * i + c], err)) rc = CCT_ECORRUPT;
        if (rc != CCT_STEP_ROW) break;
      }
      sqlite3_reset(st);
    }
    if (!rc) rc = qf_values(f, in, 3, v, err);
  }
  free(in);
  if (rc) {
    free(v);
    return rc;
  }
  *out = r->colv[col] = v;
  return CCT_OK;
}

double q_run_total(const qv *q, size_t col) {
  if (col >= q->r->ncols) return 0;
  if (!isnan(q->r->root_incl[col])) return q->r->root_incl[col];
  const double *v = NULL; /* a filtered run's other metric (filter.c): read now, once */
  cct_err e = CCT_ERR_INIT;
  if (!q->r->ft || filtered_column(q, col, &v, &e)) return 0; /* the values, read next, say why */
  qrun *r = cct_unconst(q->r); /* a cache behind the const run */
  return r->root_incl[col] = v[0];
}

int q_column_values(const qv *q, size_t col, const double **v, cct_err *err) {
  *v = NULL;
  if (!q->r->ft || col >= q->r->ncols) return cct_err_set(err, CCT_EUSAGE, "column %zu of run %d is not a filtered one", col, q->shown_run);
  return filtered_column(q, col, v, err);
}

/* Values of a filtered run's node numbered pre, for the columns cols[0..n). */
static int filtered_values(const qv *q, const int64_t *pres, size_t n, const size_t *cols, size_t ncols, double *out,
                           size_t stride, cct_err *err) {
  for (size_t m = 0; m < ncols; m++) {
    if (q->win && cols[m] == q->win->col) { /* the trace metric in a window, carried through the filters (window.c) */
      for (size_t i = 0; i < n; i++) q_window_values(q, cols[m], pres[i], out + stride * i + 3 * m);
      continue;
    }
    const double *v = NULL;
    int rc = filtered_column(q, cols[m], &v, err);
    if (rc) return rc;
    for (size_t i = 0; i < n; i++) {
      int64_t x = pres[i] - q->r->tree.base;
      double *o = out + stride * i + 3 * m;
      if (x < 0 || x >= q->r->tree.n) o[0] = o[1] = o[2] = 0;
      else memcpy(o, v + 3 * x, 3 * sizeof *o);
    }
  }
  return CCT_OK;
}

int q_values(const qv *q, int64_t pre, const size_t *vcols, size_t n, double *out, cct_err *err) {
  if (q->r->ft) return filtered_values(q, &pre, 1, vcols, n, out, 0, err);
  sqlite3_stmt *st = q_stmt(q, ST_VALUE, err);
  if (!st) return CCT_ESQL;
  for (size_t i = 0; i < n; i++) {
    if (q_window_values(q, vcols[i], pre, out + 3 * i)) continue; /* the trace metric in a window */
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 2, q->r->cols[vcols[i]].id);
    sqlite3_bind_int64(st, 3, pre);
    int rc = cct_step(st, err);
    if (rc == CCT_STEP_ROW) {
      int bad = CCT_OK;
      for (int j = 0; j < 3 && !bad; j++) bad = finite_col(st, j, &out[3 * i + j], err);
      if (bad) {
        sqlite3_reset(st);
        return bad;
      }
    } else if (rc == CCT_STEP_DONE) {
      out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 0;
    } else {
      return rc;
    }
  }
  sqlite3_reset(st);
  return CCT_OK;
}

/* A context to read and where its values go. */
typedef struct prei {
  int64_t pre;
  size_t i;
} prei;

static int by_pre(const void *a, const void *b) {
  const prei *x = a, *y = b;
  return x->pre < y->pre ? -1 : x->pre > y->pre;
}

int q_values_many(const qv *q, const int64_t *pres, size_t n, const size_t *cols, size_t ncols, const double *pv,
                  size_t pv_stride, double *out, size_t stride, cct_err *err) {
  if (q->r->ft) return filtered_values(q, pres, n, cols, ncols, out, stride, err);
  prei *idx = NULL;
  int64_t *keys = NULL;
  qkeys k = {NULL, n, 1};
  sqlite3_stmt *st = NULL;
  int rc = CCT_OK;
  for (size_t m = 0; !rc && m < ncols; m++) {
    double *col = out + 3 * m;
    if (q->win && cols[m] == q->win->col) { /* the trace metric in a window (window.c) */
      for (size_t i = 0; i < n; i++) q_window_values(q, cols[m], pres[i], col + stride * i);
      continue;
    }
    if (pv && cols[m] == q->r->primary) { /* the values beside each context: nothing to read */
      for (size_t i = 0; i < n; i++) memcpy(col + stride * i, (const char *)pv + pv_stride * i, 3 * sizeof *col);
      continue;
    }
    for (size_t i = 0; i < n; i++) col[stride * i] = col[stride * i + 1] = col[stride * i + 2] = 0;
    if (!n) continue;
    if (!st) { /* the keys once, in key order (look-ups on neighbouring pages), for every column read */
      idx = malloc(n * sizeof *idx);
      keys = malloc(n * sizeof *keys);
      if (!idx || !keys) {
        rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
        break;
      }
      int sorted = 1;
      for (size_t i = 0; i < n; i++) {
        idx[i] = (prei){pres[i], i};
        if (i && pres[i] < pres[i - 1]) sorted = 0;
      }
      if (!sorted) qsort(idx, n, sizeof *idx, by_pre);
      for (size_t i = 0; i < n; i++) keys[i] = idx[i].pre;
      k.v = keys;
      if (!(st = q_stmt(q, ST_VALUES, err))) {
        rc = CCT_ESQL;
        break;
      }
    }
    sqlite3_reset(st);
    q_keys_bind(st, 2, &k);
    sqlite3_bind_int64(st, 3, q->r->cols[cols[m]].id);
    while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
      int64_t i = sqlite3_column_int64(st, 0);
      if (i < 0 || (size_t)i >= n) continue;
      double *o = col + stride * idx[i].i;
      for (int c = 0; c < 3 && rc == CCT_STEP_ROW; c++)
        if (finite_col(st, c + 1, &o[c], err)) rc = CCT_ECORRUPT;
      if (rc != CCT_STEP_ROW) break;
    }
  }
  if (st) {
    sqlite3_reset(st);
    sqlite3_bind_null(st, 2); /* no pointer to the freed keys left behind */
  }
  free(idx);
  free(keys);
  return rc;
}

/* Steps statement which (of x's run, id bound as ?2) to its row: CCT_STEP_ROW with *st on
 * the row (the caller resets it), else CCT_OK (no row) or an error, *st reset. */
static int lookup(const qv *x, int which, int64_t id, sqlite3_stmt **st, cct_err *err) {
  if (!(*st = q_stmt(x, which, err))) return CCT_ESQL;
  sqlite3_bind_int64(*st, 2, id);
  int rc = cct_step(*st, err);
  if (rc != CCT_STEP_ROW) sqlite3_reset(*st);
  return rc;
}

int q_function(const qv *x, int64_t id, const fninfo **out, cct_err *err) {
  qarch *q = x->a;
  *out = NULL;
  int64_t *slot = qmap_get(&q->fnmap, id, x->r->run, 0, 0, 0);
  if (slot) {
    *out = &q->fns[*slot];
    return CCT_OK;
  }
  sqlite3_stmt *st;
  int rc = lookup(x, ST_FUNCTION_INFO, id, &st, err);
  if (rc != CCT_STEP_ROW) return rc; /* CCT_OK (unknown) or the error */
  if (CCT_GROW(q->fns, q->nfns + 1, q->fncap)) {
    sqlite3_reset(st);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  fninfo *f = &q->fns[q->nfns];
  f->name = q_strdup((const char *)sqlite3_column_text(st, 0));
  f->module_id = sqlite3_column_int64(st, 1);
  f->file_id = sqlite3_column_int64(st, 2);
  f->line = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
  f->file = q_strdup((const char *)sqlite3_column_text(st, 4));
  f->module = q_strdup((const char *)sqlite3_column_text(st, 5));
  int lost = !f->name || (!f->file && sqlite3_column_type(st, 4) != SQLITE_NULL) ||
             (!f->module && sqlite3_column_type(st, 5) != SQLITE_NULL); /* out of memory */
  sqlite3_reset(st);
  int added;
  if (lost || !qmap_put(&q->fnmap, id, x->r->run, 0, 0, 0, (int64_t)q->nfns, &added)) {
    free(f->name);
    free(f->file);
    free(f->module);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  *out = &q->fns[q->nfns++];
  return CCT_OK;
}

int q_path(const qv *x, int kind, int64_t id, const char **out, cct_err *err) {
  qarch *q = x->a;
  *out = NULL;
  if (id <= 0) return CCT_OK;
  int64_t *slot = qmap_get(&q->pathmap, kind, id, x->r->run, 0, 0);
  if (slot) {
    *out = q->paths[*slot];
    return CCT_OK;
  }
  sqlite3_stmt *st;
  int rc = lookup(x, kind ? ST_MODULE_PATH : ST_FILE_PATH, id, &st, err);
  if (rc != CCT_STEP_ROW) return rc; /* CCT_OK (unknown) or the error */
  const char *text = (const char *)sqlite3_column_text(st, 0);
  char *p = q_strdup(text);
  sqlite3_reset(st);
  if (!text) return CCT_OK;
  if (CCT_GROW(q->paths, q->npaths + 1, q->pathcap)) {
    free(p);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  int added;
  if (!p || !qmap_put(&q->pathmap, kind, id, x->r->run, 0, 0, (int64_t)q->npaths, &added)) {
    free(p);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  q->paths[q->npaths++] = p;
  *out = p;
  return CCT_OK;
}

size_t q_view_columns(const qv *q, size_t *vcols) {
  memcpy(vcols, q->vcols, q->nvcols * sizeof *vcols);
  return q->nvcols;
}

/* The default display metric of the loaded run: among the 'sum' columns with a
 * non-zero program total, the one cct_metric_rank prefers (the first in file order
 * among equals); the first column when every total is zero. */
static size_t default_metric(const qrun *q) {
  size_t best = 0;
  int best_rank = 99;
  for (size_t i = 0; i < q->nsum; i++) {
    if (q->root_incl[i] == 0) continue;
    int r = cct_metric_rank(q->cols[i].name);
    if (r < best_rank) best = i, best_rank = r;
  }
  return best;
}

/* ---- runs ---- */

static void run_free(qrun *r) {
  if (!r) return;
  for (size_t i = 0; i < r->ncols; i++) {
    free(r->cols[i].name);
    free(r->cols[i].stat);
  }
  free(r->cols);
  free(r->root_incl);
  cct_tree_free(&r->tree);
  q_index_free(r->idx);
  if (r->scopes_free) r->scopes_free(r->scopes); /* a window's flat totals (scopes.c) */
  free(r);
}

/* Reads n bytes at off of the open BLOB arg (cct_tree_reader). */
static int read_blob(void *arg, void *dst, size_t n, size_t off) {
  return n > INT_MAX || off > INT_MAX || sqlite3_blob_read(arg, dst, (int)n, (int)off) != SQLITE_OK;
}

/* Runs the named pragmas first and second of query.sql on a's connection (speed only:
 * failures are harmless). */
static void tune(qarch *a, const char *first, const char *second) {
  const char *names[] = {first, second};
  for (size_t i = 0; i < 2; i++) {
    sqlite3_stmt *st = NULL;
    if (cct_schema_prepare_named(a->db, cct_sql_query, names[i], &st, NULL) == CCT_OK) {
      while (cct_step(st, NULL) == CCT_STEP_ROW) {
      }
      sqlite3_finalize(st);
    }
  }
}

/* load_tree's read of the image of run in file into t. */
static int read_image(qarch *a, const char *file, int run, cct_tree *t, cct_err *err) {
  sqlite3_blob *b = NULL;
  if (sqlite3_blob_open(a->db, "main", "tree_image", "data", run, 0, &b) != SQLITE_OK) {
    int code = sqlite3_errcode(a->db) & 0xff;
    sqlite3_blob_close(b);
    return cct_err_set(err, code == SQLITE_NOMEM ? CCT_ENOMEM : CCT_ECORRUPT, "'%s': no tree image of run %d (%s)",
                       file, run, sqlite3_errmsg(a->db));
  }
  int size = sqlite3_blob_bytes(b), rc = CCT_OK;
  char why[256];
  int got = size > 0 ? cct_tree_read((size_t)size, read_blob, b, t, why, sizeof why) : -2;
  if (got == -2)
    rc = cct_err_set(err, CCT_ECORRUPT, "'%s': the tree image of run %d cannot be read (%s)", file, run,
                     size <= 0 ? "empty" : sqlite3_errmsg(a->db));
  else if (got && strstr(why, "out of memory"))
    rc = cct_err_set(err, CCT_ENOMEM, "out of memory reading the tree image of run %d of '%s'", run, file);
  else if (got)
    rc = cct_err_set(err, CCT_ECORRUPT, "'%s': damaged tree image of run %d: %s", file, run, why);
  sqlite3_blob_close(b);
  return rc;
}

/* Reads the tree image of run into t (incremental BLOB I/O on tree_image's rowid,
 * checked as it is read): a missing or damaged image is an error naming the archive.
 * On the library's own connection the image is read without the memory map (query.sql,
 * @image_mmap_off), which is then set back; a borrowed connection is left as it is. */
static int load_tree(qarch *a, int run, cct_tree *t, cct_err *err) {
  const char *file = sqlite3_db_filename(a->db, "main");
  if (!file || !*file) file = "the archive";
  if (!a->borrowed) tune(a, "image_mmap_off", "image_cache");
  int rc = read_image(a, file, run, t, err);
  if (!a->borrowed) tune(a, "mmap", "cache");
  return rc;
}

/* Loads run's columns, root and totals into a new qrun (not its tree image: q_run_tree). */
static int load_run(qarch *a, int run, qrun **out, cct_err *err) {
  qrun *q = calloc(1, sizeof *q);
  *out = NULL;
  if (!q) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  q->run = run;
  qv x = {.a = a, .r = q, .c = &q_no_center, .gran = CCT_GRAN_FUNCTION, .shown_run = run};
  int rc = CCT_OK;
  sqlite3_stmt *st = q_stmt(&x, ST_COLUMNS, err);
  if (!st) rc = CCT_ESQL;
  size_t cap = 0;
  int step = CCT_STEP_DONE;
  q->primary = SIZE_MAX;
  while (!rc && (step = cct_step(st, err)) == CCT_STEP_ROW) {
    if (CCT_GROW(q->cols, q->ncols + 1, cap)) {
      rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
      break;
    }
    qcolumn *c = &q->cols[q->ncols++];
    c->id = sqlite3_column_int64(st, 0);
    c->name = q_strdup((const char *)sqlite3_column_text(st, 1));
    c->stat = q_strdup((const char *)sqlite3_column_text(st, 2));
    if (!c->name || !c->stat) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    if (c->stat && !strcmp(c->stat, "sum")) q->nsum++;
    if (sqlite3_column_int(st, 3)) q->primary = q->ncols - 1;
  }
  if (!rc) rc = step;
  if (st) sqlite3_reset(st);
  /* Without any 'sum' column, every column is a display candidate. */
  if (!rc && !q->nsum) q->nsum = q->ncols;
  if (q->primary == SIZE_MAX) q->primary = q->ncols;
  if (!rc) {
    st = q_stmt(&x, ST_ROOT, err);
    if (!st) rc = CCT_ESQL;
    else if ((rc = cct_step(st, err)) == CCT_STEP_ROW) rc = CCT_OK, q_read_ctx(st, &q->root);
    else if (!rc) rc = cct_err_set(err, CCT_ECORRUPT, "run %d has no root context", run);
    if (st) sqlite3_reset(st);
  }
  if (!rc) {
    q->root_incl = calloc(q->ncols ? q->ncols : 1, sizeof *q->root_incl);
    if (!q->root_incl) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  for (size_t i = 0; !rc && i < q->ncols; i++) {
    double v[3] = {0, 0, 0};
    rc = q_values(&x, q->root.pre, &i, 1, v, err);
    q->root_incl[i] = v[0];
  }
  if (!rc) q->defdisp = default_metric(q);
  if (!rc && !(q->idx = q_index_new())) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (rc) {
    run_free(q);
    return rc;
  }
  *out = q;
  return CCT_OK;
}

int q_run_tree(qarch *a, const qrun *r, cct_err *err) {
  if (r->tree.mem) return CCT_OK;
  qrun *w = cct_unconst(r); /* the image is a cache behind the const run: read once, never changed after */
  q_begin(a);
  int rc = load_tree(a, r->run, &w->tree, err);
  q_end(a);
  if (!rc && (w->tree.base != r->root.pre || w->tree.id[0] != r->root.id)) {
    const char *file = sqlite3_db_filename(a->db, "main");
    rc = cct_err_set(err, CCT_ECORRUPT, "'%s': the tree image of run %d is not of its contexts",
                     file && *file ? file : "the archive", r->run);
    cct_tree_free(&w->tree);
  }
  return rc;
}

int q_run_get(qarch *a, int run, const qrun **out, cct_err *err) {
  *out = NULL;
  for (size_t i = 0; i < a->nruns; i++)
    if (a->runs[i]->run == run) {
      *out = a->runs[i];
      return CCT_OK;
    }
  sqlite3_stmt *st = q_arch_stmt(a, ST_RUN_EXISTS, run, err);
  if (!st) return CCT_ESQL;
  int found = cct_step(st, err);
  sqlite3_reset(st);
  if (found != CCT_STEP_ROW && found != CCT_STEP_DONE) return found;
  if (!found) return cct_err_set(err, CCT_ENOTFOUND, "no run %d in the archive", run);
  qrun **v = cct_reallocarray(a->runs, a->nruns + 1, sizeof *v);
  if (!v) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  a->runs = v;
  qrun *r = NULL;
  q_begin(a);
  int rc = load_run(a, run, &r, err);
  q_end(a);
  if (rc) return rc;
  a->runs[a->nruns++] = r;
  *out = r;
  return CCT_OK;
}

int q_last_run(qarch *a, int *run, cct_err *err) {
  sqlite3_stmt *st = q_arch_stmt(a, ST_RUNS, 0, err);
  *run = 0;
  if (!st) return CCT_ESCHEMA;
  int step;
  while ((step = cct_step(st, err)) == CCT_STEP_ROW) *run = sqlite3_column_int(st, 0);
  sqlite3_reset(st);
  return step;
}

int q_metric_column(const qrun *q, const char *name, size_t *disp, cct_err *err) {
  if (!name) {
    *disp = q->defdisp;
    return CCT_OK;
  }
  const char *sep = strchr(name, '\x1f'); /* 'BASE\x1fSTAT': that statistic's column (vmetric.c) */
  for (size_t i = 0; sep && i < q->ncols; i++)
    if (q->cols[i].name && q->cols[i].stat && !strncmp(q->cols[i].name, name, (size_t)(sep - name)) &&
        !q->cols[i].name[sep - name] && !strcmp(q->cols[i].stat, sep + 1)) {
      *disp = i;
      return CCT_OK;
    }
  size_t n = strlen(name), hit = (size_t)-1, nhits = 0;
  for (size_t i = 0; i < q->nsum; i++) {
    const char *c = q->cols[i].name ? q->cols[i].name : "";
    if (!strcasecmp(c, name)) {
      hit = i;
      nhits = 1;
      break;
    }
    if (!strncasecmp(c, name, n)) {
      if (!nhits || strcasecmp(q->cols[hit].name, c)) nhits++;
      hit = i;
    }
  }
  if (nhits == 1) {
    *disp = hit;
    return CCT_OK;
  }
  char list[700] = "";
  size_t len = 0;
  for (size_t i = 0; i < q->nsum && len < sizeof list - 80; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", i ? ", " : "", q->cols[i].name);
  return cct_err_set(err, CCT_ENOTFOUND, "%s metric '%s' in run %d; metrics: %s", nhits ? "ambiguous" : "no", name,
                     q->run, q->nsum ? list : "(none)");
}

/* The empty center of any run (declared with center.c's functions; defined here, at the
 * bottom layer, because every qv without a center points to it). */
const cct_center q_no_center;

/* ---- opening ---- */

int q_arch_open(qarch *a, const char *path, int flags, sqlite3 *db, cct_err *err) {
  memset(a, 0, sizeof *a);
  if (!path) {
    const char *file = sqlite3_db_filename(db, "main");
    int rc = cct_schema_check(db, file && *file ? file : "the main database", err);
    if (rc) return rc;
    if (q_keys_register(db) != SQLITE_OK)
      return cct_err_set(err, CCT_ESQL, "cannot register cct_keys: %s", sqlite3_errmsg(db));
    a->db = db;
    a->borrowed = 1;
    return check_pages(a, "check_tables", err);
  }
  int rc = cct_schema_open(path, CCT_OPEN_READONLY | flags, &a->db, err);
  if (rc) return rc;
  if (q_keys_register(a->db) != SQLITE_OK) {
    rc = cct_err_set(err, CCT_ESQL, "cannot register cct_keys: %s", sqlite3_errmsg(a->db));
    sqlite3_close(a->db);
    a->db = NULL;
    return rc;
  }
  tune(a, "mmap", "cache");
  rc = check_pages(a, "check_tables", err);
  if (rc) {
    sqlite3_close(a->db);
    a->db = NULL;
  }
  return rc;
}

void q_arch_close(qarch *a) {
  for (size_t i = 0; i < a->nfns; i++) {
    free(a->fns[i].name);
    free(a->fns[i].file);
    free(a->fns[i].module);
  }
  free(a->fns);
  qmap_free(&a->fnmap);
  for (size_t i = 0; i < a->npaths; i++) free(a->paths[i]);
  free(a->paths);
  qmap_free(&a->pathmap);
  if (a->traces_free) a->traces_free(a); /* window.c's trace records */
  for (size_t i = 0; i < a->nruns; i++) run_free(a->runs[i]);
  free(a->runs);
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(a->st[i]);
  if (!a->borrowed) sqlite3_close(a->db);
  memset(a, 0, sizeof *a);
}
