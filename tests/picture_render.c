/* picture_render.c: test driver for the pictures of the cct_query library
 * (include/cct_picture.h).  Opens an archive, applies centers, and writes the
 * SVG sandwich, the HTML page, the stats SVG and/or the views behind them as
 * JSON, so that tests/cli/picture_browser.sh can compare what the browser
 * draws with what the library computes.
 *
 *   picture_render ARCHIVE [-c ITEM]... [-d DEPTH] [-w WIDTH] [-k]
 *                  [-s OUT.svg] [-H OUT.html] [-S OUT-stats.svg] [-j OUT.json]
 *
 * -c: center item (the first replaces, the others add); -d: depth (4);
 * -w: width in pixels; -k: color by kind; -j: {"center", "total",
 * "frame_width", "topdown": [rows], "bottomup": [rows] | null}, rows with
 * handle, parent, depth, name, inclusive, exclusive (metric 0).
 * Exit status 0, 1 on a library error (message on stderr), 2 on bad usage. */
#include "cct_picture.h"
#include "cct_query.h"
#include "unit/test_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void json_view(FILE *f, const cct_view *v) {
  if (!v) {
    fputs("null", f);
    return;
  }
  int parent[256] = {0};
  fputc('[', f);
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    int d = r->depth < 255 ? r->depth : 255;
    parent[d] = r->handle;
    fprintf(f, "%s\n{\"handle\":%d,\"parent\":%d,\"depth\":%d,\"name\":", i ? "," : "", r->handle,
            d ? parent[d - 1] : 0, r->depth);
    json_str(f, r->name);
    fprintf(f, ",\"inclusive\":%.17g,\"exclusive\":%.17g}", v->nmetrics ? r->inclusive[0] : 0.0,
            v->nmetrics ? r->exclusive[0] : 0.0);
  }
  fputs("]", f);
}

/* Opens path for writing, runs fn, closes; returns the exit status. */
static int write_with(const char *path, cct_query *q, int depth, const cct_picture_opts *o, int what) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  cct_err e = CCT_ERR_INIT;
  int rc = test_picture(q, what, depth, o, f, &e);
  if (fclose(f) && !rc) rc = cct_err_set(&e, CCT_EIO, "cannot write %s", path);
  if (rc) fprintf(stderr, "picture_render: %s\n", e.msg);
  return rc ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: picture_render ARCHIVE [-c ITEM]... [-d DEPTH] [-w W] [-k] [-s SVG] [-H HTML] [-S SVG] [-j JSON]\n");
    return 2;
  }
  cct_query *q = NULL;
  cct_err e = CCT_ERR_INIT;
  if (cct_query_open(argv[1], &q, &e)) {
    fprintf(stderr, "picture_render: %s\n", e.msg);
    return 1;
  }
  cct_query_set_hotpath(q, 0); /* the page re-centers with every level to the depth, as these views then do */
  int depth = 4, ncenter = 0, status = 0;
  cct_picture_opts o = {0, CCT_PICTURE_COLOR_MODULE, 0};
  const char *svg = NULL, *html = NULL, *stats = NULL, *json = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-k")) {
      o.color_by = CCT_PICTURE_COLOR_KIND;
      continue;
    }
    if (!v || a[0] != '-' || strlen(a) != 2) {
      fprintf(stderr, "picture_render: bad argument '%s'\n", a);
      cct_query_close(q);
      return 2;
    }
    i++;
    switch (a[1]) {
    case 'c':
      if (cct_center_apply(q, ncenter++ ? CCT_CENTER_ADD : CCT_CENTER_SET, v, &e)) {
        fprintf(stderr, "picture_render: %s\n", e.msg);
        cct_query_close(q);
        return 1;
      }
      break;
    case 'd': depth = atoi(v); break;
    case 'w': o.width = atoi(v); break;
    case 's': svg = v; break;
    case 'H': html = v; break;
    case 'S': stats = v; break;
    case 'j': json = v; break;
    default:
      fprintf(stderr, "picture_render: bad option '%s'\n", a);
      cct_query_close(q);
      return 2;
    }
  }
  if (svg) status |= write_with(svg, q, depth, &o, 0);
  if (html) status |= write_with(html, q, depth, &o, 1);
  if (stats) status |= write_with(stats, q, depth, &o, 2);
  if (json) {
    cct_view *td = NULL, *bu = NULL;
    FILE *f = fopen(json, "w");
    if (!f || test_view(q, CCT_VIEW_TOPDOWN, depth, 0, &td, &e) || (ncenter && test_view(q, CCT_VIEW_BOTTOMUP, depth, 0, &bu, &e))) {
      fprintf(stderr, "picture_render: %s\n", f ? e.msg : json);
      status = 1;
    } else {
      fputs("{\"center\":", f);
      json_str(f, ncenter ? td->rows[0].name : "");
      fprintf(f, ",\"total\":%.17g,\"frame_width\":%d,\n\"topdown\":", td->total[0], (o.width ? o.width : 1200) - 20);
      json_view(f, td);
      fputs(",\n\"bottomup\":", f);
      json_view(f, bu);
      fputs("}\n", f);
    }
    if (f && fclose(f)) status = 1;
    cct_view_free(td);
    cct_view_free(bu);
  }
  cct_query_close(q);
  return status;
}
