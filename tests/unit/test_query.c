/* test_query.c: tests of the query library (query/) on archives ingested from
 * tests/data with $CCTINGEST: hand-worked trees on classic-hatchet-cpi, the
 * hand-made recursion and source databases, stats, error messages, pinned
 * query plans, and the SPEC section 5 invariants on every sample for many
 * kinds of centers, at both granularities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_query.h"
#include "query_int.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cct_util.h"
#include "test_util.h"
#include "test_view.h"

/* A session on sample name (test_open) without the hot path. */
static cct_query *open_sample(const char *name) {
  cct_query *q = test_open(name, 1);
  assert_true(cct_query_hotpath(q) == 0.5); /* hpcviewer's default */
  cct_query_set_hotpath(q, 0); /* the hand-worked trees count every level; test_cpi_hot_path the hot path */
  return q;
}

static void center(cct_query *q, int op, const char *item) {
  cct_err e = CCT_ERR_INIT;
  if (cct_center_apply(q, op, item, &e)) fail_msg("center '%s': %s", item, e.msg);
}

/* View view of q (a, b: the depth, or flat's kind and row count), failing the test on an error. */
static cct_view *view_of(cct_query *q, int view, int a, int b) {
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  if (test_view(q, view, a, b, &v, &e)) fail_msg("view %d: %s", view, e.msg);
  return v;
}

static cct_view *topdown(cct_query *q, int d) { return view_of(q, CCT_VIEW_TOPDOWN, d, 0); }
static cct_view *bottomup(cct_query *q, int d) { return view_of(q, CCT_VIEW_BOTTOMUP, d, 0); }
static cct_view *flat(cct_query *q, int kind, int n) { return view_of(q, CCT_VIEW_FLAT, kind, n); }

/* Expected row: depth, label, call site (or NULL), inclusive, exclusive. */
typedef struct erow {
  int depth;
  const char *name, *callsite;
  double incl, excl;
} erow;

static void expect_rows(const cct_view *v, const erow *e, size_t n) {
  if (v->nrows != n) {
    for (size_t i = 0; i < v->nrows; i++)
      print_message("  row %zu: %*s%s %s %g %g\n", i, 2 * v->rows[i].depth, "", v->rows[i].name,
                    v->rows[i].callsite ? v->rows[i].callsite : "", v->rows[i].inclusive[0], v->rows[i].exclusive[0]);
    fail_msg("%s: %zu rows, expected %zu", v->view, v->nrows, n);
  }
  for (size_t i = 0; i < n; i++) {
    const cct_row *r = &v->rows[i];
    assert_int_equal(r->handle, (int)i + 1);
    assert_int_equal(r->depth, e[i].depth);
    assert_string_equal(r->name, e[i].name);
    if (e[i].callsite && (!r->callsite || strcmp(r->callsite, e[i].callsite)))
      fail_msg("%s row %zu '%s': call site %s, expected %s", v->view, i + 1, r->name,
               r->callsite ? r->callsite : "none", e[i].callsite);
    if (!e[i].callsite && r->callsite) fail_msg("%s row %zu '%s': unexpected call site %s", v->view, i + 1, r->name, r->callsite);
    if (fabs(r->inclusive[0] - e[i].incl) > 1e-6 || fabs(r->exclusive[0] - e[i].excl) > 1e-6)
      fail_msg("%s row %zu '%s': (%g, %g), expected (%g, %g)", v->view, i + 1, r->name, r->inclusive[0],
               r->exclusive[0], e[i].incl, e[i].excl);
  }
}

/* View view of q (as view_of) has the n rows e. */
static void expect_view(cct_query *q, int view, int a, int b, const erow *e, size_t n) {
  cct_view *v = view_of(q, view, a, b);
  expect_rows(v, e, n);
  cct_view_free(v);
}

/* The invariants without and with the hot path: then topdown D is the rows of level
 * <= D of topdown D + k (cct_row.level), which cct_check_invariants compares. */
static void check_invariants(cct_query *q, const char *what) {
  cct_err e = CCT_ERR_INIT;
  double hot = cct_query_hotpath(q);
  for (int k = 0; k < 2; k++) {
    cct_query_set_hotpath(q, k ? 0.5 : 0);
    if (cct_check_invariants(q, &e)) fail_msg("%s (hotpath %s): %s", what, k ? "50%" : "off", e.msg);
  }
  cct_query_set_hotpath(q, hot);
}

/* ---- classic-hatchet-cpi, worked by hand from its experiment.xml ----
 * <M n="2"> is the inclusive and <M n="3"> the exclusive column (CPUTIME (usec)).
 * All 3.99824e+06 figures are the M n=2 of the root, PF i=2, C i=3, PF i=4 (main),
 * C i=26, PF i=27 (MPI_Finalize) ... PF i=41; the MPI_Init subtree (i=6..25)
 * carries no M at all, hence 0. */
/* The hot path on cpi (hand-worked from the same PFs as test_cpi_trees): from main,
 * each heaviest child holds at least half of its parent's inclusive down to the
 * <unknown procedure> of 3782390 (94.6% of its parent's 3998240), whose only child
 * holds 976291 (25.8%): those 9 rows use no level, so topdown 1 shows them, one
 * level below each (MPI_Init 0 below main, __GI_sched_yield 35980 beside the last
 * hot row's parent's hot child, and the 976291 row), and nothing below those.  At
 * 100% the path stops one row sooner (3782390 < 3998240). */
