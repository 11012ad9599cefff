/* test_filter.c: filters (SPEC section 5, query/filter.c + query/filter_tree.c):
 * each kind worked by hand on the hand-made recursion database, a filter
 * naming a loop on LULESH (SPEC section 4's worked loop), and on every real
 * sample the relations a filter must keep (keep X: the program total is X's
 * centered inclusive; drop X: lowered by exactly that; hide X: unchanged and X
 * in no view; prune X: X's inclusive unchanged, no callees) plus the SPEC
 * section 5 invariants under each filter kind, with centers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "test_view.h"

static void filter(cct_query *q, int kind, const char *item) {
  cct_err e = CCT_ERR_INIT;
  if (cct_query_filter_add(q, kind, item, NULL, &e)) fail_msg("filter %s %s: %s", cct_filter_name(kind), item ? item : "", e.msg);
}

static void unfilter(cct_query *q) {
  cct_err e = CCT_ERR_INIT;
  if (cct_query_filter_remove(q, 0, NULL, &e)) fail_msg("filter reset: %s", e.msg);
}

static void center(cct_query *q, const char *item) {
  cct_err e = CCT_ERR_INIT;
  if (cct_center_apply(q, CCT_CENTER_SET, item, &e)) fail_msg("center %s: %s", item, e.msg);
}

static cct_view *view(cct_query *q, int which, int depth) {
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  int rc = which == CCT_VIEW_TOPDOWN    ? test_view(q, CCT_VIEW_TOPDOWN, depth, 0, &v, &e)
           : which == CCT_VIEW_BOTTOMUP ? test_view(q, CCT_VIEW_BOTTOMUP, depth, 0, &v, &e)
                                        : test_view(q, CCT_VIEW_FLAT, CCT_FLAT_FUNCTIONS, 0, &v, &e);
  if (rc) fail_msg("view %d: %s", which, e.msg);
  return v;
}

/* Expected topdown rows: depth, name, inclusive, exclusive. */
typedef struct erow {
  int depth;
  const char *name;
  double incl, excl;
} erow;

static void expect(cct_query *q, const char *what, const erow *e, size_t n) {
  cct_view *v = view(q, CCT_VIEW_TOPDOWN, 9);
  if (v->nrows != n) {
    for (size_t i = 0; i < v->nrows; i++)
      print_message("  row %zu: %*s%s %g %g\n", i, 2 * v->rows[i].depth, "", v->rows[i].name, v->rows[i].inclusive[0],
                    v->rows[i].exclusive[0]);
    fail_msg("%s: %zu rows, expected %zu", what, v->nrows, n);
  }
  for (size_t i = 0; i < n; i++) {
    const cct_row *r = &v->rows[i];
    if (r->depth != e[i].depth || strcmp(r->name, e[i].name) || fabs(r->inclusive[0] - e[i].incl) > 1e-9 ||
        fabs(r->exclusive[0] - e[i].excl) > 1e-9)
      fail_msg("%s: row %zu is %d %s (%g, %g), expected %d %s (%g, %g)", what, i + 1, r->depth, r->name,
               r->inclusive[0], r->exclusive[0], e[i].depth, e[i].name, e[i].incl, e[i].excl);
  }
  assert_int_equal(v->nfilters, 1);
  cct_view_free(v);
  cct_err err = CCT_ERR_INIT;
  if (cct_check_invariants(q, &err)) fail_msg("%s: %s", what, err.msg);
}

/* main -> f (I 60, E 10) -> f (50, 20) -> f (30, 30); main -> a (40, 5) -> b (35, 15) -> a (20, 20);
 * main (100, 0).  Expected values worked by hand from tests/data/handmade-recursion/experiment.xml. */
