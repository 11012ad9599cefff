/* test_swap_center.c: cct_query_swap_center, the session side of the TUI's
 * center history, on the real lulesh sample.  A center made by
 * cct_center_edit on a view of the pure core becomes the session's; the
 * previous one comes back to the caller untouched and can be swapped in
 * again; NULL empties the center; nothing of the session's '@N' rows changes.
 * Expected values are the library's own for the same items typed in
 * (cct_center_apply), an independent path through the session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_query.h"
#include "test_util.h"
#include "test_view.h"

static cct_query *open_lulesh(void) {
  char *path = test_ingest("classic-callflow-lulesh");
  assert_non_null(path);
  cct_query *q = NULL;
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(cct_query_open(path, &q, &err), CCT_OK);
  free(path);
  return q;
}

/* Inclusive of the top row of topdown 1 with the session's settings. */
static double top_inclusive(cct_query *q) {
  cct_view *v = NULL;
  cct_err err = CCT_ERR_INIT;
  assert_int_equal(test_view(q, CCT_VIEW_TOPDOWN, 1, 0, &v, &err), CCT_OK);
  double d = v->rows[0].inclusive[0];
  cct_view_free(v);
  return d;
}

static void test_swap(void **state) {
  (void)state;
  cct_query *q = open_lulesh();
  cct_err err = CCT_ERR_INIT;
  /* The expected value: the item typed into the session. */
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "'CalcForceForNodes(Domain&)'", &err), CCT_OK);
  double want = top_inclusive(q);
  cct_center_reset(q);
  double program = top_inclusive(q);
  assert_true(want < program);

  /* A flat view of the core, its row named CalcForceForNodes(Domain&), '@N' of it. */
  cct_view_spec spec;
  cct_view_spec_init(q, CCT_VIEW_FLAT, &spec);
  spec.flat_kind = CCT_FLAT_FUNCTIONS;
  spec.flat_n = 50;
  cct_view *flat = NULL;
  assert_int_equal(cct_view_compute(q, &spec, &flat, &err), CCT_OK);
  int h = 0;
  for (size_t i = 0; i < flat->nrows; i++)
    if (!strcmp(flat->rows[i].name, "CalcForceForNodes(Domain&)")) h = flat->rows[i].handle;
  assert_true(h > 0);
  char item[32];
  snprintf(item, sizeof item, "@%d", h);
  cct_center *c = NULL, *old = (cct_center *)1;
  assert_int_equal(cct_center_edit(q, 0, cct_query_center(q), CCT_CENTER_SET, item, flat, &c, &err), CCT_OK);
  assert_non_null(c);
  cct_view_free(flat);

  assert_int_equal(cct_query_swap_center(q, c, &old, &err), CCT_OK);
  assert_null(old); /* there was no center */
  assert_int_equal(cct_center_count(q), 1);
  assert_true(top_inclusive(q) == want);

  /* Back to no center, and the center handed back can go in again. */
  assert_int_equal(cct_query_swap_center(q, NULL, &old, &err), CCT_OK);
  assert_ptr_equal(old, c);
  assert_int_equal(cct_center_count(q), 0);
  assert_true(top_inclusive(q) == program);
  cct_center *none = (cct_center *)1;
  assert_int_equal(cct_query_swap_center(q, old, &none, &err), CCT_OK);
  assert_null(none);
  assert_true(top_inclusive(q) == want);
  cct_query_close(q); /* frees the center it holds */
}

int main(void) {
  if (!getenv("CCTINGEST") || !getenv("CCT_DATA")) {
    fprintf(stderr, "test_swap_center: set CCTINGEST and CCT_DATA (ctest does)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_swap)};
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
