/* test_numbers.c: the numbers of issue 11 on real databases of tests/data
 * (function identity, the exclusive rule O' for loops and lines, names with
 * hpcprof's ' [module]' decoration, the source view's marks and center share,
 * the truth of 'stats').  Expected values are read by hand from the databases
 * (the figures quoted in the comments) or computed with plain SQL on the
 * public views; each test failed on the code before the fix it covers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_query.h"
#include "query_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "test_view.h"

static void center(cct_query *q, int op, const char *item) {
  cct_err e = CCT_ERR_INIT;
  if (cct_center_apply(q, op, item, &e)) fail_msg("center '%s': %s", item, e.msg);
}

static cct_view *view(cct_query *q, const char *which, int arg, int n) {
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  int rc = !strcmp(which, "topdown")    ? test_view(q, CCT_VIEW_TOPDOWN, arg, 0, &v, &e)
           : !strcmp(which, "bottomup") ? test_view(q, CCT_VIEW_BOTTOMUP, arg, 0, &v, &e)
                                        : test_view(q, CCT_VIEW_FLAT, arg, n, &v, &e);
  if (rc) fail_msg("%s: %s", which, e.msg);
  return v;
}

/* Number of rows of v at depth named name; *first receives the first one. */
static int rows_named(const cct_view *v, int depth, const char *name, const cct_row **first) {
  int n = 0;
  for (size_t i = 0; i < v->nrows; i++)
    if ((depth < 0 || v->rows[i].depth == depth) && !strcmp(v->rows[i].name, name)) {
      if (!n++ && first) *first = &v->rows[i];
    }
  return n;
}

/* One integer from a SQL query on the archive of q (?1 = the run). */
static long long sql_int(cct_query *q, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(cct_query_db(q), sql, -1, &st, NULL) != SQLITE_OK)
    fail_msg("%s: %s", sql, sqlite3_errmsg(cct_query_db(q)));
  sqlite3_bind_int(st, 1, cct_query_run(q));
  long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return v;
}

/* ---- 1. function identity ---- */

static void test_identity(void **state) {
  (void)state;
  /* v4-hpcviewer-lmp-openmp: meta.db has two function records 'do_wait' (libgomp.so.1.0.0,
   * wait.h:66), the flat view used to show them as 76.056 and 25.384 s; one row now, 101.44 s. */
  cct_query *q = test_open("v4-hpcviewer-lmp-openmp", 1);
  assert_int_equal(sql_int(q, "SELECT count(*) FROM functions WHERE run = ?1 AND name = 'do_wait'"), 1);
  assert_int_equal(sql_int(q, "SELECT count(*) FROM (SELECT 1 FROM functions WHERE run = ?1 "
                              "GROUP BY name, module, file, line HAVING count(*) > 1)"), 0);
  cct_view *v = view(q, "flat", CCT_FLAT_FUNCTIONS, 0);
  const cct_row *r = NULL;
  assert_int_equal(rows_named(v, 0, "do_wait", &r), 1);
  if (fabs(r->inclusive[0] - (76.056 + 25.384)) > 0.002) fail_msg("flat do_wait %g, expected 101.44", r->inclusive[0]);
  char item[32];
  snprintf(item, sizeof item, "@%d", r->handle);
  cct_view_free(v);
  center(q, CCT_CENTER_SET, "do_wait");
  long long occ = cct_center_occurrences(q, 0);
  v = view(q, "topdown", 3, 0);
  assert_int_equal(rows_named(v, 1, "do_spin", NULL), 1); /* was twice, as siblings */
  if (fabs(v->rows[0].inclusive[0] - (76.056 + 25.384)) > 0.002) fail_msg("center do_wait %g", v->rows[0].inclusive[0]);
  cct_view_free(v);
  /* '@N' of the flat row is the whole function, not one of its records */
  v = view(q, "flat", CCT_FLAT_FUNCTIONS, 0);
  center(q, CCT_CENTER_SET, item);
  assert_int_equal(cct_center_occurrences(q, 0), occ);
  cct_view_free(v);
  cct_query_close(q);

  /* classic-hpcviewer-gauss: Pr i=1788 (procedure 94, file 94) and Pr i=1790 (procedure 103,
   * file 103) are both 'main' at gauss_mpi.cpp:159 of gauss_mpi (files 94 and 103 have the same
   * path): one row under main with 2996 + 29790 = 32786; Pr i=2965 at line 178 stays apart. */
  q = test_open("classic-hpcviewer-gauss", 1);
  center(q, CCT_CENTER_SET, "main");
  v = view(q, "topdown", 1, 0);
  int n159 = 0;
  for (size_t i = 0; i < v->nrows; i++)
    if (v->rows[i].depth == 1 && !strcmp(v->rows[i].name, "main")) {
      if (v->rows[i].line == 159) {
        n159++;
        assert_true(fabs(v->rows[i].inclusive[0] - 32786) < 1e-6);
      } else {
        assert_int_equal(v->rows[i].line, 178);
      }
    }
  assert_int_equal(n159, 1);
  assert_int_equal(rows_named(v, 1, "main", NULL), 2);
  cct_view_free(v);
  assert_int_equal(sql_int(q, "SELECT count(*) FROM (SELECT 1 FROM functions WHERE run = ?1 "
                              "GROUP BY name, module, file, line HAVING count(*) > 1)"), 0);
  cct_query_close(q);
}