static void test_cpi_hot_path(void **state) {
  (void)state;
  cct_query *q = open_sample("classic-hatchet-cpi");
  center(q, CCT_CENTER_SET, "main");
  cct_query_set_hotpath(q, 0.5);
  cct_view *v = topdown(q, 1);
  erow hot1[] = {{0, "main", NULL, 3998240, 0},
                 {1, "MPI_Finalize", NULL, 3998240, 0},
                 {2, "PMPI_Finalize", NULL, 3998240, 0},
                 {3, "MPID_Finalize", NULL, 3998240, 0},
                 {4, "MPIDI_CH3_Finalize", NULL, 3998240, 0},
                 {5, "psm_dofinalize", NULL, 3998240, 0},
                 {6, "<unknown procedure>", NULL, 3998240, 0},
                 {7, "<unknown procedure>", NULL, 3998240, 0},
                 {8, "<unknown procedure>", NULL, 3998240, 179877},
                 {9, "<unknown procedure>", NULL, 3782390, 2806097},
                 {10, "<unknown procedure>", NULL, 976291, 976291},
                 {9, "__GI_sched_yield", NULL, 35980, 35980},
                 {1, "MPI_Init", NULL, 0, 0}};
  expect_rows(v, hot1, 13);
  for (size_t i = 0; i < v->nrows; i++) {
    int hot = i <= 9; /* main .. the 3782390 row */
    assert_int_equal(v->rows[i].hot, hot);
    assert_int_equal(v->rows[i].level, hot ? 0 : 1);
  }
  assert_true(v->hotpath == 0.5);
  cct_view_free(v);
  /* topdown 0 is the top row alone, whatever the hot path */
  v = topdown(q, 0);
  assert_int_equal((int)v->nrows, 1);
  cct_view_free(v);
  /* 100%: the 3782390 row is not hot; it and __GI_sched_yield are level 1, nothing below */
  cct_query_set_hotpath(q, 1);
  v = topdown(q, 1);
  erow hot100[12];
  memcpy(hot100, hot1, 10 * sizeof *hot1);
  hot100[10] = hot1[11], hot100[11] = hot1[12];
  expect_rows(v, hot100, 12);
  for (size_t i = 0; i < v->nrows; i++) assert_int_equal(v->rows[i].hot, i <= 8);
  assert_int_equal(v->rows[9].level, 1);
  cct_view_free(v);
  /* bottomup and flat have no hot path: level is the depth */
  v = bottomup(q, 3);
  for (size_t i = 0; i < v->nrows; i++) assert_int_equal(v->rows[i].level, v->rows[i].depth), assert_int_equal(v->rows[i].hot, 0);
  cct_view_free(v);
  check_invariants(q, "cpi main, hot path");
  cct_query_close(q);
}

