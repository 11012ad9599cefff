/* test_picture.c: tests of the pictures (query/picture.c) on archives ingested
 * from tests/data with $CCTINGEST.  Each SVG is parsed with libxml2 and its
 * frames are checked against the library's views for the same center: the
 * middle row spans the frame width, every frame's width is its inclusive value
 * relative to the center (within 0.5px), children never overflow their parent,
 * every frame has a <title>, and exactly the rows wide enough are drawn.  Also
 * the HTML page (self-contained, session untouched) and the stats SVG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cct_picture.h"
#include "cct_query.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "test_view.h"

/* Renders with fn into memory; returns the text (caller frees). */
/* noinline: inlined, GCC takes the open_memstream buffer for a pointer to the local
 * 'buf' itself and warns of a dangling pointer in the callers (-Wdangling-pointer). */
__attribute__((noinline)) static char *render(cct_query *q, int what, int depth, const cct_picture_opts *o,
                                              size_t *len) {
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  assert_non_null(f);
  cct_err e = CCT_ERR_INIT;
  int rc = test_picture(q, what, depth, o, f, &e);
  fclose(f);
  if (rc) fail_msg("picture: %s", e.msg);
  if (len) *len = n;
  return buf;
}

/* ---- frames of a parsed SVG ---- */

typedef struct frame {
  char part[16];
  int handle, parent, depth;
  double inclusive, width;
  int has_title, has_rect;
} frame;

typedef struct frames {
  frame *f;
  size_t n, cap;
  double fw;
} frames;

static double attr_num(xmlNode *n, const char *name) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  if (!v) fail_msg("missing attribute %s", name);
  double d = strtod((const char *)v, NULL);
  xmlFree(v);
  return d;
}

static int has_class(xmlNode *n, const char *cls) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)"class");
  int r = v && strstr((const char *)v, cls) != NULL;
  xmlFree(v);
  return r;
}

static void collect(xmlNode *n, frames *fs) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE) continue;
    if (!strcmp((const char *)n->name, "g") && has_class(n, "frame")) {
      if (fs->n == fs->cap) {
        fs->cap = fs->cap ? 2 * fs->cap : 64;
        fs->f = realloc(fs->f, fs->cap * sizeof *fs->f);
        assert_non_null(fs->f);
      }
      frame *f = &fs->f[fs->n++];
      memset(f, 0, sizeof *f);
      xmlChar *part = xmlGetProp(n, (const xmlChar *)"data-part");
      assert_non_null(part);
      snprintf(f->part, sizeof f->part, "%s", (const char *)part);
      xmlFree(part);
      f->handle = (int)attr_num(n, "data-handle");
      f->parent = (int)attr_num(n, "data-parent");
      f->depth = (int)attr_num(n, "data-depth");
      f->inclusive = attr_num(n, "data-inclusive");
      for (xmlNode *c = n->children; c; c = c->next) {
        if (c->type != XML_ELEMENT_NODE) continue;
        if (!strcmp((const char *)c->name, "title")) f->has_title = 1;
        if (!strcmp((const char *)c->name, "rect")) {
          f->has_rect = 1;
          f->width = attr_num(c, "width");
        }
      }
      continue;
    }
    collect(n->children, fs);
  }
}

