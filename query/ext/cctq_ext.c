/* cctq_ext.c: a SQLite loadable extension that gives any SQLite client the
 * centered views of a cctq archive as table-valued functions:
 *
 *   SELECT * FROM cct_topdown('MPI_Allreduce', 3);        -- center, depth[, run[, metric[, filters]]]
 *   SELECT * FROM cct_bottomup('glob MPI_*', 2, 1);
 *   SELECT * FROM cct_flat(20);                            -- rows[, run[, metric[, filters]]]
 *   SELECT * FROM cct_flat(20, NULL, 'GKER (sec)');
 *   SELECT * FROM cct_flat(10, NULL, NULL, 'hide glob MPIR_*; drop foo');
 *
 * filters are the shell's 'filter' commands without the word, separated by ';'.
 * The center is one item in the syntax of the shell's `center` command (NULL or
 * '' for none); the run NULL is the last run; the metric is a name as for the
 * shell's `metric` command, NULL for the default metric.  Rows are those of the cct_query library, so they are the same
 * as the shell's for the same center and depth.  Load it with
 * `.load ./build/cctq` in the sqlite3 program on an open archive.
 *
 * The library code compiled into cctq.so is built with CCT_SQLITE_EXTENSION
 * (common/cct_sqlite.h): every SQLite call goes through the host's sqlite3_api
 * and the views read through the host's own connection, so there is one SQLite
 * on the file, the host's.  Only sqlite3_cctq_init is exported. */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include "cct_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Output columns, then the hidden argument columns. */
static const char schema[] =
    "CREATE TABLE x(handle INTEGER, depth INTEGER, kind TEXT, name TEXT, file TEXT, line INTEGER, module TEXT, "
    "callsite TEXT, center INTEGER, inclusive REAL, exclusive REAL, path TEXT, metric TEXT, "
    "arg1 HIDDEN, arg2 HIDDEN, arg3 HIDDEN, arg4 HIDDEN, arg5 HIDDEN)";
enum { COL_HANDLE, COL_DEPTH, COL_KIND, COL_NAME, COL_FILE, COL_LINE, COL_MODULE, COL_CALLSITE, COL_CENTER,
       COL_INCLUSIVE, COL_EXCLUSIVE, COL_PATH, COL_METRIC, COL_ARG1, COL_ARG2, COL_ARG3, COL_ARG4, COL_ARG5 };
#define NARGS 5

typedef struct cct_vtab {
  sqlite3_vtab base; /* must come first */
  sqlite3 *db;       /* the host's connection that loaded us: its main database is the archive */
  int view;          /* CCT_VIEW_TOPDOWN, _BOTTOMUP or _FLAT */
} cct_vtab;

typedef struct cct_cursor {
  sqlite3_vtab_cursor base; /* must come first */
  cct_query *q;             /* session on the host's connection, opened per query */
  cct_center *center;       /* the call's center (NULL: none) */
  cct_view *v;              /* computed rows */
  size_t i;                 /* current row */
} cct_cursor;

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db, schema);
  if (rc != SQLITE_OK) return rc;
  cct_vtab *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->db = db;
  t->view = (int)(intptr_t)aux;
  *pp = &t->base;
  return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *p) {
  sqlite3_free(p);
  return SQLITE_OK;
}

/* Arguments are equality constraints on the hidden columns, passed in order. */
static int vt_best_index(sqlite3_vtab *p, sqlite3_index_info *info) {
  (void)p;
  int n = 0, pos[NARGS] = {-1, -1, -1, -1, -1};
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn < COL_ARG1) continue;
    if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ) return SQLITE_CONSTRAINT;
    pos[c->iColumn - COL_ARG1] = i;
  }
  for (int k = 0; k < NARGS && pos[k] >= 0; k++) {
    info->aConstraintUsage[pos[k]].argvIndex = ++n;
    info->aConstraintUsage[pos[k]].omit = 1;
  }
  info->idxNum = n;
  info->estimatedCost = 1000;
  return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *p, sqlite3_vtab_cursor **pp) {
  (void)p;
  cct_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}

static void cursor_reset(cct_cursor *c) {
  cct_view_free(c->v);
  cct_center_free(c->center);
  c->center = NULL;
  cct_query_close(c->q);
  c->v = NULL;
  c->q = NULL;
  c->i = 0;
}