static void test_cpi_trees(void **state) {
  (void)state;
  cct_query *q = open_sample("classic-hatchet-cpi");
  /* center main, topdown 1: main = PF i=4 (I 3.99824e+06, no E);
   * MPI_Finalize = PF i=27 (I 3.99824e+06, no E); MPI_Init = PF i=6 (no M). */
  center(q, CCT_CENTER_SET, "main");
  cct_view *v = topdown(q, 1);
  erow main1[] = {{0, "main", NULL, 3998240, 0}, {1, "MPI_Finalize", NULL, 3998240, 0}, {1, "MPI_Init", NULL, 0, 0}};
  expect_rows(v, main1, 3);
  assert_int_equal(v->rows[0].kind, CCT_ROW_CENTER);
  cct_view_free(v);

  /* center '<unknown procedure>' (11 frames of one procedure, recursive).  O* = {PF i=18 (no M),
   * PF i=37 (I 3.99824e+06)}.  Top exclusive = E of i=41 179877 + i=43 1.22125e+06 + i=46 1.3879e+06
   * + i=49 196947 + i=51 137912 + i=54 838379 = 3962265.
   * level 1: i=20 (0) + i=39 (I 3.99824e+06, no E)
   * level 2: i=22 (0) + i=41 (I 3.99824e+06, E 179877)
   * level 3: <unknown procedure> = i=43 + i=46 + i=49: I 1.22125e+06 + 1.3879e+06 + 1.17324e+06 = 3782390,
   *          E 1.22125e+06 + 1.3879e+06 + 196947 = 2806097; __GI_sched_yield = PF i=58 (I = E = 35980);
   *          pthread_create = PF i=24 (no M)
   * level 4: i=51 + i=54: I = E = 137912 + 838379 = 976291 */
  center(q, CCT_CENTER_SET, "<unknown procedure>");
  assert_int_equal(cct_center_occurrences(q, 0), 11);
  erow unk[] = {{0, "<unknown procedure>", NULL, 3998240, 3962265},
                {1, "<unknown procedure>", NULL, 3998240, 0},
                {2, "<unknown procedure>", NULL, 3998240, 179877},
                {3, "<unknown procedure>", NULL, 3782390, 2806097},
                {4, "<unknown procedure>", NULL, 976291, 976291},
                {3, "__GI_sched_yield", NULL, 35980, 35980},
                {3, "pthread_create", NULL, 0, 0}};
  expect_view(q, CCT_VIEW_TOPDOWN, 4, 0, unk, 7);
  /* bottomup 3: callers of i=37 are psm_dofinalize (PF i=35) < MPIDI_CH3_Finalize (i=33) <
   * MPID_Finalize (i=31), each with i=37's I 3.99824e+06 and the E total 3962265 of its subtree;
   * callers of i=18: psm_doinit (i=16) < MPIDI_CH3_Init (i=14) < MPID_Init (i=12), all 0. */
  erow unkb[] = {{0, "<unknown procedure>", NULL, 3998240, 3962265}, {1, "psm_dofinalize", NULL, 3998240, 3962265},
                 {2, "MPIDI_CH3_Finalize", NULL, 3998240, 3962265},  {3, "MPID_Finalize", NULL, 3998240, 3962265},
                 {1, "psm_doinit", NULL, 0, 0},                      {2, "MPIDI_CH3_Init", NULL, 0, 0},
                 {3, "MPID_Init", NULL, 0, 0}};
  expect_view(q, CCT_VIEW_BOTTOMUP, 3, 0, unkb, 7);
  check_invariants(q, "cpi <unknown procedure>");

  /* bottomup of __GI_sched_yield (PF i=58, I = E = 35980): its caller is PF i=41, whose caller is i=39. */
  center(q, CCT_CENTER_SET, "__GI_sched_yield");
  erow gi[] = {{0, "__GI_sched_yield", NULL, 35980, 35980},
               {1, "<unknown procedure>", NULL, 35980, 35980},
               {2, "<unknown procedure>", NULL, 35980, 35980}};
  expect_view(q, CCT_VIEW_BOTTOMUP, 2, 0, gi, 3);

  /* line granularity, center main: the call-site lines C i=5 (cpi.c:27) and C i=26 (cpi.c:62) fold
   * into their callees; they have no exclusive cost, so no residue rows. */
  cct_query_set_granularity(q, CCT_GRAN_LINE);
  center(q, CCT_CENTER_SET, "main");
  erow mainl[] = {{0, "main", NULL, 3998240, 0},
                  {1, "MPI_Finalize", "cpi.c:62", 3998240, 0},
                  {1, "MPI_Init", "cpi.c:27", 0, 0}};
  expect_view(q, CCT_VIEW_TOPDOWN, 1, 0, mainl, 3);
  check_invariants(q, "cpi main (line)");
  /* main's caller is the '<program root>' procedure (PF i=2) through C i=3, which has no line */
  erow mainlb[] = {{0, "main", NULL, 3998240, 0}, {1, "<program root>", NULL, 3998240, 0}};
  expect_view(q, CCT_VIEW_BOTTOMUP, 2, 0, mainlb, 2);
  cct_query_set_granularity(q, CCT_GRAN_FUNCTION);

  /* no center: the root's children; the top row is the program ('<program>', handle 1). */
  cct_center_reset(q);
  v = topdown(q, 2);
  assert_int_equal(v->rows[0].kind, CCT_ROW_ROOT);
  assert_string_equal(v->rows[1].name, "<program root>");
  assert_string_equal(v->rows[2].name, "main");
  assert_true(fabs(v->rows[0].inclusive[0] - 3998240) < 1e-6);
  cct_view_free(v);
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view(q, CCT_VIEW_BOTTOMUP, 2, 0, &v, &e), CCT_EUSAGE);
  assert_non_null(strstr(e.msg, "no center"));
  cct_query_close(q);
}