/* ---- 2. the exclusive rule O' for loops and lines ---- */

/* Fails unless every flat row of every kind of q has exclusive <= inclusive
 * (within the 6th significant digit, as classic XML rounds). */
static void flat_excl_le_incl(cct_query *q, const char *sample) {
  for (int kind = CCT_FLAT_FUNCTIONS; kind <= CCT_FLAT_MODULES; kind++) {
    cct_view *v = view(q, "flat", kind, 0);
    for (size_t i = 0; i < v->nrows && v->nmetrics; i++) {
      const cct_row *r = &v->rows[i];
      if (r->exclusive[0] > r->inclusive[0] * (1 + 1e-5) + 1e-9)
        fail_msg("%s: flat row %s: exclusive %g > inclusive %g", sample, r->name, r->exclusive[0], r->inclusive[0]);
    }
    cct_view_free(v);
  }
}

static void test_exclusive_rule(void **state) {
  (void)state;
  /* SPEC section 4's worked example: classic-callflow-lulesh, loop lulesh.cc:2059 (12 <L>
   * elements, nested ones with the same header): inclusive 566,163 (the outermost), exclusive
   * 566,163 in topdown, bottomup and flat (was 0 / 566,163 / 1,132,326). */
  cct_query *q = test_open("classic-callflow-lulesh", 1);
  center(q, CCT_CENTER_SET, "loop lulesh.cc:2059");
  assert_int_equal(cct_center_occurrences(q, 0), 12);
  const char *views[] = {"topdown", "bottomup"};
  for (int i = 0; i < 2; i++) {
    cct_view *v = view(q, views[i], 0, 0);
    if (fabs(v->rows[0].inclusive[0] - 566163) > 1e-6 || fabs(v->rows[0].exclusive[0] - 566163) > 1e-6)
      fail_msg("%s top row (%g, %g), expected (566163, 566163)", views[i], v->rows[0].inclusive[0],
               v->rows[0].exclusive[0]);
    cct_view_free(v);
  }
  cct_view *v = view(q, "flat", CCT_FLAT_LOOPS, 0);
  const cct_row *r = NULL;
  assert_int_equal(rows_named(v, 0, "loop at lulesh.cc:2059", &r), 1);
  if (fabs(r->inclusive[0] - 566163) > 1e-6 || fabs(r->exclusive[0] - 566163) > 1e-6)
    fail_msg("flat loops row (%g, %g), expected (566163, 566163)", r->inclusive[0], r->exclusive[0]);
  assert_int_equal(r->center, 1);
  cct_view_free(v);
  flat_excl_le_incl(q, "classic-callflow-lulesh");
  for (int g = 0; g < 2; g++) { /* and SPEC section 5's invariants for this center */
    cct_query_set_granularity(q, g ? CCT_GRAN_LINE : CCT_GRAN_FUNCTION);
    cct_err e = CCT_ERR_INIT;
    if (cct_check_invariants(q, &e)) fail_msg("loop lulesh.cc:2059 (%s): %s", g ? "line" : "function", e.msg);
  }
  cct_query_close(q);
  /* flat loops had exclusive > inclusive in every database with nested loops of one header
   * (lmp-openmp compute_temp.cpp:91, inline.meta.db inline_f.c:14, gauss); and gauss'
   * frames held their inlined code's cost twice (main's PF i=2 E 515965000 includes its
   * three <Pr>, 137909), so 'glob *' had an exclusive above the program total. */
  static const char *const samples[] = {"v4-hpcviewer-lmp-openmp", "v4-hpcviewer-inline.meta.db",
                                        "classic-hpcviewer-gauss"};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
    q = test_open(samples[i], 1);
    flat_excl_le_incl(q, samples[i]);
    center(q, CCT_CENTER_SET, "glob *");
    v = view(q, "topdown", 0, 0);
    if (v->rows[0].exclusive[0] > v->rows[0].inclusive[0] * (1 + 1e-5))
      fail_msg("%s: glob * exclusive %g > inclusive %g", samples[i], v->rows[0].exclusive[0], v->rows[0].inclusive[0]);
    cct_view_free(v);
    cct_query_close(q);
  }
  /* gauss main (PF i=2): function-scope exclusive = its statements, 515826783 (summed from
   * the <S> and <C> of its frame in experiment.xml), to the XML's 6 digits */
  q = test_open("classic-hpcviewer-gauss", 1);
  v = view(q, "flat", CCT_FLAT_FUNCTIONS, 1);
  assert_string_equal(v->rows[0].name, "main");
  if (fabs(v->rows[0].exclusive[0] - 515826783) > 1e-5 * 515826783) fail_msg("main exclusive %g", v->rows[0].exclusive[0]);
  cct_view_free(v);
  cct_query_close(q);
}

