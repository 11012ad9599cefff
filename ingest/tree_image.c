/* tree_image.c: the packed tree image of a run (common/cct_tree.h) built from
 * the run's context rows and stored in the archive's tree_image table: by the
 * writer once the tree is written, and by 'cctingest --reindex' for the runs of
 * an archive of schema version 4 (cct_archive_reindex). */
#include "cct_ingest.h"
#include "cct_schema.h"
#include "cct_sqlite.h"
#include "cct_tree.h"
#include "ingest_int.h"

#include <stdlib.h>
#include <string.h>

int cct_tree_image_write(sqlite3 *db, int64_t run, int64_t nodes, cct_err *err) {
  sqlite3_stmt *st = NULL;
  cct_tree t;
  if (nodes < 1 || nodes > INT32_MAX) return cct_err_set(err, CCT_EUSAGE, "run %lld has %lld contexts: no tree image for that many", (long long)run, (long long)nodes);
  if (cct_tree_alloc(&t, (int32_t)nodes)) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  int rc = cct_schema_prepare_named(db, cct_sql_ingest, "tree_rows", &st, err);
  int64_t i = 0;
  if (!rc) sqlite3_bind_int64(st, 1, run);
  while (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW) {
    rc = CCT_OK;
    int64_t pre = sqlite3_column_int64(st, 0);
    if (i == 0) t.base = pre;
    if (i >= nodes || pre != t.base + i) {
      rc = cct_err_set(err, CCT_ECORRUPT, "run %lld: context numbers are not %lld consecutive ones", (long long)run, (long long)nodes);
      break;
    }
    /* pointers are pre numbers in the table, node indexes in the image */
#define PTR(c) (sqlite3_column_int64(st, c) < 0 ? -1 : (int32_t)(sqlite3_column_int64(st, c) - t.base))
    t.id[i] = sqlite3_column_int64(st, 1);
    t.parent[i] = PTR(2);
    t.last[i] = PTR(3);
    t.depth[i] = sqlite3_column_int(st, 4);
    t.frame[i] = PTR(5);
    t.fdepth[i] = sqlite3_column_int(st, 6);
    t.fparent[i] = PTR(7);
    t.ldepth[i] = sqlite3_column_int(st, 8);
    t.lparent[i] = PTR(9);
#undef PTR
    t.nframes[i] = sqlite3_column_int(st, 10);
    t.function[i] = sqlite3_column_int(st, 11);
    t.file[i] = sqlite3_column_int(st, 12);
    t.line[i] = sqlite3_column_int(st, 13);
    t.module[i] = sqlite3_column_int(st, 14);
    t.call_file[i] = sqlite3_column_int(st, 15);
    t.call_line[i] = sqlite3_column_int(st, 16);
    t.offset[i] = sqlite3_column_int64(st, 17);
    t.kind[i] = (uint8_t)sqlite3_column_int(st, 18);
    t.relation[i] = (uint8_t)sqlite3_column_int(st, 19);
    t.callsite[i] = (uint8_t)sqlite3_column_int(st, 20);
    t.incl[i] = sqlite3_column_double(st, 21);
    t.excl[i] = sqlite3_column_double(st, 22);
    t.lex[i] = sqlite3_column_double(st, 23);
    i++;
  }
  sqlite3_finalize(st);
  st = NULL;
  char why[256];
  if (!rc && i != nodes)
    rc = cct_err_set(err, CCT_ECORRUPT, "run %lld has %lld contexts, not %lld", (long long)run, (long long)i, (long long)nodes);
  if (!rc && cct_tree_check(&t, why, sizeof why))
    rc = cct_err_set(err, CCT_ECORRUPT, "run %lld: the context tree is inconsistent: %s", (long long)run, why);
  void *img = NULL;
  size_t size = 0;
  if (!rc && cct_tree_encode(&t, &img, &size)) rc = cct_err_set(err, CCT_ENOMEM, "out of memory");
  cct_tree_free(&t);
  if (!rc) rc = cct_schema_prepare_named(db, cct_sql_ingest, "insert_tree_image", &st, err);
  if (!rc) {
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_int(st, 2, CCT_TREE_VERSION);
    sqlite3_bind_int64(st, 3, nodes);
    sqlite3_bind_blob64(st, 4, img, size, SQLITE_STATIC);
    rc = cct_step(st, err);
  }
  sqlite3_finalize(st);
  free(img);
  return rc;
}

int cct_archive_reindex(const char *path, cct_err *err) {
  sqlite3 *db = NULL;
  sqlite3_stmt *st = NULL;
  int rc = cct_schema_open(path, CCT_OPEN_WRITE | CCT_OPEN_REINDEX, &db, err);
  if (!rc) rc = cct_schema_run_named(db, cct_sql_ingest, "begin", 0, err);
  if (!rc) rc = cct_schema_exec(db, cct_sql_base, err); /* the tables a version 4 archive lacks */
  if (!rc) rc = cct_schema_prepare_named(db, cct_sql_ingest, "list_runs", &st, err);
  while (!rc && (rc = cct_step(st, err)) == CCT_STEP_ROW)
    rc = cct_tree_image_write(db, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 4), err);
  sqlite3_finalize(st);
  if (!rc) rc = cct_schema_run_named(db, cct_sql_ingest, "reindex_done", 0, err);
  if (!rc) rc = cct_schema_run_named(db, cct_sql_ingest, "commit", 0, err);
  if (db && !sqlite3_get_autocommit(db)) cct_schema_run_named(db, cct_sql_ingest, "rollback", 0, NULL);
  sqlite3_close(db);
  return rc;
}