/* ---- hand-made recursion: main -> f -> f -> f, main -> a -> b -> a (tests/data/handmade-recursion) ---- */
static void test_recursion(void **state) {
  (void)state;
  cct_query *q = open_sample("handmade-recursion");
  /* f: frames I 60, 50, 30 nested; E 10, 20, 30: inclusive counts the outermost only. */
  center(q, CCT_CENTER_SET, "f");
  cct_view *v;
  erow f[] = {{0, "f", NULL, 60, 60}, {1, "f", NULL, 50, 20}, {2, "f", NULL, 30, 30}};
  expect_view(q, CCT_VIEW_TOPDOWN, 5, 0, f, 3);
  erow fb[] = {{0, "f", NULL, 60, 60}, {1, "main", NULL, 60, 60}};
  expect_view(q, CCT_VIEW_BOTTOMUP, 5, 0, fb, 2);
  check_invariants(q, "f");
  /* {a, b}: a (I 40, E 5) > b (I 35, E 15) > a (I 20, E 20): top 40 (not 40 + 35 + 20), E 40. */
  center(q, CCT_CENTER_SET, "a");
  center(q, CCT_CENTER_ADD, "b");
  assert_int_equal(cct_center_count(q), 2);
  assert_int_equal(cct_center_occurrences(q, 0), 2);
  assert_int_equal(cct_center_occurrences(q, 1), 1);
  v = topdown(q, 3);
  erow ab[] = {{0, "<multiple contexts>", NULL, 40, 40}, {1, "b", NULL, 35, 15}, {2, "a", NULL, 20, 20}};
  expect_rows(v, ab, 3);
  assert_true(v->rows[0].inclusive[0] <= v->total[0]);
  cct_view_free(v);
  erow abb[] = {{0, "<multiple contexts>", NULL, 40, 40}, {1, "main", NULL, 40, 40}};
  expect_view(q, CCT_VIEW_BOTTOMUP, 3, 0, abb, 2);
  check_invariants(q, "{a, b}");
  /* a line nested in f's frames: {f, rec.c:21} counts each exclusive once (E 60, not 120). */
  center(q, CCT_CENTER_SET, "f");
  center(q, CCT_CENTER_ADD, "rec.c:21");
  erow fl[] = {{0, "<multiple contexts>", NULL, 60, 60}};
  expect_view(q, CCT_VIEW_TOPDOWN, 0, 0, fl, 1);
  check_invariants(q, "{f, rec.c:21}");
  /* the line alone: three disjoint line contexts, I 10 + 20 + 30 */
  center(q, CCT_CENTER_REMOVE, "f");
  erow lb[] = {{0, "rec.c:21", NULL, 60, 60}, {1, "f", NULL, 60, 60}, {2, "f", NULL, 50, 50}, {2, "main", NULL, 10, 10}};
  expect_view(q, CCT_VIEW_BOTTOMUP, 2, 0, lb, 4);
  check_invariants(q, "rec.c:21");
  /* flat: f's row by the outermost rule too */
  erow fr[] = {{0, "main", NULL, 100, 0}, {0, "f", NULL, 60, 60}, {0, "a", NULL, 40, 25}, {0, "b", NULL, 35, 15}};
  expect_view(q, CCT_VIEW_FLAT, CCT_FLAT_FUNCTIONS, 0, fr, 4);
  /* '@N' of the flat view: @2 is f by function id */
  v = flat(q, CCT_FLAT_FUNCTIONS, 0);
  cct_view_free(v);
  center(q, CCT_CENTER_SET, "@2");
  assert_string_equal(cct_center_item(q, 0), "f");
  assert_int_equal(cct_center_occurrences(q, 0), 3);
  /* line granularity: b @ rec.c:32 under a, a @ rec.c:42 under b, a's own line as a row */
  cct_query_set_granularity(q, CCT_GRAN_LINE);
  center(q, CCT_CENTER_SET, "'a'");
  erow al[] = {{0, "a", NULL, 40, 25},          {1, "b", "rec.c:32", 35, 15}, {2, "a", "rec.c:42", 20, 20},
               {3, "rec.c:31", NULL, 20, 20}, {2, "rec.c:41", NULL, 15, 15}, {1, "rec.c:31", NULL, 5, 5}};
  expect_view(q, CCT_VIEW_TOPDOWN, 3, 0, al, 6);
  check_invariants(q, "a (line)");
  /* flat tree: module > file > function > line */
  v = flat(q, CCT_FLAT_TREE, 0);
  assert_int_equal(v->rows[0].kind, CCT_ROW_MODULE);
  assert_int_equal(v->rows[1].kind, CCT_ROW_FILE);
  assert_int_equal(v->rows[2].kind, CCT_ROW_FUNCTION);
  assert_true(fabs(v->rows[0].inclusive[0] - 100) < 1e-9);
  cct_view_free(v);
  cct_query_close(q);
}

/* ---- items, errors, suggestions ---- */
static void test_items(void **state) {
  (void)state;
  cct_query *q = open_sample("handmade-recursion");
  cct_err e = CCT_ERR_INIT;
  center(q, CCT_CENTER_SET, "f");
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "fff", &e), CCT_ENOTFOUND);
  assert_non_null(strstr(e.msg, "'fff'"));
  assert_non_null(strstr(e.msg, "did you mean 'f'"));
  assert_string_equal(cct_center_item(q, 0), "f"); /* unchanged */
  e = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "rec.c:25", &e), CCT_ENOTFOUND);
  assert_non_null(strstr(e.msg, "rec.c:21"));
  e = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "re (", &e), CCT_EUSAGE);
  e = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_REMOVE, "zzz", &e), CCT_ENOTFOUND);
  center(q, CCT_CENTER_SET, "glob [ab]");
  assert_int_equal(cct_center_occurrences(q, 0), 3);
  center(q, CCT_CENTER_SET, "re ^(a|f)$");
  assert_int_equal(cct_center_occurrences(q, 0), 5);
  center(q, CCT_CENTER_SET, "file rec.c");
  assert_int_equal(cct_center_occurrences(q, 0), 7);
  center(q, CCT_CENTER_SET, "module /bin/rec");
  assert_int_equal(cct_center_occurrences(q, 0), 7);
  center(q, CCT_CENTER_SET, "#13");
  assert_int_equal(cct_center_occurrences(q, 0), 1);
  center(q, CCT_CENTER_SET, "src/rec.c:31");
  assert_int_equal(cct_center_occurrences(q, 0), 2);
  e = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "c:31", &e), CCT_ENOTFOUND); /* suffix at '/' only */
  /* @1 of a topdown is the top row: no change */
  cct_view *v = topdown(q, 2);
  cct_view_free(v);
  center(q, CCT_CENTER_SET, "@1");
  assert_string_equal(cct_center_item(q, 0), "src/rec.c:31");
  cct_query_set_threshold(q, 0.5);
  center(q, CCT_CENTER_SET, "main");
  v = topdown(q, 3);
  assert_int_equal(v->nrows, 3); /* main, f (60), f (50); a (40) and f (30) hidden below 50 */
  cct_view_free(v);
  cct_query_set_threshold(q, 0);
  e = (cct_err)CCT_ERR_INIT;
  assert_int_equal(cct_query_set_metric(q, "nothing", &e), CCT_ENOTFOUND);
  assert_non_null(strstr(e.msg, "CPUTIME (usec)"));
  assert_int_equal(cct_query_set_metric(q, "cpu", NULL), CCT_OK);
  cct_query_close(q);
}

