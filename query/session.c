/* session.c: the query session (cct_query): opening an archive read-only,
 * the current run and its metric columns, display metric, granularity,
 * threshold, the statement cache over schema/query.sql, small cached look-ups
 * (functions, paths, values) and completion.  Also the hash map of query_int.h. */
#include "query_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ---- hash map ---- */

static uint64_t qmap_hash(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  int64_t k[5] = {a, b, c, d, e};
  for (int i = 0; i < 5; i++) {
    h ^= (uint64_t)k[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ull;
  }
  return h ^ (h >> 31);
}

int64_t *qmap_get(const qmap *m, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) {
  if (!m->cap) return NULL;
  size_t i = (size_t)qmap_hash(a, b, c, d, e) & (m->cap - 1);
  for (;;) {
    qmap_slot *s = &m->slots[i];
    if (!s->used) return NULL;
    if (s->k[0] == a && s->k[1] == b && s->k[2] == c && s->k[3] == d && s->k[4] == e) return &s->v;
    i = (i + 1) & (m->cap - 1);
  }
}

static int qmap_grow(qmap *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  qmap_slot *ns = calloc(ncap, sizeof *ns);
  if (!ns) return -1;
  for (size_t j = 0; j < m->cap; j++) {
    qmap_slot *s = &m->slots[j];
    if (!s->used) continue;
    size_t i = (size_t)qmap_hash(s->k[0], s->k[1], s->k[2], s->k[3], s->k[4]) & (ncap - 1);
    while (ns[i].used) i = (i + 1) & (ncap - 1);
    ns[i] = *s;
  }
  free(m->slots);
  m->slots = ns;
  m->cap = ncap;
  return 0;
}

int64_t *qmap_put(qmap *m, int64_t a, int64_t b, int64_t c, int64_t d, int64_t e, int64_t v, int *added) {
  *added = 0;
  if ((m->n + 1) * 2 > m->cap && qmap_grow(m)) return NULL;
  size_t i = (size_t)qmap_hash(a, b, c, d, e) & (m->cap - 1);
  for (;;) {
    qmap_slot *s = &m->slots[i];
    if (!s->used) {
      s->used = 1;
      s->k[0] = a, s->k[1] = b, s->k[2] = c, s->k[3] = d, s->k[4] = e;
      s->v = v;
      m->n++;
      *added = 1;
      return &s->v;
    }
    if (s->k[0] == a && s->k[1] == b && s->k[2] == c && s->k[3] == d && s->k[4] == e) return &s->v;
    i = (i + 1) & (m->cap - 1);
  }
}

void qmap_free(qmap *m) {
  free(m->slots);
  m->slots = NULL;
  m->cap = m->n = 0;
}

/* ---- small helpers ---- */

char *q_strdup(const char *s) { return s ? strdup(s) : NULL; }

const char *q_basename(const char *path) {
  const char *b = path ? strrchr(path, '/') : NULL;
  return b ? b + 1 : path;
}

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
    [ST_FILES] = "files", [ST_MODULES] = "modules", [ST_FUNCTION_FRAMES] = "function_frames",
    [ST_CONTEXTS_AT] = "contexts_at", [ST_INSTRUCTIONS_AT] = "instructions_at",
    [ST_FUNCTION_SCOPES] = "function_scopes", [ST_LINE_COSTS] = "line_costs", [ST_TD_FRAMES] = "td_frames",
    [ST_TD_LINES] = "td_lines", [ST_FLAT] = "flat", [ST_FLAT_ONE] = "flat_one",
    [ST_SOURCE] = "source", [ST_PROFILES] = "profiles", [ST_PROFILE_VALUES] = "profile_values",
    [ST_COMPLETE_FUNCTIONS] = "complete_functions", [ST_COMPLETE_METRICS] = "complete_metrics",
    [ST_RUN_EXISTS] = "run_exists", [ST_COLUMNS] = "columns", [ST_RUNS] = "runs", [ST_BEGIN] = "begin", [ST_COMMIT] = "commit",
    [ST_VALUES] = "values", [ST_TD_FRAMES_RANGE] = "td_frames_range", [ST_TD_LINES_RANGE] = "td_lines_range",
    [ST_BU_FRAMES] = "bu_frames", [ST_LOOP_COSTS] = "loop_costs", [ST_FUNCTIONS_AT] = "functions_at",
    [ST_FILE_CONTEXTS] = "file_contexts"};