static void test_kinds_by_hand(void **state) {
  (void)state;
  cct_query *q = test_open("handmade-recursion", 0);
  assert_non_null(q);
  /* recursion: the nested f frames fold into the outer one (E 10 + 20 + 30); the a under b
   * folds into the outer a (a's E 5 + 20), and b loses it (35 - 20). */
  filter(q, CCT_FILTER_RECURSION, NULL);
  erow rec[] = {{0, "<program>", 100, 0}, {1, "main", 100, 0}, {2, "f", 60, 60}, {2, "a", 40, 25}, {3, "b", 15, 15}};
  expect(q, "recursion", rec, 5);
  unfilter(q);
  /* hide f: every f frame goes, its own cost is main's. */
  filter(q, CCT_FILTER_HIDE, "f");
  erow hide[] = {{0, "<program>", 100, 0}, {1, "main", 100, 60}, {2, "a", 40, 5}, {3, "b", 35, 15}, {4, "a", 20, 20}};
  expect(q, "hide f", hide, 5);
  unfilter(q);
  /* hide a: the outer a's 5 goes to main, the inner a's 20 to b, which moves up under main. */
  filter(q, CCT_FILTER_HIDE, "a");
  erow hidea[] = {{0, "<program>", 100, 0}, {1, "main", 100, 5}, {2, "f", 60, 10},
                  {3, "f", 50, 20},       {4, "f", 30, 30},     {2, "b", 35, 35}};
  expect(q, "hide a", hidea, 6);
  unfilter(q);
  /* drop b: b's subtree (35) goes from a, main and the program. */
  filter(q, CCT_FILTER_DROP, "b");
  erow drop[] = {{0, "<program>", 65, 0}, {1, "main", 65, 0}, {2, "f", 60, 10},
                 {3, "f", 50, 20},       {4, "f", 30, 30},   {2, "a", 5, 5}};
  expect(q, "drop b", drop, 6);
  unfilter(q);
  /* keep b: only the path main > a > b, ancestors with the sum below them and exclusive 0. */
  filter(q, CCT_FILTER_KEEP, "b");
  erow keep[] = {{0, "<program>", 35, 0}, {1, "main", 35, 0}, {2, "a", 35, 0}, {3, "b", 35, 15}, {4, "a", 20, 20}};
  expect(q, "keep b", keep, 5);
  unfilter(q);
  /* prune a: the outer a keeps its 40, all of it its own. */
  filter(q, CCT_FILTER_PRUNE, "a");
  erow prune[] = {{0, "<program>", 100, 0}, {1, "main", 100, 0}, {2, "f", 60, 10},
                  {3, "f", 50, 20},       {4, "f", 30, 30},     {2, "a", 40, 40}};
  expect(q, "prune a", prune, 6);
  unfilter(q);
  /* in order: drop b, then keep a: only the outer a is left (I 5). */
  filter(q, CCT_FILTER_DROP, "b");
  filter(q, CCT_FILTER_KEEP, "a");
  cct_view *v = view(q, CCT_VIEW_TOPDOWN, 9);
  assert_int_equal(v->nrows, 3);
  assert_true(fabs(v->rows[0].inclusive[0] - 5) < 1e-9);
  assert_int_equal(v->nfilters, 2);
  assert_string_equal(v->filters[0], "drop b");
  assert_string_equal(v->filters[1], "keep a");
  cct_view_free(v);
  /* the center is resolved in the filtered tree: b is gone */
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "b", &e), CCT_ENOTFOUND);
  /* filter - 1: keep a alone, on the whole tree again (a's outer occurrence: 40) */
  assert_int_equal(cct_query_filter_remove(q, 1, NULL, &e), CCT_OK);
  v = view(q, CCT_VIEW_TOPDOWN, 0);
  assert_true(fabs(v->rows[0].inclusive[0] - 40) < 1e-9);
  cct_view_free(v);
  /* an item that matches nothing changes nothing */
  assert_int_equal(cct_query_filter_add(q, CCT_FILTER_HIDE, "nosuchfunction", NULL, &e), CCT_ENOTFOUND);
  const cct_filter *f = NULL;
  assert_int_equal(cct_query_filters(q, &f), 1);
  /* a center kept across a filter change, and one that loses its only item */
  unfilter(q);
  center(q, "b");
  char *note = NULL;
  assert_int_equal(cct_query_filter_add(q, CCT_FILTER_DROP, "a", &note, &e), CCT_OK);
  assert_non_null(note);
  assert_int_equal(cct_center_count(q), 0);
  free(note);
  cct_query_close(q);
}

/* SPEC section 4's loop: loop lulesh.cc:2059 has inclusive 566,163; dropping it lowers the
 * program by exactly that, keeping it makes it the program. */
static void test_loop_filter(void **state) {
  (void)state;
  cct_query *q = test_open("classic-callflow-lulesh", 0);
  assert_non_null(q);
  cct_view *v = view(q, CCT_VIEW_TOPDOWN, 0);
  double total = v->rows[0].inclusive[0];
  cct_view_free(v);
  filter(q, CCT_FILTER_DROP, "loop lulesh.cc:2059");
  v = view(q, CCT_VIEW_TOPDOWN, 0);
  assert_true(fabs(v->rows[0].inclusive[0] - (total - 566163)) < 1e-6);
  cct_view_free(v);
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "loop lulesh.cc:2059", &e), CCT_ENOTFOUND);
  unfilter(q);
  filter(q, CCT_FILTER_KEEP, "loop lulesh.cc:2059");
  v = view(q, CCT_VIEW_TOPDOWN, 0);
  assert_true(fabs(v->rows[0].inclusive[0] - 566163) < 1e-6);
  cct_view_free(v);
  center(q, "loop lulesh.cc:2059");
  v = view(q, CCT_VIEW_TOPDOWN, 0);
  assert_true(fabs(v->rows[0].inclusive[0] - 566163) < 1e-6 && fabs(v->rows[0].exclusive[0] - 566163) < 1e-6);
  cct_view_free(v);
  if (cct_check_invariants(q, &e)) fail_msg("keep loop: %s", e.msg);
  cct_query_close(q);
}