/* ---- source view ---- */
static void test_source(void **state) {
  (void)state;
  cct_query *q = open_sample("handmade-src");
  center(q, CCT_CENTER_SET, "MPI_Finalize");
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view_source(q, "cpi.c", &v, &e), CCT_OK);
  assert_null(v->note);
  assert_int_equal(v->nrows, 64);
  const cct_row *r = &v->rows[61];
  assert_int_equal(r->line, 62);
  assert_non_null(strstr(r->text, "MPI_Finalize();"));
  assert_int_equal(r->mark, '>'); /* the call site leading into the center */
  assert_true(fabs(r->inclusive[0] - 3998240) < 1e-6);
  for (size_t i = 0; i < v->nrows; i++)
    if (i != 61) assert_int_equal(v->rows[i].mark, 0);
  cct_view_free(v);
  center(q, CCT_CENTER_SET, "main");
  assert_int_equal(test_view_source(q, NULL, &v, &e), CCT_OK);
  assert_int_equal(v->rows[18].mark, '>'); /* main's definition line 19 */
  assert_non_null(strstr(v->rows[18].text, "main("));
  cct_view_free(v);
  /* '@N' of the source view is that line */
  center(q, CCT_CENTER_SET, "@62");
  assert_string_equal(cct_center_item(q, 0), "cpi.c:62");
  cct_query_close(q);
  /* without a stored copy: per-line figures and a note */
  q = open_sample("classic-hatchet-cpi");
  assert_int_equal(test_view_source(q, "cpi.c", &v, &e), CCT_OK);
  assert_non_null(v->note);
  assert_non_null(strstr(v->note, "no stored copy"));
  assert_int_equal(v->nrows, 1);
  assert_int_equal(v->rows[0].line, 62);
  assert_null(v->rows[0].text);
  cct_view_free(v);
  cct_query_close(q);
}

/* Σ over profiles of the center's value == the center's summary inclusive (rel. 1e-5). */
static void check_stats(cct_query *q, const char *what) {
  cct_stats *s = NULL;
  cct_err e = CCT_ERR_INIT;
  if (test_view_stats(q, 8, CCT_STATS_BY_VALUE, &s, &e)) fail_msg("%s stats: %s", what, e.msg);
  cct_view *v = topdown(q, 0);
  double c = v->nmetrics ? v->rows[0].inclusive[0] : 0, total = v->nmetrics ? v->total[0] : 0;
  if (s->count && fabs(s->sum - c) > 1e-5 * fabs(c) + 1e-9 * fabs(total))
    fail_msg("%s: profiles add up to %.9g, the center's inclusive is %.9g", what, s->sum, c);
  size_t h = 0;
  for (size_t i = 0; i < s->bins; i++) h += s->histogram[i];
  assert_int_equal(h, s->count);
  for (size_t i = 1; i < s->count; i++) assert_true(s->profiles[i - 1].value >= s->profiles[i].value);
  cct_view_free(v);
  cct_stats_free(s);
}

static void test_stats(void **state) {
  (void)state;
  cct_query *q = open_sample("classic-hatchet-cpi");
  center(q, CCT_CENTER_SET, "<unknown procedure>");
  cct_stats *s = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view_stats(q, 4, CCT_STATS_BY_VALUE, &s, &e), CCT_OK);
  assert_int_equal(s->count, 4);
  assert_true(fabs(s->sum - 3998240) <= 1e-5 * 3998240);
  assert_true(s->min <= s->mean && s->mean <= s->max);
  assert_true(s->imbalance >= 1);
  assert_int_equal(s->profiles[0].rank >= 0, 1);
  cct_stats_free(s);
  check_stats(q, "cpi <unknown procedure>");
  center(q, CCT_CENTER_SET, "__GI_sched_yield");
  check_stats(q, "cpi __GI_sched_yield");
  cct_query_close(q);
  char *p = test_ingest("v4-hatchet-cpi");
  if (p) { /* v4 multi-profile sample, once ingest/v4.c reads it */
    free(p);
    q = open_sample("v4-hatchet-cpi");
    for (int i = 1; i <= 3; i++) {
      cct_view *v = flat(q, CCT_FLAT_FUNCTIONS, 3);
      char item[32];
      snprintf(item, sizeof item, "@%d", i);
      center(q, CCT_CENTER_SET, item);
      check_stats(q, "v4-hatchet-cpi");
      cct_view_free(v);
    }
    cct_query_close(q);
  }
}