sqlite3_stmt *q_stmt(cct_query *q, int i, cct_err *err) {
  if (!q->st[i] && cct_schema_prepare_named(q->db, cct_sql_query, stmt_names[i], &q->st[i], err)) return NULL;
  sqlite3_stmt *st = q->st[i];
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_int64(st, 1, q->run);
  return st;
}

void q_begin(cct_query *q) {
  if (q->txn++) return;
  q->txn_own = sqlite3_get_autocommit(q->db); /* not when the caller has a transaction open */
  sqlite3_stmt *st = q->txn_own ? q_stmt(q, ST_BEGIN, NULL) : NULL;
  if (st) cct_step(st, NULL); /* a failed BEGIN leaves autocommit: each statement then reads on its own */
  if (st) sqlite3_reset(st);
}

void q_end(cct_query *q) {
  if (q->txn <= 0 || --q->txn || !q->txn_own) return;
  q->txn_own = 0;
  sqlite3_stmt *st = q_stmt(q, ST_COMMIT, NULL);
  if (st && !sqlite3_get_autocommit(q->db)) {
    cct_step(st, NULL); /* ending a read transaction: nothing to lose */
    sqlite3_reset(st);
  }
}

void q_read_ctx(sqlite3_stmt *st, qctx *c) {
  c->id = sqlite3_column_int64(st, 0);
  c->pre = sqlite3_column_int64(st, 1);
  c->last = sqlite3_column_int64(st, 2);
  c->frame = sqlite3_column_int64(st, 3);
  c->fdepth = sqlite3_column_int(st, 4);
  c->ldepth = sqlite3_column_int(st, 5);
  c->kind = sqlite3_column_int(st, 6);
  c->relation = sqlite3_column_int(st, 7);
  c->callsite = sqlite3_column_int(st, 8);
  c->function = sqlite3_column_type(st, 9) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 9);
  c->fparent = sqlite3_column_type(st, 10) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 10);
  c->file = sqlite3_column_type(st, 11) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 11);
  c->line = sqlite3_column_type(st, 12) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 12);
  c->call_file = sqlite3_column_type(st, 13) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 13);
  c->call_line = sqlite3_column_type(st, 14) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 14);
  c->module = sqlite3_column_type(st, 15) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 15);
  c->offset = sqlite3_column_int64(st, 16);
  c->nframes = sqlite3_column_int64(st, 17);
}

int q_load_ctx(cct_query *q, int64_t id, qctx *c, cct_err *err) {
  sqlite3_stmt *st = q_stmt(q, ST_CTX, err);
  if (!st) return err ? err->code : CCT_ESQL;
  sqlite3_bind_int64(st, 2, id);
  int rc = cct_step(st, err);
  if (rc == CCT_STEP_ROW) q_read_ctx(st, c);
  sqlite3_reset(st);
  return rc == CCT_STEP_ROW ? CCT_OK : rc == CCT_STEP_DONE ? CCT_ENOTFOUND : rc;
}

int q_values(cct_query *q, int64_t pre, const size_t *vcols, size_t n, double *out, cct_err *err) {
  sqlite3_stmt *st = q_stmt(q, ST_VALUE, err);
  if (!st) return CCT_ESQL;
  for (size_t i = 0; i < n; i++) {
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 2, q->cols[vcols[i]].id);
    sqlite3_bind_int64(st, 3, pre);
    int rc = cct_step(st, err);
    if (rc == CCT_STEP_ROW) {
      for (int j = 0; j < 3; j++) out[3 * i + j] = sqlite3_column_double(st, j);
    } else if (rc == CCT_STEP_DONE) {
      out[3 * i] = out[3 * i + 1] = out[3 * i + 2] = 0;
    } else {
      return rc;
    }
  }
  sqlite3_reset(st);
  return CCT_OK;
}