/* Parses svg (must be well-formed) and returns its frames. */
static frames parse_svg(const char *svg, size_t len) {
  xmlDoc *doc = xmlReadMemory(svg, (int)len, "picture.svg", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (!doc) fail_msg("SVG is not well-formed XML");
  xmlNode *root = xmlDocGetRootElement(doc);
  assert_string_equal((const char *)root->name, "svg");
  frames fs = {0};
  fs.fw = attr_num(root, "data-frame-width");
  collect(root, &fs);
  xmlFreeDoc(doc);
  return fs;
}

static const frame *find(const frames *fs, const char *part, int handle) {
  for (size_t i = 0; i < fs->n; i++) {
    const char *p = fs->f[i].part;
    int top = !strcmp(p, "center") || !strcmp(p, "root");
    if (handle == 1 && top) return &fs->f[i];
    if (!strcmp(p, part) && fs->f[i].handle == handle) return &fs->f[i];
  }
  return NULL;
}

/* Checks the frames of one half against view v (part "callee" or "caller"). */
static void check_half(const frames *fs, const cct_view *v, const char *part, double minw) {
  assert_true(v->nrows > 0);
  double top = v->rows[0].inclusive[0], fw = fs->fw;
  const frame *mid = find(fs, part, 1);
  assert_non_null(mid);
  assert_true(fabs(mid->width - fw) < 1e-6);
  assert_true(fabs(mid->inclusive - top) <= 1e-9 * fmax(1, fabs(top)));
  size_t drawn = 0;
  int skip = -1;
  for (size_t i = 1; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if (skip >= 0 && r->depth > skip) continue;
    skip = -1;
    double w = top > 0 && r->inclusive[0] > 0 ? r->inclusive[0] / top * fw : 0;
    const frame *f = find(fs, part, r->handle);
    if (w < minw) {
      if (f) fail_msg("%s row %d (%s) is %.4fpx wide but drawn", part, r->handle, r->name, w);
      skip = r->depth;
      continue;
    }
    if (!f) fail_msg("%s row %d (%s, %.3fpx) is not drawn", part, r->handle, r->name, w);
    drawn++;
    if (fabs(f->width - w) > 0.5) fail_msg("%s row %d (%s): width %.3f, expected %.3f", part, r->handle, r->name, f->width, w);
    if (fabs(f->inclusive - r->inclusive[0]) > 1e-9 * fmax(1, fabs(r->inclusive[0])))
      fail_msg("%s row %d: data-inclusive %g, view %g", part, r->handle, f->inclusive, r->inclusive[0]);
    assert_int_equal(f->depth, r->depth);
  }
  size_t n = 0;
  for (size_t i = 0; i < fs->n; i++)
    if (!strcmp(fs->f[i].part, part)) n++;
  assert_int_equal(n, drawn);
  /* children fit in their parent; each child's width relative to the parent's is the inclusive ratio */
  for (size_t i = 0; i < fs->n; i++) {
    const frame *p = &fs->f[i];
    int ptop = !strcmp(p->part, "center") || !strcmp(p->part, "root");
    if (!ptop && strcmp(p->part, part)) continue;
    double sum = 0;
    for (size_t j = 0; j < fs->n; j++) {
      const frame *c = &fs->f[j];
      if (strcmp(c->part, part) || c->parent != (ptop ? 1 : p->handle)) continue;
      sum += c->width;
      if (p->inclusive > 0) {
        double expect = c->inclusive / p->inclusive * p->width;
        if (fabs(c->width - expect) > 0.5) fail_msg("%s %d: width %.3f, parent ratio gives %.3f", part, c->handle, c->width, expect);
      }
    }
    if (sum > p->width + 0.01) fail_msg("%s %d: children %.3fpx exceed parent %.3fpx", part, p->handle, sum, p->width);
  }
  for (size_t i = 0; i < fs->n; i++) {
    assert_true(fs->f[i].has_title);
    assert_true(fs->f[i].has_rect);
  }
}

/* Renders the SVG sandwich for q's center and checks it against the views. */
static void check_svg(cct_query *q, int depth, const cct_picture_opts *o) {
  size_t len;
  char *svg = render(q, 0, depth, o, &len);
  frames fs = parse_svg(svg, len);
  double minw = o && o->min_width > 0 ? o->min_width : 0.1;
  assert_true(fabs(fs.fw - ((o && o->width ? o->width : 1200) - 20)) < 1e-9);
  cct_view *td = NULL, *bu = NULL;
  cct_err e = CCT_ERR_INIT;
  if (test_view(q, CCT_VIEW_TOPDOWN, depth, 0, &td, &e)) fail_msg("topdown: %s", e.msg);
  check_half(&fs, td, "callee", minw);
  if (cct_center_count(q)) {
    if (test_view(q, CCT_VIEW_BOTTOMUP, depth, 0, &bu, &e)) fail_msg("bottomup: %s", e.msg);
    check_half(&fs, bu, "caller", minw);
    assert_non_null(find(&fs, "center", 1));
    assert_string_equal(find(&fs, "center", 1)->part, "center");
  } else {
    for (size_t i = 0; i < fs.n; i++) assert_string_not_equal(fs.f[i].part, "caller");
    assert_string_equal(find(&fs, "root", 1)->part, "root");
  }
  cct_view_free(td);
  cct_view_free(bu);
  free(fs.f);
  free(svg);
}

/* The heaviest real function (not a placeholder like '<program root>'). */
static char *heaviest(cct_query *q, int skip) {
  cct_view *v = NULL;
  cct_err e = CCT_ERR_INIT;
  if (test_view(q, CCT_VIEW_FLAT, CCT_FLAT_FUNCTIONS, 50, &v, &e)) fail_msg("flat: %s", e.msg);
  char *name = NULL;
  for (size_t i = 0; i < v->nrows && !name; i++)
    if (v->rows[i].name[0] != '<' && !strchr(v->rows[i].name, ' ') && skip-- == 0) name = strdup(v->rows[i].name);
  cct_view_free(v);
  return name;
}

static void center(cct_query *q, const char *item) {
  cct_err e = CCT_ERR_INIT;
  if (cct_center_apply(q, CCT_CENTER_SET, item, &e)) fail_msg("center %s: %s", item, e.msg);
}

static void sample_pictures(const char *name, const char *extra_center) {
  cct_query *q = test_open(name, 0);
  if (!q) {
    print_message("skip: %s not available\n", name);
    return;
  }
  check_svg(q, 6, NULL);
  for (int k = 0; k < 2; k++) {
    char *h = heaviest(q, k);
    assert_non_null(h);
    center(q, h);
    check_svg(q, 5, NULL);
    cct_picture_opts o = {800, CCT_PICTURE_COLOR_KIND, 0.5};
    check_svg(q, 8, &o);
    cct_query_set_granularity(q, CCT_GRAN_LINE);
    check_svg(q, 4, NULL);
    cct_query_set_granularity(q, CCT_GRAN_FUNCTION);
    free(h);
  }
  if (extra_center) {
    center(q, extra_center);
    check_svg(q, 12, NULL);
    cct_query_set_threshold(q, 0.01);
    check_svg(q, 12, NULL);
    cct_query_set_threshold(q, 0);
  }
  cct_center_reset(q);
  check_svg(q, 3, NULL);
  cct_query_close(q);
}

static void test_svg_osu(void **state) {
  (void)state;
  sample_pictures("classic-hatchet-osu-allgather", "pthread_spin_lock");
}

static void test_svg_gauss(void **state) {
  (void)state;
  sample_pictures("classic-hpcviewer-gauss", NULL);
}

static void test_svg_v4(void **state) {
  (void)state;
  sample_pictures("v4-pipit-ping-pong", NULL);
  sample_pictures("v4-hpctoolkit-small_v4.0", NULL);
}

/* The HTML page: self-contained, embeds the tree, leaves the session as it was. */
static void test_html(void **state) {
  (void)state;
  cct_query *q = test_open("classic-hatchet-osu-allgather", 0);
  if (!q) skip();
  center(q, "pthread_spin_lock");
  cct_query_set_threshold(q, 0.001);
  cct_view *before = NULL, *after = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view(q, CCT_VIEW_TOPDOWN, 4, 0, &before, &e), CCT_OK);
  char *html = render(q, 1, 6, NULL, NULL);
  assert_int_equal(test_view(q, CCT_VIEW_TOPDOWN, 4, 0, &after, &e), CCT_OK);
  /* the session keeps its center, metric and threshold */
  assert_int_equal(cct_center_count(q), 1);
  assert_string_equal(cct_center_item(q, 0), "pthread_spin_lock");
  assert_true(cct_query_threshold(q) == 0.001);
  assert_int_equal(before->nrows, after->nrows);
  for (size_t i = 0; i < before->nrows; i++) assert_true(before->rows[i].inclusive[0] == after->rows[i].inclusive[0]);
  cct_view_free(before);
  cct_view_free(after);
  assert_non_null(strstr(html, "<!DOCTYPE html>"));
  assert_non_null(strstr(html, "<script id=\"cct-data\" type=\"application/json\">"));
  assert_non_null(strstr(html, "\"tree\":[\n[-1,-1,"));
  assert_non_null(strstr(html, "\"label\":\"pthread_spin_lock\",\"centered\":true"));
  /* no external assets */
  assert_null(strstr(html, "<link"));
  assert_null(strstr(html, " src="));
  assert_null(strstr(html, "href="));
  assert_null(strstr(html, "@import"));
  assert_null(strstr(html, "url("));
  assert_null(strstr(html, "https:"));
  /* the embedded JSON never closes the script element early */
  const char *data = strstr(html, "application/json\">"), *end = strstr(data, "</script>");
  assert_non_null(end);
  for (const char *p = data + 18; p < end; p++) assert_false(*p == '<');
  free(html);
  /* no center: the whole program, no caller rows */
  cct_center_reset(q);
  html = render(q, 1, 4, NULL, NULL);
  assert_non_null(strstr(html, "\"centered\":false"));
  assert_non_null(strstr(html, "\"caller\":null"));
  free(html);
  cct_query_close(q);
}

