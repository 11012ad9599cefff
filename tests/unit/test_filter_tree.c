/* test_filter_tree.c: query/filter_tree.c, the filters as in-memory
 * transformations of a tree image: each kind worked by hand on a tree built
 * here (handmade-recursion's shape), and on real samples every kind, alone and
 * composed, checked as a tree (cct_tree_check), node by node against the run's
 * and through qf_values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "filter_tree.h"
#include "query_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "test_view.h"

/* ---- a tree by hand ---- */

/* main -> f (I 60, E 10) -> f (50, 20) -> f (30, 30); main -> a (40, 5) -> b (35, 15) -> a (20, 20);
 * main (100, 0) under the root (100, 0): handmade-recursion's tree, functions main 1, f 2, a 3, b 4. */
static void hand_tree(cct_tree *t) {
  static const int32_t parent[] = {-1, 0, 1, 2, 3, 1, 5, 6};
  static const int32_t fn[] = {0, 1, 2, 2, 2, 3, 4, 3};
  static const double incl[] = {100, 100, 60, 50, 30, 40, 35, 20}, excl[] = {0, 0, 10, 20, 30, 5, 15, 20};
  assert_int_equal(cct_tree_alloc(t, 8), 0);
  for (int32_t i = 0; i < 8; i++) {
    t->id[i] = i + 1;
    t->parent[i] = parent[i];
    t->kind[i] = i ? CCT_KIND_FUNCTION : CCT_KIND_ROOT;
    t->relation[i] = i ? CCT_REL_CALL : CCT_REL_LEXICAL;
    t->function[i] = fn[i];
    t->line[i] = t->call_line[i] = -1;
    t->incl[i] = incl[i], t->excl[i] = t->lex[i] = excl[i];
    t->frame[i] = i;
    t->lparent[i] = parent[i];
    t->fparent[i] = parent[i];
    t->depth[i] = t->fdepth[i] = t->ldepth[i] = i ? t->depth[parent[i]] + 1 : 0;
  }
  static const int32_t last[] = {7, 7, 4, 4, 4, 7, 7, 7};
  for (int32_t i = 0; i < 8; i++) {
    t->last[i] = last[i];
    t->nframes[i] = last[i] - i;
  }
  char why[200];
  if (cct_tree_check(t, why, sizeof why)) fail_msg("hand tree: %s", why);
}

/* Expected nodes of a filtered tree: the hand tree's node (id - 1), depth, inclusive, exclusive. */
typedef struct enode {
  int node, depth;
  double incl, excl;
} enode;

static void expect(const char *what, int kind, const int32_t *occ, size_t nocc, const enode *e, size_t n) {
  cct_tree t;
  hand_tree(&t);
  qf_step s = {kind, occ, nocc};
  qf_tree f;
  cct_err err = CCT_ERR_INIT;
  if (qf_make(&t, &s, 1, &f, &err)) fail_msg("%s: %s", what, err.msg);
  char why[200];
  if (cct_tree_check(&f.t, why, sizeof why)) fail_msg("%s: the filtered tree is broken: %s", what, why);
  if ((size_t)f.t.n != n) fail_msg("%s: %d nodes, expected %zu", what, f.t.n, n);
  for (size_t i = 0; i < n; i++)
    if (f.orig[i] != e[i].node || f.t.id[i] != e[i].node + 1 || f.t.depth[i] != e[i].depth ||
        fabs(f.t.incl[i] - e[i].incl) > 1e-12 || fabs(f.t.excl[i] - e[i].excl) > 1e-12)
      fail_msg("%s: node %zu is %d at depth %d (%g, %g), expected %d at %d (%g, %g)", what, i, f.orig[i], f.t.depth[i],
               f.t.incl[i], f.t.excl[i], e[i].node, e[i].depth, e[i].incl, e[i].excl);
  /* another metric's values (twice the primary) carried by the same log */
  double in[24], out[24];
  for (int i = 0; i < 8; i++) in[3 * i] = 2 * t.incl[i], in[3 * i + 1] = in[3 * i + 2] = 2 * t.excl[i];
  assert_int_equal(qf_values(&f, in, 3, out, &err), CCT_OK);
  for (size_t i = 0; i < n; i++) assert_true(fabs(out[3 * i] - 2 * e[i].incl) < 1e-12 && fabs(out[3 * i + 1] - 2 * e[i].excl) < 1e-12);
  qf_free(&f);
  cct_tree_free(&t);
}

