/* archive.c: managing the runs of an existing archive without the shell
 * (cctingest --list and --remove). */
#include "cct_ingest.h"
#include "cct_schema.h"

int cct_archive_list(const char *path, void (*fn)(void *arg, const cct_run_info *run), void *arg, cct_err *err) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rc = cct_schema_open(path, CCT_OPEN_READONLY, &db, err);
  if (!rc) rc = cct_schema_prepare_named(db, cct_sql_ingest, "list_runs", &st, err);
  while (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW) {
    rc = CCT_OK;
    cct_run_info r = {sqlite3_column_int(st, 0),
                      (const char *)sqlite3_column_text(st, 1),
                      (const char *)sqlite3_column_text(st, 2),
                      (const char *)sqlite3_column_text(st, 3),
                      (const char *)sqlite3_column_text(st, 7),
                      sqlite3_column_int64(st, 4),
                      sqlite3_column_int64(st, 5),
                      sqlite3_column_int64(st, 6),
                      sqlite3_column_int64(st, 8)};
    fn(arg, &r);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return rc;
}

int cct_archive_remove(const char *path, int run, cct_err *err) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rc = cct_schema_open(path, CCT_OPEN_WRITE, &db, err);
  if (!rc) rc = cct_schema_run_named(db, cct_sql_ingest, "begin", 0, err);
  if (!rc) rc = cct_schema_prepare_named(db, cct_sql_ingest, "has_run", &st, err);
  if (!rc) {
    sqlite3_bind_int(st, 1, run);
    rc = cct_step(st, err);
    if (rc == CCT_STEP_ROW) rc = CCT_OK;
    else if (rc == CCT_STEP_DONE) rc = cct_err_set(err, CCT_ENOTFOUND, "'%s' has no run %d", path, run);
    sqlite3_finalize(st);
  }
  if (!rc) rc = cct_schema_run_named(db, cct_sql_ingest, "delete_run", run, err);
  if (!rc) rc = cct_schema_run_named(db, cct_sql_ingest, "commit", 0, err);
  if (db && !sqlite3_get_autocommit(db)) cct_schema_run_named(db, cct_sql_ingest, "rollback", 0, NULL);
  sqlite3_close(db);
  return rc;
}
