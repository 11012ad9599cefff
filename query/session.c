/* session.c: the query session (cct_query): an archive with current
 * settings (run, center, display metric, granularity, threshold, filters) and
 * the rows of the view its client showed last (cct_query_remember), for '@N'
 * in center and filter items.  Views are computed by the view core (core.c)
 * from a spec; cct_view_spec_init gives the session's.  Each setting change
 * builds the new state aside and swaps it in only when complete, so a failed
 * change leaves the session as it was.  Also completion. */
#include "cct_util.h"
#include "query_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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
  const char *base = cct_basename(path);
  size_t n = strlen(base);
  int hpc = n > 10 && !strcmp(base + n - 10, ".metric-db");
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) hpc |= !strcmp(base, files[i]);
  if (!hpc) return CCT_OK;
  if (base == path) return database_dir_error(path, ".", 1, 1, err);
  return database_dir_error(path, path, (int)(base - path - 1), 1, err);
}

static void filters_free(cct_filter *f, size_t n);

static void free_last(cct_query *q) {
  free(q->lastnames);
  free(q->last);
  q->last = NULL;
  q->lastnames = NULL;
  q->nlast = 0;
}

/* Keeps a copy of what the rows of v stand for, for '@N' (names included, in one
 * block: a bottomup of 11,000 rows is not 11,000 copies to make and free). */
static int remember(cct_query *q, const cct_view *v, cct_err *err) {
  const lastrow *facts = q_view_facts(v);
  lastrow *n = calloc(v->nrows + 1, sizeof *n);
  size_t bytes = 1;
  for (size_t i = 0; i < v->nrows; i++) bytes += v->rows[i].name ? strlen(v->rows[i].name) + 1 : 0;
  char *names = malloc(bytes), *at = names;
  if (!n || !names) {
    free(n);
    free(names);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < v->nrows; i++) {
    n[i] = facts ? facts[i] : (lastrow){0};
    n[i].name = NULL;
    if (v->rows[i].name) {
      size_t len = strlen(v->rows[i].name) + 1;
      memcpy(at, v->rows[i].name, len);
      n[i].name = at;
      at += len;
    }
  }
  free_last(q);
  q->last = n;
  q->lastnames = names;
  q->nlast = v->nrows;
  return CCT_OK;
}

/* A session on path, or on the borrowed connection db (path NULL). */
static int session_open(const char *path, sqlite3 *db, cct_query **pq, cct_err *err) {
  *pq = NULL;
  cct_query *q = calloc(1, sizeof *q);
  if (!q) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int rc = q_arch_open(&q->a, path, 0, db, err);
  if (rc) {
    free(q);
    return rc;
  }
  q->center = cct_unconst(&q_no_center);
  q->hotpath = 0.5; /* hpcviewer's hot-path threshold */
  int run = 0;
  const char *file = path ? path : sqlite3_db_filename(db, "main");
  rc = q_last_run(&q->a, &run, err);
  if (!rc && !run)
    rc = cct_err_set(err, CCT_ESCHEMA, "'%s' holds no run; add one with cctingest", file && *file ? file : "the main database");
  if (!rc) rc = q_run_get(&q->a, run, &q->r, err);
  if (rc) {
    cct_query_close(q);
    return rc;
  }
  q->disp = q->r->defdisp;
  *pq = q;
  return CCT_OK;
}

int cct_query_remember(cct_query *q, const cct_view *v, cct_err *err) {
  if (v->run != q->r->run) return cct_err_set(err, CCT_EUSAGE, "a view of run %d, not of run %d", v->run, q->r->run);
  return remember(q, v, err);
}

int cct_query_open(const char *path, cct_query **pq, cct_err *err) {
  *pq = NULL;
  if (not_an_archive(path, err)) return CCT_EIO;
  return session_open(path, NULL, pq, err);
}

int cct_query_open_db(sqlite3 *db, cct_query **pq, cct_err *err) { return session_open(NULL, db, pq, err); }

void cct_query_close(cct_query *q) {
  if (!q) return;
  cct_center_free(q->center);
  free_last(q);
  filters_free(q->filters, q->nfilters);
  q_vm_defs_free(q);
  free(q->vmetric);
  q_filtered_close(&q->a); /* the filtered copies of the archive, then the archive */
  q_arch_close(&q->a);
  free(q);
}

sqlite3 *cct_query_db(cct_query *q) { return q->a.db; }

int cct_query_run(const cct_query *q) { return q->r->run; }

const cct_center *cct_query_center(const cct_query *q) { return q->center; }

void cct_view_spec_init(const cct_query *q, int view, cct_view_spec *spec) {
  memset(spec, 0, sizeof *spec);
  spec->view = view;
  spec->run = q->r->run;
  spec->center = q->center;
  spec->metric = cct_query_metric(q);
  spec->granularity = q->gran;
  spec->threshold = q->threshold;
  spec->hotpath = q->hotpath;
  spec->percent = q->percent;
  spec->filters = q->filters;
  spec->nfilters = q->nfilters;
  spec->window = q->windowed ? &q->window : NULL; /* the session's window (timeline.c sets it) */
}