/* ---- 3. names with hpcprof's ' [module]' decoration ---- */

typedef struct names {
  int n, plain, decorated;
} names;

static int count_name(void *arg, const char *name) {
  names *c = arg;
  c->n++;
  c->plain += !strcmp(name, "_int_free");
  c->decorated += !strcmp(name, "_int_free [libc-2.28.so]");
  return 0;
}

static void test_module_decoration(void **state) {
  (void)state;
  /* v4-hpcviewer-lmp-openmp names libc's function '_int_free [libc-2.28.so]' (meta.db) */
  cct_query *q = test_open("v4-hpcviewer-lmp-openmp", 1);
  long long want = sql_int(q, "SELECT count(*) FROM contexts WHERE run = ?1 AND kind = 'function' AND "
                              "name IN ('_int_free', '_int_free [libc-2.28.so]')");
  assert_true(want >= 1);
  center(q, CCT_CENTER_SET, "_int_free");
  assert_int_equal(cct_center_occurrences(q, 0), want);
  cct_view *v = view(q, "topdown", 0, 0);
  assert_string_equal(v->rows[0].name, "_int_free");
  cct_view_free(v);
  /* a prefix of a decorated name completes to the name a user can type, once */
  names c = {0, 0, 0};
  assert_int_equal(cct_query_complete(q, 'f', "_int_fr", count_name, &c), CCT_OK);
  assert_int_equal(c.plain, 1);
  assert_int_equal(c.decorated, 0);
  /* typing into the decoration completes the decorated name */
  c = (names){0, 0, 0};
  assert_int_equal(cct_query_complete(q, 'f', "_int_free [", count_name, &c), CCT_OK);
  assert_int_equal(c.decorated, 1);
  /* the full decorated name still works, and a name is not a prefix match ('_int' is not '_int_free') */
  center(q, CCT_CENTER_SET, "'_int_free [libc-2.28.so]'");
  assert_int_equal(cct_center_occurrences(q, 0), want);
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "_int", &e), CCT_ENOTFOUND);
  e = (cct_err)CCT_ERR_INIT; /* a typo is answered with the name a user can type */
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "_int_fre", &e), CCT_ENOTFOUND);
  assert_non_null(strstr(e.msg, "'_int_free'"));
  assert_null(strstr(e.msg, "_int_free ["));
  cct_query_close(q);
}

/* ---- 4. the source view: the center's own lines and its share ---- */

/* Lines (distinct) returned by sql, as a 0/1 table indexed by line (< 100000). */
static unsigned char *sql_lines(cct_query *q, const char *sql) {
  unsigned char *on = calloc(100000, 1);
  sqlite3_stmt *st = NULL;
  if (!on || sqlite3_prepare_v2(cct_query_db(q), sql, -1, &st, NULL) != SQLITE_OK) fail_msg("%s", sql);
  sqlite3_bind_int(st, 1, cct_query_run(q));
  while (sqlite3_step(st) == SQLITE_ROW) {
    long long l = sqlite3_column_int64(st, 0);
    if (l >= 0 && l < 100000) on[l] = 1;
  }
  sqlite3_finalize(st);
  return on;
}

