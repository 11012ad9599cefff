/* test_ingest.c: unit tests of the ingest library: classic decoders, the id
 * map, schema checks on open, and the writer's numbering and outermost-rule
 * totals on a small tree built through the writer API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cct_schema.h"
#include "classic_int.h"
#include "idmap.h"
#include "ingest_int.h"
#include "test_tmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void split(const char *name, const char *base, const char *stat, int which) {
  char b[128], s[64];
  int w;
  cct_classic_split_metric(name, b, sizeof b, s, sizeof s, &w);
  assert_string_equal(b, base);
  assert_string_equal(s, stat);
  assert_int_equal(w, which);
}

static void test_split_metric(void **state) {
  (void)state;
  split("CPUTIME (usec):Sum (I)", "CPUTIME (usec)", "sum", CCT_INCLUSIVE);
  split("WALLCLOCK (us):Mean:num-src (E)", "WALLCLOCK (us)", "mean:num-src", CCT_EXCLUSIVE_LEX);
  split("WALLCLOCK (us):StdDev (I)", "WALLCLOCK (us)", "stddev", CCT_INCLUSIVE);
  split("CPUTIME (usec) (I)", "CPUTIME (usec)", "sum", CCT_INCLUSIVE);
  split("perf::task-clock:Min (E)", "perf::task-clock", "min", CCT_EXCLUSIVE_LEX);
  split("REALTIME (sec).[0,0]", "REALTIME (sec).[0,0]", "sum", -1);
}

static void test_profile_id(void **state) {
  (void)state;
  cct_profile_id id;
  cct_classic_profile_id("1.osu_allgather-000007-001-a8c00471-152584-0.metric-db", &id);
  assert_int_equal(id.rank, 7);
  assert_int_equal(id.thread, 1);
  assert_int_equal(id.node, 0xa8c00471);
  cct_classic_profile_id("odd.metric-db", &id);
  assert_int_equal(id.rank, -1);
}

static void test_metricdb_header(void **state) {
  (void)state;
  unsigned char h[32] = "HPCPROF-metricdb__00.10b";
  h[27] = 60;
  h[31] = 2;
  uint32_t n = 0, m = 0;
  const char *why = NULL;
  assert_int_equal(cct_classic_metricdb_header(h, 32, &n, &m, &why), 0);
  assert_int_equal(n, 60);
  assert_int_equal(m, 2);
  assert_int_equal(cct_classic_metricdb_header(h, 31, &n, &m, &why), -1);
  assert_string_equal(why, "truncated header");
  h[23] = 'l';
  assert_int_equal(cct_classic_metricdb_header(h, 32, &n, &m, &why), -1);
  assert_non_null(strstr(why, "big-endian"));
}

/* Writes v big-endian into the n bytes at p. */
static void put_be(unsigned char *p, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; i--, v >>= 8) p[i] = (unsigned char)v;
}

/* hpcviewer's merged metric file index (mdb.c): a hand-made header of two
 * embedded files of 32 + 16 bytes each, in a file of 8 + 32 + 96 + 8 bytes. */
static void test_mdb_index(void **state) {
  (void)state;
  unsigned char head[8 + 32], tail[8];
  cct_mdb_entry e[2];
  char why[300];
  memset(head, 0, sizeof head);
  put_be(head, 2, 4); /* multi-threaded */
  put_be(head + 4, 2, 4);
  put_be(head + 8 + 4, 0, 4), put_be(head + 8 + 8, 40, 8);       /* rank 0 thread 0 at 40 */
  put_be(head + 24 + 4, 1, 4), put_be(head + 24 + 8, 40 + 48, 8); /* rank 0 thread 1 at 88 */
  put_be(tail, CCT_MDB_MARKER, 8);
  uint64_t size = 40 + 96 + 8;
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), 0);
  assert_int_equal(e[0].offset, 40);
  assert_int_equal(e[0].size, 48);
  assert_int_equal(e[1].thread, 1);
  assert_int_equal(e[1].offset, 88);
  assert_int_equal(e[1].size, 48);
  /* the last file runs to the marker: a file 8 bytes longer makes it 56 */
  assert_int_equal(cct_mdb_check_index(head, size + 8, tail, e, why, sizeof why), 0);
  assert_int_equal(e[1].size, 56);
  /* lies: no marker, overlapping offsets, an offset past the data, a file shorter than a header */
  tail[7] ^= 1;
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), -1);
  assert_non_null(strstr(why, "no end marker"));
  tail[7] ^= 1;
  put_be(head + 24 + 8, 60, 8);
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), -1);
  assert_string_equal(why, "header says file 2 of 2 starts at offset 60, before the end of the previous file at 72");
  put_be(head + 24 + 8, 200, 8);
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), -1);
  assert_non_null(strstr(why, "past the end of the data (136)"));
  put_be(head + 24 + 8, 120, 8); /* leaves 16 bytes for the second file */
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), -1);
  assert_non_null(strstr(why, "past the end"));
  put_be(head + 24 + 8, 88, 8);
  put_be(head + 8 + 8, 48, 8); /* the first file must follow the index */
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), -1);
  assert_string_equal(why, "header says file 1 of 2 starts at offset 48, expected 40");
  put_be(head + 8 + 8, 40, 8);
  put_be(head, 4, 4);
  assert_int_equal(cct_mdb_check_index(head, size, tail, e, why, sizeof why), -1);
  assert_non_null(strstr(why, "type flags 0x4"));
}