/* The new run and center are built aside and swapped in only when complete: a
 * failed switch (no such run, a run without a root context, a damaged
 * archive) leaves q as it was. */
int cct_query_set_run(cct_query *q, int run, cct_err *err) {
  const qrun *r = NULL;
  int rc = q_run_get(&q->a, run, &r, err);
  if (rc) return rc;
  size_t disp = r->defdisp; /* the metric is kept by name when the run has it */
  const char *keep = cct_query_metric(q);
  for (size_t i = 0; keep && i < r->nsum; i++)
    if (r->cols[i].name && !strcasecmp(r->cols[i].name, keep)) disp = i;
  cct_center *c = NULL;
  rc = cct_center_rerun(q, q->center, run, &c, NULL, err);
  if (rc) return rc;
  cct_center_free(q->center);
  q->center = c;
  if (q->r != r) q->windowed = 0; /* a window is of one run's traces */
  q->r = r;
  q->disp = disp;
  if (q->vmetric && !q_vm_is_virtual(q, run, q->vmetric)) free(q->vmetric), q->vmetric = NULL; /* not in that run */
  free_last(q);
  return CCT_OK;
}

int cct_query_set_metric(cct_query *q, const char *name, cct_err *err) {
  if (q_vm_is_virtual(q, 0, name)) { /* a statistic or derived metric: kept by name */
    char *canon = NULL;
    int rc = cct_query_find_metric(q, name, &canon, err);
    if (rc) return rc;
    free(q->vmetric);
    q->vmetric = canon;
    return CCT_OK;
  }
  int rc = q_metric_column(q->r, name ? name : "", &q->disp, err);
  if (!rc) free(q->vmetric), q->vmetric = NULL;
  return rc;
}

const char *cct_query_metric(const cct_query *q) {
  return q->vmetric ? q->vmetric : q->r->ncols ? q->r->cols[q->disp].name : NULL;
}

void cct_query_set_granularity(cct_query *q, int gran) { q->gran = gran == CCT_GRAN_LINE ? CCT_GRAN_LINE : CCT_GRAN_FUNCTION; }

int cct_query_granularity(const cct_query *q) { return q->gran; }

void cct_query_set_threshold(cct_query *q, double fraction) {
  q->threshold = fraction > 0 && fraction <= 1 ? fraction : fraction > 1 ? 1 : 0;
}

double cct_query_threshold(const cct_query *q) { return q->threshold; }

void cct_query_set_hotpath(cct_query *q, double fraction) {
  q->hotpath = fraction > 0 && fraction <= 1 ? fraction : fraction > 1 ? 1 : 0;
}

double cct_query_hotpath(const cct_query *q) { return q->hotpath; }

void cct_query_set_percent(cct_query *q, int base) {
  q->percent = base == CCT_PERCENT_CENTER ? CCT_PERCENT_CENTER : CCT_PERCENT_PROGRAM;
}

int cct_query_percent(const cct_query *q) { return q->percent; }


/* ---- the center ---- */

int cct_center_apply(cct_query *q, int op, const char *item, cct_err *err) {
  qv x;
  cct_view_spec spec;
  cct_view_spec_init(q, CCT_VIEW_TOPDOWN, &spec);
  cct_center *c = NULL;
  q_begin(&q->a);
  int rc = q_spec_bind(q, &spec, &x, err);
  if (!rc) rc = q_center_edit(&x, q->center, op, item, q->last, q->nlast, &c, err);
  q_end(&q->a);
  if (rc || !c) return rc; /* no c: the top row, no change */
  cct_center_free(q->center);
  q->center = c;
  return CCT_OK;
}

void cct_center_reset(cct_query *q) {
  cct_center_free(q->center);
  q->center = cct_unconst(&q_no_center);
}

int cct_query_swap_center(cct_query *q, cct_center *c, cct_center **old, cct_err *err) {
  *old = NULL;
  if (c && cct_center_size(c) && cct_center_run(c) != q->r->run)
    return cct_err_set(err, CCT_EUSAGE, "a center of run %d cannot be the center of run %d", cct_center_run(c),
                       q->r->run);
  *old = q->center == &q_no_center ? NULL : q->center;
  q->center = c ? c : cct_unconst(&q_no_center);
  return CCT_OK;
}

size_t cct_center_count(const cct_query *q) { return cct_center_size(q->center); }

const char *cct_center_item(const cct_query *q, size_t i) { return cct_center_text(q->center, i); }

long long cct_center_occurrences(const cct_query *q, size_t i) { return cct_center_occ(q->center, i); }