static void test_stats_svg(void **state) {
  (void)state;
  cct_query *q = test_open("classic-hatchet-osu-allgather", 0);
  if (!q) skip();
  center(q, "pthread_spin_lock");
  size_t len;
  char *svg = render(q, 2, 0, NULL, &len);
  xmlDoc *doc = xmlReadMemory(svg, (int)len, "stats.svg", NULL, XML_PARSE_NONET);
  assert_non_null(doc);
  cct_stats *s = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_view_stats(q, 10, CCT_STATS_BY_VALUE, &s, &e), CCT_OK);
  /* one bar per profile, sorted; one bin per histogram bin with its count
   * (all 20 profiles are CPU threads: one set of panels) */
  size_t bars = 0, bins = 0, binsum = 0;
  double last = INFINITY, lasth = INFINITY;
  xmlNode *root = xmlDocGetRootElement(doc);
  for (xmlNode *n = root->children; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE || strcmp((const char *)n->name, "rect")) continue;
    if (has_class(n, "bar")) {
      double v = attr_num(n, "data-value"), h = attr_num(n, "height");
      assert_true(fabs(v - s->profiles[bars].value) <= 1e-9 * fmax(1, fabs(v)));
      assert_true(v <= last && h <= lasth + 1e-3);
      last = v, lasth = h;
      bars++;
    } else if (has_class(n, "bin")) {
      assert_int_equal((size_t)attr_num(n, "data-count"), s->kinds[CCT_PROFILE_CPU].histogram[bins]);
      binsum += s->kinds[CCT_PROFILE_CPU].histogram[bins++];
    }
  }
  assert_int_equal(bars, s->count);
  assert_int_equal(bins, s->bins);
  assert_int_equal(binsum, s->count);
  assert_non_null(strstr(svg, "CPU threads, sorted by value (20)"));
  assert_null(strstr(svg, "GPU streams"));
  assert_non_null(strstr(svg, ">profiles</text>"));
  cct_stats_free(s);
  xmlFreeDoc(doc);
  free(svg);
  cct_query_close(q);
}