/* The program total (root inclusive) and X's centered inclusive. */
static double program(cct_query *q) {
  cct_center_reset(q);
  cct_view *v = view(q, CCT_VIEW_TOPDOWN, 0);
  double t = v->nmetrics ? v->rows[0].inclusive[0] : 0;
  cct_view_free(v);
  return t;
}

static double centered(cct_query *q, const char *item) {
  center(q, item);
  cct_view *v = view(q, CCT_VIEW_TOPDOWN, 0);
  double t = v->nmetrics ? v->rows[0].inclusive[0] : 0;
  cct_view_free(v);
  return t;
}

/* Whether a view (flat or topdown 40) shows a row named name. */
static int shows(cct_query *q, int which, const char *name) {
  cct_view *v = view(q, which, 40);
  int found = 0;
  for (size_t i = 0; i < v->nrows && !found; i++) found = v->rows[i].kind == CCT_ROW_FUNCTION && !strcmp(v->rows[i].name, name);
  cct_view_free(v);
  return found;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9; }

/* Invariants with the centers a user would pick: the heaviest functions and loop. */
static void invariants(cct_query *q, const char *what) {
  cct_err e = CCT_ERR_INIT;
  cct_center_reset(q);
  if (cct_check_invariants(q, &e)) fail_msg("%s, no center: %s", what, e.msg);
  for (int k = 0; k < 2; k++) {
    cct_view *v = NULL;
    if (test_view(q, CCT_VIEW_FLAT, k ? CCT_FLAT_LOOPS : CCT_FLAT_FUNCTIONS, 4, &v, &e)) fail_msg("%s: %s", what, e.msg);
    for (size_t i = 1; i < v->nrows; i++) {
      if (k && v->rows[i].line < 0) continue; /* a loop of unknown place cannot be named */
      char item[32];
      snprintf(item, sizeof item, "@%zu", i + 1);
      cct_view *again = NULL;
      test_view(q, CCT_VIEW_FLAT, k ? CCT_FLAT_LOOPS : CCT_FLAT_FUNCTIONS, 4, &again, &e);
      cct_view_free(again);
      if (cct_center_apply(q, CCT_CENTER_SET, item, &e)) fail_msg("%s: center %s: %s", what, item, e.msg);
      for (int g = 0; g < 2; g++) {
        cct_query_set_granularity(q, g);
        if (cct_check_invariants(q, &e)) fail_msg("%s, center %s (%s): %s", what, v->rows[i].name, g ? "line" : "function", e.msg);
      }
      cct_query_set_granularity(q, CCT_GRAN_FUNCTION);
    }
    cct_view_free(v);
  }
  cct_center_reset(q);
}

/* After 'filter recursion', no function row of topdown 60 has a row of the same function
 * (name, file and line: two functions may share a name) above it (a direct self-call,
 * f > f > f, is merged too). */
static void under_itself(cct_query *q, const char *sample) {
  cct_view *v = view(q, CCT_VIEW_TOPDOWN, 60);
  const cct_row *path[64] = {0};
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if (r->depth < 0 || r->depth >= 64) continue;
    path[r->depth] = r->kind == CCT_ROW_FUNCTION && r->name[0] != '<' ? r : NULL; /* not "<inline>" */
    for (int d = 0; path[r->depth] && d < r->depth; d++)
      if (path[d] && !strcmp(path[d]->name, r->name) && path[d]->line == r->line &&
          !strcmp(path[d]->file ? path[d]->file : "", r->file ? r->file : ""))
        fail_msg("%s: recursion: %s (row %zu) under itself", sample, r->name, i + 1);
  }
  cct_view_free(v);
}