/* ---- query plans: no view statement scans context ---- */
static void test_plans(void **state) {
  (void)state;
  cct_query *q = open_sample("classic-hatchet-cpi");
  static const struct {
    const char *name, *want;
  } plans[] = {{"values", "SEARCH v USING INTEGER PRIMARY KEY (rowid=?)"},
               {"ctx", "USING INDEX context_by_id (run=? AND id=?)"},
               {"root", "USING INTEGER PRIMARY KEY"},
               {"value", "SEARCH value USING INTEGER PRIMARY KEY (rowid=?)"},
               {"contexts_at", "context_by_line"},
               {"flat", "USING PRIMARY KEY"},
               {"flat_one", "USING PRIMARY KEY"},
               {"line_costs", "USING PRIMARY KEY"},
               {"functions_by_name", "function_by_name"},
               {"profile_values", "USING PRIMARY KEY"},
               {"source", "USING PRIMARY KEY"}};
  for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
    int len = 0;
    const char *sql = cct_schema_named(cct_sql_query, plans[i].name, &len);
    assert_non_null(sql);
    char *text = malloc((size_t)len + 32);
    snprintf(text, (size_t)len + 32, "EXPLAIN QUERY PLAN %.*s", len, sql);
    sqlite3_stmt *st = NULL;
    assert_int_equal(sqlite3_prepare_v2(cct_query_db(q), text, -1, &st, NULL), SQLITE_OK);
    sqlite3_str *lines = sqlite3_str_new(NULL);
    while (sqlite3_step(st) == SQLITE_ROW) sqlite3_str_appendf(lines, "%s\n", (const char *)sqlite3_column_text(st, 3));
    char *plan = sqlite3_str_finish(lines);
    sqlite3_finalize(st);
    free(text);
    if (!plan || !strstr(plan, plans[i].want))
      fail_msg("plan of %s lacks '%s':\n%s", plans[i].name, plans[i].want, plan ? plan : "");
    for (const char *p = strstr(plan, "SCAN context"); p; p = strstr(p + 1, "SCAN context"))
      if (p[12] == '\n' || p[12] == 0 || p[12] == ' ') fail_msg("plan of %s scans context:\n%s", plans[i].name, plan);
    sqlite3_free(plan);
  }
  cct_query_close(q);
}

/* ---- invariants on every sample ---- */

/* Applies item (skipping items that match nothing) and checks the invariants at both granularities. */
static void inv_case(cct_query *q, const char *sample, int op, const char *item, int *n) {
  cct_err e = CCT_ERR_INIT;
  int rc = cct_center_apply(q, op, item, &e);
  if (rc == CCT_ENOTFOUND) return;
  if (rc) fail_msg("%s: center '%s': %s", sample, item, e.msg);
  for (int g = 0; g < 2; g++) {
    cct_query_set_granularity(q, g ? CCT_GRAN_LINE : CCT_GRAN_FUNCTION);
    char what[600];
    snprintf(what, sizeof what, "%s, center %s'%s' (%s)", sample, op == CCT_CENTER_ADD ? "+ " : "", item,
             g ? "line" : "function");
    check_invariants(q, what);
    (*n)++;
  }
  cct_query_set_granularity(q, CCT_GRAN_FUNCTION);
}

/* Sets the center to row 'handle' of a fresh flat view of kind; returns 0 when there is no such row. */
static int center_flat_row(cct_query *q, int kind, int handle, int op, const char *sample, int *n) {
  cct_view *v = flat(q, kind, handle);
  int ok = v->nrows >= (size_t)handle;
  cct_view_free(v);
  if (!ok) return 0;
  char item[32];
  snprintf(item, sizeof item, "@%d", handle);
  inv_case(q, sample, op, item, n);
  return 1;
}

/* The values each context row carries are those of its run's primary metric in the
 * table value (0 where value has no row), and the primary metric is the 'sum' metric
 * cct_metric_rank prefers, the first among equals. */
