/* picture.c: pictures of the context-centric views (include/cct_picture.h):
 * an SVG "sandwich" (callee flame graph above the center, caller icicle
 * below), the same picture as an interactive HTML page that re-centers in the
 * browser, and an SVG of the center's distribution over profiles.  Every
 * number comes from the view core (cct_view_compute with the caller's spec)
 * or from the caller's cct_stats; this file only lays them out.  It writes
 * only to the FILE* it is given. */
#include "cct_picture.h"
#include "cct_escape.h"
#include "cct_util.h"
#include "cct_sqlite.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The style sheets and the page script (the .css and .js files of query/picture/), embedded by scripts/embed.cmake. */
extern const char cct_css_sandwich[], cct_css_page[], cct_css_stats[], cct_js_page[];

/* Geometry (pixels): margin, row pitch, header and caption heights, and the
 * estimated advance of one character of 12px monospace. */
enum { PM = 10, RH = 18, HEAD = 50, CAP = 18 };
#define CHAR_W 7.3
#define HTML_BUDGET 20000 /* frames of the embedded tree */

static const char *const kind_names[] = {"root", "function", "loop", "line", "instruction", "center", "file", "module"};

static const char *kind_name(int k) { return k >= 0 && k <= CCT_ROW_MODULE ? kind_names[k] : "function"; }

/* ---- text ---- */

/* Bytes of the first maxcp code points of s (a bad byte counts as one, as
 * the escaper turns it into one U+FFFD); *ncp gets their count. */
static size_t utf8_prefix(const char *s, size_t maxcp, size_t *ncp) {
  size_t n = strlen(s), end = 0, cp = 0;
  for (uint32_t c; end < n && cp < maxcp; cp++) end += cct_utf8_decode(s + end, n - end, &c);
  if (ncp) *ncp = cp;
  return end;
}

/* Code points in s. */
static size_t utf8_len(const char *s) {
  size_t n;
  utf8_prefix(s, SIZE_MAX, &n);
  return n;
}

/* Writes s (NULL as "") XML-escaped by the shared escaper (valid UTF-8, control
 * characters visible), at most maxcp code points of it. */
static void put_xml(FILE *out, const char *s, size_t maxcp) {
  if (!s) return;
  size_t end = utf8_prefix(s, maxcp, NULL);
  if (!s[end]) {
    cct_escape_write(out, s, CCT_ESC_XML);
    return;
  }
  char *cut = strndup(s, end);
  if (cut) cct_escape_write(out, cut, CCT_ESC_XML);
  else fputs("?", out); /* out of memory: the file stays well-formed */
  free(cut);
}

/* Writes s as a JSON string (NULL as null) by the shared escaper, with '<', '>'
 * and '&' also escaped so the text can sit inside a <script> element. */
static void put_json(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  char *e = cct_escape_dup(s, CCT_ESC_JSON);
  fputc('"', out);
  for (const char *p = e ? e : ""; *p; p++) { /* a literal < > & of e is one of s */
    if (*p == '<' || *p == '>' || *p == '&') fprintf(out, "\\u%04x", (unsigned)*p);
    else fputc(*p, out);
  }
  fputc('"', out);
  free(e);
}

/* A number for JSON / data attributes (finite, round-trip precision). */
static void put_num(FILE *out, double v) { fprintf(out, "%.17g", isfinite(v) ? v : 0.0); }

/* A value for people: integers as such, else 6 significant digits. */
static void fmt_val(double v, char *buf, size_t n) {
  if (isfinite(v) && v == floor(v) && fabs(v) < 1e15) snprintf(buf, n, "%.0f", v);
  else snprintf(buf, n, "%.6g", v);
}

static void fmt_pct(double v, double total, char *buf, size_t n) {
  if (total > 0) snprintf(buf, n, "%.1f%%", 100 * v / total);
  else snprintf(buf, n, "-");
}

/* ---- colors ---- */

/* FNV-1a: a hash that does not change between runs or builds. */
static uint32_t fnv1a(const char *s) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) h = (h ^ *p) * 16777619u;
  return h;
}

/* Warm palette: reds, oranges, ambers, yellows (flame-graph colors). */
static const char *const warm[] = {"#f4a261", "#e76f51", "#f6bd60", "#ee9b00", "#ca6702", "#f28482",
                                   "#ffb347", "#e9c46a", "#fb8500", "#ffd166", "#f3722c", "#f9844a",
                                   "#d4a373", "#f8961e", "#ffadad", "#ffc971"};

/* Fill of a frame: by module (hash of the path) or by kind. */
static const char *frame_color(int color_by, const cct_row *r) {
  if (r->kind == CCT_ROW_ROOT) return "#d9d9d9";
  if (color_by == CCT_PICTURE_COLOR_KIND) {
    switch (r->kind) {
    case CCT_ROW_LOOP: return "#8ecae6";
    case CCT_ROW_LINE: return "#b5e48c";
    case CCT_ROW_INSTRUCTION: return "#c9c9c9";
    default: return r->inlined ? "#ffd6a5" : "#f4a261";
    }
  }
  if (!r->module) return "#e0c9a6";
  return warm[fnv1a(r->module) % (sizeof warm / sizeof *warm)];
}

#define CENTER_FILL "#b39ddb"
#define ROOT_FILL "#d9d9d9"