static int vt_close(sqlite3_vtab_cursor *p) {
  cursor_reset((cct_cursor *)p);
  sqlite3_free(p);
  return SQLITE_OK;
}

static int fail(sqlite3_vtab_cursor *p, const char *msg) {
  sqlite3_free(p->pVtab->zErrMsg);
  p->pVtab->zErrMsg = sqlite3_mprintf("%s", msg);
  return SQLITE_ERROR;
}

/* Adds the filters of text ('KIND ITEM; KIND ITEM', ';' outside quotes) to the
 * call's session.  Returns 0, or an error with err set. */
static int add_filters(cct_query *q, const char *text, cct_err *err) {
  char *s = sqlite3_mprintf("%s", text), *p = s;
  if (!s) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int rc = CCT_OK;
  while (!rc && *p) {
    char *end = p, quote = 0;
    for (; *end && (quote || *end != ';'); end++)
      if (*end == '\'' || *end == '"') quote = quote == *end ? 0 : quote ? quote : *end;
    char next = *end;
    *end = 0;
    p += strspn(p, " \t\n");
    size_t w = strcspn(p, " \t\n");
    char *item = p + w + strspn(p + w, " \t\n");
    for (char *e = item + strlen(item); e > item && strchr(" \t\n", e[-1]); e--) e[-1] = 0;
    if (*p) {
      char kind[16];
      snprintf(kind, sizeof kind, "%.*s", (int)(w < 15 ? w : 15), p);
      int k = cct_filter_kind(kind);
      rc = k < 0 ? cct_err_set(err, CCT_EUSAGE, "unknown filter '%s' (keep, drop, hide, prune, recursion)", kind)
                 : cct_query_filter_add(q, k, *item ? item : NULL, NULL, err);
    }
    p = next ? end + 1 : end;
  }
  sqlite3_free(s);
  return rc;
}

/* The view of the call's arguments, from the view core (cct_view_compute) on a
 * session over the host's connection: the session's own settings and '@N' rows
 * are not involved. */
static int vt_filter(sqlite3_vtab_cursor *p, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr, (void)argc;
  cct_cursor *c = (cct_cursor *)p;
  cct_vtab *t = (cct_vtab *)p->pVtab;
  cursor_reset(c);
  cct_err err = CCT_ERR_INIT;
  if (cct_query_open_db(t->db, &c->q, &err)) return fail(p, err.msg); /* the host's connection, not a second one */
  int flat = t->view == CCT_VIEW_FLAT;
  const char *center = !flat && idxNum >= 1 ? (const char *)sqlite3_value_text(argv[0]) : NULL;
  int depth = flat ? (idxNum >= 1 ? sqlite3_value_int(argv[0]) : 0) : (idxNum >= 2 ? sqlite3_value_int(argv[1]) : 3);
  int run_arg = flat ? 1 : 2, metric_arg = run_arg + 1, filter_arg = metric_arg + 1;
  if (idxNum > filter_arg && sqlite3_value_type(argv[filter_arg]) != SQLITE_NULL &&
      add_filters(c->q, (const char *)sqlite3_value_text(argv[filter_arg]), &err))
    return fail(p, err.msg);
  cct_view_spec spec;
  cct_view_spec_init(c->q, t->view, &spec);
  if (idxNum > run_arg && sqlite3_value_type(argv[run_arg]) != SQLITE_NULL) {
    spec.run = sqlite3_value_int(argv[run_arg]);
    spec.metric = NULL; /* that run's default */
  }
  if (idxNum > metric_arg && sqlite3_value_type(argv[metric_arg]) != SQLITE_NULL)
    spec.metric = (const char *)sqlite3_value_text(argv[metric_arg]);
  spec.center = NULL;
  if (center && *center) {
    if (cct_center_edit(c->q, spec.run, NULL, CCT_CENTER_SET, center, NULL, &c->center, &err)) return fail(p, err.msg);
    spec.center = c->center;
  }
  spec.depth = depth;
  spec.drop_zero = 1; /* the shell's rows: those of zero cost left out */
  spec.flat_kind = CCT_FLAT_FUNCTIONS;
  spec.flat_n = depth;
  return cct_view_compute(c->q, &spec, &c->v, &err) ? fail(p, err.msg) : SQLITE_OK;
}

