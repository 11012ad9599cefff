/* keys.c: the private table-valued function cct_keys(P) of query_int.h.  Its
 * rows are (i, key, lo, hi) for the i = 0..n-1 tuples of a C array that the caller binds
 * as a pointer of type "cct_keys" (SQLite's pointer-passing interface, as in
 * carray).  A statement joining it to a table makes many rowid look-ups one
 * statement run instead of a reset, bind and step per key: the look-ups of a
 * view (values of a level or of a center's occurrences, caller frames) cost
 * the B-tree search alone. */
#include "cct_util.h"
#include "query_int.h"

#include <string.h>

enum { COL_I, COL_KEY, COL_LO, COL_HI, COL_ARRAY }; /* COL_ARRAY: the hidden argument */

typedef struct keys_cursor {
  sqlite3_vtab_cursor base;
  const qkeys *k;
  size_t i;
} keys_cursor;

static int keys_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)aux, (void)argc, (void)argv, (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(i INTEGER, key INTEGER, lo INTEGER, hi INTEGER, array HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  *pp = t;
  return SQLITE_OK;
}

static int keys_disconnect(sqlite3_vtab *t) {
  sqlite3_free(t);
  return SQLITE_OK;
}

/* Only with the array given (cct_keys(?)): without it there are no rows to serve. */
static int keys_best_index(sqlite3_vtab *t, sqlite3_index_info *info) {
  (void)t;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn == COL_ARRAY && c->op == SQLITE_INDEX_CONSTRAINT_EQ && c->usable) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->estimatedCost = 100;
      info->estimatedRows = 100;
      info->orderByConsumed = info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_I && !info->aOrderBy[0].desc;
      return SQLITE_OK;
    }
  }
  return SQLITE_CONSTRAINT;
}

static int keys_open(sqlite3_vtab *t, sqlite3_vtab_cursor **pc) {
  (void)t;
  keys_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *pc = &c->base;
  return SQLITE_OK;
}

static int keys_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int keys_filter(sqlite3_vtab_cursor *c, int idx, const char *idxs, int argc, sqlite3_value **argv) {
  (void)idx, (void)idxs;
  keys_cursor *kc = (keys_cursor *)c;
  kc->k = argc == 1 ? sqlite3_value_pointer(argv[0], "cct_keys") : NULL; /* NULL: not our pointer, no rows */
  kc->i = 0;
  return SQLITE_OK;
}

static int keys_next(sqlite3_vtab_cursor *c) {
  ((keys_cursor *)c)->i++;
  return SQLITE_OK;
}

static int keys_eof(sqlite3_vtab_cursor *c) {
  const keys_cursor *kc = (const keys_cursor *)c;
  return !kc->k || kc->i >= kc->k->n;
}

static int keys_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col) {
  const keys_cursor *kc = (const keys_cursor *)c;
  int w = kc->k->width > 0 ? kc->k->width : 1;
  if (col == COL_I) sqlite3_result_int64(ctx, (sqlite3_int64)kc->i);
  else if (col >= COL_KEY && col <= COL_HI && col - COL_KEY < w) sqlite3_result_int64(ctx, kc->k->v[kc->i * (size_t)w + (size_t)(col - COL_KEY)]);
  return SQLITE_OK; /* past the width, and the hidden column: NULL */
}

static int keys_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *id) {
  *id = (sqlite3_int64)((keys_cursor *)c)->i;
  return SQLITE_OK;
}

static const sqlite3_module keys_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous only: no CREATE VIRTUAL TABLE */
    .xConnect = keys_connect,
    .xBestIndex = keys_best_index,
    .xDisconnect = keys_disconnect,
    .xOpen = keys_open,
    .xClose = keys_close,
    .xFilter = keys_filter,
    .xNext = keys_next,
    .xEof = keys_eof,
    .xColumn = keys_column,
    .xRowid = keys_rowid,
};

int q_keys_register(sqlite3 *db) { return sqlite3_create_module_v2(db, "cct_keys", &keys_module, NULL, NULL); }

void q_keys_bind(sqlite3_stmt *st, int param, const qkeys *k) { sqlite3_bind_pointer(st, param, cct_unconst(k), "cct_keys", NULL); }