/* ---- options ---- */

typedef struct popts {
  int width, color_by;
  double min_width;
} popts;

static popts resolve(const cct_picture_opts *o) {
  popts p = {1200, CCT_PICTURE_COLOR_MODULE, 0.1};
  if (o && o->width > 0) p.width = o->width < 300 ? 300 : o->width;
  if (o && o->color_by == CCT_PICTURE_COLOR_KIND) p.color_by = CCT_PICTURE_COLOR_KIND;
  if (o && o->min_width > 0) p.min_width = o->min_width;
  return p;
}

/* ---- layout of one half (a view drawn from its top row outwards) ---- */

typedef struct half {
  const cct_view *v;
  double *x, *w;
  int *parent;           /* handle of the parent row, 0 for the top row */
  unsigned char *drawn;
  int maxd;              /* deepest level drawn */
} half;

static void half_free(half *h) {
  free(h->x);
  free(h->w);
  free(h->parent);
  free(h->drawn);
  memset(h, 0, sizeof *h);
}

/* Widths proportional to inclusive (metric 0), the top row spanning fw from
 * x0; children packed from their parent's left edge in view order; rows
 * narrower than minw are left out with their subtrees. */
static int half_layout(half *h, const cct_view *v, double x0, double fw, double minw) {
  memset(h, 0, sizeof *h);
  h->v = v;
  size_t n = v->nrows;
  h->x = calloc(n + 1, sizeof *h->x);
  h->w = calloc(n + 1, sizeof *h->w);
  h->parent = calloc(n + 1, sizeof *h->parent);
  h->drawn = calloc(n + 1, 1);
  int maxdepth = 0;
  for (size_t i = 0; i < n; i++)
    if (v->rows[i].depth > maxdepth) maxdepth = v->rows[i].depth;
  double *fill = calloc((size_t)maxdepth + 2, sizeof *fill);
  int *hand = calloc((size_t)maxdepth + 2, sizeof *hand);
  if (!h->x || !h->w || !h->parent || !h->drawn || !fill || !hand) {
    free(fill);
    free(hand);
    half_free(h);
    return CCT_ENOMEM;
  }
  double top = n && v->nmetrics ? v->rows[0].inclusive[0] : 0;
  double scale = top > 0 ? fw / top : 0;
  int skip = -1;
  for (size_t i = 0; i < n; i++) {
    const cct_row *r = &v->rows[i];
    int d = r->depth;
    if (d == 0) {
      h->x[i] = x0;
      h->w[i] = fw;
      h->drawn[i] = 1;
      fill[0] = x0;
      hand[0] = r->handle;
      skip = -1;
      continue;
    }
    if (skip >= 0 && d > skip) continue;
    skip = -1;
    double val = v->nmetrics ? r->inclusive[0] : 0;
    double w = val > 0 ? val * scale : 0;
    h->x[i] = fill[d - 1];
    h->w[i] = w;
    h->parent[i] = hand[d - 1];
    fill[d - 1] += w;
    if (w < minw) {
      skip = d;
      continue;
    }
    fill[d] = h->x[i];
    hand[d] = r->handle;
    h->drawn[i] = 1;
    if (d > h->maxd) h->maxd = d;
  }
  free(fill);
  free(hand);
  return CCT_OK;
}

/* ---- the SVG sandwich ---- */

typedef struct modw {
  const char *module;
  double w;
} modw;

typedef struct svgctx {
  FILE *out;
  popts o;
  double total;   /* program total of metric 0 */
  double top;     /* the middle row's inclusive */
  int centered;
  modw mods[64];
  size_t nmods;
} svgctx;

static void note_module(svgctx *c, const char *module, double w) {
  if (!module) return;
  for (size_t i = 0; i < c->nmods; i++)
    if (!strcmp(c->mods[i].module, module)) {
      c->mods[i].w += w;
      return;
    }
  if (c->nmods < sizeof c->mods / sizeof *c->mods) c->mods[c->nmods++] = (modw){module, w};
}

