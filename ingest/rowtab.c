/* rowtab.c: the eponymous virtual table 'cct_rows' of rowtab.h.  It has
 * columns a1..a25 and serves the rows of one batch in order; the writer sets
 * the batch, steps one INSERT ... SELECT, and frees the rows. */
#include "rowtab.h"

#include <string.h>

typedef struct rows_cursor {
  sqlite3_vtab_cursor base;
  const cct_rowtab *batch;
  size_t i;
} rows_cursor;

typedef struct rows_vtab {
  sqlite3_vtab base;
  const cct_rowtab *batch;
} rows_vtab;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, "
                                    "a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25)");
  if (rc != SQLITE_OK) return rc;
  rows_vtab *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->batch = aux;
  *pp = &t->base;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *t) {
  sqlite3_free(t);
  return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *t, sqlite3_index_info *info) {
  (void)t;
  info->estimatedCost = 1000; /* one full pass, never a constraint */
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *t, sqlite3_vtab_cursor **pc) {
  rows_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->batch = ((rows_vtab *)t)->batch;
  *pc = &c->base;
  return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *idxs, int argc, sqlite3_value **argv) {
  (void)idx, (void)idxs, (void)argc, (void)argv;
  ((rows_cursor *)c)->i = 0;
  return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c) {
  ((rows_cursor *)c)->i++;
  return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c) {
  const rows_cursor *rc = (const rows_cursor *)c;
  return rc->i >= rc->batch->n;
}

/* Values are handed over without a copy (SQLITE_STATIC): the row outlives the statement step. */
static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col) {
  const rows_cursor *rc = (const rows_cursor *)c;
  const row *r = rc->batch->rows[rc->i];
  const row_arg *a = &r->a[col];
  if (col >= r->nargs) return SQLITE_OK; /* NULL */
  switch (a->type) {
  case ARG_INT: sqlite3_result_int64(ctx, a->i); break;
  case ARG_DOUBLE: sqlite3_result_double(ctx, a->d); break;
  case ARG_TEXT: sqlite3_result_text(ctx, a->p, -1, SQLITE_STATIC); break;
  case ARG_BLOB: sqlite3_result_blob(ctx, a->p, a->n, SQLITE_STATIC); break;
  default: break; /* NULL */
  }
  return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *id) {
  *id = (sqlite3_int64)((rows_cursor *)c)->i;
  return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: no CREATE VIRTUAL TABLE */
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

int cct_rowtab_register(sqlite3 *db, cct_rowtab *batch) {
  return sqlite3_create_module_v2(db, "cct_rows", &rows_module, batch, NULL);
}