static void test_idmap(void **state) {
  (void)state;
  cct_idmap m = CCT_IDMAP_INIT;
  int added;
  for (int64_t i = 0; i < 100000; i++) assert_non_null(cct_idmap_put(&m, i, i & 7, i * 3, &added));
  assert_int_equal(m.count, 100000);
  assert_int_equal(*cct_idmap_get(&m, 4242, 4242 & 7), 4242 * 3);
  assert_null(cct_idmap_get(&m, 4242, 1));
  assert_int_equal(*cct_idmap_put(&m, 5, 5, 0, &added), 15);
  assert_int_equal(added, 0);
  cct_idmap_release(&m);
  assert_null(cct_idmap_get(&m, 1, 1));
}

static void test_schema_checks(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/cct-test-schema-XXXXXX", test_tmp_root());
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  sqlite3 *db = NULL;
  cct_err err = CCT_ERR_INIT;
  /* An empty file becomes an archive when opened for writing... */
  assert_int_equal(cct_schema_open(path, CCT_OPEN_WRITE, &db, &err), CCT_OK);
  assert_int_equal(cct_schema_exec(db, "PRAGMA user_version = 99", &err), CCT_OK);
  sqlite3_close(db);
  /* ...a newer schema version is refused... */
  assert_int_equal(cct_schema_open(path, CCT_OPEN_READONLY, &db, &err), CCT_ESCHEMA);
  assert_non_null(strstr(err.msg, "schema version 99"));
  assert_null(db);
  /* ...and so is an older one (version 1 had one function row per database record) */
  assert_int_equal(cct_schema_open(path, CCT_OPEN_WRITE, &db, &err), CCT_ESCHEMA);
  db = NULL;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  db = NULL;
  err = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_schema_open(path, CCT_OPEN_READONLY, &db, &err), CCT_ESCHEMA);
  assert_non_null(strstr(err.msg, "schema version 1 "));
  assert_non_null(strstr(err.msg, "re-ingest"));
  assert_null(db);
  /* ...and so is a SQLite file of another application. */
  unlink(path);
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL);
  sqlite3_close(db);
  err = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_schema_open(path, CCT_OPEN_READONLY, &db, &err), CCT_ESCHEMA);
  assert_non_null(strstr(err.msg, "is not a cctq archive"));
  unlink(path);
  char side[600]; /* the read-only opens of the WAL archive above leave its -wal and -shm */
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
  int len = 0;
  const char *sql = cct_schema_named(cct_sql_ingest, "insert_run", &len);
  assert_non_null(sql);
  assert_non_null(strstr(sql, "INSERT INTO run"));
  assert_null(cct_schema_named(cct_sql_ingest, "insert", &len));
}

/* enter a context through the writer */
static void enter(cct_writer *w, int64_t id, int kind, int rel, int64_t fn, int64_t line, double incl, double excl) {
  cct_context c = {id, kind, rel, fn, CCT_NONE, line, CCT_NONE, 0, 0, 0};
  assert_int_equal(cct_writer_enter(w, &c), CCT_OK);
  if (incl) assert_int_equal(cct_writer_value(w, 0, CCT_INCLUSIVE, incl), CCT_OK);
  if (excl) assert_int_equal(cct_writer_value(w, 0, CCT_EXCLUSIVE, excl), CCT_OK);
}

/* Writes this tree (inclusive/exclusive) into a new run at path and returns the writer:
 *   root 10 > main(1) 10/1 > f(2) 9/2 > { line 9 (1/1), f(2) 6/3 > f(2) 3/3 }
 *                    main > call-site line 12 > main(16) 0 */