static cct_view *source(cct_query *q, const char *file) {
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  if (test_view_source(q, file, &v, &e)) fail_msg("source: %s", e.msg);
  return v;
}

static void test_source_marks(void **state) {
  (void)state;
  /* v4-hpcviewer-lmp-openmp, eval<0, 0, 1>: its body lines 113-136 (45 % of the time) were
   * unmarked (3 marks in all).  Marked now: every line of a line or loop context lexically
   * inside one of its frames (from the public views, walking lexical children), its call
   * site (line 67) and its definition line.  The center's share of line 113 is 58.9616289999999
   * and of 118 137.043825 (inclusive of the line contexts under its frames, summed in SQL). */
  cct_query *q = test_open("v4-hpcviewer-lmp-openmp", 1);
  const char *fn = "'LAMMPS_NS::PairLJCutOMP::eval<0, 0, 1>(int, int, LAMMPS_NS::ThrData*)'";
  center(q, CCT_CENTER_SET, fn);
  unsigned char *own = sql_lines(q, "WITH RECURSIVE sub(id) AS (SELECT id FROM contexts WHERE run = ?1 AND kind = 'function' "
                                    "AND name = 'LAMMPS_NS::PairLJCutOMP::eval<0, 0, 1>(int, int, LAMMPS_NS::ThrData*)' "
                                    "UNION SELECT c.id FROM contexts c JOIN sub ON c.parent = sub.id "
                                    "WHERE c.run = ?1 AND c.relation = 'lexical') "
                                    "SELECT DISTINCT c.line FROM contexts c JOIN sub USING (id) WHERE c.run = ?1 "
                                    "AND c.kind IN ('line', 'loop') AND c.file LIKE '%/pair_lj_cut_omp.cpp'");
  cct_view *v = source(q, "pair_lj_cut_omp.cpp");
  int marked = 0, body = 0;
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    assert_non_null(r->share);
    if (r->share[0] > r->inclusive[0] * (1 + 1e-9) + 1e-12)
      fail_msg("line %lld: share %g > inclusive %g", r->line, r->share[0], r->inclusive[0]);
    marked += r->mark != 0;
    if (own[r->line] && !r->mark) fail_msg("line %lld of the center's frames is not marked", r->line);
    if (r->mark && !own[r->line] && r->line != 67) fail_msg("line %lld marked", r->line);
    if (r->line >= 113 && r->line <= 136) body += r->mark != 0;
    if (r->line == 113 && fabs(r->share[0] - 58.9616289999999) > 1e-6) fail_msg("share of 113: %g", r->share[0]);
    if (r->line == 118 && fabs(r->share[0] - 137.043825) > 1e-6) fail_msg("share of 118: %g", r->share[0]);
    if (r->line == 67) {
      assert_int_equal(r->mark, '>'); /* the call site leading into the center ... */
      assert_true(isnan(r->share[0])); /* ... lies outside it: no share ('-', issue 27's walk; it was 0) */
    }
  }
  assert_int_equal(body, 17); /* 113, 114, 118-121, 124-128, 130-132, 134-136 (115, 116: other instantiations) */
  assert_true(marked > 3);
  free(own);
  cct_view_free(v);
  cct_query_close(q);
  /* a loop center: the lines inside its occurrences (classic-callflow-lulesh, no source copy) */
  q = test_open("classic-callflow-lulesh", 1);
  center(q, CCT_CENTER_SET, "loop lulesh.cc:2059");
  own = sql_lines(q, "WITH RECURSIVE sub(id) AS (SELECT id FROM contexts WHERE run = ?1 AND kind = 'loop' AND line = 2059 "
                     "AND file LIKE '%lulesh.cc' UNION SELECT c.id FROM contexts c JOIN sub ON c.parent = sub.id "
                     "WHERE c.run = ?1 AND c.relation = 'lexical') "
                     "SELECT DISTINCT c.line FROM contexts c JOIN sub USING (id) WHERE c.run = ?1 "
                     "AND c.kind IN ('line', 'loop') AND c.file LIKE '%lulesh.cc'");
  v = source(q, NULL);
  marked = 0;
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if (!!r->mark != own[r->line]) fail_msg("lulesh.cc:%lld: mark %d, inside the loop %d", r->line, r->mark, own[r->line]);
    marked += r->mark != 0;
  }
  assert_true(marked > 1);
  free(own);
  cct_view_free(v);
  cct_query_close(q);
}