static void check_beside(cct_query *q, const char *sample) {
  sqlite3_stmt *st = NULL;
  const char *sql =
      "SELECT (SELECT count(*) FROM context c JOIN run r ON r.run = c.run "
      "        LEFT JOIN value v ON v.key = r.primary_metric * 1099511627776 + c.pre "
      "        WHERE c.inclusive IS NOT coalesce(v.inclusive, 0) OR c.exclusive IS NOT coalesce(v.exclusive, 0) "
      "           OR c.exclusive_lex IS NOT coalesce(v.exclusive_lex, 0)), "
      "       (SELECT count(*) FROM context), (SELECT primary_metric FROM run), "
      "       (SELECT group_concat(id || ' ' || name, char(10)) FROM (SELECT id, name FROM metric WHERE stat = 'sum' ORDER BY id))";
  assert_int_equal(sqlite3_prepare_v2(cct_query_db(q), sql, -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  if (sqlite3_column_int64(st, 0))
    fail_msg("%s: %lld of %lld contexts carry other values than the table value", sample,
             (long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1));
  long long primary = sqlite3_column_int64(st, 2), best = 0;
  int best_rank = 99;
  char *list = strdup(sqlite3_column_type(st, 3) == SQLITE_NULL ? "" : (const char *)sqlite3_column_text(st, 3));
  char *save = NULL;
  for (char *line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    long long id = strtoll(line, NULL, 10);
    int r = cct_metric_rank(strchr(line, ' ') + 1);
    if (r < best_rank) best_rank = r, best = id;
  }
  free(list);
  if (primary != best) fail_msg("%s: primary metric %lld, want %lld", sample, primary, best);
  sqlite3_finalize(st);
}

static void invariants_on(const char *sample) {
  char *p = test_ingest(sample);
  if (!p) {
    print_message("  %s: not ingested, skipped\n", sample);
    return;
  }
  free(p);
  cct_query *q = open_sample(sample);
  check_beside(q, sample);
  int n = 0;
  cct_center_reset(q);
  check_invariants(q, sample); /* no center */
  for (int i = 1; i <= 5; i++) center_flat_row(q, CCT_FLAT_FUNCTIONS, i, CCT_CENTER_SET, sample, &n);
  /* recursive functions: a frame below another frame of the same function */
  sqlite3_stmt *st = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_schema_prepare_named(cct_query_db(q), cct_sql_query, "recursive_functions", &st, &e), CCT_OK);
  sqlite3_bind_int(st, 1, cct_query_run(q));
  char names[3][512];
  int nrec = 0;
  while (nrec < 3 && sqlite3_step(st) == SQLITE_ROW) {
    sqlite3_stmt *nm = NULL;
    sqlite3_prepare_v2(cct_query_db(q), "SELECT name FROM functions WHERE run = ?1 AND function = ?2", -1, &nm, NULL);
    sqlite3_bind_int(nm, 1, cct_query_run(q));
    sqlite3_bind_int64(nm, 2, sqlite3_column_int64(st, 0));
    if (sqlite3_step(nm) == SQLITE_ROW) {
      const char *s = (const char *)sqlite3_column_text(nm, 0);
      snprintf(names[nrec++], sizeof names[0], strchr(s, '\'') ? "\"%s\"" : "'%s'", s);
    }
    sqlite3_finalize(nm);
  }
  sqlite3_finalize(st);
  for (int i = 0; i < nrec; i++) inv_case(q, sample, CCT_CENTER_SET, names[i], &n);
  for (int i = 1; i <= 4; i++) center_flat_row(q, CCT_FLAT_LINES, i, CCT_CENTER_SET, sample, &n);
  for (int i = 1; i <= 3; i++) center_flat_row(q, CCT_FLAT_LOOPS, i, CCT_CENTER_SET, sample, &n); /* flat == top row, O' */
  center_flat_row(q, CCT_FLAT_FILES, 1, CCT_CENTER_SET, sample, &n);
  center_flat_row(q, CCT_FLAT_MODULES, 2, CCT_CENTER_SET, sample, &n);
  inv_case(q, sample, CCT_CENTER_SET, "glob *", &n); /* every function at once */
  /* multi-item centers: the heaviest function plus the heaviest line and loop, and two functions */
  if (center_flat_row(q, CCT_FLAT_FUNCTIONS, 3, CCT_CENTER_SET, sample, &n)) {
    center_flat_row(q, CCT_FLAT_FUNCTIONS, 1, CCT_CENTER_ADD, sample, &n);
    center_flat_row(q, CCT_FLAT_LINES, 1, CCT_CENTER_ADD, sample, &n);
    center_flat_row(q, CCT_FLAT_LOOPS, 1, CCT_CENTER_ADD, sample, &n);
  }
  if (nrec) {
    inv_case(q, sample, CCT_CENTER_SET, names[0], &n);
    center_flat_row(q, CCT_FLAT_FUNCTIONS, 2, CCT_CENTER_ADD, sample, &n);
  }
  /* stats add up, when the run's per-profile values add up to its summary at the root
   * (classic-hpcviewer-gauss: its metric-db files add up to 5.4e7 of the summary's 8.9e8) */
  cct_center_reset(q);
  cct_stats *s = NULL;
  cct_view *top = topdown(q, 0);
  int rc;
  rc = test_view_stats(q, 4, CCT_STATS_BY_VALUE, &s, &e);
  assert_true(rc == CCT_OK || (rc == CCT_ENOTFOUND && !top->nmetrics));
  int consistent = s && s->count && top->nmetrics &&
                   fabs(s->sum - top->rows[0].inclusive[0]) <= 1e-5 * fabs(top->rows[0].inclusive[0]);
  if (s && s->count && !consistent)
    print_message("  %s: per-profile values add up to %g, the summary to %g: stats not checked\n", sample, s->sum,
                  top->nmetrics ? top->rows[0].inclusive[0] : 0);
  cct_stats_free(s);
  cct_view_free(top);
  if (consistent) {
    check_stats(q, sample);
    for (int i = 1; i <= 3; i++)
      if (center_flat_row(q, CCT_FLAT_FUNCTIONS, i, CCT_CENTER_SET, sample, &n)) check_stats(q, sample);
  }
  print_message("  %s: %d invariant checks, %d recursive functions\n", sample, n, nrec);
  cct_query_close(q);
}

static void test_invariants_samples(void **state) {
  (void)state;
  static const char *const classic[] = {"classic-hatchet-cpi",          "classic-hpcviewer-gauss",
                                        "classic-callflow-lulesh",      "classic-hatchet-osu-allgather",
                                        "classic-hpcviewer-bug-empty",  "classic-hpcviewer-bug-nometric", "classic-hpcviewer-inline.xml.db", "prof2-pipit-ping-pong",
                                        "handmade-recursion",           "handmade-src"};
  for (size_t i = 0; i < sizeof classic / sizeof *classic; i++) invariants_on(classic[i]);
  /* v4 samples: tests/data/v4-* and the databases inside v4-hpctoolkit-tests-dbase */
  const char *data = getenv("CCT_DATA");
  DIR *d = data ? opendir(data) : NULL;
  struct dirent *de;
  while (d && (de = readdir(d))) {
    if (strncmp(de->d_name, "v4-", 3)) continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "%s/%s/meta.db", data, de->d_name);
    if (access(sub, R_OK) == 0) {
      invariants_on(de->d_name);
      continue;
    }
    snprintf(sub, sizeof sub, "%s/%s", data, de->d_name);
    DIR *d2 = opendir(sub);
    struct dirent *de2;
    while (d2 && (de2 = readdir(d2))) {
      if (de2->d_name[0] == '.') continue;
      char name[1024];
      snprintf(name, sizeof name, "%s/%s", de->d_name, de2->d_name);
      invariants_on(name);
    }
    if (d2) closedir(d2);
  }
  if (d) closedir(d);
}