/* Writes one frame: <g> with data attributes, tooltip, rect and label. */
static void svg_frame(svgctx *c, const half *h, size_t i, const char *part, double y) {
  FILE *out = c->out;
  const cct_row *r = &h->v->rows[i];
  double incl = h->v->nmetrics ? r->inclusive[0] : 0, excl = h->v->nmetrics ? r->exclusive[0] : 0;
  int top = r->depth == 0;
  const char *kind = top ? (c->centered ? "center" : "root") : kind_name(r->kind);
  fprintf(out, "<g class=\"frame%s\" data-part=\"%s\" data-handle=\"%d\" data-parent=\"%d\" data-depth=\"%d\" data-kind=\"%s\" data-name=\"",
          !top && r->center ? " member" : "", part, r->handle, h->parent[i], r->depth, kind);
  put_xml(out, r->name, SIZE_MAX);
  fputs("\" data-inclusive=\"", out);
  put_num(out, incl);
  fputs("\" data-exclusive=\"", out);
  put_num(out, excl);
  fputs("\"><title>", out);
  /* tooltip: name, file:line, module, values */
  put_xml(out, r->name, SIZE_MAX);
  if (r->callsite) {
    fputs(" @ ", out);
    put_xml(out, r->callsite, SIZE_MAX);
  }
  if (r->file) {
    fputc('\n', out);
    put_xml(out, r->file, SIZE_MAX);
    if (r->line >= 0) fprintf(out, ":%lld", r->line);
  }
  if (r->module) {
    fputs("\n[", out);
    put_xml(out, r->module, SIZE_MAX);
    fputc(']', out);
  }
  char v1[64], p1[32], p2[32];
  fmt_val(incl, v1, sizeof v1);
  fmt_pct(incl, c->total, p1, sizeof p1);
  fmt_pct(incl, c->top, p2, sizeof p2);
  fprintf(out, "\ninclusive %s (%s of program", v1, p1);
  if (c->centered && !top) fprintf(out, ", %s of center", p2);
  fmt_val(excl, v1, sizeof v1);
  fmt_pct(excl, c->total, p1, sizeof p1);
  fprintf(out, ")\nexclusive %s (%s of program)</title>", v1, p1);
  const char *fill = top ? (c->centered ? CENTER_FILL : ROOT_FILL) : frame_color(c->o.color_by, r);
  fprintf(out, "<rect x=\"%.3f\" y=\"%.0f\" width=\"%.3f\" height=\"%d\" rx=\"2\" fill=\"%s\"/>", h->x[i], y, h->w[i],
          RH - 1, fill);
  /* label: the name, shortened to what fits; the middle row adds its share */
  char extra[64] = "";
  if (top && c->centered) {
    fmt_pct(incl, c->total, p1, sizeof p1);
    snprintf(extra, sizeof extra, " \xe2\x80\x94 %s of program", p1);
  }
  size_t len = utf8_len(r->name ? r->name : "") + utf8_len(extra);
  long fit = (long)floor((h->w[i] - 6) / CHAR_W);
  if ((long)len <= fit || fit >= 3) {
    fprintf(out, "<text x=\"%.3f\" y=\"%.1f\">", h->x[i] + 3, y + 12.5);
    if ((long)len <= fit) {
      put_xml(out, r->name, SIZE_MAX);
      fputs(extra, out);
    } else {
      put_xml(out, r->name, (size_t)(fit - 2));
      fputs("..", out);
    }
    fputs("</text>", out);
  }
  fputs("</g>\n", out);
  if (!top) note_module(c, r->module, h->w[i]);
}

static int by_width(const void *a, const void *b) {
  const modw *x = a, *y = b;
  return x->w != y->w ? (x->w > y->w ? -1 : 1) : strcmp(x->module, y->module);
}

/* Legend under the picture; returns its height. */
static int svg_legend(svgctx *c, double y, int write) {
  static const struct {
    const char *label, *fill;
  } kinds[] = {{"function", "#f4a261"}, {"inlined", "#ffd6a5"}, {"loop", "#8ecae6"}, {"line", "#b5e48c"},
               {"instruction", "#c9c9c9"}};
  double x = PM, rowh = 18;
  int lines = 1;
  size_t n = c->o.color_by == CCT_PICTURE_COLOR_KIND ? 5 : c->nmods < 8 ? c->nmods : 8;
  if (c->o.color_by != CCT_PICTURE_COLOR_KIND) qsort(c->mods, c->nmods, sizeof *c->mods, by_width);
  if (write) fprintf(c->out, "<text class=\"cap\" x=\"%d\" y=\"%.1f\">%s</text>\n", PM, y + 12,
                     c->o.color_by == CCT_PICTURE_COLOR_KIND ? "colors by kind:" : "colors by module:");
  x += 118;
  for (size_t i = 0; i < n; i++) {
    const char *label, *fill;
    cct_row fake;
    memset(&fake, 0, sizeof fake);
    if (c->o.color_by == CCT_PICTURE_COLOR_KIND) {
      label = kinds[i].label;
      fill = kinds[i].fill;
    } else {
      fake.kind = CCT_ROW_FUNCTION;
      fake.module = c->mods[i].module;
      label = cct_basename(c->mods[i].module);
      fill = frame_color(c->o.color_by, &fake);
    }
    size_t cp = utf8_len(label);
    if (cp > 40) cp = 40;
    double w = 18 + cp * 6.5 + 14;
    if (x + w > c->o.width - PM && x > PM + 118) {
      x = PM + 118;
      y += rowh;
      lines++;
    }
    if (write) {
      fprintf(c->out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" rx=\"2\" fill=\"%s\"/>", x, y + 2, fill);
      fprintf(c->out, "<text class=\"cap\" x=\"%.1f\" y=\"%.1f\">", x + 17, y + 12);
      put_xml(c->out, label, 40);
      fputs("</text>\n", c->out);
    }
    x += w;
  }
  return (int)(lines * rowh);
}