/* The numbers of tests/unit/test_filter.c's hand-worked block, on the tree alone. */
static void test_kinds_by_hand(void **state) {
  (void)state;
  /* recursion: the nested f frames fold into the outer one (E 10 + 20 + 30); the a under b
   * folds into the outer a (a's E 5 + 20), and b loses it (35 - 20). */
  enode rec[] = {{0, 0, 100, 0}, {1, 1, 100, 0}, {2, 2, 60, 60}, {5, 2, 40, 25}, {6, 3, 15, 15}};
  expect("recursion", CCT_FILTER_RECURSION, NULL, 0, rec, 5);
  const int32_t f[] = {2, 3, 4}, a[] = {5, 7}, b[] = {6};
  /* hide f: every f frame goes, its own cost is main's. */
  enode hide[] = {{0, 0, 100, 0}, {1, 1, 100, 60}, {5, 2, 40, 5}, {6, 3, 35, 15}, {7, 4, 20, 20}};
  expect("hide f", CCT_FILTER_HIDE, f, 3, hide, 5);
  /* hide a: the outer a's 5 goes to main, the inner a's 20 to b, which moves up under main. */
  enode hidea[] = {{0, 0, 100, 0}, {1, 1, 100, 5}, {2, 2, 60, 10}, {3, 3, 50, 20}, {4, 4, 30, 30}, {6, 2, 35, 35}};
  expect("hide a", CCT_FILTER_HIDE, a, 2, hidea, 6);
  /* drop b: b's subtree (35) goes from a, main and the program. */
  enode drop[] = {{0, 0, 65, 0}, {1, 1, 65, 0}, {2, 2, 60, 10}, {3, 3, 50, 20}, {4, 4, 30, 30}, {5, 2, 5, 5}};
  expect("drop b", CCT_FILTER_DROP, b, 1, drop, 6);
  /* keep b: only the path main > a > b, ancestors with the sum below them and exclusive 0. */
  enode keep[] = {{0, 0, 35, 0}, {1, 1, 35, 0}, {5, 2, 35, 0}, {6, 3, 35, 15}, {7, 4, 20, 20}};
  expect("keep b", CCT_FILTER_KEEP, b, 1, keep, 5);
  /* prune a: the outer a keeps its 40, all of it its own. */
  enode prune[] = {{0, 0, 100, 0}, {1, 1, 100, 0}, {2, 2, 60, 10}, {3, 3, 50, 20}, {4, 4, 30, 30}, {5, 2, 40, 40}};
  expect("prune a", CCT_FILTER_PRUNE, a, 2, prune, 6);
  /* keep of nothing: the root alone, zero */
  enode none[] = {{0, 0, 0, 0}};
  expect("keep nothing", CCT_FILTER_KEEP, NULL, 0, none, 1);
}

/* Two filters in order: drop b, then keep a: only the outer a is left (I 5); a profile's
 * values (2 components) follow the same log. */
static void test_composed(void **state) {
  (void)state;
  cct_tree t;
  hand_tree(&t);
  const int32_t a[] = {5, 7}, b[] = {6};
  qf_step s[] = {{CCT_FILTER_DROP, b, 1}, {CCT_FILTER_KEEP, a, 2}};
  qf_tree f;
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(qf_make(&t, s, 2, &f, &err), CCT_OK);
  assert_int_equal(f.t.n, 3);
  assert_int_equal(f.orig[2], 5);
  assert_true(fabs(f.t.incl[0] - 5) < 1e-12 && fabs(f.t.excl[2] - 5) < 1e-12);
  double in[16], out[6];
  for (int i = 0; i < 8; i++) in[2 * i] = t.incl[i] / 10, in[2 * i + 1] = t.excl[i] / 10;
  assert_int_equal(qf_values(&f, in, 2, out, &err), CCT_OK);
  assert_true(fabs(out[0] - 0.5) < 1e-12 && fabs(out[2] - 0.5) < 1e-12 && out[3] == 0 && fabs(out[5] - 0.5) < 1e-12);
  qf_free(&f);
  assert_int_equal(qf_make(&t, s, 0, &f, &err), CCT_EUSAGE);
  cct_tree_free(&t);
}

/* ---- against derive.c on real samples ---- */

/* The occurrences of item in the run's tree, as nodes (malloc'd). */
static int32_t *resolve(cct_query *s, const qrun *r, const char *item, size_t *n) {
  qv q = {.a = &s->a, .r = r, .c = &q_no_center, .gran = CCT_GRAN_FUNCTION, .shown_run = r->run};
  cct_center *c = NULL;
  cct_err e = CCT_ERR_INIT;
  if (q_center_edit(&q, NULL, CCT_CENTER_SET, item, NULL, 0, &c, &e)) fail_msg("item %s: %s", item, e.msg);
  int32_t *v = malloc((c->nO + 1) * sizeof *v);
  for (size_t i = 0; i < c->nO; i++) v[i] = (int32_t)(c->O[i].pre - r->tree.base);
  *n = c->nO;
  cct_center_free(c);
  return v;
}

static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-9; }

/* Filters f[0..n) on run 1 of s: the filtered tree passes every check of cct_tree_check, no
 * node is there twice, the primary metric carried by qf_values is the tree's own, and the
 * program total is the run's (hide, recursion) or at most it (keep, drop, prune).  (Until
 * the filters moved here, this compared every node with the tree ingest/derive.c wrote
 * through the writer: equal on 374 filter lists of these samples.) */
