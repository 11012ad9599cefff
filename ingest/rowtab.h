/* rowtab.h: the rows the ingest writer queues for its SQL thread, and the
 * eponymous virtual table 'cct_rows' that hands a batch of them to one
 * 'INSERT ... SELECT ... FROM cct_rows' of ingest.sql.  One statement step
 * per batch instead of a bind, step and reset per row: SQLite's per-row
 * cost of a bulk load is then the B-tree insert alone. */
#ifndef CCT_ROWTAB_H
#define CCT_ROWTAB_H

#include "cct.h"
#include "cct_sqlite.h"

#include <stddef.h>
#include <stdint.h>

struct cct_writer;

/* One value of a row: cct_rows column aN is a[N - 1]. */
enum { ARG_NULL, ARG_INT, ARG_DOUBLE, ARG_TEXT, ARG_BLOB };
typedef struct row_arg {
  int type;  /* ARG_* */
  int n;     /* bytes of a blob */
  int64_t i; /* ARG_INT */
  double d;  /* ARG_DOUBLE */
  void *p;   /* ARG_TEXT / ARG_BLOB, owned by the row (malloc'd) */
} row_arg;

enum { ROW_MAX_ARGS = 25 };

/* A deferred insert: the statement and its values.  A statement whose SQL
 * reads cct_rows (no bound parameters) takes its values from the batch; any
 * other is executed with the values bound as parameters 1..nargs. */
typedef struct row {
  int (*fn)(struct cct_writer *w, cct_err *err); /* instead of a statement: work run by the SQL thread */
  sqlite3_stmt *st;                             /* a statement of the writer */
  const char *what;                             /* table name, for messages */
  int nargs;                                    /* values in use, 1..nargs */
  row_arg a[ROW_MAX_ARGS];
} row;

/* The batch that cct_rows serves: n rows, read in order. */
typedef struct cct_rowtab {
  row **rows;
  size_t n;
} cct_rowtab;

/* Registers cct_rows on db, serving *batch (which must outlive db's
 * statements).  Returns the SQLite code. */
int cct_rowtab_register(sqlite3 *db, cct_rowtab *batch);

#endif