/* Computes the views of the picture from spec: topdown always, bottomup with a center. */
static int picture_views(cct_query *q, const cct_view_spec *spec, cct_view **td, cct_view **bu, cct_err *err) {
  *td = *bu = NULL;
  if (spec->depth < 0) return cct_err_set(err, CCT_EUSAGE, "depth must be 0 or more");
  cct_view_spec s = *spec; /* the caller's view as a tree: its run, center, metric, filters, ... */
  s.view = CCT_VIEW_TOPDOWN;
  if (s.sort == CCT_SORT_OCCURRENCES) s.sort = CCT_SORT_INCLUSIVE; /* a flat order only */
  s.columns = NULL, s.ncolumns = 0, s.only_display = 1; /* frames show the display metric */
  int rc = cct_view_compute(q, &s, td, err);
  s.view = CCT_VIEW_BOTTOMUP;
  if (!rc && s.center && cct_center_size(s.center) > 0) rc = cct_view_compute(q, &s, bu, err);
  if (!rc && (!(*td)->nrows || !(*td)->nmetrics)) rc = cct_err_set(err, CCT_ENOTFOUND, "run %d has no metrics", (*td)->run);
  if (rc) {
    cct_view_free(*td);
    cct_view_free(*bu);
    *td = *bu = NULL;
  }
  return rc;
}

/* The SVG sandwich of spec's center (see cct_picture.h): CCT_OK or the error of a view / CCT_EIO. */
static int svg_sandwich(cct_query *q, const cct_view_spec *spec, const cct_picture_opts *opts, FILE *out, cct_err *err) {
  cct_view *td, *bu;
  int rc = picture_views(q, spec, &td, &bu, err), depth = spec->depth;
  if (rc) return rc;
  svgctx c;
  memset(&c, 0, sizeof c);
  c.out = out;
  c.o = resolve(opts);
  c.total = td->total[0];
  c.top = td->rows[0].inclusive[0];
  c.centered = bu != NULL;
  double fw = c.o.width - 2 * PM;
  half ht, hb;
  memset(&hb, 0, sizeof hb);
  if (half_layout(&ht, td, PM, fw, c.o.min_width) || (bu && half_layout(&hb, bu, PM, fw, c.o.min_width))) {
    half_free(&ht);
    cct_view_free(td);
    cct_view_free(bu);
    return cct_err_set(err, CCT_ENOMEM, "out of memory");
  }
  int dc = ht.maxd, db = bu ? hb.maxd : 0;
  double ytop = HEAD + CAP, yc = ytop + dc * RH, ybot = yc + RH + db * RH;
  double ylegend = ybot + (bu ? CAP : 0) + 6;
  /* the legend's height depends on the modules drawn: lay out the frames' modules first */
  for (size_t i = 1; i < td->nrows; i++)
    if (ht.drawn[i]) note_module(&c, td->rows[i].module, ht.w[i]);
  for (size_t i = 1; bu && i < bu->nrows; i++)
    if (hb.drawn[i]) note_module(&c, bu->rows[i].module, hb.w[i]);
  int lh = svg_legend(&c, ylegend, 0);
  c.nmods = 0;
  int height = (int)ylegend + lh + 8;
  const char *label = td->rows[0].name;
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
               "data-frame-width=\"%.0f\" data-total=\"", c.o.width, height, c.o.width, height, fw);
  put_num(out, c.total);
  fputs("\" data-center=\"", out);
  put_xml(out, c.centered ? label : "", SIZE_MAX);
  fputs("\" data-metric=\"", out);
  put_xml(out, td->metrics[0], SIZE_MAX);
  fprintf(out, "\" data-run=\"%d\" data-depth=\"%d\" data-min-width=\"%g\">\n", td->run, depth, c.o.min_width);
  fprintf(out, "<style>\n%s</style>\n", cct_css_sandwich);
  fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fffdf8\"/>\n", out);
  /* header */
  fprintf(out, "<text class=\"title\" x=\"%d\" y=\"22\">", PM);
  if (c.centered) {
    fputs("center ", out);
    put_xml(out, label, 120);
  } else {
    fputs("top-down: the whole program", out);
  }
  char v1[64], v2[64], p1[32];
  fmt_val(c.top, v1, sizeof v1);
  fmt_val(c.total, v2, sizeof v2);
  fmt_pct(c.top, c.total, p1, sizeof p1);
  fprintf(out, "</text>\n<text class=\"sub\" x=\"%d\" y=\"40\">", PM);
  put_xml(out, td->metrics[0], SIZE_MAX);
  fprintf(out, ", run %d, %s granularity: inclusive %s = %s of the program total %s", td->run,
          td->granularity == CCT_GRAN_LINE ? "line" : "function", v1, p1, v2);
  if (c.centered) fprintf(out, "; widths relative to the center");
  for (size_t i = 0; i < td->nfilters; i++) { /* the filters the values went through */
    fputs(i ? "; " : "; filters: ", out);
    put_xml(out, td->filters[i], SIZE_MAX);
  }
  fputs("</text>\n", out);
  /* captions */
  fprintf(out, "<text class=\"cap\" x=\"%d\" y=\"%.0f\">", PM, ytop - 5);
  if (!c.centered) fputs("\xe2\x96\xb2 callees, from the program root up (top-down)", out);
  else if (dc) {
    fputs("\xe2\x96\xb2 callees of ", out);
    put_xml(out, label, 80);
    fputs(" (top-down, merged over its outermost occurrences)", out);
  } else {
    fputs("no callees: all of the center's cost is its own", out);
  }
  fputs("</text>\n", out);
  for (size_t i = 0; i < td->nrows; i++)
    if (ht.drawn[i]) {
      int d = td->rows[i].depth;
      svg_frame(&c, &ht, i, d ? "callee" : c.centered ? "center" : "root", yc - d * RH);
    }
  if (bu) {
    for (size_t i = 1; i < bu->nrows; i++)
      if (hb.drawn[i]) svg_frame(&c, &hb, i, "caller", yc + bu->rows[i].depth * RH);
    fprintf(out, "<text class=\"cap\" x=\"%d\" y=\"%.0f\">", PM, ybot + 13);
    if (db) {
      fputs("\xe2\x96\xbc callers of ", out);
      put_xml(out, label, 80);
      fputs(" (bottom-up, each caller chain read downwards)", out);
    } else {
      fputs("no callers drawn", out);
    }
    fputs("</text>\n", out);
  }
  svg_legend(&c, ylegend, 1);
  fputs("</svg>\n", out);
  half_free(&ht);
  half_free(&hb);
  cct_view_free(td);
  cct_view_free(bu);
  if (ferror(out)) return cct_err_set(err, CCT_EIO, "cannot write the picture");
  return CCT_OK;
}