static void compare(cct_query *s, const char *sample, const cct_filter *f, size_t n) {
  const qrun *r = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(q_run_get(&s->a, 1, &r, &e), CCT_OK);
  qf_step steps[4];
  int32_t *occ[4] = {0};
  int moves_only = 1;
  for (size_t k = 0; k < n; k++) {
    steps[k].kind = f[k].kind;
    steps[k].nocc = 0;
    if (f[k].item) occ[k] = resolve(s, r, f[k].item, &steps[k].nocc);
    steps[k].occ = occ[k];
    moves_only &= f[k].kind == CCT_FILTER_HIDE || f[k].kind == CCT_FILTER_RECURSION;
  }
  qf_tree ft;
  if (qf_make(&r->tree, steps, n, &ft, &e)) fail_msg("%s: %s", sample, e.msg);
  const cct_tree *a = &ft.t;
  char why[200];
  if (cct_tree_check(a, why, sizeof why)) fail_msg("%s %s: broken tree: %s", sample, cct_filter_name(f[0].kind), why);
  uint8_t *seen = calloc((size_t)r->tree.n, 1);
  double *in = malloc((size_t)r->tree.n * 3 * sizeof *in), *out = malloc((size_t)a->n * 3 * sizeof *out);
  for (int32_t i = 0; i < a->n; i++) {
    if (seen[ft.orig[i]]++) fail_msg("%s: node %d is there twice", sample, ft.orig[i]);
    if (a->id[i] != r->tree.id[ft.orig[i]]) fail_msg("%s: node %d has another id", sample, i);
  }
  for (int32_t i = 0; i < r->tree.n; i++) in[3 * i] = r->tree.incl[i], in[3 * i + 1] = r->tree.excl[i], in[3 * i + 2] = r->tree.lex[i];
  assert_int_equal(qf_values(&ft, in, 3, out, &e), CCT_OK);
  for (int32_t i = 0; i < a->n; i++)
    if (out[3 * i] != a->incl[i] || out[3 * i + 1] != a->excl[i] || out[3 * i + 2] != a->lex[i]) fail_msg("%s: node %d: values differ", sample, i);
  double total = r->tree.incl[0];
  if (moves_only ? !close_to(a->incl[0], total) : a->incl[0] > total * (1 + 1e-12) + 1e-9)
    fail_msg("%s: %s: program %g, the run's %g", sample, cct_filter_name(f[0].kind), a->incl[0], total);
  free(seen);
  free(in);
  free(out);
  qf_free(&ft);
  for (size_t k = 0; k < n; k++) free(occ[k]);
}

static void on_sample(const char *sample) {
  cct_query *s = test_open(sample, 0);
  if (!s) return;
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view(s, CCT_VIEW_FLAT, CCT_FLAT_FUNCTIONS, 0, &v, &e), CCT_OK);
  char names[4][512];
  int n = 0;
  for (size_t i = 1; i < v->nrows && n < 4; i++)
    if (v->rows[i].kind == CCT_ROW_FUNCTION && !strchr(v->rows[i].name, '\'')) snprintf(names[n++], sizeof names[0], "'%s'", v->rows[i].name);
  cct_view_free(v);
  v = NULL;
  char loop[600] = "";
  if (test_view(s, CCT_VIEW_FLAT, CCT_FLAT_LOOPS, 3, &v, &e) == CCT_OK && v->nrows > 1 && v->rows[1].file && v->rows[1].line >= 0)
    snprintf(loop, sizeof loop, "loop %s:%lld", v->rows[1].file, (long long)v->rows[1].line);
  cct_view_free(v);
  int checks = 0;
  for (int i = 0; i < n; i++)
    for (int k = CCT_FILTER_KEEP; k <= CCT_FILTER_RECURSION; k++) {
      cct_filter f[3] = {{k, names[i]}, {CCT_FILTER_HIDE, names[(i + 1) % n]}, {CCT_FILTER_RECURSION, NULL}};
      compare(s, sample, f, 1);
      compare(s, sample, f, 3);
      checks += 2;
    }
  cct_filter all = {CCT_FILTER_RECURSION, NULL};
  compare(s, sample, &all, 1);
  for (int k = CCT_FILTER_KEEP; loop[0] && k <= CCT_FILTER_PRUNE; k++) {
    cct_filter f[2] = {{k, loop}, {CCT_FILTER_PRUNE, n ? names[0] : loop}};
    compare(s, sample, f, 2);
    checks++;
  }
  print_message("  %s: %d filter lists checked\n", sample, checks + 1);
  cct_query_close(s);
}

static void test_on_sample(void **state) {
  (void)state;
  static const char *const samples[] = {"handmade-recursion", "classic-callflow-lulesh", "classic-hatchet-osu-allgather",
                                        "classic-hatchet-cpi", "v4-hpcviewer-lmp-openmp", "v4-hpcviewer-loop-fork-cycles",
                                        "v4-hatchet-cpi", "prof2-pipit-ping-pong", "handmade-src"};
  for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) on_sample(samples[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_kinds_by_hand), cmocka_unit_test(test_composed),
                                     cmocka_unit_test(test_on_sample)};
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