static void relations_on(const char *sample) {
  cct_query *q = test_open(sample, 0);
  if (!q) return;
  cct_view *v = view(q, CCT_VIEW_FLAT, 0);
  if (!v->nmetrics || !v->nrows) {
    cct_view_free(v);
    cct_query_close(q);
    return;
  }
  /* three heavy functions below the top (not the root or main, whose subtrees are everything) */
  char names[3][512];
  int n = 0;
  for (size_t i = 2; i < v->nrows && n < 3; i++)
    if (v->rows[i].kind == CCT_ROW_FUNCTION && !strchr(v->rows[i].name, '\'') && v->rows[i].name[0] != '<')
      snprintf(names[n++], sizeof names[0], "'%s'", v->rows[i].name);
  cct_view_free(v);
  double total = program(q);
  int checks = 0;
  for (int i = 0; i < n; i++) {
    const char *x = names[i];
    double cx = centered(q, x);
    filter(q, CCT_FILTER_KEEP, x);
    if (!close_to(program(q), cx)) fail_msg("%s: keep %s: program %g, %s's inclusive %g", sample, x, program(q), x, cx);
    invariants(q, "keep");
    unfilter(q);
    filter(q, CCT_FILTER_DROP, x);
    if (!close_to(program(q), total - cx)) fail_msg("%s: drop %s: program %g, expected %g", sample, x, program(q), total - cx);
    invariants(q, "drop");
    unfilter(q);
    filter(q, CCT_FILTER_HIDE, x);
    char bare[512];
    snprintf(bare, sizeof bare, "%.*s", (int)strlen(x) - 2, x + 1);
    if (!close_to(program(q), total)) fail_msg("%s: hide %s: program %g, expected %g", sample, x, program(q), total);
    if (shows(q, CCT_VIEW_FLAT, bare) || shows(q, CCT_VIEW_TOPDOWN, bare)) fail_msg("%s: hide %s: still shown", sample, x);
    invariants(q, "hide");
    unfilter(q);
    filter(q, CCT_FILTER_PRUNE, x);
    center(q, x);
    cct_view *t = view(q, CCT_VIEW_TOPDOWN, 3);
    if (!close_to(t->rows[0].inclusive[0], cx) || t->nrows != 1 || !close_to(t->rows[0].exclusive[0], cx))
      fail_msg("%s: prune %s: %zu rows, (%g, %g), expected 1 row (%g, %g)", sample, x, t->nrows, t->rows[0].inclusive[0],
               t->rows[0].exclusive[0], cx, cx);
    cct_view_free(t);
    invariants(q, "prune");
    /* a combination: prune, then hide the next one, with centers */
    if (i + 1 < n) {
      cct_err e = CCT_ERR_INIT;
      if (cct_query_filter_add(q, CCT_FILTER_HIDE, names[i + 1], NULL, &e) == CCT_OK) invariants(q, "prune + hide");
    }
    unfilter(q);
    checks += 5;
  }
  /* recursion of every function: centered inclusives stay, no function under itself */
  filter(q, CCT_FILTER_RECURSION, NULL);
  if (!close_to(program(q), total)) fail_msg("%s: recursion: program %g, expected %g", sample, program(q), total);
  invariants(q, "recursion");
  under_itself(q, sample);
  for (int i = 0; i < n; i++) {
    double cx = centered(q, names[i]);
    unfilter(q);
    double before = centered(q, names[i]);
    if (!close_to(cx, before)) fail_msg("%s: recursion: %s %g, before %g", sample, names[i], cx, before);
    filter(q, CCT_FILTER_RECURSION, NULL);
  }
  unfilter(q);
  print_message("  %s: %d filter relations, invariants under each kind\n", sample, checks + 1);
  cct_query_close(q);
}

static void test_relations_samples(void **state) {
  (void)state;
  static const char *const samples[] = {"classic-callflow-lulesh", "classic-hatchet-osu-allgather", "classic-hatchet-cpi",
                                        "v4-hpcviewer-lmp-openmp", "v4-hpcviewer-loop-fork-cycles", "v4-hatchet-cpi",
                                        "prof2-pipit-ping-pong",   "handmade-src"};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) relations_on(samples[i]);
}

/* stats follow the filters: the per-profile values of a filtered run add up to its total. */
static void test_stats_filtered(void **state) {
  (void)state;
  cct_query *q = test_open("classic-hatchet-osu-allgather", 0);
  assert_non_null(q);
  filter(q, CCT_FILTER_DROP, "PMPI_Finalize");
  double total = program(q);
  cct_stats *s = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view_stats(q, 4, CCT_STATS_BY_VALUE, &s, &e), CCT_OK);
  assert_true(s->count == 20);
  if (fabs(s->sum - total) > 1e-6 * total) fail_msg("stats sum %g, filtered program %g", s->sum, total);
  cct_stats_free(s);
  cct_query_close(q);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_kinds_by_hand), cmocka_unit_test(test_loop_filter),
                                     cmocka_unit_test(test_relations_samples), cmocka_unit_test(test_stats_filtered)};
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