static cct_writer *write_tree(const char *path) {
  cct_writer *w = NULL;
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(cct_writer_open(path, "/tmp", "classic", "t", "d1", 0, 0, &w, &err), CCT_OK);
  assert_int_equal(cct_writer_function(w, 1, "main", CCT_NONE, CCT_NONE, CCT_NONE), CCT_OK);
  assert_int_equal(cct_writer_function(w, 2, "ns::C::f(int)", CCT_NONE, CCT_NONE, CCT_NONE), CCT_OK);
  assert_int_equal(cct_writer_metric(w, "T (s)", "sum", NULL, 0, &err), 0);
  enter(w, 1, CCT_KIND_ROOT, CCT_REL_LEXICAL, CCT_NONE, CCT_NONE, 10, 0);
  enter(w, 10, CCT_KIND_FUNCTION, CCT_REL_CALL, 1, CCT_NONE, 10, 1);
  enter(w, 11, CCT_KIND_FUNCTION, CCT_REL_CALL, 2, CCT_NONE, 9, 2);
  enter(w, 12, CCT_KIND_LINE, CCT_REL_LEXICAL, CCT_NONE, 9, 1, 1);
  assert_int_equal(cct_writer_exit(w), CCT_OK);
  enter(w, 13, CCT_KIND_FUNCTION, CCT_REL_CALL, 2, CCT_NONE, 6, 3);
  enter(w, 14, CCT_KIND_FUNCTION, CCT_REL_CALL, 2, CCT_NONE, 3, 3);
  for (int i = 0; i < 3; i++) assert_int_equal(cct_writer_exit(w), CCT_OK);
  cct_context cs = {15, CCT_KIND_LINE, CCT_REL_LEXICAL, CCT_NONE, CCT_NONE, 12, CCT_NONE, 0, 1, 0};
  assert_int_equal(cct_writer_enter(w, &cs), CCT_OK);
  enter(w, 16, CCT_KIND_FUNCTION, CCT_REL_CALL, 1, CCT_NONE, 0, 0);
  for (int i = 0; i < 4; i++) assert_int_equal(cct_writer_exit(w), CCT_OK);
  return w;
}

static void test_writer_numbering(void **state) {
  (void)state;
  char path[512];
  snprintf(path, sizeof path, "%s/cct-test-writer-XXXXXX", test_tmp_root());
  int fd = mkstemp(path);
  close(fd);
  unlink(path);
  cct_err err = CCT_ERR_INIT;
  cct_ingest_stats st;
  /* a context after the root is closed is refused, the error sticks and nothing is written */
  cct_writer *w = write_tree(path);
  cct_context late = {99, CCT_KIND_LINE, CCT_REL_LEXICAL, CCT_NONE, CCT_NONE, 1, CCT_NONE, 0, 0, 0};
  assert_int_equal(cct_writer_enter(w, &late), CCT_ECORRUPT);
  assert_int_equal(cct_writer_commit(w, &st, &err), CCT_ECORRUPT);
  assert_int_equal(access(path, F_OK), -1);

  /* again, without the late context */
  err = (cct_err)CCT_ERR_INIT;
  w = write_tree(path);
  assert_int_equal(cct_writer_commit(w, &st, &err), CCT_OK);
  assert_int_equal(st.contexts, 8);

  sqlite3 *db = NULL;
  assert_int_equal(cct_schema_open(path, CCT_OPEN_READONLY, &db, &err), CCT_OK);
  sqlite3_stmt *q = NULL;
  assert_int_equal(sqlite3_prepare_v2(db,
                                      "SELECT group_concat(id || ':' || pre || '-' || last || '/' || frame || '/' || fdepth || "
                                      "'/' || ifnull(fparent, '') || '/' || ldepth || '/' || ifnull(lparent, ''), ' ') "
                                      "FROM (SELECT * FROM context ORDER BY pre)",
                                      -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  /* id:pre-last/frame/fdepth/fparent/ldepth/lparent, worked out by hand from the tree above
   * (frame, fparent and lparent name contexts by pre: ids 1, 10, 11, 13, 14, 16 are pre 0, 1,
   * 2, 4, 5, 7); 16 is the callee of call-site line 15, so it takes the line's level and lparent */
  assert_string_equal((const char *)sqlite3_column_text(q, 0),
                      "1:0-7/0/0//0/ 10:1-7/1/1/0/1/0 11:2-5/2/2/1/2/1 12:3-3/2/2/2/3/2 "
                      "13:4-5/4/3/2/3/2 14:5-5/5/4/4/4/4 15:6-7/1/1/1/2/1 16:7-7/7/2/1/2/1");
  sqlite3_finalize(q);
  /* f's flat inclusive counts only the outermost f (9), not 6 and 3 nested in it;
   * exclusive adds all three (2 + 3 + 3); class/namespace parsed from the name */
  assert_int_equal(sqlite3_prepare_v2(db,
                                      "SELECT t.inclusive, t.exclusive, f.class, f.namespace FROM scope_total t "
                                      "JOIN function f ON f.id = t.key WHERE t.kind = 0 AND f.name LIKE '%f(int)'",
                                      -1, &q, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(q), SQLITE_ROW);
  assert_true(sqlite3_column_double(q, 0) == 9.0);
  assert_true(sqlite3_column_double(q, 1) == 8.0);
  assert_string_equal((const char *)sqlite3_column_text(q, 2), "ns::C");
  assert_string_equal((const char *)sqlite3_column_text(q, 3), "ns");
  sqlite3_finalize(q);
  sqlite3_close(db);
  unlink(path);
  char side[600];
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_split_metric), cmocka_unit_test(test_profile_id), cmocka_unit_test(test_metricdb_header),
      cmocka_unit_test(test_mdb_index),
      cmocka_unit_test(test_idmap),        cmocka_unit_test(test_schema_checks), cmocka_unit_test(test_writer_numbering),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