/* The invariants hold on databases written by scripts/gen-db too (classic and
 * v4, with loops, inlining, direct and mutual recursion, several profiles). */
static void test_invariants_generated(void **state) {
  (void)state;
  const char *src = getenv("CCT_SRC");
  if (!src) skip();
  assert_non_null(test_tmpdir());
  static const char *const formats[] = {"classic", "v4"};
  for (size_t i = 0; i < 2; i++) {
    char dir[512], cmd[2048];
    snprintf(dir, sizeof dir, "%s/gen-%s", tmpdir, formats[i]);
    snprintf(cmd, sizeof cmd,
             "python3 '%s/scripts/gen-db' --quiet --format %s --nodes 4000 --profiles 3 --loops 0.05 "
             "--inlined 0.05 --recursion 0.1 --metrics 2 --seed 11 '%s'",
             src, formats[i], dir);
    assert_int_equal(system(cmd), 0);
    char *archive = test_ingest(dir);
    assert_non_null(archive);
    free(archive);
    invariants_on(dir);
  }
}

/* A session on the caller's connection (what the extension uses): the same
 * rows as a session of its own, the connection left open and unchanged, and a
 * connection whose main database is not an archive refused. */
static void test_open_db(void **state) {
  (void)state;
  char *path = test_ingest("classic-hatchet-cpi");
  assert_non_null(path);
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  cct_err e = CCT_ERR_INIT;
  cct_query *own = NULL, *borrowed = NULL;
  assert_int_equal(cct_query_open(path, &own, &e), CCT_OK);
  assert_int_equal(cct_query_open_db(db, &borrowed, &e), CCT_OK);
  assert_ptr_equal(cct_query_db(borrowed), db);
  center(own, CCT_CENTER_SET, "main");
  center(borrowed, CCT_CENTER_SET, "main");
  cct_view *a = NULL, *b = NULL;
  assert_int_equal(test_view(own, CCT_VIEW_TOPDOWN, 4, 0, &a, &e), CCT_OK);
  assert_int_equal(test_view(borrowed, CCT_VIEW_TOPDOWN, 4, 0, &b, &e), CCT_OK);
  assert_int_equal(a->nrows, b->nrows);
  assert_true(a->nrows > 1);
  for (size_t i = 0; i < a->nrows; i++) {
    assert_string_equal(a->rows[i].name, b->rows[i].name);
    assert_true(a->rows[i].inclusive[0] == b->rows[i].inclusive[0]);
  }
  cct_view_free(a);
  cct_view_free(b);
  assert_int_equal(cct_query_set_run(borrowed, cct_query_run(borrowed), &e), CCT_OK); /* a run switch keeps it borrowed */
  cct_query_close(own);
  cct_query_close(borrowed);
  assert_int_equal(sqlite3_get_autocommit(db), 1); /* no transaction left open */
  sqlite3_stmt *st = NULL; /* the connection is still the caller's, open */
  assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM function", -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  sqlite3_finalize(st);
  assert_int_equal(sqlite3_close(db), SQLITE_OK); /* nothing of the session is left on it */
  /* a memory database that is no archive */
  assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
  cct_err e2 = CCT_ERR_INIT;
  assert_int_equal(cct_query_open_db(db, &borrowed, &e2), CCT_ESCHEMA);
  assert_null(borrowed);
  assert_non_null(strstr(e2.msg, "not a cctq archive"));
  sqlite3_close(db);
  free(path);
}

int main(void) {
  if (!getenv("CCTINGEST") || !getenv("CCT_DATA")) {
    fprintf(stderr, "test_query: set CCTINGEST and CCT_DATA (ctest does)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cpi_trees), cmocka_unit_test(test_cpi_hot_path), cmocka_unit_test(test_recursion), cmocka_unit_test(test_items),
      cmocka_unit_test(test_source),    cmocka_unit_test(test_stats),     cmocka_unit_test(test_plans), cmocka_unit_test(test_invariants_generated),
      cmocka_unit_test(test_invariants_samples), cmocka_unit_test(test_open_db),
  };
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