/* The SVG sandwich (see cct_picture.h), its numbers in the C locale whatever the host's. */
int cct_picture_svg(cct_query *q, const cct_view_spec *spec, const cct_picture_opts *opts, FILE *out, cct_err *err) {
  cct_c_numeric loc = cct_c_numeric_begin();
  int rc = svg_sandwich(q, spec, opts, out, err);
  cct_c_numeric_end(loc);
  return rc;
}

/* ---- the HTML page ---- */

/* Interned frame labels (the page's function table): an entry per distinct
 * (kind, name, file, line, module). */
typedef struct ftab {
  cct_hmap map;         /* (kind, line, hashes of name, file, module, salt) -> entry */
  const cct_row **rows; /* first row of each entry, for its facts */
  size_t n, cap;
} ftab;
#define FTAB_INIT {CCT_HMAP_INIT(6), NULL, 0, 0}

static void ftab_free(ftab *t) {
  cct_hmap_release(&t->map);
  free(t->rows);
  t->rows = NULL;
  t->n = t->cap = 0;
}

/* The kind a row's entry has: a center row is its function's. */
static int entry_kind(const cct_row *r) { return r->kind == CCT_ROW_CENTER ? CCT_ROW_FUNCTION : r->kind; }

static int same_text(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* Index of the entry for row r; -1 when out of memory.  The key holds hashes of
 * the strings: when two different entries share them, the salt word tells
 * them apart, so equal keys always mean equal facts. */
static int ftab_intern(ftab *t, const cct_row *r) {
  int64_t key[6] = {entry_kind(r), r->line, (int64_t)cct_hash_str(r->name), (int64_t)cct_hash_str(r->file),
                    (int64_t)cct_hash_str(r->module), 0};
  if (CCT_GROW(t->rows, t->n + 1, t->cap)) return -1;
  for (;; key[5]++) {
    int added;
    int64_t *v = cct_hmap_put(&t->map, key, (int64_t)t->n, &added);
    if (!v) return -1;
    if (added) {
      t->rows[t->n] = r;
      return (int)t->n++;
    }
    const cct_row *e = t->rows[*v];
    if (entry_kind(e) == key[0] && e->line == r->line && same_text(e->name, r->name) && same_text(e->file, r->file) &&
        same_text(e->module, r->module))
      return (int)*v;
  }
}

/* Writes the rows of v as [parent index, function entry, inclusive, exclusive,
 * center] (the top row has entry -1); keep[i] == 0 leaves row i (and, by the
 * caller's choice, its subtree) out.  Returns -1 when out of memory. */
static int json_rows(FILE *out, const cct_view *v, ftab *t, const unsigned char *keep, int with_center) {
  int maxd = 0;
  for (size_t i = 0; i < v->nrows; i++)
    if (v->rows[i].depth > maxd) maxd = v->rows[i].depth;
  long *at = malloc(((size_t)maxd + 2) * sizeof *at);
  if (!at) return -1;
  long n = 0;
  fputc('[', out);
  for (size_t i = 0; i < v->nrows; i++) {
    const cct_row *r = &v->rows[i];
    if ((keep && !keep[i]) || (r->depth > 0 && at[r->depth - 1] < 0)) {
      at[r->depth] = -1;
      continue;
    }
    int f = r->depth ? ftab_intern(t, r) : -1;
    if (r->depth && f < 0) {
      free(at);
      return -1;
    }
    fprintf(out, "%s\n[%ld,%d,", n ? "," : "", r->depth ? at[r->depth - 1] : -1L, f);
    put_num(out, v->nmetrics ? r->inclusive[0] : 0);
    fputc(',', out);
    put_num(out, v->nmetrics ? r->exclusive[0] : 0);
    if (with_center) fprintf(out, ",%d", r->depth == 0 || r->center);
    fputc(']', out);
    at[r->depth] = n++;
  }
  fputc(']', out);
  free(at);
  return 0;
}

static int by_desc(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

/* The whole program's top-down tree at function granularity in spec's run,
 * metric, filters and window, from the view core. */
static int full_tree(cct_query *q, const cct_view_spec *of, cct_view **out, cct_err *err) {
  cct_view_spec spec = {.view = CCT_VIEW_TOPDOWN, .run = of->run, .metric = of->metric, .filters = of->filters,
                        .nfilters = of->nfilters, .window = of->window, .only_display = 1,
                        .granularity = CCT_GRAN_FUNCTION, .depth = 1 << 20};
  return cct_view_compute(q, &spec, out, err);
}

/* The interactive page (see cct_picture.h): spec's views for the first picture, the
 * program's function-granularity tree for re-centering.  CCT_OK or an error. */
static int html_page(cct_query *q, const cct_view_spec *spec, const cct_picture_opts *opts, FILE *out, cct_err *err) {
  cct_view *td, *bu, *full = NULL;
  int rc = picture_views(q, spec, &td, &bu, err), depth = spec->depth;
  if (rc) return rc;
  popts o = resolve(opts);
  cct_err e2 = CCT_ERR_INIT;
  int have_full = full_tree(q, spec, &full, &e2) == CCT_OK && full->nrows && full->nmetrics;
  /* the frame budget: the heaviest frames (an ancestor is never lighter than its descendants) */
  unsigned char *keep = NULL;
  int truncated = 0;
  if (have_full && full->nrows > HTML_BUDGET) {
    double *vals = malloc(full->nrows * sizeof *vals);
    keep = calloc(full->nrows, 1);
    if (!vals || !keep) {
      free(vals);
      free(keep);
      cct_view_free(td);
      cct_view_free(bu);
      cct_view_free(full);
      return cct_err_set(err, CCT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < full->nrows; i++) vals[i] = full->rows[i].inclusive[0];
    qsort(vals, full->nrows, sizeof *vals, by_desc);
    double cutoff = vals[HTML_BUDGET - 1];
    size_t kept = 0;
    for (size_t i = 0; i < full->nrows; i++)
      if (full->rows[i].inclusive[0] >= cutoff && kept < HTML_BUDGET) keep[i] = 1, kept++;
    free(vals);
    truncated = 1;
  }
  ftab t = FTAB_INIT;
  cct_row progroot;
  memset(&progroot, 0, sizeof progroot);
  progroot.kind = CCT_ROW_ROOT;
  progroot.name = "<program root>";
  progroot.line = -1;
  int pr = ftab_intern(&t, &progroot);
  const char *label = td->rows[0].name;
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>cctq: ", out);
  put_xml(out, bu ? label : "whole program", 200);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", cct_css_page);
  fputs("<div id=\"bar\"><button id=\"reset\" type=\"button\">Reset</button>"
        "<label>search <input id=\"search\" type=\"search\" placeholder=\"regex, e.g. ^MPI_\"></label>"
        "<span>center: <b id=\"center\"></b></span><span id=\"status\"></span>"
        "<span style=\"margin-left:auto;color:#999\">click a frame to center on its function</span>",
        out);
  for (size_t i = 0; i < td->nfilters; i++) { /* the filters the values went through */
    fputs(i ? "; " : "<span id=\"filters\">filters: ", out);
    put_xml(out, td->filters[i], SIZE_MAX);
  }
  fputs(td->nfilters ? "</span></div>\n" : "</div>\n", out);
  fputs("<div id=\"pic\"></div>\n<script id=\"cct-data\" type=\"application/json\">\n{\"width\":", out);
  fprintf(out, "%d,\"minWidth\":%g,\"metric\":", o.width, o.min_width);
  put_json(out, td->metrics[0]);
  fprintf(out, ",\"run\":%d,\"total\":", td->run);
  put_num(out, td->total[0]);
  fputs(",\"threshold\":", out);
  put_num(out, spec->threshold);
  fprintf(out, ",\"depth\":%d,\"truncated\":%s,\"progRoot\":%d,\n\"tree\":", depth, truncated ? "true" : "false", pr);
  int bad = pr < 0;
  if (have_full) bad |= json_rows(out, full, &t, keep, 0);
  else {
    fputs("[[-1,-1,", out);
    put_num(out, td->total[0]);
    fputs(",0]]", out);
  }
  fputs(",\n\"initial\":{\"label\":", out);
  put_json(out, bu ? label : "<program>");
  fprintf(out, ",\"centered\":%s,\"callee\":", bu ? "true" : "false");
  bad |= json_rows(out, td, &t, NULL, 1);
  fputs(",\"caller\":", out);
  if (bu) bad |= json_rows(out, bu, &t, NULL, 1);
  else fputs("null", out);
  fputs("},\n\"funcs\":[", out);
  for (size_t i = 0; !bad && i < t.n; i++) {
    const cct_row *r = t.rows[i];
    fputs(i ? ",\n[" : "\n[", out);
    put_json(out, r->name);
    fputc(',', out);
    put_json(out, r->file);
    fprintf(out, ",%lld,", r->line);
    put_json(out, r->module);
    fprintf(out, ",%d,%d,\"%s\"]", r->kind, r->inlined, frame_color(o.color_by, r));
  }
  fputs("]}\n</script>\n<script>\n", out);
  fputs(cct_js_page, out);
  fputs("</script>\n</body>\n</html>\n", out);
  ftab_free(&t);
  free(keep);
  cct_view_free(td);
  cct_view_free(bu);
  cct_view_free(full);
  if (bad) return cct_err_set(err, CCT_ENOMEM, "out of memory");
  if (ferror(out)) return cct_err_set(err, CCT_EIO, "cannot write the page");
  return CCT_OK;
}

/* The interactive page (see cct_picture.h), its numbers in the C locale whatever the host's. */
int cct_picture_html(cct_query *q, const cct_view_spec *spec, const cct_picture_opts *opts, FILE *out, cct_err *err) {
  cct_c_numeric loc = cct_c_numeric_begin();
  int rc = html_page(q, spec, opts, out, err);
  cct_c_numeric_end(loc);
  return rc;
}

/* ---- the distribution over profiles ---- */

/* A round tick step giving about n ticks over range. */
static double nice_step(double range, int n) {
  if (!(range > 0)) return 1;
  double raw = range / n, mag = pow(10, floor(log10(raw))), r = raw / mag;
  return (r <= 1 ? 1 : r <= 2 ? 2 : r <= 5 ? 5 : 10) * mag;
}

/* Identity of a profile: 'rank 3 thread 1', 'gpu 0.2', ... */
static void profile_label(const struct cct_stats_profile *p, char *buf, size_t n) {
  size_t k = 0;
  buf[0] = 0;
  if (p->rank >= 0) k += (size_t)snprintf(buf + k, n - k, "rank %lld ", p->rank);
  if (p->thread >= 0 && k < n) k += (size_t)snprintf(buf + k, n - k, "thread %lld ", p->thread);
  if (p->gpucontext >= 0 && k < n) k += (size_t)snprintf(buf + k, n - k, "gpu context %lld ", p->gpucontext);
  if (p->gpustream >= 0 && k < n) k += (size_t)snprintf(buf + k, n - k, "stream %lld ", p->gpustream);
  if (k < n) snprintf(buf + k, n - k, "(profile %d)", p->profile);
}

/* Axes of a panel at (x, y) of size w x h: frame, y ticks up to ymax, labels. */
static void axes(FILE *out, double x, double y, double w, double h, double ymax, double step, const char *xlabel,
                 const char *ylabel) {
  fprintf(out, "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"#444\"/>\n", x, y, y + h, x + w);
  for (double t = 0; t <= ymax * (1 + 1e-9); t += step) {
    double ty = y + h - (ymax > 0 ? t / ymax * h : 0);
    char v[64];
    fmt_val(t, v, sizeof v);
    fprintf(out, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#e5dccb\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
            x, ty, x + w, x - 4, ty + 4, v);
  }
  fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + w / 2, y + h + 34);
  put_xml(out, xlabel, SIZE_MAX);
  fprintf(out, "</text>\n<text class=\"axis\" transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">",
          x - 58, y + h / 2);
  put_xml(out, ylabel, SIZE_MAX);
  fputs("</text>\n", out);
}

/* One kind's panels of the distribution SVG at height y: its figures, its
 * profiles as bars in the order of s->profiles (CCT_STATS_BY_* order) and its
 * histogram. */
static void stats_panels(FILE *out, const cct_stats *s, int order, int kind, double y) {
  const cct_stats_dist *d = &s->kinds[kind];
  const double ax = 80, ay = y + 50, aw = 470, ah = 270, bx = 660, bw = 310;
  int sums = order == CCT_STATS_RANK_SUMS; /* the entries are ranks, each the sum of its profiles */
  const char *what = kind == CCT_PROFILE_GPU ? sums ? "GPU streams per rank" : "GPU streams"
                     : sums                  ? "CPU threads per rank"
                                             : "CPU threads";
  char v1[64], v2[64], v3[64], v4[64], v5[64];
  fmt_val(d->min, v1, sizeof v1);
  fmt_val(d->max, v2, sizeof v2);
  fmt_val(d->mean, v3, sizeof v3);
  fmt_val(d->stddev, v4, sizeof v4);
  fmt_val(d->sum, v5, sizeof v5);
  int spread = d->count > 1 && d->min != d->max; /* else no histogram: its bins would all be one value */
  fprintf(out, "<text class=\"sub\" data-kind=\"%s\" x=\"10\" y=\"%.1f\">%s (%zu): ",
          kind == CCT_PROFILE_GPU ? "gpu" : "cpu", y + 12, what, d->count);
  if (d->min == 0 && d->max == 0) fputs("all zero</text>\n", out); /* as stats prints them */
  else if (d->count == 1) fprintf(out, "value %s (one profile)</text>\n", v5);
  else if (!spread) fprintf(out, "sum %s, each %s (all %zu profiles alike)</text>\n", v5, v1, d->count);
  else
    fprintf(out, "sum %s, min %s, max %s, mean %s, stddev %s, imbalance %.3f (max / mean)</text>\n", v5, v1, v2, v3,
            v4, d->imbalance);
  /* sorted bars */
  double top = d->max > 0 ? d->max : 1, step = nice_step(top, 5), ymax = ceil(top / step) * step;
  char xl[128];
  const char *by = order == CCT_STATS_BY_RANK || sums ? "rank" : order == CCT_STATS_BY_THREAD ? "thread" : "value";
  snprintf(xl, sizeof xl, "%s, sorted by %s (%zu)", what, by, d->count);
  axes(out, ax, ay, aw, ah, ymax, step, xl, s->metric);
  fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">per %s, by %s</text>\n", ax, ay - 10,
          sums ? "rank" : "profile", by);
  double bwid = d->count ? aw / (double)d->count : 0;
  for (size_t i = 0, j = 0; i < s->count; i++) {
    const struct cct_stats_profile *p = &s->profiles[i];
    if (p->kind != kind) continue;
    double v = p->value > 0 ? p->value : 0, h = v / ymax * ah;
    char id[160], val[64];
    profile_label(p, id, sizeof id);
    fmt_val(p->value, val, sizeof val);
    fprintf(out, "<rect class=\"bar\" data-profile=\"%d\" data-value=\"", p->profile);
    put_num(out, p->value);
    fprintf(out, "\" x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"#f4a261\"><title>%s: %s</title></rect>\n",
            ax + (double)j * bwid + (bwid > 3 ? 0.5 : 0), ay + ah - h, bwid > 3 ? bwid - 1 : bwid, h, id, val);
    j++;
  }
  double my = ay + ah - d->mean / ymax * ah;
  fprintf(out, "<path d=\"M%.1f %.3fH%.1f\" stroke=\"#6a4c93\" stroke-dasharray=\"5 3\"/>"
               "<text x=\"%.1f\" y=\"%.3f\" text-anchor=\"end\" fill=\"#6a4c93\">mean %s</text>\n",
          ax, my, ax + aw, ax + aw, my - 4, v3);
  if (!spread) return;
  /* histogram */
  size_t hmax = 1;
  for (size_t b = 0; b < s->bins; b++)
    if (d->histogram[b] > hmax) hmax = d->histogram[b];
  double hstep = nice_step((double)hmax, 5);
  if (hstep < 1) hstep = 1;
  double hy = ceil((double)hmax / hstep) * hstep;
  char yl[160];
  snprintf(yl, sizeof yl, "%s (%zu bins)", s->metric, s->bins);
  axes(out, bx, ay, bw, ah, hy, hstep, yl, "profiles");
  fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%.1f\" font-weight=\"bold\">histogram</text>\n", bx, ay - 10);
  double binw = s->bins ? bw / (double)s->bins : 0;
  for (size_t b = 0; b < s->bins; b++) {
    double lo = d->min + (d->max - d->min) * (double)b / (double)s->bins;
    double hi = d->min + (d->max - d->min) * (double)(b + 1) / (double)s->bins;
    double h = (double)d->histogram[b] / hy * ah;
    fmt_val(lo, v1, sizeof v1);
    fmt_val(hi, v2, sizeof v2);
    fprintf(out, "<rect class=\"bin\" data-count=\"%zu\" x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" "
                 "fill=\"#e76f51\" fill-opacity=\"0.8\"><title>%s .. %s: %zu profiles</title></rect>\n",
            d->histogram[b], bx + (double)b * binw + 1, ay + ah - h, binw > 2 ? binw - 2 : binw, h, v1, v2,
            d->histogram[b]);
  }
  for (int k = 0; k <= 2 && s->bins; k++) {
    double xv = d->min + (d->max - d->min) * k / 2.0;
    fmt_val(xv, v1, sizeof v1);
    fprintf(out, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", bx + bw * k / 2.0,
            ay + ah + 16, v1);
  }
}

/* The distribution of the center over profiles (see cct_picture.h): one set
 * of panels per kind of profile (CPU threads, GPU streams), never figures
 * pooled over both, as stats prints them; a run without per-profile data says
 * so.  CCT_OK or an error. */
static int stats_svg(const cct_stats *s, const cct_center *center, int order, FILE *out, cct_err *err) {
  int nk = (s->kinds[0].count > 0) + (s->kinds[1].count > 0);
  const int W = 1000, H = 40 + (nk ? nk : 1) * 380;
  size_t nc = center ? cct_center_size(center) : 0;
  const char *label = nc == 0 ? "<program>" : nc == 1 ? cct_center_text(center, 0) : "<multiple contexts>";
  fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
               "height=\"%d\" viewBox=\"0 0 %d %d\" data-count=\"%zu\" data-center=\"",
          W, H, W, H, s->count);
  put_xml(out, label, SIZE_MAX);
  fprintf(out, "\">\n<style>\n%s</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fffdf8\"/>\n", cct_css_stats);
  fputs("<text class=\"title\" x=\"10\" y=\"22\">", out);
  put_xml(out, s->metric, SIZE_MAX);
  fputs(" inclusive of ", out);
  put_xml(out, label, 100);
  if (s->count)
    fprintf(out, " over %zu %s%s</text>\n", s->count, order == CCT_STATS_RANK_SUMS ? "rank" : "profile",
            s->count == 1 ? "" : "s");
  else
    fputs(": no per-profile data</text>\n", out);
  if (s->note) {
    fputs("<text class=\"sub\" x=\"10\" y=\"42\">", out);
    put_xml(out, s->note, SIZE_MAX);
    fputs("</text>\n", out);
  }
  for (int k = 0, i = 0; k < 2; k++)
    if (s->kinds[k].count) stats_panels(out, s, order, k, 50.0 + 380.0 * i++);
  fputs("</svg>\n", out);
  if (ferror(out)) return cct_err_set(err, CCT_EIO, "cannot write the picture");
  return CCT_OK;
}

/* The distribution SVG (see cct_picture.h), its numbers in the C locale whatever the host's. */
int cct_picture_stats_svg(const cct_stats *s, const cct_center *center, int order, FILE *out, cct_err *err) {
  cct_c_numeric loc = cct_c_numeric_begin();
  int rc = stats_svg(s, center, order, out, err);
  cct_c_numeric_end(loc);
  return rc;
}