/* Sorts idx[0..n) by pres[idx[i]]. */
static const int64_t *sort_pres;
static int by_pre(const void *a, const void *b) {
  int64_t x = sort_pres[*(const size_t *)a], y = sort_pres[*(const size_t *)b];
  return x < y ? -1 : x > y;
}

/* Contexts whose pre numbers are closer than this are read as one range of the value table (the
 * rows between cost less than another look-up). */
#define VALUE_GAP 24

int q_values_many(cct_query *q, const int64_t *pres, size_t n, size_t col, double *out, size_t stride, cct_err *err) {
  if (!n) return CCT_OK;
  size_t *idx = malloc(n * sizeof *idx);
  char *json = malloc(44 * n + 3), *p = json;
  if (!idx || !json) {
    free(idx);
    free(json);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  int sorted = 1;
  for (size_t i = 0; i < n; i++) {
    idx[i] = i;
    if (i && pres[i] < pres[i - 1]) sorted = 0;
    out[stride * i] = out[stride * i + 1] = out[stride * i + 2] = 0;
  }
  if (!sorted) {
    sort_pres = pres;
    qsort(idx, n, sizeof *idx, by_pre);
    sort_pres = NULL;
  }
  /* ranges of neighbouring contexts */
  *p++ = '[';
  for (size_t i = 0; i < n;) {
    size_t j = i + 1;
    while (j < n && pres[idx[j]] - pres[idx[j - 1]] <= VALUE_GAP) j++;
    p += sprintf(p, "%s[%lld,%lld]", i ? "," : "", (long long)pres[idx[i]], (long long)pres[idx[j - 1]]);
    i = j;
  }
  *p++ = ']';
  *p = 0;
  sqlite3_stmt *st = q_stmt(q, ST_VALUES, err);
  if (!st) {
    free(idx);
    free(json);
    return CCT_ESQL;
  }
  sqlite3_bind_int64(st, 2, q->cols[col].id);
  sqlite3_bind_text(st, 3, json, (int)(p - json), free);
  size_t k = 0;
  int rc;
  while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
    int64_t pre = sqlite3_column_int64(st, 0);
    while (k < n && pres[idx[k]] < pre) k++;
    for (; k < n && pres[idx[k]] == pre; k++)
      for (int j = 0; j < 3; j++) out[stride * idx[k] + (size_t)j] = sqlite3_column_double(st, j + 1);
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st); /* releases the JSON text */
  free(idx);
  return rc;
}