int cct_query_complete(cct_query *q, int kind, const char *prefix, int (*fn)(void *arg, const char *name),
                       void *arg) {
  cct_err err = CCT_ERR_INIT;
  int idx = kind == 'f' ? ST_COMPLETE_FUNCTIONS : kind == 'F' ? ST_FILES : ST_COMPLETE_METRICS;
  qv x = {.a = &q->a, .r = q->r, .c = &q_no_center, .disp = q->disp, .gran = q->gran, .shown_run = q->r->run};
  sqlite3_stmt *st = q_stmt(&x, idx, &err);
  if (!st) return CCT_ESQL;
  if (kind == 'f') sqlite3_bind_text(st, 2, prefix, -1, SQLITE_TRANSIENT);
  size_t n = strlen(prefix);
  int rc;
  char *prev = NULL; /* function names: the last one offered */
  while ((rc = cct_step(st, &err)) == CCT_STEP_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, kind == 'F' ? 1 : 0);
    if (!name) continue;
    if (kind != 'f' && strncmp(name, prefix, n) && (kind != 'F' || strncmp(cct_basename(name), prefix, n))) continue;
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

/* ---- the session's filters ---- */

size_t cct_query_filters(const cct_query *q, const cct_filter **list) {
  *list = q->filters;
  return q->nfilters;
}

static void filters_free(cct_filter *f, size_t n) {
  for (size_t i = 0; i < n; i++) free(cct_unconst(f[i].item));
  free(f);
}

/* Makes f[0..n) (owned) the session's filters when the filtered tree can be
 * made, with the center resolved again in it; else frees f and changes nothing. */
static int set_filters(cct_query *q, cct_filter *f, size_t n, char **note, cct_err *err) {
  cct_filter *old = q->filters;
  size_t nold = q->nfilters;
  q->filters = f; /* for bind_run's spec, through cct_view_spec_init */
  q->nfilters = n;
  cct_center *c = NULL;
  int rc = cct_center_rerun(q, q->center, q->r->run, &c, note, err);
  if (rc) {
    q->filters = old;
    q->nfilters = nold;
    filters_free(f, n);
    return rc;
  }
  filters_free(old, nold);
  cct_center_free(q->center);
  q->center = c;
  free_last(q); /* '@N' named rows of the other tree */
  return CCT_OK;
}

/* A copy of the session's filters without filter skip (1-based; 0: none) and
 * with room for extra more; NULL (err set) when out of memory. */
static cct_filter *filters_copy(const cct_query *q, size_t skip, size_t extra, cct_err *err) {
  cct_filter *f = calloc(q->nfilters + extra + 1, sizeof *f);
  size_t k = 0;
  for (size_t j = 0; f && j < q->nfilters; j++) {
    if (j + 1 == skip) continue;
    f[k].kind = q->filters[j].kind;
    if (q->filters[j].item && !(f[k].item = strdup(q->filters[j].item))) {
      filters_free(f, k);
      f = NULL;
      break;
    }
    k++;
  }
  if (!f) cct_err_set(err, CCT_ENOMEM, "out of memory");
  return f;
}

int cct_query_filter_add(cct_query *q, int kind, const char *item, char **note, cct_err *err) {
  if (note) *note = NULL;
  if (!cct_filter_name(kind)) return cct_err_set(err, CCT_EUSAGE, "no filter kind %d", kind);
  if (!item && kind != CCT_FILTER_RECURSION) return cct_err_set(err, CCT_EUSAGE, "%s needs an ITEM", cct_filter_name(kind));
  char *text = NULL;
  if (item) { /* '@N' is kept as the row's label, which reads the same in any tree */
    cct_center *c = NULL;
    cct_err e = CCT_ERR_INIT;
    qv x;
    cct_view_spec spec;
    cct_view_spec_init(q, CCT_VIEW_TOPDOWN, &spec);
    q_begin(&q->a);
    int rc = q_spec_bind(q, &spec, &x, &e);
    if (!rc) rc = q_center_edit(&x, NULL, CCT_CENTER_SET, item, q->last, q->nlast, &c, &e);
    q_end(&q->a);
    if (rc == CCT_OK && !c) rc = cct_err_set(&e, CCT_EUSAGE, "'%s' is the top row; name the item", item);
    if (rc) return cct_err_set(err, rc, "filter %s %s: %s", cct_filter_name(kind), item, e.msg);
    text = strdup(c && c->nitems ? c->items[0].text : item);
    cct_center_free(c);
    if (!text) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  cct_filter *f = filters_copy(q, 0, 1, err);
  if (!f) return free(text), CCT_ENOMEM;
  f[q->nfilters] = (cct_filter){kind, text};
  return set_filters(q, f, q->nfilters + 1, note, err);
}

int cct_query_filter_remove(cct_query *q, size_t i, char **note, cct_err *err) {
  if (note) *note = NULL;
  if (i > q->nfilters) return cct_err_set(err, CCT_ENOTFOUND, "no filter %zu (%zu active)", i, q->nfilters);
  cct_filter *f = i ? filters_copy(q, i, 0, err) : calloc(1, sizeof *f);
  if (!f) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  return set_filters(q, f, i ? q->nfilters - 1 : 0, note, err);
}