/* ---- 5. stats says what the per-profile data is ---- */

static cct_stats *stats(cct_query *q, int order) {
  cct_stats *s = NULL;
  cct_err e = CCT_ERR_INIT;
  if (test_view_stats(q, 4, order, &s, &e)) fail_msg("stats: %s", e.msg);
  return s;
}

static void test_stats_truth(void **state) {
  (void)state;
  /* classic-callflow-lulesh has no metric-db files: no per-profile data (was "over 0 profiles, sum 0") */
  cct_query *q = test_open("classic-callflow-lulesh", 1);
  cct_stats *s = stats(q, CCT_STATS_BY_VALUE);
  assert_int_equal(s->count, 0);
  assert_non_null(s->note);
  assert_non_null(strstr(s->note, "no per-profile data"));
  cct_stats_free(s);
  cct_query_close(q);
  /* classic-hpcviewer-gauss: its 4 metric-db files add up to 54.5 M of the program's 894 M */
  q = test_open("classic-hpcviewer-gauss", 1);
  s = stats(q, CCT_STATS_BY_RANK);
  assert_int_equal(s->count, 4);
  assert_non_null(s->note);
  assert_non_null(strstr(s->note, "only part"));
  assert_true(s->program_sum > 5.44e7 && s->program_sum < 5.45e7);
  assert_true(s->program_total > 8.94e8 && s->program_total < 8.95e8);
  /* by rank: rank 0 thread 0, rank 0 thread 1, rank 1 thread 0, rank 1 thread 1 (file names
   * 1.gauss_mpi-00000R-00T-...) */
  long long want_rank[] = {0, 0, 1, 1}, want_thread[] = {0, 1, 0, 1};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(s->profiles[i].rank, want_rank[i]);
    assert_int_equal(s->profiles[i].thread, want_thread[i]);
    assert_int_equal(s->profiles[i].kind, CCT_PROFILE_CPU);
  }
  cct_stats_free(s);
  s = stats(q, CCT_STATS_BY_THREAD);
  for (int i = 0; i < 4; i++) {
    assert_int_equal(s->profiles[i].rank, want_thread[i]);
    assert_int_equal(s->profiles[i].thread, want_rank[i]);
  }
  assert_int_equal(s->kinds[CCT_PROFILE_CPU].count, 4);
  assert_int_equal(s->kinds[CCT_PROFILE_GPU].count, 0);
  cct_stats_free(s);
  cct_query_close(q);
  /* loops-cuda-nvidia-t.d: one CPU thread (NODE/THREAD) and one GPU stream
   * (NODE/GPUCONTEXT/GPUSTREAM), kept apart */
  q = test_open("v4-hpctoolkit-tests-dbase/loops-cuda-nvidia-t.d", 1);
  s = stats(q, CCT_STATS_BY_VALUE);
  assert_int_equal(s->count, 2);
  assert_int_equal(s->kinds[CCT_PROFILE_CPU].count, 1);
  assert_int_equal(s->kinds[CCT_PROFILE_GPU].count, 1);
  for (size_t i = 0; i < s->count; i++)
    assert_int_equal(s->profiles[i].kind, s->profiles[i].gpustream >= 0 ? CCT_PROFILE_GPU : CCT_PROFILE_CPU);
  assert_true(fabs(s->kinds[0].sum + s->kinds[1].sum - s->sum) <= 1e-9 * fabs(s->sum));
  cct_stats_free(s);
  cct_query_close(q);
  /* v4-hatchet-cpi: 16 ranks whose profiles add up to the summary: no note */
  q = test_open("v4-hatchet-cpi", 1);
  s = stats(q, CCT_STATS_BY_RANK);
  assert_int_equal(s->count, 16);
  assert_null(s->note);
  for (size_t i = 1; i < s->count; i++) assert_true(s->profiles[i - 1].rank <= s->profiles[i].rank);
  cct_stats_free(s);
  cct_query_close(q);
}

int main(void) {
  if (!getenv("CCTINGEST") || !getenv("CCT_DATA")) {
    fprintf(stderr, "test_numbers: set CCTINGEST and CCT_DATA (ctest does)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identity),
      cmocka_unit_test(test_exclusive_rule),
      cmocka_unit_test(test_module_decoration),
      cmocka_unit_test(test_source_marks),
      cmocka_unit_test(test_stats_truth),
  };
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