static int vt_next(sqlite3_vtab_cursor *p) {
  ((cct_cursor *)p)->i++;
  return SQLITE_OK;
}

static int vt_eof(sqlite3_vtab_cursor *p) {
  cct_cursor *c = (cct_cursor *)p;
  return !c->v || c->i >= c->v->nrows;
}

static const char *kind_name(int kind) {
  static const char *const names[] = {"root", "function", "loop", "line", "instruction", "center", "file", "module"};
  return kind >= 0 && kind < 8 ? names[kind] : "unknown";
}

static int vt_column(sqlite3_vtab_cursor *p, sqlite3_context *ctx, int col) {
  cct_cursor *c = (cct_cursor *)p;
  const cct_row *r = &c->v->rows[c->i];
  switch (col) {
  case COL_HANDLE: sqlite3_result_int(ctx, r->handle); break;
  case COL_DEPTH: sqlite3_result_int(ctx, r->depth); break;
  case COL_KIND: sqlite3_result_text(ctx, kind_name(r->kind), -1, SQLITE_STATIC); break;
  case COL_NAME: sqlite3_result_text(ctx, r->name, -1, SQLITE_TRANSIENT); break;
  case COL_FILE: sqlite3_result_text(ctx, r->file, -1, SQLITE_TRANSIENT); break;
  case COL_LINE:
    if (r->line >= 0) sqlite3_result_int64(ctx, r->line);
    break;
  case COL_MODULE: sqlite3_result_text(ctx, r->module, -1, SQLITE_TRANSIENT); break;
  case COL_CALLSITE: sqlite3_result_text(ctx, r->callsite, -1, SQLITE_TRANSIENT); break;
  case COL_CENTER: sqlite3_result_int(ctx, r->center); break;
  case COL_INCLUSIVE:
    if (c->v->nmetrics) sqlite3_result_double(ctx, r->inclusive[0]);
    break;
  case COL_EXCLUSIVE:
    if (c->v->nmetrics) sqlite3_result_double(ctx, r->exclusive[0]);
    break;
  case COL_METRIC:
    if (c->v->nmetrics) sqlite3_result_text(ctx, c->v->metrics[0], -1, SQLITE_TRANSIENT);
    break;
  case COL_PATH: {
    const char **names = sqlite3_malloc64(((sqlite3_uint64)r->depth + 1) * sizeof *names);
    if (!names) return SQLITE_NOMEM;
    size_t np = cct_view_path(c->v, c->i, names);
    sqlite3_str *s = sqlite3_str_new(NULL);
    for (size_t d = 0; d < np; d++) sqlite3_str_appendf(s, "%s%s", d ? ";" : "", names[d]);
    sqlite3_free(names);
    int n = sqlite3_str_length(s);
    sqlite3_result_text(ctx, sqlite3_str_finish(s), n, sqlite3_free);
    break;
  }
  default: break; /* hidden argument columns read as NULL */
  }
  return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *p, sqlite_int64 *rowid) {
  *rowid = (sqlite_int64)((cct_cursor *)p)->i + 1;
  return SQLITE_OK;
}

static const sqlite3_module module = {
    .xConnect = vt_connect,   /* no xCreate: eponymous-only table-valued functions */
    .xBestIndex = vt_best_index,
    .xDisconnect = vt_disconnect,
    .xOpen = vt_open,
    .xClose = vt_close,
    .xFilter = vt_filter,
    .xNext = vt_next,
    .xEof = vt_eof,
    .xColumn = vt_column,
    .xRowid = vt_rowid,
};

/* Entry point, found by name from the file name 'cctq.so'.  Registers the
 * table-valued functions cct_topdown, cct_bottomup and cct_flat.
 * Returns SQLITE_OK or an SQLite error code. */
int sqlite3_cctq_init(sqlite3 *db, char **err, const sqlite3_api_routines *api);
#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
int sqlite3_cctq_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  int rc = sqlite3_create_module(db, "cct_topdown", &module, (void *)(intptr_t)CCT_VIEW_TOPDOWN);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "cct_bottomup", &module, (void *)(intptr_t)CCT_VIEW_BOTTOMUP);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "cct_flat", &module, (void *)(intptr_t)CCT_VIEW_FLAT);
  return rc;
}
