/* test_view.h: how the tests (unit tests, fuzz drivers, picture_render)
 * compute a view with a session's settings, as the shell does: the session's
 * spec (cct_view_spec_init) with the view's own fields, cct_view_compute, and
 * the rows then named by '@N' (cct_query_remember); pictures of those
 * settings.  Header-only. */
#ifndef CCT_TEST_VIEW_H
#define CCT_TEST_VIEW_H

#include "cct_picture.h"
#include "cct_query.h"

/* The session's spec for view: arg is the depth of topdown and bottomup, the
 * kind (CCT_FLAT_*) of flat, whose rows are at most n (0: all). */
static inline cct_view_spec test_spec(const cct_query *q, int view, int arg, int n) {
  cct_view_spec s;
  cct_view_spec_init(q, view, &s);
  if (view == CCT_VIEW_FLAT) s.flat_kind = arg, s.flat_n = n;
  else s.depth = arg;
  return s;
}

/* Computes spec's view and makes '@N' name its rows.  Returns as
 * cct_view_compute (*out NULL on error). */
static inline int test_show(cct_query *q, const cct_view_spec *spec, cct_view **out, cct_err *err) {
  int rc = cct_view_compute(q, spec, out, err);
  if (!rc && (rc = cct_query_remember(q, *out, err))) {
    cct_view_free(*out);
    *out = NULL;
  }
  return rc;
}

/* test_show of test_spec(q, view, arg, n). */
static inline int test_view(cct_query *q, int view, int arg, int n, cct_view **out, cct_err *err) {
  cct_view_spec s = test_spec(q, view, arg, n);
  return test_show(q, &s, out, err);
}

/* The distribution of the session's center over profiles (cct_stats_compute). */
static inline int test_view_stats(cct_query *q, size_t bins, int order, cct_stats **out, cct_err *err) {
  cct_view_spec s = test_spec(q, CCT_VIEW_TOPDOWN, 0, 0);
  return cct_stats_compute(q, &s, bins, order, out, err);
}

/* The source view of file ('@N', a path suffix, NULL: the center's file). */
static inline int test_view_source(cct_query *q, const char *file, cct_view **out, cct_err *err) {
  cct_view_spec s = test_spec(q, CCT_VIEW_SOURCE, 0, 0);
  s.file = file;
  return test_show(q, &s, out, err);
}

/* Writes picture what (0: SVG sandwich, 1: HTML page, 2: stats SVG) of the
 * session's settings, depth levels, to f.  Returns as cct_picture_*. */
static inline int test_picture(cct_query *q, int what, int depth, const cct_picture_opts *o, FILE *f, cct_err *e) {
  cct_view_spec s = test_spec(q, CCT_VIEW_TOPDOWN, depth, 0);
  if (what < 2) return (what ? cct_picture_html : cct_picture_svg)(q, &s, o, f, e);
  cct_stats *st = NULL;
  int rc = cct_stats_compute(q, &s, 10, CCT_STATS_BY_VALUE, &st, e);
  if (!rc) rc = cct_picture_stats_svg(st, s.center, CCT_STATS_BY_VALUE, f, e);
  cct_stats_free(st);
  return rc;
}

#endif