/* Errors: nothing is written, the error comes back. */
static void test_errors(void **state) {
  (void)state;
  cct_query *q = test_open("classic-hatchet-osu-allgather", 0);
  if (!q) skip();
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(test_picture(q, 0, -1, NULL, f, &e), CCT_EUSAGE);
  assert_int_equal(test_picture(q, 1, -2, NULL, f, &e), CCT_EUSAGE);
  fclose(f);
  assert_int_equal(n, 0);
  assert_non_null(strstr(e.msg, "depth"));
  free(buf);
  cct_query_close(q);
}

/* Names that are not UTF-8 (a v4 meta.db stores raw bytes) or hold control
 * characters: the SVGs stay well-formed XML and the page valid UTF-8 (libxml2
 * checks both), bad bytes shown as U+FFFD and ESC visibly (issue 13 item 8;
 * the old check let lead bytes 0x80-0xBF and 0xF8-0xFF through raw). */
static void test_bad_utf8(void **state) {
  (void)state;
  char *path = test_ingest("classic-hatchet-osu-allgather");
  if (!path) skip();
  char bad[600], sql[1400];
  snprintf(bad, sizeof bad, "%s/bad-utf8.sqlite", test_tmpdir());
  unlink(bad);
  sqlite3 *db = NULL;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", bad);
  assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  assert_int_equal(sqlite3_open(bad, &db), SQLITE_OK);
  /* 'main' becomes m a i n 0x80 0xFF ESC [ 2 J */
  assert_int_equal(sqlite3_exec(db, "UPDATE function SET name = CAST(X'6d61696e80ff1b5b324a' AS TEXT) WHERE name = 'main'",
                                NULL, NULL, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_changes(db), 1);
  sqlite3_close(db);
  free(path);
  cct_query *q = NULL;
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_query_open(bad, &q, &e), CCT_OK);
  for (int w = 0; w < 3; w++) {
    size_t len;
    char *out = render(q, w, 3, NULL, &len);
    assert_true(xmlCheckUTF8((const xmlChar *)out));
    assert_null(memchr(out, 0x1b, len));
    if (w == 0) {
      xmlDoc *doc = xmlReadMemory(out, (int)len, "bad.svg", NULL, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
      assert_non_null(doc);
      xmlFreeDoc(doc);
      assert_non_null(strstr(out, "main\xEF\xBF\xBD\xEF\xBF\xBD\\x1b[2J"));
    }
    if (w == 1) assert_non_null(strstr(out, "\"main\xEF\xBF\xBD\xEF\xBF\xBD\\u001b[2J\""));
    free(out);
  }
  cct_query_close(q);
}

/* A host that set a comma locale (LC_NUMERIC de_DE) gets the same bytes: SVG
 * coordinates and JSON numbers keep '.' (before, "x=\"10,000\"" broke both). */
static void test_host_locale(void **state) {
  (void)state;
  cct_query *q = test_open("classic-hatchet-osu-allgather", 0);
  if (!q) skip();
  cct_err e = CCT_ERR_INIT;
  assert_int_equal(cct_center_apply(q, CCT_CENTER_SET, "main", &e), CCT_OK);
  char *c[3], *l[3];
  for (int w = 0; w < 3; w++) c[w] = render(q, w, 3, NULL, NULL);
  int have = test_comma_locale();
  for (int w = 0; w < 3; w++) l[w] = render(q, w, 3, NULL, NULL);
  setlocale(LC_ALL, "C");
  for (int w = 0; w < 3; w++) {
    if (have) assert_string_equal(l[w], c[w]);
    free(c[w]);
    free(l[w]);
  }
  cct_query_close(q);
  if (!have) skip();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_svg_osu),  cmocka_unit_test(test_svg_gauss), cmocka_unit_test(test_svg_v4),
      cmocka_unit_test(test_html),     cmocka_unit_test(test_stats_svg), cmocka_unit_test(test_errors),
      cmocka_unit_test(test_host_locale), cmocka_unit_test(test_bad_utf8),
  };
  return cmocka_run_group_tests(tests, NULL, test_tmpdir_remove);
}
