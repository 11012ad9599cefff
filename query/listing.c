/* listing.c: the archive listings a client prints ('runs', 'metrics'), run
 * look-up by number or title, and the user's own read-only SQL, all on the
 * session's connection, so that clients (the cctq shell) run no SQL of their
 * own.  The statements are those of schema/listing.sql. */
#include "query_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cct_query_listing(cct_query *q, int which, sqlite3_stmt **pst, cct_err *err) {
  sqlite3 *db = cct_query_db(q);
  *pst = NULL;
  const char *name = which == CCT_LIST_RUNS ? "runs" : which == CCT_LIST_METRICS ? "metrics" : NULL;
  if (!name) return cct_err_set(err, CCT_EUSAGE, "no listing %d", which);
  int rc = cct_schema_prepare_named(db, cct_sql_listing, name, pst, err);
  if (rc) return rc;
  if (which == CCT_LIST_RUNS) {
    sqlite3_bind_int64(*pst, 1, cct_query_run(q));
  } else {
    sqlite3_bind_int64(*pst, 1, cct_query_run(q));
    const char *m = cct_query_metric(q);
    sqlite3_bind_text(*pst, 2, m ? m : "", -1, SQLITE_TRANSIENT);
  }
  return CCT_OK;
}

int cct_query_run_count(cct_query *q) {
  sqlite3_stmt *st = NULL;
  int n = -1;
  if (cct_schema_prepare_named(cct_query_db(q), cct_sql_listing, "run_count", &st, NULL) == CCT_OK &&
      cct_step(st, NULL) == CCT_STEP_ROW) /* -1 on any failure */
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

int cct_query_find_run(cct_query *q, const char *word, int *run, cct_err *err) {
  sqlite3 *db = cct_query_db(q);
  sqlite3_stmt *st = NULL;
  char list[256] = "", *end = NULL;
  int n = 0;
  long num = strtol(word, &end, 10);
  if (!*word || *end || num <= 0 || num > 1000000000) num = -1;
  *run = 0;
  int rc = cct_schema_prepare_named(db, cct_sql_listing, "find_run", &st, err);
  if (rc) return rc;
  sqlite3_bind_int(st, 1, (int)num);
  sqlite3_bind_text(st, 2, word, -1, SQLITE_STATIC);
  while ((rc = cct_step(st, err)) == CCT_STEP_ROW) {
    *run = sqlite3_column_int(st, 0);
    size_t l = strlen(list);
    if (l + 16 < sizeof list) snprintf(list + l, sizeof list - l, "%s%d", n ? ", " : "", *run);
    n++;
  }
  sqlite3_finalize(st);
  if (rc) return rc;
  if (n == 1) return CCT_OK;
  *run = 0;
  if (n > 1)
    return cct_err_set(err, CCT_ENOTFOUND, "several runs are titled '%s' (runs %s): name one by number", word,
                       list);
  return cct_err_set(err, CCT_ENOTFOUND, "no run '%s' in the archive; 'runs' lists them", word);
}

int cct_query_prepare_sql(cct_query *q, const char *sql, int len, sqlite3_stmt **pst, int *offset, cct_err *err) {
  sqlite3 *db = cct_query_db(q);
  *pst = NULL;
  if (offset) *offset = -1;
  if (sqlite3_prepare_v2(db, sql, len, pst, NULL) != SQLITE_OK) {
    if (offset) *offset = sqlite3_error_offset(db);
    return cct_err_set(err, CCT_ESQL, "%s in 'sql'", sqlite3_errmsg(db));
  }
  if (!*pst) return cct_err_set(err, CCT_EUSAGE, "need a STATEMENT");
  if (!sqlite3_stmt_readonly(*pst)) {
    sqlite3_finalize(*pst);
    *pst = NULL;
    return cct_err_set(err, CCT_EUSAGE, "not read-only");
  }
  return CCT_OK;
}