int q_function(cct_query *q, int64_t id, const fninfo **out, cct_err *err) {
  *out = NULL;
  int64_t *slot = qmap_get(&q->fnmap, id, 0, 0, 0, 0);
  if (slot) {
    *out = &q->fns[*slot];
    return CCT_OK;
  }
  sqlite3_stmt *st = q_stmt(q, ST_FUNCTION_INFO, err);
  if (!st) return CCT_ESQL;
  sqlite3_bind_int64(st, 2, id);
  int rc = cct_step(st, err);
  if (rc != CCT_STEP_ROW) {
    sqlite3_reset(st);
    return rc; /* CCT_OK (unknown) or the error */
  }
  if (q->nfns == q->fncap) {
    size_t cap = q->fncap ? 2 * q->fncap : 64;
    fninfo *f = realloc(q->fns, cap * sizeof *f);
    if (!f) {
      sqlite3_reset(st);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    q->fns = f;
    q->fncap = cap;
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
  if (lost || !qmap_put(&q->fnmap, id, 0, 0, 0, 0, (int64_t)q->nfns, &added)) {
    free(f->name);
    free(f->file);
    free(f->module);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  *out = &q->fns[q->nfns++];
  return CCT_OK;
}

int q_path(cct_query *q, int kind, int64_t id, const char **out, cct_err *err) {
  *out = NULL;
  if (id <= 0) return CCT_OK;
  int64_t *slot = qmap_get(&q->pathmap, kind, id, 0, 0, 0);
  if (slot) {
    *out = q->paths[*slot];
    return CCT_OK;
  }
  sqlite3_stmt *st = q_stmt(q, kind ? ST_MODULE_PATH : ST_FILE_PATH, err);
  if (!st) return CCT_ESQL;
  sqlite3_bind_int64(st, 2, id);
  int rc = cct_step(st, err);
  if (rc != CCT_STEP_ROW) {
    sqlite3_reset(st);
    return rc; /* CCT_OK (unknown) or the error */
  }
  const char *text = (const char *)sqlite3_column_text(st, 0);
  char *p = q_strdup(text);
  sqlite3_reset(st);
  if (!text) return CCT_OK;
  if (q->npaths == q->pathcap) {
    size_t cap = q->pathcap ? 2 * q->pathcap : 64;
    char **np = realloc(q->paths, cap * sizeof *np);
    if (!np) {
      free(p);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    q->paths = np;
    q->pathcap = cap;
  }
  int added;
  if (!p || !qmap_put(&q->pathmap, kind, id, 0, 0, 0, (int64_t)q->npaths, &added)) {
    free(p);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  q->paths[q->npaths++] = p;
  *out = p;
  return CCT_OK;
}

size_t q_view_columns(const cct_query *q, size_t *vcols) {
  if (!q->ncols) return 0;
  size_t n = 0;
  vcols[n++] = q->disp;
  for (size_t i = 0; i < q->nsum && n < CCT_VIEW_MAX_METRICS; i++)
    if (i != q->disp) vcols[n++] = i;
  return n;
}

/* ---- run selection ---- */

static void free_caches(cct_query *q) {
  for (size_t i = 0; i < q->nfns; i++) {
    free(q->fns[i].name);
    free(q->fns[i].file);
    free(q->fns[i].module);
  }
  free(q->fns);
  q->fns = NULL;
  q->nfns = q->fncap = 0;
  qmap_free(&q->fnmap);
  for (size_t i = 0; i < q->npaths; i++) free(q->paths[i]);
  free(q->paths);
  q->paths = NULL;
  q->npaths = q->pathcap = 0;
  qmap_free(&q->pathmap);
}

static void free_columns(cct_query *q) {
  for (size_t i = 0; i < q->ncols; i++) {
    free(q->cols[i].name);
    free(q->cols[i].stat);
  }
  free(q->cols);
  q->cols = NULL;
  q->ncols = q->nsum = q->disp = 0;
  free(q->root_incl);
  q->root_incl = NULL;
}

static void free_last(cct_query *q) {
  for (size_t i = 0; i < q->nlast; i++) free(q->last[i].name);
  free(q->last);
  q->last = NULL;
  q->nlast = 0;
}

/* Whether the base of metric name (without its ' (unit)' and a 'perf::' or
 * 'PAPI_' prefix) is word, case-insensitively. */
static int metric_is(const char *name, const char *word) {
  if (!strncasecmp(name, "perf::", 6)) name += 6;
  else if (!strncasecmp(name, "PAPI_", 5)) name += 5;
  size_t n = strlen(word);
  return !strncasecmp(name, word, n) && (!name[n] || name[n] == ' ');
}

/* Whether metric name measures time: a time unit in its parenthesis, or a
 * clock or time event ('perf::task-clock', 'REALTIME'). */
static int metric_is_time(const char *name) {
  static const char *const units[] = {"(sec)", "(s)", "(msec)", "(ms)", "(usec)", "(us)", "(nsec)", "(ns)"};
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    size_t k = strlen(units[i]);
    if (n >= k && !strcasecmp(name + n - k, units[i])) return 1;
  }
  for (const char *s = name; *s; s++)
    if (!strncasecmp(s, "clock", 5) || !strncasecmp(s, "time", 4)) return 1;
  return 0;
}

/* Preference of a metric as the default display metric, lower first: CPU time,
 * real time, cycles, GPU time (all GPU operations, then kernels), other time
 * metrics, anything else. */
static int default_rank(const char *name) {
  static const char *const order[] = {"CPUTIME", "REALTIME", "cycles", "TOT_CYC", "cpu-cycles", "GPUOP", "GKER"};
  static const int rank[] = {0, 1, 2, 2, 2, 3, 4};
  if (!name) return 7;
  for (size_t i = 0; i < sizeof order / sizeof *order; i++)
    if (metric_is(name, order[i])) return rank[i];
  return metric_is_time(name) ? 5 : 6;
}

/* The default display metric of the loaded run: among the 'sum' columns with a
 * non-zero program total, the one default_rank prefers (the first in file order
 * among equals); the first column when every total is zero. */
static size_t default_metric(const cct_query *q) {
  size_t best = 0;
  int best_rank = 99;
  for (size_t i = 0; i < q->nsum; i++) {
    if (q->root_incl[i] == 0) continue;
    int r = default_rank(q->cols[i].name);
    if (r < best_rank) best = i, best_rank = r;
  }
  return best;
}

/* Loads the run's columns, root and totals; keeps the display metric by name
 * (keep may be NULL), else picks default_metric. */
static int load_run(cct_query *q, int run, const char *keep, cct_err *err) {
  char *kept = q_strdup(keep);
  free_columns(q);
  free_caches(q);
  free_last(q);
  q->run = run;
  int rc = CCT_OK;
  sqlite3_stmt *st = q_stmt(q, ST_COLUMNS, err);
  if (!st) rc = CCT_ESQL;
  size_t cap = 0;
  int step = CCT_STEP_DONE;
  while (!rc && (step = cct_step(st, err)) == CCT_STEP_ROW) {
    if (q->ncols == cap) {
      cap = cap ? 2 * cap : 8;
      qcolumn *c = realloc(q->cols, cap * sizeof *c);
      if (!c) {
        rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
        break;
      }
      q->cols = c;
    }
    qcolumn *c = &q->cols[q->ncols++];
    c->id = sqlite3_column_int64(st, 0);
    c->name = q_strdup((const char *)sqlite3_column_text(st, 1));
    c->stat = q_strdup((const char *)sqlite3_column_text(st, 2));
    if (!c->name || !c->stat) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
    if (c->stat && !strcmp(c->stat, "sum")) q->nsum++;
  }
  if (!rc) rc = step;
  if (st) sqlite3_reset(st);
  /* Without any 'sum' column, every column is a display candidate. */
  if (!rc && !q->nsum) q->nsum = q->ncols;
  if (!rc) {
    st = q_stmt(q, ST_ROOT, err);
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
    double v[3];
    rc = q_values(q, q->root.pre, &i, 1, v, err);
    q->root_incl[i] = v[0];
  }
  if (!rc) q->disp = default_metric(q);
  for (size_t i = 0; !rc && kept && i < q->nsum; i++)
    if (q->cols[i].name && !strcasecmp(q->cols[i].name, kept)) q->disp = i;
  free(kept);
  return rc;
}

/* Whether dir holds a file named name. */
static int dir_has(const char *dir, const char *name) {
  char buf[4096];
  struct stat sb;
  return snprintf(buf, sizeof buf, "%s/%s", dir, name) < (int)sizeof buf && stat(buf, &sb) == 0;
}

/* The error for the HPCToolkit database directory dir (len bytes of it): the
 * cctingest command to run, its archive named after the directory; file: path
 * is one of the database's files. */
static int database_dir_error(const char *path, const char *dir, int len, int file, cct_err *err) {
  while (len > 1 && dir[len - 1] == '/') len--;
  int b = len;
  while (b > 0 && dir[b - 1] != '/') b--;
  int blen = len - b;
  if (blen > 2 && !strncmp(dir + len - 2, ".d", 2)) blen -= 2; /* hpcprof's 'NAME.d' */
  if (blen <= 0 || blen > 200 || dir[b] == '.') b = 0, blen = 0;
  return cct_err_set(err, CCT_EIO,
                     "'%s' is %s HPCToolkit database, not a cctq archive; ingest it first: "
                     "cctingest %.*s %.*s.sqlite",
                     path, file ? "a file of an" : "an", len, dir, blen ? blen : 7, blen ? dir + b : "archive");
}

/* An error naming what path is when it is not an archive but an HPCToolkit
 * database (its directory or one of its files) or another directory, with the
 * cctingest command to run; CCT_OK when path is none of those. */
static int not_an_archive(const char *path, cct_err *err) {
  struct stat sb;
  if (stat(path, &sb)) return CCT_OK; /* the open reports it */
  if (S_ISDIR(sb.st_mode)) {
    if (dir_has(path, "meta.db") || dir_has(path, "experiment.xml"))
      return database_dir_error(path, path, (int)strlen(path), 0, err);
    return cct_err_set(err, CCT_EIO, "'%s' is a directory, not a cctq archive", path);
  }
  static const char *const files[] = {"meta.db", "profile.db", "cct.db", "trace.db", "experiment.xml"};
  const char *base = q_basename(path);
  size_t n = strlen(base);
  int hpc = n > 10 && !strcmp(base + n - 10, ".metric-db");
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) hpc |= !strcmp(base, files[i]);
  if (!hpc) return CCT_OK;
  if (base == path) return database_dir_error(path, ".", 1, 1, err);
  return database_dir_error(path, path, (int)(base - path - 1), 1, err);
}

/* Sets up session q on q->db, an archive labelled name in messages: statement
 * tuning (tune), the last run.  Returns CCT_OK or an error. */
static int session_start(cct_query *q, const char *name, int tune, cct_err *err) {
  sqlite3_stmt *st = NULL;
  int run = 0, rc = CCT_OK;
  static const char *const tunings[] = {"mmap", "cache"};
  for (size_t i = 0; tune && i < sizeof tunings / sizeof *tunings; i++) /* speed only: failures are harmless */
    if (cct_schema_prepare_named(q->db, cct_sql_query, tunings[i], &st, NULL) == CCT_OK) {
      while (cct_step(st, NULL) == CCT_STEP_ROW) {
      }
      sqlite3_finalize(st);
      st = NULL;
    }
  if (cct_schema_prepare_named(q->db, cct_sql_query, "runs", &st, err)) rc = CCT_ESCHEMA;
  int step = CCT_STEP_DONE;
  while (!rc && (step = cct_step(st, err)) == CCT_STEP_ROW) run = sqlite3_column_int(st, 0);
  if (!rc) rc = step;
  sqlite3_finalize(st);
  if (!rc && !run) rc = cct_err_set(err, CCT_ESCHEMA, "'%s' holds no run; add one with cctingest", name);
  if (!rc) rc = load_run(q, run, NULL, err);
  return rc;
}

int cct_query_open(const char *path, cct_query **pq, cct_err *err) {
  *pq = NULL;
  if (not_an_archive(path, err)) return CCT_EIO;
  cct_query *q = calloc(1, sizeof *q);
  if (!q) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int rc = cct_schema_open(path, CCT_OPEN_READONLY, &q->db, err);
  if (rc) {
    free(q);
    return rc;
  }
  if ((rc = session_start(q, path, 1, err))) {
    cct_query_close(q);
    return rc;
  }
  *pq = q;
  return CCT_OK;
}

int cct_query_open_db(sqlite3 *db, cct_query **pq, cct_err *err) {
  *pq = NULL;
  const char *file = sqlite3_db_filename(db, "main");
  const char *name = file && *file ? file : "the main database";
  int rc = cct_schema_check(db, name, err);
  if (rc) return rc;
  cct_query *q = calloc(1, sizeof *q);
  if (!q) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  q->db = db;
  q->borrowed = 1;
  if ((rc = session_start(q, name, 0, err))) {
    cct_query_close(q);
    return rc;
  }
  *pq = q;
  return CCT_OK;
}

/* Frees everything q owns except its connection. */
static void free_state(cct_query *q) {
  q_center_clear(q);
  free_columns(q);
  free_caches(q);
  free_last(q);
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(q->st[i]);
  memset(q->st, 0, sizeof q->st);
}

void cct_query_close(cct_query *q) {
  if (!q) return;
  free_state(q);
  if (!q->borrowed) sqlite3_close(q->db);
  free(q);
}

sqlite3 *cct_query_db(cct_query *q) { return q->db; }

int cct_query_run(const cct_query *q) { return q->run; }

/* Builds in n (empty, on q's connection) the state of q switched to run:
 * columns, root, totals, the metric kept by name and the center re-resolved. */
static int switch_run(cct_query *q, cct_query *n, int run, cct_err *err) {
  sqlite3_stmt *st = q_stmt(q, ST_RUN_EXISTS, err);
  if (!st) return CCT_ESQL;
  sqlite3_bind_int(st, 1, run);
  int found = cct_step(st, err);
  sqlite3_reset(st);
  if (found != CCT_STEP_ROW && found != CCT_STEP_DONE) return found;
  if (!found) return cct_err_set(err, CCT_ENOTFOUND, "no run %d in the archive", run);
  int rc = load_run(n, run, cct_query_metric(q), err);
  if (!rc) rc = q_center_copy_items(n, q, err);
  if (!rc) rc = q_center_reresolve(n, err);
  return rc;
}

int cct_query_set_metric(cct_query *q, const char *name, cct_err *err) {
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
    q->disp = hit;
    return CCT_OK;
  }
  char list[700] = "";
  size_t len = 0;
  for (size_t i = 0; i < q->nsum && len < sizeof list - 80; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s'%s'", i ? ", " : "", q->cols[i].name);
  return cct_err_set(err, CCT_ENOTFOUND, "%s metric '%s' in run %d; metrics: %s", nhits ? "ambiguous" : "no", name,
                     q->run, q->nsum ? list : "(none)");
}

const char *cct_query_metric(const cct_query *q) { return q->ncols ? q->cols[q->disp].name : NULL; }

void cct_query_set_granularity(cct_query *q, int gran) { q->gran = gran == CCT_GRAN_LINE ? CCT_GRAN_LINE : CCT_GRAN_FUNCTION; }

int cct_query_granularity(const cct_query *q) { return q->gran; }

void cct_query_set_threshold(cct_query *q, double fraction) {
  q->threshold = fraction > 0 && fraction <= 1 ? fraction : fraction > 1 ? 1 : 0;
}

double cct_query_threshold(const cct_query *q) { return q->threshold; }

int cct_query_complete(cct_query *q, int kind, const char *prefix, int (*fn)(void *arg, const char *name),
                       void *arg) {
  cct_err err = CCT_ERR_INIT;
  int idx = kind == 'f' ? ST_COMPLETE_FUNCTIONS : kind == 'F' ? ST_FILES : ST_COMPLETE_METRICS;
  sqlite3_stmt *st = q_stmt(q, idx, &err);
  if (!st) return CCT_ESQL;
  if (kind == 'f') sqlite3_bind_text(st, 2, prefix, -1, SQLITE_TRANSIENT);
  size_t n = strlen(prefix);
  int rc;
  char *prev = NULL; /* function names: the last one offered */
  while ((rc = cct_step(st, &err)) == CCT_STEP_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, kind == 'F' ? 1 : 0);
    if (!name) continue;
    if (kind != 'f' && strncmp(name, prefix, n) && (kind != 'F' || strncmp(q_basename(name), prefix, n))) continue;
    if (kind == 'f') { /* offer 'NAME' for 'NAME [module]' (a center item covers both), once */
      size_t len = strlen(name);
      const char *deco = len && name[len - 1] == ']' ? strstr(name, " [") : NULL;
      if (deco && (size_t)(deco - name) >= n) len = (size_t)(deco - name);
      if (prev && strlen(prev) == len && !strncmp(prev, name, len)) continue;
      free(prev);
      if (!(prev = strndup(name, len))) break;
      name = prev;
    }
    if (fn(arg, name)) break;
  }
  free(prev);
  sqlite3_reset(st);
  return rc == CCT_STEP_ROW || rc == CCT_STEP_DONE ? CCT_OK : rc;
}

/* The new state is built aside, in a second session structure on the same
 * connection, and swapped in only when complete: a failed switch (no such run,
 * a run without a root context, a damaged archive) leaves q as it was. */
int cct_query_set_run(cct_query *q, int run, cct_err *err) {
  cct_query *n = calloc(1, sizeof *n);
  if (!n) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  n->db = q->db;
  n->borrowed = q->borrowed;
  n->gran = q->gran;
  n->threshold = q->threshold;
  q_begin(q);
  int rc = switch_run(q, n, run, err);
  q_end(q);
  if (rc) {
    free_state(n);
    free(n);
    return rc;
  }
  n->txn = q->txn; /* a caller's transaction, if any, goes on */
  n->txn_own = q->txn_own;
  free_state(q);
  *q = *n;
  free(n);
  return CCT_OK;
}
